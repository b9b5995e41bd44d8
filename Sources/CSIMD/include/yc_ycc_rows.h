// A 4:2:0 JPEG's YCbCr planes to RGB rows as libjpeg(-turbo) makes them by default — its "fancy" triangle
// upsampling of the chroma (¾ of the nearer sample, ¼ of the farther, down the rows and then along them) and
// its YCbCr → RGB tables — byte for byte, compiled per CPU tier. The RGB route decodes such a JPEG's planes on
// the decoding thread and builds its RGB rows here, on the colour or conversion stage's thread.
#ifndef YC_YCC_ROWS_H
#define YC_YCC_ROWS_H

#include <stddef.h>
#include <stdint.h>

/// RGBX rows (X = 255) for luma rows first … first + count − 1 of a picture `width` wide: luma row r at
/// y + (r − first)·yStride; chroma row c (⌈width/2⌉ samples) at cb/cr + (c − ⌊first/2⌋ + 1)·cStride, for every c
/// from ⌊first/2⌋ − 1 to ⌊(first + count − 1)/2⌋ + 1 — the rows above and below the picture repeating its first
/// and last, as libjpeg's context rows do. `width` is at least 5 (libjpeg upsamples a chroma row of two samples
/// or fewer by repeating them instead).
void yc_ycc420_rgbx(const uint8_t *y, size_t yStride, const uint8_t *cb, const uint8_t *cr, size_t cStride,
                    uint32_t width, uint32_t first, uint32_t count, uint8_t *dst, size_t dstStride);

/// The same on a given tier (tests): −1 when this CPU does not run it.
int yc_ycc420_rgbx_on(int tier, const uint8_t *y, size_t yStride, const uint8_t *cb, const uint8_t *cr,
                      size_t cStride, uint32_t width, uint32_t first, uint32_t count, uint8_t *dst, size_t dstStride);

#endif
