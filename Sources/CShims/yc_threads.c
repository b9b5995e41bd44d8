// Where a single conversion's workers run: off the CPU its decoding thread is on when the bands begin (Linux's
// affinity calls; CPU sets are macros Swift cannot call). Left to itself, the scheduler often ran the decoder and
// the converting worker on one vCPU of a 2-vCPU machine while the other idled (`perf sched timehist`; `perf
// stat`: 1.06 CPUs used during a 12 MP conversion, 1.31 with the worker kept off the decoder's CPU). The decoder
// itself is not tied to a CPU, and a worker kept waiting on its CPUs by other work is let go to any
// (docs/performance.md).
#define _GNU_SOURCE
#include "yc_threads.h"

#include <stdlib.h>
#if defined(__linux__)
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

typedef struct {
    cpu_set_t all;      // the decoder's CPUs
    cpu_set_t workers;  // those less the one it ran on
} yc_placement;

// The calling thread's time on a CPU and waiting on a run queue, in ns, from its schedstat file open at `fd`
// (read again from the start: a placed worker keeps it open, so a band costs one pread, not an open and a close:
// 0.75 against 5 µs here): 0 when read.
static int thread_times(int fd, uint64_t *ran, uint64_t *waited) {
    char text[96];
    const ssize_t n = pread(fd, text, sizeof text - 1, 0);
    if (n <= 0) return -1;
    text[n] = 0;
    return sscanf(text, "%" SCNu64 " %" SCNu64, ran, waited) == 2 ? 0 : -1;
}

static int open_times(void) { return open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC); }

// A worker's own: its schedstat file while it is placed (-1 when not), and its times when it was placed.
static _Thread_local struct { int fd; uint64_t ran, waited; } worker = {-1, 0, 0};

// The worker is no longer placed: its file closed.
static void unplace(void) {
    if (worker.fd >= 0) close(worker.fd);
    worker.fd = -1;
}

void *yc_workers_placement(void) {
    uint64_t ran, waited;
    const int fd = open_times();
    const int readable = fd >= 0 && thread_times(fd, &ran, &waited) == 0;
    if (fd >= 0) close(fd);
    if (!readable) return NULL;
    yc_placement *p = malloc(sizeof *p);
    if (!p) return NULL;
    const int cpu = sched_getcpu();
    if (cpu < 0 || cpu >= CPU_SETSIZE || sched_getaffinity(0, sizeof p->all, &p->all) != 0 ||
        !CPU_ISSET(cpu, &p->all) || CPU_COUNT(&p->all) < 2) {
        free(p);
        return NULL;
    }
    p->workers = p->all;
    CPU_CLR(cpu, &p->workers);
    return p;
}

void yc_place_worker(const void *placement) {
    const yc_placement *p = placement;
    unplace();
    if (!p) return;
    worker.fd = open_times();
    if (worker.fd < 0 || thread_times(worker.fd, &worker.ran, &worker.waited) != 0 ||
        sched_setaffinity(0, sizeof p->workers, &p->workers) != 0) {
        unplace();
    }
}

void yc_placed_worker_check(const void *placement) {
    const yc_placement *p = placement;
    if (!p || worker.fd < 0) return;
    uint64_t ran, waited;
    if (thread_times(worker.fd, &ran, &waited) != 0) return;
    const uint64_t r = ran - worker.ran, w = waited - worker.waited;
    if (w > 2000000 && 4 * w > r) {
        (void)sched_setaffinity(0, sizeof p->all, &p->all);
        unplace();
    }
}

void yc_worker_end(void) { unplace(); }

void yc_placement_free(void *placement) { free(placement); }
#else
void *yc_workers_placement(void) { return NULL; }
void yc_place_worker(const void *placement) { (void)placement; }
void yc_placed_worker_check(const void *placement) { (void)placement; }
void yc_worker_end(void) {}
void yc_placement_free(void *placement) { (void)placement; }
#endif
