"""What Dummynet's 1 ms service tick does to CTCP Table 2's RTT fairness, and which part of
the test bed decides it.

One point of the ctcp-table2 experiment (two HSTCP flows at 40 ms against two at 240 ms,
RFC 3649's formulas, 700 Mbit/s, 1000 packets), read from the experiment file, run in six
set-ups: the experiment's dumbbell served continuously (its main set-up), ticked in both
directions (its variant `tick`) or in the data direction only; and the paper's test bed as
a graph (Fig. 7: one host per flow, a gigabit switch whose one 1 Gbit/s port feeds the
router, the Dummynet pipe, the router's one 1 Gbit/s port to the receivers' switch) in the
same three ways. Per set-up and seed: the short flows' goodput over the long flows', the
loss events (recoveries + timeouts) per short and per long flow, the total goodput, and the
drops at the pipe and at the switch's port.

    python validation/dummynet/tick.py [--seeds 3] [--duration 120]   # writes validation/results/dummynet.json
"""

from __future__ import annotations

import argparse
import copy
import statistics
import sys
from pathlib import Path
from typing import Any

import hscc
import hscc.reproduce as rep
from hscc import _core

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "results"))
import results  # noqa: E402

OUT = HERE.parent / "results" / "dummynet.json"
TICK = "1ms"
SWITCH_BUFFER = "1000pkts"  # the switch port's; not stated (D-Link DGS-1008T)


def point(duration: float) -> dict[str, Any]:
    """ctcp-table2's base at an RTT ratio of 6 with HSTCP (its swept fields set)."""
    exp = rep.find("ctcp-table2")
    assert exp is not None
    base = copy.deepcopy(exp.sweep["base"])
    base["duration"] = f"{duration:g}s"
    base["topology"]["pairs"][1]["rtt"] = "240ms"
    for f in base["flows"]:
        f["algorithm"] = "highspeed"
        f["params"] = {"response": 1}
    return base


def dumbbell(base: dict[str, Any], tick: str) -> dict[str, Any]:
    sc = copy.deepcopy(base)
    bottleneck = sc["topology"]["bottleneck"]
    if tick != "none":
        sc["topology"]["reverse"] = dict(bottleneck)  # continuous unless ticked both ways
        bottleneck["tick"] = TICK
        if tick == "both":
            sc["topology"]["reverse"]["tick"] = TICK
    return sc


def testbed(base: dict[str, Any], tick: str) -> dict[str, Any]:
    """The same flows on Fig. 7's test bed: each flow its own host; the long flows' extra
    delay on their hosts' links (whole ticks, so every flow keeps its phase in the tick)."""
    sc = copy.deepcopy(base)
    pipe = sc["topology"]["bottleneck"]
    short_rtt, long_rtt = 0.040, 0.240
    one_way_pipe = 0.020
    hosts, links, flows = [], [], []
    k = 0
    for f in base["flows"]:
        extra = (long_rtt if f["pair"] == 1 else short_rtt) / 2 - one_way_pipe
        for _ in range(f.get("count", 1)):
            s, d = f"s{k}", f"d{k}"
            hosts += [s, d]
            links.append(_link(s, "switch_l", "1Gbps", f"{extra * 1e3:g}ms", "1000pkts"))
            links.append(_link("switch_r", d, "1Gbps", "0ms", "1000pkts"))
            flow = {key: v for key, v in f.items() if key not in ("pair", "count")}
            flows.append({**flow, "label": f"{f['label']} {k}", "src": s, "dst": d})
            k += 1
    fwd = {key: pipe[key] for key in ("rate", "delay", "buffer")}
    rev = dict(fwd)
    if tick != "none":
        fwd["tick"] = TICK
        if tick == "both":
            rev["tick"] = TICK
    links.append(_link("switch_l", "router_in", "1Gbps", "0ms", SWITCH_BUFFER))
    links.append({"a": "router_in", "b": "router_out", "fwd": fwd, "rev": rev, "monitor": True})
    links.append(_link("router_out", "switch_r", "1Gbps", "0ms", "1000pkts"))
    sc["topology"] = {
        "kind": "graph",
        "nodes": hosts + ["switch_l", "router_in", "router_out", "switch_r"],
        "links": links,
    }
    sc["flows"] = flows
    return sc


def _link(a: str, b: str, rate: str, delay: str, buffer: str) -> dict[str, Any]:
    return {"a": a, "b": b, "fwd": {"rate": rate, "delay": delay, "buffer": buffer}}


SETUPS = [
    ("dumbbell, continuous", "the experiment's main set-up", dumbbell, "none"),
    ("dumbbell, tick both ways", "the experiment's variant tick", dumbbell, "both"),
    ("dumbbell, tick on data only", "ACKs not through a ticked pipe", dumbbell, "data"),
    ("test bed, continuous", "Fig. 7 as a graph", testbed, "none"),
    ("test bed, tick both ways", "Fig. 7, ACKs through a ticked pipe", testbed, "both"),
    ("test bed, tick on data only", "Fig. 7, ACKs not ticked", testbed, "data"),
]


def measure(sc: dict[str, Any], seed: int) -> dict[str, float]:
    r = hscc.run(hscc.Scenario.parse({**sc, "seed": seed}, "tick.py"))
    fl = r.flows
    short = fl.filter(fl["label"].str.starts_with("short"))
    long = fl.filter(fl["label"].str.starts_with("long"))
    events = (fl["recoveries"] + fl["timeouts"]).to_list()
    n_short = short.height
    links = dict(zip(r.links["name"], r.links["drops_queue"], strict=True))
    pipe = sum(v for k, v in links.items() if k in ("bottleneck:fwd", "router_in-router_out:fwd"))
    return {
        "ratio": short["goodput_bps"].sum() / long["goodput_bps"].sum(),
        "goodput_bps": fl["goodput_bps"].sum(),
        "loss_events_short": sum(events[:n_short]) / n_short,
        "loss_events_long": sum(events[n_short:]) / (fl.height - n_short),
        "pipe_drops": pipe,
        "switch_drops": links.get("switch_l-router_in:fwd", 0),
    }


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--duration", type=float, default=120.0, help="seconds (default 120)")
    results.add_arguments(ap, OUT)
    args = ap.parse_args()
    base = point(args.duration)
    rows = []
    for name, what, shape, tick in SETUPS:
        runs = [measure(shape(base, tick), seed) for seed in range(1, args.seeds + 1)]
        mean = {k: statistics.fmean(r[k] for r in runs) for k in runs[0]}
        rows.append({"name": name, "description": what, "runs": runs, "mean": mean})
        print(
            f"{name:30} ratio {mean['ratio']:7.1f}  loss events short {mean['loss_events_short']:5.1f} "
            f"long {mean['loss_events_long']:5.1f}  {mean['goodput_bps'] / 1e6:5.0f} Mbit/s",
            flush=True,
        )
    doc = {
        "command": "python validation/dummynet/tick.py",
        "date": results.today(),
        "revision": results.revision(),
        "engine": _core.engine_digest(),
        "point": "ctcp-table2, RTT ratio 6, HSTCP (response = 1)",
        "duration_s": args.duration,
        "seeds": list(range(1, args.seeds + 1)),
        "switch_buffer": SWITCH_BUFFER,
        "configurations": rows,
    }
    if not args.no_results:
        results.write(args.results, doc)
        print(f"wrote {args.results}")


if __name__ == "__main__":
    main()
