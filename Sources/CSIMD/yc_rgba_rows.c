// RGBA → 4:2:0 rows, one body (yc_rgba_rows_body.h) compiled per tier with that tier's target attributes.
#include "yc_rows.h"
#include "yc_cpu.h"

#include <stddef.h>

#define YC_BODY "yc_rgba_rows_body.h"
#define YC_BODY_VNNI 1
#include "yc_each_tier.h"

typedef void (*rows_fn)(const uint8_t *, const uint8_t *, uint8_t *, uint8_t *, uint8_t *, uint8_t *, uint8_t *,
                        long, const yc_rgba420_spec *);
#if defined(__x86_64__)
static const rows_fn tiers[YC_TIER_COUNT] = {rgba420_rows_baseline, rgba420_rows_avx2, rgba420_rows_avx512bw,
                                             rgba420_rows_avx512vnni};
#else
static const rows_fn tiers[YC_TIER_COUNT] = {rgba420_rows_baseline, NULL, NULL, NULL};
#endif

void yc_rgba420_rows(const uint8_t *s0, const uint8_t *s1, uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v,
                     uint8_t *uv, long count, const yc_rgba420_spec *spec) {
    tiers[yc_cpu_tier()](s0, s1, y0, y1, u, v, uv, count, spec);
}

int yc_rgba420_rows_on(int tier, const uint8_t *s0, const uint8_t *s1, uint8_t *y0, uint8_t *y1, uint8_t *u,
                       uint8_t *v, uint8_t *uv, long count, const yc_rgba420_spec *spec) {
    if (tier < 0 || tier > yc_cpu_best_tier() || tiers[tier] == NULL) return -1;
    tiers[tier](s0, s1, y0, y1, u, v, uv, count, spec);
    return 0;
}
