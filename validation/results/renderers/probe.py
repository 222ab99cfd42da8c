"""performance.json's probe part: hscc's whole process against the lean probe."""

from __future__ import annotations

from .markdown import _f, _int, _met, _span, _table
from .performance import _measured, _median, _part, _sets, _times

# Hops of the probe part's test bed that the engine folds into the link before them
# (crates/hscc-sim/src/link/fold.rs), their packets crossing without an event of their own: the
# receiver's 10 Gbit/s access link behind the 700 Mbit/s bottleneck (data), the sender's behind
# the reverse bottleneck (ACKs).
FOLDED = ("access-d0:fwd", "access-s0:rev")


def _probe_cpu(part: dict) -> str:
    probe_cpu = [r["cpu_s"] for r in part["probe"]]
    rows = [
        [
            "lean probe (`validation/probe/probe.rs`)",
            f"{_median(probe_cpu):.3f} s",
            _span(probe_cpu, ".3f") + " s",
            "1.00×",
            "",
        ]
    ]
    for i, v in enumerate(part["hscc"]):
        cpu = [r["cpu_s"] for r in v["runs"]]
        ratio = _median(v["ratio"])
        verdict = ""
        if i == 0:
            met = _met(ratio, part["target"])
            verdict = f"≤ {part['target']}×: {met}"
        rows.append(
            [
                f"`hscc run -q`, {v['name']}",
                f"{_median(cpu):.3f} s",
                _span(cpu, ".3f") + " s",
                _times(ratio) + f" ({', '.join(_times(r) for r in v['ratio'])})",
                verdict,
            ]
        )
    head = [
        "whole process",
        f"CPU, median of {part['pairs']}",
        "range",
        "against the probe: median (each set)",
        "target",
    ]
    return _table(head, rows)


def _probe_events(part: dict) -> str:
    p = part["probe"][0]
    probe_cpu = _median([r["cpu_s"] for r in part["probe"]])
    rows = [
        [
            "lean probe",
            _int(p["events"]),
            _int(p["data_segments"]),
            f"{p['events'] / p['data_segments']:.2f}",
            "–",
            "–",
            "–",
            "1.00",
            f"{probe_cpu / p['events'] * 1e9:.0f} ns",
            f"{p['utilization']:.4f}",
        ]
    ]
    for v in part["hscc"]:
        r = v["runs"][0]
        seg = r["data_segments"]
        on_links = sum(r["link_packets"].values())
        folded = sum(r["link_packets"].get(name, 0) for name in FOLDED)
        cpu = _median([x["cpu_s"] for x in v["runs"]])
        rows.append(
            [
                f"hscc, {v['name']}",
                _int(r["events"]),
                _int(seg),
                f"{r['events'] / seg:.2f}",
                f"{on_links / seg:.2f}",
                f"{folded / seg:.2f}",
                f"{(r['events'] - on_links + folded) / seg:.2f}",
                f"{r['acks'] / seg:.2f}",
                f"{cpu / r['events'] * 1e9:.0f} ns",
                _f(r["utilization"], ".4f"),
            ]
        )
    head = [
        "run",
        "events",
        "data segments delivered",
        "events per data segment",
        "packets crossing links",
        "of them on folded hops (no event)",
        "other events",
        "ACKs per data segment",
        "whole-process CPU per event",
        "bottleneck utilization",
    ]
    return _table(head, rows)


def perf_probe(doc: dict, group: str | None) -> str:
    part = _part(doc, "probe")
    if group == "events":
        return _measured(part) + _probe_events(part)
    return (
        _measured(part)
        + f"{part['seconds']} s simulated; {_sets(part['pairs'])} of runs in turn (the probe, then "
        "each hscc run); CPU time (user + system) of each whole process. The probe built by "
        f"`{part['compiler']}` ({part['rustc']}), its compilation not counted.\n\n"
        + _probe_cpu(part)
    )
