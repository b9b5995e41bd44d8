// The metadata the decoders read: the EXIF orientation tag (TIFF structure) and XMP's tiff:Orientation.
// Pure byte parsing, bounded by the count given; no library.
#include "yc_decode.h"
#include "yc_decode_internal.h"

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

// Where an entry's values are: in its value field (`field`, within the data) when all of them fit in its four
// bytes, else at the offset the field holds. NULL unless all `count` values of `size` bytes lie within the data:
// exiftool, Pillow and ImageMagick drop a tag whose values run past it (a count of 2^32 − 1 with two bytes there,
// an array cut short), and its first value, there or not, is then no more to be trusted than the rest.
static const uint8_t *tiff_values(const uint8_t *b, size_t n, size_t field, unsigned size, uint32_t count, int big) {
    const uint64_t bytes = (uint64_t)size * count;
    if (bytes <= 4) return b + field;
    const uint32_t at = tiff_u32(b + field, big);
    if (at > n || bytes > n - at) return NULL;
    return b + at;
}

// The bytes of one value of TIFF type `type` (BYTE, ASCII, SHORT, LONG, RATIONAL, SBYTE, UNDEFINED, SSHORT, SLONG,
// SRATIONAL, FLOAT, DOUBLE, and IFD: a LONG offset, which Pillow and exiftool read as one); 0 for a type TIFF does
// not define.
static unsigned tiff_type_size(unsigned type) {
    static const unsigned sizes[14] = {0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4};
    return type < 14 ? sizes[type] : 0;
}

// The first IFD's orientation entry (tag 0x0112) that holds something: its offset in `*entry`, type and count. An
// entry of a type TIFF does not define, or with no value, holds nothing (Pillow skips it); one whose values run
// past the data (of whatever type: a RATIONAL ×65535 too) is dropped, as exiftool, Pillow and ImageMagick drop
// it. Either way a later entry is looked for (as exiftool finds it), and without one XMP's orientation may apply
// (as Pillow's does); `*dropped` says which was met (1 past the data, 2 nothing held, 3 both). 0 when there is
// none (or the directory ends first).
static int orientation_entry(const uint8_t *b, size_t n, int *big, size_t *entry, unsigned *type, uint32_t *count,
                             int *dropped) {
    uint32_t ifd;
    *dropped = 0;
    if (!tiff_header(b, n, big, &ifd)) return 0;
    if (ifd < 8 || ifd > n - 2) return 0;
    unsigned entries = tiff_u16(b + ifd, *big);
    for (unsigned i = 0; i < entries; i++) {
        size_t e = (size_t)ifd + 2 + (size_t)i * 12;
        if (e + 12 > n) return 0;
        if (tiff_u16(b + e, *big) != 0x0112) continue;
        const unsigned t = tiff_u16(b + e + 2, *big), size = tiff_type_size(t);
        const uint32_t c = tiff_u32(b + e + 4, *big);
        if (size == 0 || c == 0) {
            *dropped |= 2;
            continue;
        }
        if (!tiff_values(b, n, e + 8, size, c, *big)) {
            *dropped |= 1;
            continue;
        }
        *entry = e;
        *type = t;
        *count = c;
        return 1;
    }
    return 0;
}

int yc_exif_orientation_tag(const uint8_t *b, size_t n) {
    int big, dropped;
    size_t e;
    unsigned type;
    uint32_t count;
    if (!orientation_entry(b, n, &big, &e, &type, &count, &dropped)) return 0;
    // SHORT with one value, as Exif says; writers also use LONG, the signed types or several values, and
    // Pillow, ImageMagick and exiftool read the first value of any of those: so does this (and of BYTE, which
    // exiftool and ImageMagick apply and Pillow 13 leaves as stored). A RATIONAL, FLOAT or DOUBLE that is a whole
    // number (6/1, 6.0) is that number to Pillow and exiftool, and here. Its bytes are in the entry when they fit
    // in four, else at the offset there (all of them within the data: `orientation_entry`). Text (ASCII,
    // UNDEFINED) holds no orientation.
    const uint8_t *p = tiff_values(b, n, e + 8, tiff_type_size(type), count, big);
    if (!p) return -1;
    int64_t v;
    switch (type) {
    case 1: v = p[0]; break;
    case 6: v = (int8_t)p[0]; break;
    case 3: v = tiff_u16(p, big); break;
    case 8: v = (int16_t)tiff_u16(p, big); break;
    case 4: case 13: v = tiff_u32(p, big); break;
    case 9: v = (int32_t)tiff_u32(p, big); break;
    case 5: case 10: {
        const int64_t num = type == 5 ? (int64_t)tiff_u32(p, big) : (int64_t)(int32_t)tiff_u32(p, big);
        const int64_t den = type == 5 ? (int64_t)tiff_u32(p + 4, big) : (int64_t)(int32_t)tiff_u32(p + 4, big);
        if (den == 0 || num % den != 0) return -1;
        v = num / den;
        break;
    }
    case 11: case 12: {
        double d;
        if (type == 11) {
            const uint32_t bits = tiff_u32(p, big);
            float f;
            memcpy(&f, &bits, 4);
            d = f;
        } else {
            const uint64_t hi = tiff_u32(p + (big ? 0 : 4), big), lo = tiff_u32(p + (big ? 4 : 0), big);
            const uint64_t bits = hi << 32 | lo;
            memcpy(&d, &bits, 8);
        }
        if (!(d >= 1 && d <= 8) || d != (double)(int)d) return -1;
        v = (int)d;
        break;
    }
    default: return -1;   // ASCII, UNDEFINED: text, no number
    }
    return v >= 1 && v <= 8 ? (int)v : -1;
}

const char *yc_exif_damage(const uint8_t *b, size_t n) {
    int big;
    uint32_t ifd;
    if (!tiff_header(b, n, &big, &ifd)) return "it does not begin as TIFF data (II*\\0 or MM\\0*)";
    if (ifd < 8 || ifd > n - 2) return "its first directory lies outside it (or inside its 8-byte header)";
    const unsigned entries = tiff_u16(b + ifd, big);
    if ((size_t)ifd + 2 + (size_t)entries * 12 > n) return "its first directory runs past its end (the data is cut short)";
    size_t e;
    unsigned type;
    uint32_t count;
    int dropped;
    (void)orientation_entry(b, n, &big, &e, &type, &count, &dropped);
    if (dropped & 1) return YC_EXIF_DROPPED_TAG;
    if (dropped) return YC_EXIF_EMPTY_TAG;
    return NULL;
}

int yc_exif_orientation(const uint8_t *b, size_t n) {
    const int v = yc_exif_orientation_tag(b, n);
    return v > 0 ? v : 1;
}

int yc_orientation_choice(int exif_tag, int xmp, int *from_xmp) {
    *from_xmp = exif_tag == 0 && xmp != 0;
    if (exif_tag > 0) return exif_tag;
    if (exif_tag < 0) return 1;   // an EXIF orientation that says nothing usable: as stored, XMP not asked
    return xmp > 0 ? xmp : 1;     // XMP's, or as stored (none, or one that says nothing usable: xmp < 0)
}

int yc_orientation_unusable(int exif_tag, int xmp) {
    return exif_tag < 0 ? 1 : exif_tag == 0 && xmp < 0 ? 2 : 0;
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
    const uint8_t *p;
    // IFD0 → Exif IFD (0x8769) → Interoperability IFD (0xA005) → InteroperabilityIndex (0x0001, ASCII "R03"); each
    // value read where its count puts it, and only when all of them are within the data (`tiff_values`).
    if (!tiff_entry(b, n, ifd, 0x8769, big, &type, &count, &value) || type != 4 || count < 1 ||
        !(p = tiff_values(b, n, value, 4, count, big)))
        return 0;
    const uint32_t exif_ifd = tiff_u32(p, big);
    // DCF's Adobe RGB is R03 with ColorSpace (0xA001) "uncalibrated" (0xFFFF; some cameras write 2); a
    // ColorSpace of 1 says sRGB, whatever index a tool that converted the picture left behind.
    if (tiff_entry(b, n, exif_ifd, 0xA001, big, &type, &count, &value) && type == 3 && count >= 1 &&
        (p = tiff_values(b, n, value, 2, count, big)) && tiff_u16(p, big) == 1)
        return 0;
    if (!tiff_entry(b, n, exif_ifd, 0xA005, big, &type, &count, &value) || type != 4 || count < 1 ||
        !(p = tiff_values(b, n, value, 4, count, big)))
        return 0;
    if (!tiff_entry(b, n, tiff_u32(p, big), 0x0001, big, &type, &count, &value) || type != 2 || count < 3 ||
        !(p = tiff_values(b, n, value, 1, count, big)))
        return 0;
    return p[0] == 'R' && p[1] == '0' && p[2] == '3';
}

// XMP's tiff:Orientation, read by a small XML scanner rather than a search for the bytes: text that only mentions
// the property (inside another attribute's value, a CDATA section, a comment, or under another prefix) must not
// turn the picture. Linear in the packet, no recursion, no allocation; never reads outside b[0..<n].
static const char xmp_tiff_namespace[] = "http://ns.adobe.com/tiff/1.0/";

typedef struct {
    const uint8_t *p;
    size_t n;
} xml_span;

static int span_is(xml_span s, const char *text) { return s.n == strlen(text) && memcmp(s.p, text, s.n) == 0; }
static int span_equal(xml_span a, xml_span b) { return a.n == b.n && memcmp(a.p, b.p, a.n) == 0; }
static int xml_space(uint8_t c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
// A byte of an element's or attribute's name: anything but what ends one (lenient: the scanner only needs to
// know where names end).
static int xml_name_byte(uint8_t c) {
    return !xml_space(c) && c != '=' && c != '/' && c != '>' && c != '<' && c != '"' && c != '\'';
}

// Where `end` (a short literal) first starts at or after `from`; n when it does not.
static size_t xml_find(const uint8_t *b, size_t n, size_t from, const char *end) {
    const size_t k = strlen(end);
    for (size_t i = from; i + k <= n; i++)
        if (memcmp(b + i, end, k) == 0) return i;
    return n;
}

static int xml_starts(const uint8_t *b, size_t n, size_t at, const char *text) {
    const size_t k = strlen(text);
    return n - at >= k && memcmp(b + at, text, k) == 0;
}

// The next attribute of a start tag from `*at`: 1 with its name and its value (the bytes between the quotes,
// either quote, so a '>' or the other quote inside is value); 0 at the tag's end, with `*at` just past its '>'
// and `*empty` saying "/>"; -1 when the tag is malformed or cut short.
static int xml_attribute(const uint8_t *b, size_t n, size_t *at, xml_span *name, xml_span *value, int *empty) {
    size_t i = *at;
    while (i < n && xml_space(b[i])) i++;
    if (i < n && b[i] == '>') { *empty = 0; *at = i + 1; return 0; }
    if (i + 1 < n && b[i] == '/' && b[i + 1] == '>') { *empty = 1; *at = i + 2; return 0; }
    const size_t start = i;
    while (i < n && xml_name_byte(b[i])) i++;
    if (i == start) return -1;
    *name = (xml_span){b + start, i - start};
    while (i < n && xml_space(b[i])) i++;
    if (i >= n || b[i] != '=') return -1;
    i++;
    while (i < n && xml_space(b[i])) i++;
    if (i >= n || (b[i] != '"' && b[i] != '\'')) return -1;
    const uint8_t quote = b[i++];
    const size_t v = i;
    while (i < n && b[i] != quote) i++;
    if (i >= n) return -1;
    *value = (xml_span){b + v, i - v};
    *at = i + 1;
    return 1;
}

// The prefixes bound to TIFF's namespace so far. Scoping is simplified: a declaration holds from where it is seen
// to the end of the packet (or to the prefix's next declaration), not only inside its element — XMP writers
// declare each prefix once. `tiff` is apart: it counts unless bound to another URI, as Pillow and exiftool read
// packets that never declare it. A ninth other prefix bound to TIFF's namespace is not recorded.
typedef struct {
    xml_span prefix[8];
    int count;
    int tiff_elsewhere;   // `tiff` is bound to another namespace
} xmp_bindings;

static void xmp_declare(xmp_bindings *ns, xml_span prefix, xml_span uri) {
    const int tiff = span_is(uri, xmp_tiff_namespace);
    if (span_is(prefix, "tiff")) {
        ns->tiff_elsewhere = !tiff;
        return;
    }
    int at = 0;
    while (at < ns->count && !span_equal(ns->prefix[at], prefix)) at++;
    if (tiff && at == ns->count && ns->count < 8) ns->prefix[ns->count++] = prefix;
    else if (!tiff && at < ns->count) ns->prefix[at] = ns->prefix[--ns->count];
}

// Whether `name` is P:Orientation with P bound to TIFF's namespace.
static int xmp_is_orientation(const xmp_bindings *ns, xml_span name) {
    static const char local[] = ":Orientation";
    const size_t k = sizeof local - 1;
    if (name.n <= k || memcmp(name.p + name.n - k, local, k) != 0) return 0;
    const xml_span prefix = {name.p, name.n - k};
    if (span_is(prefix, "tiff")) return !ns->tiff_elsewhere;
    for (int i = 0; i < ns->count; i++)
        if (span_equal(ns->prefix[i], prefix)) return 1;
    return 0;
}

// The markup skipped whole: comments, CDATA sections, processing instructions (the <?xpacket?> wrapper), end
// tags and declarations (<!DOCTYPE …>, whose internal subset in [ ] may hold '>'). Returns the offset just past
// it, or 0 when `at` starts none of them, or n + 1 when it is cut short.
static size_t xml_skip(const uint8_t *b, size_t n, size_t at) {
    static const struct { const char *start, *end; } kinds[] = {
        {"<!--", "-->"}, {"<![CDATA[", "]]>"}, {"<?", "?>"}, {"</", ">"},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        if (!xml_starts(b, n, at, kinds[k].start)) continue;
        const size_t end = xml_find(b, n, at + strlen(kinds[k].start), kinds[k].end);
        return end == n ? n + 1 : end + strlen(kinds[k].end);
    }
    if (!xml_starts(b, n, at, "<!")) return 0;
    uint8_t quote = 0;
    int depth = 0;
    for (size_t i = at + 2; i < n; i++) {
        if (quote) { if (b[i] == quote) quote = 0; }
        else if (b[i] == '"' || b[i] == '\'') quote = b[i];
        else if (b[i] == '[') depth++;
        else if (b[i] == ']' && depth > 0) depth--;
        else if (b[i] == '>' && depth == 0) return i + 1;
    }
    return n + 1;
}

/// The orientation a tiff:Orientation value holds, its references already decoded (`xmp_append_text`): 1…8, or −1
/// when it holds none (0, 9, a word). An integer as XML Schema's integer type allows one — spaces around it, a
/// leading +, leading zeros (" 6", "+06").
static int xmp_value(xml_span v) {
    while (v.n && xml_space(v.p[0])) { v.p++; v.n--; }
    while (v.n && xml_space(v.p[v.n - 1])) v.n--;
    if (v.n > 1 && v.p[0] == '+' && v.p[1] >= '0' && v.p[1] <= '9') { v.p++; v.n--; }
    if (v.n && v.p[0] >= '0' && v.p[0] <= '9') {
        uint32_t x = 0;
        for (size_t i = 0; i < v.n; i++) {
            if (v.p[i] < '0' || v.p[i] > '9') return -1;
            x = x * 10 + (uint32_t)(v.p[i] - '0');
            if (x > 8) return -1;
        }
        return x >= 1 ? (int)x : -1;
    }
    return -1;
}

// Text as an XML reader decodes it, appended to `text` (at most `cap` bytes, `*k` of them used): a character or
// entity reference (`&#54;`, `&#x36;`, `&lt;`) as its character — one outside ASCII as a byte no value holds —
// and every other byte as it is; `literal` (a CDATA section's text) takes '&' as no reference, which no value holds.
// Leading spaces are skipped, a lone leading zero (after a sign or not) gives way to the digit after it, and
// trailing spaces past the buffer are dropped. −1 when the text holds no value: a reference cut short (one that
// runs into a CDATA section or a comment is malformed XML), or more than the buffer holds.
static int xmp_append_text(const uint8_t *p, size_t n, int literal, uint8_t *text, size_t cap, size_t *k) {
    for (size_t i = 0; i < n; i++) {
        uint8_t c = p[i];
        if (c == '&') {
            if (literal) return -1;
            // A numeric reference's leading zeros are no digits of it (`&#000000000054;` is "6" to an XML reader;
            // it was cut off by the length cap): skipped before the cap counts.
            size_t j = i + 1, zeros = 0;
            if (j < n && p[j] == '#') {
                size_t z = j + 1 + (j + 1 < n && p[j + 1] == 'x');
                while (z < n && p[z] == '0') z++, zeros++;
            }
            while (j < n && j - i <= 12 + zeros && p[j] != ';') j++;
            if (j >= n || p[j] != ';') return -1;
            const xml_span ref = {p + i + 1, j - i - 1};
            if (span_is(ref, "lt")) c = '<';
            else if (span_is(ref, "gt")) c = '>';
            else if (span_is(ref, "amp")) c = '&';
            else if (span_is(ref, "quot")) c = '"';
            else if (span_is(ref, "apos")) c = '\'';
            else if (ref.n >= 2 && ref.p[0] == '#') {
                const int hex = ref.p[1] == 'x';
                uint32_t v = 0;
                if (ref.n == (size_t)(1 + hex)) return -1;
                for (size_t d = 1 + hex; d < ref.n; d++) {
                    const uint8_t x = ref.p[d], lower = x | 0x20;
                    uint32_t digit;
                    if (x >= '0' && x <= '9') digit = x - '0';
                    else if (hex && lower >= 'a' && lower <= 'f') digit = lower - 'a' + 10;
                    else return -1;
                    v = v * (hex ? 16 : 10) + digit;
                    if (v > 0x10FFFF) return -1;
                }
                c = v < 128 ? (uint8_t)v : 0xFF;
            } else {
                return -1;
            }
            i = j;
        }
        if (*k == 0 && xml_space(c)) continue;   // leading spaces
        // The value so far a lone 0 (after a sign or not): another digit takes its place.
        const size_t sign = *k > 0 && text[0] == '+';
        if (*k == sign + 1 && text[sign] == '0' && c >= '0' && c <= '9') {
            text[sign] = c;
            continue;
        }
        if (*k < cap) text[(*k)++] = c;
        else if (!xml_space(c)) return -1;
    }
    return 0;
}

// The orientation an element's content holds, from `at` (just past its start tag) to its end tag: its text as an
// XML reader joins it — character data (its references decoded) and CDATA sections (literal), comments and
// processing instructions dropped — read by `xmp_value`; −1 when the content holds a child element (no single
// value), a reference cut short, or text too long to be one; 0 when it is cut short. So `6<![CDATA[1]]>` is "61",
// no orientation, as exiftool reads it, not 6; `0&#54;` is "06", 6; `<![CDATA[&#54;]]>` and `&#5<!-- -->4;` none.
static int xmp_element_text(const uint8_t *b, size_t n, size_t at) {
    uint8_t text[64];
    size_t k = 0;
    while (at < n) {
        if (b[at] != '<') {
            size_t end = at;
            while (end < n && b[end] != '<') end++;
            if (end == n) return 0;
            if (xmp_append_text(b + at, end - at, 0, text, sizeof text, &k) < 0) return -1;
            at = end;
        } else if (xml_starts(b, n, at, "</")) {
            return xmp_value((xml_span){text, k});
        } else if (xml_starts(b, n, at, "<![CDATA[")) {
            const size_t end = xml_find(b, n, at + 9, "]]>");
            if (end == n) return 0;
            if (xmp_append_text(b + at + 9, end - at - 9, 1, text, sizeof text, &k) < 0) return -1;
            at = end + 3;
        } else if (xml_starts(b, n, at, "<!--") || xml_starts(b, n, at, "<?")) {
            const size_t skipped = xml_skip(b, n, at);
            if (skipped > n) return 0;
            at = skipped;
        } else {
            return -1;   // a child element, or markup no value holds
        }
    }
    return 0;
}

// An attribute's value as an XML reader decodes it, read by `xmp_value` (`0&#54;` is "06", 6).
static int xmp_attribute_value(xml_span v) {
    uint8_t text[64];
    size_t k = 0;
    if (xmp_append_text(v.p, v.n, 0, text, sizeof text, &k) < 0) return -1;
    return xmp_value((xml_span){text, k});
}

int yc_xmp_orientation(const uint8_t *b, size_t n) {
    xmp_bindings ns = {0};
    size_t i = 0;
    while (b && i < n) {
        if (b[i] != '<') {   // character data between tags: never a property's name
            i++;
            continue;
        }
        const size_t skipped = xml_skip(b, n, i);
        if (skipped > n) return 0;
        if (skipped) {
            i = skipped;
            continue;
        }
        // A start tag: its name, then its attributes twice — the namespace declarations first, so that a tag may
        // declare the prefix its own properties use, then the properties.
        size_t at = i + 1;
        while (at < n && xml_name_byte(b[at])) at++;
        if (at == i + 1) return 0;
        const xml_span element = {b + i + 1, at - i - 1};
        const size_t attributes = at;
        xml_span name, value;
        int empty = 0, r;
        while ((r = xml_attribute(b, n, &at, &name, &value, &empty)) == 1)
            if (name.n > 6 && memcmp(name.p, "xmlns:", 6) == 0) xmp_declare(&ns, (xml_span){name.p + 6, name.n - 6}, value);
        if (r < 0) return 0;
        const size_t after = at;
        // The first property found decides, whatever it holds. As an element, its text content as an XML reader
        // sees it (`xmp_element_text`).
        if (xmp_is_orientation(&ns, element)) return empty ? -1 : xmp_element_text(b, n, after);
        at = attributes;
        while (xml_attribute(b, n, &at, &name, &value, &empty) == 1)
            if (xmp_is_orientation(&ns, name)) return xmp_attribute_value(value);
        i = after;
    }
    return 0;
}
