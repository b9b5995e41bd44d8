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

static YC_BODY_TARGET void YC_BODY_NAME(quality_exact_row)(const uint8_t *r, const uint8_t *g, const uint8_t *b,
                                                           const uint8_t *u, const uint8_t *v, const uint8_t *y,
                                                           int32_t *exactY, long width, const yc_quality_exact_k *k,
                                                           int block, int split, int32_t *ca, int32_t *caa, int32_t *cb,
                                                           int64_t *cbb, int64_t *cab, uint64_t sums[6]) {
    // Each combination its own loop, the flags constants in it.
#define Q_CASE(B, S) if (block == B && split == S) { Q_(loop)(r, g, b, u, v, y, exactY, width, k, B, S, ca, caa, cb, cbb, cab, sums); return; }
    Q_CASE(0, 0) Q_CASE(1, 0) Q_CASE(2, 0) Q_CASE(0, 1) Q_CASE(1, 1) Q_CASE(2, 1)
#undef Q_CASE
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

// The Double expressions in the order and with the roundings of the Swift they replace: never fused.
#pragma clang fp contract(off)
/// Full range's offsets of one chroma value (16×): what the round trip adds to the luma for R, G, B, and 1
/// where the reference's rounding must be taken instead (a tie).
YC_INLINE void Q_(offsets_one)(int32_t cb16, int32_t cr16, int32_t aR, int32_t aB, int32_t bias, double gR, double gB,
                           double gBias, double invG, int32_t *oR, int32_t *oG, int32_t *oB, uint8_t *tie) {
    const int32_t cr = cr16 - 2048, cb = cb16 - 2048;
    const uint32_t nr = (uint32_t)(aR * cr + bias), nb = (uint32_t)(aB * cb + bias);
    const uint32_t qr = nr / 160000u, qb = nb / 160000u;
    const double t = (gR * (double)cr + gB * (double)cb + gBias) * invG + 256;
    const double m = t + 0x1p52, n = m - 0x1p52;   // t rounded to an integer
    int64_t bits;
    __builtin_memcpy(&bits, &m, 8);
    const int32_t q = (int32_t)(bits - 0x4330000000000000LL);
    const double d = t - n;
    *tie = (uint8_t)((nr - qr * 160000u == 0) | (nb - qb * 160000u == 0) | ((d < 0 ? -d : d) < 1e-10));
    *oR = (int32_t)qr - 256;
    *oG = q - (n > t ? 257 : 256);
    *oB = (int32_t)qb - 256;
}

static YC_BODY_TARGET void YC_BODY_NAME(quality_offsets)(const int32_t *cb16, const int32_t *cr16, long count,
                                                         const yc_quality_offset_k *k, int32_t *oR, int32_t *oG,
                                                         int32_t *oB, uint8_t *marks) {
    for (long x = 0; x < count; x++)
        Q_(offsets_one)(cb16[x], cr16[x], k->aR, k->aB, k->bias, k->gR, k->gB, k->gBias, k->invG, oR + x, oG + x, oB + x,
                    marks + x);
}

static YC_BODY_TARGET uint64_t YC_BODY_NAME(quality_full_errors)(const uint8_t *y, const uint8_t *r, const uint8_t *g,
                                                                 const uint8_t *b, const int32_t *cb16,
                                                                 const int32_t *cr16, long width,
                                                                 const yc_quality_offset_k *k, uint8_t *marks,
                                                                 uint8_t *marked) {
    const int32_t aR = k->aR, aB = k->aB, bias = k->bias;
    const double gR = k->gR, gB = k->gB, gBias = k->gBias, invG = k->invG;
    uint64_t sum = 0;
    uint8_t any = 0;
    for (long x = 0; x < width; x++) {
        int32_t oR, oG, oB;
        uint8_t tie;
        Q_(offsets_one)(cb16[x], cr16[x], aR, aB, bias, gR, gB, gBias, invG, &oR, &oG, &oB, &tie);
        sum += tie ? 0 : Q_(error)(y[x], r[x], g[x], b[x], oR, oG, oB);   // a tie: measured by the caller
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

#undef Q_
#undef YC_BODY_TIER
#undef YC_BODY_TARGET
#undef YC_BODY_NAME
