"""The `hscc` command: output, files and exit codes (0 ok, 1 run failed, 2 bad input, 130 interrupted)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

import hscc
from conftest import EXAMPLES, ONE_FLOW
from hscc import _core
from hscc.cli import app

runner = CliRunner()


def hscc_cmd(*args: str, cwd: Path | None = None, **kw) -> subprocess.CompletedProcess:
    """The installed console script, as a user runs it."""
    exe = Path(sys.executable).with_name("hscc")
    return subprocess.run(
        [str(exe), *args], capture_output=True, text=True, cwd=cwd, timeout=60, **kw
    )


def test_run_prints_the_summary_and_writes_the_run(one_flow, tmp_path):
    out = tmp_path / "run"
    r = runner.invoke(app, ["run", str(one_flow), "--out", str(out)])
    assert r.exit_code == 0, r.output
    text = r.stdout
    # 9.62 Mbit/s with RACK-TLP (Linux's recovery, the default); 9.61 with three duplicate ACKs
    for expected in (
        "one-flow: 10 s simulated",
        "reno 0",
        "9.62 Mbit/s",
        "100.0%",
        "bottleneck:fwd",
        "10 Mbit/s",
        "Jain's fairness index of the TCP goodputs: 1.000",
        f"results: {out}",
    ):
        assert expected in text, text
    loaded = hscc.load(out)
    assert loaded.flows["goodput_bps"][0] == pytest.approx(9.6e6, rel=0.01)
    assert loaded.manifest["scenario_file"] == str(one_flow)
    assert oct(out.stat().st_mode & 0o777) == oct(0o777 & ~_umask())


def test_run_seed_and_quiet(one_flow, tmp_path):
    out = tmp_path / "run"
    r = runner.invoke(app, ["run", str(one_flow), "-o", str(out), "--seed", "42", "-q"])
    assert r.exit_code == 0, r.output
    assert r.stdout.strip() == str(out)
    assert hscc.load(out).manifest["seed"] == 42


def test_run_without_out_writes_under_runs(one_flow, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = runner.invoke(app, ["run", str(one_flow), "-q"])
    assert r.exit_code == 0, r.output
    run_dir = Path(r.stdout.strip())
    assert run_dir.parent == Path("runs") and run_dir.name.startswith("one-flow-")
    assert (tmp_path / run_dir / "manifest.json").is_file()


def test_plot_writes_png_and_svg(tmp_path):
    out = tmp_path / "run"
    hscc.run(EXAMPLES / "two-reno-rtt.toml").write(out)
    r = runner.invoke(app, ["plot", str(out), "--svg"])
    assert r.exit_code == 0, r.output
    png, svg = out / "plot.png", out / "plot.svg"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 50_000
    assert b"<svg" in svg.read_bytes()[:1000]
    assert f"wrote {png}" in r.stdout and f"wrote {svg}" in r.stdout


def test_plot_of_a_run_without_traces_is_bad_input(write_toml, tmp_path):
    path = write_toml(
        ONE_FLOW.replace('sample_interval = "100ms"', 'sample_interval = "100ms"\ntraces = []')
    )
    hscc.run(path).write(tmp_path / "run")
    r = runner.invoke(app, ["plot", str(tmp_path / "run")])
    assert r.exit_code == 2 and "no time series" in r.stderr


def test_algorithms_lists_every_algorithm_with_parameters():
    r = runner.invoke(app, ["algorithms"], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    for a in hscc.algorithms():
        assert a.name in r.stdout
    assert "RFC 5681" in r.stdout  # Reno's source
    assert (
        "gamma" in r.stdout and "0…1000000" in r.stdout and "INFOCOM 2006" in r.stdout
    )  # CTCP's γ


def test_algorithms_one_as_json():
    r = runner.invoke(app, ["algorithms", "compound", "--json"])
    assert r.exit_code == 0, r.output
    (ctcp,) = json.loads(r.stdout)
    assert ctcp["name"] == "ctcp"
    gamma = next(p for p in ctcp["params"] if p["name"] == "gamma")
    assert (gamma["default"], gamma["min"], gamma["max"]) == (30.0, 0.0, 1e6)
    r = runner.invoke(app, ["algorithms", "cubix"])
    assert r.exit_code == 2 and '"cubix" is not known' in r.stderr and "reno" in r.stderr


def test_check_validates_without_running(one_flow):
    r = runner.invoke(app, ["check", str(one_flow)])
    assert r.exit_code == 0 and "valid (dumbbell; 1 TCP flow; 10 s; needs about" in r.stdout
    r = runner.invoke(app, ["check", str(EXAMPLES / "mixed-traffic.toml")])
    assert (
        "valid (dumbbell; 2 TCP flows, 1 UDP flow, 1 VoIP call, 1 web source; 40 s; needs"
        in r.stdout
    )
    r = runner.invoke(app, ["check", str(one_flow), "--json"])
    assert json.loads(r.stdout)["topology"]["bottleneck"]["rate"] == 10e6


def test_version_and_help():
    r = runner.invoke(app, ["--version"])
    assert (
        r.exit_code == 0
        and r.stdout.strip()
        == f"hscc {hscc.__version__} (engine {hscc.engine_version()}, digest {_core.engine_digest()})"
    )
    for args in (
        [],
        ["--help"],
        ["run", "--help"],
        ["plot", "--help"],
        ["algorithms", "--help"],
        ["check", "--help"],
    ):
        r = runner.invoke(app, args)
        assert "Usage" in r.output, args
        assert r.exit_code in (0, 2), args  # no arguments shows help as a usage error
    assert (
        "Exit codes: 0 ok, 1 run failed, 2 bad input or usage, 130 interrupted"
        in runner.invoke(app, ["run", "--help"]).output
    )


# --- as a user runs it: the console script in a subprocess -------------------------------


def test_script_version():
    p = hscc_cmd("--version")
    assert p.returncode == 0 and p.stdout.startswith("hscc ")


@pytest.mark.parametrize(
    "change, says",
    [
        (
            ('algorithm = "reno"', 'algorithm = "cubix"'),
            'flows[0].algorithm: "cubix" is not allowed (one of: reno',
        ),
        (
            ('rate = "10Mbps"', 'rate = "-5Mbps"'),
            'topology.bottleneck.rate: "-5Mbps" is not allowed (a rate from 1 bit/s',
        ),
        (("pair = 0", "pair = 0\nmss = 0"), "flows[0].mss: 0 is not allowed (64 to 65495 bytes)"),
        (('duration = "10s"', "duration = 10s"), "is not valid TOML"),
    ],
)
def test_script_bad_file_exits_2_with_a_clear_message(write_toml, tmp_path, change, says):
    path = write_toml(ONE_FLOW.replace(*change))
    p = hscc_cmd("run", str(path), "--out", str(tmp_path / "run"))
    assert p.returncode == 2, p.stderr
    assert says in p.stderr
    assert "Traceback" not in p.stderr + p.stdout and "panicked" not in p.stderr
    assert not (tmp_path / "run").exists()


def test_script_usage_errors_exit_2(tmp_path):
    p = hscc_cmd("run", str(tmp_path / "missing.toml"))
    assert (
        p.returncode == 2
        and "cannot read scenario file" in p.stderr
        and "Traceback" not in p.stderr
    )
    p = hscc_cmd("run")
    assert p.returncode == 2 and "Missing argument" in p.stderr
    p = hscc_cmd("frobnicate")
    assert p.returncode == 2
    p = hscc_cmd("plot", str(tmp_path))
    assert p.returncode == 2 and "not an hscc run directory" in p.stderr
    p = hscc_cmd("plot", str(tmp_path / "nope"))
    assert p.returncode == 2 and "no such run directory" in p.stderr


def test_script_refuses_to_overwrite_a_directory_that_is_not_a_run(one_flow, tmp_path):
    (tmp_path / "notes.txt").write_text("keep me")
    p = hscc_cmd("run", str(one_flow), "--out", str(tmp_path))
    assert p.returncode == 2 and "is not an hscc run directory; refusing to replace it" in p.stderr
    assert "running" not in p.stderr  # refused before simulating
    assert (tmp_path / "notes.txt").read_text() == "keep me"


def test_script_run_and_plot(one_flow, tmp_path):
    p = hscc_cmd("run", str(one_flow), "--out", "run", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "Jain's fairness index" in p.stdout
    p = hscc_cmd("plot", "run", cwd=tmp_path)
    assert p.returncode == 0 and (tmp_path / "run" / "plot.png").is_file()


def test_script_ctrl_c_exits_130_and_writes_nothing(write_toml, tmp_path):
    # A run that takes far longer than the test waits: 8 flows on 700 Mbit/s for an hour.
    path = write_toml(
        (EXAMPLES / "ctcp-testbed.toml")
        .read_text()
        .replace('duration = "120s"', 'duration = "3600s"')
    )
    proc = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("hscc")),
            "run",
            str(path),
            "--out",
            str(tmp_path / "run"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr.readline().startswith(f"running {path}: 3600 s simulated")
        time.sleep(0.5)  # well into the run
        assert proc.poll() is None
        t0 = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 130, err
        assert time.monotonic() - t0 < 5  # stops between chunks, promptly
        assert "interrupted; no results written" in err and "Traceback" not in err
    finally:
        proc.kill()  # a failed or timed-out test must not leave an hour-long run behind
        proc.wait(timeout=30)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.toml"]


def test_ctrl_c_while_the_command_line_loads_exits_130_without_a_traceback(one_flow):
    # The Ctrl-C lands in the command line's own imports (typer's), as it does when a user
    # interrupts within the first tens of milliseconds.
    script = (
        "import sys\n"
        "class Interrupt:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'typer':\n"
        "            raise KeyboardInterrupt\n"
        "sys.meta_path.insert(0, Interrupt())\n"
        "from hscc.__main__ import entry\n"
        f"sys.argv = ['hscc', 'run', {str(one_flow)!r}, '-q']\n"
        "entry()\n"
    )
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert (p.returncode, p.stderr, p.stdout) == (130, "interrupted\n", "")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_engine_rejections_name_the_file_and_field(write_toml, tmp_path):
    # Only the engine's routing finds that c cannot be reached.
    path = write_toml("""
        duration = "1s"
        [topology]
        kind = "graph"
        nodes = ["a", "b", "c"]
        links = [{ a = "a", b = "b", fwd = { rate = "10Mbps", delay = "1ms", buffer = "1bdp" } }]
        [[flows]]
        src = "a"
        dst = "c"
        """)
    r = runner.invoke(app, ["run", str(path), "-o", str(tmp_path / "run")])
    assert r.exit_code == 2
    assert f"{path}: invalid scenario" in r.stderr and "flows[0].dst" in r.stderr
    assert runner.invoke(app, ["check", str(path)]).exit_code == 2
