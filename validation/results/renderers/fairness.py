"""The tables of fairness.json: how identical Reno flows share a bottleneck, and the
statistics of the fairness test's threshold."""

from __future__ import annotations

from .markdown import _span, _table


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
