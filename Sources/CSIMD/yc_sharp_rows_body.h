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

/// 32 bytes 2·`step` apart (a pixel pair) from `c` on, picked out of 128 or 192 loaded bytes, as 1/64 code values.
#define YC_SHARP_PICK(v, list) (__builtin_convertvector(__builtin_shufflevector(v, v##x, list), yc_v_i16) << 6)
/// The six planes of 32 pixel pairs from `v` (and `vx`), with the index lists of `step`: R, G, B of the even
/// pixels (lists 0–2), then of the odd ones (3–5).
#define YC_SHARP_PICK_PLANES(v, step)                                                                          \
    do {                                                                                                       \
        S_(st)(rE + i, YC_SHARP_PICK(v, YC_SHARP_IDX##step##_0));                                             \
        S_(st)(gE + i, YC_SHARP_PICK(v, YC_SHARP_IDX##step##_1));                                             \
        S_(st)(bE + i, YC_SHARP_PICK(v, YC_SHARP_IDX##step##_2));                                             \
        S_(st)(rO + i, YC_SHARP_PICK(v, YC_SHARP_IDX##step##_3));                                             \
        S_(st)(gO + i, YC_SHARP_PICK(v, YC_SHARP_IDX##step##_4));                                             \
        S_(st)(bO + i, YC_SHARP_PICK(v, YC_SHARP_IDX##step##_5));                                             \
    } while (0)
#define YC_SHARP_IDX128 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127
// YC_SHARP_IDX<step>_<plane>: each pair's byte of that plane (R, G, B of the even pixel, then of the odd one,
// which starts `step` bytes in), 32 pairs.
#define YC_SHARP_IDX3_0 0, 6, 12, 18, 24, 30, 36, 42, 48, 54, 60, 66, 72, 78, 84, 90, 96, 102, 108, 114, 120, 126, 132, 138, 144, 150, 156, 162, 168, 174, 180, 186
#define YC_SHARP_IDX3_1 1, 7, 13, 19, 25, 31, 37, 43, 49, 55, 61, 67, 73, 79, 85, 91, 97, 103, 109, 115, 121, 127, 133, 139, 145, 151, 157, 163, 169, 175, 181, 187
#define YC_SHARP_IDX3_2 2, 8, 14, 20, 26, 32, 38, 44, 50, 56, 62, 68, 74, 80, 86, 92, 98, 104, 110, 116, 122, 128, 134, 140, 146, 152, 158, 164, 170, 176, 182, 188
#define YC_SHARP_IDX3_3 3, 9, 15, 21, 27, 33, 39, 45, 51, 57, 63, 69, 75, 81, 87, 93, 99, 105, 111, 117, 123, 129, 135, 141, 147, 153, 159, 165, 171, 177, 183, 189
#define YC_SHARP_IDX3_4 4, 10, 16, 22, 28, 34, 40, 46, 52, 58, 64, 70, 76, 82, 88, 94, 100, 106, 112, 118, 124, 130, 136, 142, 148, 154, 160, 166, 172, 178, 184, 190
#define YC_SHARP_IDX3_5 5, 11, 17, 23, 29, 35, 41, 47, 53, 59, 65, 71, 77, 83, 89, 95, 101, 107, 113, 119, 125, 131, 137, 143, 149, 155, 161, 167, 173, 179, 185, 191
#define YC_SHARP_IDX4_0 0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128, 136, 144, 152, 160, 168, 176, 184, 192, 200, 208, 216, 224, 232, 240, 248
#define YC_SHARP_IDX4_1 1, 9, 17, 25, 33, 41, 49, 57, 65, 73, 81, 89, 97, 105, 113, 121, 129, 137, 145, 153, 161, 169, 177, 185, 193, 201, 209, 217, 225, 233, 241, 249
#define YC_SHARP_IDX4_2 2, 10, 18, 26, 34, 42, 50, 58, 66, 74, 82, 90, 98, 106, 114, 122, 130, 138, 146, 154, 162, 170, 178, 186, 194, 202, 210, 218, 226, 234, 242, 250
#define YC_SHARP_IDX4_3 4, 12, 20, 28, 36, 44, 52, 60, 68, 76, 84, 92, 100, 108, 116, 124, 132, 140, 148, 156, 164, 172, 180, 188, 196, 204, 212, 220, 228, 236, 244, 252
#define YC_SHARP_IDX4_4 5, 13, 21, 29, 37, 45, 53, 61, 69, 77, 85, 93, 101, 109, 117, 125, 133, 141, 149, 157, 165, 173, 181, 189, 197, 205, 213, 221, 229, 237, 245, 253
#define YC_SHARP_IDX4_5 6, 14, 22, 30, 38, 46, 54, 62, 70, 78, 86, 94, 102, 110, 118, 126, 134, 142, 150, 158, 166, 174, 182, 190, 198, 206, 214, 222, 230, 238, 246, 254

static YC_BODY_TARGET void S_(import8)(const uint8_t *src, long step, long width, int16_t *dst, long stride) {
    typedef uint8_t u8x64 __attribute__((vector_size(64)));
    typedef uint8_t u8x128 __attribute__((vector_size(128)));
    const long pairs = width / 2;
    int16_t *rE = dst, *rO = dst + stride, *gE = dst + 2 * stride, *gO = dst + 3 * stride, *bE = dst + 4 * stride,
            *bO = dst + 5 * stride;
    long i = 0;
    if (step == 4) {
        for (; i + 32 <= pairs; i += 32) {
            u8x128 v, vx;
            __builtin_memcpy(&v, src + 8 * i, 128);
            __builtin_memcpy(&vx, src + 8 * i + 128, 128);
            YC_SHARP_PICK_PLANES(v, 4);
        }
    } else {
        for (; i + 32 <= pairs; i += 32) {
            u8x64 a, b, c;
            __builtin_memcpy(&a, src + 6 * i, 64);
            __builtin_memcpy(&b, src + 6 * i + 64, 64);
            __builtin_memcpy(&c, src + 6 * i + 128, 64);
            const u8x128 v = __builtin_shufflevector(a, b, YC_SHARP_IDX128);
            const u8x128 vx = __builtin_shufflevector(c, c, YC_SHARP_IDX128);
            YC_SHARP_PICK_PLANES(v, 3);
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

static YC_BODY_TARGET void S_(write_luma)(const int16_t *e, const int16_t *o, uint8_t *dst, long width, int full) {
    const long pairs = width / 2;
    if (full) {
        for (long i = 0; i < pairs; i++) {
            dst[2 * i] = (uint8_t)(((uint32_t)e[i] + 32) >> 6);
            dst[2 * i + 1] = (uint8_t)(((uint32_t)o[i] + 32) >> 6);
        }
        if (width & 1) dst[width - 1] = (uint8_t)(((uint32_t)e[pairs] + 32) >> 6);
    } else {
        for (long i = 0; i < pairs; i++) {
            dst[2 * i] = (uint8_t)(((uint32_t)e[i] * 219 + 16 * 16320 + 8160) / 16320);
            dst[2 * i + 1] = (uint8_t)(((uint32_t)o[i] * 219 + 16 * 16320 + 8160) / 16320);
        }
        if (width & 1) dst[width - 1] = (uint8_t)(((uint32_t)e[pairs] * 219 + 16 * 16320 + 8160) / 16320);
    }
}

static YC_BODY_TARGET void S_(write_chroma)(const int16_t *cb, const int16_t *cr, uint8_t *u, uint8_t *v, long step,
                                            long cw, int full) {
    if (full) {
        for (long i = 0; i < cw; i++) {
            u[step * i] = (uint8_t)((uint32_t)(cb[i] + 8192 + 32) >> 6);
            v[step * i] = (uint8_t)((uint32_t)(cr[i] + 8192 + 32) >> 6);
        }
    } else {
        for (long i = 0; i < cw; i++) {
            u[step * i] = (uint8_t)((uint32_t)(cb[i] * 224 + 128 * 16320 + 8160) / 16320);
            v[step * i] = (uint8_t)((uint32_t)(cr[i] * 224 + 128 * 16320 + 8160) / 16320);
        }
    }
}

#undef YC_SHARP_PIXEL
#undef YC_SHARP_PICK
#undef YC_SHARP_PICK_PLANES
#undef YC_SHARP_IDX3_0
#undef YC_SHARP_IDX3_1
#undef YC_SHARP_IDX3_2
#undef YC_SHARP_IDX3_3
#undef YC_SHARP_IDX3_4
#undef YC_SHARP_IDX3_5
#undef YC_SHARP_IDX4_0
#undef YC_SHARP_IDX4_1
#undef YC_SHARP_IDX4_2
#undef YC_SHARP_IDX4_3
#undef YC_SHARP_IDX4_4
#undef YC_SHARP_IDX4_5
#undef YC_SHARP_IDX128
#undef YC_SHARP_TOP
#undef S_
#undef YC_BODY_TIER
#undef YC_BODY_TARGET
#undef YC_BODY_NAME
