// RGB rows widened to RGBX (R, G, B, 0xFF) for the RGBA kernels: a PNG's 3-byte rows, a row pair at a time. The
// plain loop is not vectorised (about nine instructions a pixel, more than the conversion's own rows on AVX2);
// AVX2 moves eight pixels with one byte shuffle, the baseline four with four 32-bit loads (SSE2 has no byte
// shuffle). Every tier writes the same bytes.
#include "yc_rows.h"
#include "yc_cpu.h"
#include "yc_tiers.h"

#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

static void widen_tail(const uint8_t *s, uint8_t *d, long x, long n) {
    for (; x < n; x++) {
        d[4 * x] = s[3 * x];
        d[4 * x + 1] = s[3 * x + 1];
        d[4 * x + 2] = s[3 * x + 2];
        d[4 * x + 3] = 0xFF;
    }
}

/// Four pixels a step, each a 32-bit load of its three bytes and the next one (replaced by 0xFF): the last load
/// reaches byte 3x + 12, within the row while x + 4 < n.
static void widen_baseline(const uint8_t *s, uint8_t *d, long n) {
    long x = 0;
    for (; x + 4 < n; x += 4) {
        uint32_t a[4];
        for (int i = 0; i < 4; i++) {
            uint32_t w;
            memcpy(&w, s + 3 * (x + i), 4);
            a[i] = w | 0xFF000000u;   // little-endian: the fourth byte in memory is the high one
        }
        memcpy(d + 4 * x, a, 16);
    }
    widen_tail(s, d, x, n);
}

#if defined(__x86_64__)
/// Eight pixels a step: bytes 0…15 and 12…27 of the step's 24 in the two halves of a vector, one shuffle to
/// R, G, B, 0 per 32-bit lane, the 0xFF or'd in. The second load reaches byte 3x + 27, within the row while
/// 3x + 28 ≤ 3n.
static YC_TARGET_AVX2 void widen_avx2(const uint8_t *s, uint8_t *d, long n) {
    const __m256i shuffle = _mm256_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1,
                                             0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1);
    const __m256i alpha = _mm256_set1_epi32((int)0xFF000000u);
    long x = 0;
    for (; 3 * x + 28 <= 3 * n; x += 8) {
        __m128i lo, hi;
        memcpy(&lo, s + 3 * x, 16);
        memcpy(&hi, s + 3 * x + 12, 16);
        const __m256i v = _mm256_or_si256(_mm256_shuffle_epi8(_mm256_set_m128i(hi, lo), shuffle), alpha);
        memcpy(d + 4 * x, &v, 32);
    }
    widen_tail(s, d, x, n);
}
#endif

void yc_rgb_to_rgbx_row(const uint8_t *src, uint8_t *dst, long count) {
#if defined(__x86_64__)
    if (yc_cpu_tier() != YC_TIER_BASELINE) { widen_avx2(src, dst, count); return; }
#endif
    widen_baseline(src, dst, count);
}
