"""Start times drawn from a distribution: replicates of a run that draws nothing else
differ, the flows table shows each drawn start, and a bad one is refused by field."""

from __future__ import annotations

import json

import pytest

import hscc
from conftest import ONE_FLOW
from hscc.errors import ScenarioError
from hscc.scenario import Scenario

# Two Reno flows, no random loss, no host jitter: without a drawn start nothing
# in the run comes from the seed.
TWO_FLOWS = (
    ONE_FLOW.replace('duration = "10s"', 'duration = "2s"')
    + 'host_jitter = 0\ncount = 2\nstart = "0s"\n'
)
DRAWN = TWO_FLOWS.replace('start = "0s"', 'start = { dist = "uniform", min = "0s", max = "0.5s" }')


def test_replicates_differ_with_a_drawn_start_and_are_flagged_without_one(write_toml):
    drawn = hscc.sweep(write_toml(DRAWN, "drawn.toml"), {}, replicates=3, jobs=1)
    starts = drawn.points.select(["flow 0.start_s", "flow 1.start_s"]).rows()
    assert len(set(starts)) == 3, starts
    assert drawn.points["flow 0.goodput_bps"].n_unique() > 1
    assert drawn.identical_warning() is None

    fixed = hscc.sweep(write_toml(TWO_FLOWS, "fixed.toml"), {}, replicates=3, jobs=1)
    assert fixed.identical_points() == [0]
    assert "are identical" in (fixed.identical_warning() or "")


def test_the_flows_table_shows_each_drawn_start_and_the_seed_repeats_it(write_toml):
    path = write_toml(DRAWN)
    config = json.loads(Scenario.from_toml(path).resolved().config())
    drawn = [f["start"] / 1e12 for f in config["flows"]]
    result = hscc.run(path)
    assert result.flows["start_s"].to_list() == pytest.approx(drawn, abs=1e-12)
    assert len(set(drawn)) == 2 and all(0 <= s <= 0.5 for s in drawn)
    assert hscc.run(path).flows["start_s"].to_list() == result.flows["start_s"].to_list()
    other = hscc.run(path, seed=8).flows["start_s"].to_list()
    assert other != result.flows["start_s"].to_list()
    # The run records the distribution, not one draw, so it replays with its seed.
    recorded = result.manifest["scenario"]["flows"][0]["start"]
    assert recorded == {"dist": "uniform", "min": 0.0, "max": 0.5}


@pytest.mark.parametrize(
    "start, message",
    [
        ('{ dist = "uniform", min = "2s", max = "1s" }', "flows[0].start: uniform on [2 s, 1 s]"),
        ('{ dist = "uniform", min = "0s", max = "5s" }', 'flows[0].start.max: "5s"'),
        ('{ dist = "uniform", min = "-1s", max = "1s" }', 'flows[0].start.min: "-1s"'),
        ('{ dist = "exponential", mean = "0s" }', "a positive mean"),
        ('{ dist = "pareto", mean = "1s", shape = 1.5 }', "flows[0].start.dist"),
    ],
)
def test_a_bad_start_is_refused_by_field(write_toml, start, message):
    with pytest.raises(ScenarioError) as e:
        Scenario.from_toml(write_toml(TWO_FLOWS.replace('start = "0s"', f"start = {start}")))
    assert message in str(e.value)
