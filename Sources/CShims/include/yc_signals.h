// Removing temporary output files when the process is ended by a signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT,
// SIGUSR1/2, SIGALRM, …) or crashes (SIGABRT, SIGSEGV, …): a signal
// handler may only make async-signal-safe calls, so the list of paths lives here, in C, and the handler
// does nothing but unlink() them and re-raise the signal with its default action.
#ifndef YC_SIGNALS_H
#define YC_SIGNALS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Installs the handlers once, and ignores SIGPIPE so a closed pipe becomes a write error (EPIPE).
void yc_install_signal_cleanup(void);
/// Unblocks SIGINT and SIGTERM in the calling thread, for a command's main thread at start-up, before any other:
/// caught is not enough when the parent left them blocked (a signal mask is inherited across exec, as a
/// disposition to ignore is), and a batch then converted everything before SIGTERM was seen. Not done by
/// `yc_install_signal_cleanup`, which a program using the library reaches from its own threads (one that
/// blocks them to `sigwait` keeps its mask). SIGHUP and the rest keep the parent's choice, as an ignored one does.
void yc_unblock_stop_signals(void);
/// With `on`, the first SIGINT or SIGTERM is only recorded (see yc_interrupted); a second one cleans up and
/// ends the process.
void yc_set_graceful_interrupt(int on);
/// How long a write to a stream (a pipe, a device, standard output or error) may wait for room once a first,
/// graceful interrupt came: a reader that drains nothing in that time is given up, and the run ends.
#define YC_STREAM_GRACE_MS 1000
/// Around a write(2) that may block on a stream: registers this thread, so that after a graceful interrupt the
/// watchdog interrupts the write (EINTR) until the grace runs out. Returns a slot (-1: none free; the write is
/// then not interrupted), for `yc_stream_write_end`.
int yc_stream_write_begin(void);
void yc_stream_write_end(int slot);
/// Milliseconds of that grace left (0: over), or -1 when no interrupt came.
long long yc_stream_grace_left_ms(void);
/// The signal that asked the run to stop, or 0.
int yc_interrupted(void);
/// Standard output's reader went away (a write of text to it failed with EPIPE): noted once, for every thread
/// (a batch then starts no more files). Apart from the signals: a Ctrl-C after it is still a first one.
void yc_note_reader_gone(void);
int yc_reader_gone(void);
/// Registers a temporary file to remove on a signal: `path` relative to the open folder `folder` (AT_FDCWD for
/// the current one), which the registry keeps a descriptor of its own for (the caller may close `folder`);
/// returns a slot, -1 with errno set when it cannot be registered (no descriptor or slot to be had: the file must
/// not be made either), or -2 when a signal is ending the process (the file must not be made).
int yc_register_temp(int folder, const char *path);
/// The same for an empty file made at an output's own name to claim it (where there are no hard links) until the
/// output is renamed over it: removed by a handler only while it is still an empty regular file, so a handler
/// that comes after the rename leaves the output.
int yc_register_claim(int folder, const char *path);
/// Registers an output written straight to a descriptor open on a regular file (`-o -` with `> f`, `>> f`,
/// `1<>f`, `/dev/fd/3`; `appends` for O_APPEND): once it has written through `yc_cut_guarded_write`, which
/// counts the bytes each write put in the file, a signal that ends the process cuts the file back to `offset`,
/// where the output's bytes began (`size`: the file's size then) — by the rule of `yc_cut_back` — so that none of
/// a partial output is left. Returns a slot, or -1.
int yc_register_cut(int fd, long long offset, long long size, int appends);
/// write(2) to a registered descriptor's `fd` (slot `slot`), so that the handler can wait for it: the handler
/// cuts the file back only once no such write is in flight, and a writer that finds the process ending never
/// writes again (it waits there for the end). Else as write(2).
long yc_cut_guarded_write(int slot, int fd, const void *bytes, unsigned long count);
void yc_unregister_cut(int slot);
/// Cuts `fd`'s file back when the bytes after `start` are this output's own (`written`: the bytes its writes put in
/// the file, counted as they returned): a plain descriptor's to `start` when its position moved past it (offset
/// put back too, so the next writer leaves no hole; a position that was past the file's end, `size` — the file's
/// size when the output began — is cut to that end, not to a hole of zeros the output's first write made); an
/// appending one's to `first`, where its first byte landed (-1: taken as `start`), only when the file ends where
/// its last write did and its last `written` bytes are exactly those from `first` on — bytes another process
/// appended before the output's first write stay, and so does everything when another's landed after it or
/// among its writes (`first` -2). 1 when cut. Async-signal-safe.
int yc_cut_back(int fd, long long start, long long size, int appends, long long written, long long first);
/// `yc_cut_back` for the output registered in `slot` on `fd`, with what its guarded writes recorded.
int yc_cut_back_registered(int slot, int fd);
/// Under an address-space limit (RLIMIT_AS): one malloc arena for every thread (glibc reserves 64 MiB of
/// address space for each), and whether `start_bytes` more can be mapped (0: too little to start). 1 without
/// a limit.
int yc_prepare_address_space_limit(size_t start_bytes);
/// Removes every registered temporary file now (a process about to exit on a fatal error).
void yc_remove_temps(void);
/// The input this thread converts (kept as a copy; NULL for none), for a message that must name it, such as
/// running out of memory.
void yc_set_current_input(const char *path);
const char *yc_current_input(void);
/// From now on the handlers remove the slot's file only when it is one of these files (by device and inode; 0
/// for none): a temporary name about to be swapped with the output's (`--force`), which then holds another
/// file — the one that was replaced, which may go, or one put at the name meanwhile, which must be kept.
void yc_temp_only_files(int slot, unsigned long long dev1, unsigned long long ino1, unsigned long long dev2,
                        unsigned long long ino2);
/// Forgets a slot (after the file was renamed into place or removed), and closes the registry's descriptor of its
/// folder.
void yc_unregister_temp(int slot);
/// The path registered in a slot, or NULL when the slot is not in use (tests).
const char *yc_temp_path(int slot);
/// Opens /dev/null on each of descriptors 0, 1, 2 that is closed, so that no file the tool opens later can
/// land on one of them (and receive log lines meant for standard error). Returns a mask of those that were
/// closed (bit n for descriptor n); call it first thing in main.
int yc_protect_standard_descriptors(void);

/// The process's arguments as the C start-up handed them to the program (glibc and Apple's dyld pass them to
/// constructors): Swift's `CommandLine` on Linux reads /proc/self/cmdline, and without /proc (a chroot, a
/// sandbox) it has none — `argc` 0. `*count` is -1 where no constructor saw them.
char **yc_arguments(int *count);
/// 1 when descriptor `fd` (0, 1 or 2) was closed when the process started.
int yc_standard_descriptor_was_closed(int fd);
/// Gives the heap's free memory back to the system (glibc's malloc_trim), before room is asked for again.
void yc_release_free_memory(void);
/// This thread's count of conversions admitted (`Ledger.beginWork`), changed by `change`; returns the new count.
int yc_work_depth(int change);
/// A number that names the calling thread while it lives (the address of its own work count).
uintptr_t yc_thread_token(void);

#ifdef __cplusplus
}
#endif
#endif
