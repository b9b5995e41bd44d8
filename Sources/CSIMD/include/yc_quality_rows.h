// The quality accumulator's hottest row (YUVCore's `QualityAccumulator.addExact` documents the arithmetic),
// compiled per CPU tier: plain C loops the compiler vectorises for each tier, every product a 32×32 → 64-bit
// one (`pmuludq` exists from SSE2 on; a 64×64 multiply does not before AVX-512).
#ifndef YC_QUALITY_ROWS_H
#define YC_QUALITY_ROWS_H

#include <stdint.h>

typedef struct {
    int32_t kr, kg, kb, s;          // the matrix (1/S)
    int32_t qY, yOff, yMul;         // exact Y × qY = yOff + yMul·N
    int32_t cbMul, crMul, cK;       // Cb error × cbMul = cbMul·(Cb − 128) − cK·(S·B − N); Cr alike
} yc_quality_exact_k;

/// One row's exact squared errors of Y, Cb and Cr from planar R, G, B and the row's Y, U, V bytes, added to
/// `sums` (Y, Cb, Cr: with `split`, each as bits 24 and up in sums[2i] and below in sums[2i+1]; else all in
/// sums[2i+1]). `block` 0 writes each pixel's exact Y numerator to `exactY`; 1 starts SSIM's column sums
/// (a, a², b, b², ab of Y and exact Y), 2 adds to them.
void yc_quality_exact_row(const uint8_t *r, const uint8_t *g, const uint8_t *b, const uint8_t *u, const uint8_t *v,
                          const uint8_t *y, int32_t *exactY, long width, const yc_quality_exact_k *k, int block,
                          int split, int32_t *ca, int32_t *caa, int32_t *cb, int64_t *cbb, int64_t *cab,
                          uint64_t sums[6]);

/// Full range's round-trip offsets (YUVCore's `QualityAccumulator.offsetConstants`): R and B from `aR`, `aB`
/// and `bias`; G from `gR`, `gB` in `float`, with `margin`.
typedef struct {
    int32_t aR, aB, bias;
    float gR, gB, margin;
} yc_quality_offset_k;

/// Σ over a row of the full-range round trip's squared RGB error, each pixel's offsets from its own 16×
/// chroma (`cb16`, `cr16`); `marks[x]` 1 where the reference's rounding must be taken instead (a tie: that
/// pixel is left out of the sum, for the caller to measure), and the OR of the marks in `*marked`.
uint64_t yc_quality_full_errors(const uint8_t *y, const uint8_t *r, const uint8_t *g, const uint8_t *b,
                                const int32_t *cb16, const int32_t *cr16, long width, const yc_quality_offset_k *k,
                                uint8_t *marks, uint8_t *marked);

/// The offsets themselves, of `count` chroma values, with their marks.
void yc_quality_offsets(const int32_t *cb16, const int32_t *cr16, long count, const yc_quality_offset_k *k,
                        int32_t *oR, int32_t *oG, int32_t *oB, uint8_t *marks);

/// Σ over a row of the squared RGB error with offsets per chroma sample (`oR`, `oG`, `oB`: pixel x takes
/// sample x/2), leaving out the pixels of samples `marks` marks (the caller measures them).
uint64_t yc_quality_pair_errors(const uint8_t *y, const uint8_t *r, const uint8_t *g, const uint8_t *b,
                                const int32_t *oR, const int32_t *oG, const int32_t *oB, const uint8_t *marks,
                                long width);

/// One RGB row as libjpeg-turbo's decoder gives it (YUVIO's `DecoderRGB.row`): each chroma component upsampled
/// (`mode` 0 full resolution, 1 h2v1, 2 h1v2, 3 h2v2 fancy — the RGB route's rows, yc_ycc_rows.h —, 4 the box of `hr` luma columns a sample; `*Own`
/// the component's own row, `*Other` the one blended in; `sums`: chromaWidth + 2 scratch; `ub`, `vb`: width
/// each), then jdcolor.c's fixed-point YCbCr → RGB with `fix` = FIX(1.40200), FIX(1.77200), FIX(0.71414),
/// FIX(0.34414), into planar `r`, `g`, `b`.
void yc_quality_decoder_rgb_row(int mode, const uint8_t *y, const uint8_t *cbOwn, const uint8_t *cbOther,
                                const uint8_t *crOwn, const uint8_t *crOther, long width, long chromaWidth, int hr,
                                int parity, const int32_t fix[4], int32_t *sums, uint8_t *ub, uint8_t *vb, uint8_t *r,
                                uint8_t *g, uint8_t *b);

/// The bilinear round trip's chroma, 16× per pixel (YUVCore's `QualityAccumulator.bilinearError`): `own` and
/// `other` are chroma row pairs (U then V, (width + 1) / 2 each); `columnSums` is 2 × (cw + 2) scratch.
void yc_quality_bilinear16(const uint8_t *own, const uint8_t *other, long width, int32_t *columnSums, int32_t *cb16,
                           int32_t *cr16);

/// Interleaved pairs (NV12/NV21 chroma) split into two rows.
void yc_quality_split_pairs(const uint8_t *pairs, long count, uint8_t *first, uint8_t *second);

/// SSIM after a finished 4-row block (YUVCore's `QualityAccumulator.finishBlock`): the block's column sums
/// reduced to 4-column groups into `groups` (5 × (width / 4 + 1)); with the previous block's groups
/// (`previous`, or NULL for the first block) each 8×8 window's SSIM into `out`, their sum in order returned
/// and their number in `*windows`.
double yc_quality_ssim_block(const int32_t *ca, const int32_t *caa, const int32_t *cb, const int64_t *cbb,
                             const int64_t *cab, long width, int64_t *groups, const int64_t *previous, int full,
                             double q, double *out, long *windows);

#endif
