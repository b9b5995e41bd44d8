// Colour management (yc_colour.h): the source's profile — an embedded ICC profile, else PNG sRGB, else PNG
// cHRM/gAMA, else EXIF's Adobe RGB hint — and LittleCMS 2 transforms to the target RGB space. In C because
// LittleCMS is a C library whose profiles and transforms are handles best kept on this side.
#include "yc_colour.h"
#include "yc_colour_rows.h"

#include <lcms2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// sRGB's (and BT.709's) white and primaries, x,y; Display P3's and BT.2020's primaries; Adobe RGB (1998)'s.
static const double srgb_xy[8] = {0.3127, 0.3290, 0.64, 0.33, 0.30, 0.60, 0.15, 0.06};
static const double p3_xy[6] = {0.680, 0.320, 0.265, 0.690, 0.150, 0.060};
static const double bt2020_xy[6] = {0.708, 0.292, 0.170, 0.797, 0.131, 0.046};
static const double adobe_xy[6] = {0.64, 0.33, 0.21, 0.71, 0.15, 0.06};

static cmsToneCurve *srgb_curve(void) {
    const double p[5] = {2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045};
    return cmsBuildParametricToneCurve(NULL, 4, p);
}

// An RGB matrix/TRC profile from a white point and primaries (x,y) and one curve for all three channels.
static cmsHPROFILE rgb_profile(double wx, double wy, const double *prim, cmsToneCurve *curve) {
    if (!curve) return NULL;
    cmsCIExyY white = {wx, wy, 1.0};
    cmsCIExyYTRIPLE p = {{prim[0], prim[1], 1.0}, {prim[2], prim[3], 1.0}, {prim[4], prim[5], 1.0}};
    cmsToneCurve *c[3] = {curve, curve, curve};
    cmsHPROFILE h = cmsCreateRGBProfile(&white, &p, c);
    cmsFreeToneCurve(curve);
    return h;
}

static int has_device_lut(cmsHPROFILE p);

static const double *target_primaries(yc_target t) {
    return t == YC_TARGET_P3 ? p3_xy : t == YC_TARGET_BT2020 ? bt2020_xy : srgb_xy + 2;
}

// A grey profile as the RGB one that does the same to grey samples (which a grey image's rows are, R = G = B):
// its tone curve on all three channels and the target's white and primaries, whose colorants (adapted to
// D50) sum to the PCS white, so R = G = B = v goes to curve(v)·D50 in XYZ — what LittleCMS makes of v through
// the grey profile when its PCS is XYZ. Then the grey source takes every route an RGB one takes: the fast
// path for 8-bit rows, LittleCMS for 16-bit ones and as the reference; and a grey profile with the target's
// curve is the target itself ("nothing to do", the JPEG direct path kept). NULL, with the reason in `why`, for
// a grey profile built on a LUT, one whose PCS is Lab (its curve is then L*, not Y), or one with no curve.
static cmsHPROFILE grey_as_rgb(cmsHPROFILE grey, yc_target target, const char *name, char *why, size_t why_size) {
    const cmsToneCurve *trc = cmsReadTag(grey, cmsSigGrayTRCTag);
    if (has_device_lut(grey)) snprintf(why, why_size, "the embedded grey ICC profile (%s) is built on a LUT", name);
    else if (cmsGetPCS(grey) != cmsSigXYZData)
        snprintf(why, why_size, "the embedded grey ICC profile (%s) connects through Lab, not XYZ", name);
    else if (!trc) snprintf(why, why_size, "the embedded grey ICC profile (%s) has no tone curve", name);
    else return rgb_profile(srgb_xy[0], srgb_xy[1], target_primaries(target), cmsDupToneCurve(trc));
    return NULL;
}

static const char *target_name(yc_target t) {
    return t == YC_TARGET_P3 ? "Display P3" : t == YC_TARGET_BT2020 ? "BT.2020" : "sRGB";
}

static cmsHPROFILE target_profile(yc_target t) {
    switch (t) {
    case YC_TARGET_P3: return rgb_profile(srgb_xy[0], srgb_xy[1], p3_xy, srgb_curve());
    case YC_TARGET_BT2020: return rgb_profile(srgb_xy[0], srgb_xy[1], bt2020_xy, srgb_curve());
    default: return cmsCreate_sRGBProfile();
    }
}

// A gAMA within libpng's sRGB tolerance of 1/2.2 (±5% of 2.2·gamma), and a cHRM within 0.0015 of sRGB's.
static int gamma_is_srgb(double g) { return fabs(g * 2.2 - 1) <= 0.05; }
static int chrm_is_srgb(const double *c) {
    for (int i = 0; i < 8; i++)
        if (fabs(c[i] - srgb_xy[i]) > 0.0015) return 0;
    return 1;
}

// The source's profile and its name, NULL when there is none (untagged, or what it has counts as sRGB:
// `*srgb` is then set), or when it is broken (`*broken`, with the reason in `why`).
static cmsHPROFILE source_profile(const yc_colour *c, yc_target target, char *name, size_t name_size, int *srgb, char *why,
                                  size_t why_size) {
    *srgb = 0;
    why[0] = 0;
    if (c->icc) {
        cmsHPROFILE p = cmsOpenProfileFromMem(c->icc, (cmsUInt32Number)c->icc_length);
        if (!p) {
            snprintf(why, why_size, "the embedded ICC profile cannot be read");
            return NULL;
        }
        const cmsColorSpaceSignature space = cmsGetColorSpace(p);
        // A CMYK image's CMYK profile is the decoder's (yc_colour_cmyk_create); any other kind cannot read
        // its samples (LittleCMS refuses such a transform).
        if (c->cmyk && space != cmsSigCmykData) {
            snprintf(why, why_size, "the embedded ICC profile is not a CMYK one, on a CMYK image");
            cmsCloseProfile(p);
            return NULL;
        }
        if (space == cmsSigGrayData && !c->grey) {
            snprintf(why, why_size, "the embedded ICC profile is a grey one on a colour image");
            cmsCloseProfile(p);
            return NULL;
        }
        if (space != cmsSigRgbData && space != cmsSigGrayData) {
            snprintf(why, why_size, "the embedded ICC profile is not an RGB or grey profile");
            cmsCloseProfile(p);
            return NULL;
        }
        if (cmsGetProfileInfoASCII(p, cmsInfoDescription, "en", "US", name, (cmsUInt32Number)name_size) == 0 || !name[0])
            snprintf(name, name_size, "ICC profile");
        if (space == cmsSigGrayData) {
            cmsHPROFILE rgb = grey_as_rgb(p, target, name, why, why_size);
            cmsCloseProfile(p);
            return rgb;
        }
        return p;
    }
    if (c->icc_broken) {
        snprintf(why, why_size, "the embedded ICC profile is incomplete (a segment is missing or repeated)");
        return NULL;
    }
    if (c->srgb) {
        *srgb = 1;
        return NULL;
    }
    if (c->has_chrm || c->has_gama) {
        if (c->has_gama && !(c->gama > 0.01 && c->gama < 100)) {
            snprintf(why, why_size, "the PNG's gAMA (%g) is not a usable gamma", c->gama);
            return NULL;
        }
        int g_srgb = !c->has_gama || gamma_is_srgb(c->gama), p_srgb = !c->has_chrm || chrm_is_srgb(c->chrm);
        if (g_srgb && p_srgb) {
            *srgb = 1;
            return NULL;
        }
        snprintf(name, name_size, "PNG %s%s%s", c->has_chrm ? "cHRM" : "", c->has_chrm && c->has_gama ? "+" : "",
                 c->has_gama ? "gAMA" : "");
        const double *w = c->has_chrm ? c->chrm : srgb_xy;
        const double *prim = c->has_chrm ? c->chrm + 2 : srgb_xy + 2;
        // gAMA is the encoding exponent: the curve that decodes is its inverse. Without one, the sRGB curve
        // (browsers' choice for a cHRM alone).
        cmsHPROFILE p = rgb_profile(w[0], w[1], prim, c->has_gama ? cmsBuildGamma(NULL, 1 / c->gama) : srgb_curve());
        if (!p) snprintf(why, why_size, "the PNG's cHRM does not make a colour space");
        return p;
    }
    if (c->exif_adobe_rgb) {
        snprintf(name, name_size, "Adobe RGB (EXIF)");
        return rgb_profile(srgb_xy[0], srgb_xy[1], adobe_xy, cmsBuildGamma(NULL, 563.0 / 256.0));
    }
    return NULL;
}

// The largest change (in 8-bit code values) `t` (double RGB) makes to a grid of colours — 16 levels a channel,
// every combination — and to every 8-bit level of grey and of each primary alone; infinite when any result
// is not a finite number (a crafted curve: such a profile is broken, not a colour space).
static double change_of(cmsHTRANSFORM t, double r, double g, double b, double worst) {
    double in[3] = {r, g, b}, out[3];
    cmsDoTransform(t, in, out, 1);
    for (int k = 0; k < 3; k++) {
        if (!isfinite(out[k])) return INFINITY;
        const double d = fabs(out[k] - in[k]) * 255;
        if (d > worst) worst = d;
    }
    return worst;
}

// Whether a matrix/TRC profile's curves are tone curves: finite at every 8-bit level, never falling by more
// than a code value (a measured curve may wobble), rising overall. A crafted curve (a negative gamma: infinite
// at 0, falling) makes LittleCMS's float and double pipelines disagree by whole ranges, so no transform of it
// is one to trust. Profiles without such curves (LUT-based ones) pass.
static int tone_curves_sane(cmsHPROFILE p) {
    if (!cmsIsMatrixShaper(p)) return 1;
    const cmsSignature trc[3] = {cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag};
    for (int c = 0; c < 3; c++) {
        cmsToneCurve *curve = cmsReadTag(p, trc[c]);
        if (!curve) continue;
        float last = -INFINITY;
        for (int v = 0; v < 256; v++) {
            const float y = cmsEvalToneCurveFloat(curve, v / 255.0f);
            if (!isfinite(y) || y < last - 1.0f / 255) return 0;
            last = y;
        }
        if (!(cmsEvalToneCurveFloat(curve, 1.0f) > cmsEvalToneCurveFloat(curve, 0.0f))) return 0;
    }
    return 1;
}

static double largest_change(cmsHTRANSFORM t) {
    double worst = 0;
    for (int r = 0; r < 16; r++)
        for (int g = 0; g < 16; g++)
            for (int b = 0; b < 16; b++) worst = change_of(t, r / 15.0, g / 15.0, b / 15.0, worst);
    for (int v = 0; v < 256; v++) {
        const double x = v / 255.0;
        worst = change_of(t, x, x, x, worst);
        worst = change_of(t, x, 0, 0, worst);
        worst = change_of(t, 0, x, 0, worst);
        worst = change_of(t, 0, 0, x, worst);
    }
    return worst;
}

yc_colour_action yc_colour_plan(const yc_colour *colour, yc_target target, char *text, size_t text_size) {
    char name[128] = {0}, why[160];
    int srgb;
    cmsHPROFILE src = source_profile(colour, target, name, sizeof name, &srgb, why, sizeof why);
    if (!src) {
        if (why[0]) {
            snprintf(text, text_size, "%s; colours used as stored", why);
            return YC_COLOUR_BROKEN;
        }
        if (srgb && target != YC_TARGET_SRGB) {
            // An sRGB source to another target: the built-in sRGB profile is its space.
            snprintf(text, text_size, "sRGB → %s", target_name(target));
            return YC_COLOUR_TRANSFORM;
        }
        snprintf(text, text_size, srgb ? "sRGB: nothing to do" : "no colour information: taken as %s", target_name(target));
        return YC_COLOUR_NONE;
    }
    cmsHPROFILE dst = target_profile(target);
    cmsHTRANSFORM t = dst ? cmsCreateTransform(src, TYPE_RGB_DBL, dst, TYPE_RGB_DBL, INTENT_RELATIVE_COLORIMETRIC,
                                               cmsFLAGS_NOOPTIMIZE) : NULL;
    yc_colour_action action;
    double change = 0;
    if (!t) {
        snprintf(text, text_size, "the embedded ICC profile (%s) cannot be transformed; colours used as stored", name);
        action = YC_COLOUR_BROKEN;
    } else if (!tone_curves_sane(src)) {
        snprintf(text, text_size, "the embedded ICC profile (%s) has a tone curve that falls or leaves the numbers; "
                 "colours used as stored", name);
        action = YC_COLOUR_BROKEN;
    } else if (!isfinite(change = largest_change(t))) {
        snprintf(text, text_size, "the embedded ICC profile (%s) gives colours that are not numbers; colours used as stored",
                 name);
        action = YC_COLOUR_BROKEN;
    } else if (change < 1.0 && !has_device_lut(src)) {
        // (A LUT profile is never taken as the target: a grid cannot show where its table departs.)
        // Within one code value of the target everywhere: the same space — an sRGB profile (IEC 61966-2.1,
        // sRGB2014, compact ones differ from LittleCMS's own by about half a code value), or the target's own.
        snprintf(text, text_size, "%s: same as %s, nothing to do", name, target_name(target));
        action = YC_COLOUR_NONE;
    } else {
        snprintf(text, text_size, "%s → %s", name, target_name(target));
        action = YC_COLOUR_TRANSFORM;
    }
    if (t) cmsDeleteTransform(t);
    if (dst) cmsCloseProfile(dst);
    cmsCloseProfile(src);
    return action;
}

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
};

// The colorant matrix of a matrix/TRC profile (columns: red, green, blue in PCS XYZ), 0 when it has none.
static int colorants(cmsHPROFILE p, double m[9]) {
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

// Whether a profile has a device-to-PCS LUT of any intent. LittleCMS takes one over the matrix/TRC tags when it
// is there — for relative colorimetric D2B1, then A2B1, then A2B0 (cmsIsCLUT asks for A2B1 only) — so a
// profile with any of them is not a plain matrix/TRC one for the fast path, whatever else it holds.
static int has_device_lut(cmsHPROFILE p) {
    static const cmsTagSignature luts[6] = {cmsSigAToB0Tag, cmsSigAToB1Tag, cmsSigAToB2Tag,
                                            cmsSigDToB0Tag, cmsSigDToB1Tag, cmsSigDToB2Tag};
    for (int i = 0; i < 6; i++)
        if (cmsIsTag(p, luts[i])) return 1;
    return 0;
}

// The fast path's tables, or NULL when a profile is not a plain matrix/TRC one (LUT-based profiles go
// through LittleCMS).
static yc_colour_tables *fast8_create(cmsHPROFILE src, cmsHPROFILE dst) {
    if (!cmsIsMatrixShaper(src) || !cmsIsMatrixShaper(dst)) return NULL;
    if (has_device_lut(src) || cmsIsCLUT(dst, INTENT_RELATIVE_COLORIMETRIC, LCMS_USED_AS_OUTPUT)) return NULL;
    double ms[9], md[9], mi[9];
    if (!colorants(src, ms) || !colorants(dst, md) || !invert3(md, mi)) return NULL;
    const cmsSignature trc[3] = {cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag};
    yc_colour_tables *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            f->m[3 * i + j] = (float)(mi[3 * i] * ms[j] + mi[3 * i + 1] * ms[3 + j] + mi[3 * i + 2] * ms[6 + j]);
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
    return f;
}

yc_colour_transform *yc_colour_transform_create(const yc_colour *colour, yc_target target, yc_rows rows, int reference) {
    char name[128] = {0}, why[160];
    int srgb;
    cmsHPROFILE src = source_profile(colour, target, name, sizeof name, &srgb, why, sizeof why);
    if (!src && srgb) src = cmsCreate_sRGBProfile();
    if (!src) return NULL;
    cmsHPROFILE dst = target_profile(target);
    yc_colour_transform *x = calloc(1, sizeof *x);
    if (dst && x && !reference && (rows == YC_ROWS_RGB8 || rows == YC_ROWS_RGBA8)) x->fast = fast8_create(src, dst);
    if (dst && x && x->fast) {
        x->rows = rows;
    } else if (dst && x) {
        static const cmsUInt32Number formats[4] = {TYPE_RGB_8, TYPE_RGBA_8, TYPE_RGB_16, TYPE_RGBA_16};
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
        x->t = cmsCreateTransform(src, f, dst, f, INTENT_RELATIVE_COLORIMETRIC, flags);
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

void yc_colour_transform_apply(yc_colour_transform *x, void *rows, size_t stride, uint32_t width, uint32_t count) {
    if (x->fast) {
        for (uint32_t i = 0; i < count; i++) yc_colour_rows(x->fast, (uint8_t *)rows + i * stride, width, x->rows == YC_ROWS_RGBA8 ? 4 : 3);
        return;
    }
    if (!x->reference) {
        for (uint32_t i = 0; i < count; i++) cmsDoTransform(x->t, (uint8_t *)rows + i * stride, (uint8_t *)rows + i * stride, width);
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

void *yc_colour_cmyk_create(const yc_colour *colour, yc_target target, char *text, size_t text_size) {
    if (!colour->icc) return NULL;
    cmsHPROFILE src = cmsOpenProfileFromMem(colour->icc, (cmsUInt32Number)colour->icc_length);
    if (!src) return NULL;
    if (cmsGetColorSpace(src) != cmsSigCmykData) {
        cmsCloseProfile(src);
        return NULL;
    }
    char name[128] = {0};
    if (cmsGetProfileInfoASCII(src, cmsInfoDescription, "en", "US", name, sizeof name) == 0 || !name[0])
        snprintf(name, sizeof name, "ICC profile");
    cmsHPROFILE dst = target_profile(target);
    cmsHTRANSFORM t = dst ? cmsCreateTransform(src, TYPE_CMYK_8_REV, dst, TYPE_RGBA_8, INTENT_RELATIVE_COLORIMETRIC, 0)
                          : NULL;
    if (t) snprintf(text, text_size, "%s (CMYK) → %s", name, target_name(target));
    else snprintf(text, text_size, "the embedded CMYK profile (%s) cannot be transformed; colours converted without it", name);
    if (dst) cmsCloseProfile(dst);
    cmsCloseProfile(src);
    return t;
}

void yc_colour_cmyk_apply(void *t, const uint8_t *cmyk, uint8_t *rgbx, uint32_t width) {
    cmsDoTransform((cmsHTRANSFORM)t, cmyk, rgbx, width);
    for (uint32_t x = 0; x < width; x++) rgbx[4 * x + 3] = 0xFF;
}

void yc_colour_cmyk_free(void *t) {
    if (t) cmsDeleteTransform((cmsHTRANSFORM)t);
}
