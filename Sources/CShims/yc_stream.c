#define _GNU_SOURCE
#include "yc_stream.h"
#include "yc_signals.h"

#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <time.h>
#if defined(__linux__)
#include <linux/fs.h>
#include <sys/ioctl.h>
#endif

struct yc_stream {
    int fd, owns_fd;
    uint8_t *head;   // what a look at standard input already took (a few bytes, or a raw frame): read first
    size_t head_count, head_used;
    uint64_t limit, bytes;
    int over_limit;
    int ended;       // the end was read already (by a look at the start): read nothing more
};

/// Waits until `fd` has bytes (or its end) to read, or until `limit_ms` passed (never when negative): 1 when it
/// has, 0 when the time ran out; or -1 with errno EINTR once a signal asked a batch to stop (`yc_interrupted`). A
/// batch stops on its first SIGINT or SIGTERM when the files in flight are done, and a stalled stream (a FIFO whose
/// writer never writes, `<(…)` that sleeps) never is: its read is given up then, whichever thread the signal reached.
static int poll_for(int fd, long long limit_ms) {
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        if (yc_interrupted()) {
            errno = EINTR;
            return -1;
        }
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = poll(&p, 1, 200);
        if (r > 0) return 1;
        if (r < 0 && errno != EINTR) return 1;   // the read then says what is wrong
        if (limit_ms >= 0) {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            long long ms = (long long)(now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
            if (ms >= limit_ms) return 0;
        }
    }
}

/// The same for a read that follows whatever happened: 0, or -1 (EINTR) when the run is stopping.
static int poll_readable_within(int fd, long long limit_ms) { return poll_for(fd, limit_ms) < 0 ? -1 : 0; }

static int poll_readable(int fd) { return poll_readable_within(fd, -1); }

long long yc_fifo_first_read(int fd, uint8_t *buf, size_t count, long long limit_ms) {
    // A FIFO opened for reading with no writer polls as nothing to read (no POLLHUP until a writer has come and
    // gone), and so does one whose writer is there but has written nothing yet: the read after the wait tells
    // them apart (the end, or EAGAIN).
    int came = poll_for(fd, limit_ms < 0 ? 0 : limit_ms);
    if (came < 0) return -1;
    for (;;) {
        ssize_t n = read(fd, buf, count);
        if (n > 0) return n;
        if (n == 0) {
            if (came) return 0;
            // A writer that came and went between the wait's end and the read leaves POLLHUP: an empty stream.
            struct pollfd p = {.fd = fd, .events = POLLIN};
            return poll(&p, 1, 0) > 0 && (p.revents & POLLHUP) ? 0 : -2;
        }
        if (errno == EINTR) continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) return -1;
        if (poll_for(fd, -1) < 0) return -1;   // a writer holds it open, idle: waited for without limit
        came = 1;
    }
}

/// The same before a read. A non-blocking descriptor is a FIFO opened by name (left so) or a descriptor handed
/// over so: its read says the end at once when no writer has the FIFO open, which is also the case before a
/// writer started a moment after the reader (`yuvconv p -o out & producer > p`). poll waits for a writer to come
/// (it says the end once a writer came and went), so it is waited for, for YC_FIFO_WRITER_WAIT_MS at most: a FIFO
/// no writer ever opens ends the run then instead of holding it. A writer that is there but idle makes the read
/// say EAGAIN, which waits without limit (`stream_read`).
static int wait_readable(int fd) {
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0 && (flags & O_NONBLOCK)) return poll_readable_within(fd, YC_FIFO_WRITER_WAIT_MS);
    return poll_readable(fd);
}

static long long stream_read(yc_stream *s, char *buf, size_t size) {
    if (s->head_used < s->head_count) {
        size_t n = s->head_count - s->head_used;
        if (n > size) n = size;
        memcpy(buf, s->head + s->head_used, n);
        s->head_used += n;
        s->bytes += n;
        return (long long)n;
    }
    if (s->ended) return 0;
    if (s->bytes >= s->limit) {
        // At the limit: past it only if the stream goes on (one byte more), not if it ends exactly there (a
        // file of exactly the limit was "goes on past" through a pipe and "cut short" by name).
        unsigned char one;
        for (;;) {
            if (wait_readable(s->fd) != 0) return -1;
            ssize_t n = read(s->fd, &one, 1);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                if (poll_readable(s->fd) == 0) continue;
                return -1;
            }
            if (n < 0) return -1;
            if (n == 0) {
                s->ended = 1;
                return 0;
            }
            break;
        }
        s->over_limit = 1;
        errno = EFBIG;
        return -1;
    }
    if (size > s->limit - s->bytes) size = (size_t)(s->limit - s->bytes);
    for (;;) {
        if (wait_readable(s->fd) != 0) return -1;
        ssize_t n = read(s->fd, buf, size);
        if (n < 0 && errno == EINTR) continue;
        // A descriptor left non-blocking by whoever opened it (a parent's O_NONBLOCK on a shared pipe): no data
        // yet is not the end, nor an error; wait for some. (The JPEG reader took it for the end of the file.)
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (poll_readable(s->fd) == 0) continue;
            return -1;
        }
        if (n > 0) s->bytes += (uint64_t)n;
        return n;
    }
}

static int stream_close(yc_stream *s) {
    int rc = 0;
    if (s->owns_fd) rc = close(s->fd);
    free(s->head);
    free(s);
    return rc;
}

#if defined(__APPLE__)
static int apple_read(void *c, char *buf, int size) { return (int)stream_read(c, buf, (size_t)size); }
static int apple_close(void *c) { return stream_close(c); }
#else
static ssize_t glibc_read(void *c, char *buf, size_t size) { return (ssize_t)stream_read(c, buf, size); }
static int glibc_close(void *c) { return stream_close(c); }
#endif

FILE *yc_stream_open(int fd, int owns_fd, const uint8_t *head, size_t count, uint64_t limit, yc_stream **out) {
    yc_stream *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->fd = fd;
    s->owns_fd = owns_fd;
    if (count > 0) {
        s->head = malloc(count);
        if (!s->head) { free(s); return NULL; }
        memcpy(s->head, head, count);
    }
    s->head_count = count;
    s->limit = limit;
#if defined(__APPLE__)
    FILE *f = funopen(s, apple_read, NULL, NULL, apple_close);
#else
    cookie_io_functions_t io = {.read = glibc_read, .write = NULL, .seek = NULL, .close = glibc_close};
    FILE *f = fopencookie(s, "rb", io);
#endif
    if (!f) { free(s->head); free(s); return NULL; }
    if (out) *out = s;
    return f;
}

uint64_t yc_stream_bytes(const yc_stream *s) { return s->bytes; }
void yc_stream_mark_ended(yc_stream *s) { s->ended = 1; }
int yc_stream_over_limit(const yc_stream *s) { return s->over_limit; }

long long yc_stream_read_some(yc_stream *s, void *buf, size_t size) { return stream_read(s, buf, size); }

struct yc_writer {
    void *context;
    yc_write_fn write;
};

static long long writer_write(struct yc_writer *w, const char *buf, size_t size) {
    int code = w->write(w->context, (const uint8_t *)buf, size);
    if (code != 0) {
        errno = code;
        return -1;
    }
    return (long long)size;
}

#if defined(__APPLE__)
static int apple_write(void *c, const char *buf, int size) { return (int)writer_write(c, buf, (size_t)size); }
static int apple_writer_close(void *c) { free(c); return 0; }
#else
static ssize_t glibc_write(void *c, const char *buf, size_t size) { return (ssize_t)writer_write(c, buf, size); }
static int glibc_writer_close(void *c) { free(c); return 0; }
#endif

FILE *yc_write_stream_open(void *context, yc_write_fn write) {
    struct yc_writer *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->context = context;
    w->write = write;
#if defined(__APPLE__)
    FILE *f = funopen(w, NULL, apple_write, NULL, apple_writer_close);
#else
    cookie_io_functions_t io = {.read = NULL, .write = glibc_write, .seek = NULL, .close = glibc_writer_close};
    FILE *f = fopencookie(w, "wb", io);
#endif
    if (!f) { free(w); return NULL; }
    return f;
}

long long yc_read_some(int fd, uint8_t *buf, size_t count) {
    if (count == 0) return 0;
    for (;;) {
        if (wait_readable(fd) != 0) return -1;
        ssize_t n = read(fd, buf, count);
        if (n >= 0) return (long long)n;
        if (errno == EINTR) continue;
        // A descriptor left non-blocking by whoever handed it over (a pipe as standard input): nothing yet
        // is not the end, wait for it (as yc_stream_read does).
        if ((errno == EAGAIN || errno == EWOULDBLOCK) && poll_readable(fd) == 0) continue;
        return -1;
    }
}

long long yc_read_full(int fd, uint8_t *buf, size_t count) {
    size_t done = 0;
    while (done < count) {
        const long long n = yc_read_some(fd, buf + done, count - done);
        if (n < 0) return -1;
        if (n == 0) break;
        done += (size_t)n;
    }
    return (long long)done;
}

int yc_open_folder(const char *path) {
#if defined(O_PATH)
    return open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
#elif defined(O_SEARCH)
    return open(path, O_SEARCH | O_DIRECTORY | O_CLOEXEC);
#else
    return open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
#endif
}

int yc_open_unnamed(const char *folder) {
#if defined(O_TMPFILE)
    return open(folder, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#else
    (void)folder;
    errno = EOPNOTSUPP;
    return -1;
#endif
}

int yc_open_unnamed_at(int folder, unsigned mode) {
#if defined(O_TMPFILE) && defined(__linux__)
    const int fd = openat(folder, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, (mode_t)mode);
    if (fd < 0) return -1;
    // Named later through /proc/self/fd (linkat's AT_EMPTY_PATH needs a capability containers often lack).
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    if (faccessat(AT_FDCWD, path, F_OK, 0) != 0) {
        close(fd);
        errno = EOPNOTSUPP;
        return -1;
    }
    return fd;
#else
    (void)folder, (void)mode;
    errno = EOPNOTSUPP;
    return -1;
#endif
}

int yc_folder_append_only(int folder) {
#if defined(__linux__) && defined(STATX_ATTR_APPEND)
    // statx on the folder's own descriptor: no read permission needed (a 0733 drop box).
    struct statx stx;
    if (statx(folder, "", AT_EMPTY_PATH, 0, &stx) == 0 && (stx.stx_attributes_mask & STATX_ATTR_APPEND))
        return (stx.stx_attributes & STATX_ATTR_APPEND) ? 1 : 0;
#endif
#if defined(__linux__) && defined(FS_IOC_GETFLAGS)
    const int fd = openat(folder, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return 0;
    int flags = 0;
    const int r = ioctl(fd, FS_IOC_GETFLAGS, &flags);
    close(fd);
    return r == 0 && (flags & FS_APPEND_FL) ? 1 : 0;
#else
    (void)folder;
    return 0;
#endif
}

int yc_name_unnamed(int fd, int folder, const char *name) {
#if defined(__linux__)
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    return linkat(AT_FDCWD, path, folder, name, AT_SYMLINK_FOLLOW);
#else
    (void)fd, (void)folder, (void)name;
    errno = EOPNOTSUPP;
    return -1;
#endif
}

int yc_rename_exchange(int folder, const char *a, const char *b) {
#if defined(__linux__) && defined(SYS_renameat2)
    return (int)syscall(SYS_renameat2, folder, a, folder, b, 2 /* RENAME_EXCHANGE */);
#elif defined(__APPLE__) && defined(RENAME_SWAP)
    return renameatx_np(folder, a, folder, b, RENAME_SWAP);
#else
    (void)folder, (void)a, (void)b;
    errno = ENOSYS;
    return -1;
#endif
}

int yc_open_folder_at(int folder, const char *name, int follow) {
    const int links = follow ? 0 : O_NOFOLLOW;
#if defined(O_PATH)
    return openat(folder, name, O_PATH | O_DIRECTORY | O_CLOEXEC | links);
#elif defined(O_SEARCH)
    return openat(folder, name, O_SEARCH | O_DIRECTORY | O_CLOEXEC | links);
#else
    return openat(folder, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | links);
#endif
}

#if defined(__linux__)
#include <stdio.h>
#include <sys/xattr.h>
int yc_copy_acl(int folder, const char *name, int fd) {
    char path[320], value[8192];
    if (snprintf(path, sizeof path, "/proc/self/fd/%d/%s", folder, name) >= (int)sizeof path) return -1;
    const ssize_t n = getxattr(path, "system.posix_acl_access", value, sizeof value);
    if (n < 0) return errno == ENODATA || errno == ENOTSUP || errno == EOPNOTSUPP ? 0 : -1;
    return fsetxattr(fd, "system.posix_acl_access", value, (size_t)n, 0) == 0 ? 1 : -1;
}
#else
int yc_copy_acl(int folder, const char *name, int fd) { (void)folder; (void)name; (void)fd; return 0; }
#endif

#include <sys/ioctl.h>
int yc_terminal_columns(int fd) {
    struct winsize w;
    return ioctl(fd, TIOCGWINSZ, &w) == 0 ? w.ws_col : 0;
}

#if defined(__linux__)
#include <sys/vfs.h>
int yc_is_pseudo_file(int fd) {
    struct statfs fs;
    if (fstatfs(fd, &fs) != 0) return 0;
    return fs.f_type == 0x9FA0 /* PROC_SUPER_MAGIC */ || fs.f_type == 0x62656572 /* SYSFS_MAGIC */;
}
int yc_shows_files_stored_elsewhere(unsigned long long type) {
    switch (type) {
    // Those that show a file's own size and times (to the nanosecond), so that `viewIdentity` can match it. Not
    // SMB (times in 100 ns steps), sshfs (whole seconds) or eCryptfs (another size): no match there to find.
    case 0x794C7630:   // OVERLAYFS_SUPER_MAGIC: container storage, live systems
    case 0x65735546:   // FUSE_SUPER_MAGIC: passthroughs (bindfs, mergerfs, virtiofs); bindfs passed an input as
                       // another file (the same inode number, another device) and --force replaced it
    case 0x6969:       // NFS_SUPER_MAGIC (a local export mounted back)
    case 0x01021997:   // V9FS_MAGIC: 9p (WSL's drives, QEMU's shared folders)
        return 1;
    default:
        return 0;
    }
}

int yc_on_overlay(const char *path, int fd) {
    struct statfs fs;
    if ((path ? statfs(path, &fs) : fstatfs(fd, &fs)) != 0) return 0;
    return yc_shows_files_stored_elsewhere((unsigned long long)(unsigned long)fs.f_type);
}

int yc_folder_folds_case(const char *path) {
    struct statfs fs;
    if (statfs(path, &fs) != 0) return -1;
    switch ((unsigned long)fs.f_type) {
    case 0x4d44:       // MSDOS_SUPER_MAGIC: FAT (vfat), case-preserving, looked up without case
    case 0x2011BAB0:   // EXFAT_SUPER_MAGIC
        return 1;
    case 0x65735546:   // FUSE_SUPER_MAGIC: the file system behind it decides (its flags cannot be asked)
    case 0xFE534D42:   // SMB2_MAGIC_NUMBER: the server decides (Windows and macOS shares fold case)
    case 0xFF534D42:   // CIFS_SUPER_MAGIC
    case 0x6969:       // NFS_SUPER_MAGIC
        return -1;
    default:
        break;
    }
    // ext4, f2fs and tmpfs fold case in folders made with casefold (chattr +F), which folders made inside inherit;
    // a file system with flags and without that one (XFS, Btrfs, ext4 without it) tells case apart.
    const int fd = open(path, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return -1;
    long flags = 0;
    const int rc = ioctl(fd, FS_IOC_GETFLAGS, &flags);
    close(fd);
    if (rc != 0) return -1;
#ifndef FS_CASEFOLD_FL
#define FS_CASEFOLD_FL 0x40000000
#endif
    return (flags & FS_CASEFOLD_FL) ? 1 : 0;
}
#elif defined(__APPLE__)
int yc_is_pseudo_file(int fd) { (void)fd; return 0; }
int yc_shows_files_stored_elsewhere(unsigned long long type) { (void)type; return 0; }
int yc_on_overlay(const char *path, int fd) { (void)path; (void)fd; return 0; }
int yc_folder_folds_case(const char *path) {
    // APFS and HFS+ say: case-insensitive is their default.
    const long sensitive = pathconf(path, _PC_CASE_SENSITIVE);
    return sensitive < 0 ? -1 : sensitive == 0 ? 1 : 0;
}
#else
int yc_is_pseudo_file(int fd) { (void)fd; return 0; }
int yc_shows_files_stored_elsewhere(unsigned long long type) { (void)type; return 0; }
int yc_on_overlay(const char *path, int fd) { (void)path; (void)fd; return 0; }
int yc_folder_folds_case(const char *path) { (void)path; return -1; }
#endif

double yc_birth_time(int dirfd, const char *path, int follow) {
#if defined(__linux__) && defined(STATX_BTIME)
    struct statx stx;
    if (statx(dirfd, path, follow ? 0 : AT_SYMLINK_NOFOLLOW, STATX_BTIME, &stx) != 0) return -1;
    if (!(stx.stx_mask & STATX_BTIME)) return -1;
    return (double)stx.stx_btime.tv_sec + (double)stx.stx_btime.tv_nsec * 1e-9;
#elif defined(__APPLE__)
    struct stat st;
    if (fstatat(dirfd, path, &st, follow ? 0 : AT_SYMLINK_NOFOLLOW) != 0) return -1;
    return (double)st.st_birthtimespec.tv_sec + (double)st.st_birthtimespec.tv_nsec * 1e-9;
#else
    (void)dirfd; (void)path; (void)follow;
    return -1;
#endif
}

int yc_fd_queued(int fd) {
    int n = 0;
    return ioctl(fd, FIONREAD, &n) == 0 ? n : -1;
}
