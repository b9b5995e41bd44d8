// Colour management's plan (yc_colour.h, yc_colour_internal.h): given the source's profile and the target's
// (yc_colour_profiles.c), whether to transform, do nothing (the same space, or sRGB kept as sRGB), or use the
// samples as stored because the profile is broken — and the sentence that says which. The checks a profile must
// pass first (finite, rising tone curves; colorants that span a colour space) are here too, and the rule that
// takes a profile within a code value or so of a space as that space. The transforms are in yc_colour.c.
#include "yc_colour_internal.h"

#include <ctype.h>
#include <lcms2.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

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

// Whether a matrix/TRC profile's curves are tone curves: finite and within 0…1 at every 8-bit level, never more than a code
// value below the highest it reached before (a measured curve may wobble; a slow fall is a fall: [0, 40000,
// 20000, 65535] fell by 47% of the range one code a level and passed), rising overall. A crafted curve (a negative gamma: infinite
// at 0, falling) makes LittleCMS's float and double pipelines disagree by whole ranges, so no transform of it
// is one to trust. Profiles without such curves (LUT-based ones) pass.
// At the 256 8-bit levels, and for 16-bit samples and a tabulated curve at every 16-bit level too — a crafted
// curve equal to sRGB's at the 8-bit levels with spikes between them passed as sRGB and was kept on a 16-bit
// PNG (up to 149 codes from LittleCMS's transform). A curve rising at every level stays between its values at
// the 8-bit levels, so for 8-bit samples and for the "same as sRGB" test those levels tell enough. A level may
// sit below the one an 8-bit code before it by noise (less than one 8-bit code), not more.
// A profile with a LUT LittleCMS reads (`yc_colour_reads_device_lut`) passes whatever its TRC tags say: LittleCMS
// takes the table and never reads them (a usable A2B0 beside falling curves was refused).
static int tone_curves_sane(cmsHPROFILE p, int deep) {
    if (!cmsIsMatrixShaper(p) || yc_colour_reads_device_lut(p)) return 1;
    const cmsSignature trc[3] = {cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag};
    for (int c = 0; c < 3; c++) {
        cmsToneCurve *curve = cmsReadTag(p, trc[c]);
        if (!curve) continue;
        // Tables only: a parametric curve is made of smooth rising or falling pieces, which the 8-bit levels
        // show (and evaluating its powers 65,536 times cost 4 ms a picture).
        // Within 0…1 too (by an 8-bit code's tolerance): a parametric curve may leave it (Y = X + 2, or type 4's
        // offsets), and LittleCMS clamps what leaves it, so every colour collapsed onto a few values — applied
        // without a word, while a curve flat at 1 is refused as not rising (a hostile round's profiles).
        float top = -INFINITY;
        for (int v = 0; v <= 255; v++) {
            const float y = cmsEvalToneCurveFloat(curve, v / 255.0f);
            if (!isfinite(y) || y < top - 1.0f / 255 || y < -1.0f / 255 || y > 1 + 1.0f / 255) return 0;
            if (y > top) top = y;
        }
        if (deep && cmsGetToneCurveParametricType(curve) == 0) {
            // Every 16-bit level against the highest before it: a spike between the 8-bit levels falls back
            // from it, and a slow fall, each level's step too small to count, ends an 8-bit code below it.
            float high = -INFINITY;
            for (int v = 0; v <= 65535; v++) {
                const float y = cmsEvalToneCurveFloat(curve, v / 65535.0f);
                if (!isfinite(y) || y < high - 1.0f / 255 || y < -1.0f / 255 || y > 1 + 1.0f / 255) return 0;
                if (y > high) high = y;
            }
        }
        if (!(cmsEvalToneCurveFloat(curve, 1.0f) > cmsEvalToneCurveFloat(curve, 0.0f))) return 0;
    }
    return 1;
}

// Whether a matrix/TRC profile's colorants make a colour space: three primaries that span it. Zero or equal
// colorants (a crafted profile) turn every colour black or grey; the matrix's determinant against the
// product of its columns' lengths is 1 for orthogonal primaries and 0.55 to 0.86 for real ones (sRGB, P3,
// BT.2020, Adobe RGB, ProPhoto); below 0.001 the primaries are flat. A LUT profile passes (LittleCMS takes
// its table instead).
int yc_colour_colorants_span(cmsHPROFILE p) {
    double m[9];
    if (!cmsIsMatrixShaper(p) || yc_colour_reads_device_lut(p) || !yc_colour_colorants(p, m)) return 1;
    double lengths = 1;
    for (int c = 0; c < 3; c++) lengths *= sqrt(m[c] * m[c] + m[3 + c] * m[3 + c] + m[6 + c] * m[6 + c]);
    const double det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
                       m[2] * (m[3] * m[7] - m[4] * m[6]);
    if (!(isfinite(det) && lengths > 0 && fabs(det) / lengths >= 0.001)) return 0;
    // Together the colorants are the white (D50, the PCS's): negated, or scaled far from it, they turn every
    // colour black or white. Within a factor of 1.5 each way, so a v2 profile whose colorants add up to D65
    // (Z 32% above D50's) still passes.
    static const double d50[3] = {0.9642, 1.0, 0.8249};
    for (int k = 0; k < 3; k++) {
        const double sum = m[3 * k] + m[3 * k + 1] + m[3 * k + 2];
        if (!(sum > d50[k] / 1.5 && sum < d50[k] * 1.5)) return 0;
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

// Whether a profile's description names `target`'s space: it begins with the space's name, case aside, followed
// by no letter — "sRGB IEC61966-2.1", "sRGB2014", "sRGB built-in"; "Display P3", "P3 D65"; "BT.2020", "ITU-R
// BT.2020", "Rec. 2020" — not where the name is part of another ("e-sRGB", "Linear sRGB", "Adobe RGB (1998) - not
// sRGB", "DCI-P3", "Calibrated 2020-05-01").
static int begins_with_name(const char *s, const char *n) {
    const size_t k = strlen(n);
    return strncasecmp(s, n, k) == 0 && !isalpha((unsigned char)s[k]);
}
static int names_space(const char *name, yc_target target) {
    static const char *const srgb[] = {"srgb", NULL};
    static const char *const p3[] = {"display p3", "p3", "apple display p3", NULL};
    static const char *const bt2020[] = {"bt.2020", "bt2020", "itu-r bt.2020", "rec. 2020", "rec.2020", "rec2020",
                                         "rec 2020", NULL};
    const char *const *names = target == YC_TARGET_P3 ? p3 : target == YC_TARGET_BT2020 ? bt2020 : srgb;
    for (int i = 0; names[i]; i++)
        if (begins_with_name(name, names[i])) return 1;
    return 0;
}

// Whether a profile whose transform to `target` changes a colour by at most `change` 8-bit code values is that
// target's space: within one code value everywhere `largest_change` looks — or within 1.5 (never more than one
// code value once rounded) when its description begins with the space's name (`names_space`).
// Such a profile is that space written down imprecisely: Debian's sRGB.icc (a 1,024-entry curve, colorants
// 3·10⁻⁴ from the standard's) moves 1% of all colours by one code value — dark channels of saturated colours,
// where sRGB's steep toe magnifies the colorants' error — and transforming with it made a photo tagged with it
// differ from the same photo untagged (and took a JPEG off the direct path).
static int is_target_space(double change, const char *name, yc_target target) {
    if (change < 1.0) return 1;
    return change < 1.5 && names_space(name, target);
}

// Whether `src` (described as `name`) is sRGB (`is_target_space`).
static int same_as_srgb(cmsHPROFILE src, const char *name) {
    cmsHPROFILE srgb = yc_colour_target_profile(YC_TARGET_SRGB);
    cmsHTRANSFORM t = srgb ? cmsCreateTransformTHR(yc_lcms_context(), src, TYPE_RGB_DBL, srgb, TYPE_RGB_DBL, INTENT_RELATIVE_COLORIMETRIC,
                                                cmsFLAGS_NOOPTIMIZE) : NULL;
    const int same = t && is_target_space(largest_change(t), name, YC_TARGET_SRGB);
    if (t) cmsDeleteTransform(t);
    if (srgb) cmsCloseProfile(srgb);
    return same;
}

yc_colour_action yc_colour_plan(const yc_colour *colour, yc_target target, char *text, size_t text_size, int *kept_srgb) {
    char name[128] = {0}, why[1664];
    int srgb;
    // Numbers kept as they are in another space than the target's are sRGB's (what an untagged picture is taken
    // as): outputs say so, never the target they were not moved into.
    *kept_srgb = 0;
    cmsHPROFILE src = yc_colour_source_profile(colour, target, name, sizeof name, &srgb, why, sizeof why);
    if (!src) {
        *kept_srgb = target != YC_TARGET_SRGB;
        if (why[0]) {
            snprintf(text, text_size, "%s; colours used as stored", why);
            return YC_COLOUR_BROKEN;
        }
        // sRGB and untagged sources are never transformed, whatever the target (the contract: their bytes are
        // those of `--color-management off`, so one picture gives one output whether or not it says sRGB).
        if (srgb && target != YC_TARGET_SRGB)
            snprintf(text, text_size, "sRGB: kept as sRGB, not moved into %s (sRGB sources are not transformed)",
                     yc_colour_target_name(target));
        else
            snprintf(text, text_size, srgb ? "sRGB: nothing to do" : "no colour information: taken as sRGB");
        return YC_COLOUR_NONE;
    }
    cmsHPROFILE dst = yc_colour_target_profile(target);
    cmsHTRANSFORM t = dst ? cmsCreateTransformTHR(yc_lcms_context(), src, TYPE_RGB_DBL, dst, TYPE_RGB_DBL, INTENT_RELATIVE_COLORIMETRIC,
                                               cmsFLAGS_NOOPTIMIZE) : NULL;
    yc_colour_action action;
    double change = 0;
    if (!t) {
        snprintf(text, text_size, "the embedded ICC profile (%s) cannot be transformed; colours used as stored", name);
        action = YC_COLOUR_BROKEN;
    } else if (!yc_colour_colorants_span(src)) {
        snprintf(text, text_size, "the embedded ICC profile (%s) has colorants that make no colour space (zero, alike, "
                 "or far from adding up to white); colours used as stored", name);
        action = YC_COLOUR_BROKEN;
    } else if (!tone_curves_sane(src, colour->deep)) {
        snprintf(text, text_size, "the embedded ICC profile (%s) has a tone curve that falls, stays flat, or leaves the numbers (infinite, or outside 0 to 1); "
                 "colours used as stored", name);
        action = YC_COLOUR_BROKEN;
    } else if (!isfinite(change = largest_change(t))) {
        snprintf(text, text_size, "the embedded ICC profile (%s) gives colours that are not numbers; colours used as stored",
                 name);
        action = YC_COLOUR_BROKEN;
    } else if (is_target_space(change, name, target) && !yc_colour_has_device_lut(src)) {
        // (A LUT profile is never taken as the target: a grid cannot show where its table departs.)
        // Within one code value of the target everywhere: the same space — an sRGB profile (IEC 61966-2.1,
        // sRGB2014, compact ones differ from LittleCMS's own by about half a code value), or the target's own.
        snprintf(text, text_size, "%s: same as %s, nothing to do", name, yc_colour_target_name(target));
        action = YC_COLOUR_NONE;
    } else if (target != YC_TARGET_SRGB && !yc_colour_has_device_lut(src) && same_as_srgb(src, name)) {
        // An sRGB profile to another target: not transformed, as an untagged or PNG-sRGB source is not.
        snprintf(text, text_size, "%s: sRGB, kept as sRGB, not moved into %s (sRGB sources are not transformed)", name,
                 yc_colour_target_name(target));
        *kept_srgb = 1;
        action = YC_COLOUR_NONE;
    } else if (names_space(name, target) && !is_target_space(change, name, target)) {
        // A profile named as the target whose colours are another's (an Adobe RGB profile described "Display P3",
        // "Display P3 " or "sRGB IEC61966-2.1"): "Display P3 → Display P3" read as if nothing had been done. A LUT
        // profile within the target's tolerance (a LUT-based sRGB, transformed through its table) is said as any
        // transform: its colours are the target's as far as the grid looks.
        snprintf(text, text_size, "%s (the embedded profile's name; its colours are not %s's) → %s", name,
                 yc_colour_target_name(target), yc_colour_target_name(target));
        action = YC_COLOUR_TRANSFORM;
    } else {
        snprintf(text, text_size, "%s → %s", name, yc_colour_target_name(target));
        action = YC_COLOUR_TRANSFORM;
    }
    if (action == YC_COLOUR_BROKEN) *kept_srgb = target != YC_TARGET_SRGB;   // used as stored: read as sRGB
    if (t) cmsDeleteTransform(t);
    if (dst) cmsCloseProfile(dst);
    cmsCloseProfile(src);
    return action;
}

// Whether LittleCMS takes a device-to-PCS LUT over the matrix/TRC tags for this transform (relative colorimetric,
// the profile as input): D2B1, else A2B1, else A2B0 (cmsio1.c's _cmsReadInputLUT). Only then are the matrix/TRC
// tags unused, so only then are they not judged: beside A2B2 alone (a perceptual-only LUT of no use here) the
// transform is built from them, and falling curves with it passed unjudged and inverted the picture.
int yc_colour_reads_device_lut(cmsHPROFILE p) {
    return cmsIsTag(p, cmsSigDToB1Tag) || cmsIsTag(p, cmsSigAToB1Tag) || cmsIsTag(p, cmsSigAToB0Tag);
}

// Whether a profile has a device-to-PCS LUT of any intent. LittleCMS takes one over the matrix/TRC tags when it
// is there — for relative colorimetric D2B1, then A2B1, then A2B0 (cmsIsCLUT asks for A2B1 only) — so a
// profile with any of them is not a plain matrix/TRC one for the fast path, whatever else it holds.
int yc_colour_has_device_lut(cmsHPROFILE p) {
    static const cmsTagSignature luts[6] = {cmsSigAToB0Tag, cmsSigAToB1Tag, cmsSigAToB2Tag,
                                            cmsSigDToB0Tag, cmsSigDToB1Tag, cmsSigDToB2Tag};
    for (int i = 0; i < 6; i++)
        if (cmsIsTag(p, luts[i])) return 1;
    return 0;
}
