"""The ns-2 cross-check's harness (validation/ns2): its translation of a scenario into an ns-2
script, and one tiny configuration run in both tools when ns-2 is installed."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import shutil
import struct
import sys
from pathlib import Path

import polars as pl
import pytest

from hscc.scenario import Scenario
from hscc.sweeps.paths import put

HARNESS = Path(__file__).resolve().parents[2] / "validation" / "ns2"
sys.path.insert(0, str(HARNESS))
sys.path.insert(0, str(HARNESS.parent / "results"))

import capture_queue  # noqa: E402
import ns2_configs as configs  # noqa: E402
import ns2_tcl as tcl  # noqa: E402
import queue_spread  # noqa: E402
import queue_trace  # noqa: E402
import results  # noqa: E402

_spec = importlib.util.spec_from_file_location("ns2_validate", HARNESS / "validate.py")
assert _spec is not None and _spec.loader is not None
validate = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(validate)


def engine(**change) -> dict:
    s = configs.TINY.scenario(seed=3, duration=4.0)
    for path, value in change.items():
        put(s, path, value)
    return Scenario.parse(s).to_engine()


@pytest.mark.timeout(30)
def test_the_script_builds_the_scenarios_dumbbell_and_agents(tmp_path):
    text = tcl.script(engine())
    lines = set(text.splitlines())
    # The bottleneck (20 Mbit/s, 10 ms, 49 packets each way) and the access links (1 Gbit/s, 1 ms);
    # ns-2's queue-limit 50 holds 49 waiting, as hscc's 49-packet buffer.
    assert "$ns duplex-link $L $R 20000000.0 0.01 DropTail" in lines
    assert {"$ns queue-limit $L $R 50", "$ns queue-limit $R $L 50"} <= lines
    assert "$ns duplex-link $s(1) $L 1000000000.0 0.001 DropTail" in lines
    assert "$ns duplex-link $R $d(1) 1000000000.0 0.001 DropTail" in lines
    # stack = "ns2": ns-2's defaults, made explicit; the paper's overhead_ of 8 µs; HSTCP's
    # formulas for the first flow only.
    assert text.count("$tcp set packetSize_ 1000") == 2 and text.count("windowInit_ 2") == 2
    assert text.count("$tcp set overhead_ 8e-06") == 2 and text.count("windowOption_ 8") == 1
    assert text.count("set sinkclass Agent/TCPSink/Sack1\n") == 2
    assert "$defaultRNG seed 3" in text and "$ns at 4.0 finish" in text
    assert text.count("$tcp set syn_ false") == text.count("$tcp set delay_growth_ false") == 2
    assert "set dropfile [open ns2-out.json.drops w]" in lines
    # Poisson UDP of 0.6 Mbit/s: 1500-byte packets 20 ms apart on average, each message one
    # packet, as in hscc (Agent/UDP would otherwise cut it into 1000 + 500 bytes).
    assert "$app set idle_time_ 0.02" in lines and "$app set burst_time_ 0" in lines
    assert "$app set packetSize_ 1500" in lines and "$udp set packetSize_ 1500" in lines


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    "path, value, field",
    [
        ("flows[0].recovery", "prr", "flows[0].recovery = 'prr'"),
        ("flows[1].algorithm", "vegas", "flows[1].algorithm = 'vegas'"),
        # CUBIC runs as TCP-Linux, whose recovery is not the Sack1 agent's.
        ("flows[1].algorithm", "cubic", "flows[1].recovery = 'sack1'"),
        ("flows[0].params", {"response": 0}, "flows[0].params.response = 0"),
        ("topology.bottleneck.loss", 0.01, "topology.bottleneck.loss = 0.01"),
        ("topology.bottleneck.buffer", "64KB", "topology.bottleneck.buffer"),
        ("flows[1].delayed_ack", True, None),
        # The RTO as ns-2's Agent/TCP times it: one segment per round trip, 10-ms ticks.
        ("flows[0].rtt_sampling", "ack", "flows[0].rtt_sampling = 'ack'"),
        ("flows[1].rto_tick", "0s", "flows[1].rto_tick = 0.0"),
    ],
)
def test_what_ns2_cannot_run_the_same_way_is_refused_by_name(tmp_path, path, value, field):
    e = engine(**{path: value})
    if field is None:  # delayed ACKs have ns-2's DelAck sink
        assert "Agent/TCPSink/Sack1/DelAck" in tcl.script(e)
        return
    with pytest.raises(tcl.Unsupported, match=field.replace("[", r"\[").replace("]", r"\]")):
        tcl.script(e)


def linux_engine(algo: str, **change) -> dict:
    """TINY with its second flow run as TCP-Linux (ns2_configs' settings for it)."""
    return engine(**(configs.tcp_linux(algo, 1) | change))


@pytest.mark.timeout(30)
def test_cubic_and_compound_run_as_tcp_linux():
    for algo, module in (("cubic", "cubic"), ("ctcp", "compound")):
        text = tcl.script(linux_engine(algo))
        lines = text.splitlines()
        assert text.count("set tcp [new Agent/TCP/Linux]") == 1, algo  # flow 0 keeps Sack1
        assert text.count(f'$ns at 0.0 "$tcp select_ca {module}"') == 1, algo
        # Timestamps on both ends; 42 + the 10-byte option = hscc's 52 header bytes.
        assert text.count("$tcp set timestamps_ true") == 1
        assert text.count("$sink set ts_echo_rfc1323_ true") == 1
        assert text.count("$tcp set tcpip_base_hdr_size_ 42") == 1
        # TCP-Linux counts its window reductions in ncwndcuts_, the Sack1 agent in ncwndcuts1_.
        assert lines.count("set cutsvar ncwndcuts_") == lines.count("set cutsvar ncwndcuts1_") == 1
        assert "[$t set $cuts($k)]" in text
        # select_ca reads packetSize_ and window_: they come first.
        linux = text[text.index("[new Agent/TCP/Linux]") :]
        assert (
            linux.index("set packetSize_") < linux.index("set window_") < linux.index("select_ca")
        )
    # Parameters ns-2.35's modules do not have, and Sack1's recovery, are refused by name.
    with pytest.raises(tcl.Unsupported, match=r"flows\[1\]\.params"):
        tcl.script(linux_engine("cubic", **{"flows[1].params": {"beta": 0.7}}))
    with pytest.raises(tcl.Unsupported, match=r"flows\[1\]\.params"):
        tcl.script(linux_engine("ctcp", **{"flows[1].params": {}}))
    with pytest.raises(tcl.Unsupported, match=r"flows\[1\]\.loss_detection = 'dupack'"):
        tcl.script(linux_engine("cubic", **{"flows[1].loss_detection": "dupack"}))
    # TCP-Linux's 1-ms tick, not the Sack1 agent's 10 ms.
    with pytest.raises(tcl.Unsupported, match=r"flows\[1\]\.rto_tick = 0\.01"):
        tcl.script(linux_engine("ctcp", **{"flows[1].rto_tick": "10ms"}))


@pytest.mark.timeout(30)
def test_the_ns2_linux_profile_is_the_tcp_linux_agent_the_translation_requires():
    """`stack = "ns2-linux"` alone gives a CUBIC flow every setting ns2_configs sets by hand
    for TCP-Linux, so the profile and the translation's requirements (LINUX_TCP) agree."""
    by_profile = engine(**{"flows[1].algorithm": "cubic", "flows[1].stack": "ns2-linux"})
    by_hand = linux_engine("cubic")
    assert by_profile["flows"][1].pop("stack") == "ns2-linux"
    assert by_profile["flows"][1] == by_hand["flows"][1]
    assert "Agent/TCP/Linux" in tcl.script(by_profile)


@pytest.mark.timeout(120)
@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 (`ns`, Debian's ns2) not installed")
def test_a_tiny_tcp_linux_configuration_runs_in_both_tools(tmp_path):
    # Flow 0 stays HSTCP on the Sack1 agent, flow 1 runs CUBIC on TCP-Linux.
    overrides = {**configs.TINY.overrides, **configs.tcp_linux("cubic", 1)}
    tiny = dataclasses.replace(configs.TINY, name="tiny-linux", overrides=overrides)
    row = validate.run_one(tiny, tmp_path, seeds=1, duration=4.0, timeout=60)
    script = (tmp_path / "tiny-linux" / "s1" / "ns2.tcl").read_text()
    assert "Agent/TCP/Linux" in script and "Agent/TCP/Sack1" in script
    for tool in ("ns2", "hscc"):
        s = row[tool]
        assert s["goodput_a_bps"] > 0 and s["goodput_b_bps"] > 0, (tool, s)
        assert s["loss_events_a"] >= 1 and s["loss_events_b"] >= 1, (tool, s)  # both counters
    assert abs(row["delta"]["aggregate_bps"]) <= 0.1, row["delta"]


@pytest.mark.timeout(30)
def test_link_names_map_to_ns2_node_ids():
    # ns2_tcl.py numbers L 0, R 1, s(i) 2 + 2i, d(i) 3 + 2i.
    assert validate.ns2_link("bottleneck:fwd") == "0-1"
    assert validate.ns2_link("access-s1:fwd") == "4-0"
    assert validate.ns2_link("access-d1:fwd") == "1-5"


@pytest.mark.timeout(120)
@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 (`ns`, Debian's ns2) not installed")
def test_a_tiny_configuration_runs_in_both_tools(tmp_path):
    row = validate.run_one(configs.TINY, tmp_path, seeds=1, duration=4.0, timeout=60)
    # Payload capacity of the 20 Mbit/s bottleneck: 1000 of every 1052 bytes (ns-2's header
    # set to hscc's 52), less the UDP's 0.6 Mbit/s.
    capacity = 20e6 * 1000 / 1052 - 0.6e6
    for tool in ("ns2", "hscc"):
        s = row[tool]
        assert 0.6 * capacity < s["aggregate_bps"] <= 1.01 * capacity, (tool, s)
        assert s["bottleneck_tcp_drops"] > 0 and s["receiver_access_tcp_drops"] == 0, (tool, s)
        assert s["loss_events_a"] >= 1 and s["loss_events_b"] >= 1, (tool, s)
    assert abs(row["delta"]["aggregate_bps"]) <= 0.1, row["delta"]
    files = ("scenario.json", "ns2.tcl", "ns2-out.json", "ns2-out.json.drops", "hscc-out.json")
    for f in files:
        assert (tmp_path / "tiny" / "s1" / f).is_file(), f
    # A rerun takes ns-2's output from the first where the script is the same.
    again = validate.run_one(
        configs.TINY, tmp_path / "again", seeds=1, duration=4.0, timeout=60, ns2_from=tmp_path
    )
    assert (
        again["ns2"] == row["ns2"] and again["hscc"]["per_flow_bps"] == row["hscc"]["per_flow_bps"]
    )


@pytest.mark.timeout(60)
def test_a_recovery_variant_runs_hscc_alone_against_the_stored_ns2_numbers(tmp_path):
    # An entry of ns2.json as validate.py writes it, with made-up ns-2 numbers.
    stored = {k: 1.0 for k in validate.MEASURES} | {"aggregate_bps": 15e6, "per_flow_bps": []}
    base = {
        "name": "tiny",
        "groups": ["A→B", "C→D"],
        "conditions": "hscc at x; ns-2.35 (Debian ns2); 1 seeds, their means",
        "source": "validation/ns2/validate.py on 2026-01-01 at x",
        "duration_s": 4.0,
        "reference": stored,
    }
    row = validate.run_variant(configs.TINY, tmp_path, base, "classic")
    assert row["name"] == "tiny-classic" and row["seeds"] == 1 and row["ns2"] is stored
    assert row["delta"]["aggregate_bps"] == pytest.approx(row["hscc"]["aggregate_bps"] / 15e6 - 1)
    ran = json.loads((tmp_path / "tiny-classic" / "s1" / "scenario.json").read_text())
    assert ran["stack"] == "ns2" and {f["recovery"] for f in ran["flows"]} == {"classic"}
    assert ran["duration"] == 4.0 and not (tmp_path / "tiny-classic" / "s1" / "ns2.tcl").exists()
    e = validate.entry(row)
    assert e["group"] == "classic" and e["variant_of"] == "tiny" and e["reference"] == stored
    assert "--recovery classic --only tiny" in e["command"] and "the entry tiny" in e["conditions"]


@pytest.mark.timeout(30)
def test_a_pair_given_by_its_rtt_gets_the_senders_delay_hscc_gives_it():
    # 90 ms base RTT over a 10 ms bottleneck with 5 ms at the receiver: 30 ms at the sender.
    e = engine(**{"topology.pairs[1]": {"rate": "1Gbps", "rtt": "90ms", "recv_delay": "5ms"}})
    lines = tcl.script(e).splitlines()
    sender = next(x for x in lines if x.startswith("$ns duplex-link $s(1) $L"))
    assert float(sender.split()[5]) == pytest.approx(0.030)
    assert "$ns duplex-link $R $d(1) 1000000000.0 0.005 DropTail" in lines


@pytest.mark.timeout(30)
def test_a_queue_trace_covers_the_bottleneck_and_the_senders_access_links():
    plain, traced = tcl.script(engine()), tcl.script(engine(), trace_queues=True)
    assert "queuefile" not in plain and "drophead_" not in plain
    lines = set(traced.splitlines())
    for a, b in (("$L", "$R"), ("$R", "$L"), ("$s(0)", "$L"), ("$s(1)", "$L")):
        assert f"$ns trace-queue {a} {b} $queuefile" in lines
    assert traced.count("trace-queue") == 4
    # Each drop still reaches the drop trace, then the link's own chain (the queue trace).
    assert "  $t target [[$ns link $from $to] set drophead_]" in lines


def _line(event: str, t: float, link: str, kind: str, flow: int, seq: int) -> str:
    a, b = link.split("-")
    return f"{event} {t} {a} {b} {kind} 1052 ------- {flow} 2.0 3.0 {seq} {seq}"


@pytest.mark.timeout(30)
def test_the_queue_trace_reader_counts_the_packets_waiting_at_each_arrival():
    lines = [
        _line("+", 0.0, "0-1", "tcp", 0, 0),  # idle link: 0 waiting, straight onto the wire
        _line("-", 0.0, "0-1", "tcp", 0, 0),
        _line("+", 0.1, "0-1", "tcp", 0, 1),  # 0 waiting
        _line("+", 0.2, "0-1", "tcp", 0, 2),  # 1 waiting
        _line("+", 0.3, "0-1", "tcp", 1, 7),  # 2 waiting, refused
        _line("d", 0.3, "0-1", "tcp", 1, 7),
        _line("r", 0.4, "0-1", "tcp", 0, 0),  # receptions leave the queue alone
        _line("+", 0.5, "2-0", "tcp", 0, 3),  # another link
        _line("d", 0.5, "2-0", "tcp", 0, 3),
        _line("-", 0.5, "0-1", "tcp", 0, 1),
        _line("+", 0.6, "0-1", "exp", 1000, 9),  # 1 waiting (#2)
    ]
    got = [(a.seq, a.waiting, a.dropped) for a in queue_trace.arrivals(lines, "0-1")]
    assert got == [(0, 0, False), (1, 0, False), (2, 1, False), (7, 2, True), (9, 1, False)]
    s = queue_trace.summarize(queue_trace.arrivals(lines, "0-1"), drops_until=1.0)
    assert (s.arrivals, s.drops, s.most_waiting_accepted, s.fewest_waiting_dropped) == (5, 1, 1, 2)
    assert [(a.time, a.flow, a.seq) for a in s.drop_list] == [(0.3, 1, 7)]
    assert queue_trace.summarize(queue_trace.arrivals(lines, "2-0")).drops == 1
    late = queue_trace.summarize(queue_trace.arrivals(lines, "0-1"), between=(0.25, 1.0))
    assert (late.arrivals, late.drops) == (2, 1)
    with pytest.raises(ValueError, match="0-1: a drop at 0.7 s right after no arrival"):
        list(queue_trace.arrivals([*lines[:2], _line("d", 0.7, "0-1", "tcp", 0, 5)], "0-1"))


@pytest.mark.timeout(120)
@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 (`ns`, Debian's ns2) not installed")
def test_both_tools_queues_hold_the_buffer_waiting(tmp_path):
    validate.run_one(configs.TINY, tmp_path, seeds=1, duration=4.0, timeout=60, trace_queues=True)
    d = tmp_path / "tiny" / "s1"
    trace = (d / tcl.QUEUE_TRACE).read_text().splitlines()
    # The drop trace the counts come from is whole: the queue trace's drops are its drops.
    drops = [
        x for x in (d / f"{tcl.OUT}.drops").read_text().splitlines() if x.split()[2:4] == ["0", "1"]
    ]
    s = queue_trace.summarize(queue_trace.arrivals(trace, "0-1"))
    assert s.drops == len(drops) > 0
    # hscc's 49-packet buffer is ns-2's queue-limit 50: ns-2 refuses a packet that finds
    # limit - 1 = 49 waiting (drop-tail.cc enque: q_->length() + 1 >= qlim_), as hscc does.
    assert (s.most_waiting_accepted, s.fewest_waiting_dropped) == (48, 49)
    # hscc's queue rebuilt from its capture at 20 Mbit/s refuses what its drop log holds.
    pcap = (d / "link-0-bottleneck_fwd.pcap").read_bytes()
    h = queue_trace.summarize(capture_queue.arrivals(pcap, 20e6, 49))
    logged = pl.read_parquet(d / "drops.parquet").filter(pl.col("link") == "bottleneck:fwd")
    assert h.drops == logged.height > 0
    assert (h.most_waiting_accepted, h.fewest_waiting_dropped) == (48, 49)
    assert {p.name for p in d.glob("link-*.pcap")} == {
        "link-0-bottleneck_fwd.pcap",
        "link-1-bottleneck_rev.pcap",
        "link-2-access-s0_fwd.pcap",
        "link-6-access-s1_fwd.pcap",
    }


def _pcap(packets: list[tuple[float, bytes, int]]) -> bytes:
    """A nanosecond pcap of raw IPv4 (hscc's form): (time, headers kept, length on the wire)."""
    out = struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 128, capture_queue.LINKTYPE_RAW)
    for t, head, orig in packets:
        ns = round(t * 1e9)
        out += struct.pack("<IIII", ns // 10**9, ns % 10**9, len(head), orig) + head
    return out


def _tcp(seq: int, payload: int, flags: int = 0x10) -> tuple[bytes, int]:
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 40 + payload, 0, 0, 64, 6, 0, bytes(4), bytes(4))
    tcp = struct.pack(">HHIIBBHHH", 32768, 5001, seq, 0, 5 << 4, flags, 0, 0, 0)
    return ip + tcp, 40 + payload


@pytest.mark.timeout(30)
def test_hscc_s_queue_is_rebuilt_from_a_capture_with_its_rate_and_limit():
    isn = 4_000_000_000  # the sequence numbers wrap past 2^32 from the third segment
    syn, syn_len = _tcp(isn - 1, 0, flags=0x02)
    udp = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 1052, 0, 0, 64, 17, 0, bytes(4), bytes(4))
    # 1000-byte segments are 1052 bytes on the wire: one second each at 8416 bit/s.
    seg = [_tcp((isn + 1000 * k) % 2**32, 1000) for k in range(4)]
    pcap = _pcap(
        [
            (0.0, syn, syn_len),  # the handshake takes no time: left out
            (0.0, *seg[0]),  # idle link: straight onto the wire until 1.0 s
            (0.1, *seg[1]),  # 0 waiting: taken, waits until 1.0 s
            (0.2, *seg[2]),  # 1 waiting = the limit: refused
            (0.5, udp + bytes(8), 1052),  # 1 waiting: refused
            (1.5, *seg[3]),  # segment 1 on the wire since 1.0 s: 0 waiting
        ]
    )
    got = [(a.kind, a.seq, a.waiting, a.dropped) for a in capture_queue.arrivals(pcap, 8416.0, 1)]
    assert got == [
        ("tcp", 0, 0, False),
        ("tcp", 1, 0, False),
        ("tcp", 2, 1, True),
        ("udp", 0, 1, True),
        ("tcp", 3, 0, False),
    ]
    with pytest.raises(ValueError, match="link type 1 .allowed: a little-endian pcap of raw"):
        list(capture_queue.packets(pcap[:20] + struct.pack("<I", 1) + pcap[24:]))


@pytest.mark.timeout(120)
def test_the_queue_spread_runs_the_buffer_one_shorter_and_longer(tmp_path):
    rows = queue_spread.spread(configs.TINY, seed=3, duration=4.0)
    assert [r["buffer"] for r in rows] == [48, 49, 50]
    # The middle row is the configuration's own run, as the cross-check makes it.
    s = configs.TINY.scenario(seed=3, duration=4.0)
    own = validate.summarize(
        validate.run_hscc(s, tmp_path), configs.TINY, Scenario.parse(s).to_engine(), True
    )
    assert {k: v for k, v in rows[1].items() if k not in ("buffer", "cpu_s")} == {
        k: v for k, v in own.items() if k != "cpu_s"
    }
    # Every row overflows the queue, and one queue place moves the run.
    assert all(r["bottleneck_tcp_drops"] > 0 for r in rows)
    assert len({r["per_flow_bps"][0] for r in rows}) == 3


def test_the_queue_spread_goes_into_the_entry_whose_run_it_repeats(tmp_path):
    """record() puts the rows into the configuration's entry of the results file, and refuses
    rows whose middle is not the entry's own ratio (another engine than the entry's)."""
    path = tmp_path / "ns2.json"
    entry = {"name": "x", "measured": {"ratio": 2.5}, "reference": {"ratio": 3.0}}
    results.write(path, {"schema": results.SCHEMA, "configurations": [entry]})
    rows = [
        {"buffer": b, "ratio": r, "loss_events_a": 1, "loss_events_b": 2, "timeouts": 0}
        for b, r in ((9, 2.0), (10, 2.5), (11, 3.5))
    ]
    queue_spread.record(path, {"x": rows})
    assert results.load(path)["configurations"][0]["queue_spread"]["rows"] == rows
    moved = [dict(r, ratio=r["ratio"] + 0.01) for r in rows]
    with pytest.raises(SystemExit, match="x: the configuration's own buffer gives ratio 2.51"):
        queue_spread.record(path, {"x": moved})
    with pytest.raises(SystemExit, match="y: no entry in"):
        queue_spread.record(path, {"y": rows})
