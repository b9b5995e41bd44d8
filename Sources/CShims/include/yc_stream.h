// Reading a pipe, FIFO, device or standard input as a stream, after its first bytes were read to sniff the
// format: the stream hands those bytes out first, then reads on from the descriptor. Nothing is buffered
// whole, and a byte limit bounds what an endless source (/dev/zero, /dev/urandom) can make the tool read.
#ifndef YC_STREAM_H
#define YC_STREAM_H

#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct yc_stream yc_stream;

/// A read-only FILE over `fd` that first yields `head[0..<count]` (copied) and fails with EFBIG once
/// more than `limit` bytes were read in all. fclose() on it frees the stream and closes `fd` when
/// `owns_fd`. `*out` receives the stream's counters (valid until fclose). NULL (errno set) on failure.
FILE *yc_stream_open(int fd, int owns_fd, const uint8_t *head, size_t count, uint64_t limit, yc_stream **out);

/// 1 when `fd` is open on a file system whose file sizes are made up (Linux's procfs and sysfs: 0 or 4096
/// bytes whatever the file holds), else 0.
int yc_is_pseudo_file(int fd);
/// The columns of the terminal `fd` is on, 0 when it is none or does not say.
int yc_terminal_columns(int fd);
/// What the file system of `path` (or, with `path` NULL, descriptor `fd`) is, from one statfs, as flags:
/// YC_VIEW_ELSEWHERE where it shows files stored elsewhere (`yc_shows_files_stored_elsewhere`: an overlay, FUSE,
/// NFS, 9p; Linux only): one file may then be seen under two devices, and is known by its size and times
/// (FileStatus.viewIdentity); YC_VIEW_FUSE on FUSE (Linux; macFUSE on macOS): one file may then have another inode
/// number under each name that reaches it (exfat-fuse numbers `IMG.PNG` and `img.png` apart). 0 for neither.
enum { YC_VIEW_ELSEWHERE = 1, YC_VIEW_FUSE = 2 };
int yc_file_system_view(const char *path, int fd);
/// 1 for a file system type (statfs's f_type) that shows files stored elsewhere with their own size and times:
/// overlayfs, FUSE (passthroughs: bindfs, mergerfs, virtiofs), NFS and 9p; Linux only.
int yc_shows_files_stored_elsewhere(unsigned long long type);
/// Whether the folder `path` (which exists) takes names that differ only in letter case for one file, as its file
/// system says: 1 (FAT, exFAT, an ext4/f2fs/tmpfs folder with casefold; APFS or HFS+ so formatted), 0 (it tells case
/// apart), -1 when it does not say (FUSE, SMB, NFS, or no answer): then only a look at names can tell.
int yc_folder_folds_case(const char *path);
/// When the file `path` names (relative to the folder open on `dirfd`, or AT_FDCWD; links followed when
/// `follow`) was made — its birth time, in seconds — or -1 where the system keeps none or cannot say. A file
/// removed and another made at its name has another birth time even under the same inode number, which a
/// `touch`, a `chmod` or a link made to it never changes.
double yc_birth_time(int dirfd, const char *path, int follow);
/// Bytes written to the pipe or socket open on `fd` that its reader has not taken yet (FIONREAD), or -1.
int yc_fd_queued(int fd);

/// A descriptor for the folder `path` that names it only (Linux's O_PATH, O_SEARCH elsewhere): what openat,
/// linkat, renameat, unlinkat and fstatat need, which a folder one may write to but not list (0733) grants.
/// -1 and errno on failure.
int yc_open_folder(const char *path);
/// The same for the entry `name` of the open folder `folder`: a symbolic link there followed when `follow` is
/// nonzero, else refused (ENOTDIR).
int yc_open_folder_at(int folder, const char *name, int follow);

/// A file without a name in the folder `folder` (Linux's O_TMPFILE), read-write, 0600: nothing to remove if the
/// process ends. -1 and errno where the system or file system has no such files.
int yc_open_unnamed(const char *folder);

/// An output's file without a name yet, in the open folder `folder` (O_TMPFILE, `mode` less the umask), that
/// `yc_name_unnamed` can later give a name: nothing to remove if the process ends, even by SIGKILL. -1 where
/// the system or file system has no such files, or /proc (which names it) is not there.
int yc_open_unnamed_at(int folder, unsigned mode);
/// Gives the unnamed file `fd` the name `name` in the open folder `folder` (linkat through /proc/self/fd; it
/// never replaces a file: EEXIST). 0, or -1 and errno.
int yc_name_unnamed(int fd, int folder, const char *name);

/// The entries `a` and `b` of `folder` swapped in one step (Linux's renameat2 RENAME_EXCHANGE, macOS's
/// renameatx_np RENAME_SWAP): 0, or -1 with errno (EINVAL, ENOSYS, ENOTSUP where the file system cannot; ENOENT
/// when either is missing).
int yc_rename_exchange(int folder, const char *a, const char *b);
/// Entry `from` of `folder` renamed `to` unless something is there (Linux's renameat2 RENAME_NOREPLACE, macOS's
/// renameatx_np RENAME_EXCL): 0, or -1 with errno (EEXIST when something is; EINVAL, ENOSYS, ENOTSUP where the
/// file system cannot).
int yc_rename_noreplace(int folder, const char *from, const char *to);
/// `size` bytes of disk for the file open on `fd` (Linux's fallocate): 0, an errno (ENOSPC, EFBIG, EIO…), or -1
/// where the file system cannot reserve (then nothing was written).
int yc_reserve(int fd, long long size);

/// 1 when the open folder `folder` is append-only (Linux's FS_APPEND_FL, `chattr +a`: entries can be added,
/// not renamed or removed), 0 when not or when it cannot be told.
int yc_folder_append_only(int folder);

/// The end of the stream was read already (by whoever took its first bytes, `head`): once those are handed
/// out it reads as ended, without reading again (a FIFO's read waits a while for a writer to come).
void yc_stream_mark_ended(yc_stream *s);

/// Copies the access ACL of the file `name` in the open folder `folder` to the open file `fd` (Linux's
/// system.posix_acl_access): 1 copied, 0 when it has none (or the system keeps none), -1 when it has one
/// that could not be copied.
int yc_copy_acl(int folder, const char *name, int fd);
/// Bytes handed out so far (head included).
uint64_t yc_stream_bytes(const yc_stream *s);
/// 1 when a read was refused because the limit was reached.
int yc_stream_over_limit(const yc_stream *s);
/// Up to `size` of the stream's next bytes with one read: what is there now, waiting only while nothing is
/// (a pipe whose writer keeps it open after the image: a full-buffer `fread` would wait for it to close).
/// 0 at the end, -1 and errno on failure. For a reader that reads only this way, never through the FILE.
long long yc_stream_read_some(yc_stream *s, void *buf, size_t size);

/// Writes `count` bytes at `bytes` for a write stream; returns 0, or the errno of the failure.
typedef int (*yc_write_fn)(void *context, const uint8_t *bytes, size_t count);

/// A write-only FILE whose every flushed buffer goes to `write(context, …)`, in order: an output that hashes
/// what it writes hands this to encoders that want a FILE. fclose() flushes and frees the FILE only.
/// NULL (errno set) on failure.
FILE *yc_write_stream_open(void *context, yc_write_fn write);

/// How long a FIFO opened by name waits for a writer to open it, in milliseconds (`wait_readable`).
#define YC_FIFO_WRITER_WAIT_MS 5000

/// The first read of a FIFO `fd` opened non-blocking for reading: waits `limit_ms` at most for a writer to open it
/// (one that opened it and writes nothing yet is waited for without limit), then reads up to `count` bytes. The
/// count read; 0 at the end (a writer came and went without writing); -2 when no writer came; -1 with errno on
/// failure (EINTR when a signal asked the run to stop).
long long yc_fifo_first_read(int fd, uint8_t *buf, size_t count, long long limit_ms);

/// Reads exactly `count` bytes from `fd` into `buf`, retrying on EINTR and short reads and waiting (poll) on a
/// non-blocking descriptor with nothing yet. Returns the bytes read (fewer at end of file), or -1 (errno set).
long long yc_read_full(int fd, uint8_t *buf, size_t count);

/// Reads what one read gives, at most `count` bytes, waiting as yc_read_full does until some come: the bytes read
/// (0 at the end), or -1 (errno set). For a look that must not wait for bytes a writer has not sent.
long long yc_read_some(int fd, uint8_t *buf, size_t count);

#ifdef __cplusplus
}
#endif
#endif
