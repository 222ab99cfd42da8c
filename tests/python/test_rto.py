"""The retransmission-timeout estimators (crates/hscc-sim/src/tcp/rtt.rs): behind a full
queue whose RTT is steady, RFC 6298's RTO comes down to the RTT itself and a retransmission
waiting in that queue times out; Linux's stays SRTT + min_rto above it (docs/validation.md,
10 Mbit/s x 100 ms, where the kernel had no timeout and the default simulation 12)."""

from __future__ import annotations

import pytest

import hscc


def run(estimator: str | None) -> dict:
    flow = {"pair": 0, "algorithm": "cubic", **({"rto_estimator": estimator} if estimator else {})}
    r = hscc.run(
        {
            "name": "rto",
            "duration": "30s",
            "seed": 1,
            "topology": {
                "kind": "dumbbell",
                "bottleneck": {"rate": "10Mbps", "delay": "1ms", "buffer": "1bdp"},
                "pairs": [{"rate": "10Gbps", "rtt": "100ms"}],
            },
            "flows": [flow],
        }
    )
    return r.flows.row(0, named=True)


def test_linuxs_rto_does_not_time_out_behind_a_steady_queue_where_rfc6298s_does():
    rfc, linux, default = run("rfc6298"), run("linux"), run(None)
    assert default == rfc  # RFC 6298 is the default
    assert rfc["timeouts"] >= 5, rfc
    assert linux["timeouts"] == 0, linux
    # Without the timeouts' go-back retransmissions, fewer segments are sent again and fewer recoveries start.
    assert linux["retrans"] < 0.7 * rfc["retrans"] and linux["recoveries"] < rfc["recoveries"]


def test_a_bad_estimator_is_refused_by_name():
    with pytest.raises(hscc.ScenarioError) as e:
        run("bsd")
    assert "rto_estimator" in str(e.value) and "linux" in str(e.value)
