// The JPEG peer for `make bench-e2e`: one process that reads a JPEG file and decodes it once with TurboJPEG's
// tjDecompressToYUVPlanes into three planes, and nothing else (no conversion, no output). tjbench -yuv times
// the same decode in memory, over and over, warm; this is what any one-shot tool pays for it: start-up, the
// read, first-touch of the planes.
#include <turbojpeg.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: jpeg_decode FILE.jpg\n"); return 2; }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    if (fseek(f, 0, SEEK_END) != 0) { perror(argv[1]); return 1; }
    long size = ftell(f);
    rewind(f);
    unsigned char *jpeg = malloc(size > 0 ? (size_t)size : 1);
    if (size <= 0 || fread(jpeg, 1, (size_t)size, f) != (size_t)size) { fprintf(stderr, "jpeg_decode: read\n"); return 1; }
    fclose(f);
    tjhandle tj = tjInitDecompress();
    int w, h, sub, space;
    if (tjDecompressHeader3(tj, jpeg, (unsigned long)size, &w, &h, &sub, &space) != 0) {
        fprintf(stderr, "jpeg_decode: %s\n", tjGetErrorStr2(tj));
        return 1;
    }
    unsigned char *planes[3] = {0};
    int strides[3] = {0};
    for (int c = 0; c < (sub == TJSAMP_GRAY ? 1 : 3); c++) {
        strides[c] = tjPlaneWidth(c, w, sub);
        planes[c] = malloc((size_t)strides[c] * (size_t)tjPlaneHeight(c, h, sub));
    }
    if (tjDecompressToYUVPlanes(tj, jpeg, (unsigned long)size, planes, w, strides, h, 0) != 0) {
        fprintf(stderr, "jpeg_decode: %s\n", tjGetErrorStr2(tj));
        return 1;
    }
    tjDestroy(tj);
    for (int c = 0; c < 3; c++) free(planes[c]);
    free(jpeg);
    return 0;
}
