"""performance.json's engine benches: the test bed, its callgrind counts, flow counts,
many_flows, loss_burst, start-up and peak memory."""

from __future__ import annotations

import statistics

from .markdown import _int, _met, _pct, _span, _table
from .performance import _measured, _millions, _part, _sci


def perf_testbed(doc: dict, group: str | None) -> str:
    part = _part(doc, "testbed")
    rows = []
    for length in part["lengths"]:
        runs = length["runs"]
        peak = [r["peak_memory_mb"] for r in runs if "peak_memory_mb" in r]
        rows.append(
            [
                f"{length['seconds']} s",
                str(len(runs)),
                _span([r["wall_s"] for r in runs], ".2f") + " s",
                _int(runs[0]["events"]),
                _int(runs[0]["packets"]),
                _millions([r["events_per_s"] for r in runs]),
                f"{runs[0]['utilization']:.4f}",
                _span(peak, ".1f") + " MB" if peak else "–",
            ]
        )
    head = [
        "simulated",
        "runs",
        "wall time",
        "events",
        "packets (data + ACKs)",
        "events per wall second",
        "bottleneck utilization",
        "peak memory (VmHWM)",
    ]
    return _measured(part) + _table(head, rows)


# A callgrind variant of the test bed in words.
PERF_VARIANTS = {
    "reno": "Reno",
    "bbr": "BBR (`cc=bbr`)",
    "classic": "classic recovery (`classic`: three duplicate ACKs) instead of Linux's",
    "red": "RED (`red`)",
    "codel": "CoDel (`codel`)",
    "codel-ecn": "CoDel with ECN (`codel ecn`)",
    "pie": "PIE (`pie`)",
    "fq_codel": "FQ-CoDel (`fq_codel`)",
    "cclog": "per-ACK congestion-control log, all 8 flows (`cclog`)",
    "pcap": "packet captures, flow 0 and the bottleneck, snaplen 128 (`pcap`)",
}


def _per_packet(v: dict) -> float:
    return v["instructions"] / v["packets"]


def _against(v: dict, base: dict) -> str:
    return _pct(_per_packet(v) / _per_packet(base) - 1)


def perf_callgrind(doc: dict, group: str | None) -> str:
    part = _part(doc, "callgrind")
    variants = [v for v in part["variants"] if group is None or v["group"] == group]
    base = next(v for v in part["variants"] if v["name"] == "reno")
    intro = (
        _measured(part) + f"{part['seconds']} s simulated, instructions counted by callgrind.\n\n"
    )
    if group == "probe":
        return intro + _against_probe(part, base)
    if group == "features":
        rows = []
        for v in variants:
            extra = base["instructions"]
            what = "–"
            if "cc_log_rows" in v:
                n = v["cc_log_rows"]
                what = (
                    f"{_int(n)} rows; {_int((v['instructions'] - extra) / n)} instructions per row"
                )
            elif "captures" in v:
                n = sum(c["packets"] for c in v["captures"].values())
                mb = sum(c["mb"] for c in v["captures"].values())
                what = (
                    f"{_int(n)} packets captured ({mb:.1f} MB); "
                    f"{_int((v['instructions'] - extra) / n)} instructions per captured packet"
                )
            rows.append(
                [
                    PERF_VARIANTS.get(v["name"], v["name"]),
                    _sci(v["instructions"]),
                    _int(_per_packet(v)),
                    _against(v, base),
                    what,
                ]
            )
        head = [
            "on the test bed",
            "instructions",
            "per packet",
            "per packet against Reno",
            "what it records",
        ]
        return intro + _table(head, rows)
    rows = [
        [
            PERF_VARIANTS.get(v["name"], v["name"]),
            _sci(v["instructions"]),
            _int(v["packets"]),
            _int(v["events"]),
            f"{v['events'] / v['packets']:.2f}",
            _int(_per_packet(v)),
            _int(v["instructions"] / v["events"]),
            f"{_per_packet(v) / _per_packet(base):.2f}×",
        ]
        for v in variants
    ]
    head = [
        "algorithm",
        "instructions",
        "packets (data + ACKs)",
        "events",
        "events per packet",
        "instructions per packet",
        "per event",
        "per packet against Reno",
    ]
    return intro + _table(head, rows)


def _against_probe(part: dict, reno: dict) -> str:
    """The lean probe's instructions beside the engine's on the Reno test bed, per data
    segment delivered and per event."""
    probe = part["probe"]
    per_segment = probe["instructions"] / probe["data_segments"]
    level = part.get("second_level")
    cached = level is not None and "cache" in probe and "cache" in reno
    rows = []
    for name, v in (
        ("lean probe (`validation/probe/probe.rs`)", probe),
        ("hscc's engine, Reno (the testbed bench)", reno),
    ):
        row = [
            name,
            _sci(v["instructions"]),
            _int(v["data_segments"]),
            _int(v["events"]),
            _int(v["instructions"] / v["data_segments"]),
            _int(v["instructions"] / v["events"]),
            f"{v['instructions'] / v['data_segments'] / per_segment:.2f}×",
        ]
        if cached:
            c, seg = v["cache"], v["data_segments"]
            row += [
                f"{(c['D1mr'] + c['D1mw']) / seg:.1f}",
                f"{(c['DLmr'] + c['DLmw']) / seg:.2f}",
            ]
        rows.append(row)
    head = [
        "run",
        "instructions",
        "data segments delivered",
        "events",
        "instructions per data segment",
        "per event",
        "per data segment against the probe",
    ]
    note = ""
    if cached:
        head += [
            "first-level data misses per data segment",
            f"misses of a {level['bytes'] // 1024} kB second level per data segment",
        ]
        note = (
            f"Cache misses as callgrind simulates them, with this machine's per-core second "
            f"level ({level['bytes'] // 1024} kB, {level['ways']}-way, {level['line']}-byte "
            "lines) as the last level.\n\n"
        )
    return note + _table(head, rows)


# The flows bench's target: the engine's time per data segment at the last count within 2× of
# the first's.
FLOWS_TARGET = 2.0


def _per_segment(count: dict) -> float:
    """A flows count's engine time per data segment, seconds."""
    return count["engine_s"] / count["data_segments"]


def perf_flows(doc: dict, group: str | None) -> str:
    part = _part(doc, "flows")
    counts = part["counts"]
    per = _per_segment

    def lean(c: dict) -> float:
        return c["probe"]["loop_s"] / c["probe"]["data_segments"]

    rows = []
    for c in counts:
        rows.append(
            [
                _int(c["flows"]),
                f"{c['build_s']:.3f} s",
                f"{c['engine_s']:.2f} s",
                _int(c["data_segments"]),
                f"{c['events'] / c['data_segments']:.2f}",
                f"{per(c) * 1e9:.0f} ns{_slower_runs(c)}",
                f"{per(c) / per(counts[0]):.2f}×",
                f"{lean(c) * 1e9:.0f} ns",
                f"{lean(c) / lean(counts[0]):.2f}×",
                f"{per(c) / lean(c):.2f}×",
                ("–" if c["utilization"] is None else f"{c['utilization']:.4f}")
                + f" / {c['probe']['utilization']:.4f}",
            ]
        )
    first = _int(counts[0]["flows"])
    head = [
        "flows",
        "build",
        "engine",
        "data segments",
        "events per segment",
        "engine per data segment",
        f"against {first} flows",
        "lean probe per data segment",
        f"probe against {first} flows",
        "engine / probe",
        "bottleneck utilization (hscc / probe)",
    ]
    return (
        _measured(part)
        + f"{part['seconds']:g} s simulated. Build: the scenario checked, resolved (routes, "
        "estimate) and assembled; engine: the simulation loop alone; lean probe: "
        f"`probe {part['seconds']:g} FLOWS`'s loop on the same dumbbell"
        + (
            f"; each the fastest of {part['repeats']} runs, the counts in turn"
            + (
                " (in brackets, the engine's other runs)"
                if any("engine_runs_s" in c for c in counts)
                else ""
            )
            if part.get("repeats", 1) > 1
            else ""
        )
        + ".\n\n"
        + _table(head, rows)
        + _flows_verdict(counts[0], counts[-1], per(counts[-1]) / per(counts[0]))
        + _flows_one_pair(part.get("one_pair"), per(counts[0]))
        + _flows_misses(part.get("cache"))
    )


def _flows_verdict(first: dict, last: dict, ratio: float) -> str:
    met = _met(ratio, FLOWS_TARGET)
    return (
        f"\nTarget: at {_int(last['flows'])} flows within {FLOWS_TARGET:g}× of "
        f"{_int(first['flows'])} flows per data segment: {ratio:.2f}×, {met}.\n"
    )


def _flows_one_pair(counts: list[dict] | None, first_per_segment: float) -> str:
    """The same dumbbell with every flow on one host pair, against its own first count and
    against the first count with a pair each; nothing where the part has none."""
    if not counts:
        return ""
    per = _per_segment
    first = _int(counts[0]["flows"])
    rows = [
        [
            _int(c["flows"]),
            f"{c['engine_s']:.2f} s",
            _int(c["data_segments"]),
            f"{c['events'] / c['data_segments']:.2f}",
            f"{per(c) * 1e9:.0f} ns{_slower_runs(c)}",
            f"{per(c) / per(counts[0]):.2f}×",
            f"{per(c) / first_per_segment:.2f}×",
        ]
        for c in counts
    ]
    head = [
        "flows",
        "engine",
        "data segments",
        "events per segment",
        "engine per data segment",
        f"against {first} flows on one pair",
        f"against {first} flows, a pair each",
    ]
    return (
        "\nThe same flows all on one host pair, the rest of the dumbbell as above: its four "
        "access links carry every flow, so what grows with the flows is each flow's own "
        "state (its sender, receiver and timers):\n\n" + _table(head, rows)
    )


def _slower_runs(count: dict) -> str:
    """The other repeats' engine time per data segment beside the fastest's, as the table
    keeps the fastest: how far one count's runs spread on this host."""
    runs = sorted(count.get("engine_runs_s", []))[1:]
    if not runs:
        return ""
    return " (" + ", ".join(f"{r / count['data_segments'] * 1e9:.0f}" for r in runs) + ")"


def _flows_misses(cache: dict | None) -> str:
    """The simulation loop's instructions and cache misses per event at the first and the
    last count, as callgrind simulates them; nothing where the part has none."""
    if not cache:
        return ""
    level = cache["second_level"]
    rows = [
        [
            _int(c["flows"]) + (" on one host pair" if c.get("one_pair") else ""),
            _int(c["events"]),
            f"{c['per_event']['instructions']:.0f}",
            f"{c['per_event']['first_level_misses']:.2f}",
            f"{c['per_event']['second_level_read_misses']:.2f}",
            f"{c['per_event']['second_level_write_misses']:.2f}",
        ]
        for c in cache["counts"]
    ]
    head = [
        "flows",
        "events counted",
        "instructions per event",
        "first-level data misses per event",
        "second-level read misses per event",
        "second-level write misses per event",
    ]
    return (
        f"\nThe simulation loop under callgrind's cache simulation, this machine's per-core "
        f"second level ({level['bytes'] // 1024} kB, {level['ways']}-way, {level['line']}-byte "
        f"lines) as the last level, counted over the last {cache['seconds']:g} s of a "
        f"{cache['warm_s'] + cache['seconds']:g}-s run:\n\n" + _table(head, rows)
    )


def perf_many_flows(doc: dict, group: str | None) -> str:
    part = _part(doc, "many_flows")
    rows = []
    for c in part["counts"]:
        runs = c["runs"]
        jain = [r["jain"] for r in runs if r["jain"] is not None]
        rows.append(
            [
                str(c["flows"]),
                str(len(runs)),
                _span([r["wall_s"] for r in runs], ".2f") + " s",
                _millions([r["data_segments_per_s"] for r in runs]),
                _millions([r["events_per_s"] for r in runs]),
                f"{runs[0]['utilization']:.4f}",
                _span(jain, ".3f"),
                f"{_int(runs[0]['web_completed'])} of {_int(runs[0]['web_started'])}",
            ]
        )
    head = [
        "flows",
        "runs",
        "wall time",
        "data segments/s",
        "events/s",
        "utilization",
        "Jain (long flows)",
        "web transfers completed",
    ]
    return _measured(part) + _table(head, rows)


PERF_RECOVERY = {
    "SACK": "Linux's (SACK, RACK-TLP; the default)",
    "NewReno": "NewReno (`-- newreno`)",
}
# The loss_burst bench's target: ns per event at every window within 1.5× of the smallest's.
LOSS_BURST_TARGET = 1.5


def perf_loss_burst(doc: dict, group: str | None) -> str:
    part = _part(doc, "loss_burst")
    windows = [w["window"] for w in part["recoveries"][0]["windows"]]
    rows = []
    bench_runs = part["bench_runs"]
    for r in part["recoveries"]:
        ws = r["windows"]
        ratios = r["ratios"]  # each bench run's own slowest window over its first
        ratio = statistics.median(ratios)
        each = f" ({', '.join(f'{x:.2f}×' for x in ratios)})" if bench_runs > 1 else ""
        rows.append(
            [PERF_RECOVERY.get(r["recovery"], r["recovery"]), _int(r["runs"])]
            + [
                f"{w['ns_per_event']:.0f} ns/event ({_int(w['events'])} events{_timeouts(w)})"
                for w in ws
            ]
            + [f"{ratio:.2f}×{each}", _met(ratio, LOSS_BURST_TARGET)]
        )
    largest = f"largest / W = {_int(windows[0])}"
    if bench_runs > 1:
        largest += f": median of {bench_runs} bench runs (each)"
    head = (
        ["recovery", "runs"]
        + [f"W = {_int(w)}" for w in windows]
        + [largest, f"≤ {LOSS_BURST_TARGET:g}×"]
    )
    return _measured(part) + _table(head, rows)


def _timeouts(window: dict) -> str:
    """A window's retransmission timeouts, when it had any: the bench's timeout cases."""
    n = window.get("timeouts", 0)
    return f", {n} timeout{'s' if n > 1 else ''}" if n else ""


def perf_startup(doc: dict, group: str | None) -> str:
    part = _part(doc, "startup")
    rows = [
        [c["name"], f"{c['median_s']:.3f} s", _span(c["cpu_s"], ".3f") + " s"]
        for c in part["commands"]
    ]
    head = ["command", f"CPU, median of {part['runs']} runs", "range"]
    return _measured(part) + f"Python {part['python']}.\n\n" + _table(head, rows)


def perf_memory(doc: dict, group: str | None) -> str:
    part = _part(doc, "memory")
    rows = [
        [
            f"{c['name']}, {c['seconds']:g} s",
            _bytes(c["estimate_bytes"]),
            _span([p / 1e6 for p in c["peak_bytes"]], ".0f") + " MB",
            _span([c["estimate_bytes"] / p for p in c["peak_bytes"]], ".2f"),
        ]
        for c in part["cases"]
    ]
    head = ["run", "estimate", f"peak, {part['runs']} runs", "estimate / peak"]
    return (
        _measured(part)
        + "Whole process: the peak resident memory of `hscc run -q` (its VmHWM as it exits). A run of one "
        f"flow for 0.2 s peaks at {part['interpreter_bytes'] / 1e6:.0f} MB: the interpreter and "
        "the modules `hscc run` imports, which the estimate does not count.\n\n"
        + _table(head, rows)
    )


def _bytes(n: float) -> str:
    return f"{n / 1e9:.2f} GB" if n >= 1e9 else f"{n / 1e6:.0f} MB"
