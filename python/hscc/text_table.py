"""A `run_summary.Table` as plain text, laid out as Rich's SIMPLE_HEAD box (a rule under
the header, a blank line between sections), for `hscc run`: importing Rich costs a short
run's process more than its table. Every cell is shown whole: a table wider than the
terminal is printed wider, never cut."""

from __future__ import annotations

import os
import sys
import unicodedata
from typing import TextIO

from hscc.run_summary import Table

_BOLD, _DIM, _RESET = "\x1b[1m", "\x1b[2m", "\x1b[0m"


def width(text: str) -> int:
    """Columns `text` takes on a terminal: wide East Asian characters two, combining marks none."""
    return sum(
        0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
        for c in text
    )


def render(table: Table, color: bool = False) -> str:
    """`table` as lines of text (each cell padded by a space, columns three apart); with
    `color`, the title and header bold and the caption dim (ANSI)."""

    def styled(text: str, style: str) -> str:
        return f"{style}{text}{_RESET}" if color and text else text

    widths = [
        max(width(cell) for cell in column)
        for column in zip(table.columns, *table.rows, strict=True)
    ]

    def line(cells: tuple[str, ...]) -> str:
        parts = []
        for name, cell, w in zip(table.columns, cells, widths, strict=True):
            pad = " " * (w - width(cell))
            parts.append(cell + pad if name in table.left else pad + cell)
        return ("  " + "   ".join(parts)).rstrip()

    header = line(table.columns)
    lines = [styled(table.title, _BOLD), "", styled(header, _BOLD)]
    lines.append(" " + "─" * (sum(widths) + 3 * (len(widths) - 1) + 2))
    for i, row in enumerate(table.rows):
        if i in table.sections:
            lines.append("")
        lines.append(line(row))
    if table.caption:
        lines += ["", styled(table.caption, _DIM)]
    return "\n".join(lines) + "\n"


def colors(stream: TextIO) -> bool:
    """Whether to colour what goes to `stream`: a terminal, unless NO_COLOR is set
    (no-color.org) or TERM is "dumb"; FORCE_COLOR colours any stream."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return os.environ.get("TERM") != "dumb" and stream.isatty()


def print_tables(tables: list[Table], footer: str, stream: TextIO | None = None) -> None:
    """Print `tables`, a blank line between them, then `footer`."""
    stream = stream or sys.stdout
    color = colors(stream)
    stream.write("\n".join([*(render(t, color) for t in tables), footer + "\n"]))
    stream.flush()
