// Tier detection (see yc_cpu.h). The cpuid bits are Intel's SDM vol. 2A "CPUID": leaf 1 ECX for OSXSAVE,
// AVX and FMA; leaf 7 EBX/ECX for AVX2, AVX-512 and VNNI. XCR0 (xgetbv) says which register states the
// operating system saves on a context switch: YMM for AVX2, and opmask + ZMM for AVX-512.
#include "yc_cpu.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

static unsigned long long xcr0(void) {
    unsigned int lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((unsigned long long)hi << 32) | lo;
}

static int detect(void) {
    unsigned int a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return YC_TIER_BASELINE;
    const int osxsave = (c >> 27) & 1, avx = (c >> 28) & 1, fma = (c >> 12) & 1;
    if (!osxsave || !avx || !fma) return YC_TIER_BASELINE;
    const unsigned long long saved = xcr0();
    if ((saved & 0x6) != 0x6) return YC_TIER_BASELINE;            // SSE and AVX state
    if (__get_cpuid_max(0, 0) < 7) return YC_TIER_BASELINE;
    __cpuid_count(7, 0, a, b, c, d);
    if (!((b >> 5) & 1)) return YC_TIER_BASELINE;                  // AVX2
    const int f = (b >> 16) & 1, dq = (b >> 17) & 1, bw = (b >> 30) & 1, vl = (b >> 31) & 1;
    const int vnni = (c >> 11) & 1;
    if (!(f && dq && bw && vl) || (saved & 0xE6) != 0xE6) return YC_TIER_AVX2;  // + opmask, ZMM state
    return vnni ? YC_TIER_AVX512VNNI : YC_TIER_AVX512BW;
}
#else
static int detect(void) { return YC_TIER_BASELINE; }
#endif

static const char *const names[YC_TIER_COUNT] = {"baseline", "avx2", "avx512bw", "avx512vnni"};

// -1 until the first question; then a tier. Every thread that races here computes the same value.
static atomic_int best = -1, current = -1, envProblem = 0;

/// `*slot`, computed by `compute` the first time.
static int once(atomic_int *slot, int (*compute)(void)) {
    int v = atomic_load_explicit(slot, memory_order_relaxed);
    if (v < 0) {
        v = compute();
        atomic_store_explicit(slot, v, memory_order_relaxed);
    }
    return v;
}

int yc_cpu_best_tier(void) { return once(&best, detect); }

/// YUVCONV_CPU: a tier's name, or "avx512" for the best of the AVX-512 tiers the CPU has.
static int fromEnvironment(void) {
    const int b = yc_cpu_best_tier();
    const char *pin = getenv("YUVCONV_CPU");
    if (pin == NULL || pin[0] == 0) return b;
    int asked = -1;
    for (int t = 0; t < YC_TIER_COUNT; t++)
        if (strcasecmp(pin, names[t]) == 0) asked = t;   // any case, as the command's option values
    if (strcasecmp(pin, "avx512") == 0) asked = b >= YC_TIER_AVX512BW ? b : YC_TIER_AVX512BW;
    if (asked < 0) {
        atomic_store_explicit(&envProblem, 1, memory_order_relaxed);
        return b;
    }
    if (asked > b) {   // the tiers are ordered: a higher one needs what every lower one has, and more
        atomic_store_explicit(&envProblem, 2, memory_order_relaxed);
        return b;
    }
    return asked;
}

int yc_cpu_tier(void) { return once(&current, fromEnvironment); }

int yc_cpu_set_tier(int tier) {
    if (tier < 0 || tier > yc_cpu_best_tier()) return -1;
    atomic_store_explicit(&current, tier, memory_order_relaxed);
    return 0;
}

const char *yc_cpu_tier_name(int tier) { return tier >= 0 && tier < YC_TIER_COUNT ? names[tier] : NULL; }

int yc_cpu_env_problem(void) {
    (void)yc_cpu_tier();
    return atomic_load_explicit(&envProblem, memory_order_relaxed);
}
