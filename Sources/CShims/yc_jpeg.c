// The JPEG half of the decoder: opening (the whole-picture budget, the direct path's choice, missing scans),
// rows, raw planes and the end of the image. A 4:2:0 photo's planes for the RGB route are yc_jpeg_planes.c's. What watches the decode from inside libjpeg — errors, warnings,
// the scan limit, interrupts — is yc_jpeg_watch.c's; the APP1 (Exif, XMP) and APP2 (ICC) readers are
// yc_jpeg_markers.c's, the large-buffer source yc_jpeg_source.c's.
#include "yc_decode_internal.h"
#include "yc_colour.h"
#include "yc_stream.h"

#include <stdlib.h>
#include <string.h>

// jpeg_start_decompress, unless the picture must be held whole above the decoder's limit: a progressive or
// multi-scan file keeps every coefficient (jdcoefct.c's full buffer: each component's blocks, padded to its
// sampling factors, 128 bytes a block), allocated and filled by the first scan — a 355-byte arithmetic-coded
// file declaring 16384x16384 took 1.5 GiB before its damage showed. 0 when refused.
static int jpeg_start(yc_decoder *dec, j_decompress_ptr j) {
    if (jpeg_has_multiple_scans(j)) {
        // The caller's planes first (a stream output's chroma, yc_open_held): from the header, not after every
        // scan is read in — an 8000x6000 progressive 4:4:4 JPEG to a pipe under --max-memory 280M was refused
        // for them after 1.1 s and 287 MiB.
        const uint64_t w = j->image_width, h = j->image_height;
        const uint64_t blocks = ((w + 1) / 2) * ((h + 1) / 2);
        const uint64_t held = (dec->held_per_block + ((w | h) & 1 ? dec->held_per_odd_block : 0)) * blocks + dec->held_per_pixel * w * h;
        if (held > 0) {
            if (yc_refuse_whole(dec, held, dec->held_what)) return 0;
            dec->held_counted = 1;
        }
        uint64_t bytes = 0;
        for (int c = 0; c < j->num_components; c++) {
            const jpeg_component_info *ci = &j->comp_info[c];
            const uint64_t w = (ci->width_in_blocks + ci->h_samp_factor - 1) / ci->h_samp_factor * ci->h_samp_factor;
            const uint64_t h = (ci->height_in_blocks + ci->v_samp_factor - 1) / ci->v_samp_factor * ci->v_samp_factor;
            bytes += w * h * sizeof(JBLOCK);
        }
        const char *kind = j->progressive_mode ? "the progressive JPEG" : "the multi-scan JPEG";
        char what[YC_MSG];
        // Beside the output's planes, it says so: the same file to a regular file may fit.
        if (dec->held_counted) snprintf(what, sizeof what, "%s, beside %s,", kind, dec->held_what);
        else snprintf(what, sizeof what, "%s", kind);
        if (yc_refuse_whole(dec, bytes, what)) return 0;
        // The room asked for holds the caller's picture too (a JPEG output's, a stream's planes), which it takes after
        // the coefficients, and that part stays promised until the decoder is closed: two jobs each told of room for
        // their coefficients then both waited for their pictures, and one gave up its file (-j 2 under a limit where
        // -j 1 converted both; a reviewer's find).
        const uint64_t beside = dec->held_counted ? held : 0;
        if (beside) snprintf(what, sizeof what, "%s's coefficients and %s", kind, dec->held_what);
        else snprintf(what, sizeof what, "%s's coefficients", kind);
        if (yc_refuse_no_room(dec, bytes + beside, what)) return 0;
        dec->room_beside = beside;
        dec->coef_held = bytes;
        // A picture the caller turns by its orientation holds the output's planes only after the turn, its stored
        // copy let go by then: checked here beside the coefficients (a file that cannot fit is refused before its
        // scans are read), then counted again after the turn (`runPipeline`), not beside both copies (a turned
        // progressive 12 MP photo to a JPEG was refused for the stored copy, the upright one and the output's
        // planes together). A stored copy kept to the end (--metrics) is held with them: they stay counted.
        if (dec->held_counted && !dec->stored_kept && !dec->orientation_ignored && dec->info.orientation >= 2 &&
            dec->info.orientation <= 8) {
            yc_release_whole(dec, held);
            dec->held_counted = 0;
        }
    }
    jpeg_start_decompress(j);
    // The coefficients are allocated (a longjmp out of it leaves the promise to yc_close); the caller's picture beside
    // them stays promised.
    yc_room_taken_part(dec, dec->room_promised - dec->room_beside);
    dec->jpeg_started = 1;
    return 1;
}

// The direct path takes greyscale, and YCbCr whose luma has the largest sampling factors and whose two
// chroma components share theirs (dividing luma's): everything a camera or encoder writes. Anything else
// goes through RGB.
static int raw_sampling_supported(const struct jpeg_decompress_struct *j) {
    if (j->jpeg_color_space == JCS_GRAYSCALE && j->num_components == 1) return 1;
    if (j->jpeg_color_space != JCS_YCbCr || j->num_components != 3) return 0;
    const jpeg_component_info *c = j->comp_info;
    return c[0].h_samp_factor == j->max_h_samp_factor && c[0].v_samp_factor == j->max_v_samp_factor &&
           c[1].h_samp_factor == c[2].h_samp_factor && c[1].v_samp_factor == c[2].v_samp_factor &&
           j->max_h_samp_factor % c[1].h_samp_factor == 0 && j->max_v_samp_factor % c[1].v_samp_factor == 0;
}

// Whether turning the picture by EXIF `orientation` moves whole chroma samples onto the upright picture's
// chroma grid. A reversed axis maps luma x to W−1−x: the samples, each covering `ratio` luma columns from 0,
// land on the upright grid only when W is a multiple of the ratio; otherwise every one would sit a luma
// pixel or more off where the upright picture's chroma belongs, and such a picture goes through RGB.
static int raw_turn_keeps_grid(const struct jpeg_decompress_struct *j, int orientation) {
    // Which stored axes the turn reverses (Orientation.walk): x for 2, 3, 7, 8; y for 3, 4, 6, 7.
    const int flip_x = orientation == 2 || orientation == 3 || orientation == 7 || orientation == 8;
    const int flip_y = orientation == 3 || orientation == 4 || orientation == 6 || orientation == 7;
    for (int c = 1; c < j->num_components; c++) {
        const int rh = j->max_h_samp_factor / j->comp_info[c].h_samp_factor;
        const int rv = j->max_v_samp_factor / j->comp_info[c].v_samp_factor;
        if ((flip_x && j->image_width % rh != 0) || (flip_y && j->image_height % rv != 0)) return 0;
    }
    return 1;
}

// A progressive file whose scans leave some of the first AC coefficients unknown or unrefined (a file cut to its
// first scans and ended, a preview): libjpeg fills them by block smoothing, an estimate, not the file's data —
// and libjpeg-turbo's estimate changed in 3.0.1 at block edges (4:2:0 and 4:4:0 chroma, pictures two blocks
// wide), so another build decodes such a file a few levels apart (yuvref.py's Pillow bundles a newer one than
// Debian's 2.1.5). Said, once: it was converted without a word, unlike every other departure from the contract.
// libjpeg smooths a component when its DC is known and any of its first nine AC coefficients is not whole.
static void jpeg_smoothing_said(yc_decoder *dec) {
    j_decompress_ptr d = &dec->jpeg;
    if (!d->progressive_mode || !d->do_block_smoothing || !d->coef_bits) return;
    for (int c = 0; c < d->num_components; c++) {
        if (d->coef_bits[c][0] < 0) continue;
        for (int k = 1; k <= 9; k++) {
            if (d->coef_bits[c][k] == 0) continue;
            yc_warn(dec, "the progressive JPEG's scans leave some of its detail out (a file cut to its first scans): "
                         "libjpeg-turbo fills it in by block smoothing, an estimate that libjpeg-turbo 3.0.1 changed at "
                         "block edges, so other decoders' pixels, and yuvref.py's, may differ by a few levels");
            return;
        }
    }
}

// After jpeg_start_decompress, which reads a multi-scan file's every scan: whether a component has no image
// data — in no scan of a sequential file, or without its DC scan in a progressive one (a scan lost or cut
// away: libjpeg fills grey without a word). A progressive file whose later AC scans are missing keeps its
// coarser picture, as its encoder meant it to be viewable, and is accepted.
static int jpeg_scans_incomplete(yc_decoder *dec) {
    j_decompress_ptr d = &dec->jpeg;
    jpeg_smoothing_said(dec);
    if (dec->allow_truncated || !jpeg_has_multiple_scans(d)) return 0;
    for (int c = 0; c < d->num_components; c++) {
        if (d->progressive_mode ? d->coef_bits && d->coef_bits[c][0] < 0 : !(dec->jpeg_scanned & (1u << c))) {
            yc_set_error(dec, d->num_components == 1 ? "the picture's scan is missing: no image data"
                         : "a colour component's scans are missing: none of the file's scans holds its image data");
            dec->error_kind = YC_ERROR_DAMAGED;
            return 1;
        }
    }
    return 0;
}

void yc_jpeg_open(yc_decoder *dec, FILE *file, yc_stream *stream, int raw) {
    dec->jpeg.err = jpeg_std_error(&dec->jerr.pub);
    dec->jerr.pub.error_exit = yc_jpeg_error_exit;
    dec->jerr.pub.emit_message = yc_jpeg_emit_message;
    dec->jerr.dec = dec;
    if (setjmp(dec->jump)) return;
    jpeg_create_decompress(&dec->jpeg);
    dec->jpeg_created = 1;
    yc_jpeg_big_source(&dec->jpeg, file, stream);
    jpeg_set_marker_processor(&dec->jpeg, JPEG_APP0 + 1, yc_jpeg_app1_marker);   // Exif, for the orientation tag
    jpeg_set_marker_processor(&dec->jpeg, JPEG_APP0 + 2, yc_jpeg_app2_marker);   // ICC profile pieces
    dec->progress.progress_monitor = yc_jpeg_progress;
    dec->jpeg.progress = &dec->progress;
    jpeg_read_header(&dec->jpeg, TRUE);
    dec->jpeg_header_read = 1;
    yc_jpeg_colour(dec);

    struct jpeg_decompress_struct *j = &dec->jpeg;
    yc_info *info = &dec->info;
    info->width = j->image_width;
    info->height = j->image_height;
    info->bytes_per_sample = 1;
    info->channels = 4;
    info->png_color_type = -1;
    info->jpeg_components = j->num_components;
    info->jpeg_colorspace = j->jpeg_color_space;
    for (int c = 0; c < j->num_components && c < 4; c++) {
        info->jpeg_h_samp[c] = j->comp_info[c].h_samp_factor;
        info->jpeg_v_samp[c] = j->comp_info[c].v_samp_factor;
    }
    info->jpeg_progressive = j->progressive_mode;
    info->jpeg_arithmetic = j->arith_code;
    info->orientation = yc_jpeg_orientation(dec, &info->orientation_from_xmp);
    if (info->width == 0 || info->height == 0) {
        yc_set_error(dec, "the image has no pixels (zero width or height)");
        return;
    }
    if ((uint64_t)info->width * info->height > dec->max_pixels) {
        char msg[YC_MSG];
        snprintf(msg, sizeof msg, "%ux%u is %llu pixels, above the limit of %llu", info->width,
                 info->height, (unsigned long long)info->width * info->height,
                 (unsigned long long)dec->max_pixels);
        yc_set_error(dec, msg);
        dec->error_kind = YC_ERROR_TOO_LARGE;
        return;
    }
    // Colour management first: a source that needs a transform needs RGB, so it is not decoded raw.
    int transform = yc_plan_colour(dec) == YC_COLOUR_TRANSFORM;
    if (dec->failed) return;
    // raw & 2: the caller will apply the EXIF orientation, which must keep the chroma grid (above). Chroma at full
    // resolution (4:4:4) is decoded raw only when asked (raw & 4: `--jpeg-path direct`): the RGB route is then as
    // fast and no larger, and closer to the source — rounding to whole R, G, B snaps a high-quality JPEG's samples
    // back onto the original's, and the clamp pulls in what quantisation pushed out of the RGB cube, which the
    // planes' transform cannot (1.3 dB of Cb at q95, 2.4 dB at q99 on a saturated photo). So is chroma halved one
    // way only (4:2:2, 4:4:0): libjpeg's fancy upsampling smooths its quantisation noise along that way, which the
    // planes' pair means do not, and the direct path fell more than 1.0 dB behind the RGB route (Cb 1.05 dB on a
    // q75 4:2:2 crop of kodim03, Cr 1.14 dB on a q80 4:4:0 picture), at about 8% more time through RGB.
    int rgb_by_default = 0;
    if (j->num_components == 3 && j->comp_info[1].h_samp_factor > 0 && j->comp_info[1].v_samp_factor > 0) {
        const int rh = j->max_h_samp_factor / j->comp_info[1].h_samp_factor;
        const int rv = j->max_v_samp_factor / j->comp_info[1].v_samp_factor;
        rgb_by_default = (rh == 1 && rv == 1) || (rh == 2 && rv == 1) || (rh == 1 && rv == 2);
    }
    if ((raw & 1) && !transform && raw_sampling_supported(j) && (!(raw & 2) || raw_turn_keeps_grid(j, info->orientation)) &&
        ((raw & 4) || !rgb_by_default)) {
        // Planes as stored: no colour conversion, no upsampling (CONVENTIONS §2).
        j->raw_data_out = TRUE;
        j->do_fancy_upsampling = FALSE;
        j->out_color_space = j->jpeg_color_space;
        if (!jpeg_start(dec, j) || jpeg_scans_incomplete(dec)) return;
        info->raw = 1;
        info->raw_band_rows = j->max_v_samp_factor * DCTSIZE;
        for (int c = 0; c < j->num_components; c++) {
            jpeg_component_info *ci = &j->comp_info[c];
            info->raw_plane_width[c] = (int)(ci->width_in_blocks * DCTSIZE);
            info->raw_plane_rows[c] = ci->v_samp_factor * DCTSIZE;
            info->raw_comp_width[c] = (int)ci->downsampled_width;
            info->raw_comp_height[c] = (int)ci->downsampled_height;
        }
        return;
    }
    if (yc_jpeg_ycc_wanted(dec, raw)) {
        // A 4:2:0 photo on the RGB route, for a caller with another thread to spare: planes here, RGB rows from
        // them on that thread (yc_jpeg_planes.c).
        j->raw_data_out = TRUE;
        j->out_color_space = JCS_YCbCr;
        if (!jpeg_start(dec, j) || jpeg_scans_incomplete(dec)) return;
        yc_jpeg_ycc_begin(dec);
        return;
    }
    switch (j->jpeg_color_space) {
    case JCS_CMYK:
    case JCS_YCCK:
        j->out_color_space = JCS_CMYK;
        dec->cmyk_row = malloc((size_t)info->width * 4);
        if (!dec->cmyk_row) { yc_set_error(dec, "out of memory"); return; }
        // An embedded CMYK profile: the rows leave the decoder in the target space (the plan above saw a
        // profile it could not use on RGB rows, and is replaced).
        if (dec->colour_target >= 0) {
            char text[sizeof dec->colour.text] = {0};
            (void)yc_lcms_take_refusal();
            dec->cmyk_transform = yc_colour_cmyk_create(&dec->colour, (yc_target)dec->colour_target, text, sizeof text);
            // Memory the system refused LittleCMS for it: the file's failure, as for an RGB profile (yc_plan_colour).
            if (yc_fail_if_lcms_refused(dec, "its CMYK profile's colour transform")) return;
            if (dec->colour.icc && text[0]) {
                memcpy(dec->colour.text, text, sizeof text);
                dec->colour.action = dec->cmyk_transform ? YC_COLOUR_DECODED : YC_COLOUR_BROKEN;
                dec->colour.kept_srgb = !dec->cmyk_transform && dec->colour_target != YC_TARGET_SRGB;
            }
        }
        break;
    case JCS_GRAYSCALE:
    case JCS_RGB:
    case JCS_YCbCr:
        j->out_color_space = JCS_EXT_RGBX;  // 4 bytes a pixel: what the SIMD rows load
        break;
    default:
        {
            char msg[YC_MSG];
            snprintf(msg, sizeof msg, "a JPEG of %d components in a colour space yuvconv does not read (it reads grey, "
                     "YCbCr, RGB, CMYK and YCCK)", j->num_components);
            yc_set_error(dec, msg);
        }
        return;
    }
    if (jpeg_start(dec, j)) jpeg_scans_incomplete(dec);
}

// Adobe CMYK as libjpeg hands it out is inverted (0 = full ink): R = C·K/255, rounded to nearest.
static void cmyk_to_rgbx(const uint8_t *src, uint8_t *dst, uint32_t width) {
    for (uint32_t x = 0; x < width; x++) {
        unsigned k = src[4 * x + 3];
        for (int c = 0; c < 3; c++) dst[4 * x + c] = (uint8_t)((src[4 * x + c] * k + 127) / 255);
        dst[4 * x + 3] = 0xFF;
    }
}

int yc_jpeg_rows(yc_decoder *dec, uint8_t *dst, size_t stride, uint32_t count) {
    if (setjmp(dec->jump)) return -1;
    if (dec->info.ycc420) return yc_jpeg_ycc_rgbx_rows(dec, dst, stride, count);
    for (uint32_t i = 0; i < count; i++) {
        uint8_t *row = dec->cmyk_row ? dec->cmyk_row : dst + i * stride;
        JSAMPROW rows[1] = {row};
        if (jpeg_read_scanlines(&dec->jpeg, rows, 1) != 1) {
            yc_set_error(dec, "the decoder returned no row");
            return -1;
        }
        if (dec->cmyk_transform) yc_colour_cmyk_apply(dec->cmyk_transform, dec->cmyk_row, dst + i * stride, dec->info.width);
        else if (dec->cmyk_row) cmyk_to_rgbx(dec->cmyk_row, dst + i * stride, dec->info.width);
    }
    return 0;
}

int yc_jpeg_read_raw(yc_decoder *dec, uint8_t *const planes[3], const size_t strides[3]) {
    struct jpeg_decompress_struct *j = &dec->jpeg;
    JSAMPROW rows[3][4 * DCTSIZE];
    JSAMPARRAY image[3];
    for (int c = 0; c < j->num_components; c++) {
        for (int r = 0; r < dec->info.raw_plane_rows[c]; r++) rows[c][r] = planes[c] + (size_t)r * strides[c];
        image[c] = rows[c];
    }
    JDIMENSION got = jpeg_read_raw_data(j, image, (JDIMENSION)dec->info.raw_band_rows);
    if (got == 0) yc_set_error(dec, "the decoder returned no rows");
    return (int)got;
}

int yc_read_raw_band(yc_decoder *dec, uint8_t *const planes[3], const size_t strides[3]) {
    if (dec->failed) return -1;
    if (!dec->info.raw) { yc_set_error(dec, "not a raw decoder"); return -1; }
    if (setjmp(dec->jump)) return -1;
    const int got = yc_jpeg_read_raw(dec, planes, strides);
    if (got == 0) return -1;
    dec->rows_read += (uint32_t)got;
    return got;
}

int yc_jpeg_end(yc_decoder *dec) {
    if (setjmp(dec->jump)) return -1;
    jpeg_finish_decompress(&dec->jpeg);
    dec->jpeg_started = 0;
    // Every pixel decoded without a bit past the end: the file lacked only its end marker (or padding).
    if (dec->jpeg_eof_deferred) {
        dec->jpeg_eof_deferred = 0;
        yc_warn(dec, "the file ends without its end-of-image marker (FF D9), but all of its image data is there");
        return 0;
    }
    // What a file holds after its picture is not converted: another JPEG (MPO: a stereo pair, a portrait's
    // depth map, CIPA multi-picture) or other data (a motion photo's video) is said, as the frames after a
    // Y4M's first are. Padding (zeros, FF fill, a stray second end marker) within the first 4 KiB is nothing;
    // more after 4 KiB of it is said without a guess at what it is.
    unsigned char first[4096];
    size_t seen = 0;
    const long long after = yc_jpeg_source_trailer(&dec->jpeg, first, sizeof first, &seen);
    if (after <= 0) return 0;
    size_t i = 0;
    while (i < seen && (first[i] == 0x00 || first[i] == 0xFF || (first[i] == 0xD9 && i > 0 && first[i - 1] == 0xFF))) i++;
    if (i == seen && after == (long long)seen) return 0;   // padding, all of it
    // Another start of image after the padding (an MPO writer may leave a zero between the two): its FF is
    // the last of the padding read.
    const int jpeg = i > 0 && i + 1 < seen && first[i - 1] == 0xFF && first[i] == 0xD8 && first[i + 1] == 0xFF;
    // A marker other than a start of image (FF C0-FE) right after: more of a JPEG's segments or scans, the end
    // marker before them stray (a progressive file then converts as the coarser picture its scans so far make).
    const int marker = !jpeg && i > 0 && i < seen && first[i - 1] == 0xFF && first[i] >= 0xC0 && first[i] != 0xFF;
    char msg[YC_MSG];
    if (i == seen)   // padding as far as it was looked at: what follows is not known, so not named
        snprintf(msg, sizeof msg, "%lld bytes follow the picture's end marker, the first %zu of them padding (zero or "
                 "FF bytes); not converted", after, seen);
    else if (marker)
        snprintf(msg, sizeof msg, "%lld byte%s follow%s the picture's end marker, starting with a JPEG marker (FF %02X): "
                 "the end marker may be stray, and what follows it is not decoded", after, after == 1 ? "" : "s",
                 after == 1 ? "s" : "", first[i]);
    else if (jpeg)
        snprintf(msg, sizeof msg, "the file holds another JPEG after its picture (a multi-picture file, MPO; %lld "
                 "byte%s after its end marker); only the first picture is converted", after, after == 1 ? "" : "s");
    else
        snprintf(msg, sizeof msg, "%lld byte%s follow%s the picture's end marker (other data, such as a motion "
                 "photo's video); not converted", after, after == 1 ? "" : "s", after == 1 ? "s" : "");
    yc_warn(dec, msg);
    return 0;
}
