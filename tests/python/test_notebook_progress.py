"""Progress in a notebook: one line on standard error rewritten in place, with elapsed and
remaining time, which hscc.run and hscc.sweep show by themselves inside a notebook kernel."""

from __future__ import annotations

import io
import sys
import types

import pytest

import hscc
from conftest import ONE_FLOW
from hscc import notebook_progress
from hscc.sweeps.execute import Counts

pytestmark = pytest.mark.timeout(60)


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_a_runs_line_says_elapsed_and_left_and_ends_with_a_newline():
    out, clock = io.StringIO(), Clock()
    progress = notebook_progress.run_line(out, clock)
    clock.t += 4
    progress(10.0, 30.0)  # a third done in 4 s: 8 s left
    clock.t += 0.1
    progress(11.0, 30.0)  # within 0.25 s of the last line: not shown
    clock.t += 8
    progress(30.0, 30.0)
    assert out.getvalue() == (
        "\rhscc.run: 10.0 / 30 s simulated, 4 s elapsed, about 8 s left"
        "\rhscc.run: 30.0 / 30 s simulated, 12 s elapsed\n"
    )


def test_a_sweeps_line_counts_runs_cached_and_failed():
    out, clock = io.StringIO(), Clock()
    progress = notebook_progress.sweep_line(out, clock)
    clock.t += 30
    progress(Counts(total=50, cached=3, done=20, failed=1))  # 24 of 50 in 30 s: 32.5 s left
    clock.t += 95
    progress(Counts(total=50, cached=3, done=46, failed=1))
    assert out.getvalue() == (
        "\rhscc.sweep: 24 of 50 runs (3 cached, 1 failed), 30 s elapsed, about 32 s left"
        "\rhscc.sweep: 50 of 50 runs (3 cached, 1 failed), 2 min 5 s elapsed\n"
    )


def test_hscc_run_in_a_notebook_kernel_shows_its_line(monkeypatch, capsys, write_toml):
    scenario = write_toml(ONE_FLOW.replace('duration = "10s"', 'duration = "2s"'))
    hscc.run(scenario)
    assert "hscc.run:" not in capsys.readouterr().err  # not in a notebook: silent
    kernelapp = types.ModuleType("ipykernel.kernelapp")
    kernelapp.IPKernelApp = types.SimpleNamespace(initialized=lambda: True)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ipykernel.kernelapp", kernelapp)
    hscc.run(scenario)
    err = capsys.readouterr().err
    assert err.endswith("\n") and "hscc.run: 2.0 / 2 s simulated" in err, err


def test_importing_ipykernel_without_a_running_kernel_is_not_a_notebook():
    # A test or a tool may import ipykernel (nbclient's tests do); only a kernel that runs
    # makes the process a notebook, or every later hscc.run in it would print a line.
    pytest.importorskip("ipykernel.kernelapp")
    assert not notebook_progress.in_notebook()
