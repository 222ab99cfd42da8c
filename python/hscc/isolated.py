"""A run of a scenario that names a program file, in a process of its own.

A program's hook faults are reported naming the file and the line, but a program that
writes outside the memory it may use or ends the process (docs/programs.md, "When a
program goes wrong") kills the process that simulates it, where no error can be raised.
`hscc.run` and `hscc run` therefore run such a scenario in a child process (`_child`,
given a scratch directory DIR): if it dies, the caller (a notebook's kernel, a script,
the CLI) lives on and raises RunError naming the program (`errors.died_because`).

The child reads its job from DIR, builds the simulation and says so on its standard
output, writes each chunk's progress there, then pickles the Result, or the exception the
run raised, into DIR: the caller returns or raises the very object an in-process run
would. What the program prints (`bpf_printk`, standard error) reaches the caller's
standard error: at once when that is the terminal, after the run when the caller replaced
it (a test's, a notebook's).
"""

from __future__ import annotations

import importlib
import io
import os
import pickle
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hscc.errors import RunError, died_because

if TYPE_CHECKING:
    from hscc.results import Result
    from hscc.runner import Progress
    from hscc.scenario import Scenario

_JOB, _OUTCOME, _STDERR = "job.pickle", "outcome.pickle", "stderr.txt"
_BUILT = "built\n"  # the child's first line: the simulation is built, the run starts


class IsolatedRun:
    """A run built in its child process, waiting for `finish` (as `runner.Run`)."""

    def __init__(self, child: subprocess.Popen[str], directory: Path, programs: list[str]):
        self._child, self._dir, self._programs = child, directory, programs

    def finish(self, progress: Progress | None = None) -> Result:
        """Let the child simulate to the end, passing its progress on; its Result, or its
        exception raised here, or RunError naming the programs if it died."""
        assert self._child.stdout is not None
        try:
            for line in self._child.stdout:
                if progress is not None:
                    t, duration = line.split()
                    progress(float(t), float(duration))
        except BaseException:  # Ctrl-C, or the callback's own error: the run is abandoned
            self._abandon()
            raise
        outcome: Result = self._outcome()
        return outcome

    def _abandon(self) -> None:
        self._child.kill()
        self._child.wait()
        self._show_stderr()
        shutil.rmtree(self._dir, ignore_errors=True)

    def _outcome(self) -> Any:
        """What the child left once it has ended: its Result, or its exception raised."""
        code = self._child.wait()
        self._show_stderr()
        try:
            path = self._dir / _OUTCOME
            if code == 0 and path.is_file():
                kind, value = pickle.loads(path.read_bytes())
                if kind == "error":
                    raise value
                return value
        finally:
            shutil.rmtree(self._dir, ignore_errors=True)
        if code < 0:
            try:
                how = f"ended by {signal.Signals(-code).name}"
            except ValueError:
                how = f"ended by signal {-code}"
        else:
            how = f"exited with status {code} before writing its results"
        names = [Path(p).name for p in self._programs]
        raise RunError(f"the run's process {how} {died_because(names)}")

    def _show_stderr(self) -> None:
        path = self._dir / _STDERR
        text = path.read_text(errors="replace") if path.is_file() else ""
        if text:
            sys.stderr.write(text)


def start(
    sc: Scenario,
    max_memory: int | None,
    max_events: int | None,
    programs: list[str],
    algorithms: tuple[str, ...] = (),
) -> IsolatedRun:
    """Build `sc` in a child process; returns once the run is ready to start (the errors
    of a build, such as a program that does not compile, are raised here, as in-process).
    `programs`: the program files it names; `algorithms`: the modules that define the
    Python algorithms it names, which the child imports."""
    directory = Path(tempfile.mkdtemp(prefix="hscc-run-"))
    try:
        job = {
            "scenario": sc.written if sc.written is not None else sc.to_dict(),
            "parse": sc.written is not None,  # as written: resolved there as it was here
            "source": sc.source,
            "max_memory": max_memory,
            "max_events": max_events,
            "imports": algorithms,
            "path": sys.path,
            "parent": os.getpid(),
        }
        (directory / _JOB).write_bytes(pickle.dumps(job))
        child = _spawn(directory)
    except BaseException:
        shutil.rmtree(directory, ignore_errors=True)
        raise
    ready = IsolatedRun(child, directory, programs)
    assert child.stdout is not None
    try:
        first = child.stdout.readline()
    except BaseException:
        ready._abandon()
        raise
    if first != _BUILT:
        ready._outcome()  # the build's error, or the child's death, raised
    return ready


# The child's first lines: this very hscc, from where the child's own path finds it if that
# is the same package, else from where this process found it (a path set at run time).
_BOOT = """import importlib.util, os, sys
root, init, directory = sys.argv[1:4]
found = importlib.util.find_spec("hscc")
if found is None or found.origin is None or os.path.realpath(found.origin) != init:
    sys.path.insert(0, root)
from hscc.isolated import _child
_child(directory)
"""


def _spawn(directory: Path) -> subprocess.Popen[str]:
    """The child process, running this very hscc, with Ctrl-C ignored from its first
    instruction (a terminal sends it to the whole process group; this process handles it
    and kills the child)."""
    init = Path(__file__).resolve().with_name("__init__.py")
    # Standard error is handed over when it is the terminal, else kept for after the run.
    stderr = None if sys.stderr is sys.__stderr__ else open(directory / _STDERR, "wb")  # noqa: SIM115
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main_thread else None
    try:  # an ignored signal stays ignored in the child (Python keeps SIG_IGN at start)
        return subprocess.Popen(
            [sys.executable, "-c", _BOOT, str(init.parents[1]), str(init), str(directory)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
        )
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
        if stderr is not None:
            stderr.close()


def die_with(pid: int, scratch: Path | None = None) -> None:
    """End this process as soon as process `pid` ends (SIGKILL included), so that no
    orphan goes on computing a run nobody will read, removing `scratch`, the directory `pid`
    would have removed; Ctrl-C is `pid`'s to handle."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        return  # not Linux ≥ 5.3: the pipes to `pid` end this process when it next uses them
    threading.Thread(
        target=_exit_when_readable, args=(fd, scratch), daemon=True, name="hscc-parent-watch"
    ).start()


def _exit_when_readable(fd: int, scratch: Path | None) -> None:
    select.select([fd], [], [])  # a pidfd becomes readable when its process ends
    if scratch is not None:
        shutil.rmtree(scratch, ignore_errors=True)
    os._exit(1)


def _child(directory: str) -> None:
    """The child's side: run the job in `directory`, leave its outcome there."""
    report = os.fdopen(os.dup(1), "w", buffering=1)  # the caller reads this pipe
    os.dup2(2, 1)  # what the program prints goes where its errors go
    scratch = Path(directory)
    job = pickle.loads((scratch / _JOB).read_bytes())
    die_with(job["parent"], scratch)
    sys.path += [p for p in job["path"] if p not in sys.path]

    from hscc.runner import start as start_here
    from hscc.scenario import Scenario

    outcome: tuple[str, Any]
    try:
        for module in job["imports"]:
            importlib.import_module(module)  # registers its Python algorithms here
        given = job["scenario"]
        sc = (
            Scenario.parse(given, job["source"]) if job["parse"] else Scenario(given, job["source"])
        )
        ready = start_here(sc, None, job["max_memory"], job["max_events"], isolate=False)
        report.write(_BUILT)

        def progress(t: float, duration: float) -> None:
            report.write(f"{t!r} {duration!r}\n")

        result = ready.finish(progress)
        outcome = ("ok", result)
    except Exception as e:  # raised in the caller as it would be raised in-process
        outcome = ("error", e)
    partial = scratch / (_OUTCOME + ".part")
    with partial.open("wb") as f:
        try:
            _Pickler(f).dump(outcome)
        except Exception:  # an exception that does not pickle: its type and text
            kind, value = outcome
            f.seek(0)
            f.truncate()
            _Pickler(f).dump((kind, RunError(f"{type(value).__name__}: {value}")))
    partial.rename(scratch / _OUTCOME)  # whole, or not there


class _Pickler(pickle.Pickler):
    """Pickles a DataFrame as an LZ4-compressed Arrow IPC file: a per-ACK log of 10^6 rows
    (180 MB as pickle makes it, 0.75 s to pickle and unpickle) is then 10 MB and 0.3 s."""

    def reducer_override(self, obj: Any) -> Any:
        polars = sys.modules.get("polars")
        if polars is None or not isinstance(obj, polars.DataFrame):
            return NotImplemented
        buf = io.BytesIO()
        obj.write_ipc(buf, compression="lz4")
        return _frame, (buf.getvalue(),)


def _frame(ipc: bytes) -> Any:
    import polars as pl

    return pl.read_ipc(io.BytesIO(ipc))
