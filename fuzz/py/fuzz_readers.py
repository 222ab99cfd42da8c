"""Coverage-guided fuzzing of the sweep and experiment readers with atheris (libFuzzer).

    python fuzz/py/fuzz_readers.py [--inputs N] [--seconds S] [--out DIR] [-- libFuzzer flags]
    python fuzz/py/fuzz_readers.py --replay FILE...   # the oracle on files, without atheris

Each input is written to a file and read as a sweep (hscc.sweeps.spec.load, then
plan.check: each axis value through the engine's checks) and as an experiment
(hscc.reproduce.experiment.load). The oracle: the reader accepts the input or
refuses it with its own error (SweepError, ExperimentError), within --py-timeout
seconds each. Anything else (another exception, a panic, a slower answer) is a
finding, kept as OUT/findings/READER-SHA.toml with what happened. The seeds are
the example sweeps and the experiments of the catalogue. At the end it writes
OUT/summary.json: inputs, seconds, inputs per second and the findings, as
{"KIND:READER:WHERE": inputs} (KIND: traceback, panic, memory or hang). Exits 1
if there were findings, 0 if none.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable
from pathlib import Path

FUZZ = Path(__file__).resolve().parent.parent
REPO = FUZZ.parent
SEEDS = (REPO / "examples" / "sweeps", REPO / "python" / "hscc" / "reproduce" / "experiments")


def readers() -> dict[str, tuple[Callable[[Path], object], type[Exception]]]:
    """Each reader and the error it refuses an input with."""
    from hscc.reproduce import experiment
    from hscc.sweeps import plan, spec

    def sweep(path: Path) -> object:
        return plan.check(spec.load(path))

    return {
        "sweep": (sweep, spec.SweepError),
        "experiment": (experiment.load, experiment.ExperimentError),
    }


class Oracle:
    """Runs every reader on one input; records what breaks the oracle under OUT/findings."""

    def __init__(self, out: Path, timeout_s: float):
        self.findings = out / "findings"
        self.findings.mkdir(parents=True, exist_ok=True)
        self.timeout_s = timeout_s
        self.readers = readers()
        self.work = Path(tempfile.mkdtemp(prefix="hscc-fuzz-readers-"))
        self.inputs = 0
        self.found = 0
        self.hits: Counter[str] = Counter()  # signature (kind:reader:where) -> inputs
        self.t0 = time.monotonic()

    def check(self, data: bytes) -> None:
        self.inputs += 1
        path = self.work / "input.toml"
        path.write_bytes(data)
        for name, (read, refusal) in self.readers.items():
            start = time.monotonic()
            what, signature = None, ""
            try:
                read(path)
            except refusal:
                pass
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException as e:  # noqa: BLE001 - a panic from the engine is a BaseException
                what, signature = traceback.format_exc(), _signature(name, e)
            took = time.monotonic() - start
            if what is None and took > self.timeout_s:
                what = f"took {took:.2f} s (more than {self.timeout_s} s)"
                signature = f"hang:{name}:over {self.timeout_s:g} s"
            if what is not None:
                self.record(name, data, what, signature)

    def record(self, reader: str, data: bytes, what: str, signature: str = "") -> None:
        self.found += 1
        self.hits[signature or f"traceback:{reader}:?"] += 1
        digest = hashlib.sha256(data).hexdigest()[:16]
        (self.findings / f"{reader}-{digest}.toml").write_bytes(data)
        (self.findings / f"{reader}-{digest}.txt").write_text(what)
        print(f"fuzz_readers: FINDING ({reader}): {what.strip().splitlines()[-1]}", file=sys.stderr)

    def summary(self) -> dict:
        seconds = time.monotonic() - self.t0
        return {
            "inputs": self.inputs,
            "seconds": round(seconds, 1),
            "inputs_per_second": round(self.inputs / seconds, 1) if seconds > 0 else None,
            "distinct_findings": len(self.hits),
            "findings": dict(self.hits),
        }


def _signature(reader: str, e: BaseException) -> str:
    """ "KIND:READER:WHERE": the exception's type and its innermost frame in hscc."""
    if type(e).__name__ == "PanicException":  # pyo3's: a Rust panic
        kind = "panic"
    elif isinstance(e, MemoryError):
        kind = "memory"
    else:
        kind = "traceback"
    frames = traceback.extract_tb(e.__traceback__)
    f = ([x for x in frames if "/hscc/" in x.filename] or frames or [None])[-1]
    where = f"{Path(f.filename).name}:{f.lineno}" if f is not None else "?"
    return f"{kind}:{reader}:{type(e).__name__} at {where}"


def seed_files() -> list[Path]:
    return sorted(f for d in SEEDS if d.is_dir() for f in d.rglob("*.toml"))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=FUZZ / "out" / "readers")
    p.add_argument("--inputs", type=int, default=10_000, help="stop after this many inputs")
    p.add_argument("--seconds", type=float, default=3600.0, help="stop after this many seconds")
    p.add_argument("--py-timeout", type=float, default=2.0, help="wall seconds per reader")
    p.add_argument("--replay", type=Path, nargs="+", help="check these files and stop")
    ours, libfuzzer = p.parse_known_args()
    if ours.replay:
        oracle = Oracle(ours.out, ours.py_timeout)
        for f in ours.replay:
            oracle.check(f.read_bytes())
        print(f"fuzz_readers: {oracle.inputs} files, {oracle.found} findings", file=sys.stderr)
        sys.exit(1 if oracle.found else 0)

    import atheris

    with atheris.instrument_imports(include=["hscc", "tomllib"]):
        import hscc.reproduce.experiment  # noqa: F401 - instrumented here, used by the oracle
        import hscc.sweeps.spec  # noqa: F401

    oracle = Oracle(ours.out, ours.py_timeout)
    corpus = ours.out / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    for f in seed_files():
        (corpus / f"seed-{f.parent.name}-{f.name}").write_bytes(f.read_bytes())
    deadline = time.monotonic() + ours.seconds
    (ours.out / "summary.json").unlink(missing_ok=True)

    def stop() -> None:
        (ours.out / "summary.json").write_text(json.dumps(oracle.summary(), indent=1))
        print(
            f"fuzz_readers: {oracle.inputs} inputs, {oracle.found} findings",
            file=sys.stderr,
            flush=True,
        )
        os._exit(1 if oracle.found else 0)  # libFuzzer has no clean way out of Fuzz()

    def test_one_input(data: bytes) -> None:
        oracle.check(data)
        if oracle.inputs >= ours.inputs or time.monotonic() >= deadline:
            stop()

    args = [sys.argv[0], "-max_len=16384", "-timeout=60", "-rss_limit_mb=4096"]
    args += [a for a in libfuzzer if a != "--"] + [str(corpus)]
    atheris.Setup(args, test_one_input)
    atheris.Fuzz()
    stop()


if __name__ == "__main__":
    main()
