// The colour-management fast path's rows (8-bit matrix/TRC profiles), compiled per CPU tier. CShims builds the
// tables from the profiles (yc_colour.c); these rows only read them.
#ifndef YC_COLOUR_ROWS_H
#define YC_COLOUR_ROWS_H

#include <stdint.h>

/// The output tables' buckets follow a float's bits: 128 per octave of linear value over the top 16 octaves
/// (2^-16 … 1), and one for everything below. A gamma curve's thresholds are spread about evenly per octave,
/// so 2,050 buckets of 4 bytes (8 KiB a channel, 24 KiB for the three; with the 12 KiB products table, more than
/// a 32 KiB L1 cache holds, mostly in it for a photo's colours) keep at most one threshold each for the sRGB transfer every target uses — the table is
/// built only when they do. (256 an octave, 48 KiB, made the 12 MP row 2–6% slower.)
#define YC_COLOUR_OCTAVES 16
#define YC_COLOUR_OCTAVE_BITS 7                        // 128 buckets an octave
#define YC_COLOUR_SHIFT (23 - YC_COLOUR_OCTAVE_BITS)   // a float's bits below its bucket's
#define YC_COLOUR_LOW ((1u << YC_COLOUR_SHIFT) - 1)
#define YC_COLOUR_BUCKETS ((YC_COLOUR_OCTAVES << YC_COLOUR_OCTAVE_BITS) + 1)

/// The bucket of a linear value in [0, 1].
static inline int yc_colour_bucket(float l) {
    uint32_t bits;
    __builtin_memcpy(&bits, &l, 4);
    const int i = (int)(bits >> YC_COLOUR_SHIFT) - ((127 - YC_COLOUR_OCTAVES) << YC_COLOUR_OCTAVE_BITS) + 1;
    return i < 0 ? 0 : i;
}

/// Where bucket `b` (0 … YC_COLOUR_BUCKETS) starts.
static inline float yc_colour_bucket_start(int b) {
    if (b <= 0) return 0;
    const uint32_t bits = (uint32_t)(b - 1 + ((127 - YC_COLOUR_OCTAVES) << YC_COLOUR_OCTAVE_BITS)) << YC_COLOUR_SHIFT;
    float l;
    __builtin_memcpy(&l, &bits, 4);
    return l;
}

/// A bucket's cell, one 32-bit word (one gather a channel): bits 0–7 the code at the bucket's start, bits 8–24
/// where the next code begins inside the bucket, as the low 16 bits (`YC_COLOUR_LOW`) of that threshold's float
/// (every float of a bucket above the first shares its upper 16 bits, and positive floats order as their
/// bits), or YC_COLOUR_LOW + 1 when it begins past the bucket. The output code of a linear value l in bucket b
/// is then `code + ((bits(l) & YC_COLOUR_LOW) >= (cell >> 8))`. Bucket 0 (everything below 2^-16) holds no
/// threshold.
#define YC_COLOUR_CELL(code, low) ((uint32_t)(code) | ((uint32_t)(low) << 8))

typedef struct {
    float lin[3][256];                          // each source code's linear value
    float m[9];                                 // source colorants into the target's, row-major
    uint32_t cell[3][YC_COLOUR_BUCKETS + 1];    // per channel: the output code of a linear value (above)
    /// prod[c][v][i] = m[3i + c]·lin[c][v] as a float (the products the rows round, once), i = 3 unused: every x86
    /// tier sums a pixel's three in one register from it (`yc_colour_products`); `lin` and `m` serve the scalar
    /// and portable rows.
    float prod[3][256][4] __attribute__((aligned(16)));
} yc_colour_tables;

/// The output code of channel `c` for the linear value `l`, one pixel at a time (the rows' tails). Not
/// `l < 0 ? 0 : …`: −0.0 (a matrix row of negative entries on a black pixel) is not below 0, and its bits would
/// index far past the table; NaN fails `l > 0` too.
static inline uint8_t yc_colour_code(const yc_colour_tables *t, int c, float l) {
    const float v = l > 0 ? (l > 1 ? 1 : l) : 0;
    const uint32_t cell = t->cell[c][yc_colour_bucket(v)];
    uint32_t bits;
    __builtin_memcpy(&bits, &v, 4);
    return (uint8_t)((cell & 255) + ((bits & YC_COLOUR_LOW) >= (cell >> 8)));
}

/// Fills `prod` from `lin` and `m`.
static inline void yc_colour_products(yc_colour_tables *t) {
    for (int c = 0; c < 3; c++)
        for (int v = 0; v < 256; v++) {
            for (int i = 0; i < 3; i++) t->prod[c][v][i] = t->m[3 * i + c] * t->lin[c][v];
            t->prod[c][v][3] = 0;
        }
}

/// `width` pixels of `step` bytes (3: RGB, 4: RGBA, alpha kept) converted in place, on the tier in use.
/// Every tier gives the scalar code's bytes: the same float operations in the same order, never fused.
void yc_colour_rows(const yc_colour_tables *t, uint8_t *pixels, uint32_t width, int step);

/// The same on a given tier; −1 (nothing changed) when this CPU cannot run it.
int yc_colour_rows_on(int tier, const yc_colour_tables *t, uint8_t *pixels, uint32_t width, int step);

#endif
