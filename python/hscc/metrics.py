"""Bandwidth stolen (CTCP §IV.C; TCP-FIT's BSR, eq. 22) as one call.

The per-run metrics (throughput ratio, short-term Jain index, signal
synchronization) are methods of `hscc.Result`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from hscc import _core
from hscc.errors import Issue, ScenarioError
from hscc.results import Result
from hscc.runner import run
from hscc.scenario import Scenario


@dataclass(frozen=True)
class Stolen:
    """The outcome of `bandwidth_stolen`."""

    p_bps: float
    """P: the regular flows' aggregate goodput against Reno (the baseline), bit/s."""
    q_bps: float
    """Q: the same flows' aggregate goodput against the tested flows, bit/s."""
    stolen: float
    """(P − Q) / P."""
    baseline: Result
    test: Result


def bandwidth_stolen(
    scenario: Scenario | str | Path | dict[str, Any], tested: list[int], seed: int | None = None
) -> Stolen:
    """Bandwidth the `[[flows]]` entries `tested` (indices) take from the other TCP flows.

    Runs the scenario, and its baseline in which every tested entry runs Reno with
    default parameters (same seed, everything else equal); P and Q are the other
    flows' aggregate goodputs in the baseline and in the test.
    """
    sc = Scenario.coerce(scenario)
    data = sc.to_dict()
    for i in tested:
        if not 0 <= i < len(sc.flows):
            raise ScenarioError(
                [Issue("tested", i, f"indices of [[flows]] entries, 0 to {len(sc.flows) - 1}")],
                sc.source,
            )
        data["flows"][i]["algorithm"], data["flows"][i]["params"] = "reno", {}
    baseline = run(Scenario.parse(data, sc.source), seed=seed)
    test = run(sc, seed=seed)

    def others(r: Result) -> float:
        return float(r.flows.filter(~pl.col("spec").is_in(tested))["goodput_bps"].sum())

    p, q = others(baseline), others(test)
    return Stolen(p, q, _core.stolen_share(p, q), baseline, test)
