// Each tier's target attribute, for the files that compile a row body once per tier (yc_cpu.h names the
// tiers; YC_BODY_TIER is its number, for the bodies' #if).
#ifndef YC_TIERS_H
#define YC_TIERS_H

#define YC_TARGET_AVX2 __attribute__((target("avx2,fma")))
#define YC_TARGET_AVX512BW __attribute__((target("avx2,fma,avx512f,avx512bw,avx512vl,avx512dq")))
#define YC_TARGET_AVX512VNNI __attribute__((target("avx2,fma,avx512f,avx512bw,avx512vl,avx512dq,avx512vnni")))

// The helpers pass 512-bit vectors by value, but every one is always_inline into its own tier's row function:
// no call, so no calling convention to disagree about.
#pragma clang diagnostic ignored "-Wpsabi"

#endif
