"""The matched configurations of the ns-2 cross-check.

Each one is a point of a reproduction experiment (its `[sweep.base]` with the sweep's
axes set), so the set-up has one owner: the experiment file. Both tools run it with
`stack = "ns2"` (ns-2.35's Sack1 agent and sink: docs/scenario.md, "Reference stacks");
what a configuration changes beyond that is in `overrides` and said in `description`.
CUBIC and Compound flows run ns-2's TCP-Linux agent instead, and set in hscc what that
agent does where it differs from the Sack1 agent the profile models (`LINUX`).
ns2_tcl.py translates the scenario's engine form into ns-2's script.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import ns2_tcl as tcl

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
    # The experiment's flows kept (the first n; None: all), and its top-level tables left out:
    # traffic the translation cannot give ns-2 (web transfers, VoIP).
    keep_flows: int | None = None
    drop: tuple[str, ...] = ()

    def scenario(self, seed: int, duration: float | None = None) -> dict[str, Any]:
        """The scenario both tools run (hscc's input form)."""
        base = copy.deepcopy(resolve(self.experiment).sweep["base"])
        for key in self.drop:
            base.pop(key, None)
        if self.keep_flows is not None:
            base["flows"] = base["flows"][: self.keep_flows]
        for path, value in {**self.point, **self.overrides}.items():
            put(base, path, value)
        base.update(name=self.name, seed=seed, stack="ns2", output={"traces": []})
        base["duration"] = self.duration if duration is None else duration
        return base


# ns-2's overhead_ as the TCP-Africa paper set it (§IV: 8 µs): a random send delay that
# breaks the phase effects of a deterministic simulation.
AFRICA = {"flows[0].host_jitter": "8us", "flows[1].host_jitter": "8us"}
HS = {"response": 1}

# What a flow run as ns-2's TCP-Linux sets beyond stack = "ns2" (ns2_tcl.LINUX_TCP says why):
# timestamps, RACK with loss at the 4th duplicate ACK and no probes, rate halving as PRR, no
# undo, the RTO restarted by every ACK.
LINUX = {k: v for k, v in tcl.LINUX_TCP.items() if tcl.NS2_TCP.get(k) != v}
LINUX_TEXT = (
    "ns-2's TCP-Linux agent (Agent/TCP/Linux, select_ca {module}; Agent/TCPSink/Sack1 with "
    'timestamps echoed); hscc with stack = "ns2" and what that agent does instead of the Sack1 '
    "agent's: timestamps = true (its RTT from every ACK's echo, in 1 ms ticks; RTO = SRTT + "
    '4 RTTVAR, at least 200 ms, the backoff reset by each echo), loss_detection = "rack" with '
    "reordering = 4 and no D-SACK, undo, F-RTO or tail-loss probes (its scoreboard marks a segment lost when the "
    "highest SACKed one is 4 above it, and a retransmission lost when a segment sent after it "
    'is SACKed, as RACK does once recovery starts), recovery = "prr" (it sets the window to '
    "ssthresh at once and halves the sending rate, one segment per two ACKs, from the old window "
    "down to it: rate halving, which hscc has as PRR's proportional reduction; its flight is "
    'RFC 6675\'s), rto_restart = "every_ack" (time_processing restarts the RTO at every ACK, '
    "duplicates included, where the Sack1 agent restarts it at ACKs of new data); growth per ACK "
    "and an ACK per packet as the profile's. Not modelled: it bursts up to the window once the flight "
    "is below it (maxburst_ 0), where PRR sends at most one segment more than is delivered"
)
CUBIC_TEXT = (
    "CUBIC as ns-2.35's tcp_cubic.c v2.1 (Linux 2.6.22): hscc's cubic with version_2_1 "
    "(per-ACK growth divided by its estimate of segments per ACK, which stays at 31/16 with an "
    "ACK per segment; one segment per 50 ACKs from the start and after every timeout until the "
    "next loss; at most 16 segments per round trip per 100 ms of minimum RTT past W_max; the "
    "minimum RTT from ACKs of new data outside recovery, none within a second of the epoch's "
    "start nor, before the first epoch, of the clock's zero) and beta = 819/1024, C = 0.4, "
    "no HyStart"
)
COMPOUND_TEXT = (
    "Compound as ns-2.35's tcp_compound.c (the May 2006 module of Castellani and Hemminger, "
    "before Lachlan Andrew's releases, so not hscc's ctcp-la): hscc's ctcp with every ACK's RTT "
    "sample (sample_interval_us = 0), the round's minimum over more than 2 samples "
    "(rtt_min_filter, min_samples = 2) and win = the segments sent in the round measured "
    "(win_sent), α = 1/8, k = 3/4, ζ = 1, γ = 30 fixed. Not modelled: the module updates dwnd "
    "at every round end, in slow start too (hscc's ctcp from the end of slow start); at a loss "
    "it sets the window to min_cwnd = ssthresh/2, a quarter of the old window, which with rate "
    "halving from the old window leaves about half in flight when recovery ends, where the "
    "window is set to ssthresh = half; it then gives the Reno part the whole window (dwnd = 0) "
    "when dwnd or the Reno part was more than that half, else keeps dwnd and gives the Reno "
    "part the rest (hscc's ctcp: the Reno part halves, dwnd the rest of half the window)"
)


def tcp_linux(algo: str, *flows: int) -> dict[str, Any]:
    """The overrides that make the flow entries `flows` TCP-Linux flows of `algo`."""
    params = tcl.LINUX_ALGOS[algo][1]
    out: dict[str, Any] = {}
    for i in flows:
        out |= {f"flows[{i}].{k}": v for k, v in LINUX.items()}
        out |= {f"flows[{i}].algorithm": algo, f"flows[{i}].params": dict(params)}
    return out


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
    what = (
        f"CTCP Table 2's set-up (700 Mbit/s, 1000-packet DropTail, 2 flows at 40 ms and 2 at {rtt})"
    )
    linux = algo in tcl.LINUX_ALGOS
    return Config(
        name=name,
        description=(
            f"{what}, {algo}, without the Dummynet tick (ns-2 has none)"
            + (
                f"; {LINUX_TEXT.format(module=tcl.LINUX_ALGOS[algo][0])}; {COMPOUND_TEXT}"
                if linux
                else ""
            )
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
        overrides={"topology.bottleneck.tick": "0s", **(tcp_linux(algo, 0, 1) if linux else {})},
        duration=150.0,
    )


def _sync(name: str, rtt: str) -> Config:
    return Config(
        name=name,
        description=(
            f"Sync-TCP Fig. 8's RTT-fairness set-up (1 Gbit/s, 20 ms, a 0.5 BDP DropTail queue "
            f"of 2404 packets as the experiment's ns2 variant counts it), two CUBIC flows at 60 "
            f"ms and {rtt}, both starting at 0 s, alone: without the web transfers, VoIP call "
            f"and legacy FTP flow, the 1e-6 packet error rate and the start-up jitter (none of "
            f"which the translation gives ns-2), 300 s as the experiment; "
            f"{LINUX_TEXT.format(module='cubic')}; {CUBIC_TEXT}"
        ),
        experiment="sync-fig8",
        point={"topology.pairs[1].rtt": rtt},
        groups=(("60 ms", (0,)), (rtt.replace("ms", " ms"), (1,))),
        overrides={
            "topology.bottleneck.loss": 0.0,
            "topology.bottleneck.buffer": "2404pkts",
            "flows[0].start_jitter": "0s",
            "flows[1].start_jitter": "0s",
            **tcp_linux("cubic", 0, 1),
        },
        # TCP-Linux takes about 0.2 s of CPU per simulated second at 1 Gbit/s.
        duration=300.0,
        keep_flows=2,
        drop=("voip", "web"),
    )


CONFIGS: dict[str, Config] = {
    c.name: c
    for c in (
        _africa(
            "africa-safety-hstcp",
            "africa-safety",
            ("highspeed", "reno"),
            "TCP-Africa Figs. 3-4's set-up: HSTCP (1 Gbit/s access) against Reno (100 Mbit/s "
            "access), 622 Mbit/s, 164 ms, queues of 49 packets (ns-2's queue-limit 50), 3 % Poisson UDP",
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
        _ctcp("ctcp-rtt3-compound", "ctcp", "120ms"),
        _ctcp("ctcp-rtt6-compound", "ctcp", "240ms"),
        _sync("sync-rtt2-cubic", "120ms"),
        _sync("sync-rtt4-cubic", "240ms"),
        _sync("sync-rtt8-cubic", "480ms"),
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
