"""What every table of performance.json shares: the line of a part's conditions, the part
itself, and the page's forms of counts and ratios."""

from __future__ import annotations

import statistics

from .markdown import _span

# performance.json (scripts/bench.py writes it; its docstring describes the parts): each part
# with its conditions, which every table states first.


def _sup(n: int) -> str:
    return str(n).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))


def _sci(x: float) -> str:
    """1414212345 → 1.4142 × 10⁹, as the page writes instruction counts."""
    exp = len(str(int(x))) - 1
    return f"{x / 10**exp:.4f} × 10{_sup(exp)}"


def _millions(values: list[float]) -> str:
    return _span([v / 1e6 for v in values], ".2f") + " million"


def _measured(part: dict) -> str:
    """Where, when and under what load a part was measured: the first line of its tables."""
    c = part["conditions"]
    m, load = c["machine"], c["load_average"]
    quick = (
        " A quick trial (`--quick`: shorter runs, fewer repetitions), not the full measurement."
        if c.get("quick")
        else ""
    )
    return (
        f"Measured by `{part['run']}` on {part['date']} at {c['revision']}"
        + (" with local changes" if c.get("modified") else "")
        + " (engine "
        f"{c['engine']}), {m['cpu']}, {m['cores']} cores; load average (1 minute) "
        f"{load['start'][0]:.2f} at the start, {load['end'][0]:.2f} at the end.{quick}\n\n"
    )


def _part(doc: dict, name: str) -> dict:
    if name not in doc["parts"]:
        raise KeyError(f"performance.json has no part {name!r}: run scripts/bench.py --only {name}")
    return doc["parts"][name]


def _times(x: float) -> str:
    """A ratio as the page writes them: 2.43×, 14.9×, 147×."""
    return f"{x:.0f}×" if x >= 100 else f"{x:.1f}×" if x >= 10 else f"{x:.2f}×"


def _median(values: list[float]) -> float:
    return statistics.median(values)


def _sets(n: int) -> str:
    return "1 set" if n == 1 else f"{n} sets"
