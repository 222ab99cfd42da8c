"""Registering hscc's programs with the kernel, listing and removing them.

A registration is a struct_ops link pinned at /sys/fs/bpf/hscc/NAME (the
loader, bpf/loader/hscc-bpf-loader.c, makes it): removing the pin
unregisters the algorithm. Nothing here ever makes a program the default
congestion control of a namespace (net.ipv4.tcp_congestion_control): a
socket selects it with TCP_CONGESTION.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hscc.kernel import programs, toolchain, user
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


def _struct_ops(verb: str) -> list[dict[str, Any]]:
    """`bpftool -j struct_ops VERB` (show or dump), parsed; KernelError without bpftool or
    when it fails."""
    if shutil.which("bpftool") is None:
        raise KernelError(
            f"bpftool is not installed (apt-get install {toolchain.APT_PACKAGES}): "
            "it lists the kernel's struct_ops maps"
        )
    r = subprocess.run(
        ["bpftool", "-j", "struct_ops", verb],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    if r.returncode != 0:
        raise KernelError(f"bpftool struct_ops {verb} failed: {r.stderr.strip()}")
    out: list[dict[str, Any]] = json.loads(r.stdout or "[]")
    return out


def struct_ops_maps(prefix: str = "hscc_") -> dict[str, int]:
    """The kernel's struct_ops maps whose names start with `prefix` (hscc's by default),
    kernel name -> map id."""
    maps = _struct_ops("show")
    return {m["name"]: int(m["id"]) for m in maps if str(m.get("name", "")).startswith(prefix)}


def ops_maps() -> dict[str, int]:
    """The kernel's congestion-control struct_ops maps by the name in their ops (what
    TCP_CONGESTION selects) -> map id. A map is named after the program's variable, which
    need not be that name (Linux's bpf_cubic.c registers bpf_cubic from its variable
    `cubic`), so the ops are read (bpftool struct_ops dump)."""
    out: dict[str, int] = {}
    info: dict[str, Any] | None = None
    # A flat list: each map's {"bpf_map_info": ...}, then its {"bpf_struct_ops_TYPE": ...}.
    for item in _struct_ops("dump"):
        if "bpf_map_info" in item:
            info = item["bpf_map_info"]
            continue
        ops = item.get("bpf_struct_ops_tcp_congestion_ops")
        name = ops.get("data", {}).get("name") if isinstance(ops, dict) else None
        if info is not None and name:
            out[str(name)] = int(info["id"])
        info = None
    return out


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


def pin_of(name: str) -> tuple[Path, str]:
    """Where the registration of `name` (an algorithm, an alias or a program file) is
    pinned, and the kernel name it registers."""
    if user.is_program(name):
        kname = user.info(name).kernel_name
        return PIN_DIR / kname, kname
    algorithm = programs.resolve(name)
    return PIN_DIR / algorithm, programs.kernel_name(algorithm)


def load(name: str, assignments: list[str] | None = None) -> Registration:
    """Build if needed, set the parameters, pass the verifier, register and
    pin `name` (an algorithm or alias, or a program file NAME.bpf.c). KernelError
    says what went wrong, with the verifier's log when it refused the program."""
    out_args: list[str]
    if user.is_program(name):
        prog = user.info(name)
        values = user.globals_for(prog, list(assignments or []))
        _require_kernel()
        obj = user.build(prog)
        algorithm, kname, out_args = "", prog.kernel_name, ["--user", str(obj)]
        pin = PIN_DIR / kname
        shown = prog.path.name
    else:
        algorithm = programs.resolve(name)
        values = programs.globals_for(algorithm, list(assignments or []))
        _require_kernel()
        kname = programs.kernel_name(algorithm)
        out_args = [str(programs.build() / f"{algorithm}.bpf.o")]
        pin = PIN_DIR / algorithm
        shown = algorithm
    out = programs.build()
    ensure_bpffs()
    PIN_DIR.mkdir(exist_ok=True)
    if pin.exists():
        raise KernelError(
            f"{shown} is already loaded as {kname}; `hscc kernel unload {name}` first"
        )
    if kname in available_ccs():
        raise KernelError(
            f"{kname} is already registered, but not by hscc kernel load (no pin at {pin})"
        )
    cmd = [str(out / "hscc-bpf-loader"), *out_args, str(pin)]
    cmd += [f"{g}={v}" for g, v in values]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    if r.returncode != 0:
        pin.unlink(missing_ok=True)
        raise KernelError(f"loading {shown} failed:\n{r.stderr.strip()}")
    if kname not in available_ccs():
        _unpin(pin, kname)
        raise KernelError(f"{kname} was loaded but the kernel does not offer it; unloaded again")
    map_id = ops_maps().get(kname) if algorithm == "" else struct_ops_maps(kname).get(kname)
    return Registration(algorithm, kname, map_id, True, True)


def registrations() -> list[Registration]:
    """Every hscc program the kernel holds: pinned by `load`, or found in
    bpftool struct_ops show under an hscc_ name (e.g. left by a crash). Without
    bpftool only the pinned ones, with no map ids."""
    pins = {p.name for p in PIN_DIR.iterdir()} if PIN_DIR.is_dir() else set()
    avail = available_ccs()
    ours = set(programs.available())
    # A pin is an algorithm of bpf/ (pinned under its name) or a user's program (under
    # its kernel name).
    kernel_names = {programs.kernel_name(p) if p in ours else p for p in pins}
    # By map name (hscc's programs name theirs after the kernel name) and by the name in
    # the ops (a user's program may not).
    maps = {**struct_ops_maps(""), **ops_maps()} if shutil.which("bpftool") else {}
    known = {programs.kernel_name(a): a for a in ours}
    names = sorted(kernel_names | {k for k in maps if k.startswith("hscc_")})
    out = []
    for k in names:
        algorithm = known.get(k, "")
        pinned = (algorithm or k) in pins
        out.append(Registration(algorithm, k, maps.get(k), pinned, k in avail))
    return out


def _unpin(pin: Path, kname: str) -> None:
    pin.unlink(missing_ok=True)
    with contextlib.suppress(OSError):  # the pin directory goes with its last pin
        pin.parent.rmdir()
    deadline = time.monotonic() + UNREGISTER_WAIT_S
    while time.monotonic() < deadline:
        maps = struct_ops_maps() if kname.startswith("hscc_") else ops_maps()
        if kname not in available_ccs() and kname not in maps:
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
    if not user.is_program(name) and (PIN_DIR / name).exists() and name not in programs.available():
        pin, kname = PIN_DIR / name, name  # a user's program, by its kernel name
    else:
        pin, kname = pin_of(name)
    if not pin.exists():
        raise KernelError(f"{name} is not loaded (no pin at {pin})")
    _unpin(pin, kname)
    return kname


def unload_all() -> list[str]:
    """Unregister every program `load` pinned; return their kernel names."""
    if not PIN_DIR.is_dir():
        return []
    done = []
    ours = set(programs.available())
    for pin in sorted(PIN_DIR.iterdir()):
        kname = programs.kernel_name(pin.name) if pin.name in ours else pin.name
        _unpin(pin, kname)
        done.append(kname)
    return done
