// libFuzzer target for the C shims: every input is opened as a JPEG or PNG (by its signature), decoded to
// rows, and — for JPEG — decoded again to raw planes, all the way to the end. Built by `make fuzz` with
// -fsanitize=fuzzer,address,undefined on yc_decode.c.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "yc_decode.h"

static void run(const uint8_t *data, size_t size, int raw) {
    FILE *f = fmemopen((void *)data, size, "rb");
    if (!f) return;
    // The picture held whole is bounded as the tool bounds it by default (--max-memory): 64 bytes a byte of
    // the file, at least 256 MiB.
    uint64_t whole = (uint64_t)size * 64 > (256u << 20) ? (uint64_t)size * 64 : (256u << 20);
    yc_decoder *d = yc_open(f, yc_sniff(data, size), 1u << 22, whole, 500, raw & 2, raw & 1, raw & 4,
                            raw & 8 ? 0 : -1, NULL);
    if (d && !yc_failed(d)) {
        const yc_info *i = yc_get_info(d);
        if (i->raw) {
            uint8_t *planes[3] = {0};
            size_t strides[3] = {0};
            for (int c = 0; c < 3; c++) {
                strides[c] = (size_t)i->raw_plane_width[c];
                planes[c] = malloc(strides[c] * (size_t)i->raw_plane_rows[c] + 1);
            }
            uint32_t rows = 0;
            while (rows < i->height) {
                int n = yc_read_raw_band(d, planes, strides);
                if (n <= 0) break;
                rows += (uint32_t)n;
            }
            for (int c = 0; c < 3; c++) free(planes[c]);
        } else {
            size_t row = (size_t)i->width * i->channels * i->bytes_per_sample;
            uint8_t *buf = malloc(row * 2 + 1);
            uint32_t y = 0;
            for (; y + 2 <= i->height; y += 2)
                if (yc_read_rows(d, buf, row, 2) != 0) break;
            // An odd last row too, so that yc_finish sees a whole picture (and its end-of-image checks run).
            if (y + 1 == i->height) (void)yc_read_rows(d, buf, row, 1);
            free(buf);
        }
        yc_finish(d);
    }
    yc_close(d);
    fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 3) return 0;
    run(data, size, 0);  // RGB rows
    run(data, size, 1);  // raw planes (JPEG)
    run(data, size, 2);  // RGB rows, truncated data accepted
    run(data, size, 4);  // rows with 16-bit alpha kept (PNG)
    run(data, size, 8);  // colour management planned (profiles parsed and bounded; a CMYK profile transforms rows)
    return 0;
}
