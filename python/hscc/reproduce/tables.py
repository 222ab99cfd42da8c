"""A reproduction as text: the comparison table (Markdown, and rich for the terminal) and the scorecard."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich import box
from rich.table import Table

if TYPE_CHECKING:
    from hscc.reproduce import Reproduction
    from hscc.reproduce.experiment import Experiment, Measure, Variant

from hscc.errors import show
from hscc.reproduce.compare import FEW_RUNS, VERDICTS
from hscc.reproduce.experiment import BASELINE_PAPERS, axis_members
from hscc.units import significant
from hscc.units_table import metric

# The verdicts a scorecard counts (a cell without hscc's number is not scored).
SCORED = tuple(v for v in VERDICTS if v != "no result")
COLUMNS = ("measure", "series", "x", "paper", "hscc (95 % CI)", "deviation", "verdict", "source")
# Units a measure's label may end with, in parentheses: "throughput of the 4 flows (Mbit/s)".
_LABEL_UNIT = re.compile(r"\((Mbit/s|ms|s|packets|segments|%)\)\s*$")
# A measure's unit where its label names none, by its kind.
_KIND_UNIT = {
    "goodput": "Mbit/s",
    "share": "0–1",
    "utilization": "0–1",
    "available": "0–1",
    "ratio": "ratio",
    "stolen": "relative",  # (P − Q)/P
    "change": "relative",  # (Q − P)/P
}


def columns(exp: Experiment) -> tuple[str, ...]:
    """The comparison's headers: COLUMNS with the x column named as the experiment's x axis
    ("round-trip time (ms)")."""
    x = exp.x.label if exp.x.axis is not None and exp.x.label else "x"
    return tuple(x if c == "x" else c for c in COLUMNS)


def measure_unit(m: Measure) -> str:
    """The unit a measure's numbers are in: the one its label ends with, else its kind's
    (a column's: that of the metric it reads, `hscc.units_table`); empty if none."""
    found = _LABEL_UNIT.search(m.label)
    if found:
        return found.group(1)
    if m.kind in _KIND_UNIT:
        return _KIND_UNIT[m.kind]
    column = m.column or (m.columns[0] if m.columns else None)
    if column is None or m.scale != 1.0:
        return ""
    kind = metric(column).kind
    return (
        "0–1"
        if kind in ("fraction", "index")
        else {"packets": "packets", "count": "count"}.get(kind, "")
    )


def rows(rep: Reproduction) -> list[tuple[str, ...]]:
    """The comparison, one tuple of text per cell, COLUMNS' order; a measure named with its
    unit ("throughput (Mbit/s)")."""
    units = {m.name: measure_unit(m) for m in rep.experiment.measures}
    out: list[tuple[str, ...]] = []
    for r in rep.table.iter_rows(named=True):
        unit = units.get(r["measure"], "")
        x = "" if rep.experiment.x.axis is None else f"{r['x']:g}"
        paper = "–" if r["paper"] is None else significant(r["paper"], 4)
        if r["mean"] is None:
            ours = "–"
        elif r["ci_low"] is None:
            ours = f"{significant(r['mean'], 4)} (n={r['n']})"
        else:
            ours = (
                f"{significant(r['mean'], 4)} "
                f"[{significant(r['ci_low'], 4)}, {significant(r['ci_high'], 4)}]"
            )
        dev = "" if r["deviation"] is None else f"{100 * r['deviation']:+.0f} %"
        out.append(
            (
                f"{r['measure']} ({unit})" if unit else r["measure"],
                r["series"],
                x,
                paper,
                ours,
                dev,
                r["verdict"] or "",
                r["source"] or "",
            )
        )
    return out


def markdown(rep: Reproduction) -> str:
    e = rep.experiment
    lines = [
        f"# {e.name}: {e.title}",
        "",
        f"{e.source} of {e.paper}; {'--quick' if rep.quick else 'full length'}, "
        f"{rep.sweep.points['replicate'].n_unique() if rep.sweep.points.height else 0} replicates, "
        f"{rep.sweep.points.height} runs, {rep.wall_time_s:.1f} s.",
        "",
        *(
            [
                f"Set-up variant {rep.variant.name!r} ({_fields(rep.variant, e)}): {rep.variant.text}",
                "",
            ]
            if rep.variant
            else []
        ),
        "| " + " | ".join(columns(e)) + " |",
        "|" + "---|" * len(COLUMNS),
    ]
    lines += ["| " + " | ".join(r) + " |" for r in rows(rep)]
    lines += ["", "## The paper's claims", ""]
    lines += [
        f"- {'holds' if c.holds else 'does NOT hold' + (' (known: see the notes)' if c.known_miss else '')}: "
        f"{DESIGN if c.design else ''}{c.text} ({c.detail})"
        for c in rep.claims
    ] or ["- none"]
    if e.variants and rep.variant is None:
        lines += ["", "## Set-up variants", ""] + [f"- {v}" for v in variant_lines(e)]
    if rep.experiment.notes:
        age = rep.experiment.notes_age()
        lines += ["", "## Where hscc differs, and why", ""]
        lines += [f"({age}.)", ""] if age else []
        lines += [rep.experiment.notes]
    return "\n".join(lines) + "\n"


DESIGN = "(hscc design check, not a claim of the paper) "
DESIGN_CHECKS = (
    "hscc's design checks (rules and thresholds the papers do not publish, checked on "
    "hscc's own set-ups; not counted above):"
)


def _fields(v: Variant, e: Experiment) -> str:
    """What a variant changes: "stack unset, topology.bottleneck.tick = \"1ms\", ...", and
    for an axis it replaces, the members whose values differ from the sweep's."""
    axes = e.sweep.get("axes") or {}
    replaced = [
        f"{path} = {show(values)}"
        for name, spec in v.axes.items()
        for path, values in axis_members(name, spec).items()
        if axis_members(name, axes.get(name)).get(path) != values
    ]
    return ", ".join(
        [f"{k} unset" for k in v.unset]
        + [f"{k} = {show(val)}" for k, val in v.set.items()]
        + replaced
    )


def variant_lines(e: Experiment) -> list[str]:
    """The experiment's set-up variants, each with the command that runs it."""
    return [
        f"{v.name} ({f'on {v.on}: ' if v.on else ''}{_fields(v, e)}; "
        f"hscc reproduce {e.name} --variant {v.name}): {v.text}"
        for v in e.variants
    ]


def terminal(rep: Reproduction) -> Table:
    e = rep.experiment
    t = Table(
        title=f"{e.name}: {e.title} ({e.source})"
        + (f" [variant {rep.variant.name}]" if rep.variant else ""),
        box=box.SIMPLE_HEAVY,
        title_justify="left",
        padding=0,  # the box's one space between columns: the table fits 80 columns
    )
    for c in columns(e)[:-1]:
        # A measure is named in claims: whole; the other cells wrap between words.
        t.add_column(c, no_wrap=c == "measure")
    for r in rows(rep):
        style = {
            "agrees": "green",
            "same direction": "yellow",
            "far": "red",
            "differs": "red",
            "too few runs": "dim",
        }.get(r[6])
        t.add_row(*r[:-1], style=style)
    claims = "\n".join(
        f"{'✓' if c.holds else '✗'} {c.text}"
        + (
            f" ({c.runs} run{'s' if c.runs != 1 else ''} per cell: {FEW_RUNS})"
            if c.few_runs
            else ""
        )
        for c in rep.claims
    )
    t.caption = claims or None
    t.caption_justify = "left"
    return t


def scorecard(reps: list[Reproduction]) -> list[tuple[str, ...]]:
    """Per reproduction (design-check experiments are left out): paper, name, source, cells by verdict (compare.VERDICTS but "no result"), claims held (and
    known misses), runs, and the run time of its runs (each run's own wall time, summed, so cached runs count too; on a busy machine more than their CPU time)."""
    out: list[tuple[str, ...]] = []
    for r in reps:
        if r.experiment.design:
            continue  # a check of hscc's design, not a reproduction: design_checks()
        c = r.counts()
        known = sum(1 for k in r.claims if k.known_miss and not k.holds)
        claims = f"{c['claims_held']}/{c['claims']}" + (
            f" ({known} known miss{'es' if known > 1 else ''})" if known else ""
        )
        cpu = r.sweep.points["wall_time_s"].fill_null(0).sum() if r.sweep.points.height else 0.0
        out.append(
            (
                r.experiment.paper,
                r.experiment.name,
                r.experiment.source,
                *(str(c[v]) for v in SCORED),
                claims,
                str(r.sweep.points.height),
                f"{cpu:.0f} s",
            )
        )
    return out


SCORECARD_COLUMNS = (
    "paper",
    "experiment",
    "source",
    *SCORED,
    "claims",
    "runs",
    "run time",
)


def design_checks(reps: list[Reproduction]) -> list[tuple[str, str, str, str]]:
    """hscc's design checks: experiment, check, "holds" or "does not hold", detail."""
    return [
        (r.experiment.name, c.text, "holds" if c.holds else "does not hold", c.detail)
        for r in reps
        for c in r.claims
        if c.design
    ]


def scorecard_table(reps: list[Reproduction]) -> Table:
    """The scorecard for the terminal; the experiment's name (what `--only` takes) is never
    cut. Without the paper's column (the name starts with it), so that it fits 80 columns."""
    t = Table(title="scorecard", box=box.SIMPLE_HEAVY, title_justify="left", padding=0)
    for c in SCORECARD_COLUMNS[1:]:
        t.add_column(
            c,
            no_wrap=c in ("experiment", "run time"),  # a name typed in --only; "148 s" one value
            justify="right" if c in (*SCORED, "runs", "run time") else "left",
        )
    for row in scorecard(reps):
        t.add_row(*row[1:])
    return t


def catalogue_table(exps: Sequence[Experiment]) -> Table:
    """`hscc reproduce list`: every experiment with its source, what it measures and its sweep's size."""
    t = Table(box=box.SIMPLE_HEAVY, padding=0)  # the box's space between columns: 80 fit
    t.add_column("experiment", no_wrap=True, style="bold")  # the name `hscc reproduce` takes
    for c in ("paper", "source", "title"):
        t.add_column(c, overflow="fold", ratio=2 if c == "title" else 1)
    # A measure's name is a column of comparison.parquet: the cell breaks between names,
    # never inside one (a folding column would cut the longest).
    t.add_column("measures", ratio=1)
    t.add_column("runs (full / --quick)", justify="right", overflow="fold")
    for e in exps:
        t.add_row(
            e.name, e.paper, e.source, e.title, ", ".join(m.name for m in e.measures), _runs(e)
        )
    return t


def _runs(e: Experiment) -> str:
    from hscc.sweeps.spec import parse

    def n(quick: bool) -> int:
        sw = parse(e.sweep_data(quick), source=e.file)
        return len(sw.points()) * sw.replicates

    return f"{n(False)} / {n(True)}"


BASELINES_HEADING = (
    "Published behaviour of the modern algorithms hscc carries beside the four papers' "
    "(BBR, DCTCP: their papers' results, checked against hscc's implementations):"
)


def scorecard_markdown(reps: list[Reproduction]) -> str:
    """The scorecard as a Markdown table (the four papers' reproductions, then, under a heading
    of their own, the published-behaviour checks of BASELINE_PAPERS), with every claim that
    does not hold listed under it."""
    head = ["| " + " | ".join(SCORECARD_COLUMNS) + " |", "|" + "---|" * len(SCORECARD_COLUMNS)]
    rows = scorecard(reps)
    papers = [r for r in rows if r[0] not in BASELINE_PAPERS]
    baselines = [r for r in rows if r[0] in BASELINE_PAPERS]
    lines = head + ["| " + " | ".join(row) + " |" for row in papers] if papers else []
    if baselines:
        lines += ["", BASELINES_HEADING, ""] if lines else []
        lines += head + ["| " + " | ".join(row) + " |" for row in baselines]
    if not lines:
        lines = head
    missed = [
        (r.experiment.name, c) for r in reps for c in r.claims if not c.holds and not c.design
    ]
    if missed:
        lines += [
            "",
            "Claims of the papers that do not hold in hscc (each experiment's notes say why):",
            "",
        ]
        lines += [f"- {name}: {c.text} ({c.detail})" for name, c in missed]
    design = design_checks(reps)
    if design:
        lines += ["", DESIGN_CHECKS, ""]
        lines += [
            f"- {name}: {text} ({verdict}; {detail})" for name, text, verdict, detail in design
        ]
    undated = [r.experiment.name for r in reps if r.experiment.notes_age()]
    if undated:
        lines += [
            "",
            "Notes that quote numbers this engine has not confirmed (a full run on another engine, "
            f"or none recorded): {', '.join(undated)}.",
        ]
    return "\n".join(lines) + "\n"
