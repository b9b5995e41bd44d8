// The JPEG direct path's rows, one body (yc_direct_rows_body.h) compiled per tier.
#include "yc_rows.h"
#include "yc_cpu.h"

#include <stddef.h>

#define YC_BODY "yc_direct_rows_body.h"
#define YC_BODY_VNNI 0
#include "yc_each_tier.h"

#if defined(__x86_64__)
// VNNI adds nothing to these rows (no byte dot products): its tier runs the AVX-512BW code.
#define ON_TIERS(f) {f##_baseline, f##_avx2, f##_avx512bw, f##_avx512bw}
#else
#define ON_TIERS(f) {f##_baseline, NULL, NULL, NULL}
#endif

typedef void (*rows420_fn)(const uint8_t *, const uint8_t *, const uint8_t *, const uint8_t *, uint8_t *, uint8_t *,
                           uint8_t *, uint8_t *, uint8_t *, long, const yc_direct_plan *);
typedef void (*luma_fn)(const uint8_t *, const uint8_t *, const uint8_t *, uint8_t *, long, const yc_direct_plan *);
typedef void (*quad_fn)(const uint8_t *, const uint8_t *, const uint8_t *, const uint8_t *, uint8_t *, uint8_t *,
                        uint8_t *, long, const yc_direct_plan *);
static const rows420_fn rows420[YC_TIER_COUNT] = ON_TIERS(direct420);
static const luma_fn luma[YC_TIER_COUNT] = ON_TIERS(direct_luma);
static const quad_fn quad[YC_TIER_COUNT] = ON_TIERS(direct_quad);
typedef void (*values_fn)(const int32_t *, const int32_t *, int, uint8_t *, uint8_t *, const yc_direct_plan *);
static const values_fn values[YC_TIER_COUNT] = ON_TIERS(direct_values);

/// The tier to run: the one in use for −1, or `tier` when this CPU runs it; −1 otherwise.
static int pick(int tier) {
    if (tier < 0) return yc_cpu_tier();
    return tier <= yc_cpu_best_tier() && rows420[tier] != NULL ? tier : -1;
}

int yc_direct420_rows(int tier, const uint8_t *y0In, const uint8_t *y1In, const uint8_t *cb, const uint8_t *cr,
                      uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v, uint8_t *uv, long count,
                      const yc_direct_plan *plan) {
    const int t = pick(tier);
    if (t < 0) return -1;
    rows420[t](y0In, y1In, cb, cr, y0, y1, u, v, uv, count, plan);
    return 0;
}

int yc_direct_luma_pixels(int tier, const uint8_t *src, const uint8_t *cb, const uint8_t *cr, uint8_t *dst,
                          long count, const yc_direct_plan *plan) {
    const int t = pick(tier);
    if (t < 0) return -1;
    luma[t](src, cb, cr, dst, count, plan);
    return 0;
}

int yc_direct_quad_chroma(int tier, const uint8_t *cb0, const uint8_t *cr0, const uint8_t *cb1,
                          const uint8_t *cr1, uint8_t *u, uint8_t *v, uint8_t *uv, long count,
                          const yc_direct_plan *plan) {
    const int t = pick(tier);
    if (t < 0) return -1;
    quad[t](cb0, cr0, cb1, cr1, u, v, uv, count, plan);
    return 0;
}

int yc_direct_chroma_values(int tier, const int32_t *cbSums, const int32_t *crSums, int four, uint8_t *u, uint8_t *v,
                            const yc_direct_plan *plan) {
    const int t = pick(tier);
    if (t < 0) return -1;
    values[t](cbSums, crSums, four, u, v, plan);
    return 0;
}
