// Row kernels with one body compiled once per CPU tier (yc_cpu.h), called through the tier in use.
#ifndef YC_ROWS_H
#define YC_ROWS_H

#include <stdint.h>

/// One RGBA → 4:2:0 conversion, from the contract's integer weights (Kr + Kg + Kb = 10000).
typedef struct {
    int32_t kr, kg, kb;
    int32_t full;  // 1 full range, 0 limited
} yc_rgba420_spec;

/// Pixels per row a call of `yc_rgba420_rows` handles at a time; `count` is a multiple of it.
#define YC_RGBA420_STEP 32

/// Two rows of RGBX (R, G, B, ignored byte in memory), `count` pixels each, to two rows of luma and one
/// row of chroma: U and V planar (`uv` NULL) or interleaved into `uv` (U, V, U, V …; `u`, `v` NULL).
/// `y1` NULL skips the second luma row (an odd last row: pass its source row as `s1` too).
void yc_rgba420_rows(const uint8_t *s0, const uint8_t *s1, uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v,
                     uint8_t *uv, long count, const yc_rgba420_spec *spec);

/// The same on a given tier (tests compare tiers; -1 when the CPU cannot run it, and nothing is written).
int yc_rgba420_rows_on(int tier, const uint8_t *s0, const uint8_t *s1, uint8_t *y0, uint8_t *y1, uint8_t *u,
                       uint8_t *v, uint8_t *uv, long count, const yc_rgba420_spec *spec);

/// `count` pixels of R, G, B bytes to R, G, B, 0xFF (the RGBA rows' input); the same bytes on every tier.
void yc_rgb_to_rgbx_row(const uint8_t *src, uint8_t *dst, long count);

/// ⌊(c + wb·b + wr·r)/d⌋ with every partial sum below 2^53 (so exact in a double), and 1/d.
typedef struct {
    double c, wb, wr, d, inv;
} yc_quotient;

/// The JPEG direct path's row constants (YUVCore's `DirectRowPlan`, which proves their ranges).
typedef struct {
    yc_quotient u, v;                     // output Cb, Cr from the [1 6 1] sums of source Cb and Cr (4:2:0)
    yc_quotient u4, v4;                   // the same from four pixels' sums (other samplings)
    yc_quotient luma_offset;              // full range: luma − source luma, from the pixel's Cb and Cr bytes
    yc_quotient luma_limited;             // limited range: luma from P + wy·Y
    double wy;
    int32_t full;
} yc_direct_plan;

/// Chroma samples (16) a step of the direct rows handles; counts are multiples of it.
#define YC_DIRECT_STEP 16

/// One 4:2:0 row pair, `count` chroma samples (2·count pixels): `cb`, `cr` are the source chroma rows with
/// one sample replicated before them (the [1 6 1] filter's edge) and enough after. `y1` NULL for an odd last
/// row. Chroma planar into `u`, `v`, or interleaved into `uv`. `tier` −1 for the tier in use; returns −1
/// (nothing written) for a tier this CPU cannot run.
int yc_direct420_rows(int tier, const uint8_t *y0In, const uint8_t *y1In, const uint8_t *cb, const uint8_t *cr,
                      uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v, uint8_t *uv, long count,
                      const yc_direct_plan *plan);

/// Luma of `count` pixels (a multiple of 16), each under its own per-pixel Cb and Cr byte.
int yc_direct_luma_pixels(int tier, const uint8_t *src, const uint8_t *cb, const uint8_t *cr, uint8_t *dst,
                          long count, const yc_direct_plan *plan);

/// `count` chroma samples (a multiple of 16) from per-pixel chroma rows of both luma rows: each the mean
/// of its four pixels' samples.
int yc_direct_quad_chroma(int tier, const uint8_t *cb0, const uint8_t *cr0, const uint8_t *cb1,
                          const uint8_t *cr1, uint8_t *u, uint8_t *v, uint8_t *uv, long count,
                          const yc_direct_plan *plan);

/// For the exhaustive tests: output Cb, Cr of sixteen pairs of source chroma sums through the rows' own
/// arithmetic ([1 6 1] sums when `four` is 0, four-pixel sums otherwise).
int yc_direct_chroma_values(int tier, const int32_t *cbSums, const int32_t *crSums, int four, uint8_t *u, uint8_t *v,
                            const yc_direct_plan *plan);

#endif
