"""The CLI's two consoles and its one way to fail, shared by `hscc`, `hscc
kernel` and `hscc testbed`. No markup: scenario paths, labels and messages are
printed as written ("flows[0]" stays)."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.text import Text

# The exit codes every hscc command uses.
OK, FAILED, BAD_INPUT, INTERRUPTED = 0, 1, 2, 130

out = Console(markup=False)
err = Console(stderr=True, markup=False)


def fail(code: int, message: str) -> typer.Exit:
    """Print "error: MESSAGE" on stderr; return the Exit to raise with `code`."""
    err.print(Text.assemble(("error:", "bold red"), " ", message), soft_wrap=True)
    return typer.Exit(code)
