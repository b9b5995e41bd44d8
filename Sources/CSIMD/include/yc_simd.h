// What Swift's SIMD types cannot say: a software prefetch. Static inline, so it compiles into the Swift row
// kernels that call it (no call in the loop).
#ifndef YC_SIMD_H
#define YC_SIMD_H

/// Asks for the cache line at `p` ahead of its use: a hint that never faults, even past the end of a buffer.
static inline __attribute__((always_inline)) void yc_prefetch(const void *p) { __builtin_prefetch(p, 0, 3); }

#endif
