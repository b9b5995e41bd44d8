// The quality accumulator's exact row, one body (yc_quality_rows_body.h) compiled per tier.
#include "yc_quality_rows.h"
#include "yc_cpu.h"
#include "yc_ycc_rows.h"
#include "yc_vec.h"

#include <stddef.h>

#define YC_BODY "yc_quality_rows_body.h"
#define YC_BODY_VNNI 0
#include "yc_each_tier.h"

void yc_quality_exact_row(const uint8_t *r, const uint8_t *g, const uint8_t *b, const uint8_t *u, const uint8_t *v,
                          const uint8_t *y, int32_t *exactY, long width, const yc_quality_exact_k *k, int block,
                          int split, int32_t *ca, int32_t *caa, int32_t *cb, int64_t *cbb, int64_t *cab,
                          uint64_t sums[6]) {
    YC_ON_TIER(quality_exact_row)(r, g, b, u, v, y, exactY, width, k, block, split, ca, caa, cb, cbb, cab, sums);
}


uint64_t yc_quality_full_errors(const uint8_t *y, const uint8_t *r, const uint8_t *g, const uint8_t *b,
                                const int32_t *cb16, const int32_t *cr16, long width, const yc_quality_offset_k *k,
                                uint8_t *marks, uint8_t *marked) {
    return YC_ON_TIER(quality_full_errors)(y, r, g, b, cb16, cr16, width, k, marks, marked);
}

uint64_t yc_quality_pair_errors(const uint8_t *y, const uint8_t *r, const uint8_t *g, const uint8_t *b,
                                const int32_t *oR, const int32_t *oG, const int32_t *oB, const uint8_t *marks,
                                long width) {
    return YC_ON_TIER(quality_pair_errors)(y, r, g, b, oR, oG, oB, marks, width);
}

void yc_quality_offsets(const int32_t *cb16, const int32_t *cr16, long count, const yc_quality_offset_k *k,
                        int32_t *oR, int32_t *oG, int32_t *oB, uint8_t *marks) {
    YC_ON_TIER(quality_offsets)(cb16, cr16, count, k, oR, oG, oB, marks);
}

void yc_quality_decoder_rgb_row(int mode, const uint8_t *y, const uint8_t *cbOwn, const uint8_t *cbOther,
                                const uint8_t *crOwn, const uint8_t *crOther, long width, long chromaWidth, int hr,
                                int parity, const int32_t fix[4], int32_t *sums, uint8_t *ub, uint8_t *vb, uint8_t *r,
                                uint8_t *g, uint8_t *b) {
    // h2v2 (4:2:0, chroma wider than two samples): the RGB route's own rows (yc_ycc_rows.h), the one place
    // that writes libjpeg's h2v2 upsampling and colour conversion out in C.
    if (mode == 3) {
        yc_ycc420_planar_row(y, cbOwn, cbOther, crOwn, crOther, (uint32_t)width, r, g, b);
        return;
    }
    YC_ON_TIER(quality_decoder_rgb_row)(mode, y, cbOwn, cbOther, crOwn, crOther, width, chromaWidth, hr, parity, fix,
                                        sums, ub, vb, r, g, b);
}

void yc_quality_bilinear16(const uint8_t *own, const uint8_t *other, long width, int32_t *columnSums, int32_t *cb16,
                           int32_t *cr16) {
    YC_ON_TIER(quality_bilinear16)(own, other, width, columnSums, cb16, cr16);
}

void yc_quality_split_pairs(const uint8_t *pairs, long count, uint8_t *first, uint8_t *second) {
    YC_ON_TIER(quality_split_pairs)(pairs, count, first, second);
}

double yc_quality_ssim_block(const int32_t *ca, const int32_t *caa, const int32_t *cb, const int64_t *cbb,
                             const int64_t *cab, long width, int64_t *groups, const int64_t *previous, int full,
                             double q, double *out, long *windows) {
    return YC_ON_TIER(quality_ssim_block)(ca, caa, cb, cbb, cab, width, groups, previous, full, q, out, windows);
}
