"""The tables of the docs from the results files (ns3.json, ns2.json, kernel.json, engine.json, fuzz.json, dummynet.json,
fairness.json, performance.json).

    python validation/results/render.py --check    # exit 1 and list every table that differs
    python validation/results/render.py --write    # rewrite the tables in the docs

A table lives between two marker comments in a page:

    <!-- generated: validation/results/kernel.json table=summary group=papers -->
    ...
    <!-- end generated -->

`table` is one of the tables below; `group` selects the configurations of one group.
engine.json's tables are `columns` (the columns of ENGINE_COLUMNS[group]) and `checks`
(any row: its measured values, reference and bounds as they are).
Standard library only (the test that runs --check needs neither hscc nor its extension).
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import results  # noqa: E402

ROOT = results.ROOT
DOCS = ROOT / "docs"
MARKER = re.compile(
    r"(?P<open><!-- generated: (?P<file>\S+)(?P<args>(?: \w+=\S+)*) -->\n)"
    r"(?P<body>.*?)"
    r"(?P<close><!-- end generated -->)",
    re.S,
)


# ---------------------------------------------------------------- formatting


def _mb(bps: float | None) -> str:
    """Mbit/s as validation/ns3/validate.py prints them."""
    if bps is None:
        return "—"
    return f"{bps / 1e6:.2f}" if bps < 1e7 else f"{bps / 1e6:.1f}"


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:+.1f} %"


def _f(x, fmt: str, scale: float = 1.0) -> str:
    return "—" if x is None else format(x * scale, fmt)


def _range(x, fmt: str, scale: float = 1.0) -> str:
    """A value, or [min, max, mean] as validation/testbed/validate.py prints them."""
    if x is None:
        return "–"
    if isinstance(x, list):
        lo, hi, mean = (format(v * scale, fmt) for v in x)
        return f"{lo}–{hi} ({mean})"
    return format(x * scale, fmt)


def _span(values: list, fmt: str) -> str:
    """min–max of per-run values, or the one value."""
    values = [v for v in values if v is not None]
    if not values:
        return "–"
    lo, hi = format(min(values), fmt), format(max(values), fmt)
    return lo if lo == hi else f"{lo}–{hi}"


def _shares(s: dict | None) -> str:
    if not s:
        return "–"
    return ", ".join(f"{name} {_range(v, '.2f')}" for name, v in s.items())


def _table(head: list[str], rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def _select(doc: dict, group: str | None) -> list[dict]:
    return [e for e in doc["configurations"] if group is None or e.get("group") == group]


def _verdict(e: dict) -> str:
    return {"agrees": "agrees", "differs": "**differs**"}.get(e["verdict"], e["verdict"])


# ---------------------------------------------------------------- ns-3

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


# ---------------------------------------------------------------- kernel


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
                _span([r["goodput_ratio"] for r in runs], ".3f"),
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


def kernel_models(doc: dict, group: str | None) -> str:
    rows = []
    for e in _select(doc, group):
        for side in ("measured", "reference"):
            for m in e[side].get("models") or []:
                rows.append(
                    [
                        e["name"],
                        m["run"],
                        f"{m['random_loss']:.2e}",
                        f"{m['mean_srtt_s'] * 1e3:.1f}",
                        f"{m['send_rate']:.0f}",
                        f"{m['mathis']:.0f}",
                        f"{m['padhye']:.0f}",
                        m["verdict"],
                    ]
                )
    head = [
        "configuration",
        "run",
        "random loss realized",
        "mean sRTT (ms)",
        "send rate (seg/s)",
        "Mathis",
        "Padhye",
        "rate / Padhye",
    ]
    return _table(head, rows)


def notes(doc: dict, group: str | None) -> str:
    """The configurations with a note: a difference and its mechanism, or where the numbers came from."""
    rows = [[e["name"], _verdict(e), e["note"]] for e in _select(doc, group) if e.get("note")]
    return _table(["configuration", "verdict", "why"], rows)


# ---------------------------------------------------------------- ns-2


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


# ---------------------------------------------------------------- status (docs/validation/index.md)


def _count(entries: list[dict]) -> str:
    agree = sum(e["verdict"] == "agrees" for e in entries)
    return f"{agree} of {len(entries)} agree"


def _dates(entries: list[dict]) -> str:
    ds = sorted({e["date"] for e in entries})
    return ds[0] if len(ds) == 1 else f"{ds[0]} to {ds[-1]}"


# group: (the target in words, its section of the page)
NS3_TARGETS = {
    "prr": ("matched dumbbells, 10 Mbit/s to 1 Gbit/s, PRR recovery", "results"),
    "classic": ("the same, classic recovery in both tools", "results"),
    "bbr": ("BBR (TcpBbr), alone, 4 flows and with CUBIC, 100 Mbit/s", "bbr-and-dctcp"),
    "dctcp": ("DCTCP (TcpDctcp) over step marking, 1 Gbit/s", "bbr-and-dctcp"),
}
NS2_TARGETS = {
    "africa-safety": ("TCP-Africa's safety set-up, HSTCP against Reno", "results"),
    "africa-fairness": ("TCP-Africa's fairness set-up, HSTCP or Reno against Reno", "results"),
    "africa-table1-2": ("TCP-Africa's RTT-fairness set-up, HSTCP", "results"),
    "ctcp-table2": (
        "CTCP Table 2's set-up, Reno, HSTCP and TCP-Linux's Compound, without the tick",
        "results",
    ),
    "sync-fig8": ("Sync-TCP Fig. 8's RTT-fairness set-up, TCP-Linux's CUBIC", "results"),
    "classic": (
        "the Sack1 agent's set-ups, hscc with classic recovery against ns-2's Sack1",
        "differences-and-their-mechanism",
    ),
}
KERNEL_TARGETS = {
    "reno-cubic": ("Reno and CUBIC, 10–300 Mbit/s, 20–120 ms, loss 0–10⁻²", "reno-and-cubic"),
    "rto-receivers": (
        "Reno and CUBIC with Linux's RTO estimator and receivers",
        "linuxs-rto-estimator-and-receivers",
    ),
    "papers": (
        "CTCP, TCP-Africa, TCP-FIT, Sync-TCP (eBPF programs)",
        "the-papers-algorithms-ebpf-programs",
    ),
    "others": ("the other eBPF programs, HighSpeed to CTCP-LA", "the-other-programs"),
    "bbr": ("BBR: Linux's built-in bbr and hscc_bbr", "bbr"),
    "trajectories": ("one flow's cwnd trajectory, 10-ms samples", "cwnd-trajectories"),
    "500M": ("500 Mbit/s × 100 ms, the testbed's limits lifted", "500-mbits--100-ms"),
}


def status(doc: dict, group: str | None) -> str:
    rows = []
    ns3 = results.load(results.NS3)
    ns2 = results.load(results.NS2)
    kernel = results.load(results.KERNEL)
    for name, sel, targets, page in (
        ("ns-3 3.44", ns3, NS3_TARGETS, "ns3.md"),
        ("ns-2.35", ns2, NS2_TARGETS, "ns2.md"),
        ("the Linux kernel (testbed)", kernel, KERNEL_TARGETS, "kernel.md"),
    ):
        for g, (target, anchor) in targets.items():
            entries = _select(sel, g)
            if not entries:
                continue
            cmd = sel["command"] + (" --recovery classic" if g == "classic" else "")
            rows.append(
                [f"[{target}]({page}#{anchor})", name, _count(entries), f"`{cmd}`", _dates(entries)]
            )
    return _table(["target", "reference", "verdict", "command", "date"], rows)


# ---------------------------------------------------------------- engine


def _num(x) -> str:
    """A value of an engine row as it is, floats to four significant digits."""
    if x is None:
        return "–"
    if isinstance(x, float):
        return f"{x:.4g}"
    return str(x)


def _key(k: str) -> str:
    return k.replace("_", " ")


def _bound(tol) -> str:
    """One tolerance in words (results.py documents the forms)."""
    if isinstance(tol, (int, float)):
        return f"±{100 * tol:g} %"
    if "abs" in tol:
        return f"±{tol['abs']:g}"
    lo, hi = tol.get("min"), tol.get("max")
    if lo is not None and hi is not None:
        return f"{_num(lo)}–{_num(hi)}"
    return f"≥ {_num(lo)}" if lo is not None else f"≤ {_num(hi)}"


def _value(e: dict, key: str, fmt: str) -> str:
    """Column `key` of an engine row: a field (label, verdict, suite, date), measured.K,
    reference.K, delta.K (measured / reference − 1) or tolerance.K, formatted with `fmt`."""
    if "." not in key:
        return _verdict(e) if key == "verdict" else str(e[key])
    side, k = key.split(".", 1)
    if side == "delta":
        m, r = e["measured"].get(k), (e["reference"] or {}).get(k)
        return _pct(m / r - 1) if m is not None and r else "—"
    if side == "tolerance":
        return _bound(e["tolerance"][k]) if k in e["tolerance"] else "not asserted"
    x = (e[side] or {}).get(k)
    if x is None:
        return "—"
    # 9.1e-05 → 9.1e-5, as the pages write exponents
    return re.sub(r"e([+-])0(\d)", r"e\1\2", format(x, fmt))


# group: its columns, (header, key, format) as _value reads them.
ENGINE_COLUMNS = {
    "padhye": [
        ("p (nominal, run length)", "label", ""),
        ("p (realized)", "measured.p", ".3e"),
        ("hscc (seg/s)", "measured.send_rate", ".1f"),
        ("Padhye (seg/s)", "reference.send_rate", ".1f"),
        ("difference", "delta.send_rate", ""),
        ("asserted", "tolerance.send_rate", ""),
        ("verdict", "verdict", ""),
    ],
    "response": [
        ("algorithm", "label", ""),
        ("p", "reference.p", ".0e"),
        ("p realized", "measured.p", ".3e"),
        ("W measured", "measured.w", ".1f"),
        ("time-mean cwnd", "measured.w_cwnd", ".1f"),
        ("prediction", "reference.w", ".1f"),
        ("error", "delta.w", ""),
        ("asserted", "tolerance.w", ""),
        ("i.i.d. model", "reference.iid", ".1f"),
        ("loss events", "measured.events", "d"),
        ("timeouts", "measured.timeouts", "d"),
        ("suite", "suite", ""),
        ("verdict", "verdict", ""),
    ],
    "every-algorithm": [
        ("algorithm", "label", ""),
        ("utilization 10–60 s", "measured.utilization", ".3f"),
        ("recoveries", "measured.recoveries", "d"),
        ("timeouts", "measured.timeouts", "d"),
        ("verdict", "verdict", ""),
    ],
    "ctcp-queue": [
        ("link", "label", ""),
        ("γ", "reference.gamma", "g"),
        ("cycles", "measured.cycles", "d"),
        ("mean queue", "measured.mean_queue", ".1f"),
        ("mean / γ", "measured.mean_over_gamma", ".2f"),
        ("peak before each decrease (median)", "measured.peak_queue", ".0f"),
        ("asserted peak", "tolerance.peak_queue", ""),
        ("verdict", "verdict", ""),
    ],
    "ctcp-response": [
        ("p", "label", ""),
        ("p realized", "measured.p", ".3e"),
        ("hscc (seg/s)", "measured.send_rate", ".0f"),
        ("eq. 17 (seg/s)", "reference.send_rate", ".0f"),
        ("difference", "delta.send_rate", ""),
        ("W_m", "reference.w_m", ".0f"),
        ("suite", "suite", ""),
        ("verdict", "verdict", ""),
    ],
    "fit": [
        ("case", "label", ""),
        ("α", "measured.alpha", ".3f"),
        ("mean N", "measured.mean_n", ".2f"),
        ("formula", "reference.mean_n", ".2f"),
        ("loss-free periods", "measured.periods", "d"),
        ("formula from the link's queuing delay", "measured.n_from_link_qdelay", ".2f"),
        ("verdict", "verdict", ""),
    ],
}


def engine_columns(doc: dict, group: str | None) -> str:
    """The rows of one group in the columns ENGINE_COLUMNS gives it."""
    if group not in ENGINE_COLUMNS:
        raise KeyError(f"table=columns group={group}: no columns for it (ENGINE_COLUMNS)")
    cols = ENGINE_COLUMNS[group]
    rows = [[_value(e, key, fmt) for _, key, fmt in cols] for e in _select(doc, group)]
    return _table([h for h, _, _ in cols], rows)


def engine_checks(doc: dict, group: str | None) -> str:
    """Any engine rows: what was measured, against what, within which bounds."""
    rows = []
    for e in _select(doc, group):
        ref = e["reference"] or {}
        rows.append(
            [
                e["label"],
                ", ".join(f"{_key(k)} {_num(v)}" for k, v in e["measured"].items()),
                ", ".join(f"{_key(k)} {_num(v)}" for k, v in ref.items()) or "–",
                ", ".join(f"{_key(k)} {_bound(t)}" for k, t in e["tolerance"].items())
                or "not asserted",
                _verdict(e),
            ]
        )
    return _table(["check", "measured", "reference", "asserted", "verdict"], rows)


# group(s): (the target in words, its section of docs/validation/engine.md, the reference,
# the test filter that measures it)
ENGINE_TARGETS = {
    ("padhye",): (
        "Reno's send rate, p = 10⁻⁴…10⁻²",
        "reno-against-analytical-models-validationrs",
        "Padhye et al., SIGCOMM 1998, eq. 31",
        "validation::",
    ),
    ("aimd",): (
        "Reno fills a BDP buffer; four Reno flows share it",
        "reno-against-analytical-models-validationrs",
        "utilization, Jain's index",
        "validation::",
    ),
    ("response", "response-ratio"): (
        "response functions: Reno, HighSpeed, Scalable, CUBIC",
        "response-functions-of-the-baselines-responsers",
        "the RFCs' and Kelly's response functions",
        "response::",
    ),
    ("every-algorithm",): (
        "every algorithm keeps a BDP-buffered bottleneck busy",
        "response-functions-of-the-baselines-responsers",
        "utilization",
        "response::",
    ),
    ("ctcp-queue", "ctcp-queue-doubling", "ctcp-response", "fit", "fit-buffer", "sync"): (
        "the papers' analyses: CTCP's queue and response, TCP-FIT's N, Sync-TCP",
        "the-papers-analyses-papersrs",
        "the papers' equations and numbers",
        "papers::",
    ),
}


def engine_status(doc: dict, group: str | None) -> str:
    rows = []
    for groups, (target, anchor, reference, filt) in ENGINE_TARGETS.items():
        entries = [e for e in doc["configurations"] if e["group"] in groups]
        if not entries:
            continue
        asserted = [e for e in entries if e["verdict"] != "reported"]
        shown = len(entries) - len(asserted)
        verdict = _count(asserted) + (f", {shown} reported" if shown else "")
        rows.append(
            [
                f"[{target}](engine.md#{anchor})",
                reference,
                verdict,
                f"`{doc['command']} {filt}`",
                _dates(entries),
            ]
        )
    return _table(["target", "reference", "verdict", "command", "date"], rows)


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


# ---------------------------------------------------------------- fuzzing (fuzz.json)

# fuzz.json (schema in fuzz/py/fuzz_results.py): one entry per fuzzer of a scripts/fuzz.sh call.
# The columns of the kinds of finding: (header, kind in an entry's `findings`).
FUZZ_KINDS = [
    ("panics", "panic"),
    ("tracebacks", "traceback"),
    ("hangs", "hang"),
    ("memory", "memory"),
    ("unclear", "unclear"),
    ("crashes", "crash"),
]
# An entry's `outcomes` that are no finding: (header, outcome).
FUZZ_OUTCOMES = [
    ("refused by validation", "model_rejected"),
    ("refused as files", "file_rejected"),
    ("refused by the engine, naming a field", "engine_rejected"),
    ("ran", "ran"),
]


def _int(n) -> str:
    """A count with its thousands apart (1 000 000), as the pages write them."""
    return "—" if n is None else f"{n:,.0f}".replace(",", " ")


def _amount(x) -> str:
    """Seconds or inputs per second: whole from 100 up, else to a tenth."""
    if x is None:
        return "—"
    return _int(x) if x >= 100 else f"{x:.1f}"


def _coverage(c: dict | None) -> str:
    if not c:
        return "—"
    return f"{_int(c['edges'])} edges, {_int(c['features'])} features, corpus {_int(c['corpus'])}"


def _found(f: dict | None) -> str:
    """A kind of finding: inputs (distinct findings); — where the fuzzer does not look for it."""
    if f is None:
        return "—"
    return "0" if not f["count"] else f"{_int(f['count'])} ({_int(f['distinct'])})"


def fuzz_campaign(doc: dict, group: str | None) -> str:
    rows = [
        [
            e["campaign"],
            e["date"],
            e["fuzzer"],
            f"{e['jobs']} / {_int(e['machine'].get('cores'))}",
            _int(e["inputs"]),
            _amount(e["wall_seconds"]),
            _amount(e["inputs_per_second"]),
            _coverage(e["coverage"]),
            *(_found(e["findings"].get(kind)) for _, kind in FUZZ_KINDS),
            _int(e["distinct_findings"]),
            e.get("note", ""),
        ]
        for e in doc["entries"]
    ]
    head = [
        "campaign",
        "date",
        "fuzzer",
        "jobs / cores",
        "inputs",
        "wall time (s)",
        "inputs/s",
        "coverage",
        *(h for h, _ in FUZZ_KINDS),
        "distinct findings",
        "note",
    ]
    return _table(head, rows)


def fuzz_outcomes(doc: dict, group: str | None) -> str:
    """What became of the Python fuzzer's inputs (the entries that count them)."""
    rows = []
    fine = {k for _, k in FUZZ_OUTCOMES}
    for e in doc["entries"]:
        o = e.get("outcomes")
        if not o:
            continue
        found = sum(v for k, v in o.items() if k not in fine)
        rows.append(
            [e["campaign"], e["date"], _int(e["inputs"])]
            + [_int(o.get(k, 0)) for _, k in FUZZ_OUTCOMES]
            + [_int(found)]
        )
    head = ["campaign", "date", "inputs", *(h for h, _ in FUZZ_OUTCOMES), "findings"]
    return _table(head, rows)


def fuzz_status(doc: dict, group: str | None) -> str:
    """The validation index's row: every campaign's inputs, the findings, the runs since the last."""
    entries = doc["entries"]
    found = [i for i, e in enumerate(entries) if e["distinct_findings"]]
    total = _int(sum(e["inputs"] for e in entries))
    if not found:
        verdict = f"{total} inputs, no finding"
    else:
        n = sum(entries[i]["distinct_findings"] for i in found)
        since = len(entries) - 1 - found[-1]
        verdict = f"{total} inputs; {n} distinct findings, none in the {since} runs after them"
    row = [
        "[hostile scenario input](engine.md#fuzzing-the-scenario-path-scriptsfuzzsh-fuzz)",
        "no panic, traceback, hang or memory blow-up",
        verdict,
        f"`{doc['command']}`",
        _dates(entries),
    ]
    return _table(["target", "reference", "verdict", "command", "date"], [row])


# ---------------------------------------------------------------- fairness (fairness.json)


def _index_means(means: list[float]) -> str:
    """Mean share per flow index: each of four, or the range of eight."""
    if len(means) <= 4:
        return " / ".join(f"{m:.3f}" for m in means)
    return f"{min(means):.3f}–{max(means):.3f} (index means)"


def fairness_shares(doc: dict, group: str | None) -> str:
    """validation/fairness/shares.py's set-ups, without and with the host jitter."""
    rows = []
    for e in doc["configurations"]:
        for label, key in (("0", "no_jitter"), ("8 µs", "jitter")):
            r = e[key]
            seeds = "every seed (1 and 2 run)" if key == "no_jitter" else str(r["seeds"])
            sd = "0" if key == "no_jitter" else _span(r["sd_share"], ".3f")
            ratio = r["max_min_ratio"]
            half = r.get("first_half_share")
            rows.append(
                [
                    e["description"],
                    label,
                    seeds,
                    _index_means(r["mean_share"]),
                    sd,
                    f"{r['jain_mean']:.3f}",
                    f"{ratio['median']:.2f} ({ratio['max']:.2f})",
                    "–" if half is None else f"{half['mean']:.3f} (sd {half['sd']:.3f})",
                ]
            )
    head = [
        "set-up",
        "host jitter",
        "seeds",
        "mean share per flow index",
        "sd per index",
        "Jain (mean)",
        "largest / smallest share per run: median (largest)",
        "flows 0–3 together",
    ]
    scale = "" if doc.get("scale", 1) == 1 else f" (a trial: seed counts × {doc['scale']:g})"
    return (
        f"`{doc['command']}` on {doc['date']} at {doc['revision']}, engine {doc['engine']}{scale}.\n\n"
        + _table(head, rows)
    )


def fairness_threshold(doc: dict, group: str | None) -> str:
    """The statistics the four-flow test's threshold rests on (its 30-s set-up)."""
    (e,) = [e for e in doc["configurations"] if "threshold" in e]
    t = e["threshold"]
    head = [
        "seeds",
        "sd of a share",
        "skewness",
        "kurtosis",
        "disjoint batches of 20 seeds",
        "largest |t|",
        "median |t|",
    ]
    row = [
        str(e["jitter"]["seeds"]),
        f"{t['sd']:.3f}",
        f"{t['skewness']:.1f}",
        f"{t['kurtosis']:.1f}",
        str(t["batches"]),
        f"{t['largest_t']:.1f}",
        f"{t['median_t']:.1f}",
    ]
    return _table(head, [row])


# ---------------------------------------------------------------- performance (performance.json)

# performance.json (scripts/bench.py writes it; its docstring describes the parts): each part
# with its conditions, which every table states first.


def _sup(n: int) -> str:
    return str(n).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))


def _sci(x: float) -> str:
    """1414212345 → 1.4142 × 10⁹, as the page writes instruction counts."""
    exp = len(str(int(x))) - 1
    return f"{x / 10**exp:.4f} × 10{_sup(exp)}"


def _millions(values: list[float]) -> str:
    return _span([v / 1e6 for v in values], ".2f") + " million"


def _measured(part: dict) -> str:
    """Where, when and under what load a part was measured: the first line of its tables."""
    c = part["conditions"]
    m, load = c["machine"], c["load_average"]
    quick = (
        " A quick trial (`--quick`: shorter runs, fewer repetitions), not the full measurement."
        if c.get("quick")
        else ""
    )
    return (
        f"Measured by `{part['run']}` on {part['date']} at {c['revision']}"
        + (" with local changes" if c.get("modified") else "")
        + " (engine "
        f"{c['engine']}), {m['cpu']}, {m['cores']} cores; load average (1 minute) "
        f"{load['start'][0]:.2f} at the start, {load['end'][0]:.2f} at the end.{quick}\n\n"
    )


def _part(doc: dict, name: str) -> dict:
    if name not in doc["parts"]:
        raise KeyError(f"performance.json has no part {name!r}: run scripts/bench.py --only {name}")
    return doc["parts"][name]


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


def perf_flows(doc: dict, group: str | None) -> str:
    part = _part(doc, "flows")
    counts = part["counts"]
    base = counts[0]["engine_s"] / counts[0]["data_segments"]
    rows = []
    for c in counts:
        per = c["engine_s"] / c["data_segments"]
        rows.append(
            [
                _int(c["flows"]),
                f"{c['build_s']:.3f} s",
                f"{c['engine_s']:.2f} s",
                _int(c["data_segments"]),
                f"{c['events'] / c['data_segments']:.2f}",
                f"{per * 1e9:.0f} ns",
                f"{per / base:.2f}×",
                "–" if c["utilization"] is None else f"{c['utilization']:.4f}",
            ]
        )
    head = [
        "flows",
        "build",
        "engine",
        "data segments",
        "events per segment",
        "engine per data segment",
        f"against {_int(counts[0]['flows'])} flows",
        "bottleneck utilization",
    ]
    return (
        _measured(part)
        + f"{part['seconds']:g} s simulated. Build: the scenario checked, resolved (routes, "
        "estimate) and assembled; engine: the simulation loop alone.\n\n" + _table(head, rows)
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
# The loss_burst bench's bound: ns per event at the largest window within 2× of the smallest.
LOSS_BURST_BOUND = 2.0


def perf_loss_burst(doc: dict, group: str | None) -> str:
    part = _part(doc, "loss_burst")
    windows = [w["window"] for w in part["recoveries"][0]["windows"]]
    rows = []
    for r in part["recoveries"]:
        ws = r["windows"]
        ratio = ws[-1]["ns_per_event"] / ws[0]["ns_per_event"]
        rows.append(
            [PERF_RECOVERY.get(r["recovery"], r["recovery"]), _int(r["runs"])]
            + [f"{w['ns_per_event']:.0f} ns/event ({_int(w['events'])} events)" for w in ws]
            + [f"{ratio:.2f}×", "yes" if ratio <= LOSS_BURST_BOUND else "**no**"]
        )
    head = (
        ["recovery", "runs"]
        + [f"W = {_int(w)}" for w in windows]
        + [f"{_int(windows[-1])} / {_int(windows[0])}", f"within {LOSS_BURST_BOUND:g}×"]
    )
    return _measured(part) + _table(head, rows)


def perf_startup(doc: dict, group: str | None) -> str:
    part = _part(doc, "startup")
    rows = [
        [c["name"], f"{c['median_s']:.3f} s", _span(c["cpu_s"], ".3f") + " s"]
        for c in part["commands"]
    ]
    head = ["command", f"CPU, median of {part['runs']} runs", "range"]
    return _measured(part) + f"Python {part['python']}.\n\n" + _table(head, rows)


def _sweeps_stored(part: dict[str, Any]) -> str:
    n = part["stored_runs"]
    rows = []
    for case in part["stored"]:
        e, ecpu = statistics.median(case["engine_s"]), statistics.median(case["engine_cpu_s"])
        for i, w in enumerate(case["workers"]):
            wall = statistics.median(w["wall_s"])
            cpu, own = statistics.median(w["cpu_s"]), statistics.median(w["own_cpu_s"])
            rows.append(
                [
                    f"{case['name']} ({e / n * 1e3:.1f} ms of engine per run)" if i == 0 else "",
                    str(w["jobs"]),
                    f"{wall:.2f} s",
                    f"{wall / (e / w['jobs']):.2f}",
                    f"{(cpu - own) / n * 1e3:.1f} + {own / n * 1e3:.1f} ms",
                    f"{cpu / ecpu:.2f}",
                ]
            )
    head = [
        "case",
        "workers",
        "wall, median",
        "wall / (E / workers)",
        "CPU per run: workers + sweep's process",
        "CPU / engine's CPU",
    ]
    return f"{n} stored runs of 1 simulated second each, store on {part['store']}.\n\n" + _table(
        head, rows
    )


def _sweeps_tiny(part: dict[str, Any]) -> str:
    cases = {c["name"]: c for c in part["tiny"]}
    loop = cases["loop of hscc.run"]
    engine = statistics.median(loop["engine_s"])
    total = loop["runs"]
    rows = []
    for c in part["tiny"]:
        wall = statistics.median(c["wall_s"])
        cached = "cached" in c["name"]
        e = 0.0 if cached else engine * c["runs"] / total
        per_run = c["runs"] == total
        rows.append(
            [
                c["name"],
                str(c["workers"]),
                f"{wall:.2f} s",
                f"{c['runs'] / wall:.0f}" if per_run else "",
                f"{(wall - e / c['workers']) / c['runs'] * 1e3:.1f}" if per_run else "",
            ]
        )
    head = ["case", "workers", "wall, median", "runs/s", "overhead ms per run"]
    return (
        f"{total} tiny runs (two Reno flows on 10 Mbit/s, 1 s simulated): engine time E "
        f"{engine:.3f} s, {engine / total * 1e3:.2f} ms per run; store on {part['store']}.\n\n"
        + _table(head, rows)
    )


def perf_sweeps(doc: dict[str, Any], group: str | None) -> str:
    part = _part(doc, "sweeps")
    body = _sweeps_tiny(part) if group == "tiny" else _sweeps_stored(part)
    reps = part["reps"]
    of = "one repetition" if reps == 1 else f"the median of {reps} repetitions"
    return _measured(part) + f"`{part['command']}`, {of}. " + body


def _times(x: float) -> str:
    """A ratio as the page writes them: 2.43×, 14.9×, 147×."""
    return f"{x:.0f}×" if x >= 100 else f"{x:.1f}×" if x >= 10 else f"{x:.2f}×"


def _median(values: list[float]) -> float:
    return statistics.median(values)


# Links of the probe part's test bed that are fed by one slower link alone, so never queue: the
# receiver's 10 Gbit/s access link behind the 700 Mbit/s bottleneck (data), the sender's behind
# the reverse bottleneck (ACKs).
NEVER_QUEUE = ("access-d0:fwd", "access-s0:rev")


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
            met = "met" if ratio <= part["target"] else "**not met**"
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
        never = sum(r["link_packets"].get(name, 0) for name in NEVER_QUEUE)
        cpu = _median([x["cpu_s"] for x in v["runs"]])
        rows.append(
            [
                f"hscc, {v['name']}",
                _int(r["events"]),
                _int(seg),
                f"{r['events'] / seg:.2f}",
                f"{on_links / seg:.2f}",
                f"{never / seg:.2f}",
                f"{(r['events'] - on_links) / seg:.2f}",
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
        "of them packets on links",
        "on links that never queue",
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


SIMULATOR_TOOLS = {
    "hscc": ("hscc", "`hscc run -q`", "the Python API's simulation loop"),
    "ns2": ("ns-2", "`ns SCRIPT.tcl`", "minus a 0-s run of the same script"),
    "ns3": ("ns-3", "the C++ program", "`Simulator::Run()`, timed inside the program"),
}


def _rate(bps: float) -> str:
    return f"{bps / 1e9:g} Gbit/s" if bps >= 1e9 else f"{bps / 1e6:g} Mbit/s"


def _sets(n: int) -> str:
    return "1 set" if n == 1 else f"{n} sets"


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


TABLES = {
    "dummynet.json": {"tick": dummynet_tick},
    "ns3.json": {
        "main": ns3_main,
        "flows": ns3_flows,
        "queue": ns3_queue,
        "replications": ns3_replications,
        "notes": notes,
        "status": status,
    },
    "ns2.json": {"main": ns2_main, "recovery": ns2_recovery, "notes": ns2_notes, "status": status},
    "engine.json": {
        "columns": engine_columns,
        "checks": engine_checks,
        "notes": notes,
        "status": engine_status,
    },
    "kernel.json": {
        "summary": kernel_summary,
        "trajectory": kernel_trajectory,
        "shares": kernel_shares,
        "models": kernel_models,
        "notes": notes,
        "status": status,
    },
    "fuzz.json": {"campaign": fuzz_campaign, "outcomes": fuzz_outcomes, "status": fuzz_status},
    "fairness.json": {"shares": fairness_shares, "threshold": fairness_threshold},
    "performance.json": {
        "testbed": perf_testbed,
        "callgrind": perf_callgrind,
        "many_flows": perf_many_flows,
        "flows": perf_flows,
        "loss_burst": perf_loss_burst,
        "startup": perf_startup,
        "sweeps": perf_sweeps,
        "probe": perf_probe,
        "simulators": perf_simulators,
    },
}


def render(file: str, args: dict[str, str]) -> str:
    name = Path(file).name
    doc = results.load(ROOT / file)
    return TABLES[name][args["table"]](doc, args.get("group"))


def blocks(text: str):
    for m in MARKER.finditer(text):
        args = dict(a.split("=", 1) for a in m.group("args").split())
        yield m, m.group("file"), args


def pages() -> list[Path]:
    return sorted(
        p
        for p in DOCS.rglob("*.md")
        if "<!-- generated: validation/results/" in p.read_text(encoding="utf-8")
    )


def stale_blocks(text: str) -> list[str]:
    """The generated tables of a page's text that differ from what their results file renders."""
    return [
        f"{file} {' '.join(f'{k}={v}' for k, v in args.items())}"
        for m, file, args in blocks(text)
        if m.group("body") != render(file, args)
    ]


def check() -> list[str]:
    """Every generated table that differs from what its results file renders: "page: file args"."""
    return [
        f"{page.relative_to(ROOT)}: {block}"
        for page in pages()
        for block in stale_blocks(page.read_text(encoding="utf-8"))
    ]


def write() -> list[Path]:
    changed = []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        new = MARKER.sub(
            lambda m: (
                m.group("open")
                + render(m.group("file"), dict(a.split("=", 1) for a in m.group("args").split()))
                + m.group("close")
            ),
            text,
        )
        if new != text:
            page.write_text(new, encoding="utf-8")
            changed.append(page)
    return changed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument(
        "--check", action="store_true", help="exit 1 if a table differs from its results file"
    )
    mode.add_argument(
        "--write", action="store_true", help="rewrite the tables from the results files"
    )
    args = ap.parse_args(argv)
    if args.check:
        stale = check()
        for s in stale:
            print(f"stale: {s}", file=sys.stderr)
        if stale:
            print("run: python validation/results/render.py --write", file=sys.stderr)
        return 1 if stale else 0
    for page in write():
        print(f"wrote {page.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
