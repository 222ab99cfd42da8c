"""`hscc run`'s tables as plain text (hscc.text_table) and its progress bar, drawn only
for a run still going half a second in."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

from hscc import text_table
from hscc.cli import run as run_cli
from hscc.run_summary import Table


def table() -> Table:
    t = Table("a run", ("flow", "goodput"), frozenset({"flow"}), wrap="flow")
    t.add_row("流量", "9.62 Mbit/s")  # two wide characters: four columns
    t.add_row("reno 0", "1 Mbit/s")
    t.add_section()
    t.add_row("all", "10.6 Mbit/s")
    t.caption = "goodput: of the run"
    return t


def test_columns_line_up_by_what_the_terminal_shows():
    assert text_table.render(table()) == (
        "a run\n"
        "\n"
        "  flow         goodput\n"
        " ──────────────────────\n"
        "  流量     9.62 Mbit/s\n"
        "  reno 0      1 Mbit/s\n"
        "\n"
        "  all      10.6 Mbit/s\n"
        "\n"
        "goodput: of the run\n"
    )
    assert text_table.width("é") == 1 and text_table.width("e\u0301") == 1


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("stream", "env", "coloured"),
    [
        (Terminal(), {}, True),
        (io.StringIO(), {}, False),
        (Terminal(), {"NO_COLOR": "1"}, False),
        (Terminal(), {"TERM": "dumb"}, False),
        (io.StringIO(), {"FORCE_COLOR": "1"}, True),
    ],
)
def test_colour_goes_only_where_it_is_wanted(monkeypatch, stream, env, coloured):
    for name in ("NO_COLOR", "FORCE_COLOR", "TERM"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    text_table.print_tables([table()], "Jain's fairness index: 1", stream)
    printed = stream.getvalue()
    assert ("\x1b[1ma run\x1b[0m" in printed) is coloured
    assert ("\x1b" in printed) is coloured
    assert printed.endswith("\n\nJain's fairness index: 1\n")


def test_a_progress_bar_appears_only_half_a_second_into_a_run(monkeypatch):
    now = [100.0]
    bars: list[list[float]] = []

    @contextmanager
    def bar(duration: float) -> Iterator[Callable[[float], None]]:
        seen: list[float] = []
        bars.append(seen)
        yield seen.append

    monkeypatch.setattr(run_cli.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(run_cli, "_bar", bar)
    monkeypatch.setattr(run_cli.sys, "stderr", Terminal())
    with run_cli._progress(False, 10.0) as report:
        report(1.0, 10.0)
        now[0] += run_cli._BAR_AFTER_S - 0.01
        report(2.0, 10.0)
        assert bars == []  # a run this short draws nothing
        now[0] += 0.02
        report(3.0, 10.0)
        report(4.0, 10.0)
    assert bars == [[3.0, 4.0]]
    monkeypatch.setattr(run_cli.sys, "stderr", io.StringIO())  # a log: never a bar
    with run_cli._progress(False, 10.0) as report:
        now[0] += 5
        report(5.0, 10.0)
    assert bars == [[3.0, 4.0]]
