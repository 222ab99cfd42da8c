"""What a run may use: memory and events, estimated by the engine from the scenario before anything is allocated.

The engine refuses a run whose estimate is above a limit, naming the field
that drives it. The memory limit defaults to 80 % of the memory this process
may use: the smallest of the machine's physical memory, the address-space limit
(RLIMIT_AS, `ulimit -v`) and the control group's limit (cgroup v2 memory.max,
v1 memory.limit_in_bytes), since a run that would swap or be killed is as good
as hung. The event limit defaults to the engine's 10^11 (a few hours of running).
"""

from __future__ import annotations

import functools
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from hscc import _core, units

if sys.platform != "win32":  # POSIX only: on Windows there is no RLIMIT_AS to read
    import resource

_MEMORY_SHARE = 0.8
_CGROUP_ROOT = Path("/sys/fs/cgroup")
_PROC_CGROUP = Path("/proc/self/cgroup")


@dataclass(frozen=True)
class Estimate:
    """The engine's estimate of a run: peak memory in bytes, events, and the fields that drive them."""

    memory_bytes: int
    events: int
    memory_field: tuple[str, str]
    events_field: tuple[str, str]

    def __str__(self) -> str:
        return f"about {format_bytes(self.memory_bytes)} of memory and {self.events:.2g} events"


def estimate(resolved: _core.Resolved) -> Estimate:
    """The engine's estimate of a resolved scenario (`Scenario.resolved`)."""
    e = json.loads(resolved.estimate())
    return Estimate(
        e["memory_bytes"], e["events"], tuple(e["memory_field"]), tuple(e["events_field"])
    )


def machine_memory() -> int | None:
    """Physical memory of this machine, bytes (None where the OS does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def address_space_limit() -> int | None:
    """The soft RLIMIT_AS of this process (`ulimit -v`), bytes; None when unlimited or on Windows."""
    if sys.platform == "win32":
        return None
    try:
        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    except (ValueError, OSError):
        return None
    return None if soft == resource.RLIM_INFINITY or soft < 0 else soft


def cgroup_memory_limit() -> int | None:
    """The memory limit of this process's control group, bytes (v2 memory.max, else v1
    memory.limit_in_bytes; the smallest up the hierarchy); None when there is none. Read
    once per process: a loop of short runs would read the files for every run, at a fifth
    of a millisecond each time."""
    return _cgroup_limit(_PROC_CGROUP, _CGROUP_ROOT)


@functools.cache
def _cgroup_limit(proc_cgroup: Path, cgroup_root: Path) -> int | None:
    try:
        lines = proc_cgroup.read_text().splitlines()
    except OSError:
        return None
    found: list[int] = []
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, where = parts
        if controllers == "":  # v2: one unified hierarchy
            found += _limits_up(cgroup_root, where, "memory.max")
        elif "memory" in controllers.split(","):  # v1: the memory controller's own hierarchy
            found += _limits_up(cgroup_root / "memory", where, "memory.limit_in_bytes")
    return min(found) if found else None


def _limits_up(root: Path, where: str, name: str) -> list[int]:
    """The limits in file `name` of the group at `where` under `root` and of its parents."""
    out = []
    group = Path(where.strip() or "/")
    for g in [group, *group.parents]:
        try:
            text = (root / str(g).lstrip("/") / name).read_text().strip()
        except OSError:
            continue
        if text.isdigit() and int(text) < 1 << 62:  # "max" or v1's 2^63 - page: no limit
            out.append(int(text))
    return out


def available_memory() -> int | None:
    """The memory this process may use: the smallest of physical memory, RLIMIT_AS and the
    cgroup limit (None where none is known)."""
    known = [m for m in (machine_memory(), address_space_limit(), cgroup_memory_limit()) if m]
    return min(known) if known else None


def default_max_memory() -> int:
    """80 % of the memory this process may use (available_memory; 8 GiB where it is unknown)."""
    total = available_memory()
    return int(total * _MEMORY_SHARE) if total else 8 << 30


def parse_memory(value: str) -> int:
    """--max-memory: "16GB", "512MiB" or bytes; UnitError saying what is allowed."""
    n = units.size(value)
    if n < 1 << 20:
        raise units.UnitError("at least 1MiB, e.g. 16GB or 512MiB")
    return n


def parse_events(value: str) -> int:
    """--max-events: "1e13" or a whole number; UnitError saying what is allowed."""
    try:
        n = float(value)
    except ValueError:
        n = float("nan")
    if not 1 <= n <= 2**63 or n != int(n):
        raise units.UnitError("a whole number of events from 1 to 2^63, e.g. 1e13")
    return int(n)


def format_bytes(n: float) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n:.0f} B"
