// What Swift's SIMD types cannot say: a software prefetch and a byte dot product. Static inline, so they
// compile into the Swift row kernels that call them (no call in the loop). Swift imports the ext_vector_type
// typedef as SIMD16<Int32>.
#ifndef YC_SIMD_H
#define YC_SIMD_H

#include <stdint.h>

#include "yc_sha256.h"
#if defined(__AVX512VNNI__) && defined(__AVX512F__)
#include <immintrin.h>
#endif

typedef int32_t yc_i32x16 __attribute__((ext_vector_type(16)));

/// 1 when yc_dot4 is one instruction (AVX512-VNNI `vpdpbusd`) on the target this was compiled for; the rows
/// only use it then (inlined to a constant, so the choice is made at compile time).
static inline __attribute__((always_inline)) int yc_has_dot4(void) {
#if defined(__AVX512VNNI__) && defined(__AVX512F__)
    return 1;
#else
    return 0;
#endif
}

/// Per 32-bit lane: acc + the sum over its four bytes of (byte of a, unsigned) × (byte of b, signed). Exact.
static inline __attribute__((always_inline)) yc_i32x16 yc_dot4(yc_i32x16 acc, yc_i32x16 a, yc_i32x16 b) {
#if defined(__AVX512VNNI__) && defined(__AVX512F__)
    return (yc_i32x16)_mm512_dpbusd_epi32((__m512i)acc, (__m512i)a, (__m512i)b);
#else
    for (int i = 0; i < 16; i++) {
        uint32_t x = (uint32_t)a[i], w = (uint32_t)b[i];
        int32_t s = acc[i];
        for (int k = 0; k < 4; k++) s += (int32_t)((x >> (8 * k)) & 0xFF) * (int32_t)(int8_t)(w >> (8 * k));
        acc[i] = s;
    }
    return acc;
#endif
}

/// Asks for the cache line at `p` ahead of its use: a hint that never faults, even past the end of a buffer.
static inline __attribute__((always_inline)) void yc_prefetch(const void *p) { __builtin_prefetch(p, 0, 3); }

#endif
