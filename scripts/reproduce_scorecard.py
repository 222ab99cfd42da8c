"""Run the whole catalogue at full length into OUT (default repro/full) and rewrite the
scorecard of docs/reproductions.md between its markers (called by reproduce-full.sh)."""

from __future__ import annotations

import os
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from hscc import provenance
from hscc import reproduce as rep
from hscc.reproduce.tables import scorecard_markdown

DOC = Path(__file__).resolve().parents[1] / "docs" / "reproductions.md"
START, END = "<!-- scorecard:start -->", "<!-- scorecard:end -->"


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "repro/full")
    start = time.monotonic()
    reps = rep.reproduce_all(out, on_start=lambda e: print(f"{e.name} ({e.source})", flush=True) or None)
    wall = time.monotonic() - start
    env = provenance.environment()
    made = (f"Made by `bash scripts/reproduce-full.sh {out}` on {datetime.now(timezone.utc):%Y-%m-%d} "
            f"(hscc {env['hscc_version']}, git {env['git'] or 'unknown'}, {os.cpu_count()} cores): "
            f"{sum(r.sweep.points.height for r in reps)} runs, {wall / 60:.1f} min of wall time "
            f"(runs already in {out} are reused, so this is the time of what was computed).")
    text = DOC.read_text()
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    DOC.write_text(f"{head}{START}\n{made}\n\n{scorecard_markdown(reps)}{END}{tail}")
    print(f"wrote {DOC} ({out}/report.html)")


if __name__ == "__main__":
    main()
