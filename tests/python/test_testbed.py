"""The kernel testbed and hscc compare.

Without a kernel: what the testbed refuses (by field), the plan it makes, and
compare's numbers on two fabricated run directories, checked by hand. With
root and network namespaces: a short scenario end to end (the delay line holds
the base RTT, HTB the rate, the run directory loads and plots), random loss,
and nothing left behind on success, on error and on Ctrl-C.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from itertools import pairwise
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import hscc
from hscc import testbed as tb
from hscc.cli import app
from hscc.kernel import registry, toolchain
from hscc.kernel.programs import KernelError
from hscc.results import FLOWS, QUEUES, TIMESERIES, Result
from hscc.scenario import Scenario
from hscc.testbed import record
from hscc.testbed.run import missing, plan_for

# Real kernel measurements: scripts/test.sh runs these alone, after the rest.
pytestmark = pytest.mark.real_kernel

runner = CliRunner()


def scenario(
    rate="20Mbps", rtt="20ms", buffer="1bdp", duration="3s", flows=None, loss=None, rtt2=None, **top
) -> Scenario:
    bottleneck = {"rate": rate, "delay": "2ms", "buffer": buffer}
    if loss is not None:
        bottleneck["loss"] = loss
    pairs = [{"rate": "1Gbps", "rtt": r} for r in (rtt, rtt2) if r]
    return Scenario.parse(
        {
            "name": "testbed-test",
            "duration": duration,
            "output": {"sample_interval": "100ms", "traces": ["flows", "queues"]},
            "topology": {"kind": "dumbbell", "bottleneck": bottleneck, "pairs": pairs},
            "flows": flows or [{"pair": 0, "algorithm": "reno"}, {"pair": 0, "algorithm": "cubic"}],
            **top,
        }
    )


# --- without a kernel ---------------------------------------------------------


@pytest.mark.parametrize(
    "change, field",
    [
        ({"flows": [{"pair": 0, "algorithm": "reno", "pacing": True}]}, "flows[0].pacing = True"),
        (
            {"flows": [{"pair": 0, "algorithm": "reno", "loss_detection": "dupack"}]},
            "flows[0].loss_detection = 'dupack'",
        ),
        ({"flows": [{"pair": 0, "algorithm": "reno", "reverse": True}]}, "flows[0].reverse"),
        (
            {
                "flows": [
                    {"pair": 0, "algorithm": "cubic", "params": {"beta": 0.8}},
                    {"pair": 0, "algorithm": "cubic", "params": {"beta": 0.6}},
                ]
            },
            "flows[1].params: cubic is registered once",
        ),
        ({"udp": [{"pair": 0, "rate": "1Mbps", "pattern": "cbr"}]}, "[[udp]]"),
    ],
)
def test_what_the_testbed_cannot_do_is_refused_by_field(change, field):
    with pytest.raises(tb.TestbedError) as e:
        plan_for(scenario(**change))
    assert field in str(e.value)


def test_an_algorithm_without_a_program_is_refused_by_field(monkeypatch):
    # Every algorithm has a program today; one without (a new Rust algorithm) is refused.
    from hscc.kernel import programs

    monkeypatch.setattr(programs, "available", lambda: ["reno", "cubic"])
    with pytest.raises(tb.TestbedError) as e:
        plan_for(scenario(flows=[{"pair": 0, "algorithm": "ctcp"}]))
    assert (
        "flows[0].algorithm = 'ctcp': the kernel has no such algorithm and bpf/ has no program for it"
        in str(e.value)
    )


@pytest.mark.parametrize(
    "kwargs, field",
    [
        (
            {"rate": "1Gbps"},
            "topology.bottleneck.rate = 1000 Mbit/s: this machine's testbed sustains at most",
        ),
        (
            {"rate": "150Mbps", "rtt": "500ms"},
            "rate × base RTT = 150 Mbit/s × 500 ms = 75 Mbit: this machine's testbed sustains at most 30 Mbit",
        ),
    ],
)
def test_beyond_the_machines_limits_is_refused_before_anything_runs(kwargs, field):
    with pytest.raises(tb.TestbedError) as e:
        plan_for(scenario(**kwargs))
    assert field in str(e.value)


def test_the_command_refuses_with_exit_code_2_and_writes_nothing(tmp_path):
    toml = tmp_path / "paced.toml"
    toml.write_text(
        'duration = "1s"\n[topology]\nkind = "dumbbell"\nbottleneck = { rate = "10Mbps", delay = "1ms", buffer = "10pkts" }\n'
        'pairs = [{ rate = "1Gbps", rtt = "10ms" }]\n[[flows]]\npair = 0\nalgorithm = "reno"\npacing = true\n'
    )
    r = runner.invoke(app, ["testbed", "run", str(toml), "--out", str(tmp_path / "out")])
    assert r.exit_code == 2 and "flows[0].pacing = True: the testbed cannot do this" in r.output, (
        r.output
    )
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler for the delay line")
def test_the_limits_and_the_timers_are_stated():
    r = runner.invoke(app, ["testbed", "limits"])
    assert r.exit_code == 0, r.output
    assert "bottleneck rate: at most 300 Mbit/s" in r.output and "at most 30 Mbit" in r.output
    assert "CLOCK_MONOTONIC resolution:" in r.output and "µs late at the median" in r.output


def test_a_run_is_flagged_when_the_delay_line_stalled_or_ran_late():
    from hscc.testbed import limits

    def line(max_late_s=0.001, late=0, packets=1000, overflow=0):
        d = {
            "max_late_s": max_late_s,
            "late_1ms": late,
            "late_1ms_share": late / packets,
            "packets": packets,
            "overflow": overflow,
        }
        return {
            "fwd": d,
            "rev": dict(d, max_late_s=0.0, late_1ms=0, late_1ms_share=0.0, overflow=0),
        }

    assert limits.flags(line(max_late_s=0.005, late=10)) == []  # at the bounds: 5 ms, 1 %
    assert limits.flags(line(max_late_s=0.0051)) == [
        "fwd: the delay line stalled for 5.1 ms (bound 5 ms)"
    ]
    assert limits.flags(line(late=11)) == [
        "fwd: 1.1% of packets left more than 1 ms late (bound 1%)"
    ]
    assert limits.flags(line(overflow=3)) == [
        "fwd: the delay line dropped 3 packets (its FIFO was full)"
    ]


def test_other_queues_and_topologies_are_refused():
    sc = Scenario.parse(
        {
            **scenario().to_dict(),
            "topology": {
                **scenario().to_dict()["topology"],
                "bottleneck": {
                    "rate": "20Mbps",
                    "delay": "2ms",
                    "buffer": "100pkts",
                    "queue": {"kind": "codel"},
                },
            },
        }
    )
    with pytest.raises(
        tb.TestbedError, match=r"topology.bottleneck.queue = .*this kernel has no codel"
    ):
        plan_for(sc)
    with pytest.raises(tb.TestbedError, match="topology.bottleneck.loss_point = 'after_queue'"):
        d = scenario(loss=0.01).to_dict()
        d["topology"]["bottleneck"]["loss_point"] = "after_queue"
        plan_for(Scenario.parse(d))


def test_the_plan_has_each_pairs_delays_and_the_buffer_in_packets():
    plan = plan_for(
        Scenario.from_toml(Path(__file__).parents[2] / "examples" / "two-reno-rtt.toml")
    )
    # rtt 40 ms and 120 ms: half each way, access + bottleneck (5 ms) + receiver access (0).
    assert plan.fwd_delay == pytest.approx((0.020, 0.060)) and plan.rev_delay == pytest.approx(
        (0.020, 0.060)
    )
    # 1 BDP at 100 Mbit/s × the longest base RTT (120 ms, plus serialization) = 1000 packets of 1500 B.
    assert plan.buffer == ("packets", 1000) and plan.rate_bps == 100_000_000
    assert [(f.pair, f.cc) for f in plan.flows] == [(0, "reno"), (1, "reno")]
    assert plan.duration == 60.0 and plan.interval == 0.1


def test_a_drawn_start_is_the_one_the_simulation_draws():
    drawn = {"dist": "uniform", "min": "0s", "max": "1s"}
    sc = scenario(flows=[{"pair": 0, "algorithm": "reno", "count": 2, "start": drawn}], seed=3)
    engine = [f["start"] / 1e12 for f in json.loads(sc.resolved().config())["flows"]]
    plan = plan_for(sc)
    assert [f.start for f in plan.flows] == engine and engine[0] != engine[1]


def test_with_bpf_reno_and_cubic_are_hsccs_programs():
    plan = plan_for(scenario(), use_bpf=True)
    assert [f.cc for f in plan.flows] == ["hscc_reno", "hscc_cubic"] and plan.bpf == {
        "reno": (),
        "cubic": (),
    }


@pytest.mark.skipif(
    not Path("/sys/module/tcp_cubic/parameters/hystart").is_file(),
    reason="the kernel's cubic parameters are not readable here",
)
def test_where_the_kernels_cubic_differs_from_the_scenarios_it_is_said():
    from hscc.testbed.plan import builtin_differences

    kernel_hystart = Path("/sys/module/tcp_cubic/parameters/hystart").read_text().strip()
    notes = builtin_differences(plan_for(scenario()))
    # hscc's cubic leaves HyStart off by default; Linux's (hystart = 1 unless the host changed it) runs it.
    assert (
        f"cubic: the kernel's built-in runs hystart = {kernel_hystart}, the scenario's cubic hystart = 0"
        in " ".join(notes)
    ) == (kernel_hystart == "1")
    hystart_on = [
        {
            "pair": 0,
            "algorithm": "cubic",
            "params": {"hystart": True},
            "rto_estimator": "linux",
            "rtt_sampling": "linux",
            "quick_acks": 1000,
        }
    ]
    assert (
        builtin_differences(plan_for(scenario(flows=hystart_on), use_bpf=True)) == []
    )  # hscc_cubic runs the scenario's own
    assert (
        builtin_differences(
            plan_for(
                scenario(
                    flows=[
                        {
                            "pair": 0,
                            "algorithm": "reno",
                            "rto_estimator": "linux",
                            "rtt_sampling": "linux",
                            "quick_acks": 1,
                        }
                    ]
                )
            )
        )
        == []
    )


def test_the_kernels_rto_and_window_opening_are_linuxs_and_a_scenario_asking_another_is_told():
    from hscc.testbed.plan import builtin_differences

    flows = [
        {"pair": 0, "algorithm": "reno", "quick_acks": 1000, "rtt_sampling": "linux"},
        {"pair": 0, "algorithm": "reno", "rto_estimator": "linux"},
    ]
    assert builtin_differences(plan_for(scenario(flows=flows))) == [
        "flows[0].rto_estimator = 'rfc6298': the kernel's RTO is Linux's (\"linux\": never below SRTT + 200 ms)",
        "flows[1].rtt_sampling = 'ack': the kernel's estimator takes Linux's samples "
        '("linux": the oldest segment an ACK newly acknowledges)',
        "flows[1].quick_acks = 0: the kernel's receiver ACKs its first segments one by one while it opens its window "
        "(how many: kernel_run.receivers.window_opening)",
    ]


def test_a_linux_stack_runs_on_the_testbed_and_an_ns3_one_is_refused_by_its_first_knob():
    from hscc.testbed.plan import builtin_differences

    flows = [
        {"pair": 0, "algorithm": "reno", "quick_acks": 1},
        {"pair": 0, "algorithm": "cubic", "stack": "linux", "quick_acks": 1},
    ]
    notes = builtin_differences(plan_for(scenario(flows=flows, stack="linux")))
    assert not [
        n for n in notes if "rto_estimator" in n or "rtt_sampling" in n or "quick_acks" in n
    ]
    with pytest.raises(tb.TestbedError) as e:
        plan_for(scenario(stack="ns3"))
    assert "flows[0].loss_detection = 'dupack'" in str(e.value)


def test_timestamp_offsets_are_the_hosts_sysctl_and_one_value_per_run():
    from hscc.testbed.network import host_sysctls

    plan = plan_for(scenario())
    assert plan.random_ts_offset and host_sysctls(plan)["net.ipv4.tcp_timestamps"] == "1"
    flows = [{"pair": 0, "algorithm": "reno", "random_ts_offset": False}]
    plan = plan_for(scenario(flows=flows))
    assert not plan.random_ts_offset and host_sysctls(plan)["net.ipv4.tcp_timestamps"] == "2"
    with pytest.raises(tb.TestbedError, match=r"flows\[\]\.random_ts_offset: .* the same value"):
        plan_for(scenario(flows=[*flows, {"pair": 0, "algorithm": "reno"}]))


def test_a_receivers_window_opening_is_counted_in_segments_acked_one_by_one():
    from hscc.testbed.run import window_opening

    # A 10 Mbit/s x 100 ms kernel run: rcv_ssthresh from 64 088 bytes at accept (no data segment yet) to the
    # 4 MB clamp, 2 x 1448 bytes per segment: ceil(4 130 215 / 2 896) = 1 427 quick ACKs.
    state = {
        "rcv_ssthresh": 4_194_303,
        "advmss": 1448,
        "data_segs_in": 30_000,
        "segs_out": 16_000,
        "window_clamp": 4_194_304,
    }
    opened = {"rcv_ssthresh": 64_088, "advmss": 1448, "data_segs_in": 0}
    assert window_opening({**state, "opened": opened}) == {
        "rcv_ssthresh": [64_088, 4_194_303],
        "window_clamp": 4_194_304,
        "quick_acks": 1427,
    }
    # Four segments had come by the accept (each had opened it by two): they count too.
    assert (
        window_opening({**state, "opened": {**opened, "rcv_ssthresh": 75_672, "data_segs_in": 4}})[
            "quick_acks"
        ]
        == 4 + 1423
    )
    assert (
        window_opening({**state, "opened": {}}) is None and window_opening({}) is None
    )  # a socket that never answered


def _fabricated(tmp: Path, name: str, goodputs, sent, retrans, queue_bytes, tx, drops) -> Path:
    """A two-flow run directory with the given numbers, everything else empty."""
    flows = pl.DataFrame(
        [
            {
                **{k: None for k in FLOWS},
                "flow": i,
                "spec": i,
                "label": f"f{i}",
                "algorithm": "reno",
                "goodput_bps": g,
                "segs_sent": s,
                "retrans": r,
                "signals_s": [],
            }
            for i, (g, s, r) in enumerate(zip(goodputs, sent, retrans, strict=True))
        ],
        schema=FLOWS,
    )
    links = pl.DataFrame(
        [
            {
                "link": 0,
                "name": "bottleneck:fwd",
                "from": "L",
                "to": "R",
                "rate_bps": 100_000_000,
                "monitored": True,
                "tx_packets": tx,
                "drops": drops,
                "mean_qdelay_s": 0.0,
            }
        ],
        schema_overrides={
            "link": pl.UInt32,
            "rate_bps": pl.UInt64,
            "tx_packets": pl.UInt64,
            "drops": pl.UInt64,
        },
    )
    queues = pl.DataFrame(
        [
            {
                "time_s": 0.1 * (k + 1),
                "link": 0,
                "name": "bottleneck:fwd",
                "queue_pkts": b // 1500,
                "queue_bytes": b,
                "qdelay_s": 0.0,
                "drops": 0,
                "marks": 0,
                "utilization": 1.0,
            }
            for k, b in enumerate(queue_bytes)
        ],
        schema=QUEUES,
    )
    ts = pl.DataFrame(
        [
            {"time_s": t, "flow": i, "throughput_bps": g, "cwnd": 10 + i, "srtt_s": 0.02}
            for i, g in enumerate(goodputs)
            for t in (0.1, 0.2)
        ],
        schema=TIMESERIES,
    )
    manifest = {"kind": "hscc.run", "format": 2, "scenario": scenario().to_dict()}
    summary = {"name": name, "duration_s": 0.2, "seed": 1, "jain_index": None}
    out = tmp / name
    Result(manifest, summary, flows, links, pl.DataFrame(), pl.DataFrame(), ts, queues).write(out)
    return out


def test_compare_puts_hand_checked_numbers_side_by_side(tmp_path):
    a = _fabricated(tmp_path, "a", [60e6, 20e6], [5000, 5000], [100, 0], [15000, 45000], 9900, 100)
    b = _fabricated(tmp_path, "b", [45e6, 35e6], [6000, 4000], [5, 5], [30000, 30000], 9990, 10)
    r = runner.invoke(app, ["compare", str(a), str(b), "--json"])
    assert r.exit_code == 0, r.output
    c = json.loads(r.output)
    flows = {f["flow"]: f for f in c["flows"]}
    assert flows["f0"]["ratio"] == pytest.approx(0.75) and flows["f1"]["ratio"] == pytest.approx(
        1.75
    )
    t = {x["what"].split(",")[0].split(" (")[0]: x for x in c["totals"]}
    # Jain: 80² / (2 · (60² + 20²)) = 0.8 and 80² / (2 · (45² + 35²)) = 6400 / 6500.
    assert t["Jain's index"]["a"] == pytest.approx(0.8) and t["Jain's index"]["b"] == pytest.approx(
        6400 / 6500
    )
    assert t["goodput"]["a"] == t["goodput"]["b"] == pytest.approx(80e6) and t["goodput"][
        "ratio"
    ] == pytest.approx(1.0)
    # Queuing delay: mean of 15000 and 45000 bytes at 100 Mbit/s = 2.4 ms; 30000 bytes = 2.4 ms.
    assert t["queuing delay"]["a"] == pytest.approx(0.0024) and t["queuing delay"][
        "ratio"
    ] == pytest.approx(1.0)
    # Loss: 100 / (9900 + 100) = 0.01 and 10 / 10000 = 0.001; retransmissions 100 / 10000 and 10 / 10000.
    assert t["loss at the bottleneck"]["a"] == pytest.approx(0.01) and t["loss at the bottleneck"][
        "ratio"
    ] == pytest.approx(0.1)
    assert t["retransmitted segments / sent"]["a"] == pytest.approx(0.01) and t[
        "retransmitted segments / sent"
    ]["b"] == pytest.approx(0.001)
    # Per flow: the counters side by side; a count a run does not have (null) has no ratio.
    counters = {x["what"]: x for x in c["counters"]}
    assert (
        counters["f0: retrans"]["a"] == 100
        and counters["f0: retrans"]["b"] == 5
        and counters["f0: retrans"]["ratio"] == pytest.approx(0.05)
    )
    assert counters["f1: recoveries"]["a"] is None and counters["f1: timeouts"]["ratio"] is None
    plot = tmp_path / "both.png"
    r = runner.invoke(app, ["compare", str(a), str(b), "--plot", str(plot)])
    assert r.exit_code == 0 and plot.stat().st_size > 10_000 and "0.75" in r.output, r.output
    # The table in `hscc run`'s units, each value with its own: 60 Mbit/s, 2.4 ms, 1% loss.
    text = " ".join(r.output.split())
    for shown in ("60 Mbit/s", "45 Mbit/s", "80 Mbit/s", "2.4 ms", "1% │ 0.1%", "0.8 │ 0.985"):
        assert shown in text, (shown, r.output)
    r = runner.invoke(app, ["compare", str(a), str(b), "--plot", str(plot)])
    assert r.exit_code == 2 and "exists; pass --overwrite" in r.output
    r = runner.invoke(app, ["compare", str(a), str(tmp_path)])
    assert r.exit_code == 2 and "not an hscc run directory" in r.output


# --- in the kernel ----------------------------------------------------------------

NO_TESTBED = missing()
needs_testbed = pytest.mark.skipif(
    NO_TESTBED is not None, reason=f"kernel testbed tests skipped: {NO_TESTBED}"
)


def namespaces(pid: int) -> list[str]:
    out = subprocess.run(
        ["ip", "netns", "list"], capture_output=True, text=True, check=False
    ).stdout
    return [line.split()[0] for line in out.splitlines() if line.startswith(f"hscc-tb-{pid}-")]


def children() -> list[int]:
    """Live child processes of this process."""
    out = []
    for d in Path("/proc").iterdir():
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if d.name.isdigit() and int(fields[1]) == os.getpid() and fields[0] != "Z":
            out.append(int(d.name))
    return out


_OLDER_CHILDREN: set[int] = set()


@pytest.fixture(autouse=True)
def _older_children():
    """Children this process had before the test (e.g. a sweep's fork server
    left by an earlier test) are not the testbed's."""
    _OLDER_CHILDREN.clear()
    _OLDER_CHILDREN.update(children())
    yield


def bpf_programs() -> set[int]:
    """Ids of the testbed's own BPF programs (the loss classifier, the recovery counter) in the kernel."""
    out = subprocess.run(
        ["bpftool", "-j", "prog", "show"], capture_output=True, text=True, check=False
    ).stdout
    return {
        p["id"] for p in json.loads(out or "[]") if p.get("name") in ("random_loss", "on_ca_state")
    }


def assert_no_bpf_left(before: set[int]) -> None:
    """No testbed program but those loaded before; the kernel frees one after its last holder
    (a descriptor, a filter of a namespace it tears down in the background) is gone."""
    deadline = time.monotonic() + 20
    while not bpf_programs() <= before and time.monotonic() < deadline:
        time.sleep(0.2)
    assert bpf_programs() <= before, "the loss classifier or the recovery counter is still loaded"


def assert_nothing_left(pid: int, pids: list[int] = ()) -> None:
    deadline = time.monotonic() + 10
    while (
        namespaces(pid) or any(Path(f"/proc/{p}").exists() for p in pids)
    ) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not namespaces(pid), namespaces(pid)
    assert not [p for p in pids if Path(f"/proc/{p}").exists()]
    if pid == os.getpid():
        assert not set(children()) - _OLDER_CHILDREN, children()


def pacing_gains(ts: pl.DataFrame) -> dict[float, float]:
    """The share of a flow's samples after 2 s (STARTUP and DRAIN over) whose pacing rate is
    0.75, 1 or 1.25 times the median of the second around it (within 4 %): the bandwidth
    estimate the gains multiply moves over a run, the kernel's by a tenth for seconds, so a
    median of the whole run would count those seconds' samples as no gain at all."""
    ts = ts.filter((pl.col("time_s") > 2) & (pl.col("pacing_rate_bps") > 0)).sort("time_s")
    per_second = round(1 / float(ts["time_s"].diff().median()))
    rate = ts["pacing_rate_bps"]
    local = rate.rolling_median(window_size=per_second | 1, center=True, min_samples=1)
    gain = rate / local
    return {g: float(((gain - g).abs() < 0.04 * g).mean()) for g in (0.75, 1.0, 1.25)}


def bbr_phases(ts: pl.DataFrame) -> tuple[float, list[float]]:
    """When a BBR flow left STARTUP (the first sample after 0.2 s whose pacing rate is under
    half the one before: DRAIN's gain 1/2.89 after STARTUP's 2.89) and when it entered
    PROBE_RTT (cwnd down to 4 segments after the first second), s."""
    ts = ts.filter(pl.col("cwnd") > 0).sort("time_s")
    t, rate, cwnd = ts["time_s"].to_list(), ts["pacing_rate_bps"].to_list(), ts["cwnd"].to_list()
    drain = next(t[i] for i in range(1, len(t)) if t[i] > 0.2 and rate[i] < 0.5 * rate[i - 1])
    probe_rtt = [t[i] for i in range(1, len(t)) if t[i] > 1 and cwnd[i] <= 4 < cwnd[i - 1]]
    return drain, probe_rtt


@needs_testbed
@pytest.mark.timeout(120)
def test_bbr_runs_its_phases_in_the_kernel_as_in_the_simulator(tmp_path):
    # One BBR flow, 40 ms, 25 s sampled every 10 ms, in the kernel and simulated. PROBE_BW's
    # eight phases of a round trip each pace at 1.25, 0.75 and six times 1 × the bandwidth
    # estimate (tcp_bbr.c): in both the three gains cover nearly every sample. STARTUP ends
    # within three round trips of each other.
    sc = scenario(
        rate="50Mbps",
        rtt="40ms",
        duration="25s",
        flows=[{"pair": 0, "algorithm": "bbr"}],
        output={"sample_interval": "10ms", "traces": ["flows"]},
    )
    tb.run(sc, tmp_path / "kernel")
    assert_nothing_left(os.getpid())
    kernel, sim = hscc.load(tmp_path / "kernel").timeseries, hscc.run(sc).timeseries
    for name, ts in (("kernel", kernel), ("simulator", sim)):
        shares = pacing_gains(ts)
        assert shares[1.25] > 0.05 and shares[0.75] > 0.05 and sum(shares.values()) > 0.85, (
            name,
            shares,
        )
    (k_drain, k_probe), (s_drain, s_probe) = bbr_phases(kernel), bbr_phases(sim)
    # Within three round trips, judged only when the delay line held its delays (flags: stalls).
    # The kernel's flow starts an RTT later (the handshake), and its STARTUP lasts either as long
    # as the simulator's or two round trips longer: of 8 runs in a row, 6 left it 0.03-0.04 s
    # after the simulator (0.59 s at every seed), 2 left it 0.11 s after, neither kind flagged;
    # the simulator never takes the longer one. Why the kernel sometimes counts two more round
    # trips before its bandwidth is full is not known (one it marks app-limited is not counted).
    flags = hscc.load(tmp_path / "kernel").manifest["kernel_run"]["flags"]
    assert flags or abs(k_drain - s_drain) <= 0.12, (k_drain, s_drain, flags)
    # PROBE_RTT when the min RTT is 10 s old. The simulator's RTTs repeat exactly: every
    # 10 s plus the last PROBE_RTT's 200 ms and a round. The kernel's samples can match the
    # min RTT later (timer noise), which puts the next PROBE_RTT off: never sooner than 10 s.
    # In a run the machine made late (flags) the stalled delay line's samples can keep renewing
    # the min RTT past the run's end (a CI run with 19-24 ms stalls had no PROBE_RTT by 25 s).
    assert len(s_probe) == 2 and 10 < s_probe[0] < 10.5 and 10.2 < s_probe[1] - s_probe[0] < 10.6
    assert flags or k_probe, (k_probe, flags)
    assert not k_probe or k_probe[0] > 10, k_probe
    assert all(b - a > 10 for a, b in pairwise(k_probe)), k_probe


@needs_testbed
@pytest.mark.timeout(90)
def test_a_short_kernel_run_end_to_end(tmp_path):
    out = tmp_path / "run"
    tb.run(
        scenario(
            rtt2="40ms", flows=[{"pair": 0, "algorithm": "reno"}, {"pair": 1, "algorithm": "cubic"}]
        ),
        out,
    )
    assert_nothing_left(os.getpid())
    r = hscc.load(out)
    k = r.manifest["kernel_run"]
    assert k["kernel"] == os.uname().release and k["namespaces"]["default_cc"] == "reno"
    assert k["congestion_controls"] == ["cubic", "reno"] and k["delay_line"]["realtime"]
    assert {q["kind"] for q in k["qdiscs"]} >= {"htb", "pfifo"}
    assert set(k["delay_line"]["fwd"]) >= {"max_late_s", "late_1ms", "packets"}
    # The delay line holds each pair's base RTT (20 and 40 ms) plus host latency and one packet's
    # serialization (0.6 ms). It is never early; when the machine made it late (timer noise on a
    # busy VM) the run carries flags saying so, and the upper bound is not judged.
    for row, rtt in zip(r.flows.iter_rows(named=True), (0.020, 0.040), strict=True):
        assert rtt <= row["min_rtt_s"] <= (1.0 if k["flags"] else rtt + 0.003), (row, k["flags"])
        assert row["goodput_bps"] > 1e6 and row["final_cwnd"] > 0 and row["segs_sent"] > 0
    # HTB holds the rate: 3 s at 20 Mbit/s, a slow start included.
    total = r.summary["total_goodput_bps"]
    assert 0.6 * 20e6 < total <= 1.01 * 20e6, total
    fwd = r.links.row(0, named=True)
    assert fwd["utilization"] <= 1.01 and fwd["tx_packets"] > 1000
    assert r.timeseries.filter(pl.col("cwnd") > 0).height >= 40 and r.queues.height == 2 * 30
    sampled = r.timeseries.filter(pl.col("cwnd") > 0)[
        "ca_state"
    ]  # TCP_INFO's state, named as the per-ACK log names it
    assert sampled.null_count() == 0 and "open" in set(sampled) <= {
        "open",
        "disorder",
        "cwr",
        "recovery",
        "loss",
    }
    # Reno and CUBIC leave pacing to the kernel (tcp_update_pacing_rate): 120 %, in slow start
    # 200 %, of max(cwnd, packets in flight) 1448-byte segments per sRTT.
    ratio = (
        r.timeseries.filter(pl.col("cwnd") > 0)
        .select(pl.col("pacing_rate_bps") / (pl.col("cwnd") * 1448 * 8 / pl.col("srtt_s")))
        .to_series()
    )
    assert ratio.null_count() == 0 and ratio.min() > 1.15 and ratio.median() < 2.05, (
        ratio.describe()
    )
    assert (
        r.queues.filter(pl.col("link") == 0)["queue_pkts"].max() <= 67
    )  # pfifo limit: 1 BDP of the longest RTT, 67 packets
    # Each receiver opened its window from about 64 kB toward its clamp (at least SO_RCVLOWAT's 4 MB), two
    # segments per segment it ACKed at once (tcp_grow_window): hundreds of quick ACKs in 3 s.
    for w in k["receivers"]["window_opening"].values():
        (start, end), clamp = w["rcv_ssthresh"], w["window_clamp"]
        assert 60_000 <= start <= 100_000 and clamp >= 4 << 20 and 1 << 20 < end <= clamp, w
        assert w["quick_acks"] >= (end - start) // 2896 >= 300, w
    assert runner.invoke(app, ["plot", str(out)]).exit_code == 0


# In a namespace of its own (lo at 1500 bytes, no segmentation offloads): a connection warmed up
# by 0.3 s of bulk transfer, then 1 MB (725 segments) sent while the receiving program reads nothing,
# into a fixed 8 MB buffer (an autotuned one might be too small for it, and then every segment is ACKed).
UNREAD_ACKS = """
import json, socket, sys, threading, time
from hscc.kernel.tcpinfo import tcp_info
from hscc.testbed import endpoint

srv = socket.socket(); srv.bind(("127.0.0.1", 5001)); srv.listen(1)
srv.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)  # 8 MB: room for the unread megabyte, however the warm-up went
snd = socket.create_connection(("127.0.0.1", 5001)); snd.settimeout(0.05)
rcv, _ = srv.accept(); rcv.settimeout(0.05)
def bulk(end, buf=b"x" * 65536):
    while time.monotonic() < end:
        try: snd.send(buf)
        except (socket.timeout, BlockingIOError): pass
t = threading.Thread(target=bulk, args=(time.monotonic() + 0.3,)); t.start()
while True:  # read until the sender has stopped and nothing is left (bounded by the sender's 0.3 s)
    try: rcv.recv(1 << 20)
    except socket.timeout:
        if not t.is_alive(): break
if sys.argv[1] == "testbed":
    endpoint.set_lowat(rcv, 4 << 20, None)
a = tcp_info(rcv)
snd.send(b"x" * (1 << 20))
time.sleep(0.15)
b = tcp_info(rcv)
print(json.dumps({"segments": b["data_segs_in"] - a["data_segs_in"], "acks": b["segs_out"] - a["segs_out"]}))
"""


def unread_acks(receiver: str) -> dict:
    ns = f"hscc-tb-{os.getpid()}-ack"
    try:
        subprocess.run(["ip", "netns", "add", ns], check=True)
        subprocess.run(
            ["ip", "-n", ns, "link", "set", "dev", "lo", "mtu", "1500", "up"], check=True
        )
        subprocess.run(
            [
                "ip",
                "netns",
                "exec",
                ns,
                "ethtool",
                "-K",
                "lo",
                "tso",
                "off",
                "gso",
                "off",
                "gro",
                "off",
            ],
            check=True,
            capture_output=True,
        )
        out = subprocess.run(
            ["ip", "netns", "exec", ns, sys.executable, "-c", UNREAD_ACKS, receiver],
            check=True,
            capture_output=True,
            text=True,
            timeout=20,
        ).stdout
        return json.loads(out)
    finally:
        subprocess.run(["ip", "netns", "del", ns], check=False)


@needs_testbed
@pytest.mark.timeout(60)
def test_a_testbed_receiver_acks_every_second_segment_it_has_not_read_yet():
    # Linux's own receiver withholds the ACK while data is unread (its window would not advance),
    # then covers everything in one: the stretch ACKs that made the testbed's senders burst.
    linux = unread_acks("default")
    assert linux["segments"] > 100 and linux["acks"] <= linux["segments"] / 20, linux
    # The testbed's receiver (SO_RCVLOWAT) ACKs on arrival, every second segment, as the simulator's does.
    testbed = unread_acks("testbed")
    assert (
        testbed["segments"] > 700
        and testbed["segments"] / 2.2 <= testbed["acks"] <= testbed["segments"]
    ), testbed
    assert_nothing_left(os.getpid())


@needs_testbed
@pytest.mark.timeout(60)
def test_sized_and_stopped_flows_end_as_in_a_simulation(tmp_path):
    out = tmp_path / "run"
    tb.run(
        scenario(
            duration="2.5s",
            flows=[
                {"pair": 0, "algorithm": "reno", "size": "500KB"},
                {"pair": 0, "algorithm": "cubic", "start": "0.5s", "stop": "1.5s"},
            ],
        ),
        out,
    )
    assert_nothing_left(os.getpid())
    r = hscc.load(out)
    sized, stopped = r.flows.row(0, named=True), r.flows.row(1, named=True)
    # 500 kB at 20 Mbit/s take 0.2 s at best; slow start from 10 segments over 20 ms adds a few RTTs.
    assert 0.2 < sized["completion_s"] < 1.0 and sized["goodput_bps"] == pytest.approx(
        4e6 / sized["completion_s"]
    )
    # Stopped at 1.5 s: it completes when what it had sent arrives (its unsent backlog is at most 256 kB, 0.1 s here).
    assert 1.5 <= stopped["end_s"] == stopped["completion_s"] < 1.8 and stopped["start_s"] == 0.5
    thr = r.timeseries.filter(pl.col("flow") == 1)
    assert thr.filter(pl.col("time_s") <= 0.5)["throughput_bps"].max() == 0
    assert thr.filter(pl.col("time_s") > 1.9)["throughput_bps"].max() == 0
    assert 0 < stopped["goodput_bps"] <= 20e6


@needs_testbed
@pytest.mark.timeout(60)
def test_random_loss_drops_the_share_asked_for(tmp_path):
    out = tmp_path / "run"
    tb.run(
        scenario(
            duration="2s", loss=0.02, buffer="1000pkts", flows=[{"pair": 0, "algorithm": "cubic"}]
        ),
        out,
    )
    assert_nothing_left(os.getpid())
    fwd = hscc.load(out).links.row(0, named=True)
    offered = fwd["tx_packets"] + fwd["drops_random"]
    # Binomial(offered, 0.02): within 5 standard deviations.
    mean, sd = 0.02 * offered, (0.02 * 0.98 * offered) ** 0.5
    assert abs(fwd["drops_random"] - mean) < 5 * sd, (fwd["drops_random"], offered)
    assert fwd["drops_queue"] == 0


@needs_testbed
@pytest.mark.timeout(60)
def test_an_error_midway_leaves_nothing(tmp_path, monkeypatch):
    def broken(*args, **kwargs):
        raise KernelError("injected failure while sampling")

    monkeypatch.setattr(record, "sample_queues", broken)
    out = tmp_path / "run"
    before = bpf_programs()
    with pytest.raises(KernelError, match="injected failure"):
        tb.run(
            scenario(loss=0.01), out
        )  # with loss: the classifier and the recovery counter are attached by then
    assert_nothing_left(os.getpid())
    assert not out.exists()
    assert_no_bpf_left(before)


@needs_testbed
@pytest.mark.timeout(90)
def test_ctrl_c_leaves_nothing(tmp_path):
    bpf = toolchain.missing_for_kernel() is None and "hscc_reno" not in registry.available_ccs()
    toml = tmp_path / "long.toml"
    toml.write_text(
        'duration = "30s"\n[topology]\nkind = "dumbbell"\n'
        'bottleneck = { rate = "20Mbps", delay = "2ms", buffer = "1bdp", loss = 0.001 }\npairs = [{ rate = "1Gbps", rtt = "20ms" }]\n'
        '[[flows]]\npair = 0\nalgorithm = "reno"\n'
    )
    out = tmp_path / "run"
    before = bpf_programs()
    p = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "hscc",
            "testbed",
            "run",
            str(toml),
            "--out",
            str(out),
            "-q",
            *(["--bpf"] if bpf else []),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    # Wait until the flow runs (the receivers' namespace holds a process), then interrupt.
    pids: list[int] = []
    while time.monotonic() < deadline and p.poll() is None and len(pids) < 3:
        pids = [
            int(x)
            for ns in namespaces(p.pid)
            for x in subprocess.run(
                ["ip", "netns", "pids", ns], capture_output=True, text=True, check=False
            ).stdout.split()
        ]
        time.sleep(0.2)
    assert len(pids) >= 3, "the run never started its processes"
    if bpf:
        assert "hscc_reno" in registry.available_ccs()
    time.sleep(1.5)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    assert "interrupted" in err
    assert_nothing_left(p.pid, pids)
    assert not out.exists()
    assert_no_bpf_left(before)
    if bpf:  # unregistered, and no socket holds the program (an orphan would, for minutes)
        assert (
            "hscc_reno" not in registry.available_ccs()
            and "hscc_reno" not in registry.struct_ops_maps()
        )


@needs_testbed
@pytest.mark.timeout(120)
def test_a_users_program_runs_in_the_kernel_as_in_the_simulator(tmp_path, monkeypatch):
    """The template `hscc new-algorithm` writes, one file: the testbed registers it for the
    flow that names it (and removes it after), and its goodput is the simulator's within 10 %
    (8 s beside a Reno flow: in 3 s the kernel's slow-start exit, which varies run to run, moves
    the total by up to 17 %)."""
    monkeypatch.setenv("HSCC_CACHE_DIR", str(tmp_path / "cache"))
    assert runner.invoke(app, ["new-algorithm", "tbtmpl", "--dir", str(tmp_path)]).exit_code == 0
    program = str(tmp_path / "tbtmpl.bpf.c")
    sc = scenario(
        duration="8s",
        rtt2="40ms",
        flows=[
            {"pair": 0, "algorithm": program, "params": {"increase": 2}},
            {"pair": 1, "algorithm": "reno"},
        ],
    )
    out = tmp_path / "kernel"
    tb.run(sc, out)
    assert_nothing_left(os.getpid())
    assert "tbtmpl" not in registry.available_ccs()
    kernel = hscc.load(out)
    sim = hscc.run(sc)
    assert kernel.flows["label"].to_list() == sim.flows["label"].to_list() == ["tbtmpl 0", "reno 1"]
    # Both record the digest of the code they ran: the same file, so the same digest.
    assert kernel.manifest["programs"] == sim.manifest["programs"]
    assert list(kernel.manifest["programs"]) == [program]
    k, s = kernel.summary["total_goodput_bps"], sim.summary["total_goodput_bps"]
    assert k == pytest.approx(s, rel=0.1), (k, s)
    assert kernel.flows["goodput_bps"][0] > 1e6
