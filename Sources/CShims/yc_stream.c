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

int yc_fd_queued(int fd) {
    int n = 0;
    return ioctl(fd, FIONREAD, &n) == 0 ? n : -1;
}
