// Row-streaming JPEG and PNG decoding with the libraries' longjmp error handling kept inside C.
// Nothing here lets a longjmp cross a Swift frame: every entry point sets its own setjmp, and every
// failure comes back as a return code plus a message in the decoder (yc_error).
#ifndef YC_DECODE_H
#define YC_DECODE_H

#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

struct yc_stream;   // yc_stream.h

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { YC_FORMAT_UNKNOWN = 0, YC_FORMAT_JPEG = 1, YC_FORMAT_PNG = 2 } yc_format;

/// What the file holds, as stored (before any conversion).
typedef struct {
    uint32_t width, height;
    /// Samples of the decoded rows handed out by yc_read_rows: 4 (R,G,B,X: X is alpha or filler) for JPEG
    /// and 8-bit PNG with alpha (16-bit too when opened with alpha16), 3 (R,G,B) for other PNG. bytes_per_sample is 1, or 2 for 16-bit PNG (native endianness).
    uint32_t channels;
    uint32_t bytes_per_sample;
    // PNG
    int png_color_type;    // PNG_COLOR_TYPE_* (0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA), -1 for JPEG
    int png_bit_depth;     // 1, 2, 4, 8, 16
    int png_interlaced;    // 1 when Adam7
    int png_has_trns;
    // JPEG
    int jpeg_components;   // 1, 3, 4
    int jpeg_colorspace;   // libjpeg J_COLOR_SPACE of the file (1 grey, 2 RGB, 3 YCbCr, 4 CMYK, 5 YCCK)
    int jpeg_h_samp[4], jpeg_v_samp[4];
    int jpeg_progressive;
    int jpeg_arithmetic;
    // Raw (YCbCr, no colour conversion, no upsampling) decoding, when yc_open was asked for it and the file
    // is YCbCr or greyscale: yc_read_raw_band hands out one iMCU row per call.
    int raw;
    int raw_band_rows;            // luma rows per band: max_v_samp * 8
    int raw_plane_width[3];       // padded width of each component's band buffer (width_in_blocks * 8)
    int raw_plane_rows[3];        // rows of each component per band (v_samp * 8)
    int raw_comp_width[3];        // real samples per row of each component (downsampled width)
    int raw_comp_height[3];
    // A 4:2:0 YCbCr JPEG on the RGB route whose planes were asked for (yc_open's `raw` bit 8): decoded without
    // libjpeg's upsampling and colour conversion, and handed out as planes (yc_jpeg_ycc_rows, for yc_ycc420_rgbx
    // on another thread), or made into the same RGB rows here (yc_read_rows). `ycc_held`: the bytes the decoder
    // holds for it (its window; and yc_read_rows' scratch once used).
    int ycc420;
    uint64_t ycc_held;
    /// EXIF orientation (tag 0x0112) from a JPEG's APP1 Exif segment or a PNG's eXIf chunk, else XMP's
    /// tiff:Orientation: 1…8, 1 when absent or out of range. Only read, never applied here.
    int orientation;
    int orientation_from_xmp;   // 1 when `orientation` is XMP's (the file has no EXIF orientation tag)
    int orientation_unusable;   // 1 when the EXIF orientation tag holds no orientation (1…8), 2 when XMP's does
                                // (and there is no EXIF tag): `orientation` is 1
} yc_info;

/// What a file says about its colours, as stored (never applied here): an ICC profile (JPEG APP2
/// "ICC_PROFILE" segments reassembled in order, or PNG iCCP decompressed), PNG sRGB, cHRM and gAMA, and the
/// EXIF InteroperabilityIndex "R03" (Adobe RGB). `icc` is NULL when there is none or its segments are
/// incomplete (`icc_broken` then says so).
typedef struct {
    const uint8_t *icc;
    size_t icc_length;
    int icc_broken;          // 1: ICC segments that do not make a whole profile (missing, repeated, bad counts);
                             // 2: a PNG iCCP that libpng rejected; `icc_rejected` says why, libpng's words after it
                             // on the chunk (empty: none)
    char icc_rejected[384];
    int srgb;                // PNG sRGB chunk present
    int has_cicp;            // PNG cICP: colour primaries, transfer, matrix, full range (H.273 code points)
    uint8_t cicp[4];
    int has_chrm;            // PNG cHRM: white x,y then red, green, blue x,y
    double chrm[8];
    int has_gama;            // PNG gAMA: the file gamma (0.45455 for 1/2.2)
    double gama;
    int exif_adobe_rgb;      // EXIF InteroperabilityIndex "R03"
    int grey;                // the image's samples are grey (a 1-component JPEG, a grey or grey+alpha PNG)
    int cmyk;                // a CMYK or YCCK JPEG
    int deep;                // 16-bit samples (a 16-bit PNG): curves are checked at every 16-bit level
    /// When yc_open was given a colour target: what colour management does (yc_colour_action: 0 nothing,
    /// 1 a transform, -1 a broken profile) and a sentence saying so.
    int action;
    /// 1 when the plan keeps the numbers and they are sRGB's — no colour information, an sRGB source, a profile
    /// that cannot be used (samples as stored, read as sRGB) — while the target is another space: outputs are
    /// labelled sRGB, what the numbers are, not the target's primaries.
    int kept_srgb;
    char text[1792];
} yc_colour;

/// 1 when the TIFF structure's Exif IFD has an Interoperability IFD whose InteroperabilityIndex is "R03"
/// (Adobe RGB, DCF's option file). Never reads outside `bytes[0..<count]`.
int yc_exif_adobe_rgb(const uint8_t *bytes, size_t count);

/// The orientation tag of a TIFF structure (EXIF data from its "II*\0"/"MM\0*" header on): 1…8, or 1 when
/// the data is short, malformed or has no valid tag. Never reads outside `bytes[0..<count]`.
int yc_exif_orientation(const uint8_t *bytes, size_t count);
/// The tag itself: 1…8; −1 when the tag is there but unusable (a value out of range, a wrong type); 0 when
/// there is none (or no TIFF structure).
int yc_exif_orientation_tag(const uint8_t *bytes, size_t count);
/// The one rule for a picture's orientation, from its EXIF tag (`yc_exif_orientation_tag`) and XMP's
/// tiff:Orientation (0 when absent): EXIF when it has the tag — an unusable one means as stored (1), as
/// Pillow reads it — else XMP, else 1. `*from_xmp`: 1 when XMP's was taken (what the report names).
int yc_orientation_choice(int exif_tag, int xmp_orientation, int *from_xmp);
/// Whether the orientation that decides holds none: 1 EXIF's (an unusable tag), 2 XMP's (no EXIF tag, and
/// tiff:Orientation unusable), else 0 (`yc_decode_info.orientation_unusable`).
int yc_orientation_unusable(int exif_tag, int xmp_orientation);
/// Why EXIF data (TIFF structure, `n` bytes) cannot be read as far as its first directory's end — not TIFF, its
/// first directory outside it or cut short — or NULL when it can (whatever that directory holds).
const char *yc_exif_damage(const uint8_t *b, size_t n);

/// XMP's tiff:Orientation in an XMP packet, read as XML markup (yc_metadata.c): the first attribute or element
/// named P:Orientation, P bound to the TIFF namespace (or `tiff` bound to no other), outside comments, CDATA and
/// other attributes' values, decides: 1…8 when its value is an integer 1…8 (spaces around it, a leading + and
/// leading zeros allowed, as XML Schema's integers) or a character reference to one digit 1…8, else −1 (there,
/// but no orientation: said as EXIF's is); 0 when absent or cut short. Used when a file has no EXIF orientation
/// tag — an EXIF 1 is an orientation (JPEG: the first APP1 XMP segment; PNG: the first
/// "XML:com.adobe.xmp" iTXt before the image data, inflated when compressed). Never reads outside `bytes[0..<count]`.
int yc_xmp_orientation(const uint8_t *bytes, size_t count);

typedef struct yc_decoder yc_decoder;

/// Sniffs the first bytes of a signature: JPEG (FF D8 FF) or PNG (the 8-byte signature).
yc_format yc_sniff(const uint8_t *bytes, size_t count);

/// libjpeg's reading of `data` as a JPEG's header, up to its first scan: 1 it reads, 0 libjpeg refuses it (not a
/// JPEG's header, or a damaged one), 2 the data ends before the header does (more may make it read).
int yc_jpeg_header_state(const uint8_t *data, size_t size);

/// Opens a decoder on `file` (positioned at the start of the image) and reads the header.
/// Refuses images with more than `max_pixels` pixels before allocating anything for them.
/// `allow_truncated`: accept JPEG data that ends early or is corrupt (libjpeg fills grey) instead of failing.
/// Returns NULL only when out of memory; otherwise check yc_failed().
/// `raw`: for a YCbCr or greyscale JPEG, decode to planes (yc_read_raw_band) instead of RGB rows.
/// `alpha16`: a 16-bit PNG with alpha keeps it (R,G,B,A 16-bit rows, channels 4) instead of dropping it.
/// `max_scans`: a JPEG with more scans than this is refused (0: no limit; libjpeg-turbo's tools use 500).
/// `colour_target`: a yc_target (yc_colour.h) to plan colour management for (yc_get_colour's action and
/// text), or -1 for none. A JPEG that needs a transform is not decoded raw: colour needs RGB. `raw`, bits:
/// 1 asks for the raw planes; 2 only when turning by the file's EXIF orientation (which the caller will apply)
/// keeps the chroma grid; 4 also when the chroma is at full resolution (4:4:4), which otherwise goes through
/// RGB (`yc_jpeg_open`); 8 a 4:2:0 YCbCr JPEG on the RGB route hands out its planes (info.ycc420,
/// yc_jpeg_ycc_rows) for the caller to make RGB rows of on another thread — unless 16 is set too (the caller turns
/// by the file's orientation) and the orientation turns it. 32: orientations are not applied (--orientation
/// ignore): warnings about orientation metadata say so, or are not made when nothing else reads it. 64: the caller
/// keeps a turned picture's stored copy to the end (it measures against it, `--metrics`).
/// `max_whole`: the most bytes the decoder may hold a picture whole in — a progressive or multi-scan JPEG's
/// coefficients, an interlaced PNG's rows; more is refused before any is allocated (YC_ERROR_WHOLE_BUDGET,
/// the message says how much it needs). 0: no limit.
yc_decoder *yc_open(FILE *file, yc_format format, uint64_t max_pixels, uint64_t max_whole, int max_scans,
                    int allow_truncated, int raw, int alpha16, int colour_target, struct yc_stream *stream);
/// What the caller will hold whole beside the decoder's own (a stream output's chroma and alpha planes, held
/// until the luma plane has gone out): `per_block` bytes for each 2x2 block (rounded up at odd sides) and
/// `per_pixel` bytes a pixel, and `per_odd_block` more a block when a side is odd (a JPEG encoder's padded luma), for `what`. A progressive or multi-scan JPEG reads every scan in yc_open, so it
/// counts them there, from its header, before its coefficients (`yc_held_counted` then says so) — unless the
/// caller turns the picture by its orientation and lets the stored copy go (not 64): then they are let go again
/// there and left to the caller, for after the turn; any other source leaves them to the caller's yc_refuse_whole. yc_open is yc_open_held with nothing held.
yc_decoder *yc_open_held(FILE *file, yc_format format, uint64_t max_pixels, uint64_t max_whole, int max_scans,
                         int allow_truncated, int raw, int alpha16, int colour_target, struct yc_stream *stream,
                         uint64_t per_block, uint64_t per_pixel, uint64_t per_odd_block, const char *what);
int yc_held_counted(const yc_decoder *dec);
/// The most bytes a JPEG or PNG is read for under `max_pixels`, from a file or a stream: the largest uncompressed
/// 16-bit RGBA picture the limit allows, plus 16 MiB for metadata (UINT64_MAX where that overflows).
uint64_t yc_read_limit(uint64_t max_pixels);
/// 1, with the decoder failed (YC_ERROR_WHOLE_BUDGET, naming `what` and the sizes), when `bytes` more held whole
/// for `what`, with what is held already (the decoder's own coefficients or rows, and what passed before), are
/// above `max_whole`; else 0, and they count. The decoder's own go through it in yc_open, the caller's whole
/// buffers (a turned picture, an encoder's) after.
int yc_refuse_whole(yc_decoder *dec, uint64_t bytes, const char *what);
/// Asked before the decoder takes a picture whole itself (a multi-scan JPEG's coefficients, an interlaced PNG's
/// rows), after yc_refuse_whole: whether the address space holds `bytes` and the work after them (the Swift side's
/// `Ledger.roomForWhole`, which waits while other conversions may give some back). Without it, a picture that
/// took the room left a conversion's buffers refused after it. NULL (the default): not asked.
/// A yes is a promise of those bytes to the decoder, counted against every other look for room, until the library
/// has allocated them (`release`, with the bytes): a look and an allocation apart let two jobs of a batch both be
/// told of room there was for one, and one of them fail "libjpeg: Insufficient memory".
/// `owner`: the thread the promise was made on (`yc_thread_token`), whose own later looks do not count it.
typedef int (*yc_room_check)(uint64_t bytes);
typedef void (*yc_room_release)(uint64_t bytes, uintptr_t owner);
void yc_set_room_check(yc_room_check check, yc_room_release release);
/// The bytes a decoder failed with YC_ERROR_NO_ROOM could not have (its error text names what for).
uint64_t yc_no_room_bytes(const yc_decoder *dec);
/// `bytes` counted by yc_refuse_whole let go (a turned picture's stored copy once it is turned): what is held
/// whole after it is checked against what is held then.
void yc_release_whole(yc_decoder *dec, uint64_t bytes);
/// The rule and the sentence behind yc_refuse_whole, for a count of its own (a YUV input, which has no
/// decoder): 0, and `bytes` added to `*held`, when `*held + bytes` is within `limit` (0: none); else 1 with the
/// refusal in `msg`.
int yc_whole_check(uint64_t *held, uint64_t limit, uint64_t bytes, const char *what, char *msg, size_t size);

/// 1 when the decoder has failed; the message stays available from yc_error.
int yc_failed(const yc_decoder *dec);
/// The bytes libjpeg holds for a multi-scan (progressive) JPEG's coefficients, the whole picture's: 0 for others.
uint64_t yc_coefficients_held(const yc_decoder *dec);
/// The bytes libpng's rows of an interlaced PNG take, held whole while it is read (its stored row format: one
/// index a pixel for a palette, not the RGB(A) rows the conversion gets); 0 for other pictures.
uint64_t yc_png_image_held(const yc_decoder *dec);
/// What kind of failure it was, for the caller to say what the user can do about it (messages name no options).
typedef enum {
    YC_ERROR_OTHER = 0,
    YC_ERROR_DAMAGED = 1,          // libjpeg warned that pixels are missing or wrong (truncated, corrupt)
    YC_ERROR_TOO_LARGE = 2,        // above max_pixels (yc_get_info has the size)
    YC_ERROR_TOO_MANY_SCANS = 3,   // above max_scans
    YC_ERROR_INTERRUPTED = 4,      // a graceful interrupt was asked for
    YC_ERROR_WHOLE_BUDGET = 5,     // a picture held whole (progressive JPEG, interlaced PNG) above max_whole
    YC_ERROR_LEFTOVER = 6,         // a multi-scan JPEG's scan read from fewer bytes than it holds (damaged codes)
    YC_ERROR_NO_ROOM = 7           // the address space (ulimit -v) holds no room for a picture held whole (yc_set_room_check)
} yc_error_kind;
yc_error_kind yc_get_error_kind(const yc_decoder *dec);
/// Whether the error's text (`yc_error`) is libjpeg's own message rather than a sentence of yuvconv's: one
/// LibraryMessages has no sentence for still gets one.
int yc_error_from_library(const yc_decoder *dec);
/// Whether the decoder stopped reading a file at 16 MiB + 8 bytes a pixel of its pixel limit (no image within
/// the limit needs more: junk, holes of a sparse file, skipped chunks).
int yc_file_over_limit(const yc_decoder *dec);
const char *yc_error(const yc_decoder *dec);
/// Warnings tolerated so far (for example extraneous bytes between JPEG segments).
int yc_warning_count(const yc_decoder *dec);
/// The kinds of warning kept (at most 16, in the order they came: warnings that differ only in their decimal
/// numbers are one kind), and kind `i`'s first text, with `*damage` set to 1 when it says pixels were damaged
/// (converted past with --allow-truncated) and `*count` to how many warnings of the kind came.
int yc_kept_warning_count(const yc_decoder *dec);
const char *yc_kept_warning(const yc_decoder *dec, int i, int *damage, int *count);

const yc_info *yc_get_info(const yc_decoder *dec);

/// The colour information read with the header (valid until yc_close).
const yc_colour *yc_get_colour(const yc_decoder *dec);

/// Decodes the next `count` rows (see yc_info.channels) into `dst`, rows `stride` bytes apart.
/// Returns 0 on success, -1 on failure (see yc_error).
int yc_read_rows(yc_decoder *dec, uint8_t *dst, size_t stride, uint32_t count);

/// Decodes the next band (one iMCU row) of a raw decoder: component c is written to planes[c], rows
/// strides[c] bytes apart, raw_plane_rows[c] rows of raw_plane_width[c] bytes. Returns the luma rows it
/// holds (the last band may reach below the picture: crop to height), or -1 on failure.
int yc_read_raw_band(yc_decoder *dec, uint8_t *const planes[3], const size_t strides[3]);

/// The direct path's inverse DCT on another thread (yc_jpeg_idct.c): yc_read_raw_band_deferred decodes a band as
/// yc_read_raw_band does, but leaves each block's inverse DCT (its coefficients and where it goes) in `ring`, as
/// part of slot `slot`'s band; yc_idct_ring_run(ring, slot) — on the one thread that converts the bands, in the
/// order they were read, before the band's samples are read, while the decoder may already decode the next band
/// into other planes — writes those samples, the same bytes yc_read_raw_band would have, and gives the band's
/// room in the ring back. yc_idct_ring_begin starts slot `slot`'s next band (the slot free: its band before was
/// run), whose iMCU rows yc_read_raw_band_deferred then adds, each in turn; yc_idct_ring_share runs a piece of a
/// band handed on, for the decoding thread while it waits for a slot (the run then waits for that piece): 1
/// when it did one, 0 when none is left. A block that finds the ring full is run at once.
/// The ring lives in a caller's buffer of yc_idct_ring_bytes (64-byte aligned) and holds `imcu_rows` iMCU rows;
/// yc_idct_ring_bytes is 0 when this decoder's blocks cannot be queued (not a started raw decoder; on x86-64 a
/// CPU without AVX2, whose libjpeg-turbo rows a thread that never chose them may not run), and
/// yc_idct_ring_init NULL for a buffer that does not fit or more than 8 slots.
typedef struct yc_idct_ring yc_idct_ring;
size_t yc_idct_ring_bytes(const yc_decoder *dec, int imcu_rows);
yc_idct_ring *yc_idct_ring_init(yc_decoder *dec, void *buffer, size_t bytes, int imcu_rows, int slots);
void yc_idct_ring_begin(yc_idct_ring *ring, int slot);
int yc_read_raw_band_deferred(yc_decoder *dec, uint8_t *const planes[3], const size_t strides[3], yc_idct_ring *ring,
                              int slot);
void yc_idct_ring_run(yc_idct_ring *ring, int slot);
int yc_idct_ring_share(yc_idct_ring *ring, int slot);
/// Over the process so far: blocks queued, blocks run from the ring, and pieces the decoding thread shared (for
/// tests).
void yc_idct_counts(unsigned long long *queued, unsigned long long *run, unsigned long long *shared);

/// A 4:2:0 YCbCr decoder's next `count` rows as planes (info.ycc420): luma rows at y, yStride apart, and the
/// chroma rows yc_ycc420_rgbx reads for them — every chroma row from ⌊first/2⌋ − 1 to ⌊(first + count − 1)/2⌋ + 1
/// (first: the rows read before), the picture's first and last repeated past its edges — at cb and cr,
/// cStride apart. Every row owns its whole stride: libjpeg may write whole blocks into it (up to 7 bytes past
/// width, or ⌈width/2⌉), so y must hold count·yStride bytes and cb, cr (count/2 + 3)·cStride; yStride ≥ width
/// and cStride ≥ ⌈width/2⌉. 0, or −1 with yc_error set.
int yc_jpeg_ycc_rows(yc_decoder *dec, uint8_t *y, size_t yStride, uint8_t *cb, uint8_t *cr, size_t cStride,
                     uint32_t count);

/// Reads to the end of the image (checksums, trailing chunks). 0 on success, -1 on failure.
int yc_finish(yc_decoder *dec);

/// Frees everything. Does not close the FILE.
void yc_close(yc_decoder *dec);

#ifdef __cplusplus
}
#endif
#endif
