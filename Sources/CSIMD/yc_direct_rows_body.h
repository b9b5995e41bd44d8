// The JPEG direct path's rows (YUVCore's `DirectRowPlan` documents the arithmetic and proves its ranges):
// the body yc_direct_rows.c includes once per tier, as yc_rgba_rows.c does. Every output is ⌊N/d⌋ for a
// whole N = c + wb·b + wr·r (+ wy·Y) whose partial sums stay below 2^53, so N is exact in a double (fused
// or not: every product and sum is a whole number a double holds). The estimate e = round(N·(1/d)) is the
// quotient or one more (the product errs by less than 10⁻¹³ on values below 2^9), and the sign of the exact
// remainder N − e·d says which: the same bytes on every tier by construction.
#include "yc_vec.h"

#define N_(n) YC_BODY_NAME(direct_##n)

YC_INLINE YC_BODY_TARGET yc_v_u8 N_(load16)(const uint8_t *p) {
    yc_v_u8 r;
    __builtin_memcpy(&r, p, sizeof r);
    return r;
}

YC_INLINE YC_BODY_TARGET yc_v_i32 N_(widen)(const uint8_t *p) { return __builtin_convertvector(N_(load16)(p), yc_v_i32); }

YC_INLINE YC_BODY_TARGET yc_v_f64 N_(dbl)(yc_v_i32 a) { return __builtin_convertvector(a, yc_v_f64); }

/// c + wb·b + wr·r, exact.
YC_INLINE YC_BODY_TARGET yc_v_f64 N_(affine)(const yc_quotient *q, yc_v_f64 b, yc_v_f64 r) {
    return q->c + q->wb * b + q->wr * r;
}

/// ⌊n/d⌋ of sixteen exact numerators as 32-bit lanes, without branches.
YC_INLINE YC_BODY_TARGET yc_v_i32 N_(quotient)(yc_v_f64 n, const yc_quotient *q) {
    // 1.5·2^52 added: a double whose unit is 1, whose low 32 bits are the whole value (two's complement).
    const double magic = 6755399441055744.0;
    const yc_v_f64 t = n * q->inv + magic;
    const yc_v_f64 rem = n - (t - magic) * q->d;
    const yc_v_i64 e = (yc_v_i64)t + ((yc_v_i64)rem >> 63);        // one less where the remainder is negative
    return __builtin_convertvector(e, yc_v_i32);
}

/// Each lane (within ±2^30) clamped to 0…255.
YC_INLINE YC_BODY_TARGET yc_v_i32 N_(clamp8)(yc_v_i32 a) {
    const yc_v_i32 low = a & ~(a >> 31);                             // negatives → 0
    return (low | ((255 - low) >> 31)) & 255;                        // above 255 → 255
}

YC_INLINE YC_BODY_TARGET void N_(store8)(uint8_t *p, yc_v_i32 a) {
    const yc_v_u8 b = __builtin_convertvector(a, yc_v_u8);
    __builtin_memcpy(p, &b, 16);
}

/// Sixteen U and V values (0…255) at chroma sample `c`: interleaved into `uv`, or into `u` and `v`.
YC_INLINE YC_BODY_TARGET void N_(store_chroma)(yc_v_i32 ou, yc_v_i32 ov, long c, uint8_t *u, uint8_t *v, uint8_t *uv,
                                               const int nv12) {
    if (nv12) {
        const yc_v_u16 w = __builtin_convertvector(ou | (ov << 8), yc_v_u16);
        __builtin_memcpy(uv + 2 * c, &w, 32);
    } else {
        N_(store8)(u + c, ou);
        N_(store8)(v + c, ov);
    }
}

/// One row's 32 pixels under the step's sixteen chroma samples: even and odd pixels apart (the low and
/// high bytes of 16-bit words), converted, and woven back.
YC_INLINE YC_BODY_TARGET void N_(luma_row)(const uint8_t *src, uint8_t *dst, yc_v_i32 offset, yc_v_f64 base,
                                           const yc_direct_plan *p, const int full) {
    yc_v_i32 w;
    {
        yc_v_u16 h;
        __builtin_memcpy(&h, src, 32);
        w = __builtin_convertvector(h, yc_v_i32);
    }
    const yc_v_i32 e = w & 0xFF, o = w >> 8;
    yc_v_i32 oe, oo;
    if (full) {
        oe = e + offset;
        oo = o + offset;
    } else {
        oe = N_(quotient)(base + p->wy * N_(dbl)(e), &p->luma_limited);
        oo = N_(quotient)(base + p->wy * N_(dbl)(o), &p->luma_limited);
    }
    const yc_v_u16 packed = __builtin_convertvector(N_(clamp8)(oe) | (N_(clamp8)(oo) << 8), yc_v_u16);
    __builtin_memcpy(dst, &packed, 32);
}

YC_INLINE YC_BODY_TARGET void N_(loop420)(const uint8_t *y0In, const uint8_t *y1In, const uint8_t *cb,
                                          const uint8_t *cr, uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v,
                                          uint8_t *uv, long count, const yc_direct_plan *p, const int full,
                                          const int nv12) {
    for (long c = 0; c < count; c += YC_DIRECT_STEP) {
        const yc_v_i32 cbC = N_(widen)(cb + c + 1), crC = N_(widen)(cr + c + 1);
        const yc_v_f64 cbD = N_(dbl)(cbC), crD = N_(dbl)(crC);
        // Luma: the pixel's own (unfiltered) chroma sample.
        yc_v_i32 offset = {};
        yc_v_f64 base = {};
        if (full) {
            offset = N_(quotient)(N_(affine)(&p->luma_offset, cbD, crD), &p->luma_offset);
        } else {
            base = N_(affine)(&p->luma_limited, cbD, crD);
        }
        N_(luma_row)(y0In + 2 * c, y0 + 2 * c, offset, base, p, full);
        if (y1) N_(luma_row)(y1In + 2 * c, y1 + 2 * c, offset, base, p, full);
        // Chroma: the [1 6 1] sums along the row.
        const yc_v_f64 b = N_(dbl)(N_(widen)(cb + c) + 6 * cbC + N_(widen)(cb + c + 2));
        const yc_v_f64 r = N_(dbl)(N_(widen)(cr + c) + 6 * crC + N_(widen)(cr + c + 2));
        N_(store_chroma)(N_(clamp8)(N_(quotient)(N_(affine)(&p->u, b, r), &p->u)),
                         N_(clamp8)(N_(quotient)(N_(affine)(&p->v, b, r), &p->v)), c, u, v, uv, nv12);
    }
}

static YC_BODY_TARGET void YC_BODY_NAME(direct420)(const uint8_t *y0In, const uint8_t *y1In, const uint8_t *cb,
                                                   const uint8_t *cr, uint8_t *y0, uint8_t *y1, uint8_t *u,
                                                   uint8_t *v, uint8_t *uv, long count, const yc_direct_plan *p) {
    if (p->full) {
        if (uv) N_(loop420)(y0In, y1In, cb, cr, y0, y1, u, v, uv, count, p, 1, 1);
        else N_(loop420)(y0In, y1In, cb, cr, y0, y1, u, v, uv, count, p, 1, 0);
    } else {
        if (uv) N_(loop420)(y0In, y1In, cb, cr, y0, y1, u, v, uv, count, p, 0, 1);
        else N_(loop420)(y0In, y1In, cb, cr, y0, y1, u, v, uv, count, p, 0, 0);
    }
}

YC_INLINE YC_BODY_TARGET void N_(luma_loop)(const uint8_t *src, const uint8_t *cb, const uint8_t *cr, uint8_t *dst,
                                              long count, const yc_direct_plan *p, const int full) {
    for (long x = 0; x < count; x += 16) {
        const yc_v_i32 y = N_(widen)(src + x);
        const yc_v_f64 b = N_(dbl)(N_(widen)(cb + x)), r = N_(dbl)(N_(widen)(cr + x));
        yc_v_i32 out;
        if (full) {
            out = y + N_(quotient)(N_(affine)(&p->luma_offset, b, r), &p->luma_offset);
        } else {
            out = N_(quotient)(N_(affine)(&p->luma_limited, b, r) + p->wy * N_(dbl)(y), &p->luma_limited);
        }
        N_(store8)(dst + x, N_(clamp8)(out));
    }
}

static YC_BODY_TARGET void YC_BODY_NAME(direct_luma)(const uint8_t *src, const uint8_t *cb, const uint8_t *cr,
                                                     uint8_t *dst, long count, const yc_direct_plan *p) {
    if (p->full) N_(luma_loop)(src, cb, cr, dst, count, p, 1);
    else N_(luma_loop)(src, cb, cr, dst, count, p, 0);
}

/// Sixteen sums of horizontal pixel pairs of two rows (each pair a 16-bit word: low + high byte).
YC_INLINE YC_BODY_TARGET yc_v_i32 N_(pair_sums)(const uint8_t *a, const uint8_t *b) {
    yc_v_u16 p, q;
    __builtin_memcpy(&p, a, 32);
    __builtin_memcpy(&q, b, 32);
    const yc_v_i32 x = __builtin_convertvector(p, yc_v_i32), y = __builtin_convertvector(q, yc_v_i32);
    return (x & 0xFF) + (x >> 8) + (y & 0xFF) + (y >> 8);
}

YC_INLINE YC_BODY_TARGET void N_(quad_loop)(const uint8_t *cb0, const uint8_t *cr0, const uint8_t *cb1, const uint8_t *cr1,
                                       uint8_t *u, uint8_t *v, uint8_t *uv, long count, const yc_direct_plan *p,
                                       const int nv12) {
    for (long c = 0; c < count; c += YC_DIRECT_STEP) {
        const yc_v_f64 b = N_(dbl)(N_(pair_sums)(cb0 + 2 * c, cb1 + 2 * c));
        const yc_v_f64 r = N_(dbl)(N_(pair_sums)(cr0 + 2 * c, cr1 + 2 * c));
        N_(store_chroma)(N_(clamp8)(N_(quotient)(N_(affine)(&p->u4, b, r), &p->u4)),
                         N_(clamp8)(N_(quotient)(N_(affine)(&p->v4, b, r), &p->v4)), c, u, v, uv, nv12);
    }
}

static YC_BODY_TARGET void YC_BODY_NAME(direct_quad)(const uint8_t *cb0, const uint8_t *cr0, const uint8_t *cb1,
                                                     const uint8_t *cr1, uint8_t *u, uint8_t *v, uint8_t *uv,
                                                     long count, const yc_direct_plan *p) {
    if (uv) N_(quad_loop)(cb0, cr0, cb1, cr1, u, v, uv, count, p, 1);
    else N_(quad_loop)(cb0, cr0, cb1, cr1, u, v, uv, count, p, 0);
}

/// Test hook: output Cb and Cr of sixteen (Cb sum, Cr sum) pairs through the rows' own arithmetic, with
/// the [1 6 1] constants (`four` 0) or the four-pixel ones.
static YC_BODY_TARGET void YC_BODY_NAME(direct_values)(const int32_t *bs, const int32_t *rs, int four, uint8_t *u,
                                                       uint8_t *v, const yc_direct_plan *p) {
    yc_v_i32 bi, ri;
    __builtin_memcpy(&bi, bs, sizeof bi);
    __builtin_memcpy(&ri, rs, sizeof ri);
    const yc_v_f64 b = N_(dbl)(bi), r = N_(dbl)(ri);
    const yc_quotient *qu = four ? &p->u4 : &p->u, *qv = four ? &p->v4 : &p->v;
    N_(store8)(u, N_(clamp8)(N_(quotient)(N_(affine)(qu, b, r), qu)));
    N_(store8)(v, N_(clamp8)(N_(quotient)(N_(affine)(qv, b, r), qv)));
}

#undef N_
#undef YC_BODY_TIER
#undef YC_BODY_TARGET
#undef YC_BODY_NAME
