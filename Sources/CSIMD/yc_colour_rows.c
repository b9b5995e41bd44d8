// The colour fast path's rows, one body (yc_colour_rows_body.h) compiled per tier.
#include "yc_colour_rows.h"
#include "yc_cpu.h"

#include <stddef.h>

#define YC_BODY "yc_colour_rows_body.h"
#define YC_BODY_VNNI 0
#include "yc_each_tier.h"

typedef void (*row_fn)(const yc_colour_tables *, uint8_t *, uint32_t, int);
#if defined(__x86_64__)
// VNNI adds nothing here: its tier runs the AVX-512BW row.
static const row_fn rows[YC_TIER_COUNT] = {colour_row_baseline, colour_row_avx2, colour_row_avx512bw, colour_row_avx512bw};
#else
static const row_fn rows[YC_TIER_COUNT] = {colour_row_baseline, NULL, NULL, NULL};
#endif

void yc_colour_rows(const yc_colour_tables *t, uint8_t *pixels, uint32_t width, int step) {
    rows[yc_cpu_tier()](t, pixels, width, step);
}

int yc_colour_rows_on(int tier, const yc_colour_tables *t, uint8_t *pixels, uint32_t width, int step) {
    if (tier < 0 || tier > yc_cpu_best_tier() || rows[tier] == NULL) return -1;
    rows[tier](t, pixels, width, step);
    return 0;
}
