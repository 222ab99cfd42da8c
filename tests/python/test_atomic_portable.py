"""hscc's POSIX-only pieces import where the OS lacks them (Windows: no fcntl, no resource);
there atomic writes still work and nothing a writer left is cleaned; on POSIX all is as before."""

from __future__ import annotations

import builtins
import importlib.util
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

import hscc.atomic
import hscc.limits

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
    assert hasattr(hscc.atomic, "fcntl")  # POSIX: flock as before


def test_limits_imports_without_resource(monkeypatch: pytest.MonkeyPatch) -> None:
    limits = load_as_on_windows(hscc.limits, monkeypatch)
    assert not hasattr(limits, "resource") and limits.address_space_limit() is None
    assert limits.default_max_memory() > 0
    assert hasattr(hscc.limits, "resource")


def test_without_flock_a_directory_is_still_written_whole(
    windows_atomic: ModuleType, tmp_path: Path
) -> None:
    target = tmp_path / "runs" / "demo"
    for text in ("first", "second"):
        with windows_atomic.atomic_dir(target, lambda _: None) as d:
            (d / "summary.txt").write_text(text)
    assert (target / "summary.txt").read_text() == "second"
    assert sorted(p.name for p in target.parent.iterdir()) == ["demo"]  # nothing hidden left


def test_without_flock_what_a_writer_left_is_never_cleaned(
    windows_atomic: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A marked, unlocked hidden directory: on POSIX a dead writer's, removed (checked below);
    # without flock it may as well be a live writer's, so it stays.
    hidden, fd = hscc.atomic._new_locked(tmp_path, "demo", "tmp")
    os.close(fd)
    (hidden / "flows.parquet").write_bytes(b"half a run")
    kept = sorted(tmp_path.iterdir())
    assert windows_atomic.clean_stale(tmp_path) == [] and sorted(tmp_path.iterdir()) == kept
    monkeypatch.undo()  # back to this POSIX machine
    assert hscc.atomic.clean_stale(tmp_path) == [hidden] and not hidden.exists()
