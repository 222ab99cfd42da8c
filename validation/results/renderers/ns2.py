"""The tables of ns2.json: hscc against ns-2.35, and hscc with another recovery beside them."""

from __future__ import annotations

from .entries import _count, _select, _verdict, notes
from .markdown import _f, _mb, _pct, _table


def _pair(n, h, fmt: str) -> str:
    return f"{_f(n, fmt)} / {_f(h, fmt)}"


# The group of the entries that run hscc with another recovery than the profile's (validate.py
# --recovery): their own table, `recovery`, not among the matched configurations'.
NS2_VARIANTS = ("classic",)


def _ns2_select(doc: dict, group: str | None) -> list[dict]:
    """The entries of a group, or without one every matched configuration (no variant)."""
    if group is not None:
        return _select(doc, group)
    return [e for e in doc["configurations"] if e["group"] not in NS2_VARIANTS]


def ns2_notes(doc: dict, group: str | None) -> str:
    return notes({"configurations": _ns2_select(doc, group)}, group)


def ns2_main(doc: dict, group: str | None) -> str:
    rows = []
    for e in _ns2_select(doc, group):
        n, h, d = e["reference"], e["measured"], e["delta"]
        a, b = e["groups"]
        rows.append(
            [
                e["name"],
                f"{e['duration_s']:g}",
                f"{_mb(n['aggregate_bps'])} / {_mb(h['aggregate_bps'])}",
                _pct(d["aggregate_bps"]),
                f"{a} / {b}: {_pair(n['ratio'], h['ratio'], '.2f')}",
                _pct(d["ratio"]),
                _pair(n["loss_events_a"], h["loss_events_a"], ".0f"),
                _pct(d["loss_events_a"]),
                _pair(n["loss_events_b"], h["loss_events_b"], ".0f"),
                _pct(d["loss_events_b"]),
                _pair(n["timeouts"], h["timeouts"], ".1f"),
                _pair(n["bottleneck_tcp_drops"], h["bottleneck_tcp_drops"], ".0f"),
                _pair(n["sender_access_tcp_drops"], h["sender_access_tcp_drops"], ".0f"),
                _verdict(e),
                e["date"],
            ]
        )
    head = [
        "configuration",
        "T (s)",
        "goodput ns-2 / hscc (Mbit/s)",
        "Δ",
        "goodput ratio ns-2 / hscc",
        "Δ",
        "loss events a ns-2 / hscc",
        "Δ",
        "loss events b ns-2 / hscc",
        "Δ",
        "timeouts ns-2 / hscc",
        "bottleneck TCP drops ns-2 / hscc",
        "senders' access-link TCP drops ns-2 / hscc",
        "verdict",
        "date",
    ]
    return _table(head, rows)


def ns2_recovery(doc: dict, group: str | None, only: list[dict] | None = None) -> str:
    """hscc with another recovery (the group's entries, or `only`) beside the profile's sack1
    (the entry each is a variant of) and ns-2, whose numbers both are compared with; then how
    many agree."""
    group = group or NS2_VARIANTS[0]
    by_name = {e["name"]: e for e in doc["configurations"]}
    variants = _select(doc, group) if only is None else only
    rows = []
    for v in variants:
        s, h, n = by_name[v["variant_of"]]["measured"], v["measured"], v["reference"]
        a, b = v["groups"]

        def three(k: str, fmt: str) -> str:
            return f"{_f(n[k], fmt)} / {_f(s[k], fmt)} / {_f(h[k], fmt)}"  # noqa: B023

        def delta(k: str) -> str:
            return f"{_pct(s[k] / n[k] - 1 if n[k] else None)} / {_pct(v['delta'][k])}"  # noqa: B023

        rows.append(
            [
                v["variant_of"],
                f"{_mb(n['aggregate_bps'])} / {_mb(s['aggregate_bps'])} / {_mb(h['aggregate_bps'])}",
                f"{a} / {b}: {three('ratio', '.2f')}",
                delta("ratio"),
                three("loss_events_a", ".1f"),
                three("loss_events_b", ".1f"),
                three("timeouts", ".1f"),
                three("bottleneck_tcp_drops", ".0f"),
                f"{_verdict(by_name[v['variant_of']])} / {_verdict(v)}",
                v["date"],
            ]
        )
    head = [
        "configuration",
        f"goodput ns-2 / sack1 / {group} (Mbit/s)",
        "goodput ratio ns-2 / sack1 / " + group,
        "Δ ratio sack1 / " + group,
        "loss events a ns-2 / sack1 / " + group,
        "loss events b ns-2 / sack1 / " + group,
        "timeouts ns-2 / sack1 / " + group,
        "bottleneck TCP drops ns-2 / sack1 / " + group,
        "verdict sack1 / " + group,
        "date",
    ]
    bases = [by_name[v["variant_of"]] for v in variants]
    return (
        _table(head, rows)
        + f'\nWith `recovery = "{group}"`, {_count(variants)} with ns-2; with `"sack1"`, '
        f"{_count(bases)}.\n"
    )


def ns2_spread(doc: dict, group: str | None) -> str:
    """queue_spread.py's rows: hscc's side with the bottleneck one packet shorter, as is and
    longer, then in how many configurations ns-2's goodput ratio falls within that spread."""
    rows, outside = [], []
    spread = [e for e in doc["configurations"] if "queue_spread" in e]
    for e in spread:
        ratios = [r["ratio"] for r in e["queue_spread"]["rows"]]
        for r in e["queue_spread"]["rows"]:
            events = f"{r['loss_events_a']} / {r['loss_events_b']}"
            rows.append(
                [e["name"], str(r["buffer"]), _f(r["ratio"], ".2f"), events, str(r["timeouts"])]
            )
        ns2 = e["reference"]["ratio"]
        if None in ratios or not min(ratios) <= ns2 <= max(ratios):
            outside.append(e["name"])
    dates = sorted({e["queue_spread"]["date"] for e in spread})
    when = dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}"
    head = ["configuration", "buffer", "goodput ratio", "loss events a / b", "timeouts"]
    return (
        _table(head, rows) + f"\nns-2's goodput ratio lies within hscc's one-packet spread in "
        f"{len(spread) - len(outside)} of {len(spread)} (outside: {', '.join(outside) or 'none'}); "
        f"measured {when}.\n"
    )
