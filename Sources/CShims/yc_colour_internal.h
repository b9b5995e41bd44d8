// What yc_colour_profiles.c (the source's and the target's profiles) and yc_colour_plan.c (the plan) give yc_colour.c (the
// transforms). Internal to CShims.
#ifndef YC_COLOUR_INTERNAL_H
#define YC_COLOUR_INTERNAL_H

#include "yc_colour.h"

#include <lcms2.h>
#include <stddef.h>
#include <stdint.h>

/// yuvconv's own LittleCMS context (`yc_icc_limits.c`): its memory handler keeps the budget. Every profile,
/// curve and transform of yuvconv's is made in it; the process's default context is the program's.
cmsContext yc_lcms_context(void);

/// A profile's description as messages and reports show it, whatever kind of profile (RGB, grey, CMYK): its
/// text in UTF-8, "ICC profile" when it has none, a control character as \xNN and a backslash as \\.
void yc_colour_profile_name(cmsHPROFILE p, char *name, size_t size);

/// The source's profile and its name, NULL when there is none (untagged, or what it has counts as sRGB: `*srgb`
/// is then set), or when it is broken (the reason in `why`).
cmsHPROFILE yc_colour_source_profile(const yc_colour *c, yc_target target, char *name, size_t name_size, int *srgb,
                                     char *why, size_t why_size);
/// The target space's profile (sRGB, Display P3, BT.2020: D65, sRGB curve).
cmsHPROFILE yc_colour_target_profile(yc_target t);
/// The target's name for the per-image line ("sRGB", "Display P3", "BT.2020").
const char *yc_colour_target_name(yc_target t);
/// Whether a profile has a device-to-PCS LUT of any intent (which LittleCMS takes over its matrix/TRC tags).
int yc_colour_has_device_lut(cmsHPROFILE p);
/// Whether LittleCMS reads a device-to-PCS LUT of this profile as a relative colorimetric input (D2B1, A2B1, A2B0).
int yc_colour_reads_device_lut(cmsHPROFILE p);
/// Whether an embedded profile may be given to LittleCMS (yc_icc_limits.c): 0, with the reason in `why`, for
/// one with a float LUT (mpet), whose elements can be read again and again. (LittleCMS's memory has a budget
/// there too.)
int yc_icc_within_limits(const uint8_t *icc, size_t length, char *why, size_t why_size);
/// The colorant matrix of a matrix/TRC profile (columns: red, green, blue in PCS XYZ), 0 when it has none.
int yc_colour_colorants(cmsHPROFILE p, double m[9]);
/// Whether a matrix/TRC profile's colorants make a colour space (not flat, adding up to about white): 1 for others.
int yc_colour_colorants_span(cmsHPROFILE p);
/// Whether a PNG cHRM's white and primaries (x, y pairs) make a colour space LittleCMS builds and the plan accepts:
/// the last test `png_colour_chunk` makes, so that a cHRM the plan would refuse is refused alone, never with its gAMA.
int yc_colour_chrm_makes_space(const double chrm[8]);

#endif
