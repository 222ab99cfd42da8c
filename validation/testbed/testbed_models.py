"""Single Reno flows with random loss against the analytical models (Padhye et al., Mathis et
al.): the rows and their table."""

from __future__ import annotations

import math

from testbed_configs import CONFIGS


def padhye(p: float, rtt: float, t0: float) -> float:
    """Padhye, Firoiu, Towsley, Kurose (SIGCOMM 1998), eq. (31), b = 1 (Linux counts acknowledged
    segments, so cwnd grows one per RTT with delayed ACKs too): send rate, segments/s
    (crates/hscc-sim/tests/validation.rs has the same)."""
    return 1 / (
        rtt * math.sqrt(2 * p / 3) + t0 * min(1.0, 3 * math.sqrt(3 * p / 8)) * p * (1 + 32 * p * p)
    )


def mathis(p: float, rtt: float) -> float:
    """Mathis, Semke, Mahdavi, Ott (CCR 1997): 1/RTT · √(3/2p) segments/s."""
    return math.sqrt(1.5 / p) / rtt


def model_rows(spreads: list[dict]):
    """Single Reno flows with random loss: each run's send rate against the models at the random loss rate
    it realized (`compare.loss` of the random drops), its mean sampled sRTT and an RTO of that plus Linux's 200 ms minimum, as
    Padhye et al. validated theirs. Where Mathis's rate exceeds the link's the flow is link-limited and
    the models do not apply: "link-limited". Yields (configuration, side, row)."""
    for s in spreads:
        c = CONFIGS[s["config"]]
        if not c.loss or c.flows != (("reno", 1),):
            continue
        link_rate = c.rate * 1e6 / 12_000  # packets/s
        for side in ("sim", "kernel"):
            for i, r in enumerate(s[side]):
                p, rtt = r.get("random_loss"), r["mean_srtt_s"]
                if not p or not rtt:
                    continue
                model = padhye(p, rtt, rtt + 0.2)
                yield (
                    s["config"],
                    side,
                    {
                        "run": f"{side} seed {i + 1}" if side == "sim" else f"kernel #{i + 1}",
                        "random_loss": p,
                        "mean_srtt_s": rtt,
                        "send_rate": r["send_rate"],
                        "mathis": mathis(p, rtt),
                        "padhye": model,
                        "verdict": f"{r['send_rate'] / model:.2f}"
                        if mathis(p, rtt) < link_rate
                        else "link-limited",
                    },
                )


def model_table(spreads: list[dict]) -> str:
    """`model_rows` as a table."""
    out = [
        "| configuration | run | random loss realized | mean sRTT (ms) | send rate (seg/s) | Mathis | Padhye | rate / Padhye |",
        "|" + "---|" * 8,
    ]
    for config, _, m in model_rows(spreads):
        out.append(
            f"| {config} | {m['run']} | {m['random_loss']:.2e} | {m['mean_srtt_s'] * 1e3:.1f} | {m['send_rate']:.0f} | "
            f"{m['mathis']:.0f} | {m['padhye']:.0f} | {m['verdict']} |"
        )
    return "\n".join(out) + "\n"
