"""Write a directory all at once: readers see the old one or the new one, never half of one.

Files go into a hidden directory beside the target, are flushed to disk, and
the directory is renamed into place. An exception (Ctrl-C included) removes
the hidden directory and leaves any previous target as it was.

Beside a target ``DIR``, hscc's hidden directories are:

- ``.DIR.hscc-tmp-*``: being filled;
- ``.DIR.hscc-old-*``: holds the previous ``DIR`` (as ``.DIR.hscc-old-*/DIR``)
  while it is replaced.

Each holds two files of hscc's, made in this order when the directory is:

- ``.hscc-lock``, which the process that owns the directory keeps open and
  locked (``flock`` on POSIX, ``LockFileEx`` through portalocker on Windows) for as long
  as the directory is its own;
- ``.hscc-writer``, the marker naming the directory's token, written once that
  lock is held.

A process's locks go when it dies, so a marked directory whose lock file can be
locked was left by a dead process (SIGKILL, power loss): the next write into the
same parent removes it, or, for a previous run moved aside and not replaced, puts
it back. A directory without the marker is not hscc's, whatever its name, and is
never touched; nor is one whose lock is held, whatever its age.

No moment gives a cleaner a live writer's directory. A cleaner reads the marker
before it tries the lock (unless a dead writer's claim, below, names the
directory), so it never holds the lock file of a directory its writer is still
setting up; it then takes the lock (held: a live writer's, left
alone), reads the marker again (gone: the writer finished), and lets the lock go
before it removes anything (Windows removes no open file and renames no directory
holding one). A writer that finishes removes the marker first, so that no cleaner
takes the directory for hscc's from then on, then closes and removes the lock
file, then renames the directory into place.

On POSIX the owner also holds an ``flock`` on the directory itself. Older hscc
versions locked only that (they made no lock file) and their cleaners test only
that, so neither side takes the other's live directory: a marked directory
without a lock file counts as dead only if that ``flock`` can be taken. On
Windows such a directory is left alone, since the older versions locked nothing
there. Those versions also made ``.DIR.hscc-new-*`` directories, marked before
they were locked: one is cleaned as the others once it is a minute old.

A directory is unmarked between its ``mkdir`` and its marker. On Linux a claim
file, ``.DIR.hscc-claim-*`` (same token), covers that moment: it appears whole,
marked and locked (an anonymous file linked into place) before the directory is
made and goes once the directory is marked, so a writer killed in between leaves
a claim that proves the directory (empty, or holding only its lock file and its
marker) is hscc's. A directory being removed is unmarked between its marker's removal
and its own, and a claim covers that moment too. Elsewhere a writer killed at either
moment leaves that directory behind, hidden.
"""

from __future__ import annotations

import errno
import functools
import os
import re
import shutil
import stat
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:
    import ctypes

if sys.platform != "win32":  # a directory's own flock (POSIX): see the module's docstring
    import fcntl

# Where the OS lacks them (Windows) these flags are 0: the open is then as without them.
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_O_BINARY = getattr(os, "O_BINARY", 0)  # Windows: no newline translation (0 elsewhere)


class NotWritable(OSError):
    """The target's parent cannot be made or written (found before any work is done)."""


_HIDDEN = re.compile(r"^\.(?P<name>.+)\.hscc-(?P<kind>new|tmp|old|claim)-(?P<token>[A-Za-z0-9_]+)$")
# An older version's "new" directory, marked this long ago: its writer (if alive) has locked it.
_NEW_GRACE_S = 60.0
_MARKER = ".hscc-writer"  # inside each hidden directory: proof that hscc made it
_LOCK = ".hscc-lock"  # inside each hidden directory: locked by its writer while it lives
_UNLINK_TRIES = 50  # Windows: a file a cleaner has open for a moment cannot be removed...
_UNLINK_WAIT_S = 0.02  # ...so its removal is tried again this often, up to a second in all


@contextmanager
def atomic_dir(target: Path, check_target: Callable[[Path], None]) -> Iterator[Path]:
    """Yield an empty directory to fill; on success it becomes `target`, its files
    flushed to disk before the rename and the parent after it. What dead writers left
    beside the target is removed first (`clean_stale`); a writer of many targets in one
    directory takes `staging_dir` instead.

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
        clean_stale(parent)
        check_target(target)
        made, held = _new_locked(parent, target.name, "tmp")
    except OSError as e:
        _remove_empty(created)
        raise NotWritable(e.errno, e.strerror) from None
    except BaseException:
        _remove_empty(created)
        raise
    tmp: Path | None = made  # None once renamed to the target
    old: Path | None = None
    old_held: _Held | None = None
    try:
        yield made
        _sync_tree(made)
        check_target(target)
        _let_go(made, held)  # unmarked from here: no cleaner takes it for hscc's
        if target.exists():
            old, old_held = _new_locked(parent, target.name, "old")
            os.rename(target, old / target.name)
        os.rename(made, target)
        tmp = None
        fsync_dir(parent)
    except BaseException:
        if tmp is not None:
            held.release()  # Windows: no file open in a directory being removed
            _remove_quietly(tmp)
        if old is not None and not target.exists() and (old / target.name).exists():
            os.rename(old / target.name, target)  # put the previous run back
        if not target.exists():
            _remove_empty(created)
        raise
    finally:
        held.release()
        if old is not None and old_held is not None:
            old_held.release()
            if target.exists() or not (old / target.name).exists():
                _remove_quietly(old)
            # else the previous run could not be put back: it stays, marked and unlocked,
            # for the next clean-up to put back


@contextmanager
def staging_dir(parent: Path, name: str) -> Iterator[Path]:
    """A hidden directory in `parent`, locked and marked as a writer's (as `atomic_dir`'s,
    beside `parent / name`), for a writer of many targets in `parent` at once: it fills
    a directory per target in it, flushes them all (`sync_dirs`) and renames each into
    place itself. On exit the staging directory goes, with whatever it still holds; one
    a dead writer left is removed by the next `clean_stale(parent)`."""
    made, held = _new_locked(parent, name, "tmp")
    try:
        yield made
    finally:
        held.release()  # Windows: no file open in a directory being removed
        _remove_quietly(made)


def clean_stale(parent: Path) -> list[Path]:
    """Remove (or, for a previous run moved aside and never replaced, restore) the
    hidden directories that dead writers left in `parent`, and their claims. Returns
    what was removed or restored. A live writer's directory, or one that is not hscc's,
    is left as it is."""
    done: list[Path] = []
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return done
    for entry in entries:
        m = _HIDDEN.match(entry.name)
        if m is None:
            continue
        if m["kind"] == "claim":
            if entry.is_file(follow_symlinks=False):
                done.extend(_clean_claim(parent, m["name"], m["token"]))
            continue
        if not entry.is_dir(follow_symlinks=False):
            continue
        if m["kind"] == "new":
            try:
                age = time.time() - entry.stat(follow_symlinks=False).st_mtime
            except OSError:
                continue  # renamed meanwhile by its (live) writer
            if age <= _NEW_GRACE_S:
                continue
        path = Path(entry.path)
        if _clean_dir(parent, path, m["name"], m["kind"], m["token"], claimed=False):
            done.append(path)
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
    import ctypes  # here: only a sweep's store flushes this way, not a run

    try:
        return ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None
    except OSError:
        return None


def write_bytes(path: Path, data: bytes) -> None:
    """Write a single file atomically (temporary file beside it, then rename)."""
    import tempfile  # here: a run directory is written without it

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


class _Held:
    """The locks a process holds on a hidden directory: its lock file, open and locked,
    and on POSIX an flock on the directory itself. `release` lets both go (and then
    does nothing); so does the garbage collector, closing the file: keep it referenced."""

    def __init__(self, lock_file: BinaryIO | None, dir_fd: int | None) -> None:
        self._lock_file = lock_file
        self._dir_fd = dir_fd

    def release(self) -> None:
        if self._lock_file is not None:
            self._lock_file.close()
            self._lock_file = None
        if self._dir_fd is not None:
            os.close(self._dir_fd)
            self._dir_fd = None


def _new_locked(parent: Path, name: str, kind: str) -> tuple[Path, _Held]:
    """A fresh hidden directory of `kind` ("tmp" or "old"), locked, then marked."""
    for _ in range(100):  # a token already taken is drawn anew, as mkdtemp does
        token = os.urandom(6).hex()  # secrets.token_hex's own draw, without importing it
        try:
            claim = _claim(parent, name, token)
        except FileExistsError:
            continue
        try:
            hidden = parent / f".{name}.hscc-{kind}-{token}"
            try:
                os.mkdir(hidden)  # 0o777 less the umask, as the user's own directories
            except FileExistsError:
                continue
            try:
                held = _lock_dir(hidden, create=True)
            except BaseException:
                _remove_quietly(hidden)
                raise
            try:
                _mark(hidden, token)
            except BaseException:
                held.release()
                _remove_quietly(hidden)
                raise
            return hidden, held
        finally:
            if claim is not None:
                claim_path, claim_file = claim
                claim_path.unlink(missing_ok=True)  # then let go: claims are Linux's alone
                claim_file.close()
    raise FileExistsError(f"no free name for a hidden directory beside {parent / name}")


def _mark(directory: Path, token: str) -> None:
    (directory / _MARKER).write_bytes(_marker_text(token).encode())


def _let_go(directory: Path, held: _Held) -> None:
    """Make a writer's directory plain, about to become the user's target: the marker goes
    first (no cleaner takes the directory for hscc's from then on), then the lock file."""
    _unlink(directory / _MARKER)
    held.release()
    _unlink(directory / _LOCK)
    fsync_dir(directory)


def _clean_dir(parent: Path, path: Path, name: str, kind: str, token: str, claimed: bool) -> bool:
    """Remove the hidden directory `path` if a dead writer left it, first putting back the
    previous run an "old" one holds if its target is missing. `claimed`: a dead writer's
    claim names it, so it is also removed unmarked if it holds nothing but its lock file
    and a marker (whole or half written: the writer died writing it).
    Whether it was removed or a run put back."""
    if not claimed and not _marked(path, token):
        return False  # not hscc's, or its writer is not done setting it up: its lock is not tried
    try:
        held = _lock_dir(path, create=False)
    except OSError:
        return False  # locked by a live writer (or gone)
    restored = False
    try:
        marked = _marked(path, token)  # again: a writer that finished removed it, then let go
        if not marked and not (claimed and set(os.listdir(path)) <= {_LOCK, _MARKER}):
            return False
        target, inner = parent / name, path / name
        if kind == "old" and not target.exists() and inner.is_dir() and not inner.is_symlink():
            os.rename(inner, target)  # a previous run moved aside and never replaced
            restored = True
    except OSError:
        return restored
    finally:
        held.release()  # before the removal: Windows removes no open file
    try:
        if marked:
            _remove_hidden(path)
        else:
            (path / _LOCK).unlink(missing_ok=True)
            (path / _MARKER).unlink(missing_ok=True)
            path.rmdir()  # only if empty: an unmarked directory holds nothing of hscc's
    except OSError:
        return restored
    return True


def _remove_hidden(path: Path) -> None:
    """Remove a hidden directory of hscc's, its marker last: one left half removed (a
    cleaner that died, or a lock file another cleaner had open on Windows) is still hscc's
    and is removed by the next clean-up. Between the marker's removal and the directory's
    the directory is unmarked; a claim covers that moment (on Linux), as it covers a new
    directory's before its marker, so that a remover killed there leaves nothing behind
    that no clean-up would take for hscc's."""
    m = _HIDDEN.match(path.name)
    claim = None
    if m is not None:
        try:
            claim = _claim(path.parent, m["name"], m["token"])
        except FileExistsError:
            pass  # a claim names it already: the writer's own, or a cleaner's
    try:
        for entry in os.scandir(path):
            if entry.name not in (_MARKER, _LOCK):
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path)
                else:
                    os.unlink(entry.path)
        (path / _LOCK).unlink(missing_ok=True)
        (path / _MARKER).unlink(missing_ok=True)
        path.rmdir()
        if claim is not None:
            claim[0].unlink(missing_ok=True)
    finally:
        if claim is not None:
            claim[1].close()  # a claim left behind (the removal failed) clears what remains


def _remove_quietly(path: Path) -> None:
    """Remove a writer's own hidden directory, its locks let go. What cannot be removed
    stays, still marked if it was: the next clean-up removes it."""
    try:
        _remove_hidden(path)
    except OSError:
        pass


def _claim(parent: Path, name: str, token: str) -> tuple[Path, BinaryIO] | None:
    """The claim file for `token`, marked and locked from the instant it has a name (an
    anonymous O_TMPFILE linked into place). None where that cannot be done (not Linux,
    a file system without anonymous files, no /proc): the directory is then unmarked
    for a moment, and a writer killed in it leaves it behind. FileExistsError if the
    name is taken."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        fd = os.open(parent, os.O_TMPFILE | os.O_RDWR, 0o666)
    except OSError:
        return None
    claim = os.fdopen(fd, "r+b", buffering=0)
    path = parent / f".{name}.hscc-claim-{token}"
    try:
        claim.write(_marker_text(token).encode())
        _lock_file(claim, path)
        _link_anonymous(fd, path)
    except FileExistsError:
        claim.close()
        raise
    except OSError:
        claim.close()
        return None
    except BaseException:
        claim.close()
        path.unlink(missing_ok=True)
        raise
    return path, claim


def _link_anonymous(fd: int, path: Path) -> None:
    """Give the O_TMPFILE `fd` the name `path`. Through a directory fd, since only then does
    os.link call linkat with AT_SYMLINK_FOLLOW (plain link(2) would link /proc's symlink)."""
    dir_fd = os.open(path.parent, os.O_RDONLY | _O_DIRECTORY)
    try:
        os.link(f"/proc/self/fd/{fd}", path.name, dst_dir_fd=dir_fd)
    finally:
        os.close(dir_fd)


def _clean_claim(parent: Path, name: str, token: str) -> list[Path]:
    """Remove a dead writer's claim and the directory it covers (marked, or holding nothing
    but its lock file and marker: the writer died marking it, or removing it). Nothing
    while the writer lives."""
    claim = parent / f".{name}.hscc-claim-{token}"
    try:
        f = _open_locked(claim, create=False)
    except OSError:
        return []  # locked by a live writer, or gone
    done: list[Path] = []
    try:
        if not _names_token(f.fileno(), token) or not _still_at(f.fileno(), claim):
            return []  # not hscc's, or its writer removed it meanwhile (and let it go)
        for kind in ("new", "tmp", "old"):  # "new": an older version's
            d = parent / f".{name}.hscc-{kind}-{token}"
            if d.is_dir() and not d.is_symlink():
                if not _clean_dir(parent, d, name, kind, token, claimed=True):
                    return done  # kept (not empty: not hscc's to remove), and so is the claim
                done.append(d)
    except OSError:
        return done
    finally:
        f.close()
    try:
        claim.unlink()
    except OSError:
        return done  # another clean-up removed it
    return [*done, claim]


def _still_at(fd: int, path: Path) -> bool:
    """Whether the open file `fd` is the one named `path` (and not one removed meanwhile)."""
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    here = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (here.st_dev, here.st_ino)


def _marker_text(token: str) -> str:
    return f"hscc atomic directory {token}\n"


def _marked(path: Path, token: str) -> bool:
    """Whether `path` holds the marker hscc wrote into it (a regular file naming its token)."""
    try:
        fd = os.open(path / _MARKER, os.O_RDONLY | _O_BINARY | _O_NOFOLLOW | _O_NONBLOCK)
    except OSError:
        return False
    try:
        return _names_token(fd, token)
    finally:
        os.close(fd)


def _names_token(fd: int, token: str) -> bool:
    """Whether `fd`, just opened, is a regular file holding the marker text of `token`."""
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        return False
    return os.read(fd, 256).decode("utf-8", "replace") == _marker_text(token)


def _lock_dir(directory: Path, create: bool) -> _Held:
    """The locks of a hidden directory: its lock file (made first if `create`), and on POSIX
    an flock on the directory itself. OSError at once if another process holds either.
    Without `create`, a directory without a lock file (an older version's) is locked by
    its flock alone on POSIX, and on Windows, where nothing tells whether its writer
    lives, raises FileNotFoundError."""
    lock_file: BinaryIO | None = None
    try:
        lock_file = _open_locked(directory / _LOCK, create)
    except FileNotFoundError:
        if create or sys.platform == "win32":
            raise
    try:
        dir_fd = None if sys.platform == "win32" else _flock_dir(directory)
    except BaseException:
        if lock_file is not None:
            lock_file.close()
        raise
    return _Held(lock_file, dir_fd)


def _open_locked(path: Path, create: bool) -> BinaryIO:
    """The regular file `path` (made, if `create`: it must not exist) open and exclusively
    locked; OSError at once if another process holds its lock."""
    if create:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | _O_BINARY | _O_NOFOLLOW, 0o666)
    else:
        fd = os.open(path, os.O_RDONLY | _O_BINARY | _O_NOFOLLOW | _O_NONBLOCK)
    f = os.fdopen(fd, "r+b" if create else "rb", buffering=0)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        _lock_file(f, path)
    except BaseException:
        f.close()
        raise
    return f


def _lock_file(f: BinaryIO, path: Path) -> None:
    """Lock the open file `f` (named `path`) exclusively: flock on POSIX, LockFileEx
    through portalocker on Windows; BlockingIOError at once if another process holds it."""
    if sys.platform == "win32":
        _lock_file_portably(f, path)
        return
    try:  # what portalocker does on POSIX, without importing it (and logging) in every run
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise BlockingIOError(errno.EAGAIN, "locked by another process", str(path)) from None


def _lock_file_portably(f: BinaryIO, path: Path) -> None:
    """`_lock_file` through portalocker (LockFileEx on Windows, flock elsewhere)."""
    import portalocker

    try:
        portalocker.lock(f, portalocker.LockFlags.EXCLUSIVE | portalocker.LockFlags.NON_BLOCKING)
    except portalocker.AlreadyLocked as e:
        raise BlockingIOError(errno.EAGAIN, "locked by another process", str(path)) from e
    except portalocker.LockException as e:
        raise OSError(errno.ENOLCK, f"cannot be locked ({e})", str(path)) from e
    except OSError:
        raise
    except Exception as e:
        # portalocker lets LockFileEx's other failures through as pywin32's error, which is
        # no OSError: the lock is not taken all the same.
        raise OSError(errno.ENOLCK, f"cannot be locked ({e!r})", str(path)) from e


def _flock_dir(directory: Path) -> int:
    """An fd holding an exclusive flock on `directory` (POSIX); OSError at once if another
    process holds it."""
    fd = os.open(directory, os.O_RDONLY | _O_DIRECTORY | _O_NOFOLLOW)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _unlink(path: Path) -> None:
    """Remove the file `path`. Windows removes no file another process has open, and a
    cleaner opens a writer's marker or lock file for a moment: there it is tried again
    for up to a second."""
    for attempt in range(_UNLINK_TRIES):
        try:
            path.unlink()
            return
        except PermissionError:
            if sys.platform == "win32" and attempt < _UNLINK_TRIES - 1:
                time.sleep(_UNLINK_WAIT_S)
                continue
            raise


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
