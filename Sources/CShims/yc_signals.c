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
static atomic_int state[SLOTS];

static atomic_int graceful;
static atomic_int interrupted;
static atomic_int dying;   // a signal is ending the process: no new temporary file may be registered
static int closed_std_mask;

// Descriptor outputs to cut back (`yc_register_cut`): a slot is free (-1), being filled (-2) or holds its
// descriptor, with where the output began, whether it appends and the bytes its writes have put in the file
// (counted by `yc_cut_guarded_write` as each write returns, before it counts itself out: a handler that has waited
// for the writes in flight sees every byte of them); `yc_cut_back` decides from them. The bytes of a write are
// counted after it, not when asked: an appending output that counted a write it had not made yet (a writer
// parked by the handler before writing its next 1 MiB) took a line another program appended meanwhile for its
// own and cut it off.
#define CUT_SLOTS 16
static atomic_int cut_fd[CUT_SLOTS] = {[0 ... CUT_SLOTS - 1] = -1};
static atomic_llong cut_offset[CUT_SLOTS];
static atomic_llong cut_size[CUT_SLOTS];
static atomic_llong cut_written[CUT_SLOTS];
// An appending output's: where its first byte landed (-1 before its first write; -2 once a write landed anywhere
// but where the one before it ended — another program's bytes between them, so nothing is cut), and where its
// last one ended.
static atomic_llong cut_first[CUT_SLOTS];
static atomic_llong cut_end[CUT_SLOTS];
// The size of the write in flight on the thread that marks it (`writing_here_slot`): a handler that runs on that
// thread after the write returned and before it was counted allows for it.
static _Thread_local volatile long long writing_here_count;
static atomic_int cut_appends[CUT_SLOTS];
// Writes in flight to each slot's descriptor (`yc_cut_guarded_write`), and this thread's own (a handler that
// runs on a writing thread, after its write returned and before it counted it out, must not wait for itself).
static atomic_int cut_writing[CUT_SLOTS];
static _Thread_local volatile sig_atomic_t writing_here_slot = -1;

int yc_cut_back(int fd, long long start, long long size, int appends, long long written, long long first) {
    if (fd < 0 || start < 0 || written <= 0) return 0;
    const off_t at = lseek(fd, 0, SEEK_CUR);
    if (appends) {
        // The output's bytes are the file's last `written` bytes, from `first` on, or nothing is cut.
        if (first == -1) first = start;
        struct stat st;
        if (first < start || fstat(fd, &st) != 0 || at < 0 || st.st_size != at || st.st_size - first != written) return 0;
        return ftruncate(fd, (off_t)first) == 0;
    }
    if (at <= (off_t)start) return 0;   // nothing written (a `1<>old` whose first write failed keeps its bytes)
    if (ftruncate(fd, (off_t)(size >= 0 && size < start ? size : start)) != 0) return 0;
    lseek(fd, (off_t)start, SEEK_SET);
    return 1;
}

// Waits until no other thread is inside a guarded write to a registered descriptor — up to 5 s in all (a write
// to a stalled device may never return). Called once, with `dying` set: no new write starts.
static void wait_for_writes(void) {
    const struct timespec tick = {0, 1000000};
    for (int t = 0; t < 5000; t++) {
        int busy = 0;
        for (int i = 0; i < CUT_SLOTS; i++)
            if (atomic_load(&cut_writing[i]) > (writing_here_slot == i ? 1 : 0)) busy = 1;
        if (!busy) return;
        nanosleep(&tick, NULL);
    }
}

static int cut_back_slot(int i, int fd);

static void remove_temps(void) {
    for (int i = 0; i < SLOTS; i++) {
        int s = atomic_load(&state[i]);
        // Counted in as a sweeper first (a handler on another thread, or this one's own interrupted sweep, may be
        // at it too): the slot cannot be emptied until the count is back.
        while (s >= SLOT_PUBLISHED && !atomic_compare_exchange_weak(&state[i], &s, s + 1)) {}
        if (s < SLOT_PUBLISHED) continue;
        unlinkat(folders[i], paths[i], 0);
        atomic_fetch_sub(&state[i], 1);
    }
    for (int i = 0; i < CUT_SLOTS; i++) {
        const int fd = atomic_load(&cut_fd[i]);
        // Not while another thread's write to it is in flight (the first sweep comes before `wait_for_writes`):
        // its bytes would land after the cut, and, landing where the output's last write did not end, make the
        // output's bytes look like another program's to every later sweep, which then cut nothing.
        if (fd >= 0 && atomic_load(&cut_writing[i]) <= (writing_here_slot == i ? 1 : 0)) cut_back_slot(i, fd);
    }
}

// yc_cut_back with what slot `i`'s writes recorded. A handler on a writing thread may have stopped it inside or
// just after its write, before the write was counted: then the file may hold up to that write's bytes more, and
// the cut allows for them — from where the output's last write ended; not when it was the first appended write,
// whose bytes may have landed after another program's line, which the cut would take (its partial bytes stay).
static int cut_back_slot(int i, int fd) {
    const long long start = atomic_load(&cut_offset[i]), size = atomic_load(&cut_size[i]);
    const int appends = atomic_load(&cut_appends[i]);
    const long long written = atomic_load(&cut_written[i]), first = atomic_load(&cut_first[i]);
    const int here = writing_here_slot == i;
    if (!appends) return yc_cut_back(fd, start, size, 0, written + (here ? writing_here_count : 0), -1);
    if (yc_cut_back(fd, start, size, 1, written, first)) return 1;
    const long long from = first;
    struct stat st;
    if (!here || from < 0 || fstat(fd, &st) != 0) return 0;
    const long long more = st.st_size - from - written;
    return more > 0 && more <= writing_here_count && yc_cut_back(fd, start, size, 1, written + more, from);
}

int yc_cut_back_registered(int slot, int fd) {
    if (slot < 0 || slot >= CUT_SLOTS || atomic_load(&cut_fd[slot]) != fd) return 0;
    return cut_back_slot(slot, fd);
}

int yc_register_cut(int fd, long long offset, long long size, int appends) {
    for (int i = 0; i < CUT_SLOTS; i++) {
        int expected = -1;
        // Claimed with the descriptor -2 until its offset is in place, so the handler never cuts to a stale one.
        if (atomic_compare_exchange_strong(&cut_fd[i], &expected, -2)) {
            atomic_store(&cut_written[i], 0);
            atomic_store(&cut_first[i], -1);
            atomic_store(&cut_end[i], -1);
            atomic_store(&cut_offset[i], offset);
            atomic_store(&cut_size[i], size);
            atomic_store(&cut_appends[i], appends);
            atomic_store(&cut_fd[i], fd);
            return i;
        }
    }
    return -1;
}

long yc_cut_guarded_write(int slot, int fd, const void *bytes, unsigned long count) {
    if (slot < 0 || slot >= CUT_SLOTS) return (long)write(fd, bytes, count);
    // Counted in, then the check (both sequentially consistent, as the handler's store and count): either the
    // handler sees this write counted and waits for it, or this thread sees the process ending and never writes.
    // This thread's mark is set before it is counted and cleared after: a handler running here in between sees
    // its own write and does not wait for it.
    writing_here_count = (long long)count;
    writing_here_slot = slot;
    atomic_signal_fence(memory_order_seq_cst);
    atomic_fetch_add(&cut_writing[slot], 1);
    if (atomic_load(&dying)) {
        atomic_fetch_sub(&cut_writing[slot], 1);
        atomic_signal_fence(memory_order_seq_cst);
        writing_here_slot = -1;
        for (;;) pause();   // the handler is cutting the file back and ending the process
    }
    const long n = (long)write(fd, bytes, count);
    const int saved = errno;
    if (n > 0) {
        if (atomic_load(&cut_appends[slot])) {
            // Where this write landed: it ends at the descriptor's new position.
            const off_t after = lseek(fd, 0, SEEK_CUR);
            const long long begin = after < 0 ? -2 : (long long)after - n;
            const long long first = atomic_load(&cut_first[slot]);
            if (first == -1) atomic_store(&cut_first[slot], begin < 0 ? -2 : begin);
            else if (first >= 0 && begin != atomic_load(&cut_end[slot])) atomic_store(&cut_first[slot], -2);
            atomic_store(&cut_end[slot], (long long)after);
        }
        atomic_fetch_add(&cut_written[slot], n);
    }
    atomic_fetch_sub(&cut_writing[slot], 1);
    atomic_signal_fence(memory_order_seq_cst);
    writing_here_slot = -1;
    errno = saved;
    return n;
}

void yc_unregister_cut(int slot) {
    if (slot >= 0 && slot < CUT_SLOTS) atomic_store(&cut_fd[slot], -1);
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
    wait_for_writes();   // a write in flight to an output about to be cut back lands before the cut, not after
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

int yc_register_temp(int folder, const char *path) {
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
            atomic_store(&state[i], SLOT_PUBLISHED);
            return i;
        }
    }
    errno = EMFILE;
    return -1;
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
