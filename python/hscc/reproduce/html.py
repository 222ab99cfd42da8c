"""report.html: one self-contained page (figures embedded as data: URIs, no script, no
network) with a scorecard per paper, then every experiment's set-up, assumptions,
claims, comparison table, figure and notes."""

from __future__ import annotations

import base64
from datetime import UTC, datetime
from html import escape
from typing import TYPE_CHECKING

from hscc import provenance
from hscc.reproduce.experiment import PAPERS
from hscc.reproduce.tables import (
    DESIGN,
    DESIGN_CHECKS,
    SCORECARD_COLUMNS,
    columns,
    design_checks,
    rows,
    scorecard,
    variant_lines,
)

if TYPE_CHECKING:
    from hscc.reproduce import Reproduction

STYLE = """
body { font-family: system-ui, sans-serif; max-width: 72rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; font-size: 0.9rem; }
th, td { border: 1px solid #ccc; padding: 0.2rem 0.5rem; text-align: left; }
th { background: #f3f3f3; }
tr.agrees td.verdict { background: #d9f2d9; } tr.same-direction td.verdict { background: #fff3c4; }
tr.differs td.verdict, tr.far td.verdict { background: #f8d0d0; }
tr.too-few-runs td.verdict { background: #eeeeee; }
.holds { color: #1a7f1a; } .fails { color: #b00020; font-weight: bold; }
section.experiment { border-top: 2px solid #ddd; margin-top: 2rem; }
img { max-width: 100%; } .meta { color: #666; font-size: 0.85rem; }
"""


def report(reps: list[Reproduction]) -> str:
    quick = any(r.quick for r in reps)
    env = provenance.environment()
    parts = [
        f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>hscc reproductions</title>"
        f"<style>{STYLE}</style></head><body>",
        "<h1>hscc: the papers' experiments, rerun</h1>",
        f"<p class='meta'>{'--quick (short runs, few replicates: directions only)' if quick else 'full length'}; "
        f"made {datetime.now(UTC):%Y-%m-%d %H:%M} UTC by hscc {escape(str(env.get('hscc_version', '')))} "
        f"(engine {escape(str(env.get('engine_version', '')))}, digest {escape(str(env.get('engine_digest', '')))}, "
        f"{escape(provenance.describe_revision(env.get('git')))}). "
        "Verdicts: <b>too few runs</b> with fewer than 3 replicates or a confidence interval wider than the "
        "mean; <b>agrees</b> within ±25 % of the paper; <b>far</b> off by more than 2× either way; "
        "<b>same direction</b>: neither, but every comparison the paper's numbers make with the cell "
        "(trend along x, ranking at the same x) comes out the same; <b>differs</b> otherwise. Means over "
        "replicates with Student-t 95 % confidence intervals, cut to the values a measure can take "
        "(a share or a utilisation in [0, 1], a throughput at least 0), never past a replicate.</p>",
    ]
    parts += scorecards(reps)
    for r in reps:
        parts.append(_experiment(r))
    parts.append("</body></html>")
    return "\n".join(parts)


def scorecards(reps: list[Reproduction]) -> list[str]:
    """Per paper: its citation, its scorecard (none when every experiment of it here is a
    design check) and its design checks."""
    parts = []
    for paper, citation in PAPERS.items():
        mine = [r for r in reps if r.experiment.paper == paper]
        if not mine:
            continue
        parts.append(f"<h2 id='{paper}'>{escape(citation)}</h2>")
        rows = scorecard(mine)
        if rows:
            parts.append(_table(SCORECARD_COLUMNS, rows, scorecard=True))
        design = design_checks(mine)
        if design:
            items = "".join(
                f"<li class='{'holds' if v == 'holds' else 'fails'}'><a href='#{escape(n)}'>{escape(n)}</a>: "
                f"{escape(t)} ({escape(v)}; <span class='meta'>{escape(d)}</span>)</li>"
                for n, t, v, d in design
            )
            parts.append(f"<p>{escape(DESIGN_CHECKS)}</p><ul>{items}</ul>")
    return parts


def _table(columns: tuple[str, ...], body: list[tuple[str, ...]], scorecard: bool = False) -> str:
    head = "".join(f"<th>{escape(c)}</th>" for c in columns)
    lines = [f"<table><tr>{head}</tr>"]
    for row in body:
        cells = []
        for i, v in enumerate(row):
            text = escape(v)
            if scorecard and i == 1:
                text = f"<a href='#{escape(v)}'>{text}</a>"
            cls = " class='verdict'" if not scorecard and columns[i] == "verdict" else ""
            cells.append(f"<td{cls}>{text}</td>")
        verdict = "" if scorecard else f" class='{row[6].replace(' ', '-')}'"
        lines.append(f"<tr{verdict}>{''.join(cells)}</tr>")
    lines.append("</table>")
    return "".join(lines)


def _experiment(r: Reproduction) -> str:
    e = r.experiment
    png = base64.b64encode(r.figure).decode()
    claims = "".join(
        f"<li class='{'holds' if c.holds else 'fails'}'>{'✓ holds' if c.holds else '✗ does not hold' + (' (known: see the notes)' if c.known_miss else '')}: "
        f"{escape(DESIGN if c.design else '')}{escape(c.text)} <span class='meta'>({escape(c.detail)})</span></li>"
        for c in r.claims
    )
    assumptions = "".join(f"<li>{escape(a)}</li>" for a in e.assumptions)
    variants = "".join(f"<li>{escape(v)}</li>" for v in variant_lines(e))
    if variants:
        variants = f"<h4>Set-up variants (the notes give their numbers)</h4><ul>{variants}</ul>"
    age = e.notes_age()
    stale = f"<p class='fails'>{escape(age[0].upper() + age[1:])}.</p>" if age else ""
    notes = (
        f"<h4>Where hscc differs, and why</h4>{stale}<p>{escape(e.notes)}</p>" if e.notes else ""
    )
    failed = (
        f"<p class='fails'>{r.failed_runs} runs failed (see the sweep's points.parquet).</p>"
        if r.failed_runs
        else ""
    )
    identical = r.sweep.identical_warning()
    if identical is not None:
        failed += f"<p class='fails'>{escape(identical[0].upper() + identical[1:])}.</p>"
    return (
        f"<section class='experiment' id='{escape(e.name)}'><h3>{escape(e.name)}: {escape(e.title)}</h3>"
        f"<p class='meta'>{escape(e.source)} · {r.sweep.points.height} runs · {r.wall_time_s:.1f} s</p>"
        f"<h4>Set-up (as the paper states it)</h4><p>{escape(e.setup)}</p>"
        f"<h4>Assumptions hscc made</h4><ul>{assumptions}</ul>{variants}"
        f"<h4>The paper's claims</h4><ul>{claims or '<li>none</li>'}</ul>{failed}"
        f"{_table(columns(e), rows(r))}"
        f"<img alt='{escape(e.name)} figure' src='data:image/png;base64,{png}'>{notes}</section>"
    )
