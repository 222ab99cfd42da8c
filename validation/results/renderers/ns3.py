"""The tables of ns3.json: hscc against ns-3 per configuration, per flow, and the replications."""

from __future__ import annotations

from collections.abc import Callable

from .entries import _select, _verdict
from .markdown import _f, _mb, _pct, _table

# ns-3's side of a configuration it did not finish.
_NONE = {
    "aggregate_bps": None,
    "jain_second_half": None,
    "per_flow_bps": [],
    "recoveries": "—",
    "timeouts": "—",
    "queue_drops": "—",
    "realized_loss": None,
    "cpu_s": None,
}


def ns3_main(doc: dict, group: str | None) -> str:
    rows = []
    for e in _select(doc, group):
        n, h, d = e["reference"] or _NONE, e["measured"], e["delta"]
        rows.append(
            [
                e["name"],
                f"{e['duration_s']:g}",
                f"{_mb(n['aggregate_bps'])} / {_mb(h['aggregate_bps'])}",
                _pct(d["aggregate_goodput"]),
                f"{_f(n['jain_second_half'], '.3f')} / {_f(h['jain_second_half'], '.3f')}",
                _pct(d["jain_second_half"]),
                f"{n['recoveries']} / {h['recoveries']}",
                f"{n['timeouts']} / {h['timeouts']}",
                f"{n['queue_drops']} / {h['queue_drops']}",
                _verdict(e),
                e["date"],
            ]
        )
    head = [
        "configuration",
        "T (s)",
        "goodput ns-3 / hscc (Mbit/s)",
        "Δ",
        "Jain 2nd half ns-3 / hscc",
        "Δ",
        "fast recoveries ns-3 / hscc",
        "timeouts ns-3 / hscc",
        "queue drops ns-3 / hscc",
        "verdict",
        "date",
    ]
    return _table(head, rows)


def _ns3_per_flow(doc: dict, group: str | None, columns: dict[str, Callable]) -> str:
    """Per configuration: each side's per-flow goodput, `columns` (heading: f(ns-3, hscc)) and CPU."""
    rows = []
    for e in _select(doc, group):
        n, h = e["reference"] or _NONE, e["measured"]
        rows.append(
            [
                e["name"],
                " / ".join(_mb(x) for x in n["per_flow_bps"]) or "—",
                " / ".join(_mb(x) for x in h["per_flow_bps"]),
                *(f(n, h) for f in columns.values()),
                f"{_f(n['cpu_s'], '.1f')} / {_f(h['cpu_s'], '.2f')}",
            ]
        )
    head = [
        "configuration",
        "per-flow goodput ns-3 (Mbit/s)",
        "per-flow goodput hscc",
        *columns,
        "CPU ns-3 / hscc (s)",
    ]
    return _table(head, rows)


def ns3_flows(doc: dict, group: str | None) -> str:
    return _ns3_per_flow(
        doc,
        group,
        {
            "random loss realized ns-3 / hscc": lambda n, h: (
                f"{_f(n['realized_loss'], '.2e')} / {_f(h['realized_loss'], '.2e')}"
            ),
        },
    )


def ns3_queue(doc: dict, group: str | None) -> str:
    """Per flow, the queue and the ECN signals: the measures of the BBR and DCTCP configurations."""
    return _ns3_per_flow(
        doc,
        group,
        {
            "mean queue 2nd half ns-3 / hscc (packets)": lambda n, h: (
                f"{_f(n.get('mean_queue_pkts'), '.1f')} / {_f(h.get('mean_queue_pkts'), '.1f')}"
            ),
            "CE marks ns-3 / hscc": lambda n, h: f"{n.get('marks', '—')} / {h.get('marks', '—')}",
            "ECN reductions ns-3 / hscc": lambda n, h: (
                f"{n.get('ecn_reductions', '—')} / {h.get('ecn_reductions', '—')}"
            ),
        },
    )


def ns3_replications(doc: dict, group: str | None) -> str:
    reps = doc["replications"]
    rows = [
        [
            r["name"],
            f"{r['reference'][0] / 1e6:.3f} ± {r['reference'][1] / 1e6:.3f}",
            f"{r['measured'][0] / 1e6:.3f} ± {r['measured'][1] / 1e6:.3f}",
            _pct(r["delta"]),
        ]
        for r in reps["configurations"]
    ]
    head = ["configuration (20 replications)", "ns-3 (Mbit/s)", "hscc (Mbit/s)", "Δ"]
    return _table(head, rows)
