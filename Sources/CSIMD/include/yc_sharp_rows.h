// Sharp chroma's hot rows (YUVCore's `SharpYUV420` documents the method and keeps the wavefront), compiled
// per CPU tier. Integers only, wrapping nowhere (the bounds are in SharpYUV420.swift): the same bytes on
// every tier by construction.
#ifndef YC_SHARP_ROWS_H
#define YC_SHARP_ROWS_H

#include <stdint.h>

/// Q14 coefficients: luma, the residual's chroma, and the inverse.
typedef struct {
    int32_t yR, yG, yB;
    int32_t cbR, cbG, crG, crB;
    int32_t rCr, gCb, gCr, bCb;
} yc_sharp_coefficients;

/// One row rebuilt as the player would (bilinear chroma from the vertical blends `cvB`, `cvR`, ×4, padded
/// by one sample each side; the inverse matrix; clamped) and its luma (`y`: even then odd columns, `cw` each)
/// moved by the mean residual. `s`: the source row as six planes of `cw` samples (R, G, B even; R, G, B odd
/// — the order SharpYUV420 keeps). With `ebE` non-NULL, also the residual's Cb and Cr at even and odd
/// columns.
void yc_sharp_reconstruct(const int16_t *s, int16_t *y, const int32_t *cvB, const int32_t *cvR, int32_t *ebE,
                          int32_t *ebO, int32_t *erE, int32_t *erO, long cw, const yc_sharp_coefficients *k);

/// The vertical half of the upsampler: cv[i + 1] = 3·own[i] + near[i], and the edges repeated.
void yc_sharp_blend(const int16_t *own, const int16_t *near, int32_t *cv, long cw);

/// The adjoint across a row: h(i) = o[i] + 3e[i] + 3o[i+1] + e[i+1]; own += 3h and near += h, or own += 4h
/// when `near` is NULL (the row's pair is its own neighbour at the picture's edge).
void yc_sharp_adjoint(const int32_t *e, const int32_t *o, int32_t *own, int32_t *near, long cw);

/// The next generation of one chroma row: old + (7·t + 128·(old − before) + 128) >> 8, clamped to
/// −128·64 … 127·64.
void yc_sharp_move(const int32_t *t, const int16_t *old, const int16_t *before, int16_t *next, long cw);

/// Luma of a row in 1/64 code values from its R, G, B planes (`n` samples each).
void yc_sharp_luma(const int16_t *r, const int16_t *g, const int16_t *b, int16_t *y, long n,
                   const yc_sharp_coefficients *k);

#endif
