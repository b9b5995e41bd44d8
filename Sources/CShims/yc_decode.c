// Row-streaming decoders over libjpeg(-turbo) and libpng: the API (yc_decode.h) and the dispatch to each
// format's half (yc_jpeg.c, yc_png.c); the metadata readers are in yc_metadata.c.
#include "yc_decode_internal.h"
#include "yc_colour.h"
#include "yc_signals.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

void yc_set_error(yc_decoder *dec, const char *msg) {
    if (!dec->failed) {
        dec->failed = 1;
        snprintf(dec->error, sizeof dec->error, "%s", msg);
    }
}

/// Whether two warnings are the same but for their decimal numbers ("1214 extraneous bytes before marker 0xd0" and
/// "836 … 0xd0"): one kind, kept once and counted. A hexadecimal number (0x…, a marker) is part of the kind: the
/// bytes before a restart marker, the end marker and a scan's next marker say different things — but the eight
/// restart markers (0xd0 … 0xd7) are one, as they take turns in one scan (WarningKind.shape in Swift, the same rule).
/// Kept apart, a JPEG's padding before its restart markers filled the kinds kept, and the rest were said as
/// "other kinds".
static int same_kind(const char *a, const char *b) {
    for (;;) {
        if (a[0] == '0' && a[1] == 'x' && b[0] == '0' && b[1] == 'x') {
            a += 2, b += 2;
            size_t na = 0, nb = 0;
            while ((a[na] >= '0' && a[na] <= '9') || (a[na] >= 'a' && a[na] <= 'f')) na++;
            while ((b[nb] >= '0' && b[nb] <= '9') || (b[nb] >= 'a' && b[nb] <= 'f')) nb++;
            // Compared as text (any length); two restart markers are alike.
            const int restart = na == 2 && nb == 2 && a[0] == 'd' && b[0] == 'd' && a[1] >= '0' && a[1] <= '7'
                && b[1] >= '0' && b[1] <= '7';
            if (!restart && (na != nb || memcmp(a, b, na) != 0)) return 0;
            a += na, b += nb;
            continue;
        }
        if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
            while (*a >= '0' && *a <= '9') a++;
            while (*b >= '0' && *b <= '9') b++;
            continue;
        }
        if (*a != *b) return 0;
        if (!*a) return 1;
        a++, b++;
    }
}

static void warn(yc_decoder *dec, const char *msg, int damage) {
    if (dec->warnings++ == 0) snprintf(dec->first_warning, sizeof dec->first_warning, "%s", msg);
    for (int i = 0; i < dec->kept_warnings; i++) {
        if (same_kind(dec->kept_warning[i], msg)) {
            dec->kept_damage[i] |= damage;
            dec->kept_count[i]++;
            return;
        }
    }
    int slot = dec->kept_warnings;
    if (slot == YC_WARN_KEPT) {
        // Full: damage to the pixels takes the place of the last warning that is not (it is said first); the
        // warnings it replaces are counted with those not kept.
        if (!damage) return;
        for (slot = YC_WARN_KEPT - 1; slot >= 0 && dec->kept_damage[slot]; slot--) {}
        if (slot < 0) return;
    } else {
        dec->kept_warnings++;
    }
    snprintf(dec->kept_warning[slot], YC_MSG, "%s", msg);
    dec->kept_damage[slot] = damage;
    dec->kept_count[slot] = 1;
}

void yc_warn(yc_decoder *dec, const char *msg) { warn(dec, msg, 0); }
void yc_warn_damage(yc_decoder *dec, const char *msg) { warn(dec, msg, 1); }

void yc_warn_exif(yc_decoder *dec, const char *msg) {
    if (!(dec->orientation_ignored && dec->colour_target < 0)) yc_warn(dec, msg);
}

void yc_warn_xmp(yc_decoder *dec, const char *msg) {
    if (!dec->orientation_ignored) yc_warn(dec, msg);
}

void yc_warn_exif_damage(yc_decoder *dec, const char *what, const uint8_t *b, size_t n, int tag) {
    const char *damage = yc_exif_damage(b, n);
    if (!damage) return;
    char msg[YC_MSG];   // (200 bytes cut the longest, with --orientation ignore, mid-word)
    snprintf(msg, sizeof msg, "%s: %s; %s", what, damage,
             dec->orientation_ignored ? "what it says before the damage is read (orientations are not applied: "
                                        "--orientation ignore)"
             : tag && (strcmp(damage, YC_EXIF_DROPPED_TAG) == 0 || strcmp(damage, YC_EXIF_EMPTY_TAG) == 0) ? "the orientation tag after it is used"
             : tag ? "the orientation tag found before the damage is used" : "no orientation is read from it");
    yc_warn_exif(dec, msg);
}

yc_format yc_sniff(const uint8_t *b, size_t n) {
    static const uint8_t png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (n >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF) return YC_FORMAT_JPEG;
    if (n >= 8 && memcmp(b, png_sig, 8) == 0) return YC_FORMAT_PNG;
    return YC_FORMAT_UNKNOWN;
}

int yc_plan_colour(yc_decoder *dec) {
    if (dec->colour_target < 0) return YC_COLOUR_NONE;
    (void)yc_lcms_take_refusal();
    dec->colour.action = yc_colour_plan(&dec->colour, (yc_target)dec->colour_target, dec->colour.text, sizeof dec->colour.text,
                                        &dec->colour.kept_srgb);
    if (yc_fail_if_lcms_refused(dec, "its ICC profile's colour transform")) dec->colour.action = YC_COLOUR_NONE;
    return dec->colour.action;
}

int yc_fail_if_lcms_refused(yc_decoder *dec, const char *what) {
    const size_t bytes = yc_lcms_take_refusal();
    if (!bytes) return 0;
    // The system refused LittleCMS memory within its budget: the file fails, as any allocation refused fails it
    // (the callers stop at a failed decoder), and the profile is not said to be unusable. Worded as YUVIO's
    // `Ledger.outOfMemoryUnderALimit`, rounded up.
    char amount[32], msg[YC_MSG];
    if (bytes >= (1u << 20)) snprintf(amount, sizeof amount, "%zu MiB", (bytes + (1u << 20) - 1) >> 20);
    else snprintf(amount, sizeof amount, "%zu KiB", (bytes + 1023) >> 10);
    if (bytes < 1024) amount[0] = 0;   // "72 bytes", not "72 bytes (1 KiB)"
    snprintf(msg, sizeof msg, "cannot allocate %zu bytes%s%s%s for %s: out of memory (an address-space limit such as "
             "ulimit -v may be too low)", bytes, amount[0] ? " (" : "", amount, amount[0] ? ")" : "", what);
    yc_set_error(dec, msg);
    return 1;
}

yc_decoder *yc_open(FILE *file, yc_format format, uint64_t max_pixels, uint64_t max_whole, int max_scans,
                    int allow_truncated, int raw, int alpha16, int colour_target, struct yc_stream *stream) {
    return yc_open_held(file, format, max_pixels, max_whole, max_scans, allow_truncated, raw, alpha16, colour_target,
                        stream, 0, 0, 0, NULL);
}

int yc_held_counted(const yc_decoder *dec) { return dec->held_counted; }

uint64_t yc_read_limit(uint64_t max_pixels) {
    return max_pixels > (UINT64_MAX - (16u << 20)) / 8 ? UINT64_MAX : max_pixels * 8 + (16u << 20);
}

yc_decoder *yc_open_held(FILE *file, yc_format format, uint64_t max_pixels, uint64_t max_whole, int max_scans,
                         int allow_truncated, int raw, int alpha16, int colour_target, struct yc_stream *stream,
                         uint64_t per_block, uint64_t per_pixel, uint64_t per_odd_block, const char *what) {
    yc_decoder *dec = calloc(1, sizeof *dec);
    if (!dec) return NULL;
    dec->held_per_block = per_block;
    dec->held_per_pixel = per_pixel;
    dec->held_per_odd_block = per_odd_block;
    snprintf(dec->held_what, sizeof dec->held_what, "%s", what ? what : "");
    dec->colour_target = colour_target;
    dec->max_scans = max_scans;
    dec->format = format;
    dec->max_pixels = max_pixels;
    dec->max_whole = max_whole;
    dec->file_limit = yc_read_limit(max_pixels);
    dec->allow_truncated = allow_truncated;
    dec->alpha16 = alpha16;
    dec->orientation_ignored = (raw & 32) != 0;
    dec->stored_kept = (raw & 64) != 0;
    raw &= ~(32 | 64);
    switch (format) {
    case YC_FORMAT_JPEG: yc_jpeg_open(dec, file, stream, raw); break;
    case YC_FORMAT_PNG: yc_png_open(dec, file); break;
    default: yc_set_error(dec, "not a JPEG or PNG file"); break;
    }
    return dec;
}

/// `bytes` in MiB to a tenth (a whole number without its ".0"), rounded up (a need: never said below what it is)
/// or to the nearest (a limit: `--max-memory 1.4M` is 1468006 bytes, said as 1.4 MiB).
static void yc_mib_text(char *out, size_t size, uint64_t bytes, int up) {
    const uint64_t mib = 1 << 20, tenths = bytes / mib * 10 + ((bytes % mib) * 10 + (up ? mib - 1 : mib / 2)) / mib;
    if (tenths % 10 == 0) snprintf(out, size, "%llu MiB", (unsigned long long)(tenths / 10));
    else snprintf(out, size, "%llu.%llu MiB", (unsigned long long)(tenths / 10), (unsigned long long)(tenths % 10));
}

int yc_whole_check(uint64_t *held, uint64_t limit, uint64_t bytes, const char *what, char *msg, size_t size) {
    const uint64_t need = *held + bytes;
    if (limit == 0 || need <= limit) {
        *held = need;
        return 0;
    }
    char needText[32], limitText[32];
    yc_mib_text(needText, sizeof needText, need, 1);
    yc_mib_text(limitText, sizeof limitText, limit, 0);
    // Within a tenth of each other, or a limit below a twentieth of a MiB (the library's callers may give
    // one): the bytes say it.
    if (strcmp(needText, limitText) == 0 || strcmp(limitText, "0 MiB") == 0) {
        snprintf(needText, sizeof needText, "%llu bytes", (unsigned long long)need);
        snprintf(limitText, sizeof limitText, "%llu bytes", (unsigned long long)limit);
    }
    snprintf(msg, size, "%s needs %s held whole%s, above the limit of %s for this file",
             what, needText, *held ? " with what is held already" : "", limitText);
    return 1;
}

int yc_refuse_whole(yc_decoder *dec, uint64_t bytes, const char *what) {
    char msg[YC_MSG];
    if (!yc_whole_check(&dec->whole_held, dec->max_whole, bytes, what, msg, sizeof msg)) return 0;
    yc_set_error(dec, msg);
    dec->error_kind = YC_ERROR_WHOLE_BUDGET;
    return 1;
}

static _Atomic(yc_room_check) room_check;
static _Atomic(yc_room_release) room_release;

void yc_set_room_check(yc_room_check check, yc_room_release release) {
    atomic_store(&room_release, release);
    atomic_store(&room_check, check);
}

int yc_refuse_no_room(yc_decoder *dec, uint64_t bytes, const char *what) {
    yc_room_check check = atomic_load(&room_check);
    if (!check || dec->failed) return 0;
    if (check(bytes)) {
        dec->room_promised += bytes;
        dec->room_owner = yc_thread_token();
        return 0;
    }
    yc_fail_no_room(dec, bytes, what);
    return 1;
}

void yc_fail_no_room(yc_decoder *dec, uint64_t bytes, const char *what) {
    yc_set_error(dec, what);
    dec->error_kind = YC_ERROR_NO_ROOM;
    dec->no_room = bytes;
}

uint64_t yc_no_room_bytes(const yc_decoder *dec) { return dec->no_room; }

void yc_room_taken_part(yc_decoder *dec, uint64_t bytes) {
    if (bytes > dec->room_promised) bytes = dec->room_promised;
    if (!bytes) return;
    yc_room_release release = atomic_load(&room_release);
    if (release) release(bytes, dec->room_owner);
    dec->room_promised -= bytes;
}

void yc_room_taken(yc_decoder *dec) { yc_room_taken_part(dec, dec->room_promised); }

void yc_release_whole(yc_decoder *dec, uint64_t bytes) {
    dec->whole_held = bytes < dec->whole_held ? dec->whole_held - bytes : 0;
}

int yc_failed(const yc_decoder *dec) { return dec->failed; }
uint64_t yc_coefficients_held(const yc_decoder *dec) { return dec->coef_held; }
uint64_t yc_png_image_held(const yc_decoder *dec) {
    return dec->info.png_interlaced ? (uint64_t)dec->png_rowbytes * dec->info.height : 0;
}
yc_error_kind yc_get_error_kind(const yc_decoder *dec) { return dec->error_kind; }
int yc_error_from_library(const yc_decoder *dec) { return dec->error_from_library; }
int yc_file_over_limit(const yc_decoder *dec) { return dec->file_over_limit; }

uint64_t yc_file_read_room(const yc_decoder *dec) { return dec->file_limit - dec->file_read; }

int yc_file_read_allowed(yc_decoder *dec, uint64_t n) {
    if (dec->file_read + n < dec->file_read || dec->file_read + n > dec->file_limit) {
        dec->file_over_limit = 1;
        return 0;
    }
    dec->file_read += n;
    return 1;
}
const char *yc_error(const yc_decoder *dec) { return dec->error; }
int yc_warning_count(const yc_decoder *dec) { return dec->warnings; }
int yc_kept_warning_count(const yc_decoder *dec) { return dec->kept_warnings; }
const char *yc_kept_warning(const yc_decoder *dec, int i, int *damage, int *count) {
    if (i < 0 || i >= dec->kept_warnings) return NULL;
    if (damage) *damage = dec->kept_damage[i];
    if (count) *count = dec->kept_count[i];
    return dec->kept_warning[i];
}
const yc_info *yc_get_info(const yc_decoder *dec) { return &dec->info; }

int yc_read_rows(yc_decoder *dec, uint8_t *dst, size_t stride, uint32_t count) {
    if (dec->failed) return -1;
    if (count > dec->info.height - dec->rows_read) {
        yc_set_error(dec, "read past the last row");
        return -1;
    }
    int rc = dec->format == YC_FORMAT_JPEG ? yc_jpeg_rows(dec, dst, stride, count) : yc_png_rows(dec, dst, stride, count);
    if (rc == 0) dec->rows_read += count;
    return rc;
}

int yc_finish(yc_decoder *dec) {
    if (dec->failed) return -1;
    return dec->format == YC_FORMAT_JPEG ? yc_jpeg_end(dec) : yc_png_end(dec);
}

const yc_colour *yc_get_colour(const yc_decoder *dec) { return &dec->colour; }

void yc_close(yc_decoder *dec) {
    if (!dec) return;
    yc_room_taken(dec);
    if (dec->jpeg_created) jpeg_destroy_decompress(&dec->jpeg);
    if (dec->png) png_destroy_read_struct(&dec->png, dec->png_info ? &dec->png_info : NULL, NULL);
    free(dec->cmyk_row);
    free(dec->ycc_window);
    free(dec->ycc_scratch);
    yc_colour_cmyk_free(dec->cmyk_transform);
    free(dec->exif);
    for (int i = 0; i < 256; i++) free(dec->icc_chunk[i]);
    free(dec->icc);
    free(dec->png_image);
    free(dec->png_index_row);
    yc_png_idat_free(dec);
    yc_png_verify_free(dec);
    free(dec->png_chunks.late_itxt);
    free(dec);
}
