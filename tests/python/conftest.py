"""Shared fixtures: paths and small scenarios that run in well under a second; /proc
helpers for the tests that kill processes and check that none is left behind."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

# One Reno flow alone on a 10 Mbit/s link with a 1-BDP buffer, 20 ms base RTT, 10 s.
ONE_FLOW = """
name = "one-flow"
duration = "10s"
seed = 7

[output]
sample_interval = "100ms"

[topology]
kind = "dumbbell"
bottleneck = { rate = "10Mbps", delay = "5ms", buffer = "1bdp" }
pairs = [{ rate = "1Gbps", rtt = "20ms" }]

[[flows]]
pair = 0
algorithm = "reno"
"""


@pytest.fixture
def write_toml(tmp_path: Path):
    """write_toml(text, name="s.toml") -> path of a scenario file in a temporary directory."""

    def write(text: str, name: str = "s.toml") -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    return write


@pytest.fixture
def one_flow(write_toml) -> Path:
    return write_toml(ONE_FLOW, "one-flow.toml")


def descendants(pid: int) -> set[int]:
    """Every process below `pid` (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, stack = set(), [pid]
    while stack:
        for c in children.get(stack.pop(), []):
            found.add(c)
            stack.append(c)
    return found


def alive(pid: int) -> bool:
    """Whether process `pid` runs (a zombie does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def in_ssthresh(program: Path, code: str) -> str:
    """Put `code` (C lines) into the `hscc new-algorithm` template's ssthresh hook, after it
    saves the window; returns the program's text before."""
    text = program.read_text()
    saved = "\tca->loss_cwnd = tp->snd_cwnd;\n"
    assert text.count(saved) == 1, "the template changed"
    program.write_text(text.replace(saved, saved + code))
    return text


def new_algorithm(directory: Path, name: str = "mycc") -> Path:
    """`hscc new-algorithm NAME --dir DIRECTORY`: the template program and its scenario file,
    whose path is returned."""
    from typer.testing import CliRunner

    from hscc.cli import app

    r = CliRunner().invoke(app, ["new-algorithm", name, "--dir", str(directory)])
    assert r.exit_code == 0, r.output
    return directory / f"{name}.toml"


def holding(script: str, *args: str) -> subprocess.Popen:
    """`python -c script args`, its stdout a text pipe: a process that holds what the script
    takes (locks, directories) until its stdin closes or it is killed."""
    return subprocess.Popen(
        [sys.executable, "-c", script, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
