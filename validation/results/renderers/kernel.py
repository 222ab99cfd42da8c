"""The tables of kernel.json: the simulator against the Linux kernel (the testbed)."""

from __future__ import annotations

import results

from .entries import _select, _verdict
from .markdown import _f, _range, _shares, _span, _table


def _means(runs: list[dict]) -> str:
    """The ratio of the means that the verdict of kernel runs of seeds 1..N reads; empty for
    runs of one draw."""
    means = results.draws_ratio(runs)
    return "" if means is None else f", means {means:.3f}"


def kernel_summary(doc: dict, group: str | None) -> str:
    rows = []
    for e in _select(doc, group):
        s, runs = e["measured"], e["reference"]["runs"]
        flagged = sum(r["flagged"] for r in runs)
        rows.append(
            [
                e["name"],
                f"{e['seconds']:g}",
                f"{s['seeds']} / {len(runs)}" + (f" ({flagged} flagged)" if flagged else ""),
                _f(s["goodput_bps"], ".1f", 1e-6),
                _span([r["goodput_ratio"] for r in runs], ".3f") + _means(runs),
                f"{_f(s['jain'], '.3f')} / {_span([r['jain'] for r in runs], '.3f')}",
                f"{_f(s['loss'], '.2e')} / {_span([r['loss'] for r in runs], '.2e')}",
                _verdict(e),
                e["date"],
            ]
        )
    head = [
        "configuration",
        "s",
        "seeds / kernel runs",
        "goodput sim (Mbit/s)",
        "kernel / sim",
        "Jain sim / kernel",
        "loss sim / kernel",
        "verdict",
        "date",
    ]
    return _table(head, rows)


def kernel_trajectory(doc: dict, group: str | None) -> str:
    rows = []
    for e in _select(doc, group):
        s, k = e["measured"].get("trajectory"), e["reference"].get("trajectory")
        if not s or not k:
            continue

        def exit_(t):
            return f"{_range(t['exit_s'], '.2f')} s, {_range(t['exit_cwnd'], '.0f')}"

        rows.append(
            [
                e["name"],
                exit_(s),
                exit_(k),
                f"{_range(s['reductions'], '.0f')} / {_range(k['reductions'], '.0f')}",
                f"{_range(s['period_s'], '.1f')} / {_range(k['period_s'], '.1f')}",
            ]
        )
    head = [
        "configuration",
        "slow-start exit sim (s, cwnd)",
        "kernel",
        "cuts sim / kernel",
        "period sim / kernel (s)",
    ]
    return _table(head, rows)


def kernel_shares(doc: dict, group: str | None) -> str:
    rows = []
    for e in _select(doc, group):
        s, k = e["measured"].get("spread"), e["reference"].get("spread")
        if not s or not k or e.get("flows", 1) < 2:
            continue
        rows.append(
            [
                e["name"],
                f"{e['measured']['seeds']} / {len(e['reference']['runs'])}",
                _shares(s["shares"]),
                _shares(k["shares"]),
                _range(s["jain"], ".3f"),
                _range(k["jain"], ".3f"),
            ]
        )
    head = [
        "configuration",
        "seeds / kernel runs",
        "shares sim",
        "shares kernel",
        "Jain sim",
        "Jain kernel",
    ]
    return _table(head, rows)


MODEL_HEAD = [
    "configuration",
    "run",
    "random loss realized",
    "mean sRTT (ms)",
    "send rate (seg/s)",
    "Mathis",
    "Padhye",
    "rate / Padhye",
    "after 5 s: mean sRTT (ms)",
    "after 5 s: rate / Padhye",
]


def model_cells(config: str, m: dict) -> list[str]:
    """One row of the models table from a row of validation/testbed/testbed_models.py's
    `model_rows` (a dash where a run kept no part after its start-up)."""
    return [
        config,
        m["run"],
        f"{m['random_loss']:.2e}",
        f"{m['mean_srtt_s'] * 1e3:.1f}",
        f"{m['send_rate']:.0f}",
        f"{m['mathis']:.0f}",
        f"{m['padhye']:.0f}",
        m["verdict"],
        _f(m.get("steady_srtt_s"), ".1f", 1e3),
        m.get("steady_verdict", "—"),
    ]


def kernel_models(doc: dict, group: str | None) -> str:
    """The models table from the rows the entries keep."""
    rows = [
        model_cells(e["name"], m)
        for e in _select(doc, group)
        for side in ("measured", "reference")
        for m in e[side].get("models") or []
    ]
    return _table(MODEL_HEAD, rows)
