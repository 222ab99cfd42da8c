"""hscc's side of a configuration with its bottleneck queue one packet shorter and longer.

    python validation/ns2/queue_spread.py NAME [NAME ...] [--duration S] [--no-results]

Nothing in the ctcp-* and sync-* configurations is random (no host jitter, no UDP), so
each tool's run is one start-up, and one queue place can move which segments an overflow
takes, whether a fast retransmission survives and so the whole run. For each NAME this
runs hscc with the bottleneck's buffer N - 1, N and N + 1 packets (N the configuration's)
and prints the numbers the cross-check compares: how far apart runs that differ by one
packet are, beside the distance between the two tools (docs/validation/ns2.md, "The
queue limit"). At the configurations' own length it puts the rows into each one's entry of
validation/results/ns2.json (`queue_spread`), whose ratio must be the middle row's: a spread
of another engine than the entry's is refused (rerun validate.py first). validate.py drops
an entry's spread when it measures the entry again.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import ns2_configs as configs  # noqa: E402
import validate  # noqa: E402

sys.path.insert(0, str(HERE.parent / "results"))
import results  # noqa: E402

from hscc.scenario import Scenario  # noqa: E402


def spread(c: configs.Config, seed: int = 1, duration: float | None = None) -> list[dict]:
    """hscc's compared numbers with the bottleneck buffer N - 1, N and N + 1 packets."""
    base = c.scenario(seed, duration)
    engine = Scenario.parse(base).to_engine()
    n = int(engine["topology"]["bottleneck"]["buffer"]["packets"])
    rows = []
    for packets in (n - 1, n, n + 1):
        s: dict[str, Any] = {**base, "topology": {**base["topology"]}}
        s["topology"]["bottleneck"] = {**s["topology"]["bottleneck"], "buffer": f"{packets}pkts"}
        with tempfile.TemporaryDirectory() as d:
            out = validate.run_hscc(s, Path(d))
        rows.append({"buffer": packets, **validate.summarize(out, c, engine, hscc_side=True)})
    return rows


def record(path: Path, spreads: dict[str, list[dict]]) -> None:
    """Put each configuration's rows into its entry of the results file at `path`."""
    doc = results.load(path)
    by = {e["name"]: e for e in doc["configurations"]}
    for name, rows in spreads.items():
        entry = by.get(name)
        if entry is None:
            sys.exit(f"{name}: no entry in {path}: run validate.py --only {name} first")
        own, middle = entry["measured"]["ratio"], rows[1]["ratio"]
        if middle is None or abs(middle - own) > 1e-9 * abs(own):
            sys.exit(
                f"{name}: the configuration's own buffer gives ratio {middle}, its entry in "
                f"{path} {own}: rerun validate.py --only {name} with this engine first"
            )
        entry["queue_spread"] = {
            "date": results.today(),
            "revision": results.revision(),
            "rows": rows,
        }
    results.write(path, doc)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="+", choices=sorted(configs.CONFIGS), metavar="NAME")
    ap.add_argument(
        "--duration",
        type=float,
        help="simulated seconds (default: the entry's; another length is printed, not recorded)",
    )
    results.add_arguments(ap, results.NS2)
    args = ap.parse_args()
    print("| configuration | buffer | goodput ratio | loss events a / b | timeouts |")
    print("|---|---|---|---|---|")
    spreads = {}
    for name in args.names:
        rows = spread(configs.CONFIGS[name], 1, args.duration)
        spreads[name] = [
            {k: r[k] for k in ("buffer", "ratio", "loss_events_a", "loss_events_b", "timeouts")}
            for r in rows
        ]
        for r in rows:
            ratio = "–" if r["ratio"] is None else f"{r['ratio']:.2f}"
            print(
                f"| {name} | {r['buffer']} | {ratio} | "
                f"{r['loss_events_a']} / {r['loss_events_b']} | {r['timeouts']} |"
            )
    if args.duration is None and not args.no_results:
        record(args.results, spreads)
        print(
            f"wrote {args.results} (python validation/results/render.py --write updates the docs)"
        )


if __name__ == "__main__":
    main()
