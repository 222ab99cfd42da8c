"""The reproduction framework: experiment files, the papers' metrics, verdicts, claims,
the directories it writes and the command line (the catalogue's quick runs are in
test_reproduce_catalogue.py)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import polars as pl
import pytest

from hscc import reproduce as rep
from hscc.reproduce import compare, experiment, measures
from hscc.sweeps.result import SweepResult

# A small experiment: two Reno or CUBIC flows against two Reno flows on 10 Mbit/s,
# over two RTTs of the second group; stolen, ratio and a column.
SMALL = {
    "name": "small",
    "paper": "ctcp",
    "source": "Fig. 0",
    "title": "a test",
    "setup": "two groups",
    "assumptions": ["none"],
    "x": {"axis": "topology.pairs[1].rtt", "label": "RTT ratio", "factor": 50.0, "values": [1, 2]},
    "series": {"axis": "flows[0].algorithm", "names": {"reno": "Reno", "cubic": "CUBIC"}},
    "measures": [
        {
            "name": "stolen",
            "kind": "stolen",
            "a": [1],
            "baseline": "reno",
            "label": "stolen",
            "published": {"cubic": [0.1, 0.3]},
        },
        {
            "name": "ratio",
            "kind": "ratio",
            "a": [0],
            "b": [1],
            "label": "ratio",
            "published": {"reno": [1.0, "nan"]},
        },
    ],
    "claims": [
        {"text": "cubic steals", "measure": "stolen", "kind": "greater", "a": "cubic", "than": 0.0}
    ],
    "sweep": {
        "replicates": 2,
        "seed": 3,
        "axes": {
            "topology.pairs[1].rtt": ["20ms", "40ms"],
            "flows[0].algorithm": ["reno", "cubic"],
        },
        "base": {
            "name": "small",
            "duration": "5s",
            "output": {"traces": []},
            "topology": {
                "kind": "dumbbell",
                "bottleneck": {"rate": "10Mbps", "delay": "2ms", "buffer": "1bdp"},
                "pairs": [{"rtt": "20ms"}, {"rtt": "20ms"}],
            },
            "flows": [{"pair": 0, "algorithm": "reno"}, {"pair": 1, "algorithm": "reno"}],
        },
    },
    "quick": {"replicates": 1, "duration": "3s"},
}


def small(**changes) -> experiment.Experiment:
    return experiment.parse({**SMALL, **changes}, "small.toml")


def frame(rows: list[dict]) -> SweepResult:
    """A SweepResult from hand-written runs: series value, RTT (s), goodputs of groups 0 and 1 (bit/s)."""
    data = [
        {
            "point": i // 2,
            "replicate": i % 2,
            "seed": i,
            "status": "ok",
            "error": None,
            "run": str(i),
            "topology.pairs[1].rtt": r["rtt"],
            "flows[0].algorithm": r["alg"],
            "flows[0].goodput_bps": r["g0"],
            "flows[1].goodput_bps": r["g1"],
            "total_goodput_bps": r["g0"] + r["g1"],
        }
        for i, r in enumerate(rows)
    ]
    return SweepResult(pl.DataFrame(data), [["topology.pairs[1].rtt"], ["flows[0].algorithm"]])


def test_stolen_ratio_and_the_paper_x_are_computed_the_papers_way():
    # Reno baseline at x=1: group 1 gets 4 and 6 Mbit/s (mean 5); CUBIC runs: 4 and 3 → stolen 0.2 and 0.4.
    runs = frame(
        [
            {"rtt": 0.02, "alg": "reno", "g0": 5e6, "g1": 4e6},
            {"rtt": 0.02, "alg": "reno", "g0": 5e6, "g1": 6e6},
            {"rtt": 0.02, "alg": "cubic", "g0": 6e6, "g1": 4e6},
            {"rtt": 0.02, "alg": "cubic", "g0": 7e6, "g1": 3e6},
        ]
    )
    values = measures.per_run(small(), runs)
    stolen = values.filter(pl.col("measure") == "stolen").sort("value")
    assert stolen["series"].to_list() == ["CUBIC", "CUBIC"]  # none for the baseline itself
    assert stolen["x"].to_list() == [1.0, 1.0]  # 0.02 s × 50
    assert stolen["value"].to_list() == pytest.approx([0.2, 0.4])
    ratio = values.filter(pl.col("measure") == "ratio", pl.col("series") == "Reno").sort("value")
    assert ratio["value"].to_list() == pytest.approx([5 / 6, 5 / 4])


def test_column_and_sum_measures_take_off_their_minus_columns():
    # Losses counted as a paper counts them: every drop less the slow-start and UDP drops.
    rows = [{"rtt": 0.02, "alg": "reno", "g0": 5e6, "g1": 4e6}] * 2
    runs = frame(rows).points.with_columns(
        pl.Series("q.drops_queue", [100.0, 80.0]),
        pl.Series("q.drops_queue_slow_start", [30.0, 20.0]),
        pl.Series("q.drops_queue_udp", [5.0, 0.0]),
    )
    minus = ["q.drops_queue_slow_start", "q.drops_queue_udp"]
    exp = small(
        measures=[
            {
                "name": "c",
                "kind": "column",
                "column": "q.drops_queue",
                "minus": minus,
                "label": "c",
            },
            {
                "name": "s",
                "kind": "sum",
                "columns": ["q.drops_queue"] * 2,
                "minus": minus,
                "label": "s",
            },
        ],
        claims=[],
    )
    values = measures.per_run(exp, SweepResult(runs, frame(rows).axes))
    by = {
        m: values.filter(pl.col("measure") == m).sort("replicate")["value"].to_list() for m in "cs"
    }
    assert by == {"c": [65.0, 60.0], "s": [165.0, 140.0]}


def test_points_that_collide_on_series_and_x_are_refused():
    exp = small(series=None)  # two algorithms, no series axis: two points at each x
    runs = frame(
        [
            {"rtt": 0.02, "alg": alg, "g0": 1.0, "g1": 1.0}
            for alg in ("reno", "reno", "cubic", "cubic")
        ]
    )
    with pytest.raises(
        measures.MeasureError, match="every axis must be the x axis or the series axis"
    ):
        measures.per_run(exp, runs)


def stolen_runs(values: dict[float, list[float]], series: str = "CUBIC") -> pl.DataFrame:
    """The stolen measure's per-replicate values at each x, as measures.per_run gives them."""
    rows = [(x, i, v) for x, vs in values.items() for i, v in enumerate(vs)]
    return pl.DataFrame(
        {
            "measure": ["stolen"] * len(rows),
            "series": [series] * len(rows),
            "x": [r[0] for r in rows],
            "replicate": [r[1] for r in rows],
            "value": [r[2] for r in rows],
        },
        schema=measures.LONG_SCHEMA,
    )


def cell(t: pl.DataFrame, x: float, series: str = "CUBIC") -> dict:
    return t.filter(pl.col("x") == x, pl.col("series") == series).row(0, named=True)


def test_cells_have_student_t_intervals_deviations_and_verdicts():
    # Paper: 0.1 at x=1, 0.3 at x=2.
    t = compare.cells(small(), stolen_runs({1.0: [0.11, 0.12, 0.13], 2.0: [0.54, 0.55, 0.56]}))
    one = cell(t, 1.0)
    # mean 0.12, sd 0.01, t(0.975, 2) = 4.3027: half-width 4.3027 × 0.01 / √3 = 0.02484
    assert one["mean"] == pytest.approx(0.12) and one["paper"] == pytest.approx(0.1)
    assert one["ci_high"] - one["mean"] == pytest.approx(4.3027 * 0.01 / 3**0.5, rel=1e-4)
    assert one["deviation"] == pytest.approx(0.2) and one["verdict"] == "agrees"
    two = cell(t, 2.0)
    # 0.55 vs 0.3: +83 %, within 2×, and it rises from x=1 as the paper's does → same direction
    assert (
        two["deviation"] == pytest.approx(0.8333, rel=1e-3) and two["verdict"] == "same direction"
    )
    # the published Reno ratio at x=1 has no hscc result here; the "nan" at x=2 is no cell at all
    reno = t.filter(pl.col("series") == "Reno")
    assert reno.height == 1 and reno["verdict"][0] == "no result"


def test_a_cell_off_by_more_than_twice_is_far_whatever_its_direction():
    # 0.71 vs 0.3 (2.37×) rises as the paper's does, yet is far; so is a value of the other sign.
    t = compare.cells(small(), stolen_runs({1.0: [0.11, 0.12, 0.13], 2.0: [0.70, 0.71, 0.72]}))
    assert cell(t, 2.0)["verdict"] == "far"
    t = compare.cells(small(), stolen_runs({1.0: [-0.05, -0.06, -0.07], 2.0: [0.54, 0.55, 0.56]}))
    assert cell(t, 1.0)["verdict"] == "far"
    assert compare._far(0.049, 0.1) and not compare._far(0.051, 0.1) and not compare._far(0.2, 0.1)


def test_too_few_runs_instead_of_a_verdict():
    # Two replicates: no verdict, however close the mean.
    t = compare.cells(small(), stolen_runs({1.0: [0.1, 0.1], 2.0: [0.3, 0.3]}))
    assert {cell(t, x)["verdict"] for x in (1.0, 2.0)} == {"too few runs"}
    # Three, but the interval (half-width 0.42) is wider than the mean (0.103).
    t = compare.cells(small(), stolen_runs({1.0: [0.0, 0.3, 0.01], 2.0: [0.29, 0.3, 0.31]}))
    one = cell(t, 1.0)
    assert one["ci_high"] - one["mean"] > one["mean"] and one["verdict"] == "too few runs"
    assert cell(t, 2.0)["verdict"] == "agrees"


def test_intervals_of_non_negative_measures_are_clipped_at_zero():
    # A column less others (losses after slow start) has no floor in its definition: with
    # every replicate ≥ 0 it is a count, cut at 0 (mean 0.103 − 0.42 would be below 0).
    losses = {
        "name": "losses",
        "kind": "column",
        "column": "flows[0].goodput_bps",
        "minus": ["flows[1].goodput_bps"],
        "label": "losses",
    }
    exp = small(measures=[*SMALL["measures"], losses])
    runs = stolen_runs({1.0: [0.0, 0.3, 0.01]}).with_columns(measure=pl.lit("losses"))
    counts = compare.cells(exp, runs).filter(pl.col("measure") == "losses")
    assert counts.row(0, named=True)["ci_low"] == 0.0
    # Bandwidth stolen can be negative (the regular flows gain): never cut at 0, even where
    # every replicate of a cell is ≥ 0. 0.0, 0.3, 0.01: mean 0.1033, sd 0.1704.
    t = compare.cells(small(), stolen_runs({1.0: [0.0, 0.3, 0.01], 2.0: [-0.1, 0.3, 0.31]}))
    assert cell(t, 1.0)["ci_low"] == pytest.approx(0.10333 - 4.3027 * 0.17039 / 3**0.5, rel=1e-3)
    assert cell(t, 2.0)["ci_low"] < 0


@pytest.mark.timeout(10)
def test_intervals_are_cut_to_the_values_a_measure_can_take():
    # Bandwidth stolen (P − Q)/P is at most 1: 0.9, 0.99, 1.0 give 0.963 ± 0.13 uncut.
    t = compare.cells(small(), stolen_runs({1.0: [0.9, 0.99, 1.0], 2.0: [0.2, 0.3, 0.4]}))
    near_one = cell(t, 1.0)
    assert near_one["ci_high"] == 1.0 and near_one["ci_low"] == pytest.approx(
        0.9633 - 4.3027 * 0.05508 / 3**0.5, rel=1e-3
    )
    assert cell(t, 2.0)["ci_high"] == pytest.approx(0.3 + 4.3027 * 0.1 / 3**0.5, rel=1e-4)
    m = {x.name: x for x in small().measures}
    assert compare.measure_range(m["stolen"]) == (-math.inf, 1.0)
    assert compare.measure_range(m["ratio"]) == (0.0, math.inf)


@pytest.mark.timeout(10)
def test_the_comparison_names_each_measures_unit_and_the_x_axis():
    from hscc.reproduce import tables

    exp = experiment.find("ctcp-table1")
    assert exp is not None
    assert tables.columns(exp)[2] == "UDP peak rate (Mbit/s)"
    units = {m.name: tables.measure_unit(m) for m in exp.measures}
    assert units == {"throughput": "Mbit/s", "utilisation": "0–1"}
    assert tables.measure_unit(small().measures[0]) == "relative"


@pytest.mark.timeout(10)
def test_a_claim_on_fewer_than_three_runs_per_cell_says_it_is_no_evidence():
    one = compare.cells(small(), stolen_runs({1.0: [0.2], 2.0: [0.4]}))
    (claim,) = compare.claims(small(), one)
    assert claim.holds and claim.runs == 1 and claim.few_runs
    assert claim.detail.endswith("; 1 run per cell: a direction, not evidence")
    three = compare.cells(small(), stolen_runs({1.0: [0.2, 0.21, 0.22], 2.0: [0.4, 0.41, 0.42]}))
    (claim,) = compare.claims(small(), three)
    assert claim.holds and claim.runs == 3 and not claim.few_runs
    assert "evidence" not in claim.detail


def test_a_cell_whose_trend_opposes_the_papers_differs():
    # paper 0.1 → 0.3 rises; hscc 0.25 → 0.2 falls (−33 % at x=2, within 2×)
    t = compare.cells(small(), stolen_runs({1.0: [0.24, 0.25, 0.26], 2.0: [0.19, 0.2, 0.21]}))
    assert cell(t, 2.0)["verdict"] == "differs"
    one = compare.cells(small(), stolen_runs({1.0: [0.1], 2.0: [0.3]}))
    assert cell(one, 2.0)["ci_low"] is None  # one replicate: no interval


def test_a_tie_in_hscc_does_not_match_an_order_in_the_paper():
    # Paper rises 0.1 → 0.3; hscc's 0.185 → 0.19 is a tie (within 5 %): not the same direction.
    t = compare.cells(small(), stolen_runs({1.0: [0.184, 0.185, 0.186], 2.0: [0.189, 0.19, 0.191]}))
    assert cell(t, 2.0)["verdict"] == "differs"
    # Without the tie rule's one-sidedness the x=2 cell would have passed as "same direction".
    assert compare._order(0.19, 0.185) == 0 and compare._order(0.3, 0.1) == 1


def test_a_constant_published_value_is_no_trend():
    # A value the paper states once for every x ("around 0.2"): the trend compares nothing, so a
    # cell outside 25 % and within 2× has no comparison left and differs, whatever hscc's trend.
    exp = small(
        measures=[
            {**SMALL["measures"][0], "published": {"cubic": [0.2, 0.2]}},
            SMALL["measures"][1],
        ]
    )
    t = compare.cells(exp, stolen_runs({1.0: [0.19, 0.2, 0.21], 2.0: [0.29, 0.3, 0.31]}))
    assert cell(t, 1.0)["verdict"] == "agrees" and cell(t, 2.0)["verdict"] == "differs"


@pytest.mark.parametrize(
    "kind, a, b, than, factor, holds",
    [
        ("less", "cubic", "reno", None, 1.0, True),
        ("less", "cubic", "reno", None, 3.0, False),  # 0.2 × 3 is not below 0.5
        ("greater", "reno", None, 0.4, 1.0, True),
        ("increasing", "cubic", None, None, 1.0, True),
        ("decreasing", "cubic", None, None, 1.0, False),
    ],
)
def test_claims_are_checked_against_the_means(kind, a, b, than, factor, holds):
    exp = small(
        measures=[{"name": "m", "kind": "ratio", "a": [0], "b": [1], "label": "m"}],
        claims=[
            {
                "text": "t",
                "measure": "m",
                "kind": kind,
                "a": a,
                "b": b,
                "than": than,
                "factor": factor,
            }
        ],
    )
    table = pl.DataFrame(
        {
            "measure": ["m"] * 4,
            "series": ["CUBIC", "CUBIC", "Reno", "Reno"],
            "x": [1.0, 2.0, 1.0, 2.0],
            "mean": [0.1, 0.2, 0.5, 0.6],
        }
    )
    assert compare.claims(exp, table)[0].holds is holds


def test_an_unfairness_claim_counts_a_long_flow_winning_as_unfair():
    # hscc's ratio 0.2 (the long-RTT flow gets 5× more) is further from fairness than Reno's 2,
    # though smaller as a number
    claim = {"text": "t", "measure": "m", "kind": "less", "a": "cubic", "b": "reno"}
    table = pl.DataFrame(
        {"measure": ["m", "m"], "series": ["CUBIC", "Reno"], "x": [1.0, 1.0], "mean": [0.2, 2.0]}
    )
    for unfair, holds in ((False, True), (True, False)):
        exp = small(
            measures=[{"name": "m", "kind": "ratio", "a": [0], "b": [1], "label": "m"}],
            claims=[{**claim, "unfairness": unfair}],
        )
        assert compare.claims(exp, table)[0].holds is holds


@pytest.mark.parametrize(
    "change, message",
    [
        ({"paper": "tcp"}, "paper: \"tcp\": 'tcp' is not a paper of the catalogue"),
        ({"colour": 1}, "colour"),
        (
            {"claims": [{"text": "t", "measure": "nope", "kind": "less", "a": "x", "than": 1}]},
            "measure 'nope' is not one of",
        ),
        (
            {"measures": [{"name": "r", "kind": "ratio", "a": [0], "label": "r"}], "claims": []},
            "needs b",
        ),
        (
            {
                "measures": [
                    {"name": "r", "kind": "goodput", "label": "r", "published": {"reno": [1, 2, 3]}}
                ],
                "claims": [],
            },
            "3 values for 2 x values",
        ),
        ({"notes_engine": "0123456789abcdef"}, "notes_engine dates the notes: it needs notes"),
        ({"notes": "n", "notes_engine": "v1"}, "notes_engine"),
    ],
)
def test_a_bad_experiment_file_names_the_key(change, message):
    with pytest.raises(experiment.ExperimentError, match=message) as e:
        small(**change)
    assert str(e.value).startswith("small.toml")


def test_notes_quoting_another_engines_run_are_flagged():
    from hscc import _core

    now = _core.engine_digest()
    assert small().notes_age() is None  # no notes, nothing to date
    assert small(notes="n", notes_engine=now).notes_age() is None
    older = small(notes="n", notes_engine="0" * 16).notes_age()
    assert older is not None and "0" * 16 in older and now in older
    undated = small(notes="n").notes_age()
    assert undated is not None and "do not say which engine" in undated


def test_the_catalogue_loads_and_every_sweep_is_valid():
    exps = rep.catalogue()
    assert exps, "the catalogue is empty"
    assert len({e.name for e in exps}) == len(exps)
    for e in exps:
        for quick in (False, True):
            rep.sweep_for(e, quick)  # SweepError (naming the experiment) if a point is invalid
        for m in e.measures:
            assert all(len(v) == len(e.x.values or [0]) for v in m.published.values())


def test_reproduce_writes_its_directory_and_reuses_the_runs(tmp_path):
    out = tmp_path / "r"
    first = rep.reproduce(small(), out, quick=True)
    assert first.sweep.points["status"].to_list() == ["ok"] * 4
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["kind"] == "hscc.reproduction" and manifest["complete"] and manifest["quick"]
    table = pl.read_parquet(out / "comparison.parquet")
    assert table.columns == list(compare.SCHEMA)
    assert (out / "figure.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "| measure | series |" in (out / "comparison.md").read_text()
    again = rep.reproduce(small(), out, quick=True)
    assert again.sweep.points["status"].to_list() == ["cached"] * 4
    assert again.table.equals(first.table)


def test_reproduce_refuses_a_directory_it_did_not_write(tmp_path):
    (tmp_path / "notes.md").write_text("mine")
    with pytest.raises(rep.RunDirError, match="not the reproduction of one experiment"):
        rep.reproduce(small(), tmp_path, quick=True)
    assert [p.name for p in tmp_path.iterdir()] == ["notes.md"]


def test_reproduce_all_writes_a_self_contained_report(tmp_path):
    out = tmp_path / "all"
    exp_file = tmp_path / "small.toml"
    _write_toml(exp_file, SMALL)
    done = rep.reproduce_all(out, quick=True, only=[str(exp_file)])
    assert [r.experiment.name for r in done] == ["small"]
    html = (out / "report.html").read_text()
    assert "id='small'" in html and "data:image/png;base64," in html
    assert "http://" not in html and "https://" not in html and "<script" not in html
    assert json.loads((out / "manifest.json").read_text())["complete"]


def _write_toml(path, data: dict) -> None:
    """TOML for the experiment dicts above (tables, arrays of tables, simple values)."""

    def value(v):
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (int, float)):
            return repr(v)
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return "{ " + ", ".join(f"{json.dumps(k)} = {value(x)}" for k, x in v.items()) + " }"

    path.write_text("\n".join(f"{k} = {value(v)}" for k, v in data.items()) + "\n")


def test_cli_list_names_every_experiment():
    done = subprocess.run(
        [sys.executable, "-m", "hscc", "reproduce", "list"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert done.returncode == 0, done.stderr
    for e in rep.catalogue():
        assert e.name in done.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["no-such-experiment", "--out", "x"], "not in the catalogue"),
        (["all"], "--out: missing"),
        (["list-me", "--only", "a", "--out", "x"], "--only: only with 'all'"),
        (["all", "--variant", "tick", "--out", "x"], "--variant: only with one experiment"),
        (
            ["ctcp-table2", "--variant", "hscc-defaults-tik", "--out", "x"],
            'did you mean "hscc-defaults-tick"',
        ),
    ],
)
def test_cli_bad_use_exits_2_with_the_reason(tmp_path, args, message):
    done = subprocess.run(
        [sys.executable, "-m", "hscc", "reproduce", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 2, done.stderr
    assert message in done.stderr
    assert not (tmp_path / "x").exists()


TICK = {"name": "tick", "text": "served in 1 ms ticks", "set": {"topology.bottleneck.tick": "1ms"}}


def test_a_variant_runs_the_sweep_with_its_fields_set_in_the_base(tmp_path):
    exp = small(variants=[TICK])
    data = exp.sweep_data(False, variant=exp.variant("tick"))
    assert data["name"] == "small-tick"
    assert data["base"]["topology"]["bottleneck"]["tick"] == "1ms"
    assert "tick" not in exp.sweep["base"]["topology"]["bottleneck"]  # the main set-up is kept
    main = rep.reproduce(exp, tmp_path / "main", quick=True)
    ticked = rep.reproduce(exp, tmp_path / "tick", quick=True, variant="tick")
    assert ticked.variant == exp.variant("tick") and main.variant is None
    assert not ticked.values.equals(main.values)  # another set-up: other runs
    manifest = json.loads((tmp_path / "tick" / "manifest.json").read_text())
    assert manifest["variant"]["set"] == {"topology.bottleneck.tick": "1ms"}
    assert (
        "Set-up variant 'tick' (topology.bottleneck.tick = \"1ms\")"
        in (tmp_path / "tick" / "comparison.md").read_text()
    )
    listed = (tmp_path / "main" / "comparison.md").read_text()
    assert "hscc reproduce small --variant tick" in listed


def test_a_variant_on_another_takes_its_changes_first_and_its_own_win():
    slower = {"topology.bottleneck.rate": "5Mbps", "topology.bottleneck.delay": "20ms"}
    slow = {"name": "slow", "text": "a slower link", "set": slower}
    both = {**TICK, "name": "slow-tick", "on": "slow"}
    both["set"] = {**TICK["set"], "topology.bottleneck.delay": "30ms"}
    exp = small(variants=[slow, both])
    v = exp.variant("slow-tick")
    assert v.on == "slow"
    assert v.set == {
        "topology.bottleneck.rate": "5Mbps",
        "topology.bottleneck.delay": "30ms",
        "topology.bottleneck.tick": "1ms",
    }
    bottleneck = exp.sweep_data(False, variant=v)["base"]["topology"]["bottleneck"]
    assert (bottleneck["rate"], bottleneck["delay"], bottleneck["tick"]) == ("5Mbps", "30ms", "1ms")
    assert exp.variant("slow").set == slow["set"]  # the other variant is left as it is


@pytest.mark.parametrize(
    "variants, message",
    [
        ([TICK, TICK], "variants: a name used twice"),
        ([{**TICK, "on": "tick"}], "on 'tick' is not a variant named before it"),
        (
            [{**TICK, "name": "a", "on": "b"}, {**TICK, "name": "b"}],
            "on 'b' is not a variant named",
        ),
        ([{**TICK, "set": {"flows[0].algorithm": "cubic"}}], "is an axis of the sweep"),
        ([{**TICK, "name": "Tick!"}], "variants.0.name"),
        ([{**TICK, "set": {}}], "needs `set`, `unset`, `axes` or some of them"),
        (
            [{**TICK, "axes": {"flows[1].algorithm": ["reno"]}}],
            "axes.flows.1..algorithm is not an axis",
        ),
        (
            [{**TICK, "axes": {"flows[0].algorithm": ["reno", "scalable"]}}],
            r"changes the values of flows\[0\].algorithm",
        ),
        ([{**TICK, "unset": ["stak"]}], "unset 'stak': .*not a field of the scenario format"),
        ([{**TICK, "unset": ["flows[0].rwnd"]}], r"unset 'flows\[0\].rwnd' is not a field the"),
        ([{**TICK, "unset": ["flows[0].algorithm"]}], "is an axis of the sweep"),
    ],
)
def test_a_bad_variant_names_the_key(variants, message):
    with pytest.raises(experiment.ExperimentError, match=message):
        small(variants=variants)


def test_a_variants_axis_gives_one_series_its_own_setting_and_keeps_the_others():
    v21 = {"version_2_1": True}
    replaced = {"zip": {"flows[0].algorithm": ["reno", "cubic"], "flows[0].params": [{}, v21]}}
    exp = small(
        variants=[{"name": "v21", "text": "CUBIC 2.1", "axes": {"flows[0].algorithm": replaced}}]
    )
    data = exp.sweep_data(True, variant=exp.variant("v21"))
    assert data["axes"]["flows[0].algorithm"] == replaced
    assert data["axes"]["topology.pairs[1].rtt"] == ["20ms", "40ms"]
    assert exp.sweep["axes"]["flows[0].algorithm"] == ["reno", "cubic"]  # the main set-up is kept
    from hscc.reproduce import tables

    # Only the member the variant adds is shown; the algorithms are the sweep's.
    assert tables.variant_lines(exp)[0].startswith(
        "v21 (flows[0].params = [{}, { version_2_1 = true }]; hscc reproduce small --variant v21)"
    )
    sweep = rep.sweep_for(exp, True, variant=exp.variant("v21"))
    params = {
        dict(p.assign)["flows[0].algorithm"]: dict(p.assign)["flows[0].params"]
        for p in sweep.points()
    }
    assert params == {"reno": {}, "cubic": v21}


def test_a_variant_unsets_a_field_of_a_flow_so_that_its_profile_sets_it():
    flows = [{**SMALL["sweep"]["base"]["flows"][0], "loss_detection": "dupack"}]
    base = {**SMALL["sweep"]["base"], "flows": flows + SMALL["sweep"]["base"]["flows"][1:]}
    exp = small(
        sweep={**SMALL["sweep"], "base": base},
        variants=[
            {
                "name": "tcp-linux",
                "text": "TCP-Linux",
                "set": {"stack": "ns2-linux"},
                "unset": ["flows[0].loss_detection"],
            }
        ],
    )
    data = exp.sweep_data(True, variant=exp.variant("tcp-linux"))
    assert "loss_detection" not in data["base"]["flows"][0]
    assert exp.sweep["base"]["flows"][0]["loss_detection"] == "dupack"  # the main set-up is kept
    sweep = rep.sweep_for(exp, True, variant=exp.variant("tcp-linux"))
    assert sweep.base["flows"][0]["loss_detection"] == "rack"  # the profile's


def test_a_variant_unsets_a_top_level_field_of_the_base():
    base = {**SMALL["sweep"]["base"], "stack": "linux2.6"}
    exp = small(
        sweep={**SMALL["sweep"], "base": base},
        variants=[{"name": "defaults", "text": "hscc's defaults", "unset": ["stack"]}],
    )
    data = exp.sweep_data(False, variant=exp.variant("defaults"))
    assert "stack" not in data["base"]
    assert exp.sweep["base"]["stack"] == "linux2.6"  # the main set-up is kept
    from hscc.reproduce import tables

    assert tables.variant_lines(exp)[0].startswith("defaults (stack unset; hscc reproduce small")


def test_a_variant_path_the_base_cannot_take_is_refused_before_running():
    exp = small(variants=[{**TICK, "set": {"flows[5].algorithm": "cubic"}}])
    with pytest.raises(experiment.ExperimentError, match=r"set.flows\[5\].algorithm: .*2 entries"):
        rep.reproduce(exp, quick=True, variant="tick")
    with pytest.raises(experiment.ExperimentError, match="not one of its variants"):
        rep.reproduce(exp, quick=True, variant="none")


def test_design_checks_are_counted_apart_from_the_papers_claims():
    from hscc.reproduce import tables

    threshold = {
        "text": "below hscc's threshold",
        "measure": "ratio",
        "kind": "less",
        "a": "reno",
        "than": 100.0,
        "design": True,
    }
    exp = small(claims=[*SMALL["claims"], threshold])
    table = pl.DataFrame(
        {
            "measure": ["stolen", "ratio"],
            "series": ["CUBIC", "Reno"],
            "x": [1.0, 1.0],
            "mean": [0.2, 2.0],
            "verdict": [None, "agrees"],
        }
    )
    checked = compare.claims(exp, table)
    assert [c.design for c in checked] == [False, True] and all(c.holds for c in checked)
    one = rep.Reproduction(exp, False, table, checked, pl.DataFrame(), frame([]), 0.0)
    counts = one.counts()
    assert (counts["claims_held"], counts["claims"]) == (1, 1)
    assert (counts["design_checks_held"], counts["design_checks"]) == (1, 1)
    assert tables.scorecard([one])[0][-3] == "1/1"  # the paper's claims only
    assert "small: below hscc's threshold (holds" in tables.scorecard_markdown([one])
    whole = small(design=True)  # an experiment that checks hscc's design: no scorecard row
    checked = compare.claims(whole, table)
    assert all(c.design for c in checked)
    design = rep.Reproduction(whole, False, table, checked, pl.DataFrame(), frame([]), 0.0)
    assert tables.scorecard([design]) == []
    assert "cubic steals (holds" in tables.scorecard_markdown([design])
    # report.html: no empty scorecard for a paper whose experiments are all design checks
    from hscc.reproduce import html

    page = "".join(html.scorecards([design]))
    assert "<table>" not in page and "cubic steals" in page
    assert "<table>" in "".join(html.scorecards([one]))


def test_the_baselines_published_behaviour_has_a_scorecard_section_of_its_own():
    from hscc.reproduce import tables

    assert set(experiment.BASELINE_PAPERS) <= set(experiment.PAPERS)
    table = pl.DataFrame(
        {
            "measure": ["stolen"],
            "series": ["CUBIC"],
            "x": [1.0],
            "mean": [0.2],
            "verdict": [None],
        }
    )

    def one(name: str, paper: str) -> rep.Reproduction:
        exp = small(name=name, paper=paper)
        return rep.Reproduction(
            exp, False, table, compare.claims(exp, table), pl.DataFrame(), frame([]), 0.0
        )

    both = tables.scorecard_markdown([one("ctcp-x", "ctcp"), one("bbr-x", "bbr")])
    first, heading, second = (
        both.index("| ctcp | ctcp-x"),
        both.index(tables.BASELINES_HEADING),
        both.index("| bbr | bbr-x"),
    )
    assert first < heading < second
    assert both.count("| paper | experiment |") == 2  # each section its own table
    alone = tables.scorecard_markdown([one("bbr-x", "bbr")])
    assert tables.BASELINES_HEADING not in alone and alone.startswith("| paper | experiment |")
    assert tables.BASELINES_HEADING not in tables.scorecard_markdown([one("ctcp-x", "ctcp")])


def test_nan_in_published_numbers_is_no_cell():
    assert math.isnan(small().measures[1].published["reno"][1])
