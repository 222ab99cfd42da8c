"""What the testbed builds for a scenario, and what it refuses.

The scenario is checked and resolved by the engine first (`Scenario.resolved`:
buffers in packets, each pair's delays, `count` expanded), so the testbed
builds exactly the network a simulation of the same file would have. Every
field the testbed cannot reproduce on Linux is refused by name, with its
value and what the testbed does instead; fields left at their defaults are
what Linux does anyway (SACK, RACK-TLP, PRR, delayed ACKs, timestamps,
initial window 10, minimum RTO 200 ms), except the RTO estimator, its RTT
samples and the receivers' window opening: the kernel's are Linux's whatever
`rto_estimator`, `rtt_sampling` and `quick_acks` say, and the run's notes say so.
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass, field
from typing import Any

from hscc import catalog
from hscc.scenario import Scenario, names_program

BUILT_IN = (
    "reno",
    "cubic",
)  # hscc algorithms this kernel has built in (net/ipv4/tcp_cong.c, tcp_cubic.c)
MAX_FLOWS = 32  # one thread per flow in each endpoint process
MAX_PAIRS = 64  # the delay line's table (delayline.c MAX_PAIRS)
PS_PER_S = 1e12  # the engine counts picoseconds

# Fields a flow may set: the rest must stay at the default, which is Linux's behaviour.
FLOW_FIELDS = {
    "pair",
    "label",
    "algorithm",
    "params",
    "count",
    "start",
    "stop",
    "size",
    "start_jitter",
    "host_jitter",
    "jitter_unit",
    "rto_estimator",
    "rtt_sampling",
    "quick_acks",
    "random_ts_offset",  # the hosts' net.ipv4.tcp_timestamps: 1 (random offsets) or 2 (none)
    "stack",  # its profile's knobs are checked one by one, as the flow has them
}
LINK_FIELDS = {"rate", "delay", "buffer", "loss", "loss_point"}
PAIR_FIELDS = {"rate", "delay", "rtt", "recv_delay", "buffer"}
WHY = {
    "host_jitter": "ignored: real hosts have their own",
    "jitter_unit": "ignored: real hosts have their own",
    "loss_point": "random loss acts before the queue (a tc BPF classifier on the router's ingress)",
}


class TestbedError(ValueError):
    """A scenario the testbed cannot run, or a machine it cannot run on; the message says why."""


@dataclass(frozen=True)
class Flow:
    flow: int  # engine index, as in a simulation's flows table
    spec: int  # its [[flows]] entry
    pair: int
    algorithm: str  # hscc's name
    cc: str  # what the socket selects: "reno", "cubic" or "hscc_NAME"
    params: tuple[str, ...]  # NAME=VALUE for a BPF program
    start: float
    end: float  # stop, or the end of the run
    size: int | None


@dataclass(frozen=True)
class Plan:
    scenario: Scenario
    duration: float
    interval: float
    rate_bps: int
    buffer: tuple[str, int]  # ("packets" | "bytes", limit)
    loss: float
    fwd_delay: tuple[
        float, ...
    ]  # per pair, one way, seconds: access + bottleneck + receiver access
    rev_delay: tuple[float, ...]
    flows: tuple[Flow, ...]
    bpf: dict[str, tuple[str, ...]] = field(
        default_factory=dict
    )  # algorithm -> parameters to load it with
    random_ts_offset: bool = True  # net.ipv4.tcp_timestamps = 1, else 2

    @property
    def max_rtt(self) -> float:
        return max(f + r for f, r in zip(self.fwd_delay, self.rev_delay, strict=True))

    @property
    def pairs(self) -> int:
        return len(self.fwd_delay)


@functools.cache
def _defaults() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """A default flow, bottleneck link and pair, as the engine fills them."""
    d = Scenario.parse(
        {
            "duration": "1s",
            "topology": {
                "kind": "dumbbell",
                "bottleneck": {"rate": "1Mbps", "delay": "1ms", "buffer": "1pkts"},
                "pairs": [{"rate": "1Gbps", "rtt": "10ms"}],
            },
            "flows": [{"pair": 0, "algorithm": "reno"}],
        }
    ).to_dict()
    return d["flows"][0], d["topology"]["bottleneck"], d["topology"]["pairs"][0]


def _refuse_changed(
    where: str, given: dict[str, Any], default: dict[str, Any], allowed: set[str]
) -> None:
    for key, value in given.items():
        if key not in allowed and value != default.get(key):
            raise TestbedError(
                f"{where}.{key} = {value!r}: the testbed cannot do this (it runs Linux's own behaviour, "
                f"{key} = {default.get(key)!r}); remove it to run on the kernel"
            )


def make(scenario: Scenario, engine_config: dict[str, Any], use_bpf: bool = False) -> Plan:
    """The plan for `scenario`; TestbedError names the first field it cannot do.
    `engine_config` is the engine's resolved form of it; `use_bpf` runs reno and
    cubic as hscc's eBPF programs rather than the kernel's built-in ones."""
    d = scenario.to_dict()
    topo = d["topology"]
    if topo["kind"] != "dumbbell":
        raise TestbedError(f"topology.kind = {topo['kind']!r}: the testbed builds a dumbbell only")
    for key in ("udp", "voip", "web", "changes"):
        if d.get(key):
            raise TestbedError(
                f"[[{key}]]: the testbed runs TCP flows only, on a network that does not change"
            )
    if "reverse" in topo:
        raise TestbedError(
            "topology.reverse: the testbed's reverse bottleneck is the forward one without loss"
        )
    flow_default, link_default, pair_default = _defaults()
    link = topo["bottleneck"]
    _refuse_changed(
        "topology.bottleneck",
        {k: v for k, v in link.items() if k != "queue"},
        link_default,
        LINK_FIELDS,
    )
    if link.get("queue") and link["queue"].get("kind", "droptail") != "droptail":
        raise TestbedError(
            f"topology.bottleneck.queue = {link['queue']!r}: the testbed's queue is DropTail (pfifo); "
            "this kernel has no codel, fq_codel, pie or netem"
        )
    if link["loss"] > 0 and link["loss_point"] != "before_queue":
        raise TestbedError(
            f"topology.bottleneck.loss_point = {link['loss_point']!r}: {WHY['loss_point']}"
        )
    for i, pair in enumerate(topo["pairs"]):
        _refuse_changed(f"topology.pairs[{i}]", pair, pair_default, PAIR_FIELDS)
        if pair["rate"] < link["rate"]:
            raise TestbedError(
                f"topology.pairs[{i}].rate = {pair['rate']:g} bit/s is below the bottleneck's: "
                "the testbed's access links are veth pairs as fast as the machine"
            )
    for i, f in enumerate(d["flows"]):
        _refuse_changed(f"flows[{i}]", f, flow_default, FLOW_FIELDS)
    offsets = {f["random_ts_offset"] for f in d["flows"]}
    if len(offsets) > 1:
        raise TestbedError(
            "flows[].random_ts_offset: the testbed sets it for every host (net.ipv4.tcp_timestamps), "
            "so all flows need the same value"
        )

    links = {link["name"]: link["cfg"] for link in engine_config["topology"]["links"]}
    nodes = engine_config["topology"]["nodes"]
    npairs = len(topo["pairs"])
    if npairs > MAX_PAIRS:
        raise TestbedError(
            f"topology.pairs: {npairs} pairs; the testbed's delay line takes at most {MAX_PAIRS}"
        )

    def one_way(p: int, direction: str) -> float:
        names = (f"access-s{p}:{direction}", f"bottleneck:{direction}", f"access-d{p}:{direction}")
        delay_ps: int = sum(links[n]["delay"] for n in names)
        return delay_ps / PS_PER_S

    bottleneck = links["bottleneck:fwd"]
    ((kind, limit),) = bottleneck["buffer"].items()
    duration = engine_config["duration"] / PS_PER_S
    # Start jitter, as the scenario's seed draws it (not the engine's stream).
    rng = random.Random(scenario.seed)
    flows: list[Flow] = []
    bpf: dict[str, tuple[str, ...]] = {}  # algorithm or program file -> parameters to load it with
    specs = [spec for spec, _ in scenario.flow_labels()]
    if len(engine_config["flows"]) > MAX_FLOWS:
        raise TestbedError(
            f"flows: {len(engine_config['flows'])} connections; the testbed runs at most {MAX_FLOWS}"
        )
    for i, (ef, spec) in enumerate(zip(engine_config["flows"], specs, strict=True)):
        sf = d["flows"][spec]
        params = tuple(
            f"{k}={str(v).lower() if isinstance(v, bool) else v}"
            for k, v in sorted(sf["params"].items())
        )
        pair = int(nodes[ef["src"]][1:])
        # A start drawn from a distribution is the engine's draw: the simulation's own.
        start = ef["start"] / PS_PER_S + rng.uniform(0, ef["start_jitter"] / PS_PER_S)
        end = duration if ef["stop"] is None else min(duration, ef["stop"] / PS_PER_S)
        if names_program(sf["algorithm"]):
            # A user's program: registered once, from its file, under the name in its ops.
            from hscc.kernel import user
            from hscc.kernel.programs import KernelError

            try:
                prog = user.info(sf["algorithm"])
            except KernelError as e:
                raise TestbedError(f"flows[{spec}].algorithm: {e}") from None
            if bpf.setdefault(str(prog.path), params) != params:
                raise TestbedError(
                    f"flows[{spec}].params: {prog.path.name} is registered once in the kernel, so every "
                    "flow of it needs the same parameters"
                )
            name = prog.path.name.removesuffix(".c").removesuffix(".bpf")
            flows.append(
                Flow(i, spec, pair, name, prog.kernel_name, params, start, end, ef["size"])
            )
            continue
        algo = catalog.find(sf["algorithm"])
        assert algo is not None  # the engine checked it
        if algo.name in BUILT_IN and not params and not use_bpf:
            cc = algo.name
        else:
            from hscc.kernel import programs

            if algo.name not in programs.available():
                raise TestbedError(
                    f"flows[{spec}].algorithm = {sf['algorithm']!r}: the kernel has no such algorithm and bpf/ "
                    f"has no program for it (programs: {', '.join(programs.available())})"
                )
            if bpf.setdefault(algo.name, params) != params:
                raise TestbedError(
                    f"flows[{spec}].params: {algo.name} is registered once in the kernel, so every flow "
                    f"of it needs the same parameters ({', '.join(bpf[algo.name]) or 'the defaults'} "
                    f"and {', '.join(params) or 'the defaults'} here)"
                )
            cc = programs.kernel_name(algo.name)
        flows.append(Flow(i, spec, pair, algo.name, cc, params, start, end, ef["size"]))
    interval = engine_config["sample_interval"] / PS_PER_S or 0.1
    return Plan(
        scenario,
        duration,
        interval,
        int(bottleneck["rate_bps"]),
        (kind, int(limit)),
        float(bottleneck["loss"]),
        tuple(one_way(p, "fwd") for p in range(npairs)),
        tuple(one_way(p, "rev") for p in range(npairs)),
        tuple(flows),
        bpf,
        offsets != {False},
    )


def check_interval(plan: Plan) -> None:
    if plan.interval < 0.01:
        raise TestbedError(
            f"output.sample_interval = {plan.interval:g} s: the testbed samples every 10 ms at the finest"
        )
    if plan.duration / plan.interval > 100_000:
        raise TestbedError(
            f"output.sample_interval = {plan.interval:g} s over {plan.duration:g} s is more than 100 000 samples"
        )


def builtin_differences(plan: Plan) -> list[str]:
    """Where the kernel differs from what the scenario asks: its built-in
    algorithms, as this host configured them (/sys/module/tcp_NAME/parameters,
    host-wide), against the scenario's algorithm with its defaults (hscc-cc's
    values for its eBPF program: the parameters share their names; Linux's cubic
    runs HyStart, hscc's cubic does not unless asked, `hystart = true`), and the
    RTO estimator and its samples, Linux's own in the kernel (`rto_estimator` and `rtt_sampling` =
    "linux"), and the receivers' window
    opening, Linux's own too (the run's manifest says how many segments it ACKed one by one)."""
    from pathlib import Path

    from hscc.kernel import programs

    flows = plan.scenario.to_dict()["flows"]
    out = [
        f"flows[{i}].rto_estimator = {f['rto_estimator']!r}: the kernel's RTO is Linux's (\"linux\": never below SRTT + 200 ms)"
        for i, f in enumerate(flows)
        if f.get("rto_estimator", "rfc6298") != "linux"
    ]
    out += [
        f"flows[{i}].rtt_sampling = {f['rtt_sampling']!r}: the kernel's estimator takes Linux's samples "
        '("linux": the oldest segment an ACK newly acknowledges)'
        for i, f in enumerate(flows)
        if f.get("rtt_sampling", "ack") != "linux"
    ]
    out += [
        f"flows[{i}].quick_acks = 0: the kernel's receiver ACKs its first segments one by one while it opens its "
        "window (how many: kernel_run.receivers.window_opening)"
        for i, f in enumerate(flows)
        if not f.get("quick_acks")
    ]
    for algorithm in sorted({f.algorithm for f in plan.flows if f.cc == f.algorithm in BUILT_IN}):
        params = Path(f"/sys/module/tcp_{algorithm}/parameters")
        try:
            ours = dict(programs.globals_for(algorithm, []))
        except Exception as e:  # no bpf/ checkout: say so rather than guess
            out.append(f"{algorithm}: not compared with the kernel's ({e})")
            continue
        for name, value in sorted(ours.items()):
            path = params / name
            if path.is_file():
                theirs = path.read_text().strip()
                if theirs not in (str(value), {0: "N", 1: "Y"}.get(value)):
                    out.append(
                        f"{algorithm}: the kernel's built-in runs {name} = {theirs}, the scenario's {algorithm} {name} = {value} "
                        f"(--bpf runs hscc_{algorithm} with the scenario's parameters)"
                    )
    return out
