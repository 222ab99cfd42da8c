"""Quantities written the way people write them, turned into SI numbers.

The parsing is the engine's (crates/hscc-sim/src/scenario/quantity.rs), so a
quantity means the same in a scenario file, a sweep axis or a command-line
option. Every parser takes a number (already in the base unit) or a string such
as "700Mbps", "100ms", "64KB", "1500pkts", "0.5bdp", "1e-6" or "0.1%", and
returns seconds, bit/s, bytes or a probability. A value it cannot read raises
``UnitError``, whose message says what is allowed.

Prefixes are decimal (k = 10^3, M = 10^6, G = 10^9, T = 10^12); sizes also take
the binary KiB, MiB and GiB. Rates are in bits ("Mbps", "Mbit/s"); "MBps"
(bytes) is refused rather than guessed.
"""

from __future__ import annotations

import json
import math
from typing import Any, TypeAlias

from hscc import _core

Number: TypeAlias = int | float


class UnitError(ValueError):
    """A quantity that could not be read; the message says what is allowed."""


def _parse(kind: str, value: object) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        value = str(value)
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = json.dumps(str(value))
    try:
        return json.loads(_core.quantity(kind, text))
    except ValueError as e:
        raise UnitError(e.args[0]) from None


def seconds(value: object) -> float:
    """A time in seconds: "100ms", "1.5s", "250us", "2min", or a number of seconds."""
    return float(_parse("time", value))


def rate(value: object) -> float:
    """A rate in bit/s: "700Mbps", "10Gbit/s", "64kbps", or a number of bit/s."""
    return float(_parse("rate", value))


def size(value: object) -> int:
    """A whole number of bytes: "64KB" (64 000), "64KiB" (65 536), "1448B", or a number."""
    return int(_parse("size", value))


def probability(value: object) -> float:
    """A probability: 1e-6, "1e-6" or "0.1%"."""
    return float(_parse("probability", value))


def buffer(value: object) -> dict[str, Number]:
    """A queue limit in the engine's form: {"packets": n}, {"bytes": n} or {"bdp": x}.

    Takes "1500pkts", "64KB", "0.5bdp", a plain number of packets, or the
    engine form itself.
    """
    limit: dict[str, Number] = _parse("buffer", value)
    return limit


def significant(value: float, digits: int = 3) -> str:
    """`value` to `digits` significant digits, as a person writes it: 96.2, 0.0127, 2190 and
    123000, never 2.19e+03 (Python's `g` turns to an exponent from 10^digits on). Below
    10^-4 and from 10^15 on the exponent stays (1.2e-05)."""
    text = f"{value:.{digits}g}"
    if "e+" not in text:
        return text
    rounded = float(text)
    return text if abs(rounded) >= 1e15 else f"{rounded:.0f}"


def format_rate(bps: float) -> str:
    """700000000 → "700 Mbit/s"."""
    for factor, unit in ((1e12, "Tbit/s"), (1e9, "Gbit/s"), (1e6, "Mbit/s"), (1e3, "kbit/s")):
        if abs(bps) >= factor:
            return f"{significant(bps / factor)} {unit}"
    return f"{significant(bps)} bit/s"


def format_seconds(s: float) -> str:
    """0.0401 → "40.1 ms"; a time under a nanosecond (the mean queuing delay of a link where
    a packet rarely waits: 6e-13 s) → "< 1 ns", not "0.0006 ns"."""
    if s == 0:
        return "0 s"
    if 0 < s < 1e-9:
        return "< 1 ns"
    if abs(s) < 1e-6:
        return f"{s * 1e9:.3g} ns"
    if abs(s) < 1e-3:
        return f"{s * 1e6:.3g} µs"
    if abs(s) < 1:
        return f"{s * 1e3:.3g} ms"
    return f"{significant(s, 4)} s"
