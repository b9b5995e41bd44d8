// Where a conversion's workers run (Linux): on the CPUs the decoding thread may use other than the one it runs on,
// for as long as that does not keep them waiting. Elsewhere, and where only one CPU is allowed, nothing is changed.
#ifndef YC_THREADS_H
#define YC_THREADS_H

#ifdef __cplusplus
extern "C" {
#endif

/// The CPUs the calling thread (the decoder) may use, less the one it runs on: for `yc_place_worker`, freed by
/// `yc_placement_free`. NULL when there are none (one CPU allowed), the system has no affinity calls, or a thread
/// cannot read how long it waited to run (`/proc/thread-self/schedstat`). The calling thread is left as it is.
void *yc_workers_placement(void);
/// Moves the calling thread (a worker) onto the CPUs of `placement` (NULL: nothing is done).
void yc_place_worker(const void *placement);
/// After each band a worker handles: a worker placed that has waited to run for more than a quarter of the time
/// it ran (and over 2 ms) — other work on its CPUs — is given back every CPU the decoder may use, for good.
void yc_placed_worker_check(const void *placement);
/// A worker's last call, placed or not: what it kept open to watch its times is closed.
void yc_worker_end(void);
void yc_placement_free(void *placement);

#ifdef __cplusplus
}
#endif

#endif
