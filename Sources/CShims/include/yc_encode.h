// Row-streaming PNG writing over libpng, with its longjmp error handling kept inside C.
#ifndef YC_ENCODE_H
#define YC_ENCODE_H

#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct yc_png_writer yc_png_writer;

/// Starts an RGB, non-interlaced PNG of width x height, 8 or 16 bits a sample (`bit_depth`), on `file` (which
/// it does not close).
/// Returns NULL only when out of memory; check yc_png_writer_error.
yc_png_writer *yc_png_writer_open(FILE *file, uint32_t width, uint32_t height, int bit_depth, const uint8_t *icc,
                                  size_t icc_size, const char *icc_name);
/// The failure message, or NULL while all is well.
const char *yc_png_writer_error(const yc_png_writer *w);
/// Writes `count` rows of R,G,B samples (bytes, or 16-bit words in the machine's order for a 16-bit writer),
/// `stride` bytes apart. 0 on success, -1 on failure.
int yc_png_write_rows(yc_png_writer *w, const uint8_t *rows, size_t stride, uint32_t count);
/// Writes the end of the file. 0 on success, -1 on failure.
int yc_png_writer_finish(yc_png_writer *w);
void yc_png_writer_close(yc_png_writer *w);

#ifdef __cplusplus
}
#endif
#endif
