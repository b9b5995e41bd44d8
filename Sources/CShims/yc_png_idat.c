// The image data of a non-interlaced 8-bit RGB, RGBA, grey or grey+alpha PNG, a palette one, or a 16-bit one
// without tRNS, read here
// rather than by libpng, which still reads everything before it (and checks it): the IDAT chunks' bytes
// through png_read_fn (so their CRCs are checked as every critical chunk's are), inflated by zlib without its
// Adler-32, which yc_adler32 takes instead at a sixth of the time (a 12 MP photo: 11 ms → 2), rows inflated
// straight into the caller's band and unfiltered there, and the chunks after the image data walked to IEND
// as libpng's png_read_end walks them. Outcomes are libpng's, messages included (PNGRouteTests compares the two routes, with
// YUVCONV_PNG_LIBPNG=1, on every PNG of the corpus and on damaged variants of them). A bad Adler-32, or a
// zlib error, after the last row's data is an error here, where libpng alone only warns or never reads it;
// on libpng's route the second inflate in yc_png_stream.c (`yc_png_verify_begin`) makes it one there too.
#include "yc_decode_internal.h"
#include "yc_checksums.h"

#include <stdlib.h>
#include <string.h>

// Every read goes through yc_png_read (png_read_fn: CRCs, truncation and interruption handled there), which
// longjmps on failure: the callers are inside yc_png_rows' or yc_png_idat_end's setjmp.

// The next chunk's length and type, as libpng reads a chunk header: a length past 2^31 − 1 or a type that
// is not four letters is an error (the type written as libpng writes it: letters as they are, other bytes
// as [XX]); a chunk other than IDAT longer than the 8 MiB yc_png.c allows libpng is a warning.
static void next_header(yc_decoder *dec) {
    uint8_t h[8];
    yc_png_read(dec, h, 8);
    const uint32_t length = png_get_uint_32(h);
    if (length > 0x7FFFFFFFu) png_error(dec->png, "PNG unsigned integer out of range");
    // The name spelt out only for a message: a photo's thousands of IDAT headers each cost a snprintf a byte.
    char name[17], msg[YC_MSG];
    if (!yc_png_chunk_type_valid(h + 4)) {
        yc_png_chunk_name(h + 4, name);
        snprintf(msg, sizeof msg, "%s: invalid chunk type", name);
        png_error(dec->png, msg);
    }
    if (length > YC_PNG_CHUNK_MAX && memcmp(h + 4, "IDAT", 4) != 0) {
        yc_png_chunk_name(h + 4, name);
        yc_png_chunk_too_large(dec, name, (int)strlen(name));
    }
}

// The rest of the current chunk's data and its CRC (checked by png_read_fn), read and set aside.
static void finish_chunk(yc_decoder *dec) {
    struct yc_png_chunks *k = &dec->png_chunks;
    struct yc_png_idat *d = &dec->png_idat;
    while (k->state == 2) yc_png_read(dec, d->in, k->left < d->in_size ? (size_t)k->left : d->in_size);
    if (k->state == 3) {
        uint8_t crc[4];
        yc_png_read(dec, crc, 4);
    }
}

static int is_type(const yc_decoder *dec, const char *type) { return memcmp(dec->png_chunks.header + 4, type, 4) == 0; }

// Up to `max` more bytes of image data into `buf`; 0 when the IDAT chunks are over (the next chunk's header has
// then been read: its type is in png_chunks.header).
static size_t idat_read(yc_decoder *dec, uint8_t *buf, size_t max) {
    struct yc_png_chunks *k = &dec->png_chunks;
    struct yc_png_idat *d = &dec->png_idat;
    while (!d->ended) {
        if (k->state == 2) {
            const size_t n = max < k->left ? max : (size_t)k->left;
            yc_png_read(dec, buf, n);
            return n;
        }
        finish_chunk(dec);   // its CRC
        next_header(dec);
        if (!is_type(dec, "IDAT")) d->ended = 1;
    }
    return 0;
}

// More compressed bytes for zlib; 0 when there are none.
static int refill(yc_decoder *dec) {
    struct yc_png_idat *d = &dec->png_idat;
    const size_t n = idat_read(dec, d->in, d->in_size);
    d->z.next_in = d->in;
    d->z.avail_in = (uInt)n;
    return n > 0;
}

// The next n compressed bytes themselves (the zlib header and trailer, which zlib's raw mode does not read).
static void take_input(yc_decoder *dec, uint8_t *out, int n) {
    struct yc_png_idat *d = &dec->png_idat;
    for (int i = 0; i < n; i++) {
        if (d->z.avail_in == 0 && !refill(dec)) png_error(dec->png, "Not enough image data");
        out[i] = *d->z.next_in++;
        d->z.avail_in--;
    }
}

// zlib's failure, with its message, as libpng reports it.
static void inflate_failed(yc_decoder *dec) {
    char msg[YC_MSG];
    snprintf(msg, sizeof msg, "IDAT: %s", dec->png_idat.z.msg ? dec->png_idat.z.msg : "damaged compressed data");
    png_error(dec->png, msg);
}

// The zlib header (RFC 1950) is read here, since zlib inflates the raw deflate data: the checks in libpng's
// and zlib's order (libpng's own window check first), with their messages, and the window it declares.
static void start(yc_decoder *dec) {
    struct yc_png_idat *d = &dec->png_idat;
    uint8_t h[2];
    take_input(dec, h, 2);
    if ((h[0] >> 4) > 7) png_error(dec->png, "IDAT: invalid window size (libpng)");
    if (((unsigned)h[0] << 8 | h[1]) % 31 != 0) png_error(dec->png, "IDAT: incorrect header check");
    if ((h[0] & 0x0F) != 8) png_error(dec->png, "IDAT: unknown compression method");
    if (h[1] & 0x20) png_error(dec->png, "IDAT: missing LZ dictionary");
    if (inflateInit2(&d->z, -((h[0] >> 4) + 8)) != Z_OK) png_error(dec->png, "IDAT: zlib failed to initialize");
    d->z_ready = 1;
    d->adler = 1;
}

// Inflates exactly n bytes into out (an error when the data ends first), adding them to the Adler-32.
static void inflate_exactly(yc_decoder *dec, uint8_t *out, size_t n) {
    struct yc_png_idat *d = &dec->png_idat;
    d->z.next_out = out;
    d->z.avail_out = (uInt)n;
    while (d->z.avail_out > 0) {
        if (d->stream_ended) {
            // Ended before the picture: zlib (libpng's route) checks the stream's Adler-32 as it ends, before
            // libpng finds rows missing, so a wrong one is said first there — and so here (the routes named one
            // file two ways: "fails its checksum" against "ends before the picture does").
            uint8_t trailer[4];
            take_input(dec, trailer, 4);
            if (png_get_uint_32(trailer) != yc_adler32(d->adler, out, n - d->z.avail_out))
                png_error(dec->png, "IDAT: incorrect data check");
            png_error(dec->png, "Not enough image data");
        }
        if (d->z.avail_in == 0 && !refill(dec)) png_error(dec->png, "Not enough image data");
        const int rc = inflate(&d->z, Z_NO_FLUSH);
        if (rc == Z_STREAM_END) d->stream_ended = 1;
        else if (rc != Z_OK && rc != Z_BUF_ERROR) inflate_failed(dec);
    }
    d->adler = yc_adler32(d->adler, out, n);
}

static uint8_t paeth(int a, int b, int c) {
    const int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return (uint8_t)(pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
}

// PNG §9's filters undone in place; `prev` is the row above, unfiltered (zeros above the first row).
static void unfilter(yc_decoder *dec, int type, uint8_t *row, const uint8_t *prev, size_t n, size_t bpp) {
    switch (type) {
    case 0: break;
    case 1: for (size_t i = bpp; i < n; i++) row[i] = (uint8_t)(row[i] + row[i - bpp]); break;
    case 2: for (size_t i = 0; i < n; i++) row[i] = (uint8_t)(row[i] + prev[i]); break;
    case 3:
        for (size_t i = 0; i < bpp && i < n; i++) row[i] = (uint8_t)(row[i] + (prev[i] >> 1));
        for (size_t i = bpp; i < n; i++) row[i] = (uint8_t)(row[i] + ((row[i - bpp] + prev[i]) >> 1));
        break;
    case 4:
        for (size_t i = 0; i < bpp && i < n; i++) row[i] = (uint8_t)(row[i] + prev[i]);
        for (size_t i = bpp; i < n; i++) row[i] = (uint8_t)(row[i] + paeth(row[i - bpp], prev[i], prev[i - bpp]));
        break;
    default: png_error(dec->png, "bad adaptive filter value");
    }
}

// Both begins: the buffers for rows of `row_bytes` (filtered, `bpp` bytes a pixel), a scratch row when the rows
// are not inflated straight into the band (`scratch`), and the reader active. 1 also when the rows stay with
// libpng (over 1 GiB: zlib counts in 32 bits; libpng's limit of 1,000,000 pixels a row keeps a row to at most
// 8 MB, so only a raised limit gets there); 0 when out of memory.
static int begin(yc_decoder *dec, size_t row_bytes, size_t bpp, int scratch) {
    struct yc_png_idat *d = &dec->png_idat;
    if (row_bytes > (1u << 30)) return 1;
    d->row_bytes = row_bytes;
    d->bpp = bpp;
    d->in_size = 8192;
    d->in = malloc(d->in_size);
    d->prev = calloc(1, d->row_bytes);
    if (scratch) d->row = malloc(d->row_bytes);
    if (!d->in || !d->prev || (scratch && !d->row)) {
        yc_set_error(dec, "out of memory");
        return 0;
    }
    // png_read_info stopped after the first IDAT's header, which png_read_fn has seen: its data comes next.
    d->active = 1;
    return 1;
}

int yc_png_idat_begin(yc_decoder *dec, int palette, int grey, int depth, int channels) {
    struct yc_png_idat *d = &dec->png_idat;
    const size_t w = dec->info.width;
    d->palette = palette;
    d->grey = grey;
    d->depth = depth;
    return begin(dec, palette ? (w * (size_t)depth + 7) / 8 : grey ? w * (size_t)grey : w * (size_t)channels,
                 palette ? 1 : grey ? (size_t)grey : (size_t)channels, palette || grey);
}

int yc_png_idat_begin16(yc_decoder *dec, int stored, int out) {
    struct yc_png_idat *d = &dec->png_idat;
    d->deep = stored;
    d->out_channels = out;
    d->depth = 16;
    return begin(dec, dec->info.width * (size_t)stored * 2, (size_t)stored * 2, 1);
}

// A row of big-endian 16-bit samples, `stored` a pixel, to host-order R,G,B (`out` 3) or R,G,B,A (4): grey
// copied to all three, alpha dropped or kept — libpng's gray_to_rgb, strip_alpha and swap.
static void deep_row(const uint8_t *src, uint8_t *dst, size_t w, int stored, int out) {
    uint16_t *o = (uint16_t *)(void *)dst;
    const int grey = stored <= 2, alpha = stored == 2 || stored == 4;
    for (size_t x = 0; x < w; x++, src += 2 * stored, o += out) {
        const uint16_t r = (uint16_t)(src[0] << 8 | src[1]);
        o[0] = r;
        o[1] = grey ? r : (uint16_t)(src[2] << 8 | src[3]);
        o[2] = grey ? r : (uint16_t)(src[4] << 8 | src[5]);
        if (out == 4) o[3] = alpha ? (uint16_t)(src[2 * stored - 2] << 8 | src[2 * stored - 1]) : 0xFFFF;
    }
}

// A row of 8-bit grey (bytes 1) or grey and alpha (bytes 2) to R,G,B or R,G,B,A, as libpng's gray_to_rgb.
static void grey_to_rgb(const uint8_t *src, uint8_t *dst, size_t w, int bytes) {
    if (bytes == 1) {
        for (size_t x = 0; x < w; x++) dst[3 * x] = dst[3 * x + 1] = dst[3 * x + 2] = src[x];
    } else {
        for (size_t x = 0; x < w; x++) {
            dst[4 * x] = dst[4 * x + 1] = dst[4 * x + 2] = src[2 * x];
            dst[4 * x + 3] = src[2 * x + 1];
        }
    }
}

// A row of packed palette indices (1, 2 or 4 bits, first pixel in the high bits) to one index a byte.
static void unpack(const uint8_t *packed, uint8_t *index, size_t w, int depth) {
    const int per = 8 / depth, mask = (1 << depth) - 1;
    for (size_t x = 0; x < w; packed++) {
        unsigned b = *packed;
        for (int k = 0; k < per && x < w; k++, x++) {
            index[x] = (uint8_t)((b >> (8 - depth)) & (unsigned)mask);
            b = (b << depth) & 0xFF;
        }
    }
}

void yc_png_idat_rows(yc_decoder *dec, uint8_t *dst, size_t stride, uint32_t count,
                      void (*expand)(yc_decoder *, const uint8_t *, uint8_t *, uint32_t)) {
    struct yc_png_idat *d = &dec->png_idat;
    if (!d->z_ready) start(dec);
    for (uint32_t i = 0; i < count; i++) {
        uint8_t type;
        inflate_exactly(dec, &type, 1);
        if (!d->palette && !d->grey && !d->deep) {
            // Straight into the band: the row above is the band's previous row, or the previous band's last.
            uint8_t *row = dst + i * stride;
            inflate_exactly(dec, row, d->row_bytes);
            unfilter(dec, type, row, i == 0 ? d->prev : row - stride, d->row_bytes, d->bpp);
        } else {
            inflate_exactly(dec, d->row, d->row_bytes);
            unfilter(dec, type, d->row, d->prev, d->row_bytes, d->bpp);
            uint8_t *t = d->prev; d->prev = d->row; d->row = t;   // this row is the next one's row above
            if (d->deep) {
                deep_row(d->prev, dst + i * stride, dec->info.width, d->deep, d->out_channels);
                continue;
            }
            if (d->grey) {
                grey_to_rgb(d->prev, dst + i * stride, dec->info.width, d->grey);
                continue;
            }
            const uint8_t *index = d->prev;   // 8-bit: the row is the indices
            if (d->depth < 8) {
                unpack(d->prev, dec->png_index_row, dec->info.width, d->depth);
                index = dec->png_index_row;
            }
            expand(dec, index, dst + i * stride, dec->rows_read + i);
        }
    }
    if (!d->palette && !d->grey && !d->deep && count > 0) memcpy(d->prev, dst + (count - 1) * stride, d->row_bytes);
    if (dec->rows_read + count == dec->info.height && !d->finished) {
        d->finished = 1;
        yc_png_rows_done(dec);
        // After the last row: the end of the deflate data (more image data is a warning, as in libpng), then
        // the Adler-32 of everything inflated.
        uint8_t spare[1024];
        while (!d->stream_ended) {
            if (d->z.avail_in == 0 && !refill(dec)) png_error(dec->png, "Not enough image data");
            d->z.next_out = spare;
            d->z.avail_out = sizeof spare;
            const int rc = inflate(&d->z, Z_NO_FLUSH);
            if (d->z.avail_out != sizeof spare) {
                d->adler = yc_adler32(d->adler, spare, sizeof spare - d->z.avail_out);
                if (!d->extra_warned) {
                    d->extra_warned = 1;
                    yc_warn(dec, "IDAT: Too much image data");
                }
            }
            if (rc == Z_STREAM_END) d->stream_ended = 1;
            else if (rc != Z_OK && rc != Z_BUF_ERROR) inflate_failed(dec);
        }
        uint8_t trailer[4];
        take_input(dec, trailer, 4);
        d->trailer_read = 1;
        if (png_get_uint_32(trailer) != d->adler) png_error(dec->png, "IDAT: incorrect data check");
        // Bytes after the zlib stream in this IDAT chunk: libpng's "Extra compressed data" (a warning).
        if (d->z.avail_in > 0 || (!d->ended && dec->png_chunks.state == 2)) yc_warn(dec, "IDAT: Extra compressed data");
        // The rest of this IDAT chunk and its CRC, before the last rows go out (as libpng finishes the chunk
        // with the last row): a damaged chunk must not show up only after they are written to a pipe.
        if (!d->ended) finish_chunk(dec);
    }
}

int yc_png_idat_end(yc_decoder *dec) {
    if (setjmp(dec->jump)) return -1;
    struct yc_png_idat *d = &dec->png_idat;
    struct yc_png_chunks *k = &dec->png_chunks;
    // The rest of the image data (further IDAT chunks after the zlib stream are skipped, as libpng skips them).
    while (idat_read(dec, d->in, d->in_size) > 0) {}
    // From the chunk after it on, ancillary chunks' CRCs are checked too (libpng warns on a bad one).
    k->ancillary_too = 1;
    // The chunks after it, to IEND, as libpng 1.6's png_read_end takes them: IHDR is an error; a nonempty IEND
    // a warning; anything else is skipped without a word — IDAT again, PLTE (even a second one) and unknown
    // critical chunks included (PNGRouteTests compares this with png_read_end). CRCs are checked by png_read_fn.
    for (;;) {
        if (is_type(dec, "IHDR")) png_error(dec->png, "IHDR: out of place");
        if (is_type(dec, "IEND") && k->left > 0) yc_warn(dec, "IEND: invalid");
        finish_chunk(dec);
        if (is_type(dec, "IEND")) break;
        next_header(dec);
    }
    return 0;
}

void yc_png_idat_free(yc_decoder *dec) {
    struct yc_png_idat *d = &dec->png_idat;
    if (d->z_ready) inflateEnd(&d->z);
    free(d->in);
    free(d->prev);
    free(d->row);
}
