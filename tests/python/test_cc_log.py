"""The per-ACK congestion-control log from Python: Result.cc_log, cc_log.parquet, the plot."""

from __future__ import annotations

import tomllib

import polars as pl
import pytest
from typer.testing import CliRunner

import hscc
from hscc import ScenarioError
from hscc.cclog import recoveries
from hscc.cli import app

# Two flows through a 10 Mbit/s bottleneck with a small buffer: losses and recoveries.
LOGGED = """
name = "logged"
duration = "8s"
seed = 2

[output]
sample_interval = "100ms"
cc_log = { flows = ["cubic 1"] }

[topology]
kind = "dumbbell"
bottleneck = { rate = "10Mbps", delay = "5ms", buffer = "20pkts" }
pairs = [{ rate = "1Gbps", rtt = "20ms" }, { rate = "1Gbps", rtt = "40ms" }]

[[flows]]
pair = 0
algorithm = "reno"

[[flows]]
pair = 1
algorithm = "cubic"
"""


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    path = tmp_path_factory.mktemp("scenario") / "logged.toml"
    path.write_text(LOGGED)
    return hscc.run(path)


def test_the_log_is_a_table_of_every_call_of_the_chosen_flow(result):
    log = result.cc_log
    assert log.height > 4_000
    assert log["label"].unique().to_list() == ["cubic 1"] and log["flow"].unique().to_list() == [1]
    assert log.columns[:4] == ["flow", "label", "time_s", "hook"]
    hooks = set(log["hook"].cast(pl.String).unique())
    assert {
        "init",
        "pkts_acked",
        "cong_avoid",
        "ssthresh",
        "set_state",
        "in_ack_event",
        "sender",
    } <= hooks
    assert log["time_s"].is_sorted() and log["time_s"].max() <= 8.0
    # Inputs belong to their hooks: null elsewhere.
    acked = log.filter(pl.col("hook") == "pkts_acked")
    assert acked["rtt_us"].null_count() == 0 and acked["ack"].null_count() == acked.height
    assert log.filter(pl.col("hook") == "set_state")["new_state"].null_count() == 0
    assert (
        log.filter(pl.col("hook") != "set_state")["new_state"].null_count()
        == log.height - log.filter(pl.col("hook") == "set_state").height
    )
    # ssthresh returns the threshold CUBIC sets: 0.7 of cwnd, at least 2.
    ss = log.filter(pl.col("hook") == "ssthresh")
    assert ((ss["ret"] - (ss["snd_cwnd"] * 717 // 1024).clip(lower_bound=2)).abs() <= 1).all()


def test_the_last_call_before_each_sample_has_the_sampled_window(result):
    log = result.cc_log.select("time_s", "cwnd_after").with_columns(pl.col("time_s").round(6))
    ts = result.timeseries.filter(pl.col("flow") == 1).select("time_s", "cwnd").sort("time_s")
    joined = ts.join_asof(log, on="time_s", strategy="backward")
    matched = (joined["cwnd"] == joined["cwnd_after"]).sum()
    assert matched >= ts.height - 3, joined.filter(pl.col("cwnd") != pl.col("cwnd_after"))


def test_recovery_periods_come_from_the_state_changes(result):
    periods = recoveries(result.cc_log)
    assert periods.height >= 2 and (periods["end_s"] >= periods["start_s"]).all()
    assert set(periods["state"]) <= {"recovery", "loss", "cwr"}
    assert (
        periods.height
        == result.cc_log.filter(pl.col("new_state").is_in(["recovery", "loss", "cwr"])).height
    )


def test_the_run_directory_keeps_the_log_and_plots_it(result, tmp_path):
    run_dir = result.write(tmp_path / "run")
    assert (run_dir / "cc_log.parquet").is_file()
    back = hscc.load(run_dir)
    assert back.cc_log.equals(result.cc_log)
    r = CliRunner().invoke(app, ["plot", str(run_dir)])
    assert r.exit_code == 0, r.output
    png = run_dir / "plot_cc_log.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and (run_dir / "plot.png").is_file()
    # Plotting again replaces the run directory's own plots; the directory stays an hscc run.
    assert CliRunner().invoke(app, ["plot", str(run_dir)]).exit_code == 0
    assert result.write(tmp_path / "run", overwrite=True) == run_dir


def test_without_a_log_the_run_is_the_same_and_has_no_log_file(result, tmp_path):
    plain = hscc.run(
        hscc.Scenario.parse(tomllib.loads(LOGGED.replace('cc_log = { flows = ["cubic 1"] }', "")))
    )
    assert plain.cc_log.is_empty()
    assert plain.flows.equals(result.flows) and plain.timeseries.equals(result.timeseries)
    assert not (plain.write(tmp_path / "plain") / "cc_log.parquet").exists()


def test_a_flow_that_does_not_exist_is_named_with_the_labels_there_are():
    with pytest.raises(ScenarioError) as e:
        hscc.run(hscc.Scenario.parse(tomllib.loads(LOGGED.replace('"cubic 1"', '"cubic 0"'))))
    assert "output.cc_log.flows[0]" in str(e.value) and '"reno 0", "cubic 1"' in str(e.value)


def test_a_log_too_large_is_refused_before_the_run_with_its_estimate():
    data = tomllib.loads(LOGGED)
    data["duration"] = "1h"
    data["topology"]["bottleneck"]["rate"] = "10Gbps"
    with pytest.raises(ScenarioError) as e:
        hscc.run(hscc.Scenario.parse(data))
    msg = str(e.value)
    assert "output.cc_log.flows" in msg and "per-ACK log would hold about" in msg and "GB" in msg, (
        msg
    )
