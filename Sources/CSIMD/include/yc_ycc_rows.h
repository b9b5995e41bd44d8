// A 4:2:0 JPEG's YCbCr planes to RGB rows as libjpeg(-turbo) makes them by default — its "fancy" triangle
// upsampling of the chroma (¾ of the nearer sample, ¼ of the farther, down the rows and then along them) and
// its YCbCr → RGB tables — byte for byte, compiled per CPU tier. The RGB route decodes such a JPEG's planes on
// the decoding thread and builds its RGB rows here, on the colour or conversion stage's thread.
#ifndef YC_YCC_ROWS_H
#define YC_YCC_ROWS_H

#include <stddef.h>
#include <stdint.h>

/// jdcolor.c's multipliers with 16 fraction bits, FIX(x) = ⌊x·2^16 + ½⌋: R = Y + ((FIX(1.40200)·Cr′ + 2^15) >> 16),
/// G = Y + ((2^15 − FIX(0.34414)·Cb′ − FIX(0.71414)·Cr′) >> 16), B = Y + ((FIX(1.77200)·Cb′ + 2^15) >> 16), with
/// Cb′ = Cb − 128 and Cr′ = Cr − 128, each clamped to 0 … 255. The RGB route's rows and the quality measures'
/// rebuild of a decoder's RGB (`DecoderRGB`) take them from here.
enum { YC_JPEG_FIX_CR_R = 91881, YC_JPEG_FIX_CB_B = 116130, YC_JPEG_FIX_CR_G = 46802, YC_JPEG_FIX_CB_G = 22554 };

/// Whether libjpeg interpolates chroma across a row ("fancy" h2v1 and h2v2 upsampling, jdsample.c): only a chroma
/// row wider than two samples; a narrower one it repeats.
static inline int yc_jpeg_fancy_across(uint32_t chroma_width) { return chroma_width > 2; }

/// RGBX rows (X = 255) for luma rows first … first + count − 1 of a picture `width` wide: luma row r at
/// y + (r − first)·yStride; chroma row c (⌈width/2⌉ samples) at cb/cr + (c − ⌊first/2⌋ + 1)·cStride, for every c
/// from ⌊first/2⌋ − 1 to ⌊(first + count − 1)/2⌋ + 1 — the rows above and below the picture repeating its first
/// and last, as libjpeg's context rows do. For a chroma row of two samples or fewer (`yc_jpeg_fancy_across`)
/// libjpeg repeats instead: those are not this row's (its callers keep them on libjpeg).
void yc_ycc420_rgbx(const uint8_t *y, size_t yStride, const uint8_t *cb, const uint8_t *cr, size_t cStride,
                    uint32_t width, uint32_t first, uint32_t count, uint8_t *dst, size_t dstStride);

/// The same on a given tier (tests): −1 when this CPU does not run it.
int yc_ycc420_rgbx_on(int tier, const uint8_t *y, size_t yStride, const uint8_t *cb, const uint8_t *cr,
                      size_t cStride, uint32_t width, uint32_t first, uint32_t count, uint8_t *dst, size_t dstStride);

/// One row of planar R, G and B (the quality measures' rebuild of the RGB a decoder shows, `yc_quality_rows.h`):
/// luma row `y`, its own chroma rows (`cbNear`, `crNear`) and the neighbours blended in (the row above for an even
/// luma row, below for an odd one; the picture's first or last at its edges).
void yc_ycc420_planar_row(const uint8_t *y, const uint8_t *cbNear, const uint8_t *cbFar, const uint8_t *crNear,
                          const uint8_t *crFar, uint32_t width, uint8_t *r, uint8_t *g, uint8_t *b);

#endif
