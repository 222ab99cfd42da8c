"""The startup part: the CPU time of short commands (imports, `hscc --version`, small runs),
with and without bytecode."""

from __future__ import annotations

import os
import platform
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from . import ROOT
from .processes import _child_cpu, _hscc_cli

STARTUP_RUNS, STARTUP_RUNS_QUICK = 15, 3

# One Reno flow alone on a 10 Mbit/s link, 2 s simulated: a run whose cost is start-up.
ONE_FLOW = """\
name = "one-flow"
duration = "2s"
seed = 7

[topology]
kind = "dumbbell"
bottleneck = { rate = "10Mbps", delay = "5ms", buffer = "1bdp" }
pairs = [{ rate = "1Gbps", rtt = "20ms" }]

[[flows]]
pair = 0
algorithm = "reno"
"""


def startup_commands(tmp: Path) -> list[tuple[str, list[str], dict[str, str]]]:
    """(what the page calls it, argv, extra environment) of each start-up command."""
    py = sys.executable
    hscc = _hscc_cli()
    scenario = tmp / "one-flow.toml"
    scenario.write_text(ONE_FLOW, encoding="utf-8")
    # With bytecode, as an install leaves it: compiled first, since an environment with
    # PYTHONDONTWRITEBYTECODE set never writes it (that variable does not stop reading it).
    subprocess.run([py, "-m", "compileall", "-q", str(ROOT / "python" / "hscc")], check=True)
    # Without bytecode: a copy of the package without __pycache__, and none written, so
    # Python compiles every hscc module it imports (the standard library keeps its own).
    bare = tmp / "bare"
    shutil.copytree(
        ROOT / "python" / "hscc", bare / "hscc", ignore=shutil.ignore_patterns("__pycache__")
    )
    nobc = {"PYTHONPATH": str(bare), "PYTHONDONTWRITEBYTECODE": "1"}
    return [
        ("`python -c pass`", [py, "-c", "pass"], {}),
        ('`python -c "import hscc"`', [py, "-c", "import hscc"], {}),
        ('`python -c "import hscc.cli"`', [py, "-c", "import hscc.cli"], {}),
        ("`hscc --version`", [*hscc, "--version"], {}),
        (
            "`hscc check examples/two-reno-rtt.toml`",
            [*hscc, "check", "examples/two-reno-rtt.toml"],
            {},
        ),
        (
            "`hscc run` of 1 Reno flow, 10 Mbit/s, 2 s simulated, `-q`",
            [*hscc, "run", str(scenario), "-q", "--out", "OUT"],
            {},
        ),
        ("the same with its summary table", [*hscc, "run", str(scenario), "--out", "OUT"], {}),
        ('`python -c "import hscc.cli"`, without bytecode', [py, "-c", "import hscc.cli"], nobc),
        (
            "the quiet `hscc run`, without bytecode",
            [*hscc, "run", str(scenario), "-q", "--out", "OUT"],
            nobc,
        ),
    ]


def part_startup(quick: bool, tmp: Path) -> dict:
    commands = startup_commands(tmp)
    base = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    runs = STARTUP_RUNS_QUICK if quick else STARTUP_RUNS
    cpu: list[list[float]] = [[] for _ in commands]
    n = 0
    for rep in range(runs + 1):  # the first pass leaves the bytecode: not counted
        for i, (_, argv, env) in enumerate(commands):
            n += 1
            argv = [str(tmp / f"run{n}") if a == "OUT" else a for a in argv]
            before = _child_cpu()
            p = subprocess.run(
                argv,
                cwd=ROOT,
                env={**base, **env},
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
                check=False,
            )
            if p.returncode != 0:
                raise RuntimeError(f"{' '.join(argv)} failed:\n{p.stderr}")
            if rep:
                cpu[i].append(_child_cpu() - before)
    print("  startup: done", flush=True)
    return {
        "command": "each command in turn, run for run; CPU from getrusage(RUSAGE_CHILDREN)",
        "python": platform.python_version(),
        "runs": runs,
        "commands": [
            # paths by their names: the interpreter's and the temporary directory's are this machine's
            {"name": name, "argv": [Path(a).name if a.startswith("/") else a for a in argv]}
            | {"cpu_s": [round(c, 4) for c in cs], "median_s": round(statistics.median(cs), 4)}
            for (name, argv, _), cs in zip(commands, cpu, strict=True)
        ],
    }
