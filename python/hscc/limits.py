"""What a run may use: memory and events, estimated by the engine from the scenario before anything is allocated.

The engine refuses a run whose estimate is above a limit, naming the field
that drives it. The memory limit defaults to 80 % of this machine's physical
memory (a run that would swap is as good as hung); the event limit to the
engine's default of 10^11 (a few hours of running).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from hscc import _core, units

_MEMORY_SHARE = 0.8


@dataclass(frozen=True)
class Estimate:
    """The engine's estimate of a run: peak memory in bytes, events, and the fields that drive them."""

    memory_bytes: int
    events: int
    memory_field: tuple[str, str]
    events_field: tuple[str, str]

    def __str__(self) -> str:
        return f"about {format_bytes(self.memory_bytes)} of memory and {self.events:.2g} events"


def estimate(engine_json: str) -> Estimate:
    """The engine's estimate for a scenario in its JSON form (ValueError like the engine's build)."""
    e = json.loads(_core.estimate(engine_json))
    return Estimate(
        e["memory_bytes"], e["events"], tuple(e["memory_field"]), tuple(e["events_field"])
    )


def machine_memory() -> int | None:
    """Physical memory of this machine, bytes (None where the OS does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def default_max_memory() -> int:
    """80 % of this machine's memory (8 GiB where it is unknown)."""
    total = machine_memory()
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
