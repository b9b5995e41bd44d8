// The stream watchdog, split from yc_signals.c (the handlers and the temporary-file registry) by
// role: the registry of threads writing to streams and the thread that interrupts their writes after a first,
// graceful interrupt.
#include "yc_signals.h"
#include "yc_signals_internal.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

// Threads writing to a standard stream, a pipe or a device (`yc_stream_write_begin`): after a first, graceful
// interrupt, one blocked in write(2) because the reader stopped reading (a full pipe nobody drains) would hold the
// run — its summary, report and exit — for as long as the reader slept. A watchdog thread, woken by the handler
// (a SIGURG it waits for, with every signal blocked: the pipe it once waited on cost the run two descriptors, and
// `-j 8 --force` under `ulimit -n 6` failed every file), then sends each of them SIGURG every 20 ms, whose handler
// does nothing and is installed without SA_RESTART: the write returns (EINTR, or what it wrote), and the writer
// waits for room until its reader has taken nothing for `YC_STREAM_GRACE_MS`. Each kick holds the slot (state 3), so the writer cannot
// leave it, and its thread end, while the kick is sent.
#define STREAM_SLOTS 64
static atomic_int stream_state[STREAM_SLOTS];   // 0 free, 1 being filled, 2 a writer, 3 being kicked
static pthread_t stream_thread[STREAM_SLOTS];
int yc_stream_write_begin(void) {
    for (int i = 0; i < STREAM_SLOTS; i++) {
        int expected = 0;
        if (atomic_compare_exchange_strong(&stream_state[i], &expected, 1)) {
            stream_thread[i] = pthread_self();
            atomic_store(&stream_state[i], 2);
            return i;
        }
    }
    return -1;
}

void yc_stream_write_end(int slot) {
    if (slot < 0 || slot >= STREAM_SLOTS) return;
    const struct timespec tick = {0, 100000};
    for (;;) {
        int expected = 2;
        if (atomic_compare_exchange_strong(&stream_state[slot], &expected, 0)) return;
        nanosleep(&tick, NULL);   // being kicked
    }
}

static void on_kick(int sig) { (void)sig; }

static void *stream_watchdog(void *unused) {
    (void)unused;
    sigset_t urg;
    sigemptyset(&urg);
    sigaddset(&urg, SIGURG);
    for (;;) {
        int got = 0;
        if (sigwait(&urg, &got) == 0 && yc_interrupted()) break;   // (a SIGURG from outside: not a stop)
    }
    const struct timespec pause = {0, 20000000};
    for (;;) {
        for (int i = 0; i < STREAM_SLOTS; i++) {
            int expected = 2;
            if (atomic_compare_exchange_strong(&stream_state[i], &expected, 3)) {
                pthread_kill(stream_thread[i], SIGURG);
                atomic_store(&stream_state[i], 2);
            }
        }
        nanosleep(&pause, NULL);
    }
    return NULL;
}

// The stream watchdog thread, once started: the handler wakes it with SIGURG (pthread_kill is async-signal-safe),
// which it waits for with every signal blocked — no descriptor of its own.
static pthread_t watchdog_thread;
static atomic_int watchdog_running;

void yc_wake_stream_watchdog(void) {
    if (atomic_load(&watchdog_running)) pthread_kill(watchdog_thread, SIGURG);
}

void yc_start_stream_watchdog(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_kick;   // no SA_RESTART: a blocked write returns
    sigemptyset(&sa.sa_mask);
    sigaction(SIGURG, &sa, NULL);
    // The watchdog with every signal blocked: the run's signals go to the threads that act on them, and the
    // handler's SIGURG stays pending for its sigwait.
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    if (pthread_create(&watchdog_thread, &attr, stream_watchdog, NULL) == 0) atomic_store(&watchdog_running, 1);
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}
