"""Where hscc's C sources are, in a checkout and in an installed wheel alike.

The eBPF programs live in the repository's bpf/; the package reaches them as
hscc/_bpf, which in a checkout is a symbolic link to ../../bpf and in a wheel a
copy (pyproject.toml's [tool.maturin] include). The testbed's C sources sit
beside its Python modules (hscc/testbed), so they are package files either way.

Built objects never go into the package: a checkout builds into bpf/build (as
`make -C bpf` does), an installed copy into a per-version cache directory, since
site-packages may not be writable and an upgrade must not find an old build.
"""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
_PACKAGED_BPF = PACKAGE / "_bpf"
_CHECKOUT_BPF = PACKAGE.parents[1] / "bpf"  # python/hscc -> the repository's bpf/
_BPF_MARKER = "hscc.h"  # a directory without it is not hscc's bpf/


class ResourceError(Exception):
    """A source file hscc needs is not where it looks; the message says where it looked."""


def bpf_dir() -> Path:
    """The eBPF sources: $HSCC_BPF_DIR, else the package's copy (a wheel) or the
    checkout's bpf/ (through hscc/_bpf, or directly where the link was not checked out)."""
    env = os.environ.get("HSCC_BPF_DIR")
    if env:
        d = Path(env)
        if not (d / _BPF_MARKER).is_file():
            raise ResourceError(
                f"HSCC_BPF_DIR={env} has no {_BPF_MARKER}: point it at hscc's bpf/ directory"
            )
        return d
    for d in (_PACKAGED_BPF, _CHECKOUT_BPF):
        if (d / _BPF_MARKER).is_file():
            return d.resolve()
    raise ResourceError(
        f"hscc's eBPF sources are missing: neither {_PACKAGED_BPF} (an installed wheel) nor "
        f"{_CHECKOUT_BPF} (a checkout) has {_BPF_MARKER}; reinstall hscc or set HSCC_BPF_DIR"
    )


def is_installed_copy(bpf: Path) -> bool:
    """Whether `bpf` is the copy an installed wheel carries (not a checkout's bpf/)."""
    return bpf.resolve() == _PACKAGED_BPF and not _PACKAGED_BPF.is_symlink()


def bpf_build_dir(version: str) -> Path:
    """Where the programs are built: $HSCC_BPF_BUILD, else bpf/build in a checkout, else
    $XDG_CACHE_HOME/hscc/bpf-VERSION (~/.cache) for an installed copy."""
    env = os.environ.get("HSCC_BPF_BUILD")
    if env:
        return Path(env)
    bpf = bpf_dir()
    if not is_installed_copy(bpf):
        return bpf / "build"
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "hscc" / f"bpf-{version}"


def testbed_dir() -> Path:
    """The testbed's sources (delayline.c, loss.bpf.c, recovery.bpf.c): package files."""
    return PACKAGE / "testbed"
