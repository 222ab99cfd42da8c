"""The table of dummynet.json: what Dummynet's 1 ms tick does to CTCP Table 2's RTT fairness."""

from __future__ import annotations

from .markdown import _span, _table


def dummynet_tick(doc: dict, group: str | None) -> str:
    """validation/dummynet/tick.py's set-ups: means over its seeds, with the ratio's range."""
    rows = []
    for e in doc["configurations"]:
        m = e["mean"]
        rows.append(
            [
                e["name"],
                e["description"],
                f"{m['ratio']:.1f} ({_span([r['ratio'] for r in e['runs']], '.1f')})",
                f"{m['loss_events_short']:.1f}",
                f"{m['loss_events_long']:.1f}",
                f"{m['goodput_bps'] / 1e6:.0f}",
                f"{m['pipe_drops']:.0f}",
                f"{m['switch_drops']:.0f}",
            ]
        )
    head = [
        "set-up",
        "what it is",
        "short/long ratio (range)",
        "loss events per short flow",
        "per long flow",
        "goodput (Mbit/s)",
        "pipe drops",
        "switch drops",
    ]
    return (
        f"{doc['point']}; {doc['duration_s']:g} s, seeds {', '.join(map(str, doc['seeds']))} "
        f"(means); `{doc['command']}` on {doc['date']} at {doc['revision']}, engine {doc['engine']}.\n\n"
        + _table(head, rows)
    )
