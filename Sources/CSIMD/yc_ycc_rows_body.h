// A 4:2:0 JPEG's planes to RGB rows: the body yc_ycc_rows.c includes once per tier (YC_BODY_TIER,
// YC_BODY_TARGET, YC_BODY_NAME as yc_each_tier.h defines them). Plain loops the compiler vectorises for each
// tier's registers; integers only, so every tier makes the same bytes — libjpeg's (yc_ycc_rows.h).
//
// libjpeg-turbo's h2v2 "fancy" upsampling (jdsample.c, and its SIMD twins, which make the same bytes): each
// chroma column first mixed down the rows, s = 3·(the luma row's own chroma row) + (the neighbouring one), then
// along the row, the left luma pixel of a pair (3·s + s_left + 8) >> 4 and the right one (3·s + s_right + 7) >> 4,
// the first and last columns their own neighbours. Then its YCbCr → RGB tables (jdcolor.c), written out with
// their multipliers (yc_ycc_rows.h).

#include "yc_vec.h"
#include "yc_ycc_rows.h"

typedef int16_t YC_BODY_NAME(ycc_i16x8) __attribute__((vector_size(16)));
typedef int16_t YC_BODY_NAME(ycc_i16x16) __attribute__((vector_size(32)));

/// Sixteen pixels' upsampled chroma from the column sums of their eight chroma samples (`mid`) and of the
/// samples one to the left and one to the right of each (`left`, `right`): left pixels (3·s + s_left + 8) >> 4,
/// right ones (3·s + s_right + 7) >> 4, interleaved.
YC_INLINE YC_BODY_TARGET yc_v_i32 YC_BODY_NAME(ycc_along)(YC_BODY_NAME(ycc_i16x8) left, YC_BODY_NAME(ycc_i16x8) mid,
                                                         YC_BODY_NAME(ycc_i16x8) right) {
    const YC_BODY_NAME(ycc_i16x8) even = (3 * mid + left + 8) >> 4, odd = (3 * mid + right + 7) >> 4;
    const YC_BODY_NAME(ycc_i16x16) both = __builtin_shufflevector(even, odd, 0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
    return __builtin_convertvector(both, yc_v_i32);
}

/// Sixteen pixels from their luma and (upsampled) chroma, by libjpeg's tables written out: `n` of them (16, or
/// fewer at a row's end) stored as RGBX at `rgbx`, or, when it is NULL, as planar R, G and B at `pr`, `pg`, `pb`.
YC_INLINE YC_BODY_TARGET void YC_BODY_NAME(ycc_pixels)(yc_v_i32 l, yc_v_i32 b, yc_v_i32 c, uint32_t n, uint8_t *rgbx,
                                                      uint8_t *pr, uint8_t *pg, uint8_t *pb) {
    b -= 128;
    c -= 128;
    yc_v_i32 r = l + ((YC_JPEG_FIX_CR_R * c + 32768) >> 16);
    yc_v_i32 g = l + ((32768 - YC_JPEG_FIX_CB_G * b - YC_JPEG_FIX_CR_G * c) >> 16);
    yc_v_i32 u = l + ((YC_JPEG_FIX_CB_B * b + 32768) >> 16);
    const yc_v_i32 zero = {}, top = zero + 255;
    r = __builtin_elementwise_min(__builtin_elementwise_max(r, zero), top);
    g = __builtin_elementwise_min(__builtin_elementwise_max(g, zero), top);
    u = __builtin_elementwise_min(__builtin_elementwise_max(u, zero), top);
    if (rgbx) {
        const yc_v_i32 px = r | (g << 8) | (u << 16) | (int32_t)0xFF000000;
        __builtin_memcpy(rgbx, &px, 4 * (size_t)n);
    } else {
        const yc_v_u8 r8 = __builtin_convertvector(r, yc_v_u8), g8 = __builtin_convertvector(g, yc_v_u8),
                      b8 = __builtin_convertvector(u, yc_v_u8);
        __builtin_memcpy(pr, &r8, n);
        __builtin_memcpy(pg, &g8, n);
        __builtin_memcpy(pb, &b8, n);
    }
}

/// Chroma samples a chunk: the chunk's column sums stay on the stack.
enum { YC_BODY_NAME(ycc_chunk) = 256 };

/// One row: RGBX at `rgbx`, or planar at `pr`, `pg`, `pb` when `rgbx` is NULL (a constant in each caller below).
YC_INLINE YC_BODY_TARGET void YC_BODY_NAME(ycc420_any)(const uint8_t *restrict y, const uint8_t *restrict cbNear,
                                                      const uint8_t *restrict cbFar, const uint8_t *restrict crNear,
                                                      const uint8_t *restrict crFar, uint32_t width, uint8_t *rgbx,
                                                      uint8_t *pr, uint8_t *pg, uint8_t *pb) {
    typedef YC_BODY_NAME(ycc_i16x8) i16x8;
    enum { N = YC_BODY_NAME(ycc_chunk) };
    const uint32_t cw = (width + 1) / 2;
    // Column sums (3·near + far) of the chunk's samples at [1 … n], its neighbours at 0 and n + 1, and room for
    // a whole vector past them.
    int16_t sb[N + 2 + 8], sr[N + 2 + 8];
    for (uint32_t c0 = 0; c0 < cw; c0 += N) {
        const uint32_t n = cw - c0 < N ? cw - c0 : N;
        for (uint32_t i = 0; i < n; i++) {
            sb[i + 1] = (int16_t)(3 * cbNear[c0 + i] + cbFar[c0 + i]);
            sr[i + 1] = (int16_t)(3 * crNear[c0 + i] + crFar[c0 + i]);
        }
        const uint32_t l = c0 > 0 ? c0 - 1 : 0, r = c0 + n < cw ? c0 + n : cw - 1;
        sb[0] = (int16_t)(3 * cbNear[l] + cbFar[l]);
        sr[0] = (int16_t)(3 * crNear[l] + crFar[l]);
        sb[n + 1] = (int16_t)(3 * cbNear[r] + cbFar[r]);
        sr[n + 1] = (int16_t)(3 * crNear[r] + crFar[r]);
        const uint32_t x0 = 2 * c0, m = width - x0 < 2 * n ? width - x0 : 2 * n;
        uint32_t k = 0;
        for (; k + 16 <= m; k += 16) {   // sixteen pixels: eight chroma samples
            const uint32_t j = k / 2;
            i16x8 bl, bm, br, cl, cm, cr;
            __builtin_memcpy(&bl, sb + j, 16);
            __builtin_memcpy(&bm, sb + j + 1, 16);
            __builtin_memcpy(&br, sb + j + 2, 16);
            __builtin_memcpy(&cl, sr + j, 16);
            __builtin_memcpy(&cm, sr + j + 1, 16);
            __builtin_memcpy(&cr, sr + j + 2, 16);
            yc_v_u8 l8;
            __builtin_memcpy(&l8, y + x0 + k, 16);
            const size_t at = x0 + k;
            YC_BODY_NAME(ycc_pixels)(__builtin_convertvector(l8, yc_v_i32), YC_BODY_NAME(ycc_along)(bl, bm, br),
                                     YC_BODY_NAME(ycc_along)(cl, cm, cr), 16, rgbx ? rgbx + 4 * at : NULL,
                                     rgbx ? NULL : pr + at, rgbx ? NULL : pg + at, rgbx ? NULL : pb + at);
        }
        if (k < m) {   // the last few pixels, through a vector's worth of copies
            const uint32_t j = k / 2, left = m - k;
            int16_t tb[10] = {0}, tr[10] = {0};
            for (uint32_t i = 0; i < (left + 1) / 2 + 2; i++) tb[i] = sb[j + i], tr[i] = sr[j + i];
            i16x8 bl, bm, br, cl, cm, cr;
            __builtin_memcpy(&bl, tb, 16);
            __builtin_memcpy(&bm, tb + 1, 16);
            __builtin_memcpy(&br, tb + 2, 16);
            __builtin_memcpy(&cl, tr, 16);
            __builtin_memcpy(&cm, tr + 1, 16);
            __builtin_memcpy(&cr, tr + 2, 16);
            yc_v_u8 l8 = {};
            __builtin_memcpy(&l8, y + x0 + k, left);
            const size_t at = x0 + k;
            YC_BODY_NAME(ycc_pixels)(__builtin_convertvector(l8, yc_v_i32), YC_BODY_NAME(ycc_along)(bl, bm, br),
                                     YC_BODY_NAME(ycc_along)(cl, cm, cr), left, rgbx ? rgbx + 4 * at : NULL,
                                     rgbx ? NULL : pr + at, rgbx ? NULL : pg + at, rgbx ? NULL : pb + at);
        }
    }
}

static YC_BODY_TARGET void YC_BODY_NAME(ycc420_row)(const uint8_t *y, const uint8_t *cbNear, const uint8_t *cbFar,
                                                    const uint8_t *crNear, const uint8_t *crFar, uint32_t width,
                                                    uint8_t *rgbx) {
    YC_BODY_NAME(ycc420_any)(y, cbNear, cbFar, crNear, crFar, width, rgbx, NULL, NULL, NULL);
}

static YC_BODY_TARGET void YC_BODY_NAME(ycc420_planar_row)(const uint8_t *y, const uint8_t *cbNear, const uint8_t *cbFar,
                                                           const uint8_t *crNear, const uint8_t *crFar, uint32_t width,
                                                           uint8_t *pr, uint8_t *pg, uint8_t *pb) {
    YC_BODY_NAME(ycc420_any)(y, cbNear, cbFar, crNear, crFar, width, NULL, pr, pg, pb);
}

#undef YC_BODY_TIER
#undef YC_BODY_TARGET
#undef YC_BODY_NAME
