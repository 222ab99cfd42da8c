"""Never lose a user's data: hscc writes only what it owns, checks --out before running,
keeps run names inside runs/, and cleans up after dead writers but never after live ones."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

import hscc
from conftest import EXAMPLES, ONE_FLOW
from hscc.atomic import _new_locked, atomic_dir, clean_stale
from hscc.cli import app
from hscc.rundir import RunDirError, check_target

runner = CliRunner()
HSCC = str(Path(sys.executable).with_name("hscc"))
LONG = (
    (EXAMPLES / "ctcp-testbed.toml").read_text().replace('duration = "120s"', 'duration = "3600s"')
)


def tree(root: Path) -> dict[str, bytes | None]:
    """Every path under `root` with its content (None for a directory)."""
    return {
        str(p.relative_to(root)): (None if p.is_dir() else p.read_bytes())
        for p in sorted(root.rglob("*"))
    }


@pytest.fixture
def website(tmp_path) -> Path:
    """The directory of the defect report: a manifest.json that is not hscc's, a page and a source tree."""
    site = tmp_path / "site"
    (site / "src").mkdir(parents=True)
    (site / "manifest.json").write_text('{"name": "my web app", "icons": []}')
    (site / "index.html").write_text("<h1>home</h1>")
    (site / "src" / "app.js").write_text("console.log(1)")
    return site


@pytest.mark.parametrize("extra", [[], ["--overwrite"]])
def test_a_directory_with_someone_elses_manifest_is_never_touched(one_flow, website, extra):
    before = tree(website)
    r = runner.invoke(app, ["run", str(one_flow), "--out", str(website), *extra])
    assert r.exit_code == 2, r.output
    assert "is not an hscc run directory; refusing to replace it" in r.stderr
    assert "running" not in r.stderr  # refused before simulating
    assert tree(website) == before


def test_a_run_directory_with_a_users_file_in_it_is_never_replaced(one_flow, tmp_path):
    run_dir = tmp_path / "run"
    assert runner.invoke(app, ["run", str(one_flow), "--out", str(run_dir), "-q"]).exit_code == 0
    (run_dir / "notes.md").write_text("the knee is at 0.3")
    (run_dir / "figures").mkdir()
    before = tree(run_dir)
    r = runner.invoke(app, ["run", str(one_flow), "--out", str(run_dir), "--overwrite"])
    assert r.exit_code == 2 and "holds files hscc did not write (figures/, notes.md)" in r.stderr
    assert tree(run_dir) == before


def test_a_previous_run_is_replaced_only_with_overwrite(one_flow, tmp_path):
    run_dir = tmp_path / "run"
    assert runner.invoke(app, ["run", str(one_flow), "--out", str(run_dir), "-q"]).exit_code == 0
    first = json.loads((run_dir / "manifest.json").read_text())["created"]
    r = runner.invoke(app, ["run", str(one_flow), "--out", str(run_dir), "--seed", "3"])
    assert (
        r.exit_code == 2
        and "holds a previous run; pass --overwrite" in r.stderr
        and "running" not in r.stderr
    )
    assert hscc.load(run_dir).manifest["created"] == first
    r = runner.invoke(
        app, ["run", str(one_flow), "--out", str(run_dir), "--seed", "3", "--overwrite", "-q"]
    )
    assert r.exit_code == 0, r.output
    assert hscc.load(run_dir).manifest["seed"] == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["one-flow.toml", "run"]


def test_the_manifest_marks_the_directory_as_hscc_s(one_flow, tmp_path):
    hscc.run(one_flow).write(tmp_path / "run")
    m = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert (m["kind"], m["format"]) == ("hscc.run", 3)
    # A manifest.json of another shape, or not JSON, or a list, is not a marker.
    for text in ('{"format": 2}', '{"kind": "hscc.run", "format": 99}', "[1, 2]", "not json"):
        (tmp_path / "run" / "manifest.json").write_text(text)
        with pytest.raises(RunDirError, match="not an hscc run directory"):
            check_target(tmp_path / "run", overwrite=True)


def test_an_impossible_out_is_found_before_the_run(one_flow, tmp_path):
    (tmp_path / "a-file").write_text("x")
    r = runner.invoke(app, ["run", str(one_flow), "--out", str(tmp_path / "a-file" / "run")])
    assert (
        r.exit_code == 2
        and "cannot write a run directory there" in r.stderr
        and "running" not in r.stderr
    )
    r = runner.invoke(app, ["run", str(one_flow), "--out", str(tmp_path / "a-file")])
    assert r.exit_code == 2 and "exists and is not a directory" in r.stderr
    assert (tmp_path / "a-file").read_text() == "x"


def test_an_unwritable_out_is_found_before_the_run(one_flow, tmp_path):
    if os.geteuid() == 0:
        place = Path(
            "/proc/hscc-cannot-write-here/run"
        )  # root may write anywhere a file system allows
    else:
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o555)
        place = locked / "run"
    t0 = time.monotonic()
    r = runner.invoke(app, ["run", str(one_flow), "--out", str(place)])
    assert r.exit_code == 2 and "cannot write a run directory there" in r.stderr, r.output
    assert "running" not in r.stderr and time.monotonic() - t0 < 5


def test_parent_directories_made_for_a_run_that_fails_are_removed(write_toml, tmp_path):
    bad = write_toml(
        ONE_FLOW.replace('algorithm = "reno"', 'algorithm = "reno"\nparams = { nope = 1 }')
    )
    r = runner.invoke(app, ["run", str(bad), "--out", str(tmp_path / "deep" / "er" / "run")])
    assert r.exit_code == 2
    assert not (tmp_path / "deep").exists()


@pytest.mark.parametrize(
    "name", ["../../../x", "a/b", "..", ".hidden", "nul\x00byte", "new\nline", "", "x" * 101]
)
def test_scenario_names_are_single_file_name_components(write_toml, tmp_path, monkeypatch, name):
    path = write_toml(ONE_FLOW.replace('name = "one-flow"', f"name = {json.dumps(name)}"))
    deep = tmp_path / "d1" / "d2" / "d3"
    deep.mkdir(parents=True)
    monkeypatch.chdir(deep)  # runs/../../../x would be tmp_path/d1/x
    before = tree(tmp_path)
    r = runner.invoke(app, ["run", str(path)], catch_exceptions=False)
    assert r.exit_code == 2, r.output
    assert (
        "name:" in r.stderr and "usable as a file name" in r.stderr and "Traceback" not in r.stderr
    )
    assert tree(tmp_path) == before


def test_a_name_taken_from_an_odd_file_name_is_made_safe(tmp_path):
    odd = tmp_path / ".weird\tname.toml"
    odd.write_text(ONE_FLOW.replace('name = "one-flow"\n', ""))
    assert hscc.Scenario.from_toml(odd).name == "weird_name"


def test_two_runs_in_the_same_second_get_two_directories(one_flow, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    dirs = [runner.invoke(app, ["run", str(one_flow), "-q"]).stdout.strip() for _ in range(2)]
    assert dirs[0] != dirs[1] and all((tmp_path / d / "manifest.json").is_file() for d in dirs)


# --- dead writers -----------------------------------------------------------------------


def _start_long_run(path: Path, out: Path) -> subprocess.Popen:
    proc = subprocess.Popen(
        [HSCC, "run", str(path), "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = proc.stderr.readline()  # printed once the target is reserved
    assert line.startswith(f"running {path}"), line
    return proc


def _hidden(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name.startswith("."))


def test_a_killed_run_leaves_a_hidden_directory_that_the_next_run_removes(
    write_toml, one_flow, tmp_path
):
    long = write_toml(LONG, "long.toml")
    runs = tmp_path / "runs"
    killed = _start_long_run(long, runs / "killed")
    killed.kill()
    killed.communicate(timeout=30)
    stale = _hidden(runs)
    assert (
        len(stale) == 1
        and stale[0].startswith(".killed.hscc-tmp-")
        and not (runs / "killed").exists()
    )
    shutil.copytree(
        runs / stale[0], runs / stale[0].replace("killed", "killed2")
    )  # a second, for the next run
    live = _start_long_run(long, runs / "live")  # its start cleans up the first
    try:
        assert [h for h in _hidden(runs) if h.startswith(".killed.")] == []
        r = runner.invoke(app, ["run", str(one_flow), "--out", str(runs / "next"), "-q"])
        assert r.exit_code == 0, r.output
        left = _hidden(runs)
        assert not any(
            h.startswith(".killed2.") for h in left
        )  # the dead process's directory is gone
        assert any(h.startswith(".live.hscc-tmp-") for h in left)  # the live one's is kept
    finally:
        live.send_signal(signal.SIGINT)
        live.communicate(timeout=30)
    assert _hidden(runs) == [] and sorted(p.name for p in runs.iterdir()) == ["next"]


def test_a_previous_run_moved_aside_by_a_dead_writer_is_put_back(one_flow, tmp_path):
    runs = tmp_path / "runs"
    hscc.run(one_flow).write(runs / "kept")
    before = tree(runs / "kept")
    # What a writer killed between moving the old run aside and renaming the new one in leaves.
    old = _hscc_hidden(runs, "kept", "old")
    os.rename(runs / "kept", old / "kept")
    tmp = _hscc_hidden(runs, "kept", "tmp")
    (tmp / "manifest.json").write_text("{}")
    cleaned = clean_stale(runs)
    assert (
        sorted(cleaned) == sorted([old, tmp])
        and tree(runs / "kept") == before
        and _hidden(runs) == []
    )


def _hscc_hidden(parent: Path, name: str, kind: str) -> Path:
    """A hidden directory as a writer makes it (marked and named), left unlocked as by a dead process."""
    path, fd = _new_locked(parent, name, kind)
    os.close(fd)
    return path


DIE_UNMARKED = """
import os, sys
from pathlib import Path
import hscc.atomic as atomic
atomic._mark = lambda directory, token: os._exit(9)  # SIGKILL's moment: made, not yet marked
atomic._new_locked(Path(sys.argv[1]), "run", "tmp")
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="claim files need O_TMPFILE")
@pytest.mark.timeout(60)
def test_a_writer_killed_before_marking_its_directory_leaves_a_claim_that_clears_it(tmp_path):
    died = subprocess.run([sys.executable, "-c", DIE_UNMARKED, str(tmp_path)], timeout=30)
    assert died.returncode == 9
    left = sorted(p.name for p in tmp_path.iterdir())
    assert [n.split("-")[1] for n in left] == ["claim", "new"], left
    claim, new = sorted(tmp_path.iterdir())
    assert new.is_dir() and not any(new.iterdir()), "the directory died empty and unmarked"
    assert sorted(clean_stale(tmp_path)) == [claim, new] and not any(tmp_path.iterdir())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="claim files need O_TMPFILE")
def test_a_live_writer_s_claim_and_a_claim_that_is_not_hscc_s_are_left_alone(tmp_path):
    from hscc.atomic import _claim

    path, fd = _claim(tmp_path, "run", "abc123")
    (tmp_path / ".run.hscc-new-abc123").mkdir()
    (tmp_path / ".x.hscc-claim-def456").write_text("my notes\n")
    (tmp_path / ".x.hscc-new-def456").mkdir()
    before = tree(tmp_path)
    try:
        assert clean_stale(tmp_path) == [] and tree(tmp_path) == before
    finally:
        os.close(fd)
    assert sorted(clean_stale(tmp_path)) == [path, tmp_path / ".run.hscc-new-abc123"]
    assert sorted(tree(tmp_path)) == [".x.hscc-claim-def456", ".x.hscc-new-def456"]


def test_clean_up_touches_only_hscc_s_hidden_directories(tmp_path):
    for name in (".git", ".run.tmp-abc", ".cache.hscc-tmp", "run.hscc-tmp-abc"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "keep").write_text("mine")
    before = tree(tmp_path)
    assert clean_stale(tmp_path) == [] and tree(tmp_path) == before


def test_clean_up_never_touches_a_user_s_directory_named_like_hscc_s(tmp_path):
    # Names of hscc's shape, made by someone else: no marker, so neither removed nor moved.
    (tmp_path / ".photos.hscc-tmp-2023").mkdir()
    (tmp_path / ".photos.hscc-tmp-2023" / "beach.jpg").write_bytes(b"jpeg")
    (tmp_path / ".notes.hscc-old-abc").mkdir()
    (tmp_path / ".notes.hscc-old-abc" / "todo.txt").write_text("mine")
    (tmp_path / ".empty.hscc-new-xyz").mkdir()
    os.utime(tmp_path / ".empty.hscc-new-xyz", (0, 0))  # older than any grace period
    # A marker that names another token (a copy of hscc's directory) proves nothing either.
    (tmp_path / ".copy.hscc-tmp-aaa").mkdir()
    (tmp_path / ".copy.hscc-tmp-aaa" / ".hscc-writer").write_text("hscc atomic directory bbb\n")
    before = tree(tmp_path)
    assert clean_stale(tmp_path) == [] and tree(tmp_path) == before
    r = runner.invoke(
        app, ["run", str(EXAMPLES / "two-reno-rtt.toml"), "--out", str(tmp_path / "run"), "-q"]
    )
    assert r.exit_code == 0, r.output
    assert {k: v for k, v in tree(tmp_path).items() if not k.startswith("run")} == before


def test_a_target_that_appears_during_the_run_is_not_replaced(tmp_path):
    target = tmp_path / "run"
    with pytest.raises(RunDirError, match="not an hscc run directory"):
        with atomic_dir(target, lambda d: check_target(d, overwrite=True)) as tmp:
            (tmp / "manifest.json").write_text("{}")
            target.mkdir()
            (target / "thesis.tex").write_text("mine")
    assert (target / "thesis.tex").read_text() == "mine" and _hidden(tmp_path) == []


def test_plot_replaces_only_its_own_file(tmp_path):
    run_dir = hscc.run(EXAMPLES / "two-reno-rtt.toml").write(tmp_path / "run")
    assert runner.invoke(app, ["plot", str(run_dir)]).exit_code == 0
    assert runner.invoke(app, ["plot", str(run_dir)]).exit_code == 0  # its own plot.png
    mine = tmp_path / "figure.png"
    mine.write_bytes(b"my figure")
    r = runner.invoke(app, ["plot", str(run_dir), "--out", str(mine)])
    assert (
        r.exit_code == 2
        and "exists; pass --overwrite" in r.stderr
        and mine.read_bytes() == b"my figure"
    )
    assert (
        runner.invoke(app, ["plot", str(run_dir), "--out", str(mine), "--overwrite"]).exit_code == 0
    )
    assert mine.read_bytes()[:4] == b"\x89PNG"
