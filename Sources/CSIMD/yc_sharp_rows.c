// Sharp chroma's rows, one body (yc_sharp_rows_body.h) compiled per tier.
#include "yc_sharp_rows.h"
#include "yc_cpu.h"

#include <stddef.h>

#define YC_BODY "yc_sharp_rows_body.h"
#define YC_BODY_VNNI 0
#include "yc_each_tier.h"

void yc_sharp_reconstruct(const int16_t *s, int16_t *y, const int32_t *cvB, const int32_t *cvR, int32_t *ebE,
                          int32_t *ebO, int32_t *erE, int32_t *erO, long cw, const yc_sharp_coefficients *k) {
    YC_ON_TIER(sharp_reconstruct)(s, y, cvB, cvR, ebE, ebO, erE, erO, cw, k);
}

void yc_sharp_blend(const int16_t *own, const int16_t *near, int32_t *cv, long cw) {
    YC_ON_TIER(sharp_blend)(own, near, cv, cw);
}

void yc_sharp_adjoint(const int32_t *e, const int32_t *o, int32_t *own, int32_t *near, long cw) {
    YC_ON_TIER(sharp_adjoint)(e, o, own, near, cw);
}

void yc_sharp_move(const int32_t *t, const int16_t *old, const int16_t *before, int16_t *next, long cw) {
    YC_ON_TIER(sharp_move)(t, old, before, next, cw);
}

void yc_sharp_luma(const int16_t *r, const int16_t *g, const int16_t *b, int16_t *y, long n,
                   const yc_sharp_coefficients *k) {
    YC_ON_TIER(sharp_luma)(r, g, b, y, n, k);
}
