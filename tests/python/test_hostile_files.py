"""Hostile sweep and experiment files, special files and the memory guard: a clear error
naming the file or field, the value and what is allowed, exit code 2, never a traceback,
a hang or unbounded memory (each test reproduces an input that once did one of these)."""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import ONE_FLOW, ROOT
from hscc import Scenario, limits
from hscc.cli import app
from hscc.reproduce import experiment
from hscc.sweeps import SweepError, plan, spec

runner = CliRunner()

TWO_FLOWS = (
    ONE_FLOW.replace(
        'pairs = [{ rate = "1Gbps", rtt = "20ms" }]',
        'pairs = [{ rate = "1Gbps", rtt = "20ms" }, { rate = "1Gbps", rtt = "60ms" }]',
    )
    + '\n[[flows]]\npair = 1\nalgorithm = "reno"\n'
)


def base() -> Scenario:
    import tomllib

    return Scenario.parse(tomllib.loads(textwrap.dedent(TWO_FLOWS)))


def refused(axes: dict, match: str, **top) -> str:
    with pytest.raises(SweepError, match=match) as e:
        spec.parse({"axes": axes, **top}, base=base())
    return str(e.value)


def bad_input(args: list[str]) -> str:
    """The command must exit 2 without a traceback; returns its stderr."""
    r = runner.invoke(app, args, catch_exceptions=False)
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output
    return r.stderr


# --- special files ------------------------------------------------------------------------


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    """A named pipe nobody writes to: opening it for reading the usual way blocks forever."""
    path = tmp_path / "pipe.toml"
    os.mkfifo(path)
    return path


@pytest.mark.timeout(10)
def test_a_named_pipe_as_the_scenario_is_refused_at_once(fifo):
    assert "it is a named pipe, not a regular file" in bad_input(["check", str(fifo)])


@pytest.mark.timeout(10)
def test_a_named_pipe_as_a_sweeps_base_is_refused_at_once(fifo, tmp_path):
    with pytest.raises(SweepError, match="base: .*named pipe"):
        spec.parse({"base": str(fifo), "axes": {}}, source=str(tmp_path / "s.toml"))


@pytest.mark.timeout(10)
@pytest.mark.parametrize(
    "read",
    [spec.load, experiment.load, Scenario.from_toml],
    ids=["sweep", "experiment", "scenario"],
)
def test_every_reader_refuses_special_files(fifo, tmp_path, read):
    for path, kind in ((fifo, "named pipe"), (tmp_path, "directory"), ("/dev/zero", "device")):
        with pytest.raises(ValueError, match=f"{kind}, not a regular file"):
            read(path)


@pytest.mark.timeout(10)
def test_a_file_that_is_not_utf8_names_the_byte(tmp_path):
    path = tmp_path / "s.toml"
    path.write_bytes(b'name = "caf\xe9"\n')
    with pytest.raises(SweepError, match="byte 0xe9 at offset 11 is not UTF-8"):
        spec.load(path)


@pytest.mark.timeout(20)
@pytest.mark.parametrize("read", [spec.load, experiment.load], ids=["sweep", "experiment"])
def test_long_dotted_keys_are_refused_before_parsing(tmp_path, read):
    path = tmp_path / "s.toml"
    path.write_text("\n".join(".".join(["k"] * 40) + f"{i} = 1" for i in range(1000)))
    assert path.stat().st_size > 80_000
    with pytest.raises(ValueError, match="dotted key is nested more than 32"):
        read(path)


# --- sweep files ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "ends, why",
    [
        ([0, math.inf], "a finite number"),
        ([math.nan, 1], "a finite number"),
        ([-math.inf, 1], "a finite number"),
        ([0, 10**400], "a number from -1e300 to 1e300"),
        (["1", "1e999"], "a finite number"),
    ],
)
def test_range_ends_are_finite(ends, why):
    for kind in ("linspace", "logspace"):
        message = refused(
            {"flows[0].params.gamma": {kind: ends, "steps": 3}}, "axes.flows\\[0\\].params.gamma"
        )
        assert why in message or "positive ends" in message


def test_huge_steps_are_refused():
    refused(
        {"topology.bottleneck.loss": {"linspace": [0, 0.1], "steps": 10**400}},
        r"steps: .* is not allowed \(a whole number from 1 to 100000\)",
    )


@pytest.mark.timeout(10)
def test_a_list_index_of_thousands_of_digits_is_refused_by_its_length():
    refused(
        {"flows[" + "9" * 5000 + "].algorithm": ["reno"]},
        r"a list index has at most 9 digits; \[9{17}\.\.\.\] has 5000",
    )


@pytest.mark.timeout(10)
def test_a_huge_axis_value_is_refused_before_the_engine_sees_it():
    refused({"flows[0].algorithm": ["r" * (15 << 20)]}, "text of 15728640 characters")


def test_paths_written_two_ways_are_one_field():
    message = refused(
        {"flows[0].algorithm": ["reno"], "flows[00].algorithm": ["cubic"]}, "already swept"
    )
    assert "flows[00].algorithm is the field flows[0].algorithm" in message
    sw = spec.parse({"axes": {"flows[01].algorithm": ["reno"]}}, base=base())
    assert sw.paths == ["flows[1].algorithm"] and sw.axes[0].name == "flows[1].algorithm"


def test_duplicates_inside_a_zip_are_refused():
    refused(
        {"x": {"zip": {"flows[1].algorithm": ["reno"], "flows[001].algorithm": ["cubic"]}}},
        "flows\\[001\\].algorithm is the field flows\\[1\\].algorithm",
    )


@pytest.mark.parametrize(
    "axes", [{"seed": [1, 2]}, {"s": {"zip": {"seed": [1, 2], "flows[0].algorithm": ["a", "b"]}}}]
)
def test_seed_is_not_an_axis(axes):
    message = refused(axes, "seed cannot be swept")
    assert "replicates" in message and "sweep's `seed`" in message


def test_checking_points_calls_the_engine_once_per_axis_value(monkeypatch):
    """Checking work is bounded by the axes' values, not their product: a 40 × 25 × 50 sweep
    (50 000 points) costs the engine 115 checks (one per axis value, and one of the base)."""
    from hscc import scenario

    calls = {"check": 0}
    real = scenario._core.resolve

    def counting(text: str) -> scenario._core.Resolved:
        calls["check"] += 1
        return real(text)

    monkeypatch.setattr(scenario._core, "resolve", counting)
    sw = spec.parse(
        {
            "axes": {
                "topology.bottleneck.loss": {"logspace": ["1e-6", "1e-2"], "steps": 40},
                "flows[0].algorithm": ["reno", "cubic", "highspeed", "ctcp", "bic"] * 5,
                "topology.pairs[1].rtt": {"linspace": ["20ms", "200ms"], "steps": 50},
            }
        },
        base=base(),
    )
    calls["check"] = 0
    checked = plan.check(sw)
    assert checked == 50_000
    assert calls["check"] <= 40 + 25 + 50 + 1


# --- experiment files -----------------------------------------------------------------------

EXPERIMENT = ROOT / "python/hscc/reproduce/experiments/ctcp/ctcp-table2.toml"


def experiment_file(tmp_path: Path, old: str, new: str) -> Path:
    text = EXPERIMENT.read_text()
    assert old in text, old
    path = tmp_path / "e.toml"
    path.write_text(text.replace(old, new, 1))
    return path


@pytest.mark.parametrize(
    "old, new, says",
    [
        ("factor = 25.0", "factor = nan", "x.factor: nan"),
        ("factor = 25.0", "factor = inf", "x.factor: inf"),
        ("factor = 25.0", "factor = 0", "x.factor: 0"),
        ('a = "ctcp"', 'a = "no-such-series"', "series 'no-such-series' is not one the sweep has"),
        ("at = [2, 3, 6]", "at = [2, 3, 7]", "at 7 is not one of the x values"),
        ("factor = 3.0", "factor = -inf", "claims.1.factor: -inf"),
        ("a = [0]", "a = [" + "9" * 30 + "]", "measures.0.a.0"),
    ],
)
def test_a_bad_experiment_file_exits_2_naming_the_key(tmp_path, old, new, says):
    path = experiment_file(tmp_path, old, new)
    with pytest.raises(experiment.ExperimentError, match="e.toml"):
        experiment.load(path)
    assert says in bad_input(["reproduce", str(path), "--out", str(tmp_path / "out"), "--quick"])


def test_quick_checks_the_full_length_sweep_too(tmp_path):
    path = experiment_file(tmp_path, "replicates = ", "replicates = 999999999 #")
    says = bad_input(["reproduce", str(path), "--out", str(tmp_path / "out"), "--quick"])
    assert "replicates: 999999999 is not allowed" in says


# --- the memory guard -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "physical, address_space, cgroup, expected",
    [
        (64 << 30, None, None, 64 << 30),
        (64 << 30, 4 << 30, None, 4 << 30),
        (64 << 30, None, 2 << 30, 2 << 30),
        (64 << 30, 4 << 30, 2 << 30, 2 << 30),
        (None, None, None, None),
    ],
)
def test_the_memory_guard_takes_the_smallest_limit(
    monkeypatch, physical, address_space, cgroup, expected
):
    monkeypatch.setattr(limits, "machine_memory", lambda: physical)
    monkeypatch.setattr(limits, "address_space_limit", lambda: address_space)
    monkeypatch.setattr(limits, "cgroup_memory_limit", lambda: cgroup)
    assert limits.available_memory() == expected
    assert limits.default_max_memory() == (int(expected * 0.8) if expected else 8 << 30)


@pytest.mark.parametrize(
    "proc, files, expected",
    [
        ("0::/a/b\n", {"a/b/memory.max": "max\n", "a/memory.max": "3221225472\n"}, 3 << 30),
        ("0::/a\n", {"a/memory.max": "max\n"}, None),
        (
            "4:memory:/x\n1:cpu:/\n",
            {"memory/x/memory.limit_in_bytes": "1073741824\n"},
            1 << 30,
        ),
        ("4:memory:/x\n", {"memory/memory.limit_in_bytes": "9223372036854771712\n"}, None),
        ("4:memory:/x\n", {}, None),
    ],
)
def test_the_cgroup_limit_is_read_v1_and_v2(monkeypatch, tmp_path, proc, files, expected):
    (tmp_path / "proc").write_text(proc)
    for name, text in files.items():
        (tmp_path / "cg" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "cg" / name).write_text(text)
    monkeypatch.setattr(limits, "_PROC_CGROUP", tmp_path / "proc")
    monkeypatch.setattr(limits, "_CGROUP_ROOT", tmp_path / "cg")
    assert limits.cgroup_memory_limit() == expected


def test_the_cgroup_limit_is_read_once_per_process(monkeypatch, tmp_path):
    """A loop of runs reads the cgroup's files once: a limit written later is not seen."""
    (tmp_path / "proc").write_text("0::/a\n")
    (tmp_path / "cg" / "a").mkdir(parents=True)
    (tmp_path / "cg" / "a" / "memory.max").write_text("3221225472\n")
    monkeypatch.setattr(limits, "_PROC_CGROUP", tmp_path / "proc")
    monkeypatch.setattr(limits, "_CGROUP_ROOT", tmp_path / "cg")
    assert limits.cgroup_memory_limit() == 3 << 30
    (tmp_path / "cg" / "a" / "memory.max").write_text("1073741824\n")
    assert limits.cgroup_memory_limit() == 3 << 30


@pytest.mark.timeout(60)
@pytest.mark.skipif(shutil.which("prlimit") is None, reason="needs prlimit (util-linux)")
def test_a_run_above_the_address_space_limit_is_refused_before_it_starts(write_toml):
    """Under `prlimit --as`, a run the engine estimates above 80 % of that limit is refused
    (exit 2, naming the field that drives the estimate) instead of dying of a failed allocation."""
    path = write_toml(ONE_FLOW.replace('sample_interval = "100ms"', 'sample_interval = "1us"'))
    limit = 3 << 30
    code = "from hscc.limits import default_max_memory as d; print(d())"
    shown = subprocess.run(
        ["prlimit", f"--as={limit}", sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=50,
    )
    assert shown.returncode == 0, shown.stderr
    assert int(shown.stdout) <= int(limit * 0.8)
    r = subprocess.run(
        ["prlimit", f"--as={limit}", sys.executable, "-m", "hscc", "run", str(path)],
        capture_output=True,
        text=True,
        timeout=50,
    )
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr
    assert (
        "sample_interval: 1e-6 s is not allowed (this run needs about 3.7 GB of memory" in r.stderr
    )
