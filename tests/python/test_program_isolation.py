"""A scenario that names a program file runs in a process of its own (hscc.isolated), from
`hscc run` and from `hscc.run`: a program that ends that process is named in the error and
the caller lives on; a good program gives the same Result as a run in the caller's process."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

import hscc
from conftest import alive, descendants, in_ssthresh, new_algorithm
from hscc.cli import app

pytestmark = pytest.mark.skipif(
    shutil.which("cc") is None, reason="no C compiler (cc) to build programs with"
)

# kill(getpid(), SIGKILL), and exit_group(3), as system calls in inline assembly (which the
# kernel's build refuses): no signal handler sees either, no hook's fault report catches them.
_GETPID = '\tlong pid;\n\tasm volatile("syscall" : "=a"(pid) : "a"(39) : "rcx", "r11", "memory");\n'
_KILL = '\tasm volatile("syscall" : : "a"(62), "D"(pid), "S"(9) : "rcx", "r11", "memory");\n'
_EXIT_GROUP = '\tasm volatile("syscall" : : "a"(231), "D"(3) : "rcx", "r11", "memory");\n'
ENDINGS = [
    (_GETPID + _KILL, "ended by SIGKILL"),
    (_EXIT_GROUP, "exited with status 3 before writing its results"),
]


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("HSCC_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))


def python(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`code` run by this Python in a process of its own, in `cwd`."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=80,
    )


@pytest.mark.timeout(90)
def test_hscc_run_survives_a_program_that_kills_the_run_and_names_it(tmp_path):
    """`hscc run` says which program it ran and where to find the line, writes nothing,
    and exits 1."""
    scenario = new_algorithm(tmp_path)
    program = tmp_path / "mycc.bpf.c"
    out = tmp_path / "run"
    text = program.read_text()
    for end, how in ENDINGS:
        program.write_text(text)
        in_ssthresh(program, end)
        r = subprocess.run(
            [sys.executable, "-m", "hscc", "run", str(scenario), "--out", str(out), "-q"],
            capture_output=True,
            text=True,
            timeout=80,
        )
        assert r.returncode == 1, (r.returncode, r.stderr[-2000:])
        assert f"run's process {how}" in r.stderr and "mycc.bpf.c" in r.stderr, r.stderr
        assert "hscc kernel load" in r.stderr and "Traceback" not in r.stderr, r.stderr
        assert not out.exists() or not any(out.iterdir())
    # The same program without the line runs through the same isolation.
    program.write_text(text)
    r = CliRunner().invoke(app, ["run", str(scenario), "--out", str(out), "-q"])
    assert r.exit_code == 0 and str(out) in r.output, r.output
    flows = hscc.load(out).flows
    assert flows["label"].to_list() == ["mycc 0", "reno 1"]


@pytest.mark.timeout(90)
def test_hscc_run_in_python_survives_a_program_that_kills_the_run_and_names_it(tmp_path):
    """`hscc.run` raises RunError naming the program (the text `hscc run` prints) and this
    process goes on, with no process of the run left behind."""
    scenario = new_algorithm(tmp_path)
    program = tmp_path / "mycc.bpf.c"
    text = program.read_text()
    before = descendants(os.getpid())  # others' (a sweep's fork server) may live on
    for end, how in ENDINGS:
        program.write_text(text)
        in_ssthresh(program, end)
        with pytest.raises(hscc.RunError) as e:
            hscc.run(scenario)
        message = str(e.value)
        assert message.startswith(f"the run's process {how} (killed, or out of memory; or "), (
            message
        )
        assert "mycc.bpf.c wrote outside the memory" in message, message
        assert "hscc kernel load" in message, message
        assert descendants(os.getpid()) <= before


@pytest.mark.timeout(120)
def test_a_good_program_gives_the_same_result_isolated_or_not(tmp_path):
    """The Result of an isolated run is the in-process run's, value for value: the tables,
    the per-ACK log, the manifest (the programs' digests included) and the summary, all
    but when the run started and the wall time it took."""
    scenario = new_algorithm(tmp_path)
    text = scenario.read_text()
    assert text.count('sample_interval = "100ms"\n') == 1, "the template changed"
    scenario.write_text(
        text.replace(
            'sample_interval = "100ms"\n',
            'sample_interval = "100ms"\ncc_log = { flows = ["mycc 0"] }\n',
        )
    )
    alone = hscc.run(scenario, seed=5, isolate=True)
    here = hscc.run(scenario, seed=5, isolate=False)
    assert type(alone) is hscc.Result
    for name in ("flows", "links", "udp", "web", "timeseries", "queues", "cc_log", "drops"):
        a, b = getattr(alone, name), getattr(here, name)
        assert a.schema == b.schema and a.equals(b), name
    assert alone.cc_log.height > 100  # every ACK of the program's flow, 10 s of them
    assert alone.manifest["programs"] == here.manifest["programs"]
    assert list(alone.manifest["programs"]) == [str(tmp_path / "mycc.bpf.c")]
    for d in (alone.manifest, here.manifest, alone.summary, here.summary):
        del d["wall_time_s"]
    for d in (alone.manifest, here.manifest):
        del d["created"]
    assert alone.manifest == here.manifest and alone.summary == here.summary
    assert alone.manifest["seed"] == 5
    files_a, files_b = alone.files(), here.files()
    assert sorted(files_a) == sorted(files_b)
    assert all(files_a[f] == files_b[f] for f in files_a if f.endswith(".parquet"))


@pytest.mark.timeout(90)
def test_ctrl_c_stops_an_isolated_run_and_leaves_nothing_behind(tmp_path):
    """Ctrl-C from the terminal (to the whole process group) stops `hscc run` promptly with
    exit 130; its run's process is gone, and so are the run directory and the scratch
    directory the two processes shared."""
    scenario = new_algorithm(tmp_path)
    text = scenario.read_text()
    assert text.count('duration = "10s"') == 1, "the template changed"
    scenario.write_text(text.replace('duration = "10s"', 'duration = "3600s"'))
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-m", "hscc", "run", str(scenario), "--out", str(tmp_path / "run")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(scratch)},
        start_new_session=True,  # its own process group, as a terminal gives a command
    )
    try:
        assert proc.stderr.readline().startswith(f"running {scenario}: 3600 s simulated")
        time.sleep(0.5)  # well into the run
        children = descendants(proc.pid)
        assert len(children) == 1 and proc.poll() is None
        t0 = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 130, err
        assert time.monotonic() - t0 < 5
        assert "interrupted; no results written" in err and "Traceback" not in err, err
    finally:
        proc.kill()  # a failed test must not leave an hour-long run behind
        proc.wait(timeout=30)
    assert not any(alive(c) for c in children)
    assert list(scratch.iterdir()) == [] and not (tmp_path / "run").exists()


@pytest.mark.timeout(90)
def test_isolate_false_runs_the_program_in_the_callers_process(tmp_path):
    """With `isolate=False` the program runs in the caller's process: its exit_group(3) ends
    the caller, with status 3; the same call isolated raises RunError, and the caller goes on
    to exit 0."""
    new_algorithm(tmp_path)
    in_ssthresh(tmp_path / "mycc.bpf.c", _EXIT_GROUP)
    call = """
        import hscc
        try:
            hscc.run("mycc.toml", isolate={})
        except hscc.RunError as e:
            print("raised", e)
    """
    here = python(call.format(False), tmp_path)
    assert here.returncode == 3 and "raised" not in here.stdout, (here.returncode, here.stderr)
    alone = python(call.format(True), tmp_path)
    assert alone.returncode == 0, alone.stderr
    assert alone.stdout.startswith("raised the run's process exited with status 3"), alone.stdout


@pytest.mark.timeout(90)
def test_a_python_algorithm_of_main_beside_a_program_is_refused_naming_the_way_out(tmp_path):
    """A Python algorithm defined in __main__ cannot be imported by the run's own process:
    beside a program file the run is refused, naming the algorithm and both ways out; with
    `isolate=False` it runs here; defined in a module, the run's process imports it."""
    scenario = new_algorithm(tmp_path)
    text = scenario.read_text()
    scenario.write_text(text.replace('algorithm = "reno"', 'algorithm = "myreno"'))
    call = """
        import hscc
        class MyReno(hscc.Algorithm):
            name = "myreno"
        try:
            r = hscc.run("mycc.toml", isolate={})
            print(r.flows["label"].to_list())
        except hscc.ScenarioError as e:
            print("refused", e)
    """
    r = python(call.format(True), tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("refused mycc.toml: algorithm 'myreno': its class MyReno is "), (
        r.stdout
    )
    assert "define it in a module" in r.stdout and "isolate=False" in r.stdout, r.stdout
    r = python(call.format(False), tmp_path)
    assert r.returncode == 0 and r.stdout == "['mycc 0', 'myreno 1']\n", (r.stdout, r.stderr)
    (tmp_path / "myalgs.py").write_text(
        'import hscc\n\n\nclass MyReno(hscc.Algorithm):\n    name = "myreno"\n'
    )
    r = python(
        """
        import hscc
        import myalgs
        print(hscc.run("mycc.toml").flows["label"].to_list())
        """,
        tmp_path,
    )
    assert r.returncode == 0 and r.stdout == "['mycc 0', 'myreno 1']\n", (r.stdout, r.stderr)


@pytest.mark.timeout(60)
def test_a_build_error_is_raised_as_in_the_callers_process(tmp_path):
    """A program that does not compile: the isolated run raises the ScenarioError the
    in-process run raises, with the same text and issues (the compiler's file:line)."""
    new_algorithm(tmp_path)
    program = tmp_path / "mycc.bpf.c"
    in_ssthresh(program, "\tthis is not C;\n")
    errors = []
    for isolate in (True, False):
        with pytest.raises(hscc.ScenarioError) as e:
            hscc.run(tmp_path / "mycc.toml", isolate=isolate)
        errors.append(e.value)
    alone, here = errors
    assert f"{program}:" in str(here), str(here)
    assert str(alone) == str(here) and alone.source == here.source
    assert [str(i) for i in alone.issues] == [str(i) for i in here.issues]
