"""Run directories: what they hold, loading them back, and writing them atomically."""

from __future__ import annotations

import io
import json
import math
from datetime import date
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import hscc
from hscc import RunDirError, results
from hscc.results import FILES, FRAMES


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    from conftest import ONE_FLOW

    path = tmp_path_factory.mktemp("scenario") / "one-flow.toml"
    path.write_text(ONE_FLOW)
    return hscc.run(path)


def test_write_then_load_gives_the_same_result(result, tmp_path):
    run_dir = result.write(tmp_path / "run")
    assert sorted(p.name for p in run_dir.iterdir()) == sorted(FILES)
    back = hscc.load(run_dir)
    for name in ("flows", "links", "timeseries", "queues"):
        assert getattr(back, name).equals(getattr(result, name)), name
    assert back.summary == result.summary and back.manifest == result.manifest
    assert back.timeseries.schema["cwnd"] == pl.UInt32 and back.flows.schema["retrans"] == pl.UInt64
    # The scenario as run reproduces the run.
    assert hscc.run(back.scenario).flows.equals(result.flows)


def test_manifest_and_summary_say_what_was_run(result, tmp_path):
    run_dir = result.write(tmp_path / "run")
    m = json.loads((run_dir / "manifest.json").read_text())
    assert m["hscc_version"] == hscc.__version__ and m["engine_version"] == hscc.engine_version()
    assert m["seed"] == 7 and m["wall_time_s"] > 0 and m["events"] > 0
    assert m["scenario"]["name"] == "one-flow" and m["scenario"]["duration"] == 10.0
    assert m["scenario_file"].endswith("one-flow.toml")
    # The engine's configuration is not copied: the scenario resolves to it.
    assert "engine_config" not in m
    config = json.loads(hscc.load(run_dir).scenario.resolved().config())
    assert config["topology"]["links"][0]["cfg"]["buffer"] == {
        "packets": 17
    }  # 10 Mbit/s × 21.3 ms / 1500 B
    assert m["git"] is None or len(m["git"]["commit"]) == 40
    s = json.loads((run_dir / "summary.json").read_text())
    assert s["flows"][0]["goodput_bps"] == result.flows["goodput_bps"][0]
    assert s["jain_index"] == pytest.approx(1.0)
    assert [link["name"] for link in s["links"]][:2] == ["bottleneck:fwd", "bottleneck:rev"]
    assert s["idle_links"] == 0  # every link of one pair carries its flow


def test_an_interrupted_write_leaves_nothing_half_written(result, tmp_path, monkeypatch):
    run_dir = result.write(tmp_path / "run")
    before = {p.name: p.read_bytes() for p in run_dir.iterdir()}

    calls = []

    def interrupted(self, data):
        calls.append(self)
        if len(calls) == 3:  # after two of the run directory's eight files
            raise KeyboardInterrupt
        return original(self, data)

    original = Path.write_bytes
    monkeypatch.setattr(Path, "write_bytes", interrupted)
    with pytest.raises(KeyboardInterrupt):
        result.write(run_dir, overwrite=True)
    assert len(calls) == 3
    # The previous run is untouched and no temporary directory is left beside it.
    assert {p.name: p.read_bytes() for p in run_dir.iterdir()} == before
    assert [p.name for p in tmp_path.iterdir()] == ["run"]
    # A first write that is interrupted leaves no run directory at all.
    calls.clear()
    with pytest.raises(KeyboardInterrupt):
        result.write(tmp_path / "fresh")
    assert not (tmp_path / "fresh").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["run"]


def test_a_rewrite_replaces_the_previous_run_only_when_asked(result, tmp_path):
    run_dir = result.write(tmp_path / "run")
    (run_dir / "plot.png").write_bytes(b"old plot")
    with pytest.raises(RunDirError, match="holds a previous run; pass --overwrite"):
        result.write(run_dir)
    assert (run_dir / "plot.png").read_bytes() == b"old plot"
    result.write(run_dir, overwrite=True)
    assert sorted(p.name for p in run_dir.iterdir()) == sorted(
        FILES
    )  # the old plot went with the old run
    assert [p.name for p in tmp_path.iterdir()] == ["run"]


def test_a_directory_that_is_not_a_run_is_never_replaced(result, tmp_path):
    precious = tmp_path / "thesis"
    precious.mkdir()
    (precious / "chapter1.tex").write_text("…")
    with pytest.raises(RunDirError, match="not an hscc run directory; refusing"):
        result.write(precious)
    assert (precious / "chapter1.tex").read_text() == "…"


def test_loading_something_else_is_a_clear_error(tmp_path):
    with pytest.raises(RunDirError, match="is not an hscc run directory .missing: manifest.json"):
        hscc.load(tmp_path)
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    for name in FILES:
        (run_dir / name).write_text("{}")
    with pytest.raises(RunDirError, match="its manifest.json is not hscc's"):
        hscc.load(run_dir)


def _via_extension(frame: pl.DataFrame) -> pl.DataFrame:
    return pl.read_parquet(io.BytesIO(results._parquet({"t": frame})["t"]))


def _via_polars(frame: pl.DataFrame) -> pl.DataFrame:
    buf = io.BytesIO()
    frame.write_parquet(buf)
    return pl.read_parquet(io.BytesIO(buf.getvalue()))


def test_the_run_tables_read_back_as_polars_writes_them(result):
    # The extension writes the tables (polars was 6x slower, docs/performance.md); polars reads
    # them back with the same columns, dtypes and values as the files it writes itself.
    for name in FRAMES:
        frame = getattr(result, name)
        assert_frame_equal(_via_extension(frame), frame, check_exact=True)
        assert_frame_equal(_via_extension(frame), _via_polars(frame), check_exact=True)
    for schema in (results.FLOWS, results.TIMESERIES, results.QUEUES, results.UDP, results.WEB):
        assert _via_extension(pl.DataFrame(schema=schema)).schema == pl.Schema(
            schema
        )  # empty tables


def test_every_value_of_every_table_dtype_survives_the_writer():
    # Nulls, extreme integers, NaN, infinities and -0.0, non-ASCII text, empty and null lists,
    # null list elements, a long list; then every prefix of the table (0 rows included).
    frame = pl.DataFrame(
        {
            "f": [None, 0.0, -0.0, 1e-300, -1.5e308, math.inf, -math.inf, math.nan],
            "u32": [2**32 - 1, None, 0, 1, 7, 2**31, 2**31 - 1, 3],
            "u64": [2**64 - 1, 2**63, None, 0, 1, 2**32, 5, 6],
            "i64": [-(2**63), 2**63 - 1, -1, None, 0, 1, 2, 3],
            "s": ["", None, "bottleneck:fwd", "Ωμέγα ✓", "a" * 300, "x", "y", "z"],
            "b": [True, False, None, True, True, False, False, True],
            "l": [[], None, [None], [1.0, None, math.nan], [0.5] * 100, [math.inf], [], [2.0, 3.0]],
        },
        schema={
            "f": pl.Float64,
            "u32": pl.UInt32,
            "u64": pl.UInt64,
            "i64": pl.Int64,
            "s": pl.String,
            "b": pl.Boolean,
            "l": pl.List(pl.Float64),
        },
    )
    for rows in range(frame.height + 1):
        assert_frame_equal(_via_extension(frame.head(rows)), frame.head(rows), check_exact=True)
    assert_frame_equal(_via_extension(frame), _via_polars(frame), check_exact=True)


def test_a_column_the_writer_does_not_know_is_a_clear_error():
    with pytest.raises(ValueError, match="column when: no Parquet writer for dtype Date"):
        results._parquet({"t": pl.DataFrame({"when": [date(2026, 1, 1)]})})


EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.toml"))
TRACES = ([], ["flows"], ["queues"], ["flows", "queues"])


def _python_indent(data) -> bytes:
    """What summary.json and manifest.json were before the extension laid them out."""
    return (json.dumps(data, indent=2, allow_nan=False) + "\n").encode()


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_the_json_files_are_pythons_indented_json_byte_for_byte(example):
    import tomllib

    assert len(EXAMPLES) >= 4
    for traces in TRACES:
        data = tomllib.loads(example.read_text())
        data["duration"] = "1s"
        for change in data.get("changes", []):
            change["at"] = "0.5s"  # within the shortened run
        data.setdefault("output", {})["traces"] = traces
        r = hscc.run(data)
        files = r.files()
        assert files["summary.json"] == _python_indent(r.summary)
        assert files["manifest.json"] == _python_indent(r.manifest)
        assert json.loads(files["summary.json"]) == r.summary


def test_the_json_layout_holds_for_awkward_values():
    import random

    rng = random.Random(11)
    atoms = [
        None,
        True,
        False,
        0,
        -1,
        2**70,
        -0.0,
        1e-300,
        1.5e16,
        1e22,
        0.1,
        -2.5e-7,
        "",
        "a,b:c",
        '[{"}]',
        "back\\slash\\",
        '\\"',
        "tab\tnew\nline",
        "Ωμέγα ✓",
        "\u0000\u001f",
        "{}",
        "[]",
        " , : ",
    ]

    def value(depth):
        pick = rng.random()
        if depth > 3 or pick < 0.5:
            return rng.choice(atoms)
        if pick < 0.75:
            return [value(depth + 1) for _ in range(rng.randint(0, 4))]
        return {
            rng.choice([a for a in atoms if isinstance(a, str)]) + str(k): value(depth + 1)
            for k in range(rng.randint(0, 4))
        }

    for _ in range(500):
        data = value(0)
        assert results._json(data) == _python_indent(data), data
    with pytest.raises(ValueError):
        results._json({"x": math.nan})


def test_the_manifest_holds_a_copy_of_the_scenario_as_run(result):
    scenario = result.scenario
    assert result.manifest["scenario"] == scenario.to_dict()
    r = hscc.run(scenario)
    r.manifest["scenario"]["name"] = "changed"
    assert scenario.name == result.manifest["scenario"]["name"] != "changed"


def test_empty_tables_are_copies():
    a = results._empty(results.UDP)
    a.insert_column(0, pl.Series("extra", [], dtype=pl.Int64))
    assert results._empty(results.UDP).schema == pl.Schema(results.UDP)
    assert results._empty(results.WEB).equals(pl.DataFrame(schema=results.WEB))


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_the_engines_files_are_the_tables_and_summary_python_would_write(example):
    # The engine writes a run's tables and summary.json (a sweep's worker passes them on unread):
    # each Parquet file is the one the extension writes from the frame it reads back as; summary.json
    # is byte for byte json.dumps(indent=2) of its own content; its rows are the tables' rows.
    import tomllib

    data = tomllib.loads(example.read_text())
    data["duration"] = "25s"
    data.setdefault("output", {})["traces"] = ["flows", "queues"]
    r = hscc.run(data)
    written = r.files()
    assert all(isinstance(r._tables[name], bytes) for name in FRAMES)  # files() read no table
    for name in FRAMES:
        frame = getattr(r, name)
        assert frame.schema == pl.Schema(results._SCHEMAS[name])
        assert written[f"{name}.parquet"] == results._parquet({name: frame})[name]
    text = written["summary.json"]
    assert text == (json.dumps(json.loads(text), indent=2) + "\n").encode()
    summary = json.loads(text)
    assert summary["flows"] == [
        {k: v for k, v in row.items() if k != "signals_s"} for row in r.flows.iter_rows(named=True)
    ]
    links = list(r.links.iter_rows(named=True))
    reached = [row for row in links if row["tx_packets"] + row["drops"] > 0]
    assert summary["links"] == reached and summary["idle_links"] == len(links) - len(reached)
    assert summary["udp"] == list(r.udp.iter_rows(named=True))
    assert summary["web"] == [
        {
            "web": i,
            "label": w.get("label") or f"web {i}",
            **{k: summary["web"][i][k] for k in ("started", "completed", "refused")},
        }
        for i, w in enumerate(data.get("web", []))
    ]
    assert r.cc_log.height == 0


def test_a_flows_mean_srtt_is_the_correctly_rounded_mean_of_its_samples():
    # Not polars' mean (its summation order may change with polars): math.fsum of the positive samples over their count.
    data = {
        "name": "m",
        "duration": "20s",
        "output": {"sample_interval": "10ms", "traces": ["flows"]},
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate": "50Mbps", "delay": "1ms", "buffer": "1bdp"},
            "pairs": [{"rate": "1Gbps", "rtt": "40ms"}, {"rate": "1Gbps", "rtt": "90ms"}],
        },
        "flows": [{"pair": 0, "algorithm": "reno"}, {"pair": 1, "algorithm": "cubic"}],
    }
    r = hscc.run(data)
    for row in r.flows.iter_rows(named=True):
        samples = r.timeseries.filter((pl.col("flow") == row["flow"]) & (pl.col("srtt_s") > 0))[
            "srtt_s"
        ].to_list()
        assert len(samples) > 1000
        assert row["mean_srtt_s"] == math.fsum(samples) / len(samples)
    assert r.summary["total_goodput_bps"] == sum(r.flows["goodput_bps"].to_list())


def test_plot_without_a_file_returns_the_figure(tmp_path):
    from matplotlib.figure import Figure

    result = hscc.run(Path(__file__).resolve().parents[2] / "examples" / "two-reno-rtt.toml")
    fig = result.plot(size="column")
    assert isinstance(fig, Figure) and abs(fig.get_size_inches()[0] - 3.5) < 0.01
    assert fig.axes and any(ax.get_lines() for ax in fig.axes)
    assert result.plot(tmp_path / "p.pdf")[0].read_bytes()[:4] == b"%PDF"


def test_a_notebook_shows_a_run_and_a_sweep_as_their_tables(one_flow):
    """Jupyter calls `_repr_html_`: the same summary the CLI prints, as HTML."""
    r = hscc.run(one_flow)
    page = r._repr_html_()
    assert page.startswith("<") and "reno 0" in page and "goodput" in page
    s = hscc.sweep(one_flow, {"flows[0].algorithm": ["reno", "cubic"]}, jobs=1)
    page = s._repr_html_()
    assert "flows[0].algorithm" in page and "cubic" in page


def test_the_run_directory_columns_doc_is_current():
    doc = Path(__file__).parents[2] / "docs" / "run-directory.md"
    assert doc.read_text() == results.columns_markdown() + "\n", (
        "docs/run-directory.md is stale: run `hscc fields --run-directory > docs/run-directory.md`"
    )
