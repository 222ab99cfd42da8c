"""Quantities written the way people write them, turned into SI numbers.

Every parser takes a number (already in the base unit) or a string such as
"700Mbps", "100ms", "64KB", "1500pkts", "0.5bdp", "1e-6" or "0.1%", and returns
seconds, bit/s, bytes or a probability. A value it cannot read raises
``UnitError``, whose message says what is allowed.

Prefixes are decimal (k = 10^3, M = 10^6, G = 10^9, T = 10^12); sizes also take
the binary KiB, MiB and GiB. Rates are in bits ("Mbps", "Mbit/s"); "MBps"
(bytes) is refused rather than guessed.
"""

from __future__ import annotations

import math
import re
from typing import Union

Number = Union[int, float]

# Matched against the stripped text, so that no part of the pattern competes for
# trailing blanks (which made the match quadratic in their number).
_QUANTITY = re.compile(r"([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*([^\d\s].*)?")
_MAX_QUANTITY_CHARS = 100

_TIME = {"": 1.0, "s": 1.0, "sec": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9, "min": 60.0, "h": 3600.0}
_RATE_PREFIX = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "m": 1e6, "G": 1e9, "g": 1e9, "T": 1e12, "t": 1e12}
_SIZE = {
    "": 1, "B": 1, "byte": 1, "bytes": 1,
    "kB": 1000, "KB": 1000, "MB": 10**6, "GB": 10**9,
    "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3,
}
_PACKETS = {"pkt", "pkts", "packet", "packets", "p"}
_BDP = {"bdp", "BDP", "xbdp", "×bdp"}

TIME_ALLOWED = "a time such as 100ms, 1.5s, 250us or a number of seconds"
RATE_ALLOWED = "a rate such as 700Mbps, 10Gbps, 1.5Mbit/s or a number of bit/s"
SIZE_ALLOWED = "a size such as 64KB, 1MiB, 1448B or a number of bytes"
PROBABILITY_ALLOWED = "a probability from 0 to 1, such as 1e-6 or 0.1%"
BUFFER_ALLOWED = "a buffer such as 1500pkts, 64KB, 0.5bdp or a number of packets"


class UnitError(ValueError):
    """A quantity that could not be read; the message says what is allowed."""


def _split(value: object, allowed: str) -> tuple[float, str]:
    """(number, unit) of a number or a quantity string."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise UnitError(allowed)
    if isinstance(value, str):
        m = _QUANTITY.fullmatch(value.strip()) if len(value) <= _MAX_QUANTITY_CHARS else None
        if not m:
            raise UnitError(allowed)
        number, unit = float(m.group(1)), (m.group(2) or "")
    else:
        try:
            number, unit = float(value), ""
        except OverflowError:  # an int beyond any float
            raise UnitError(allowed) from None
    if not math.isfinite(number):
        raise UnitError(allowed)
    return number, unit


def seconds(value: object) -> float:
    """A time in seconds: "100ms", "1.5s", "250us", "2min", or a number of seconds."""
    number, unit = _split(value, TIME_ALLOWED)
    if unit not in _TIME:
        raise UnitError(TIME_ALLOWED)
    return number * _TIME[unit]


def rate(value: object) -> float:
    """A rate in bit/s: "700Mbps", "10Gbit/s", "64kbps", or a number of bit/s."""
    number, unit = _split(value, RATE_ALLOWED)
    if unit.endswith(("Bps", "B/s", "Byte/s")):
        raise UnitError(f"{RATE_ALLOWED}; rates are in bits: write bps, not Bps")
    for suffix in ("bps", "bit/s", "b/s", ""):
        if unit.endswith(suffix):
            prefix = unit[: len(unit) - len(suffix)]
            if prefix in _RATE_PREFIX and (suffix or not prefix):
                return number * _RATE_PREFIX[prefix]
    raise UnitError(RATE_ALLOWED)


def size(value: object) -> int:
    """A whole number of bytes: "64KB" (64 000), "64KiB" (65 536), "1448B", or a number."""
    number, unit = _split(value, SIZE_ALLOWED)
    if unit not in _SIZE:
        raise UnitError(SIZE_ALLOWED)
    return _whole(number * _SIZE[unit], SIZE_ALLOWED)


def probability(value: object) -> float:
    """A probability: 1e-6, "1e-6" or "0.1%"."""
    number, unit = _split(value, PROBABILITY_ALLOWED)
    if unit == "%":
        number /= 100.0
    elif unit:
        raise UnitError(PROBABILITY_ALLOWED)
    if not 0.0 <= number <= 1.0:
        raise UnitError(PROBABILITY_ALLOWED)
    return number


def buffer(value: object) -> dict[str, Number]:
    """A queue limit in the engine's form: {"packets": n}, {"bytes": n} or {"bdp": x}.

    Takes "1500pkts", "64KB", "0.5bdp", a plain number of packets, or the
    engine form itself.
    """
    if isinstance(value, dict):
        ((kind, v),) = value.items() if len(value) == 1 else ((None, None),)
        if kind not in ("packets", "bytes", "bdp"):
            raise UnitError(BUFFER_ALLOWED)
        number, _ = _split(v, BUFFER_ALLOWED)
        unit = {"packets": "pkts", "bytes": "B", "bdp": "bdp"}[kind]
    else:
        number, unit = _split(value, BUFFER_ALLOWED)
    if unit in _PACKETS or unit == "":
        return {"packets": _whole(number, BUFFER_ALLOWED)}
    if unit in _BDP:
        return {"bdp": number}
    if unit in _SIZE:
        return {"bytes": _whole(number * _SIZE[unit], BUFFER_ALLOWED)}
    raise UnitError(BUFFER_ALLOWED)


def _whole(x: float, allowed: str) -> int:
    """x as an int when it is (within rounding of the unit factor) whole."""
    if not math.isfinite(x):  # 1e308 × 1000
        raise UnitError(allowed)
    n = round(x)
    if abs(x - n) > 1e-9 * max(1.0, abs(x)):
        raise UnitError(f"{allowed}; it must come to a whole number")
    return int(n)


def format_rate(bps: float) -> str:
    """700000000 → "700 Mbit/s"."""
    for factor, unit in ((1e12, "Tbit/s"), (1e9, "Gbit/s"), (1e6, "Mbit/s"), (1e3, "kbit/s")):
        if abs(bps) >= factor:
            return f"{bps / factor:.3g} {unit}"
    return f"{bps:.3g} bit/s"


def format_seconds(s: float) -> str:
    """0.0401 → "40.1 ms"."""
    if s == 0:
        return "0 s"
    if abs(s) < 1e-6:
        return f"{s * 1e9:.3g} ns"
    if abs(s) < 1e-3:
        return f"{s * 1e6:.3g} µs"
    if abs(s) < 1:
        return f"{s * 1e3:.3g} ms"
    return f"{s:.4g} s"
