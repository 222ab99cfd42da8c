"""Running a plan's jobs: on a local pool of worker processes or on a Dask
cluster, through one loop.

Runs already in the store are not submitted. At most a few runs per worker
are in flight at once, so a sweep of a million runs does not hold a million
scenarios in memory. Each finished run is stored as soon as it comes back, so
killing the sweep loses only the runs in flight. A run that fails (the engine's
error, or its worker dying) is recorded with the message and the others go on.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Iterator, Optional

from hscc.sweeps.metrics import row
from hscc.sweeps.plan import Job
from hscc.sweeps.store import RunStore
from hscc.sweeps.worker import die_with_parent, run_job

_IN_FLIGHT_PER_WORKER = 2


@dataclass
class Outcome:
    """How one run ended: "ok" (computed now), "cached" (found in the store) or "failed"."""

    status: str
    metrics: Optional[dict] = None
    error: Optional[str] = None


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


def workers_default() -> int:
    """One worker per core this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


@contextmanager
def local_pool(jobs: int) -> Iterator[tuple[Executor, int]]:
    """A pool of `jobs` worker processes (forked from a server that has hscc imported once)."""
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["hscc.sweeps.worker"])
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=die_with_parent)
    try:
        yield pool, jobs
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


@contextmanager
def dask_pool(address: str, jobs: Optional[int]) -> Iterator[tuple[Executor, int]]:
    """The Dask cluster at `address` ("local": a LocalCluster of `jobs` single-threaded worker processes)."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise RuntimeError("--dask needs dask.distributed: pip install 'hscc[dask]'") from None
    cluster = None
    if address == "local":
        cluster = LocalCluster(n_workers=jobs or workers_default(), threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs="error")
        client = Client(cluster)
    else:
        client = Client(address, timeout="30s")
    try:
        workers = sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values()) or 1
        yield client.get_executor(pure=False), workers
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def execute(jobs: list[Job], store: Optional[RunStore], pool: tuple[Executor, int], limits: tuple[Optional[int], Optional[int]],
            progress: Optional[Progress] = None) -> list[Outcome]:
    """Run every job not in `store`; the outcome of each job, in order."""
    executor, workers = pool
    by_key: dict[str, list[Job]] = {}  # jobs with the same key are one run
    for job in jobs:
        by_key.setdefault(job.key, []).append(job)
    outcome: dict[str, Outcome] = {}
    points = _PointTally(jobs)
    counts = Counts(total=len(jobs), workers=workers, points_total=points.total)
    todo = []
    for key, same in by_key.items():
        if store is not None and store.has(key):
            outcome[key] = Outcome("cached", _metrics(store, key))
            counts.cached += len(same)
            points.finished(same)
        else:
            todo.append(key)
    running: dict[Future, str] = {}
    queue = iter(todo)
    try:
        while True:
            while len(running) < workers * _IN_FLIGHT_PER_WORKER and (key := next(queue, None)) is not None:
                running[executor.submit(run_job, by_key[key][0].scenario, *limits)] = key
            counts.running = min(len(running), workers)
            counts.points_complete = points.complete
            if progress is not None:
                progress(counts)
            if not running:
                break
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for fut in finished:
                key = running.pop(fut)
                outcome[key] = o = _finish(fut, by_key[key][0], store)
                if o.status == "ok":
                    counts.done += len(by_key[key])
                else:
                    counts.failed += len(by_key[key])
                points.finished(by_key[key])
    finally:
        for fut in running:
            fut.cancel()
    return [outcome[j.key] for j in jobs]


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


def _finish(fut: Future, job: Job, store: Optional[RunStore]) -> Outcome:
    try:
        status, payload, metrics = fut.result()
    except Exception as e:  # the worker died (killed, out of memory) or the cluster lost it
        return Outcome("failed", error=f"the worker running it failed: {type(e).__name__}: {e}")
    if status != "ok":
        return Outcome("failed", error=payload)
    if store is not None:
        store.save(job.key, payload)
    return Outcome("ok", metrics)


def _metrics(store: RunStore, key: str) -> dict:
    return row(store.load(key))
