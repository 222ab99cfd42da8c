"""How the pages write numbers: the cells of the tables, and the Markdown table itself."""

from __future__ import annotations


def _mb(bps: float | None) -> str:
    """Mbit/s as validation/ns3/validate.py prints them."""
    if bps is None:
        return "—"
    return f"{bps / 1e6:.2f}" if bps < 1e7 else f"{bps / 1e6:.1f}"


def _met(ratio: float, target: float) -> str:
    """A target's verdict: met at or under it, else bold."""
    return "met" if ratio <= target else "**not met**"


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:+.1f} %"


def _f(x, fmt: str, scale: float = 1.0) -> str:
    return "—" if x is None else format(x * scale, fmt)


def _range(x, fmt: str, scale: float = 1.0) -> str:
    """A value, or [min, max, mean] as validation/testbed/validate.py prints them."""
    if x is None:
        return "–"
    if isinstance(x, list):
        lo, hi, mean = (format(v * scale, fmt) for v in x)
        return f"{lo}–{hi} ({mean})"
    return format(x * scale, fmt)


def _span(values: list, fmt: str) -> str:
    """min–max of per-run values, or the one value."""
    values = [v for v in values if v is not None]
    if not values:
        return "–"
    lo, hi = format(min(values), fmt), format(max(values), fmt)
    return lo if lo == hi else f"{lo}–{hi}"


def _shares(s: dict | None) -> str:
    if not s:
        return "–"
    return ", ".join(f"{name} {_range(v, '.2f')}" for name, v in s.items())


def _table(head: list[str], rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def _int(n) -> str:
    """A count with its thousands apart (1 000 000), as the pages write them."""
    return "—" if n is None else f"{n:,.0f}".replace(",", " ")
