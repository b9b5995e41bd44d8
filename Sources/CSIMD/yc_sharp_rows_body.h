// Sharp chroma's rows, included once per tier by yc_sharp_rows.c: sixteen samples a step in 32-bit lanes,
// then the same expressions one sample at a time for the rest.
#include "yc_vec.h"

#define S_(n) YC_BODY_NAME(sharp_##n)

typedef int16_t S_(i16x16) __attribute__((vector_size(32)));

YC_INLINE YC_BODY_TARGET yc_v_i32 S_(load16)(const int16_t *p) {
    S_(i16x16) v;
    __builtin_memcpy(&v, p, 32);
    return __builtin_convertvector(v, yc_v_i32);
}

YC_INLINE YC_BODY_TARGET yc_v_i32 S_(load32)(const int32_t *p) {
    yc_v_i32 v;
    __builtin_memcpy(&v, p, 64);
    return v;
}

YC_INLINE YC_BODY_TARGET void S_(store16)(int16_t *p, yc_v_i32 v) {
    const S_(i16x16) n = __builtin_convertvector(v, S_(i16x16));
    __builtin_memcpy(p, &n, 32);
}

YC_INLINE YC_BODY_TARGET void S_(store32)(int32_t *p, yc_v_i32 v) { __builtin_memcpy(p, &v, 64); }

YC_INLINE YC_BODY_TARGET yc_v_i32 S_(clamp)(yc_v_i32 v, int32_t lo, int32_t hi) {
    const yc_v_i32 a = v < lo, b = v > hi;
    v = (v & ~a) | (lo & a);
    return (v & ~b) | (hi & b);
}

YC_INLINE int32_t S_(clamp1)(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : v > hi ? hi : v; }

#define YC_SHARP_TOP (255 << 6)

/// One pixel rebuilt (vector or scalar: the same expressions), its new luma and residual chroma.
#define YC_SHARP_PIXEL(T, CLAMP, yv, r, g, b, ub, ur, ny, eb, er)                                              \
    do {                                                                                                       \
        const T dr_ = (r) - CLAMP((yv) + ((k->rCr * (ur) + 8192) >> 14), 0, YC_SHARP_TOP);                     \
        const T dg_ = (g) - CLAMP((yv) - ((k->gCb * (ub) + k->gCr * (ur) + 8192) >> 14), 0, YC_SHARP_TOP);     \
        const T db_ = (b) - CLAMP((yv) + ((k->bCb * (ub) + 8192) >> 14), 0, YC_SHARP_TOP);                     \
        ny = CLAMP((yv) + (((dr_ + dg_ + db_) * 21845 + 32768) >> 16), 0, YC_SHARP_TOP);                       \
        eb = (k->cbR * dr_ + k->cbG * dg_ + 8192 * db_ + 8192) >> 14;                                          \
        er = (8192 * dr_ + k->crG * dg_ + k->crB * db_ + 8192) >> 14;                                          \
    } while (0)

static YC_BODY_TARGET void S_(reconstruct)(const int16_t *s, int16_t *y, const int32_t *cvB, const int32_t *cvR,
                                           int32_t *ebE, int32_t *ebO, int32_t *erE, int32_t *erO, long cw,
                                           const yc_sharp_coefficients *k) {
    const int16_t *rE = s, *rO = s + cw, *gE = s + 2 * cw, *gO = s + 3 * cw, *bE = s + 4 * cw, *bO = s + 5 * cw;
    int16_t *yE = y, *yO = y + cw;
    long i = 0;
    for (; i + 16 <= cw; i += 16) {
        const yc_v_i32 b0 = 3 * S_(load32)(cvB + i + 1), r0 = 3 * S_(load32)(cvR + i + 1);
        const yc_v_i32 ubE = (b0 + S_(load32)(cvB + i) + 8) >> 4, urE = (r0 + S_(load32)(cvR + i) + 8) >> 4;
        const yc_v_i32 ubO = (b0 + S_(load32)(cvB + i + 2) + 8) >> 4, urO = (r0 + S_(load32)(cvR + i + 2) + 8) >> 4;
        yc_v_i32 nyE, ebEv, erEv, nyO, ebOv, erOv;
        YC_SHARP_PIXEL(yc_v_i32, S_(clamp), S_(load16)(yE + i), S_(load16)(rE + i), S_(load16)(gE + i),
                       S_(load16)(bE + i), ubE, urE, nyE, ebEv, erEv);
        YC_SHARP_PIXEL(yc_v_i32, S_(clamp), S_(load16)(yO + i), S_(load16)(rO + i), S_(load16)(gO + i),
                       S_(load16)(bO + i), ubO, urO, nyO, ebOv, erOv);
        S_(store16)(yE + i, nyE);
        S_(store16)(yO + i, nyO);
        if (ebE) {
            S_(store32)(ebE + i, ebEv);
            S_(store32)(ebO + i, ebOv);
            S_(store32)(erE + i, erEv);
            S_(store32)(erO + i, erOv);
        }
    }
    for (; i < cw; i++) {
        const int32_t b0 = 3 * cvB[i + 1], r0 = 3 * cvR[i + 1];
        int32_t nyE, ebEv, erEv, nyO, ebOv, erOv;
        YC_SHARP_PIXEL(int32_t, S_(clamp1), (int32_t)yE[i], (int32_t)rE[i], (int32_t)gE[i], (int32_t)bE[i],
                       (b0 + cvB[i] + 8) >> 4, (r0 + cvR[i] + 8) >> 4, nyE, ebEv, erEv);
        YC_SHARP_PIXEL(int32_t, S_(clamp1), (int32_t)yO[i], (int32_t)rO[i], (int32_t)gO[i], (int32_t)bO[i],
                       (b0 + cvB[i + 2] + 8) >> 4, (r0 + cvR[i + 2] + 8) >> 4, nyO, ebOv, erOv);
        yE[i] = (int16_t)nyE;
        yO[i] = (int16_t)nyO;
        if (ebE) {
            ebE[i] = ebEv;
            ebO[i] = ebOv;
            erE[i] = erEv;
            erO[i] = erOv;
        }
    }
}

static YC_BODY_TARGET void S_(blend)(const int16_t *own, const int16_t *near, int32_t *cv, long cw) {
    long i = 0;
    for (; i + 16 <= cw; i += 16) S_(store32)(cv + i + 1, 3 * S_(load16)(own + i) + S_(load16)(near + i));
    for (; i < cw; i++) cv[i + 1] = 3 * (int32_t)own[i] + (int32_t)near[i];
    cv[0] = cv[1];
    cv[cw + 1] = cv[cw];
}

static YC_BODY_TARGET void S_(adjoint)(const int32_t *e, const int32_t *o, int32_t *own, int32_t *near, long cw) {
    long i = 0;
    for (; i + 16 <= cw; i += 16) {
        const yc_v_i32 h = S_(load32)(o + i) + 3 * S_(load32)(e + i) + 3 * S_(load32)(o + i + 1) + S_(load32)(e + i + 1);
        if (near) {
            S_(store32)(own + i, S_(load32)(own + i) + 3 * h);
            S_(store32)(near + i, S_(load32)(near + i) + h);
        } else {
            S_(store32)(own + i, S_(load32)(own + i) + 4 * h);
        }
    }
    for (; i < cw; i++) {
        const int32_t h = o[i] + 3 * e[i] + 3 * o[i + 1] + e[i + 1];
        if (near) {
            own[i] += 3 * h;
            near[i] += h;
        } else {
            own[i] += 4 * h;
        }
    }
}

static YC_BODY_TARGET void S_(move)(const int32_t *t, const int16_t *old, const int16_t *before, int16_t *next,
                                    long cw) {
    const int32_t lo = -(128 << 6), hi = 127 << 6;
    long i = 0;
    for (; i + 16 <= cw; i += 16) {
        const yc_v_i32 o = S_(load16)(old + i);
        const yc_v_i32 v = o + ((7 * S_(load32)(t + i) + 128 * (o - S_(load16)(before + i)) + 128) >> 8);
        S_(store16)(next + i, S_(clamp)(v, lo, hi));
    }
    for (; i < cw; i++) {
        const int32_t o = old[i];
        next[i] = (int16_t)S_(clamp1)(o + ((7 * t[i] + 128 * (o - (int32_t)before[i]) + 128) >> 8), lo, hi);
    }
}

static YC_BODY_TARGET void S_(luma)(const int16_t *r, const int16_t *g, const int16_t *b, int16_t *y, long n,
                                    const yc_sharp_coefficients *k) {
    long i = 0;
    for (; i + 16 <= n; i += 16)
        S_(store16)(y + i, (k->yR * S_(load16)(r + i) + k->yG * S_(load16)(g + i) + k->yB * S_(load16)(b + i) + 8192) >> 14);
    for (; i < n; i++) y[i] = (int16_t)((k->yR * r[i] + k->yG * g[i] + k->yB * b[i] + 8192) >> 14);
}

#undef S_
#undef YC_BODY_TIER
#undef YC_BODY_TARGET
#undef YC_BODY_NAME
