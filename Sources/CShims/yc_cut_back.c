// The cut-back registry, split from yc_signals.c (the handlers and the temporary-file registry) by role:
// outputs written on a descriptor (`>`, `>>`, `1<>`) that a signal ending the run cuts back to where they began,
// the writes to them counted as they land (`yc_cut_guarded_write`), and the cut itself (`yc_cut_back`).
#include "yc_signals.h"
#include "yc_signals_internal.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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
// to a stalled device may never return). Called once, with the process dying (`yc_signals_dying`): no new write starts.
void yc_wait_for_cut_writes(void) {
    const struct timespec tick = {0, 1000000};
    for (int t = 0; t < 5000; t++) {
        int busy = 0;
        for (int i = 0; i < CUT_SLOTS; i++)
            if (atomic_load(&cut_writing[i]) > (writing_here_slot == i ? 1 : 0)) busy = 1;
        if (!busy) return;
        nanosleep(&tick, NULL);
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

void yc_cut_back_all(void) {
    for (int i = 0; i < CUT_SLOTS; i++) {
        const int fd = atomic_load(&cut_fd[i]);
        // Not while another thread's write to it is in flight (the first sweep comes before `yc_wait_for_cut_writes`):
        // its bytes would land after the cut, and, landing where the output's last write did not end, make the
        // output's bytes look like another program's to every later sweep, which then cut nothing.
        if (fd >= 0 && atomic_load(&cut_writing[i]) <= (writing_here_slot == i ? 1 : 0)) cut_back_slot(i, fd);
    }
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
    if (yc_signals_dying()) {
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
