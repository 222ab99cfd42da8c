"""Run the matched configurations in ns-2.35 and in hscc (stack = "ns2"), and compare.

    python validation/ns2/validate.py --out DIR [--only NAME ...] [--seeds N] [--duration S]
                                      [--ns2-timeout S] [--ns2-from OLD_DIR]
                                      [--trace-queues] [--results PATH | --no-results]

Runs in hscc's virtual environment; ns-2 is the `ns` program (Debian's ns2 package).
DIR must not exist or be empty; it receives, per configuration and seed,
NAME/sSEED/scenario.json (what both ran), ns2.tcl, ns2-out.json (+ .drops, ns-2's
drop trace) and hscc-out.json, and overall results.json and table.md (printed at the
end). Unless --duration or --no-results, it also puts each configuration's numbers,
with today's date, into validation/results/ns2.json, replacing that configuration's
entry and keeping the others; `python validation/results/render.py --write` then
updates docs/validation/ns2.md. --ns2-from OLD_DIR reruns hscc alone wherever ns-2's
script is the one OLD_DIR ran (ns-2 is deterministic for a script and seed).
--trace-queues (with --duration) also keeps, per seed, every packet offered to the
bottleneck (both ways) and the senders' access links: ns-2's queue trace queue.tr, hscc's
captures link-INDEX-NAME.pcap and drops.parquet; queue_trace.py reads ns-2's.

    python validation/ns2/validate.py --out DIR --recovery classic [--only NAME ...]

runs hscc alone with every flow's `recovery = "classic"` (RFC 6675's pipe) instead of the
profile's "sack1", for the seeds and length of each configuration's entry in the results
file (the configurations of the Sack1 agent: TCP-Linux's are left out), and compares it with the ns-2 numbers stored there: ns-2 runs its Sack1 agent
whatever hscc's recovery, so it need not run (nor be installed). Its entries are named
NAME-classic, in the group "classic".
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "results"))

import ns2_configs as configs  # noqa: E402
import ns2_tcl as tcl  # noqa: E402
import results as results_file  # noqa: E402
from renderers.ns2 import ns2_main, ns2_recovery  # noqa: E402

NS2_TIMEOUT_S = 1800
DEFAULT_SEEDS = 2


def _children_cpu() -> float:
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime


def _same_script(a: str, b: str) -> bool:
    """Two ns-2 scripts alike but for where they write their output."""
    where = re.compile(r'open "?\S*?(ns2-out\.json(?:\.drops)?)"? w')
    return where.sub(r"open \1 w", a) == where.sub(r"open \1 w", b)


def run_ns2(
    engine: dict[str, Any],
    d: Path,
    timeout: float,
    reuse: Path | None = None,
    trace_queues: bool = False,
) -> dict[str, Any]:
    """ns-2's per-flow counters and per-link drops for one scenario (ns2_tcl.parse's form).
    With `reuse` (the same configuration and seed in an earlier run directory), ns-2's output
    is taken from there when its script was the same: ns-2 is deterministic for a script.
    With `trace_queues`, ns-2 also writes its queue trace of ns2_tcl.traced_links."""
    text = tcl.script(engine, trace_queues)
    (d / "ns2.tcl").write_text(text)
    old = reuse / "ns2.tcl" if reuse else None
    if old and old.is_file() and _same_script(old.read_text(), text):
        for name in (tcl.OUT, f"{tcl.OUT}.drops", "ns2-cost.json"):
            if (reuse / name).is_file():
                shutil.copyfile(reuse / name, d / name)
        out = tcl.parse(d, engine)
        cost = d / "ns2-cost.json"
        out.update(json.loads(cost.read_text()) if cost.is_file() else {"cpu_s": None})
        out["reused_from"] = str(reuse)
        return out
    cpu0 = _children_cpu()
    try:
        p = subprocess.run(
            ["ns", "ns2.tcl"], cwd=d, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"ns {d / 'ns2.tcl'} took more than {timeout:.0f} s") from None
    if p.returncode != 0 or not (d / tcl.OUT).is_file():
        raise RuntimeError(f"ns {d / 'ns2.tcl'} exited with {p.returncode}:\n{p.stderr[-2000:]}")
    if "Error: do not find" in p.stdout:  # TCP-Linux's select_ca prints this and carries on
        raise RuntimeError(f"ns {d / 'ns2.tcl'}: {p.stdout[-2000:]}")
    out = tcl.parse(d, engine)
    out["cpu_s"] = _children_cpu() - cpu0
    (d / "ns2-cost.json").write_text(json.dumps({"cpu_s": out["cpu_s"]}))
    return out


def run_hscc(scenario: dict[str, Any], d: Path, trace_queues: bool = False) -> dict[str, Any]:
    """hscc's per-flow counters and per-link drops, in the form `summarize` reads. With
    `trace_queues`, a capture of each of ns2_tcl.traced_links (link-INDEX-NAME.pcap, every
    packet offered at the link's input) and their drop log (drops.parquet) go to `d`."""
    import hscc
    from hscc.scenario import Scenario

    if trace_queues:
        links = [name for name, _, _ in tcl.traced_links(len(scenario["topology"]["pairs"]))]
        scenario = {**scenario, "output": {**scenario["output"], "pcap": {"links": links}}}
    t0 = time.process_time()
    r = hscc.run(Scenario.parse(scenario))
    if trace_queues:
        for name, data in r.captures.items():
            (d / name).write_bytes(data)
        r.drops.write_parquet(d / "drops.parquet")
    flows = [
        {
            "delivered_bytes": row["delivered_bytes"],
            "reductions": row["recoveries"] + row["timeouts"],
            "timeouts": row["timeouts"],
            "retrans_packets": row["retrans"],
        }
        for row in r.flows.iter_rows(named=True)
    ]
    drops = {
        row["name"]: {
            "tcp": row["drops_queue"] - row["drops_queue_udp"],
            "udp": row["drops_queue_udp"],
        }
        for row in r.links.iter_rows(named=True)
    }
    out = {"flows": flows, "drops": drops, "cpu_s": time.process_time() - t0}
    (d / "hscc-out.json").write_text(json.dumps(out, indent=1))
    return out


def run_variant(
    c: configs.Config, out_dir: Path, base: dict, recovery: str, duration: float | None = None
) -> dict:
    """hscc alone with every flow's `recovery` set, against the ns-2 numbers of `base`, the
    configuration's entry of ns2.json: the same seeds and length (or `duration`, a smoke test
    whose ns-2 side is then not comparable). A row in run_one's form, named NAME-RECOVERY."""
    from hscc.scenario import Scenario

    seeds = base_seeds(base)
    per_seed: list[dict] = []
    for seed in range(1, seeds + 1):
        print(f"    seed {seed} of {seeds}", file=sys.stderr, flush=True)
        d = out_dir / f"{c.name}-{recovery}" / f"s{seed}"
        d.mkdir(parents=True)
        scenario = c.scenario(seed, base["duration_s"] if duration is None else duration)
        for flow in scenario["flows"]:
            flow["recovery"] = recovery
        engine = Scenario.parse(scenario).to_engine()
        (d / "scenario.json").write_text(json.dumps(scenario, indent=1, ensure_ascii=False))
        per_seed.append(summarize(run_hscc(scenario, d), c, engine, True))
    ns2, hs = base["reference"], mean(per_seed)
    return {
        "name": f"{c.name}-{recovery}",
        "variant_of": c.name,
        "recovery": recovery,
        "description": f'{c.description}; hscc with recovery = "{recovery}"',
        "experiment": recovery,
        "groups": base["groups"],
        "duration_s": float(engine["duration"]),
        "seeds": seeds,
        "ns2": ns2,
        "ns2_source": f"the entry {c.name} of ns2.json ({base['source']})",
        "hscc": hs,
        "per_seed": {"hscc": per_seed},
        "delta": {
            k: (hs[k] / ns2[k] - 1) if ns2[k] and hs[k] is not None else None
            for k in results_file.NS2_TOLERANCE
        },
    }


def sack1_only(c: configs.Config) -> bool:
    """Whether every flow of `c` runs ns-2's Sack1 agent (none TCP-Linux)."""
    return all(f["algorithm"] not in tcl.LINUX_ALGOS for f in c.scenario(1)["flows"])


def base_seeds(base: dict) -> int:
    """How many seeds an ns2.json entry's means are over (its `seeds`, else its conditions')."""
    if "seeds" in base:
        return int(base["seeds"])
    m = re.search(r"(\d+) seeds", base["conditions"])
    if m is None:
        raise ValueError(f"{base['name']}: no seed count in its conditions {base['conditions']!r}")
    return int(m.group(1))


def ns2_link(name: str) -> str:
    """ns-2's "from-to" node ids of an hscc dumbbell link's forward direction (ns2_tcl.py numbers
    L 0, R 1, then s(i) 2 + 2i and d(i) 3 + 2i)."""
    link = name.removesuffix(":fwd")
    if link == "bottleneck":
        return "0-1"
    side, i = link[len("access-")], int(link[len("access-") + 1 :])
    return f"{2 + 2 * i}-0" if side == "s" else f"1-{3 + 2 * i}"


def summarize(
    out: dict[str, Any], c: configs.Config, engine: dict[str, Any], hscc_side: bool
) -> dict:
    """The compared numbers of one run: goodput per group (bit/s) and their ratio, loss
    events (window reductions for congestion) per group, timeouts, TCP drops at the
    bottleneck and at the senders' and the receivers' access links."""
    flows, duration = out["flows"], float(engine["duration"])
    pairs = len(engine["topology"]["pairs"])
    goodput = [f["delivered_bytes"] * 8 / duration for f in flows]
    (na, a), (nb, b) = c.groups
    ga, gb = sum(goodput[i] for i in a), sum(goodput[i] for i in b)
    drops = out["drops"]

    def tcp_drops(name: str) -> int:
        key = name if hscc_side else ns2_link(name)
        return int(drops.get(key, {}).get("tcp", 0))

    return {
        "aggregate_bps": sum(goodput),
        "per_flow_bps": goodput,
        "goodput_a_bps": ga,
        "goodput_b_bps": gb,
        "ratio": ga / gb if gb else None,
        "loss_events_a": sum(flows[i]["reductions"] for i in a),
        "loss_events_b": sum(flows[i]["reductions"] for i in b),
        "timeouts": sum(f["timeouts"] for f in flows),
        "bottleneck_tcp_drops": tcp_drops("bottleneck:fwd"),
        "sender_access_tcp_drops": sum(tcp_drops(f"access-s{i}:fwd") for i in range(pairs)),
        "receiver_access_tcp_drops": sum(tcp_drops(f"access-d{i}:fwd") for i in range(pairs)),
        "cpu_s": out["cpu_s"],
    }


def mean(rows: list[dict]) -> dict:
    """The seeds' mean of every number (per-flow lists element by element)."""
    m: dict[str, Any] = {}
    for k in rows[0]:
        vals = [r[k] for r in rows]
        if isinstance(vals[0], list):
            m[k] = [statistics.fmean(v) for v in zip(*vals, strict=True)]
        elif all(v is not None for v in vals):
            m[k] = statistics.fmean(vals)
        else:
            m[k] = None
    return m


def run_one(
    c: configs.Config,
    out_dir: Path,
    seeds: int,
    duration: float | None,
    timeout: float,
    ns2_from: Path | None = None,
    trace_queues: bool = False,
) -> dict:
    from hscc.scenario import Scenario

    per_seed: dict[str, list[dict]] = {"ns2": [], "hscc": []}
    for seed in range(1, seeds + 1):
        print(f"    seed {seed} of {seeds}", file=sys.stderr, flush=True)
        d = out_dir / c.name / f"s{seed}"
        d.mkdir(parents=True)
        scenario = c.scenario(seed, duration)
        engine = Scenario.parse(scenario).to_engine()
        (d / "scenario.json").write_text(json.dumps(scenario, indent=1, ensure_ascii=False))
        reuse = ns2_from / c.name / f"s{seed}" if ns2_from else None
        ns2 = run_ns2(engine, d, timeout, reuse, trace_queues)
        per_seed["ns2"].append(summarize(ns2, c, engine, False))
        per_seed["hscc"].append(summarize(run_hscc(scenario, d, trace_queues), c, engine, True))
    ns2, hs = mean(per_seed["ns2"]), mean(per_seed["hscc"])
    delta = {
        k: (hs[k] / ns2[k] - 1) if ns2[k] and hs[k] is not None else None
        for k in results_file.NS2_TOLERANCE  # what the verdict compares
    }
    return {
        "name": c.name,
        "description": c.description,
        "experiment": c.experiment,
        "groups": [g[0] for g in c.groups],
        "duration_s": float(engine["duration"]),
        "seeds": seeds,
        "ns2": ns2,
        "hscc": hs,
        "per_seed": per_seed,
        "delta": delta,
    }


MEASURES = (
    "aggregate_bps",
    "per_flow_bps",
    "goodput_a_bps",
    "goodput_b_bps",
    "ratio",
    "loss_events_a",
    "loss_events_b",
    "timeouts",
    "bottleneck_tcp_drops",
    "sender_access_tcp_drops",
    "receiver_access_tcp_drops",
    "cpu_s",
)


def entry(r: dict) -> dict:
    """validation/results/ns2.json's entry for one configuration (results.py has the schema)."""
    from hscc import _core

    # The engine's own digest too: an extension built elsewhere need not be the tree's.
    rev = f"{results_file.revision() or 'an unknown revision'} (engine {_core.engine_digest()})"
    e = {
        "name": r["name"],
        "group": r["experiment"],
        "description": r["description"],
        "groups": r["groups"],
        "date": results_file.today(),
        "conditions": f"hscc at {rev}; ns-2.35 (Debian ns2); {r['seeds']} seeds, their means",
        "command": f"bash scripts/validate-ns2.sh --out DIR --only {r['name']}"
        + (f" --seeds {r['seeds']}" if r["seeds"] != DEFAULT_SEEDS else ""),
        "source": results_file.run_source("validation/ns2/validate.py"),
        "seeds": r["seeds"],
        "duration_s": r["duration_s"],
        "measured": {k: r["hscc"][k] for k in MEASURES},
        "reference": {k: r["ns2"][k] for k in MEASURES},
        "tolerance": dict(results_file.NS2_TOLERANCE),
        "delta": r["delta"],
    }
    if "variant_of" in r:  # hscc alone, against ns-2's numbers of the configuration's entry
        e["variant_of"], e["recovery"] = r["variant_of"], r["recovery"]
        e["conditions"] = (
            f'hscc at {rev}, every flow with recovery = "{r["recovery"]}"; ns-2.35\'s numbers '
            f"from {r['ns2_source']}; {r['seeds']} seeds, their means"
        )
        e["command"] = (
            f"bash scripts/validate-ns2.sh --out DIR --recovery {r['recovery']} "
            f"--only {r['variant_of']}"
        )
        e["source"] = results_file.run_source(
            f"validation/ns2/validate.py --recovery {r['recovery']}"
        )
    e["verdict"] = results_file.ns2_verdict(e)
    return e


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--out", required=True, type=Path, help="run directory (new or empty)")
    ap.add_argument(
        "--only",
        action="extend",
        nargs="+",
        default=[],
        metavar="NAME",
        help="these configurations only (one or more names; repeatable)",
    )
    ap.add_argument(
        "--seeds",
        type=int,
        help=f"seeds per tool (default {DEFAULT_SEEDS}; with --recovery, the entry's)",
    )
    ap.add_argument(
        "--recovery",
        choices=("sack1", "classic"),
        default="sack1",
        help="hscc's recovery (default the profile's sack1); classic runs hscc alone against "
        "the ns-2 numbers of each configuration's entry in the results file",
    )
    ap.add_argument(
        "--duration",
        type=float,
        metavar="SECONDS",
        help="another length than the configuration's (a smoke test: no results file)",
    )
    ap.add_argument(
        "--ns2-timeout", type=float, default=NS2_TIMEOUT_S, metavar="SECONDS", help="per ns-2 run"
    )
    ap.add_argument(
        "--ns2-from",
        type=Path,
        metavar="OLD_DIR",
        help="take ns-2's output from this earlier run directory where its script is the same",
    )
    ap.add_argument(
        "--trace-queues",
        action="store_true",
        help=f"also keep each tool's queue events at the bottleneck (both ways) and the senders' "
        f"access links: ns-2's trace ({tcl.QUEUE_TRACE}), hscc's captures and drops.parquet "
        "(with --duration: a few seconds)",
    )
    results_file.add_arguments(ap, results_file.NS2)
    args = ap.parse_args(argv)

    variant = args.recovery != "sack1"
    if not variant and shutil.which("ns") is None:
        ap.error("ns-2 (`ns`) is not on PATH: apt-get install ns2")
    unknown = [n for n in args.only if n not in configs.CONFIGS]
    if unknown:
        ap.error(f"unknown configuration {', '.join(unknown)}; known: {', '.join(configs.CONFIGS)}")
    if variant and args.seeds is not None:
        ap.error("--seeds with --recovery: the seeds are those of the stored ns-2 numbers")
    if args.trace_queues and (variant or args.duration is None):
        ap.error(
            "--trace-queues: with --duration (a trace of a few seconds) and ns-2's agent "
            "(not with --recovery)"
        )
    seeds = DEFAULT_SEEDS if args.seeds is None else args.seeds
    if not 1 <= seeds <= 20:
        ap.error(f"--seeds {seeds}: from 1 to 20")
    chosen = [configs.CONFIGS[n] for n in (args.only or configs.CONFIGS)]
    stored: dict[str, dict] = {}
    if variant:
        # The variant replaces the Sack1 agent's recovery: TCP-Linux's configurations have none.
        linux = [c.name for c in chosen if not sack1_only(c)]
        if args.only and linux:
            ap.error(f"--recovery: {', '.join(linux)} run TCP-Linux, not the Sack1 agent")
        chosen = [c for c in chosen if sack1_only(c)]
        doc = results_file.load(args.results) if args.results.is_file() else None
        stored = {e["name"]: e for e in (doc or {}).get("configurations", [])}
        missing = [c.name for c in chosen if c.name not in stored]
        if missing:
            ap.error(f"no ns-2 numbers in {args.results} for {', '.join(missing)}: run them first")
    if args.out.exists() and (not args.out.is_dir() or any(args.out.iterdir())):
        ap.error(f"{args.out} exists and is not an empty directory; give a new one")
    args.out.mkdir(parents=True, exist_ok=True)

    rows, entries = [], []
    for i, c in enumerate(chosen, 1):
        t0 = time.perf_counter()
        print(f"[{i}/{len(chosen)}] {c.name}", file=sys.stderr, flush=True)
        rows.append(
            run_variant(c, args.out, stored[c.name], args.recovery, args.duration)
            if variant
            else run_one(
                c,
                args.out,
                seeds,
                args.duration,
                args.ns2_timeout,
                args.ns2_from,
                args.trace_queues,
            )
        )
        entries.append(entry(rows[-1]))
        print(f"    {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
        (args.out / "results.json").write_text(json.dumps(rows, indent=1, ensure_ascii=False))
        # Each configuration's entry as soon as it is measured: a stopped run keeps what it did.
        if args.duration is None and not args.no_results:
            results_file.update(
                args.results,
                entries[-1:],
                "bash scripts/validate-ns2.sh --out DIR",
                **results_file.NS2_TOP,
            )
    md = (
        ns2_recovery(  # this run's entries beside the sack1 entries they vary
            {"configurations": [*stored.values(), *entries]}, args.recovery, entries
        )
        if variant
        else ns2_main({"configurations": entries}, None)
    )
    (args.out / "table.md").write_text(md)
    print(md)
    if args.duration is None and not args.no_results:
        print(f"wrote {args.results} (render.py --write updates the docs)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
