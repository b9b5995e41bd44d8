// Row-streaming decoders over libjpeg(-turbo) and libpng. See yc_decode.h.
#include "yc_decode.h"
#include "yc_signals.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>
#include <png.h>

#define YC_MSG 256

// A JPEG APP1 segment holding XMP starts so (then a NUL, then the packet).
static const char xmp_jpeg_prefix[] = "http://ns.adobe.com/xap/1.0/";

struct yc_jpeg_err {
    struct jpeg_error_mgr pub;
    yc_decoder *dec;
};

struct yc_decoder {
    yc_format format;
    yc_info info;
    int failed;
    yc_error_kind error_kind;
    char error[YC_MSG];
    int warnings;
    char first_warning[YC_MSG];
    int allow_truncated;
    int alpha16;     // keep a 16-bit PNG's alpha (R,G,B,A rows)
    uint64_t max_pixels;
    int max_scans;   // a progressive JPEG with more scans is refused (0: no limit)
    jmp_buf jump;
    uint32_t rows_read;

    // JPEG
    struct jpeg_decompress_struct jpeg;
    struct yc_jpeg_err jerr;
    struct jpeg_progress_mgr progress;
    int jpeg_created, jpeg_started;
    uint8_t *exif;       // the first APP1 Exif segment's body ("Exif\0\0", then TIFF data), for the orientation
    size_t exif_length;
    int xmp_orientation; // tiff:Orientation from the first XMP packet (JPEG APP1, PNG iTXt), 1 when absent
    // An APP1 segment's body as it is read: a fixed buffer, since a read can end in a longjmp (a truncated
    // file) and nothing allocated may be in flight then. A segment is at most 65533 bytes.
    uint8_t app1[65536];
    uint8_t *cmyk_row;   // one row of CMYK when the file is CMYK/YCCK

    // PNG
    png_structp png;
    png_infop png_info;
    uint8_t *png_image;  // whole image, only for interlaced PNG (Adam7 needs every pass)
    size_t png_rowbytes;
};

static void set_error(yc_decoder *dec, const char *msg) {
    if (!dec->failed) {
        dec->failed = 1;
        snprintf(dec->error, sizeof dec->error, "%s", msg);
    }
}

yc_format yc_sniff(const uint8_t *b, size_t n) {
    static const uint8_t png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (n >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF) return YC_FORMAT_JPEG;
    if (n >= 8 && memcmp(b, png_sig, 8) == 0) return YC_FORMAT_PNG;
    return YC_FORMAT_UNKNOWN;
}

// ---------------------------------------------------------------- JPEG

static void jpeg_error_exit(j_common_ptr cinfo) {
    struct yc_jpeg_err *err = (struct yc_jpeg_err *)cinfo->err;
    char buf[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, buf);
    set_error(err->dec, buf);
    longjmp(err->dec->jump, 1);
}

// Warnings that mean image data is missing or wrong: libjpeg carries on and fills grey, which would be
// silent damage. Everything else (extraneous bytes between segments, an unknown JFIF revision or Adobe
// transform, a broken ICC chunk) leaves the pixels intact and is tolerated.
static int jpeg_warning_damages_pixels(int code) {
    switch (code) {
    case JWRN_ARITH_BAD_CODE:
    case JWRN_BOGUS_PROGRESSION:
    case JWRN_HIT_MARKER:
    case JWRN_HUFF_BAD_CODE:
    case JWRN_JPEG_EOF:
    case JWRN_MUST_RESYNC:
    case JWRN_NOT_SEQUENTIAL:
        return 1;
    default:
        return 0;
    }
}

static void jpeg_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return;  // trace messages
    struct yc_jpeg_err *err = (struct yc_jpeg_err *)cinfo->err;
    yc_decoder *dec = err->dec;
    char buf[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, buf);
    int code = cinfo->err->msg_code;
    if (jpeg_warning_damages_pixels(code) && !dec->allow_truncated) {
        char msg[YC_MSG];
        snprintf(msg, sizeof msg, "%s (image data is damaged or missing)", buf);
        set_error(dec, msg);
        dec->error_kind = YC_ERROR_DAMAGED;
        longjmp(dec->jump, 1);
    }
    if (dec->warnings++ == 0) snprintf(dec->first_warning, sizeof dec->first_warning, "%s", buf);
}

// ---------------------------------------------------------------- EXIF orientation

static unsigned tiff_u16(const uint8_t *p, int big) { return big ? (unsigned)(p[0] << 8 | p[1]) : (unsigned)(p[1] << 8 | p[0]); }
static uint32_t tiff_u32(const uint8_t *p, int big) {
    return big ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
               : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

int yc_exif_orientation(const uint8_t *b, size_t n) {
    if (!b || n < 8) return 1;
    int big;
    if (b[0] == 'I' && b[1] == 'I' && b[2] == 42 && b[3] == 0) big = 0;
    else if (b[0] == 'M' && b[1] == 'M' && b[2] == 0 && b[3] == 42) big = 1;
    else return 1;
    uint32_t ifd = tiff_u32(b + 4, big);
    if (ifd < 8 || ifd > n - 2) return 1;
    unsigned entries = tiff_u16(b + ifd, big);
    for (unsigned i = 0; i < entries; i++) {
        size_t e = (size_t)ifd + 2 + (size_t)i * 12;
        if (e + 12 > n) return 1;
        if (tiff_u16(b + e, big) != 0x0112) continue;
        unsigned type = tiff_u16(b + e + 2, big);
        uint32_t count = tiff_u32(b + e + 4, big);
        if (type != 3 || count != 1) return 1;   // SHORT, one value, held in the entry itself
        unsigned v = tiff_u16(b + e + 8, big);
        return v >= 1 && v <= 8 ? (int)v : 1;
    }
    return 1;
}

// Reads one byte through the source manager (which never suspends: at end of file it yields a fake EOI).
static int marker_byte(j_decompress_ptr cinfo) {
    struct jpeg_source_mgr *src = cinfo->src;
    if (src->bytes_in_buffer == 0) (*src->fill_input_buffer)(cinfo);
    src->bytes_in_buffer--;
    return *src->next_input_byte++;
}

// APP1 segments. libjpeg's jpeg_save_markers appends each saved segment by walking the whole list, so a
// file of 100,000 tiny APP1 segments took 11–14 s (quadratic). This processor keeps only the first Exif
// segment (what the orientation needs) and skips every other APP1 through the source, in time linear in
// the file's size.
static boolean app1_marker(j_decompress_ptr cinfo) {
    yc_decoder *dec = ((struct yc_jpeg_err *)cinfo->err)->dec;
    long length = (long)marker_byte(cinfo) << 8;
    length += marker_byte(cinfo);
    length -= 2;
    if (length <= 0) return TRUE;
    const long xmp_prefix = (long)sizeof xmp_jpeg_prefix;   // with its NUL
    if ((dec->exif == NULL && length > 6) || (dec->xmp_orientation == 0 && length > xmp_prefix)) {
        uint8_t *body = dec->app1;
        for (long i = 0; i < length; i++) body[i] = (uint8_t)marker_byte(cinfo);
        if (dec->exif == NULL && length > 6 && memcmp(body, "Exif\0\0", 6) == 0) {
            uint8_t *kept = malloc((size_t)length);   // no longjmp between this and the assignment
            if (kept) {
                memcpy(kept, body, (size_t)length);
                dec->exif = kept;
                dec->exif_length = (size_t)length;
            }
            return TRUE;
        }
        if (dec->xmp_orientation == 0 && length > xmp_prefix && memcmp(body, xmp_jpeg_prefix, (size_t)xmp_prefix) == 0)
            dec->xmp_orientation = yc_xmp_orientation(body + xmp_prefix, (size_t)(length - xmp_prefix));
        return TRUE;
    }
    (*cinfo->src->skip_input_data)(cinfo, length);
    return TRUE;
}

// XMP's tiff:Orientation, as an attribute (tiff:Orientation="6") or an element (<tiff:Orientation>6<):
// 1…8, or 1 when absent or malformed. Never reads outside bytes[0..<count].
int yc_xmp_orientation(const uint8_t *b, size_t n) {
    static const char key[] = "tiff:Orientation";
    const size_t k = sizeof key - 1;
    for (size_t i = 0; b && i + k < n; i++) {
        if (memcmp(b + i, key, k) != 0) continue;
        size_t j = i + k;
        while (j < n && (b[j] == ' ' || b[j] == '\t' || b[j] == '\r' || b[j] == '\n')) j++;
        if (j < n && (b[j] == '=' || b[j] == '>')) {
            j++;
            while (j < n && (b[j] == ' ' || b[j] == '"' || b[j] == '\'' || b[j] == '\t' || b[j] == '\r' || b[j] == '\n')) j++;
            if (j < n && b[j] >= '1' && b[j] <= '8' && (j + 1 >= n || b[j + 1] < '0' || b[j + 1] > '9')) return b[j] - '0';
        }
    }
    return 1;
}

static int jpeg_orientation(yc_decoder *dec) {
    int exif = dec->exif ? yc_exif_orientation(dec->exif + 6, dec->exif_length - 6) : 1;
    return exif != 1 ? exif : (dec->xmp_orientation ? dec->xmp_orientation : 1);   // XMP only when EXIF gives none
}

// Called by libjpeg between units of work (per iMCU row, per marker, per scan while a progressive file is
// read in). A progressive file may hold any number of scans, each re-reading the whole coefficient
// buffer: 10,000 scans in 593 KB took 21 s. More than max_scans is refused, as libjpeg-turbo's own tools
// do (-maxscans). An interrupt (SIGINT/SIGTERM in a batch) ends the decode here too, so it takes effect
// within one iMCU row rather than after the whole input phase.
static void jpeg_progress(j_common_ptr cinfo) {
    yc_decoder *dec = ((struct yc_jpeg_err *)cinfo->err)->dec;
    if (yc_interrupted()) {
        set_error(dec, "interrupted");
        dec->error_kind = YC_ERROR_INTERRUPTED;
        longjmp(dec->jump, 1);
    }
    j_decompress_ptr d = (j_decompress_ptr)cinfo;
    if (dec->max_scans > 0 && d->input_scan_number > dec->max_scans) {
        char msg[YC_MSG];
        snprintf(msg, sizeof msg, "the progressive JPEG has more than %d scans", dec->max_scans);
        set_error(dec, msg);
        dec->error_kind = YC_ERROR_TOO_MANY_SCANS;
        longjmp(dec->jump, 1);
    }
}

// The direct path takes greyscale, and YCbCr whose luma has the largest sampling factors and whose two
// chroma components share theirs (dividing luma's): everything a camera or encoder writes. Anything else
// goes through RGB.
static int raw_sampling_supported(const struct jpeg_decompress_struct *j) {
    if (j->jpeg_color_space == JCS_GRAYSCALE && j->num_components == 1) return 1;
    if (j->jpeg_color_space != JCS_YCbCr || j->num_components != 3) return 0;
    const jpeg_component_info *c = j->comp_info;
    return c[0].h_samp_factor == j->max_h_samp_factor && c[0].v_samp_factor == j->max_v_samp_factor &&
           c[1].h_samp_factor == c[2].h_samp_factor && c[1].v_samp_factor == c[2].v_samp_factor &&
           j->max_h_samp_factor % c[1].h_samp_factor == 0 && j->max_v_samp_factor % c[1].v_samp_factor == 0;
}

// A stdio source with a large buffer. libjpeg-turbo's Huffman decoder takes its fast path only while the
// source holds at least 512 bytes per block of the MCU (3 KiB for 4:2:0); jpeg_stdio_src refills 4 KiB at a
// time, so most MCUs took the slow path. End of file is what jpeg_stdio_src does: a warning (which yc_decode
// counts as damage unless truncation is allowed) and a fake EOI marker.
#define YC_SOURCE_BYTES (256 * 1024)

typedef struct {
    struct jpeg_source_mgr pub;
    FILE *file;
    JOCTET *buffer;
    int start_of_file;
} yc_source;

static void source_init(j_decompress_ptr cinfo) { ((yc_source *)cinfo->src)->start_of_file = 1; }

static boolean source_fill(j_decompress_ptr cinfo) {
    yc_source *s = (yc_source *)cinfo->src;
    size_t n = fread(s->buffer, 1, YC_SOURCE_BYTES, s->file);
    if (n == 0) {
        if (s->start_of_file) ERREXIT(cinfo, JERR_INPUT_EMPTY);
        WARNMS(cinfo, JWRN_JPEG_EOF);
        s->buffer[0] = (JOCTET)0xFF;
        s->buffer[1] = (JOCTET)JPEG_EOI;
        n = 2;
    }
    s->pub.next_input_byte = s->buffer;
    s->pub.bytes_in_buffer = n;
    s->start_of_file = 0;
    return TRUE;
}

static void source_skip(j_decompress_ptr cinfo, long count) {
    struct jpeg_source_mgr *src = cinfo->src;
    if (count <= 0) return;
    while (count > (long)src->bytes_in_buffer) {
        count -= (long)src->bytes_in_buffer;
        (void)source_fill(cinfo);   // at end of file this yields a fake EOI, so the loop ends
    }
    src->next_input_byte += count;
    src->bytes_in_buffer -= (size_t)count;
}

static void source_term(j_decompress_ptr cinfo) { (void)cinfo; }

static void big_stdio_src(j_decompress_ptr cinfo, FILE *file) {
    yc_source *s = (yc_source *)(*cinfo->mem->alloc_small)((j_common_ptr)cinfo, JPOOL_PERMANENT, sizeof(yc_source));
    s->buffer = (JOCTET *)(*cinfo->mem->alloc_large)((j_common_ptr)cinfo, JPOOL_PERMANENT, YC_SOURCE_BYTES);
    s->file = file;
    s->pub.init_source = source_init;
    s->pub.fill_input_buffer = source_fill;
    s->pub.skip_input_data = source_skip;
    s->pub.resync_to_restart = jpeg_resync_to_restart;
    s->pub.term_source = source_term;
    s->pub.bytes_in_buffer = 0;
    s->pub.next_input_byte = NULL;
    cinfo->src = &s->pub;
}

static void jpeg_open(yc_decoder *dec, FILE *file, int raw) {
    dec->jpeg.err = jpeg_std_error(&dec->jerr.pub);
    dec->jerr.pub.error_exit = jpeg_error_exit;
    dec->jerr.pub.emit_message = jpeg_emit_message;
    dec->jerr.dec = dec;
    if (setjmp(dec->jump)) return;
    jpeg_create_decompress(&dec->jpeg);
    dec->jpeg_created = 1;
    big_stdio_src(&dec->jpeg, file);
    jpeg_set_marker_processor(&dec->jpeg, JPEG_APP0 + 1, app1_marker);   // Exif, for the orientation tag
    dec->progress.progress_monitor = jpeg_progress;
    dec->jpeg.progress = &dec->progress;
    jpeg_read_header(&dec->jpeg, TRUE);

    struct jpeg_decompress_struct *j = &dec->jpeg;
    yc_info *info = &dec->info;
    info->width = j->image_width;
    info->height = j->image_height;
    info->bytes_per_sample = 1;
    info->channels = 4;
    info->png_color_type = -1;
    info->jpeg_components = j->num_components;
    info->jpeg_colorspace = j->jpeg_color_space;
    for (int c = 0; c < j->num_components && c < 4; c++) {
        info->jpeg_h_samp[c] = j->comp_info[c].h_samp_factor;
        info->jpeg_v_samp[c] = j->comp_info[c].v_samp_factor;
    }
    info->jpeg_progressive = j->progressive_mode;
    info->jpeg_arithmetic = j->arith_code;
    info->orientation = jpeg_orientation(dec);
    if (info->width == 0 || info->height == 0) {
        set_error(dec, "the image has no pixels (zero width or height)");
        return;
    }
    if ((uint64_t)info->width * info->height > dec->max_pixels) {
        char msg[YC_MSG];
        snprintf(msg, sizeof msg, "%ux%u is %llu pixels, above the limit of %llu", info->width,
                 info->height, (unsigned long long)info->width * info->height,
                 (unsigned long long)dec->max_pixels);
        set_error(dec, msg);
        dec->error_kind = YC_ERROR_TOO_LARGE;
        return;
    }
    if (raw && raw_sampling_supported(j)) {
        // Planes as stored: no colour conversion, no upsampling (CONVENTIONS §2).
        j->raw_data_out = TRUE;
        j->do_fancy_upsampling = FALSE;
        j->out_color_space = j->jpeg_color_space;
        jpeg_start_decompress(j);
        dec->jpeg_started = 1;
        info->raw = 1;
        info->raw_band_rows = j->max_v_samp_factor * DCTSIZE;
        for (int c = 0; c < j->num_components; c++) {
            jpeg_component_info *ci = &j->comp_info[c];
            info->raw_plane_width[c] = (int)(ci->width_in_blocks * DCTSIZE);
            info->raw_plane_rows[c] = ci->v_samp_factor * DCTSIZE;
            info->raw_comp_width[c] = (int)ci->downsampled_width;
            info->raw_comp_height[c] = (int)ci->downsampled_height;
        }
        return;
    }
    switch (j->jpeg_color_space) {
    case JCS_CMYK:
    case JCS_YCCK:
        j->out_color_space = JCS_CMYK;
        dec->cmyk_row = malloc((size_t)info->width * 4);
        if (!dec->cmyk_row) { set_error(dec, "out of memory"); return; }
        break;
    case JCS_GRAYSCALE:
    case JCS_RGB:
    case JCS_YCbCr:
        j->out_color_space = JCS_EXT_RGBX;  // 4 bytes a pixel: what the SIMD rows load
        break;
    default:
        set_error(dec, "unsupported JPEG colour space");
        return;
    }
    jpeg_start_decompress(j);
    dec->jpeg_started = 1;
}

// Adobe CMYK as libjpeg hands it out is inverted (0 = full ink): R = C·K/255, rounded to nearest.
static void cmyk_to_rgbx(const uint8_t *src, uint8_t *dst, uint32_t width) {
    for (uint32_t x = 0; x < width; x++) {
        unsigned k = src[4 * x + 3];
        for (int c = 0; c < 3; c++) dst[4 * x + c] = (uint8_t)((src[4 * x + c] * k + 127) / 255);
        dst[4 * x + 3] = 0xFF;
    }
}

static int jpeg_rows(yc_decoder *dec, uint8_t *dst, size_t stride, uint32_t count) {
    if (setjmp(dec->jump)) return -1;
    for (uint32_t i = 0; i < count; i++) {
        uint8_t *row = dec->cmyk_row ? dec->cmyk_row : dst + i * stride;
        JSAMPROW rows[1] = {row};
        if (jpeg_read_scanlines(&dec->jpeg, rows, 1) != 1) {
            set_error(dec, "the decoder returned no row");
            return -1;
        }
        if (dec->cmyk_row) cmyk_to_rgbx(dec->cmyk_row, dst + i * stride, dec->info.width);
    }
    return 0;
}

int yc_read_raw_band(yc_decoder *dec, uint8_t *const planes[3], const size_t strides[3]) {
    if (dec->failed) return -1;
    if (!dec->info.raw) { set_error(dec, "not a raw decoder"); return -1; }
    if (setjmp(dec->jump)) return -1;
    struct jpeg_decompress_struct *j = &dec->jpeg;
    JSAMPROW rows[3][4 * DCTSIZE];
    JSAMPARRAY image[3];
    for (int c = 0; c < j->num_components; c++) {
        for (int r = 0; r < dec->info.raw_plane_rows[c]; r++) rows[c][r] = planes[c] + (size_t)r * strides[c];
        image[c] = rows[c];
    }
    JDIMENSION got = jpeg_read_raw_data(j, image, (JDIMENSION)dec->info.raw_band_rows);
    if (got == 0) { set_error(dec, "the decoder returned no rows"); return -1; }
    dec->rows_read += got;
    return (int)got;
}

static int jpeg_end(yc_decoder *dec) {
    if (setjmp(dec->jump)) return -1;
    jpeg_finish_decompress(&dec->jpeg);
    dec->jpeg_started = 0;
    return 0;
}

// ---------------------------------------------------------------- PNG

static void png_error_fn(png_structp png, png_const_charp msg) {
    yc_decoder *dec = png_get_error_ptr(png);
    set_error(dec, msg);
    longjmp(dec->jump, 1);
}

static void png_warning_fn(png_structp png, png_const_charp msg) {
    yc_decoder *dec = png_get_error_ptr(png);
    if (dec->warnings++ == 0) snprintf(dec->first_warning, sizeof dec->first_warning, "%s", msg);
}

// libpng's stdio reader says only "Read Error" for both a file that ends early and a failing read.
static void png_read_fn(png_structp png, png_bytep data, size_t length) {
    FILE *file = png_get_io_ptr(png);
    if (yc_interrupted()) png_error(png, "interrupted");
    if (fread(data, 1, length, file) == length) return;
    if (ferror(file)) {
        char msg[YC_MSG];
        snprintf(msg, sizeof msg, "cannot read the file: %s", strerror(errno));
        png_error(png, msg);
    }
    png_error(png, "the file ends before the image does (truncated PNG)");
}

// Chunks yuvconv never reads. Told to discard them, libpng skips each through a small buffer instead of
// first allocating its declared length (a 300-byte file declaring a 1.9 GB iTXt cost 2 s of page faults).
static const png_byte ignored_chunks[] = {
    'i', 'C', 'C', 'P', '\0', 'i', 'T', 'X', 't', '\0', 's', 'P', 'L', 'T', '\0', 't', 'E', 'X', 't', '\0',
    'z', 'T', 'X', 't', '\0', 't', 'I', 'M', 'E', '\0', 'p', 'H', 'Y', 's', '\0', 'h', 'I', 'S', 'T', '\0',
};

// The one iTXt yuvconv reads: the XMP packet ("XML:com.adobe.xmp"), for tiff:Orientation. libpng hands it
// over as an unknown chunk, so its size is bounded by png_set_chunk_malloc_max (libpng's own iTXt handler
// allocates the declared length first). Every other iTXt is dropped.
static int png_user_chunk(png_structp png, png_unknown_chunkp chunk) {
    yc_decoder *dec = png_get_user_chunk_ptr(png);
    static const char keyword[] = "XML:com.adobe.xmp";   // then NUL, compression flag, method, language\0, translated\0
    if (memcmp(chunk->name, "iTXt", 4) != 0 || dec->xmp_orientation != 0) return 1;
    size_t n = chunk->size, k = sizeof keyword;   // with its NUL
    const uint8_t *d = chunk->data;
    if (n < k + 2 || memcmp(d, keyword, k) != 0 || d[k] != 0) return 1;   // compressed XMP: not read
    size_t i = k + 2;
    for (int skip = 0; skip < 2; skip++) {   // language tag, translated keyword
        while (i < n && d[i] != 0) i++;
        i++;
    }
    if (i <= n) dec->xmp_orientation = yc_xmp_orientation(d + i, n - i);
    return 1;
}

static void png_open(yc_decoder *dec, FILE *file) {
    dec->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, dec, png_error_fn, png_warning_fn);
    if (!dec->png) { set_error(dec, "out of memory"); return; }
    dec->png_info = png_create_info_struct(dec->png);
    if (!dec->png_info) { set_error(dec, "out of memory"); return; }
    if (setjmp(dec->jump)) return;
    png_set_read_fn(dec->png, file, png_read_fn);
    // A text chunk may not inflate past 8 MiB (libpng's default is unlimited-ish for zTXt/iTXt).
    png_set_chunk_malloc_max(dec->png, 8u << 20);
    // Unknown chunks and the ancillary ones yuvconv does not use are skipped, never buffered whole.
    png_set_keep_unknown_chunks(dec->png, PNG_HANDLE_CHUNK_NEVER, NULL, 0);
    png_set_keep_unknown_chunks(dec->png, PNG_HANDLE_CHUNK_NEVER, ignored_chunks, (int)(sizeof ignored_chunks / 5));
    static const png_byte itxt[] = {'i', 'T', 'X', 't', '\0'};
    png_set_keep_unknown_chunks(dec->png, PNG_HANDLE_CHUNK_ALWAYS, itxt, 1);
    png_set_read_user_chunk_fn(dec->png, dec, png_user_chunk);
    png_read_info(dec->png, dec->png_info);

    png_uint_32 w, h;
    int depth, ctype, interlace;
    png_get_IHDR(dec->png, dec->png_info, &w, &h, &depth, &ctype, &interlace, NULL, NULL);
    yc_info *info = &dec->info;
    info->width = w;
    info->height = h;
    info->png_color_type = ctype;
    info->png_bit_depth = depth;
    info->png_interlaced = interlace != PNG_INTERLACE_NONE;
    info->png_has_trns = png_get_valid(dec->png, dec->png_info, PNG_INFO_tRNS) != 0;
    info->orientation = 1;
#ifdef PNG_eXIf_SUPPORTED
    png_uint_32 exif_len = 0;
    png_bytep exif = NULL;
    if (png_get_eXIf_1(dec->png, dec->png_info, &exif_len, &exif) && exif)
        info->orientation = yc_exif_orientation(exif, exif_len);
#endif
    // XMP's tiff:Orientation when there is no EXIF orientation (an iTXt before the image data).
    if (info->orientation == 1 && dec->xmp_orientation) info->orientation = dec->xmp_orientation;
    info->bytes_per_sample = depth == 16 ? 2 : 1;
    if ((uint64_t)w * h > dec->max_pixels) {
        char msg[YC_MSG];
        snprintf(msg, sizeof msg, "%ux%u is %llu pixels, above the limit of %llu", w, h,
                 (unsigned long long)w * h, (unsigned long long)dec->max_pixels);
        set_error(dec, msg);
        dec->error_kind = YC_ERROR_TOO_LARGE;
        return;
    }
    // Everything becomes R,G,B,X of 8 bits or R,G,B of 16 bits, exactly: palette looked up, 1/2/4-bit grey
    // scaled to 0…255 (v·255/(2^n−1)), grey copied to all three. The fourth byte of an 8-bit pixel is alpha
    // (from the file or from tRNS) or 0xFF filler; the contract ignores it, so the converter never reads it.
    if (ctype == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(dec->png);
    if (ctype == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(dec->png);
    if (ctype == PNG_COLOR_TYPE_GRAY || ctype == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(dec->png);
    if (info->png_has_trns) png_set_tRNS_to_alpha(dec->png);  // one rule for every colour type
    int has_alpha = (ctype & PNG_COLOR_MASK_ALPHA) || info->png_has_trns;
    // 16-bit: R,G,B (alpha stripped). 8-bit: R,G,B,A when there is alpha, else R,G,B as stored — the
    // converter widens those rows to 4 bytes itself, on its own thread, rather than libpng on the decoder's.
    int keep16 = depth == 16 && has_alpha && dec->alpha16;
    if (depth == 16 && has_alpha && !keep16) png_set_strip_alpha(dec->png);
    info->channels = ((depth != 16 && has_alpha) || keep16) ? 4 : 3;
    if (depth == 16) {
        const uint16_t probe = 1;
        if (*(const uint8_t *)&probe == 1) png_set_swap(dec->png);  // PNG is big-endian
    }
    if (info->png_interlaced) png_set_interlace_handling(dec->png);
    png_read_update_info(dec->png, dec->png_info);
    dec->png_rowbytes = png_get_rowbytes(dec->png, dec->png_info);
    if (dec->png_rowbytes != (size_t)w * info->channels * info->bytes_per_sample) {
        set_error(dec, "unexpected row layout after transformations");
        return;
    }
}

static int png_rows(yc_decoder *dec, uint8_t *dst, size_t stride, uint32_t count) {
    if (setjmp(dec->jump)) return -1;
    if (dec->info.png_interlaced) {
        if (!dec->png_image) {
            // Adam7 spreads every row over seven passes: the whole image must be held once.
            size_t total = dec->png_rowbytes * dec->info.height;
            dec->png_image = malloc(total);
            if (!dec->png_image) { set_error(dec, "out of memory for an interlaced image"); return -1; }
            memset(dec->png_image, 0, total);
            int passes = png_set_interlace_handling(dec->png);
            for (int p = 0; p < passes; p++)
                for (uint32_t y = 0; y < dec->info.height; y++)
                    png_read_row(dec->png, dec->png_image + y * dec->png_rowbytes, NULL);
        }
        for (uint32_t i = 0; i < count; i++)
            memcpy(dst + i * stride, dec->png_image + (size_t)(dec->rows_read + i) * dec->png_rowbytes,
                   dec->png_rowbytes);
        return 0;
    }
    for (uint32_t i = 0; i < count; i++) png_read_row(dec->png, dst + i * stride, NULL);
    return 0;
}

static int png_end(yc_decoder *dec) {
    if (setjmp(dec->jump)) return -1;
    png_read_end(dec->png, NULL);
    return 0;
}

// ---------------------------------------------------------------- common

yc_decoder *yc_open(FILE *file, yc_format format, uint64_t max_pixels, int max_scans, int allow_truncated, int raw,
                    int alpha16) {
    yc_decoder *dec = calloc(1, sizeof *dec);
    if (!dec) return NULL;
    dec->max_scans = max_scans;
    dec->format = format;
    dec->max_pixels = max_pixels;
    dec->allow_truncated = allow_truncated;
    dec->alpha16 = alpha16;
    switch (format) {
    case YC_FORMAT_JPEG: jpeg_open(dec, file, raw); break;
    case YC_FORMAT_PNG: png_open(dec, file); break;
    default: set_error(dec, "not a JPEG or PNG file"); break;
    }
    return dec;
}

int yc_failed(const yc_decoder *dec) { return dec->failed; }
yc_error_kind yc_get_error_kind(const yc_decoder *dec) { return dec->error_kind; }
const char *yc_error(const yc_decoder *dec) { return dec->error; }
int yc_warning_count(const yc_decoder *dec) { return dec->warnings; }
const char *yc_first_warning(const yc_decoder *dec) { return dec->first_warning; }
const yc_info *yc_get_info(const yc_decoder *dec) { return &dec->info; }

int yc_read_rows(yc_decoder *dec, uint8_t *dst, size_t stride, uint32_t count) {
    if (dec->failed) return -1;
    if (count > dec->info.height - dec->rows_read) {
        set_error(dec, "read past the last row");
        return -1;
    }
    int rc = dec->format == YC_FORMAT_JPEG ? jpeg_rows(dec, dst, stride, count) : png_rows(dec, dst, stride, count);
    if (rc == 0) dec->rows_read += count;
    return rc;
}

int yc_finish(yc_decoder *dec) {
    if (dec->failed) return -1;
    return dec->format == YC_FORMAT_JPEG ? jpeg_end(dec) : png_end(dec);
}

void yc_close(yc_decoder *dec) {
    if (!dec) return;
    if (dec->jpeg_created) jpeg_destroy_decompress(&dec->jpeg);
    if (dec->png) png_destroy_read_struct(&dec->png, dec->png_info ? &dec->png_info : NULL, NULL);
    free(dec->cmyk_row);
    free(dec->exif);
    free(dec->png_image);
    free(dec);
}
