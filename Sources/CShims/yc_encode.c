#include "yc_encode.h"

#include <errno.h>
#include <png.h>
#include <stdio.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

struct yc_png_writer {
    png_structp png;
    png_infop info;
    jmp_buf jump;
    int failed;
    char error[256];
};

static void on_error(png_structp png, png_const_charp msg) {
    const int e = errno;   // libpng's own writer says only "Write Error" when fwrite falls short: say why
    yc_png_writer *w = png_get_error_ptr(png);
    if (!w->failed) {
        w->failed = 1;
        if (strcmp(msg, "Write Error") == 0 && e != 0) snprintf(w->error, sizeof w->error, "write failed: %s", strerror(e));
        else snprintf(w->error, sizeof w->error, "%s", msg);
    }
    longjmp(w->jump, 1);
}

static void on_warning(png_structp png, png_const_charp msg) { (void)png; (void)msg; }

yc_png_writer *yc_png_writer_open(FILE *file, uint32_t width, uint32_t height, int bit_depth, const uint8_t *icc,
                                  size_t icc_size, const char *icc_name) {
    yc_png_writer *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, w, on_error, on_warning);
    if (!w->png) { w->failed = 1; snprintf(w->error, sizeof w->error, "out of memory"); return w; }
    w->info = png_create_info_struct(w->png);
    if (!w->info) { w->failed = 1; snprintf(w->error, sizeof w->error, "out of memory"); return w; }
    if (setjmp(w->jump)) return w;
    png_init_io(w->png, file);
    // PNG allows any side up to 2^31 - 1; libpng's default user limit (1,000,000) is not the format's.
    png_set_user_limits(w->png, 0x7fffffff, 0x7fffffff);
    // Level 6 costs a fraction of level 9's time for a few percent of size: a picture to look at.
    png_set_compression_level(w->png, 6);
    png_set_IHDR(w->png, w->info, width, height, bit_depth == 16 ? 16 : 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    // The colours' space when it is not sRGB (what an untagged PNG is taken as): an iCCP chunk.
    if (icc && icc_size > 0) png_set_iCCP(w->png, w->info, icc_name, PNG_COMPRESSION_TYPE_BASE, icc, (png_uint_32)icc_size);
    png_write_info(w->png, w->info);
    // 16-bit rows come in the machine's byte order; PNG's is big-endian.
    const uint16_t probe = 1;
    if (bit_depth == 16 && *(const uint8_t *)&probe == 1) png_set_swap(w->png);
    return w;
}

const char *yc_png_writer_error(const yc_png_writer *w) { return w->failed ? w->error : NULL; }

int yc_png_write_rows(yc_png_writer *w, const uint8_t *rows, size_t stride, uint32_t count) {
    if (w->failed) return -1;
    if (setjmp(w->jump)) return -1;
    for (uint32_t i = 0; i < count; i++) png_write_row(w->png, rows + i * stride);
    return 0;
}

int yc_png_writer_finish(yc_png_writer *w) {
    if (w->failed) return -1;
    if (setjmp(w->jump)) return -1;
    png_write_end(w->png, NULL);
    return 0;
}

void yc_png_writer_close(yc_png_writer *w) {
    if (!w) return;
    if (w->png) png_destroy_write_struct(&w->png, w->info ? &w->info : NULL);
    free(w);
}
