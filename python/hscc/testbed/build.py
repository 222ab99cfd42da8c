"""The testbed's two compiled pieces, built on first use into a cache
directory ($HSCC_TESTBED_BUILD, default ~/.cache/hscc/testbed), named by a
hash of their source so an edited source is rebuilt and a stale binary never
runs: the delay line (delayline.c, cc) and the random-loss classifier
(loss.bpf.c, clang -target bpf, one object per loss rate)."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

from hscc.testbed.plan import TestbedError

HERE = Path(__file__).parent


def cache_dir() -> Path:
    env = os.environ.get("HSCC_TESTBED_BUILD")
    return Path(env) if env else Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "hscc" / "testbed"


def _compile(source: Path, stem: str, cmd: list[str], extra: str = "") -> Path:
    digest = hashlib.sha256(source.read_bytes() + extra.encode()).hexdigest()[:12]
    out = cache_dir() / f"{stem}-{digest}"
    if out.exists():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f"{out.name}.{os.getpid()}.tmp")
    r = subprocess.run([*cmd, "-o", str(tmp), str(source)], capture_output=True, text=True, timeout=120, check=False)
    if r.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise TestbedError(f"building {source.name} failed:\n{r.stderr.strip()}")
    os.replace(tmp, out)  # atomic: a concurrent build of the same source writes the same bytes
    return out


def delay_line() -> Path:
    """The delay line's executable."""
    return _compile(HERE / "delayline.c", "delayline", ["cc", "-O2", "-Wall"])


def loss_program(probability: float) -> Path:
    """The random-loss classifier's object for `probability`."""
    if shutil.which("clang") is None:
        raise TestbedError("topology.bottleneck.loss needs clang to build the tc BPF classifier (apt-get install clang libbpf-dev)")
    threshold = min(2**32 - 1, round(probability * 2**32))
    arch = os.uname().machine.replace("x86_64", "x86").replace("aarch64", "arm64")
    include = f"/usr/include/{os.uname().machine}-linux-gnu"
    return _compile(HERE / "loss.bpf.c", f"loss-{threshold}", ["clang", "-O2", "-g", "-target", "bpf", f"-D__TARGET_ARCH_{arch}",
                    f"-I{include}", f"-DTHRESHOLD={threshold}u", "-c"], extra=str(threshold))
