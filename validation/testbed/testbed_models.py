"""Single Reno flows with random loss against the analytical models (Padhye et al., Mathis et
al.): the rows and their table."""

from __future__ import annotations

import math
import sys
from pathlib import Path

from testbed_configs import CONFIGS

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "results"))
from renderers.kernel import MODEL_HEAD, model_cells  # noqa: E402
from renderers.markdown import _table  # noqa: E402


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
    the models do not apply: "link-limited". The same after the start-up (`testbed_summary.steady`):
    the segments delivered per second from 5 s on against Padhye's rate × (1 − p) at that part's
    mean sRTT, since the whole run's rate holds the slow-start overshoot and its recovery, which
    the models leave out. Yields (configuration, side, row)."""
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
                row = {
                    "run": f"{side} seed {i + 1}"
                    if side == "sim" or s.get("kernel_seeds")
                    else f"kernel #{i + 1}",
                    "random_loss": p,
                    "mean_srtt_s": rtt,
                    "send_rate": r["send_rate"],
                    "mathis": mathis(p, rtt),
                    "padhye": model,
                    "verdict": _ratio(r["send_rate"], model, mathis(p, rtt), link_rate),
                }
                st = r.get("steady")
                if st:
                    srtt = st["mean_srtt_s"]
                    row["steady_srtt_s"] = srtt
                    row["steady_verdict"] = _ratio(
                        st["delivered_rate"],
                        padhye(p, srtt, srtt + 0.2) * (1 - p),
                        mathis(p, srtt),
                        link_rate,
                    )
                yield s["config"], side, row


def _ratio(rate: float, model: float, mathis_rate: float, link_rate: float) -> str:
    return f"{rate / model:.2f}" if mathis_rate < link_rate else "link-limited"


def model_table(spreads: list[dict]) -> str:
    """`model_rows` as a table, as docs/validation/kernel.md prints it."""
    return _table(MODEL_HEAD, [model_cells(config, m) for config, _, m in model_rows(spreads)])
