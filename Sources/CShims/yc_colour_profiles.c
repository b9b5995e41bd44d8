// Colour management, what a source is (yc_colour.h, yc_colour_internal.h): the source's profile — an embedded
// ICC profile, else PNG sRGB, else PNG cHRM/gAMA, else EXIF's Adobe RGB hint — and the target's. The plan
// between them is in yc_colour_plan.c, the transforms in yc_colour.c. In C because LittleCMS is a C library whose profiles and
// transforms are handles best kept on this side.
#include "yc_colour_internal.h"

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
    return cmsBuildParametricToneCurve(yc_lcms_context(), 4, p);
}

// An RGB matrix/TRC profile from a white point and primaries (x,y) and one curve for all three channels.
static cmsHPROFILE rgb_profile(double wx, double wy, const double *prim, cmsToneCurve *curve) {
    if (!curve) return NULL;
    cmsCIExyY white = {wx, wy, 1.0};
    cmsCIExyYTRIPLE p = {{prim[0], prim[1], 1.0}, {prim[2], prim[3], 1.0}, {prim[4], prim[5], 1.0}};
    cmsToneCurve *c[3] = {curve, curve, curve};
    cmsHPROFILE h = cmsCreateRGBProfileTHR(yc_lcms_context(), &white, &p, c);
    cmsFreeToneCurve(curve);
    return h;
}

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
    if (yc_colour_has_device_lut(grey)) snprintf(why, why_size, "the embedded grey ICC profile (%s) is built on a LUT", name);
    else if (cmsGetPCS(grey) != cmsSigXYZData)
        snprintf(why, why_size, "the embedded grey ICC profile (%s) connects through Lab, not XYZ", name);
    else if (!trc) snprintf(why, why_size, "the embedded grey ICC profile (%s) has no tone curve", name);
    else return rgb_profile(srgb_xy[0], srgb_xy[1], target_primaries(target), cmsDupToneCurve(trc));
    return NULL;
}

const char *yc_colour_target_name(yc_target t) {
    return t == YC_TARGET_P3 ? "Display P3" : t == YC_TARGET_BT2020 ? "BT.2020" : "sRGB";
}

cmsHPROFILE yc_colour_target_profile(yc_target t) {
    switch (t) {
    case YC_TARGET_P3: return rgb_profile(srgb_xy[0], srgb_xy[1], p3_xy, srgb_curve());
    case YC_TARGET_BT2020: return rgb_profile(srgb_xy[0], srgb_xy[1], bt2020_xy, srgb_curve());
    default: return cmsCreate_sRGBProfileTHR(yc_lcms_context());
    }
}

size_t yc_colour_target_icc(yc_target t, uint8_t *out, size_t capacity) {
    cmsHPROFILE p = yc_colour_target_profile(t);
    if (!p) return 0;
    cmsMLU *desc = cmsMLUalloc(yc_lcms_context(), 1);
    if (desc) {
        cmsMLUsetASCII(desc, "en", "US", yc_colour_target_name(t));
        cmsWriteTag(p, cmsSigProfileDescriptionTag, desc);
        cmsMLUfree(desc);
    }
    cmsUInt32Number size = 0;
    size_t result = 0;
    if (cmsSaveProfileToMem(p, NULL, &size) && size > 0) {
        result = size;
        if (out) {
            cmsUInt32Number room = (cmsUInt32Number)(capacity < size ? capacity : size);
            if (room < size || !cmsSaveProfileToMem(p, out, &room)) result = 0;
            // LittleCMS stamps a new profile with the current time (header bytes 24–35), so the same picture
            // written a second later had other bytes and another SHA-256. A fixed date instead, 2000-01-01
            // 00:00:00 (six big-endian 16-bit fields); the profile ID (bytes 84–99), a digest that would cover
            // the date, is left unset (zero), as LittleCMS leaves it.
            static const uint8_t date[12] = {0x07, 0xD0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0};
            if (result >= 128) {
                memcpy(out + 24, date, sizeof date);
                memset(out + 84, 0, 16);
            }
        }
    }
    cmsCloseProfile(p);
    return result;
}

/// The profile's description in UTF-8 (its `mluc`/`desc` text is UTF-16: LittleCMS's ASCII reader keeps the
/// low byte of each unit, so "Écran P3 日" came out as "\xC9cran P3 \xE5"), cut short at a whole character.
static void description_utf8(cmsHPROFILE p, char *name, size_t size) {
    wchar_t w[128];
    name[0] = 0;
    if (size == 0 || cmsGetProfileInfo(p, cmsInfoDescription, "en", "US", w, sizeof w) == 0) return;
    w[127] = 0;
    size_t o = 0;
    for (size_t i = 0; i < 127 && w[i]; i++) {
        uint32_t c = (uint32_t)w[i];
        // A UTF-16 pair held as two units (LittleCMS copies the units as they are stored).
        if (c >= 0xD800 && c <= 0xDBFF && (uint32_t)w[i + 1] >= 0xDC00 && (uint32_t)w[i + 1] <= 0xDFFF) {
            c = 0x10000 + ((c - 0xD800) << 10) + ((uint32_t)w[i + 1] - 0xDC00);
            i++;
        }
        if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) c = 0xFFFD;
        char b[4];
        size_t n;
        if (c < 0x80) { b[0] = (char)c; n = 1; }
        else if (c < 0x800) { b[0] = (char)(0xC0 | c >> 6); b[1] = (char)(0x80 | (c & 63)); n = 2; }
        else if (c < 0x10000) { b[0] = (char)(0xE0 | c >> 12); b[1] = (char)(0x80 | (c >> 6 & 63)); b[2] = (char)(0x80 | (c & 63)); n = 3; }
        else { b[0] = (char)(0xF0 | c >> 18); b[1] = (char)(0x80 | (c >> 12 & 63)); b[2] = (char)(0x80 | (c >> 6 & 63)); b[3] = (char)(0x80 | (c & 63)); n = 4; }
        if (o + n >= size) break;
        memcpy(name + o, b, n);
        o += n;
    }
    name[o] = 0;
}

/// The profile's description as messages and reports show it: the file's text, so a control character (an
/// escape sequence for the terminal, a newline that would forge a line) becomes \xNN and a backslash \\, as
/// in file names (`PathBytes.display`). The text stops short rather than cut an escape in two.
static void escape_controls(char *text, size_t size) {
    char out[512];
    size_t o = 0;
    for (const unsigned char *c = (const unsigned char *)text; *c && o + 5 < sizeof out && o + 5 < size; c++) {
        // A character's UTF-8 whole or not at all: the text stops short before one that does not fit.
        const size_t n = *c >= 0xF0 ? 4 : *c >= 0xE0 ? 3 : *c >= 0xC0 ? 2 : 1;
        if (n > 1 && (o + n + 5 >= sizeof out || o + n + 5 >= size)) break;
        if (*c < 0x20 || *c == 0x7F) o += (size_t)snprintf(out + o, sizeof out - o, "\\x%02X", *c);
        else if (*c == '\\') { out[o++] = '\\'; out[o++] = '\\'; }   // as file names show one: \x1B typed is not ESC
        else out[o++] = (char)*c;
    }
    out[o] = 0;
    snprintf(text, size, "%s", out);
}

void yc_colour_profile_name(cmsHPROFILE p, char *name, size_t size) {
    description_utf8(p, name, size);
    // Without the blanks some profiles pad their text with ("Artifex Software A98 ICC Profile  → sRGB").
    size_t n = strlen(name);
    while (n > 0 && (name[n - 1] == ' ' || name[n - 1] == '\t')) name[--n] = 0;
    if (!name[0]) snprintf(name, size, "ICC profile");
    escape_controls(name, size);
}

int yc_colour_chrm_makes_space(const double chrm[8]) {
    cmsHPROFILE p = rgb_profile(chrm[0], chrm[1], chrm + 2, cmsBuildGamma(yc_lcms_context(), 1.0));
    if (!p) return 0;
    const int spans = yc_colour_colorants_span(p);
    cmsCloseProfile(p);
    return spans;
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
cmsHPROFILE yc_colour_source_profile(const yc_colour *c, yc_target target, char *name, size_t name_size, int *srgb, char *why,
                                  size_t why_size) {
    *srgb = 0;
    why[0] = 0;
    if (c->has_cicp) {
        // cICP comes first (PNG's third edition). RGB (matrix 0), full range, in the primaries yuvconv knows
        // (1 BT.709, 12 Display P3, 9 BT.2020) with the sRGB curve (13) or linear light (8); anything else — PQ
        // or HLG (HDR), another curve or primaries — cannot be made SDR here, so it is said and not applied.
        const uint8_t p = c->cicp[0], t = c->cicp[1], m = c->cicp[2], full = c->cicp[3];
        const double *prim = p == 1 ? srgb_xy + 2 : p == 12 ? p3_xy : p == 9 ? bt2020_xy : NULL;
        if (!prim || (t != 13 && t != 8) || m != 0 || full != 1) {
            snprintf(why, why_size, "the PNG's cICP (primaries %u, transfer %u, matrix %u, full range %u) is not a "
                     "space yuvconv converts (RGB, full range; primaries 1, 9 or 12; transfer 13 or 8)",
                     (unsigned)p, (unsigned)t, (unsigned)m, (unsigned)full);
            return NULL;
        }
        if (p == 1 && t == 13) {
            *srgb = 1;
            return NULL;
        }
        snprintf(name, name_size, "PNG cICP %s%s", p == 1 ? "BT.709" : p == 12 ? "Display P3" : "BT.2020",
                 t == 8 ? " linear" : "");
        return rgb_profile(srgb_xy[0], srgb_xy[1], prim, t == 8 ? cmsBuildGamma(yc_lcms_context(), 1.0) : srgb_curve());
    }
    if (c->icc) {
        if (!yc_icc_within_limits(c->icc, c->icc_length, why, why_size)) return NULL;
        cmsHPROFILE p = cmsOpenProfileFromMemTHR(yc_lcms_context(), c->icc, (cmsUInt32Number)c->icc_length);
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
        // The reverse: ICC wants the profile's space to be the data's, and libpng refuses an RGB iCCP on a grey
        // PNG; a grey JPEG (whose rows libjpeg makes RGB) is refused the same way.
        if (space == cmsSigRgbData && c->grey) {
            snprintf(why, why_size, "the embedded ICC profile is an RGB one on a grey image");
            cmsCloseProfile(p);
            return NULL;
        }
        if (space != cmsSigRgbData && space != cmsSigGrayData) {
            snprintf(why, why_size, "the embedded ICC profile is not an RGB or grey profile");
            cmsCloseProfile(p);
            return NULL;
        }
        yc_colour_profile_name(p, name, name_size);
        if (space == cmsSigGrayData) {
            cmsHPROFILE rgb = grey_as_rgb(p, target, name, why, why_size);
            cmsCloseProfile(p);
            return rgb;
        }
        return p;
    }
    if (c->icc_broken) {
        // Its gAMA, cHRM or sRGB chunks are not used instead: a broken profile means the samples as stored.
        if (c->icc_broken == 2) {
            char said[4 * sizeof c->icc_rejected];   // room for every byte shown as \xNN
            snprintf(said, sizeof said, "%s", c->icc_rejected);
            escape_controls(said, sizeof said);
            snprintf(why, why_size, "the PNG's ICC profile was rejected: %s", said);
        } else {
            snprintf(why, why_size, "the embedded ICC profile is incomplete (a segment is missing, repeated or out of range)");
        }
        return NULL;
    }
    if (c->srgb) {
        *srgb = 1;
        return NULL;
    }
    if (c->has_chrm || c->has_gama) {
        // Both usable as recorded (`png_colour_chunk` keeps neither a gamma outside 0.01 … 100 nor primaries that
        // make no colour space, and says so): the one place that decides, so that one chunk's flaw never takes
        // the other with it.
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
        cmsHPROFILE p = rgb_profile(w[0], w[1], prim, c->has_gama ? cmsBuildGamma(yc_lcms_context(), 1 / c->gama) : srgb_curve());
        if (!p) snprintf(why, why_size, "the PNG's cHRM does not make a colour space");
        return p;
    }
    if (c->exif_adobe_rgb) {
        snprintf(name, name_size, "Adobe RGB (EXIF)");
        return rgb_profile(srgb_xy[0], srgb_xy[1], adobe_xy, cmsBuildGamma(yc_lcms_context(), 563.0 / 256.0));
    }
    return NULL;
}
