"""validation/testbed/validate.py without a kernel: every configuration is one the
testbed accepts (inside its limits, nothing refused) and the simulator parses,
with the kernel running the congestion controls the configuration names; and
the spread table's numbers, checked by hand on fabricated runs."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from hscc.kernel import programs
from hscc.scenario import Scenario
from hscc.testbed.run import plan_for

TESTBED = Path(__file__).resolve().parents[2] / "validation" / "testbed"
sys.path.insert(0, str(TESTBED))
# validate.py by its path: validation/ns2 and validation/ns3 have a validate.py too.
_spec = importlib.util.spec_from_file_location("testbed_validate", TESTBED / "validate.py")
validate = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(validate)

import testbed_configs  # noqa: E402
import testbed_models  # noqa: E402
import testbed_summary  # noqa: E402
import testbed_tables  # noqa: E402


def _load(name: str, side: str, tmp_path: Path, **kw) -> Scenario:
    path = tmp_path / f"{name}.{side}.toml"
    path.write_text(testbed_configs._toml(testbed_configs.scenario(name, 30.0, side, **kw)))
    return Scenario.from_toml(path)


@pytest.mark.parametrize("name", list(testbed_configs.CONFIGS))
def test_every_configuration_is_one_the_testbed_runs(name, tmp_path, monkeypatch):
    c = testbed_configs.CONFIGS[name]
    for key, value in testbed_configs.lifted_limits(
        name
    ).items():  # 500 Mbit/s x 100 ms: beyond the defaults, lifted
        monkeypatch.setenv(key, value)
    plan = plan_for(_load(name, "kernel", tmp_path), use_bpf=c.variant == "bpf")
    expected = [
        a if a in ("reno", "cubic") and c.variant != "bpf" else programs.kernel_name(a)
        for a, n in c.flows
        for _ in range(n)
    ]
    assert [f.cc for f in plan.flows] == expected
    assert plan.duration == (c.seconds or 30.0)
    sim = _load(name, "sim", tmp_path).to_dict()
    assert sum(f["count"] for f in sim["flows"]) == len(expected)


def test_only_the_configurations_beyond_the_default_limits_lift_them():
    lifted = {
        n: testbed_configs.lifted_limits(n)
        for n in testbed_configs.CONFIGS
        if testbed_configs.lifted_limits(n)
    }
    assert lifted["reno-1-500M-100ms"] == {
        "HSCC_TESTBED_MAX_RATE": "5e+08",
        "HSCC_TESTBED_MAX_BDP": "5e+07",
    }
    assert all(
        testbed_configs.CONFIGS[n].rate
        * max(testbed_configs.CONFIGS[n].rtts or (testbed_configs.CONFIGS[n].rtt,))
        > 300 * 100
        or testbed_configs.CONFIGS[n].rate > 300
        for n in lifted
    )
    assert len(lifted) == 6


def test_the_host_jitter_sensitivity_changes_the_simulator_only(tmp_path):
    sim = _load("reno-4-100M-40ms", "sim", tmp_path, host_jitter="50us").to_dict()
    kernel = _load("reno-4-100M-40ms", "kernel", tmp_path, host_jitter="50us").to_dict()
    assert sim["flows"][0]["host_jitter"] == pytest.approx(50e-6)
    assert kernel["flows"][0]["host_jitter"] == pytest.approx(
        8e-6
    )  # the default: the testbed ignores it


def _run(flows: list[float], algorithms: dict[str, float] | None = None, jain: float = 1.0) -> dict:
    return {
        "goodput": sum(flows),
        "flows": flows,
        "algorithms": algorithms or {"reno": sum(flows)},
        "jain": jain,
        "loss": 1e-3,
        "retrans": 2e-3,
    }


def test_shares_are_over_the_fair_share_or_per_algorithm():
    # Four flows of 10, 20, 30, 40: fair share 25, so 0.40 and 1.60; 20, 20, 30, 30: 0.80 and 1.20.
    runs = [_run([10, 20, 30, 40]), _run([20, 20, 30, 30])]
    assert testbed_tables.shares(runs) == "min 0.40–0.80 (0.60), max 1.20–1.60 (1.40)"
    mixed = [_run([30, 10], {"ctcp": 30, "reno": 10}), _run([20, 20], {"ctcp": 20, "reno": 20})]
    assert testbed_tables.shares(mixed) == "ctcp 0.50–0.75 (0.62), reno 0.25–0.50 (0.38)"
    assert testbed_tables.shares([_run([5])]) == "–"


def test_the_spread_table_puts_seeds_next_to_repetitions():
    spread = [
        {
            "config": "x",
            "seconds": 120,
            "sim": [_run([50e6, 50e6]), _run([40e6, 60e6], jain=0.96)],
            "kernel": [_run([45e6, 50e6], jain=0.997)],
        }
    ]
    row = testbed_tables.spread_table(spread).splitlines()[2]
    assert row.startswith(
        "| x (120) | 2 / 1 | 100.0–100.0 (100.0) | 95.0 | 0.960–1.000 (0.980) | 0.997 | "
    )
    assert "min 0.80–1.00 (0.90), max 1.00–1.20 (1.10) | min 0.95, max 1.05 |" in row


def test_the_trajectory_finds_the_slow_start_exit_and_each_reduction_once():
    # As `hscc compare` reads it: slow start to 80 at t = 3, a recovery that falls over two samples (60, 40:
    # one cut, timed at its peak, t = 3), growth to 43, a second cut from 43 at t = 8 (30 loses 30 %);
    # 31 is growth again, not a cut.
    cwnd = [10, 20, 40, 80, 60, 40, 41, 42, 43, 30, 31]
    t = testbed_summary.trajectory([float(i) for i in range(len(cwnd))], cwnd)
    assert t == {"exit_s": 3.0, "exit_cwnd": 80, "reductions": 2, "period_s": 5.0}
    assert testbed_summary.trajectory([0.0, 1.0, 2.0], [10, 20, 30]) == {
        "exit_s": None,
        "exit_cwnd": None,
        "reductions": 0,
        "period_s": None,
    }


def test_the_steady_part_starts_after_five_seconds():
    import polars as pl

    # 0.1-s samples to 10 s: 8 Mbit/s (691 segments of 1448 bytes per second) until 5 s, 16 after.
    times = [round(0.1 * i, 1) for i in range(1, 101)]
    first = pl.DataFrame(
        {
            "time_s": times,
            "throughput_bps": [8e6 if t <= 5.0 else 16e6 for t in times],
            "srtt_s": [0.03 if t <= 5.0 else 0.02 for t in times],
        }
    )
    flow = {"delivered_segs": 1000, "delivered_bytes": 1_448_000}
    st = testbed_summary.steady(flow, first)
    assert st == {
        "from_s": 5.0,
        "delivered_rate": pytest.approx(16e6 / 8 / 1448),
        "mean_srtt_s": pytest.approx(0.02),
    }
    assert testbed_summary.steady(flow, first.filter(pl.col("time_s") <= 5.5)) is None  # 5 samples


def test_the_models_are_padhye_and_mathis_by_hand():
    # p = 0.01, RTT 100 ms, RTO 300 ms: TD = 0.1·√(0.02/3) = 8.16497 ms; TO = 0.3·3·√(0.00375)·0.01·1.0032 = 0.552899 ms.
    assert testbed_models.padhye(0.01, 0.1, 0.3) == pytest.approx(
        1 / (0.00816497 + 0.000552899), rel=1e-6
    )
    assert testbed_models.mathis(0.01, 0.1) == pytest.approx(122.474487, rel=1e-6)
    # The models take the random drops' rate (not a slow start's burst of queue drops: "loss" 0.03 here).
    run = {
        **_run([20e6]),
        "loss": 0.03,
        "random_loss": 0.01,
        "mean_srtt_s": 0.1,
        "send_rate": 120.0,
    }
    fast = {**run, "random_loss": 1e-4}  # Mathis: 1225 seg/s, under the 50 Mbit/s link's 4167
    rows = testbed_models.model_table(
        [{"config": "reno-1-50M-20ms-loss1e-2", "sim": [run, fast], "kernel": [run]}]
    ).splitlines()
    assert (
        rows[2]
        == "| reno-1-50M-20ms-loss1e-2 | sim seed 1 | 1.00e-02 | 100.0 | 120 | 122 | 115 | 1.05 | — | — |"
    )
    assert rows[3].endswith("| 1225 | 1224 | 0.10 | — | — |")
    assert rows[4].startswith("| reno-1-50M-20ms-loss1e-2 | kernel #1 |") and len(rows) == 5
    at_link = {
        **run,
        "random_loss": 1e-6,
        "mean_srtt_s": 0.02,
    }  # Mathis: 61 237 seg/s, beyond the link's 4167
    assert (
        testbed_models.model_table(
            [{"config": "reno-1-50M-20ms-loss1e-2", "sim": [at_link], "kernel": []}]
        )
        .splitlines()[2]
        .endswith("| link-limited | — | — |")
    )
    # After the start-up: delivered 110 seg/s at sRTT 90 ms against Padhye's rate there, less the
    # lost share: 1/(0.09·√(0.02/3) + 0.29·3·√0.00375·0.01·1.0032) · 0.99 = 126.86 · 0.99 = 125.59.
    steady = {**run, "steady": {"from_s": 5.0, "delivered_rate": 110.0, "mean_srtt_s": 0.09}}
    row = testbed_models.model_table(
        [{"config": "reno-1-50M-20ms-loss1e-2", "sim": [steady], "kernel": []}]
    ).splitlines()[2]
    assert row.endswith("| 1.05 | 90.0 | 0.88 |"), row
    assert (
        testbed_models.model_table(
            [{"config": "cubic-1-50M-20ms-loss1e-2", "sim": [run], "kernel": []}]
        ).count("\n")
        == 2
    )


def test_retable_reads_the_runs_again(tmp_path):
    # The tables of an earlier validation from its run directories (here one simulator run, no kernel runs).
    import json

    import hscc

    name = "reno-1-50M-20ms-loss1e-2"
    hscc.run(testbed_configs.scenario(name, 3.0, "sim")).write(tmp_path / "sim" / name)
    (tmp_path / "results.json").write_text(
        json.dumps(
            {"rows": [], "spread": [{"config": name, "seconds": 3.0, "sim": [{}], "kernel": []}]}
        )
    )
    assert validate.retable(tmp_path) == 0
    saved = json.loads((tmp_path / "results.json").read_text())["spread"][0]["sim"][0]
    assert 0.005 < saved["random_loss"] < 0.02 and saved["send_rate"] > 0
    assert (
        f"| {name} | sim seed 1 | {saved['random_loss']:.2e} |"
        in (tmp_path / "table.md").read_text()
    )


def test_the_simulator_side_is_stack_linux_where_its_knobs_are_that_profiles():
    """Linux's RTO estimator and RTT sampling with HyStart for every cubic flow is `stack = "linux"`:
    those configurations say so, and read as the knobs set by hand; "-bpf" ones (hscc_cubic without
    HyStart) keep their knobs."""
    stacked = []
    for name in testbed_configs.CONFIGS:
        d = testbed_configs.scenario(name, 30.0, "sim")
        if "stack" not in d:
            continue
        stacked.append(name)
        assert d["stack"] == "linux"
        assert not [f for f in d["flows"] if "rto_estimator" in f or "params" in f]
        by_hand = {k: v for k, v in d.items() if k != "stack"}
        by_hand["flows"] = [
            {
                **f,
                "rto_estimator": "linux",
                "rtt_sampling": "linux",
                **({"params": {"hystart": True}} if f["algorithm"] == "cubic" else {}),
            }
            for f in d["flows"]
        ]
        profiled = Scenario.parse(d).to_dict()
        assert profiled.pop("stack") == "linux"
        assert profiled == Scenario.parse(by_hand).to_dict(), name
        assert "stack" not in testbed_configs.scenario(name, 30.0, "kernel")
    assert "cubic-1-100M-40ms-sim-hystart-quick-acks" in stacked
    assert "reno-1-10M-100ms-linux-rto" in stacked
    assert "cubic-1-10M-100ms-bpf-linux-rto" not in stacked


def _stack_linux():
    spec = importlib.util.spec_from_file_location("stack_linux", TESTBED / "stack_linux.py")
    assert spec is not None and spec.loader is not None
    stack_linux = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(stack_linux)
    return stack_linux


def test_the_linux_profile_table_s_shares_are_the_kernel_entries():
    """stack_linux's shares are those testbed_entries stores for the kernel: per algorithm
    with several, else the smallest and largest flow over the fair share; the mean over runs."""
    stack_linux = _stack_linux()

    def shares(goodputs):
        algorithms: dict[str, float] = {}
        for a, g in goodputs:
            algorithms[a] = algorithms.get(a, 0.0) + g
        run = {"goodput": sum(algorithms.values()), "flows": [g for _, g in goodputs]}
        return stack_linux.mean_shares(
            stack_linux.testbed_entries.shares_data([run | {"algorithms": algorithms}])
        )

    assert shares([("reno", 30.0), ("cubic", 60.0), ("reno", 10.0)]) == pytest.approx(
        {"cubic": 0.6, "reno": 0.4}
    )
    assert shares([("cubic", 30.0), ("cubic", 10.0)]) == pytest.approx({"min": 0.5, "max": 1.5})
    assert shares([("reno", 30.0)]) == {}


@pytest.mark.timeout(600)
def test_the_linux_profile_table_is_what_its_simulations_give():
    """docs/validation/kernel.md's table of the `linux` profile: the stored kernel runs and
    the simulator's deterministic runs, printed by validation/testbed/stack_linux.py."""
    stack_linux = _stack_linux()
    page = stack_linux.PAGE.read_text(encoding="utf-8")
    assert stack_linux.printed(page) == stack_linux.table(), (
        "docs/validation/kernel.md's linux-profile table is stale: run "
        "`.venv/bin/python validation/testbed/stack_linux.py --write`"
    )
