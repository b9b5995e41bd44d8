// What the JPEG and PNG halves of the row-streaming decoder share (private to CShims; see yc_decode.h for
// the API): the decoder's state, the error helper, and each format's entry points, which yc_decode.c
// dispatches to.
#ifndef YC_DECODE_INTERNAL_H
#define YC_DECODE_INTERNAL_H

#include "yc_decode.h"

#include <setjmp.h>
#include <stdio.h>

#include <jpeglib.h>
#include <png.h>
#include <zlib.h>

#define YC_MSG 512
/// Distinct warnings a decoder keeps the text of (`kept_warning`).
#define YC_WARN_KEPT 16
/// The longest PNG chunk other than IDAT that libpng is allowed to hold (png_set_chunk_malloc_max).
#define YC_PNG_CHUNK_MAX (8u << 20)

struct yc_jpeg_err {
    struct jpeg_error_mgr pub;
    yc_decoder *dec;
};

struct yc_decoder {
    yc_format format;
    yc_info info;
    int failed;
    yc_error_kind error_kind;
    int error_from_library;   // the error's text is libjpeg's own message (`yc_error_from_library`)
    // Bytes the decoder read from a regular file, and the most it may (16 MiB + 8 bytes a pixel of max_pixels, as
    // a stream's): junk, holes and skipped chunks are read byte by byte, and a sparse file costs nothing on disk.
    uint64_t file_read, file_limit;
    int file_over_limit;
    // What the caller holds whole beside the decoder (yc_open_held), and whether jpeg_start counted it.
    uint64_t held_per_block, held_per_pixel, held_per_odd_block;
    char held_what[256];
    int held_counted;
    char error[YC_MSG];
    int warnings;
    char first_warning[YC_MSG];
    // The first YC_WARN_KEPT kinds of warning (`same_kind`), how many of each, and whether each says pixels were damaged (converted
    // past with --allow-truncated): a run says each of them, the damage first, not only the first.
    char kept_warning[YC_WARN_KEPT][YC_MSG];
    int kept_damage[YC_WARN_KEPT];
    int kept_count[YC_WARN_KEPT];   // the warnings of that kind
    int kept_warnings;
    int allow_truncated;
    // Orientations are not applied (--orientation ignore): what is said of orientation metadata is said without
    // them, or not at all (the 32 bit of yc_open's `raw`).
    int orientation_ignored;
    // The caller keeps a turned picture's stored copy to the end (raw & 64: it measures against it).
    int stored_kept;
    // The JPEG's header is read: a damage warning after it is about image data, which --allow-truncated lets
    // libjpeg decode past (filling what is missing); one before it means there is no image to accept.
    int jpeg_header_read;
    // The file ended inside the only scan of a Huffman-coded sequential JPEG (`jpeg_eof_may_be_harmless`):
    // whether pixels are missing shows only when the decoder needs bits past the end (JWRN_HIT_MARKER, an
    // error that then quotes this warning). If it never does, only the end marker was missing.
    int jpeg_eof_deferred;
    char jpeg_eof_text[YC_MSG];
    unsigned jpeg_scanned;   // the components a scan held so far (bit per component index)
    int jpeg_scan_seen;           // the last scan counted into jpeg_scan_units (its input_scan_number)
    uint64_t jpeg_scan_units;     // scans so far, each counted once per component it holds (`jpeg_progress`)
    int alpha16;     // keep a 16-bit PNG's alpha (R,G,B,A rows)
    uint64_t max_pixels;
    uint64_t max_whole;   // bytes a picture held whole may take (yc_open), 0: no limit
    uint64_t coef_held;   // of which a multi-scan JPEG's coefficients, which libjpeg allocates (counted by the callers)
    char png_too_large[4];       // the chunk libpng last said was too large (said once a chunk name)
    uint64_t no_room;     // the bytes refused by the room check (YC_ERROR_NO_ROOM)
    uint64_t room_promised; // the bytes the room check said yes to, until the library has allocated them (yc_room_taken)
    uintptr_t room_owner;   // the thread they were promised on (yc_thread_token)
    uint64_t room_beside;   // of them, the caller's picture beside a multi-scan JPEG's coefficients: promised to the end
    uint64_t whole_held;  // bytes the decoder holds whole (a multi-scan JPEG's coefficients, an interlaced PNG)
    int max_scans;   // a progressive JPEG with more scans is refused (0: no limit)
    int colour_target; // yc_target to plan colour management for, -1 for none
    jmp_buf jump;
    uint32_t rows_read;

    // JPEG
    struct jpeg_decompress_struct jpeg;
    struct yc_jpeg_err jerr;
    struct jpeg_progress_mgr progress;
    int jpeg_created, jpeg_started;
    // The ring yc_read_raw_band_deferred's call fills (yc_jpeg_idct.c), during that call only.
    struct yc_idct_ring *idct_ring;
    uint8_t *exif;       // the first APP1 Exif segment's body ("Exif\0\0", then TIFF data), for the orientation
    size_t exif_length;
    int exif_second_said;   // a second Exif segment was said (once)
    int icc_late_said;      // an ICC profile piece after the first scan was said (once): not read
    int exif_late_said;     // a first Exif segment after the first scan was said (once): not read
    int xmp_late_said;      // an XMP orientation after the first scan was said (once): not applied
    int xmp_orientation; // tiff:Orientation from the first XMP packet (JPEG APP1, PNG iTXt): 1…8, −1 unusable, 0 absent
    int xmp_seen;        // a JPEG's first XMP packet was read (the one that decides)
    int png_late_xmp;    // an XMP iTXt after the image data held an orientation that would have been used (a warning)
    int png_xmp_seen;    // an XMP iTXt was read (or ignored): the first one is the only one, before or after the data
    // A PNG's first eXIf chunk, read through the unknown-chunk callback (bounded by png_set_chunk_malloc_max:
    // libpng's own eXIf handler allocates whatever the chunk holds): its orientation tag and Adobe RGB hint.
    int png_exif_seen, png_exif_tag, png_exif_adobe_rgb;
    // An APP1 segment's body as it is read: a fixed buffer, since a read can end in a longjmp (a truncated
    // file) and nothing allocated may be in flight then. A segment is at most 65533 bytes.
    uint8_t app1[65536];
    uint8_t *cmyk_row;   // one row of CMYK when the file is CMYK/YCCK
    // A 4:2:0 YCbCr JPEG on the RGB route (info.ycc420): two iMCU rows of planes (each 16 luma rows and 8 of
    // Cb and Cr, the widths raw_plane_width), decoded raw in turn — a band's rows reach one chroma row past
    // its own luma, into the next iMCU row — and which iMCU row each half holds (−1: none yet).
    uint8_t *ycc_window;
    size_t ycc_half;
    long ycc_imcu[2];
    long ycc_decoded;
    long ycc_carried;       // the chroma row kept after the window's halves (`ycc_rows`), −1 none
    uint8_t *ycc_scratch;   // yc_read_rows' planes in this mode: 16 luma rows and their chroma rows
    void *cmyk_transform; // its embedded CMYK profile to the colour target (yc_colour_cmyk_create), or NULL
    // APP2 ICC_PROFILE segments as they arrive (seq 1…count, each malloc'ed), joined after the header.
    uint8_t *icc_chunk[256];
    size_t icc_chunk_length[256];
    int icc_count;       // the segments' declared total (0: none seen)
    int icc_bad;         // inconsistent counts or a repeated sequence number
    int icc_short;       // an APP2 "ICC_PROFILE" piece cut before its sequence number and count
    int icc_joined;      // the header is read and its pieces joined (yc_jpeg_colour): later APP2 segments are skipped

    // Colour information for yc_get_colour (its icc points at `icc`).
    yc_colour colour;
    uint8_t *icc;

    // PNG
    FILE *png_file;
    struct yc_png_chunks {   // where the reader is in the chunk stream, for the critical chunks' CRCs
        int state;           // 0 signature, 1 length and type, 2 data, 3 CRC
        size_t at;           // bytes of the signature, header or CRC seen
        uint8_t header[8], stored[4];
        uint32_t left;       // data bytes still to come
        uint32_t crc;
        int critical;
        int ancillary_too;   // also check ancillary chunks' CRCs (a warning): set after the image data read here
        int seen_idat;       // an IDAT header went by
        int seen_gama, seen_chrm, seen_srgb, seen_cicp;  // such a chunk was handed over before the image data, used or not
        // iCCP chunks before the image data: how many went by; whether later ones are skipped; whether the profile
        // libpng keeps came in a chunk that failed its CRC (libpng keeps such a profile). The chunk being read
        // (`iccp_reading`: its CRC taken) counts only if libpng replaced the profile with it: the profile libpng
        // held at its header (`iccp_before`) is compared once the chunk is over (`yc_png_iccp_settle`).
        int seen_iccp, iccp_skipping, iccp_crc_bad, iccp_reading, iccp_pending, iccp_pending_bad, iccp_damaged;
        int after_stream_warned;  // image data in an IDAT chunk after the zlib stream's end was said
        int animated, frame_before_idat;  // an APNG's acTL, and an fcTL, before the image data
        const void *iccp_before;
        // After the last row's data (`yc_png_rows_done`): IDAT data bytes read, and the most allowed (0: not
        // there yet).
        uint64_t tail, tail_cap;
        int late_exif;       // an eXIf header went by after one (too late for the orientation: a warning)
        uint8_t *late_itxt;  // an iTXt after one, gathered as it is read for yc_png_itxt (freed by yc_close)
        size_t late_itxt_at;
        char late_colour[40]; // the colour chunks (iCCP, cICP, sRGB, gAMA, cHRM, tRNS) that went by after one: a warning
        // libpng's route (interlaced, 1/2/4-bit grey, tRNS-keyed): the image data inflated a second time
        // as it goes by, to take its Adler-32, which libpng does not always reach (yc_png_verify_begin).
        z_stream verify;
        int verify_state;    // 0 off, 1 inflating, 2 ended with the right checksum, -1 failed (`verify.msg`),
                             // -2 image data resumed after another chunk
        uint8_t *verify_out;
    } png_chunks;
    struct yc_png_idat {     // the image data read here (yc_png_idat.c), when `active`
        int active, palette, grey, depth;   // grey: bytes a pixel (1 grey, 2 grey and alpha), 0 otherwise
        int deep, out_channels;             // 16-bit: samples a pixel as stored (`deep`: 1–4) and as handed out (3, 4)
        size_t row_bytes, bpp;  // bytes of a row as filtered (without its filter byte); of a pixel, at least 1
        z_stream z;
        int z_ready, stream_ended, ended, extra_warned, finished;
        int trailer_read;       // the zlib stream's Adler-32 has been read: image data after it is not the image's
        uint8_t *in;            // compressed bytes as read
        size_t in_size;
        uint8_t *prev, *row;    // the row above, unfiltered; (palette, grey) this row
        uint32_t adler;
    } png_idat;
    png_structp png;
    png_infop png_info;
    int png_last_pass;             // the last Adam7 pass with data (0 when not interlaced), and its last row
    png_uint_32 png_last_pass_row;
    uint8_t *png_image;  // whole image, only for interlaced PNG (Adam7 needs every pass)
    int png_image_read;  // its seven passes read (at the first rows)
    size_t png_rowbytes;
    uint8_t *png_index_row;        // one row of palette indices (palette images only)
    uint8_t png_palette[256][4];   // R,G,B,A
    int png_palette_count;
    int png_bad_index;             // an index past the palette's end was seen (warned once)
};

/// Plans colour management into dec->colour (action, text) when a target was given; returns the action.
/// A failed decoder when the system refused LittleCMS memory for it (`yc_lcms_take_refusal`).
int yc_plan_colour(yc_decoder *dec);

/// Takes this thread's LittleCMS refusal (`yc_lcms_take_refusal`; cleared by the caller before the profile or
/// transform was made): when there was one, fails `dec` as out of memory for `what` and returns 1.
int yc_fail_if_lcms_refused(yc_decoder *dec, const char *what);

/// Records the first failure's message (later ones are consequences).
void yc_set_error(yc_decoder *dec, const char *msg);
/// Counts `n` more bytes read from the file; 0 (and `file_over_limit` set) past `file_limit`.
int yc_file_read_allowed(yc_decoder *dec, uint64_t n);
/// The bytes the file may still give (`file_limit` less what was read).
uint64_t yc_file_read_room(const yc_decoder *dec);

/// jpeg_read_raw_data of one band (info.raw_band_rows luma rows, info.raw_plane_rows of each component) into
/// `planes`, rows `strides` apart: the rows read, or 0 with the error set (yc_jpeg.c; the caller's setjmp).
int yc_jpeg_read_raw(yc_decoder *dec, uint8_t *const planes[3], const size_t strides[3]);
/// A 4:2:0 photo's planes for the RGB route (yc_jpeg_planes.c): whether yc_jpeg_open takes them (the header read,
/// `raw` yc_open's bits); after jpeg_start_decompress in raw mode, the reader's state; and yc_read_rows' RGB rows
/// from them.
int yc_jpeg_ycc_wanted(yc_decoder *dec, int raw);
void yc_jpeg_ycc_begin(yc_decoder *dec);
int yc_jpeg_ycc_rgbx_rows(yc_decoder *dec, uint8_t *dst, size_t stride, uint32_t count);

/// Counts a warning the decoder tolerated, keeping the first one's message and the first distinct ones'.
void yc_warn(yc_decoder *dec, const char *msg);
/// The same for damage in the image data converted past (`--allow-truncated`): said before the others.
void yc_warn_damage(yc_decoder *dec, const char *msg);
/// The same for EXIF data (a JPEG's APP1, a PNG's eXIf), read for its orientation and a colour space hint: not
/// said when neither is used (`--orientation ignore` and no colour management).
void yc_warn_exif(yc_decoder *dec, const char *msg);
/// The same for XMP, read for its orientation alone: not said with `--orientation ignore`.
void yc_warn_xmp(yc_decoder *dec, const char *msg);
/// Warns when EXIF data (TIFF structure, `n` bytes at `b`) is damaged (`yc_exif_damage`): "`what`: why; whether
/// the orientation tag `tag` found before the damage is used". JPEG's APP1 and PNG's eXIf alike.
void yc_warn_exif_damage(yc_decoder *dec, const char *what, const uint8_t *b, size_t n, int tag);

/// libjpeg's error exit, message handler and progress monitor for a decoder (yc_jpeg_watch.c): errors and the
/// warnings that mean lost pixels end the decode (longjmp to `dec->jump`), the others are counted; the scan
/// limit and interrupts are checked between units of work.
void yc_jpeg_error_exit(j_common_ptr cinfo);
void yc_jpeg_emit_message(j_common_ptr cinfo, int level);
void yc_jpeg_progress(j_common_ptr cinfo);
void yc_jpeg_open(yc_decoder *dec, FILE *file, struct yc_stream *stream, int raw);
int yc_jpeg_rows(yc_decoder *dec, uint8_t *dst, size_t stride, uint32_t count);
int yc_jpeg_end(yc_decoder *dec);
/// The APP1 and APP2 marker processors, the profile and EXIF hint joined after the header, and the orientation
/// (yc_jpeg_markers.c).
boolean yc_jpeg_app1_marker(j_decompress_ptr cinfo);
boolean yc_jpeg_app2_marker(j_decompress_ptr cinfo);
void yc_jpeg_colour(yc_decoder *dec);
int yc_jpeg_orientation(yc_decoder *dec, int *from_xmp);
void yc_png_open(yc_decoder *dec, FILE *file);
/// Exactly n bytes of the PNG file, as libpng reads them (CRCs followed); longjmps on failure.
void yc_png_read(yc_decoder *dec, uint8_t *buf, size_t n);
/// A chunk type as libpng writes it in messages: letters as they are, other bytes as [XX] (17 bytes with the NUL).
void yc_png_chunk_name(const uint8_t type[4], char name[17]);
/// A critical chunk yuvconv does not know, met after the image data: a warning (both routes).
void yc_png_late_critical(yc_decoder *dec, const uint8_t *type);
/// Whether a chunk type is one of PNG's four critical chunks.
int yc_png_known_critical(const uint8_t *type);
/// Whether a chunk type (its first 4 bytes) is one of those that say a PNG's colours — iCCP, cICP, sRGB, gAMA,
/// cHRM (not tRNS) —, which colour management off does not look at, late, damaged or not.
int yc_png_colour_chunk(const char *type);
/// Whether a chunk type is four ASCII letters, as PNG requires (what `yc_png_chunk_name` spells as itself).
int yc_png_chunk_type_valid(const uint8_t type[4]);
/// The image data read here (yc_png_idat.c): set up after png_read_info (0: out of memory), rows (each
/// palette row through `expand`), the chunks after the image data, and the memory.
int yc_png_idat_begin(yc_decoder *dec, int palette, int grey, int depth, int channels);
/// The same for a non-interlaced 16-bit image without tRNS: `stored` samples a pixel (grey, grey+alpha, RGB,
/// RGBA) handed out as `out` (3: R,G,B; 4: R,G,B,A) in host order, as libpng's transformations give them.
int yc_png_idat_begin16(yc_decoder *dec, int stored, int out);
/// After an iCCP chunk libpng was let read: whether it now holds that chunk's profile, and so that chunk's CRC
/// decides `iccp_crc_bad` (a chunk libpng turned away leaves the profile, and the flag, as they were).
void yc_png_iccp_settle(yc_decoder *dec);
/// libpng's route: the image data is inflated a second time as it is read, for its Adler-32 (0: out of memory).
int yc_png_verify_begin(yc_decoder *dec);
/// After png_read_end: an error (longjmp) unless that zlib stream ended with the right checksum.
void yc_png_verify_end(yc_decoder *dec);
void yc_png_verify_free(yc_decoder *dec);
void yc_png_idat_rows(yc_decoder *dec, uint8_t *dst, size_t stride, uint32_t count,
                      void (*expand)(yc_decoder *, const uint8_t *, uint8_t *, uint32_t));
int yc_png_idat_end(yc_decoder *dec);
void yc_png_idat_free(yc_decoder *dec);
int yc_png_rows(yc_decoder *dec, uint8_t *dst, size_t stride, uint32_t count);
int yc_png_end(yc_decoder *dec);

/// A PNG's XMP packet may inflate to this much (a compressed iTXt): real packets are a few KiB, thumbnails
/// included rarely past a few hundred.
#define YC_PNG_XMP_MAX (1u << 20)
/// An iTXt chunk's data, before or after the image data (yc_png.c): when it is the first XMP packet, its

/// tiff:Orientation is the file's XMP orientation — or, after the image data, too late (a warning at the end).
/// `yc_png_itxt_wanted`: whether such a chunk could still matter (the chunk need not be kept otherwise).
void yc_png_itxt(yc_decoder *dec, const uint8_t *data, size_t length);
int yc_png_itxt_wanted(const yc_decoder *dec);
/// The last row's data is inflated: from now on the image data read is bounded (yc_png_stream.c).
void yc_png_rows_done(yc_decoder *dec);
/// yc_png_chunks.c: libpng told which chunks to skip and which to hand over (XMP iTXt, eXIf, cICP, sRGB), before
/// png_read_info; the colour chunks as stored, after it.
void yc_png_follow_metadata(yc_decoder *dec);
void yc_png_colour(yc_decoder *dec);
/// libpng's read function (yc_png_stream.c): the bytes, with the chunk stream followed; a short read is an error.
void yc_png_read_fn(png_structp png, png_bytep data, size_t length);
/// libpng's row callback (a user transform): the last row with data starts the bound (yc_png_rows_done).
void yc_png_row_inflated(png_structp png, png_row_infop row_info, png_bytep data);

/// A chunk (`name`, `n` bytes of it) over the 8 MiB libpng is allowed, said as both PNG routes say it: once a chunk
/// name (libpng says it twice of one chunk, in two wordings: caching it, then handling it), an eXIf's only when
/// something reads it (`yc_warn_exif`), as its other damage is.
void yc_png_chunk_too_large(yc_decoder *dec, const char *name, int n);

/// The warning for a PNG eXIf chunk after the image data (both PNG routes).
#define YC_PNG_LATE_EXIF "an eXIf chunk after the image data is not read: whatever it says (an orientation, an " \
    "Adobe RGB colour space) is not applied (the picture is converted as if the chunk were not there)"

/// The decoder's own whole picture (`what`, `bytes`), after yc_refuse_whole: 1, with the decoder failed
/// (YC_ERROR_NO_ROOM), when the room check says the address space cannot hold it and the work after it.
int yc_refuse_no_room(yc_decoder *dec, uint64_t bytes, const char *what);
/// The bytes yc_refuse_no_room was told there is room for are allocated (or never will be: the decoder failed or
/// is closed): the room check's promise of them to this decoder ends (`yc_room_release`). Nothing when none.
void yc_room_taken(yc_decoder *dec);
/// The decoder failed for want of `bytes` of memory for `what` (YC_ERROR_NO_ROOM: the caller words it as every such
/// refusal, with the size and the address-space limit).
void yc_fail_no_room(yc_decoder *dec, uint64_t bytes, const char *what);
/// `bytes` of the promise allocated (at most what is promised): they end; the rest stays promised.
void yc_room_taken_part(yc_decoder *dec, uint64_t bytes);

/// The warning for a JPEG's first Exif segment after its first scan (both JPEG routes).
/// `yc_exif_damage`'s reason when an orientation tag's values run past the EXIF data (the tag is dropped).
#define YC_EXIF_DROPPED_TAG "an orientation tag's values run past its end (that tag is dropped, as Pillow and exiftool drop it)"
/// Its reason when an orientation tag holds nothing: no value, or a type TIFF does not define (the tag is skipped).
#define YC_EXIF_EMPTY_TAG "an orientation tag has no value, or a type TIFF does not define (that tag is skipped, as Pillow skips it)"
#define YC_JPEG_LATE_EXIF "APP1: an Exif segment after the first scan is not read: whatever it says (an orientation, " \
    "an Adobe RGB colour space) is not applied (the picture is converted as if the segment were not there)"

/// Whether the `count` bytes libjpeg's next_marker just skipped (it warns with the source synchronised right after
/// the last of them) are all zero bytes, those read before the buffer's last refill included.
int yc_jpeg_source_zeros_before(j_decompress_ptr cinfo, long count);
/// After the end marker: the bytes that follow it in a regular file (-1 for a stream, for a file whose end was
/// met before its end marker, or none read), with up to `size` of them in `first` (`*seen` of them).
long long yc_jpeg_source_trailer(j_decompress_ptr cinfo, unsigned char *first, size_t size, size_t *seen);

/// Sets `cinfo`'s source: `file`, or `stream` when it is not NULL (read as it comes), through a 256 KiB buffer
/// (yc_jpeg_source.c).
struct yc_stream;
void yc_jpeg_big_source(j_decompress_ptr cinfo, FILE *file, struct yc_stream *stream);

#endif
