"""Run directories: what they hold, loading them back, and writing them atomically."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

import hscc
from hscc import RunDirError
from hscc.results import FILES


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
    assert m["engine_config"]["topology"]["links"][0]["cfg"]["buffer"] == {"packets": 17}  # 10 Mbit/s × 21.3 ms / 1500 B
    assert m["git"] is None or len(m["git"]["commit"]) == 40
    s = json.loads((run_dir / "summary.json").read_text())
    assert s["flows"][0]["goodput_bps"] == result.flows["goodput_bps"][0]
    assert s["jain_index"] == pytest.approx(1.0)
    assert [link["name"] for link in s["links"]][:2] == ["bottleneck:fwd", "bottleneck:rev"]


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
    assert sorted(p.name for p in run_dir.iterdir()) == sorted(FILES)  # the old plot went with the old run
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
