"""Merge the rows the engine's tests wrote into validation/results/engine.json.

    python validation/results/engine_rows.py --rows DIR --slow-tests FILE [--results PATH]

DIR holds one JSON file per row (crates/hscc-sim/tests/engine/record.rs writes them when
HSCC_RESULTS_DIR is set); FILE lists the #[ignore]d tests (`TEST --list --ignored`), whose
rows are in the slow suite. scripts/validate-engine.sh runs both steps. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import results  # noqa: E402

COMMAND = "bash scripts/validate-engine.sh"
ROW_KEYS = {"name", "group", "label", "test", "conditions", "measured", "reference", "tolerance"}


def slow_tests(listing: str) -> set[str]:
    """The test names of a libtest `--list` output ("NAME: test" lines)."""
    return {line.split(": ")[0] for line in listing.splitlines() if line.endswith(": test")}


def entry(row: dict, slow: set[str], source: str, date: str) -> dict:
    """A results entry from one row: the row, its suite, date, command, source and verdict."""
    missing = ROW_KEYS - row.keys()
    if missing:
        raise ValueError(f"row {row.get('name', '?')!r}: missing {sorted(missing)}")
    suite = "slow" if row["test"] in slow else "default"
    ignored = " --include-ignored" if suite == "slow" else ""
    e = {
        "name": row["name"],
        "group": row["group"],
        "label": row["label"],
        "test": row["test"],
        "suite": suite,
        "date": date,
        "command": (
            f"cargo test --release -p hscc-sim --test engine {row['test']} -- --exact{ignored}"
        ),
        "source": source,
        "conditions": row["conditions"],
        "measured": row["measured"],
        "reference": row["reference"],
        "tolerance": row["tolerance"],
    }
    e["verdict"] = results.engine_verdict(e)
    return e


def read_rows(directory: Path) -> list[dict]:
    """The rows by test name, each test's in the order it wrote them: the same order
    however the tests ran in parallel (a slow test sorts beside its default one)."""
    files = sorted(directory.glob("*.json"), key=lambda p: (p.stat().st_mtime_ns, p.name))
    rows = [json.loads(p.read_text(encoding="utf-8")) for p in files]
    rows.sort(key=lambda r: r.get("test", ""))  # stable: keeps each test's own order
    if not rows:
        raise SystemExit(f"--rows {directory}: no row files (*.json): did the tests run?")
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--rows", type=Path, required=True, help="the directory of row files")
    ap.add_argument(
        "--slow-tests", type=Path, required=True, help="the --list --ignored output of the tests"
    )
    results.add_arguments(ap, results.ENGINE)
    args = ap.parse_args(argv)
    slow = slow_tests(args.slow_tests.read_text(encoding="utf-8"))
    source, date = results.run_source(COMMAND), results.today()
    entries = [entry(r, slow, source, date) for r in read_rows(args.rows)]
    for e in entries:
        print(f"{e['verdict']:>9}  {e['name']}")
    if args.no_results:
        return 0
    results.update(args.results, entries, COMMAND, **results.ENGINE_TOP)
    print(f"wrote {len(entries)} rows into {args.results}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
