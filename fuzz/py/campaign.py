"""A Python fuzzing campaign: JOBS fuzz_scenario.py processes sharing a corpus,
each restarted (a bounded number of times) if libFuzzer ends it early (its
-timeout or -rss_limit_mb), then one summary.

    python fuzz/py/campaign.py [--inputs N] [--jobs J] [--seconds S] [fuzz_scenario options]

Writes OUT/summary.json; exits 1 if there was any finding, 0 if none.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import settings
from fuzz_results import coverage, last_status

RESTARTS = (
    5  # per job: more early exits than this and the job gives up (each one is a finding anyway)
)
HERE = Path(__file__).resolve().parent


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--inputs", type=int, default=1_000_000, help="inputs in all (default 10^6)")
    p.add_argument(
        "--jobs", type=int, default=2, help="fuzzing processes (default 2: one per core)"
    )
    p.add_argument(
        "--seconds", type=float, default=7200.0, help="wall-time cap of the campaign (default 7200)"
    )
    p.add_argument("--out", type=Path, default=settings.FUZZ / "out" / "python")
    args, passthrough = p.parse_known_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for old in args.out.glob("stats-*.json"):
        old.unlink()  # totals are of this campaign; corpus and findings carry over
    started = time.time()
    deadline = time.monotonic() + args.seconds
    share = [
        args.inputs // args.jobs + (1 if k < args.inputs % args.jobs else 0)
        for k in range(args.jobs)
    ]
    jobs = [_Job(k, n, args.out, passthrough) for k, n in enumerate(share)]
    while any(
        j.running() or j.wants_more() for j in jobs
    ):  # bounded: each job restarts at most RESTARTS times
        for j in jobs:
            if not j.running() and j.wants_more() and time.monotonic() < deadline:
                j.start(deadline - time.monotonic())
        time.sleep(1)
        if time.monotonic() >= deadline + 120:
            for j in jobs:
                j.kill()  # the jobs honour --seconds themselves; this is the backstop
    summary = _summary(args.out, jobs, started)
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1))
    print(json.dumps(summary, indent=1))
    return 1 if summary["distinct_findings"] or summary["libfuzzer_artifacts"] else 0


class _Job:
    def __init__(self, k: int, inputs: int, out: Path, passthrough: list[str]):
        self.k, self.inputs, self.out, self.passthrough = k, inputs, out, passthrough
        self.proc: subprocess.Popen | None = None
        self.done, self.starts, self.finished = 0, 0, False
        self.stats: list[dict] = []
        self.logs: list[Path] = []

    def running(self) -> bool:
        if self.proc is None:
            return False
        code = self.proc.poll()
        if code is None:
            return True
        self._collect()
        # 0 or 1: it reached its budget (1 = with findings); anything else: libFuzzer stopped it.
        self.finished = code in (0, 1)
        self.proc = None
        return False

    def wants_more(self) -> bool:
        return not self.finished and self.done < self.inputs and self.starts <= RESTARTS

    def start(self, seconds: float) -> None:
        self.starts += 1
        self.log = self.out / f"job{self.k}-run{self.starts}.log"
        self.logs.append(self.log)
        cmd = [
            sys.executable,
            str(HERE / "fuzz_scenario.py"),
            "--out",
            str(self.out),
            "--inputs",
            str(self.inputs - self.done),
            "--seconds",
            str(max(1.0, seconds)),
            *self.passthrough,
            f"-seed={1000 * self.k + self.starts}",
        ]
        self.proc = subprocess.Popen(
            cmd, stdout=subprocess.DEVNULL, stderr=open(self.log, "w"), cwd=HERE
        )
        self.pid = self.proc.pid

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()

    def _collect(self) -> None:
        path = self.out / f"stats-{self.pid}.json"
        if path.exists():
            s = json.loads(path.read_text())
            self.stats.append(s)
            self.done += s["inputs"]


def _summary(out: Path, jobs: list[_Job], started: float) -> dict:
    stats = [s for j in jobs for s in j.stats]
    inputs = sum(s["inputs"] for s in stats)
    outcomes: dict[str, int] = {}
    findings: dict[str, int] = {}
    for s in stats:
        for k, v in s["outcomes"].items():
            outcomes[k] = outcomes.get(k, 0) + v
        for k, v in s["findings"].items():
            findings[k] = findings.get(k, 0) + v
    wall = max((sum(s["seconds"] for s in j.stats) for j in jobs), default=0.0)
    artifacts = sorted(p.name for p in out.glob("libfuzzer-*") if p.stat().st_mtime >= started)
    # libFuzzer's last status line of each run of each job: the largest coverage any reached
    logs = [log.read_text(errors="replace") for j in jobs for log in j.logs if log.is_file()]
    return {
        "inputs": inputs,
        "jobs": len(jobs),
        "wall_seconds": round(wall, 1),
        "inputs_per_second": round(inputs / wall, 1) if wall else None,
        "outcomes": outcomes,
        "distinct_findings": len(findings),
        "findings": findings,
        "libfuzzer_artifacts": artifacts,  # this campaign's inputs libFuzzer itself stopped on (its -timeout, -rss_limit_mb)
        "coverage": coverage([last_status(text) for text in logs]),
        "starts": [j.starts for j in jobs],
    }


if __name__ == "__main__":
    sys.exit(main())
