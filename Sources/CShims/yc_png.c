// The PNG half of the decoder: libpng's errors kept inside C, transformations to R,G,B(,X) rows, and rows
// (interlaced too). The chunks beside the image — those skipped, the XMP iTXt and eXIf, the colour chunks — are
// yc_png_chunks.c's; the bytes as they are read — the chunk stream, its CRCs, late chunks and the bound on image
// data — are yc_png_stream.c's.
#include "yc_decode_internal.h"
#include "yc_signals.h"
#include "yc_checksums.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void png_error_fn(png_structp png, png_const_charp msg) {
    yc_decoder *dec = png_get_error_ptr(png);
    // The chunk whose header was read last.
    const uint8_t *type = dec->png_chunks.header + 4;
    // libpng's "Invalid IHDR data" follows a warning that says what is wrong with the header (the first
    // chunk, so the first warning): a width above its 1,000,000-pixel limit is a valid PNG, not a damaged one.
    if (strcmp(msg, "Invalid IHDR data") == 0 && dec->warnings > 0 && strstr(dec->first_warning, "IHDR")) {
        char both[YC_MSG];
        snprintf(both, sizeof both, "%s: %s", msg, dec->first_warning);
        yc_set_error(dec, both);
    // The image data over before the picture, at a chunk other than the end (a PNG's IDAT chunks follow each other:
    // one between them ends the data, for libpng and yuvconv's reader alike): said with that chunk, on both routes.
    } else if (strcmp(msg, "Not enough image data") == 0 && dec->png_chunks.seen_idat && dec->png_chunks.state >= 2 &&
               memcmp(type, "IDAT", 4) != 0 && memcmp(type, "IEND", 4) != 0) {
        char name[17], with[YC_MSG];
        yc_png_chunk_name(type, name);
        snprintf(with, sizeof with, "%s (broken off by chunk %s)", msg, name);
        yc_set_error(dec, with);
    } else {
        yc_set_error(dec, msg);
    }
    longjmp(dec->jump, 1);
}

// Why libpng turned an iCCP away, as a sentence, libpng's words after it; NULL for its warnings that keep the
// profile (an unknown rendering intent or profile class, a PCS illuminant other than D50, a tag start off a
// 4-byte boundary: libpng keeps such a profile, and LittleCMS decides — it refuses an unknown class, said as a
// profile it cannot read; bytes after the compressed profile, which libpng drops).
// Those came first in libpng's checks, so a profile with one of them and a real flaw was said rejected for the
// harmless one. Only libpng's reason is compared — the words after its last ": " — never the profile's name,
// which its message quotes ("iCCP: profile 'NAME': 64h: too short") and a file may fill with a reason's words.
// One table, each reason libpng 1.6 gives.
static const char *iccp_reason(const char *msg) {
    static const struct { const char *reason, *said; } reasons[] = {
        {"intent outside defined range", NULL},
        {"PCS illuminant is not D50", NULL},
        {"unexpected NamedColor ICC profile class", NULL},
        {"unrecognized ICC profile class", NULL},
        {"ICC profile tag start not a multiple of 4", NULL},
        {"extra compressed data", NULL},
        {"out-of-date sRGB profile with no signature", NULL},
        {"Not recognizing known sRGB profile that has been edited", NULL},
        {"known incorrect sRGB profile", "it is a known faulty copy of the sRGB profile"},
        // Inflated data that ends before the size the profile's header gives (a cut profile, or a size field too
        // large), or damaged compressed data.
        {"unexpected zlib return code", "the profile ends before the size its header gives, or its compressed data is damaged"},
        {"bad keyword", "its name is empty or longer than PNG's 79 characters"},
        {"bad compression method", "it names a compression method PNG does not define"},
        {"out of memory", "there was not enough memory to inflate it"},
        {"insufficient memory", "there was not enough memory to inflate it"},
        {"exceeds application limits", "its header gives a size over the 8 MiB yuvconv reads in a PNG chunk"},
        {"exceeds libpng limits", "its header gives a size over libpng's limit"},
        {"exceeds system limits", "its header gives a size over what this system can hold"},
        {"length does not match profile", "its header gives another size than the inflated profile has"},
        {"invalid length", "its size is not a whole number of 4-byte words, as ICC requires"},
        {"tag count too large", "its tag table is longer than the profile"},
        {"invalid rendering intent", "its header gives an impossible rendering intent"},
        {"invalid signature", "it does not have an ICC profile's 'acsp' signature (damaged, or not a profile)"},
        {"RGB color space not permitted on grayscale PNG", "it is an RGB profile on a grey picture"},
        {"Gray color space not permitted on RGB PNG", "it is a grey profile on a colour picture"},
        {"invalid ICC profile color space", "it describes neither RGB nor grey"},
        {"invalid embedded Abstract ICC profile", "it is an abstract profile, which describes no picture's colours"},
        {"unexpected DeviceLink ICC profile class", "it is a device link, which describes no picture's colours"},
        {"unexpected ICC PCS encoding", "its connection space is neither XYZ nor Lab"},
        {"ICC profile tag outside profile", "one of its tags lies outside the profile"},
        {"too many profiles", "it is a second profile"},
        {"out of place", "it comes after the image data or the palette"},
        // A damaged chunk: yuvconv's own check says so of the profile kept (`yc_png_colour`); an intact iCCP after
        // it may be the one used or rejected, with its own reason.
        {"CRC error", NULL},
    };
    const int of_profile = strncmp(msg, "iCCP: profile '", 15) == 0;
    const char *reason = msg;
    for (const char *p = strstr(msg, ": "); p; p = strstr(p + 2, ": ")) reason = p + 2;
    // "too short" twice over: of the profile, a header giving fewer than a header's 132 bytes; of the chunk,
    // compressed data that does not inflate to a profile's header (damaged zlib data, or fewer bytes).
    if (strcmp(reason, "too short") == 0)
        return of_profile ? "its header gives a size smaller than a profile's 132-byte header"
                          : "its compressed data is damaged, or the profile is shorter than its header";
    for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++)
        if (strcmp(reason, reasons[i].reason) == 0) return reasons[i].said;
    // zlib's own words of the chunk's data ("incorrect header check", "invalid distance too far back"); of the
    // profile, a reason this table has not met: libpng's words say it.
    return of_profile ? "libpng turned it away" : "its compressed data is damaged";
}

// libpng's warning for a chunk over png_set_chunk_malloc_max ("eXIf: unknown chunk exceeds memory limits") said as
// yuvconv's own image-data reader says it of a chunk after the image data, so both readers say one thing.
static void png_warning_fn(png_structp png, png_const_charp msg) {
    // An iCCP libpng rejects is absent afterwards: noted, so that a rejected profile is a broken one, whatever
    // gAMA or cHRM stand beside it (`yc_png_colour`; yuvconv reads those two itself, `png_colour_chunk`).
    yc_decoder *from = png_get_error_ptr(png);
    if (strncmp(msg, "iCCP", 4) == 0) {
        const char *said = iccp_reason(msg);
        if (said && !from->colour.icc_rejected[0])
            snprintf(from->colour.icc_rejected, sizeof from->colour.icc_rejected, "%s (libpng: %s)", said, msg);
        // With colour management the plan's warning quotes it ("the PNG's ICC profile was rejected: …"):
        // said once, not twice; without it the profile is not used, and its flaws are nobody's concern.
        return;
    }
    // With colour management off the colour chunks are not looked at: their damage is nobody's concern either
    // (a gAMA failing its CRC was said and counted under --color-management off).
    if (from->colour_target < 0 && strlen(msg) > 4 && msg[4] == ':' && yc_png_colour_chunk(msg)) return;
    // libpng's own "IDAT: incorrect data check" (a benign error after the last row): the second inflate of the
    // same bytes (yc_png_verify_end) makes it an error, said once.
    if (from->png_chunks.verify_state != 0 && strncmp(msg, "IDAT: incorrect data check", 26) == 0) return;
    const char *limits = strstr(msg, ": unknown chunk exceeds memory limits");
    if (!limits) limits = strstr(msg, ": chunk data is too large");
    if (limits) {
        yc_png_chunk_too_large(from, msg, (int)(limits - msg));
        return;
    }
    yc_warn(png_get_error_ptr(png), msg);
}

void yc_png_chunk_too_large(yc_decoder *dec, const char *name, int n) {
    if (n == 4 && memcmp(dec->png_too_large, name, 4) == 0) return;
    if (n == 4) memcpy(dec->png_too_large, name, 4);
    char said[YC_MSG];
    snprintf(said, sizeof said, "%.*s: chunk data is too large", n, name);
    if (n == 4 && strncmp(name, "eXIf", 4) == 0) yc_warn_exif(dec, said);
    else yc_warn(dec, said);
}

// The palette as 256 R,G,B,A entries: alpha from tRNS (255 past its end); past the palette's end black and
// opaque, as libpng's own lookup reads them. 0 after an error.
static int png_palette_table(yc_decoder *dec) {
    png_colorp plte = NULL;
    int count = 0;
    if (!png_get_PLTE(dec->png, dec->png_info, &plte, &count) || !plte || count < 1 || count > 256) {
        yc_set_error(dec, "the palette image has no palette (PLTE chunk)");
        return 0;
    }
    png_bytep alpha = NULL;
    int alphas = 0;
    if (!png_get_tRNS(dec->png, dec->png_info, &alpha, &alphas, NULL) || !alpha) alphas = 0;
    for (int i = 0; i < 256; i++) {
        dec->png_palette[i][0] = i < count ? plte[i].red : 0;
        dec->png_palette[i][1] = i < count ? plte[i].green : 0;
        dec->png_palette[i][2] = i < count ? plte[i].blue : 0;
        dec->png_palette[i][3] = i < alphas ? alpha[i] : 255;
    }
    dec->png_palette_count = count;
    return 1;
}

// One row (y) of indices to R,G,B(,A). An index past the palette's end makes the file corrupt (PNG §11.2.3)
// but decodable: it reads as black, as in libpng and browsers, and the first one is a warning.
static void png_expand_palette(yc_decoder *dec, const uint8_t *index, uint8_t *dst, uint32_t y) {
    const uint32_t w = dec->info.width;
    const int count = dec->png_palette_count;
    const uint8_t (*entry)[4] = (const uint8_t (*)[4])dec->png_palette;
    int past = 0;
    if (dec->info.channels == 4) {
        for (uint32_t x = 0; x < w; x++) {
            const int i = index[x];
            past |= i >= count;
            memcpy(dst + 4 * (size_t)x, entry[i], 4);
        }
    } else {
        for (uint32_t x = 0; x < w; x++) {
            const int i = index[x];
            past |= i >= count;
            dst[3 * (size_t)x] = entry[i][0];
            dst[3 * (size_t)x + 1] = entry[i][1];
            dst[3 * (size_t)x + 2] = entry[i][2];
        }
    }
    if (past && !dec->png_bad_index) {
        uint32_t x = 0;
        while (index[x] < count) x++;
        dec->png_bad_index = 1;
        char msg[YC_MSG];
        snprintf(msg, sizeof msg, "pixel (%u, %u) has palette index %d, past the end of the %d-colour palette: "
                 "the file is damaged; such pixels are read as black", x, y, index[x], count);
        yc_warn_damage(dec, msg);
    }
}

void yc_png_open(yc_decoder *dec, FILE *file) {
    dec->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, dec, png_error_fn, png_warning_fn);
    if (!dec->png) { yc_set_error(dec, "out of memory"); return; }
    dec->png_info = png_create_info_struct(dec->png);
    if (!dec->png_info) { yc_set_error(dec, "out of memory"); return; }
    if (setjmp(dec->jump)) return;
    dec->png_file = file;
    // A larger buffer than stdio's 8 KiB (nothing has been read through it yet): libpng reads a chunk's header,
    // data and CRC separately (three reads for every IDAT, often 4 KiB each), and each refill is a system call.
    setvbuf(file, NULL, _IOFBF, 256 * 1024);
    png_set_read_fn(dec->png, dec, yc_png_read_fn);
    // Critical chunks' CRCs: checked in yc_png_read_fn instead (an error all the same).
    png_set_crc_action(dec->png, PNG_CRC_QUIET_USE, PNG_CRC_DEFAULT);
    // A text chunk may not inflate past 8 MiB (libpng's default is unlimited-ish for zTXt/iTXt).
    png_set_chunk_malloc_max(dec->png, YC_PNG_CHUNK_MAX);
    // The chunks skipped unread and those handed to yuvconv (yc_png_chunks.c).
    yc_png_follow_metadata(dec);
    png_read_info(dec->png, dec->png_info);

    png_uint_32 w, h;
    int depth, ctype, interlace;
    png_get_IHDR(dec->png, dec->png_info, &w, &h, &depth, &ctype, &interlace, NULL, NULL);
    yc_info *info = &dec->info;
    info->width = w;
    info->height = h;
    info->png_color_type = ctype;
    info->png_bit_depth = depth;
    info->png_interlaced = interlace != PNG_INTERLACE_NONE;
    // A tRNS libpng cancelled is none: one before a suggested PLTE ("PLTE: tRNS must be after") keeps its flag but
    // loses its values, so no transformation uses it — taken as there, it asked for alpha libpng never added, and the
    // file failed with "unexpected row layout after transformations".
    png_bytep trns_alpha = NULL;
    int trns_count = 0;
    info->png_has_trns = png_get_tRNS(dec->png, dec->png_info, &trns_alpha, &trns_count, NULL) != 0 && trns_count > 0;
    const int exif_tag = dec->png_exif_tag;
    // XMP's tiff:Orientation when there is no EXIF orientation tag (an iTXt before the image data); an EXIF 1
    // is an orientation too.
    info->orientation = yc_orientation_choice(exif_tag, dec->xmp_orientation, &info->orientation_from_xmp);
    info->orientation_unusable = yc_orientation_unusable(exif_tag, dec->xmp_orientation);
    yc_png_colour(dec);
    yc_plan_colour(dec);
    if (dec->failed) return;
    info->bytes_per_sample = depth == 16 ? 2 : 1;
    if ((uint64_t)w * h > dec->max_pixels) {
        char msg[YC_MSG];
        snprintf(msg, sizeof msg, "%ux%u is %llu pixels, above the limit of %llu", w, h,
                 (unsigned long long)w * h, (unsigned long long)dec->max_pixels);
        yc_set_error(dec, msg);
        dec->error_kind = YC_ERROR_TOO_LARGE;
        return;
    }
    // Everything becomes R,G,B,X of 8 bits or R,G,B of 16 bits, exactly: palette looked up, 1/2/4-bit grey
    // scaled to 0…255 (v·255/(2^n−1)), grey copied to all three. The fourth byte of an 8-bit pixel is alpha
    // (from the file or from tRNS) or 0xFF filler; the contract ignores it, so the converter never reads it.
    // A palette image's indices are looked up here, not by libpng, which reads an index past the palette's
    // end as black without a word.
    int palette = ctype == PNG_COLOR_TYPE_PALETTE;
    if (palette) {
        if (depth < 8) png_set_packing(dec->png);   // one index a byte
        if (!png_palette_table(dec)) return;
    }
    if (ctype == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(dec->png);
    if (ctype == PNG_COLOR_TYPE_GRAY || ctype == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(dec->png);
    if (info->png_has_trns && !palette) png_set_tRNS_to_alpha(dec->png);  // one rule for every colour type
    int has_alpha = (ctype & PNG_COLOR_MASK_ALPHA) || info->png_has_trns;
    // 16-bit: R,G,B (alpha stripped). 8-bit: R,G,B,A when there is alpha, else R,G,B as stored — the
    // converter widens those rows to 4 bytes itself, on its own thread, rather than libpng on the decoder's.
    int keep16 = depth == 16 && has_alpha && dec->alpha16;
    if (depth == 16 && has_alpha && !keep16) png_set_strip_alpha(dec->png);
    info->channels = ((depth != 16 && has_alpha) || keep16) ? 4 : 3;
    if (depth == 16) {
        const uint16_t probe = 1;
        if (*(const uint8_t *)&probe == 1) png_set_swap(dec->png);  // PNG is big-endian
    }
    if (info->png_interlaced) png_set_interlace_handling(dec->png);
    // The last row that holds data (of the last Adam7 pass that has any): after it, image data is bounded.
    dec->png_last_pass = 0;
    dec->png_last_pass_row = h - 1;
    if (info->png_interlaced) {
        // libpng's deinterlacing counts a pass's rows as the picture's (a row of no data returns early).
        for (int p = 6; p >= 0; p--) {
            if (PNG_PASS_COLS(w, p) > 0 && PNG_PASS_ROWS(h, p) > 0) {
                dec->png_last_pass = p;
                dec->png_last_pass_row = PNG_ROW_FROM_PASS_ROW(PNG_PASS_ROWS(h, p) - 1, p);
                break;
            }
        }
    }
    png_set_read_user_transform_fn(dec->png, yc_png_row_inflated);
    // A transform turns on libpng's own check of palette indices, a second warning beside yuvconv's own
    // (`png_expand_palette`), which both routes give: off, as it was without one.
    png_set_check_for_invalid_index(dec->png, 0);
    png_read_update_info(dec->png, dec->png_info);
    // The common formats' image data is read in yc_png_idat.c (an Adler-32 at a sixth of zlib's cost): 8-bit
    // RGB, RGBA, grey and grey+alpha, palettes, and 16-bit images without tRNS; interlaced, 1/2/4-bit grey and
    // tRNS-keyed images stay with libpng's transformations (their data inflated twice: yc_png_verify_begin).
    // YUVCONV_PNG_LIBPNG=1 keeps every image with libpng: the tests compare the two routes with it.
    const char *via_libpng = getenv("YUVCONV_PNG_LIBPNG");
    const int grey8 = depth == 8 && !info->png_has_trns &&
                      (ctype == PNG_COLOR_TYPE_GRAY || ctype == PNG_COLOR_TYPE_GRAY_ALPHA);
    const int own = !(via_libpng && via_libpng[0] == '1') && !info->png_interlaced &&
                    (palette || grey8 || (depth == 8 && !info->png_has_trns &&
                                          (ctype == PNG_COLOR_TYPE_RGB || ctype == PNG_COLOR_TYPE_RGB_ALPHA)));
    dec->png_rowbytes = png_get_rowbytes(dec->png, dec->png_info);
    if (palette) {
        dec->png_index_row = malloc(w);
        if (!dec->png_index_row) { yc_set_error(dec, "out of memory"); return; }
    }
    if (own && !yc_png_idat_begin(dec, palette, grey8 ? (ctype == PNG_COLOR_TYPE_GRAY ? 1 : 2) : 0, depth,
                                  info->channels)) return;
    // 16-bit, not interlaced, no tRNS: rows as libpng's transformations give them (R,G,B, or R,G,B,A kept).
    const int own16 = !(via_libpng && via_libpng[0] == '1') && !info->png_interlaced && depth == 16 &&
                      !info->png_has_trns;
    const int stored = ctype == PNG_COLOR_TYPE_GRAY ? 1 : ctype == PNG_COLOR_TYPE_GRAY_ALPHA ? 2
                     : ctype == PNG_COLOR_TYPE_RGB ? 3 : 4;
    if (own16 && !yc_png_idat_begin16(dec, stored, info->channels)) return;
    if (!dec->png_idat.active && !yc_png_verify_begin(dec)) { yc_set_error(dec, "out of memory"); return; }
    if (dec->png_rowbytes != (palette ? (size_t)w : (size_t)w * info->channels * info->bytes_per_sample)) {
        yc_set_error(dec, "unexpected row layout after transformations");
        return;
    }
    // Adam7 spreads every row over seven passes: the whole picture is held (yc_png_rows).
    // Taken here, where its room was looked for (zero pages, written at the first rows): allocated at the first rows,
    // the picture's turn and the output's planes asked for in between took the room the rows had been told of, and
    // the rows' own allocation failed, unchecked ("out of memory for an interlaced image", in a -j 2 batch a file that
    // -j 1 converted; a reviewer's find).
    const uint64_t rows = (uint64_t)dec->png_rowbytes * h;
    if (info->png_interlaced && !yc_refuse_whole(dec, rows, "the interlaced PNG")
        && !yc_refuse_no_room(dec, rows, "the interlaced PNG's rows")) {
        dec->png_image = rows <= SIZE_MAX ? calloc(1, (size_t)rows) : NULL;
        yc_room_taken(dec);
        if (!dec->png_image) yc_fail_no_room(dec, rows, "the interlaced PNG's rows");
    }
}

int yc_png_rows(yc_decoder *dec, uint8_t *dst, size_t stride, uint32_t count) {
    if (setjmp(dec->jump)) return -1;
    if (dec->info.png_interlaced) {
        if (!dec->png_image_read) {
            // Adam7 spreads every row over seven passes: the whole image is held once (allocated at the opening).
            if (!dec->png_image) return -1;   // none only when the opening failed, which said why
            dec->png_image_read = 1;
            int passes = png_set_interlace_handling(dec->png);
            for (int p = 0; p < passes; p++)
                for (uint32_t y = 0; y < dec->info.height; y++)
                    png_read_row(dec->png, dec->png_image + y * dec->png_rowbytes, NULL);
        }
        for (uint32_t i = 0; i < count; i++) {
            const uint8_t *row = dec->png_image + (size_t)(dec->rows_read + i) * dec->png_rowbytes;
            if (!dec->png_index_row) memcpy(dst + i * stride, row, dec->png_rowbytes);
            else png_expand_palette(dec, row, dst + i * stride, dec->rows_read + i);
        }
        return 0;
    }
    if (dec->png_idat.active) {
        yc_png_idat_rows(dec, dst, stride, count, png_expand_palette);
        return 0;
    }
    for (uint32_t i = 0; i < count; i++) {
        if (!dec->png_index_row) {
            png_read_row(dec->png, dst + i * stride, NULL);
        } else {
            png_read_row(dec->png, dec->png_index_row, NULL);
            png_expand_palette(dec, dec->png_index_row, dst + i * stride, dec->rows_read + i);
        }
    }
    return 0;
}

// Bytes after IEND in a file (not a stream, which is not read further: an endless writer would hold the run),
// said as the JPEG reader says bytes after its end marker: another PNG appended, or other data (a payload
// riding along), is not converted. Zero bytes alone (padding to a block) say nothing.
static void png_trailer(yc_decoder *dec) {
    struct stat st;
    const int fd = fileno(dec->png_file);
    const long at = ftell(dec->png_file);
    if (fd < 0 || at < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= at) return;
    const long long after = (long long)(st.st_size - at);
    unsigned char first[4096];
    const size_t seen = fread(first, 1, after < (long long)sizeof first ? (size_t)after : sizeof first, dec->png_file);
    size_t i = 0;
    while (i < seen && first[i] == 0) i++;
    if (i == seen && after == (long long)seen) return;
    char msg[YC_MSG];
    if (yc_sniff(first + i, seen - i) == YC_FORMAT_PNG)
        snprintf(msg, sizeof msg, "the file holds another PNG after its picture (%lld byte%s after its IEND chunk); only "
                 "the first picture is converted", after, after == 1 ? "" : "s");
    else
        snprintf(msg, sizeof msg, "%lld byte%s follow%s the PNG's IEND chunk, its end (other data); not converted",
                 after, after == 1 ? "" : "s", after == 1 ? "s" : "");
    yc_warn(dec, msg);
}

int yc_png_end(yc_decoder *dec) {
    if (dec->png_idat.active) {
        if (yc_png_idat_end(dec) != 0) return -1;
    } else {
        if (setjmp(dec->jump)) return -1;
        png_read_end(dec->png, NULL);
        yc_png_verify_end(dec);
    }
    // An eXIf after the image data comes too late for the orientation (the rows are converted as they come):
    // said, not ignored in silence. Both routes read through yc_png_read_fn, which saw its header. So does an
    // XMP iTXt whose orientation would have been used (yc_png_itxt, on both routes).
    if (dec->png_chunks.late_exif) yc_warn_exif(dec, YC_PNG_LATE_EXIF);
    if (dec->png_late_xmp)
        yc_warn_xmp(dec, "iTXt: an XMP orientation after the image data comes too late: not applied (the picture is "
                     "converted as stored)");
    // So do colour chunks: the colours are decided before the first row.
    if (dec->png_chunks.late_colour[0]) {
        char msg[YC_MSG];
        snprintf(msg, sizeof msg, "%s after the image data: not read (colour and transparency information must come "
                 "before the image data; only what came before it is used)", dec->png_chunks.late_colour);
        yc_warn(dec, msg);
    }
    png_trailer(dec);
    return 0;
}
