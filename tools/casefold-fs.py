#!/usr/bin/env python3
"""A file system that does not tell upper from lower case, as macOS's default APFS, FAT and ext4's casefold
folders do, for tests on machines whose kernel has none: a FUSE passthrough (fusepy: `pip install fusepy` or
Debian's python3-fusepy; root and /dev/fuse) that stores every name lower-cased in BACKING and shows the real
inode numbers, so that `A.nv12` and `a.nv12` are one file.

    tools/casefold-fs.py BACKING MOUNTPOINT     (runs in the foreground until unmounted: umount MOUNTPOINT)
    tools/casefold-fs.py --like-exfat BACKING MOUNTPOINT
    tools/casefold-fs.py --check                (exits 0 when fusepy can be imported)

--like-exfat behaves as exFAT mounted through exfat-fuse does: no hard links (EPERM), no rename flags (as any
file system through fusepy's libfuse 2: no RENAME_NOREPLACE), whole-second times, and inode numbers of FUSE's
own, one for each name a file is looked up by (`A.nv12` and `a.nv12` are one file under two numbers); and as
fusefat (FAT through FUSE) does, a file grows only by writing: a truncate to a larger size is refused (EPERM).
"""
import errno
import os
import sys

try:
    from fuse import FUSE, FuseOSError, Operations
except ImportError:  # Debian's python3-fusepy names the module fusepy
    from fusepy import FUSE, FuseOSError, Operations


def fold(name):
    """Each character to its upper case and back, where each is one character, as exFAT's table folds names
    (sigma and final sigma are one letter; sharp s stays itself): yuvconv's own rule (caseFolded)."""
    out = []
    for c in name:
        u = c.upper()
        if len(u) == 1:
            low = u.lower()
            c = low if len(low) == 1 else u
        out.append(c)
    return "".join(out)


class CaseFolding(Operations):
    def __init__(self, root, like_exfat=False):
        self.root = root
        self.like_exfat = like_exfat

    def _p(self, path):
        return os.path.join(self.root, fold(path).lstrip("/"))

    def _call(self, f, *args):
        try:
            return f(*args)
        except OSError as e:
            raise FuseOSError(e.errno or errno.EIO)

    def getattr(self, path, fh=None):
        st = self._call(os.lstat, self._p(path))
        out = {k: getattr(st, k) for k in ("st_atime", "st_ctime", "st_mtime", "st_gid", "st_uid", "st_mode",
                                           "st_nlink", "st_size", "st_ino")}
        if self.like_exfat:
            for k in ("st_atime", "st_ctime", "st_mtime"):
                out[k] = int(out[k])
        return out

    def access(self, path, mode):
        if not os.access(self._p(path), mode):
            raise FuseOSError(errno.EACCES)

    def readdir(self, path, fh):
        return [".", ".."] + self._call(os.listdir, self._p(path))

    def readlink(self, path): return self._call(os.readlink, self._p(path))
    def mkdir(self, path, mode): return self._call(os.mkdir, self._p(path), mode)
    def rmdir(self, path): return self._call(os.rmdir, self._p(path))
    def unlink(self, path): return self._call(os.unlink, self._p(path))
    def symlink(self, name, target): return self._call(os.symlink, target, self._p(name))
    def rename(self, old, new): return self._call(os.rename, self._p(old), self._p(new))
    def link(self, target, name):
        if self.like_exfat:
            raise FuseOSError(errno.EPERM)
        return self._call(os.link, self._p(name), self._p(target))
    def chmod(self, path, mode): return self._call(os.chmod, self._p(path), mode)
    def chown(self, path, uid, gid): return self._call(os.chown, self._p(path), uid, gid)
    def utimens(self, path, times=None): return self._call(os.utime, self._p(path), times)
    def open(self, path, flags): return self._call(os.open, self._p(path), flags)
    def create(self, path, mode, fi=None):
        return self._call(os.open, self._p(path), os.O_RDWR | os.O_CREAT | os.O_EXCL, mode)

    def read(self, path, length, offset, fh): return self._call(os.pread, fh, length, offset)
    def write(self, path, buf, offset, fh): return self._call(os.pwrite, fh, buf, offset)

    def truncate(self, path, length, fh=None):
        if self.like_exfat and length > (os.fstat(fh) if fh is not None else os.lstat(self._p(path))).st_size:
            raise FuseOSError(errno.EPERM)
        if fh is not None:
            return self._call(os.ftruncate, fh, length)
        return self._call(os.truncate, self._p(path), length)

    def flush(self, path, fh): return 0
    def release(self, path, fh): return os.close(fh)
    def fsync(self, path, datasync, fh): return self._call(os.fsync, fh)

    def statfs(self, path):
        st = os.statvfs(self._p(path))
        return {k: getattr(st, k) for k in ("f_bavail", "f_bfree", "f_blocks", "f_bsize", "f_favail", "f_ffree",
                                            "f_files", "f_flag", "f_frsize", "f_namemax")}


if __name__ == "__main__":
    if sys.argv[1:] == ["--check"]:
        sys.exit(0)
    like_exfat = sys.argv[1] == "--like-exfat"
    backing, mountpoint = sys.argv[2:4] if like_exfat else sys.argv[1:3]
    # No lookups cached: the kernel would otherwise answer a name from what it saw under another case (a name
    # found absent stays absent after its other-case twin is made), which a file system that folds case never does.
    FUSE(CaseFolding(backing, like_exfat), mountpoint, foreground=True, use_ino=not like_exfat, entry_timeout=0,
         negative_timeout=0, attr_timeout=0)
