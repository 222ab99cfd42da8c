"""hscc's numbers beside the paper's: mean and 95 % confidence interval per cell,
deviation, verdict; and the paper's qualitative claims checked.

Verdict of a cell with a published number (``VERDICTS``, in this order of precedence):

- ``too few runs``: fewer than ``MIN_REPLICATES`` replicates, or a confidence
  interval wider than the mean itself (its half-width above ``|mean|``): the
  evidence supports no verdict;
- ``agrees``: hscc's mean is within ±25 % of the paper's (``TOLERANCE``);
- ``far``: off by more than a factor of 2 (``FAR``) either way, or of the other
  sign, whatever the direction of the comparisons below;
- ``same direction``: neither, but every comparison the paper's numbers make with
  this cell comes out the same way in hscc: with the same series' previous x (the
  trend) and with each other series at the same x (the ranking). Two published
  numbers within ``TIE`` of the larger are a tie, which any order in hscc matches
  (the paper does not tell them apart); a tie in hscc matches only a tie in the
  paper. A trend between two equal published numbers (a value the paper states
  once in its text, e.g. "around 60 %", for every x) is not a comparison at all;
  with no comparison left the verdict is ``differs``;
- ``differs``: otherwise.

The confidence interval is Student-t's over replicates, cut to the values the measure
can take (`measure_range`: a share or a utilisation in [0, 1], bandwidth stolen at
most 1, ...) and, for a measure with no floor of its own (a column less others), to
[0, ∞) when every replicate is non-negative; never past a replicate. Bandwidth stolen and a
change can be negative, so a cell of theirs is never cut at 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from itertools import pairwise

import polars as pl

from hscc import student_t
from hscc.reproduce.experiment import Claim, Experiment, Measure
from hscc.units import significant
from hscc.units_table import clip_interval, physical_range

TOLERANCE = 0.25
FAR = 2.0
TIE = 0.05
CONFIDENCE = 0.95
MIN_REPLICATES = 3
VERDICTS = ("agrees", "same direction", "far", "differs", "too few runs", "no result")
SCHEMA = pl.Schema(
    {
        "experiment": pl.String,
        "measure": pl.String,
        "series": pl.String,
        "x": pl.Float64,
        "paper": pl.Float64,
        "source": pl.String,
        "n": pl.UInt32,
        "mean": pl.Float64,
        "ci_low": pl.Float64,
        "ci_high": pl.Float64,
        "deviation": pl.Float64,
        "verdict": pl.String,
    }
)


@dataclass(frozen=True)
class ClaimResult:
    text: str
    holds: bool
    detail: str
    known_miss: bool = (
        False  # the experiment says hscc does not reproduce it (and why, in its notes)
    )
    runs: int | None = None  # the fewest runs behind a cell it compares
    design: bool = False  # a check of hscc's own design, not a claim of the paper: counted apart

    @property
    def few_runs(self) -> bool:
        """Judged on fewer than MIN_REPLICATES runs per cell: a direction, not evidence."""
        return self.runs is not None and self.runs < MIN_REPLICATES

    @property
    def as_expected(self) -> bool:
        return self.holds != self.known_miss


def cells(exp: Experiment, runs: pl.DataFrame) -> pl.DataFrame:
    """One row per measure, series and x: hscc's mean and CI over replicates, the paper's
    number where it gives one (null otherwise), the deviation and the verdict (SCHEMA)."""
    stats = (
        runs.filter(pl.col("value").is_not_nan())
        .group_by(["measure", "series", "x"], maintain_order=True)
        .agg(
            pl.col("value").len().cast(pl.UInt32).alias("n"),
            pl.col("value").mean().alias("mean"),
            pl.col("value").std(ddof=1).alias("std"),
            pl.col("value").min().alias("_min"),
            pl.col("value").max().alias("_max"),
        )
    )
    half = [
        (student_t.quantile(CONFIDENCE, n - 1) * s / math.sqrt(n))
        if n > 1 and s is not None
        else None
        for n, s in zip(stats["n"], stats["std"], strict=True)
    ]
    bounds = {m.name: measure_range(m) for m in exp.measures}
    # Measures whose range has no floor although they cannot go below 0 (a column less
    # others: a count of losses after slow start), as against those that can (bandwidth
    # stolen is negative where the regular flows gain).
    signed = {m.name for m in exp.measures if m.kind in ("stolen", "change")}
    low: list[float | None] = []
    high: list[float | None] = []
    for name, mean, h, lo, hi in zip(
        stats["measure"], stats["mean"], half, stats["_min"], stats["_max"], strict=True
    ):
        if h is None:
            low.append(None)
            high.append(None)
            continue
        # What the measure can take; a measure of unknown floor whose every replicate is ≥ 0
        # is taken as one that cannot be below 0, never one that can (`signed`).
        floor, ceiling = bounds.get(name, (-math.inf, math.inf))
        if lo >= 0 and floor == -math.inf and name not in signed:
            floor = 0.0
        a, b = clip_interval(mean - h, mean + h, (floor, ceiling), (lo, hi))
        low.append(a)
        high.append(b)
    stats = stats.with_columns(
        pl.Series("half", half, pl.Float64),  # uncut: "too few runs" judges the spread itself
        pl.Series("ci_low", low, pl.Float64),
        pl.Series("ci_high", high, pl.Float64),
    )
    paper = _published(exp)
    joined = stats.join(paper, on=["measure", "series", "x"], how="full", coalesce=True)
    rows = joined.with_columns(
        pl.lit(exp.name).alias("experiment"),
        ((pl.col("mean") - pl.col("paper")) / pl.col("paper").abs()).alias("deviation"),
    )
    rows = rows.with_columns(pl.Series("verdict", _verdicts(rows), pl.String))
    order = {m.name: i for i, m in enumerate(exp.measures)}
    rows = rows.with_columns(
        pl.col("measure").replace_strict(order, return_dtype=pl.Int64).alias("_m")
    )
    return rows.sort(["_m", "series", "x"]).select(list(SCHEMA)).cast(SCHEMA)


def measure_range(m: Measure) -> tuple[float, float]:
    """The values a measure can take: a share or a utilisation in [0, 1], bandwidth stolen
    (P − Q)/P at most 1, a change (Q − P)/P at least −1, a throughput or a ratio at least 0;
    a column's from its metric (`hscc.units_table`) when it is not scaled or offset."""
    if m.kind in ("share", "utilization"):
        return 0.0, 1.0
    if m.kind == "stolen":
        return -math.inf, 1.0
    if m.kind == "change":
        return -1.0, math.inf
    if m.kind in ("goodput", "ratio", "available"):
        return 0.0, math.inf
    if m.kind == "column" and m.column is not None and not m.minus and m.scale > 0:
        lo, hi = physical_range(m.column)
        return lo * m.scale, hi * m.scale
    return -math.inf, math.inf


def _published(exp: Experiment) -> pl.DataFrame:
    rows = []
    xs = exp.x.values if exp.x.values is not None else [0.0]
    for m in exp.measures:
        for series, values in m.published.items():
            name = exp.series_name(series)
            for x, v in zip(xs, values, strict=True):
                if not math.isnan(v):
                    rows.append(
                        {
                            "measure": m.name,
                            "series": name,
                            "x": float(x),
                            "paper": float(v),
                            "source": m.source or exp.source,
                        }
                    )
    return pl.DataFrame(
        rows,
        schema={
            "measure": pl.String,
            "series": pl.String,
            "x": pl.Float64,
            "paper": pl.Float64,
            "source": pl.String,
        },
    )


def _verdicts(rows: pl.DataFrame) -> list[str | None]:
    cells = {(r["measure"], r["series"], r["x"]): r for r in rows.iter_rows(named=True)}
    out: list[str | None] = []
    for r in rows.iter_rows(named=True):
        if r["paper"] is None or r["mean"] is None:
            out.append(None if r["paper"] is None else "no result")
            continue
        if _too_few(r["n"], r["half"], r["mean"]):
            out.append("too few runs")
            continue
        if abs(r["deviation"]) <= TOLERANCE:
            out.append("agrees")
            continue
        if _far(r["mean"], r["paper"]):
            out.append("far")
            continue
        key = (r["measure"], r["series"], r["x"])
        others = [
            c
            for k, c in cells.items()
            if c["measure"] == r["measure"]
            and k != key  # not the cell itself: it would always "agree" with itself
            and c["paper"] is not None
            and c["mean"] is not None
            and (c["x"] == r["x"] or c["series"] == r["series"])
        ]
        same_series = sorted(
            (c for c in others if c["series"] == r["series"] and c["x"] < r["x"]),
            key=lambda c: c["x"],
        )
        # A trend between equal published numbers (one value from the text) compares nothing.
        trend = [c for c in same_series[-1:] if c["paper"] != r["paper"]]
        compare = [c for c in others if c["x"] == r["x"]] + trend
        agree = all(
            _order(r["paper"], c["paper"]) in (0, _order(r["mean"], c["mean"])) for c in compare
        )
        out.append("same direction" if compare and agree else "differs")
    return out


def _too_few(n: int | None, half: float | None, mean: float) -> bool:
    """Too few replicates, or a confidence interval wider than the mean itself."""
    return n is None or n < MIN_REPLICATES or half is None or half > abs(mean)


def _far(mean: float, paper: float) -> bool:
    """Off by more than FAR either way, or of the other sign."""
    if paper == 0 or mean == 0 or (mean > 0) != (paper > 0):
        return mean != paper
    ratio = mean / paper
    return ratio > FAR or ratio < 1 / FAR


def _order(a: float, b: float) -> int:
    """-1, 0 or 1: a below, tied with (within TIE of the larger magnitude) or above b."""
    if abs(a - b) <= TIE * max(abs(a), abs(b)):
        return 0
    return -1 if a < b else 1


def claims(exp: Experiment, table: pl.DataFrame, quick: bool = False) -> list[ClaimResult]:
    """Each of the paper's claims, checked against hscc's means (with `quick`, those marked for --quick)."""
    out = []
    for c in exp.claims:
        if c.quick or not quick:
            cells = table.filter(pl.col("measure") == c.measure, pl.col("mean").is_not_null())
            r = _claim(c, cells, exp)
            names = [exp.series_name(c.a)] + ([exp.series_name(c.b)] if c.b is not None else [])
            compared = cells.filter(pl.col("series").is_in(names))
            fewest = compared["n"].min() if "n" in compared.columns else None
            runs = fewest if isinstance(fewest, int) else None
            done = ClaimResult(
                r.text, r.holds, r.detail, c.known_miss, runs, c.design or exp.design
            )
            if (
                done.few_runs
            ):  # a cell's verdict is "too few runs" there; a claim keeps its direction
                s = "s" if runs != 1 else ""
                done = replace(done, detail=f"{r.detail}; {runs} run{s} per cell: {FEW_RUNS}")
            out.append(done)
    return out


FEW_RUNS = "a direction, not evidence"


def _claim(c: Claim, t: pl.DataFrame, exp: Experiment) -> ClaimResult:
    def series(name: str) -> dict[float, float]:
        s = t.filter(pl.col("series") == exp.series_name(name))
        return dict(zip(s["x"], s["mean"], strict=True))

    a = series(c.a)
    xs = sorted(a) if c.at is None else [float(x) for x in c.at]
    if not xs or any(x not in a for x in xs):
        return ClaimResult(c.text, False, f"no result for {c.a} at every x asked for")
    if c.kind in ("increasing", "decreasing"):
        values = [a[x] for x in xs]
        steps = list(pairwise(values))
        holds = (
            all(q > p for p, q in steps) if c.kind == "increasing" else all(q < p for p, q in steps)
        )
        return ClaimResult(c.text, holds, f"{c.a}: " + ", ".join(significant(v) for v in values))
    if c.b is not None:
        b = series(c.b)
    else:
        assert c.than is not None  # Claim's validator: a comparison names b or than
        b = {x: c.than for x in xs}
    if any(x not in b for x in xs):
        return ClaimResult(c.text, False, f"no result for {c.b} at every x asked for")
    if c.unfairness:  # a throughput ratio's distance from fairness, whichever side wins
        a, b = ({x: max(v, 1 / v) if v > 0 else math.inf for x, v in d.items()} for d in (a, b))
    if c.kind == "less":
        holds = all(a[x] * c.factor < b[x] for x in xs)
    else:
        holds = all(a[x] > b[x] * c.factor for x in xs)
    other = c.b if c.b is not None else f"{c.than:g}"
    detail = "; ".join(
        f"x={x:g}: {c.a} {significant(a[x])} vs {other} {significant(b[x])}" for x in xs
    )
    return ClaimResult(c.text, holds, detail + (" (as max(r, 1/r))" if c.unfairness else ""))
