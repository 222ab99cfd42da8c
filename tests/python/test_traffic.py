"""UDP flows, VoIP calls, web transfers and link changes: parsed, run, and their numbers checked."""

from __future__ import annotations

import polars as pl
import pytest

import hscc
from conftest import EXAMPLES
from hscc import Scenario, ScenarioError


@pytest.fixture(scope="module")
def mixed():
    return hscc.run(EXAMPLES / "mixed-traffic.toml")


def test_the_engine_form_of_every_kind_of_traffic():
    e = Scenario.from_toml(EXAMPLES / "mixed-traffic.toml").to_engine()
    assert e["flows"][1]["reverse"] is True
    assert e["udp"] == [
        {
            "pair": 1,
            "label": "on/off",
            "pattern": "onoff",
            "rate": 20e6,
            "on": 5.0,
            "off": 5.0,
            "packet_size": 1500,
            "start": 0.0,
        }
    ]
    assert e["voip"] == [
        {"pair": 2, "label": "call", "rate": 64e3, "interval": 0.02, "header": 40, "start": 0.0}
    ]
    assert e["web"] == [
        {
            "pairs": [1, 2],
            "reverse": False,
            "servers": [],
            "clients": [],
            "model": "transfers",
            "rate": 20.0,
            "size": {"dist": "pareto", "shape": 1.2, "mean": 12000},
            "persistent": 0.0,
            "server_delay": True,
            "algorithm": "reno",
            "loss_detection": "rack",
            "params": {},
            "start": 0.0,
        }
    ]
    assert e["changes"] == [{"at": 20.0, "link": "bottleneck:fwd", "rate": 50e6}]


def test_udp_and_voip_numbers(mixed):
    onoff, there, back = mixed.udp.to_dicts()
    assert [u["label"] for u in (onoff, there, back)] == ["on/off", "call →", "call ←"]
    # 20 Mbit/s on the wire, on half of the time: 10 Mbit/s, less what the full queue drops.
    assert 9.0e6 < onoff["throughput_bps"] <= 10.0e6 and onoff["loss_rate"] < 0.05
    # G.711 in 20 ms packets: 160 payload + 40 header bytes every 20 ms = 80 kbit/s each way, 2000 packets in 40 s.
    for call in (there, back):
        assert call["sent"] == 2001 and call["throughput_bps"] == pytest.approx(80e3, rel=0.01)
        # One-way delay: at least half the 100 ms base RTT, at most that plus a full 0.5-BDP buffer (50 ms).
        assert 0.050 <= call["mean_delay_s"] <= call["p99_delay_s"] <= call["max_delay_s"] < 0.150


def test_web_transfers(mixed):
    (w,) = mixed.summary["web"]
    # Poisson arrivals at 20/s for 40 s: 800 expected (±4σ ≈ ±113).
    assert 687 < w["started"] < 913 and w["completed"] <= w["started"]
    assert mixed.web["count"].sum() == w["completed"]
    assert (mixed.web["median_s"] <= mixed.web["p90_s"]).all()
    assert (
        mixed.web["mean_s"].min() > 0.03
    )  # a transfer takes at least a handshake-free RTT (≥ 40 ms base)


def test_a_rate_change_halves_what_the_forward_flow_gets(mixed):
    ts = mixed.timeseries.filter(pl.col("flow") == 0)
    before = ts.filter(pl.col("time_s").is_between(5, 20, closed="right"))["throughput_bps"].mean()
    after = ts.filter(pl.col("time_s") > 25)["throughput_bps"].mean()
    assert before > 60e6 and after < 50e6 * 1448 / 1500
    fwd = mixed.queues.filter((pl.col("name") == "bottleneck:fwd") & (pl.col("time_s") > 25))
    # Utilization of the new 50 Mbit/s: measured against the old 100 Mbit/s it could not pass 0.5.
    # (A 0.5-BDP buffer under CUBIC, web and on/off UDP keeps it near 0.8, not 1.)
    assert fwd["utilization"].mean() > 0.6


def test_reverse_flow_runs_from_the_receiving_host(mixed):
    assert mixed.flows.select("src", "dst").rows() == [("s0", "d0"), ("d1", "s1")]


def test_a_udp_only_scenario(tmp_path):
    r = hscc.run(
        {
            "duration": "5s",
            "topology": {
                "kind": "dumbbell",
                "bottleneck": {"rate": "10Mbps", "delay": "5ms", "buffer": "100pkts"},
                "pairs": [{"delay": "5ms"}],
            },
            "udp": [{"pair": 0, "pattern": "cbr", "rate": "12Mbps"}],
        }
    )
    assert r.flows.is_empty() and r.summary["jain_index"] is None
    (u,) = r.udp.to_dicts()
    assert u["throughput_bps"] == pytest.approx(
        10e6, rel=0.02
    )  # the link, not the 12 Mbit/s offered
    # What the link cannot carry is dropped, except what is still in the network at the end: the full
    # 100-packet queue and about ten packets on the wires (5 ms access + 5 ms bottleneck at ~1 ms/packet).
    assert 100 <= u["sent"] - u["received"] - u["lost"] <= 115
    assert u["loss_rate"] == pytest.approx(u["lost"] / (u["received"] + u["lost"]))
    back = hscc.load(r.write(tmp_path / "run"))
    assert back.udp.equals(r.udp) and back.flows.is_empty()


BASE = {
    "duration": "1s",
    "topology": {
        "kind": "dumbbell",
        "bottleneck": {"rate": "10Mbps", "delay": "5ms"},
        "pairs": [{"delay": "5ms"}],
    },
}


@pytest.mark.parametrize(
    "extra, field, says",
    [
        (
            {"udp": [{"pair": 0, "pattern": "burst", "rate": "1Mbps"}]},
            'udp[0].pattern: "burst"',
            '"cbr", "onoff", "poisson"',
        ),
        (
            {"udp": [{"pair": 0, "pattern": "onoff", "rate": "1Mbps"}]},
            "udp[0].on: missing",
            "the on and off periods",
        ),
        (
            {"udp": [{"pair": 0, "pattern": "cbr", "rate": "1Mbps", "packet_size": 10}]},
            "udp[0].packet_size: 10",
            "28 to 65535 bytes",
        ),
        ({"voip": [{"pair": 4}]}, "voip[0].pair: 4", "a host pair index from 0 to 0"),
        (
            {"voip": [{"pair": 0, "interval": "2s"}]},
            'voip[0].interval: "2s"',
            "a packet interval above 0, at most 1 s",
        ),
        ({"web": [{"pairs": [3], "rate": 5}]}, "web[0].pairs: 3", "host pair indices from 0 to 0"),
        (
            {"web": [{"pairs": [0], "rate": 5, "algorithm": "x"}]},
            'web[0].algorithm: "x"',
            "one of: reno",
        ),
        (
            {"web": [{"pairs": [0], "rate": 5, "size": {"dist": "pareto", "mean": "10KB"}}]},
            "web[0].size.shape: missing",
            "pareto",
        ),
        (
            {"web": [{"pairs": [0], "rate": 0}]},
            "web[0].rate: 0",
            "10^-6 to 10^7 transfers per second",
        ),
        (
            {"flows": [{"pair": 0}], "changes": [{"at": "1s", "link": "bottleneck:fwd"}]},
            "changes[0].rate: missing",
            "a new rate, a new delay, or both",
        ),
        ({}, "flows: []", "at least one [[flows]], [[udp]], [[voip]] or [[web]] entry"),
    ],
)
def test_bad_traffic_names_the_field(extra, field, says):
    with pytest.raises(ScenarioError) as e:
        Scenario.parse({**BASE, **extra})
    assert field in str(e.value) and says in str(e.value), str(e.value)


def test_an_unknown_link_in_a_change_lists_the_links():
    with pytest.raises(ScenarioError) as e:
        hscc.run(
            {
                **BASE,
                "flows": [{"pair": 0}],
                "changes": [{"at": "0.5s", "link": "nope", "rate": "5Mbps"}],
            }
        )
    assert 'changes[0].link: "nope" is not allowed (a link name such as bottleneck:fwd' in str(
        e.value
    )
