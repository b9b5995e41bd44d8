// Colour management, the transforms (yc_colour.h): the fast path's tables for 8-bit rows between matrix/TRC
// profiles, LittleCMS's transforms for everything else and as the reference, and a CMYK JPEG's transform. What
// the source is, in yc_colour_profiles.c; the plan, in yc_colour_plan.c.
#include "yc_colour_internal.h"
#include "yc_colour_rows.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The fast path for 8-bit rows between two matrix/TRC profiles (P3, Adobe RGB, sRGB, cHRM/gAMA: nearly
// every tagged photo): each source code's linear value from a table, one 3×3 matrix (the source's colorants
// into the target's), then the output code as the count of the target curve's half-code thresholds at or
// below the linear value. A table of 2,050 buckets (128 per octave: yc_colour_rows.h) holds, per bucket, the
// code at its start and the next threshold, and no bucket holds two thresholds, so one load and one
// comparison give the code. That is
// round-half-up of the exact encoding, as the double-precision reference computes it, but for values within
// float rounding (~1e-7) of a threshold. LittleCMS's own 8-bit transform is faster still but drifts by one
// on 1–4% of samples (measured on P3 and Adobe RGB photos).
// The tables and their row (yc_colour_rows.h) live in CSIMD, compiled once per CPU tier.

struct yc_colour_transform {
    cmsHTRANSFORM t;
    yc_rows rows;
    int reference;
    double *row;   // the reference's double row
    uint32_t row_width;
    yc_colour_tables *fast;
    int memo;      // 8-bit rows through LittleCMS (`t` takes packed RGB): remembered per colour (memo_rows)
};

int yc_colour_colorants(cmsHPROFILE p, double m[9]) {
    const cmsSignature tags[3] = {cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag};
    for (int c = 0; c < 3; c++) {
        const cmsCIEXYZ *xyz = cmsReadTag(p, tags[c]);
        if (!xyz) return 0;
        m[c] = xyz->X; m[3 + c] = xyz->Y; m[6 + c] = xyz->Z;
    }
    return 1;
}

static int invert3(const double a[9], double r[9]) {
    double d = a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) + a[2] * (a[3] * a[7] - a[4] * a[6]);
    if (fabs(d) < 1e-12) return 0;
    r[0] = (a[4] * a[8] - a[5] * a[7]) / d; r[1] = (a[2] * a[7] - a[1] * a[8]) / d; r[2] = (a[1] * a[5] - a[2] * a[4]) / d;
    r[3] = (a[5] * a[6] - a[3] * a[8]) / d; r[4] = (a[0] * a[8] - a[2] * a[6]) / d; r[5] = (a[2] * a[3] - a[0] * a[5]) / d;
    r[6] = (a[3] * a[7] - a[4] * a[6]) / d; r[7] = (a[1] * a[6] - a[0] * a[7]) / d; r[8] = (a[0] * a[4] - a[1] * a[3]) / d;
    return 1;
}

// The fast path's tables, or NULL when a profile is not a plain matrix/TRC one (LUT-based profiles go
// through LittleCMS).
static yc_colour_tables *fast8_create(cmsHPROFILE src, cmsHPROFILE dst) {
    if (!cmsIsMatrixShaper(src) || !cmsIsMatrixShaper(dst)) return NULL;
    if (yc_colour_has_device_lut(src) || cmsIsCLUT(dst, INTENT_RELATIVE_COLORIMETRIC, LCMS_USED_AS_OUTPUT)) return NULL;
    double ms[9], md[9], mi[9];
    if (!yc_colour_colorants(src, ms) || !yc_colour_colorants(dst, md) || !invert3(md, mi)) return NULL;
    const cmsSignature trc[3] = {cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag};
    yc_colour_tables *f = calloc(1, sizeof *f);
    // Refused: the file fails as out of memory (yc_fail_if_lcms_refused), never converted through LittleCMS's
    // pipeline instead, whose bytes differ by one on a few samples.
    if (!f) {
        yc_lcms_note_refusal(sizeof *f);
        return NULL;
    }
    double m[9];
    int identity = 1;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            m[3 * i + j] = mi[3 * i] * ms[j] + mi[3 * i + 1] * ms[3 + j] + mi[3 * i + 2] * ms[6 + j];
            // LittleCMS joins the source's matrix and the target's inverse into this one product and drops it
            // when every entry is within 10⁻⁵ (as a float) of the identity's (cmsopt.c, _MultiplyMatrix and
            // isFloatMatrixIdentity, run whatever the flags) — as it is between a profile and the target of
            // the same primaries, whose colorants differ only by their 16-bit fractions in the file. The
            // reference then maps each channel through its curves alone; so does this table.
            if (!(fabs(m[3 * i + j] - (i == j ? 1.0 : 0.0)) < (double)0.00001f)) identity = 0;
        }
    for (int i = 0; i < 9; i++) f->m[i] = identity ? (float)(i % 4 == 0) : (float)m[i];
    for (int i = 0; i < 9; i++)
        if (!isfinite(f->m[i])) { free(f); return NULL; }
    float thr[256];
    for (int c = 0; c < 3; c++) {
        cmsToneCurve *in = cmsReadTag(src, trc[c]), *out = cmsReadTag(dst, trc[c]);
        if (!in || !out) { free(f); return NULL; }
        for (int v = 0; v < 256; v++) f->lin[c][v] = cmsEvalToneCurveFloat(in, v / 255.0f);
        // thr[k]: the linear value where code k+1 begins (k = 255: never).
        for (int k = 0; k < 255; k++) thr[k] = cmsEvalToneCurveFloat(out, (k + 0.5f) / 255.0f);
        thr[255] = INFINITY;
        // A crafted curve (a negative gamma, say) gives infinities, NaNs or thresholds out of order, which the
        // tables cannot hold: LittleCMS's own transform takes such profiles.
        for (int v = 0; v < 256; v++)
            if (!isfinite(f->lin[c][v])) { free(f); return NULL; }
        for (int k = 0; k < 255; k++)
            if (!isfinite(thr[k]) || (k > 0 && thr[k] < thr[k - 1])) { free(f); return NULL; }
        int k = 0;
        for (int b = 0; b <= YC_COLOUR_BUCKETS; b++) {
            float l = yc_colour_bucket_start(b), end = b < YC_COLOUR_BUCKETS ? yc_colour_bucket_start(b + 1) : INFINITY;
            while (k < 255 && l >= thr[k]) k++;
            // A second threshold inside the bucket, or one in bucket 0 (whose floats span many octaves): this
            // curve is too steep for the table (LittleCMS's own transform is used instead).
            if ((k < 254 && thr[k + 1] < end) || (b == 0 && thr[k] < end)) { free(f); return NULL; }
            // Where the next code begins, as the low bits of its float when it is in this bucket's group of
            // floats (the last bucket's values are exactly 1, below any threshold past it); else never.
            uint32_t low = YC_COLOUR_LOW + 1, tb, sb;
            memcpy(&tb, &thr[k], 4);
            memcpy(&sb, &l, 4);
            if (thr[k] < end && tb >> YC_COLOUR_SHIFT == sb >> YC_COLOUR_SHIFT) low = tb & YC_COLOUR_LOW;
            f->cell[c][b] = YC_COLOUR_CELL(k, low);
        }
    }
    yc_colour_products(f);
    return f;
}

yc_colour_transform *yc_colour_transform_create(const yc_colour *colour, yc_target target, yc_rows rows, int reference) {
    char name[128] = {0}, why[1664];
    int srgb;
    cmsHPROFILE src = yc_colour_source_profile(colour, target, name, sizeof name, &srgb, why, sizeof why);
    if (!src) return NULL;
    cmsHPROFILE dst = yc_colour_target_profile(target);
    yc_colour_transform *x = calloc(1, sizeof *x);
    // Refused: the file fails as out of memory (yc_fail_if_lcms_refused), never converted without its profile.
    if (!x) yc_lcms_note_refusal(sizeof *x);
    if (dst && x && !reference && (rows == YC_ROWS_RGB8 || rows == YC_ROWS_RGBA8)) x->fast = fast8_create(src, dst);
    if (dst && x && x->fast) {
        x->rows = rows;
    } else if (dst && x) {
        static const cmsUInt32Number formats[4] = {TYPE_RGB_8, TYPE_RGBA_8, TYPE_RGB_16, TYPE_RGBA_16};
        // 8-bit rows go through a table of the colours already transformed (memo_rows).
        x->memo = !reference && (rows == YC_ROWS_RGB8 || rows == YC_ROWS_RGBA8);
        cmsUInt32Number f = reference ? TYPE_RGB_DBL : formats[rows];
        // Unoptimised, always: LittleCMS's optimised pipelines miss its own double-precision transform — the
        // 16-bit matrix-shaper shortcut (1.14 fixed point) by up to 15 8-bit code values on dark colours, the
        // 8-bit one by up to 255 on a crafted curve the fast path refuses. The full pipeline, evaluated per
        // pixel, is within 1 (ColourManagementTests), about 4x slower; only 16-bit rows and profiles the fast
        // path cannot take come here.
        cmsUInt32Number flags = cmsFLAGS_NOOPTIMIZE;
        if (!reference && (rows == YC_ROWS_RGBA8 || rows == YC_ROWS_RGBA16)) flags |= cmsFLAGS_COPY_ALPHA;
        // No 1-pixel cache: the decoding thread and the colour stage may transform bands of it at once.
        if (!reference) flags |= cmsFLAGS_NOCACHE;
        x->t = cmsCreateTransformTHR(yc_lcms_context(), src, f, dst, f, INTENT_RELATIVE_COLORIMETRIC, flags);
        x->rows = rows;
        x->reference = reference;
    }
    if (dst) cmsCloseProfile(dst);
    cmsCloseProfile(src);
    if (x && !x->t && !x->fast) {
        free(x);
        return NULL;
    }
    return x;
}

// LittleCMS's general pipeline costs about 200 ns a pixel (a LUT profile's 12 MP photo took 2.5 s, a CMYK one
// 3.3 s), and a photo has far fewer colours than pixels: 8-bit pixels are looked up in a table of the colours
// already transformed (2^16 slots, one colour each, by a multiplicative hash of the samples; a colour that meets
// another in its slot replaces it), and only the misses — packed, one call a row — go through LittleCMS. A miss
// takes its slot at once, marked pending with its place among the row's misses, so its repeats in the row wait
// for the same result. Each pixel's value is LittleCMS's for that colour (the transform keeps no state between
// pixels but its one-pixel cache, which only repeats a result), so the bytes are those of the plain transform.
// Photos: about 15% of a 12 MP photo's pixels miss (35% with film grain). Without memory for it, or where nearly
// every pixel misses (memo_futile), the plain transform.
#define YC_MEMO_BITS 16
#define YC_MEMO_SPAN 16384u   // pixels a call of memo_row takes: its buffers stay small on the widest rows
#define YC_MEMO_FILLED 0x40000000u    // the slot holds a colour
#define YC_MEMO_PENDING 0x80000000u   // … whose result is the row's miss number (the low bits)

typedef struct {
    uint32_t key;     // the source's samples, little-endian (3 or 4 bytes)
    uint32_t value;   // YC_MEMO_FILLED | the result's R | G << 8 | B << 16, or YC_MEMO_FILLED | YC_MEMO_PENDING | miss
} yc_memo_slot;

typedef struct {
    yc_memo_slot *slots;
    uint8_t *in, *out;   // a row's misses, in the transform's input and output formats
    uint32_t *wait;      // per pixel of the row: its miss number, or UINT32_MAX when looked up
    uint32_t width;
} yc_memo;

static void memo_free(yc_memo *m) {
    free(m->slots);
    free(m->in);
    free(m->out);
    free(m->wait);
    memset(m, 0, sizeof *m);
}

/// Room for rows of `width` pixels of `in_step` and `out_step` bytes; 0 without memory.
static int memo_room(yc_memo *m, uint32_t width, int in_step, int out_step) {
    if (width > YC_MEMO_SPAN) width = YC_MEMO_SPAN;   // rows are taken a span at a time (memo_span)
    if (!m->slots && !(m->slots = calloc((size_t)1 << YC_MEMO_BITS, sizeof *m->slots))) return 0;
    if (m->width >= width) return 1;
    free(m->in);
    free(m->out);
    free(m->wait);
    m->in = malloc((size_t)width * (size_t)in_step);
    m->out = malloc((size_t)width * (size_t)out_step);
    m->wait = malloc((size_t)width * sizeof *m->wait);
    m->width = m->in && m->out && m->wait ? width : 0;
    return m->width != 0;
}

static inline uint32_t memo_key(const uint8_t *p, int key_bytes) {
    uint32_t k = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
    return key_bytes == 4 ? k | (uint32_t)p[3] << 24 : k;
}

static inline yc_memo_slot *memo_slot(yc_memo *m, uint32_t key) { return &m->slots[(key * 0x9E3779B1u) >> (32 - YC_MEMO_BITS)]; }

/// One row: `in` (pixels of `in_step` bytes, the first `key_bytes` the colour) transformed to `out` (pixels of
/// `out_step` bytes, R, G, B written; may be `in` itself when the steps are equal). Returns the misses.
static uint32_t memo_row(yc_memo *m, cmsHTRANSFORM t, const uint8_t *in, int in_step, int key_bytes, uint8_t *out,
                     int out_step, uint32_t width) {
    uint32_t n = 0;
    for (uint32_t p = 0; p < width; p++) {
        const uint8_t *px = in + (size_t)in_step * p;
        const uint32_t key = memo_key(px, key_bytes);
        yc_memo_slot *s = memo_slot(m, key);
        if (s->key == key && (s->value & YC_MEMO_FILLED)) {
            if (s->value & YC_MEMO_PENDING) {
                m->wait[p] = s->value & 0x3FFFFFFFu;
            } else {
                uint8_t *o = out + (size_t)out_step * p;
                o[0] = (uint8_t)s->value;
                o[1] = (uint8_t)(s->value >> 8);
                o[2] = (uint8_t)(s->value >> 16);
                m->wait[p] = UINT32_MAX;
            }
            continue;
        }
        memcpy(m->in + (size_t)in_step * n, px, (size_t)in_step);
        s->key = key;
        s->value = YC_MEMO_FILLED | YC_MEMO_PENDING | n;
        m->wait[p] = n++;
    }
    if (n == 0) return 0;
    cmsDoTransform(t, m->in, m->out, n);
    for (uint32_t p = 0; p < width; p++) {
        const uint32_t w = m->wait[p];
        if (w == UINT32_MAX) continue;
        const uint8_t *r = m->out + (size_t)out_step * w;
        const uint32_t value = (uint32_t)r[0] | (uint32_t)r[1] << 8 | (uint32_t)r[2] << 16;
        // The miss itself (its slot still pending on it: not taken by another colour since) fills its slot.
        yc_memo_slot *s = memo_slot(m, memo_key(m->in + (size_t)in_step * w, key_bytes));
        if (s->value == (YC_MEMO_FILLED | YC_MEMO_PENDING | w)) s->value = YC_MEMO_FILLED | value;
        uint8_t *o = out + (size_t)out_step * p;
        o[0] = r[0];
        o[1] = r[1];
        o[2] = r[2];
    }
    return n;
}

/// A row of any width, a span at a time (YC_MEMO_SPAN pixels: the buffers' size). Returns the misses.
static uint64_t memo_span(yc_memo *m, cmsHTRANSFORM t, const uint8_t *in, int in_step, int key_bytes, uint8_t *out,
                          int out_step, uint32_t width) {
    uint64_t misses = 0;
    for (uint64_t at = 0; at < width; at += YC_MEMO_SPAN) {
        const uint32_t n = width - at < YC_MEMO_SPAN ? (uint32_t)(width - at) : YC_MEMO_SPAN;
        misses += memo_row(m, t, in + (size_t)in_step * at, in_step, key_bytes, out + (size_t)out_step * at, out_step, n);
    }
    return misses;
}

/// Whether the table is not worth its lookups: after a few rows, nine pixels in ten missed it (noise, where
/// every pixel is a colour of its own: the lookups added 12% to LittleCMS's time on a 12 MP noise picture).
static int memo_futile(uint64_t misses, uint64_t pixels, uint32_t width) {
    return pixels >= 4 * (uint64_t)width && misses * 10 > pixels * 9;
}

static void plain_rows(yc_colour_transform *x, void *rows, size_t stride, uint32_t width, uint32_t count) {
    for (uint32_t i = 0; i < count; i++) cmsDoTransform(x->t, (uint8_t *)rows + i * stride, (uint8_t *)rows + i * stride, width);
}

/// 8-bit RGB or RGBA rows in place through the table; 0 without memory for it. The table is the call's own,
/// so threads transforming bands of one picture at once share nothing.
static int memo_rows(yc_colour_transform *x, uint8_t *rows, size_t stride, uint32_t width, uint32_t count) {
    const int step = x->rows == YC_ROWS_RGBA8 ? 4 : 3;
    yc_memo m = {0};
    if (!memo_room(&m, width, step, step)) {
        memo_free(&m);
        return 0;
    }
    uint64_t misses = 0, pixels = 0;
    uint32_t i = 0;
    for (; i < count && !memo_futile(misses, pixels, width); i++) {
        misses += memo_span(&m, x->t, rows + i * stride, step, 3, rows + i * stride, step, width);
        pixels += width;
    }
    memo_free(&m);
    if (i < count) plain_rows(x, rows + i * stride, stride, width, count - i);
    return 1;
}

void yc_colour_transform_apply_plain(yc_colour_transform *x, void *rows, size_t stride, uint32_t width, uint32_t count) {
    if (x->fast || x->reference) yc_colour_transform_apply(x, rows, stride, width, count);
    else plain_rows(x, rows, stride, width, count);
}

void yc_colour_transform_apply(yc_colour_transform *x, void *rows, size_t stride, uint32_t width, uint32_t count) {
    if (x->fast) {
        for (uint32_t i = 0; i < count; i++) yc_colour_rows(x->fast, (uint8_t *)rows + i * stride, width, x->rows == YC_ROWS_RGBA8 ? 4 : 3);
        return;
    }
    if (!x->reference) {
        if (!x->memo || !memo_rows(x, rows, stride, width, count)) plain_rows(x, rows, stride, width, count);
        return;
    }
    if (x->row_width < width) {
        free(x->row);
        x->row = malloc(sizeof(double) * 3 * width);
        x->row_width = x->row ? width : 0;
        if (!x->row) return;
    }
    int wide = x->rows == YC_ROWS_RGB16 || x->rows == YC_ROWS_RGBA16;
    int step = x->rows == YC_ROWS_RGBA8 || x->rows == YC_ROWS_RGBA16 ? 4 : 3;
    double top = wide ? 65535 : 255;
    for (uint32_t i = 0; i < count; i++) {
        uint8_t *r8 = (uint8_t *)rows + i * stride;
        uint16_t *r16 = (uint16_t *)r8;
        for (uint32_t p = 0; p < width; p++)
            for (int k = 0; k < 3; k++) x->row[3 * p + k] = (wide ? r16[step * p + k] : r8[step * p + k]) / top;
        cmsDoTransform(x->t, x->row, x->row, width);
        for (uint32_t p = 0; p < width; p++)
            for (int k = 0; k < 3; k++) {
                double v = floor(x->row[3 * p + k] * top + 0.5);   // rounded half up, clamped
                v = v < 0 ? 0 : v > top ? top : v;
                if (wide) r16[step * p + k] = (uint16_t)v;
                else r8[step * p + k] = (uint8_t)v;
            }
    }
}

int yc_colour_transform_is_concurrent(const yc_colour_transform *x) { return x->fast != NULL || !x->reference; }

void yc_colour_transform_free(yc_colour_transform *x) {
    if (!x) return;
    if (x->t) cmsDeleteTransform(x->t);
    free(x->fast);
    free(x->row);
    free(x);
}

/// A CMYK JPEG's transform (yc_colour_cmyk_create) and its table of colours.
typedef struct {
    cmsHTRANSFORM t;
    yc_memo table;
    uint64_t misses, pixels;   // the table's so far (memo_futile)
    int memo;   // look colours up (the default); 0: LittleCMS on every pixel (yc_colour_cmyk_plain, for tests)
} yc_cmyk;

void *yc_colour_cmyk_create(const yc_colour *colour, yc_target target, char *text, size_t text_size) {
    if (!colour->icc) return NULL;
    char why[160];
    if (!yc_icc_within_limits(colour->icc, colour->icc_length, why, sizeof why)) {
        snprintf(text, text_size, "%s; colours converted without it", why);
        return NULL;
    }
    cmsHPROFILE src = cmsOpenProfileFromMemTHR(yc_lcms_context(), colour->icc, (cmsUInt32Number)colour->icc_length);
    if (!src) return NULL;
    if (cmsGetColorSpace(src) != cmsSigCmykData) {
        cmsCloseProfile(src);
        return NULL;
    }
    char name[128] = {0};
    yc_colour_profile_name(src, name, sizeof name);
    cmsHPROFILE dst = yc_colour_target_profile(target);
    // Unoptimised, as every transform outside the RGB fast path: LittleCMS's optimised 8-bit CMYK pipeline
    // (a precalculated grid) was up to 5 code values off its double-precision transform on a real SWOP photo
    // and 19–28 on other CMYK profiles; this one equals it (ColourManagementTests). The decoder's thread alone
    // runs it, so its one-pixel cache stays.
    cmsHTRANSFORM t = dst ? cmsCreateTransformTHR(yc_lcms_context(), src, TYPE_CMYK_8_REV, dst, TYPE_RGBA_8, INTENT_RELATIVE_COLORIMETRIC,
                                               cmsFLAGS_NOOPTIMIZE)
                          : NULL;
    yc_cmyk *c = t ? calloc(1, sizeof *c) : NULL;
    if (c) {
        c->t = t;
        c->memo = 1;
    } else if (t) {
        // The transform's own state refused: the file fails as out of memory (yc_fail_if_lcms_refused), never a
        // picture converted without its profile because memory was short.
        yc_lcms_note_refusal(sizeof *c);
        cmsDeleteTransform(t);
        t = NULL;
    }
    if (t) snprintf(text, text_size, "%s (CMYK) → %s", name, yc_colour_target_name(target));
    else snprintf(text, text_size, "the embedded CMYK profile (%s) cannot be transformed; colours converted without it", name);
    if (dst) cmsCloseProfile(dst);
    cmsCloseProfile(src);
    return c;
}

void yc_colour_cmyk_apply(void *t, const uint8_t *cmyk, uint8_t *rgbx, uint32_t width) {
    yc_cmyk *c = t;
    // Rows through the table of colours (memo_row), kept from row to row: one thread decodes them.
    if (c->memo && !memo_futile(c->misses, c->pixels, width) && memo_room(&c->table, width, 4, 4)) {
        c->misses += memo_span(&c->table, c->t, cmyk, 4, 4, rgbx, 4, width);
        c->pixels += width;
    } else {
        cmsDoTransform(c->t, cmyk, rgbx, width);
    }
    for (uint32_t x = 0; x < width; x++) rgbx[4 * x + 3] = 0xFF;
}

void yc_colour_cmyk_plain(void *t, int plain) { ((yc_cmyk *)t)->memo = !plain; }

void yc_colour_cmyk_free(void *t) {
    yc_cmyk *c = t;
    if (!c) return;
    cmsDeleteTransform(c->t);
    memo_free(&c->table);
    free(c);
}
