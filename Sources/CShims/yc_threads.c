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

// The calling thread's time on a CPU and waiting on a run queue, in ns: 0 when read.
static int thread_times(uint64_t *ran, uint64_t *waited) {
    const int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    char text[96];
    const ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0) return -1;
    text[n] = 0;
    return sscanf(text, "%" SCNu64 " %" SCNu64, ran, waited) == 2 ? 0 : -1;
}

// A worker's own: placed, and its times when it was.
static _Thread_local struct { int placed; uint64_t ran, waited; } worker;

void *yc_workers_placement(void) {
    uint64_t ran, waited;
    if (thread_times(&ran, &waited) != 0) return NULL;
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
    worker.placed = 0;
    if (!p || thread_times(&worker.ran, &worker.waited) != 0) return;
    worker.placed = sched_setaffinity(0, sizeof p->workers, &p->workers) == 0;
}

void yc_placed_worker_check(const void *placement) {
    const yc_placement *p = placement;
    if (!p || !worker.placed) return;
    uint64_t ran, waited;
    if (thread_times(&ran, &waited) != 0) return;
    const uint64_t r = ran - worker.ran, w = waited - worker.waited;
    if (w > 2000000 && 4 * w > r) {
        (void)sched_setaffinity(0, sizeof p->all, &p->all);
        worker.placed = 0;
    }
}

void yc_placement_free(void *placement) { free(placement); }
#else
void *yc_workers_placement(void) { return NULL; }
void yc_place_worker(const void *placement) { (void)placement; }
void yc_placed_worker_check(const void *placement) { (void)placement; }
void yc_placement_free(void *placement) { (void)placement; }
#endif
