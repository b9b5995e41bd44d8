// The PNG chunks yuvconv reads beside the image: which ancillary chunks libpng is told to skip, the XMP iTXt
// (for tiff:Orientation) and eXIf handed over as unknown chunks with a bound, and the colour chunks as stored
// (iCCP, cHRM, gAMA, sRGB, cICP). yc_png.c opens the file and reads the rows; yc_png_stream.c reads the bytes.
#include "yc_decode_internal.h"
#include "yc_checksums.h"
#include "yc_colour_internal.h"

#include <stdlib.h>
#include <string.h>

// Every ancillary chunk libpng knows and yuvconv never reads (it reads IHDR, PLTE, tRNS, IDAT, gAMA, cHRM,
// sRGB, iCCP, eXIf and the XMP iTXt). Told to discard them, libpng skips each through a small buffer instead
// of first allocating its declared length: a 300-byte file declaring a 1.9 GB iTXt cost 2 s of page faults,
// and a 41-byte one declaring a 2 GB sCAL or pCAL 2.1 GB of memory (their handlers are not bounded by
// png_set_chunk_malloc_max).
static const png_byte ignored_chunks[] = {
    'i', 'T', 'X', 't', '\0', 's', 'P', 'L', 'T', '\0', 't', 'E', 'X', 't', '\0',
    'z', 'T', 'X', 't', '\0', 't', 'I', 'M', 'E', '\0', 'p', 'H', 'Y', 's', '\0', 'h', 'I', 'S', 'T', '\0',
    's', 'C', 'A', 'L', '\0', 'p', 'C', 'A', 'L', '\0', 'o', 'F', 'F', 's', '\0', 's', 'B', 'I', 'T', '\0',
    'b', 'K', 'G', 'D', '\0',
};

// A compressed XMP packet's orientation: inflated into a buffer of at most YC_PNG_XMP_MAX bytes (one more, to tell
// a packet of exactly that size from a longer one); a longer packet, or one that does not inflate, is ignored
// with a warning. 0 when ignored.
static int xmp_inflated(yc_decoder *dec, const uint8_t *in, size_t n) {
    uint8_t *out = malloc(YC_PNG_XMP_MAX + 1);
    if (!out) {
        yc_warn_xmp(dec, "the PNG's compressed XMP packet (iTXt) is ignored: out of memory to inflate it");
        return 0;
    }
    z_stream z = {0};
    int rc = inflateInit(&z);
    if (rc == Z_OK) {
        z.next_in = (Bytef *)in;    // n is within the chunk bound, YC_PNG_CHUNK_MAX
        z.avail_in = (uInt)n;
        z.next_out = out;
        z.avail_out = YC_PNG_XMP_MAX + 1;
        rc = inflate(&z, Z_FINISH);
        inflateEnd(&z);
    }
    int v = 0;
    if (z.total_out > YC_PNG_XMP_MAX) yc_warn_xmp(dec, "the PNG's compressed XMP packet (iTXt) inflates past 1 MiB: ignored");
    else if (rc != Z_STREAM_END) yc_warn_xmp(dec, "the PNG's compressed XMP packet (iTXt) does not inflate: ignored");
    else v = yc_xmp_orientation(out, z.total_out);
    free(out);
    return v;
}

int yc_png_itxt_wanted(const yc_decoder *dec) {
    // Only the first XMP packet counts, whatever it holds and even when it is ignored (a packet that inflates
    // past the cap): 3,000 such packets of 1 KB each took 7–8 s when every one was inflated. After the image data,
    // only when no EXIF tag decides the orientation either.
    if (dec->png_xmp_seen) return 0;
    return !dec->png_chunks.seen_idat || dec->png_exif_tag == 0;
}

void yc_png_itxt(yc_decoder *dec, const uint8_t *d, size_t n) {
    static const char keyword[] = "XML:com.adobe.xmp";   // then NUL, compression flag, method, language\0, translated\0
    const size_t k = sizeof keyword;   // with its NUL
    if (!yc_png_itxt_wanted(dec) || n < k || memcmp(d, keyword, k) != 0) return;
    // The XMP packet, damaged: said, as a damaged eXIf is (an orientation in it would otherwise vanish unsaid),
    // and not counted as the first packet — a good one after it is still read.
    if (n < k + 2 || d[k] > 1) {
        yc_warn_xmp(dec, n < k + 2 ? "the PNG's XMP packet (iTXt) is ignored: its header is cut short"
                               : "iTXt: the XMP packet's compression flag is neither 0 nor 1: ignored");
        return;
    }
    const int compressed = d[k] == 1;
    size_t i = k + 2;
    for (int skip = 0; skip < 2; skip++) {   // language tag, translated keyword
        while (i < n && d[i] != 0) i++;
        i++;
    }
    if (i > n) {
        yc_warn_xmp(dec, "the PNG's XMP packet (iTXt) is ignored: its language tag or translated keyword has no end");
        return;
    }
    if (compressed && d[k + 1] != 0) {   // method 0, zlib, is the only one (not the first packet either)
        yc_warn_xmp(dec, "the PNG's XMP packet (iTXt) is ignored: its compression method is not zlib");
        return;
    }
    dec->png_xmp_seen = 1;
    // One cap for either kind (a stored packet is bounded by the chunk limit alone, 8 MiB): a packet over 1 MiB is
    // ignored, said, whether it came compressed or not (a stored one was read and applied).
    if (!compressed && n - i > YC_PNG_XMP_MAX) {
        yc_warn_xmp(dec, "the PNG's XMP packet (iTXt) is longer than 1 MiB: ignored");
        return;
    }
    const int v = compressed ? xmp_inflated(dec, d + i, n - i) : yc_xmp_orientation(d + i, n - i);
    // The rows are converted as they are decoded: an orientation after the image data can only be said.
    if (!dec->png_chunks.seen_idat) dec->xmp_orientation = v;
    else if (v > 1) dec->png_late_xmp = 1;
}

// cHRM's white, red, green and blue as stored (hundred-thousandths of x and y): "" when they make an RGB colour
// space, else why not. Each point is a colour (y above 0, x + y at most 1), the three primaries do not lie on one
// line, and the white lies inside their triangle — which is what makes every primary's luminance positive in the
// RGB → XYZ matrix a profile is built from (a white outside it gave a primary negative light).
static const char *chrm_problem(const int64_t v[8], int *point) {
    for (int i = 0; i < 4; i++) {
        if (v[2 * i + 1] <= 0 || v[2 * i] + v[2 * i + 1] > 100000) {
            *point = i;
            return "is no colour (y must be above 0 and x + y at most 1)";
        }
    }
    // Twice the signed areas: the primaries' triangle, and the three the white makes with two of them. The
    // values are at most 100000 now, so the products are exact.
#define YC_AREA2(a, b, c) ((v[2 * (b)] - v[2 * (a)]) * (v[2 * (c) + 1] - v[2 * (a) + 1]) \
                           - (v[2 * (c)] - v[2 * (a)]) * (v[2 * (b) + 1] - v[2 * (a) + 1]))
    const int64_t whole = YC_AREA2(1, 2, 3);
    if (whole == 0) return "red, green and blue lie on one line, which makes no colour space";
    const int64_t parts[3] = {YC_AREA2(0, 2, 3), YC_AREA2(1, 0, 3), YC_AREA2(1, 2, 0)};
#undef YC_AREA2
    for (int i = 0; i < 3; i++)
        if (parts[i] == 0 || (parts[i] < 0) != (whole < 0))
            return "white lies outside the triangle of its red, green and blue (or on its edge), which makes no colour space";
    return "";
}

// Whether a colour chunk (sRGB, cICP, gAMA, cHRM) is one to read, by PNG's rules for all four: only with colour
// management (without it they are not used, and their flaws are nobody's concern, as a PNG profile's are not);
// before the image data (after it, too late for rows already converted: `note_late_colour` says so) and before the
// palette (where libpng, and so browsers, ignore them); one of each (a second is ignored whether or not the first
// could be used); of its one length. Said when not (yuvconv's own sentences: shaped as libpng's "chunk: reason",
// they were quoted back as libpng's words). `seen` counts the chunks of the kind.
static int colour_chunk_placed(yc_decoder *dec, png_unknown_chunkp chunk, int *seen, size_t want) {
    if (dec->png_chunks.seen_idat || dec->colour_target < 0) return 0;
    char said[YC_MSG];
    const char *name = (const char *)chunk->name;
    if ((*seen)++ > 0)
        snprintf(said, sizeof said, "the PNG has a second %.4s chunk; ignored (the first one is read)", name);
    else if (png_get_valid(dec->png, dec->png_info, PNG_INFO_PLTE))
        snprintf(said, sizeof said, "the PNG's %.4s chunk comes after its palette (PLTE), where PNG does not allow it; "
                 "ignored, the picture is read without it", name);
    else if (chunk->size != want)
        snprintf(said, sizeof said, "the PNG's %.4s chunk is %zu bytes long, not %zu; ignored, the picture is read "
                 "without it", name, (size_t)chunk->size, want);
    else
        return 1;
    yc_warn(dec, said);
    return 0;
}

// gAMA and cHRM, read here rather than by libpng: libpng keeps one colour-space state for both (and for iCCP), so
// one it rejected took the others with it — a cHRM whose blue lay on the line from red to green dropped a good
// gAMA after it, or a good Display P3 iCCP, while the warning said only the cHRM was ignored. Each chunk now
// counts or not on its own, said when not; what is recorded is usable (yc_colour_source_profile builds on it).
static void png_colour_chunk(yc_decoder *dec, png_unknown_chunkp chunk) {
    const int gama = chunk->name[0] == 'g';
    const char *name = gama ? "gAMA" : "cHRM";
    const size_t want = gama ? 4 : 32;
    yc_colour *c = &dec->colour;
    char said[YC_MSG];
    if (!colour_chunk_placed(dec, chunk, gama ? &dec->png_chunks.seen_gama : &dec->png_chunks.seen_chrm, want)) return;
    int64_t v[8];
    int big = 0;
    for (size_t i = 0; i < want / 4; i++) {
        v[i] = png_get_uint_32(chunk->data + 4 * i);
        big |= v[i] > 0x7FFFFFFF;   // PNG's four-byte numbers stop at 2^31 − 1
    }
    if (big) {
        snprintf(said, sizeof said, "the PNG's %s chunk holds a number over 2^31 - 1, which PNG does not allow; "
                 "ignored, the picture is read without it", name);
    } else if (gama) {
        // The file's gamma (0.45455 for 1/2.2); one of 0.01 to 100 is a curve a picture can have.
        const double g = (double)v[0] / 100000;
        if (g < 0.01 || g > 100) {
            snprintf(said, sizeof said, "the PNG's gAMA chunk gives a gamma of %g, which is no usable curve (0.01 to "
                     "100); ignored, the picture is read without it", g);
        } else {
            c->has_gama = 1;
            c->gama = g;
            return;
        }
    } else {
        int point = -1;
        const char *why = chrm_problem(v, &point);
        double xy[8];
        for (int i = 0; i < 8; i++) xy[i] = (double)v[i] / 100000;
        // Last, what the plan needs: a triangle so small around the white that LittleCMS's matrix is singular,
        // or colorants the plan refuses, were refused there, with the gAMA beside them.
        if (!why[0] && !yc_colour_chrm_makes_space(xy))
            why = "red, green and blue lie too close together (around the white) to make a colour space";
        if (!why[0]) {
            c->has_chrm = 1;
            memcpy(c->chrm, xy, sizeof xy);
            return;
        }
        static const char *const points[] = {"white", "red", "green", "blue"};
        if (point >= 0)
            snprintf(said, sizeof said, "the PNG's cHRM chunk puts its %s at x = %g, y = %g, which %s; ignored, the "
                     "picture is read without it", points[point], (double)v[2 * point] / 100000,
                     (double)v[2 * point + 1] / 100000, why);
        else
            snprintf(said, sizeof said, "the PNG's cHRM chunk is ignored: its %s; the picture is read without it", why);
    }
    yc_warn(dec, said);
}

// The one iTXt yuvconv reads: the XMP packet ("XML:com.adobe.xmp"), for tiff:Orientation, and the eXIf
// chunk. libpng hands them over as unknown chunks, so their size is bounded by png_set_chunk_malloc_max
// (libpng's own iTXt and eXIf handlers allocate what the chunk declares or holds: a 16x16 PNG with a 200 MB
// eXIf took 390 MiB and 4.6 s). Every other iTXt is dropped; an eXIf over the bound is skipped with a warning.
static int png_user_chunk(png_structp png, png_unknown_chunkp chunk) {
    yc_decoder *dec = png_get_user_chunk_ptr(png);
    // An unknown critical chunk (first letter upper case) must not be skipped (PNG §5.4): 0 sends it back to
    // libpng, which refuses it ("unhandled critical chunk", said as a chunk it does not know: Apple's CgBI first).
    if (!(chunk->name[0] & 0x20)) return 0;
    // PNG §5.6: IHDR comes first. libpng refuses a chunk of its own before it ("iCCP: missing IHDR") but hands
    // ours over: an eXIf before the header turned the picture while an iCCP there failed the file. Every
    // ancillary chunk before it is refused the same way (no IHDR has a width of 0).
    if (png_get_image_width(png, dec->png_info) == 0) png_chunk_error(png, "missing IHDR");
    // An iCCP after the file's profile (`next_iccp` in yc_png_stream.c made libpng hand it over): dropped.
    if (memcmp(chunk->name, "iCCP", 4) == 0) return 1;
    // libpng hands an unknown chunk over even when its CRC is wrong (after its warning): such a chunk is damaged,
    // and is not acted on (libpng's own eXIf handler dropped it). The stored CRC is the one yc_png_read_fn just read.
    const uint32_t crc = yc_crc32(yc_crc32(0, chunk->name, 4), chunk->data, chunk->size);
    if (crc != png_get_uint_32(dec->png_chunks.stored)) return 1;
    if (memcmp(chunk->name, "eXIf", 4) == 0) {
        if (dec->png_exif_seen) {
            yc_warn_exif(dec, "the PNG has a second eXIf chunk; ignored (the first one is used)");
        } else {
            // Some writers (older tools, Pillow's Exif.tobytes) keep JPEG's "Exif\0\0" before the TIFF
            // structure; Pillow and exiftool read through it, and so does yuvconv.
            const uint8_t *d = chunk->data;
            size_t n = chunk->size;
            if (n >= 6 && memcmp(d, "Exif\0\0", 6) == 0) { d += 6; n -= 6; }
            dec->png_exif_seen = 1;
            dec->png_exif_tag = yc_exif_orientation_tag(d, n);
            yc_warn_exif_damage(dec, "eXIf: the EXIF data is damaged", d, n, dec->png_exif_tag);
            dec->png_exif_adobe_rgb = yc_exif_adobe_rgb(d, n);
        }
        return 1;
    }
    if (memcmp(chunk->name, "sRGB", 4) == 0) {
        // One byte, the rendering intent (0-3); libpng's own handler ignores any other with a warning.
        if (!colour_chunk_placed(dec, chunk, &dec->png_chunks.seen_srgb, 1)) return 1;
        if (chunk->data[0] > 3)
            yc_warn(dec, "the PNG's sRGB chunk holds no rendering intent (one byte, 0 to 3); ignored, the picture is read "
                         "without it");
        else dec->colour.srgb = 1;
        return 1;
    }
    if (memcmp(chunk->name, "gAMA", 4) == 0 || memcmp(chunk->name, "cHRM", 4) == 0) {
        png_colour_chunk(dec, chunk);
        return 1;
    }
    if (memcmp(chunk->name, "cICP", 4) == 0) {
        // PNG's third edition: H.273 code points, ahead of iCCP, sRGB and cHRM/gAMA (yc_colour_source_profile).
        if (!colour_chunk_placed(dec, chunk, &dec->png_chunks.seen_cicp, 4)) return 1;
        dec->colour.has_cicp = 1;
        memcpy(dec->colour.cicp, chunk->data, 4);
        return 1;
    }
    if (memcmp(chunk->name, "iTXt", 4) == 0) yc_png_itxt(dec, chunk->data, chunk->size);
    return 1;
}

// The colour chunks, as stored: iCCP (libpng has inflated and checked it; a profile it rejects is absent) and an
// eXIf's InteroperabilityIndex (sRGB, cICP, gAMA and cHRM: `png_user_chunk` records them).
void yc_png_colour(yc_decoder *dec) {
    yc_colour *c = &dec->colour;
    c->grey = (png_get_color_type(dec->png, dec->png_info) & PNG_COLOR_MASK_COLOR) == 0;
    c->deep = png_get_bit_depth(dec->png, dec->png_info) == 16;
    png_charp name = NULL;
    int compression = 0;
    png_bytep profile = NULL;
    png_uint_32 length = 0;
    yc_png_iccp_settle(dec);
    if (dec->png_chunks.iccp_crc_bad) {
        // The profile libpng kept came in a chunk that fails its CRC: damaged, so not used (as a damaged eXIf or
        // sRGB is not); a broken profile, whatever else the file says.
        c->icc_broken = 2;
        snprintf(c->icc_rejected, sizeof c->icc_rejected, "its chunk fails its checksum (iCCP: CRC error)");
    } else if (png_get_iCCP(dec->png, dec->png_info, &name, &compression, &profile, &length) && profile && length > 0) {
        c->icc = profile;          // owned by png_info, alive until yc_close
        c->icc_length = length;
    } else if (dec->colour.icc_rejected[0]) {
        c->icc_broken = 2;         // an iCCP was there and libpng rejected it (its warning says why)
    }
    c->exif_adobe_rgb = dec->png_exif_adobe_rgb;
}

/// Tells libpng which chunks to skip unread (above) and which to hand over (`png_user_chunk`).
void yc_png_follow_metadata(yc_decoder *dec) {
    // Unknown chunks and the ancillary ones yuvconv does not use are skipped, never buffered whole.
    png_set_keep_unknown_chunks(dec->png, PNG_HANDLE_CHUNK_NEVER, NULL, 0);
    png_set_keep_unknown_chunks(dec->png, PNG_HANDLE_CHUNK_NEVER, ignored_chunks, (int)(sizeof ignored_chunks / 5));
    // sRGB too: libpng's handler, given sRGB before iCCP, refused the profile ("iCCP: too many profiles"), so
    // the same two chunks in the other order gave other colours; read here, iCCP wins whatever the order.
    // gAMA and cHRM as well (`png_colour_chunk`): each counts or not on its own.
    static const png_byte itxt_exif[] = {'i', 'T', 'X', 't', '\0', 'e', 'X', 'I', 'f', '\0', 'c', 'I', 'C', 'P', '\0',
                                         's', 'R', 'G', 'B', '\0', 'g', 'A', 'M', 'A', '\0', 'c', 'H', 'R', 'M', '\0'};
    png_set_keep_unknown_chunks(dec->png, PNG_HANDLE_CHUNK_ALWAYS, itxt_exif, 6);
    png_set_read_user_chunk_fn(dec->png, dec, png_user_chunk);
}

void yc_png_late_critical(yc_decoder *dec, const uint8_t *type) {
    char name[17], msg[YC_MSG];
    yc_png_chunk_name(type, name);
    snprintf(msg, sizeof msg, "the PNG has a critical chunk yuvconv does not know (%s) after its image data: a newer format "
             "or a damaged file (before the image data it is refused); the picture, read whole, is converted without it", name);
    yc_warn(dec, msg);
}

int yc_png_known_critical(const uint8_t *type) {
    return memcmp(type, "IHDR", 4) == 0 || memcmp(type, "PLTE", 4) == 0 || memcmp(type, "IDAT", 4) == 0 || memcmp(type, "IEND", 4) == 0;
}
