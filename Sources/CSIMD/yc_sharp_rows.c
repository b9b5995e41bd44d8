// Sharp chroma's rows, one body (yc_sharp_rows_body.h) compiled per tier.
#include "yc_sharp_rows.h"
#include "yc_cpu.h"

#include <stddef.h>

#define YC_BODY "yc_sharp_rows_body.h"
#define YC_BODY_VNNI 0
#include "yc_each_tier.h"

#if defined(__x86_64__)
// VNNI adds nothing here: its tier runs the AVX-512BW rows.
#define PICK(f) (t == 0 ? f##_baseline : t == 1 ? f##_avx2 : f##_avx512bw)
#else
#define PICK(f) f##_baseline
#endif

void yc_sharp_reconstruct(const int16_t *s, int16_t *y, const int32_t *cvB, const int32_t *cvR, int32_t *ebE,
                          int32_t *ebO, int32_t *erE, int32_t *erO, long cw, const yc_sharp_coefficients *k) {
    const int t = yc_cpu_tier();
    (void)t;
    PICK(sharp_reconstruct)(s, y, cvB, cvR, ebE, ebO, erE, erO, cw, k);
}

void yc_sharp_blend(const int16_t *own, const int16_t *near, int32_t *cv, long cw) {
    const int t = yc_cpu_tier();
    (void)t;
    PICK(sharp_blend)(own, near, cv, cw);
}

void yc_sharp_adjoint(const int32_t *e, const int32_t *o, int32_t *own, int32_t *near, long cw) {
    const int t = yc_cpu_tier();
    (void)t;
    PICK(sharp_adjoint)(e, o, own, near, cw);
}

void yc_sharp_move(const int32_t *tt, const int16_t *old, const int16_t *before, int16_t *next, long cw) {
    const int t = yc_cpu_tier();
    (void)t;
    PICK(sharp_move)(tt, old, before, next, cw);
}

void yc_sharp_luma(const int16_t *r, const int16_t *g, const int16_t *b, int16_t *y, long n,
                   const yc_sharp_coefficients *k) {
    const int t = yc_cpu_tier();
    (void)t;
    PICK(sharp_luma)(r, g, b, y, n, k);
}
