// The quality accumulator's exact row, included once per tier by yc_quality_rows.c. The loop is written
// plainly; each tier's copy is vectorised by the compiler for that tier. Every value is an exact integer and
// every sum wraps as Swift's `&+=` does (unsigned), so all tiers give the same sums.
#define Q_(n) YC_BODY_NAME(quality_##n)

/// |a| as an unsigned 32-bit value, and a² exactly.
#define YC_Q_SQUARE(a) ((uint64_t)((a) < 0 ? 0u - (uint32_t)(a) : (uint32_t)(a)) * (uint64_t)((a) < 0 ? 0u - (uint32_t)(a) : (uint32_t)(a)))

YC_INLINE YC_BODY_TARGET void Q_(loop)(const uint8_t *pr, const uint8_t *pg, const uint8_t *pb, const uint8_t *pu,
                                       const uint8_t *pv, const uint8_t *y, int32_t *exactY, long width,
                                       const yc_quality_exact_k *k, const int block, const int split, int32_t *ca,
                                       int32_t *caa, int32_t *cb, int64_t *cbb, int64_t *cab, uint64_t sums[6]) {
    const uint32_t kr = (uint32_t)k->kr, kg = (uint32_t)k->kg, kb = (uint32_t)k->kb, s = (uint32_t)k->s;
    const uint32_t qY = (uint32_t)k->qY, yOff = (uint32_t)k->yOff, yMul = (uint32_t)k->yMul;
    const uint32_t cbMul = (uint32_t)k->cbMul, crMul = (uint32_t)k->crMul, cK = (uint32_t)k->cK;
    uint64_t yHi = 0, yLo = 0, cbHi = 0, cbLo = 0, crHi = 0, crLo = 0;
    for (long x = 0; x < width; x++) {
        // Wrapping 32-bit arithmetic, as the Swift it replaces (`&*`, `&+`), in unsigned types.
        const uint32_t r = pr[x], g = pg[x], b = pb[x];
        const uint32_t n = kr * r + kg * g + kb * b;
        const int32_t e = (int32_t)(yOff + yMul * n);
        if (block == 0) exactY[x] = e;
        const uint32_t yv = y[x];
        const int32_t dy = (int32_t)(qY * yv - (uint32_t)e);
        const int32_t dcb = (int32_t)(cbMul * ((uint32_t)pu[x] - 128u) - cK * (s * b - n));
        const int32_t dcr = (int32_t)(crMul * ((uint32_t)pv[x] - 128u) - cK * (s * r - n));
        const uint64_t sy = YC_Q_SQUARE(dy), scb = YC_Q_SQUARE(dcb), scr = YC_Q_SQUARE(dcr);
        if (split) {
            yHi += sy >> 24; yLo += sy & 0xFFFFFF;
            cbHi += scb >> 24; cbLo += scb & 0xFFFFFF;
            crHi += scr >> 24; crLo += scr & 0xFFFFFF;
        } else {
            yLo += sy; cbLo += scb; crLo += scr;
        }
        if (block != 0) {
            const uint64_t ae = e < 0 ? 0u - (uint32_t)e : (uint32_t)e;
            const uint64_t p = (uint64_t)yv * ae;
            const int64_t ye = e < 0 ? -(int64_t)p : (int64_t)p;
            const int64_t ee = (int64_t)(ae * ae);
            if (block == 1) {
                ca[x] = (int32_t)yv; caa[x] = (int32_t)(yv * yv); cb[x] = e; cbb[x] = ee; cab[x] = ye;
            } else {
                ca[x] = (int32_t)((uint32_t)ca[x] + yv);
                caa[x] = (int32_t)((uint32_t)caa[x] + yv * yv);
                cb[x] = (int32_t)((uint32_t)cb[x] + (uint32_t)e);
                cbb[x] = (int64_t)((uint64_t)cbb[x] + (uint64_t)ee);
                cab[x] = (int64_t)((uint64_t)cab[x] + (uint64_t)ye);
            }
        }
    }
    sums[0] += yHi; sums[1] += yLo; sums[2] += cbHi; sums[3] += cbLo; sums[4] += crHi; sums[5] += crLo;
}

#if defined(__x86_64__) && YC_BODY_TIER < 2
/// Q_(loop) on whole vectors of 16 pixels (the same wrapping arithmetic lane by lane, the squares as
/// 32×32 → 64-bit products of absolute values); the sums wrap, so their order does not matter. Returns the
/// pixels done; the caller's plain loop takes the rest. For SSE2 and AVX2 only: there the plain loop
/// vectorises poorly, and this one runs in 0.5× (SSE2) and 0.85× (AVX2) of its time; on AVX-512 it is 5–15%
/// slower than what the compiler makes of the plain loop (a C harness, rows in cache, the same sums and column
/// sums).
YC_INLINE YC_BODY_TARGET long Q_(vloop)(const uint8_t *pr, const uint8_t *pg, const uint8_t *pb, const uint8_t *pu,
                                        const uint8_t *pv, const uint8_t *y, int32_t *exactY, long width,
                                        const yc_quality_exact_k *k, const int block, const int split, int32_t *ca,
                                        int32_t *caa, int32_t *cb, int64_t *cbb, int64_t *cab, uint64_t sums[6]) {
    typedef uint32_t u32v __attribute__((vector_size(64)));
    typedef int32_t i32v __attribute__((vector_size(64)));
    typedef uint64_t u64v __attribute__((vector_size(128)));
    typedef int64_t i64v __attribute__((vector_size(128)));
    typedef uint8_t u8v __attribute__((vector_size(16)));
    const u32v kr = (u32v){} + (uint32_t)k->kr, kg = (u32v){} + (uint32_t)k->kg, kb = (u32v){} + (uint32_t)k->kb;
    const u32v s = (u32v){} + (uint32_t)k->s, qY = (u32v){} + (uint32_t)k->qY, yOff = (u32v){} + (uint32_t)k->yOff;
    const u32v yMul = (u32v){} + (uint32_t)k->yMul, cbMul = (u32v){} + (uint32_t)k->cbMul;
    const u32v crMul = (u32v){} + (uint32_t)k->crMul, cK = (u32v){} + (uint32_t)k->cK, c128 = (u32v){} + 128u;
    const u64v low24 = (u64v){} + 0xFFFFFFu;
    u64v yHi = {}, yLo = {}, cbHi = {}, cbLo = {}, crHi = {}, crLo = {};
    long x = 0;
    for (; x + 16 <= width; x += 16) {
        u8v br, bg, bb, bu, bv, by;
        __builtin_memcpy(&br, pr + x, 16); __builtin_memcpy(&bg, pg + x, 16); __builtin_memcpy(&bb, pb + x, 16);
        __builtin_memcpy(&bu, pu + x, 16); __builtin_memcpy(&bv, pv + x, 16); __builtin_memcpy(&by, y + x, 16);
        const u32v r = __builtin_convertvector(br, u32v), g = __builtin_convertvector(bg, u32v);
        const u32v b = __builtin_convertvector(bb, u32v), yv = __builtin_convertvector(by, u32v);
        const u32v n = kr * r + kg * g + kb * b;
        const u32v e = yOff + yMul * n;
        if (block == 0) __builtin_memcpy(exactY + x, &e, 64);
        const i32v dy = (i32v)(qY * yv - e);
        const i32v dcb = (i32v)(cbMul * (__builtin_convertvector(bu, u32v) - c128) - cK * (s * b - n));
        const i32v dcr = (i32v)(crMul * (__builtin_convertvector(bv, u32v) - c128) - cK * (s * r - n));
        const u64v ay = __builtin_convertvector((u32v)__builtin_elementwise_abs(dy), u64v);
        const u64v acb = __builtin_convertvector((u32v)__builtin_elementwise_abs(dcb), u64v);
        const u64v acr = __builtin_convertvector((u32v)__builtin_elementwise_abs(dcr), u64v);
        const u64v sy = ay * ay, scb = acb * acb, scr = acr * acr;
        if (split) {
            yHi += sy >> 24; yLo += sy & low24;
            cbHi += scb >> 24; cbLo += scb & low24;
            crHi += scr >> 24; crLo += scr & low24;
        } else {
            yLo += sy; cbLo += scb; crLo += scr;
        }
        if (block != 0) {
            const u64v ae = __builtin_convertvector((u32v)__builtin_elementwise_abs((i32v)e), u64v);
            const u64v p = __builtin_convertvector(yv, u64v) * ae;
            const i64v neg = __builtin_convertvector((i32v)e, i64v) >> 63;
            const i64v ye = ((i64v)p ^ neg) - neg;
            const i64v ee = (i64v)(ae * ae);
            const u32v yy = yv * yv;
            if (block == 1) {
                __builtin_memcpy(ca + x, &yv, 64); __builtin_memcpy(caa + x, &yy, 64);
                __builtin_memcpy(cb + x, &e, 64); __builtin_memcpy(cbb + x, &ee, 128);
                __builtin_memcpy(cab + x, &ye, 128);
            } else {
                u32v oa, oaa, ob; u64v obb, oab;
                __builtin_memcpy(&oa, ca + x, 64); __builtin_memcpy(&oaa, caa + x, 64);
                __builtin_memcpy(&ob, cb + x, 64); __builtin_memcpy(&obb, cbb + x, 128);
                __builtin_memcpy(&oab, cab + x, 128);
                oa += yv; oaa += yy; ob += e; obb += (u64v)ee; oab += (u64v)ye;
                __builtin_memcpy(ca + x, &oa, 64); __builtin_memcpy(caa + x, &oaa, 64);
                __builtin_memcpy(cb + x, &ob, 64); __builtin_memcpy(cbb + x, &obb, 128);
                __builtin_memcpy(cab + x, &oab, 128);
            }
        }
    }
    uint64_t t[6] = {0, 0, 0, 0, 0, 0};
    for (int i = 0; i < 16; i++) {
        t[0] += yHi[i]; t[1] += yLo[i]; t[2] += cbHi[i]; t[3] += cbLo[i]; t[4] += crHi[i]; t[5] += crLo[i];
    }
    for (int i = 0; i < 6; i++) sums[i] += t[i];
    return x;
}
#endif

static YC_BODY_TARGET void YC_BODY_NAME(quality_exact_row)(const uint8_t *r, const uint8_t *g, const uint8_t *b,
                                                           const uint8_t *u, const uint8_t *v, const uint8_t *y,
                                                           int32_t *exactY, long width, const yc_quality_exact_k *k,
                                                           int block, int split, int32_t *ca, int32_t *caa, int32_t *cb,
                                                           int64_t *cbb, int64_t *cab, uint64_t sums[6]) {
    // Each combination its own loop, the flags constants in it.
#if defined(__x86_64__) && YC_BODY_TIER < 2
#define Q_V(B, S) Q_(vloop)(r, g, b, u, v, y, exactY, width, k, B, S, ca, caa, cb, cbb, cab, sums)
#else
#define Q_V(B, S) 0
#endif
#define Q_CASE(B, S) if (block == B && split == S) { \
        const long d = Q_V(B, S); \
        Q_(loop)(r + d, g + d, b + d, u + d, v + d, y + d, exactY ? exactY + d : 0, width - d, k, B, S, \
                 ca ? ca + d : 0, caa ? caa + d : 0, cb ? cb + d : 0, cbb ? cbb + d : 0, cab ? cab + d : 0, sums); \
        return; }
    Q_CASE(0, 0) Q_CASE(1, 0) Q_CASE(2, 0) Q_CASE(0, 1) Q_CASE(1, 1) Q_CASE(2, 1)
#undef Q_CASE
#undef Q_V
}

/// One pixel's squared error in full range: luma `l` plus each offset, clamped, against R, G, B.
YC_INLINE uint32_t Q_(error)(int32_t l, int32_t r, int32_t g, int32_t b, int32_t oR, int32_t oG, int32_t oB) {
    int32_t vr = l + oR, vg = l + oG, vb = l + oB;
    vr = vr < 0 ? 0 : vr > 255 ? 255 : vr;
    vg = vg < 0 ? 0 : vg > 255 ? 255 : vg;
    vb = vb < 0 ? 0 : vb > 255 ? 255 : vb;
    const int32_t er = vr - r, eg = vg - g, eb = vb - b;
    return (uint32_t)(er * er + eg * eg + eb * eb);
}

// The float expressions in this order, never fused: every tier computes the same bits.
#pragma clang fp contract(off)
/// Full range's offsets of one chroma value (16×): what the round trip adds to the luma for R, G, B, and 1
/// where the reference's rounding must be taken instead (a tie, or G too close to a whole number to tell).
/// R and B are exact integer quotients. G is ⌊t⌋ of t = gR·Cr + gB·Cb + ½ (Cr, Cb: 16 × chroma − 2048) in
/// `float`, 16 lanes a vector: within `margin` of a whole number it is marked, so an unmarked ⌊t⌋ is that of
/// the exact fraction (`QualityOffsetTests` holds this for every Cb × Cr of every matrix).
YC_INLINE void Q_(offsets_one)(int32_t cb16, int32_t cr16, int32_t aR, int32_t aB, int32_t bias, float gR, float gB,
                               float margin, int32_t *oR, int32_t *oG, int32_t *oB, uint8_t *tie) {
    const int32_t cr = cr16 - 2048, cb = cb16 - 2048;
    const uint32_t nr = (uint32_t)(aR * cr + bias), nb = (uint32_t)(aB * cb + bias);
    const uint32_t qr = nr / 160000u, qb = nb / 160000u;
    const float t = gR * (float)cr + gB * (float)cb + 0.5f;
    const int32_t i = (int32_t)t;                    // toward zero
    const int32_t fl = i - (t < (float)i);            // ⌊t⌋
    const float f = t - (float)fl;                    // in [0, 1)
    *tie = (uint8_t)((nr - qr * 160000u == 0) | (nb - qb * 160000u == 0) | (f < margin) | (f > 1.0f - margin));
    *oR = (int32_t)qr - 256;
    *oG = fl;
    *oB = (int32_t)qb - 256;
}

static YC_BODY_TARGET void YC_BODY_NAME(quality_offsets)(const int32_t *cb16, const int32_t *cr16, long count,
                                                         const yc_quality_offset_k *k, int32_t *restrict oR,
                                                         int32_t *restrict oG, int32_t *restrict oB,
                                                         uint8_t *restrict marks) {
    const int32_t aR = k->aR, aB = k->aB, bias = k->bias;
    const float gR = k->gR, gB = k->gB, margin = k->margin;
    for (long x = 0; x < count; x++)
        Q_(offsets_one)(cb16[x], cr16[x], aR, aB, bias, gR, gB, margin, oR + x, oG + x, oB + x, marks + x);
}

static YC_BODY_TARGET uint64_t YC_BODY_NAME(quality_full_errors)(const uint8_t *y, const uint8_t *r, const uint8_t *g,
                                                                 const uint8_t *b, const int32_t *cb16,
                                                                 const int32_t *cr16, long width,
                                                                 const yc_quality_offset_k *k, uint8_t *restrict marks,
                                                                 uint8_t *marked) {
    const int32_t aR = k->aR, aB = k->aB, bias = k->bias;
    const float gR = k->gR, gB = k->gB, margin = k->margin;
    uint64_t sum = 0;
    uint8_t any = 0;
    // Vectorised by request, 16 lanes on every tier: the cost model declines the AVX2 and SSE2 copies (their
    // scalar loops were 3× and 1.2× slower, 12 MP, --metrics), and left to itself takes 4 lanes on AVX2, where
    // 16 (two registers a value) run in 0.55× the time (a C harness, rows in cache; the same sums and marks).
#pragma clang loop vectorize(enable) vectorize_width(16)
    for (long x = 0; x < width; x++) {
        int32_t oR, oG, oB;
        uint8_t tie;
        Q_(offsets_one)(cb16[x], cr16[x], aR, aB, bias, gR, gB, margin, &oR, &oG, &oB, &tie);
        const uint32_t e = Q_(error)(y[x], r[x], g[x], b[x], oR, oG, oB);   // loaded whatever the mark: no
        sum += tie ? 0 : e;                                                  // predicated loads; a tie: the caller's
        marks[x] = tie;
        any |= tie;
    }
    *marked = any;
    return sum;
}
#pragma clang fp contract(on)

static YC_BODY_TARGET uint64_t YC_BODY_NAME(quality_pair_errors)(const uint8_t *y, const uint8_t *r, const uint8_t *g,
                                                                 const uint8_t *b, const int32_t *oR,
                                                                 const int32_t *oG, const int32_t *oB,
                                                                 const uint8_t *marks, long width) {
    uint64_t sum = 0;
    const long pairs = width / 2;
    // 16 lanes on every tier, as above: left to itself the compiler takes 4 on AVX2 (0.7× the time at 16).
#pragma clang loop vectorize(enable) vectorize_width(16)
    for (long i = 0; i < pairs; i++) {
        const long x = 2 * i;
        const uint64_t e = (uint64_t)Q_(error)(y[x], r[x], g[x], b[x], oR[i], oG[i], oB[i])
                         + Q_(error)(y[x + 1], r[x + 1], g[x + 1], b[x + 1], oR[i], oG[i], oB[i]);
        sum += marks[i] ? 0 : e;   // a marked sample's pixels: measured by the caller
    }
    if (width % 2 == 1 && !marks[pairs]) {
        const long x = width - 1;
        sum += Q_(error)(y[x], r[x], g[x], b[x], oR[pairs], oG[pairs], oB[pairs]);
    }
    return sum;
}

/// jdsample.c's upsampling of one chroma component into a sample a pixel: `mode` 0 a copy, 1 h2v1 (a triangle
/// filter over column sums padded by the edge column, `sums`: cw + 2, which is what its first and last columns
/// do: (3·near + far + 1 or 2) >> 2, written as h2v2's filter with sums 4·own and biases 4 and 8), 2 h1v2, 4 the
/// box (each sample repeated `hr` times: chroma two or fewer samples wide, and other ratios). h2v2 (3) is not
/// here: `yc_quality_decoder_rgb_row` hands it to the RGB route's rows (yc_ycc_rows_body.h).
/// YUVIO's `DecoderRGB.sample` writes the same filters per output sample.
YC_INLINE void Q_(upsample)(int mode, const uint8_t *own, const uint8_t *other, long width, long cw, int hr,
                            int parity, int32_t *sums, uint8_t *out) {
    if (mode == 0) {
        for (long x = 0; x < width; x++) out[x] = own[x];
        return;
    }
    if (mode == 4) {
        for (long x = 0; x < width; x++) out[x] = own[x / hr];
        return;
    }
    if (mode == 2) {
        const int32_t bias = parity == 0 ? 1 : 2;
        for (long x = 0; x < width; x++) out[x] = (uint8_t)((3 * (int32_t)own[x] + (int32_t)other[x] + bias) >> 2);
        return;
    }
    int32_t *sums1 = sums + 1, *sums2 = sums + 2;
    for (long k = 0; k < cw; k++) sums1[k] = 4 * (int32_t)own[k];
    sums[0] = sums[1];
    sums[cw + 1] = sums[cw];
    const int32_t evenBias = 4, oddBias = 8;
    const long pairs = width / 2;
    for (long i = 0; i < pairs; i++) {
        out[2 * i] = (uint8_t)((3 * sums1[i] + sums[i] + evenBias) >> 4);
        out[2 * i + 1] = (uint8_t)((3 * sums1[i] + sums2[i] + oddBias) >> 4);
    }
    if (width % 2 == 1) out[width - 1] = (uint8_t)((3 * sums[pairs + 1] + sums[pairs] + evenBias) >> 4);
}

YC_INLINE uint8_t Q_(clamp255)(int32_t v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

static YC_BODY_TARGET void YC_BODY_NAME(quality_decoder_rgb_row)(int mode, const uint8_t *y, const uint8_t *cbOwn,
                                                                 const uint8_t *cbOther, const uint8_t *crOwn,
                                                                 const uint8_t *crOther, long width, long cw, int hr,
                                                                 int parity, const int32_t fix[4], int32_t *sums,
                                                                 uint8_t *ub, uint8_t *vb, uint8_t *pr, uint8_t *pg,
                                                                 uint8_t *pb) {
    Q_(upsample)(mode, cbOwn, cbOther, width, cw, hr, parity, sums, ub);
    Q_(upsample)(mode, crOwn, crOther, width, cw, hr, parity, sums, vb);
    const int32_t fRR = fix[0], fBB = fix[1], fRG = fix[2], fBG = fix[3], half = 1 << 15;
    for (long x = 0; x < width; x++) {
        const int32_t l = y[x], b = (int32_t)ub[x] - 128, r = (int32_t)vb[x] - 128;
        pr[x] = Q_(clamp255)(l + ((fRR * r + half) >> 16));
        pg[x] = Q_(clamp255)(l + ((half - fBG * b - fRG * r) >> 16));
        pb[x] = Q_(clamp255)(l + ((fBB * b + half) >> 16));
    }
}

static YC_BODY_TARGET void YC_BODY_NAME(quality_bilinear16)(const uint8_t *own, const uint8_t *other, long width,
                                                            int32_t *cb, int32_t *fb, int32_t *fr) {
    const long cw = (width + 1) / 2, pairs = width / 2;
    int32_t *cr = cb + (cw + 2);
    int32_t *cb1 = cb + 1, *cr1 = cr + 1, *cb2 = cb + 2, *cr2 = cr + 2;
    const uint8_t *ov = own + cw, *tv = other + cw;
    for (long i = 0; i < cw; i++) {
        cb1[i] = 3 * (int32_t)own[i] + (int32_t)other[i];
        cr1[i] = 3 * (int32_t)ov[i] + (int32_t)tv[i];
    }
    cb[0] = cb[1]; cb[cw + 1] = cb[cw];
    cr[0] = cr[1]; cr[cw + 1] = cr[cw];
    for (long i = 0; i < pairs; i++) {
        fb[2 * i] = 3 * cb1[i] + cb[i]; fb[2 * i + 1] = 3 * cb1[i] + cb2[i];
        fr[2 * i] = 3 * cr1[i] + cr[i]; fr[2 * i + 1] = 3 * cr1[i] + cr2[i];
    }
    if (width % 2 == 1) {
        fb[width - 1] = 3 * cb[pairs + 1] + cb[pairs];
        fr[width - 1] = 3 * cr[pairs + 1] + cr[pairs];
    }
}

static YC_BODY_TARGET void YC_BODY_NAME(quality_split_pairs)(const uint8_t *pairs, long count, uint8_t *first,
                                                             uint8_t *second) {
    for (long i = 0; i < count; i++) {
        first[i] = pairs[2 * i];
        second[i] = pairs[2 * i + 1];
    }
}

// SSIM's windows: the Double expressions in the order and with the roundings of the Swift they replaced
// (YUVCore's `QualityAccumulator.ssim` with its divisions by 64, 64·Q, 64²·Q and 64²·Q² as products by
// reciprocals). In full range every numerator fits 64 bits (b below 2.6·10^6: k·Σb² and (Σb)² below
// 2.8·10^16); limited range takes k·Σb² − (Σb)² in 128 bits.
#pragma clang fp contract(off)
YC_INLINE double Q_(ssim8)(int full, double invKQ, double invK2Q, double invK2Q2, int64_t a, int64_t b, int64_t aa,
                           int64_t bb, int64_t ab) {
    const double c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255);
    const double ma = (double)a * (1.0 / 64), mb = (double)b * invKQ;
    const double va = (double)(int64_t)(64 * (uint64_t)aa - (uint64_t)a * (uint64_t)a) * (1.0 / 4096);
    double vbn;
    if (full) {
        vbn = (double)(int64_t)(64 * (uint64_t)bb - (uint64_t)b * (uint64_t)b);
    } else {
        const __int128 v = (__int128)64 * bb - (__int128)b * b;
        vbn = (double)(uint64_t)(v >> 64) * 0x1p64 + (double)(uint64_t)v;
    }
    const double vb = vbn * invK2Q2;
    const double cov = (double)(int64_t)(64 * (uint64_t)ab - (uint64_t)a * (uint64_t)b) * invK2Q;
    return ((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2));
}

#if defined(__x86_64__) && YC_BODY_TIER < 2
typedef uint64_t Q_(u64x4) __attribute__((vector_size(32)));
typedef int32_t Q_(i32x8) __attribute__((vector_size(32)));
typedef int32_t Q_(i32x4) __attribute__((vector_size(16)));
typedef double Q_(f64x4) __attribute__((vector_size(32)));

/// Four int64 values as doubles, each rounded once to nearest (as `(double)x` is): hi·2³² + lo with hi the
/// signed upper half and lo the unsigned lower half, both converted exactly (32-bit conversions, which
/// SSE2 and AVX2 have; their 64-bit one is AVX-512's), so the one addition is the only rounding.
YC_INLINE YC_BODY_TARGET Q_(f64x4) Q_(to_double)(Q_(u64x4) x) {
    const Q_(i32x8) w = (Q_(i32x8))x;
    const Q_(i32x4) hi = __builtin_shufflevector(w, w, 1, 3, 5, 7);
    const Q_(i32x4) lo = __builtin_shufflevector(w, w, 0, 2, 4, 6) ^ (int32_t)0x80000000;   // lo − 2³¹
    return __builtin_convertvector(hi, Q_(f64x4)) * 0x1p32 + (__builtin_convertvector(lo, Q_(f64x4)) + 0x1p31);
}

/// `ssim8` on four windows at once, full range only (its numerators fit 64 bits): the same expressions in
/// the same order, lane by lane, so each result is the scalar one's bit for bit. Returns the windows done.
YC_INLINE YC_BODY_TARGET long Q_(ssim_full4)(long nw, double invKQ, double invK2Q, double invK2Q2, const int64_t *g,
                                             const int64_t *p, long stride, double *out) {
    const double c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255);
    const int64_t *ga = g, *gb = g + stride, *gaa = gb + stride, *gbb = gaa + stride, *gab = gbb + stride;
    const int64_t *pa = p, *pb = p + stride, *paa = pb + stride, *pbb = paa + stride, *pab = pbb + stride;
    long j = 0;
    for (; j + 4 <= nw; j += 4) {
#define Q_L(x, k) ({ Q_(u64x4) v_; __builtin_memcpy(&v_, (x) + (k), 32); v_; })
#define Q_S4(x, y) (Q_L(x, j) + Q_L(x, j + 1) + Q_L(y, j) + Q_L(y, j + 1))   // wrapping: any order
        const Q_(u64x4) a = Q_S4(ga, pa), b = Q_S4(gb, pb), aa = Q_S4(gaa, paa), bb = Q_S4(gbb, pbb);
        const Q_(u64x4) ab = Q_S4(gab, pab);
#undef Q_S4
#undef Q_L
        const Q_(f64x4) ma = Q_(to_double)(a) * (1.0 / 64), mb = Q_(to_double)(b) * invKQ;
        const Q_(f64x4) va = Q_(to_double)(64 * aa - a * a) * (1.0 / 4096);
        const Q_(f64x4) vb = Q_(to_double)(64 * bb - b * b) * invK2Q2;
        const Q_(f64x4) cov = Q_(to_double)(64 * ab - a * b) * invK2Q;
        const Q_(f64x4) r = ((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2));
        __builtin_memcpy(out + j, &r, 32);
    }
    return j;
}
#endif

YC_INLINE YC_BODY_TARGET void Q_(ssim_windows)(int full, long nw, double qd, const int64_t *g, const int64_t *p, long stride,
                                double *out) {
    const int64_t *ga = g, *gb = g + stride, *gaa = gb + stride, *gbb = gaa + stride, *gab = gbb + stride;
    const int64_t *pa = p, *pb = p + stride, *paa = pb + stride, *pbb = paa + stride, *pab = pbb + stride;
    const double invKQ = 1 / (64 * qd), invK2Q = 1 / (4096 * qd), invK2Q2 = 1 / (4096 * qd * qd);
#define Q_W(j, k) ((int64_t)((uint64_t)j[k] + (uint64_t)j[k + 1]))
#define Q_S(x, y, k) ((int64_t)((uint64_t)Q_W(x, k) + (uint64_t)Q_W(y, k)))
    long j = 0;
#if defined(__x86_64__) && YC_BODY_TIER < 2
    // Without AVX-512's 64-bit conversions the compiler leaves the loop below scalar (3.4% of a --metrics run's
    // samples on AVX2, against 2.4% for AVX-512's vector copy).
    if (full) j = Q_(ssim_full4)(nw, invKQ, invK2Q, invK2Q2, g, p, stride, out);
#endif
    for (; j < nw; j++)
        out[j] = Q_(ssim8)(full, invKQ, invK2Q, invK2Q2, Q_S(ga, pa, j), Q_S(gb, pb, j), Q_S(gaa, paa, j),
                           Q_S(gbb, pbb, j), Q_S(gab, pab, j));
#undef Q_S
#undef Q_W
}

static YC_BODY_TARGET double YC_BODY_NAME(quality_ssim_block)(const int32_t *ca, const int32_t *caa, const int32_t *cb,
                                                              const int64_t *cbb, const int64_t *cab, long width,
                                                              int64_t *g, const int64_t *p, int full, double qd,
                                                              double *out, long *windows) {
    const long n4 = width / 4, stride = width / 4 + 1;
    int64_t *ga = g, *gb = g + stride, *gaa = gb + stride, *gbb = gaa + stride, *gab = gbb + stride;
    for (long j = 0; j < n4; j++) {
        const long c = 4 * j;
        ga[j] = (int32_t)((uint32_t)ca[c] + (uint32_t)ca[c + 1] + (uint32_t)ca[c + 2] + (uint32_t)ca[c + 3]);
        gaa[j] = (int32_t)((uint32_t)caa[c] + (uint32_t)caa[c + 1] + (uint32_t)caa[c + 2] + (uint32_t)caa[c + 3]);
        gb[j] = (int64_t)((uint64_t)(int64_t)cb[c] + (uint64_t)(int64_t)cb[c + 1] + (uint64_t)(int64_t)cb[c + 2]
                          + (uint64_t)(int64_t)cb[c + 3]);
        gbb[j] = (int64_t)((uint64_t)cbb[c] + (uint64_t)cbb[c + 1] + (uint64_t)cbb[c + 2] + (uint64_t)cbb[c + 3]);
        gab[j] = (int64_t)((uint64_t)cab[c] + (uint64_t)cab[c + 1] + (uint64_t)cab[c + 2] + (uint64_t)cab[c + 3]);
    }
    *windows = 0;
    if (!p) return 0;
    const long nw = (width - 8) / 4 + 1;
    if (full) Q_(ssim_windows)(1, nw, qd, g, p, stride, out);
    else Q_(ssim_windows)(0, nw, qd, g, p, stride, out);
    double total = 0;
    for (long j = 0; j < nw; j++) total += out[j];   // in order, as the sum it replaces
    *windows = nw;
    return total;
}
#pragma clang fp contract(on)

#undef Q_
#undef YC_BODY_TIER
#undef YC_BODY_TARGET
#undef YC_BODY_NAME
