// Files and folders as the outputs need them (yc_stream.h declares them beside the streams that read inputs):
// folders opened by descriptor, unnamed files made and named in them, names swapped, ACLs copied, and what the
// file system a file lives on says of itself (overlay, case folding, birth times, pseudo files).
#define _GNU_SOURCE
#include "yc_stream.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#if defined(__linux__)
#include <linux/fs.h>
#include <sys/ioctl.h>
#endif

int yc_reserve(int fd, long long size) {
#if defined(__linux__)
    // fallocate itself, not posix_fallocate: where the file system cannot, glibc's fallback writes a byte into every
    // block (4,500 writes for an 18 MB output), and on a FAT mount through FUSE grew the file to where its own
    // ftruncate then refused to set the size.
    if (fallocate(fd, 0, 0, (off_t)size) == 0) return 0;
    return errno == EOPNOTSUPP || errno == ENOSYS || errno == EINVAL ? -1 : errno;
#else
    (void)fd, (void)size;
    return -1;
#endif
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

// Entry `from` of `folder` renamed `to` with a flag: swapped with it (`exchange`), or only where nothing is there.
static int rename_flagged(int folder, const char *from, const char *to, int exchange) {
#if defined(__linux__) && defined(SYS_renameat2)
    return (int)syscall(SYS_renameat2, folder, from, folder, to, exchange ? 2 /* RENAME_EXCHANGE */ : 1 /* RENAME_NOREPLACE */);
#elif defined(__APPLE__) && defined(RENAME_SWAP) && defined(RENAME_EXCL)
    return renameatx_np(folder, from, folder, to, exchange ? RENAME_SWAP : RENAME_EXCL);
#else
    (void)folder, (void)from, (void)to, (void)exchange;
    errno = ENOSYS;
    return -1;
#endif
}

int yc_rename_exchange(int folder, const char *a, const char *b) { return rename_flagged(folder, a, b, 1); }

int yc_rename_noreplace(int folder, const char *from, const char *to) { return rename_flagged(folder, from, to, 0); }

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

int yc_file_system_view(const char *path, int fd) {
    struct statfs fs;
    if ((path ? statfs(path, &fs) : fstatfs(fd, &fs)) != 0) return 0;
    const unsigned long type = (unsigned long)fs.f_type;
    return (yc_shows_files_stored_elsewhere(type) ? YC_VIEW_ELSEWHERE : 0) | (type == 0x65735546 /* FUSE_SUPER_MAGIC */ ? YC_VIEW_FUSE : 0);
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
#include <sys/mount.h>
int yc_file_system_view(const char *path, int fd) {
    // macFUSE (formerly OSXFUSE) mounts name their type so: "macfuse", "osxfuse", "fusefs…".
    struct statfs fs;
    if ((path ? statfs(path, &fs) : fstatfs(fd, &fs)) != 0) return 0;
    return strncmp(fs.f_fstypename, "macfuse", 7) == 0 || strncmp(fs.f_fstypename, "osxfuse", 7) == 0
        || strncmp(fs.f_fstypename, "fuse", 4) == 0 ? YC_VIEW_FUSE : 0;
}
int yc_folder_folds_case(const char *path) {
    // APFS and HFS+ say: case-insensitive is their default.
    const long sensitive = pathconf(path, _PC_CASE_SENSITIVE);
    return sensitive < 0 ? -1 : sensitive == 0 ? 1 : 0;
}
#else
int yc_is_pseudo_file(int fd) { (void)fd; return 0; }
int yc_shows_files_stored_elsewhere(unsigned long long type) { (void)type; return 0; }
int yc_file_system_view(const char *path, int fd) { (void)path; (void)fd; return 0; }
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
