"""Write a directory all at once: readers see the old one or the new one, never half of one.

Files go into a hidden directory beside the target, are flushed to disk, and
the directory is renamed into place. An exception (Ctrl-C included) removes
the hidden directory and leaves any previous target as it was.

Beside a target ``DIR``, hscc's hidden directories are:

- ``.DIR.hscc-new-*``: just made, not yet locked (lives for microseconds);
- ``.DIR.hscc-tmp-*``: being filled;
- ``.DIR.hscc-old-*``: holds the previous ``DIR`` (as ``.DIR.hscc-old-*/DIR``)
  while it is replaced.

Each of them holds a marker file (``.hscc-writer``, naming the directory's
token) written before the directory gets a name a cleaner looks at, and the
process that owns it holds an ``flock`` on it for as long as it exists. The
kernel drops the lock when the process dies, so a marked directory that can be
locked was left by a dead process (SIGKILL, power loss): the next write into
the same parent removes it, or, for a previous run moved aside and not
replaced, puts it back. A directory without the marker is not hscc's, whatever
its name, and is never touched; nor is a live process's, whatever its age.

A "new" directory is unmarked for the moment between its ``mkdir`` and its
marker. On Linux a claim file, ``.DIR.hscc-claim-*`` (same token), covers that
moment: it appears whole, marked and locked (an anonymous file linked into
place) before the directory is made and goes once the directory is renamed, so
a writer killed in between leaves a claim that proves the empty directory is
hscc's.

Windows has no flock: there a write is as atomic (the same renames), but what a
dead writer left is never cleaned, since it cannot be told from a live one's.
"""

from __future__ import annotations

import ctypes
import functools
import os
import re
import secrets
import shutil
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

if sys.platform != "win32":  # flock is POSIX: on Windows the module imports, without locks
    import fcntl

# Where the OS lacks them (Windows) these flags are 0: the open is then as without them.
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


class NotWritable(OSError):
    """The target's parent cannot be made or written (found before any work is done)."""


_HIDDEN = re.compile(r"^\.(?P<name>.+)\.hscc-(?P<kind>new|tmp|old|claim)-(?P<token>[A-Za-z0-9_]+)$")
_NEW_GRACE_S = 60.0  # an unlocked "new" directory older than this was left by a dead process
_MARKER = ".hscc-writer"  # inside each hidden directory: proof that hscc made it


@contextmanager
def atomic_dir(
    target: Path, check_target: Callable[[Path], None], clean: bool = True, sync: bool = True
) -> Iterator[Path]:
    """Yield an empty directory to fill; on success it becomes `target`.

    `clean`: first remove what dead writers left beside the target (`clean_stale`);
    a writer of many targets in one directory does that once instead.
    `sync`: flush the files to disk before the rename and the parent after it.
    Without, the caller must flush the files before the context ends (`sync_dirs`,
    one flush for many targets) and the parent after.

    `check_target(target)` raises if `target` may not be written (or replaced);
    it is called before anything is created and again just before the swap,
    since the target may have appeared during a long run. NotWritable if the
    target's parent cannot be made or written.
    """
    target = Path(target)
    parent = target.parent
    try:
        created = _make_parents(parent)
    except OSError as e:
        raise NotWritable(e.errno, e.strerror) from None
    try:
        if clean:
            clean_stale(parent)
        check_target(target)
        made, lock = _new_locked(parent, target.name, "tmp")
    except OSError as e:
        _remove_empty(created)
        raise NotWritable(e.errno, e.strerror) from None
    except BaseException:
        _remove_empty(created)
        raise
    tmp: Path | None = made  # None once renamed to the target
    old: Path | None = None
    old_lock: int | None = None
    try:
        yield made
        if sync:
            _sync_tree(made)
        check_target(target)
        _unmark(made, sync)
        if target.exists():
            old, old_lock = _new_locked(parent, target.name, "old")
            os.rename(target, old / target.name)
        os.rename(made, target)
        tmp = None
        if sync:
            fsync_dir(parent)
    except BaseException:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        if old is not None and not target.exists() and (old / target.name).exists():
            os.rename(old / target.name, target)  # put the previous run back
        if not target.exists():
            _remove_empty(created)
        raise
    finally:
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        for fd in (lock, old_lock):
            if fd is not None:
                os.close(fd)  # releases the lock


def clean_stale(parent: Path) -> list[Path]:
    """Remove (or, for a previous run moved aside and never replaced, restore) the
    hidden directories that dead writers left in `parent`. Returns what was removed or restored.

    On Windows nothing: without flock a live writer's directory cannot be told from a
    dead one's, and removing a live one would lose its run, so leftovers stay (hidden)."""
    done: list[Path] = []
    if sys.platform == "win32":
        return done
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return done
    for entry in entries:
        m = _HIDDEN.match(entry.name)
        if m is not None and m["kind"] == "claim" and entry.is_file(follow_symlinks=False):
            done.extend(_clean_claim(parent, m["name"], m["token"]))
            continue
        if m is None or not entry.is_dir(follow_symlinks=False):
            continue
        path = Path(entry.path)
        if m["kind"] == "new":
            try:
                age = time.time() - entry.stat(follow_symlinks=False).st_mtime
            except OSError:
                continue  # renamed meanwhile by its (live) writer
            if age <= _NEW_GRACE_S:
                continue
        try:
            fd = _lock(path)
        except OSError:
            continue  # locked by a live process, or gone
        try:
            if not _marked(path, m["token"]):
                continue  # not made by hscc: never touched
            target = parent / m["name"]
            inner = path / m["name"]
            if m["kind"] == "old" and not target.exists() and inner.is_dir():
                os.rename(inner, target)  # a previous run moved aside and never replaced
            shutil.rmtree(path)
            done.append(path)
        except OSError:
            pass
        finally:
            os.close(fd)
    return done


def sync_dirs(dirs: list[Path]) -> None:
    """Flush the files under each of `dirs` to disk: on Linux one syncfs(2) of their
    file system (one journal commit for all of them, instead of one per file), else
    an fsync of every file."""
    if not dirs:
        return
    syncfs = getattr(_libc(), "syncfs", None)
    if syncfs is not None:
        fd = os.open(dirs[0], os.O_RDONLY)
        try:
            if syncfs(fd) == 0:
                return
        finally:
            os.close(fd)
    for d in dirs:
        _sync_tree(d)


@functools.cache
def _libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None
    except OSError:
        return None


def write_bytes(path: Path, data: bytes) -> None:
    """Write a single file atomically (temporary file beside it, then rename)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.tmp-", dir=path.parent)
    try:
        os.chmod(tmp, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _new_locked(parent: Path, name: str, kind: str) -> tuple[Path, int]:
    """A fresh hidden directory of `kind` ("tmp" or "old"), marked and locked before
    it gets the name a cleaner looks at."""
    for _ in range(100):  # a token already taken is drawn anew, as mkdtemp does
        token = secrets.token_hex(6)
        try:
            claim = _claim(parent, name, token)
        except FileExistsError:
            continue
        try:
            new = parent / f".{name}.hscc-new-{token}"
            try:
                os.mkdir(new)  # 0o777 less the umask, as the user's own directories
            except FileExistsError:
                continue
            try:
                _mark(new, token)
                fd = _lock(new)
            except BaseException:
                shutil.rmtree(new, ignore_errors=True)
                raise
            hidden = parent / f".{name}.hscc-{kind}-{token}"
            try:
                os.rename(new, hidden)
            except BaseException:
                os.close(fd)
                shutil.rmtree(new, ignore_errors=True)
                raise
            return hidden, fd
        finally:
            if claim is not None:
                claim_path, claim_fd = claim
                claim_path.unlink(missing_ok=True)
                os.close(claim_fd)
    raise FileExistsError(f"no free name for a hidden directory beside {parent / name}")


def _mark(directory: Path, token: str) -> None:
    (directory / _MARKER).write_text(_marker_text(token))


def _claim(parent: Path, name: str, token: str) -> tuple[Path, int] | None:
    """The claim file for `token`, marked and locked from the instant it has a name (an
    anonymous O_TMPFILE linked into place). None where that cannot be done (not Linux,
    a file system without anonymous files, no /proc): the "new" directory is then
    unmarked for a moment, and a writer killed in it leaves an empty one behind.
    FileExistsError if the name is taken."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        fd = os.open(parent, os.O_TMPFILE | os.O_RDWR, 0o666)
    except OSError:
        return None
    path = parent / f".{name}.hscc-claim-{token}"
    try:
        os.write(fd, _marker_text(token).encode())
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        _link_anonymous(fd, path)
    except FileExistsError:
        os.close(fd)
        raise
    except OSError:
        os.close(fd)
        return None
    except BaseException:
        os.close(fd)
        path.unlink(missing_ok=True)
        raise
    return path, fd


def _link_anonymous(fd: int, path: Path) -> None:
    """Give the O_TMPFILE `fd` the name `path`. Through a directory fd, since only then does
    os.link call linkat with AT_SYMLINK_FOLLOW (plain link(2) would link /proc's symlink)."""
    dir_fd = os.open(path.parent, os.O_RDONLY | _O_DIRECTORY)
    try:
        os.link(f"/proc/self/fd/{fd}", path.name, dst_dir_fd=dir_fd)
    finally:
        os.close(dir_fd)


def _clean_claim(parent: Path, name: str, token: str) -> list[Path]:
    """Remove a dead writer's claim and the "new" directory it covers (marked, or empty:
    the writer died before marking it). Nothing while the writer lives."""
    claim = parent / f".{name}.hscc-claim-{token}"
    try:
        fd = os.open(claim, os.O_RDONLY | _O_NOFOLLOW | _O_NONBLOCK)
    except OSError:
        return []
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        if not _names_token(fd, token):
            return []  # not hscc's
        done = []
        new = parent / f".{name}.hscc-new-{token}"
        if new.is_dir() and not new.is_symlink():
            if _marked(new, token):
                shutil.rmtree(new)
            else:
                new.rmdir()  # only if empty: an unmarked directory holds nothing of hscc's
            done.append(new)
        claim.unlink()
        done.append(claim)
        return done
    except OSError:
        return []  # locked by a live writer, gone meanwhile, or not empty
    finally:
        os.close(fd)


def _marker_text(token: str) -> str:
    return f"hscc atomic directory {token}\n"


def _marked(path: Path, token: str) -> bool:
    """Whether `path` holds the marker hscc wrote into it (a regular file naming its token)."""
    try:
        fd = os.open(path / _MARKER, os.O_RDONLY | _O_NOFOLLOW | _O_NONBLOCK)
    except OSError:
        return False
    try:
        return _names_token(fd, token)
    finally:
        os.close(fd)


def _names_token(fd: int, token: str) -> bool:
    """Whether `fd` is a regular file holding the marker text of `token`."""
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        return False
    return os.pread(fd, 256, 0).decode("utf-8", "replace") == _marker_text(token)


def _unmark(directory: Path, sync: bool) -> None:
    """Remove the marker from a directory about to become the user's target."""
    (directory / _MARKER).unlink()
    if sync:
        fsync_dir(directory)


def _lock(directory: Path) -> int:
    """An fd holding an exclusive flock on `directory`; OSError at once if another process holds it.
    On Windows (no flock) an fd to close that locks nothing."""
    if sys.platform == "win32":
        return os.open(os.devnull, os.O_RDONLY)
    fd = os.open(directory, os.O_RDONLY | _O_DIRECTORY | _O_NOFOLLOW)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _make_parents(parent: Path) -> list[Path]:
    """mkdir -p `parent`; returns the directories it created, outermost first."""
    missing = []
    p = parent
    while not p.exists() and p != p.parent:
        missing.append(p)
        p = p.parent
    parent.mkdir(parents=True, exist_ok=True)
    return missing[::-1]


def _remove_empty(created: list[Path]) -> None:
    for d in reversed(created):
        try:
            d.rmdir()
        except OSError:
            return


def _umask() -> int:
    mask = os.umask(0o22)
    os.umask(mask)
    return mask


def _sync_tree(root: Path) -> None:
    mode = "r+b" if sys.platform == "win32" else "rb"  # Windows flushes only what it may write
    for p in root.rglob("*"):
        if p.is_file():
            with open(p, mode) as f:
                os.fsync(f.fileno())
    fsync_dir(root)


def fsync_dir(directory: Path) -> None:
    """Flush a directory's entries (a rename into it) to disk. Windows opens no directory
    as a file and commits renames itself: nothing to do there."""
    if sys.platform == "win32":
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
