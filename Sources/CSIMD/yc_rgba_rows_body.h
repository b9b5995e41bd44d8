// RGBA → 4:2:0 rows: the body yc_rgba_rows.c includes once per tier, with YC_BODY_TIER (0 baseline, 1 AVX2,
// 2 AVX-512BW, 3 with VNNI), YC_BODY_TARGET (its target attribute) and YC_BODY_NAME (a name suffixer).
// The same exact results on every tier — each tier's arithmetic is proven to give the contract's bytes (the
// portable row, off x86, and AVX2's full-range chroma take their own routes, below) — so the bytes never
// depend on the CPU; the 16-bit multiply-adds, the byte dot product, the narrowing and the register width differ.
//
// Sixteen pixels are one vector of 32-bit lanes (R in the low byte); a step takes 32 pixels of each of two
// rows. Every value is an exact integer until one division per sample, ⌊N/D⌋ (`KernelConstants` derives
// each N and D from the contract):
//
// - full-range luma: Y = round((2n+1)/(2S)), n = Kr·R + Kg·G + Kb·B (S = 10000). (2n+1)/(2S) is at least
//   1/(2S) = 5·10⁻⁵ from every half-integer, and 2n+1 < 2^23 is exact in a float: a float product (fused or
//   not: each rounding errs by at most 2^-24 relative, 3·10⁻⁵ in all on values below 256) followed by adding
//   2^23 rounds to the right whole number, left in the low mantissa bits.
// - full-range chroma: C = ⌊(t + 1028·D)/(8D)⌋ for the block's numerator t (D = S−Kb or S−Kr) is
//   round((2M+1)/(2D) − ½), M = ⌊(t + 1028·D)/8⌋ < 2^22, with a margin of 1/(2D) ≥ 5·10⁻⁵: the same way.
// - On x86, full range takes fewer instructions a value (SSE2 and AVX2 are compute-bound): luma is n/S rounded to
//   nearest by `cvtps2dq` from the float product n·c, c = (1 + 2^-22)/(2S) as a float (so c·2S − 1 lies in
//   [2^-22 − 2^-24, 2^-22 + 2^-24]) on the doubled n. A non-tie n/S is at least 1/S = 10⁻⁴ from a half-integer;
//   the product errs by at most 255.5·(2^-22 + 2^-24 + 2^-24) < 9.2·10⁻⁵, so it rounds the same way; a tie
//   (n/S exactly a half-integer) comes out above it, by at least 2^-22 − 2^-23 of itself, and rounds up, as the
//   contract's round-half-up does. Chroma is ⌊(2M+1)/(2D)⌋ (= ⌊M/D⌋), truncated by `cvttps2dq`: (2M+1)/(2D) is
//   odd over even, never within 1/(2D) of a whole number. testExhaustiveLuma checks the luma on all 2^24 inputs
//   of every matrix on every tier; it fails with c = 1/(2S). Both narrow to bytes with saturation (256 → 255).
// - limited range: Y = ⌊x⌋, x = 219·n/(255·S) + 16.5 (= (219·n + 16·255·S + 255·S/2)/(255·S)), and
//   C = ⌊x⌋, x = 28·t/(255·D) + 128.5 (= (56·t + 65535·D)/(510·D)). x can lie as close as 1/(510·D) to a whole
//   number, too close for a float to decide. n < 2^22 and |t| < 2^24 are exact in a float; the product
//   p ≈ x − 16.5 (or x − 128.5) errs by at most 2·2^-24 relative on |p| < 220, η < 2.7·10⁻⁵, and
//   w = p + 1040.5 (or + 1152.5) is a float in [1024, 1280), whose unit is 2^-13: rounding adds at most
//   2^-14, so |w − 1024 − x| < 2^-14 + η < 2^-13. When w's fraction is neither 0 nor 8191/8192, x lies
//   strictly between the same two whole numbers as w − 1024, so ⌊x⌋ is w's whole part. Otherwise (a lane
//   in about 4,000) the step is redone exactly: the float quotient q of the integer numerator N is the
//   answer or one off, corrected by the sign of the exact remainder N − q·D. Tiers with FMA fuse the
//   product into the sum and use w = p + 272.5 (or + 384.5) in [256, 512), unit 2^-15: η is then c's
//   rounding alone, and a lane in about 16,000 is undecided (`floor_fast`).
//
// Tests compare every tier with the scalar reference over all 2^24 luma values and random blocks, and
// `make prove` checks all 1021³ block sums.

#include "yc_vec.h"

YC_INLINE YC_BODY_TARGET yc_v_i32 YC_BODY_NAME(load)(const uint8_t *p) {
    yc_v_i32 r;
    __builtin_memcpy(&r, p, sizeof r);
    return r;
}

/// Per 32-bit lane: lo(a)·lo(b) + hi(a)·hi(b) of its signed 16-bit halves (`pmaddwd`).
YC_INLINE YC_BODY_TARGET yc_v_i32 YC_BODY_NAME(madd)(yc_v_i32 a, yc_v_i32 b) {
#if YC_BODY_TIER >= 2
    return (yc_v_i32)_mm512_madd_epi16((__m512i)a, (__m512i)b);
#elif YC_BODY_TIER == 1
    yc_v_i32x8 a0 = __builtin_shufflevector(a, a, 0, 1, 2, 3, 4, 5, 6, 7);
    yc_v_i32x8 a1 = __builtin_shufflevector(a, a, 8, 9, 10, 11, 12, 13, 14, 15);
    yc_v_i32x8 b0 = __builtin_shufflevector(b, b, 0, 1, 2, 3, 4, 5, 6, 7);
    yc_v_i32x8 b1 = __builtin_shufflevector(b, b, 8, 9, 10, 11, 12, 13, 14, 15);
    yc_v_i32x8 r0 = (yc_v_i32x8)_mm256_madd_epi16((__m256i)a0, (__m256i)b0);
    yc_v_i32x8 r1 = (yc_v_i32x8)_mm256_madd_epi16((__m256i)a1, (__m256i)b1);
    return __builtin_shufflevector(r0, r1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
#elif defined(__x86_64__)
    yc_v_i32x4 q[4];
    for (int i = 0; i < 4; i++) {
        yc_v_i32x4 x, y;
        __builtin_memcpy(&x, (const char *)&a + 16 * i, 16);
        __builtin_memcpy(&y, (const char *)&b + 16 * i, 16);
        q[i] = (yc_v_i32x4)_mm_madd_epi16((__m128i)x, (__m128i)y);
    }
    yc_v_i32 r;
    __builtin_memcpy(&r, q, sizeof r);
    return r;
#else
    return ((a << 16) >> 16) * ((b << 16) >> 16) + (a >> 16) * (b >> 16);
#endif
}

/// Σ over the lane's four bytes of (byte of p, unsigned) × (byte of w, signed) (`vpdpbusd`), VNNI only.
#if YC_BODY_TIER == 3
YC_INLINE YC_BODY_TARGET yc_v_i32 YC_BODY_NAME(dot4)(yc_v_i32 acc, yc_v_i32 p, yc_v_i32 w) {
    return (yc_v_i32)_mm512_dpbusd_epi32((__m512i)acc, (__m512i)p, (__m512i)w);
}
#endif

/// What one row call needs, derived from the spec once per call.
typedef struct {
    yc_v_i32 fields;              // 0x00FF00FF: R|B or G|X as 16-bit words
    yc_v_i32 yRB, yG;             // luma weights as word pairs (doubled for full range)
    yc_v_i32 yHi, yLo;            // the same as bytes, split in 7-bit halves (VNNI)
    yc_v_f32 yInv;                // full: 1/(2S)
    yc_v_f32 yInvUp;              // full, x86: 1/(2S) raised by 2^-22 of itself
    int32_t yBias, yDiv;          // limited
    float yDivInv, yC;
    yc_v_i32 uS, vS;              // w·S on a block's ΣB (U) or ΣR (V), as word pairs
    int32_t du, dv;
    float uInv, vInv;             // full: 1/(2D); limited: 1/(510·D)
    float uC, vC;                 // limited: 28/(255·D)
    int32_t ue, ve;               // full, AVX2: 8 when D is odd, else 0
    float uK, vK;                 // full, AVX2: 128.5, less 1/(2D) when D is odd
} YC_BODY_NAME(consts);

YC_INLINE YC_BODY_TARGET YC_BODY_NAME(consts) YC_BODY_NAME(prepare)(const yc_rgba420_spec *spec) {
    YC_BODY_NAME(consts) k;
    const int32_t s = 10000, kr = spec->kr, kg = spec->kg, kb = spec->kb;
    const int32_t w = spec->full ? 2 : 1;
    k.fields = (yc_v_i32){} + 0x00FF00FF;
    k.yRB = (yc_v_i32){} + yc_word_pair(w * kr, w * kb);
    k.yG = (yc_v_i32){} + yc_word_pair(w * kg, 0);
    k.yHi = (yc_v_i32){} + yc_byte_quad((w * kr) >> 7, (w * kg) >> 7, (w * kb) >> 7);
    k.yLo = (yc_v_i32){} + yc_byte_quad((w * kr) & 127, (w * kg) & 127, (w * kb) & 127);
    k.yInv = (yc_v_f32){} + 1.0f / (float)(2 * s);
    k.yInvUp = (yc_v_f32){} + (float)((1.0 + 0x1p-22) / (2.0 * s));
    k.yBias = 16 * 255 * s + 255 * s / 2;
    k.yDiv = 255 * s;
    k.yDivInv = 1.0f / (float)k.yDiv;
    k.yC = (float)(219.0 / (255.0 * s));
    k.du = s - kb;
    k.dv = s - kr;
    k.uS = (yc_v_i32){} + yc_word_pair(0, w * s);
    k.vS = (yc_v_i32){} + yc_word_pair(w * s, 0);
    k.uInv = spec->full ? 1.0f / (float)(2 * k.du) : 1.0f / (float)(510 * k.du);
    k.vInv = spec->full ? 1.0f / (float)(2 * k.dv) : 1.0f / (float)(510 * k.dv);
    k.uC = (float)(28.0 / (255.0 * k.du));
    k.vC = (float)(28.0 / (255.0 * k.dv));
    k.ue = (k.du & 1) ? 8 : 0;
    k.ve = (k.dv & 1) ? 8 : 0;
    k.uK = (float)((k.du & 1) ? 128.5 - 1.0 / (2.0 * k.du) : 128.5);
    k.vK = (float)((k.dv & 1) ? 128.5 - 1.0 / (2.0 * k.dv) : 128.5);
    return k;
}

/// ⌊N/d⌋ for 0 ≤ N < 2^31 from the float estimate and the exact remainder (see the top of the file).
YC_INLINE YC_BODY_TARGET yc_v_i32 YC_BODY_NAME(divide)(yc_v_i32 n, int32_t d, float inv) {
    yc_v_i32 q = __builtin_convertvector(__builtin_convertvector(n, yc_v_f32) * inv, yc_v_i32);
    yc_v_i32 r = n - q * d;
    return q - (r >= d) + (r < 0);   // comparisons are −1 where true
}

/// round(x) for 0 ≤ x < 2^22 known to be far enough from a half-integer: x + 2^23 rounds to a whole float.
YC_INLINE YC_BODY_TARGET yc_v_i32 YC_BODY_NAME(round_bits)(yc_v_f32 x) {
    return (yc_v_i32)(x + 8388608.0f) & 0x7FFFFF;
}

#if defined(__x86_64__)
#define YC_SATURATING_BYTES 1
/// Sixteen whole values (0 … 2^15) as bytes, above 255 saturated to 255 (saturating packs, or AVX-512's
/// `vpmovusdb`): fewer instructions than clamping, masking and packing.
YC_INLINE YC_BODY_TARGET yc_v_u8 YC_BODY_NAME(pack_bytes)(yc_v_i32 v) {
#if YC_BODY_TIER >= 2
    return (yc_v_u8)_mm512_cvtusepi32_epi8((__m512i)v);
#elif YC_BODY_TIER == 1
    __m256i i[2];
    __builtin_memcpy(i, &v, sizeof i);
    const __m256i w = _mm256_packs_epi32(i[0], i[1]);          // per 128-bit lane: 4 of i[0], 4 of i[1]
    const __m256i b = _mm256_packus_epi16(w, w);                // the same as bytes, twice per lane
    const __m256i o = _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 4, 1, 5, 0, 4, 1, 5));
    return (yc_v_u8)_mm256_castsi256_si128(o);
#else
    __m128i i[4];
    __builtin_memcpy(i, &v, sizeof i);
    return (yc_v_u8)_mm_packus_epi16(_mm_packs_epi32(i[0], i[1]), _mm_packs_epi32(i[2], i[3]));
#endif
}

/// round-to-nearest(x) as bytes (`cvtps2dq`), for 0 ≤ x < 2^15 never exactly a half-integer (the callers'
/// proofs at the top of the file), so the ties-to-even rule never applies.
YC_INLINE YC_BODY_TARGET yc_v_u8 YC_BODY_NAME(round_bytes)(yc_v_f32 x) {
#if YC_BODY_TIER >= 2
    return YC_BODY_NAME(pack_bytes)((yc_v_i32)_mm512_cvtps_epi32((__m512)x));
#elif YC_BODY_TIER == 1
    __m256 f[2];
    __builtin_memcpy(f, &x, sizeof f);
    __m256i r[2] = {_mm256_cvtps_epi32(f[0]), _mm256_cvtps_epi32(f[1])};
#else
    __m128 f[4];
    __builtin_memcpy(f, &x, sizeof f);
    __m128i r[4] = {_mm_cvtps_epi32(f[0]), _mm_cvtps_epi32(f[1]), _mm_cvtps_epi32(f[2]), _mm_cvtps_epi32(f[3])};
#endif
#if YC_BODY_TIER < 2
    yc_v_i32 v;
    __builtin_memcpy(&v, r, sizeof v);
    return YC_BODY_NAME(pack_bytes)(v);
#endif
}
#else
#define YC_SATURATING_BYTES 0
#endif

/// ⌊x⌋ for x = p + base + ½, p = a·c a float product (limited range, see the top of the file). Without FMA (SSE2),
/// w = x + 1024 as a float keeps 13 bits of fraction; with it, w = x + 256 keeps 15 (the fused product's only
/// error is c's rounding, ≤ 220·2^-24 < 1.32·10⁻⁵, and the sum's rounding 2^-16 < 1.53·10⁻⁵: under one
/// unit, 2^-15 ≈ 3.05·10⁻⁵), so a quarter as many lanes come out undecided and redo their step. The sum is
/// taken one unit higher: w′, the float nearest x + offset + unit, is within half a unit of it, so w′ − unit
/// is within one unit of x + offset (the bound above, with the same rounding error). A fraction of w′ of 0 or
/// one unit (w′ − unit at a whole number, or one unit below one) marks the lane `*undecided` (a lane of 0
/// there, or its sign bit on SSE2), and the step is redone exactly; for every other lane x lies strictly
/// between the same two whole numbers as w′ − unit, so ⌊x⌋ is w′'s whole part.
#if YC_BODY_TIER >= 1
enum { YC_BODY_NAME(fraction_bits) = 15 };
#define YC_FLOOR_OFFSET 256.0f
#else
enum { YC_BODY_NAME(fraction_bits) = 13 };
#define YC_FLOOR_OFFSET 1024.0f
#endif
YC_INLINE YC_BODY_TARGET yc_v_i32 YC_BODY_NAME(floor_fast)(yc_v_f32 a, float c, float base, yc_v_i32 *undecided) {
    enum { bits_ = YC_BODY_NAME(fraction_bits) };
    const float offset = base + 0.5f + YC_FLOOR_OFFSET + 1.0f / (float)(1 << bits_);
#if YC_BODY_TIER >= 1
    // Fused by instruction, not left to the compiler: the finer grid's bound needs the single rounding.
    const yc_v_i32 bits = (yc_v_i32)__builtin_elementwise_fma(a, (yc_v_f32){} + c, (yc_v_f32){} + offset);
    *undecided = __builtin_elementwise_min(*undecided, bits & ((1 << bits_) - 2));   // one instruction fewer than below
#else
    const yc_v_i32 bits = (yc_v_i32)(a * c + offset);
    *undecided |= (bits & ((1 << bits_) - 2)) - 1;   // SSE2 has no 32-bit min
#endif
    return bits >> bits_;              // w′'s whole part in the low 8 bits (exponent bits above them)
}
#undef YC_FLOOR_OFFSET

/// w·n of sixteen pixels, n = Kr·R + Kg·G + Kb·B (w = 2 for full range, 1 for limited: the weights in `k`).
YC_INLINE YC_BODY_TARGET yc_v_i32 YC_BODY_NAME(weighted)(yc_v_i32 p, const YC_BODY_NAME(consts) *k) {
#if YC_BODY_TIER == 3
    return (YC_BODY_NAME(dot4)((yc_v_i32){}, p, k->yHi) << 7) + YC_BODY_NAME(dot4)((yc_v_i32){}, p, k->yLo);
#else
    return YC_BODY_NAME(madd)(p & k->fields, k->yRB) + YC_BODY_NAME(madd)((p >> 8) & k->fields, k->yG);
#endif
}

/// Luma from w·n.
YC_INLINE YC_BODY_TARGET yc_v_u8 YC_BODY_NAME(luma)(yc_v_i32 n, const YC_BODY_NAME(consts) *k, const int full,
                                                    const int exact, yc_v_i32 *undecided) {
    yc_v_i32 y;
    if (full) {
#if YC_SATURATING_BYTES
        // round(n/(2S)) with the ties (n/(2S) a half-integer) rounded up by a multiplier a little above 1/(2S):
        // one integer add fewer a pixel (see the top of the file).
        return YC_BODY_NAME(round_bytes)(__builtin_convertvector(n, yc_v_f32) * k->yInvUp);
#endif
        // (2n+1)/(2S) rounded: the low byte of the float's bits is the value (at most 255), so no mask.
        y = (yc_v_i32)(__builtin_convertvector(n + 1, yc_v_f32) * k->yInv + 8388608.0f);
    } else if (exact) {
        y = YC_BODY_NAME(divide)(219 * n + k->yBias, k->yDiv, k->yDivInv);
    } else {
        y = YC_BODY_NAME(floor_fast)(__builtin_convertvector(n, yc_v_f32), k->yC, 16.0f, undecided);
    }
    return __builtin_convertvector(y, yc_v_u8);
}

#if YC_BODY_TIER == 1
/// Thirty-two whole values (0 … 2^15; two vectors) as 32 bytes, above 255 saturated to 255: two 32 → 16-bit
/// packs, one 16 → 8-bit pack, and one permutation that undoes the packs' per-128-bit-lane order.
YC_INLINE YC_BODY_TARGET void YC_BODY_NAME(store_bytes32)(yc_v_i32 a, yc_v_i32 b, uint8_t *dst) {
    __m256i i[4];
    __builtin_memcpy(i, &a, sizeof a);
    __builtin_memcpy(i + 2, &b, sizeof b);
    const __m256i w0 = _mm256_packs_epi32(i[0], i[1]), w1 = _mm256_packs_epi32(i[2], i[3]);
    const __m256i o = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(w0, w1), _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    __builtin_memcpy(dst, &o, sizeof o);
}

/// Luma from w·n as whole numbers (not yet bytes; full range may give 256, which the packs saturate).
YC_INLINE YC_BODY_TARGET yc_v_i32 YC_BODY_NAME(luma_i32)(yc_v_i32 n, const YC_BODY_NAME(consts) *k, const int full,
                                                         const int exact, yc_v_i32 *undecided) {
    if (full) {
        const yc_v_f32 x = __builtin_convertvector(n, yc_v_f32) * k->yInvUp;
        __m256 f[2];
        __builtin_memcpy(f, &x, sizeof f);
        const __m256i r[2] = {_mm256_cvtps_epi32(f[0]), _mm256_cvtps_epi32(f[1])};
        yc_v_i32 v;
        __builtin_memcpy(&v, r, sizeof v);
        return v;
    }
    if (exact) return YC_BODY_NAME(divide)(219 * n + k->yBias, k->yDiv, k->yDivInv);
    return YC_BODY_NAME(floor_fast)(__builtin_convertvector(n, yc_v_f32), k->yC, 16.0f, undecided) & 0xFF;
}
#endif

/// Full range: 2M + 1 as a float, M = ⌊(t + 1028·D)/8⌋ for w·t = 2t (so ⌊M/D⌋ is the chroma, at most 256).
YC_INLINE YC_BODY_TARGET yc_v_f32 YC_BODY_NAME(chroma_odd)(yc_v_i32 t, int32_t d) {
    return __builtin_convertvector(((t + 2056 * d) >> 3) | 1, yc_v_f32);   // 2⌊(t + 1028·D)/8⌋ + 1, t halved
}

/// One chroma plane of sixteen blocks from w·t, t the block's numerator (D·ΣB − Kr·ΣR − Kg·ΣG for U).
YC_INLINE YC_BODY_TARGET yc_v_i32 YC_BODY_NAME(chroma)(yc_v_i32 t, int32_t d, float inv, float c, const int full,
                                                       const int exact, yc_v_i32 *undecided) {
    if (full) {
        yc_v_i32 q = YC_BODY_NAME(round_bits)(YC_BODY_NAME(chroma_odd)(t, d) * inv - 0.5f);   // ⌊M/D⌋, ≤ 256
        return q - (q >> 8);
    }
    if (exact) return YC_BODY_NAME(divide)(56 * t + 65535 * d, 510 * d, inv);
    return YC_BODY_NAME(floor_fast)(__builtin_convertvector(t, yc_v_f32), c, 128.0f, undecided) & 0xFF;  // 16 … 240
}

/// Each horizontal pair of a 32-lane row (two vectors) summed: lane i is lanes 2i and 2i+1.
YC_INLINE YC_BODY_TARGET yc_v_i32 YC_BODY_NAME(pairs)(yc_v_i32 a, yc_v_i32 b) {
    return __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30)
         + __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
}

#if YC_BODY_TIER == 1
/// The sums of `pairs`, left in `vphaddd`'s order, which works within 128-bit lanes: of each vector of eight
/// pairs, pairs 0, 1, 4, 5 in the low lane and 2, 3, 6, 7 in the high one. Every later step works lane by lane;
/// the stores put the bytes in order.
YC_INLINE YC_BODY_TARGET yc_v_i32 YC_BODY_NAME(pairs_in_lanes)(yc_v_i32 a, yc_v_i32 b) {
    __m256i x[4];
    __builtin_memcpy(x, &a, sizeof a);
    __builtin_memcpy(x + 2, &b, sizeof b);
    const __m256i r[2] = {_mm256_hadd_epi32(x[0], x[1]), _mm256_hadd_epi32(x[2], x[3])};
    yc_v_i32 v;
    __builtin_memcpy(&v, r, sizeof v);
    return v;
}

/// Full-range chroma ⌊(2M+1)/(2D)⌋ with the bias out of the integers: 2M + 1 = ((t + 2056·D) >> 3) | 1, and
/// 2056·D = 8·257·D, so it is ((t >> 3) | 1) + 257·D for an even D, and (((t + 8) >> 3) | 1) + 257·D − 1 for an
/// odd one; over 2D, 257·D is 128.5. The float is then v·(1/(2D)) + K, K = 128.5 (less 1/(2D) when D is odd),
/// whose errors — 1/(2D) rounded (2^-24 of a product below 128.5), K rounded (2^-17) and the sum (2^-17; the
/// AVX2 target fuses the product into it, `vfmadd`; unfused, the product's own rounding adds 2^-17 more) — stay
/// below 2.3·10⁻⁵ (3.1·10⁻⁵ unfused), under the 1/(2D) ≥ 5.3·10⁻⁵ that separates (2M+1)/(2D) from a whole
/// number. At 256 and above (a sum's unit 2^-15) the result is 256 either way, which the packs saturate to 255.
YC_INLINE YC_BODY_TARGET yc_v_i32 YC_BODY_NAME(chroma_full)(yc_v_i32 t, int32_t e, float inv, float bias) {
    return __builtin_convertvector(__builtin_convertvector(((t + e) >> 3) | 1, yc_v_f32) * inv + bias, yc_v_i32);
}
#endif

/// One step: 32 pixels of both rows. Returns nonzero when a limited-range lane was undecided (fast mode).
///
/// Chroma reuses luma's sums: D·ΣB − Kr·ΣR − Kg·ΣG = S·ΣB − Σn with D = S − Kb (Kr + Kg + Kb = S), and
/// likewise S·ΣR − Σn for V; full range carries everything doubled (its weights are 2K).
YC_INLINE YC_BODY_TARGET int YC_BODY_NAME(step)(const uint8_t *s0, const uint8_t *s1, uint8_t *y0, uint8_t *y1,
                                                uint8_t *u, uint8_t *v, uint8_t *uv, long x,
                                                const YC_BODY_NAME(consts) *k, const int full, const int nv12,
                                                const int exact) {
#if YC_BODY_TIER >= 1
    yc_v_i32 undecided = (yc_v_i32){} + 0x7FFF;   // the least fraction seen: 0 when a lane was undecided
#else
    yc_v_i32 undecided = {};                      // the sign bit set when a lane was undecided
#endif
    const yc_v_i32 a0 = YC_BODY_NAME(load)(s0 + 4 * x), b0 = YC_BODY_NAME(load)(s0 + 4 * x + 64);
    const yc_v_i32 a1 = YC_BODY_NAME(load)(s1 + 4 * x), b1 = YC_BODY_NAME(load)(s1 + 4 * x + 64);
    const yc_v_i32 na0 = YC_BODY_NAME(weighted)(a0, k), nb0 = YC_BODY_NAME(weighted)(b0, k);
    const yc_v_i32 na1 = YC_BODY_NAME(weighted)(a1, k), nb1 = YC_BODY_NAME(weighted)(b1, k);
#if YC_BODY_TIER == 1
    YC_BODY_NAME(store_bytes32)(YC_BODY_NAME(luma_i32)(na0, k, full, exact, &undecided),
                                YC_BODY_NAME(luma_i32)(nb0, k, full, exact, &undecided), y0 + x);
    if (y1)
        YC_BODY_NAME(store_bytes32)(YC_BODY_NAME(luma_i32)(na1, k, full, exact, &undecided),
                                    YC_BODY_NAME(luma_i32)(nb1, k, full, exact, &undecided), y1 + x);
#else
    yc_v_u8 l;
    l = YC_BODY_NAME(luma)(na0, k, full, exact, &undecided);
    __builtin_memcpy(y0 + x, &l, 16);
    l = YC_BODY_NAME(luma)(nb0, k, full, exact, &undecided);
    __builtin_memcpy(y0 + x + 16, &l, 16);
    if (y1) {
        l = YC_BODY_NAME(luma)(na1, k, full, exact, &undecided);
        __builtin_memcpy(y1 + x, &l, 16);
        l = YC_BODY_NAME(luma)(nb1, k, full, exact, &undecided);
        __builtin_memcpy(y1 + x + 16, &l, 16);
    }
#endif
    // R and B of each block summed as 16-bit words (at most 1020), and its Σ w·n.
    const yc_v_i32 f = k->fields;
#if YC_BODY_TIER == 1
    const yc_v_i32 rb = YC_BODY_NAME(pairs_in_lanes)((a0 & f) + (a1 & f), (b0 & f) + (b1 & f));
    const yc_v_i32 sn = YC_BODY_NAME(pairs_in_lanes)(na0 + na1, nb0 + nb1);
#else
    const yc_v_i32 rb = YC_BODY_NAME(pairs)((a0 & f) + (a1 & f), (b0 & f) + (b1 & f));
    const yc_v_i32 sn = YC_BODY_NAME(pairs)(na0 + na1, nb0 + nb1);
#endif
    const yc_v_i32 tu = YC_BODY_NAME(madd)(rb, k->uS) - sn, tv = YC_BODY_NAME(madd)(rb, k->vS) - sn;
#if YC_BODY_TIER == 1
    {
        // Whole numbers first (full range: ⌊(2M+1)/(2D)⌋ truncated, at most 256; limited: 16 … 240), then the
        // bytes of both planes from one set of packs.
        yc_v_i32 cu, cv;
        if (full) {
            cu = YC_BODY_NAME(chroma_full)(tu, k->ue, k->uInv, k->uK);
            cv = YC_BODY_NAME(chroma_full)(tv, k->ve, k->vInv, k->vK);
        } else {
            cu = YC_BODY_NAME(chroma)(tu, k->du, k->uInv, k->uC, full, exact, &undecided);
            cv = YC_BODY_NAME(chroma)(tv, k->dv, k->vInv, k->vC, full, exact, &undecided);
        }
        __m256i i[4];
        __builtin_memcpy(i, &cu, sizeof cu);
        __builtin_memcpy(i + 2, &cv, sizeof cv);
        // The blocks are in `pairs_in_lanes`' order. Per 128-bit lane: U of blocks 0, 1, 4, 5, 8, 9, 12, 13, then V of
        // the same (lane 0); blocks 2, 3, 6, 7, 10, 11, 14, 15 (lane 1).
        const __m256i b = _mm256_packus_epi16(_mm256_packs_epi32(i[0], i[1]), _mm256_packs_epi32(i[2], i[3]));
        const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
        if (nv12) {
            // U and V interleaved within each lane (two blocks a 32-bit word), then the words put in block order.
            const __m256i w = _mm256_shuffle_epi8(b, _mm256_setr_epi8(0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15,
                                                                      0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15));
            const __m256i o = _mm256_permutevar8x32_epi32(w, order);
            __builtin_memcpy(uv + x, &o, sizeof o);
        } else {
            // U's words (two blocks each) to the low lane and V's to the high one, blocks 0, 1, 4, 5, 2, 3, 6, 7, …;
            // then the words swapped into order within each lane.
            const __m256i w = _mm256_permutevar8x32_epi32(b, order);
            const __m256i o = _mm256_shuffle_epi8(w, _mm256_setr_epi8(0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15,
                                                                      0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15));
            __builtin_memcpy(u + x / 2, &o, 16);
            __builtin_memcpy(v + x / 2, (const char *)&o + 16, 16);
        }
    }
#else
    yc_v_i32 cu, cv;
    yc_v_u8 cu8, cv8;
#if YC_SATURATING_BYTES
    if (full) {
        // ⌊M/D⌋ = ⌊(2M+1)/(2D)⌋, a fraction never within 1/(2D) of a whole number: truncating its float
        // (`cvttps2dq`) instead of rounding it less ½ saves a subtraction.
        cu8 = YC_BODY_NAME(pack_bytes)(__builtin_convertvector(YC_BODY_NAME(chroma_odd)(tu, k->du) * k->uInv, yc_v_i32));
        cv8 = YC_BODY_NAME(pack_bytes)(__builtin_convertvector(YC_BODY_NAME(chroma_odd)(tv, k->dv) * k->vInv, yc_v_i32));
        cu = cv = (yc_v_i32){};   // not used: full range's NV12 interleaves the bytes, its planes store them
    } else
#endif
    {
        cu = YC_BODY_NAME(chroma)(tu, k->du, k->uInv, k->uC, full, exact, &undecided);
        cv = YC_BODY_NAME(chroma)(tv, k->dv, k->vInv, k->vC, full, exact, &undecided);
        cu8 = __builtin_convertvector(cu, yc_v_u8);
        cv8 = __builtin_convertvector(cv, yc_v_u8);
    }
    if (nv12 && (YC_BODY_TIER == 0 || (full && YC_SATURATING_BYTES))) {
        // The planes' bytes interleaved (SSE2 has no unsigned 32 → 16-bit pack; x86's full range has bytes already).
        typedef uint8_t u8x32 __attribute__((vector_size(32)));
        const u8x32 w = __builtin_shufflevector(cu8, cv8, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23,
                                                8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
        __builtin_memcpy(uv + x, &w, 32);
    } else if (nv12) {
        const yc_v_u16 w = __builtin_convertvector(cu | (cv << 8), yc_v_u16);
        __builtin_memcpy(uv + x, &w, 32);
    } else {
        __builtin_memcpy(u + x / 2, &cu8, 16);
        __builtin_memcpy(v + x / 2, &cv8, 16);
    }
#endif
    if (full || exact) return 0;
#if YC_BODY_TIER == 1
    // Any lane 0: one compare and a byte mask, fewer instructions than a reduction to one lane.
    __m256i h[2];
    __builtin_memcpy(h, &undecided, sizeof h);
    return _mm256_movemask_epi8(_mm256_cmpeq_epi32(_mm256_min_epu32(h[0], h[1]), _mm256_setzero_si256())) != 0;
#elif YC_BODY_TIER >= 1
    return __builtin_reduce_min(undecided) == 0;
#else
    return __builtin_reduce_or(undecided) < 0;
#endif
}

/// The loop, inlined once per range and chroma shape (`full` and `nv12` are constants there).
YC_INLINE YC_BODY_TARGET void YC_BODY_NAME(rows)(const uint8_t *s0, const uint8_t *s1, uint8_t *y0, uint8_t *y1,
                                                 uint8_t *u, uint8_t *v, uint8_t *uv, long count,
                                                 const yc_rgba420_spec *spec, const int full, const int nv12) {
    const YC_BODY_NAME(consts) k = YC_BODY_NAME(prepare)(spec);
    // How far ahead of the loads to ask for source lines (1024 pixels): one core's hardware prefetch leaves
    // the two row streams, a picture row apart, latency-bound.
    enum { ahead = 4096 };
    for (long x = 0; x < count; x += YC_RGBA420_STEP) {
        __builtin_prefetch(s0 + 4 * x + ahead, 0, 3);
        __builtin_prefetch(s1 + 4 * x + ahead, 0, 3);
        __builtin_prefetch(s0 + 4 * x + ahead + 64, 0, 3);
        __builtin_prefetch(s1 + 4 * x + ahead + 64, 0, 3);
        if (__builtin_expect(YC_BODY_NAME(step)(s0, s1, y0, y1, u, v, uv, x, &k, full, nv12, 0), 0))
            (void)YC_BODY_NAME(step)(s0, s1, y0, y1, u, v, uv, x, &k, full, nv12, 1);
    }
}

static YC_BODY_TARGET void YC_BODY_NAME(rgba420_rows)(const uint8_t *s0, const uint8_t *s1, uint8_t *y0, uint8_t *y1,
                                                      uint8_t *u, uint8_t *v, uint8_t *uv, long count,
                                                      const yc_rgba420_spec *spec) {
    if (spec->full) {
        if (uv) YC_BODY_NAME(rows)(s0, s1, y0, y1, u, v, uv, count, spec, 1, 1);
        else YC_BODY_NAME(rows)(s0, s1, y0, y1, u, v, uv, count, spec, 1, 0);
    } else {
        if (uv) YC_BODY_NAME(rows)(s0, s1, y0, y1, u, v, uv, count, spec, 0, 1);
        else YC_BODY_NAME(rows)(s0, s1, y0, y1, u, v, uv, count, spec, 0, 0);
    }
}

#undef YC_SATURATING_BYTES
#undef YC_BODY_TIER
#undef YC_BODY_TARGET
#undef YC_BODY_NAME
