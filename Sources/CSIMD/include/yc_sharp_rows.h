// Sharp chroma's hot rows (YUVCore's `SharpYUV420` documents the method and keeps the wavefront), compiled
// per CPU tier. Integers only, in 16-bit lanes where a pass runs (bounds in SharpYUV420.swift): the same
// bytes on every tier by construction.
//
// Every row is `stride` samples with `stride` a multiple of 32 (at least `cw`): the rows run in whole
// vectors, so the samples from `cw` to `stride` hold leftovers, never read back as data. Where a row has a
// padded neighbour (the chroma rows' samples −1 and cw), the caller's buffers have room (SharpYUV420.swift).
#ifndef YC_SHARP_ROWS_H
#define YC_SHARP_ROWS_H

#include <stdint.h>

/// Q14 coefficients (luma and the box chroma, 32-bit products) and Q15 ones (the passes: `q·x/32768`
/// rounded, x in 1/64 code values).
typedef struct {
    int32_t yR, yG, yB;
    int32_t cbR, cbG, crG, crB;
    /// The inverse: R = Y + Cr + fR·Cr, B = Y + Cb + fB·Cb, G = Y − gCb·Cb − gCr·Cr.
    int16_t fR, fB, gCb, gCr;
    /// The residual's chroma: Cb = rB·dR + gB·dG + dB/2, Cr = dR/2 + gR·dG + bR·dB.
    int16_t rB, gB, gR, bR;
} yc_sharp_coefficients;

/// A source row of 8-bit RGB or RGBA (`step` 3 or 4 bytes a pixel) as six planes of 1/64 code values, `stride`
/// apart: R, G, B of the even columns, then of the odd ones; an odd last column is repeated as the odd one.
void yc_sharp_import8(const uint8_t *src, long step, long width, int16_t *dst, long stride);

/// The same from 16-bit RGB (host order): x·16320/65535, rounded.
void yc_sharp_import16(const uint16_t *src, long width, int16_t *dst, long stride);

/// Luma of a row in 1/64 code values from its R, G, B planes (`n` samples each, a multiple of 32).
void yc_sharp_luma(const int16_t *r, const int16_t *g, const int16_t *b, int16_t *y, long n,
                   const yc_sharp_coefficients *k);

/// The box chroma of a row pair (`a` the upper source row, `s` the lower, six planes `stride` apart): the
/// mean of each 2×2 block's chroma, one rounding; the padding samples −1 and cw repeat the edge.
void yc_sharp_box(const int16_t *a, const int16_t *s, int16_t *cb, int16_t *cr, long cw, long stride,
                  const yc_sharp_coefficients *k);

/// The vertical half of the upsampler over a padded chroma row: cv[i] = (3·own[i − 1] + near[i − 1] + 2) >> 2
/// for i in 0 …< n.
void yc_sharp_blend(const int16_t *own, const int16_t *near, int16_t *cv, long n);

/// One row rebuilt as the player would (bilinear chroma from the vertical blends `cvB`, `cvR`, padded by one
/// sample each side; the inverse matrix; clamped), and its luma (`y`: even then odd columns, `stride` apart)
/// moved by the mean residual. `s`: the source row's six planes. With `ebE` non-NULL, also the residual's Cb
/// and Cr at even and odd columns.
void yc_sharp_reconstruct(const int16_t *s, int16_t *y, const int16_t *cvB, const int16_t *cvR, int16_t *ebE,
                          int16_t *ebO, int16_t *erE, int16_t *erO, long stride, const yc_sharp_coefficients *k);

/// The adjoint across a row, as a mean: h(i) = (3·(e[i] + o[i+1]) + o[i] + e[i+1]) / 8, two roundings (`o` is
/// the odd samples one place on: o[i] is odd sample i − 1, o[0] the edge's repeat).
void yc_sharp_adjoint(const int16_t *e, const int16_t *o, int16_t *h, long n);

/// The next generation of one chroma row from the adjoints of its four rows (`h0` … `h3`: rows 2j − 1 … 2j + 2,
/// the edge rows repeated): their mean m = (h0 + 3h1 + 3h2 + h3) / 8, and old + ((old − before + 1) >> 1) +
/// m + mulhrs(m, ¾) (the step ×7/4 plus half the previous move), clamped to −128·64 … 127·64; its padding
/// samples −1 and cw set.
void yc_sharp_move(const int16_t *h0, const int16_t *h1, const int16_t *h2, const int16_t *h3, const int16_t *old,
                   const int16_t *before, int16_t *next, long cw);

/// A luma row as code values (`full`: full range, else limited) from its even and odd planes.
void yc_sharp_write_luma(const int16_t *e, const int16_t *o, uint8_t *dst, long width, int full);

/// A chroma row pair's codes: `cb` to `u` and `cr` to `v`, `step` bytes apart (1 planar, 2 interleaved: then
/// `u` and `v` are neighbours, |u − v| = 1, as NV12 and NV21 have them; the row stores them as pairs).
void yc_sharp_write_chroma(const int16_t *cb, const int16_t *cr, uint8_t *u, uint8_t *v, long step, long cw,
                           int full);

#endif
