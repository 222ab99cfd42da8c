"""The command line in an 80-column terminal: every name a user has to type (an
experiment, an algorithm's parameter, a link, a sweep's field or metric) is printed
whole on one line, never cut or split; misspelt commands, flags, algorithms,
experiments and sizes get a "did you mean"."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import polars as pl
import pytest
from rich.console import Console

import hscc
from conftest import EXAMPLES, ONE_FLOW
from hscc import reproduce
from hscc.reproduce import tables
from hscc.reproduce.compare import VERDICTS
from hscc.reproduce.experiment import find

ENV = {**os.environ, "COLUMNS": "80", "NO_COLOR": "1"}


def hscc_cmd(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("hscc")
    return subprocess.run(
        [str(exe), *args], capture_output=True, text=True, cwd=cwd, timeout=120, env=ENV
    )


def whole(name: str, text: str) -> bool:
    """`name` appears on one line, not followed or preceded by a cut ("…")."""
    return re.search(rf"(?<![\w…-]){re.escape(name)}(?![\w…])", text) is not None


def test_reproduce_list_prints_every_experiment_name_whole():
    p = hscc_cmd("reproduce", "list")
    assert p.returncode == 0, p.stderr
    names = [e.name for e in reproduce.catalogue()]
    assert names and [n for n in names if not whole(n, p.stdout)] == []
    # a measure's name is a column of comparison.parquet: whole too ("losses_after_slow_start")
    measures = {m.name for e in reproduce.catalogue() for m in e.measures}
    assert "losses_after_slow_start" in measures
    assert sorted(m for m in measures if not whole(m, p.stdout)) == []
    assert max(len(line) for line in p.stdout.splitlines()) <= 80, p.stdout


def test_algorithms_prints_every_parameter_name_whole():
    p = hscc_cmd("algorithms")
    assert p.returncode == 0, p.stderr
    # fits: a citation's long word folds rather than widening every algorithm's table
    assert max(len(line) for line in p.stdout.splitlines()) <= 80
    for a in hscc.algorithms():
        assert whole(a.name, p.stdout), a.name
        for param in a.params:
            assert whole(param.name, p.stdout), f"{a.name}.{param.name}"


def test_algorithms_ctcp_keeps_parameter_names_on_one_line():
    p = hscc_cmd("algorithms", "ctcp")
    assert p.returncode == 0, p.stderr
    ctcp = next(a for a in hscc.algorithms() if a.name == "ctcp")
    assert ctcp.params and all(whole(q.name, p.stdout) for q in ctcp.params)


def test_run_table_keeps_link_names_whole(tmp_path):
    p = hscc_cmd("run", str(EXAMPLES / "mixed-traffic.toml"), "--out", str(tmp_path / "run"))
    assert p.returncode == 0, p.stderr
    for name in hscc.load(tmp_path / "run").bottlenecks["name"].to_list():
        assert whole(name, p.stdout), name


def test_sweep_table_in_the_units_of_the_run_table(write_toml, tmp_path):
    scenario = write_toml(ONE_FLOW.replace('duration = "10s"', 'duration = "3s"'), "one.toml")
    sweep = write_toml(
        f"""
        name = "rates"
        base = "{scenario.name}"
        replicates = 2
        [axes]
        "topology.bottleneck.rate" = ["10Mbps", "20Mbps"]
        """,
        "sweep.toml",
    )
    p = hscc_cmd("sweep", str(sweep), "--out", str(tmp_path / "sw"), "-j", "2")
    assert p.returncode == 0, p.stderr
    assert "Mbit/s" in p.stdout and "e+0" not in p.stdout
    for name in ("topology.bottleneck.rate", "total_goodput_bps"):
        assert whole(name, p.stdout), name


def test_scorecard_keeps_experiment_names_whole():
    exps = [e for e in reproduce.catalogue() if not e.design]  # design checks: no row
    reps = [
        SimpleNamespace(
            experiment=e,
            claims=[],
            counts=lambda: {
                **dict.fromkeys(VERDICTS, 1),
                "claims_held": 2,
                "claims": 2,
            },
            sweep=SimpleNamespace(points=pl.DataFrame({"wall_time_s": [1.5, 2.5]})),
        )
        for e in exps
    ]
    from hscc.console import print_whole

    buf = io.StringIO()
    print_whole(tables.scorecard_table(reps), Console(width=80, file=buf))  # type: ignore[arg-type]
    text = buf.getvalue()
    assert [e.name for e in exps if not whole(e.name, text)] == []
    assert max(len(line) for line in text.splitlines()) <= 80, text  # fits: no wrapped lines
    assert all(w in text.split() for w in ("direction", "differs", "agrees")), text


@pytest.mark.parametrize(
    ("args", "hint"),
    [
        (["plto"], 'did you mean "plot"'),
        (["algorithms", "cubci"], 'did you mean "cubic"'),
        (["reproduce", "ctcp-fig-9a", "--out", "x"], "did you mean"),
        (["reproduce", "ctcp-tabel3"], 'did you mean "ctcp-table3"'),  # before --out is missed
        (["run", "--overwrit", "x.toml"], "--overwrite"),
    ],
)
def test_did_you_mean(args, hint, tmp_path):
    p = hscc_cmd(*args, cwd=tmp_path)
    assert p.returncode == 2 and hint in p.stderr, p.stderr


def test_boolean_flags_show_no_metavar():
    for command in ("run", "plot", "sweep", "reproduce", "compare"):
        p = hscc_cmd(command, "--help")
        assert p.returncode == 0
        assert not re.search(r"--(overwrite|quiet|svg|quick|json)\s+(<bool>|BOOLEAN)", p.stdout), (
            command
        )
        assert "<list[" not in p.stdout, command  # a repeated option names one value


@pytest.mark.parametrize(
    "command", [("run",), ("sweep",), ("reproduce",), ("kernel", "load"), ("testbed", "run")]
)
def test_help_paragraphs_reflow_to_the_terminal(command):
    """A docstring's paragraph is wrapped by the terminal, not at the source's line breaks:
    every line of a paragraph but its last fills the 80 columns to within a word."""
    p = hscc_cmd(*command, "--help")
    assert p.returncode == 0, p.stderr
    prose = p.stdout.split("Usage:")[1].split("╭")[0].splitlines()[1:]
    paragraphs: list[list[str]] = [[]]
    for line in prose:
        if line.strip():
            paragraphs[-1].append(line.rstrip())
        elif paragraphs[-1]:
            paragraphs.append([])
    assert sum(len(p) for p in paragraphs) >= 2, p.stdout
    for paragraph in paragraphs:
        for line, after in zip(paragraph, paragraph[1:], strict=False):
            next_word = after.split()[0]
            assert len(line) + 1 + len(next_word) > 79, (command, line, after)


def _points(fields: dict[str, list[object]], metrics: dict[str, list[float]]) -> pl.DataFrame:
    n = len(next(iter(metrics.values())))
    return pl.DataFrame(
        {
            "point": [i // 2 for i in range(n)],
            "replicate": [i % 2 for i in range(n)],
            "seed": list(range(n)),
            "status": ["ok"] * n,
            "error": [None] * n,
            "run": [f"r{i}" for i in range(n)],
            **fields,
            **metrics,
        },
        schema_overrides={"replicate": pl.UInt32, "seed": pl.UInt64, "error": pl.String},
    )


@pytest.mark.timeout(20)
def test_sweep_table_of_two_axes_fits_80_columns_and_cuts_no_name():
    """Three metrics do not fit beside two long field names: the table shows those that fit
    and says how many more there are, rather than cutting names or values."""
    from hscc import report
    from hscc.console import print_whole
    from hscc.sweeps.result import SweepResult

    fields = {
        "topology.bottleneck.loss": [1e-6, 1e-6, 1e-4, 1e-4],
        "flows[1].algorithm": ["reno", "reno", "cubic", "cubic"],
    }
    metrics = {
        "jain_index": [0.62, 0.64, 0.99, 1.0],
        "total_goodput_bps": [9.62e7, 9.62e7, 5e7, 6e7],
        "flows[0].goodput_bps": [8.5e7, 8.6e7, 4e7, 3e7],
    }
    result = SweepResult(_points(fields, metrics), [[f] for f in fields])
    buf = io.StringIO()
    print_whole(report.sweep_summary(result, 80), Console(width=80, file=buf))
    text = buf.getvalue()
    assert max(len(line) for line in text.splitlines()) <= 80, text
    assert "…" not in text
    assert all(whole(f, text) for f in fields), text
    assert "more default metrics (and every other) in summary.parquet" in text
    wide = io.StringIO()
    print_whole(report.sweep_summary(result, 200), Console(width=200, file=wide))
    assert all(whole(m, wide.getvalue()) for m in metrics)


@pytest.mark.timeout(20)
def test_a_table_wider_than_the_terminal_breaks_no_header_mid_word():
    """Rich shrinks columns in proportion to their widest cell; print_whole gives each its
    longest word, so "differs" and "direction" stay whole in the scorecard's headers."""
    from rich.table import Table

    from hscc.console import print_whole

    t = Table()
    for c in tables.SCORECARD_COLUMNS:
        t.add_column(c, overflow="fold", no_wrap=c == "experiment")
    t.add_row("ctcp", "ctcp-fig10-12", "Figs. 10-12", "1", "2", "3", "4", "5", "3/3", "45", "21 s")
    buf = io.StringIO()
    print_whole(t, Console(width=80, file=buf))
    words = buf.getvalue().split()
    for word in ("direction", "differs", "experiment", "ctcp-fig10-12", "time"):
        assert word in words, buf.getvalue()


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("old", "new", "hint", "where"),
    [
        # algorithm is written in each [[flows]]: found in the entry the error names
        (
            'algorithm = "cubic"',
            'algorithm = "cubci"',
            'did you mean "cubic"?',
            "(line 25, column 1)",
        ),
        ("buffer = ", "bufer = ", 'did you mean "buffer"?', "(line 15, column 50)"),
        (
            'algorithm = "cubic"',
            'algorithm = "ctcp"\nparams = { gama = 3 }',
            'did you mean "gamma"?',
            "(line 26, column 12)",
        ),
        ('pattern = "onoff"', 'pattern = "onof"', 'did you mean "onoff"?', "(line 36, column 1)"),
    ],
)
def test_scenario_errors_suggest_the_name_meant_and_where_it_is(old, new, hint, where, tmp_path):
    """A misspelt value, field or parameter gets the closest name; a key written once in the
    file, or once in the entry of an array of tables, gets its line and column (a value on a
    line of its own: the key's)."""
    text = (EXAMPLES / "mixed-traffic.toml").read_text()
    assert text.count(old) == 1
    path = tmp_path / "bad.toml"
    path.write_text(text.replace(old, new))
    p = hscc_cmd("check", str(path))
    assert p.returncode == 2, p.stderr
    message = " ".join(p.stderr.split())
    assert hint in message and where in message, message


@pytest.mark.timeout(10)
def test_no_location_for_a_key_written_more_than_once(tmp_path):
    from hscc.errors import _where

    path = tmp_path / "s.toml"
    path.write_text("[[flow]]\npair = 0\n\n[[flow]]\npair = 1\n# [[flow]] in a comment\n")
    assert _where(str(path), "flow") == ""
    path.write_text("[[flow]]\npair = 0\n# [[flow]] in a comment\n")
    assert _where(str(path), "flow") == " (line 1, column 3)"


@pytest.mark.timeout(10)
def test_a_key_repeated_across_entries_is_found_in_the_entry_named(tmp_path):
    from hscc.errors import _where

    path = tmp_path / "s.toml"
    path.write_text(
        '[[flows]]\nalgorithm = "reno"\n\n[[flows]]\n# algorithm = x\nalgorithm = "cubci"\n'
        '[flows.params]\ngama = 1\n\n[[flows]]\nalgorithm = "reno"\nparams = { gama = 2 }\n'
        '[topology]\nkind = "dumbbell"\n'
    )
    assert _where(str(path), "flows[1].algorithm") == " (line 6, column 1)"
    assert _where(str(path), "flows[2].algorithm") == " (line 11, column 1)"
    assert _where(str(path), "flows[1].params.gama") == " (line 8, column 1)"  # its sub-table
    assert _where(str(path), "flows[2].params.gama") == " (line 12, column 12)"
    assert _where(str(path), "flows[3].algorithm") == ""  # no fourth entry
    assert _where(str(path), "pairs[0].algorithm") == ""  # no such array


@pytest.mark.timeout(30)
def test_fields_on_a_terminal_are_tables_with_every_name_whole():
    """`hscc fields` on a terminal: the Markdown's tables as tables, no pipes or backticks,
    every field name on one line; piped, the Markdown itself (docs/scenario.md)."""
    from hscc import reference, terminal_markdown

    text = reference.markdown()
    names = [
        line.split("|")[1].strip().strip("`")
        for line in text.splitlines()
        if line.startswith("| `")
    ]
    assert len(names) > 50
    buf = io.StringIO()
    terminal_markdown.show(text, Console(width=80, file=buf))
    shown = buf.getvalue()
    assert not any(re.match(r"^\s*\|.*\|\s*$", line) for line in shown.splitlines())
    assert "`" not in shown and "---|" not in shown
    assert [n for n in names if not whole(n, shown)] == []
    p = hscc_cmd("fields")
    assert p.returncode == 0 and p.stdout == text + "\n"


# A cut cell ends in "…" after a word (Rich's ellipsis); "0…8" (a range) is not one.
_CUT = re.compile(r"\w…(?=\s|$)", re.MULTILINE)


@pytest.mark.timeout(600)
def test_every_commands_output_at_80_columns_cuts_nothing(tmp_path):
    """Each command a user reads, at COLUMNS=80: no cell ends in Rich's "…"; a reproduction's
    table keeps its measures' names whole."""
    mixed = tmp_path / "mixed.toml"
    mixed.write_text(
        (EXAMPLES / "mixed-traffic.toml")
        .read_text()
        .replace('duration = "40s"', 'duration = "22s"')
    )
    other = tmp_path / "other.toml"
    other.write_text(mixed.read_text().replace("seed = 3", "seed = 4"))
    runs = []
    for scenario in (mixed, other):
        p = hscc_cmd("run", str(scenario), "--out", str(tmp_path / scenario.stem))
        assert p.returncode == 0, p.stderr
        runs.append(p.stdout)
    outputs = {
        "run": runs[0],
        "check": hscc_cmd("check", str(mixed)).stdout,
        "compare": hscc_cmd("compare", str(tmp_path / "mixed"), str(tmp_path / "other")).stdout,
        "algorithms": hscc_cmd("algorithms").stdout,
        "reproduce list": hscc_cmd("reproduce", "list").stdout,
        "fields": hscc_cmd("fields").stdout,
        "kernel list": hscc_cmd("kernel", "list").stdout,
        "new-algorithm": hscc_cmd("new-algorithm", "mine", cwd=tmp_path).stdout,
    }
    p = hscc_cmd(
        "reproduce", "africa-fairness", "--quick", "-j", "1", "--out", str(tmp_path / "rep")
    )
    assert p.returncode == 0, p.stderr
    outputs["reproduce NAME"] = p.stdout
    exp = find("africa-fairness")
    assert exp is not None
    assert [m.name for m in exp.measures if not whole(m.name, p.stdout)] == []
    for command, text in outputs.items():
        assert text.strip(), command
        assert _CUT.findall(text) == [], (command, text)
