"""A sweep's worker that stores nothing makes the metrics row from the run's summary alone,
a table's Parquet file written only when the row needs it: the same row as from the whole
Result, for runs with web sources, UDP, VoIP, traces and idle monitored links."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from hscc.scenario import Scenario
from hscc.sweeps import metrics
from hscc.sweeps.worker import run_job
from test_rundir_size import IDLE

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).resolve().parents[2]


def _mixed() -> dict:
    data = tomllib.loads((ROOT / "examples" / "mixed-traffic.toml").read_text())
    data["duration"] = "3s"
    data["changes"][0]["at"] = "2s"
    return data


@pytest.mark.parametrize(
    ("data", "from_a_table"),
    [(_mixed(), "web[0].mean_s"), (tomllib.loads(IDLE), "r-c:fwd.utilization")],
    ids=["web-udp-voip", "idle-links"],
)
def test_the_metrics_alone_are_the_whole_results(data, from_a_table):
    scenario = Scenario.parse(data).to_dict()
    status, files, alone = run_job(scenario, None, None, False)
    whole_status, whole_files, whole = run_job(scenario, None, None, True)
    assert status == whole_status == "ok" and files is None and whole_files
    assert from_a_table in alone  # web.parquet's response times, links.parquet's idle link
    assert {k: v for k, v in alone.items() if k not in metrics.MACHINE} == {
        k: v for k, v in whole.items() if k not in metrics.MACHINE
    }
