"""The programs of bpf/: which exist, their load-time globals, the build."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from hscc import _core, catalog, resources
from hscc.kernel import toolchain


class KernelError(Exception):
    """A kernel operation that could not be done; the message says why."""


def bpf_dir() -> Path:
    """The eBPF sources: the checkout's bpf/, an installed wheel's copy, or $HSCC_BPF_DIR."""
    try:
        return resources.bpf_dir()
    except resources.ResourceError as e:
        raise KernelError(str(e)) from None


def build_dir() -> Path:
    """Where the programs are built for this kernel: $HSCC_BPF_BUILD, else bpf/build in a
    checkout, else a per-version cache directory for an installed wheel."""
    try:
        return resources.bpf_build_dir(_core.engine_version())
    except resources.ResourceError as e:
        raise KernelError(str(e)) from None


def available() -> list[str]:
    """Algorithms that have a program in bpf/, in the engine's order."""
    files = {p.name.removesuffix(".bpf.c") for p in bpf_dir().glob("*.bpf.c")}
    return [a.name for a in catalog.algorithms() if a.name in files]


def kernel_name(algorithm: str) -> str:
    """The name the kernel knows the program by (TCP_CONGESTION)."""
    return "hscc_" + algorithm.replace("-", "_")


def resolve(name: str) -> str:
    """The canonical algorithm name of `name` (or alias) that has a program."""
    found = catalog.find(name)
    if found is None:
        raise KernelError(f'algorithm "{name}" is not known (one of: {catalog.known_names()})')
    if found.name not in available():
        raise KernelError(
            f"{found.name} has no eBPF program yet (bpf/ has: {', '.join(available())})"
        )
    return found.name


def parse_value(text: str) -> object:
    """A parameter value as written on the command line: true/false or a number."""
    low = text.strip().lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    try:
        return int(low)
    except ValueError:
        pass
    try:
        return float(low)
    except ValueError:
        return text


def globals_for(algorithm: str, assignments: list[str]) -> list[tuple[str, int]]:
    """The program's load-time globals for `name=value` parameter settings,
    checked against the parameter's declared range (the names and ranges
    `hscc algorithms` prints) and converted by hscc-cc, as a simulation's."""
    algo = catalog.find(algorithm)
    assert algo is not None
    values: dict[str, float] = {}
    for a in assignments:
        key, sep, text = a.partition("=")
        key = key.strip()
        if not sep or not key:
            raise KernelError(f"parameter {a!r} is not NAME=VALUE")
        param = algo.param(key)
        if param is None:
            known = ", ".join(p.name for p in algo.params) or "none"
            raise KernelError(f"{algorithm} has no parameter {key!r} (its parameters: {known})")
        try:
            values[key] = param.check(parse_value(text))
        except ValueError as e:
            raise KernelError(f"{algorithm}.{key} = {text!r} is not allowed: {e}") from None
    try:
        return [(n, int(v)) for n, v in _core.bpf_globals(algorithm, json.dumps(values))]
    except ValueError as e:
        raise KernelError(str(e.args[0] if e.args else e)) from None


def build(quiet: bool = True) -> Path:
    """Build every program and the loader for the running kernel (make -C
    bpf); return the build directory. Up-to-date outputs are kept."""
    reason = toolchain.missing_for_build()
    if reason:
        raise KernelError(f"cannot build the eBPF programs: {reason}")
    out = build_dir()
    r = subprocess.run(
        ["make", "-s", "-C", str(bpf_dir()), f"BUILD={out}"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if r.returncode != 0:
        raise KernelError(f"building bpf/ failed:\n{r.stdout}{r.stderr}".rstrip())
    return out
