"""Run the matched configurations in ns-3 and in hscc, one simulation at a time, and compare.

    python validate.py --out DIR --hscc-python PATH [--quick] [--only NAME ...] [--recovery classic] [--ns3-timeout S]
                       [--ns3-from OLD_DIR]

Runs in validation/ns3/.venv (the ns3 package); hscc runs in its own virtual
environment through `--hscc-python` (hscc_side.py). DIR must not exist or be
empty; it receives, per configuration, NAME/ns3.json (ns-3's input),
NAME/scenario.json (hscc's, as the match wants it), NAME/ns3-out.json and
NAME/hscc-out.json (raw results, with the scenario hscc actually ran), and
overall results.json, flows.csv and table.md (printed at the end). Unless --quick
or --no-results, it also puts each configuration's numbers, with today's date,
into validation/results/ns3.json (--results PATH to write elsewhere), replacing
that configuration's entry and keeping the others; `python
validation/results/render.py --write` then updates docs/validation/ns3.md.

--ns3-from OLD_DIR takes ns-3's output from an earlier run directory for every
configuration whose ns-3 input there is identical to today's (same ns-3, so the
same result: ns-3 is deterministic for a given input and seed), and runs ns-3
for the others: hscc can be rerun after a change without hours of ns-3.
"""

from __future__ import annotations

import argparse
import csv
import json
import resource
import subprocess
import sys
import time
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import configs  # noqa: E402

sys.path.insert(0, str(HERE.parent / "results"))
import results as results_file  # noqa: E402

TOLERANCE = 0.10
NS3_TIMEOUT_S = 3 * 3600  # default budget of one ns-3 run (--ns3-timeout)
HSCC_TIMEOUT_S = 1800


def jain(xs: list[float]) -> float | None:
    if not xs or sum(xs) == 0:
        return None
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))


def summarize(out: dict) -> dict:
    """Aggregate and per-flow goodput (bit/s), second-half Jain, counters, from either tool's output."""
    T = out["duration_s"]
    flows = out["flows"]
    per_flow = [f["rx_bytes"] * 8 / (T - f["start_s"]) for f in flows]
    second = [(f["rx_bytes"] - f["rx_bytes_half"]) * 8 / (T / 2) for f in flows]
    sent = out["bottleneck_tx_packets"] + out["bottleneck_random_drops"]
    return {
        "aggregate_bps": sum(f["rx_bytes"] for f in flows) * 8 / T,
        "per_flow_bps": per_flow,
        "second_half_bps": second,
        "jain_second_half": jain(second),
        "recoveries": sum(f["recoveries"] for f in flows),
        "timeouts": sum(f["timeouts"] for f in flows),
        "ecn_reductions": sum(f.get("ecn_reductions", 0) for f in flows),
        "queue_drops": out["bottleneck_queue_drops"],
        "marks": out.get("bottleneck_marks", 0),
        # Mean backlog over the second half, packets (configurations with queue_sample).
        "mean_queue_pkts": out.get("queue_mean_second_half"),
        "random_drops": out["bottleneck_random_drops"],
        "realized_loss": out["bottleneck_random_drops"] / sent if sent else 0.0,
        "wall_s": sum(out["wall_s"].get(k, 0.0) for k in ("setup", "run")),
        "cpu_s": out["cpu_s"],
    }


def verdict(ns3: dict, hs: dict) -> tuple[str, float | None, float | None]:
    d_agg = hs["aggregate_bps"] / ns3["aggregate_bps"] - 1
    jn, jh = ns3["jain_second_half"], hs["jain_second_half"]
    d_jain = jh / jn - 1 if jn and jh else None
    ok = abs(d_agg) <= TOLERANCE and d_jain is not None and abs(d_jain) <= TOLERANCE
    return ("within ±10 %" if ok else "DIFFERS"), d_agg, d_jain


class Timeout(RuntimeError):
    pass


def _run(cmd: list[str], timeout: float, log: Path) -> None:
    with open(log, "w") as fh:
        try:
            p = subprocess.run(cmd, stdout=fh, stderr=subprocess.STDOUT, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise Timeout(f"{cmd[1]} took more than {timeout:.0f} s; see {log}") from None
    if p.returncode != 0:
        tail = "".join(log.read_text(errors="replace").splitlines(keepends=True)[-20:])
        raise RuntimeError(
            f"{' '.join(cmd)} exited with {p.returncode}; last lines of {log}:\n{tail}"
        )


def _children_cpu() -> float:
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime


def _progress(log: Path) -> float:
    """The last simulated time ns3_dumbbell.py reported in its log (0 if none)."""
    marks = [
        line.split()[1]
        for line in log.read_text(errors="replace").splitlines()
        if line.startswith("progress: ")
    ]
    return float(marks[-1]) if marks else 0.0


def run_one(
    c: configs.Config,
    out_dir: Path,
    hscc_python: str,
    ns3_from: Path | None = None,
    ns3_timeout: float = NS3_TIMEOUT_S,
) -> dict:
    d = out_dir / c.name
    d.mkdir(parents=True)
    ns3_in = json.dumps(configs.ns3_json(c), indent=1)
    (d / "ns3.json").write_text(ns3_in)
    (d / "scenario.json").write_text(json.dumps(configs.hscc_scenario(c), indent=1))

    _run(
        [
            hscc_python,
            str(HERE / "hscc_side.py"),
            str(d / "scenario.json"),
            str(d / "hscc-out.json"),
        ],
        HSCC_TIMEOUT_S,
        d / "hscc.log",
    )
    hs_raw = json.loads((d / "hscc-out.json").read_text())
    old = ns3_from / c.name if ns3_from else None
    if old and (old / "ns3-out.json").is_file() and (old / "ns3.json").read_text() == ns3_in:
        (d / "ns3-out.json").write_text((old / "ns3-out.json").read_text())
        ran = datetime.fromtimestamp((old / "ns3-out.json").stat().st_mtime, UTC)
        reused = f"its run of {ran:%Y-%m-%d} (--ns3-from)"
    else:
        reused, cpu0 = None, _children_cpu()
        try:
            _run(
                [
                    sys.executable,
                    str(HERE / "ns3_dumbbell.py"),
                    str(d / "ns3.json"),
                    str(d / "ns3-out.json"),
                ],
                ns3_timeout,
                d / "ns3.log",
            )
        except Timeout:
            # Stopped: the row says how far ns-3 got (its CPU includes importing the bindings).
            reached, cpu = _progress(d / "ns3.log"), _children_cpu() - cpu0
            return {
                "name": c.name,
                "description": c.description,
                "duration_s": c.duration,
                "seed": c.seed,
                "ns3": None,
                "hscc": summarize(hs_raw),
                "ns3_reused_from": None,
                "ns3_unfinished": {"budget_s": ns3_timeout, "reached_s": reached, "cpu_s": cpu},
                "delta_aggregate": None,
                "delta_jain": None,
                "algorithms": [f.algo for f in c.flows],
                "verdict": f"ns-3 not finished: {reached:g} of {c.duration:g} s simulated in {cpu / 60:.1f} CPU-min",
            }
    ns_raw = json.loads((d / "ns3-out.json").read_text())

    ns3, hs = summarize(ns_raw), summarize(hs_raw)
    v, d_agg, d_jain = verdict(ns3, hs)
    return {
        "name": c.name,
        "description": c.description,
        "duration_s": c.duration,
        "seed": c.seed,
        "ns3": ns3,
        "hscc": hs,
        "ns3_reused_from": reused,
        "delta_aggregate": d_agg,
        "delta_jain": d_jain,
        "verdict": v,
        "ns3_import_s": ns_raw["wall_s"]["import"],
        "algorithms": [f.algo for f in c.flows],
    }


def _mb(x: float) -> str:
    return f"{x / 1e6:.2f}" if x < 1e7 else f"{x / 1e6:.1f}"


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:+.1f} %"


def _j(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


def _q(x: float | None) -> str:
    return "—" if x is None else f"{x:.1f}"


def table(rows: list[dict]) -> str:
    head = (
        "| configuration | T (s) | aggregate goodput ns-3 / hscc (Mbit/s) | Δ | Jain 2nd half ns-3 / hscc | Δ "
        "| per-flow goodput ns-3 (Mbit/s) | per-flow goodput hscc | fast recoveries ns-3 / hscc "
        "| timeouts ns-3 / hscc | CPU ns-3 / hscc (s) | verdict |"
    )
    lines = [head, "|" + "---|" * 12]
    for r in rows:
        n, h = r["ns3"], r["hscc"]
        if n is None:
            lines.append(
                f"| {r['name']} | {r['duration_s']:g} | — / {_mb(h['aggregate_bps'])} | — "
                f"| — / {_j(h['jain_second_half'])} | — | — | {' / '.join(_mb(x) for x in h['per_flow_bps'])} "
                f"| — / {h['recoveries']} | — / {h['timeouts']} | — / {h['cpu_s']:.2f} | {r['verdict']} |"
            )
            continue
        lines.append(
            f"| {r['name']} | {r['duration_s']:g} | {_mb(n['aggregate_bps'])} / {_mb(h['aggregate_bps'])} "
            f"| {_pct(r['delta_aggregate'])} | {_j(n['jain_second_half'])} / {_j(h['jain_second_half'])} "
            f"| {_pct(r['delta_jain'])} | {' / '.join(_mb(x) for x in n['per_flow_bps'])} "
            f"| {' / '.join(_mb(x) for x in h['per_flow_bps'])} | {n['recoveries']} / {h['recoveries']} "
            f"| {n['timeouts']} / {h['timeouts']} | {n['cpu_s']:.1f} / {h['cpu_s']:.2f} | {r['verdict']} |"
        )
    lines += [
        "",
        "| configuration | queue drops ns-3 / hscc | random drops ns-3 / hscc | realized loss ns-3 / hscc "
        "| CE marks ns-3 / hscc | ECN reductions ns-3 / hscc | mean queue 2nd half ns-3 / hscc (packets) "
        "| wall ns-3 / hscc (s) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        n, h = r["ns3"], r["hscc"]
        if n is None:
            continue
        lines.append(
            f"| {r['name']} | {n['queue_drops']} / {h['queue_drops']} | {n['random_drops']} / {h['random_drops']} "
            f"| {n['realized_loss']:.2e} / {h['realized_loss']:.2e} | {n['marks']} / {h['marks']} "
            f"| {n['ecn_reductions']} / {h['ecn_reductions']} "
            f"| {_q(n['mean_queue_pkts'])} / {_q(h['mean_queue_pkts'])} "
            f"| {n['wall_s']:.1f} / {h['wall_s']:.2f} |"
        )
    return "\n".join(lines) + "\n"


MEASURES = (
    "aggregate_bps",
    "jain_second_half",
    "per_flow_bps",
    "second_half_bps",
    "recoveries",
    "timeouts",
    "ecn_reductions",
    "queue_drops",
    "marks",
    "mean_queue_pkts",
    "random_drops",
    "realized_loss",
    "cpu_s",
    "wall_s",
)


def result_entries(rows: list[dict], recovery: str) -> list[dict]:
    """validation/results/ns3.json's entries for this run's rows (results.py has the schema)."""
    entries = []
    for r in rows:
        base = r["name"][: -len(f"-{recovery}")] if recovery != "prr" else r["name"]
        command = f"bash scripts/validate-ns3.sh --out DIR --only {base}" + (
            f" --recovery {recovery}" if recovery != "prr" else ""
        )
        rev = results_file.revision()
        e = {
            "name": r["name"],
            "group": recovery if recovery != "prr" else configs.CONFIGS[base].group,
            "date": results_file.today(),
            "conditions": f"hscc at {rev or 'an unknown revision'}; ns-3 3.44; seed {r['seed']}"
            + (f"; ns-3's output from {r['ns3_reused_from']}" if r.get("ns3_reused_from") else ""),
            "command": command,
            "source": results_file.run_source("validation/ns3/validate.py"),
            "hscc_commit": rev,
            "duration_s": float(r["duration_s"]),
            "measured": {k: r["hscc"][k] for k in MEASURES},
            "reference": None if r["ns3"] is None else {k: r["ns3"][k] for k in MEASURES},
            "tolerance": dict(results_file.NS3_TOLERANCE),
            "delta": {
                "aggregate_goodput": r["delta_aggregate"],
                "jain_second_half": r["delta_jain"],
            },
        }
        if r["ns3"] is None:
            e["note"] = r["verdict"]
        e["verdict"] = results_file.ns3_verdict(e)
        entries.append(e)
    return entries


def write_results(rows: list[dict], recovery: str, path: Path) -> None:
    results_file.update(
        path,
        result_entries(rows, recovery),
        "bash scripts/validate-ns3.sh --out DIR",
        **results_file.NS3_TOP,
    )
    print(
        f"wrote {path} (python validation/results/render.py --write updates the docs)",
        file=sys.stderr,
    )


def write_csv(rows: list[dict], path: Path) -> None:
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["configuration", "tool", "flow", "algorithm", "goodput_bps", "second_half_bps"])
        for r in rows:
            for tool in ("ns3", "hscc"):
                s = r[tool]
                if s is None:
                    continue
                for i, (g, g2) in enumerate(
                    zip(s["per_flow_bps"], s["second_half_bps"], strict=True)
                ):
                    w.writerow([r["name"], tool, i, r["algorithms"][i], f"{g:.0f}", f"{g2:.0f}"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--out", required=True, type=Path, help="run directory (must not exist, or be empty)"
    )
    ap.add_argument(
        "--hscc-python", required=True, help="python of the virtual environment with hscc"
    )
    ap.add_argument(
        "--quick", action="store_true", help="short durations (a smoke test, not a comparison)"
    )
    ap.add_argument(
        "--only",
        action="extend",
        nargs="+",
        default=[],
        metavar="NAME",
        help="run only these configurations (one or more names; repeatable)",
    )
    ap.add_argument(
        "--recovery",
        choices=("prr", "classic"),
        default="prr",
        help="window reduction in recovery in both tools; classic runs are named NAME-classic",
    )
    ap.add_argument(
        "--ns3-timeout",
        type=float,
        default=NS3_TIMEOUT_S,
        metavar="SECONDS",
        help="wall-time budget of one ns-3 run; a run stopped at it is reported with how far it got",
    )
    ap.add_argument(
        "--ns3-from",
        type=Path,
        metavar="OLD_DIR",
        help="reuse ns-3's output from this earlier run directory where ns-3's input is identical",
    )
    results_file.add_arguments(ap, results_file.NS3)
    args = ap.parse_args(argv)

    unknown = [n for n in args.only if n not in configs.CONFIGS]
    if unknown:
        ap.error(f"unknown configuration {', '.join(unknown)}; known: {', '.join(configs.CONFIGS)}")
    if args.out.exists() and (not args.out.is_dir() or any(args.out.iterdir())):
        ap.error(f"{args.out} exists and is not an empty directory; give a new one")
    args.out.mkdir(parents=True, exist_ok=True)
    chosen = [configs.CONFIGS[n].with_duration(args.quick) for n in (args.only or configs.CONFIGS)]
    if args.recovery != "prr":
        chosen = [
            replace(c, name=f"{c.name}-{args.recovery}", recovery=args.recovery) for c in chosen
        ]

    rows = []
    for i, c in enumerate(chosen, 1):
        t0 = time.perf_counter()
        print(
            f"[{i}/{len(chosen)}] {c.name} ({c.duration:g} s simulated)",
            file=sys.stderr,
            flush=True,
        )
        rows.append(run_one(c, args.out, args.hscc_python, args.ns3_from, args.ns3_timeout))
        print(
            f"    {rows[-1]['verdict']} ({time.perf_counter() - t0:.0f} s)",
            file=sys.stderr,
            flush=True,
        )
        (args.out / "results.json").write_text(
            json.dumps({"quick": args.quick, "rows": rows}, indent=1)
        )
    md = table(rows)
    (args.out / "table.md").write_text(md)
    write_csv(rows, args.out / "flows.csv")
    print(md)
    if not args.quick and not args.no_results:
        write_results(rows, args.recovery, args.results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
