"""hscc's POSIX-only pieces import where the OS lacks them (Windows: no fcntl, no resource),
and atomic writes and their clean-up take the same path there, through portalocker.

Simulated here by loading a copy of the module with sys.platform set to "win32", which
runs each of the module's own Windows branches. What cannot be exercised off Windows:
portalocker's Windows branch (LockFileEx through pywin32: the copy locks with flock, which
portalocker picks by os.name); the os module's Windows behaviour (O_BINARY and the other
flags are this machine's; no text-mode descriptors); and Windows' refusals to remove a file
that is open or rename a directory holding one, which the tests here simulate (a removal
refused, then retried) and test_data_safety.py keeps clear of (every lock let go before its
directory is removed or renamed)."""

from __future__ import annotations

import builtins
import errno
import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import portalocker
import pytest

import hscc.atomic
import hscc.limits
from conftest import holding

POSIX_ONLY = {"fcntl", "resource"}


def load_as_on_windows(module: ModuleType, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """A separate copy of `module`, loaded as on Windows: the original is untouched.
    sys.platform stays "win32" until the test ends, as the copy's functions look at it."""
    real = builtins.__import__

    def posix_only_missing(name: str, *args: object, **kwargs: object) -> object:
        if name in POSIX_ONLY:
            raise ImportError(f"no {name} on this platform")
        return real(name, *args, **kwargs)  # type: ignore[arg-type]

    spec = importlib.util.spec_from_file_location(f"{module.__name__}_on_windows", module.__file__)
    assert spec is not None and spec.loader is not None
    copy = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, copy)  # dataclasses look their module up there
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(builtins, "__import__", posix_only_missing)
    spec.loader.exec_module(copy)
    monkeypatch.setattr(builtins, "__import__", real)
    return copy


@pytest.fixture
def windows_atomic(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    yield load_as_on_windows(hscc.atomic, monkeypatch)


def test_atomic_imports_without_fcntl(windows_atomic: ModuleType) -> None:
    assert not hasattr(windows_atomic, "fcntl") and callable(windows_atomic.write_bytes)
    assert hasattr(hscc.atomic, "fcntl")  # POSIX: a directory's own flock too


def test_limits_imports_without_resource(monkeypatch: pytest.MonkeyPatch) -> None:
    limits = load_as_on_windows(hscc.limits, monkeypatch)
    assert not hasattr(limits, "resource") and limits.address_space_limit() is None
    assert limits.default_max_memory() > 0
    assert hasattr(hscc.limits, "resource")


def test_on_windows_a_directory_is_written_whole(
    windows_atomic: ModuleType, tmp_path: Path
) -> None:
    target = tmp_path / "runs" / "demo"
    for text in ("first", "second"):
        with windows_atomic.atomic_dir(target, lambda _: None) as d:
            assert sorted(p.name for p in d.iterdir()) == [".hscc-lock", ".hscc-writer"]
            (d / "summary.txt").write_text(text)
    with windows_atomic.atomic_dir(target, lambda _: None) as d:
        (d / "summary.txt").write_text("third")
        windows_atomic.sync_dirs([d])  # no syncfs off Linux: an fsync of every file
    assert windows_atomic._libc() is None
    assert sorted(p.name for p in target.iterdir()) == ["summary.txt"]
    assert (target / "summary.txt").read_text() == "third"
    assert sorted(p.name for p in target.parent.iterdir()) == ["demo"]  # nothing hidden left


def test_on_windows_a_writer_locks_only_its_lock_file(
    windows_atomic: ModuleType, tmp_path: Path
) -> None:
    path, held = windows_atomic._new_locked(tmp_path, "demo", "tmp")
    try:
        assert held._dir_fd is None and held._lock_file is not None  # no directory is opened
        assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]  # no claim file
        with pytest.raises(BlockingIOError):
            windows_atomic._open_locked(path / ".hscc-lock", create=False)
    finally:
        held.release()
    windows_atomic._open_locked(path / ".hscc-lock", create=False).close()


HOLD = """
import sys
from pathlib import Path
import hscc.atomic as atomic
path, held = atomic._new_locked(Path(sys.argv[1]), "demo", "tmp")
(path / "flows.parquet").write_bytes(b"half a run")
print(path, flush=True)
sys.stdin.read()
"""


@pytest.mark.timeout(60)
def test_on_windows_what_a_dead_writer_left_is_cleaned_and_a_live_one_s_is_not(
    windows_atomic: ModuleType, tmp_path: Path
) -> None:
    # A live writer in another process; a dead one's directory, marked, its lock let go; the
    # previous run a dead writer moved aside.
    live = holding(HOLD, str(tmp_path))
    try:
        held_path = Path(live.stdout.readline().strip())
        dead, held = windows_atomic._new_locked(tmp_path, "demo", "tmp")
        held.release()
        (dead / "flows.parquet").write_bytes(b"half a run")
        (tmp_path / "kept").mkdir()
        (tmp_path / "kept" / "manifest.json").write_text("previous")
        old, held = windows_atomic._new_locked(tmp_path, "kept", "old")
        (tmp_path / "kept").rename(old / "kept")
        held.release()
        assert sorted(windows_atomic.clean_stale(tmp_path)) == sorted([dead, old])
        assert (tmp_path / "kept" / "manifest.json").read_text() == "previous"
        assert sorted(p.name for p in tmp_path.iterdir()) == [held_path.name, "kept"]
        assert (held_path / "flows.parquet").read_bytes() == b"half a run"
    finally:
        live.kill()
        live.communicate(timeout=30)
    assert windows_atomic.clean_stale(tmp_path) == [held_path]


def test_on_windows_an_older_version_s_directory_is_never_cleaned(
    windows_atomic: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Marked, without a lock file: older versions locked nothing on Windows, so its writer
    # may live. On POSIX the directory's flock tells (free here: removed, checked below).
    legacy = tmp_path / ".demo.hscc-tmp-abc123"
    legacy.mkdir()
    (legacy / ".hscc-writer").write_text("hscc atomic directory abc123\n")
    (legacy / "flows.parquet").write_bytes(b"half a run")
    assert windows_atomic.clean_stale(tmp_path) == [] and legacy.exists()
    monkeypatch.undo()  # back to this POSIX machine
    assert hscc.atomic.clean_stale(tmp_path) == [legacy] and not legacy.exists()


def test_on_windows_a_file_a_cleaner_has_open_is_removed_once_it_lets_go(
    windows_atomic: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What Windows does while a cleaner reads the marker or holds the lock file: the removal
    # fails (a sharing violation is a PermissionError), and is tried again.
    path, held = windows_atomic._new_locked(tmp_path, "demo", "tmp")
    real_unlink = Path.unlink
    refused: list[str] = []

    def unlink(self: Path, missing_ok: bool = False) -> None:
        if self.name in (".hscc-writer", ".hscc-lock") and refused.count(self.name) < 2:
            refused.append(self.name)
            raise PermissionError(errno.EACCES, "in use by another process", str(self))
        real_unlink(self, missing_ok)

    monkeypatch.setattr(Path, "unlink", unlink)
    windows_atomic._let_go(path, held)
    assert refused == [".hscc-writer"] * 2 + [".hscc-lock"] * 2 and not any(path.iterdir())
    # On POSIX a PermissionError is a real one: raised at once.
    monkeypatch.undo()  # back to this POSIX machine
    monkeypatch.setattr(Path, "unlink", unlink)
    path, held = hscc.atomic._new_locked(tmp_path, "other", "tmp")
    refused.clear()
    with pytest.raises(PermissionError):
        hscc.atomic._let_go(path, held)
    assert refused == [".hscc-writer"]
    held.release()


@pytest.mark.parametrize(
    "error, raised",
    [
        (portalocker.AlreadyLocked("held"), BlockingIOError),
        (portalocker.LockException("no locks on this file system"), OSError),
        (RuntimeError("LockFileEx: error 1"), OSError),  # pywin32's error is no OSError
    ],
)
def test_a_lock_that_cannot_be_taken_is_an_os_error(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    windows_atomic: ModuleType,
    error: Exception,
    raised: type[OSError],
) -> None:
    def refuse(*args: object) -> None:
        raise error

    monkeypatch.setattr(portalocker, "lock", refuse)
    with pytest.raises(raised) as caught:
        windows_atomic._open_locked(tmp_path / "lock", create=True)
    assert caught.value.__cause__ is error
    with pytest.raises(windows_atomic.NotWritable):  # a writer that cannot lock writes nothing
        with windows_atomic.atomic_dir(tmp_path / "run", lambda _: None):
            pass
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lock"]


@pytest.mark.parametrize(
    "error, raised",
    [
        (BlockingIOError(errno.EWOULDBLOCK, "Resource temporarily unavailable"), BlockingIOError),
        (OSError(errno.ENOLCK, "No locks available"), OSError),
    ],
)
def test_a_file_lock_that_cannot_be_taken_on_posix_is_an_os_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: OSError, raised: type[OSError]
) -> None:
    def refuse(*args: object) -> None:
        raise error

    monkeypatch.setattr(hscc.atomic.fcntl, "flock", refuse)
    with pytest.raises(raised, match="lock"):
        hscc.atomic._open_locked(tmp_path / "lock", create=True)
    with pytest.raises(hscc.atomic.NotWritable):  # a writer that cannot lock writes nothing
        with hscc.atomic.atomic_dir(tmp_path / "run", lambda _: None):
            pass
    monkeypatch.undo()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lock"]
