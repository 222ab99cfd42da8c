"""Write a directory all at once: readers see the old one or the new one, never half of one.

Files go into a hidden temporary directory beside the target, are flushed to
disk, and the directory is renamed into place. An exception (Ctrl-C included)
removes the temporary directory and leaves any previous target as it was. A
crash (power loss, SIGKILL) can leave a hidden ``.NAME.tmp-*`` or
``.NAME.old-*`` directory beside the target, never a partial target.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


@contextmanager
def atomic_dir(target: Path) -> Iterator[Path]:
    """Yield an empty directory to fill; on success it becomes `target` (replacing it)."""
    target = Path(target)
    parent = target.parent
    parent.mkdir(parents=True, exist_ok=True)
    tmp: Path | None = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=parent))
    old: Path | None = None
    try:
        os.chmod(tmp, 0o777 & ~_umask())  # mkdtemp makes it private; a run directory is not
        yield tmp
        _sync_tree(tmp)
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=parent))
            os.replace(target, old)  # old is an empty directory: rename over it is allowed
        os.rename(tmp, target)
        tmp = None
        _sync(parent)
    except BaseException:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        if old is not None and not target.exists():
            os.rename(old, target)  # put the previous run back
            old = None
        raise
    finally:
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)


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


def _umask() -> int:
    mask = os.umask(0o22)
    os.umask(mask)
    return mask


def _sync_tree(root: Path) -> None:
    for p in root.rglob("*"):
        if p.is_file():
            with open(p, "rb") as f:
                os.fsync(f.fileno())
    _sync(root)


def _sync(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
