"""What `import hscc` and the short commands load: each case runs in a fresh interpreter
and names the heavy modules (polars, numpy, plotting, Dask, sweeps, kernel, testbed)
that must not be in `sys.modules` afterwards. Behaviour, not timing."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import EXAMPLES, ONE_FLOW

# Modules no plain run, check or import needs; each costs tens to hundreds of ms to import.
HEAVY = (
    "polars",
    "numpy",
    "pyarrow",
    "pandas",
    "matplotlib",
    "pydantic",  # typer's coercion; hscc.console takes plain strings and paths without it
    "dask",
    "distributed",
    "hscc.sweeps",
    "hscc.reproduce",
    "hscc.kernel",
    "hscc.testbed",
    "hscc.plot",
    "hscc.style",
    "hscc.cclog",
    "hscc.metrics",
)

# Runs `code` (with SystemExit 0 taken as success: a command's normal end), then prints
# the loaded modules' names as JSON on its last line.
PROBE = """
import json, sys
try:
    exec(sys.argv[1])
except SystemExit as e:
    if e.code not in (0, None):
        raise
finally:
    print("\\n" + json.dumps(sorted(sys.modules)))
"""


def loaded(code: str, cwd: Path) -> tuple[set[str], str]:
    """The modules a fresh interpreter has after running `code`, and what it printed before."""
    p = subprocess.run(
        [sys.executable, "-c", PROBE, code],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )
    assert p.returncode == 0, p.stderr
    printed, _, modules = p.stdout.rstrip("\n").rpartition("\n")
    return set(json.loads(modules)), printed


def heavy(modules: set[str]) -> list[str]:
    """The modules of HEAVY (packages with their submodules) among `modules`."""
    return sorted(m for m in modules if m in HEAVY or m.startswith(tuple(f"{h}." for h in HEAVY)))


def rich(modules: set[str]) -> list[str]:
    """Rich's modules among `modules`."""
    return sorted(m for m in modules if m == "rich" or m.startswith("rich."))


def cli(*args: str) -> str:
    """Code that runs `hscc ARGS` in-process, as the console script does."""
    return f"import sys\nfrom hscc.__main__ import entry\nsys.argv = ['hscc', *{list(args)!r}]\nentry()"


def test_import_hscc_loads_nothing_heavy(tmp_path):
    modules, _ = loaded("import hscc", tmp_path)
    assert heavy(modules) == []
    assert "hscc._core" not in modules and "hscc.results" not in modules


def test_import_hscc_cli_loads_nothing_heavy(tmp_path):
    modules, _ = loaded("import hscc.cli", tmp_path)
    assert heavy(modules) == []
    assert rich(modules) == []  # imported when something is printed through it


@pytest.mark.parametrize("args", [["--help"], ["--version"]])
def test_help_and_version_load_nothing_heavy(tmp_path, args):
    modules, printed = loaded(cli(*args), tmp_path)
    assert heavy(modules) == []
    assert [m for m in modules if m.startswith("hscc.cli.")] == ["hscc.cli.options"]  # no command's
    assert "hscc" in printed
    if args == ["--version"]:  # one line for scripts: no Rich
        assert rich(modules) == []


def test_check_loads_nothing_heavy(tmp_path):
    modules, printed = loaded(cli("check", str(EXAMPLES / "two-reno-rtt.toml")), tmp_path)
    assert heavy(modules) == []
    assert rich(modules) == []  # plain lines
    assert "valid" in printed


def test_a_quiet_run_loads_nothing_heavy(tmp_path):
    scenario = tmp_path / "one-flow.toml"
    scenario.write_text(ONE_FLOW.replace('"10s"', '"2s"'), encoding="utf-8")
    modules, printed = loaded(cli("run", str(scenario), "-q", "--out", "run"), tmp_path)
    assert heavy(modules) == []
    # It prints one path: no Rich, and no other command's module.
    assert rich(modules) == []
    assert sorted(m for m in modules if m.startswith("hscc.cli.")) == [
        "hscc.cli.options",
        "hscc.cli.run",
    ]
    # Nor what only some runs need: program files (isolation, digests), Windows locks, a
    # sweep store's flush (ctypes).
    assert not {"hscc.isolated", "pickle", "hashlib", "portalocker", "logging", "ctypes"} & modules
    assert printed.strip() == "run"
    files = {p.name for p in (tmp_path / "run").iterdir()}
    assert {"manifest.json", "summary.json", "flows.parquet", "timeseries.parquet"} <= files


def test_a_run_prints_its_table_without_polars_or_rich(tmp_path):
    scenario = tmp_path / "one-flow.toml"
    scenario.write_text(ONE_FLOW.replace('"10s"', '"2s"'), encoding="utf-8")
    modules, printed = loaded(cli("run", str(scenario), "--out", "run"), tmp_path)
    assert heavy(modules) == []
    assert rich(modules) == []  # plain text (hscc.text_table), no progress bar to draw
    assert "one-flow: 2 s simulated" in printed and "bottleneck:fwd" in printed
    assert "Jain's fairness index" in printed


def test_the_run_s_text_table_is_the_rich_table(one_flow):
    """`hscc run` prints the run's tables without Rich; they read as Rich draws them for
    notebooks and the test bed (a line's trailing spaces aside)."""
    import hscc
    from hscc import report, run_summary, text_table
    from hscc.console import out

    result = hscc.run(one_flow)
    written = io.StringIO()
    text_table.print_tables(run_summary.tables(result), run_summary.fairness(result), written)
    with out.capture() as drawn:
        out.print(report.summary(result))
    plain = [line.rstrip() for line in written.getvalue().splitlines()]
    rich_lines = [line.rstrip() for line in drawn.get().splitlines()]
    assert [line for line in plain if line] == [line for line in rich_lines if line]


def test_a_quiet_sweep_of_one_run_starts_no_worker_and_draws_nothing(tmp_path):
    (tmp_path / "one-flow.toml").write_text(ONE_FLOW.replace('"10s"', '"2s"'), encoding="utf-8")
    (tmp_path / "one.toml").write_text(
        'base = "one-flow.toml"\n[axes]\n"flows[0].algorithm" = ["cubic"]\n', encoding="utf-8"
    )
    modules, printed = loaded(cli("sweep", "one.toml", "-q", "--out", "sweep"), tmp_path)
    assert printed.strip() == "sweep"
    drawing = ("matplotlib", "hscc.style", "hscc.sweeps.plot", "scipy")
    assert [m for m in modules if m.split(".")[0] in drawing or m in drawing] == []
    assert "multiprocessing.popen_forkserver" not in modules
    assert sorted(p.name for p in (tmp_path / "sweep").iterdir()) == [
        "manifest.json",
        "points.parquet",
        "runs",
        "summary.parquet",
    ]


def test_the_table_from_summary_json_is_the_table_from_the_tables(one_flow, monkeypatch):
    """report.summary reads summary.json's rows; the same table comes from the Parquet tables."""
    import hscc
    from hscc import report
    from hscc.console import out

    result = hscc.run(one_flow)
    with out.capture() as from_json:
        out.print(report.summary(result))
    for name in ("flows", "links", "udp"):
        result.summary[name] = getattr(result, name).to_dicts()
    with out.capture() as from_tables:
        out.print(report.summary(result))
    assert from_json.get() == from_tables.get()


def test_the_public_names_are_there_when_asked_for(tmp_path):
    code = (
        "import hscc\n"
        "assert set(hscc.__all__) <= set(dir(hscc))\n"
        "assert set(hscc.__all__) == {*hscc._WHERE, '__version__'}\n"
        "names = {n: getattr(hscc, n) for n in hscc.__all__}\n"
        "assert names['load_sweep'].__module__.startswith('hscc.sweeps')\n"
        "assert isinstance(hscc.__version__, str)\n"
        "try:\n"
        "    hscc.no_such_name\n"
        "except AttributeError:\n"
        "    pass\n"
        "else:\n"
        "    raise AssertionError('hscc.no_such_name')\n"
        "from hscc import *\n"
        "assert Result is hscc.Result and run is hscc.run\n"
    )
    loaded(code, tmp_path)


def test_the_commands_imported_when_run_are_listed_as_they_describe_themselves():
    from hscc.cli import _Hscc, app
    from hscc.console import reflow

    for name, lazy in _Hscc.lazy.items():
        command = lazy.make()
        assert command.name == name
        assert (reflow(command.help) or "").split("\n\n")[0] == lazy.summary
    listing = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200"}).output
    for name, lazy in _Hscc.lazy.items():
        assert f"{name} " in listing and lazy.summary[:60] in listing


def test_values_typer_converts_still_convert_and_fail_as_typer_says(one_flow, tmp_path):
    from hscc.cli import app

    bad = CliRunner().invoke(app, ["run", str(one_flow), "-q", "--seed", "abc"])
    assert bad.exit_code == 2 and "--seed" in bad.output
    good = CliRunner().invoke(
        app, ["run", str(one_flow), "-q", "-s", "3", "-o", str(tmp_path / "r")]
    )
    assert good.exit_code == 0, good.output
    assert json.loads((tmp_path / "r" / "manifest.json").read_text())["seed"] == 3


@pytest.mark.parametrize("name", ["compare", "kernel", "testbed"])
def test_the_commands_imported_when_run_still_run(name):
    from hscc.cli import app

    r = CliRunner().invoke(app, [name, "--help"])
    assert r.exit_code == 0, r.output
    assert f"hscc {name}" in r.output and "--install-completion" not in r.output
