// The PNG peer for `make bench-e2e`: libpng decoding a file row by row into one row buffer and nothing
// else (no conversion, no output), as the floor a PNG → YUV conversion is measured against.
#include <png.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: png_decode FILE.png\n"); return 2; }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png))) { fprintf(stderr, "png_decode: error\n"); return 1; }
    png_init_io(png, f);
    png_read_info(png, info);
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    png_uint_32 h = png_get_image_height(png, info);
    png_bytep row = malloc(png_get_rowbytes(png, info));
    for (int p = 0; p < passes; p++)
        for (png_uint_32 y = 0; y < h; y++) png_read_row(png, row, NULL);
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    free(row);
    fclose(f);
    return 0;
}
