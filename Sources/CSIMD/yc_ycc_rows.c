// A 4:2:0 JPEG's planes to RGB rows (yc_ycc_rows.h), one body (yc_ycc_rows_body.h) compiled per tier.
#include "yc_ycc_rows.h"
#include "yc_cpu.h"

#define YC_BODY "yc_ycc_rows_body.h"
#define YC_BODY_VNNI 0
#include "yc_each_tier.h"

typedef void (*row_fn)(const uint8_t *, const uint8_t *, const uint8_t *, const uint8_t *, const uint8_t *, uint32_t,
                       uint8_t *);
typedef void (*planar_fn)(const uint8_t *, const uint8_t *, const uint8_t *, const uint8_t *, const uint8_t *, uint32_t,
                          uint8_t *, uint8_t *, uint8_t *);
#if defined(__x86_64__)
// VNNI adds nothing here: its tier runs the AVX-512BW row.
static const row_fn rows[YC_TIER_COUNT] = {ycc420_row_baseline, ycc420_row_avx2, ycc420_row_avx512bw, ycc420_row_avx512bw};
static const planar_fn planar[YC_TIER_COUNT] = {ycc420_planar_row_baseline, ycc420_planar_row_avx2,
                                                ycc420_planar_row_avx512bw, ycc420_planar_row_avx512bw};
#else
static const row_fn rows[YC_TIER_COUNT] = {ycc420_row_baseline, NULL, NULL, NULL};
static const planar_fn planar[YC_TIER_COUNT] = {ycc420_planar_row_baseline, NULL, NULL, NULL};
#endif

static void run(row_fn row, const uint8_t *y, size_t yStride, const uint8_t *cb, const uint8_t *cr, size_t cStride,
                uint32_t width, uint32_t first, uint32_t count, uint8_t *dst, size_t dstStride) {
    for (uint32_t i = 0; i < count; i++) {
        const uint32_t r = first + i;
        // The band's chroma row of this luma row, and its neighbour: the row above for an even luma row, the row
        // below for an odd one (index 0 is the row above the band's first).
        const size_t near = r / 2 - first / 2 + 1, far = r % 2 ? near + 1 : near - 1;
        row(y + (size_t)i * yStride, cb + near * cStride, cb + far * cStride, cr + near * cStride, cr + far * cStride,
            width, dst + (size_t)i * dstStride);
    }
}

void yc_ycc420_rgbx(const uint8_t *y, size_t yStride, const uint8_t *cb, const uint8_t *cr, size_t cStride,
                    uint32_t width, uint32_t first, uint32_t count, uint8_t *dst, size_t dstStride) {
    run(rows[yc_cpu_tier()], y, yStride, cb, cr, cStride, width, first, count, dst, dstStride);
}

int yc_ycc420_rgbx_on(int tier, const uint8_t *y, size_t yStride, const uint8_t *cb, const uint8_t *cr,
                      size_t cStride, uint32_t width, uint32_t first, uint32_t count, uint8_t *dst, size_t dstStride) {
    if (tier < 0 || tier > yc_cpu_best_tier() || rows[tier] == NULL) return -1;
    run(rows[tier], y, yStride, cb, cr, cStride, width, first, count, dst, dstStride);
    return 0;
}

void yc_ycc420_planar_row(const uint8_t *y, const uint8_t *cbNear, const uint8_t *cbFar, const uint8_t *crNear,
                          const uint8_t *crFar, uint32_t width, uint8_t *r, uint8_t *g, uint8_t *b) {
    planar[yc_cpu_tier()](y, cbNear, cbFar, crNear, crFar, width, r, g, b);
}
