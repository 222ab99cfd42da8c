"""Run the whole catalogue at full length into OUT (default repro/full), rewrite the
scorecard of docs/reproductions.md between its markers, and exit 1 if a run failed or a
claim came out otherwise than its experiment file says (a claim that should hold does
not, or a known miss now holds). Called by reproduce-full.sh."""

from __future__ import annotations

import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from hscc import provenance
from hscc import reproduce as rep
from hscc.reproduce.tables import scorecard_markdown

DOC = Path(__file__).resolve().parents[1] / "docs" / "reproductions.md"
START, END = "<!-- scorecard:start -->", "<!-- scorecard:end -->"


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "repro/full")
    start = time.monotonic()
    reps = rep.reproduce_all(
        out,
        on_start=lambda e, k, n: (
            print(f"experiment {k} of {n}: {e.name} ({e.source})", flush=True) or None
        ),
    )
    wall = time.monotonic() - start
    env = provenance.environment()
    simulated = sum(
        r.sweep.points["wall_time_s"].fill_null(0).sum() for r in reps
    )  # stored with each run: cache-independent
    made = (
        f"Made by `bash scripts/reproduce-full.sh` on {datetime.now(UTC):%Y-%m-%d} "
        f"(hscc {env['hscc_version']}, engine {env['engine_digest']}, {provenance.describe_revision(env['git'])}, "
        f"{os.cpu_count()} cores): "
        f"{sum(r.sweep.points.height for r in reps)} runs, {simulated / 60:.0f} minutes of run time (the runs' own wall times, summed) "
        f"(this call: {wall / 60:.1f} min of wall time; runs already in {out} are reused)."
    )
    text = DOC.read_text()
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    DOC.write_text(f"{head}{START}\n{made}\n\n{scorecard_markdown(reps)}{END}{tail}")
    print(f"wrote {DOC} ({out}/report.html)")
    # The slow suite's verdict: every claim as the experiment files say (held, or a known miss).
    unexpected = [
        f"{r.experiment.name}: {c.text} ({'holds, but is marked known_miss: update the notes' if c.holds else 'does not hold'}; {c.detail})"
        for r in reps
        for c in r.claims
        if not c.as_expected
    ]
    failed = sum(r.failed_runs for r in reps)
    for line in unexpected:
        print("UNEXPECTED", line)
    if failed:
        print(f"FAILED: {failed} runs failed")
    sys.exit(1 if unexpected or failed else 0)


if __name__ == "__main__":
    main()
