"""What several commands share: the exit codes' line of their help, and the limits a
run is refused beyond (`--max-memory`, `--max-events`: run, check, sweep)."""

from __future__ import annotations

from typing import Annotated

import typer

from hscc.console import BAD_INPUT
from hscc.console import fail as _fail

EXIT_CODES = "Exit codes: 0 ok, 1 run failed, 2 bad input or usage, 130 interrupted."

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
