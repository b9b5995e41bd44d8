// The metadata the decoders read: the EXIF orientation tag (TIFF structure) and XMP's tiff:Orientation.
// Pure byte parsing, bounded by the count given; no library.
#include "yc_decode.h"

#include <string.h>

static unsigned tiff_u16(const uint8_t *p, int big) { return big ? (unsigned)(p[0] << 8 | p[1]) : (unsigned)(p[1] << 8 | p[0]); }
static uint32_t tiff_u32(const uint8_t *p, int big) {
    return big ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
               : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

// A TIFF header ("II*\0" little-endian, "MM\0*" big-endian): its byte order and the first IFD's offset; 0 when
// the data is too short or not TIFF.
static int tiff_header(const uint8_t *b, size_t n, int *big, uint32_t *ifd) {
    if (!b || n < 8) return 0;
    if (b[0] == 'I' && b[1] == 'I' && b[2] == 42 && b[3] == 0) *big = 0;
    else if (b[0] == 'M' && b[1] == 'M' && b[2] == 0 && b[3] == 42) *big = 1;
    else return 0;
    *ifd = tiff_u32(b + 4, *big);
    return 1;
}

int yc_exif_orientation_tag(const uint8_t *b, size_t n) {
    int big;
    uint32_t ifd;
    if (!tiff_header(b, n, &big, &ifd)) return 0;
    if (ifd < 8 || ifd > n - 2) return 0;
    unsigned entries = tiff_u16(b + ifd, big);
    for (unsigned i = 0; i < entries; i++) {
        size_t e = (size_t)ifd + 2 + (size_t)i * 12;
        if (e + 12 > n) return 0;
        if (tiff_u16(b + e, big) != 0x0112) continue;
        unsigned type = tiff_u16(b + e + 2, big);
        uint32_t count = tiff_u32(b + e + 4, big);
        if (type != 3 || count != 1) return -1;   // SHORT, one value, held in the entry itself
        unsigned v = tiff_u16(b + e + 8, big);
        return v >= 1 && v <= 8 ? (int)v : -1;
    }
    return 0;
}

int yc_exif_orientation(const uint8_t *b, size_t n) {
    const int v = yc_exif_orientation_tag(b, n);
    return v > 0 ? v : 1;
}

int yc_orientation_choice(int exif_tag, int xmp) {
    if (exif_tag > 0) return exif_tag;
    if (exif_tag < 0) return 1;   // an EXIF orientation that says nothing usable: as stored, XMP not asked
    return xmp ? xmp : 1;
}

// The entry `tag` of the IFD at `ifd`: its type, count and the offset of its value field; 0 when absent.
static int tiff_entry(const uint8_t *b, size_t n, uint32_t ifd, unsigned tag, int big, unsigned *type, uint32_t *count,
                      size_t *value) {
    if (ifd < 8 || ifd > n - 2) return 0;
    unsigned entries = tiff_u16(b + ifd, big);
    for (unsigned i = 0; i < entries; i++) {
        size_t e = (size_t)ifd + 2 + (size_t)i * 12;
        if (e + 12 > n) return 0;
        if (tiff_u16(b + e, big) != tag) continue;
        *type = tiff_u16(b + e + 2, big);
        *count = tiff_u32(b + e + 4, big);
        *value = e + 8;
        return 1;
    }
    return 0;
}

int yc_exif_adobe_rgb(const uint8_t *b, size_t n) {
    int big;
    uint32_t ifd;
    if (!tiff_header(b, n, &big, &ifd)) return 0;
    unsigned type;
    uint32_t count;
    size_t value;
    // IFD0 → Exif IFD (0x8769) → Interoperability IFD (0xA005) → InteroperabilityIndex (0x0001, ASCII "R03").
    if (!tiff_entry(b, n, ifd, 0x8769, big, &type, &count, &value) || type != 4) return 0;
    if (!tiff_entry(b, n, tiff_u32(b + value, big), 0xA005, big, &type, &count, &value) || type != 4) return 0;
    if (!tiff_entry(b, n, tiff_u32(b + value, big), 0x0001, big, &type, &count, &value) || type != 2 || count < 3) return 0;
    const uint8_t *s = count <= 4 ? b + value : NULL;
    if (!s) {
        uint32_t at = tiff_u32(b + value, big);
        if (at > n || n - at < 3) return 0;
        s = b + at;
    }
    return s[0] == 'R' && s[1] == '0' && s[2] == '3';
}

// XMP's tiff:Orientation, as an attribute (tiff:Orientation="6", either quote) or an element
// (<tiff:Orientation>6</...>), one digit 1…8 and nothing else in the value; outside XML comments. 1 when
// absent or malformed. Never reads outside bytes[0..<count].
int yc_xmp_orientation(const uint8_t *b, size_t n) {
    static const char key[] = "tiff:Orientation";
    const size_t k = sizeof key - 1;
#define YC_SPACE(c) ((c) == ' ' || (c) == '\t' || (c) == '\r' || (c) == '\n')
    for (size_t i = 0; b && i + k < n; i++) {
        if (i + 4 <= n && memcmp(b + i, "<!--", 4) == 0) {   // a comment: skip to its end
            size_t j = i + 4;
            while (j + 3 <= n && memcmp(b + j, "-->", 3) != 0) j++;
            if (j + 3 > n) return 1;
            i = j + 2;
            continue;
        }
        if (memcmp(b + i, key, k) != 0) continue;
        size_t j = i + k;
        while (j < n && YC_SPACE(b[j])) j++;
        if (j >= n) return 1;
        if (b[j] == '=') {
            j++;
            while (j < n && YC_SPACE(b[j])) j++;
            if (j + 2 < n && (b[j] == '"' || b[j] == '\'') && b[j + 1] >= '1' && b[j + 1] <= '8' && b[j + 2] == b[j])
                return b[j + 1] - '0';
        } else if (b[j] == '>') {
            j++;
            while (j < n && YC_SPACE(b[j])) j++;
            if (j < n && b[j] >= '1' && b[j] <= '8') {
                const int v = b[j] - '0';
                j++;
                while (j < n && YC_SPACE(b[j])) j++;
                if (j < n && b[j] == '<') return v;
            }
        }
    }
#undef YC_SPACE
    return 1;
}
