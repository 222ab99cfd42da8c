"""The matched configurations of the ns-2 cross-check.

Each one is a point of a reproduction experiment (its `[sweep.base]` with the sweep's
axes set), so the set-up has one owner: the experiment file. Both tools run it with
`stack = "ns2"` (ns-2.35's Sack1 agent and sink: docs/scenario.md, "Reference stacks");
what a configuration changes beyond that is in `overrides` and said in `description`.
ns2_tcl.py translates the scenario's engine form into ns-2's script.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from hscc.reproduce import resolve
from hscc.sweeps.paths import put


@dataclass(frozen=True)
class Config:
    name: str
    description: str
    experiment: str
    # Axis values of the experiment's sweep, and any other field set (a scenario path each).
    point: dict[str, Any]
    # The flows compared: (label, flow indices after `count` expansion), the ratio is a / b.
    groups: tuple[tuple[str, tuple[int, ...]], tuple[str, tuple[int, ...]]]
    overrides: dict[str, Any] = field(default_factory=dict)
    # Simulated seconds: the two tools compare at the same length, which need not be the
    # paper's; ns-2 takes minutes per run at 622-700 Mbit/s.
    duration: float = 240.0

    def scenario(self, seed: int, duration: float | None = None) -> dict[str, Any]:
        """The scenario both tools run (hscc's input form)."""
        base = copy.deepcopy(resolve(self.experiment).sweep["base"])
        for path, value in {**self.point, **self.overrides}.items():
            put(base, path, value)
        base.update(name=self.name, seed=seed, stack="ns2", output={"traces": []})
        base["duration"] = self.duration if duration is None else duration
        return base


# ns-2's overhead_ as the TCP-Africa paper set it (§IV: 8 µs): a random send delay that
# breaks the phase effects of a deterministic simulation.
AFRICA = {"flows[0].host_jitter": "8us", "flows[1].host_jitter": "8us"}
HS = {"response": 1}


def _africa(name: str, experiment: str, algos: tuple[str, str], what: str, **point: Any) -> Config:
    a, b = algos
    return Config(
        name=name,
        description=what,
        experiment=experiment,
        point={
            "flows[0].algorithm": a,
            "flows[0].params": HS if a == "highspeed" else {},
            "flows[1].algorithm": b,
            "flows[1].params": HS if b == "highspeed" else {},
            **point,
        },
        groups=(("A→B", (0,)), ("C→D", (1,))),
        overrides=AFRICA,
    )


def _ctcp(name: str, algo: str, rtt: str) -> Config:
    return Config(
        name=name,
        description=(
            f"CTCP Table 2's set-up (700 Mbit/s, 1000-packet DropTail, 2 flows at 40 ms and 2 "
            f"at {rtt}), {algo}, without the Dummynet tick (ns-2 has none)"
        ),
        experiment="ctcp-table2",
        point={
            "topology.pairs[1].rtt": rtt,
            "flows[0].algorithm": algo,
            "flows[1].algorithm": algo,
            "flows[0].params": HS if algo == "highspeed" else {},
            "flows[1].params": HS if algo == "highspeed" else {},
        },
        groups=(("short", (0, 1)), ("long", (2, 3))),
        overrides={"topology.bottleneck.tick": "0s"},
        duration=150.0,
    )


CONFIGS: dict[str, Config] = {
    c.name: c
    for c in (
        _africa(
            "africa-safety-hstcp",
            "africa-safety",
            ("highspeed", "reno"),
            "TCP-Africa Figs. 3-4's set-up: HSTCP (1 Gbit/s access) against Reno (100 Mbit/s "
            "access), 622 Mbit/s, 164 ms, 50-packet queues, 3 % Poisson UDP",
        ),
        _africa(
            "africa-fairness-hstcp",
            "africa-fairness",
            ("highspeed", "reno"),
            "TCP-Africa Figs. 5-6's set-up: HSTCP against Reno, both on 1 Gbit/s access links",
        ),
        _africa(
            "africa-fairness-reno",
            "africa-fairness",
            ("reno", "reno"),
            "TCP-Africa Figs. 5-6's set-up with Reno against Reno",
        ),
        _africa(
            "africa-rtt3-hstcp",
            "africa-table1-2",
            ("highspeed", "highspeed"),
            "TCP-Africa Table II's set-up: two HSTCP flows at 30 and 90 ms (RTT ratio 3)",
            **{"topology.pairs[1].rtt": "90ms"},
        ),
        _africa(
            "africa-rtt6-hstcp",
            "africa-table1-2",
            ("highspeed", "highspeed"),
            "TCP-Africa Table II's set-up at RTT ratio 6 (30 and 180 ms), HSTCP",
            **{"topology.pairs[1].rtt": "180ms"},
        ),
        _ctcp("ctcp-rtt3-reno", "reno", "120ms"),
        _ctcp("ctcp-rtt3-hstcp", "highspeed", "120ms"),
        _ctcp("ctcp-rtt6-reno", "reno", "240ms"),
    )
}

# A smoke configuration for the harness's own test: small and short.
TINY = Config(
    name="tiny",
    description="one Reno flow against one HSTCP flow, 20 Mbit/s, 2 s",
    experiment="africa-fairness",
    point={
        "flows[0].algorithm": "highspeed",
        "flows[0].params": HS,
        "flows[1].algorithm": "reno",
        "topology.bottleneck.rate": "20Mbps",
        "topology.bottleneck.delay": "10ms",
        "udp[0].rate": "0.6Mbps",
    },
    groups=(("A→B", (0,)), ("C→D", (1,))),
    overrides=AFRICA,
)
