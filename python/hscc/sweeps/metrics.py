"""One run's numbers as one row of a sweep's table: flat names, scalar values.

- the run: ``jain_index``, ``total_goodput_bps``, ``events``, ``wall_time_s``;
  ``signal_events``, ``signal_seen_by_all`` and ``signal_sync`` (their ratio; none
  without signals): the delay-detected congestion signals of the run's flows grouped
  within T_wait = 0.5 s, and those every active flow detected (Sync-TCP §VI.A);
- each ``[[flows]]`` entry (a group of ``count`` flows), as ``flows[i].NAME``:
  ``goodput_bps`` and ``share`` (summed over the group), ``jain_index`` (within
  the group), ``retrans``, ``timeouts``, ``recoveries``, ``lost_fast``,
  ``signals`` (summed), ``retrans_ratio`` (retransmitted / sent), ``mean_srtt_s``
  (mean over the group's flows);
- each TCP flow, as ``flow K.NAME`` (engine index K), every number of the
  run's ``flows`` table — only for runs of at most ``PER_FLOW_LIMIT`` flows, so
  that a sweep of a thousand flows stays a table, not a matrix;
- each monitored link, as ``NAME.utilization``, ``.drops``, ``.drops_queue`` (and of
  those ``.drops_queue_slow_start``, ``.drops_queue_udp``),
  ``.drops_random``, ``.drops_aqm``, ``.marks``, ``.mean_qdelay_s``, ``.p99_qdelay_s``, ``.max_qdelay_s``,
  ``.mean_queue_pkts``, ``.normalized_occupancy`` (NAME as in the ``links``
  table, e.g. ``bottleneck:fwd``);
- each UDP source, as ``udp[i].NAME`` (and ``voip[i].fwd.NAME`` / ``.rev.``):
  ``loss_rate``, ``throughput_bps``, ``mean_delay_s``, ``p99_delay_s``, ``jitter_s``;
- each web source, as ``web[i].NAME``: ``started``, ``completed``, ``refused``,
  ``mean_s`` (mean response time over all completed transfers).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import polars as pl

from hscc import _core
from hscc.results import FLOWS, monitored_links

# Metrics measured on the machine, not computed by the simulation: they differ between two
# runs of the same scenario and seed.
MACHINE = ("wall_time_s",)
PER_FLOW_LIMIT = 64
_FLOW_NUMBERS = [k for k, t in FLOWS.items() if t.is_numeric() and k not in ("flow", "spec")]
_GROUP_SUMS = ("goodput_bps", "share", "retrans", "timeouts", "recoveries", "lost_fast", "signals")
_LINK = (
    "utilization",
    "drops",
    "drops_queue",
    "drops_queue_slow_start",
    "drops_queue_udp",
    "drops_random",
    "drops_aqm",
    "marks",
    "mean_qdelay_s",
    "p99_qdelay_s",
    "max_qdelay_s",
    "mean_queue_pkts",
    "normalized_occupancy",
)
_UDP = ("loss_rate", "throughput_bps", "mean_delay_s", "p99_delay_s", "jitter_s")
_HEADLINE = re.compile(
    r"^(jain_index|total_goodput_bps|flows\[\d+\]\.goodput_bps|[^.\[]+:fwd\.(utilization|mean_qdelay_s))$"
)


def headline(names: list[str]) -> list[str]:
    """The metrics `hscc sweep` plots and summarizes, in the order of `names`: Jain's
    index, the total goodput, each [[flows]] entry's goodput, and each monitored forward
    link's utilization and queuing delay."""
    return [m for m in names if _HEADLINE.match(m)]


def row(
    s: dict[str, Any], web: Callable[[], pl.DataFrame], links: Callable[[], pl.DataFrame]
) -> dict[str, Any]:
    """The metrics of a run, flat, from its summary (``Result.summary``, summary.json),
    its web response times (``web()`` gives ``Result.web``; read only when it has web
    sources) and its links table (``links()`` gives ``Result.links``; read only when
    summary.json left idle links out, which may be monitored ones)."""
    out: dict[str, Any] = {
        "jain_index": s["jain_index"],
        "total_goodput_bps": s["total_goodput_bps"],
        "events": s["events"],
        "wall_time_s": s["wall_time_s"],
    }
    sync = s.get("signal_sync")  # absent from runs stored by older versions
    if sync is not None:
        out["signal_events"], out["signal_seen_by_all"] = sync["events"], sync["seen_by_all"]
        out["signal_sync"] = sync["seen_by_all"] / sync["events"] if sync["events"] else None
    flows = s["flows"]
    for spec in sorted({f["spec"] for f in flows}):
        group = [f for f in flows if f["spec"] == spec]
        at = f"flows[{spec}]."
        for k in _GROUP_SUMS:
            out[at + k] = sum(f[k] for f in group)
        out[at + "jain_index"] = _core.jain_index([f["goodput_bps"] for f in group])
        sent = sum(f["segs_sent"] for f in group)
        out[at + "retrans_ratio"] = out[at + "retrans"] / sent if sent else 0.0
        srtts = [f["mean_srtt_s"] for f in group if f["mean_srtt_s"] is not None]
        out[at + "mean_srtt_s"] = sum(srtts) / len(srtts) if srtts else None
    if len(flows) <= PER_FLOW_LIMIT:
        for f in flows:
            out.update({f"flow {f['flow']}.{k}": f[k] for k in _FLOW_NUMBERS if k in f})
    for link in monitored_links(s, links):
        out.update({f"{link['name']}.{k}": link[k] for k in _LINK})
    directions: dict[str, int] = {}  # a VoIP call's UDP flows seen so far, less one (0: fwd)
    for u in s["udp"]:
        source = u["source"]
        if source.startswith("voip"):
            directions[source] = directions.get(source, -1) + 1
            source += (".fwd", ".rev")[directions[source]]
        out.update({f"{source}.{k}": u[k] for k in _UDP})
    if s["web"]:
        web_table = web()
    for w in s["web"]:
        at = f"web[{w['web']}]."
        out.update({at + k: w[k] for k in ("started", "completed", "refused")})
        bins = web_table.filter(web_table["web"] == w["web"])
        n = int(bins["count"].sum())
        out[at + "mean_s"] = float((bins["count"] * bins["mean_s"]).sum()) / n if n else None
    return out
