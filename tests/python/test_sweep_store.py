"""A sweep's store: runs saved together through one staging directory (or written into it
by workers), each renamed into place whole; a whole run already there is kept, a broken
one replaced, and a staging directory a dead writer left is removed when the next sweep
prepares the store."""

from __future__ import annotations

import os
import tomllib

import pytest

import hscc
from conftest import ONE_FLOW
from hscc.atomic import _new_locked, clean_stale, staging_dir
from hscc.rundir import FILES
from hscc.sweeps import sweepdir
from hscc.sweeps.store import RunStore, write_run

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def files() -> dict[str, bytes]:
    return hscc.run(tomllib.loads(ONE_FLOW.replace('duration = "10s"', 'duration = "1s"'))).files()


def test_runs_saved_together_are_each_whole_and_nothing_else_is_left(files, tmp_path):
    store = RunStore(tmp_path / "runs")
    store.save({"a": files, "b": files})
    assert sorted(os.listdir(store.root)) == ["a", "b"]
    for key in "ab":
        assert store.has(key)
        assert {p.name: p.read_bytes() for p in store.path(key).iterdir()} == files


def test_a_whole_run_is_kept_and_a_broken_one_replaced(files, tmp_path):
    store = RunStore(tmp_path / "runs")
    store.save({"whole": files, "broken": files})
    (store.path("broken") / "flows.parquet").unlink()  # a file removed by hand
    assert not store.has("broken")
    other = {**files, "summary.json": files["summary.json"] + b" "}
    store.save({"whole": other, "broken": other})
    assert store.path("whole").joinpath("summary.json").read_bytes() == files["summary.json"]
    assert store.has("broken")
    assert store.path("broken").joinpath("summary.json").read_bytes() == other["summary.json"]
    assert sorted(os.listdir(store.root)) == ["broken", "whole"]


def test_a_failed_save_leaves_no_run_and_no_staging(files, tmp_path):
    store = RunStore(tmp_path / "runs")
    with pytest.raises(TypeError):
        store.save({"good": files, "bad": {**files, "flows.parquet": None}})  # type: ignore[dict-item]
    assert os.listdir(store.root) == []


def test_runs_workers_staged_are_placed_whole_and_a_dead_attempts_half_is_replaced(files, tmp_path):
    store = RunStore(tmp_path / "runs")
    with store.staging() as staging:
        os.mkdir(os.path.join(staging, "b"))  # an attempt whose worker died while writing
        with open(os.path.join(staging, "b", "stale.json"), "wb") as f:
            f.write(b"{")
        for key in "ab":
            write_run(os.path.join(staging, key), files)
        assert sorted(os.listdir(store.root)) == [os.path.basename(staging)]  # nothing visible
        store.place(staging, ["a", "b"])
        assert sorted(os.listdir(staging)) == [".hscc-lock", ".hscc-writer"]
    assert sorted(os.listdir(store.root)) == ["a", "b"]
    for key in "ab":
        assert {p.name: p.read_bytes() for p in store.path(key).iterdir()} == files


def test_a_run_not_written_whole_leaves_nothing_in_the_staging_directory(files, tmp_path):
    store = RunStore(tmp_path / "runs")
    with store.staging() as staging:
        with pytest.raises(TypeError):
            write_run(os.path.join(staging, "bad"), {**files, "flows.parquet": None})  # type: ignore[dict-item]
        assert not os.path.exists(os.path.join(staging, "bad"))
    assert os.listdir(store.root) == []


def test_a_dead_writers_staging_directory_goes_when_the_next_sweep_starts(write_toml, tmp_path):
    base = write_toml(ONE_FLOW.replace('duration = "10s"', 'duration = "1s"'), "one.toml")
    hscc.sweep(base, {}, replicates=1, out=tmp_path / "sweep", jobs=1)
    root = tmp_path / "sweep" / sweepdir.RUNS
    staging, held = _new_locked(root, "runs", "tmp")  # as `staging_dir` makes it
    (staging / "half").mkdir()
    (staging / "half" / FILES[0]).write_bytes(b"{")
    held.release()  # its writer died: its locks went with it
    r = hscc.sweep(base, {}, replicates=2, out=tmp_path / "sweep", jobs=1)
    assert sorted(r.points["status"].to_list()) == ["cached", "ok"]
    assert sorted(os.listdir(root)) == sorted(r.points["run"].to_list())


def test_a_live_writers_staging_directory_is_left_alone(tmp_path):
    with staging_dir(tmp_path, "runs") as staging:
        (staging / "run").mkdir()
        assert clean_stale(tmp_path) == []
        assert staging.is_dir()
    assert os.listdir(tmp_path) == []
