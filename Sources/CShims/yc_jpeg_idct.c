// The direct path's inverse DCT on the converting thread (yc_idct_ring, yc_decode.h).
//
// libjpeg decodes a baseline JPEG's iMCU row in one call that entropy-decodes each block and runs its inverse
// DCT at once; the entropy decoding is sequential, the inverse DCT is not. While a ring is given to
// yc_read_raw_band_deferred, the decoder's inverse DCT methods are swapped for one that keeps each block's
// coefficients and destination in the ring; yc_idct_ring_run then calls libjpeg's own method on each, as
// libjpeg would have, so the samples are the same bytes — only on the thread that converts the band next.
//
// The swap is through `cinfo->idct` (struct jpeg_inverse_dct: its start_pass, then one method per component),
// a layout every libjpeg since 6b and every libjpeg-turbo share (jpegint.h, which distributions do not
// install, hence the copy of its two members here). libjpeg calls the method for each block with the rows of
// the caller's band (raw data out: no upsampling or colour conversion read them before the call returns), so a
// block's destination is its first row and the component's stride.
//
// The ring holds the blocks of the bands handed on and not yet run, in order, each band a run of it; a band's
// space is free again once all of its blocks are run. A block that finds the ring full is run at once, so a
// ring sized wrong costs speed, never samples.
#include "yc_decode_internal.h"
#include "yc_cpu.h"

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

enum { YC_IDCT_SLOTS = 8, YC_IDCT_CHUNK = 64 };

// One slot's band: its blocks are the ring's [start, start + count), taken to run (by either thread,
// YC_IDCT_CHUNK at a time) up to `next` and run up to `done`. Only the decoding thread begins a band, when its
// slot is free again (the band before in it run).
struct yc_idct_band {
    size_t start, count;
    atomic_size_t next, done;
};

// A ring, laid out in the caller's buffer: this header, the jobs, then the blocks (64-byte aligned: libjpeg's
// SIMD methods load the coefficients aligned).
struct yc_idct_ring {
    yc_decoder *dec;
    size_t capacity;
    size_t head;            // blocks ever added (the decoding thread's)
    atomic_size_t tail;     // blocks ever run and given back, band by band, in order (the converting thread's)
    int slots;
    struct yc_idct_band band[YC_IDCT_SLOTS];
    int filling;            // the slot yc_read_raw_band_deferred adds to
    size_t stride[4];       // each component's row stride in the bands
    yc_idct_method method[4];   // libjpeg's, set by the first band's read (NULL before)
    struct yc_idct_job *jobs;
    JCOEF (*blocks)[DCTSIZE2];
};

enum { YC_IDCT_HEADER = (sizeof(struct yc_idct_ring) + 63) & ~(size_t)63 };

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
#if defined(__x86_64__)
    // libjpeg-turbo keeps its choice of SIMD rows per thread, and before 2.1.5.1 and 3.0 (its commit 267e0964,
    // which Debian's 2.1.5-2 carries) a method called on a thread that never chose takes the AVX2 rows: called
    // on the converting thread, it needs a CPU that has them. libjpeg's integer inverse DCT gives the same samples
    // from its C, SSE2 and AVX2 rows, so the choice never changes a byte.
    if (yc_cpu_best_tier() < YC_TIER_AVX2) return 0;
#elif !defined(__aarch64__)
    return 0;   // (on 64-bit ARM every CPU has the NEON rows libjpeg-turbo takes)
#endif
    const struct yc_inverse_dct *idct = (const struct yc_inverse_dct *)j->idct;
    for (int c = 0; c < j->num_components; c++) if (!idct->inverse_DCT[c]) return 0;
    return 1;
}

static size_t ring_capacity(const yc_decoder *dec, int imcu_rows) {
    return blocks_per_imcu_row(&dec->jpeg) * (size_t)imcu_rows;
}

// Where a ring of `blocks` keeps its blocks: after the header and the jobs, 64-byte aligned.
static size_t blocks_offset(size_t blocks) {
    return YC_IDCT_HEADER + ((blocks * sizeof(struct yc_idct_job) + 63) & ~(size_t)63);
}

size_t yc_idct_ring_bytes(const yc_decoder *dec, int imcu_rows) {
    if (!queueable(dec) || imcu_rows < 1) return 0;
    const size_t blocks = ring_capacity(dec, imcu_rows);
    return blocks_offset(blocks) + blocks * sizeof(JCOEF) * DCTSIZE2;
}

yc_idct_ring *yc_idct_ring_init(yc_decoder *dec, void *buffer, size_t bytes, int imcu_rows, int slots) {
    const size_t need = yc_idct_ring_bytes(dec, imcu_rows);
    if (!need || !buffer || bytes < need || ((uintptr_t)buffer & 63) || slots < 1 || slots > YC_IDCT_SLOTS) return NULL;
    struct yc_idct_ring *r = buffer;
    memset(r, 0, sizeof *r);
    r->dec = dec;
    r->capacity = ring_capacity(dec, imcu_rows);
    r->slots = slots;
    atomic_init(&r->tail, 0);
    for (int s = 0; s < slots; s++) {
        atomic_init(&r->band[s].next, 0);
        atomic_init(&r->band[s].done, 0);
    }
    r->jobs = (struct yc_idct_job *)((uint8_t *)buffer + YC_IDCT_HEADER);
    r->blocks = (JCOEF (*)[DCTSIZE2])((uint8_t *)buffer + blocks_offset(r->capacity));
    return r;
}

// Blocks queued, blocks run and pieces shared, over the process (tests: the ring is in use and shared, and runs
// every block it takes once).
static atomic_ullong blocks_queued, blocks_run, pieces_shared;

void yc_idct_counts(unsigned long long *queued, unsigned long long *run, unsigned long long *shared) {
    *queued = atomic_load(&blocks_queued);
    *run = atomic_load(&blocks_run);
    *shared = atomic_load(&pieces_shared);
}

static yc_decoder *decoder_of(j_decompress_ptr cinfo) {
    return (yc_decoder *)(void *)((char *)cinfo - offsetof(yc_decoder, jpeg));
}

// libjpeg's call for one block, while a ring is in use: queued, or (the ring full) done now.
static void keep_block(j_decompress_ptr cinfo, jpeg_component_info *comp, JCOEFPTR coef, JSAMPARRAY rows, JDIMENSION col) {
    struct yc_idct_ring *r = decoder_of(cinfo)->idct_ring;
    const int c = comp->component_index;
    // Acquire: the converting thread has read the blocks it gave back before they are written over.
    if (r->head - atomic_load_explicit(&r->tail, memory_order_acquire) >= r->capacity) {
        r->method[c](cinfo, comp, coef, rows, col);
        return;
    }
    const size_t i = r->head++ % r->capacity;
    memcpy(r->blocks[i], coef, sizeof r->blocks[i]);
    r->jobs[i] = (struct yc_idct_job){rows[0], col, c};
    r->band[r->filling].count++;
}

void yc_idct_ring_begin(yc_idct_ring *r, int slot) {
    if (!r || slot < 0 || slot >= r->slots) return;
    struct yc_idct_band *b = &r->band[slot];
    b->start = r->head;
    b->count = 0;
    atomic_store_explicit(&b->next, 0, memory_order_relaxed);
    atomic_store_explicit(&b->done, 0, memory_order_relaxed);
}

int yc_read_raw_band_deferred(yc_decoder *dec, uint8_t *const planes[3], const size_t strides[3], yc_idct_ring *r,
                              int slot) {
    if (!r) return yc_read_raw_band(dec, planes, strides);
    if (dec->failed) return -1;
    // (The ring was made for this decoder, which was queueable then: yc_idct_ring_init.)
    if (r->dec != dec || slot < 0 || slot >= r->slots) {
        yc_set_error(dec, "not this decoder's ring");
        return -1;
    }
    struct jpeg_decompress_struct *j = &dec->jpeg;
    struct yc_inverse_dct *idct = (struct yc_inverse_dct *)j->idct;
    // The methods and strides are the ring's from its first band on (the converting thread reads them): a band
    // read with others is read in line.
    if (!r->method[0]) {
        for (int c = 0; c < j->num_components; c++) {
            r->method[c] = idct->inverse_DCT[c];
            r->stride[c] = strides[c];
        }
    }
    for (int c = 0; c < j->num_components; c++)
        if (r->method[c] != idct->inverse_DCT[c] || r->stride[c] != strides[c]) return yc_read_raw_band(dec, planes, strides);
    for (int c = 0; c < j->num_components; c++) idct->inverse_DCT[c] = keep_block;
    const size_t before = r->band[slot].count;
    r->filling = slot;
    dec->idct_ring = r;
    int got = yc_read_raw_band(dec, planes, strides);
    // Put back on every way out, a failure's longjmp included (yc_read_raw_band's setjmp returned -1).
    for (int c = 0; c < j->num_components; c++) idct->inverse_DCT[c] = r->method[c];
    dec->idct_ring = NULL;
    atomic_fetch_add_explicit(&blocks_queued, r->band[slot].count - before, memory_order_relaxed);
    return got;
}

// Takes up to YC_IDCT_CHUNK of a band's blocks and runs them: how many (0: none left to take).
static size_t run_chunk(struct yc_idct_ring *r, struct yc_idct_band *b) {
    const size_t first = atomic_fetch_add_explicit(&b->next, YC_IDCT_CHUNK, memory_order_relaxed);
    if (first >= b->count) return 0;
    const size_t end = first + YC_IDCT_CHUNK < b->count ? first + YC_IDCT_CHUNK : b->count;
    j_decompress_ptr j = &r->dec->jpeg;
    for (size_t k = first; k < end; k++) {
        const size_t i = (b->start + k) % r->capacity;
        const struct yc_idct_job *job = &r->jobs[i];
        const size_t stride = r->stride[job->component];
        JSAMPROW rows[DCTSIZE];
        for (int row = 0; row < DCTSIZE; row++) rows[row] = job->first_row + (size_t)row * stride;
        r->method[job->component](j, &j->comp_info[job->component], r->blocks[i], rows, job->column);
    }
    atomic_fetch_add_explicit(&blocks_run, end - first, memory_order_relaxed);
    // Release: the samples written (and the blocks read) before the count says so.
    atomic_fetch_add_explicit(&b->done, end - first, memory_order_release);
    return end - first;
}

void yc_idct_ring_run(yc_idct_ring *r, int slot) {
    if (!r || slot < 0 || slot >= r->slots) return;
    struct yc_idct_band *b = &r->band[slot];
    while (run_chunk(r, b)) {}
    // A piece the other thread took (yc_idct_ring_share) is a few microseconds from done.
    for (unsigned spins = 0; atomic_load_explicit(&b->done, memory_order_acquire) < b->count; spins++)
        if (spins > 64) sched_yield();
    // The band's space back to the ring: bands are run in the order they were added.
    atomic_store_explicit(&r->tail, b->start + b->count, memory_order_release);
}

int yc_idct_ring_share(yc_idct_ring *r, int slot) {
    if (!r || slot < 0 || slot >= r->slots || !run_chunk(r, &r->band[slot])) return 0;
    atomic_fetch_add_explicit(&pieces_shared, 1, memory_order_relaxed);
    return 1;
}
