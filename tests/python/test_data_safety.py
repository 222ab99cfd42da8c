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
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

import hscc
import hscc.atomic
from conftest import EXAMPLES, ONE_FLOW, holding
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
    """A hidden directory as a writer makes it (lock file, marker), its lock let go as by a
    dead process."""
    path, held = _new_locked(parent, name, kind)
    held.release()
    return path


DIE_UNMARKED = """
import os, sys
from pathlib import Path
import hscc.atomic as atomic
atomic._mark = lambda directory, token: os._exit(9)  # SIGKILL's moment: locked, not yet marked
atomic._new_locked(Path(sys.argv[1]), "run", "tmp")
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="claim files need O_TMPFILE")
@pytest.mark.timeout(60)
def test_a_writer_killed_before_marking_its_directory_leaves_a_claim_that_clears_it(tmp_path):
    died = subprocess.run([sys.executable, "-c", DIE_UNMARKED, str(tmp_path)], timeout=30)
    assert died.returncode == 9
    left = sorted(p.name for p in tmp_path.iterdir())
    assert [n.split("-")[1] for n in left] == ["claim", "tmp"], left
    claim, tmp = sorted(tmp_path.iterdir())
    assert sorted(tree(tmp)) == [".hscc-lock"], "the directory died unmarked, with its lock file"
    assert sorted(clean_stale(tmp_path)) == [claim, tmp] and not any(tmp_path.iterdir())


DIE_HALF_MARKED = """
import os, sys
from pathlib import Path
import hscc.atomic as atomic
def mark(directory, token):
    (directory / ".hscc-writer").write_bytes(b"hscc atom")  # SIGKILL's moment: half a marker
    os._exit(9)
atomic._mark = mark
atomic._new_locked(Path(sys.argv[1]), "run", "tmp")
"""

DIE_REMOVING = """
import os, sys
from pathlib import Path
import hscc.atomic as atomic
with atomic.staging_dir(Path(sys.argv[1]), "runs") as staging:
    (staging / "a-run").mkdir()
    (staging / "a-run" / "summary.json").write_text("{}")
    atomic.Path.rmdir = lambda self: os._exit(9)  # SIGKILL's moment: emptied and unmarked
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="claim files need O_TMPFILE")
@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("script", "inside"),
    [(DIE_HALF_MARKED, [".hscc-lock", ".hscc-writer"]), (DIE_REMOVING, [])],
    ids=["marking", "removing"],
)
def test_a_writer_killed_while_its_directory_is_unmarked_leaves_a_claim_that_clears_it(
    tmp_path, script, inside
):
    died = subprocess.run([sys.executable, "-c", script, str(tmp_path)], timeout=30)
    assert died.returncode == 9
    left = sorted(tmp_path.iterdir())
    assert [p.name.split("-")[1] for p in left] == ["claim", "tmp"], left
    claim, tmp = left
    assert sorted(tree(tmp)) == inside and not hscc.atomic._marked(tmp, tmp.name.split("-")[-1])
    assert sorted(clean_stale(tmp_path)) == [claim, tmp] and not any(tmp_path.iterdir())


def test_a_removed_directory_leaves_no_claim(tmp_path):
    with hscc.atomic.staging_dir(tmp_path, "runs") as staging:
        (staging / "a-run").mkdir()
    assert not any(tmp_path.iterdir())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="claim files need O_TMPFILE")
def test_a_live_writer_s_claim_and_a_claim_that_is_not_hscc_s_are_left_alone(tmp_path):
    from hscc.atomic import _claim

    path, claim = _claim(tmp_path, "run", "abc123")
    (tmp_path / ".run.hscc-tmp-abc123").mkdir()  # locked, not yet marked
    (tmp_path / ".run.hscc-tmp-abc123" / ".hscc-lock").touch()
    (tmp_path / ".run.hscc-new-abc123").mkdir()  # an older version's, not yet marked
    (tmp_path / ".x.hscc-claim-def456").write_text("my notes\n")
    (tmp_path / ".x.hscc-new-def456").mkdir()
    before = tree(tmp_path)
    try:
        assert clean_stale(tmp_path) == [] and tree(tmp_path) == before
    finally:
        claim.close()
    assert sorted(clean_stale(tmp_path)) == [
        path,
        tmp_path / ".run.hscc-new-abc123",
        tmp_path / ".run.hscc-tmp-abc123",
    ]
    assert sorted(tree(tmp_path)) == [".x.hscc-claim-def456", ".x.hscc-new-def456"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="claim files need O_TMPFILE")
def test_a_dead_claim_over_a_directory_with_someone_elses_files_removes_neither(tmp_path):
    from hscc.atomic import _claim

    path, claim = _claim(tmp_path, "run", "abc123")
    claim.close()  # its writer is dead
    (tmp_path / ".run.hscc-tmp-abc123").mkdir()  # unmarked, and not empty: not hscc's to remove
    (tmp_path / ".run.hscc-tmp-abc123" / "notes.txt").write_text("mine")
    before = tree(tmp_path)
    assert clean_stale(tmp_path) == [] and tree(tmp_path) == before


# A writer in another process: `kinds` hidden directories beside runs/run (an "old" one holds
# the previous run), each with a file, held until stdin closes.
HOLD = """
import os, sys
from pathlib import Path
import hscc.atomic as atomic
parent = Path(sys.argv[1])
holding = []  # each lock lives as long as its handle
for kind in sys.argv[2:]:
    path, held = atomic._new_locked(parent, "run", kind)
    holding.append(held)
    if kind == "old":
        os.rename(parent / "run", path / "run")
    else:
        (path / "flows.parquet").write_bytes(b"half a run")
    print(path, flush=True)
sys.stdin.read()
"""


def _hold(parent: Path, *kinds: str) -> tuple[subprocess.Popen, list[Path]]:
    proc = holding(HOLD, str(parent), *kinds)
    return proc, [Path(proc.stdout.readline().strip()) for _ in kinds]


@pytest.mark.timeout(60)
def test_a_live_writer_s_directories_are_never_touched_and_a_dead_one_s_are(tmp_path):
    runs = tmp_path / "runs"
    (runs / "run").mkdir(parents=True)
    (runs / "run" / "manifest.json").write_text("the previous run")
    proc, (tmp, old) = _hold(runs, "tmp", "old")
    try:
        before = tree(runs)
        assert sorted(tree(tmp)) == [".hscc-lock", ".hscc-writer", "flows.parquet"]
        for _ in range(3):
            assert clean_stale(runs) == [] and tree(runs) == before
        r = runner.invoke(
            app, ["run", str(EXAMPLES / "two-reno-rtt.toml"), "--out", str(runs / "b"), "-q"]
        )
        assert r.exit_code == 0, r.output  # its clean-up too left the live writer's alone
        assert {k: v for k, v in tree(runs).items() if not k.startswith("b")} == before
    finally:
        proc.kill()
        proc.communicate(timeout=30)
    # Killed: the run it moved aside is put back, its half-written directory removed.
    assert sorted(clean_stale(runs)) == [old, tmp]
    assert tree(runs / "run") == {"manifest.json": b"the previous run"} and _hidden(runs) == []


def test_a_writer_holds_its_lock_from_before_its_marker_until_after_it(tmp_path, monkeypatch):
    """At every step of a write, a clean-up beside it removes nothing (flock locks of two
    opens of one file exclude each other, so this process's clean-up is as another's)."""
    target = tmp_path / "run"
    target.mkdir()
    (target / "manifest.json").write_text("previous")
    steps: list[str] = []

    def clean_finds_nothing(step: str) -> None:
        steps.append(step)
        hidden = {p.name: tree(p) for p in tmp_path.iterdir() if p.name.startswith(".")}
        assert clean_stale(tmp_path) == [], step
        assert {p.name: tree(p) for p in tmp_path.iterdir() if p.name.startswith(".")} == hidden

    def wrap(name: str, label: Callable[..., str]) -> None:
        real = getattr(hscc.atomic, name)

        def wrapped(*args, **kwargs):
            clean_finds_nothing(f"before {label(*args)}")
            out = real(*args, **kwargs)
            clean_finds_nothing(f"after {label(*args)}")
            return out

        monkeypatch.setattr(hscc.atomic, name, wrapped)

    def locked(directory: Path) -> bool:
        try:
            hscc.atomic._open_locked(directory / ".hscc-lock", create=False).close()
        except BlockingIOError:
            return True
        return False

    real_mark = hscc.atomic._mark

    def mark(directory: Path, token: str) -> None:
        assert locked(directory), "marked only once locked"
        real_mark(directory, token)

    monkeypatch.setattr(hscc.atomic, "_mark", mark)
    wrap("_mark", lambda d, t: f"mark {d.name.split('-')[1]}")
    wrap("_unlink", lambda p: f"unlink {p.name}")
    real_release = hscc.atomic._Held.release

    def release(self):
        clean_finds_nothing("before release")
        real_release(self)

    monkeypatch.setattr(hscc.atomic._Held, "release", release)
    real_rename = os.rename

    def rename(src, dst):
        clean_finds_nothing(f"before rename {Path(src).name} {Path(dst).name}")
        real_rename(src, dst)

    monkeypatch.setattr(os, "rename", rename)
    with atomic_dir(target, lambda _: None) as d:
        (d / "manifest.json").write_text("new")
        clean_finds_nothing("filling")
    monkeypatch.undo()
    assert tree(target) == {"manifest.json": b"new"} and _hidden(tmp_path) == []
    order = [s for s in steps if s.startswith("before ") and "mark" not in s]
    # The finish: marker, then the lock (let go, its file removed), then the swap.
    i = order.index("before unlink .hscc-writer")
    assert order[i : i + 3] == [
        "before unlink .hscc-writer",
        "before release",
        "before unlink .hscc-lock",
    ], order
    swap = next(s for s in order if s.startswith("before rename .run.hscc-tmp-"))
    assert swap.endswith(" run") and order.index(swap) > i + 2, order


def test_every_lock_is_let_go_before_its_directory_is_removed(tmp_path, monkeypatch):
    """Windows removes no open file: a cleaner and a writer close a directory's lock file
    before they remove the directory (a lock file that can be locked is open nowhere else,
    since this module holds its lock files locked while they are open)."""
    removed: list[str] = []
    real_remove = hscc.atomic._remove_hidden

    def remove(path: Path) -> None:
        if (path / ".hscc-lock").exists():
            hscc.atomic._open_locked(path / ".hscc-lock", create=False).close()  # not held
        removed.append(path.name.split("-")[1])
        real_remove(path)

    monkeypatch.setattr(hscc.atomic, "_remove_hidden", remove)
    _hscc_hidden(tmp_path, "dead", "tmp")  # a dead writer's, for the clean-up
    target = tmp_path / "run"
    for text in ("first", "second"):  # the second moves the first aside and removes it
        with atomic_dir(target, lambda _: None) as d:
            (d / "manifest.json").write_text(text)
    with pytest.raises(KeyboardInterrupt):  # a write that fails removes its directory
        with atomic_dir(target, lambda _: None) as d:
            raise KeyboardInterrupt
    assert removed == ["tmp", "old", "tmp"] and _hidden(tmp_path) == []
    assert tree(target) == {"manifest.json": b"second"}


LEGACY_HOLD = """
import fcntl, os, sys
from pathlib import Path
d = Path(sys.argv[1])
d.mkdir()
(d / ".hscc-writer").write_text("hscc atomic directory abc123\\n")
(d / "flows.parquet").write_bytes(b"half a run")
fd = os.open(d, os.O_RDONLY)
fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
print("held", flush=True)
sys.stdin.read()
"""


@pytest.mark.skipif(sys.platform == "win32", reason="a directory's flock is POSIX")
@pytest.mark.timeout(60)
def test_an_older_version_s_directory_is_cleaned_only_once_its_flock_is_free(tmp_path):
    # Older versions made no lock file: they marked the directory and flocked it.
    legacy = tmp_path / ".run.hscc-tmp-abc123"
    proc = holding(LEGACY_HOLD, str(legacy))
    try:
        assert proc.stdout.readline() == "held\n"
        before = tree(tmp_path)
        assert clean_stale(tmp_path) == [] and tree(tmp_path) == before
    finally:
        proc.kill()
        proc.communicate(timeout=30)
    assert clean_stale(tmp_path) == [legacy] and not any(tmp_path.iterdir())


OLDER_CLEANER = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
try:
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
except BlockingIOError:
    print("held")
else:
    print("free")
"""


@pytest.mark.skipif(sys.platform == "win32", reason="a directory's flock is POSIX")
@pytest.mark.timeout(60)
def test_a_writer_holds_its_directory_s_flock_too_which_older_versions_test(tmp_path):
    def older_cleaner_finds(d: Path) -> str:
        p = subprocess.run(
            [sys.executable, "-c", OLDER_CLEANER, str(d)],
            capture_output=True,
            text=True,
            timeout=30,
        )
        return p.stdout.strip()

    path, held = _new_locked(tmp_path, "run", "tmp")
    try:
        assert older_cleaner_finds(path) == "held"
    finally:
        held.release()
    assert older_cleaner_finds(path) == "free"


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
    # A lock file, unlocked, without a marker: no proof either (no claim names it).
    (tmp_path / ".half.hscc-tmp-ccc").mkdir()
    (tmp_path / ".half.hscc-tmp-ccc" / ".hscc-lock").touch()
    (tmp_path / ".half.hscc-tmp-ccc" / "draft.txt").write_text("mine")
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
