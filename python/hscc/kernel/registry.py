"""Registering hscc's programs with the kernel, listing and removing them.

A registration is a struct_ops link pinned at /sys/fs/bpf/hscc/NAME (the
loader, bpf/loader/hscc-bpf-loader.c, makes it): removing the pin
unregisters the algorithm. Nothing here ever makes a program the default
congestion control of a namespace (net.ipv4.tcp_congestion_control): a
socket selects it with TCP_CONGESTION.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from hscc.kernel import programs, toolchain
from hscc.kernel.programs import KernelError

BPFFS = Path("/sys/fs/bpf")
PIN_DIR = BPFFS / "hscc"
AVAILABLE = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")
# How long the kernel may take to drop an unpinned registration (it frees
# struct_ops maps after an RCU grace period; a second or so here).
UNREGISTER_WAIT_S = 10.0


@dataclass(frozen=True)
class Registration:
    """One hscc program the kernel knows of."""

    algorithm: str  # hscc's name ("cubic"), or "" when not one of bpf/'s
    kernel_name: str  # "hscc_cubic"
    map_id: int | None  # the struct_ops map's id (bpftool struct_ops show)
    pinned: bool  # held by a pin under /sys/fs/bpf/hscc (hscc kernel load)
    available: bool  # selectable now (tcp_available_congestion_control)


def available_ccs() -> set[str]:
    """The congestion controls sockets can select now."""
    return set(AVAILABLE.read_text().split())


def struct_ops_maps() -> dict[str, int]:
    """hscc's struct_ops maps in the kernel, kernel name -> map id."""
    r = subprocess.run(
        ["bpftool", "-j", "struct_ops", "show"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    if r.returncode != 0:
        raise KernelError(f"bpftool struct_ops show failed: {r.stderr.strip()}")
    maps = json.loads(r.stdout or "[]")
    return {m["name"]: int(m["id"]) for m in maps if str(m.get("name", "")).startswith("hscc_")}


def ensure_bpffs() -> None:
    """Mount the BPF filesystem at /sys/fs/bpf if nothing is mounted there."""
    if os.path.ismount(BPFFS):
        return
    r = subprocess.run(
        ["mount", "-t", "bpf", "bpf", str(BPFFS)],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    if r.returncode != 0:
        raise KernelError(f"cannot mount the BPF filesystem at {BPFFS}: {r.stderr.strip()}")


def _require_kernel() -> None:
    reason = toolchain.missing_for_kernel()
    if reason:
        raise KernelError(f"cannot use the kernel's struct_ops here: {reason}")


def load(name: str, assignments: list[str] | None = None) -> Registration:
    """Build if needed, set the parameters, pass the verifier, register and
    pin `name` (an algorithm or alias). KernelError says what went wrong,
    with the verifier's log when it refused the program."""
    algorithm = programs.resolve(name)
    values = programs.globals_for(algorithm, list(assignments or []))
    _require_kernel()
    out = programs.build()
    ensure_bpffs()
    PIN_DIR.mkdir(exist_ok=True)
    pin = PIN_DIR / algorithm
    kname = programs.kernel_name(algorithm)
    if pin.exists():
        raise KernelError(
            f"{algorithm} is already loaded as {kname}; `hscc kernel unload {algorithm}` first"
        )
    if kname in available_ccs():
        raise KernelError(
            f"{kname} is already registered, but not by hscc kernel load (no pin at {pin})"
        )
    cmd = [str(out / "hscc-bpf-loader"), str(out / f"{algorithm}.bpf.o"), str(pin)]
    cmd += [f"{g}={v}" for g, v in values]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    if r.returncode != 0:
        pin.unlink(missing_ok=True)
        raise KernelError(f"loading {algorithm} failed:\n{r.stderr.strip()}")
    if kname not in available_ccs():
        _unpin(pin, kname)
        raise KernelError(f"{kname} was loaded but the kernel does not offer it; unloaded again")
    return Registration(algorithm, kname, struct_ops_maps().get(kname), True, True)


def registrations() -> list[Registration]:
    """Every hscc program the kernel holds: pinned by `load`, or found in
    bpftool struct_ops show under an hscc_ name (e.g. left by a crash)."""
    pins = {p.name for p in PIN_DIR.iterdir()} if PIN_DIR.is_dir() else set()
    maps = struct_ops_maps()
    avail = available_ccs()
    known = {programs.kernel_name(a): a for a in programs.available()}
    names = sorted({programs.kernel_name(p) for p in pins} | set(maps))
    out = []
    for k in names:
        algorithm = known.get(k, "")
        out.append(Registration(algorithm, k, maps.get(k), algorithm in pins, k in avail))
    return out


def _unpin(pin: Path, kname: str) -> None:
    pin.unlink(missing_ok=True)
    deadline = time.monotonic() + UNREGISTER_WAIT_S
    while time.monotonic() < deadline:
        if kname not in available_ccs() and kname not in struct_ops_maps():
            return
        time.sleep(0.1)
    if kname in available_ccs():
        raise KernelError(
            f"{kname} is still registered {UNREGISTER_WAIT_S:g} s after its pin was removed"
        )
    raise KernelError(
        f"{kname} is unregistered, but its struct_ops map is still in the kernel "
        f"{UNREGISTER_WAIT_S:g} s later: sockets that use it are still open"
    )


def unload(name: str) -> str:
    """Unregister `name` (an algorithm or alias) and wait until the kernel
    has dropped it; return its kernel name."""
    _require_kernel()
    algorithm = programs.resolve(name)
    pin = PIN_DIR / algorithm
    kname = programs.kernel_name(algorithm)
    if not pin.exists():
        raise KernelError(f"{algorithm} is not loaded (no pin at {pin})")
    _unpin(pin, kname)
    return kname


def unload_all() -> list[str]:
    """Unregister every program `load` pinned; return their kernel names."""
    if not PIN_DIR.is_dir():
        return []
    done = []
    for pin in sorted(PIN_DIR.iterdir()):
        kname = programs.kernel_name(pin.name)
        _unpin(pin, kname)
        done.append(kname)
    return done
