"""hscc.atomic imports where there is no fcntl (Windows); on POSIX it locks as before."""

from __future__ import annotations

import builtins
import importlib.util
import sys

import pytest

import hscc.atomic


def test_atomic_imports_without_fcntl(monkeypatch: pytest.MonkeyPatch) -> None:
    real = builtins.__import__

    def no_fcntl(name: str, *args: object, **kwargs: object) -> object:
        if name == "fcntl":
            raise ImportError("no fcntl on this platform")
        return real(name, *args, **kwargs)  # type: ignore[arg-type]

    # A separate copy of the module, loaded as on Windows: hscc.atomic itself is untouched.
    spec = importlib.util.spec_from_file_location("atomic_on_windows", hscc.atomic.__file__)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(builtins, "__import__", no_fcntl)
    spec.loader.exec_module(module)
    monkeypatch.undo()
    assert not hasattr(module, "fcntl") and callable(module.write_bytes)
    assert hasattr(hscc.atomic, "fcntl")  # POSIX: flock as before
