"""The testbed's two compiled pieces, built on first use into a cache
directory ($HSCC_TESTBED_BUILD, default ~/.cache/hscc/testbed), named by a
hash of their source so an edited source is rebuilt and a stale binary never
runs: the delay line (delayline.c, cc), the random-loss classifier
(loss.bpf.c) and the loss-recovery counter (recovery.bpf.c, against this
kernel's types: its object is named by a hash of the kernel's BTF as well),
both clang -target bpf."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

from hscc.kernel.toolchain import BTF
from hscc.resources import testbed_dir
from hscc.testbed.plan import TestbedError

HERE = testbed_dir()


def cache_dir() -> Path:
    env = os.environ.get("HSCC_TESTBED_BUILD")
    return (
        Path(env)
        if env
        else Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "hscc" / "testbed"
    )


def _compile(source: Path, stem: str, cmd: list[str], extra: str = "") -> Path:
    digest = hashlib.sha256(source.read_bytes() + extra.encode()).hexdigest()[:12]
    out = cache_dir() / f"{stem}-{digest}"
    if out.exists():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f"{out.name}.{os.getpid()}.tmp")
    r = subprocess.run(
        [*cmd, "-o", str(tmp), str(source)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if r.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise TestbedError(f"building {source.name} failed:\n{r.stderr.strip()}")
    os.replace(tmp, out)  # atomic: a concurrent build of the same source writes the same bytes
    return out


def delay_line() -> Path:
    """The delay line's executable."""
    return _compile(HERE / "delayline.c", "delayline", ["cc", "-O2", "-Wall", "-pthread"])


def _bpf_flags() -> list[str]:
    arch = os.uname().machine.replace("x86_64", "x86").replace("aarch64", "arm64")
    # -mcpu=v3: atomic fetch-and-add (the packet and drop counters).
    return [
        "clang",
        "-O2",
        "-g",
        "-target",
        "bpf",
        "-mcpu=v3",
        f"-D__TARGET_ARCH_{arch}",
        f"-I/usr/include/{os.uname().machine}-linux-gnu",
    ]


def _need_clang(what: str) -> None:
    if shutil.which("clang") is None:
        raise TestbedError(
            f"{what} needs clang to build its BPF program (apt-get install clang libbpf-dev)"
        )


def loss_program() -> Path:
    """The random-loss classifier's object (its seed and rate are written into its map at run time)."""
    _need_clang("topology.bottleneck.loss")
    return _compile(HERE / "loss.bpf.c", "loss", [*_bpf_flags(), "-c"])


def recovery_program() -> Path:
    """The loss-recovery counter's object, built against this kernel's types (vmlinux.h from its BTF)."""
    return kernel_object(HERE / "recovery.bpf.c", "recovery", "the per-flow recovery counter")


def kernel_object(source: Path, stem: str, what: str) -> Path:
    """`source`'s BPF object built against this kernel's types (vmlinux.h from its BTF), named by
    a hash of both; `what` names it in the error when clang, bpftool or the BTF is missing."""
    _need_clang(what)
    if shutil.which("bpftool") is None or not BTF.exists():
        raise TestbedError(f"{what} needs bpftool and the kernel's BTF ({BTF})")
    btf = hashlib.sha256(BTF.read_bytes()).hexdigest()[:12]
    headers = cache_dir() / f"vmlinux-{btf}"
    if not (headers / "vmlinux.h").exists():
        headers.mkdir(parents=True, exist_ok=True)
        tmp = headers / f"vmlinux.h.{os.getpid()}.tmp"
        r = subprocess.run(
            ["bpftool", "btf", "dump", "file", str(BTF), "format", "c"],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        if r.returncode != 0:
            raise TestbedError(f"bpftool could not dump the kernel's types: {r.stderr.strip()}")
        tmp.write_text(r.stdout)
        os.replace(tmp, headers / "vmlinux.h")
    return _compile(source, stem, [*_bpf_flags(), f"-I{headers}", "-c"], extra=btf)
