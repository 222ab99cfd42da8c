"""Running sweeps: stored runs are never computed twice, failures are recorded and the
others go on, a dead worker costs only its runs, a Dask LocalCluster gives the local
pool's rows, a sweep of one run is computed in its own process as a worker would, and
`hscc sweep` / `hscc plot` on the command line."""

from __future__ import annotations

import errno
import json
import os
import threading
import time
import warnings
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import hscc
from conftest import ONE_FLOW, alive, descendants
from hscc.cli import app
from hscc.sweeps import execute, plan, spec, worker

# 1 s runs of one Reno flow: about 5 ms of engine time each.
SHORT = ONE_FLOW.replace('duration = "10s"', 'duration = "1s"')
AXES = {"topology.bottleneck.loss": [0, "1%"], "flows[0].algorithm": ["reno", "cubic"]}
MACHINE = ("wall_time_s", "status")  # what differs between two sweeps of the same runs


@pytest.fixture
def base(write_toml) -> Path:
    return write_toml(SHORT, "short.toml")


def numbers(result: hscc.SweepResult) -> pl.DataFrame:
    return result.points.drop(MACHINE)


def test_a_sweep_has_one_row_per_run_with_typed_axis_columns(base):
    r = hscc.sweep(base, AXES, replicates=3, jobs=2)
    p = r.points
    assert p.height == 12 and set(p["status"]) == {"ok"}
    assert (
        p.schema["topology.bottleneck.loss"] == pl.Float64
        and p.schema["flows[0].algorithm"] == pl.String
    )
    assert p["topology.bottleneck.loss"].to_list()[:6] == [0.0] * 6
    assert r.fields == ["topology.bottleneck.loss", "flows[0].algorithm"]
    assert {
        "jain_index",
        "flows[0].goodput_bps",
        "flow 0.goodput_bps",
        "bottleneck:fwd.utilization",
    } <= set(r.metrics)
    lossy = p.filter(pl.col("topology.bottleneck.loss") > 0)["flows[0].goodput_bps"]
    assert (
        lossy.max()
        < p.filter(pl.col("topology.bottleneck.loss") == 0)["flows[0].goodput_bps"].min()
    )
    replicates = p.filter(pl.col("point") == 2)["flows[0].goodput_bps"]
    assert replicates.n_unique() == 3, "replicates of a lossy point get different seeds and differ"


def test_summary_is_mean_std_and_student_t_interval(base):
    r = hscc.sweep(base, {"topology.bottleneck.loss": ["1%"]}, replicates=4, jobs=1)
    x = r.points["flows[0].goodput_bps"].to_list()
    row = r.summary().filter(pl.col("metric") == "flows[0].goodput_bps").row(0, named=True)
    mean = sum(x) / 4
    std = (sum((v - mean) ** 2 for v in x) / 3) ** 0.5
    half = 3.182446305284263 * std / 2  # t(0.975, 3 degrees of freedom) × s / √4
    assert row["n"] == 4
    assert row["mean"] == pytest.approx(mean) and row["std"] == pytest.approx(std)
    assert row["ci_low"] == pytest.approx(mean - half) and row["ci_high"] == pytest.approx(
        mean + half
    )


def test_a_stored_run_is_never_computed_again(base, tmp_path):
    out = tmp_path / "sweep"
    first = hscc.sweep(base, AXES, replicates=2, out=out, jobs=2)
    assert set(first.points["status"]) == {"ok"}
    again = hscc.sweep(base, AXES, replicates=2, out=out, jobs=2)
    assert set(again.points["status"]) == {"cached"}
    assert numbers(again).equals(numbers(first))
    wider = hscc.sweep(
        base, {**AXES, "topology.bottleneck.loss": [0, "1%", "2%"]}, replicates=2, out=out, jobs=2
    )
    assert wider.points["status"].value_counts().sort("status").rows() == [("cached", 8), ("ok", 4)]
    assert len(list((out / "runs").iterdir())) == 12
    run = wider.run(0)
    assert run.flows["goodput_bps"][0] == wider.points["flows[0].goodput_bps"][0]
    loaded = hscc.load_sweep(out)
    assert numbers(loaded).equals(numbers(wider))
    assert (out / "summary.parquet").is_file() and (out / "plots" / "jain-index.png").is_file()


def test_plots_drawn_by_the_workers_are_the_plots_drawn_here(base, tmp_path):
    r = hscc.sweep(base, AXES, replicates=1, out=tmp_path / "sweep", jobs=2)
    drawn = sorted((tmp_path / "sweep" / "plots").glob("*.png"))
    assert len(drawn) >= 4  # Jain's index, the total goodput, the flow's, the bottleneck's
    here = r.plot(tmp_path / "here")  # in this process
    assert {p.name: p.read_bytes() for p in drawn} == {p.name: p.read_bytes() for p in here}


def test_same_sweep_same_numbers(base):
    a = hscc.sweep(base, AXES, replicates=2, jobs=2)
    b = hscc.sweep(base, AXES, replicates=2, jobs=1)
    assert numbers(a).equals(numbers(b))


class _NoPool:
    def __init__(self, *_):
        raise AssertionError("a sweep of one run starts no worker")


def _without_wall_time(path: Path) -> bytes:
    """A run's file as two computations of the run write it alike: JSON without its
    wall-clock fields."""
    if path.suffix != ".json":
        return path.read_bytes()
    data = json.loads(path.read_text())
    for key in ("wall_time_s", "created"):
        data.pop(key, None)
    return json.dumps(data, sort_keys=True).encode()


def test_a_sweep_of_one_run_runs_in_its_own_process_as_a_worker_would(base, tmp_path, monkeypatch):
    axes = {"flows[0].algorithm": ["cubic"]}
    with monkeypatch.context() as m:
        m.setattr(hscc.algorithm, "any_in_main", lambda: True)  # as if: the pool, as before
        pooled = hscc.sweep(base, axes, out=tmp_path / "pool", jobs=2)
    monkeypatch.setattr(execute, "LocalPool", _NoPool)
    here = hscc.sweep(base, axes, out=tmp_path / "here", jobs=2)
    assert here.points["status"].to_list() == ["ok"]
    assert numbers(here).equals(numbers(pooled))
    timing = pl.col("metric").str.contains("wall_time")
    assert here.summary().filter(~timing).equals(pooled.summary().filter(~timing))
    [run] = (tmp_path / "here" / "runs").iterdir()
    pooled_run = tmp_path / "pool" / "runs" / run.name
    assert sorted(p.name for p in run.iterdir()) == sorted(p.name for p in pooled_run.iterdir())
    for f in run.iterdir():
        assert _without_wall_time(f) == _without_wall_time(pooled_run / f.name), f.name
    # Two runs go to the pool, even on one core: a run that kills its worker is retried there.
    with pytest.raises(AssertionError, match="starts no worker"):
        hscc.sweep(base, {"flows[0].algorithm": ["reno", "cubic"]}, jobs=1)


def test_a_sweep_of_one_point_has_no_plots_until_asked(base, tmp_path):
    out = tmp_path / "s"
    hscc.sweep(base, {"topology.bottleneck.loss": [0, "1%"]}, out=out, jobs=2)
    assert (out / "plots" / "jain-index.png").is_file()
    sweep_file = write_sweep(tmp_path, base, '[axes]\n"topology.bottleneck.loss" = ["1%"]\n')
    r = CliRunner().invoke(app, ["sweep", str(sweep_file), "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert "(points.parquet, summary.parquet)" in r.output
    assert not (out / "plots").exists(), "no plots of the sweep the directory held before"
    r = CliRunner().invoke(app, ["plot", str(out)])
    assert r.exit_code == 0, r.output
    assert (out / "plots" / "jain-index.png").is_file()


def test_a_failed_run_is_recorded_and_the_others_go_on(base, tmp_path):
    made = plan.make(spec.parse({"axes": {"topology.bottleneck.loss": [0, "1%"]}}, base=str(base)))
    broken = plan.Job(
        9, 0, 1, "0" * 32, {**made.jobs[0].scenario, "duration": -1}
    )  # as if the engine failed on it
    store = execute.RunStore(tmp_path / "runs")
    with execute.open_pool(2, None) as pool:
        outcomes = execute.execute([made.jobs[0], broken, made.jobs[1]], store, pool, (None, None))
    assert [o.status for o in outcomes] == ["ok", "failed", "ok"]
    assert "duration" in outcomes[1].error
    assert sorted(p.name for p in store.root.iterdir()) == sorted(
        [made.jobs[0].key, made.jobs[1].key]
    )


def test_a_run_its_worker_cannot_write_ends_the_sweep_with_the_disks_error(
    base, tmp_path, monkeypatch
):
    made = plan.make(spec.parse({"axes": {}, "replicates": 2}, base=str(base)))

    def full(run: str, files: dict) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", run)

    monkeypatch.setattr(worker, "write_run", full)
    store = execute.RunStore(tmp_path / "runs")
    with pytest.raises(OSError) as raised:
        execute.execute(made.jobs, store, execute.InlinePool(), (None, None))
    assert raised.value.errno == errno.ENOSPC
    assert os.listdir(store.root) == [], "no run and no staging directory"


def test_a_dead_worker_costs_nothing_but_a_retry(base, write_toml):
    # ~1-2 s each, so the kill below lands inside the first run on an idle machine too.
    slow = write_toml(
        ONE_FLOW.replace('duration = "10s"', 'duration = "60s"').replace("10Mbps", "1Gbps"),
        "slow.toml",
    )
    made = plan.make(spec.parse({"axes": {}, "replicates": 2}, base=str(slow)))
    with execute.open_pool(1, None) as pool:
        killed = threading.Event()
        submitted = []
        submit = pool.submit
        pool.submit = lambda *args: submitted.append(args) or submit(*args)

        def kill_the_worker():
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and not killed.is_set():
                procs = list(getattr(pool._executor, "_processes", {}).values())
                if procs and submitted:
                    time.sleep(0.3)  # into the first run
                    procs[0].kill()
                    killed.set()
                time.sleep(0.05)

        t = threading.Thread(target=kill_the_worker)
        t.start()
        outcomes = execute.execute(made.jobs, None, pool, (None, None))
        t.join()
    assert killed.is_set()
    assert len(submitted) == 4, (
        "both runs on the broken pool (one running, one queued) were submitted again"
    )
    assert [o.status for o in outcomes] == ["ok", "ok"]


def test_short_runs_go_several_to_a_task_and_give_the_same_rows(base, tmp_path):
    made = plan.make(
        spec.parse({"axes": AXES, "replicates": 10}, base=str(base))
    )  # 40 runs of ~5 ms
    with execute.open_pool(2, None) as pool:
        tasks = []
        submit = pool.submit
        pool.submit = lambda fn, scenarios, *rest: (
            tasks.append(len(scenarios)) or submit(fn, scenarios, *rest)
        )
        outcomes = execute.execute(
            made.jobs, execute.RunStore(tmp_path / "runs"), pool, (None, None)
        )
    # Until runs are timed, tasks are sized by a run's guessed time: short runs guessed short.
    guess = execute._guess(made.jobs)
    assert guess is not None and guess < execute._TASK_S / 4
    first = tasks[0]
    assert first > 1 and first * guess <= execute._TASK_S
    assert sum(tasks) == 40 and len(tasks) < 40

    def numbers_of(m: dict) -> dict:
        return {k: v for k, v in m.items() if k != "wall_time_s"}

    alone = [
        worker.run_job(j.scenario, None, None, False) for j in made.jobs
    ]  # each run by itself, in this process
    assert [numbers_of(o.metrics) for o in outcomes] == [numbers_of(m) for _, _, m in alone]


def test_runs_per_task_aim_at_a_tenth_of_a_second_and_spare_the_last_tasks():
    pace = execute._Pace()
    assert pace.runs_per_task(left=100, slots=4) == 1  # nothing timed yet
    pace.ran(0.06, 3)
    assert pace.runs_per_task(left=100, slots=4) == 5  # 0.1 s / 20 ms
    assert pace.runs_per_task(left=12, slots=4) == 3  # the last 12 runs shared by the 4 slots
    assert pace.runs_per_task(left=3, slots=4) == 1
    quick = execute._Pace()
    quick.ran(0.0, 1)
    quick.ran(0.05, 99)  # 0.5 ms a run
    assert quick.runs_per_task(left=10_000, slots=4) == execute._MAX_RUNS_PER_TASK
    assert quick.runs_per_task(left=160, slots=4) == 40  # the last 160 runs shared
    # The last tasks still hold 10 ms of runs (a Dask task's own cost is milliseconds),
    assert quick.runs_per_task(left=40, slots=4) == 20
    # unless fewer are left.
    assert quick.runs_per_task(left=7, slots=4) == 7
    slow = execute._Pace()
    slow.ran(2.0, 1)
    assert slow.runs_per_task(left=100, slots=4) == 1


def test_runs_are_guessed_from_their_estimated_events_until_timed():
    def job(events: int) -> plan.Job:
        return plan.Job(0, 0, 1, "k", {}, (), events)

    # 2 ms a run and 100 ns an event: 2 ms + 20 000 × 100 ns on average.
    assert execute._guess([job(10_000), job(30_000)]) == pytest.approx(0.004)
    assert execute._guess([job(10_000), job(0)]) is None, "a run without an estimate"
    assert execute._guess([]) is None
    short = execute._Pace(guess=0.002)
    assert short.runs_per_task(left=1000, slots=4) == 50  # 0.1 s / 2 ms
    assert short.runs_per_task(left=40, slots=4) == 10  # the 40 runs shared by the 4 slots
    assert execute._Pace(guess=0.5).runs_per_task(left=1000, slots=4) == 1
    short.ran(0.05, 10)  # timed: 5 ms a run, the guess forgotten
    assert short.runs_per_task(left=1000, slots=4) == 20


def test_the_last_tasks_last_at_least_the_pools_round_trip():
    far = execute._Pace()  # a Dask cluster: 30 ms from submission to result beyond the runs
    far.ran(0.0005, 1, round_trip=0.0505)
    far.ran(0.05, 99, round_trip=0.11)  # queued behind another task: its wait is not the trip
    assert far.round_trip == pytest.approx(0.05)
    assert far.runs_per_task(left=40, slots=4) == 40  # 50 ms of 0.5-ms runs, not 20 (10 ms)
    assert far.runs_per_task(left=10_000, slots=4) == execute._MAX_RUNS_PER_TASK
    near = execute._Pace()  # a local pool: a millisecond
    near.ran(0.0005, 1, round_trip=0.0015)
    near.ran(0.05, 99, round_trip=0.051)
    assert near.runs_per_task(left=40, slots=4) == 20  # _MIN_TASK_S decides


def test_a_dask_local_cluster_gives_the_local_pools_rows_and_plots(base, tmp_path):
    pytest.importorskip("distributed")
    local = hscc.sweep(base, AXES, replicates=2, jobs=2, out=tmp_path / "local")
    dask = hscc.sweep(base, AXES, replicates=2, jobs=2, dask="local", out=tmp_path / "dask")
    assert numbers(dask).equals(numbers(local))
    # Drawn by the cluster's workers, the plots are the local pool's workers' byte for byte.
    drawn = {p.name: p.read_bytes() for p in (tmp_path / "local" / "plots").glob("*.png")}
    assert len(drawn) >= 4
    assert {p.name: p.read_bytes() for p in (tmp_path / "dask" / "plots").glob("*.png")} == drawn


def test_local_clusters_started_together_contend_for_no_port():
    pytest.importorskip("distributed")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clusters = [execute.local_cluster(1), execute.local_cluster(1)]
    try:
        # Each scheduler's HTTP server (health routes; no dashboard) on a port of its own,
        # not Dask's 8787, and on this host only.
        for c in clusters:
            (host, port), *_ = [s.getsockname() for s in c.scheduler.http_server._sockets.values()]
            assert host == "127.0.0.1" and port != 8787
        assert not [w for w in caught if "already in use" in str(w.message)]
    finally:
        for c in clusters:
            c.close()


def test_a_sweep_on_dask_uses_the_client_this_process_has_and_leaves_it_open(base, monkeypatch):
    distributed = pytest.importorskip("distributed")
    cluster = execute.local_cluster(2)
    try:
        with distributed.Client(cluster) as client:
            opened: list[distributed.Client] = []
            real = distributed.Client

            def counted(*args, **kwargs):
                opened.append(real(*args, **kwargs))
                return opened[-1]

            counted.current = real.current  # type: ignore[attr-defined]
            monkeypatch.setattr(distributed, "Client", counted)
            r = hscc.sweep(base, AXES, jobs=2, dask=cluster.scheduler_address)
            assert set(r.points["status"]) == {"ok"} and r.points.height == 4
            assert opened == [], "no client of its own"
            assert client.status == "running", "the user's client is left open"
        # Without a current client, the sweep opens one and closes it, off the sweep's path.
        r = hscc.sweep(base, AXES, jobs=2, dask=cluster.scheduler_address)
        assert set(r.points["status"]) == {"ok"}
        execute.wait_closed()
        assert [c.status for c in opened] == ["closed"]
        with pytest.raises(ValueError):
            real.current()
    finally:
        cluster.close()


# --- the command line ----------------------------------------------------------------------------


def write_sweep(tmp_path: Path, base: Path, body: str) -> Path:
    path = tmp_path / "loss.sweep.toml"
    path.write_text(f'base = "{base.name}"\n{body}')
    return path


def test_cli_sweep_writes_the_sweep_directory_and_resumes(base, tmp_path):
    sweep_file = write_sweep(
        tmp_path,
        base,
        'replicates = 2\n[axes]\n"topology.bottleneck.loss" = { logspace = ["1e-3", "1e-2"], steps = 2 }\n',
    )
    out = tmp_path / "out"
    r = CliRunner().invoke(app, ["sweep", str(sweep_file), "--out", str(out), "--jobs", "2"])
    assert r.exit_code == 0, r.output
    assert "4 runs, 2 points" in r.output
    manifest = hscc.sweeps.sweepdir.read_manifest(out)
    assert (
        manifest["complete"] and manifest["failed"] == 0 and "replicates = 2" in manifest["sweep"]
    )
    assert manifest["axes"] == [["topology.bottleneck.loss"]]
    r = CliRunner().invoke(app, ["sweep", str(sweep_file), "--out", str(out), "-q"])
    assert r.exit_code == 0 and r.output.strip() == str(out)
    assert set(pl.read_parquet(out / "points.parquet")["status"]) == {"cached"}
    r = CliRunner().invoke(app, ["plot", str(out), "--out", str(tmp_path / "plots")])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "plots" / "flows-0-goodput.png").is_file()


@pytest.mark.parametrize(
    "body, message",
    [
        (
            '[axes]\n"topology.bottleneck.loss" = [0, 2]\n',
            'axis "topology.bottleneck.loss", point 1 (topology.bottleneck.loss = 2): topology.bottleneck.loss: 2 is not allowed',
        ),
        (
            '[axes]\n"flows[0].algoritm" = ["reno"]\n',
            '"flows[0].algoritm" is not a field of the scenario format',
        ),
        ("replicates = 0\n", "replicates: 0 is not allowed"),
        ("[axes\n", "is not valid TOML"),
    ],
)
def test_cli_bad_sweep_files_exit_2_with_the_reason(base, tmp_path, body, message):
    sweep_file = write_sweep(tmp_path, base, body)
    r = CliRunner().invoke(app, ["sweep", str(sweep_file), "--out", str(tmp_path / "out")])
    assert r.exit_code == 2
    assert message in " ".join(r.output.split())
    assert not (tmp_path / "out").exists(), "nothing is written for a bad sweep"


def test_cli_refuses_a_directory_it_did_not_write(base, tmp_path):
    sweep_file = write_sweep(tmp_path, base, '[axes]\n"topology.bottleneck.loss" = [0]\n')
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    r = CliRunner().invoke(app, ["sweep", str(sweep_file), "--out", str(out)])
    assert r.exit_code == 2 and "is not an hscc sweep directory" in r.output
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]


class _ThreadPool:
    """The local pool's interface on threads, so that a test can replace what a worker runs."""

    workers = 2

    def __init__(self, *_):
        self._executor = ThreadPoolExecutor(2)

    def submit(self, *args) -> Future:
        return self._executor.submit(*args)

    def restart(self) -> None:
        pass

    def close(self, interrupted: bool) -> None:
        self._executor.shutdown()


def test_cli_exits_1_when_some_runs_failed(base, tmp_path, monkeypatch):
    real = worker.run_job

    def failing_on_loss(scenario, *limits):
        if scenario["topology"]["bottleneck"]["loss"] > 0:
            return "failed", "the engine failed (as a test makes it)", None
        return real(scenario, *limits)

    monkeypatch.setattr(execute, "LocalPool", _ThreadPool)
    monkeypatch.setattr(worker, "run_job", failing_on_loss)
    sweep_file = write_sweep(tmp_path, base, '[axes]\n"topology.bottleneck.loss" = [0, "1%"]\n')
    r = CliRunner().invoke(app, ["sweep", str(sweep_file), "--out", str(tmp_path / "out")])
    assert r.exit_code == 1
    assert (
        "1 of 2 runs failed; the first (point 1, replicate 0): the engine failed (as a test makes it)"
        in " ".join(r.output.split())
    )
    points = pl.read_parquet(tmp_path / "out" / "points.parquet")
    assert points["status"].to_list() == ["ok", "failed"]
    r = CliRunner().invoke(app, ["sweep", str(sweep_file), "--out", str(tmp_path / "out")])
    assert pl.read_parquet(tmp_path / "out" / "points.parquet")["status"].to_list() == [
        "cached",
        "failed",
    ], "a failed run is tried again"


def test_a_task_the_cluster_gives_up_on_is_split_and_only_its_culprit_fails(base, monkeypatch):
    made = plan.make(
        spec.parse({"axes": AXES, "replicates": 10}, base=str(base))
    )  # 40 runs of ~5 ms
    culprit = made.jobs[30].seed
    real = worker.run_jobs
    tasks_with_it = []

    def giving_up_on_the_culprit(scenarios, *rest):
        if any(s["seed"] == culprit for s in scenarios):
            tasks_with_it.append(len(scenarios))
            raise RuntimeError("the cluster gave up (as a test makes it)")
        return real(scenarios, *rest)

    monkeypatch.setattr(execute, "run_jobs", giving_up_on_the_culprit)
    pool = _ThreadPool()
    try:
        outcomes = execute.execute(made.jobs, None, pool, (None, None))
    finally:
        pool.close(False)
    assert tasks_with_it[0] > 1 and tasks_with_it[1:] == [1], (
        "its task was split and it was tried alone"
    )
    assert [o.status for o in outcomes] == ["ok"] * 30 + ["failed"] + ["ok"] * 9
    assert "the cluster gave up (as a test makes it)" in outcomes[30].error


def test_a_script_without_a_main_guard_can_sweep(base, tmp_path):
    # Workers must not run the user's script again (multiprocessing's default for
    # new processes), or this script would sweep recursively and fail in every worker.
    script = tmp_path / "quick.py"
    script.write_text(
        f"import hscc\nr = hscc.sweep({str(base)!r}, {{'topology.bottleneck.loss': [0, '1%']}}, jobs=2)\n"
        "print(r.points['status'].to_list())\n"
    )
    import subprocess
    import sys

    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['ok', 'ok']" and "Traceback" not in done.stderr


def test_a_lost_dask_worker_loses_no_run(write_toml, tmp_path):
    pytest.importorskip("distributed")
    import os
    import signal

    slow = write_toml(
        ONE_FLOW.replace('duration = "10s"', 'duration = "20s"').replace("10Mbps", "300Mbps"),
        "slow.toml",
    )  # ~0.2 s each
    out = tmp_path / "sweep"
    killed: list[int] = []

    def kill_a_worker() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not killed:
            runs = out / "runs"
            if runs.is_dir() and any(not p.name.startswith(".") for p in runs.iterdir()):
                workers = [
                    p
                    for p in descendants(os.getpid())
                    if alive(p) and b"spawn_main" in Path(f"/proc/{p}/cmdline").read_bytes()
                ]
                if workers:
                    os.kill(
                        max(workers), signal.SIGKILL
                    )  # a worker process (the nannies live in this process)
                    killed.append(max(workers))
            time.sleep(0.02)

    t = threading.Thread(target=kill_a_worker)
    t.start()
    result = hscc.sweep(slow, {}, replicates=12, jobs=2, dask="local", out=out)
    t.join()
    assert killed, "a worker was killed mid-sweep"
    assert set(result.points["status"]) == {"ok"} and result.points.height == 12
    assert len(list((out / "runs").iterdir())) == 12


def test_identical_replicates_are_found_and_count_as_one_run(base, tmp_path):
    """Without host jitter, start jitter or loss nothing draws from the seed: the replicates of
    that point are the same run, and the sweep says so; with host jitter they differ."""
    r = hscc.sweep(base, {"flows[0].host_jitter": [0, "8us"]}, replicates=2, jobs=1)
    assert r.identical_points() == [0]
    assert "1 point (0)" in (r.identical_warning() or "")
    distinct = r.distinct_runs()
    assert distinct.points.filter(pl.col("point") == 0).height == 1
    assert distinct.points.filter(pl.col("point") == 1).height == 2

    base.write_text(
        base.read_text().replace('algorithm = "reno"', 'algorithm = "reno"\nhost_jitter = 0')
    )
    sweep_file = tmp_path / "same.toml"
    sweep_file.write_text(
        f'base = "{base}"\nreplicates = 2\n[axes]\n"flows[0].algorithm" = ["reno"]\n'
    )
    out = CliRunner().invoke(app, ["sweep", str(sweep_file), "--out", str(tmp_path / "s"), "-q"])
    assert out.exit_code == 0, out.output
    assert "replicates of 1 point (0) are identical" in " ".join(out.output.split())
