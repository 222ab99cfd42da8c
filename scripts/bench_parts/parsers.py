"""The parsers of the benches' printed figures: each reads its lines by their labels and
stops with an error naming the missing line when a bench's output changes."""

from __future__ import annotations

import json
import re


def _field(text: str, bench: str, label: str, pattern: str = r"(\S+)") -> re.Match:
    """The line `  LABEL   VALUE…` of a bench's output; an error naming it when it is missing."""
    m = re.search(rf"^\s*{re.escape(label)}\s+{pattern}", text, re.M)
    if m is None:
        raise ValueError(f"{bench} output: no line {label!r} (has the bench's output changed?)")
    return m


def _float(text: str, bench: str, label: str) -> float:
    return float(_field(text, bench, label).group(1))


def _int(text: str, bench: str, label: str) -> int:
    return int(_field(text, bench, label).group(1))


def parse_testbed(text: str) -> dict:
    """The testbed bench's figures (crates/hscc-sim/benches/testbed.rs)."""
    head = re.search(
        r"^testbed: (\d+) (\S+) flows, .*?, (\d+) s simulated, (.*) recovery$", text, re.M
    )
    if head is None:
        raise ValueError("testbed output: no first line 'testbed: N ALGO flows, …'")
    drops = _field(
        text,
        "testbed",
        "bottleneck drops/marks",
        r"(\d+) queue, (\d+) aqm, (\d+) marks; mean queuing delay ([\d.]+) ms",
    )
    counts = _field(
        text,
        "testbed",
        "recoveries",
        r"(\d+), timeouts (\d+), retransmissions (\d+), RACK-marked (\d+), probes (\d+), undos (\d+)",
    )
    out = {
        "flows": int(head.group(1)),
        "algorithm": head.group(2),
        "seconds": int(head.group(3)),
        "recovery": head.group(4),
        "queue": _field(text, "testbed", "queue", r"(.+)$").group(1).strip(),
        "utilization": _float(text, "testbed", "bottleneck utilization"),
        "drops_queue": int(drops.group(1)),
        "drops_aqm": int(drops.group(2)),
        "marks": int(drops.group(3)),
        "mean_qdelay_ms": float(drops.group(4)),
        "data_segments": _int(text, "testbed", "data segments delivered"),
        "packets": _int(text, "testbed", "packets delivered"),
        "events": _int(text, "testbed", "events"),
        **dict(
            zip(
                ("recoveries", "timeouts", "retransmissions", "rack_marked", "probes", "undos"),
                (int(g) for g in counts.groups()),
                strict=True,
            )
        ),
        "wall_s": _float(text, "testbed", "wall time"),
        "events_per_s": _float(text, "testbed", "events/s"),
    }
    log = re.search(r"^\s*per-ACK log\s+(\d+) rows, (\d+) ACKs sent", text, re.M)
    if log:
        out["cc_log_rows"] = int(log.group(1))
    captures = re.findall(r"^\s*capture (\S+)\s+(\d+) packets, ([\d.]+) MB", text, re.M)
    if captures:
        out["captures"] = {n: {"packets": int(p), "mb": float(mb)} for n, p, mb in captures}
    peak = re.search(r"^\s*peak memory\s+([\d.]+) MB", text, re.M)
    if peak:  # from /proc/self/status: Linux only
        out["peak_memory_mb"] = float(peak.group(1))
    return out


def parse_many_flows(text: str) -> dict:
    """The many_flows bench's figures (crates/hscc-sim/benches/many_flows.rs)."""
    head = re.search(r"^many flows: (\d+) reno flows", text, re.M)
    if head is None:
        raise ValueError("many_flows output: no first line 'many flows: N reno flows …'")
    jain = _field(text, "many_flows", "Jain index (long flows)", r"(.+)$").group(1).strip()
    web = _field(text, "many_flows", "web transfers completed", r"(\d+) of (\d+)")
    m = re.fullmatch(r"Some\(([\d.eE+-]+)\)", jain)
    return {
        "flows": int(head.group(1)),
        "utilization": _float(text, "many_flows", "bottleneck utilization"),
        "jain": float(m.group(1)) if m else None,
        "web_completed": int(web.group(1)),
        "web_started": int(web.group(2)),
        "wall_s": _float(text, "many_flows", "wall time"),
        "data_segments_per_s": _float(text, "many_flows", "data segments/s"),
        "events_per_s": _float(text, "many_flows", "events/s"),
    }


def parse_loss_burst(text: str) -> dict:
    """The loss_burst bench's table (crates/hscc-sim/benches/loss_burst.rs): per window, the
    events, retransmissions and timeouts of one run and the fastest run's wall time and ns
    per event."""
    head = re.search(r"^loss burst: (\w+), .*; fastest of (\d+) runs in all$", text, re.M)
    if head is None:
        raise ValueError("loss_burst output: no first line 'loss burst: RECOVERY, …'")
    rows = [
        {
            "window": int(w),
            "events": int(ev),
            "wall_s": float(wall),
            "ns_per_event": float(ns),
            "retransmissions": int(rt),
            "timeouts": int(rto),
        }
        for w, ev, wall, ns, rt, rto in re.findall(
            r"^\s*(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+(\d+)\s+(\d+)\s+[\d.]+×$", text, re.M
        )
    ]
    if not rows:
        raise ValueError("loss_burst output: no rows under 'window events wall s …'")
    return {"recovery": head.group(1), "runs": int(head.group(2)), "windows": rows}


def parse_probe(text: str) -> dict:
    """The lean probe's figures (validation/probe/probe.rs)."""
    head = re.search(r"^probe: (\d+) Reno flows, .* (\d+) s simulated$", text, re.M)
    if head is None:
        raise ValueError("probe output: no first line 'probe: N Reno flows, …'")
    return {
        "flows": int(head.group(1)),
        "seconds": int(head.group(2)),
        "events": _int(text, "probe", "events"),
        "data_segments_sent": _int(text, "probe", "data segments sent"),
        "data_segments": _int(text, "probe", "data segments delivered"),
        "drops": _int(text, "probe", "bottleneck drops"),
        "utilization": _float(text, "probe", "bottleneck utilization"),
        "wall_s": _float(text, "probe", "wall time"),
    }


def parse_ns3(text: str) -> dict:
    """validation/ns3/bench_dumbbell.cc's line: Simulator::Run's CPU time, events, bytes."""
    m = re.search(r"^\{.*\}$", text, re.M)
    if m is None:
        raise ValueError("bench_dumbbell output: no JSON line")
    out = json.loads(m.group(0))
    missing = {"run_cpu_s", "events", "rx_bytes"} - set(out)
    if missing:
        raise ValueError(f"bench_dumbbell output: no {', '.join(sorted(missing))}")
    return out


def parse_callgrind_misses(stderr: str) -> dict[str, int]:
    """With --cache-sim=yes: callgrind's counts by event (Ir, D1mr, D1mw, DLmr, DLmw...) from
    its `Events :` and `Collected :` lines on stderr."""
    names = re.search(r"^==\d+== Events\s*: (.+)$", stderr, re.M)
    counts = re.search(r"^==\d+== Collected : (.+)$", stderr, re.M)
    if names is None or counts is None:
        raise ValueError("callgrind output: no lines '==PID== Events : …' and 'Collected : …'")
    out = dict(zip(names.group(1).split(), map(int, counts.group(1).split()), strict=True))
    if "D1mr" not in out:
        raise ValueError("callgrind output: no cache events (run with --cache-sim=yes)")
    return out


def parse_callgrind(stderr: str) -> int:
    """The instructions callgrind counted (its `Collected : N` line on stderr)."""
    m = re.search(r"^==\d+== Collected : (\d+)", stderr, re.M)
    if m is None:
        raise ValueError("callgrind output: no line '==PID== Collected : N'")
    return int(m.group(1))
