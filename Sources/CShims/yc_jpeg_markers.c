// The JPEG header's segments yuvconv reads itself (split from yc_jpeg.c by role): APP1 (the first Exif
// segment, for the orientation; XMP's tiff:Orientation) and APP2 (the ICC profile's pieces), each skipped
// through the source otherwise, then the profile joined and the orientation chosen.
#include "yc_decode_internal.h"
#include "yc_colour.h"

#include <stdlib.h>
#include <string.h>

// A JPEG APP1 segment holding XMP starts so (then a NUL, then the packet).
static const char xmp_jpeg_prefix[] = "http://ns.adobe.com/xap/1.0/";

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
// A marker segment's length field: the bytes of its body (the field's own two excluded).
static long marker_length(j_decompress_ptr cinfo) {
    long length = (long)marker_byte(cinfo) << 8;
    length += marker_byte(cinfo);
    return length - 2;
}

/// A second Exif segment (its first bytes `head`, 6 or more, after the first one was kept): said once, ignored as a
/// PNG's second eXIf is (its orientation may differ from the one applied).
static void second_exif(yc_decoder *dec, const uint8_t *head) {
    if (dec->exif == NULL || dec->exif_second_said || memcmp(head, "Exif\0\0", 6) != 0) return;
    dec->exif_second_said = 1;
    yc_warn_exif(dec, "a second Exif segment (APP1), ignored (the first one is used)");
}

/// An APP1 segment after the first scan (between a progressive file's scans, or before its end marker): the
/// orientation and colour space were decided with the header, before the first row. A first Exif segment or an XMP
/// orientation that the header's would not have overridden comes too late: said once each, as a PNG's eXIf or XMP
/// after its image data is, never kept; a second Exif segment is said as in the header.
static boolean late_app1(j_decompress_ptr cinfo, yc_decoder *dec, long length) {
    const long xmp_prefix = (long)sizeof xmp_jpeg_prefix;
    const int exif_wanted = length > 6 && !dec->exif_late_said;
    const int xmp_wanted = length >= xmp_prefix && !dec->xmp_seen && !dec->xmp_late_said;
    if (!exif_wanted && !xmp_wanted) {
        (*cinfo->src->skip_input_data)(cinfo, length);
        return TRUE;
    }
    uint8_t *body = dec->app1;
    for (long i = 0; i < length; i++) body[i] = (uint8_t)marker_byte(cinfo);
    if (exif_wanted && memcmp(body, "Exif\0\0", 6) == 0) {
        if (dec->exif) {
            second_exif(dec, body);
        } else {
            dec->exif_late_said = 1;
            yc_warn_exif(dec, YC_JPEG_LATE_EXIF);
        }
    }
    // Only an orientation that would have been used: none from the header's Exif, which decides over XMP.
    const int exif_tag = dec->exif ? yc_exif_orientation_tag(dec->exif + 6, dec->exif_length - 6) : 0;
    if (xmp_wanted && exif_tag == 0 && memcmp(body, xmp_jpeg_prefix, (size_t)xmp_prefix) == 0 &&
        yc_xmp_orientation(body + xmp_prefix, (size_t)(length - xmp_prefix)) > 1) {
        dec->xmp_late_said = 1;
        yc_warn_xmp(dec, "APP1: an XMP orientation after the first scan comes too late: not applied (the picture is "
                    "converted as stored)");
    }
    return TRUE;
}

boolean yc_jpeg_app1_marker(j_decompress_ptr cinfo) {
    yc_decoder *dec = ((struct yc_jpeg_err *)cinfo->err)->dec;
    long length = marker_length(cinfo);
    if (length <= 0) return TRUE;
    const long xmp_prefix = (long)sizeof xmp_jpeg_prefix;   // with its NUL
    if (dec->jpeg_header_read) return late_app1(cinfo, dec, length);
    // After the first Exif segment, a segment that cannot be the first XMP packet (one came, or it is too short
    // for the prefix) has only its name read: a second Exif segment is ignored, as a PNG's second eXIf is, and said
    // once (its orientation may differ from the one applied). One shorter than the XMP prefix went unread before.
    if (dec->exif != NULL && length > 6 && (dec->xmp_seen || length < xmp_prefix)) {
        uint8_t head[6];
        for (int i = 0; i < 6; i++) head[i] = (uint8_t)marker_byte(cinfo);
        second_exif(dec, head);
        (*cinfo->src->skip_input_data)(cinfo, length - 6);
        return TRUE;
    }
    if ((dec->exif == NULL && length > 6) || (!dec->xmp_seen && length >= xmp_prefix)) {
        uint8_t *body = dec->app1;
        for (long i = 0; i < length; i++) body[i] = (uint8_t)marker_byte(cinfo);
        if (length > 6) second_exif(dec, body);
        if (dec->exif == NULL && length > 6 && memcmp(body, "Exif\0\0", 6) == 0) {
            uint8_t *kept = malloc((size_t)length);   // no longjmp between this and the assignment
            if (kept) {
                memcpy(kept, body, (size_t)length);
                dec->exif = kept;
                dec->exif_length = (size_t)length;
            }
            return TRUE;
        }
        // The first XMP packet decides, with the property or without, as a PNG's first XMP iTXt does (each format
        // allows one standard packet): one verdict whatever the container.
        // An empty packet (the prefix alone) is the first packet too, as an empty XMP iTXt is a PNG's.
        if (!dec->xmp_seen && length >= xmp_prefix && memcmp(body, xmp_jpeg_prefix, (size_t)xmp_prefix) == 0) {
            dec->xmp_seen = 1;
            dec->xmp_orientation = yc_xmp_orientation(body + xmp_prefix, (size_t)(length - xmp_prefix));
        }
        return TRUE;
    }
    (*cinfo->src->skip_input_data)(cinfo, length);
    return TRUE;
}

// APP2 segments: the ICC profile, split by its writer into "ICC_PROFILE\0", sequence number (from 1), count,
// then a piece of the profile. Each piece is copied out of the fixed buffer (no longjmp between malloc and
// the assignment); other APP2 segments are skipped through the source.
boolean yc_jpeg_app2_marker(j_decompress_ptr cinfo) {
    yc_decoder *dec = ((struct yc_jpeg_err *)cinfo->err)->dec;
    long length = marker_length(cinfo);
    if (length <= 0) return TRUE;
    // Without colour management the profile is never used: its pieces (up to 16 MB) are not kept. Nor are
    // pieces after the header (between progressive scans, before the end marker): the profile was joined from
    // the header's, and a later one (16 MB more) would be held, unused, until the decoder is closed.
    static const char tag[] = "ICC_PROFILE";   // with its NUL: 12 bytes
    // A piece after the first scan comes after the colours were decided with the header: said once, as a PNG's
    // iCCP after its image data is (it went by in silence, the picture converted as if untagged).
    if (dec->icc_joined && dec->colour_target >= 0 && !dec->icc_late_said && length >= (long)sizeof tag) {
        uint8_t head[sizeof tag];
        for (size_t i = 0; i < sizeof tag; i++) head[i] = (uint8_t)marker_byte(cinfo);
        if (memcmp(head, tag, sizeof tag) == 0) {
            dec->icc_late_said = 1;
            yc_warn(dec, "APP2: an ICC profile piece after the first scan is not read (a profile must come before the "
                         "first scan; only what came before it is used)");
        }
        (*cinfo->src->skip_input_data)(cinfo, length - (long)sizeof tag);
        return TRUE;
    }
    if (dec->colour_target < 0 || dec->icc_joined) {
        (*cinfo->src->skip_input_data)(cinfo, length);
        return TRUE;
    }
    // Exactly 14 bytes is the header of an empty piece, still one of the sequence (as libjpeg-turbo's
    // jpeg_read_icc_profile counts it): skipped, a profile of N pieces with one empty looked incomplete.
    if (length < (long)sizeof tag) {
        (*cinfo->src->skip_input_data)(cinfo, length);
        return TRUE;
    }
    uint8_t *body = dec->app1;
    for (long i = 0; i < length; i++) body[i] = (uint8_t)marker_byte(cinfo);
    if (memcmp(body, tag, sizeof tag) != 0) return TRUE;
    // A piece cut before its sequence number and count is no piece (libjpeg-turbo's jpeg_read_icc_profile skips it
    // too): a whole profile beside it is used; with no other piece it is said, as an incomplete profile.
    if (length < 14) {
        dec->icc_short = 1;
        return TRUE;
    }
    int seq = body[12], count = body[13];
    if (seq < 1 || count < 1 || seq > count || (dec->icc_count && dec->icc_count != count) || dec->icc_chunk[seq - 1]) {
        dec->icc_bad = 1;
        return TRUE;
    }
    dec->icc_count = count;
    size_t n = (size_t)(length - 14);
    uint8_t *piece = malloc(n ? n : 1);
    if (!piece) { dec->icc_bad = 1; return TRUE; }
    memcpy(piece, body + 14, n);
    dec->icc_chunk[seq - 1] = piece;
    dec->icc_chunk_length[seq - 1] = n;
    return TRUE;
}

// After the header: the ICC pieces joined in sequence order (every one present, none repeated), else none
// and `icc_broken`; the EXIF colour-space hint.
void yc_jpeg_colour(yc_decoder *dec) {
    yc_colour *c = &dec->colour;
    c->grey = dec->jpeg.jpeg_color_space == JCS_GRAYSCALE;
    c->cmyk = dec->jpeg.jpeg_color_space == JCS_CMYK || dec->jpeg.jpeg_color_space == JCS_YCCK;
    dec->icc_joined = 1;
    if (dec->exif) c->exif_adobe_rgb = yc_exif_adobe_rgb(dec->exif + 6, dec->exif_length - 6);
    if (dec->icc_count == 0) { c->icc_broken = dec->icc_bad || dec->icc_short; return; }
    size_t total = 0;
    for (int i = 0; i < dec->icc_count; i++) {
        if (!dec->icc_chunk[i]) { c->icc_broken = 1; return; }
        total += dec->icc_chunk_length[i];
    }
    if (dec->icc_bad || total == 0 || !(dec->icc = malloc(total))) { c->icc_broken = 1; return; }
    size_t at = 0;
    for (int i = 0; i < dec->icc_count; i++) {
        memcpy(dec->icc + at, dec->icc_chunk[i], dec->icc_chunk_length[i]);
        at += dec->icc_chunk_length[i];
        free(dec->icc_chunk[i]);   // joined: one copy held, not two
        dec->icc_chunk[i] = NULL;
    }
    c->icc = dec->icc;
    c->icc_length = total;
}

int yc_jpeg_orientation(yc_decoder *dec, int *from_xmp) {
    int exif = dec->exif ? yc_exif_orientation_tag(dec->exif + 6, dec->exif_length - 6) : 0;
    if (dec->exif) yc_warn_exif_damage(dec, "its Exif data (APP1) is damaged", dec->exif + 6, dec->exif_length - 6, exif);
    dec->info.orientation_unusable = yc_orientation_unusable(exif, dec->xmp_orientation);
    return yc_orientation_choice(exif, dec->xmp_orientation, from_xmp);
}
