#include "yc_signals.h"
#include "yc_signals_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <signal.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

// More than the most files a run has in flight at once: `-j`'s largest value (1024) plus the run's own private
// files. A slot that cannot be had refuses the temporary file (yc_register_temp's -1): never one left unregistered.
#define SLOTS 2048
#define PATH_MAX_LEN 256   // a temporary file's name in its folder: at most 255 bytes

// A slot is free (0), claimed by a writer that is filling it in or emptying it (1), or published (2 and up: 2
// plus the number of handlers sweeping it at the moment). Only a compare-and-swap from 0 claims a free slot, so
// two threads can never fill the same one; a handler sweeps a slot only after raising its count from 2 or more,
// and a writer empties it only by a compare-and-swap from exactly 2 — so the handler never reads a half-copied
// path, nor a slot that is being emptied and filled again by another file (a batch's jobs come and go while a
// handler runs on one thread). A path is relative to its slot's folder descriptor: the registry's own copy of
// the writer's (`dup`), closed only when the slot is emptied, so a writer that closes its descriptor, and a later
// open that gets the same number, never turn the handler's removal on another folder's file of that name; and
// the file is found even when its folder was moved meanwhile.
enum { SLOT_FREE = 0, SLOT_CLAIMED = 1, SLOT_PUBLISHED = 2 };
static char paths[SLOTS][PATH_MAX_LEN];
static int folders[SLOTS];
static unsigned char empty_only[SLOTS];   // a claim (yc_register_claim): removed only while it is an empty file
// Removed only when the file at the name is one of these (device, inode; 0, 0: no such file), when `files_only` is
// set (`yc_temp_only_files`): a temporary name swapped with an output's holds another file after the swap.
static atomic_ullong only_dev[SLOTS][2], only_ino[SLOTS][2];
static atomic_int files_only[SLOTS];
static atomic_int state[SLOTS];

static atomic_int graceful;
static atomic_int interrupted;
static atomic_int dying;   // a signal is ending the process: no new temporary file may be registered

int yc_signals_dying(void) { return atomic_load(&dying); }
static int closed_std_mask;

static void remove_temps(void) {
    for (int i = 0; i < SLOTS; i++) {
        int s = atomic_load(&state[i]);
        // Counted in as a sweeper first (a handler on another thread, or this one's own interrupted sweep, may be
        // at it too): the slot cannot be emptied until the count is back.
        while (s >= SLOT_PUBLISHED && !atomic_compare_exchange_weak(&state[i], &s, s + 1)) {}
        if (s < SLOT_PUBLISHED) continue;
        struct stat st;
        const int looked = fstatat(folders[i], paths[i], &st, AT_SYMLINK_NOFOLLOW) == 0;
        int go = !empty_only[i] || (looked && S_ISREG(st.st_mode) && st.st_size == 0);
        if (go && atomic_load(&files_only[i])) {
            go = 0;
            for (int k = 0; k < 2 && looked; k++)
                if (atomic_load(&only_ino[i][k]) != 0 && atomic_load(&only_ino[i][k]) == (unsigned long long)st.st_ino
                    && atomic_load(&only_dev[i][k]) == (unsigned long long)st.st_dev)
                    go = 1;
        }
        if (go) unlinkat(folders[i], paths[i], 0);
        atomic_fetch_sub(&state[i], 1);
    }
    yc_cut_back_all();
}

static atomic_llong first_interrupt_ns;
static long long monotonic_ns(void);

void yc_remove_temps(void) { remove_temps(); }

int yc_prepare_address_space_limit(size_t start_bytes) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return 1;
#ifdef M_ARENA_MAX
    mallopt(M_ARENA_MAX, 1);
#endif
#ifdef M_MMAP_THRESHOLD
    // Large blocks (a picture's planes) mapped and unmapped on their own: glibc otherwise raises the threshold as
    // they are freed and keeps them in its heap, address space the next conversion's room cannot have.
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
    void *p = mmap(NULL, start_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return 0;
    munmap(p, start_bytes);
    return 1;
}

// Per thread (a batch converts several files at once), and the last one set by any thread for the pipeline's
// own workers, which convert for the thread that started them.
static _Thread_local char *current_input;
static char last_input[4096];
static pthread_mutex_t last_input_lock = PTHREAD_MUTEX_INITIALIZER;
void yc_set_current_input(const char *path) {
    free(current_input);
    current_input = path ? strdup(path) : NULL;
    if (!path) return;
    pthread_mutex_lock(&last_input_lock);
    snprintf(last_input, sizeof last_input, "%s", path);
    pthread_mutex_unlock(&last_input_lock);
}
const char *yc_current_input(void) { return current_input ? current_input : last_input[0] ? last_input : NULL; }

static long long monotonic_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);   // async-signal-safe
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void on_signal(int sig) {
    // In a batch, the first SIGINT/SIGTERM/SIGHUP (a closed terminal or SSH session: --update's manifest of what
    // finished is still written) only asks the run to stop (no new files; files in flight are
    // abandoned at their next band, or inside the decoder at its next progress call, and their temporary
    // files removed); a second one ends it at once. The same signal again within 250 ms is the first one
    // delivered twice, not a second request: `timeout -s INT` sends it to the child and then to its whole
    // process group, which ended the run at once and lost its summary, report and manifest.
    if ((sig == SIGINT || sig == SIGTERM || sig == SIGHUP) && atomic_load(&graceful)) {
        // The first one is recorded; a later one never replaces it (SIGTERM soon after SIGINT is a second
        // request, which an exchange here once turned into a repeat of "the first").
        int none = 0;
        if (atomic_compare_exchange_strong(&interrupted, &none, sig)) {
            atomic_store(&first_interrupt_ns, monotonic_ns());
            const int saved = errno;
            yc_wake_stream_watchdog();
            errno = saved;
            return;
        }
        if (none == sig && monotonic_ns() - atomic_load(&first_interrupt_ns) < 250000000LL) return;
    }
    // Other threads run on while this one cleans up: one may have registered a name and be making its file.
    // No new name is registered from here on, and the slots are swept three times, 2 ms apart, so a file made
    // just after a sweep is still removed before the process ends.
    atomic_store(&dying, 1);
    remove_temps();      // at once: a SIGKILL during the wait below (`timeout -k`) leaves no named temporary file
    yc_wait_for_cut_writes();   // a write in flight to an output about to be cut back lands before the cut, not after
    const struct timespec pause = {0, 2000000};
    for (int sweep = 0; sweep < 3; sweep++) {
        remove_temps();
        if (sweep < 2) nanosleep(&pause, NULL);
    }
    signal(sig, SIG_DFL);
    raise(sig);
    // Still here: the signal is pending (blocked in its own handler) or was dropped — the kernel discards a
    // default-action signal sent to PID 1 of a PID namespace (`docker run` without --init). Unblocked, a pending one
    // ends the process now; else it ends here, with the shell's status for that signal. Returning would let the
    // run go on with `dying` set, its writers parked for ever.
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, sig);
    sigprocmask(SIG_UNBLOCK, &only, NULL);
    _exit(128 + sig);
}

long long yc_stream_grace_left_ms(void) {
    if (!atomic_load(&interrupted)) return -1;
    const long long since = (monotonic_ns() - atomic_load(&first_interrupt_ns)) / 1000000;
    return since >= YC_STREAM_GRACE_MS ? 0 : YC_STREAM_GRACE_MS - since;
}

void yc_set_graceful_interrupt(int on) {
    atomic_store(&graceful, on);
    static atomic_int started;
    if (!on || atomic_exchange(&started, 1)) return;
    yc_start_stream_watchdog();
}
int yc_interrupted(void) { return atomic_load(&interrupted); }
static atomic_int reader_gone;
void yc_note_reader_gone(void) { atomic_store(&reader_gone, 1); }
int yc_reader_gone(void) { return atomic_load(&reader_gone); }

// Catches `sig`, one whose default action ends the process, for the cleanup — unless the parent set it to be
// ignored (nohup, a shell's `trap '' USR1`), which it stays; SIGINT and SIGTERM are always caught.
static void catch_ending(int sig, const struct sigaction *sa) {
    struct sigaction old;
    if (sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN && sig != SIGINT && sig != SIGTERM) return;
    sigaction(sig, sa, NULL);
}

void yc_install_signal_cleanup(void) {
    static atomic_int installed;
    if (atomic_exchange(&installed, 1)) return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    // Every signal whose default action ends the process: none may leave a temporary file behind.
    static const int ending[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM,
                                 SIGPROF, SIGXCPU,
#ifdef SIGPOLL
                                 SIGPOLL,
#endif
#ifdef SIGSTKFLT
                                 SIGSTKFLT,
#endif
                                 SIGTRAP, SIGSYS};
    for (size_t i = 0; i < sizeof ending / sizeof ending[0]; i++) catch_ending(ending[i], &sa);
#ifdef SIGPWR
    catch_ending(SIGPWR, &sa);
#endif
#ifdef SIGLOST
    catch_ending(SIGLOST, &sa);
#endif
#ifdef SIGEMT
    catch_ending(SIGEMT, &sa);
#endif
#if defined(SIGRTMIN) && defined(SIGRTMAX)
    // The real-time signals end the process by default too (glibc keeps the first two or three for itself,
    // which SIGRTMIN starts after).
    for (int s = SIGRTMIN; s <= SIGRTMAX; s++) catch_ending(s, &sa);
#endif
    // A crash must not leave a partial file either.
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGABRT, &sa, NULL);
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    sigaction(SIGILL, &sa, NULL);
    sigaction(SIGFPE, &sa, NULL);
    // A closed pipe is a write error (EPIPE), and a file-size limit (ulimit -f) is one too (EFBIG):
    // both end in a message, exit 1 and the temporary file removed.
    signal(SIGPIPE, SIG_IGN);
    signal(SIGXFSZ, SIG_IGN);
}

void yc_unblock_stop_signals(void) {
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigprocmask(SIG_UNBLOCK, &stop, NULL);
}

static int register_slot(int folder, const char *path, int claim);

int yc_register_temp(int folder, const char *path) { return register_slot(folder, path, 0); }

int yc_register_claim(int folder, const char *path) { return register_slot(folder, path, 1); }

static int register_slot(int folder, const char *path, int claim) {
    if (atomic_load(&dying)) return -2;
    if (strlen(path) >= PATH_MAX_LEN) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (int i = 0; i < SLOTS; i++) {
        int expected = SLOT_FREE;
        if (atomic_compare_exchange_strong(&state[i], &expected, SLOT_CLAIMED)) {
            const int own = folder == AT_FDCWD ? AT_FDCWD : fcntl(folder, F_DUPFD_CLOEXEC, 0);
            if (own == -1) {
                const int saved = errno;
                atomic_store(&state[i], SLOT_FREE);
                errno = saved;
                return -1;
            }
            strcpy(paths[i], path);
            folders[i] = own;
            empty_only[i] = (unsigned char)claim;
            atomic_store(&files_only[i], 0);
            atomic_store(&state[i], SLOT_PUBLISHED);
            return i;
        }
    }
    errno = EMFILE;
    return -1;
}

void yc_temp_only_files(int slot, unsigned long long dev1, unsigned long long ino1, unsigned long long dev2,
                        unsigned long long ino2) {
    if (slot < 0 || slot >= SLOTS) return;
    // The files first, then the switch: a handler that sees the switch sees them.
    atomic_store(&only_dev[slot][0], dev1);
    atomic_store(&only_ino[slot][0], ino1);
    atomic_store(&only_dev[slot][1], dev2);
    atomic_store(&only_ino[slot][1], ino2);
    atomic_store(&files_only[slot], 1);
}

void yc_unregister_temp(int slot) {
    if (slot < 0 || slot >= SLOTS) return;
    const struct timespec tick = {0, 100000};
    for (;;) {
        int expected = SLOT_PUBLISHED;
        if (atomic_compare_exchange_strong(&state[slot], &expected, SLOT_CLAIMED)) break;
        if (expected < SLOT_PUBLISHED) return;   // not registered
        nanosleep(&tick, NULL);   // a handler is sweeping it (and is ending the process)
    }
    if (folders[slot] != AT_FDCWD) close(folders[slot]);
    atomic_store(&state[slot], SLOT_FREE);
}

const char *yc_temp_path(int slot) {
    if (slot < 0 || slot >= SLOTS || atomic_load(&state[slot]) < SLOT_PUBLISHED) return NULL;
    return paths[slot];
}

int yc_protect_standard_descriptors(void) {
    int mask = 0;
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
        // open() returns the lowest free descriptor: this one.
        int got = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
        if (got != fd && got >= 0) close(got);
        mask |= 1 << fd;
    }
    closed_std_mask = mask;
    return mask;
}

void yc_release_free_memory(void) {
#if defined(__GLIBC__)
    (void)malloc_trim(0);
#endif
}

static _Thread_local int work_depth;

int yc_work_depth(int change) { return work_depth += change; }

uintptr_t yc_thread_token(void) { return (uintptr_t)&work_depth; }

int yc_standard_descriptor_was_closed(int fd) { return fd >= 0 && fd <= 2 && (closed_std_mask >> fd & 1); }

static int captured_count = -1;
static char **captured_arguments;

#if defined(__GLIBC__) || defined(__APPLE__)
__attribute__((constructor)) static void capture_arguments(int argc, char **argv, char **envp) {
    (void)envp;
    if (argc > 0 && argv) {
        captured_count = argc;
        captured_arguments = argv;
    }
}
#endif

char **yc_arguments(int *count) {
    *count = captured_count;
    return captured_arguments;
}
