// The PNG bytes as libpng (or yc_png_idat.c) reads them: the chunk stream followed whatever the read sizes —
// the critical chunks' CRCs, the chunks that come after the image data, and the bound on image data after the
// last row — and a reader that says why it stopped. Split from yc_png.c by role.
#include "yc_decode_internal.h"
#include "yc_signals.h"
#include "yc_checksums.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int chunk_letter(uint8_t c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

int yc_png_chunk_type_valid(const uint8_t type[4]) {
    return chunk_letter(type[0]) && chunk_letter(type[1]) && chunk_letter(type[2]) && chunk_letter(type[3]);
}

void yc_png_chunk_name(const uint8_t type[4], char name[17]) {
    size_t at = 0;
    for (int i = 0; i < 4; i++) at += (size_t)snprintf(name + at, 17 - at, chunk_letter(type[i]) ? "%c" : "[%02X]", type[i]);
}

// A colour or transparency chunk's type, once, in the list of those after the image data (`late_colour`): a
// tRNS there (out of place for libpng, which skips it) would have made pixels transparent under --alpha keep.
// With colour management off (`unmanaged`) the colour chunks are not looked at, late or not: tRNS alone is said.
static void note_late_colour(struct yc_png_chunks *k, int unmanaged) {
    const char *type = (const char *)k->header + 4;
    if (memcmp(type, "tRNS", 4) != 0 && (unmanaged || !yc_png_colour_chunk(type))) return;
    const char name[5] = {type[0], type[1], type[2], type[3], 0};
    if (strstr(k->late_colour, name)) return;
    size_t n = strlen(k->late_colour);
    if (n + 6 < sizeof k->late_colour) snprintf(k->late_colour + n, sizeof k->late_colour - n, "%s%s", n ? ", " : "", name);
}

int yc_png_colour_chunk(const char *type) {
    static const char *const colour[] = {"iCCP", "cICP", "sRGB", "gAMA", "cHRM"};
    for (int i = 0; i < 5; i++)
        if (memcmp(type, colour[i], 4) == 0) return 1;
    return 0;
}

// An iTXt after the image data: libpng skips it unread (png_read_end without an info struct, which keeps its
// messages those of yc_png_idat.c's walk), yet an XMP orientation in it comes too late and must be said. So its
// data is gathered here as it goes by, on both routes, when it may matter (yc_png_itxt_wanted) and is within the
// 8 MiB libpng allows a chunk (a longer one is warned about).
static void keep_late_itxt(yc_decoder *dec) {
    struct yc_png_chunks *k = &dec->png_chunks;
    if (k->left == 0 || k->left > YC_PNG_CHUNK_MAX || !yc_png_itxt_wanted(dec)) return;
    k->late_itxt = malloc(k->left);
    k->late_itxt_at = 0;
}

// The gathered iTXt, its CRC read: acted on only when that is right (libpng does not act on a damaged chunk).
static void late_itxt_read(yc_decoder *dec) {
    struct yc_png_chunks *k = &dec->png_chunks;
    const size_t n = k->late_itxt_at;
    if (png_get_uint_32(k->stored) == yc_crc32(yc_crc32(0, k->header + 4, 4), k->late_itxt, n))
        yc_png_itxt(dec, k->late_itxt, n);
    free(k->late_itxt);
    k->late_itxt = NULL;
}

// PNG allows one iCCP. libpng, given more, keeps the last accepted one without a word (and keeps a profile whose
// chunk fails its CRC), while a second eXIf or cICP is ignored with a warning and the first one used. So here
// the first intact iCCP libpng accepted is the file's profile: once there is one, libpng is told — as the
// next iCCP's header goes by, before it looks at the type — to treat that chunk and any after it as unknown
// (`png_user_chunk` drops them), and the warning says so (only when colour management reads profiles). A
// first one that failed its CRC or that libpng rejected does not shut out a later one (libpng itself reads no
// more after some rejections: the profile is then broken, as before). But after two damaged ones no more are
// read: libpng inflates every one it keeps (up to 8 MiB), so a file of damaged profiles, each inflating to 8 MB,
// cost 2.2 s of CPU a MB of file (colour management off or not). (One libpng turns away before inflating it, too
// short to hold a profile, costs nothing and is not counted.)
enum { YC_PNG_ICCP_DAMAGED_MAX = 2 };
static const void *held_profile(yc_decoder *dec, png_structp png) {
    png_charp name = NULL;
    int compression = 0;
    png_bytep profile = NULL;
    png_uint_32 length = 0;
    return png_get_iCCP(png, dec->png_info, &name, &compression, &profile, &length) ? profile : NULL;
}

void yc_png_iccp_settle(yc_decoder *dec) {
    struct yc_png_chunks *k = &dec->png_chunks;
    if (!k->iccp_pending || k->iccp_reading) return;
    if (held_profile(dec, dec->png) != k->iccp_before) {
        k->iccp_crc_bad = k->iccp_pending_bad;
        k->iccp_damaged += k->iccp_pending_bad;
    }
    k->iccp_pending = 0;
}

static void next_iccp(yc_decoder *dec, png_structp png, struct yc_png_chunks *k) {
    if (k->iccp_skipping) return;
    yc_png_iccp_settle(dec);
    const int kept = k->seen_iccp > 0 && !k->iccp_crc_bad && png_get_valid(png, dec->png_info, PNG_INFO_iCCP);
    if (kept || k->iccp_damaged >= YC_PNG_ICCP_DAMAGED_MAX) {
        static const png_byte iccp[] = {'i', 'C', 'C', 'P', '\0'};
        // From here libpng hands each iCCP to `png_user_chunk` as one it does not know, which drops it.
        png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, iccp, 1);
        k->iccp_skipping = 1;
        if (dec->colour_target >= 0)
            yc_warn(dec, kept ? "iCCP: a second iCCP chunk, ignored (a PNG has one: the first is read)"
                              : "iCCP: more iCCP chunks after two damaged ones, ignored (a PNG has one)");
        return;
    }
    // One before this that was not kept (its chunk failed its CRC, or libpng refused its profile): ignored, and
    // said, as a second intact one is (damaged then intact drew no word, intact then damaged one).
    if (k->seen_iccp > 0 && dec->colour_target >= 0)
        yc_warn(dec, "iCCP: an iCCP chunk that is damaged (its checksum fails, or its profile cannot be used), ignored; "
                     "the next one is read");
    k->seen_iccp++;
    k->iccp_before = held_profile(dec, png);
    k->iccp_reading = k->iccp_pending = 1;   // its CRC is taken as it goes by
}

// libpng checks the image data's Adler-32 only if it reads that far: after the last row it makes one more
// inflate call and skips the rest, so a checksum in a later IDAT chunk, or cut over two, was never compared
// (a wrong one: exit 0 without a word; in a chunk of its own: only a warning), while yuvconv's own reader
// (yc_png_idat.c) refuses it. On libpng's route the data is therefore inflated a second time as it goes by,
// into a scratch buffer, and the stream must end with the right checksum: one rule for both routes. It costs
// one more inflate of the image (libpng's route keeps interlaced, 1/2/4-bit grey and tRNS-keyed images).
int yc_png_verify_begin(yc_decoder *dec) {
    struct yc_png_chunks *k = &dec->png_chunks;
    k->verify_out = malloc(32 * 1024);
    // windowBits 0: the window the zlib header declares, as libpng and yuvconv's own reader inflate with (a
    // distance past it is an error there).
    if (!k->verify_out || inflateInit2(&k->verify, 0) != Z_OK) {
        free(k->verify_out);
        k->verify_out = NULL;
        return 0;
    }
    k->verify_state = 1;
    return 1;
}

static void verify_feed(struct yc_png_chunks *k, const uint8_t *p, size_t n) {
    k->verify.next_in = (Bytef *)(uintptr_t)p;
    k->verify.avail_in = (uInt)n;
    while (k->verify_state == 1 && k->verify.avail_in > 0) {
        k->verify.next_out = k->verify_out;
        k->verify.avail_out = 32 * 1024;
        const int rc = inflate(&k->verify, Z_NO_FLUSH);
        if (rc == Z_STREAM_END) k->verify_state = 2;
        else if (rc != Z_OK && rc != Z_BUF_ERROR) k->verify_state = -1;
        else if (rc == Z_BUF_ERROR && k->verify.avail_in > 0 && k->verify.avail_out > 0) k->verify_state = -1;
    }
}

void yc_png_verify_end(yc_decoder *dec) {
    struct yc_png_chunks *k = &dec->png_chunks;
    if (k->verify_state == 0 || k->verify_state == 2) return;
    // The stream never ended, or ended only in image data after another chunk.
    if (k->verify_state == 1 || k->verify_state == -2) png_error(dec->png, "Not enough image data");
    char msg[YC_MSG];
    snprintf(msg, sizeof msg, "IDAT: %s", k->verify.msg ? k->verify.msg : "damaged compressed data");
    png_error(dec->png, msg);
}

void yc_png_verify_free(yc_decoder *dec) {
    struct yc_png_chunks *k = &dec->png_chunks;
    if (k->verify_out) inflateEnd(&k->verify);
    free(k->verify_out);
    k->verify_out = NULL;
}

// The critical chunks' CRC-32s are checked here, on the bytes as libpng reads them, rather than by libpng:
// zlib's table CRC cost a 12 MP photo's decode 10–20 ms of its 190, the carry-less multiplication in
// yc_crc32 about 3. The chunk stream (signature, then length, type, data, CRC) is followed whatever the read
// sizes; the check fires as the CRC's last byte is read, when libpng itself would check it, with libpng's
// message. Ancillary chunks are checked by libpng (a warning, the chunk discarded), or here with a warning
// after image data that yc_png_idat.c read (`ancillary_too`).
static void png_follow_chunks(yc_decoder *dec, png_structp png, const uint8_t *p, size_t n) {
    struct yc_png_chunks *k = &dec->png_chunks;
    while (n > 0) {
        size_t take;
        switch (k->state) {
        case 0:   // the 8-byte signature
            take = n < 8 - k->at ? n : 8 - k->at;
            k->at += take;
            if (k->at == 8) { k->state = 1; k->at = 0; }
            break;
        case 1:   // length and type
            take = n < 8 - k->at ? n : 8 - k->at;
            memcpy(k->header + k->at, p, take);
            k->at += take;
            if (k->at == 8) {
                k->left = png_get_uint_32(k->header);
                k->critical = !(k->header[4] & 0x20);
                k->crc = yc_crc32(0, k->header + 4, 4);
                yc_png_iccp_settle(dec);   // libpng is done with the chunk before
                // Image data resumed after another chunk is not the image's (yuvconv's own reader stops at the
                // first chunk that is not IDAT): the second inflate must not finish the stream with it.
                if (k->seen_idat && k->verify_state == 1 && memcmp(k->header + 4, "IDAT", 4) != 0) k->verify_state = -2;
                // Image data in a whole IDAT chunk after the zlib stream has ended (its checksum read, by yuvconv's
                // reader or the second inflate) is not the image's: skipped on both routes, as libpng skips it,
                // but said, as data left in the stream's last chunk is ("Extra compressed data").
                if (memcmp(k->header + 4, "IDAT", 4) == 0 && k->left > 0 && !k->after_stream_warned &&
                    (dec->png_idat.trailer_read || k->verify_state == 2)) {
                    k->after_stream_warned = 1;
                    yc_warn(dec, "IDAT: image data after the end of the compressed stream, ignored");
                }
                // An animated PNG (APNG, acTL before the image data): the default image is what yuvconv, libpng
                // and every reader without APNG take; said, as the frames after it are not converted, and when
                // no fcTL before the data makes that image the first frame, APNG viewers never show it.
                if (!k->seen_idat && memcmp(k->header + 4, "acTL", 4) == 0) k->animated = 1;
                if (!k->seen_idat && memcmp(k->header + 4, "fcTL", 4) == 0) k->frame_before_idat = 1;
                if (!k->seen_idat && k->animated && memcmp(k->header + 4, "IDAT", 4) == 0) {
                    yc_warn(dec, k->frame_before_idat
                        ? "an animated PNG (APNG): its default image, the animation's first frame, is converted, not the "
                          "animation"
                        : "an animated PNG (APNG) whose default image is no frame of the animation: that image is "
                          "converted, which APNG viewers do not show");
                }
                if (memcmp(k->header + 4, "IDAT", 4) == 0) k->seen_idat = 1;
                else if (!k->seen_idat && memcmp(k->header + 4, "iCCP", 4) == 0) next_iccp(dec, png, k);
                else if (k->seen_idat && memcmp(k->header + 4, "eXIf", 4) == 0) k->late_exif = 1;
                else if (k->seen_idat && memcmp(k->header + 4, "iTXt", 4) == 0) keep_late_itxt(dec);
                else if (k->seen_idat) note_late_colour(k, dec->colour_target < 0);
                // A critical chunk PNG does not define, after the image data (both routes skipped it in silence, while
                // one before the data fails the file): a newer format or damage, said. Neither route reads it.
                if (k->seen_idat && k->critical && !yc_png_known_critical(k->header + 4)) yc_png_late_critical(dec, k->header + 4);
                // So is a PLTE there (libpng's "PLTE: out of place", which reached no one): the palette is the one before.
                if (k->seen_idat && memcmp(k->header + 4, "PLTE", 4) == 0) {
                    yc_warn(dec, "the PNG has a PLTE chunk after its image data, where PNG allows none (a damaged file); "
                                 "ignored: a palette picture takes the one before its image data");
                }
                k->state = k->left ? 2 : 3;
                k->at = 0;
            }
            break;
        case 2:   // data
            take = n < k->left ? n : (size_t)k->left;
            // Image data after the last row is no image data, and inflating it costs time for nothing (3.5 GiB
            // of deflated zeros after the rows took 8 s, exit 0): counted as read, on both routes. yuvconv's own
            // sentence, not libpng's words (it was shown as libpng's, in parentheses after a sentence of its own).
            if (k->tail_cap && memcmp(k->header + 4, "IDAT", 4) == 0 && (k->tail += take) > k->tail_cap)
                png_error(png, "the PNG's image data goes on more than 64 KiB past its last row (a decompression bomb, "
                               "or damage): refused");
            if (k->critical || k->ancillary_too || k->iccp_reading) k->crc = yc_crc32(k->crc, p, take);
            if (k->verify_state == 1 && memcmp(k->header + 4, "IDAT", 4) == 0) verify_feed(k, p, take);
            if (k->late_itxt) {
                memcpy(k->late_itxt + k->late_itxt_at, p, take);
                k->late_itxt_at += take;
            }
            k->left -= (uint32_t)take;
            if (k->left == 0) k->state = 3;
            break;
        default:  // the stored CRC
            take = n < 4 - k->at ? n : 4 - k->at;
            memcpy(k->stored + k->at, p, take);
            k->at += take;
            if (k->at == 4) {
                if ((k->critical || k->ancillary_too) && png_get_uint_32(k->stored) != k->crc) {
                    char msg[YC_MSG], name[17];
                    yc_png_chunk_name(k->header + 4, name);
                    snprintf(msg, sizeof msg, "%s: CRC error", name);
                    if (k->critical) png_error(png, msg);
                    yc_warn(dec, msg);
                }
                if (k->late_itxt) late_itxt_read(dec);
                if (k->iccp_reading) {
                    k->iccp_pending_bad = png_get_uint_32(k->stored) != k->crc;
                    k->iccp_reading = 0;
                }
                k->state = 1;
                k->at = 0;
            }
            break;
        }
        p += take;
        n -= take;
    }
}

// libpng's stdio reader says only "Read Error" for both a file that ends early and a failing read.
void yc_png_read_fn(png_structp png, png_bytep data, size_t length) {
    yc_decoder *dec = png_get_io_ptr(png);
    if (yc_interrupted()) {
        dec->error_kind = YC_ERROR_INTERRUPTED;   // said as an interrupted JPEG is (png_error_fn keeps the kind)
        png_error(png, "interrupted");
    }
    // No more than a stream may deliver (`yc_file_read_allowed`): skipped chunks are read through to their end.
    // (Said by ImageDecoder.failure, from yc_file_over_limit: one sentence for JPEG and PNG, files and streams.)
    if (!yc_file_read_allowed(dec, length)) png_error(png, "over the read limit");
    if (fread(data, 1, length, dec->png_file) == length) {
        png_follow_chunks(dec, png, data, length);
        return;
    }
    if (ferror(dec->png_file)) {
        char msg[YC_MSG];
        snprintf(msg, sizeof msg, "cannot read the file: %s", strerror(errno));
        png_error(png, msg);
    }
    // Every row read already (`yc_png_rows_done`): what is missing is the end of the file, not of the picture.
    if (dec->png_chunks.tail_cap)
        png_error(png, "the file ends after the last row of the image, without the end of its data or the IEND chunk "
                       "that ends a PNG (truncated PNG)");
    png_error(png, "the file ends before the image does (truncated PNG)");
}

void yc_png_read(yc_decoder *dec, uint8_t *buf, size_t n) { yc_png_read_fn(dec->png, buf, n); }

void yc_png_rows_done(yc_decoder *dec) {
    // What a valid file holds after its last row's data: the end of the zlib stream and its checksum. 64 KiB
    // of compressed data is far more than that, and inflates to at most about 64 MiB.
    if (dec->png_chunks.tail_cap) return;
    dec->png_chunks.tail = 0;
    dec->png_chunks.tail_cap = 64u << 10;
}

// libpng's route: a user transform is called for each row once it is inflated and unfiltered, before libpng
// finishes the image data (which, after the last row, inflates whatever follows): the last row with data
// starts the count there (`yc_png_rows_done`).
void yc_png_row_inflated(png_structp png, png_row_infop row_info, png_bytep data) {
    (void)row_info;
    (void)data;
    yc_decoder *dec = png_get_io_ptr(png);
    if ((int)png_get_current_pass_number(png) == dec->png_last_pass && png_get_current_row_number(png) == dec->png_last_pass_row)
        yc_png_rows_done(dec);
}
