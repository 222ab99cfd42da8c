"""What a kernel run measured, read from the kernel and turned into the run
directory a simulation writes (hscc.results: the same tables, columns and
units), so `hscc plot`, `hscc.load` and `hscc compare` take it unchanged.

Sources, per table:
- flows: the receiver's byte count (goodput, completion) and the sender
  socket's TCP_INFO at the end (cwnd, sRTT, min RTT, segments sent,
  retransmissions, delivered, timeouts), and the recovery counter
  (recovery.bpf.c: recoveries). Counters neither has per flow (RACK-marked
  losses, TLPs, undos, ACKs sent, slow-start time) are null; the senders'
  namespace-wide TcpExt counters are in the manifest (kernel_run.netstat).
- timeseries: per grid point, the goodput over the interval (receiver), cwnd,
  sRTT and the socket's pacing rate (TCP_INFO), and four columns a simulation
  lacks: delivery_rate_bps (the kernel's rate sample), ssthresh, retrans
  (cumulative), ca_state (the congestion state at the sample, named as the
  per-ACK log names them).
- queues, links: the bottleneck's pfifo (tc -s qdisc) at each grid point:
  backlog in packets and bytes, drops and bytes sent in the interval. The
  queuing delay is the backlog at the sample over the rate (what a packet
  arriving then waits), not a mean over departing packets as in a simulation.
"""

from __future__ import annotations

import json
import math
import subprocess
import time
from collections.abc import Callable
from itertools import pairwise
from typing import Any, NamedTuple

import polars as pl

from hscc import _core
from hscc.compare import jain
from hscc.kernel.netns import sh
from hscc.kernel.programs import KernelError
from hscc.results import (
    FLOWS,
    QUEUES,
    TIMESERIES,
    UDP,
    WEB,
    Result,
    fsum_mean,
)
from hscc.results import (
    LINKS as LINKS_SCHEMA,
)
from hscc.testbed import recovery
from hscc.testbed.plan import Plan

LINKS = (("bottleneck:fwd", "tf", "L", "R"), ("bottleneck:rev", "tr", "R", "L"))
EXTRA_TIMESERIES = {
    "delivery_rate_bps": pl.Float64,
    "ssthresh": pl.UInt32,
    "retrans": pl.UInt64,
    "ca_state": pl.String,
}
CA_STATES = _core.cc_log_names()[
    1
]  # tcpi_ca_state's values by number: open, disorder, cwr, recovery, loss
NULL_COUNTERS = (
    "lost_fast",
    "rack_lost",
    "tlps",
    "undos",
    "acks_sent",
    "ecn_reductions",
    "ce_received",
)
UNSET_SSTHRESH = 0x7FFFFFFF  # TCP_INFO's "infinite" ssthresh (TCP_INFINITE_SSTHRESH)


def qdiscs(ns: str) -> list[dict[str, Any]]:
    """Every qdisc of namespace `ns` with its counters (tc -s -j)."""
    found: list[dict[str, Any]] = json.loads(
        sh("tc", "-n", ns, "-s", "-j", "qdisc", "show") or "[]"
    )
    return found


def _queue(all_qdiscs: list[dict[str, Any]], dev: str) -> dict[str, Any]:
    for q in all_qdiscs:
        if q.get("dev") == dev and q.get("parent") == "1:1":
            return q
    raise KernelError(f"the bottleneck's queue on {dev} is gone")


class QueueSample(NamedTuple):
    """The bottleneck queues' counters as one `tc` call read them, sometime between `asked` and `t`
    (seconds since the run's start)."""

    t: float
    queues: dict[str, dict[str, Any]]
    asked: float


def sample_queues(
    router: str,
    t0: float,
    interval: float,
    duration: float,
    procs: dict[str, subprocess.Popen[str]],
    progress: Callable[[float], None] | None = None,
) -> list[QueueSample]:
    """The bottleneck queues at t0 + k·interval until the end; stops early (KernelError) if a process dies.
    A grid point that passed while `tc` ran is skipped, not sampled late: on a loaded machine one `tc`
    call can outlast a 10 ms interval, and late samples would run on past the end of the run."""
    n = int(round(duration / interval))
    out = []
    k = 0
    while k <= n:
        t = t0 + k * interval
        while (left := t - time.monotonic()) > 0:
            time.sleep(min(left, 0.25))
            for what, p in procs.items():
                if p.poll() is not None and p.returncode != 0:
                    err = p.stderr.read().strip() if p.stderr is not None else ""
                    raise KernelError(
                        f"{what} stopped during the run (exit code {p.returncode}): {err}"
                    )
        asked = time.monotonic() - t0
        qs = qdiscs(router)
        now = time.monotonic() - t0
        out.append(QueueSample(now, {dev: _queue(qs, dev) for _, dev, _, _ in LINKS}, asked))
        if progress:
            progress(min(duration, k * interval))
        k = max(k + 1, math.floor(now / interval) + 1)
    return out


def tun_drops(router: str) -> int:
    """Packets the TUN devices dropped because the delay line did not read them in time."""
    links = json.loads(sh("ip", "-n", router, "-s", "-j", "link", "show"))
    return sum(link["stats64"]["tx"]["dropped"] for link in links if link["ifname"] in ("tf", "tr"))


def netstat(ns: str) -> dict[str, int]:
    """The TcpExt and Tcp counters of namespace `ns` (/proc/net/netstat, /proc/net/snmp)."""
    out: dict[str, int] = {}
    for path in ("/proc/net/netstat", "/proc/net/snmp"):
        lines = sh("ip", "netns", "exec", ns, "cat", path).splitlines()
        for names, values in zip(lines[::2], lines[1::2], strict=True):
            prefix, keys = names.split(":", 1)
            if prefix in ("TcpExt", "Tcp"):
                for key, value in zip(keys.split(), values.split(":", 1)[1].split(), strict=True):
                    out[f"{prefix}.{key}"] = int(value)
    return out


def netstat_delta(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    return {k: after[k] - before.get(k, 0) for k in sorted(after) if after[k] != before.get(k, 0)}


def sender_report(
    plan: Plan, sent: dict[str, Any], ca_states: dict[int, dict[str, Any]] | None
) -> list[dict[str, Any]]:
    """Per flow: the congestion control its socket got, its last TCP_INFO, its
    state changes (the recovery counter's, None without it), and the share of
    samples at which it had nothing unsent (the application, not TCP, may have
    limited it then: the testbed's sender, on a loaded machine)."""
    names = sent["sampled"]
    out = []
    for f, s in zip(plan.flows, sent["flows"], strict=True):
        samples = [dict(zip(names, row[1:], strict=True)) for row in s["samples"]]
        dry = sum(1 for x in samples if x["notsent_bytes"] == 0)
        out.append(
            {
                "flow": f.flow,
                "cc": s["cc"],
                "connected_s": s.get("connected_s"),
                "cookie": s.get("cookie"),
                "samples_with_nothing_unsent": dry / len(samples) if samples else None,
                "tcp_info": s["final"],
                "ca_states": _states(ca_states, s),
            }
        )
    return out


def _states(
    ca_states: dict[int, dict[str, Any]] | None, sent_flow: dict[str, Any]
) -> dict[str, int] | None:
    """A flow's counts of state changes (all 0 for a socket that never left Open or Disorder)."""
    if ca_states is None or sent_flow.get("cookie") is None:
        return None
    return ca_states.get(sent_flow["cookie"], dict.fromkeys(recovery.FIELDS, 0))


def result(
    plan: Plan,
    manifest: dict[str, Any],
    sent: dict[str, Any],
    received: dict[str, Any],
    queue_samples: list[Any],
    loss_drops: int,
    ca_states: dict[int, dict[str, Any]] | None,
) -> Result:
    """The run's Result, from the endpoints' reports, the queue samples and the recovery counter's counts."""
    flows_ts = _timeseries(plan, sent, received)
    queues = _queues(plan, queue_samples)
    flows = _flows(plan, sent, received, flows_ts, ca_states)
    links = _links(plan, queue_samples, queues, loss_drops)
    traces = manifest["scenario"]["output"]["traces"]
    goodputs = flows["goodput_bps"].to_list()
    summary = {
        "name": plan.scenario.name,
        "duration_s": plan.duration,
        "seed": plan.scenario.seed,
        "events": None,
        "wall_time_s": manifest["wall_time_s"],
        "jain_index": jain(goodputs),
        "total_goodput_bps": sum(goodputs),
        "flows": flows.drop("signals_s").to_dicts(),
        "links": links.to_dicts(),
        "udp": [],
        "web": [],
        "signal_sync": {"events": 0, "seen_by_all": 0},
    }
    return Result(
        manifest,
        summary,
        flows,
        links,
        pl.DataFrame(schema=UDP),
        pl.DataFrame(schema=WEB),
        flows_ts if "flows" in traces else pl.DataFrame(schema={**TIMESERIES, **EXTRA_TIMESERIES}),
        queues if "queues" in traces else pl.DataFrame(schema=QUEUES),
    )


def _by_flow(d: dict[str, Any]) -> dict[int, Any]:
    return {int(k): v for k, v in d.items()}


def _timeseries(plan: Plan, sent: dict[str, Any], received: dict[str, Any]) -> pl.DataFrame:
    names = sent["sampled"]
    samples = _by_flow(received["samples"])
    rows = []
    for f, s in zip(plan.flows, sent["flows"], strict=True):
        info = {row[0]: dict(zip(names, row[1:], strict=True)) for row in s["samples"]}
        got = samples[f.flow]
        for k in range(1, len(got) + 1):
            i = info.get(k, {})
            rows.append(
                {
                    "time_s": k * plan.interval,
                    "flow": f.flow,
                    "throughput_bps": (got[k - 1] - (got[k - 2] if k > 1 else 0))
                    * 8
                    / plan.interval,
                    "cwnd": i.get("snd_cwnd", 0),
                    "srtt_s": i.get("rtt_us", 0) / 1e6,
                    "delivery_rate_bps": i.get("delivery_rate", 0) * 8.0,
                    "pacing_rate_bps": _pacing_bps(i.get("pacing_rate")),
                    "ssthresh": min(i.get("snd_ssthresh", UNSET_SSTHRESH), 2**32 - 1),
                    "retrans": i.get("total_retrans", 0),
                    "ca_state": CA_STATES[i["ca_state"]] if "ca_state" in i else None,
                }
            )
    return pl.DataFrame(rows, schema={**TIMESERIES, **EXTRA_TIMESERIES}).sort(["flow", "time_s"])


def _pacing_bps(rate: int | None) -> float | None:
    """tcpi_pacing_rate (bytes/s) in bit/s; None where it is unset (~0: no rate at all)."""
    return None if rate is None or rate == 2**64 - 1 else rate * 8.0


def _queues(plan: Plan, samples: list[Any]) -> pl.DataFrame:
    rows = []
    for link, (name, dev, _, _) in enumerate(LINKS):
        for a, b in pairwise(samples):
            q, q0 = b.queues[dev], a.queues[dev]
            k, k0 = (
                round(b.t / plan.interval),
                round(a.t / plan.interval),
            )  # grid points (skipped ones between)
            rows.append(
                {
                    "time_s": k * plan.interval,
                    "link": link,
                    "name": name,
                    "queue_pkts": q["qlen"],
                    "queue_bytes": q["backlog"],
                    "qdelay_s": q["backlog"] * 8 / plan.rate_bps,
                    "drops": q["drops"] - q0["drops"],
                    "marks": 0,
                    "utilization": (q["bytes"] - q0["bytes"])
                    * 8
                    / (plan.rate_bps * plan.interval * max(1, k - k0)),
                }
            )
    return pl.DataFrame(rows, schema=QUEUES)


def _flows(
    plan: Plan,
    sent: dict[str, Any],
    received: dict[str, Any],
    ts: pl.DataFrame,
    ca_states: dict[int, dict[str, Any]] | None,
) -> pl.DataFrame:
    at_end, completed, last = (
        _by_flow(received["at_end"]),
        _by_flow(received["completed"]),
        _by_flow(received["last_byte"]),
    )
    by_run_end = {f: got[-1] if got else 0 for f, got in _by_flow(received["samples"]).items()}
    srtt = ts.filter(pl.col("srtt_s") > 0).group_by("flow").agg(pl.col("srtt_s"))
    mean_srtt = dict(
        zip(srtt["flow"].to_list(), (fsum_mean(v) for v in srtt["srtt_s"].to_list()), strict=True)
    )  # as the simulator's
    rows = []
    labels = [label for _, label in plan.scenario.flow_labels()]  # the engine's, asked once
    for f, s in zip(plan.flows, sent["flows"], strict=True):
        info = s["final"] or {}
        end = completed.get(f.flow, f.end)
        # A flow completes only if sized (the receiver's completed); unsized, what arrived by its end.
        bits = 8 * (f.size if f.size is not None and f.flow in completed else at_end.get(f.flow, 0))
        if f.flow not in completed and f.end < plan.duration and f.flow in last:
            # Stopped: as in a simulation, it completes when what it had sent arrives (the last byte), and all of it counts.
            end = completed[f.flow] = min(plan.duration, max(f.end, last[f.flow]))
            bits = 8 * by_run_end.get(f.flow, 0)
        segs = info.get("data_segs_out", 0)
        rtt = plan.fwd_delay[f.pair] + plan.rev_delay[f.pair] + 12_000 / plan.rate_bps
        states = _states(ca_states, s)
        rows.append(
            {
                "flow": f.flow,
                "spec": f.spec,
                "label": labels[f.flow],
                "algorithm": f.algorithm,
                "src": f"s{f.pair}",
                "dst": f"d{f.pair}",
                "start_s": f.start,
                "end_s": end,
                "base_rtt_s": rtt,
                "mean_srtt_s": mean_srtt.get(f.flow),
                "srtt_s": info.get("rtt_us", 0) / 1e6 or None,
                "min_rtt_s": info.get("min_rtt_us", 0) / 1e6 or None,
                "goodput_bps": bits / (end - f.start) if end > f.start else 0.0,
                "share": 0.0,
                "completion_s": completed.get(f.flow),
                "final_cwnd": info.get("snd_cwnd", 0),
                "segs_sent": segs,
                "retrans": info.get("total_retrans", 0),
                "delivered_segs": info.get("delivered", 0),
                "delivered_bytes": info.get("bytes_acked", 0),
                **{k: None for k in NULL_COUNTERS},
                # As the simulator counts them: fast recoveries and the loss-probe recoveries (CWR), and every RTO.
                "recoveries": states["recoveries"] + states["cwr"] if states else None,
                "timeouts": info.get("total_rto")
                if info.get("total_rto") is not None
                else (states or {}).get("losses"),
                "retrans_ratio": info.get("total_retrans", 0) / segs if segs else 0.0,
                "slow_start_s": None,
                "signals": 0,
                "signals_s": [],
            }
        )
    total = sum(r["goodput_bps"] for r in rows)
    for r in rows:
        r["share"] = r["goodput_bps"] / total if total > 0 else 0.0
    return pl.DataFrame(rows, schema=FLOWS)


def _links(plan: Plan, samples: list[Any], queues: pl.DataFrame, loss_drops: int) -> pl.DataFrame:
    limit = plan.buffer[1] if plan.buffer[0] == "packets" else plan.buffer[1] / 1500
    rows = []
    for link, (name, dev, a, b) in enumerate(LINKS):
        first, last = samples[0].queues[dev], samples[-1].queues[dev]
        q = queues.filter(pl.col("link") == link)
        delay = q["qdelay_s"]
        drops_queue = last["drops"] - first["drops"]
        drops_random = loss_drops if link == 0 else 0
        rows.append(
            {
                "link": link,
                "name": name,
                "from": a,
                "to": b,
                "rate_bps": plan.rate_bps,
                "monitored": True,
                "utilization": (last["bytes"] - first["bytes"])
                * 8
                / (plan.rate_bps * plan.duration),
                "tx_packets": last["packets"] - first["packets"],
                "tx_bytes": last["bytes"] - first["bytes"],
                "drops_queue": drops_queue,
                "drops_queue_slow_start": None,
                "drops_queue_udp": None,
                "drops_random": drops_random,
                "drops_aqm": 0,
                "marks": 0,
                "drops": drops_queue + drops_random,
                "mean_qdelay_s": _stat(delay.mean()),
                "p99_qdelay_s": _stat(delay.quantile(0.99)),
                "max_qdelay_s": _stat(delay.max()),
                "mean_queue_pkts": _stat(q["queue_pkts"].mean()),
                "mean_queue_bytes": _stat(q["queue_bytes"].mean()),
                "normalized_occupancy": _stat(q["queue_pkts"].mean()) / limit if limit else 0.0,
            }
        )
    return pl.DataFrame(rows, schema=LINKS_SCHEMA)


def _stat(x: object) -> float:
    return float(x) if isinstance(x, (int, float)) and math.isfinite(x) else 0.0
