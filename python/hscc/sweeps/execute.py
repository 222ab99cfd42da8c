"""Running a plan's jobs: on a local pool of worker processes, on a Dask
cluster, or, for a sweep of one run, in the sweep's own process, through one loop.

Runs already in the store are not submitted. A few tasks per worker are in
flight at once, so a sweep of a million runs does not hold a million scenarios
in memory. A task is one run, or a few short ones (about 0.1 s of a worker's
time together, guessed from the engine's estimate of their events until runs are
timed), so that short runs do not each pay for a task (on Dask, milliseconds of
scheduling; the tasks sent together go in one message). A worker on this machine
(the local pool, or this process for a sweep of one run) writes each run's files
into the store's staging directory; a Dask worker sends them back, to be written
here. Finished runs are stored by one writer thread, as soon as it is free, all
those waiting together with one flush to disk, while the loop goes on feeding
the workers: a flush that waits for the disk (milliseconds, more when others
write to it) leaves no worker idle; if the disk falls behind, the runs waiting
for it are bounded by their size (a run staged by its worker, by their number).
A run counts as done once it is stored, so killing the sweep loses only the runs
in flight (the tasks running, and the finished runs not yet stored). A run that
fails (the engine's error, or its worker dying) is recorded with the message and
the others go on.
"""

from __future__ import annotations

import logging
import math
import os
import pickle
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import (
    FIRST_COMPLETED,
    BrokenExecutor,
    Future,
    InvalidStateError,
    ThreadPoolExecutor,
    wait,
)
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from hscc import algorithm
from hscc.errors import died_because
from hscc.isolated import die_with
from hscc.sweeps.plan import Job
from hscc.sweeps.store import RunStore
from hscc.sweeps.worker import run_jobs

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

    import polars as pl
    from distributed import Client, LocalCluster
    from distributed import Future as DaskFuture

    from hscc.sweeps.result import SweepResult

_IN_FLIGHT_PER_WORKER = 2  # tasks
_TASK_S = 0.1  # a task's time in its worker once runs are timed: beside it a task's own cost (ms on Dask) is small
_MIN_TASK_S = 0.01  # nor the last tasks so short that their own cost is most of them (nor shorter than the pool's round trip)
_MAX_RUNS_PER_TASK = 64
# A run's time in a worker before any is timed, from the engine's estimate of its events:
# guessed long, 2-4 times what this machine takes (two Reno flows for 1 s, 3 769 events
# estimated: 0.6 ms, 1.3 ms with its files; the CTCP test bed for 1 s, 320 883: 9 ms), so
# that the first tasks fill the pool's first round trip without holding long runs together.
_GUESS_RUN_S, _GUESS_EVENT_S = 0.002, 100e-9
_MAX_UNSTORED_BYTES = (
    256 << 20
)  # finished runs' files waiting for the writer: past this, no new run starts
_MAX_UNSTORED_RUNS = 10_000  # the same for runs staged by their workers (on disk, not in memory)
_ATTEMPTS = 2  # a run whose worker died is tried once more on a new pool
# What the fork server imports for a sweep that draws plots, so that each worker has it.
_DRAWING = ("hscc.sweeps.plot", "matplotlib.figure", "matplotlib.backends.backend_agg")


@dataclass
class Outcome:
    """How one run ended: "ok" (computed now), "cached" (found in the store) or "failed"."""

    status: str
    metrics: dict[str, Any] | None = None
    error: str | None = None


@dataclass
class Counts:
    """Progress of a sweep, in runs."""

    total: int
    cached: int = 0
    done: int = 0
    failed: int = 0
    running: int = 0
    workers: int = 1
    points_total: int = 0
    points_complete: int = 0


Progress = Callable[[Counts], None]


def _died(job: Job) -> str:
    """Why a run whose worker died each time failed, as far as can be told."""
    names = [Path(s.path).name for s in job.sources]
    return f"its worker died {_ATTEMPTS} times {died_because(names)}"


def workers_default() -> int:
    """One worker per core this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


class LocalPool:
    """`workers` worker processes, forked from a server that has imported hscc once.

    A worker that dies (killed, out of memory) breaks a process pool for every run in it;
    `restart` replaces the pool so that the sweep can go on. With `draws`, the workers also
    draw the sweep's plots (`render`), matplotlib imported once, by the fork server."""

    def __init__(self, workers: int, draws: bool = False):
        import multiprocessing  # here: a sweep of one run, or on Dask, has no local pool

        self.workers = workers
        self._ctx = multiprocessing.get_context("forkserver")
        self._ctx.set_forkserver_preload(["hscc.sweeps.worker", *(_DRAWING if draws else ())])
        self._executor = self._new()

    def _new(self) -> ProcessPoolExecutor:
        from concurrent.futures import ProcessPoolExecutor

        return ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=self._ctx,
            initializer=die_with,  # a worker's parent is the fork server: it watches the sweep
            initargs=(os.getpid(),),
        )

    def submit(self, *args: Any) -> Future[Any]:
        with _main_hidden():  # a submit may start a worker
            return self._executor.submit(*args)

    def restart(self) -> None:
        self._kill()
        self._executor = self._new()

    def render(
        self, result: SweepResult, metrics: list[str], size: str, fmt: str, summary: pl.DataFrame
    ) -> list[bytes]:
        """`plot.render` dealt among the workers (`_dealt`); drawn here if a worker dies."""
        try:
            return _dealt(self, result, metrics, size, fmt, summary)
        except BrokenExecutor:
            self.restart()
            from hscc.sweeps import plot

            return plot.render(result, metrics, size, fmt, summary)

    def close(self, interrupted: bool) -> None:
        """Wait for the workers to exit; if interrupted, kill them first (their runs are lost anyway)."""
        if interrupted:
            self._kill()
        self._executor.shutdown(wait=True, cancel_futures=True)

    def _kill(self) -> None:
        processes = (
            getattr(self._executor, "_processes", None) or {}
        )  # Python 3.14 has kill_workers(); 3.11 has this
        for proc in list(processes.values()):
            proc.kill()
        # A worker killed while it sent a result leaves half a message in the result pipe,
        # and the pool's thread would wait for the rest for ever: this process holds the
        # pipe's write end too. Closed, the pipe ends there, and the thread finds the pool
        # broken and lets the shutdown finish.
        results = getattr(self._executor, "_result_queue", None)
        if results is not None:
            results._writer.close()
        self._executor.shutdown(wait=True, cancel_futures=True)


@contextmanager
def _main_hidden() -> Iterator[None]:
    """Start workers without the user's script: multiprocessing would run it again in
    every new worker (to find functions defined there, which hscc's workers never need),
    so that a script calling `hscc.sweep` at its top level, without the
    `if __name__ == "__main__":` guard, would fail in every worker."""
    main = sys.modules.get("__main__")
    saved = {
        k: main.__dict__[k]
        for k in ("__file__", "__spec__")
        if main is not None and k in main.__dict__
    }
    for k in saved:
        setattr(main, k, None) if k == "__spec__" else delattr(main, k)
    try:
        yield
    finally:
        for k, v in saved.items():
            setattr(main, k, v)


def _dealt(
    pool: LocalPool | DaskPool,
    result: SweepResult,
    metrics: list[str],
    size: str,
    fmt: str,
    summary: pl.DataFrame,
) -> list[bytes]:
    """`plot.render` with the metrics dealt among the pool's workers, each drawing its share at
    once (a figure at 200 dpi takes about a quarter of a second)."""
    from hscc.sweeps import plot

    n = pool.workers
    shares = [share for i in range(n) if (share := metrics[i::n])]
    futures = [pool.submit(plot.render, result, s, size, fmt, summary) for s in shares]
    drawn = {
        m: data
        for share, fut in zip(shares, futures, strict=True)
        for m, data in zip(share, fut.result(), strict=True)
    }
    return [drawn[m] for m in metrics]


def local_cluster(workers: int) -> LocalCluster:
    """A Dask LocalCluster of `workers` single-threaded worker processes, as `--dask local`
    starts one for a sweep."""
    from distributed import LocalCluster

    return LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        # Without a dashboard the scheduler still serves its health routes over HTTP, on
        # port 8787 unless told otherwise: a port the system picks, on this host only,
        # so that clusters started at once (or a user's own dashboard) do not contend for it.
        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
        silence_logs=logging.ERROR,
    )


class DaskPool:
    """A Dask cluster: the scheduler at `address`, or "local" for a LocalCluster of `jobs`
    single-threaded worker processes. Dask itself reschedules the runs of a lost worker.
    The client this process already has to that scheduler (Dask's current one, as a
    notebook keeps it) is used and left open; else one is opened for the sweep."""

    def __init__(self, address: str, jobs: int | None):
        try:
            from distributed import Client
        except ImportError:
            raise RuntimeError("--dask needs dask.distributed: pip install 'hscc[dask]'") from None
        self._cluster = None
        self._own_client = True
        if address == "local":
            self._cluster = local_cluster(jobs or workers_default())
            self._client = Client(self._cluster)
        elif (current := _current_client(address)) is not None:
            self._client, self._own_client = current, False
        else:
            try:
                self._client = Client(address, timeout="30s", set_as_default=False)
            except (OSError, TimeoutError, ValueError) as e:
                raise RuntimeError(
                    f"--dask {address}: cannot reach the Dask scheduler ({e})"
                ) from None
        self.workers = (
            sum(w.get("nthreads", 1) for w in self._client.scheduler_info()["workers"].values())
            or 1
        )

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        (done,) = self.submit_all(fn, [args])
        return done

    def submit_all(
        self, fn: Callable[..., Any], arg_lists: list[tuple[Any, ...]]
    ) -> list[Future[Any]]:
        """`fn(*args)` for each of `arg_lists`, sent to the scheduler in one message: the
        client sends one at once and holds the next ones sent within 10 ms until then."""
        # Pickled here: Dask would otherwise walk every value of the scenarios looking for its
        # own futures, which costs as much as short runs themselves.
        calls = [pickle.dumps((fn, args), protocol=pickle.HIGHEST_PROTOCOL) for args in arg_lists]
        return [_settled(f) for f in self._client.map(_call_pickled, calls, pure=False)]

    def restart(self) -> None:
        pass  # nothing to replace: the cluster outlives its workers

    def render(
        self, result: SweepResult, metrics: list[str], size: str, fmt: str, summary: pl.DataFrame
    ) -> list[bytes]:
        """`plot.render` dealt among the cluster's workers (`_dealt`); drawn here if the
        cluster cannot (a lost worker, a worker without matplotlib)."""
        try:
            return _dealt(self, result, metrics, size, fmt, summary)
        except Exception:  # a plotting error raises again when drawn here
            from hscc.sweeps import plot

            return plot.render(result, metrics, size, fmt, summary)

    def close(self, interrupted: bool) -> None:
        if self._cluster is not None:
            self._client.close()
            self._cluster.close()
        elif self._own_client:
            # Off the sweep's path (milliseconds of the scheduler's reply): every result is
            # here. Not a daemon, so the interpreter waits for it before it exits.
            threading.Thread(target=self._client.close, name=_CLOSING).start()


_CLOSING = "hscc-dask-close"  # the threads that close the clients sweeps opened


def wait_closed(timeout: float = 30.0) -> None:
    """Wait (at most `timeout` seconds each) for the Dask clients that sweeps opened and
    are closing in the background."""
    for t in threading.enumerate():
        if t.name == _CLOSING:
            t.join(timeout)


def _current_client(address: str) -> Client | None:
    """Dask's current client, if it is connected to the scheduler at `address`."""
    from distributed import Client
    from distributed.comm.addressing import resolve_address

    try:
        current = Client.current()
        wanted = resolve_address(address)
    except ValueError:  # no current client, or not an address Dask can resolve
        return None
    if current.status != "running" or current.scheduler is None:
        return None
    return current if current.scheduler.address == wanted else None


def _settled(task: DaskFuture[Any]) -> Future[Any]:
    """A concurrent.futures Future that takes the Dask task's outcome, and cancels the task
    when cancelled itself."""
    done: Future[Any] = Future()
    done.add_done_callback(lambda d: task.cancel() if d.cancelled() else None)

    def settle(task: DaskFuture[Any]) -> None:  # in Dask's callback thread
        if done.cancelled():
            return  # here first
        if task.status == "cancelled":
            done.cancel()
            done.set_running_or_notify_cancel()  # wakes wait()
            return
        try:
            result = task.result()
        except BaseException as e:  # the run's, or the cluster's (a lost worker...)
            with suppress(InvalidStateError):  # cancelled here meanwhile
                done.set_exception(e)
        else:
            with suppress(InvalidStateError):
                done.set_result(result)

    task.add_done_callback(settle)
    return done


def _call_pickled(call: bytes) -> Any:
    fn, args = pickle.loads(call)
    return fn(*args)


class InlinePool:
    """This process, for a sweep of one run: it gains nothing from other cores, and a pool's
    start-up (a fork server importing hscc, then a worker) costs more than a short run.
    A task runs when submitted, through the `run_jobs` a worker calls, so its files and
    metrics are a worker's. A run of a program file takes a process of its own
    (`hscc.isolated`): one that kills it fails naming the program, and is not retried."""

    workers = 1

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        done: Future[Any] = Future()
        try:
            done.set_result(fn(*args))
        except Exception as e:  # as a worker's exception reaches the sweep: through its future
            done.set_exception(e)
        return done

    def restart(self) -> None:
        pass  # no worker to replace

    def close(self, interrupted: bool) -> None:
        pass


Pool: TypeAlias = LocalPool | DaskPool | InlinePool


@contextmanager
def open_pool(
    jobs: int | None, dask: str | None, inline: bool = False, draws: bool = False
) -> Iterator[Pool]:
    """The local pool (`jobs` workers, default one per core; `draws`: theirs to draw the
    sweep's plots), the Dask cluster `dask`, or with `inline` (no `dask`) this process,
    closed on exit."""
    pool: Pool
    if dask is not None:
        pool = DaskPool(dask, jobs)
    elif inline:
        pool = InlinePool()
    else:
        pool = LocalPool(jobs or workers_default(), draws)
    interrupted = True
    try:
        yield pool
        interrupted = False
    finally:
        pool.close(interrupted)


def execute(
    jobs: list[Job],
    store: RunStore | None,
    pool: Pool,
    limits: tuple[int | None, int | None],
    progress: Progress | None = None,
) -> list[Outcome]:
    """Run every job not in `store`; the outcome of each job, in order."""
    by_key: dict[str, list[Job]] = {}  # jobs with the same key are one run
    for job in jobs:
        by_key.setdefault(job.key, []).append(job)
    outcome: dict[str, Outcome] = {}
    points = _PointTally(jobs)
    counts = Counts(total=len(jobs), workers=pool.workers, points_total=points.total)
    todo: list[str] = []
    for key, same in by_key.items():
        if store is not None and store.has(key):
            outcome[key] = Outcome("cached", store.metrics(key))
            counts.cached += len(same)
            points.finished(same)
        else:
            todo.append(key)

    def finish(key: str, o: Outcome) -> None:
        outcome[key] = o
        if o.status == "ok":
            counts.done += len(by_key[key])
        else:
            counts.failed += len(by_key[key])
        points.finished(by_key[key])

    # A task: a few runs, one after the other in one worker; its keys and when it was sent
    # (time.perf_counter()).
    running: dict[Future[Any], tuple[list[str], float]] = {}
    attempts: dict[str, int] = {}
    # Finished, waiting for the writer: key → (files, or None if staged by the worker; metrics).
    unsaved: dict[str, tuple[dict[str, Any] | None, dict[str, Any]]] = {}
    # The writer's batch, at most one.
    saving: dict[Future[Any], dict[str, tuple[dict[str, Any] | None, dict[str, Any]]]] = {}
    unstored = 0  # bytes of the files in `unsaved` and `saving`, or runs where staged
    writer = (
        ThreadPoolExecutor(1, thread_name_prefix="hscc-sweep-store") if store is not None else None
    )
    cleanup = ExitStack()
    # The staging directory the workers write runs into, where they share this machine.
    staging = (
        cleanup.enter_context(store.staging())
        if store is not None and todo and not isinstance(pool, DaskPool)
        else None
    )
    most_unstored = _MAX_UNSTORED_BYTES if staging is None else _MAX_UNSTORED_RUNS

    # The modules that define the Python algorithms of this process: a worker imports them
    # (which registers the algorithms there) before its runs.
    imports = algorithm.modules()

    def task_args(keys: list[str]) -> tuple[Any, ...]:
        """`run_jobs`'s arguments for a task of the runs `keys`."""
        for k in keys:
            attempts[k] = attempts.get(k, 0) + 1
        scenarios = [by_key[k][0].scenario for k in keys]
        # The program files they name, as the plan read them: a worker that cannot read one
        # builds it from this text.
        sources = {s.path: s for k in keys for s in by_key[k][0].sources}
        # In the sweep's own process, a run of a program file takes a process of its own.
        isolate = isinstance(pool, InlinePool)
        into = [os.path.join(staging, k) for k in keys] if staging is not None else None
        return (scenarios, *limits, store is not None, imports, sources or None, isolate, into)

    def submit(*tasks: list[str]) -> None:
        args = [task_args(keys) for keys in tasks]
        futures = (
            pool.submit_all(run_jobs, args)
            if isinstance(pool, DaskPool)  # one message for them all
            else [pool.submit(run_jobs, *a) for a in args]
        )
        sent = time.perf_counter()
        for keys, fut in zip(tasks, futures, strict=True):
            running[fut] = (keys, sent)

    queue = deque(todo)
    slots = pool.workers * _IN_FLIGHT_PER_WORKER
    pace = _Pace(_guess(by_key[k][0] for k in todo))
    try:
        while True:
            tasks: list[list[str]] = []
            while len(running) + len(tasks) < slots and unstored < most_unstored and queue:
                tasks.append(
                    [queue.popleft() for _ in range(pace.runs_per_task(len(queue), slots))]
                )
            if tasks:
                submit(*tasks)
            if unsaved and not saving:  # stored at once, all that finished since the last batch
                assert writer is not None and store is not None  # runs wait for it only then
                stored = (
                    writer.submit(store.place, staging, list(unsaved))
                    if staging is not None
                    else writer.submit(store.save, {k: f for k, (f, _) in unsaved.items() if f})
                )
                saving[stored] = dict(unsaved)
                unsaved.clear()
            counts.running = min(len(running), pool.workers)
            counts.points_complete = points.complete
            if progress is not None:
                progress(counts)
            if not running and not saving:
                break
            finished, _ = wait([*running, *saving], return_when=FIRST_COMPLETED)
            for fut in finished:
                if fut in saving:
                    batch = saving.pop(fut)
                    fut.result()  # the store's error (disk full...) ends the sweep
                    for k, (files, metrics) in batch.items():
                        unstored -= _size(files)
                        finish(k, Outcome("ok", metrics))
                    continue
                task = running.pop(fut, None)
                if task is None:
                    continue  # on a pool replaced meanwhile; its runs were submitted again
                keys, sent = task
                try:
                    results, seconds = fut.result()
                except BrokenExecutor:  # a worker died: every run on its pool is lost
                    lost = [*keys, *(k for other, _ in running.values() for k in other)]
                    running.clear()
                    pool.restart()
                    for k in lost:
                        if attempts[k] < _ATTEMPTS:
                            submit(
                                [k]
                            )  # alone: a run that kills its worker takes no other run with it
                        else:
                            finish(k, Outcome("failed", error=_died(by_key[k][0])))
                    continue
                except Exception as e:  # the cluster gave up on it, or could not send it
                    for k in keys:
                        if len(keys) > 1 and attempts[k] < _ATTEMPTS:
                            submit([k])  # alone: one run's trouble is not its task-mates'
                        else:
                            finish(
                                k,
                                Outcome(
                                    "failed",
                                    error=f"the cluster could not run it: {type(e).__name__}: {e}",
                                ),
                            )
                    continue
                pace.ran(seconds, len(keys), time.perf_counter() - sent)
                for k, (status, payload, metrics) in zip(keys, results, strict=True):
                    if status == "unwritten":
                        raise payload  # as the store's error (disk full...): the sweep ends
                    if status != "ok":
                        finish(k, Outcome("failed", error=payload))
                        continue
                    if store is None:
                        finish(k, Outcome("ok", metrics))
                    else:
                        unsaved[k] = (payload, metrics)
                        unstored += _size(payload)
    except BaseException:
        if staging is not None and running:
            pool.close(interrupted=True)  # no worker still writing into the staging directory
        raise
    finally:
        for fut in running:
            fut.cancel()
        if writer is not None:
            writer.shutdown(
                wait=True
            )  # a batch being stored is finished (atomically) before the sweep returns
        cleanup.close()
    return [outcome[j.key] for j in jobs]


class _Pace:
    """Runs per task: about _TASK_S of a worker's time, so that short runs do not each pay a
    task's cost, but never so many that the last tasks leave workers idle, nor so few that the
    last tasks are mostly their own cost: at least _MIN_TASK_S, and at least the pool's own
    round trip (a Dask task's is tens of milliseconds, a local worker's about one), or a worker
    would wait for its next task longer than it works on one. Until some runs are timed, a run's
    time is `guess` (seconds; None: one run per task)."""

    def __init__(self, guess: float | None = None) -> None:
        self.runs, self.seconds = 0, 0.0
        self.guess = guess
        self.round_trip: float | None = None  # the shortest time a task took beyond its runs

    def ran(self, seconds: float, runs: int, round_trip: float | None = None) -> None:
        """A task of `runs` runs took `seconds` in its worker and `round_trip` from its
        submission to its result here."""
        self.runs += runs
        self.seconds += seconds
        if round_trip is not None:
            beyond = max(0.0, round_trip - seconds)
            self.round_trip = beyond if self.round_trip is None else min(self.round_trip, beyond)

    def runs_per_task(self, left: int, slots: int) -> int:
        if self.runs:
            per_run = self.seconds / self.runs
        elif self.guess is not None:
            per_run = self.guess
        else:
            return 1
        if per_run <= 0:
            return max(1, min(_MAX_RUNS_PER_TASK, left // slots))
        wanted = min(int(_TASK_S / per_run), _MAX_RUNS_PER_TASK)
        least = math.ceil(max(_MIN_TASK_S, self.round_trip or 0.0) / per_run)
        return max(1, min(wanted, max(left // slots, least), left))


def _guess(jobs: Iterable[Job]) -> float | None:
    """A run's time in a worker, guessed from the jobs' estimated events (see _GUESS_RUN_S);
    None if a job has no estimate."""
    events = [j.events for j in jobs]
    if not events or min(events) <= 0:
        return None
    return _GUESS_RUN_S + _GUESS_EVENT_S * sum(events) / len(events)


def _size(files: dict[str, bytes] | None) -> int:
    """What a finished run counts against the writer's bound: its files' bytes, or 1 for
    a run its worker staged (None: its files are on disk, not in memory)."""
    return 1 if files is None else sum(len(data) for data in files.values())


class _PointTally:
    """How many points have every run finished."""

    def __init__(self, jobs: list[Job]):
        self.left: dict[int, int] = {}
        for j in jobs:
            self.left[j.point] = self.left.get(j.point, 0) + 1
        self.total, self.complete = len(self.left), 0

    def finished(self, jobs: list[Job]) -> None:
        for j in jobs:
            self.left[j.point] -= 1
            self.complete += self.left[j.point] == 0
