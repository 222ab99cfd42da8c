"""The words of the scenario format and the hostile values the mutator tries.

Field names, kinds and algorithm names are read from hscc's own models and
catalog, so the fuzzer keeps up with the format without edits here.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Literal, get_args, get_origin

# Numbers at and beyond every bound the format has (0, negatives, 32/53/64-bit
# edges, huge floats, non-finite floats).
NUMBERS: tuple = (
    0, 1, -1, 2, 3, 10, 28, 64, 100, 1000, 1448, 65495, 65535, 65536, 100_000, 1_000_000,
    2**31 - 1, 2**31, 2**32, 2**53 + 1, 2**62, 2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63), 10**30,
    0.0, -0.0, 0.5, 1e-300, 5e-324, 1e-12, 1e-9, 1e-6, 0.999999, 1.0000001, 1e7, 1e9, 1e12, 1e13,
    1.0000001e13, 1e15, 1e30, -1e30, 1e308, 1.7976931348623157e308,
    math.inf, -math.inf, math.nan,
)

# Every unit the parsers know, near-misses of them and none.
UNITS: tuple = (
    "", "s", "sec", "ms", "us", "µs", "ns", "min", "h", "bps", "kbps", "Kbps", "Mbps", "mbps", "Gbps",
    "Tbps", "tbps", "bit/s", "Mbit/s", "b/s", "MBps", "B/s", "B", "byte", "bytes", "kB", "KB", "MB", "GB",
    "KiB", "MiB", "GiB", "pkt", "pkts", "packets", "p", "bdp", "BDP", "xbdp", "×bdp", "%", "x", "e", " ",
    "Ms", "TiB", "s s",
)

# Values of another type than a field expects.
ODD_VALUES: tuple = (True, False, "", " ", "\x00", "nan", "inf", "-inf", "1e400", "0x10", "١٢", [], {}, [0], [[]], {"": 0})


def _literals(tp: object) -> list[str]:
    """Every string Literal inside an annotation."""
    if get_origin(tp) is Literal:
        return [a for a in get_args(tp) if isinstance(a, str)]
    return [s for a in get_args(tp) for s in _literals(a)]


@lru_cache(maxsize=1)
def words() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(field names, enumerated string values) of the scenario format."""
    from hscc import catalog, scenario

    keys: set[str] = {"packets", "bytes", "bdp"}  # the engine form of buffers
    values: set[str] = {"bottleneck:fwd", "bottleneck:rev", "bottleneck0:fwd", "access-s0:fwd", "access-d0:rev", "A-B:fwd"}
    seen: set[type] = set()
    todo: list[type] = [scenario.Scenario]
    while todo and len(seen) < 100:  # the models form a small finite set
        model = todo.pop()
        if model in seen:
            continue
        seen.add(model)
        for name, info in model.model_fields.items():
            keys.add(name)
            values.update(_literals(info.annotation))
            todo += [m for m in _models(info.annotation) if m not in seen]
    for algo in catalog.algorithms():
        values.add(algo.name)
        values.update(algo.aliases)
        keys.update(p.name for p in algo.params)
    return tuple(sorted(keys)), tuple(sorted(values))


def _models(tp: object) -> list[type]:
    from pydantic import BaseModel

    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return [tp]
    return [m for a in get_args(tp) for m in _models(a)]


def dictionary_lines() -> list[str]:
    """libFuzzer dictionary entries: field names, values and units as TOML tokens."""
    keys, values = words()
    tokens = set(keys) | {f'"{v}"' for v in values} | {u for u in UNITS if u.strip()}
    tokens |= {"[[flows]]", "[[udp]]", "[[voip]]", "[[web]]", "[[changes]]", "[topology]", "[output]",
               "[[topology.pairs]]", "[[topology.links]]", "inf", "nan", "-inf", "true", "false", " = ", "{ ", " }"}
    return [escape(t) for t in sorted(tokens)]


def escape(token: str) -> str:
    """A libFuzzer dictionary entry: the token quoted, non-printable bytes as \\xNN."""
    body = "".join(c if c.isascii() and c.isprintable() and c not in '"\\' else "".join(f"\\x{b:02x}" for b in c.encode()) for c in token)
    return f'"{body}"'
