"""What several commands share: the exit codes' line of their help and the errors they map
to them, and the limits a run is refused beyond (`--max-memory`, `--max-events`: run, check,
sweep)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from hscc.console import fail as _fail
from hscc.exit_codes import BAD_INPUT, FAILED, INTERRUPTED

EXIT_CODES = "Exit codes: 0 ok, 1 run failed, 2 bad input or usage, 130 interrupted."


@contextmanager
def command_exit_codes(
    what: str,
    bad_input: tuple[type[Exception], ...],
    failed: tuple[type[Exception], ...],
    interrupted: str,
) -> Iterator[None]:
    """Every command's exit codes: 2 for `bad_input`, 130 on Ctrl-C (saying `interrupted`:
    what was kept), 1 when `what` itself failed (`failed`). `bad_input` is tried first."""
    try:
        yield
    except typer.Exit:
        raise
    except bad_input as e:
        raise _fail(BAD_INPUT, str(e)) from None
    except KeyboardInterrupt:
        raise _fail(INTERRUPTED, interrupted) from None
    except failed as e:
        raise _fail(FAILED, f"{what} failed: {e}") from None


def exit_codes(
    what: str, out_dir: Path, bad_input: tuple[type[Exception], ...]
) -> contextlib.AbstractContextManager[None]:
    """The exit codes of a command that fills `out_dir` with runs: on Ctrl-C the finished
    runs are kept, and the same command resumes."""
    return command_exit_codes(
        what,
        bad_input,
        (OSError, RuntimeError),
        f"interrupted; finished runs are kept in {out_dir} (run the same command to resume)",
    )


# A command that writes one run directory (hscc run, hscc testbed run).
OverwriteRun = Annotated[
    bool,
    typer.Option(
        "--overwrite",
        help="Replace the previous run in --out (never anything hscc did not write).",
    ),
]
QuietRun = Annotated[
    bool,
    typer.Option(
        "--quiet", "-q", help="No progress bar and no table; print only the run directory."
    ),
]
MaxMemory = Annotated[
    str | None,
    typer.Option(
        "--max-memory",
        help="Refuse runs the engine estimates to need more memory (e.g. 16GB). Default: 80% of the memory this process may use (RAM, ulimit -v and cgroup limit, the smallest).",
        show_default=False,
    ),
]
MaxEvents = Annotated[
    str | None,
    typer.Option(
        "--max-events",
        help="Refuse runs the engine estimates to need more events (e.g. 1e13). Default: 1e11, a few hours.",
        show_default=False,
    ),
]


def parse_limits(max_memory: str | None, max_events: str | None) -> tuple[int | None, int | None]:
    from hscc import limits

    try:
        memory = None if max_memory is None else limits.parse_memory(max_memory)
    except ValueError as e:
        raise _fail(BAD_INPUT, f"--max-memory: {max_memory!r} is not allowed ({e})") from None
    try:
        events = None if max_events is None else limits.parse_events(max_events)
    except ValueError as e:
        raise _fail(BAD_INPUT, f"--max-events: {max_events!r} is not allowed ({e})") from None
    return memory, events
