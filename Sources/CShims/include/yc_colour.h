// Colour management with LittleCMS 2: the source's colour space (an ICC profile, PNG's sRGB/cHRM/gAMA, EXIF's
// Adobe RGB hint) transformed to the target RGB space before the conversion. See docs/contract.md.
#ifndef YC_COLOUR_H
#define YC_COLOUR_H

#include <stddef.h>
#include <stdint.h>

#include "yc_decode.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The target RGB spaces (`--primaries`): sRGB (BT.709 primaries), Display P3, BT.2020 primaries — all D65
/// with the sRGB transfer.
typedef enum { YC_TARGET_SRGB = 0, YC_TARGET_P3 = 1, YC_TARGET_BT2020 = 2 } yc_target;

/// What colour management does for a source: nothing (no colour information, or a space equal to the
/// target within one code value), a transform, the decoder's own transform (a CMYK profile: the rows come
/// out already in the target space), or nothing because the profile is broken (a warning).
typedef enum {
    YC_COLOUR_NONE = 0, YC_COLOUR_TRANSFORM = 1, YC_COLOUR_DECODED = 2, YC_COLOUR_BROKEN = -1
} yc_colour_action;

/// Decides, and describes it in `text` ("Display P3 → sRGB", or why a profile was not used); `*kept_srgb` as
/// `yc_colour.kept_srgb`.
yc_colour_action yc_colour_plan(const yc_colour *colour, yc_target target, char *text, size_t text_size, int *kept_srgb);

/// A conversion's own LittleCMS memory budget (`yc_icc_limits.c`): between begin and end, what LittleCMS
/// allocates on this thread counts against this scope alone, not against other conversions running at the
/// same time, so whether a profile can be used never depends on them. NULL (no memory) means the process's
/// shared budget; end accepts it.
typedef struct yc_lcms_scope {
    struct yc_lcms_account *account;
    struct yc_lcms_account *previous;
} yc_lcms_scope;
yc_lcms_scope *yc_lcms_scope_begin(void);
void yc_lcms_scope_end(yc_lcms_scope *scope);
/// The size of the last allocation LittleCMS asked for on this thread, within its budget, that the system refused
/// (an address-space limit), or 0; taking it clears it. A profile or transform that failed for it is out of
/// memory, not a profile that cannot be used.
size_t yc_lcms_take_refusal(void);
/// Records, as `yc_lcms_take_refusal` reports it, memory the system refused for a transform's own state outside
/// LittleCMS (the table of colours a CMYK transform keeps): the file fails as out of memory.
void yc_lcms_note_refusal(size_t bytes);

/// Row formats a transform takes (in place): the decoder's rows.
typedef enum { YC_ROWS_RGB8 = 0, YC_ROWS_RGBA8 = 1, YC_ROWS_RGB16 = 2, YC_ROWS_RGBA16 = 3 } yc_rows;

typedef struct yc_colour_transform yc_colour_transform;

/// A transform from the source's space to `target` for rows of `rows` (relative colorimetric; alpha copied).
/// `reference`: LittleCMS's unoptimised double-precision transform, rounded half up — the precision
/// reference the tests compare the fast one with. NULL when the plan is not a transform or on failure.
yc_colour_transform *yc_colour_transform_create(const yc_colour *colour, yc_target target, yc_rows rows, int reference);
/// Transforms `count` rows of `width` pixels, `stride` bytes apart, in place.
void yc_colour_transform_apply(yc_colour_transform *t, void *rows, size_t stride, uint32_t width, uint32_t count);
/// The same without the table of colours 8-bit rows through LittleCMS are looked up in: LittleCMS on every
/// pixel, what `yc_colour_transform_apply` must equal (for tests).
void yc_colour_transform_apply_plain(yc_colour_transform *t, void *rows, size_t stride, uint32_t width, uint32_t count);
void yc_colour_transform_free(yc_colour_transform *t);

/// The ICC profile of target `t` (its primaries, D65, the sRGB curve; described "Display P3" or "BT.2020"),
/// as bytes for a PNG iCCP chunk or a JPEG APP2 segment: up to `capacity` bytes into `out` (NULL: only the
/// size); returns the profile's size, 0 on failure.
size_t yc_colour_target_icc(yc_target t, uint8_t *out, size_t capacity);
/// Whether rows may be transformed on several threads at once: the fast path's tables, or a LittleCMS
/// transform made without its 1-pixel cache (every one but the reference).
int yc_colour_transform_is_concurrent(const yc_colour_transform *t);

/// A CMYK JPEG's transform from its embedded CMYK profile to `target` (libjpeg's Adobe CMYK, inverted, in;
/// 4-byte RGBX out; relative colorimetric), with the plan's sentence in `text`; NULL when the source has no
/// CMYK profile or LittleCMS cannot make the transform (then `text` says why when there was a profile).
void *yc_colour_cmyk_create(const yc_colour *colour, yc_target target, char *text, size_t text_size);
void yc_colour_cmyk_apply(void *t, const uint8_t *cmyk, uint8_t *rgbx, uint32_t width);
void yc_colour_cmyk_free(void *t);
/// 1: LittleCMS on every pixel, not looked up in the table of colours already transformed; what the table
/// must equal (for tests).
void yc_colour_cmyk_plain(void *t, int plain);

#ifdef __cplusplus
}
#endif
#endif
