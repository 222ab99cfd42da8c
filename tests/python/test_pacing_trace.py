"""The timeseries' pacing rate: what Linux's socket would report (tcpi_pacing_rate), so a
simulation's column reads as a kernel run's."""

from __future__ import annotations

import polars as pl

import hscc

MSS = 1448


def one_flow(algorithm: str, seconds: int) -> pl.DataFrame:
    """One flow alone on 100 Mbit/s, RTT 40 ms, a BDP of buffer, sampled every 10 ms."""
    return hscc.run(
        {
            "name": "pacing",
            "duration": f"{seconds}s",
            "seed": 1,
            "output": {"sample_interval": "10ms"},
            "topology": {
                "kind": "dumbbell",
                "bottleneck": {"rate": "100Mbps", "delay": "10ms", "buffer": "1bdp"},
                "pairs": [{"rate": "1Gbps", "rtt": "40ms"}],
            },
            "flows": [{"pair": 0, "algorithm": algorithm}],
        }
    ).timeseries


def test_bbr_shows_its_pacing_gain_cycle():
    # PROBE_BW paces at 1.25, 0.75, then six times 1 × the bandwidth estimate, a phase a
    # round trip each (tcp_bbr.c's bbr_pacing_gain): against the median, every sample
    # after STARTUP and DRAIN is one of the three, and each shows.
    ts = one_flow("bbr", 8).filter(pl.col("time_s") > 2)
    gain = (ts["pacing_rate_bps"] / ts["pacing_rate_bps"].median()).round(3)
    counts = dict(zip(*gain.value_counts().to_dict().values(), strict=True))
    assert set(counts) == {0.75, 1.0, 1.25}, counts
    assert counts[1.0] > counts[1.25] > 0.1 * len(gain) and counts[0.75] > 0.1 * len(gain)


def test_an_unpaced_flow_reports_the_kernels_default_rate():
    # tcp_update_pacing_rate: 2× cwnd per sRTT in slow start's first half, 1.2× after, of
    # max(cwnd, packets in flight) segments; the flow is not paced, the socket still holds it.
    ts = one_flow("reno", 6).filter(pl.col("time_s") > 1)
    ratio = (ts["pacing_rate_bps"] / (ts["cwnd"] * MSS * 8 / ts["srtt_s"])).round(4)
    assert ratio.min() == 1.2  # never below: in flight can pass cwnd (in recovery), not less
    assert (ratio == 1.2).mean() > 0.8
