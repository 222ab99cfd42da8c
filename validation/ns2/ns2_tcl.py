"""An hscc dumbbell, in its engine form (`Scenario.to_engine()`), as an ns-2.35 script.

The script builds the same dumbbell (sender_i —access— L ==bottleneck== R —access—
receiver_i, every link a DropTail duplex link with the hscc link's rate, delay and
queue limit in both directions), one agent and Agent/TCPSink/Sack1 per TCP flow —
Agent/TCP/Sack1 for Reno and HSTCP, TCP-Linux (Agent/TCP/Linux with `select_ca`) for
CUBIC and Compound — and Poisson UDP as Application/Traffic/Exponential with no bursts. At the
end it writes one JSON object (see `parse`) to `ns2-out.json` in its working
directory, and every queue drop to the drop trace `ns2-out.json.drops` beside it.

Only what both tools model the same way is translated; anything else is refused
with the field, its value and what the translation allows (`Unsupported`), so a
configuration never silently compares different set-ups.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

# ns-2's packets carry packetSize_ bytes of payload plus tcpip_base_hdr_size_; hscc's
# carry mss + 52 (IPv4 + TCP with room for options), so both put the same bytes on the wire.
HEADER = 52
# TCP knobs whose value must be what ns-2's Sack1 agent and sink do (stack = "ns2"):
# anything else has no ns-2 counterpart in this translation.
NS2_TCP = {
    "sack": True,
    "recovery": "sack1",
    "loss_detection": "dupack",
    "rto_estimator": "rfc6298",
    # tcp.cc: one segment timed per round trip (rtt_active_), in tcpTick_'s 10-ms ticks.
    "rtt_sampling": "per_rtt",
    "rto_tick": 0.01,
    # tcp-sack1.cc recv: only an ACK of new data (newack, newtimer) restarts the timer.
    "rto_restart": "new_data",
    "ack_counting": "acks",
    "ssthresh_from": "cwnd",
    "quick_acks": 0,
    "pacing": False,
    "timestamps": False,
    "ecn": False,
    "start_jitter": 0.0,
    "access_delay": 0.0,
    "reverse": False,
    "jitter_unit": "send",  # overhead_ delays a send, not each segment
}
# TCP-Linux (Agent/TCP/Linux, tcp/tcp-linux.cc, scoreboard1.cc) where it differs from the
# Sack1 agent: what an hscc flow must set for the translation to give it that agent.
LINUX_TCP = {
    **NS2_TCP,
    # Timestamps on both ends: the agent's per-ACK RTT and CUBIC's delay_min need them.
    "timestamps": True,
    # select_ca sets tcp_tick_ to 1 ms (tcp-linux.cc install_congestion_control).
    "rto_tick": 0.001,
    # time_processing's renew_timer restarts the timer at every ACK recv takes (not below
    # the cumulative ACK), duplicates included.
    "rto_restart": "every_ack",
    # ScoreBoard1 marks a segment lost once the highest SACKed one is 4 above it (fack_ -
    # (dupack_threshold + 1), the threshold fixed at 3, numdupacks_ unused): the 4th dupACK,
    # which RACK's reo_wnd of 0 once `reordering` segments are SACKed gives too. It marks a
    # retransmission lost once a segment sent after it is SACKed, as RACK does, where the
    # duplicate threshold would wait for the RTO.
    "loss_detection": "rack",
    "reordering": 4,
    # The window drops to ssthresh at once and next_pkts_in_flight_ halves the sending rate,
    # one segment per two ACKs, from the old window down: rate halving, which hscc has as
    # PRR's proportional reduction; its flight is RFC 6675's (packets_in_flight()).
    "recovery": "prr",
    # No undo, F-RTO or D-SACK processing (tcp-linux.cc: "We don't have undo yet"), and no
    # tail-loss probes: a lost tail waits for the RTO.
    "dsack": False,
    "undo": False,
    "frto": False,
    "tlp": False,
}
# hscc algorithm: (ns-2.35's module for select_ca, the params the translation requires, as
# the engine form carries them). CUBIC is ns-2.35's tcp_cubic.c v2.1 (Linux 2.6.22), which
# hscc's cubic has as version_2_1: β = 819/1024, C = 0.4, no HyStart. "compound" is the May 2006 tcp_compound.c (Castellani and
# Hemminger, before Lachlan Andrew's releases): every ACK's RTT sample, the round's minimum
# over more than 2 samples, win = the segments sent in the round measured, γ = 30 fixed.
LINUX_ALGOS: dict[str, tuple[str, dict[str, Any]]] = {
    "cubic": ("cubic", {"beta": 819 / 1024, "version_2_1": True}),
    "ctcp": (
        "compound",
        {"rtt_min_filter": True, "min_samples": 2, "sample_interval_us": 0, "win_sent": True},
    ),
}
LINK_DEFAULTS = {"loss": 0.0, "jitter": 0.0, "framing": 0, "tick": 0.0}


class Unsupported(ValueError):
    """A scenario field this translation cannot give ns-2."""

    def __init__(self, field: str, value: object, allowed: str):
        super().__init__(f"{field} = {value!r}: the ns-2 translation allows {allowed}")


def _queue_limit(buffer: dict, field: str) -> int:
    """ns-2's queue-limit for hscc's buffer of N packets: N + 1, so that both hold N waiting.

    ns-2.35's DropTail refuses a packet when queue-limit - 1 wait (drop-tail.cc, enque:
    `(q_->length() + 1) >= qlim_`; the packet on the wire is not in q_); hscc's buffer
    counts only the packets waiting (docs/validation/ns2.md, "The queue limit").
    """
    if set(buffer) != {"packets"}:
        raise Unsupported(field, buffer, "a queue limit in packets (ns-2's queue-limit)")
    return int(buffer["packets"]) + 1


def _link(spec: dict, field: str) -> tuple[float, float, int]:
    for k, v in LINK_DEFAULTS.items():
        if spec.get(k, v) != v:
            raise Unsupported(f"{field}.{k}", spec[k], f"{v!r} (no ns-2 counterpart here)")
    if spec.get("queue", {"kind": "droptail"}).get("kind", "droptail") != "droptail":
        raise Unsupported(f"{field}.queue", spec["queue"], "DropTail")
    return (
        float(spec["rate"]),
        float(spec["delay"]),
        _queue_limit(spec["buffer"], f"{field}.buffer"),
    )


def _linux_agent(flow: dict, field: str) -> list[str]:
    """TCP-Linux's lines for a CUBIC or Compound flow (see LINUX_TCP, LINUX_ALGOS)."""
    for k, v in LINUX_TCP.items():
        if flow.get(k, v) != v:
            raise Unsupported(f"{field}.{k}", flow[k], f"{v!r} (ns-2's TCP-Linux agent)")
    if flow["delayed_ack"]:
        raise Unsupported(f"{field}.delayed_ack", True, "false (TCP-Linux with the Sack1 sink)")
    module, want = LINUX_ALGOS[flow["algorithm"]]
    got = {k: float(v) for k, v in (flow.get("params") or {}).items()}
    if got != {k: float(v) for k, v in want.items()}:
        raise Unsupported(f"{field}.params", flow.get("params"), f"{want} (ns-2.35's {module})")
    rwnd = flow.get("rwnd")
    return [
        "set tcp [new Agent/TCP/Linux]",
        # Before select_ca, which reads packetSize_ and window_ into the Linux state.
        f"$tcp set packetSize_ {int(flow['mss'])}",
        # ns-2 adds ts_option_size_ (10) to each packet with timestamps: 52 in all.
        "$tcp set ts_option_size_ 10",
        f"$tcp set tcpip_base_hdr_size_ {HEADER - 10}",
        "$tcp set timestamps_ true",
        f"$tcp set windowInit_ {int(flow['init_cwnd'])}",
        f"$tcp set window_ {int(rwnd) if rwnd else 10_000_000}",
        f"$tcp set minrto_ {float(flow['min_rto'])!r}",
        f"$tcp set overhead_ {float(flow['host_jitter'])!r}",
        "$tcp set syn_ false",
        "$tcp set delay_growth_ false",
        # Its window reductions count in ncwndcuts_ (the Sack1 agent's in ncwndcuts1_).
        "set cutsvar ncwndcuts_",
        f'$ns at 0.0 "$tcp select_ca {module}"',
        "set sinkclass Agent/TCPSink/Sack1",
    ]


def _agent(flow: dict, field: str) -> list[str]:
    """The Tcl lines that configure agent `$tcp`, pick the sink class `$sinkclass` and name the
    counter of its window reductions (`$cutsvar`)."""
    if flow["algorithm"] in LINUX_ALGOS:
        return _linux_agent(flow, field)
    for k, v in NS2_TCP.items():
        if flow.get(k, v) != v:
            raise Unsupported(f"{field}.{k}", flow[k], f"{v!r} (ns-2's Sack1 agent and sink)")
    algo, params = flow["algorithm"], flow.get("params") or {}
    lines = ["set tcp [new Agent/TCP/Sack1]", "set cutsvar ncwndcuts1_"]
    if algo == "highspeed":
        if params.get("response", 0) != 1:
            raise Unsupported(
                f"{field}.params.response",
                params.get("response", 0),
                "1 (RFC 3649's formulas, ns-2's windowOption_ 8)",
            )
        lines.append("$tcp set windowOption_ 8")
    elif algo != "reno" or params:
        raise Unsupported(
            f"{field}.algorithm",
            algo,
            "reno, highspeed with params.response = 1, or TCP-Linux's cubic and ctcp",
        )
    rwnd = flow.get("rwnd")
    lines += [
        f"$tcp set packetSize_ {int(flow['mss'])}",
        f"$tcp set tcpip_base_hdr_size_ {HEADER}",
        f"$tcp set windowInit_ {int(flow['init_cwnd'])}",
        f"$tcp set window_ {int(rwnd) if rwnd else 10_000_000}",
        f"$tcp set numdupacks_ {int(flow['reordering'])}",
        f"$tcp set minrto_ {float(flow['min_rto'])!r}",
        f"$tcp set overhead_ {float(flow['host_jitter'])!r}",
        # ns-2.35 sends a SYN first and grows the window only after its ACK (syn_ and
        # delay_growth_ true): data starts one RTT late. hscc has no handshake.
        "$tcp set syn_ false",
        "$tcp set delay_growth_ false",
    ]
    if flow["delayed_ack"]:
        if int(flow["delack_segments"]) != 2:
            raise Unsupported(
                f"{field}.delack_segments", flow["delack_segments"], "2 (ns-2's DelAck sink)"
            )
        lines += [
            "set sinkclass Agent/TCPSink/Sack1/DelAck",
            f"Agent/TCPSink/DelAck set interval_ {float(flow['delack_timeout'])!r}",
        ]
    else:
        lines.append("set sinkclass Agent/TCPSink/Sack1")
    return lines


OUT = "ns2-out.json"
# With trace_queues: ns-2's queue trace (+ enqueue, - dequeue, d drop, r receive) of the
# bottleneck both ways and of every sender's access link, in ns-2's trace format.
QUEUE_TRACE = "queue.tr"


def traced_links(pairs: int) -> list[tuple[str, str, str]]:
    """The links a queue trace covers: (hscc link name, ns-2 from node, ns-2 to node)."""
    links = [("bottleneck:fwd", "$L", "$R"), ("bottleneck:rev", "$R", "$L")]
    return links + [(f"access-s{i}:fwd", f"$s({i})", "$L") for i in range(pairs)]


def script(engine: dict[str, Any], trace_queues: bool = False) -> str:
    """The ns-2 script of `engine` (a scenario's engine form); run in a directory, it writes
    OUT there (JSON) and OUT + ".drops" (ns-2's drop trace) when the run ends, and with
    `trace_queues` QUEUE_TRACE too (`traced_links`)."""
    topo = engine["topology"]
    if topo["kind"] != "dumbbell":
        raise Unsupported("topology.kind", topo["kind"], "dumbbell")
    for key in ("voip", "web", "changes"):
        if engine.get(key):
            raise Unsupported(key, engine[key], "none")
    rate, delay, limit = _link(topo["bottleneck"], "topology.bottleneck")
    rev = topo.get("reverse") or {**topo["bottleneck"], "loss": 0.0}
    rrate, rdelay, rlimit = _link(rev, "topology.reverse")
    if (rrate, rdelay) != (rate, delay):
        raise Unsupported(
            "topology.reverse", rev, "the bottleneck's rate and delay (a duplex link)"
        )
    T = float(engine["duration"])
    tcl = [
        "set ns [new Simulator]",
        f"global defaultRNG; $defaultRNG seed {int(engine['seed'])}",
        "set L [$ns node]",
        "set R [$ns node]",
        f"$ns duplex-link $L $R {rate!r} {delay!r} DropTail",
        f"$ns queue-limit $L $R {limit}",
        f"$ns queue-limit $R $L {rlimit}",
    ]
    for i, p in enumerate(topo["pairs"]):
        field = f"topology.pairs[{i}]"
        # A pair given by its base RTT: the sender's delay is what the RTT leaves (hscc's rule).
        send = p["delay"] if "delay" in p else p["rtt"] / 2 - delay - p.get("recv_delay", 0.0)
        prate, _, plimit = _link({**p, "delay": send}, field)
        tcl += [
            f"set s({i}) [$ns node]",
            f"set d({i}) [$ns node]",
            f"$ns duplex-link $s({i}) $L {prate!r} {float(send)!r} DropTail",
            f"$ns duplex-link $R $d({i}) {prate!r} {float(p['recv_delay'])!r} DropTail",
        ]
        for a, b in (
            (f"$s({i})", "$L"),
            ("$L", f"$s({i})"),
            ("$R", f"$d({i})"),
            (f"$d({i})", "$R"),
        ):
            tcl.append(f"$ns queue-limit {a} {b} {plimit}")
    if trace_queues:
        tcl.append(f"set queuefile [open {QUEUE_TRACE} w]")
        pairs = len(topo["pairs"])
        tcl += [f"$ns trace-queue {a} {b} $queuefile" for _, a, b in traced_links(pairs)]
    # Every queue's drops, one trace line each (type d), for per-link and per-flow counts;
    # with a queue trace, each drop goes on to the link's drop head, whose chain writes it
    # into the queue trace too (ns-lib's SimpleLink trace).
    then = "[[$ns link $from $to] set drophead_]" if trace_queues else "[$ns set nullAgent_]"
    tcl += [
        f"set dropfile [open {OUT}.drops w]",
        "foreach link [$ns array names link_] {",
        "  set parts [split $link :]",
        "  set from [$ns get-node-by-id [lindex $parts 0]]",
        "  set to [$ns get-node-by-id [lindex $parts 1]]",
        "  set t [$ns create-trace Drop $dropfile $from $to]",
        f"  $t target {then}",
        "  [[$ns link $from $to] queue] drop-target $t",
        "}",
    ]
    n = 0
    for i, f in enumerate(engine["flows"]):
        field = f"flows[{i}]"
        for _ in range(int(f["count"])):
            tcl += _agent(f, field)
            tcl += [
                f"$tcp set fid_ {n}",
                f"$ns attach-agent $s({int(f['pair'])}) $tcp",
                "set sink [new $sinkclass]",
                *(["$sink set ts_echo_rfc1323_ true"] if f["algorithm"] in LINUX_ALGOS else []),
                f"$ns attach-agent $d({int(f['pair'])}) $sink",
                "$ns connect $tcp $sink",
                f"set tcps({n}) $tcp",
                f"set cuts({n}) $cutsvar",
                f'$ns at {float(f["start"])!r} "[$tcp attach-app FTP] start"',
            ]
            n += 1
    for j, u in enumerate(engine.get("udp") or []):
        if u["pattern"] != "poisson":
            raise Unsupported(f"udp[{j}].pattern", u["pattern"], "poisson")
        size, urate = int(u["packet_size"]), float(u["rate"])
        tcl += [
            "set udp [new Agent/UDP]",
            f"$udp set fid_ {1000 + j}",
            # Agent/UDP cuts a message into packets of its packetSize_ (1000 bytes by default:
            # a 1500-byte message goes as 1000 + 500 bytes, two places in a queue); hscc sends
            # one packet per message.
            f"$udp set packetSize_ {size}",
            f"$ns attach-agent $s({int(u['pair'])}) $udp",
            "set null [new Agent/Null]",
            f"$ns attach-agent $d({int(u['pair'])}) $null",
            "$ns connect $udp $null",
            # No bursts: one packet, then an exponential idle time (a Poisson process).
            "set app [new Application/Traffic/Exponential]",
            f"$app set packetSize_ {size}",
            "$app set burst_time_ 0",
            f"$app set idle_time_ {size * 8 / urate!r}",
            "$app set rate_ 1e12",
            "$app attach-agent $udp",
            f'$ns at {float(u["start"])!r} "$app start"',
        ]
    tcl += [
        f"set nflows {n}",
        "proc counters {} {",
        "  global tcps cuts nflows",
        "  set rows {}",
        "  for {set k 0} {$k < $nflows} {incr k} {",
        "    set t $tcps($k)",
        '    lappend rows "\\[[$t set ack_],[$t set ndatapack_],[$t set nrexmitpack_],'
        '[$t set nrexmit_],[$t set $cuts($k)]\\]"',
        "  }",
        '  return "\\[[join $rows ,]\\]"',
        "}",
        "set half {}",
        f"$ns at {T / 2!r} {{set half [counters]}}",
        "proc finish {} {",
        "  global half dropfile" + (" queuefile" if trace_queues else ""),
        f"  set fh [open {OUT} w]",
        '  puts $fh "{\\"half\\": $half, \\"end\\": [counters]}"',
        "  close $fh",
        "  close $dropfile",
        *(["  close $queuefile"] if trace_queues else []),
        "  exit 0",
        "}",
        f"$ns at {T!r} finish",
        "$ns run",
    ]
    return "\n".join(tcl) + "\n"


COUNTERS = ("ack", "data_packets", "retrans_packets", "timeouts", "reductions")


def parse(d: Path, engine: dict[str, Any]) -> dict[str, Any]:
    """ns-2's counters and drops, per flow: `flows` (ack_ = the last segment acknowledged,
    at the end and at half time; ndatapack_, nrexmitpack_, nrexmit_ = timeouts, ncwndcuts1_
    = window reductions for congestion, TCP-Linux's ncwndcuts_), and `drops` keyed by
    "from-to" node ids, each {"tcp": n, "udp": n, "by_flow": {fid: n}}."""
    raw = json.loads((Path(d) / OUT).read_text())
    mss = [int(f["mss"]) for f in engine["flows"] for _ in range(int(f["count"]))]
    flows = []
    for k, (end, half) in enumerate(zip(raw["end"], raw["half"], strict=True)):
        row = dict(zip(COUNTERS, end, strict=True))
        row["delivered_bytes"] = (row["ack"] + 1) * mss[k]
        row["delivered_bytes_half"] = (half[0] + 1) * mss[k]
        flows.append(row)
    drops: dict[str, dict[str, Any]] = {}
    for line in (Path(d) / f"{OUT}.drops").read_text().splitlines():
        f = line.split()
        if not f or f[0] != "d":
            continue
        link = drops.setdefault(f"{f[2]}-{f[3]}", {"tcp": 0, "udp": 0, "by_flow": {}})
        kind = "tcp" if f[4] == "tcp" else "udp" if f[4] in ("cbr", "exp", "udp") else None
        if kind is None:  # ACKs ("ack") and anything else are counted apart
            link[f[4]] = link.get(f[4], 0) + 1
            continue
        link[kind] += 1
        if kind == "tcp":
            link["by_flow"][int(f[7])] = link["by_flow"].get(int(f[7]), 0) + 1
    return {"flows": flows, "drops": drops}
