"""The Markdown hscc generates (`hscc fields`: headings, paragraphs, pipe tables) as a
terminal shows it: headings in bold, code spans without their backticks, tables as tables
whose first column (the field or knob a user types) is never wrapped or cut."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console, RenderableType

_CELL_SPLIT = re.compile(r"(?<!\\)\|")  # a cell boundary: a pipe not escaped as \|


def renderables(markdown: str) -> list[RenderableType]:
    """`markdown`'s blocks (separated by blank lines) as Rich renderables."""
    from rich.text import Text

    out: list[RenderableType] = []
    for block in re.split(r"\n\s*\n", markdown.strip()):
        lines = block.splitlines()
        if lines[0].startswith("#"):
            out.append(Text(_inline(lines[0].lstrip("#").strip()), style="bold"))
            lines = lines[1:]
        if not lines:
            continue
        if all(line.startswith("|") for line in lines) and len(lines) >= 2:
            out.append(_table(lines))
        else:
            out.append(Text(_inline(" ".join(line.strip() for line in lines))))
    return out


def show(markdown: str, console: Console) -> None:
    """Print `markdown` on `console` as a terminal shows it, a blank line between blocks."""
    from hscc.console import print_whole

    for i, block in enumerate(renderables(markdown)):
        if i:
            console.print()
        print_whole(block, console)


def _inline(text: str) -> str:
    """Backticks dropped and escaped pipes unescaped: `x` → x, \\| → |."""
    return text.replace("`", "").replace("\\|", "|")


def _table(lines: list[str]) -> RenderableType:
    from rich import box
    from rich.table import Table

    rows = [
        [_inline(c.strip()) for c in _CELL_SPLIT.split(line.strip().strip("|"))] for line in lines
    ]
    header, body = rows[0], [r for r in rows[2:]]  # rows[1]: the |---| line
    t = Table(box=box.SIMPLE_HEAD, show_edge=False)
    for i, name in enumerate(header):
        t.add_column(name, no_wrap=i == 0, ratio=3 if i == len(header) - 1 else None)
    for r in body:
        t.add_row(*(r + [""] * (len(header) - len(r)))[: len(header)])
    return t
