// Sharp chroma's rows, included once per tier by yc_sharp_rows.c. The passes run in 16-bit lanes, 32 samples
// a step, with one multiply kind: mulhrs(x, q) = (x·q + 2^14) >> 15, a Q15 coefficient rounded half up —
// one instruction on AVX2 and AVX-512 (vpmulhrsw), the same integers from 32-bit products elsewhere. Rows
// run in whole vectors (yc_sharp_rows.h: `stride`).
#include "yc_vec.h"

#define S_(n) YC_BODY_NAME(sharp_##n)

YC_INLINE YC_BODY_TARGET yc_v_i16 S_(ld)(const int16_t *p) {
    yc_v_i16 v;
    __builtin_memcpy(&v, p, 64);
    return v;
}

YC_INLINE YC_BODY_TARGET void S_(st)(int16_t *p, yc_v_i16 v) { __builtin_memcpy(p, &v, 64); }

YC_INLINE YC_BODY_TARGET yc_v_i16 S_(splat)(int16_t c) { return (yc_v_i16){0} + c; }

YC_INLINE YC_BODY_TARGET yc_v_i16 S_(clamp)(yc_v_i16 v, int16_t lo, int16_t hi) {
    return __builtin_elementwise_min(__builtin_elementwise_max(v, S_(splat)(lo)), S_(splat)(hi));
}

YC_INLINE YC_BODY_TARGET yc_v_i32x32 S_(wide)(const int16_t *p) { return __builtin_convertvector(S_(ld)(p), yc_v_i32x32); }

/// (x·q + 2^14) >> 15 in every lane (the low 16 bits of it; every use here stays in range).
YC_INLINE YC_BODY_TARGET yc_v_i16 S_(mulhrs)(yc_v_i16 x, int16_t q) {
#if defined(__x86_64__) && YC_BODY_TIER >= 2
    return (yc_v_i16)_mm512_mulhrs_epi16((__m512i)x, _mm512_set1_epi16(q));
#elif defined(__x86_64__) && YC_BODY_TIER == 1
    __m256i h[2];
    __builtin_memcpy(h, &x, 64);
    const __m256i k = _mm256_set1_epi16(q);
    h[0] = _mm256_mulhrs_epi16(h[0], k);
    h[1] = _mm256_mulhrs_epi16(h[1], k);
    __builtin_memcpy(&x, h, 64);
    return x;
#else
    const yc_v_i32x32 w = __builtin_convertvector(x, yc_v_i32x32) * (int32_t)q;
    return __builtin_convertvector((w + 16384) >> 15, yc_v_i16);
#endif
}

#define YC_SHARP_TOP (255 << 6)

/// One vector of pixels rebuilt, its new luma and its residual's chroma. With gB = −½ − rB (and gR likewise,
/// SharpYUV420.Coefficients), the residual's Cb is (dB − dG)/2 + rB·(dR − dG) and its Cr (dR − dG)/2 +
/// bR·(dB − dG): one multiply each; (x + 1) >> 1 is mulhrs(x, ½).
#define YC_SHARP_PIXEL(yv, r, g, b, ub, ur, ny, eb, er)                                                        \
    do {                                                                                                       \
        const yc_v_i16 dr_ = (r) - S_(clamp)((yv) + (ur) + S_(mulhrs)((ur), fR), 0, YC_SHARP_TOP);             \
        const yc_v_i16 dg_ = (g) - S_(clamp)((yv) - S_(mulhrs)((ub), gCb) - S_(mulhrs)((ur), gCr), 0,          \
                                             YC_SHARP_TOP);                                                    \
        const yc_v_i16 db_ = (b) - S_(clamp)((yv) + (ub) + S_(mulhrs)((ub), fB), 0, YC_SHARP_TOP);             \
        ny = S_(clamp)((yv) + S_(mulhrs)(dr_ + dg_, 10923) + S_(mulhrs)(db_, 10923), 0, YC_SHARP_TOP);         \
        const yc_v_i16 rg_ = dr_ - dg_, bg_ = db_ - dg_;                                                       \
        eb = ((bg_ + 1) >> 1) + S_(mulhrs)(rg_, rB);                                                           \
        er = ((rg_ + 1) >> 1) + S_(mulhrs)(bg_, bR);                                                           \
    } while (0)

static YC_BODY_TARGET void S_(reconstruct)(const int16_t *s, int16_t *y, const int16_t *cvB, const int16_t *cvR,
                                           int16_t *ebE, int16_t *ebO, int16_t *erE, int16_t *erO, long stride,
                                           const yc_sharp_coefficients *k) {
    const int16_t *rE = s, *rO = s + stride, *gE = s + 2 * stride, *gO = s + 3 * stride, *bE = s + 4 * stride,
                  *bO = s + 5 * stride;
    int16_t *yE = y, *yO = y + stride;
    // The coefficients in locals: the rows' stores are 16-bit like them, so the compiler would otherwise
    // reload them from `k` on every step.
    const int16_t fR = k->fR, fB = k->fB, gCb = k->gCb, gCr = k->gCr, rB = k->rB, bR = k->bR;
    for (long i = 0; i < stride; i += 32) {
        const yc_v_i16 b1 = S_(ld)(cvB + i + 1), r1 = S_(ld)(cvR + i + 1);
        const yc_v_i16 b3 = b1 + b1 + b1 + 2, r3 = r1 + r1 + r1 + 2;
        const yc_v_i16 ubE = (b3 + S_(ld)(cvB + i)) >> 2, urE = (r3 + S_(ld)(cvR + i)) >> 2;
        const yc_v_i16 ubO = (b3 + S_(ld)(cvB + i + 2)) >> 2, urO = (r3 + S_(ld)(cvR + i + 2)) >> 2;
        yc_v_i16 nyE, ebEv, erEv, nyO, ebOv, erOv;
        YC_SHARP_PIXEL(S_(ld)(yE + i), S_(ld)(rE + i), S_(ld)(gE + i), S_(ld)(bE + i), ubE, urE, nyE, ebEv, erEv);
        YC_SHARP_PIXEL(S_(ld)(yO + i), S_(ld)(rO + i), S_(ld)(gO + i), S_(ld)(bO + i), ubO, urO, nyO, ebOv, erOv);
        S_(st)(yE + i, nyE);
        S_(st)(yO + i, nyO);
        if (ebE) {
            S_(st)(ebE + i, ebEv);
            S_(st)(ebO + i, ebOv);
            S_(st)(erE + i, erEv);
            S_(st)(erO + i, erOv);
        }
    }
}

static YC_BODY_TARGET void S_(blend)(const int16_t *own, const int16_t *near, int16_t *cv, long n) {
    for (long i = 0; i < n; i += 32) {
        const yc_v_i16 a = S_(ld)(own + i - 1);
        S_(st)(cv + i, (a + a + a + S_(ld)(near + i - 1) + 2) >> 2);
    }
}

static YC_BODY_TARGET void S_(adjoint)(const int16_t *e, const int16_t *o, int16_t *h, long n) {
    for (long i = 0; i < n; i += 32)
        S_(st)(h + i, S_(mulhrs)(S_(ld)(e + i) + S_(ld)(o + i + 1), 12288) +
                          S_(mulhrs)(S_(ld)(o + i) + S_(ld)(e + i + 1), 4096));
}

static YC_BODY_TARGET void S_(move)(const int16_t *h0, const int16_t *h1, const int16_t *h2, const int16_t *h3,
                                    const int16_t *old, const int16_t *before, int16_t *next, long cw) {
    for (long i = 0; i < cw; i += 32) {
        // The adjoint down the rows, as a mean (weights 1, 3, 3, 1 over 8).
        const yc_v_i16 m = S_(mulhrs)(S_(ld)(h0 + i) + S_(ld)(h3 + i), 4096) +
                           S_(mulhrs)(S_(ld)(h1 + i) + S_(ld)(h2 + i), 12288);
        // old + ½(old − before) lies within −16368…16336; the step, m + ¾m rounded, within ±28560; their sum can
        // pass 16 bits, so it saturates — only where the clamp below would cut it anyway.
        const yc_v_i16 o = S_(ld)(old + i);
        const yc_v_i16 v = __builtin_elementwise_add_sat(o + ((o - S_(ld)(before + i) + 1) >> 1), m + S_(mulhrs)(m, 24576));
        S_(st)(next + i, S_(clamp)(v, -(128 << 6), 127 << 6));
    }
    next[-1] = next[0];
    next[cw] = next[cw - 1];
}

static YC_BODY_TARGET void S_(luma)(const int16_t *r, const int16_t *g, const int16_t *b, int16_t *y, long n,
                                    const yc_sharp_coefficients *k) {
    for (long i = 0; i < n; i += 32)
        S_(st)(y + i, __builtin_convertvector((k->yR * S_(wide)(r + i) + k->yG * S_(wide)(g + i) +
                                               k->yB * S_(wide)(b + i) + 8192) >> 14, yc_v_i16));
}

static YC_BODY_TARGET void S_(box)(const int16_t *a, const int16_t *s, int16_t *cb, int16_t *cr, long cw, long stride,
                                   const yc_sharp_coefficients *k) {
    for (long i = 0; i < cw; i += 32) {
#define YC_SHARP_SUM(p) (S_(wide)(a + (p) * stride + i) + S_(wide)(a + ((p) + 1) * stride + i) + \
                         S_(wide)(s + (p) * stride + i) + S_(wide)(s + ((p) + 1) * stride + i))
        const yc_v_i32x32 r = YC_SHARP_SUM(0), g = YC_SHARP_SUM(2), b = YC_SHARP_SUM(4);
#undef YC_SHARP_SUM
        S_(st)(cb + i, __builtin_convertvector((k->cbR * r + k->cbG * g + 8192 * b + 32768) >> 16, yc_v_i16));
        S_(st)(cr + i, __builtin_convertvector((8192 * r + k->crG * g + k->crB * b + 32768) >> 16, yc_v_i16));
    }
    cb[-1] = cb[0];
    cb[cw] = cb[cw - 1];
    cr[-1] = cr[0];
    cr[cw] = cr[cw - 1];
}

// Bytes to planes in 16-bit lanes: a lane holds two bytes of the row, and whole-lane shuffles of two vectors
// (one `vpermt2w` on AVX-512BW) gather the lanes of one kind; the low byte is then (v & 255) << 6 and the high
// one (v >> 8) << 6, as 1/64 code values.
#define YC_SHARP_LO(v) (((v) & 255) << 6)
#define YC_SHARP_HI(v) (((v) >> 2) & (255 << 6))
// RGBA: a pair is four lanes — RG and BA of the even pixel, then of the odd one. Lanes 4p (RG, even pixel) then
// 4p + 2 (RG, odd) of 16 pairs; the same for BA; then the low or high halves of two such vectors.
#define YC_SHARP_RGBA_RG 0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60, 2, 6, 10, 14, 18, 22, 26, 30, 34, 38, 42, 46, 50, 54, 58, 62
#define YC_SHARP_RGBA_BA 1, 5, 9, 13, 17, 21, 25, 29, 33, 37, 41, 45, 49, 53, 57, 61, 3, 7, 11, 15, 19, 23, 27, 31, 35, 39, 43, 47, 51, 55, 59, 63
#define YC_SHARP_LOW_HALVES 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47
#define YC_SHARP_HIGH_HALVES 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63
// RGB: a pair is three lanes — (R, G) even, (B even, R odd), (G, B) odd. Lane 3p + k of 32 pairs (96 lanes in
// three vectors): A<k> takes those of the first two vectors, B<k> keeps them and adds those of the third.
#define YC_SHARP_RGB_A0 0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39, 42, 45, 48, 51, 54, 57, 60, 63, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1
#define YC_SHARP_RGB_B0 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 34, 37, 40, 43, 46, 49, 52, 55, 58, 61
#define YC_SHARP_RGB_A1 1, 4, 7, 10, 13, 16, 19, 22, 25, 28, 31, 34, 37, 40, 43, 46, 49, 52, 55, 58, 61, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1
#define YC_SHARP_RGB_B1 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 32, 35, 38, 41, 44, 47, 50, 53, 56, 59, 62
#define YC_SHARP_RGB_A2 2, 5, 8, 11, 14, 17, 20, 23, 26, 29, 32, 35, 38, 41, 44, 47, 50, 53, 56, 59, 62, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1
#define YC_SHARP_RGB_B2 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 33, 36, 39, 42, 45, 48, 51, 54, 57, 60, 63

/// 32 pairs' six planes at sample i of `dst` (`stride` apart: R, G, B of the even pixels, each followed by the
/// odd pixels' plane), from the vectors of each.
YC_INLINE YC_BODY_TARGET void S_(store_planes)(int16_t *dst, long stride, long i, yc_v_i16 rE, yc_v_i16 gE, yc_v_i16 bE,
                                              yc_v_i16 rO, yc_v_i16 gO, yc_v_i16 bO) {
    S_(st)(dst + i, rE);
    S_(st)(dst + stride + i, rO);
    S_(st)(dst + 2 * stride + i, gE);
    S_(st)(dst + 3 * stride + i, gO);
    S_(st)(dst + 4 * stride + i, bE);
    S_(st)(dst + 5 * stride + i, bO);
}

static YC_BODY_TARGET void S_(import8)(const uint8_t *src, long step, long width, int16_t *dst, long stride) {
    const long pairs = width / 2;
    int16_t *rE = dst, *rO = dst + stride, *gE = dst + 2 * stride, *gO = dst + 3 * stride, *bE = dst + 4 * stride,
            *bO = dst + 5 * stride;
    long i = 0;
    if (step == 4) {
        for (; i + 32 <= pairs; i += 32) {
            const int16_t *p = (const int16_t *)(const void *)(src + 8 * i);
            const yc_v_i16 v0 = S_(ld)(p), v1 = S_(ld)(p + 32), v2 = S_(ld)(p + 64), v3 = S_(ld)(p + 96);
            const yc_v_i16 rg01 = __builtin_shufflevector(v0, v1, YC_SHARP_RGBA_RG);
            const yc_v_i16 rg23 = __builtin_shufflevector(v2, v3, YC_SHARP_RGBA_RG);
            const yc_v_i16 ba01 = __builtin_shufflevector(v0, v1, YC_SHARP_RGBA_BA);
            const yc_v_i16 ba23 = __builtin_shufflevector(v2, v3, YC_SHARP_RGBA_BA);
            const yc_v_i16 rgE = __builtin_shufflevector(rg01, rg23, YC_SHARP_LOW_HALVES);
            const yc_v_i16 rgO = __builtin_shufflevector(rg01, rg23, YC_SHARP_HIGH_HALVES);
            const yc_v_i16 baE = __builtin_shufflevector(ba01, ba23, YC_SHARP_LOW_HALVES);
            const yc_v_i16 baO = __builtin_shufflevector(ba01, ba23, YC_SHARP_HIGH_HALVES);
            S_(store_planes)(dst, stride, i, YC_SHARP_LO(rgE), YC_SHARP_HI(rgE), YC_SHARP_LO(baE), YC_SHARP_LO(rgO),
                             YC_SHARP_HI(rgO), YC_SHARP_LO(baO));
        }
    } else {
        for (; i + 32 <= pairs; i += 32) {
            const int16_t *p = (const int16_t *)(const void *)(src + 6 * i);
            const yc_v_i16 v0 = S_(ld)(p), v1 = S_(ld)(p + 32), v2 = S_(ld)(p + 64);
            const yc_v_i16 a = __builtin_shufflevector(__builtin_shufflevector(v0, v1, YC_SHARP_RGB_A0), v2, YC_SHARP_RGB_B0);
            const yc_v_i16 b = __builtin_shufflevector(__builtin_shufflevector(v0, v1, YC_SHARP_RGB_A1), v2, YC_SHARP_RGB_B1);
            const yc_v_i16 c = __builtin_shufflevector(__builtin_shufflevector(v0, v1, YC_SHARP_RGB_A2), v2, YC_SHARP_RGB_B2);
            S_(store_planes)(dst, stride, i, YC_SHARP_LO(a), YC_SHARP_HI(a), YC_SHARP_LO(b), YC_SHARP_HI(b),
                             YC_SHARP_LO(c), YC_SHARP_HI(c));
        }
    }
    for (; i < pairs; i++) {
        const uint8_t *p = src + 2 * step * i;
        rE[i] = (int16_t)(p[0] << 6), gE[i] = (int16_t)(p[1] << 6), bE[i] = (int16_t)(p[2] << 6);
        rO[i] = (int16_t)(p[step] << 6), gO[i] = (int16_t)(p[step + 1] << 6), bO[i] = (int16_t)(p[step + 2] << 6);
    }
    if (width & 1) {
        const uint8_t *p = src + (width - 1) * step;
        rE[pairs] = rO[pairs] = (int16_t)(p[0] << 6);
        gE[pairs] = gO[pairs] = (int16_t)(p[1] << 6);
        bE[pairs] = bO[pairs] = (int16_t)(p[2] << 6);
    }
}

typedef uint32_t S_(u32x32) __attribute__((vector_size(128)));
typedef uint8_t S_(u8x32) __attribute__((vector_size(32)));

/// Luma in 1/64 (0 … 16320) as limited-range codes: ⌊(x·219 + 16·16320 + 8160) / 16320⌋, the numerator below
/// 2^22 (a division by a constant: the compiler's exact multiply-high sequence).
YC_INLINE YC_BODY_TARGET yc_v_i16 S_(limited_luma)(yc_v_i16 x) {
    const S_(u32x32) n = __builtin_convertvector(x, S_(u32x32)) * 219u + (16u * 16320u + 8160u);
    return __builtin_convertvector(n / 16320u, yc_v_i16);
}

/// Chroma in 1/64 (−8192 … 8128) as limited-range codes: ⌊(c·224 + 128·16320 + 8160) / 16320⌋, the numerator
/// positive and below 2^22.
YC_INLINE YC_BODY_TARGET yc_v_i16 S_(limited_chroma)(yc_v_i16 c) {
    const yc_v_i32x32 n = __builtin_convertvector(c, yc_v_i32x32) * 224 + (128 * 16320 + 8160);
    return __builtin_convertvector((S_(u32x32))n / 16320u, yc_v_i16);
}

static YC_BODY_TARGET void S_(write_luma)(const int16_t *e, const int16_t *o, uint8_t *dst, long width, int full) {
    const long pairs = width / 2;
    long i = 0;
    // 32 pairs a step, each an even and an odd code in one 16-bit lane (the even one first in memory).
    for (; i + 32 <= pairs; i += 32) {
        const yc_v_i16 ve = S_(ld)(e + i), vo = S_(ld)(o + i);
        const yc_v_i16 ce = full ? (ve + 32) >> 6 : S_(limited_luma)(ve);
        const yc_v_i16 co = full ? (vo + 32) >> 6 : S_(limited_luma)(vo);
        S_(st)((int16_t *)(void *)(dst + 2 * i), (ce & 255) | co << 8);
    }
    if (full) {
        for (; i < pairs; i++) {
            dst[2 * i] = (uint8_t)(((uint32_t)e[i] + 32) >> 6);
            dst[2 * i + 1] = (uint8_t)(((uint32_t)o[i] + 32) >> 6);
        }
        if (width & 1) dst[width - 1] = (uint8_t)(((uint32_t)e[pairs] + 32) >> 6);
    } else {
        for (; i < pairs; i++) {
            dst[2 * i] = (uint8_t)(((uint32_t)e[i] * 219 + 16 * 16320 + 8160) / 16320);
            dst[2 * i + 1] = (uint8_t)(((uint32_t)o[i] * 219 + 16 * 16320 + 8160) / 16320);
        }
        if (width & 1) dst[width - 1] = (uint8_t)(((uint32_t)e[pairs] * 219 + 16 * 16320 + 8160) / 16320);
    }
}

static YC_BODY_TARGET void S_(write_chroma)(const int16_t *cb, const int16_t *cr, uint8_t *u, uint8_t *v, long step,
                                            long cw, int full) {
    long i = 0;
    for (; i + 32 <= cw; i += 32) {
        const yc_v_i16 b = S_(ld)(cb + i), r = S_(ld)(cr + i);
        const yc_v_i16 cu = full ? (b + (8192 + 32)) >> 6 : S_(limited_chroma)(b);
        const yc_v_i16 cv = full ? (r + (8192 + 32)) >> 6 : S_(limited_chroma)(r);
        if (step == 2) {                // interleaved: one lane a sample pair, the first in memory low
            if (u < v)
                S_(st)((int16_t *)(void *)(u + 2 * i), (cu & 255) | cv << 8);
            else
                S_(st)((int16_t *)(void *)(v + 2 * i), (cv & 255) | cu << 8);
        } else {
            const S_(u8x32) bu = __builtin_convertvector(cu, S_(u8x32)), bv = __builtin_convertvector(cv, S_(u8x32));
            __builtin_memcpy(u + i, &bu, 32);
            __builtin_memcpy(v + i, &bv, 32);
        }
    }
    if (full) {
        for (; i < cw; i++) {
            u[step * i] = (uint8_t)((uint32_t)(cb[i] + 8192 + 32) >> 6);
            v[step * i] = (uint8_t)((uint32_t)(cr[i] + 8192 + 32) >> 6);
        }
    } else {
        for (; i < cw; i++) {
            u[step * i] = (uint8_t)((uint32_t)(cb[i] * 224 + 128 * 16320 + 8160) / 16320);
            v[step * i] = (uint8_t)((uint32_t)(cr[i] * 224 + 128 * 16320 + 8160) / 16320);
        }
    }
}

#undef YC_SHARP_PIXEL
#undef YC_SHARP_LO
#undef YC_SHARP_HI
#undef YC_SHARP_RGBA_RG
#undef YC_SHARP_RGBA_BA
#undef YC_SHARP_LOW_HALVES
#undef YC_SHARP_HIGH_HALVES
#undef YC_SHARP_RGB_A0
#undef YC_SHARP_RGB_B0
#undef YC_SHARP_RGB_A1
#undef YC_SHARP_RGB_B1
#undef YC_SHARP_RGB_A2
#undef YC_SHARP_RGB_B2
#undef YC_SHARP_TOP
#undef S_
#undef YC_BODY_TIER
#undef YC_BODY_TARGET
#undef YC_BODY_NAME
