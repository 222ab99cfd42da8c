"""The tables of engine.json: the engine against analytical models and the papers' analyses."""

from __future__ import annotations

import re

from .entries import _count, _dates, _select, _verdict
from .markdown import _pct, _table


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
