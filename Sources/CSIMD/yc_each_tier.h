// Includes the row body named by YC_BODY once per CPU tier (yc_cpu.h), each time with YC_BODY_TIER (its
// number, for the body's #if), YC_BODY_TARGET (its target attribute, yc_tiers.h) and YC_BODY_NAME (a name
// suffixer) defined; the body #undefs them. YC_BODY_VNNI 1 adds the AVX-512 VNNI copy (only the RGBA rows
// use its byte dot product; the other files map that tier to their AVX-512BW rows). Off x86, the one
// baseline copy.
#include "yc_cpu.h"
#include "yc_tiers.h"

#if defined(__x86_64__)
#include <immintrin.h>

#define YC_BODY_TIER 0
#define YC_BODY_TARGET
#define YC_BODY_NAME(n) n##_baseline
#include YC_BODY

#define YC_BODY_TIER 1
#define YC_BODY_TARGET YC_TARGET_AVX2
#define YC_BODY_NAME(n) n##_avx2
#include YC_BODY

#define YC_BODY_TIER 2
#define YC_BODY_TARGET YC_TARGET_AVX512BW
#define YC_BODY_NAME(n) n##_avx512bw
#include YC_BODY

#if YC_BODY_VNNI
#define YC_BODY_TIER 3
#define YC_BODY_TARGET YC_TARGET_AVX512VNNI
#define YC_BODY_NAME(n) n##_avx512vnni
#include YC_BODY
#endif

/// Function `f`'s copy for the tier in use; without a VNNI copy, that tier runs the AVX-512BW one.
#if YC_BODY_VNNI
#define YC_ON_TIER(f) (yc_cpu_tier() == YC_TIER_BASELINE ? f##_baseline : yc_cpu_tier() == YC_TIER_AVX2 ? f##_avx2 \
                       : yc_cpu_tier() == YC_TIER_AVX512BW ? f##_avx512bw : f##_avx512vnni)
#else
#define YC_ON_TIER(f) (yc_cpu_tier() == YC_TIER_BASELINE ? f##_baseline : yc_cpu_tier() == YC_TIER_AVX2 ? f##_avx2 \
                       : f##_avx512bw)
#endif
#else
#define YC_BODY_TIER 0
#define YC_BODY_TARGET
#define YC_BODY_NAME(n) n##_baseline
#include YC_BODY

#define YC_ON_TIER(f) f##_baseline
#endif
