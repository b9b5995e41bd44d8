// libjpeg's source of a JPEG decoder: a file or a stream (a pipe, FIFO or device) through a large buffer.
#include "yc_decode_internal.h"
#include "yc_stream.h"

#include <jerror.h>
#include <string.h>
#include <sys/stat.h>

// A stdio source with a large buffer. libjpeg-turbo's Huffman decoder takes its fast path only while the
// source holds at least 512 bytes per block of the MCU (3 KiB for 4:2:0); jpeg_stdio_src refills 4 KiB at a
// time, so most MCUs took the slow path. End of file is what jpeg_stdio_src does: a warning (which yc_decode
// counts as damage unless truncation is allowed) and a fake EOI marker.
#define YC_SOURCE_BYTES (256 * 1024)

typedef struct {
    struct jpeg_source_mgr pub;
    FILE *file;
    yc_stream *stream;   // a pipe, FIFO or device: read as it comes (yc_stream_read_some), never the FILE
    JOCTET *buffer;
    int start_of_file;
    int fake_eoi;   // the end of the file was met and an end marker made up: nothing follows the picture
    size_t filled;  // the bytes the last fill put in the buffer
    unsigned long long zeros_before;   // zero bytes that ended what came before the buffer (yc_jpeg_source_zeros_before)
    // With --allow-truncated, whole marker segments only (`segments_whole`): where the reading is in the JPEG's
    // structure, and the bytes after the last whole segment, held until the rest of their segment comes.
    int whole_segments;
    int state;
    size_t held;
} yc_source;

// Where the bytes handed to libjpeg end in the JPEG's structure (`segments_whole`).
enum { AT_MARKER, AT_CODE, IN_ENTROPY, IN_ENTROPY_FF, PAST_END };

static void source_init(j_decompress_ptr cinfo) {
    yc_source *s = (yc_source *)cinfo->src;
    s->start_of_file = 1;
    s->fake_eoi = 0;
    s->filled = 0;
    s->zeros_before = 0;
    s->state = AT_MARKER;
    s->held = 0;
}

// --allow-truncated converts what a cut JPEG holds, but libjpeg, given the made-up end marker in the middle of a
// marker segment (a Huffman table, a scan header), read its two bytes as the segment's and failed on "damage"
// the cut made (a progressive file cut in a table between scans was refused, though its earlier scans were
// decoded; cut a few bytes later, in scan data, it converted). So with the flag libjpeg is given whole segments
// only: the bytes from a segment's marker code on are held until the whole segment has come (at most 64 KiB), and
// at the end of the file a segment cut short is dropped, so the made-up end marker follows whole ones. (The 0xFF
// before a marker code may go ahead: 0xFF 0xFF 0xD9 is fill and an end marker.) Returns how many of the `n` bytes
// at the start of the buffer may go to libjpeg; the state is then that at that point.
static size_t segments_whole(yc_source *s, size_t n) {
    const JOCTET *b = s->buffer;
    size_t i = 0;
    while (i < n) {
        switch (s->state) {
        case PAST_END: return n;   // after the end marker: what follows is not libjpeg's (yc_jpeg_source_trailer)
        case AT_MARKER:
            if (b[i] == 0xFF) s->state = AT_CODE;
            i++;   // anything else is junk between segments, which libjpeg skips with a warning
            break;
        case IN_ENTROPY: {
            const JOCTET *ff = memchr(b + i, 0xFF, n - i);
            if (!ff) return n;
            i = (size_t)(ff - b) + 1;
            s->state = IN_ENTROPY_FF;
            break;
        }
        case IN_ENTROPY_FF:
            // A stuffed zero, fill, or a restart marker stays in the scan; any other code ends it.
            if (b[i] == 0x00 || (b[i] >= 0xD0 && b[i] <= 0xD7)) { s->state = IN_ENTROPY; i++; break; }
            if (b[i] == 0xFF) { i++; break; }
            s->state = AT_CODE;
            break;
        case AT_CODE: {
            const JOCTET code = b[i];
            if (code == 0xFF) { i++; break; }
            if (code == 0xD9) { s->state = PAST_END; return n; }
            if (code == 0x00 || code == 0x01 || (code >= 0xD0 && code <= 0xD8)) { s->state = AT_MARKER; i++; break; }
            if (n - i < 3) return i;   // its length not here yet
            const size_t length = (size_t)b[i + 1] << 8 | b[i + 2];
            // A length below 2: libjpeg reads on after the two length bytes (an APPn or COM segment's; for its
            // own segments it fails, as it would anyway).
            if (length < 2) { i += 3; s->state = AT_MARKER; break; }
            if (n - i - 1 < length) return i;
            i += 1 + length;
            s->state = code == 0xDA ? IN_ENTROPY : AT_MARKER;
            break;
        }
        }
    }
    return n;
}

// Up to `size` bytes of the file or stream into `to`: 0 at its end.
static size_t source_read(j_decompress_ptr cinfo, JOCTET *to, size_t size) {
    yc_source *s = (yc_source *)cinfo->src;
    // From a stream, what has come so far: `fread` waits until the buffer is full, so a JPEG smaller than it
    // (or its last part) sent by a writer that keeps the pipe open was not decoded until the writer closed.
    if (s->stream) {
        const long long got = yc_stream_read_some(s->stream, to, size);
        if (got < 0) ERREXIT(cinfo, JERR_FILE_READ);   // a read error is not the end of the file
        return (size_t)got;
    }
    // No more than a stream may deliver (`yc_file_read_allowed`): a JPEG's first marker and 100 GB of holes
    // was read to its end, 4-5 s a GB. Up to the limit and not past it, so a picture that ends within it
    // converts whatever follows (a motion photo's video is never read); past it only when more is asked for.
    yc_decoder *dec = ((struct yc_jpeg_err *)cinfo->err)->dec;
    const uint64_t room = yc_file_read_room(dec);
    const size_t n = fread(to, 1, room < size ? (size_t)room : size, s->file);
    if (n == 0 && ferror(s->file)) ERREXIT(cinfo, JERR_FILE_READ);
    if (room == 0 && fread(to, 1, 1, s->file) == 1) {   // the file goes on past the limit
        yc_file_read_allowed(dec, 1);
        ERREXIT(cinfo, JERR_FILE_READ);
    }
    if (n > 0) yc_file_read_allowed(dec, n);
    return n;
}

static boolean source_fill(j_decompress_ptr cinfo) {
    yc_source *s = (yc_source *)cinfo->src;
    // The buffer is used up (libjpeg refills only then): the zero bytes that end what came so far, across fills, so
    // that zero padding read across a refill (a file's 256 KiB reads, a pipe's chunks) is seen whole.
    // A marker's FF (and fill bytes) read just before the refill is the marker's, not what came before it: libjpeg
    // counts neither among the bytes it skipped.
    size_t end = s->filled, z = 0;
    while (end > 0 && s->buffer[end - 1] == 0xFF) end--;
    while (z < end && s->buffer[end - 1 - z] == 0) z++;
    s->zeros_before = z == end ? s->zeros_before + z : z;
    // What was held (a segment not yet whole) goes first, then what comes.
    if (s->held) memmove(s->buffer, s->buffer + s->filled, s->held);
    size_t have = s->held, n = 0;
    for (;;) {
        const size_t got = source_read(cinfo, s->buffer + have, YC_SOURCE_BYTES - have);
        have += got;
        if (!s->whole_segments) { n = have; break; }
        // At the end of the file a segment held is cut short: dropped (its bytes never reach libjpeg).
        if (got == 0) break;
        n = segments_whole(s, have);
        if (n > 0) break;   // else all of it is the start of one segment: more of it first
    }
    s->held = n > 0 ? have - n : 0;
    if (n == 0) {
        if (s->start_of_file) ERREXIT(cinfo, JERR_INPUT_EMPTY);
        WARNMS(cinfo, JWRN_JPEG_EOF);
        s->fake_eoi = 1;
        s->buffer[0] = (JOCTET)0xFF;
        s->buffer[1] = (JOCTET)JPEG_EOI;
        n = 2;
    }
    s->pub.next_input_byte = s->buffer;
    s->pub.bytes_in_buffer = n;
    s->filled = n;
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

int yc_jpeg_source_zeros_before(j_decompress_ptr cinfo, long count) {
    yc_source *s = (yc_source *)cinfo->src;
    const JOCTET *end = s->pub.next_input_byte;
    if (count <= 0 || !end) return 0;
    const long here = end - s->buffer;   // the skipped bytes in this buffer; the rest ended what came before it
    for (long i = 1; i <= (count < here ? count : here); i++)
        if (end[-i] != 0) return 0;
    return count <= here || (unsigned long long)(count - here) <= s->zeros_before;
}

long long yc_jpeg_source_trailer(j_decompress_ptr cinfo, unsigned char *first, size_t size, size_t *seen) {
    yc_source *s = (yc_source *)cinfo->src;
    *seen = 0;
    // A stream is not read further: an endless writer would hold the run, and what it sends after the picture
    // is its business. A file read through a made-up end marker (its end met: cut short, or still growing when
    // it was read) has nothing after its picture that is not the picture's own.
    if (s->stream || !s->file || s->start_of_file || s->fake_eoi) return -1;
    struct stat st;
    const long at = ftell(s->file);
    if (at < 0 || fstat(fileno(s->file), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < at) return -1;
    const long long after = (long long)s->pub.bytes_in_buffer + (long long)(st.st_size - at);
    size_t n = s->pub.bytes_in_buffer < size ? s->pub.bytes_in_buffer : size;
    memcpy(first, s->pub.next_input_byte, n);
    if (n < size && after > (long long)n) n += fread(first + n, 1, size - n, s->file);
    *seen = n;
    return after;
}

void yc_jpeg_big_source(j_decompress_ptr cinfo, FILE *file, yc_stream *stream) {
    yc_source *s = (yc_source *)(*cinfo->mem->alloc_small)((j_common_ptr)cinfo, JPOOL_PERMANENT, sizeof(yc_source));
    s->buffer = (JOCTET *)(*cinfo->mem->alloc_large)((j_common_ptr)cinfo, JPOOL_PERMANENT, YC_SOURCE_BYTES);
    s->file = file;
    s->stream = stream;
    s->fake_eoi = 0;
    s->filled = 0;
    s->zeros_before = 0;
    s->whole_segments = ((struct yc_jpeg_err *)cinfo->err)->dec->allow_truncated;
    s->state = AT_MARKER;
    s->held = 0;
    s->pub.init_source = source_init;
    s->pub.fill_input_buffer = source_fill;
    s->pub.skip_input_data = source_skip;
    s->pub.resync_to_restart = jpeg_resync_to_restart;
    s->pub.term_source = source_term;
    s->pub.bytes_in_buffer = 0;
    s->pub.next_input_byte = NULL;
    cinfo->src = &s->pub;
}
