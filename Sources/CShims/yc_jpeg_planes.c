// A 4:2:0 YCbCr JPEG's planes for the RGB route (yc_open's `raw` bit 8): the JPEG is decoded raw, as the direct
// path decodes, and a band's luma rows and the chroma rows its upsampling reads are handed out (yc_jpeg_ycc_rows)
// for the caller to make libjpeg's RGB rows of on another thread (yc_ycc_rows.h), or made into those rows here
// (yc_jpeg_ycc_rgbx_rows, for yc_read_rows). Opening is yc_jpeg.c's (yc_jpeg_open asks yc_jpeg_ycc_wanted).
#include "yc_decode_internal.h"
#include "yc_ycc_rows.h"
#include "yc_cpu.h"

#include <stdlib.h>
#include <string.h>

// A YCbCr JPEG whose chroma is halved both ways (Y 2×2, Cb and Cr 1×1) and wider than two samples, which libjpeg
// would upsample with its h2v2 "fancy" filter — a chroma row of two samples or fewer it repeats instead (jdsample.c).
static int ycc420_shape(j_decompress_ptr j) {
    if (j->jpeg_color_space != JCS_YCbCr || j->num_components != 3 || !yc_jpeg_fancy_across((j->image_width + 1) / 2))
        return 0;
    const jpeg_component_info *c = j->comp_info;
    return c[0].h_samp_factor == 2 && c[0].v_samp_factor == 2 && c[1].h_samp_factor == 1 && c[1].v_samp_factor == 1
        && c[2].h_samp_factor == 1 && c[2].v_samp_factor == 1;
}

int yc_jpeg_ycc_wanted(yc_decoder *dec, int raw) {
    // Its bands are whole iMCU rows, 16 at least: wider than 37449 pixels, 16 rows of RGBX and their planes (7 bytes
    // a pixel) pass the 4 MiB a band the RGB route keeps to (YUVIO's rowsPerBand), and libjpeg's rows are smaller.
    // On the baseline tier (SSE2: no 32-bit multiply) the rows cost more than libjpeg's own SSE2 code saves
    // the decoding thread (colour management 1.38× against about 1.26–1.37× on libjpeg's path, bench-costs). Bit 16:
    // the caller turns a picture its orientation turns, whole, and without a second thread's help.
    const int fits = (uint64_t)dec->info.width * 7 * 16 <= (4u << 20) && yc_cpu_tier() >= YC_TIER_AVX2;
    return (raw & 8) && !((raw & 16) && dec->info.orientation != 1) && fits && ycc420_shape(&dec->jpeg);
}

void yc_jpeg_ycc_begin(yc_decoder *dec) {
    struct jpeg_decompress_struct *j = &dec->jpeg;
    yc_info *info = &dec->info;
    for (int c = 0; c < 3; c++) {
        info->raw_plane_width[c] = (int)(j->comp_info[c].width_in_blocks * DCTSIZE);
        info->raw_plane_rows[c] = c == 0 ? 16 : 8;   // what yc_jpeg_read_raw reads of each
    }
    info->raw_band_rows = 16;
    const size_t w0 = (size_t)info->raw_plane_width[0], w1 = (size_t)info->raw_plane_width[1];
    dec->ycc_half = 16 * w0 + 2 * 8 * w1;
    const size_t cw = (info->width + 1) / 2;
    dec->ycc_window = malloc(2 * dec->ycc_half + 2 * cw);   // and the carried chroma row
    dec->ycc_carried = -1;
    if (!dec->ycc_window) { yc_set_error(dec, "out of memory"); return; }
    dec->ycc_imcu[0] = dec->ycc_imcu[1] = -1;
    info->ycc420 = 1;
    info->ycc_held = 2 * dec->ycc_half + 2 * cw;
}

// Decodes the next iMCU row (ycc_decoded) into 16 luma rows at y and 8 chroma rows at cb and cr, yStride and
// cStride apart (yc_jpeg_read_raw, the direct path's read).
static int ycc_decode(yc_decoder *dec, uint8_t *y, size_t yStride, uint8_t *cb, uint8_t *cr, size_t cStride) {
    uint8_t *const planes[3] = {y, cb, cr};
    const size_t strides[3] = {yStride, cStride, cStride};
    if (yc_jpeg_read_raw(dec, planes, strides) == 0) return -1;
    dec->ycc_decoded++;
    return 0;
}

// iMCU row m of the window (16 luma rows, then 8 Cb and 8 Cr rows), decoded into its older half when it is the
// next one; NULL when it is neither (yc_jpeg_ycc_rows' order never asks for one), or on a decoding error.
static uint8_t *ycc_imcu(yc_decoder *dec, long m) {
    for (int h = 0; h < 2; h++)
        if (dec->ycc_imcu[h] == m) return dec->ycc_window + (size_t)h * dec->ycc_half;
    if (m != dec->ycc_decoded) return NULL;
    const int h = dec->ycc_imcu[0] <= dec->ycc_imcu[1] ? 0 : 1;
    uint8_t *base = dec->ycc_window + (size_t)h * dec->ycc_half;
    const size_t w0 = (size_t)dec->info.raw_plane_width[0], w1 = (size_t)dec->info.raw_plane_width[1];
    dec->ycc_imcu[h] = -1;
    if (ycc_decode(dec, base, w0, base + 16 * w0, base + 16 * w0 + 8 * w1, w1) != 0) return NULL;
    dec->ycc_imcu[h] = m;
    return base;
}

// yc_jpeg_ycc_rows for rows first … first + count − 1, without the setjmp (the callers' own). An iMCU row whose
// 16 luma rows all belong to the band is decoded straight into it when its rows have room for libjpeg's
// (raw_plane_width: whole blocks); the others — the one the band shares with
// the band before or after, and the one below it, whose first chroma row the band's last luma row needs — go
// through the window, and their rows are copied. Rows are taken in the order of the iMCU rows that hold them,
// so the window's two suffice; the last chroma row of an iMCU row decoded straight into a band is kept
// (`ycc_carried`, after the window), as the next band's row above.
static int ycc_rows(yc_decoder *dec, uint32_t first, uint32_t count, uint8_t *y, size_t yStride, uint8_t *cb,
                    uint8_t *cr, size_t cStride) {
    const long height = dec->info.height, ch = (height + 1) / 2, cw = ((long)dec->info.width + 1) / 2;
    const size_t w0 = (size_t)dec->info.raw_plane_width[0], w1 = (size_t)dec->info.raw_plane_width[1];
    const long last = (long)first + count - 1, c0 = (long)first / 2 - 1, c1 = last / 2 + 1;
    const long cLast = c1 < ch ? c1 : ch - 1;   // the band's chroma rows in the picture: from max(c0, 0)
    long yi = first, ci = c0 < 0 ? 0 : c0;
    uint8_t *carry = dec->ycc_window + 2 * dec->ycc_half;
    while (yi <= last || ci <= cLast) {
        const long my = yi <= last ? yi / 16 : -1, mc = ci <= cLast ? ci / 8 : -1;
        const int luma = my >= 0 && (mc < 0 || my <= mc);
        const long m = luma ? my : mc;
        if (!luma && ci == dec->ycc_carried) {
            memcpy(cb + (size_t)(ci - c0) * cStride, carry, (size_t)cw);
            memcpy(cr + (size_t)(ci - c0) * cStride, carry + cw, (size_t)cw);
            ci++;
            continue;
        }
        if (luma && m == dec->ycc_decoded && yi == 16 * m && 16 * m + 15 <= last && yStride >= w0 && cStride >= w1) {
            // Straight into the band: luma rows yi … yi + 15, chroma rows 8m … 8m + 7 (ci is 8m: the rows
            // before it are in earlier iMCU rows, taken first).
            if (ci != 8 * m) {
                yc_set_error(dec, "the planes were asked for out of order");
                return -1;
            }
            uint8_t *rb = cb + (size_t)(ci - c0) * cStride, *rr = cr + (size_t)(ci - c0) * cStride;
            if (ycc_decode(dec, y + (size_t)(yi - (long)first) * yStride, yStride, rb, rr, cStride) != 0) return -1;
            memcpy(carry, rb + 7 * cStride, (size_t)cw);
            memcpy(carry + cw, rr + 7 * cStride, (size_t)cw);
            dec->ycc_carried = ci + 7;
            yi += 16;
            ci += 8;
            continue;
        }
        const uint8_t *base = ycc_imcu(dec, m);
        if (!base) {
            if (!dec->failed) yc_set_error(dec, "the planes were asked for out of order");
            return -1;
        }
        if (luma) {
            memcpy(y + (size_t)(yi - (long)first) * yStride, base + (size_t)(yi % 16) * w0, dec->info.width);
            yi++;
        } else {
            const size_t at = (size_t)(ci - c0) * cStride, row = (size_t)(ci % 8);
            memcpy(cb + at, base + 16 * w0 + row * w1, (size_t)cw);
            memcpy(cr + at, base + 16 * w0 + (8 + row) * w1, (size_t)cw);
            ci++;
        }
    }
    // The rows past the picture's edges repeat its first and last (libjpeg's context rows).
    for (long c = c0; c < 0; c++) {
        memcpy(cb + (size_t)(c - c0) * cStride, cb + (size_t)(0 - c0) * cStride, (size_t)cw);
        memcpy(cr + (size_t)(c - c0) * cStride, cr + (size_t)(0 - c0) * cStride, (size_t)cw);
    }
    for (long c = ch; c <= c1; c++) {
        memcpy(cb + (size_t)(c - c0) * cStride, cb + (size_t)(ch - 1 - c0) * cStride, (size_t)cw);
        memcpy(cr + (size_t)(c - c0) * cStride, cr + (size_t)(ch - 1 - c0) * cStride, (size_t)cw);
    }
    return 0;
}

int yc_jpeg_ycc_rows(yc_decoder *dec, uint8_t *y, size_t yStride, uint8_t *cb, uint8_t *cr, size_t cStride,
                     uint32_t count) {
    if (dec->failed) return -1;
    if (!dec->info.ycc420) { yc_set_error(dec, "not a 4:2:0 planes decoder"); return -1; }
    if (count == 0 || count > dec->info.height - dec->rows_read) {
        yc_set_error(dec, "read past the last row");
        return -1;
    }
    if (setjmp(dec->jump)) return -1;
    if (ycc_rows(dec, dec->rows_read, count, y, yStride, cb, cr, cStride) != 0) return -1;
    dec->rows_read += count;
    return 0;
}

int yc_jpeg_ycc_rgbx_rows(yc_decoder *dec, uint8_t *dst, size_t stride, uint32_t count) {
    // RGB rows here, 16 at a time, through the same planes and rows as yc_jpeg_ycc_rows and yc_ycc420_rgbx (the
    // caller's setjmp holds).
    const uint32_t width = dec->info.width;
    const size_t w0 = (size_t)dec->info.raw_plane_width[0], w1 = (size_t)dec->info.raw_plane_width[1];
    if (!dec->ycc_scratch) {   // made when first needed (a caller reading planes never needs it)
        const size_t bytes = 16 * w0 + 2 * (16 / 2 + 3) * w1;
        if (!(dec->ycc_scratch = malloc(bytes))) { yc_set_error(dec, "out of memory"); return -1; }
        dec->info.ycc_held += bytes;
    }
    uint8_t *y = dec->ycc_scratch, *cb = y + 16 * w0, *cr = cb + (16 / 2 + 3) * w1;
    for (uint32_t done = 0; done < count;) {
        const uint32_t first = dec->rows_read + done, n = count - done < 16 ? count - done : 16;
        if (ycc_rows(dec, first, n, y, w0, cb, cr, w1) != 0) return -1;
        yc_ycc420_rgbx(y, w0, cb, cr, w1, width, first, n, dst + (size_t)done * stride, stride);
        done += n;
    }
    return 0;
}
