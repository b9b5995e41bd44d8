// The direct path's inverse DCT on the converting thread (yc_idct_queue, yc_decode.h).
//
// libjpeg decodes a baseline JPEG's iMCU row in one call that entropy-decodes each block and runs its inverse
// DCT at once; the entropy decoding is sequential, the inverse DCT is not. While a queue is given to
// yc_read_raw_band_deferred, the decoder's inverse DCT methods are swapped for one that keeps each block's
// coefficients and destination in the queue; yc_idct_queue_run then calls libjpeg's own method on each, as
// libjpeg would have, so the samples are the same bytes — only on the thread that converts the band next.
//
// The swap is through `cinfo->idct` (struct jpeg_inverse_dct: its start_pass, then one method per component),
// a layout every libjpeg since 6b and every libjpeg-turbo share (jpegint.h, which distributions do not
// install, hence the copy of its two members here). libjpeg calls the method for each block with the rows of
// the caller's band (raw data out: no upsampling or colour conversion read them before the call returns), so a
// block's destination is its first row and the component's stride. A queue that is full runs the block at
// once, so a queue sized wrong costs speed, never samples.
#include "yc_decode_internal.h"

#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

typedef void (*yc_idct_method)(j_decompress_ptr, jpeg_component_info *, JCOEFPTR, JSAMPARRAY, JDIMENSION);

// The members of libjpeg's struct jpeg_inverse_dct this file uses (jpegint.h).
struct yc_inverse_dct {
    void (*start_pass)(j_decompress_ptr cinfo);
    yc_idct_method inverse_DCT[MAX_COMPONENTS];
};

struct yc_idct_job {
    JSAMPROW first_row;     // the block's first output row (the band's row pointer, as libjpeg gave it)
    JDIMENSION column;      // libjpeg's output_col
    int component;
};

// A queue, laid out in the caller's buffer: this header, the jobs, then the blocks (64-byte aligned: libjpeg's
// SIMD methods load the coefficients aligned).
struct yc_idct_queue {
    yc_decoder *dec;
    size_t capacity, count;
    // The blocks taken to run (by either thread, YC_IDCT_CHUNK at a time) and those run. Only the decoding
    // thread sets them back, when it fills the queue again: by then the band's slot is free, its queue done.
    atomic_size_t next, done;
    size_t stride[4];       // each component's row stride in the band being read
    yc_idct_method method[4];
    struct yc_idct_job *jobs;
    JCOEF (*blocks)[DCTSIZE2];
};

enum { YC_IDCT_CHUNK = 64 };
enum { YC_IDCT_HEADER = (sizeof(struct yc_idct_queue) + 63) & ~(size_t)63 };

// Blocks libjpeg may hand out for one iMCU row: each component's block rows of the row, across its width
// rounded up to whole MCUs.
static size_t blocks_per_imcu_row(const struct jpeg_decompress_struct *j) {
    size_t n = 0;
    for (int c = 0; c < j->num_components; c++) {
        const jpeg_component_info *ci = &j->comp_info[c];
        n += (size_t)ci->v_samp_factor * ((size_t)ci->width_in_blocks + (size_t)ci->h_samp_factor);
    }
    return n;
}

// Whether this decoder's blocks can be queued: a raw decoder of at most four components at scale 1 (8×8
// outputs), its methods set by jpeg_start_decompress.
static int queueable(const yc_decoder *dec) {
    const struct jpeg_decompress_struct *j = &dec->jpeg;
    if (!dec->info.raw || !dec->jpeg_started || j->num_components < 1 || j->num_components > 4 || !j->idct) return 0;
    if (j->scale_num != j->scale_denom) return 0;
    const struct yc_inverse_dct *idct = (const struct yc_inverse_dct *)j->idct;
    for (int c = 0; c < j->num_components; c++) if (!idct->inverse_DCT[c]) return 0;
    return 1;
}

size_t yc_idct_queue_bytes(const yc_decoder *dec, int imcu_rows) {
    if (!queueable(dec) || imcu_rows < 1) return 0;
    const size_t blocks = blocks_per_imcu_row(&dec->jpeg) * (size_t)imcu_rows;
    const size_t jobs = (blocks * sizeof(struct yc_idct_job) + 63) & ~(size_t)63;
    return YC_IDCT_HEADER + jobs + blocks * sizeof(JCOEF) * DCTSIZE2;
}

yc_idct_queue *yc_idct_queue_init(yc_decoder *dec, void *buffer, size_t bytes, int imcu_rows) {
    const size_t need = yc_idct_queue_bytes(dec, imcu_rows);
    if (!need || !buffer || bytes < need || ((uintptr_t)buffer & 63)) return NULL;
    struct yc_idct_queue *q = buffer;
    memset(q, 0, sizeof *q);
    q->dec = dec;
    q->capacity = blocks_per_imcu_row(&dec->jpeg) * (size_t)imcu_rows;
    q->jobs = (struct yc_idct_job *)((uint8_t *)buffer + YC_IDCT_HEADER);
    q->blocks = (JCOEF (*)[DCTSIZE2])((uint8_t *)buffer + YC_IDCT_HEADER +
                                      ((q->capacity * sizeof(struct yc_idct_job) + 63) & ~(size_t)63));
    return q;
}

// Blocks queued and pieces shared, over the process (tests: the queue is in use, and shared).
static atomic_ullong blocks_queued, pieces_shared;

void yc_idct_counts(unsigned long long *queued, unsigned long long *shared) {
    *queued = atomic_load(&blocks_queued);
    *shared = atomic_load(&pieces_shared);
}

static yc_decoder *decoder_of(j_decompress_ptr cinfo) {
    return (yc_decoder *)(void *)((char *)cinfo - offsetof(yc_decoder, jpeg));
}

// libjpeg's call for one block, while a queue is in use: queued, or (the queue full) done now.
static void keep_block(j_decompress_ptr cinfo, jpeg_component_info *comp, JCOEFPTR coef, JSAMPARRAY rows, JDIMENSION col) {
    struct yc_idct_queue *q = decoder_of(cinfo)->idct_queue;
    const int c = comp->component_index;
    if (q->count == q->capacity) {
        q->method[c](cinfo, comp, coef, rows, col);
        return;
    }
    const size_t i = q->count++;
    memcpy(q->blocks[i], coef, sizeof q->blocks[i]);
    q->jobs[i] = (struct yc_idct_job){rows[0], col, c};
}

int yc_read_raw_band_deferred(yc_decoder *dec, uint8_t *const planes[3], const size_t strides[3], yc_idct_queue *q) {
    if (!q) return yc_read_raw_band(dec, planes, strides);
    if (dec->failed) return -1;
    if (!queueable(dec) || q->dec != dec) { yc_set_error(dec, "not a raw decoder"); return -1; }
    struct jpeg_decompress_struct *j = &dec->jpeg;
    struct yc_inverse_dct *idct = (struct yc_inverse_dct *)j->idct;
    for (int c = 0; c < j->num_components; c++) {
        q->method[c] = idct->inverse_DCT[c];
        q->stride[c] = strides[c];
        idct->inverse_DCT[c] = keep_block;
    }
    const size_t before = q->count;
    dec->idct_queue = q;
    int got = yc_read_raw_band(dec, planes, strides);
    // Put back on every way out, a failure's longjmp included (yc_read_raw_band's setjmp returned -1).
    for (int c = 0; c < j->num_components; c++) idct->inverse_DCT[c] = q->method[c];
    dec->idct_queue = NULL;
    atomic_fetch_add_explicit(&blocks_queued, q->count - before, memory_order_relaxed);
    return got;
}

void yc_idct_queue_begin(yc_idct_queue *q) {
    if (!q) return;
    q->count = 0;
    atomic_store_explicit(&q->next, 0, memory_order_relaxed);
    atomic_store_explicit(&q->done, 0, memory_order_relaxed);
}

// Takes up to YC_IDCT_CHUNK blocks and runs them: how many (0: none left to take).
static size_t run_chunk(struct yc_idct_queue *q) {
    const size_t first = atomic_fetch_add_explicit(&q->next, YC_IDCT_CHUNK, memory_order_relaxed);
    if (first >= q->count) return 0;
    const size_t end = first + YC_IDCT_CHUNK < q->count ? first + YC_IDCT_CHUNK : q->count;
    j_decompress_ptr j = &q->dec->jpeg;
    for (size_t i = first; i < end; i++) {
        const struct yc_idct_job *job = &q->jobs[i];
        const size_t stride = q->stride[job->component];
        JSAMPROW rows[DCTSIZE];
        for (int r = 0; r < DCTSIZE; r++) rows[r] = job->first_row + (size_t)r * stride;
        q->method[job->component](j, &j->comp_info[job->component], q->blocks[i], rows, job->column);
    }
    // Release: the samples written before the count says so.
    atomic_fetch_add_explicit(&q->done, end - first, memory_order_release);
    return end - first;
}

void yc_idct_queue_run(yc_idct_queue *q) {
    if (!q) return;
    while (run_chunk(q)) {}
    // A chunk the other thread took (yc_idct_queue_share) is a few microseconds from done.
    for (unsigned spins = 0; atomic_load_explicit(&q->done, memory_order_acquire) < q->count; spins++)
        if (spins > 64) sched_yield();
}

int yc_idct_queue_share(yc_idct_queue *q) {
    if (!q || !run_chunk(q)) return 0;
    atomic_fetch_add_explicit(&pieces_shared, 1, memory_order_relaxed);
    return 1;
}

size_t yc_idct_queue_count(const yc_idct_queue *q) { return q ? q->count : 0; }
