// CRC-32 and Adler-32 (see yc_checksums.h). The CRC's x86 path folds 64 bytes at a time with carry-less
// multiplication, after Intel's "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ Instruction"
// (Gopal et al., 2009): each fold constant is x^k mod P, bit-reflected; tools/crc32-constants.py derives and
// prints them. The tests compare every path with a bitwise CRC over many lengths and alignments.
#include "yc_checksums.h"

#include <pthread.h>
#include <stdatomic.h>

// Eight tables: table[k][b] is the CRC of byte b followed by k zero bytes, made once (pthread_once: decoders
// on several threads may need them at once).
static uint32_t table[8][256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void make_tables(void) {
    for (uint32_t b = 0; b < 256; b++) {
        uint32_t c = b;
        for (int i = 0; i < 8; i++) c = (c & 1) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
        table[0][b] = c;
    }
    for (uint32_t b = 0; b < 256; b++)
        for (int k = 1; k < 8; k++) table[k][b] = (table[k - 1][b] >> 8) ^ table[0][table[k - 1][b] & 0xFF];
}

// On the inverted register.
static uint32_t crc_tables(uint32_t c, const uint8_t *p, size_t n) {
    pthread_once(&table_once, make_tables);
    while (n >= 8) {
        const uint32_t lo = c ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
        c = table[7][lo & 0xFF] ^ table[6][(lo >> 8) & 0xFF] ^ table[5][(lo >> 16) & 0xFF] ^ table[4][lo >> 24]
          ^ table[3][p[4]] ^ table[2][p[5]] ^ table[1][p[6]] ^ table[0][p[7]];
        p += 8;
        n -= 8;
    }
    while (n--) c = (c >> 8) ^ table[0][(c ^ *p++) & 0xFF];
    return c;
}

uint32_t yc_crc32_portable(uint32_t crc, const uint8_t *data, size_t n) {
    return ~crc_tables(~crc, data, n);
}

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

static int detect(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    return ((c >> 1) & 1) && ((c >> 19) & 1);   // PCLMULQDQ, SSE4.1
}

static atomic_int hardware = -1;

int yc_crc32_hardware(void) {
    int h = atomic_load_explicit(&hardware, memory_order_relaxed);
    if (h < 0) {
        h = detect();
        atomic_store_explicit(&hardware, h, memory_order_relaxed);
    }
    return h;
}

// n ≥ 64 and a multiple of 16; c is the inverted register, returned inverted.
__attribute__((target("pclmul,sse4.1")))
static uint32_t crc_pclmul(uint32_t c, const uint8_t *p, size_t n) {
    // x^(4·128+32), x^(4·128−32) mod P (fold by 64 bytes); x^(128+32), x^(128−32) (by 16); x^64 (128 → 96
    // bits); P and ⌊x^64 / P⌋ (Barrett), all bit-reflected.
    const __m128i k1k2 = _mm_set_epi64x(0x01c6e41596LL, 0x0154442bd4LL);
    const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009eLL, 0x01751997d0LL);
    const __m128i k5 = _mm_set_epi64x(0, 0x0163cd6124LL);
    const __m128i poly = _mm_set_epi64x(0x01f7011641LL, 0x01db710641LL);
    const __m128i low32 = _mm_setr_epi32(-1, 0, -1, 0);

    __m128i x1 = _mm_loadu_si128((const __m128i *)(p + 0));
    __m128i x2 = _mm_loadu_si128((const __m128i *)(p + 16));
    __m128i x3 = _mm_loadu_si128((const __m128i *)(p + 32));
    __m128i x4 = _mm_loadu_si128((const __m128i *)(p + 48));
    x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int)c));
    p += 64;
    n -= 64;
    while (n >= 64) {
        const __m128i h1 = _mm_clmulepi64_si128(x1, k1k2, 0x11), l1 = _mm_clmulepi64_si128(x1, k1k2, 0x00);
        const __m128i h2 = _mm_clmulepi64_si128(x2, k1k2, 0x11), l2 = _mm_clmulepi64_si128(x2, k1k2, 0x00);
        const __m128i h3 = _mm_clmulepi64_si128(x3, k1k2, 0x11), l3 = _mm_clmulepi64_si128(x3, k1k2, 0x00);
        const __m128i h4 = _mm_clmulepi64_si128(x4, k1k2, 0x11), l4 = _mm_clmulepi64_si128(x4, k1k2, 0x00);
        x1 = _mm_xor_si128(_mm_xor_si128(h1, l1), _mm_loadu_si128((const __m128i *)(p + 0)));
        x2 = _mm_xor_si128(_mm_xor_si128(h2, l2), _mm_loadu_si128((const __m128i *)(p + 16)));
        x3 = _mm_xor_si128(_mm_xor_si128(h3, l3), _mm_loadu_si128((const __m128i *)(p + 32)));
        x4 = _mm_xor_si128(_mm_xor_si128(h4, l4), _mm_loadu_si128((const __m128i *)(p + 48)));
        p += 64;
        n -= 64;
    }
    // Four lanes into one, then the remaining 16-byte blocks.
    __m128i h, l;
    h = _mm_clmulepi64_si128(x1, k3k4, 0x11); l = _mm_clmulepi64_si128(x1, k3k4, 0x00);
    x1 = _mm_xor_si128(_mm_xor_si128(h, l), x2);
    h = _mm_clmulepi64_si128(x1, k3k4, 0x11); l = _mm_clmulepi64_si128(x1, k3k4, 0x00);
    x1 = _mm_xor_si128(_mm_xor_si128(h, l), x3);
    h = _mm_clmulepi64_si128(x1, k3k4, 0x11); l = _mm_clmulepi64_si128(x1, k3k4, 0x00);
    x1 = _mm_xor_si128(_mm_xor_si128(h, l), x4);
    while (n >= 16) {
        h = _mm_clmulepi64_si128(x1, k3k4, 0x11); l = _mm_clmulepi64_si128(x1, k3k4, 0x00);
        x1 = _mm_xor_si128(_mm_xor_si128(h, l), _mm_loadu_si128((const __m128i *)p));
        p += 16;
        n -= 16;
    }
    // 128 bits → 64: the low half times x^(128−32)·…, added to the high half.
    x2 = _mm_clmulepi64_si128(x1, k3k4, 0x10);
    x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), x2);
    // 96 → 64 bits.
    x2 = _mm_srli_si128(x1, 4);
    x1 = _mm_clmulepi64_si128(_mm_and_si128(x1, low32), k5, 0x00);
    x1 = _mm_xor_si128(x1, x2);
    // Barrett reduction to 32 bits.
    x2 = _mm_clmulepi64_si128(_mm_and_si128(x1, low32), poly, 0x10);
    x2 = _mm_clmulepi64_si128(_mm_and_si128(x2, low32), poly, 0x00);
    x1 = _mm_xor_si128(x1, x2);
    return (uint32_t)_mm_extract_epi32(x1, 1);
}

uint32_t yc_crc32(uint32_t crc, const uint8_t *data, size_t n) {
    uint32_t c = ~crc;
    if (n >= 64 && yc_crc32_hardware()) {
        const size_t m = n & ~(size_t)15;
        c = crc_pclmul(c, data, m);
        data += m;
        n -= m;
    }
    return ~crc_tables(c, data, n);
}

#elif defined(__aarch64__) && defined(__ARM_FEATURE_CRC32)
#include <arm_acle.h>
#include <string.h>

int yc_crc32_hardware(void) { return 1; }

uint32_t yc_crc32(uint32_t crc, const uint8_t *data, size_t n) {
    uint32_t c = ~crc;
    while (n >= 8) {
        uint64_t v;
        memcpy(&v, data, 8);   // little-endian, as the reflected CRC reads bytes
        c = __crc32d(c, v);
        data += 8;
        n -= 8;
    }
    while (n--) c = __crc32b(c, *data++);
    return ~c;
}

#else
int yc_crc32_hardware(void) { return 0; }
uint32_t yc_crc32(uint32_t crc, const uint8_t *data, size_t n) { return yc_crc32_portable(crc, data, n); }
#endif

// Adler-32. s1 (1 + the bytes' sum) and s2 (the sum of s1 after each byte) modulo 65521, reduced after at
// most 5552 bytes, the most after which s2 still fits in 32 bits (RFC 1950; zlib's NMAX).
#define ADLER_MOD 65521u
#define ADLER_NMAX 5552

uint32_t yc_adler32_portable(uint32_t adler, const uint8_t *p, size_t n) {
    uint32_t s1 = adler & 0xFFFF, s2 = adler >> 16;
    while (n > 0) {
        size_t k = n < ADLER_NMAX ? n : ADLER_NMAX;
        n -= k;
        while (k--) {
            s1 += *p++;
            s2 += s1;
        }
        s1 %= ADLER_MOD;
        s2 %= ADLER_MOD;
    }
    return s2 << 16 | s1;
}

#if defined(__x86_64__)
static atomic_int ssse3 = -1;

int yc_adler32_vector(void) {
    int h = atomic_load_explicit(&ssse3, memory_order_relaxed);
    if (h < 0) {
        unsigned a, b, c, d;
        h = __get_cpuid(1, &a, &b, &c, &d) ? (int)((c >> 9) & 1) : 0;
        atomic_store_explicit(&ssse3, h, memory_order_relaxed);
    }
    return h;
}

// Blocks of 32 bytes b0…b31: s2 gains 32·s1 + Σ (32 − i)·bi and s1 gains Σ bi. Over the blocks of one run
// (at most 5552 bytes) the vector sums hold Σ bi, Σ (32 − i)·bi, and the s1 before each block; the scalar
// s1, s2 take them (in 64 bits) and are reduced once per run.
__attribute__((target("ssse3")))
static uint32_t adler_ssse3(uint32_t adler, const uint8_t *p, size_t n) {
    uint64_t s1 = adler & 0xFFFF, s2 = adler >> 16;
    const __m128i zero = _mm_setzero_si128(), ones = _mm_set1_epi16(1);
    const __m128i w_hi = _mm_setr_epi8(32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17);
    const __m128i w_lo = _mm_setr_epi8(16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1);
    while (n >= 32) {
        size_t blocks = n / 32;
        if (blocks > ADLER_NMAX / 32) blocks = ADLER_NMAX / 32;
        n -= blocks * 32;
        s2 += s1 * 32 * blocks;
        __m128i sum = zero, before = zero, weighted = zero;
        for (size_t k = 0; k < blocks; k++, p += 32) {
            const __m128i a = _mm_loadu_si128((const __m128i *)p), b = _mm_loadu_si128((const __m128i *)(p + 16));
            before = _mm_add_epi32(before, sum);   // the bytes before this block, once per block
            sum = _mm_add_epi32(sum, _mm_add_epi32(_mm_sad_epu8(a, zero), _mm_sad_epu8(b, zero)));
            // Each 16-bit lane ≤ 2·255·32 + 2·255·16 < 32768.
            const __m128i m = _mm_add_epi16(_mm_maddubs_epi16(a, w_hi), _mm_maddubs_epi16(b, w_lo));
            weighted = _mm_add_epi32(weighted, _mm_madd_epi16(m, ones));
        }
        uint32_t v[4], u[4], w[4];
        _mm_storeu_si128((__m128i *)v, sum);
        _mm_storeu_si128((__m128i *)u, before);
        _mm_storeu_si128((__m128i *)w, weighted);
        s1 += (uint64_t)v[0] + v[1] + v[2] + v[3];
        s2 += 32 * ((uint64_t)u[0] + u[1] + u[2] + u[3]) + (uint64_t)w[0] + w[1] + w[2] + w[3];
        s1 %= ADLER_MOD;
        s2 %= ADLER_MOD;
    }
    return yc_adler32_portable((uint32_t)(s2 << 16 | s1), p, n);
}

uint32_t yc_adler32(uint32_t adler, const uint8_t *data, size_t n) {
    return yc_adler32_vector() ? adler_ssse3(adler, data, n) : yc_adler32_portable(adler, data, n);
}
#else
int yc_adler32_vector(void) { return 0; }
uint32_t yc_adler32(uint32_t adler, const uint8_t *data, size_t n) { return yc_adler32_portable(adler, data, n); }
#endif
