"""performance.json's simulators part: hscc against ns-2 and ns-3 on the same scenarios."""

from __future__ import annotations

from .markdown import _int, _table
from .performance import _measured, _median, _part, _sets, _times

SIMULATOR_TOOLS = {
    "hscc": ("hscc", "`hscc run -q`", "the Python API's simulation loop"),
    "ns2": ("ns-2", "`ns SCRIPT.tcl`", "minus a 0-s run of the same script"),
    "ns3": ("ns-3", "the C++ program", "`Simulator::Run()`, timed inside the program"),
}


def _rate(bps: float) -> str:
    return f"{bps / 1e9:g} Gbit/s" if bps >= 1e9 else f"{bps / 1e6:g} Mbit/s"


def _simulators_setups(part: dict) -> str:
    rows = [
        [
            s["name"],
            str(s["flows"]),
            _rate(s["rate_bps"]),
            f"{_int(s['buffer_packets'])} packets",
            _rate(s["access_bps"]),
            f"{s['rtt_s'] * 1000:g} ms",
            f"{s['seconds']:g} s",
        ]
        for s in part["scenarios"]
    ]
    head = ["scenario", "Reno flows", "bottleneck", "buffer", "access links", "RTT", "simulated"]
    return (
        f"Every flow: Reno with SACK, {part['mss']}-byte segments, an initial window of "
        f"{part['init_cwnd']}, an ACK per segment, no timestamps, a minimum RTO of "
        f"{part['min_rto_s'] * 1000:g} ms; a {part['bottleneck_delay_s'] * 1000:g}-ms bottleneck. "
        f"ns-2 {part['ns2']} (Debian's ns2), ns-3 {part['ns3']} (Debian's libns3-dev, the "
        f"program built by `{part['ns3_compiler']}`).\n\n" + _table(head, rows)
    )


def _simulators_ratios(part: dict) -> str:
    rows = []
    for s in part["scenarios"]:
        runs = s["runs"]
        for tool, (name, _, _) in SIMULATOR_TOOLS.items():
            whole = [r["cpu_s"] for r in runs[tool]]
            engine = [
                r["cpu_s"] if tool == "hscc" else r["engine_cpu_s"]
                for r in runs["hscc_engine" if tool == "hscc" else tool]
            ]
            events = runs["hscc_engine" if tool == "hscc" else tool][0].get("events")
            seg = runs[tool][0]["data_segments"]
            against = (
                ("–", "–")
                if tool == "hscc"
                else tuple(_times(_median(s["ratios"][tool][k])) for k in ("whole", "engine"))
            )
            rows.append(
                [
                    s["name"] if tool == "hscc" else "",
                    name,
                    f"{_median(whole):.3f} s",
                    f"{_median(engine):.3f} s",
                    *against,
                    _int(seg),
                    "–" if events is None else f"{events / seg:.2f}",
                ]
            )
    head = [
        "scenario",
        "simulator",
        f"whole process, CPU (median of {part['pairs']})",
        "engine alone, CPU",
        "whole process against hscc's",
        "engine against hscc's",
        "data segments delivered",
        "events per data segment",
    ]
    return _table(head, rows)


def _simulators_target(part: dict) -> str:
    rows = []
    for s in part["scenarios"]:
        hscc = _median([r["cpu_s"] for r in s["runs"]["hscc"]])
        ns2 = _median([r["cpu_s"] for r in s["runs"]["ns2"]])
        rows.append(
            [
                s["name"],
                f"{hscc:.3f} s",
                f"{ns2:.3f} s",
                "yes" if hscc < ns2 else "**not met**",
            ]
        )
    head = ["scenario", "`hscc run -q`", "ns-2's whole process", "hscc's CLI faster than ns-2's"]
    return _table(head, rows)


def perf_simulators(doc: dict, group: str | None) -> str:
    part = _part(doc, "simulators")
    if group == "setups":
        return _measured(part) + _simulators_setups(part)
    if group == "target":
        return _measured(part) + _simulators_target(part)
    how = "; ".join(f"{n}: {w}, engine alone {e}" for n, w, e in SIMULATOR_TOOLS.values())
    return (
        _measured(part)
        + f"{_sets(part['pairs'])} of runs, each tool in turn; CPU time (user + system). Whole "
        f"process and engine alone: {how}.\n\n" + _simulators_ratios(part)
    )
