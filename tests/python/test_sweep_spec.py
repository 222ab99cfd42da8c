"""Sweep files and axes: parsing, expansion, ranges with units, zips, seeds, cache keys,
and the errors for bad sweeps (each names the key or axis, the point and what is allowed)."""

from __future__ import annotations

import math
import textwrap

import pytest

from conftest import ONE_FLOW
from hscc import Scenario
from hscc.sweeps import SweepError, plan, spec
from hscc.sweeps.paths import PathError, lookup, parse_path, put

TWO_FLOWS = (
    ONE_FLOW.replace(
        'pairs = [{ rate = "1Gbps", rtt = "20ms" }]',
        'pairs = [{ rate = "1Gbps", rtt = "20ms" }, { rate = "1Gbps", rtt = "60ms" }]',
    )
    + """
[[flows]]
pair = 1
algorithm = "reno"
"""
)


def sweep(axes: dict, **top) -> spec.Sweep:
    return spec.parse({"axes": axes, **top}, base=Scenario.parse(_toml(TWO_FLOWS)))


def _toml(text: str) -> dict:
    import tomllib

    return tomllib.loads(textwrap.dedent(text))


# --- paths ------------------------------------------------------------------------------


def test_paths_parse_into_names_and_indices():
    assert parse_path("flows[1].params.gamma") == ["flows", 1, "params", "gamma"]
    assert parse_path("topology.pairs[1].rtt") == ["topology", "pairs", 1, "rtt"]


@pytest.mark.parametrize(
    "bad",
    ["", "flows..x", ".flows", "flows[x]", "flows[1]x", "flows.[1]", "topology.bottlenek.loss"],
)
def test_bad_paths_are_refused(bad):
    with pytest.raises(PathError):
        parse_path(bad)


def test_put_sets_nested_fields_and_makes_missing_tables():
    data = {"flows": [{"algorithm": "reno"}]}
    put(data, "flows[0].params.gamma", 30)
    assert data == {"flows": [{"algorithm": "reno", "params": {"gamma": 30}}]}
    assert lookup(data, "flows[0].params.gamma") == 30


def test_put_past_the_end_of_a_list_names_the_entries():
    with pytest.raises(
        PathError, match=r"flows has 1 entries \(indices 0 to 0\); flows\[3\] is not one of them"
    ):
        put({"flows": [{}]}, "flows[3].algorithm", "reno")


# --- axes and points ------------------------------------------------------------------------


def test_points_are_the_product_of_the_axes_last_fastest():
    sw = sweep(
        {"flows[1].algorithm": ["reno", "cubic"], "topology.bottleneck.loss": [0, 1e-3, 1e-2]}
    )
    points = sw.points()
    assert len(points) == 6
    assert [p.assign for p in points[:3]] == [
        (("flows[1].algorithm", "reno"), ("topology.bottleneck.loss", 0)),
        (("flows[1].algorithm", "reno"), ("topology.bottleneck.loss", 1e-3)),
        (("flows[1].algorithm", "reno"), ("topology.bottleneck.loss", 1e-2)),
    ]


def test_zipped_fields_move_together():
    sw = sweep(
        {
            "rtt": {
                "zip": {
                    "topology.pairs[0].rtt": ["10ms", "20ms"],
                    "topology.pairs[1].rtt": ["80ms", "160ms"],
                }
            },
            "flows[0].algorithm": ["reno", "cubic"],
        }
    )
    points = sw.points()
    assert len(points) == 4
    assert dict(points[2].assign) == {
        "topology.pairs[0].rtt": "20ms",
        "topology.pairs[1].rtt": "160ms",
        "flows[0].algorithm": "reno",
    }


def test_logspace_with_units_and_exact_ends():
    values = (
        sweep({"topology.bottleneck.loss": {"logspace": ["1e-6", "1e-2"], "steps": 9}})
        .axes[0]
        .members[0]
        .values
    )
    assert values[0] == 1e-6 and values[-1] == 1e-2
    for v, k in zip(values, range(9), strict=True):
        assert math.isclose(v, 10 ** (-6 + k / 2), rel_tol=1e-12)


def test_linspace_reads_the_ends_in_the_fields_unit():
    rtts = (
        sweep({"topology.pairs[0].rtt": {"linspace": ["10ms", "100ms"], "steps": 4}})
        .axes[0]
        .members[0]
        .values
    )
    assert rtts == pytest.approx((0.01, 0.04, 0.07, 0.1))
    rates = (
        sweep({"topology.bottleneck.rate": {"linspace": ["10Mbps", "1Gbps"], "steps": 2}})
        .axes[0]
        .members[0]
        .values
    )
    assert rates == (1e7, 1e9)
    loss = (
        sweep({"topology.bottleneck.loss": {"linspace": ["0.1%", "1%"], "steps": 2}})
        .axes[0]
        .members[0]
        .values
    )
    assert loss == pytest.approx((0.001, 0.01))


def test_whole_number_fields_get_whole_steps_or_an_error():
    counts = sweep({"flows[0].count": {"linspace": [1, 7], "steps": 4}}).axes[0].members[0].values
    assert counts == (1, 3, 5, 7) and all(isinstance(c, int) for c in counts)
    with pytest.raises(SweepError, match="not whole numbers"):
        sweep({"flows[0].count": {"linspace": [1, 4], "steps": 3}})


# --- checked points, typed columns, seeds and keys ---------------------------------------------


def test_columns_hold_the_values_as_the_engine_read_them():
    made = plan.make(
        sweep({"topology.pairs[0].rtt": ["10ms", 0.03], "flows[1].algorithm": ["reno", "CUBIC"]})
    )
    assert made.columns["topology.pairs[0].rtt"] == [0.01, 0.01, 0.03, 0.03]
    assert made.columns["flows[1].algorithm"] == ["reno", "cubic", "reno", "cubic"]


def test_seeds_depend_on_the_point_not_on_the_axis_order():
    a = plan.make(
        sweep(
            {"flows[1].algorithm": ["reno", "cubic"], "topology.bottleneck.loss": [0, 1e-3]},
            replicates=3,
            seed=5,
        )
    )
    b = plan.make(
        sweep(
            {"topology.bottleneck.loss": [1e-3, 0], "flows[1].algorithm": ["cubic", "reno"]},
            replicates=3,
            seed=5,
        )
    )

    def by_values(made):
        return {
            (tuple(made.columns[p][j.point] for p in sorted(made.columns)), j.replicate): j.seed
            for j in made.jobs
        }

    assert by_values(a) == by_values(b)
    seeds = [j.seed for j in a.jobs]
    assert len(set(seeds)) == len(seeds), "every run has its own seed"
    c = plan.make(
        sweep(
            {"flows[1].algorithm": ["reno", "cubic"], "topology.bottleneck.loss": [0, 1e-3]},
            replicates=3,
            seed=6,
        )
    )
    assert not set(seeds) & {j.seed for j in c.jobs}, "another sweep seed gives other seeds"


def test_seed_derivation_is_the_documented_one():
    # Changing the derivation would silently change every stored sweep's runs: this pins it
    # to the recipe in hscc.sweeps.plan's doc (BLAKE2b-64 of [seed, sorted values, replicate]).
    import hashlib

    text = b'[1,[["topology.bottleneck.loss",0.001]],0]'
    expected = int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "little")
    assert (
        plan.derive_seed(1, [("topology.bottleneck.loss", 0.001)], 0)
        == expected
        == 10967362261896501752
    )


def test_a_table_value_keeps_its_seeds_whatever_error_messages_print():
    # A swept table (an algorithm's params) enters the seeds as Python writes it, as it
    # always has: the experiments' stored runs and notes depend on those seeds.
    axis = {
        "zip": {
            "flows[1].algorithm": ["highspeed"] * 2,
            "flows[1].params": [{"response": 1}, {"response": 0}],
        }
    }
    made = plan.make(sweep({"hs": axis}, replicates=1))
    assert made.columns["flows[1].params"] == ["{'response': 1}", "{'response': 0}"]
    values = [("flows[1].algorithm", "highspeed"), ("flows[1].params", "{'response': 1}")]
    assert made.jobs[0].seed == plan.derive_seed(made.sweep.seed, values, 0)


def test_long_table_values_that_differ_only_at_the_end_get_their_own_seeds():
    # Two params tables whose text agrees for its first 80 characters: each point is its own.
    long = {"hystart_ack_delta_us": 2000, "hystart_low_window": 16, "tcp_friendliness": True}
    axis = {
        "zip": {
            "flows[1].algorithm": ["cubic"] * 2,
            "flows[1].params": [{**long, "hystart": True}, {**long, "hystart": False}],
        }
    }
    made = plan.make(sweep({"cubic": axis}, replicates=1))
    texts = made.columns["flows[1].params"]
    assert texts[0][:80] == texts[1][:80] and texts[0] != texts[1]
    assert texts[0] == repr({**long, "hystart": True})
    assert made.jobs[0].seed != made.jobs[1].seed


def test_cache_keys_ignore_names_and_follow_every_number():
    made = plan.make(sweep({"flows[1].algorithm": ["reno", "cubic"]}, replicates=2))
    keys = [j.key for j in made.jobs]
    assert len(set(keys)) == 4
    job = made.jobs[0]
    assert plan.cache_key({**job.scenario, "name": "other", "description": "x"}) == job.key
    assert plan.cache_key({**job.scenario, "seed": job.seed + 1}) != job.key
    assert plan.cache_key({**job.scenario, "duration": 2.0}) != job.key


# --- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "axes, message",
    [
        (
            {"topology.bottlenek.loss": [0]},
            r'axes.topology.bottlenek.loss: "topology.bottlenek.loss" is not a field of the scenario format',
        ),
        (
            {"flows[0].algorithm": []},
            r"axes.flows\[0\].algorithm: \[\] is not allowed \(a non-empty list of values, or a range\)",
        ),
        (
            {"topology.bottleneck.loss": {"logspace": [0, 1e-2], "steps": 3}},
            r"logspace: 0, 0.01 is not allowed \(positive ends\)",
        ),
        (
            {"topology.bottleneck.loss": {"linspace": ["0", "1e-2"]}},
            r"is not allowed \(a list of values",
        ),
        (
            {"topology.pairs[0].rtt": {"linspace": ["10 parsecs", "1s"], "steps": 2}},
            r'"10 parsecs" is not allowed',
        ),
        (
            {
                "r": {
                    "zip": {
                        "topology.pairs[0].rtt": ["10ms"],
                        "topology.pairs[1].rtt": ["1ms", "2ms"],
                    }
                }
            },
            r"same number of values",
        ),
        (
            {"topology.bottleneck.loss": [0], "x": {"zip": {"topology.bottleneck.loss": [1]}}},
            r"already swept by axis",
        ),
        ({"stack": ["linux", "ns3"]}, r"axes.stack: stack cannot be swept \(a stack's profile"),
        ({"flows[0].stack": ["ns2"]}, r"flows\[0\].stack cannot be swept .* a sweep per stack"),
    ],
)
def test_bad_axes_name_the_axis_and_what_is_allowed(axes, message):
    with pytest.raises(SweepError, match=message):
        sweep(axes)


def test_a_bad_value_names_the_axis_the_point_and_what_is_allowed():
    with pytest.raises(SweepError) as e:
        plan.make(
            sweep({"flows[1].algorithm": ["reno", "nosuch"], "topology.bottleneck.loss": [0, 1e-3]})
        )
    text = str(e.value)
    assert text.startswith(
        'axis "flows[1].algorithm", point 2 (flows[1].algorithm = "nosuch", topology.bottleneck.loss = 0): '
    )
    assert 'flows[1].algorithm: "nosuch" is not allowed' in text


def test_an_index_past_the_end_names_the_point():
    with pytest.raises(
        SweepError, match=r"point 0 \(flows\[5\].algorithm = \"reno\"\): flows has 2 entries"
    ):
        plan.make(sweep({"flows[5].algorithm": ["reno"]}))


def test_a_run_over_the_memory_limit_is_refused_before_anything_runs():
    with pytest.raises(
        SweepError, match=r"point 1 \(flows\[0\].count = 100000\): .*needs about .* of memory"
    ):
        plan.make(sweep({"flows[0].count": [1, 100_000]}), max_memory=1 << 20)


@pytest.mark.parametrize(
    "data, message",
    [
        ({"axes": {}}, "base: missing"),
        ({"base": 3, "axes": {}}, r"base: 3 is not allowed"),
        ({"base": "nosuch.toml"}, r"base: .*cannot read scenario file"),
        ({"base": {"duration": "1s"}, "axes": {}}, r"base: .*invalid scenario"),
        ({"base": {}, "replicate": 3}, r"replicate: not a sweep key"),
        (
            {"axes": {}, "replicates": 0},
            r"replicates: 0 is not allowed \(a whole number from 1 to 10000\)",
        ),
        ({"axes": {}, "seed": -1}, r"seed: -1 is not allowed"),
        ({"axes": ["flows[0].algorithm"]}, r"axes: .* is not allowed \(a table"),
        (
            {
                "axes": {
                    "topology.bottleneck.loss": {"linspace": [0, 1], "steps": 1000},
                    "flows[0].count": {"linspace": [1, 1000], "steps": 1000},
                    "topology.pairs[0].rtt": {"linspace": [0.01, 0.1], "steps": 10},
                }
            },
            r"the sweep has 10000000 runs",
        ),
    ],
)
def test_bad_sweep_files_say_what_is_wrong(tmp_path, data, message):
    if "base" not in data and data != {"axes": {}}:
        data = {**data, "base": _toml(ONE_FLOW)}
    with pytest.raises(SweepError, match=message):
        spec.parse(data, source=str(tmp_path / "s.sweep.toml"))


def test_a_sweep_file_names_its_base_relative_to_itself(tmp_path):
    (tmp_path / "base.toml").write_text(ONE_FLOW)
    (tmp_path / "loss.toml").write_text(
        'base = "base.toml"\nreplicates = 2\n[axes]\n"topology.bottleneck.loss" = [0, "1%"]\n'
    )
    sw = spec.load(tmp_path / "loss.toml")
    assert sw.name == "loss" and sw.replicates == 2 and sw.seed == 7  # the base scenario's seed
    assert len(plan.make(sw).jobs) == 4
    assert "replicates = 2" in sw.text


def test_an_unreadable_sweep_file_is_refused(tmp_path):
    (tmp_path / "bad.toml").write_text("base = \n")
    with pytest.raises(SweepError, match="is not valid TOML"):
        spec.load(tmp_path / "bad.toml")
    with pytest.raises(SweepError, match="cannot read sweep file"):
        spec.load(tmp_path / "missing.toml")


def test_a_stack_profiles_rows_follow_each_points_algorithm(write_toml):
    # The base runs Reno; the axis swaps in CUBIC, whose linux2.6 rows differ from Reno's
    # (no min_cwnd: rate halving stops at ssthresh; HyStart on), also when the axis replaces
    # the params table.
    from hscc.sweeps import plan

    base = write_toml(
        ONE_FLOW.replace('name = "one-flow"', 'name = "one-flow"\nstack = "linux2.6"')
    )
    for axes in (
        {"flows[0].algorithm": ["reno", "cubic"]},
        {
            "algorithm": {
                "zip": {"flows[0].algorithm": ["reno", "cubic"], "flows[0].params": [{}, {}]}
            }
        },
    ):
        jobs = plan.make(spec.parse({"axes": axes}, base=base)).jobs
        reno, cubic = (j.scenario["flows"][0] for j in jobs)
        assert (reno["algorithm"], cubic["algorithm"]) == ("reno", "cubic")
        assert reno["reduction_floor"] == "half_ssthresh"
        assert cubic["reduction_floor"] == "ssthresh"
        assert "hystart" not in reno["params"]
        assert cubic["params"]["hystart"] in (1, 1.0, True)
        # Knobs the base writes stay: both run rate halving with an initial window of 3.
        assert reno["recovery"] == cubic["recovery"] == "rate_halving"
        assert reno["init_cwnd"] == cubic["init_cwnd"] == 3
