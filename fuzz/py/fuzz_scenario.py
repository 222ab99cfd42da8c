"""Coverage-guided fuzzing of the scenario path with atheris (libFuzzer).

    python fuzz/py/fuzz_scenario.py [--inputs N] [--seconds S] [options] [-- libFuzzer flags]

Coverage is that of hscc's Python code and tomllib (instrumented on import);
the engine runs in a separate process (engine_worker.py) as a black box whose
panics, hangs and memory use are the oracle: the cargo-fuzz target in fuzz/
covers the engine with coverage guidance of its own. Findings do not stop the
campaign; the process exits 1 at the end if there were any, 0 if none.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
import tomllib
from pathlib import Path

import atheris

with atheris.instrument_imports(include=["hscc", "tomllib"]):
    import hscc.scenario  # noqa: F401 - instrumented here, used by the oracle

import settings
import vocab
from findings import Findings
from mutate import Mutator
from oracle import Oracle

STATS_EVERY = 200  # inputs between two writes of stats.json (what a killed job loses)


def main() -> None:
    p = settings.parser(__doc__.splitlines()[0])
    p.add_argument(
        "--inputs", type=int, default=10_000, help="stop after this many inputs (default 10000)"
    )
    p.add_argument(
        "--seconds", type=float, default=3600.0, help="stop after this many seconds (default 3600)"
    )
    ours, libfuzzer = p.parse_known_args()
    out: Path = ours.out
    corpus = out / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    for f in settings.seed_files():  # copied: libFuzzer may rewrite files in its corpus directory
        shutil.copyfile(f, corpus / f"seed-{f.parent.name}-{f.name}")
    libfuzzer = [a for a in libfuzzer if a != "--"]
    dict_path = out / "scenario.dict"
    dict_path.write_text("\n".join(vocab.dictionary_lines()) + "\n")

    findings = Findings(out)
    work = Path(
        tempfile.mkdtemp(prefix="hscc-fuzz-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    )
    oracle = Oracle(
        work,
        findings,
        memory_mib=ours.engine_memory_mib,
        cap_s=ours.sim_cap,
        events=ours.events,
        timeout_s=ours.engine_timeout,
        py_timeout_s=ours.py_timeout,
    )
    seeds = [d for d in (_parse(f.read_bytes()) for f in settings.seed_files()) if d is not None]
    mutator = Mutator(
        seeds, lambda data, n: atheris.Mutate(data, n)
    )  # looked up late: Fuzz() rebinds atheris.Mutate
    deadline = time.monotonic() + ours.seconds

    def stop() -> None:
        stats = findings.write_stats(
            {"engine_restarts": oracle.engine.restarts, "libfuzzer_args": libfuzzer}
        )
        oracle.close()
        shutil.rmtree(work, ignore_errors=True)
        print(
            f"fuzz_scenario: {stats['inputs']} inputs in {stats['seconds']} s ({stats['inputs_per_second']}/s), "
            f"{stats['distinct_findings']} distinct findings; outcomes {stats['outcomes']}",
            file=sys.stderr,
            flush=True,
        )
        os._exit(1 if stats["distinct_findings"] else 0)  # libFuzzer has no clean way out of Fuzz()

    def test_one_input(data: bytes) -> None:
        oracle.check(data)
        n = findings.inputs
        if n % STATS_EVERY == 0:
            findings.write_stats({"engine_restarts": oracle.engine.restarts})
        if n >= ours.inputs or time.monotonic() >= deadline:
            stop()

    args = [
        sys.argv[0],
        f"-dict={dict_path}",
        "-max_len=16384",
        "-timeout=60",
        "-rss_limit_mb=4096",
        f"-artifact_prefix={out}/libfuzzer-",
        *libfuzzer,
        str(corpus),
    ]
    atheris.Setup(
        args, test_one_input, custom_mutator=mutator.mutate, custom_crossover=mutator.crossover
    )
    atheris.Fuzz()
    stop()  # Fuzz() returns only when libFuzzer ran out of work (e.g. -runs)


def _parse(data: bytes) -> dict | None:
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (
        UnicodeDecodeError,
        ValueError,
        RecursionError,
    ):  # ValueError: TOML errors and int() digit limits
        return None


if __name__ == "__main__":
    main()
