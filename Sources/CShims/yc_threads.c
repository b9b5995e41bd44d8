// Where a single conversion's workers run: off the CPU its decoding thread is on when the bands begin (Linux's
// affinity calls; CPU sets are macros Swift cannot call). Left to itself, the scheduler often ran the decoder and
// the converting worker on one vCPU of a 2-vCPU machine while the other idled (`perf sched timehist`; `perf
// stat`: 1.06 CPUs used during a 12 MP conversion, 1.31 with the worker kept off the decoder's CPU). The decoder
// itself is not tied to a CPU: under other load it can still move (docs/performance.md).
#define _GNU_SOURCE
#include "yc_threads.h"

#include <stdlib.h>
#if defined(__linux__)
#include <sched.h>

void *yc_workers_placement(void) {
    cpu_set_t *workers = malloc(sizeof *workers);
    if (!workers) return NULL;
    const int cpu = sched_getcpu();
    if (cpu < 0 || cpu >= CPU_SETSIZE || sched_getaffinity(0, sizeof *workers, workers) != 0 ||
        !CPU_ISSET(cpu, workers) || CPU_COUNT(workers) < 2) {
        free(workers);
        return NULL;
    }
    CPU_CLR(cpu, workers);
    return workers;
}

void yc_place_worker(const void *placement) {
    if (placement) (void)sched_setaffinity(0, sizeof(cpu_set_t), placement);
}

void yc_placement_free(void *placement) { free(placement); }
#else
void *yc_workers_placement(void) { return NULL; }
void yc_place_worker(const void *placement) { (void)placement; }
void yc_placement_free(void *placement) { (void)placement; }
#endif
