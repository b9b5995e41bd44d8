// Which vector instructions the row kernels use: chosen once from `cpuid` (and the operating system's
// saved-state mask), or pinned by the environment variable YUVCONV_CPU, as libyuv's cpu_id.c does with its
// LIBYUV_DISABLE_* variables. One binary runs on every x86-64 CPU: each tier's rows are compiled with their
// own target attributes, and only the tier the CPU can run is ever called.
#ifndef YC_CPU_H
#define YC_CPU_H

enum {
    YC_TIER_BASELINE = 0,    // x86-64's SSE2 (or, off x86, the compiler's own vectors)
    YC_TIER_AVX2 = 1,        // AVX2 + FMA (Haswell, Zen 1 and later)
    YC_TIER_AVX512BW = 2,    // AVX-512 F/BW/VL/DQ (Skylake-SP, Zen 4)
    YC_TIER_AVX512VNNI = 3,  // the same with VNNI's byte dot product (Cascade Lake, Ice Lake, Zen 4)
    YC_TIER_COUNT = 4
};

/// The best tier this CPU and operating system can run.
int yc_cpu_best_tier(void);

/// The tier the kernels use now: YUVCONV_CPU's pin if it named one this CPU can run, else the best.
int yc_cpu_tier(void);

/// Pins a tier (tests, benchmarks). Returns 0, or -1 (nothing changed) when the CPU cannot run it.
int yc_cpu_set_tier(int tier);

/// "baseline", "avx2", "avx512bw", "avx512vnni"; NULL outside 0 ..< YC_TIER_COUNT.
const char *yc_cpu_tier_name(int tier);

/// What was wrong with YUVCONV_CPU, if anything: 0 fine or unset, 1 a name no tier has, 2 a tier this CPU
/// cannot run (the kernels then use the best tier; the command line refuses to run).
int yc_cpu_env_problem(void);

#endif
