"""Hostile sweep and experiment files, special files and the memory guard: a clear error
naming the file or field, the value and what is allowed, exit code 2, never a traceback,
a hang or unbounded memory (each test reproduces an input that once did one of these)."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import ONE_FLOW
from hscc import Scenario
from hscc.cli import app
from hscc.reproduce import experiment
from hscc.sweeps import SweepError, spec

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
