// What an embedded ICC profile may ask of LittleCMS before it is opened. A profile's tags are read lazily
// and each tag's data only once, so the work and memory of a transform follow the profile's bytes — except
// where one tag's parts may point at the same bytes many times. A multiProcessElements tag ('mpet', the float
// D2Bx/B2Dx LUTs of ICC v4) lists its elements through a table of positions: 100,000 entries pointing at one
// small matrix made a 4 KB PNG run for minutes (LittleCMS evaluates every stage at every point of its
// optimisation grid), and 100 pointing at one 3 MB colour table took 917 MiB. Such a profile is refused (a
// warning; the samples are used as stored): at most `max_elements` elements, and no element's bytes counted
// twice, so what LittleCMS builds is bounded by what the file holds. Real profiles have a few elements.
#include "yc_colour_internal.h"

#include <stdint.h>
#include <stdio.h>

enum { max_elements = 64 };

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

// One 'mpet' tag of `size` bytes at `tag`: its elements fit, are few, and do not share bytes (their sizes add
// up to no more than the tag's).
static int mpet_within_limits(const uint8_t *tag, uint64_t size, char *why, size_t why_size) {
    if (size < 16) return 1;   // LittleCMS refuses it itself
    const uint32_t count = be32(tag + 12);
    if (count > max_elements) {
        snprintf(why, why_size, "the embedded ICC profile's processing elements (%u) are more than %d", count, max_elements);
        return 0;
    }
    if (16 + (uint64_t)count * 8 > size) return 1;   // a position table past the tag: LittleCMS refuses the tag
    uint64_t total = 0;
    for (uint32_t i = 0; i < count; i++) {
        const uint64_t offset = be32(tag + 16 + 8 * i), length = be32(tag + 20 + 8 * i);
        if (offset + length > size) return 1;   // outside the tag: refused by LittleCMS
        total += length;
        // A colour table interpolates between 2^inputs grid points for every colour it is asked: 15 inputs
        // (what the format allows) cost 32,768 reads a colour from a table of a few hundred KB. Colour spaces
        // of images have at most four channels.
        if (length >= 12 && be32(tag + offset) == 0x636C7574 /* 'clut' */) {
            const unsigned inputs = (unsigned)tag[offset + 8] << 8 | tag[offset + 9];
            if (inputs > 4) {
                snprintf(why, why_size, "the embedded ICC profile has a colour table of %u inputs (at most 4 make sense "
                         "for an image)", inputs);
                return 0;
            }
        }
    }
    if (total > size) {
        snprintf(why, why_size, "the embedded ICC profile's processing elements share their data (%llu bytes read "
                 "from a %llu-byte tag)", (unsigned long long)total, (unsigned long long)size);
        return 0;
    }
    return 1;
}

int yc_icc_within_limits(const uint8_t *icc, size_t length, char *why, size_t why_size) {
    if (length < 132) return 1;   // too short to be a profile: LittleCMS says so
    const uint32_t tags = be32(icc + 128);
    for (uint64_t i = 0; i < tags && 132 + 12 * (i + 1) <= length; i++) {
        const uint8_t *entry = icc + 132 + 12 * i;
        const uint64_t offset = be32(entry + 4), size = be32(entry + 8);
        if (offset + 8 > length || offset + size > length) continue;   // LittleCMS refuses what it cannot read
        const uint8_t *tag = icc + offset;
        if (be32(tag) == 0x6D706574 /* 'mpet' */ && !mpet_within_limits(tag, size, why, why_size)) return 0;
    }
    return 1;
}
