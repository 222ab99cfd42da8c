"""Run one configuration's hscc scenario (from configs.hscc_scenario) and write its metrics.

    <hscc venv>/bin/python hscc_side.py SCENARIO.json OUT.json
    <hscc venv>/bin/python hscc_side.py --pending SCENARIO.json   # prints {"pending": [...], "equivalences": [...]}

Runs in hscc's own virtual environment (it imports hscc). The scenario names
every field the match needs, some of which this checkout of hscc may not have
yet; `adapt` turns it into one this checkout accepts:

- a missing field with an exact equivalent in today's fields is replaced by it,
  and the replacement is listed in "equivalences";
- a missing field without one is dropped and listed in "pending": the run is
  then the nearest set-up, not the matched one, and the harness reports it as
  pending, never as a verdict.
"""

from __future__ import annotations

import copy
import json
import sys
import time

import hscc
from hscc.reference import definitions

PACKET = 1500  # bytes of a full data packet before framing (1448 + 52)


def adapt(sc: dict) -> tuple[dict, list[str], list[str]]:
    """(scenario for this checkout, equivalences used, pending fields)."""
    sc = copy.deepcopy(sc)
    defs = definitions()  # the scenario format's fields, from the engine's schema
    flow_fields, link_fields, pair_fields = (set(defs[k]["properties"]) for k in ("FlowSpec", "LinkSpecIn", "PairSpec"))
    notes: list[str] = []
    pending: list[str] = []
    topo = sc["topology"]

    for f in sc["flows"]:
        for k in [k for k, v in f.items() if v is None]:
            del f[k]  # None: the field's default (init_ssthresh: infinite in both tools)
        if "delack_segments" in f and "delack_segments" not in flow_fields:
            n = f.pop("delack_segments")
            if (n, f.get("delayed_ack")) == (1, False):
                _once(notes, "delack_segments = 1 as delayed_ack = false (an ACK per segment)")
            elif (n, f.get("delayed_ack")) == (2, True):
                _once(notes, "delack_segments = 2 as delayed_ack = true (hscc ACKs every second segment)")
            else:
                _once(pending, "delack_segments")
        if "ack_counting" in f and "ack_counting" not in flow_fields:
            if f.pop("ack_counting") != "segments":  # "segments" is hscc's only behaviour today
                _once(pending, "ack_counting")
        for k in [k for k in f if k not in flow_fields]:
            f.pop(k)
            _once(pending, k)

    links = [topo["bottleneck"], topo.get("reverse") or {}]
    if any("framing" in d for d in links + topo["pairs"]) and not ("framing" in link_fields and "framing" in pair_fields):
        # A link of rate R sending PACKET + framing bytes per data packet delivers them at the
        # instants a link of rate R·PACKET/(PACKET + framing) delivers PACKET bytes: exact for
        # data packets (ACKs, 52 B, get 52.07 byte times instead of 54: 16 ns at 1 Gbit/s).
        for d in links + topo["pairs"]:
            if "framing" in d:
                d["rate"] = d["rate"] * PACKET / (PACKET + d.pop("framing"))
        _once(notes, "framing = 2 as link rates × 1500/1502 (exact for data packets)")

    bn = topo["bottleneck"]
    if "loss_point" in bn and "loss_point" not in link_fields:
        point = bn.pop("loss_point")
        topo.get("reverse", {}).pop("loss_point", None)
        if point != "after_queue":
            _once(pending, "loss_point")
        elif bn.get("loss", 0) > 0:
            sc = _as_graph(sc)
            _once(notes, "loss_point = after_queue as the loss on each receiver's access link (a graph): "
                         "a packet is lost after it crossed the bottleneck queue and link, before any other queue")
    for d in links:
        for k in [k for k in d if k not in link_fields]:
            d.pop(k)
            _once(pending, k)
    return sc, notes, pending


def _once(items: list[str], s: str) -> None:
    if s not in items:
        items.append(s)


def _as_graph(sc: dict) -> dict:
    """The dumbbell as a graph S_i - L = R - D_i with the bottleneck's loss moved onto R → D_i."""
    topo = sc["topology"]
    bn, pairs = dict(topo["bottleneck"]), topo["pairs"]
    loss = bn.pop("loss")
    rev = dict(topo.get("reverse") or bn)
    rev.pop("loss", None)
    nodes = ["L", "R"] + [f"S{i}" for i in range(len(pairs))] + [f"D{i}" for i in range(len(pairs))]
    links = [{"a": "L", "b": "R", "fwd": bn, "rev": rev, "monitor": True}]
    for i, p in enumerate(pairs):
        access = {"rate": p["rate"], "buffer": p["buffer"]}
        send = dict(access, delay=p["delay"])
        recv = dict(access, delay=p.get("recv_delay", 0.0))
        links.append({"a": f"S{i}", "b": "L", "fwd": send, "rev": send})
        links.append({"a": "R", "b": f"D{i}", "fwd": dict(recv, loss=loss), "rev": recv})
    flows = []
    for f in sc["flows"]:
        f = dict(f)
        i = f.pop("pair")
        flows.append(dict(f, src=f"S{i}", dst=f"D{i}"))
    return dict(sc, topology={"kind": "graph", "nodes": nodes, "links": links}, flows=flows)


def metrics(result: "hscc.Result") -> dict:
    duration = result.summary["duration_s"]
    half = duration / 2
    ts = result.timeseries
    dt = result.scenario.output.sample_interval
    flows = []
    for row in result.flows.iter_rows(named=True):
        samples = ts.filter(ts["flow"] == row["flow"])
        second = sum(b * dt / 8 for t, b in zip(samples["time_s"].to_list(), samples["throughput_bps"].to_list()) if t > half + dt / 2)
        flows.append({
            "flow": row["flow"], "label": row["label"], "algorithm": row["algorithm"], "start_s": row["start_s"],
            "rx_bytes": int(row["delivered_bytes"]), "rx_bytes_half": int(row["delivered_bytes"] - round(second)),
            "recoveries": int(row["recoveries"]), "timeouts": int(row["timeouts"]),
        })
    links = {r["name"]: r for r in result.links.iter_rows(named=True)}
    bottleneck = links.get("bottleneck:fwd") or links["L-R:fwd"]
    random = sum(r["drops_random"] for r in links.values())
    return {
        "tool": "hscc", "version": hscc.__version__, "duration_s": duration, "flows": flows,
        "bottleneck_queue_drops": int(bottleneck["drops_queue"]), "bottleneck_random_drops": int(random),
        "bottleneck_tx_packets": int(bottleneck["tx_packets"]),
        "wall_s": {"run": result.manifest["wall_time_s"]},
    }


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: hscc_side.py SCENARIO.json OUT.json | hscc_side.py --pending SCENARIO.json", file=sys.stderr)
        return 2
    with open(argv[2] if argv[1] == "--pending" else argv[1]) as fh:
        target = json.load(fh)
    sc, notes, pending = adapt(target)
    if argv[1] == "--pending":
        print(json.dumps({"pending": pending, "equivalences": notes}))
        return 0
    t0, c0 = time.perf_counter(), time.process_time()
    result = hscc.run(sc)
    out = dict(metrics(result), name=target["name"], equivalences=notes, pending=pending, scenario_run=sc,
               wall_total_s=time.perf_counter() - t0, cpu_s=time.process_time() - c0)
    with open(argv[2], "w") as fh:
        json.dump(out, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
