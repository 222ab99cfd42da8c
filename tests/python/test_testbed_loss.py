"""The testbed's random loss follows the scenario's seed, and its per-flow
loss-recovery counters count what Linux counts.

Without a kernel: the Python draw is SplitMix64 (a published test vector and
an independent iterative form) and drops the share asked for; the flows
table takes recoveries and timeouts as the simulator counts them, and null
without a counter. With root,
clang and libbpf: the classifier, run on packets by BPF_PROG_TEST_RUN, drops
exactly the indices the Python draw says. With the testbed: two runs with one
seed drop the same packet indices, another seed other ones; and the recovery
counter's per-flow counts agree with TCP_INFO and the namespace's MIB
counters through a run with loss and a forced blackout (timeouts).
"""

from __future__ import annotations

import shutil
import threading
import time

import pytest

import hscc
from hscc import compare as cmp
from hscc import testbed as tb
from hscc.kernel import toolchain
from hscc.testbed import build, libbpf, loss
from hscc.testbed.run import START_MARGIN_S
from test_testbed import (
    assert_no_bpf_left,
    assert_nothing_left,
    bpf_programs,
    needs_testbed,
    scenario,
)

# Real kernel measurements: scripts/test.sh runs these alone, after the rest.
pytestmark = pytest.mark.real_kernel

GOLDEN = 0x9E3779B97F4A7C15
MASK = (1 << 64) - 1


def splitmix64(state: int, count: int) -> list[int]:
    """Vigna's splitmix64.c, iterated: `count` outputs from `state`."""
    out = []
    for _ in range(count):
        state = (state + GOLDEN) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        out.append(z ^ (z >> 31))
    return out


def test_the_draw_is_splitmix64_keyed_by_the_seed():
    # The reference implementation's first outputs for state 1234567 (prng.di.unimi.it/splitmix64.c).
    assert splitmix64(1234567, 3) == [6457827717110365317, 3203168211198807973, 9817491932198370423]
    for seed in (0, 1, 1234567, 2**64 - 1):
        key = splitmix64(seed, 1)[0]
        assert [loss.draw(seed, n) for n in range(5)] == splitmix64(key, 5)


def test_one_seed_drops_the_same_indices_and_the_share_asked_for():
    a, again, b = (
        loss.dropped(1, 0.01, 100_000),
        loss.dropped(1, 0.01, 100_000),
        loss.dropped(2, 0.01, 100_000),
    )
    assert a == again and a != b and len(set(a) & set(b)) < 50  # independent: about 10 in common
    for got in (a, b):  # Binomial(100 000, 0.01): within 5 standard deviations of 1000
        assert abs(len(got) - 1000) < 5 * (100_000 * 0.01 * 0.99) ** 0.5
    assert loss.threshold(0.0) == 0 and loss.threshold(1.0) == 2**32 and loss.threshold(2**-32) == 1
    assert loss.dropped(5, 1.0, 10) == list(range(10)) and loss.dropped(5, 0.0, 10) == []


def _no_bpf() -> str | None:
    import os

    if os.geteuid() != 0:
        return "loading a BPF program needs root"
    if shutil.which("clang") is None:
        return "clang is missing (apt-get install clang)"
    return libbpf.missing()


NO_BPF = _no_bpf()


def _packet(syn: bool = False) -> bytes:
    """Ethernet + IPv4 (20 bytes, TCP) + TCP header with ACK (or SYN) set."""
    ip = bytes([0x45, 0, 0, 40, 0, 0, 0, 0, 64, 6]) + bytes(10)
    tcp = bytes(13) + bytes([0x02 if syn else 0x10]) + bytes(6)
    return bytes(12) + b"\x08\x00" + ip + tcp


@pytest.mark.skipif(
    NO_BPF is not None, reason=f"BPF_PROG_TEST_RUN of the classifier skipped: {NO_BPF}"
)
@pytest.mark.timeout(60)
def test_the_classifier_drops_the_indices_the_python_draw_says():
    seed, p, n = 20251125, 0.05, 400
    with libbpf.Object(build.loss_program()).load() as obj:
        prog = obj.program_fd("random_loss")
        maps = loss.Maps(
            {name: obj.map_fd(name) for name in ("loss_config", "loss_state", "drop_log")}
        )
        assert (
            libbpf.test_run(prog, _packet(), repeat=10) == 0
        )  # TC_ACT_OK: not armed, nothing counted
        assert maps.report(seed, p)["packets"] == 0
        maps.configure(seed, p)
        expected = set(loss.dropped(seed, p, n))
        verdicts = [libbpf.test_run(prog, _packet()) for _ in range(n)]
        assert [k for k, v in enumerate(verdicts) if v == 2] == sorted(
            expected
        )  # TC_ACT_SHOT exactly there
        assert (
            libbpf.test_run(prog, _packet(syn=True), repeat=50) == 0
        )  # SYNs pass and take no index
        r = maps.report(seed, p)
        assert (
            r["packets"] == n
            and r["drops"] == len(expected)
            and r["first_drops"] == sorted(expected)
        )
        assert r["realised"] == pytest.approx(len(expected) / n) and 5 < len(expected) < 40
        maps.configure(seed, 1.0)  # 2^32: every packet
        assert (
            libbpf.test_run(prog, _packet(), repeat=20) == 2
            and maps.report(seed, 1.0)["drops"] == len(expected) + 20
        )


def _loss_run(tmp_path, name: str, seed: int, **kw) -> dict:
    out = tmp_path / name
    tb.run(
        scenario(
            duration="2s",
            loss=0.03,
            buffer="1000pkts",
            flows=[{"pair": 0, "algorithm": "cubic", "count": 3}],
            seed=seed,
            **kw,
        ),
        out,
    )
    return hscc.load(out)


@needs_testbed
@pytest.mark.skipif(shutil.which("clang") is None, reason="no clang for the loss classifier")
@pytest.mark.timeout(120)
def test_one_seed_drops_the_same_packet_indices_in_the_kernel(tmp_path, monkeypatch):
    import os

    from hscc.testbed.plan import TestbedError

    before = bpf_programs()
    runs = [_loss_run(tmp_path, f"run{i}", seed) for i, seed in enumerate((7, 7))]

    def cannot() -> None:
        raise TestbedError("the per-flow recovery counter needs bpftool and the kernel's BTF")

    monkeypatch.setattr(
        build, "recovery_program", cannot
    )  # the third run goes on without the counter, and says so
    runs.append(_loss_run(tmp_path, "run2", 8))
    assert (
        runs[2].manifest["kernel_run"]["recovery_counter"]["unavailable"].endswith("kernel's BTF")
    )
    assert (
        runs[2].flows["recoveries"].null_count() == 3
        and runs[0].flows["recoveries"].null_count() == 0
    )
    assert_nothing_left(os.getpid())
    assert_no_bpf_left(before)
    reports = [r.manifest["kernel_run"]["random_loss"] for r in runs]
    for r, rep in zip(runs, reports, strict=True):
        assert (
            rep["seed"] == r.manifest["seed"]
            and rep["probability"] == 0.03
            and rep["packets"] > 1000
        ), rep
        # The kernel dropped exactly what the Python draw says for its seed, and says so in three places.
        assert (
            rep["first_drops"]
            == loss.dropped(rep["seed"], 0.03, rep["packets"])[: loss.REPORTED_DROPS]
        )
        assert (
            rep["drops"]
            == r.links.row(0, named=True)["drops_random"]
            == len(loss.dropped(rep["seed"], 0.03, rep["packets"]))
        )
        clsact = [q for q in r.manifest["kernel_run"]["qdiscs"] if q["kind"] == "clsact"]
        assert clsact[0]["drops"] == rep["drops"] and rep["realised"] == pytest.approx(
            rep["drops"] / rep["packets"]
        )
    # Over the packets both runs drew for, seed 7 dropped the same indices twice; seed 8 others.
    common = min(rep["packets"] for rep in reports)
    first = [[n for n in rep["first_drops"] if n < common] for rep in reports]
    assert first[0] == first[1] and len(first[0]) > 20, (common, first)
    assert len(set(first[0]) & set(first[2])) < len(first[0]) / 3


@needs_testbed
@pytest.mark.skipif(
    toolchain.missing_for_build() is not None,
    reason=f"no recovery counter: {toolchain.missing_for_build()}",
)
@pytest.mark.timeout(120)
def test_recoveries_and_timeouts_per_flow_agree_with_the_kernels_own_counts(tmp_path, monkeypatch):
    import os

    before = bpf_programs()
    # A blackout: from 1.5 s to 2.3 s the classifier drops every packet, so both flows time out (RTO ≥ 200 ms).
    attached: list[loss.Maps] = []
    real_attach = loss.attach

    def attach(*args):
        attached.append(real_attach(*args))
        return attached[-1]

    monkeypatch.setattr(loss, "attach", attach)

    def blackout() -> None:
        deadline = time.monotonic() + 30
        while not attached and time.monotonic() < deadline:
            time.sleep(0.05)
        if attached:
            time.sleep(START_MARGIN_S + 1.5)
            attached[0].configure(3, 1.0)
            time.sleep(0.8)
            attached[0].configure(3, 0.02)

    thread = threading.Thread(target=blackout, daemon=True)
    thread.start()
    out = tmp_path / "run"
    tb.run(
        scenario(
            duration="4s",
            loss=0.02,
            buffer="1000pkts",
            seed=3,
            flows=[{"pair": 0, "algorithm": "reno"}, {"pair": 0, "algorithm": "cubic"}],
        ),
        out,
    )
    thread.join(timeout=10)
    assert_nothing_left(os.getpid())
    assert_no_bpf_left(before)  # detached and freed with the run
    r = hscc.load(out)
    k = r.manifest["kernel_run"]
    assert k["recovery_counter"]["unavailable"] is None
    senders = {s["flow"]: s for s in k["senders"]}
    # The kernel skips the counter where it fires on a CPU that is already running it (a timer's
    # softirq interrupting it) and says how often: those state changes are the only ones it may miss.
    missed = k["recovery_counter"]["recursion_misses"]
    assert missed is not None  # Linux 5.12 on
    for row in r.flows.iter_rows(named=True):
        s = senders[row["flow"]]
        states, info = s["ca_states"], s["tcp_info"]
        # Two sources: the tracepoint's count of TCP_CA_Loss settings and TCP_INFO's timeouts (tcp_update_rto_stats).
        assert row["timeouts"] == info["total_rto"] >= 1, s
        # One Loss setting more than the recursion misses has gone uncounted in some full-suite
        # runs, cause not found (docs/testbed.md): a shortfall of two fails.
        assert 0 <= info["total_rto"] - states["losses"] <= missed + 1, (s, missed)
        assert 0 <= info["total_rto_recoveries"] - states["loss_episodes"] <= missed, (s, missed)
        assert states["loss_episodes"] >= 1, s
        assert (
            row["recoveries"] == states["recoveries"] + states["cwr"] and states["recoveries"] > 0
        ), s
        assert row["retrans"] == info["total_retrans"] > 0
    # The namespace's MIB counters, summed over the flows: every entry into recovery, every loss-probe recovery.
    net = k["netstat"]
    ca = [senders[f]["ca_states"] for f in senders]
    entered = net.get("TcpExt.TCPSackRecovery", 0) + net.get("TcpExt.TCPRenoRecovery", 0)
    # One entry more than the counter's and its recursion misses has been counted by the MIB in
    # some full-suite runs, cause not found (docs/testbed.md): a shortfall of two fails.
    assert 0 <= entered - sum(c["recoveries"] for c in ca) <= missed + 1, (ca, net, missed)
    assert 0 <= net.get("TcpExt.TCPLossProbeRecovery", 0) - sum(c["cwr"] for c in ca) <= missed
    assert r.flows["retrans"].sum() == net["Tcp.RetransSegs"]
    compared = cmp.compare(r, r)
    assert {c.what.split(": ")[1] for c in compared.counters} == {
        "retrans",
        "recoveries",
        "timeouts",
    }


def test_the_flows_table_takes_recoveries_and_timeouts_as_the_simulator_counts_them():
    import polars as pl

    from hscc.results import TIMESERIES
    from hscc.testbed import record
    from hscc.testbed.run import plan_for

    plan = plan_for(scenario(flows=[{"pair": 0, "algorithm": "reno"}]))
    received = {"at_end": {"0": 1448}, "completed": {}, "last_byte": {}, "samples": {"0": [1448]}}
    ts = pl.DataFrame(schema=TIMESERIES)

    def row(total_rto, ca_states):
        final = {"snd_cwnd": 10, "total_retrans": 9, "total_rto": total_rto}
        sent = {
            "sampled": ["snd_cwnd"],
            "flows": [{"flow": 0, "cc": "reno", "cookie": 42, "samples": [], "final": final}],
        }
        return record._flows(plan, sent, received, ts, ca_states).row(0, named=True)

    counts = {42: {"recoveries": 5, "cwr": 1, "losses": 3, "loss_episodes": 2}}
    r = row(4, counts)  # fast recoveries + loss-probe recoveries; every RTO, from TCP_INFO
    assert (r["recoveries"], r["timeouts"], r["retrans"], r["tlps"]) == (6, 4, 9, None)
    assert (
        row(None, counts)["timeouts"] == 3
    )  # a kernel before 6.7: the counter's TCP_CA_Loss settings
    assert (
        row(0, {7: counts[42]})["recoveries"] == 0
    )  # a socket the counter never saw leave Open: none
    r = row(None, None)  # no counter: unknown, not 0
    assert r["recoveries"] is None and r["timeouts"] is None
