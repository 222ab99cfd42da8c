"""scripts/bench.py's parsers (scripts/bench_parts/parsers.py) against captured outputs of each
bench (tests/data/bench/): a bench whose printed lines change fails here, not in a measurement
on an idle machine.
Parsing only: nothing here is timed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "bench"
sys.path.insert(0, str(ROOT / "scripts"))

from bench_parts import parsers  # noqa: E402
from bench_parts.cargo_benches import loss_burst_median  # noqa: E402


def sample(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def test_testbed():
    out = parsers.parse_testbed(sample("testbed.txt"))
    assert out == {
        "flows": 8,
        "algorithm": "reno",
        "seconds": 2,
        "recovery": "Linux's (RACK-TLP, D-SACK, undo, F-RTO)",
        "queue": "DropTail",
        "utilization": 0.5199,
        "drops_queue": 2563,
        "drops_aqm": 0,
        "marks": 0,
        "mean_qdelay_ms": 3.47,
        "data_segments": 60652,
        "packets": 95787,
        "events": 289598,
        "recoveries": 8,
        "timeouts": 0,
        "retransmissions": 2563,
        "rack_marked": 2563,
        "probes": 0,
        "undos": 0,
        "wall_s": 0.175,
        "events_per_s": 1655637.0,
        "peak_memory_mb": 4.9,
    }


def test_testbed_with_its_optional_lines():
    out = parsers.parse_testbed(sample("testbed-bbr-cclog-pcap.txt"))
    assert out["algorithm"] == "bbr"
    assert (out["packets"], out["events"]) == (29537, 150330)
    assert out["cc_log_rows"] == 35821
    assert out["captures"] == {
        "flow.pcap": {"packets": 5677, "mb": 0.7},
        "bottleneck.pcap": {"packets": 30832, "mb": 4.4},
    }


def test_many_flows():
    assert parsers.parse_many_flows(sample("many_flows.txt")) == {
        "flows": 256,
        "utilization": 0.9989,
        "jain": 0.9691679298142621,
        "web_completed": 11804,
        "web_started": 11831,
        "wall_s": 1.924,
        "data_segments_per_s": 2555887.0,
        "events_per_s": 12252985.0,
    }


def test_loss_burst():
    out = parsers.parse_loss_burst(sample("loss_burst-newreno.txt"))
    assert out["recovery"] == "NewReno"
    assert out["runs"] == 2380
    assert out["windows"] == [
        {
            "window": 1000,
            "events": 3547,
            "wall_s": 0.0002,
            "ns_per_event": 65.0,
            "retransmissions": 9,
            "timeouts": 0,
        },
        {
            "window": 10000,
            "events": 26047,
            "wall_s": 0.0018,
            "ns_per_event": 68.0,
            "retransmissions": 9,
            "timeouts": 0,
        },
    ]
    sack = parsers.parse_loss_burst(sample("loss_burst-sack.txt"))
    assert (sack["recovery"], sack["runs"]) == ("SACK", 751)
    assert [(w["retransmissions"], w["timeouts"]) for w in sack["windows"]] == [(399, 0), (9516, 1)]


def test_callgrind():
    assert parsers.parse_callgrind(sample("callgrind-stderr.txt")) == 85490010


def test_callgrind_misses():
    assert parsers.parse_callgrind_misses(sample("callgrind-cache-stderr.txt")) == {
        "Ir": 99213195,
        "Dr": 18453547,
        "Dw": 11782906,
        "I1mr": 1951,
        "D1mr": 1613022,
        "D1mw": 22582,
        "ILmr": 1906,
        "DLmr": 1474,
        "DLmw": 7043,
    }
    with pytest.raises(ValueError, match="no cache events"):
        parsers.parse_callgrind_misses(sample("callgrind-stderr.txt"))


def test_probe():
    assert parsers.parse_probe(sample("probe.txt")) == {
        "flows": 8,
        "seconds": 10,
        "events": 1650974,
        "data_segments_sent": 560332,
        "data_segments": 548170,
        "drops": 8300,
        "utilization": 0.9397,
        "wall_s": 0.290,
    }


def test_ns3_bench_dumbbell():
    assert parsers.parse_ns3(sample("ns3-bench_dumbbell.txt")) == {
        "run_cpu_s": 0.222835,
        "events": 86771,
        "rx_bytes": 8729992,
    }
    with pytest.raises(ValueError, match="no events"):
        parsers.parse_ns3('{"run_cpu_s": 1.0, "rx_bytes": 2}\n')


@pytest.mark.parametrize(
    "parser",
    [
        parsers.parse_testbed,
        parsers.parse_many_flows,
        parsers.parse_loss_burst,
        parsers.parse_callgrind,
        parsers.parse_callgrind_misses,
        parsers.parse_probe,
        parsers.parse_ns3,
    ],
)
def test_a_changed_output_is_an_error_not_a_figure(parser):
    with pytest.raises(ValueError, match="output"):
        parser("something else\n")


def test_a_missing_line_is_named():
    text = sample("testbed.txt").replace("  events                  289598\n", "")
    with pytest.raises(ValueError, match="'events'"):
        parsers.parse_testbed(text)


def test_loss_burst_runs_combine_into_medians_and_each_runs_ratio():
    def run(ns: list[float], runs: int) -> dict:
        windows = [
            {"window": w, "events": 10 * w, "wall_s": n * w * 1e-8, "ns_per_event": n}
            for w, n in zip((1000, 10000), ns, strict=True)
        ]
        return {"recovery": "SACK", "runs": runs, "windows": windows}

    out = loss_burst_median([run([60, 90], 5), run([50, 100], 6), run([70, 77], 7)])
    assert out["runs"] == 18
    assert [w["ns_per_event"] for w in out["windows"]] == [60, 90]
    assert [w["events"] for w in out["windows"]] == [10_000, 100_000]
    # Each run's own slowest over its own first: 1.5, 2.0, 1.1; not the medians' 90 / 60.
    assert out["ratios"] == [1.5, 2.0, 1.1]
