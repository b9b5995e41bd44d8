// The colour fast path's row, included once per tier by yc_colour_rows.c (x86's baseline, without gathers,
// has a row of its own: `colour_row_sse2`). Sixteen pixels a step: the three linear values by gathers from
// 256-entry tables, the 3×3 matrix in floats in the scalar order, the clamp,
// and the cell of each output channel's bucket (its first code and the next threshold, one word) by a gather
// again. No
// contraction: a fused multiply-add would round differently from the scalar row on some tiers.
#include "yc_vec.h"

#pragma clang fp contract(off)

#define C_(n) YC_BODY_NAME(colour_##n)

/// table[i] of sixteen indices.
YC_INLINE YC_BODY_TARGET yc_v_i32 C_(gather)(const void *table, yc_v_i32 index, const int scale) {
#if YC_BODY_TIER >= 1
    // Two 8-lane gathers on the AVX-512 tiers too: AMD's cores run a 16-lane gather at under half the rate
    // (this row on a 12 MP frame: 40-44 ms with one, 33-34 ms with two, Zen 4), and Intel's about even.
    const yc_v_i32x8 lo = __builtin_shufflevector(index, index, 0, 1, 2, 3, 4, 5, 6, 7);
    const yc_v_i32x8 hi = __builtin_shufflevector(index, index, 8, 9, 10, 11, 12, 13, 14, 15);
    yc_v_i32x8 a, b;
    if (scale == 8) {
        a = (yc_v_i32x8)_mm256_i32gather_epi32((const int *)table, (__m256i)lo, 8);
        b = (yc_v_i32x8)_mm256_i32gather_epi32((const int *)table, (__m256i)hi, 8);
    } else {
        a = (yc_v_i32x8)_mm256_i32gather_epi32((const int *)table, (__m256i)lo, 4);
        b = (yc_v_i32x8)_mm256_i32gather_epi32((const int *)table, (__m256i)hi, 4);
    }
    return __builtin_shufflevector(a, b, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
#else
    yc_v_i32 r;
    for (int i = 0; i < 16; i++) __builtin_memcpy((char *)&r + 4 * i, (const char *)table + (long)scale * index[i], 4);
    return r;
#endif
}

/// The output code of sixteen linear values of channel `c`.
YC_INLINE YC_BODY_TARGET yc_v_i32 C_(code)(const yc_colour_tables *t, int c, yc_v_f32 l) {
    // As the scalar `l > 0 ? (l > 1 ? 1 : l) : 0`, by masks (C has no vector conditional): −0 and NaN (a
    // crafted profile's matrix or curve) become 0 too, whose bucket is in the table.
    const yc_v_i32 below = ~(l > 0), above = l > 1;
    yc_v_i32 bits = (yc_v_i32)l & ~below;
    bits = (bits & ~above) | (0x3F800000 & above);
    l = (yc_v_f32)bits;
    yc_v_i32 bucket = ((yc_v_i32)l >> YC_COLOUR_SHIFT)
                    - (((127 - YC_COLOUR_OCTAVES) << YC_COLOUR_OCTAVE_BITS) - 1);   // yc_colour_bucket
    bucket &= ~(bucket >> 31);
    const yc_v_i32 cell = C_(gather)(&t->cell[c][0], bucket, 4);
    return (cell & 255) - ((bits & (int32_t)YC_COLOUR_LOW) >= (cell >> 8));   // the comparison is −1 where true
}

/// Sixteen RGB pixels (48 bytes at q; 64 may be read) as RGB0 lanes. AVX2 and AVX-512 spread the 12-byte groups
/// over 128-bit lanes with one dword permute and place the bytes with an in-lane byte shuffle; a generic
/// 64-byte shuffle compiles to far more (AVX-512BW has no byte permute across lanes): the AVX-512 row took
/// 51 ms on a 12 MP RGB frame with it, against 35 ms on the same pixels as RGBA.
YC_INLINE YC_BODY_TARGET yc_v_i32 C_(expand)(const uint8_t *q) {
#if defined(__x86_64__) && YC_BODY_TIER >= 2
    const __m512i raw = _mm512_loadu_si512((const void *)q);
    const __m512i spread = _mm512_permutexvar_epi32(_mm512_setr_epi32(0, 1, 2, 3, 3, 4, 5, 6, 6, 7, 8, 9, 9, 10, 11, 12), raw);
    const __m512i place = _mm512_broadcast_i32x4(_mm_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1));
    return (yc_v_i32)_mm512_shuffle_epi8(spread, place);
#elif defined(__x86_64__) && YC_BODY_TIER == 1
    const __m256i place = _mm256_broadcastsi128_si256(_mm_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1));
    const __m256i order = _mm256_setr_epi32(0, 1, 2, 3, 3, 4, 5, 6);
    __m256i h[2];
    for (int i = 0; i < 2; i++) {
        const __m256i raw = _mm256_loadu_si256((const __m256i *)(q + 24 * i));
        h[i] = _mm256_shuffle_epi8(_mm256_permutevar8x32_epi32(raw, order), place);
    }
    yc_v_i32 px;
    __builtin_memcpy(&px, h, 64);
    return px;
#else
    typedef uint8_t u8x64 __attribute__((vector_size(64)));
    u8x64 raw;
    __builtin_memcpy(&raw, q, 64);
    // RGB, RGB, … → RGB0, RGB0, …
    const u8x64 wide = __builtin_shufflevector(raw, raw, 0, 1, 2, 63, 3, 4, 5, 63, 6, 7, 8, 63, 9, 10, 11, 63,
                                               12, 13, 14, 63, 15, 16, 17, 63, 18, 19, 20, 63, 21, 22, 23, 63,
                                               24, 25, 26, 63, 27, 28, 29, 63, 30, 31, 32, 63, 33, 34, 35, 63,
                                               36, 37, 38, 63, 39, 40, 41, 63, 42, 43, 44, 63, 45, 46, 47, 63);
    return (yc_v_i32)wide;
#endif
}

/// Sixteen RGB0 lanes stored as 48 bytes of RGB at q: the reverse of `expand`.
YC_INLINE YC_BODY_TARGET void C_(pack)(uint8_t *q, yc_v_i32 out) {
#if defined(__x86_64__) && YC_BODY_TIER >= 2
    const __m512i take = _mm512_broadcast_i32x4(_mm_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1));
    const __m512i packed = _mm512_permutexvar_epi32(_mm512_setr_epi32(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 15, 15, 15, 15),
                                                    _mm512_shuffle_epi8((__m512i)out, take));
    __builtin_memcpy(q, &packed, 48);   // not a masked store: AMD's cores run those slowly
#elif defined(__x86_64__) && YC_BODY_TIER == 1
    const __m256i take = _mm256_broadcastsi128_si256(_mm_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1));
    const __m256i order = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 7, 7);
    __m256i h[2];
    __builtin_memcpy(h, &out, 64);
    for (int i = 0; i < 2; i++) {
        const __m256i packed = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(h[i], take), order);
        __builtin_memcpy(q + 24 * i, &packed, 24);
    }
#else
    typedef uint8_t u8x64 __attribute__((vector_size(64)));
    const u8x64 o = (u8x64)out;
    const u8x64 packed = __builtin_shufflevector(o, o, 0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 16, 17, 18, 20,
                                                 21, 22, 24, 25, 26, 28, 29, 30, 32, 33, 34, 36, 37, 38, 40, 41,
                                                 42, 44, 45, 46, 48, 49, 50, 52, 53, 54, 56, 57, 58, 60, 61, 62,
                                                 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63);
    __builtin_memcpy(q, &packed, 48);
#endif
}

#if defined(__x86_64__) && YC_BODY_TIER == 0
/// SSE2 has no gather, and emulating the sixteen-lane row (scalar loads into lanes, byte shuffles without
/// `pshufb`) cost a 12 MP photo about 100 ms of CPU. Here a pixel's three linear values come already multiplied
/// into the matrix's columns (`prod`: the same rounded products) and are summed in one register in the scalar
/// order ((m0·r + m1·g) + m2·b); four pixels' sums are transposed into one register a channel, clamped and
/// bucketed by the vector row's masks, and each channel's cell read one by one (about 30% less CPU for the
/// whole P3 photo than the emulated row).
/// A pixel's three sums (R, G, B of the target, then 0), in the scalar order.
static inline __m128 colour_sums_sse2(const yc_colour_tables *t, const uint8_t *s) {
    return _mm_add_ps(_mm_add_ps(_mm_load_ps(t->prod[0][s[0]]), _mm_load_ps(t->prod[1][s[1]])), _mm_load_ps(t->prod[2][s[2]]));
}

static void colour_row_sse2(const yc_colour_tables *t, uint8_t *p, uint32_t width, int step) {
    const __m128 zero = _mm_setzero_ps(), one = _mm_set1_ps(1.0f);
    const __m128i oneBits = _mm_set1_epi32(0x3F800000), lowMask = _mm_set1_epi32(YC_COLOUR_LOW);
    const __m128i base = _mm_set1_epi32(((127 - YC_COLOUR_OCTAVES) << YC_COLOUR_OCTAVE_BITS) - 1);
    uint32_t x = 0;
    // Four pixels a step: each pixel's sums in a register, turned into one register a channel.
    for (; x + 4 <= width; x += 4) {
        uint8_t *q = p + (long)step * x;
        __m128 l[4];
        for (int i = 0; i < 4; i++) l[i] = colour_sums_sse2(t, q + step * i);
        _MM_TRANSPOSE4_PS(l[0], l[1], l[2], l[3]);
        uint32_t b[3][4], v[3][4], cells[3][4];
        __m128i bitsOf[3];
        for (int c = 0; c < 3; c++) {
            // As C_(code): not above 0 (−0 and NaN too) → 0, above 1 → 1.
            const __m128i above = _mm_castps_si128(_mm_cmpgt_ps(l[c], one));
            __m128i bits = _mm_and_si128(_mm_castps_si128(l[c]), _mm_castps_si128(_mm_cmpgt_ps(l[c], zero)));
            bits = _mm_or_si128(_mm_andnot_si128(above, bits), _mm_and_si128(above, oneBits));
            __m128i bucket = _mm_sub_epi32(_mm_srli_epi32(bits, YC_COLOUR_SHIFT), base);
            bucket = _mm_andnot_si128(_mm_srai_epi32(bucket, 31), bucket);
            _mm_storeu_si128((__m128i *)(void *)b[c], bucket);
            bitsOf[c] = bits;
        }
        for (int c = 0; c < 3; c++)
            for (int i = 0; i < 4; i++) cells[c][i] = t->cell[c][b[c][i]];
        for (int c = 0; c < 3; c++) {
            const __m128i cell = _mm_loadu_si128((const __m128i *)(const void *)cells[c]);
            // code + (low bits ≥ threshold): the comparison is −1 where the threshold is above.
            const __m128i below = _mm_cmpgt_epi32(_mm_srai_epi32(cell, 8), _mm_and_si128(bitsOf[c], lowMask));
            _mm_storeu_si128((__m128i *)(void *)v[c],
                             _mm_add_epi32(_mm_and_si128(cell, _mm_set1_epi32(255)),
                                           _mm_add_epi32(below, _mm_set1_epi32(1))));
        }
        for (int i = 0; i < 4; i++) {
            uint8_t *s = q + step * i;
            s[0] = (uint8_t)v[0][i], s[1] = (uint8_t)v[1][i], s[2] = (uint8_t)v[2][i];
        }
    }
    for (; x < width; x++) {
        uint8_t *q = p + (long)step * x;
        float f[4];
        _mm_storeu_ps(f, colour_sums_sse2(t, q));
        for (int c = 0; c < 3; c++) q[c] = yc_colour_code(t, c, f[c]);
    }
}
#endif

static YC_BODY_TARGET void YC_BODY_NAME(colour_row)(const yc_colour_tables *t, uint8_t *p, uint32_t width, int step) {
#if defined(__x86_64__) && YC_BODY_TIER == 0
    colour_row_sse2(t, p, width, step);
    return;
#endif
    const float *m = t->m;
    uint32_t x = 0;
    // Whole steps that can read 64 bytes (RGB rows: 48 used) without leaving the row.
    for (; x + 16 <= width && (step == 4 || x + 22 <= width); x += 16) {
        uint8_t *q = p + (long)step * x;
        yc_v_i32 px;
        if (step == 4) {
            __builtin_memcpy(&px, q, 64);
        } else {
            px = C_(expand)(q);
        }
        const yc_v_f32 r = (yc_v_f32)C_(gather)(t->lin[0], px & 255, 4);
        const yc_v_f32 g = (yc_v_f32)C_(gather)(t->lin[1], (px >> 8) & 255, 4);
        const yc_v_f32 b = (yc_v_f32)C_(gather)(t->lin[2], (px >> 16) & 255, 4);
        const yc_v_i32 o0 = C_(code)(t, 0, m[0] * r + m[1] * g + m[2] * b);
        const yc_v_i32 o1 = C_(code)(t, 1, m[3] * r + m[4] * g + m[5] * b);
        const yc_v_i32 o2 = C_(code)(t, 2, m[6] * r + m[7] * g + m[8] * b);
        const yc_v_i32 out = (px & (int32_t)0xFF000000) | o0 | (o1 << 8) | (o2 << 16);
        if (step == 4) {
            __builtin_memcpy(q, &out, 64);
        } else {
            C_(pack)(q, out);
        }
    }
    // The rest, one pixel at a time, with the same operations.
    for (; x < width; x++) {
        uint8_t *q = p + (long)step * x;
        const float r = t->lin[0][q[0]], g = t->lin[1][q[1]], b = t->lin[2][q[2]];
        const float l[3] = {m[0] * r + m[1] * g + m[2] * b, m[3] * r + m[4] * g + m[5] * b, m[6] * r + m[7] * g + m[8] * b};
        for (int c = 0; c < 3; c++) q[c] = yc_colour_code(t, c, l[c]);
    }
}

#pragma clang fp contract(on)

#undef C_
#undef YC_BODY_TIER
#undef YC_BODY_TARGET
#undef YC_BODY_NAME
