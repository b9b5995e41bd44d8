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

#endif
