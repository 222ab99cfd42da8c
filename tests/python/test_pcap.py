"""Packet captures (`[output] pcap`) read back by independent readers — dpkt,
and tshark's TCP analysis when it is installed — against the engine's own
counters and drop log (docs/traces.md)."""

from __future__ import annotations

import io
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import dpkt
import pytest

import hscc
from hscc import ScenarioError

SCENARIO = {
    "name": "pcap",
    "duration": "4s",
    "seed": 5,
    "topology": {
        "kind": "dumbbell",
        "bottleneck": {"rate": "10Mbps", "delay": "5ms", "buffer": "15pkts"},
        "pairs": [{"rate": "1Gbps", "rtt": "40ms"}],
    },
    "flows": [{"pair": 0, "algorithm": "cubic", "count": 2}],
    "output": {"pcap": {"flows": ["cubic 0"], "links": ["bottleneck:fwd", "access-d0:fwd"]}},
}
MSS = 1448
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def result():
    return hscc.run(SCENARIO)


def packets(data: bytes) -> list[tuple[float, dpkt.ip.IP]]:
    reader = dpkt.pcap.Reader(io.BytesIO(data))
    assert reader.datalink() == 101  # LINKTYPE_RAW: IPv4 packets, no link layer
    return [(ts, dpkt.ip.IP(buf)) for ts, buf in reader]


def sack_blocks(tcp: dpkt.tcp.TCP) -> list[tuple[int, int]]:
    for kind, value in dpkt.tcp.parse_opts(tcp.opts):
        if kind == dpkt.tcp.TCP_OPT_SACK:
            return [
                (
                    int.from_bytes(value[i : i + 4], "big"),
                    int.from_bytes(value[i + 4 : i + 8], "big"),
                )
                for i in range(0, len(value), 8)
            ]
    return []


def test_the_flow_capture_agrees_with_the_senders_counters(result):
    assert sorted(result.captures) == [
        "flow-0-cubic_0.pcap",
        "link-0-bottleneck_fwd.pcap",
        "link-4-access-d0_fwd.pcap",
    ]
    pkts = packets(result.captures["flow-0-cubic_0.pcap"])
    (_, syn), (_, synack) = pkts[:2]
    assert (
        syn.tcp.flags == dpkt.tcp.TH_SYN and synack.tcp.flags == dpkt.tcp.TH_SYN | dpkt.tcp.TH_ACK
    )
    opts = dict(dpkt.tcp.parse_opts(syn.tcp.opts))
    assert (
        opts[dpkt.tcp.TCP_OPT_MSS] == MSS.to_bytes(2, "big")
        and dpkt.tcp.TCP_OPT_SACKOK in opts
        and dpkt.tcp.TCP_OPT_WSCALE in opts
    )
    isn = syn.tcp.seq
    data = [ip.tcp for _, ip in pkts[2:] if ip.src == syn.src]
    payload = [
        ip.len - 4 * ip.hl - 4 * ip.tcp.off for _, ip in pkts[2:] if ip.src == syn.src
    ]  # the capture keeps 128 bytes
    acks = [ip.tcp for _, ip in pkts[2:] if ip.src != syn.src]
    row = result.flows.row(0, named=True)
    assert row["retrans"] > 0, "the 15-packet buffer overflows"
    assert len(data) == row["segs_sent"]
    offsets = [(d.seq - isn - 1) % 2**32 for d in data]
    assert all(o % MSS == 0 for o in offsets) and set(payload) == {MSS}
    copies = Counter(offsets)
    assert sum(n - 1 for n in copies.values()) == row["retrans"], (
        "a sequence number seen again is a retransmission"
    )
    # SACK blocks: on segment edges, above the cumulative ACK except a D-SACK first block.
    sacked = [(a, sack_blocks(a)) for a in acks]
    assert any(blocks for _, blocks in sacked)
    for a, blocks in sacked:
        for k, (left, right) in enumerate(blocks):
            assert (left - isn - 1) % MSS == 0 and (right - isn - 1) % MSS == 0 and left < right
            below = (a.ack - right) % 2**32 < 2**31 and a.ack != right
            assert k == 0 or not below, "only a D-SACK block lies below the ACK"
    # Timestamps: data carries its send time (µs), ACKs echo it.
    tsval = {d.seq: dict(dpkt.tcp.parse_opts(d.opts))[dpkt.tcp.TCP_OPT_TIMESTAMP][:4] for d in data}
    assert all(
        dict(dpkt.tcp.parse_opts(a.opts))[dpkt.tcp.TCP_OPT_TIMESTAMP][4:] in set(tsval.values())
        for a in acks
    )


def test_dropped_packets_enter_the_link_and_never_leave(result, tmp_path):
    drops = result.drops
    assert (
        drops.height
        == result.links.filter(result.links["name"] == "bottleneck:fwd")["drops"][0]
        > 0
    )
    assert set(drops["cause"]) == {"queue"} and set(drops["kind"]) == {"data"}
    assert set(drops["label"]) <= {"cubic 0", "cubic 1"}
    entered = Counter(
        (ip.tcp.sport, ip.tcp.seq)
        for _, ip in packets(result.captures["link-0-bottleneck_fwd.pcap"])
        if ip.p == 6 and ip.tcp.data
    )
    left = Counter(
        (ip.tcp.sport, ip.tcp.seq)
        for t, ip in packets(result.captures["link-4-access-d0_fwd.pcap"])
        if ip.p == 6 and ip.tcp.data
    )
    dropped = Counter((32768 + row["flow"], row["tcp_seq"]) for row in drops.iter_rows(named=True))
    for key, n in dropped.items():
        assert entered[key] >= n, key
        assert left[key] <= entered[key] - n, f"{key}: a dropped copy left the link"
    # Everything else that entered before the last RTT left.
    assert sum(entered.values()) - sum(dropped.values()) - sum(left.values()) < 60
    # The run directory holds the captures and the drop log, and loads them back.
    run_dir = result.write(tmp_path / "run")
    assert {"drops.parquet", *result.captures} <= {p.name for p in run_dir.iterdir()}
    back = hscc.load(run_dir)
    assert back.captures == result.captures and back.drops.equals(drops)
    result.write(run_dir, overwrite=True)  # its own files: replaced when asked


@pytest.mark.skipif(
    shutil.which("tshark") is None, reason="tshark is not installed (apt-get install tshark)"
)
def test_wireshark_finds_the_retransmissions(result, tmp_path):
    path = tmp_path / "flow.pcap"
    path.write_bytes(result.captures["flow-0-cubic_0.pcap"])
    out = subprocess.run(
        [
            "tshark",
            "-r",
            str(path),
            "-Y",
            "tcp.analysis.retransmission or tcp.analysis.fast_retransmission",
            "-T",
            "fields",
            "-e",
            "frame.number",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert len(out.stdout.split()) == result.flows["retrans"][0]


def test_bad_pcap_options_name_the_field():
    for pcap, field in [
        ({"flows": ["reno 0"]}, "output.pcap.flows[0]"),
        ({"links": ["nowhere"]}, "output.pcap.links[0]"),
        ({"snaplen": 20, "flows": ["cubic 0"]}, "output.pcap.snaplen"),
        ({"files": []}, "output.pcap"),
    ]:
        with pytest.raises(ScenarioError) as e:
            hscc.Scenario.parse({**SCENARIO, "output": {"pcap": pcap}})
        assert field in str(e.value), str(e.value)


def test_every_kind_of_traffic_on_a_captured_link_is_written():
    sc = hscc.Scenario.from_toml(EXAMPLES / "mixed-traffic.toml").to_dict()
    sc = {
        **sc,
        "duration": 3.0,
        "changes": [],
        "output": {
            "traces": [],
            "pcap": {"flows": ["reno (reverse)"], "links": ["bottleneck:fwd"]},
        },
    }
    r = hscc.run(sc)
    link = packets(r.captures["link-0-bottleneck_fwd.pcap"])
    udp = [ip for _, ip in link if ip.p == dpkt.ip.IP_PROTO_UDP]
    web = {
        (ip.tcp.sport, ip.tcp.dport)
        for _, ip in link
        if ip.p == dpkt.ip.IP_PROTO_TCP and 80 in (ip.tcp.sport, ip.tcp.dport)
    }
    reverse = [ip for _, ip in link if ip.p == dpkt.ip.IP_PROTO_TCP and ip.tcp.dport == 32769]
    assert udp and all(ip.udp.dport == 5004 and ip.udp.ulen == ip.len - 20 for ip in udp)
    assert len(web) > 5, "web transfers, each its own connection"
    assert reverse and all(not ip.tcp.data for ip in reverse), (
        "the reverse flow's ACKs cross the forward bottleneck"
    )
    sent = r.udp.filter(r.udp["source"] != "voip[0]")["sent"].sum()
    assert 0 < len([ip for ip in udp if ip.udp.sport == 20000]) <= sent
