// The vector types the tiered row bodies share (clang vector extensions: the same source becomes SSE2,
// AVX2 or AVX-512 code under each tier's target attribute).
#ifndef YC_VEC_H
#define YC_VEC_H

#include <stdint.h>

typedef int32_t yc_v_i32 __attribute__((vector_size(64)));
typedef float yc_v_f32 __attribute__((vector_size(64)));
typedef double yc_v_f64 __attribute__((vector_size(128)));
typedef int64_t yc_v_i64 __attribute__((vector_size(128)));
typedef uint8_t yc_v_u8 __attribute__((vector_size(16)));
typedef uint16_t yc_v_u16 __attribute__((vector_size(32)));
typedef int32_t yc_v_i32x8 __attribute__((vector_size(32)));
typedef int32_t yc_v_i32x4 __attribute__((vector_size(16)));
/// 32 lanes of 16 bits, and the same lanes widened (sharp chroma's rows).
typedef int16_t yc_v_i16 __attribute__((vector_size(64)));
typedef int32_t yc_v_i32x32 __attribute__((vector_size(128)));

#define YC_INLINE static inline __attribute__((always_inline))

/// Two 16-bit words in one 32-bit lane: `lo` in the low half (the weight of R or G), `hi` in the high one.
YC_INLINE int32_t yc_word_pair(int32_t lo, int32_t hi) { return (int32_t)(((uint32_t)hi << 16) | ((uint32_t)lo & 0xFFFF)); }
/// The same four bytes in every lane.
YC_INLINE int32_t yc_byte_quad(int32_t a, int32_t b, int32_t c) { return a | b << 8 | c << 16; }

#endif
