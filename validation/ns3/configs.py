"""The matched configurations: one source for the ns-3 JSON and the hscc scenario.

Every configuration is a dumbbell: one sender/receiver host pair per flow,
access links at 10 Gbit/s (the sender's with delay `send_delay`, the
receiver's with `recv_delay`), one bottleneck of `rate`, `delay`, a DropTail
buffer of `buffer_pkts` packets in each direction and Bernoulli loss `loss`
on the data that crossed it. Settings common to both tools (see
docs/validation/ns3.md):

- segments of 1448 bytes with timestamps: 1448 + 20 IP + 32 TCP = 1500-byte
  packets, + 2 bytes of PPP header on every ns-3 point-to-point link;
- SACK on, PRR recovery, initial window 10, initial ssthresh infinite;
- MinRto 1 s (ns-3's default and RFC 6298's; hscc's default is Linux's 200 ms);
- delayed ACKs: `delack` segments per ACK (1: an ACK per segment), timer 200 ms
  (ns-3's default; hscc's default is 40 ms);
- hscc's side says `stack = "ns3"`, whose profile (docs/scenario.md, "Reference
  stacks") sets ns-3's TCP settings and each algorithm's as its ns-3 class; a
  flow names only what differs from it (classic recovery, an ACK per segment,
  TcpLinuxReno's Linux-style counting);
- send and receive buffers that never limit (128 MB in ns-3, unlimited in hscc);
- ns-3: no queue disc (its default FqCoDel removed), the error model on the
  bottleneck's receiving device; hscc: loss_point = "after_queue".

Only this file says what a configuration is; `ns3_json` and `hscc_scenario`
translate it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SEGMENT = 1448
PACKET = 1500  # SEGMENT + 20 (IPv4) + 32 (TCP with the timestamp option)
PPP = 2  # ns-3 PointToPointNetDevice header
ACCESS_RATE = 10e9
ACCESS_BUFFER = 100_000  # packets: never fills
SOCKET_BUFFER = 128 << 20  # ns-3 SndBufSize / RcvBufSize, bytes
MIN_RTO = 1.0
DELACK_TIMEOUT = 0.2


# Algorithm: ns-3 TypeId and attributes, hscc name, and the flow settings hscc's
# side needs beyond what `stack = "ns3"` gives that algorithm. The profile
# matches each hscc algorithm to its ns-3 class: how ns-3 counts
# congestion-avoidance growth (`ack_counting`: "acks", per ACK whatever it
# covers, for TcpNewReno; "segments" otherwise), what its GetSsThresh reduces
# from (`ssthresh_from`: "pipe", the bytesInFlight argument, for TcpNewReno,
# TcpHighSpeed and TcpScalable; "cwnd" otherwise) and the parameters of
# TcpCubic, TcpScalable and TcpVegas. All of ns-3's ns3::TcpNewReno subclasses
# (HighSpeed, Scalable, Vegas) inherit its slow start, +1 segment per ACK; with
# an ACK per segment (delack 1) that differs from counting segments only on ACKs
# that cover several segments (the one that ends a recovery).
@dataclass(frozen=True)
class Algo:
    ns3_type: str
    hscc: str
    hscc_knobs: dict = field(default_factory=dict)
    ns3_attributes: dict = field(default_factory=dict)
    note: str = ""
    # The receiver's socket runs the class too: TcpDctcp's Init turns ECN on and its
    # CwndEvent gives the receiver DCTCP's CE echo; a TcpNewReno receiver would refuse ECN.
    ns3_receiver: bool = False


ALGOS = {
    "newreno": Algo(
        "ns3::TcpNewReno",
        "reno",
        note="ns-3 TcpNewReno: +1 segment per ACK in slow start, +MSS²/cwnd per ACK in CA; ssthresh = max(2, BytesInFlight/2)",
    ),
    "linuxreno": Algo(
        "ns3::TcpLinuxReno",
        "reno",
        {"ack_counting": "segments", "ssthresh_from": "cwnd"},
        note="ns-3 TcpLinuxReno: Linux's segment counting, ssthresh = cwnd/2 (the ns3 profile's reno is TcpNewReno)",
    ),
    "highspeed": Algo(
        "ns3::TcpHighSpeed",
        "highspeed",
        note="ns-3: a(w) × segments acked; ssthresh from BytesInFlight",
    ),
    "cubic": Algo(
        "ns3::TcpCubic",
        "cubic",
        note="ns-3 3.44: HyStart on, fast convergence, Reno-friendly, beta 0.7, C 0.4",
    ),
    "scalable": Algo(
        "ns3::TcpScalable",
        "scalable",
        note="ns-3: +1 per min(cwnd, AIFactor 50) segments acked, x0.875 always; ssthresh from BytesInFlight",
    ),
    "vegas": Algo(
        "ns3::TcpVegas",
        "vegas",
        note="ns-3: diff = cwnd - cwnd*baseRTT/RTT, RTT samples = m_srtt on every ACK; on loss max(min(ssthresh, cwnd - 1), 2)",
    ),
    # ns-3's TcpBbr is BBR v1 without Linux's long-term (policer) sampling: lt_loss_thresh 256
    # makes an interval lossy only when it lost as much as it delivered, which never happens here.
    # Its ACK-aggregation estimate restarts its epoch after 4096 bytes (m_ackEpochAckedResetThresh,
    # Linux: 2^20 packets) and truncates the epoch's length to whole seconds, so it allows at most
    # 2 segments: hscc's allowance is off (extra_acked_gain 0). HighGain 2.89 and its inverse for
    # DRAIN, to the nearest 1/256 (Linux: 739 and 88).
    "bbr": Algo(
        "ns3::TcpBbr",
        "bbr",
        {
            "params": {
                "high_gain": 740,
                "drain_gain": 89,
                "extra_acked_gain": 0,
                "lt_loss_thresh": 256,
            }
        },
        note="ns-3 3.44 TcpBbr: v1; no long-term bandwidth sampling; ACK-aggregation allowance at most 2 segments; quantization budget 3 segments (Linux: 3 TSO goals); RTT samples in whole milliseconds (timestamps)",
    ),
    # TcpDctcp: g 1/16 (DctcpShiftG 0.0625), alpha 1 at the start (DctcpAlphaOnInit), Linux Reno
    # growth; hscc's dctcp defaults are these. ECN on both ends, as TcpDctcp::Init sets it.
    "dctcp": Algo(
        "ns3::TcpDctcp",
        "dctcp",
        {"ecn": True},
        note="ns-3 TcpDctcp: alpha as a double, g = 1/16, ssthresh = (1 - alpha/2) cwnd also on loss (Linux 6.12: cwnd/2 on loss)",
        ns3_receiver=True,
    ),
}


@dataclass(frozen=True)
class FlowSpec:
    algo: str
    start: float
    send_delay: float
    recv_delay: float


@dataclass(frozen=True)
class Config:
    name: str
    description: str
    rate_bps: float
    delay: float  # bottleneck, one way
    buffer_pkts: int
    loss: float
    delack: int
    flows: tuple[FlowSpec, ...]
    duration: float
    quick_duration: float
    seed: int = 1
    recovery: str = "prr"  # or "classic": cwnd = ssthresh at once (ns-3 TcpClassicRecovery; with SACK, RFC 6675)
    # CE-mark at K packets waiting: ns-3 RED with MinTh = MaxTh = step_k (see ns3_json); None: DropTail.
    step_k: int | None = None
    # Sample the bottleneck's backlog every this many seconds in both tools (mean over the second
    # half); None: not sampled (the configurations that predate the measure keep their inputs).
    queue_sample: float | None = None
    # The table of docs/validation/ns3.md the configuration's results go to.
    group: str = "prr"

    def __post_init__(self) -> None:
        last = max(f.start for f in self.flows)
        for d in (self.duration, self.quick_duration):
            if not last < d / 2:
                raise ValueError(
                    f"{self.name}: the last flow starts at {last:g} s, not in the first half of {d:g} s"
                )
        if self.recovery not in ("prr", "classic"):
            raise ValueError(f"{self.name}: recovery {self.recovery!r}, want 'prr' or 'classic'")
        if self.step_k is not None and not 1 < self.step_k < self.buffer_pkts - 1:
            raise ValueError(f"{self.name}: step_k {self.step_k} not in (1, buffer - 1)")

    def base_rtt(self) -> float:
        f = self.flows[0]
        return 2 * (self.delay + f.send_delay + f.recv_delay)

    def with_duration(self, quick: bool) -> Config:
        from dataclasses import replace

        return replace(self, duration=self.quick_duration if quick else self.duration)


def _same(algos: list[str], starts: list[float], send: float, recv: float) -> tuple[FlowSpec, ...]:
    return tuple(FlowSpec(a, s, send, recv) for a, s in zip(algos, starts, strict=True))


def _bdp(rate_bps: float, rtt: float) -> int:
    return round(rate_bps * rtt / 8 / PACKET)


def _configs() -> list[Config]:
    out: list[Config] = []
    # NewReno under random loss: 2 flows, 10 Mbit/s, RTT 100 ms, buffer 1 BDP (83 packets).
    for algo in ("newreno", "linuxreno"):
        for p in (1e-3, 1e-2):
            for delack in (1, 2):
                if algo == "linuxreno" and (p, delack) != (1e-2, 2):
                    continue  # the one LinuxReno case that isolates per-ACK counting
                out.append(
                    Config(
                        f"{algo}-loss{p:.0e}-d{delack}".replace("e-0", "e-"),
                        f"2 {algo}, 10 Mbit/s, RTT 100 ms, loss {p:g}, {delack} seg/ACK",
                        10e6,
                        0.02,
                        _bdp(10e6, 0.1),
                        p,
                        delack,
                        _same([algo] * 2, [0.0, 0.5], 0.029, 0.001),
                        200.0,
                        30.0,
                    )
                )
    # 4 flows of one algorithm: 100 Mbit/s (RTT 40 ms) and 1 Gbit/s (RTT 20 ms), buffer 1 BDP.
    for algo in ("newreno", "highspeed", "cubic", "scalable", "vegas"):
        out.append(
            Config(
                f"{algo}-4x100M",
                f"4 {algo}, 100 Mbit/s, RTT 40 ms, buffer 1 BDP",
                100e6,
                0.01,
                _bdp(100e6, 0.04),
                0.0,
                1,
                _same([algo] * 4, [0.0, 1.0, 2.0, 3.0], 0.009, 0.001),
                40.0,
                8.0,
            )
        )
    out.append(
        Config(
            "linuxreno-4x100M",
            "4 linuxreno, 100 Mbit/s, RTT 40 ms, buffer 1 BDP",
            100e6,
            0.01,
            _bdp(100e6, 0.04),
            0.0,
            1,
            _same(["linuxreno"] * 4, [0.0, 1.0, 2.0, 3.0], 0.009, 0.001),
            40.0,
            8.0,
        )
    )
    # 1 Gbit/s: RTT 10 ms, buffer 1 BDP (833 packets), 8 s. ns-3 costs about 15-40 s of CPU per
    # simulated second here (its SACK scoreboard work grows with the window), so the RTT is
    # short to give several loss cycles in a run that fits the suite's time.
    g = dict(
        rate_bps=1e9,
        delay=0.0025,
        buffer_pkts=_bdp(1e9, 0.01),
        loss=0.0,
        delack=1,
        duration=8.0,
        quick_duration=2.0,
    )
    for algo in ("newreno", "highspeed", "cubic", "scalable", "vegas"):
        out.append(
            Config(
                name=f"{algo}-4x1G",
                description=f"4 {algo}, 1 Gbit/s, RTT 10 ms, buffer 1 BDP",
                flows=_same([algo] * 4, [0.0, 0.25, 0.5, 0.75], 0.002, 0.0005),
                **g,
            )
        )
    out.append(
        Config(
            name="mix-newreno-highspeed-1G",
            description="2 newreno + 2 highspeed, 1 Gbit/s, RTT 10 ms, buffer 1 BDP",
            flows=_same(
                ["newreno", "highspeed", "newreno", "highspeed"],
                [0.0, 0.25, 0.5, 0.75],
                0.002,
                0.0005,
            ),
            **g,
        )
    )
    out.append(
        Config(
            name="cubic-10x1G",
            description="10 cubic (ns-3's default), 1 Gbit/s, RTT 10 ms, buffer 1 BDP",
            flows=_same(["cubic"] * 10, [round(0.05 * i, 2) for i in range(10)], 0.002, 0.0005),
            **g,
        )
    )
    # BBR: 100 Mbit/s, RTT 40 ms (a BDP of 333 packets), delayed ACKs every 2 segments (ns-3's
    # and Linux's default, and tcp-bbr-example's), buffers of 1 BDP and 0.25 BDP. Long enough
    # for PROBE_RTT (every 10 s) to recur in the second half.
    b = dict(rate_bps=100e6, delay=0.01, loss=0.0, delack=2, queue_sample=0.01, group="bbr")
    bdp100 = _bdp(100e6, 0.04)
    out.append(
        Config(
            name="bbr-1x100M",
            description="1 bbr, 100 Mbit/s, RTT 40 ms, buffer 1 BDP",
            buffer_pkts=bdp100,
            flows=_same(["bbr"], [0.0], 0.009, 0.001),
            duration=20.0,
            quick_duration=8.0,
            **b,
        )
    )
    for suffix, buf, what in (("", bdp100, "1 BDP"), ("-b0.25", round(bdp100 / 4), "0.25 BDP")):
        out.append(
            Config(
                name=f"bbr-4x100M{suffix}",
                description=f"4 bbr, 100 Mbit/s, RTT 40 ms, buffer {what}",
                buffer_pkts=buf,
                flows=_same(["bbr"] * 4, [0.0, 1.0, 2.0, 3.0], 0.009, 0.001),
                duration=40.0,
                quick_duration=8.0,
                **b,
            )
        )
    out.append(
        Config(
            name="mix-bbr-cubic-100M",
            description="1 cubic + 1 bbr, 100 Mbit/s, RTT 40 ms, buffer 1 BDP",
            buffer_pkts=bdp100,
            flows=_same(["cubic", "bbr"], [0.0, 1.0], 0.009, 0.001),
            duration=40.0,
            quick_duration=8.0,
            **b,
        )
    )
    # DCTCP: 1 Gbit/s, RTT 1 ms (a BDP of 83 packets), CE marks at K = 20 (the DCTCP paper's K
    # at 1 Gbit/s, above its C·RTT/7 = 12), a 500-packet buffer, delayed ACKs every 2 segments
    # (ns-3's dctcp-example). Flows start 50 ms apart.
    for n in (2, 10):
        out.append(
            Config(
                name=f"dctcp-{n}x1G",
                description=f"{n} dctcp, 1 Gbit/s, RTT 1 ms, step marking at K = 20, buffer 500",
                rate_bps=1e9,
                delay=0.00025,
                buffer_pkts=500,
                loss=0.0,
                delack=2,
                flows=_same(["dctcp"] * n, [round(0.05 * i, 2) for i in range(n)], 0.0002, 0.00005),
                duration=4.0,
                quick_duration=1.0,
                step_k=20,
                queue_sample=0.002,
                group="dctcp",
            )
        )
    return out


CONFIGS: dict[str, Config] = {c.name: c for c in _configs()}

# Durations: ns-3 3.44's wheel takes about 0.01-0.04 s of CPU per simulated second at
# 10 Mbit/s, 0.3-0.6 s at 100 Mbit/s and, at 1 Gbit/s with RTT 10 ms, 3-8 s for NewReno and
# CUBIC but 20-80 s for HighSpeed, Scalable and Vegas (8 s of each took 159, 313 and 566
# CPU-seconds on an idle machine, 197 and 609 for HighSpeed and Scalable with classic recovery:
# their entries in validation/results/ns3.json), plus 20 s to 3 minutes to import its bindings per run; hscc under
# 0.3 s for any of these runs. BBR at 100 Mbit/s costs ns-3 about 1 s per simulated second alone
# but about 9 s with 4 flows, whose losses keep its SACK scoreboard busy; DCTCP at 1 Gbit/s and
# RTT 1 ms 5-7 s (the CPU column of docs/validation/ns3.md). The suite takes about 1.5 hours: the
# wall times of ns-3's runs in ns3.json add up to 1.4 h.

# A tiny configuration for the harness's own test: one flow, no loss, fills the link.
TINY = Config(
    "tiny-1x10M",
    "1 linuxreno, 10 Mbit/s, RTT 40 ms, buffer 1 BDP, no loss",
    10e6,
    0.01,
    _bdp(10e6, 0.04),
    0.0,
    1,
    _same(["linuxreno"], [0.0], 0.009, 0.001),
    20.0,
    20.0,
)


def ns3_json(c: Config) -> dict:
    """The configuration for ns3_dumbbell.py. Keys a configuration does not use are left out, so
    that the inputs of the configurations without them stay as they were (--ns3-from)."""
    return {
        "name": c.name,
        "duration": c.duration,
        "seed": c.seed,
        "bottleneck": {
            "rate_bps": c.rate_bps,
            "delay_s": c.delay,
            "buffer_pkts": c.buffer_pkts,
            "loss": c.loss,
            **({} if c.step_k is None else {"step_k": c.step_k}),
        },
        **({} if c.queue_sample is None else {"queue_sample_s": c.queue_sample}),
        "access": {"rate_bps": ACCESS_RATE, "buffer_pkts": ACCESS_BUFFER},
        "tcp": {
            "segment_size": SEGMENT,
            "timestamps": True,
            "sack": True,
            "min_rto_s": MIN_RTO,
            "delack_count": c.delack,
            "delack_timeout_s": DELACK_TIMEOUT,
            "init_cwnd": 10,
            "buffer_bytes": SOCKET_BUFFER,
            **({} if c.recovery == "prr" else {"recovery": c.recovery}),
        },
        "flows": [
            {
                "type": ALGOS[f.algo].ns3_type,
                "attributes": ALGOS[f.algo].ns3_attributes,
                "start_s": f.start,
                "send_delay_s": f.send_delay,
                "recv_delay_s": f.recv_delay,
                **({"receiver_type": ALGOS[f.algo].ns3_type} if ALGOS[f.algo].ns3_receiver else {}),
            }
            for f in c.flows
        ],
    }


def step_k_hscc(c: Config) -> int | None:
    """hscc's k_packets for ns-3's RED at MinTh = MaxTh = step_k. ns3_dumbbell.py gives the
    bottleneck device a 1-packet queue under the RED queue disc: while RED holds packets the device
    queue holds one more, so RED's count ≥ K is K + 1 packets waiting behind the one on the wire,
    which is what hscc's step queue counts."""
    return None if c.step_k is None else c.step_k + 1


def hscc_scenario(c: Config, sample_interval: float = 0.1) -> dict:
    """The scenario in hscc's format: ns3_dumbbell.py's network node for node
    (S_i - L = R - D_i, a graph, so every link carries its PPP framing) and
    every TCP setting ns-3 has: `stack = "ns3"`'s, and what a configuration
    or an algorithm sets otherwise."""
    bottleneck = {
        "rate": c.rate_bps,
        "delay": c.delay,
        "buffer": f"{c.buffer_pkts}pkts",
        "framing": PPP,
    }
    forward = dict(bottleneck, loss=c.loss, loss_point="after_queue") if c.loss > 0 else bottleneck
    if c.step_k is not None:  # the data's direction only, as ns-3's RED is on L's device
        forward = dict(forward, queue={"kind": "step", "k_packets": step_k_hscc(c)})
    if c.queue_sample is not None:
        sample_interval = c.queue_sample
    links = [{"a": "L", "b": "R", "fwd": forward, "rev": bottleneck, "monitor": True}]
    for i, f in enumerate(c.flows):
        access = {"rate": ACCESS_RATE, "buffer": f"{ACCESS_BUFFER}pkts", "framing": PPP}
        links.append({"a": f"S{i}", "b": "L", "fwd": dict(access, delay=f.send_delay)})
        links.append({"a": "R", "b": f"D{i}", "fwd": dict(access, delay=f.recv_delay)})
    return {
        "name": c.name,
        "description": c.description,
        "duration": c.duration,
        "seed": c.seed,
        "stack": "ns3",
        "output": {
            "sample_interval": sample_interval,
            "traces": ["flows"] if c.queue_sample is None else ["flows", "queues"],
        },
        "topology": {
            "kind": "graph",
            "nodes": ["L", "R"]
            + [f"S{i}" for i in range(len(c.flows))]
            + [f"D{i}" for i in range(len(c.flows))],
            "links": links,
        },
        "flows": [
            {
                "src": f"S{i}",
                "dst": f"D{i}",
                "label": f"{f.algo}{i}",
                "algorithm": ALGOS[f.algo].hscc,
                "start": f.start,
                # The profile's: mss 1448 with timestamps, SACK, PRR, initial window 10, MinRto 1 s,
                # DelAckCount 2 and DelAckTimeout 200 ms, three duplicate ACKs (no RACK-TLP, undo or
                # F-RTO), no host jitter; a configuration's other recovery or ACK count is its own.
                **({"recovery": c.recovery} if c.recovery != "prr" else {}),
                **({"delack_segments": c.delack} if c.delack != 2 else {}),
                **ALGOS[f.algo].hscc_knobs,
            }
            for i, f in enumerate(c.flows)
        ],
    }
