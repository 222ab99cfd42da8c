"""Killing a sweep loses at most the runs in flight: `hscc sweep` killed at random moments
(SIGKILL of everything, SIGKILL of the sweep's process alone, Ctrl-C), then resumed, gives
the uninterrupted sweep's rows, with no run lost, none computed twice, nothing half-written."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

import hscc
from conftest import ONE_FLOW, alive, descendants

SCENARIO = ONE_FLOW.replace('duration = "10s"', 'duration = "30s"').replace(
    "10Mbps", "300Mbps"
)  # ~0.2 s of engine time
REPLICATES = 12
RUNS = (
    3 * 2 * REPLICATES
)  # loss × algorithm × replicates: enough that five kills land before the end, even on a loaded machine
SWEEP = f'base = "base.toml"\nreplicates = {REPLICATES}\n[axes]\n"topology.bottleneck.loss" = [0, "0.1%", "1%"]\n"flows[0].algorithm" = ["reno", "cubic"]\n'
MACHINE = ("wall_time_s", "status")


@pytest.fixture
def sweep_file(tmp_path: Path) -> Path:
    (tmp_path / "base.toml").write_text(SCENARIO)
    path = tmp_path / "s.sweep.toml"
    path.write_text(SWEEP)
    return path


def start(sweep_file: Path, out: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "hscc",
            "sweep",
            str(sweep_file),
            "--out",
            str(out),
            "-q",
            "--jobs",
            "2",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def stored(out: Path) -> int:
    runs = out / "runs"
    return sum(1 for p in runs.iterdir() if not p.name.startswith(".")) if runs.is_dir() else 0


def wait_for_runs(out: Path, n: int, proc: subprocess.Popen) -> None:
    """Until `n` runs are stored (bounded: the sweep takes a few seconds)."""
    deadline = time.monotonic() + 60
    while stored(out) < n and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)


def wait_gone(pids: set[int], seconds: float = 10) -> set[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.05)
    return {p for p in pids if alive(p)}


@pytest.mark.timeout(600)
def test_killed_at_random_moments_then_resumed_equals_an_uninterrupted_sweep(sweep_file, tmp_path):
    reference = hscc.sweep(
        sweep_file.parent / "base.toml",
        {"topology.bottleneck.loss": [0, "0.1%", "1%"], "flows[0].algorithm": ["reno", "cubic"]},
        replicates=REPLICATES,
        jobs=2,
    )
    out = tmp_path / "out"
    rng = random.Random(11)
    kills = ["group", "main", "interrupt", "group", "main"]
    for how in kills:
        proc = start(sweep_file, out)
        wait_for_runs(
            out, stored(out) + rng.randint(1, 3), proc
        )  # at a random moment well inside the sweep
        time.sleep(rng.uniform(0, 0.2))
        below = descendants(proc.pid)
        assert proc.poll() is None and stored(out) < RUNS, "the sweep is killed before it ends"
        if how == "group":
            os.killpg(proc.pid, signal.SIGKILL)
        elif how == "main":
            os.kill(proc.pid, signal.SIGKILL)  # the workers must not outlive it
        else:
            os.kill(proc.pid, signal.SIGINT)
        code = proc.wait(timeout=60)
        assert code == (130 if how == "interrupt" else -signal.SIGKILL), proc.stderr.read().decode()
        if how == "interrupt":
            assert b"interrupted; finished runs are kept" in proc.stderr.read()
        assert not wait_gone(below), f"processes left behind after killing the sweep ({how})"
    proc = start(sweep_file, out)
    assert proc.wait(timeout=120) == 0, proc.stderr.read().decode()
    resumed = hscc.load_sweep(out)
    assert resumed.points.drop(MACHINE).equals(reference.points.drop(MACHINE)), (
        "resumed rows equal the uninterrupted sweep's"
    )
    runs = sorted(p.name for p in (out / "runs").iterdir())
    assert runs == sorted(set(resumed.points["run"])), (
        "one stored run per run, nothing half-written left behind"
    )
    assert len(runs) == RUNS
    assert not [p for p in out.iterdir() if p.name.startswith(".")], "no temporary files left"
    final = subprocess.run(
        [sys.executable, "-m", "hscc", "sweep", str(sweep_file), "--out", str(out), "-q"],
        capture_output=True,
        timeout=120,
    )
    assert final.returncode == 0
    assert set(pl.read_parquet(out / "points.parquet")["status"]) == {"cached"}, (
        "a finished sweep computes nothing again"
    )


HALF_A_RESULT = """
import os, struct, sys, time
from hscc.sweeps.execute import LocalPool

pool = LocalPool(1)
busy = pool.submit(time.sleep, 60)
deadline = time.monotonic() + 30
while not pool._executor._processes and time.monotonic() < deadline:
    time.sleep(0.01)
# What a worker killed while sending its result leaves: a length, and not all the bytes it promised.
os.write(pool._executor._result_queue._writer.fileno(), struct.pack("!i", 1000) + b"x" * 10)
pool.close(interrupted=True)
print("closed")
"""


@pytest.mark.timeout(120)
def test_an_interrupted_pool_closes_when_a_killed_worker_left_half_a_result():
    # The pool's own thread would wait for the missing bytes for ever, and Ctrl-C with it.
    done = subprocess.run(
        [sys.executable, "-c", HALF_A_RESULT], capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stdout) == (0, "closed\n"), done.stderr
