// What watches a JPEG decode from inside libjpeg: its errors (kept inside C), its warnings (which of them mean
// lost pixels, and what they become), the scan limit and interrupts (its progress monitor), and the header probe
// that uses the same rule for damage. The decode itself is yc_jpeg.c's.
#include "yc_decode_internal.h"
#include "yc_signals.h"

#include <stdio.h>
#include <string.h>

#include <jerror.h>

void yc_jpeg_error_exit(j_common_ptr cinfo) {
    struct yc_jpeg_err *err = (struct yc_jpeg_err *)cinfo->err;
    char buf[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, buf);
    if (!err->dec->failed) err->dec->error_from_library = 1;
    yc_set_error(err->dec, buf);
    longjmp(err->dec->jump, 1);
}

// Warnings that mean image data is missing or wrong: libjpeg carries on and fills grey, which would be
// silent damage. Everything else (extraneous bytes between segments, an unknown JFIF revision or Adobe
// transform, a broken ICC chunk) leaves the pixels intact and is tolerated.
// Bytes left over before a restart marker ("extraneous bytes before marker 0xd0") are tolerated too: webcam
// (MJPEG) and scanner encoders pad their restart intervals, and the pixels are intact. So are a sequential
// scan header's Ss/Se/Ah/Al bytes other than 0/63/0/0 (JWRN_NOT_SEQUENTIAL): libjpeg ignores them there, as
// every decoder does ("baseline files out there with all zeroes in these bytes"); refused as damage, such a
// file was converted by --allow-truncated to exactly the pixels of its untouched self.
static int jpeg_warning_damages_pixels(int code) {
    switch (code) {
    case JWRN_ARITH_BAD_CODE:
    case JWRN_BOGUS_PROGRESSION:
    case JWRN_HIT_MARKER:
    case JWRN_HUFF_BAD_CODE:
    case JWRN_JPEG_EOF:
    case JWRN_MUST_RESYNC:
        return 1;
    default:
        return 0;
    }
}

// Image data left over when a scan ended, before the markers of the next one ("N extraneous bytes before marker
// 0xc4"), in a progressive or multi-scan file without restart intervals: the decoder read every block of the scan
// from fewer bytes than it holds, which a damaged byte does (it changes the lengths of the codes after it, and the
// blocks they make are wrong: a progressive photo off by 98 code values on average from one changed byte); no
// encoder pads between scans. Any number of bytes. Not so before the end marker, where a file's junk after its last
// scan is common and harmless (DJI drones write it into every photo; stb_image once refused them all) though a
// damaged byte can leave some too — a warning — nor in a file with restart intervals (webcam and scanner encoders
// pad their intervals, a scanner writes whole intervals of junk after its last: the corpus's
// extraneous-bytes-after-sos.jpg), nor before the first scan (junk between header segments). An arithmetic-coded
// file is the exception everywhere after its header: the junk and padding writers (drones, webcams, scanners) write
// Huffman-coded files, and a damaged byte there makes the arithmetic decoder stop early and fill the rest of the
// scan, or of the restart interval, with zeros — one changed byte left 64% of a tester's file unread and its
// picture garbage, with exit 0 and "harmless" in the warning; with restart intervals, two in three single-byte
// changes to a photo warned "padding (harmless)" so. Zero bytes alone are not left over: they are what the decoder
// takes after the data ends anyway (an encoder that pads with them, or does not drop its final zeros as libjpeg's
// does, has written nothing they change), while what a damaged byte leaves unread is the rest of the coded data.
static int jpeg_arith_zero_padding(j_common_ptr cinfo) {
    const j_decompress_ptr d = (j_decompress_ptr)cinfo;
    return d->arith_code && yc_jpeg_source_zeros_before(d, cinfo->err->msg_parm.i[0]);
}

static int jpeg_arith_leftover(j_common_ptr cinfo) {
    return ((j_decompress_ptr)cinfo)->arith_code && !jpeg_arith_zero_padding(cinfo);
}

static int jpeg_leftover_damages_pixels(j_common_ptr cinfo, const yc_decoder *dec) {
    j_decompress_ptr d = (j_decompress_ptr)cinfo;
    if (cinfo->err->msg_code != JWRN_EXTRANEOUS_DATA || !dec->jpeg_header_read) return 0;
    const int marker = cinfo->err->msg_parm.i[1];
    if (jpeg_arith_leftover(cinfo)) return 1;
    if (!jpeg_has_multiple_scans(d)) return 0;
    return d->restart_interval == 0 && marker != 0xD9 && !(marker >= 0xD0 && marker <= 0xD7);
}

// Whether the end of the file, met now, may have cost no pixel: inside the one scan of a sequential,
// Huffman-coded JPEG (that scan holds every component) the decoder asks for bytes ahead of the bits it uses,
// and a file missing only its end marker (FF D9) or padding bits ends there too. Its Huffman decoder warns
// JWRN_HIT_MARKER the moment it needs a bit that is not there, so that warning, not this one, tells. Not so
// between the scans of a progressive or multi-scan file (a missing scan is silent) nor with arithmetic coding
// (jdarith.c fills zeros after the end without a word).
static int jpeg_eof_may_be_harmless(j_decompress_ptr d) {
    // The first scan, holding every component: libjpeg takes scans {Y}, {Y, Cb, Cr}, {Cb} from a file that
    // breaks the standard, so a later scan with every component is not the only one.
    return !d->progressive_mode && !d->arith_code && d->input_scan_number == 1 && d->comps_in_scan == d->num_components;
}

void yc_jpeg_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return;  // trace messages
    struct yc_jpeg_err *err = (struct yc_jpeg_err *)cinfo->err;
    yc_decoder *dec = err->dec;
    char buf[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, buf);
    int code = cinfo->err->msg_code;
    // The end of the file before the first scan began: no picture to convert, with --allow-truncated too (which
    // went on, and libjpeg then read the made-up end marker as header bytes and named damage the cut made).
    if (code == JWRN_JPEG_EOF && !dec->jpeg_header_read) {
        yc_set_error(dec, buf);
        longjmp(dec->jump, 1);
    }
    // Held back, with --allow-truncated too: a file that lacks only its end marker is whole either way.
    if (code == JWRN_JPEG_EOF && dec->jpeg_header_read && jpeg_eof_may_be_harmless((j_decompress_ptr)cinfo)) {
        dec->jpeg_eof_deferred = 1;
        snprintf(dec->jpeg_eof_text, sizeof dec->jpeg_eof_text, "%s", buf);
        return;
    }
    // Zero bytes alone after an arithmetic-coded scan (above): nothing left over, nothing to say.
    if (code == JWRN_EXTRANEOUS_DATA && dec->jpeg_header_read && jpeg_arith_zero_padding(cinfo)) return;
    if (jpeg_leftover_damages_pixels(cinfo, dec)) {
        if (!dec->allow_truncated) {
            yc_set_error(dec, buf);
            dec->error_kind = YC_ERROR_LEFTOVER;
            longjmp(dec->jump, 1);
        }
        // Converted past (--allow-truncated): said as the damage it is, not as the junk a Huffman file's may be.
        if (jpeg_arith_leftover(cinfo)) {
            char msg[YC_MSG];
            const int n = cinfo->err->msg_parm.i[0], marker = cinfo->err->msg_parm.i[1];
            char where[32];
            if (marker == 0xD9) snprintf(where, sizeof where, "the end marker");
            else if (marker >= 0xD0 && marker <= 0xD7) snprintf(where, sizeof where, "a restart marker");
            else snprintf(where, sizeof where, "the next marker (0x%02x)", marker);
            snprintf(msg, sizeof msg, "%d byte%s of an arithmetic-coded scan %s left unread before %s: a damaged "
                     "byte stopped the decoder early, and the picture after it is wrong (converted as decoded)",
                     n, n == 1 ? "" : "s", n == 1 ? "was" : "were", where);
            yc_warn_damage(dec, msg);
            return;
        }
        // A Huffman scan's the same: without the flag an error, with it damage, said first (not the harmless junk
        // between segments that libjpeg's words for it also describe).
        char msg[YC_MSG];
        const int n = cinfo->err->msg_parm.i[0], marker = cinfo->err->msg_parm.i[1];
        snprintf(msg, sizeof msg, "%d byte%s of a scan %s left unread before the next marker (0x%02x): a damaged byte "
                 "shortened the scan's codes, and the picture after it is wrong (converted as decoded)",
                 n, n == 1 ? "" : "s", n == 1 ? "was" : "were", marker);
        yc_warn_damage(dec, msg);
        return;
    }
    if (jpeg_warning_damages_pixels(code) && !dec->allow_truncated) {
        // Before the first scan: nothing to accept, an error of the file (worded by LibraryMessages).
        if (!dec->jpeg_header_read) {
            yc_set_error(dec, buf);
            longjmp(dec->jump, 1);
        }
        // In the image data: an error at once, which --allow-truncated gets past. (Decoding on to learn whether
        // the rest is worse cost a 7 KB file declaring 16384x16384 half a minute and gigabytes.) Bits needed
        // past the end of the file: the file is cut short, as the end-of-file warning said.
        yc_set_error(dec, dec->jpeg_eof_deferred ? dec->jpeg_eof_text : buf);
        dec->error_kind = YC_ERROR_DAMAGED;
        longjmp(dec->jump, 1);
    }
    // Damage --allow-truncated converts past: an end of file held back was not harmless after all, and says so.
    if (jpeg_warning_damages_pixels(code) && dec->jpeg_eof_deferred) {
        dec->jpeg_eof_deferred = 0;
        yc_warn_damage(dec, dec->jpeg_eof_text);
        return;
    }
    if (jpeg_warning_damages_pixels(code) && dec->jpeg_header_read) yc_warn_damage(dec, buf);
    else yc_warn(dec, buf);
}

// The scans a picture may have: max_scans up to 2^24 pixels; above that the same work (scans × pixels),
// each scan re-reading the whole coefficient buffer — 500 scans of a 16384×16384 grey picture, 706 KB, took
// 18 s — but never fewer than 32 (an encoder's scripts use about 10), or max_scans when that is fewer. 0: no
// limit.
static int jpeg_scan_limit(const yc_decoder *dec, j_decompress_ptr d) {
    const uint64_t pixels = (uint64_t)d->image_width * d->image_height, base = 1u << 24;
    if (dec->max_scans <= 0 || pixels <= base) return dec->max_scans;
    const uint64_t scaled = (uint64_t)dec->max_scans * base / pixels, floor = dec->max_scans < 32 ? (uint64_t)dec->max_scans : 32;
    return (int)(scaled > floor ? scaled : floor);   // below max_scans: pixels > base
}

// Called by libjpeg between units of work (per iMCU row, per marker, per scan while a progressive file is
// read in). A progressive file may hold any number of scans, each re-reading the whole coefficient
// buffer: 10,000 scans in 593 KB took 21 s. More than max_scans is refused, as libjpeg-turbo's own tools
// do (-maxscans), fewer for a picture over 16 MP (`jpeg_scan_limit`). An interrupt (SIGINT/SIGTERM in a
// batch) ends the decode here too, so it takes effect within one iMCU row rather than after the whole input
// phase.
void yc_jpeg_progress(j_common_ptr cinfo) {
    yc_decoder *dec = ((struct yc_jpeg_err *)cinfo->err)->dec;
    if (yc_interrupted()) {
        yc_set_error(dec, "interrupted");
        dec->error_kind = YC_ERROR_INTERRUPTED;
        longjmp(dec->jump, 1);
    }
    j_decompress_ptr d = (j_decompress_ptr)cinfo;
    // The components each scan holds (the monitor runs before each piece of input a scan is read in): a
    // component that no scan holds has no image data (`jpeg_scans_incomplete`).
    for (int i = 0; i < d->comps_in_scan && i < MAX_COMPS_IN_SCAN; i++)
        if (d->cur_comp_info[i] && d->cur_comp_info[i]->component_index < 32)
            dec->jpeg_scanned |= 1u << d->cur_comp_info[i]->component_index;
    // Each scan counted once for every component it holds: a scan of four components decodes four planes, and
    // an arithmetic-coded scan needs no data at all (the decoder takes zeros after a marker) — a 4 KB file of a
    // one-component scan and then 248 of four components, 5790x5790 CMYK, took 31 s of CPU and exited 0, within the
    // limit counted by scans.
    // A sequential file's first scan holding every component is one pass over the picture (a baseline file's
    // only scan): it counts once, as it did, so `--max-scans 1` still takes a baseline JPEG.
    if (d->input_scan_number != dec->jpeg_scan_seen && d->comps_in_scan > 0) {
        dec->jpeg_scan_seen = d->input_scan_number;
        const int whole = d->input_scan_number == 1 && !d->progressive_mode && d->comps_in_scan == d->num_components;
        dec->jpeg_scan_units += whole ? 1u : (uint64_t)d->comps_in_scan;
    }
    const int limit = jpeg_scan_limit(dec, d);
    if (limit > 0 && dec->jpeg_scan_units > (uint64_t)limit) {
        char msg[YC_MSG];
        // (A sequential JPEG may have several scans too: one for each component, or a group of them.)
        const char *kind = d->progressive_mode ? "progressive JPEG" : "JPEG";
        if (limit < dec->max_scans)
            snprintf(msg, sizeof msg, "the %s has more than %d scans (one for each component a scan holds), the most "
                     "for a %llu MP picture (%d up to 16 MP, fewer above: each scan re-reads the whole picture)", kind, limit,
                     (unsigned long long)(((uint64_t)d->image_width * d->image_height + 500000) / 1000000), dec->max_scans);
        else
            snprintf(msg, sizeof msg, "the %s has more than %d scans (one for each component a scan holds)", kind,
                     dec->max_scans);
        yc_set_error(dec, msg);
        dec->error_kind = YC_ERROR_TOO_MANY_SCANS;
        longjmp(dec->jump, 1);
    }
}

// How `data` reads as a JPEG up to its first scan (libjpeg's jpeg_read_header over memory): for an input given a
// --size that begins with FF D8 FF (bright samples), whether it is the JPEG or a raw frame. Nothing is printed;
// any error or damage warning is a no, unless the data ran out first (then more may make it read).
struct yc_header_probe {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    int ran_out;   // the data ended before the header did (libjpeg's memory source warned the end of the file)
};

static void probe_error_exit(j_common_ptr cinfo) { longjmp(((struct yc_header_probe *)cinfo->err)->jump, 1); }

static void probe_message(j_common_ptr cinfo, int level) {
    if (level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF) ((struct yc_header_probe *)cinfo->err)->ran_out = 1;
    if (level < 0 && jpeg_warning_damages_pixels(cinfo->err->msg_code)) probe_error_exit(cinfo);
}

int yc_jpeg_header_state(const uint8_t *data, size_t size) {
    struct jpeg_decompress_struct j;
    struct yc_header_probe err;
    j.err = jpeg_std_error(&err.pub);
    err.pub.error_exit = probe_error_exit;
    err.pub.emit_message = probe_message;
    err.ran_out = 0;
    if (setjmp(err.jump)) {
        jpeg_destroy_decompress(&j);
        return err.ran_out ? 2 : 0;
    }
    jpeg_create_decompress(&j);
    jpeg_mem_src(&j, data, (unsigned long)size);
    const int ok = jpeg_read_header(&j, TRUE) == JPEG_HEADER_OK;
    jpeg_destroy_decompress(&j);
    return ok ? 1 : 0;
}
