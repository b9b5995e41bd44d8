// The colour fast path's row, included once per tier by yc_colour_rows.c. On x86 each tier sums a pixel's three
// linear values from the products table (`prod`: the matrix's columns times each source code's linear value,
// rounded once, summed in the scalar order), so no tier gathers them; the output code of each channel is its
// bucket's cell (its first code and the next threshold, one word): a gather of eight on AVX2 and AVX-512, one
// load at a time on the baseline tier. Elsewhere, a portable sixteen-lane row in clang's vector extensions.
// No contraction: a fused multiply-add would round differently from the scalar row on some tiers.
#include "yc_vec.h"

#pragma clang fp contract(off)

#define C_(n) YC_BODY_NAME(colour_##n)

#if !defined(__x86_64__)
/// table[i] of sixteen indices.
YC_INLINE YC_BODY_TARGET yc_v_i32 C_(gather)(const void *table, yc_v_i32 index, const int scale) {
    yc_v_i32 r;
    for (int i = 0; i < 16; i++) __builtin_memcpy((char *)&r + 4 * i, (const char *)table + (long)scale * index[i], 4);
    return r;
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

/// Sixteen RGB pixels (48 bytes at q; 64 may be read) as RGB0 lanes.
YC_INLINE YC_BODY_TARGET yc_v_i32 C_(expand)(const uint8_t *q) {
    typedef uint8_t u8x64 __attribute__((vector_size(64)));
    u8x64 raw;
    __builtin_memcpy(&raw, q, 64);
    // RGB, RGB, … → RGB0, RGB0, …
    const u8x64 wide = __builtin_shufflevector(raw, raw, 0, 1, 2, 63, 3, 4, 5, 63, 6, 7, 8, 63, 9, 10, 11, 63,
                                               12, 13, 14, 63, 15, 16, 17, 63, 18, 19, 20, 63, 21, 22, 23, 63,
                                               24, 25, 26, 63, 27, 28, 29, 63, 30, 31, 32, 63, 33, 34, 35, 63,
                                               36, 37, 38, 63, 39, 40, 41, 63, 42, 43, 44, 63, 45, 46, 47, 63);
    return (yc_v_i32)wide;
}

/// Sixteen RGB0 lanes stored as 48 bytes of RGB at q: the reverse of `expand`.
YC_INLINE YC_BODY_TARGET void C_(pack)(uint8_t *q, yc_v_i32 out) {
    typedef uint8_t u8x64 __attribute__((vector_size(64)));
    const u8x64 o = (u8x64)out;
    const u8x64 packed = __builtin_shufflevector(o, o, 0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 16, 17, 18, 20,
                                                 21, 22, 24, 25, 26, 28, 29, 30, 32, 33, 34, 36, 37, 38, 40, 41,
                                                 42, 44, 45, 46, 48, 49, 50, 52, 53, 54, 56, 57, 58, 60, 61, 62,
                                                 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63);
    __builtin_memcpy(q, &packed, 48);
}
#endif

#if defined(__x86_64__)
/// A pixel's three sums (R, G, B of the target, then 0), in the scalar order.
YC_INLINE YC_BODY_TARGET __m128 C_(sums1)(const yc_colour_tables *t, const uint8_t *s) {
    return _mm_add_ps(_mm_add_ps(_mm_load_ps(t->prod[0][s[0]]), _mm_load_ps(t->prod[1][s[1]])), _mm_load_ps(t->prod[2][s[2]]));
}

/// Pixels x up to width, one at a time, with the same operations.
YC_INLINE YC_BODY_TARGET void C_(tail)(const yc_colour_tables *t, uint8_t *p, uint32_t x, uint32_t width, int step) {
    for (; x < width; x++) {
        uint8_t *q = p + (long)step * x;
        float f[4];
        _mm_storeu_ps(f, C_(sums1)(t, q));
        for (int c = 0; c < 3; c++) q[c] = yc_colour_code(t, c, f[c]);
    }
}
#endif

#if defined(__x86_64__) && YC_BODY_TIER == 0
/// SSE2 has no gather, and emulating the sixteen-lane row (scalar loads into lanes, byte shuffles without
/// `pshufb`) cost a 12 MP photo about 100 ms of CPU. Here a pixel's three linear values come already multiplied
/// into the matrix's columns (`prod`: the same rounded products) and are summed in one register in the scalar
/// order ((m0·r + m1·g) + m2·b); four pixels' sums are transposed into one register a channel, clamped and
/// bucketed by the vector row's masks, and each channel's cell read one by one (about 30% less CPU for the
/// whole P3 photo than the emulated row).

static void colour_row_sse2(const yc_colour_tables *t, uint8_t *p, uint32_t width, int step) {
    const __m128 zero = _mm_setzero_ps(), one = _mm_set1_ps(1.0f);
    const __m128i oneBits = _mm_set1_epi32(0x3F800000), lowMask = _mm_set1_epi32(YC_COLOUR_LOW);
    const __m128i base = _mm_set1_epi32(((127 - YC_COLOUR_OCTAVES) << YC_COLOUR_OCTAVE_BITS) - 1);
    uint32_t x = 0;
    // Four pixels a step: each pixel's sums in a register, turned into one register a channel.
    for (; x + 4 <= width; x += 4) {
        uint8_t *q = p + (long)step * x;
        __m128 l[4];
        for (int i = 0; i < 4; i++) l[i] = C_(sums1)(t, q + step * i);
        _MM_TRANSPOSE4_PS(l[0], l[1], l[2], l[3]);
        uint32_t b[3][4], v[3][4], cells[3][4];
        __m128i bitsOf[3];
        for (int c = 0; c < 3; c++) {
            // As code8 and the scalar row: not above 0 (−0 and NaN too) → 0, above 1 → 1.
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
    C_(tail)(t, p, x, width, step);
}
#endif

#if defined(__x86_64__) && YC_BODY_TIER >= 1
/// Eight pixels' three sums, by the products table (`prod`, as the baseline row): pixel i in the low half of
/// register i % 4 and pixel i + 4 in its high half, then transposed in each half into one register a channel.
YC_INLINE YC_BODY_TARGET void C_(sums8)(const yc_colour_tables *t, const uint8_t *q, int step, __m256 l[3]) {
    __m256 a[4];
    for (int i = 0; i < 4; i++) {
        const uint8_t *s = q + step * i, *u = q + step * (i + 4);
        const __m256 p0 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_load_ps(t->prod[0][s[0]])), _mm_load_ps(t->prod[0][u[0]]), 1);
        const __m256 p1 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_load_ps(t->prod[1][s[1]])), _mm_load_ps(t->prod[1][u[1]]), 1);
        const __m256 p2 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_load_ps(t->prod[2][s[2]])), _mm_load_ps(t->prod[2][u[2]]), 1);
        a[i] = _mm256_add_ps(_mm256_add_ps(p0, p1), p2);
    }
    const __m256 t0 = _mm256_unpacklo_ps(a[0], a[1]), t1 = _mm256_unpackhi_ps(a[0], a[1]);
    const __m256 t2 = _mm256_unpacklo_ps(a[2], a[3]), t3 = _mm256_unpackhi_ps(a[2], a[3]);
    l[0] = _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(t0), _mm256_castps_pd(t2)));
    l[1] = _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(t0), _mm256_castps_pd(t2)));
    l[2] = _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(t1), _mm256_castps_pd(t3)));
}

/// The output codes of eight linear values of channel `c`, by the baseline row's masks and one gather.
YC_INLINE YC_BODY_TARGET __m256i C_(code8)(const yc_colour_tables *t, int c, __m256 l) {
    const __m256i above = _mm256_castps_si256(_mm256_cmp_ps(l, _mm256_set1_ps(1.0f), _CMP_GT_OQ));
    __m256i bits = _mm256_and_si256(_mm256_castps_si256(l), _mm256_castps_si256(_mm256_cmp_ps(l, _mm256_setzero_ps(), _CMP_GT_OQ)));
    bits = _mm256_blendv_epi8(bits, _mm256_set1_epi32(0x3F800000), above);
    __m256i bucket = _mm256_sub_epi32(_mm256_srli_epi32(bits, YC_COLOUR_SHIFT),
                                      _mm256_set1_epi32(((127 - YC_COLOUR_OCTAVES) << YC_COLOUR_OCTAVE_BITS) - 1));
    bucket = _mm256_max_epi32(bucket, _mm256_setzero_si256());
    const __m256i cell = _mm256_i32gather_epi32((const int *)&t->cell[c][0], bucket, 4);
    const __m256i below = _mm256_cmpgt_epi32(_mm256_srli_epi32(cell, 8), _mm256_and_si256(bits, _mm256_set1_epi32(YC_COLOUR_LOW)));
    // code + (low bits ≥ threshold): the comparison is −1 where the threshold is above.
    return _mm256_add_epi32(_mm256_and_si256(cell, _mm256_set1_epi32(255)), _mm256_add_epi32(below, _mm256_set1_epi32(1)));
}

/// Eight pixels a step, AVX2 and AVX-512 alike. The sixteen-lane row it replaced gathered the linear values and
/// multiplied them out: about 10% slower on both tiers (12 MP RGB in a C harness, best of 7, Zen 4: 33-39 ms
/// against 31-34).
static YC_BODY_TARGET void C_(row8)(const yc_colour_tables *t, uint8_t *p, uint32_t width, int step) {
    uint32_t x = 0;
    const __m256i take = _mm256_broadcastsi128_si256(_mm_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1));
    const __m256i order = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 7, 7);
    for (; x + 8 <= width; x += 8) {   // RGB: byte loads and a 24-byte store; RGBA: 32 bytes
        uint8_t *q = p + (long)step * x;
        __m256 l[3];
        C_(sums8)(t, q, step, l);
        const __m256i o0 = C_(code8)(t, 0, l[0]), o1 = C_(code8)(t, 1, l[1]), o2 = C_(code8)(t, 2, l[2]);
        __m256i out = _mm256_or_si256(o0, _mm256_or_si256(_mm256_slli_epi32(o1, 8), _mm256_slli_epi32(o2, 16)));
        if (step == 4) {
            out = _mm256_or_si256(out, _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(void *)q), _mm256_set1_epi32((int)0xFF000000)));
            _mm256_storeu_si256((__m256i *)(void *)q, out);
        } else {
            const __m256i packed = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(out, take), order);
            _mm_storeu_si128((__m128i *)(void *)q, _mm256_castsi256_si128(packed));
            _mm_storel_epi64((__m128i *)(void *)(q + 16), _mm256_extracti128_si256(packed, 1));
        }
    }
    C_(tail)(t, p, x, width, step);
}
#endif

static YC_BODY_TARGET void YC_BODY_NAME(colour_row)(const yc_colour_tables *t, uint8_t *p, uint32_t width, int step) {
#if defined(__x86_64__) && YC_BODY_TIER == 0
    colour_row_sse2(t, p, width, step);
#elif defined(__x86_64__)
    C_(row8)(t, p, width, step);
#else
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
#endif
}

#pragma clang fp contract(on)

#undef C_
#undef YC_BODY_TIER
#undef YC_BODY_TARGET
#undef YC_BODY_NAME
