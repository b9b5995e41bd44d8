// Sharp chroma's rows, one body (yc_sharp_rows_body.h) compiled per tier.
#include "yc_sharp_rows.h"
#include "yc_cpu.h"

#include <stddef.h>

#define YC_BODY "yc_sharp_rows_body.h"
#define YC_BODY_VNNI 0
#include "yc_each_tier.h"

void yc_sharp_import8(const uint8_t *src, long step, long width, int16_t *dst, long stride) {
    YC_ON_TIER(sharp_import8)(src, step, width, dst, stride);
}

void yc_sharp_import16(const uint16_t *src, long width, int16_t *dst, long stride) {
    const long pairs = width / 2;
    for (long x = 0; x < width; x++) {
        int16_t *plane = dst + (x & 1) * stride;
        for (int c = 0; c < 3; c++)
            plane[2 * c * stride + x / 2] = (int16_t)(((int32_t)src[3 * x + c] * 16320 + 32767) / 65535);
    }
    if (width & 1)
        for (int c = 0; c < 3; c++) dst[(2 * c + 1) * stride + pairs] = dst[2 * c * stride + pairs];
}

void yc_sharp_luma(const int16_t *r, const int16_t *g, const int16_t *b, int16_t *y, long n,
                   const yc_sharp_coefficients *k) {
    YC_ON_TIER(sharp_luma)(r, g, b, y, n, k);
}

void yc_sharp_box(const int16_t *a, const int16_t *s, int16_t *cb, int16_t *cr, long cw, long stride,
                  const yc_sharp_coefficients *k) {
    YC_ON_TIER(sharp_box)(a, s, cb, cr, cw, stride, k);
}

void yc_sharp_blend(const int16_t *own, const int16_t *near, int16_t *cv, long n) {
    YC_ON_TIER(sharp_blend)(own, near, cv, n);
}

void yc_sharp_reconstruct(const int16_t *s, int16_t *y, const int16_t *cvB, const int16_t *cvR, int16_t *ebE,
                          int16_t *ebO, int16_t *erE, int16_t *erO, long stride, const yc_sharp_coefficients *k) {
    YC_ON_TIER(sharp_reconstruct)(s, y, cvB, cvR, ebE, ebO, erE, erO, stride, k);
}

void yc_sharp_adjoint(const int16_t *e, const int16_t *o, int16_t *h, long n) {
    YC_ON_TIER(sharp_adjoint)(e, o, h, n);
}

void yc_sharp_move(const int16_t *h0, const int16_t *h1, const int16_t *h2, const int16_t *h3, const int16_t *old,
                   const int16_t *before, int16_t *next, long cw) {
    YC_ON_TIER(sharp_move)(h0, h1, h2, h3, old, before, next, cw);
}

void yc_sharp_write_luma(const int16_t *e, const int16_t *o, uint8_t *dst, long width, int full) {
    YC_ON_TIER(sharp_write_luma)(e, o, dst, width, full);
}

void yc_sharp_write_chroma(const int16_t *cb, const int16_t *cr, uint8_t *u, uint8_t *v, long step, long cw,
                           int full) {
    YC_ON_TIER(sharp_write_chroma)(cb, cr, u, v, step, cw, full);
}
