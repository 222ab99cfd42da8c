"""The CLI's two consoles and its one way to fail, shared by `hscc`, `hscc
kernel` and `hscc testbed`. No markup: scenario paths, labels and messages are
printed as written ("flows[0]" stays).

Rich is imported when a console is first used (`out`, `err`: made on first access),
not with this module: `hscc run -q` prints one path and needs none of it."""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import typer
from typer._click.core import Command, Context
from typer._click.exceptions import UsageError
from typer._click.formatting import HelpFormatter
from typer._coercion import RuntimeParam, TypeDescriptor, build_runtime_param
from typer._param_types import coerce_cli_path
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from hscc.suggest import did_you_mean

if TYPE_CHECKING:
    from rich.console import Console, RenderableType

    out: Console  # standard output
    err: Console  # standard error: progress, warnings, errors


_STDERR = {"out": False, "err": True}


def __getattr__(name: str) -> Any:
    """`out` and `err`, each made on first use and kept (PEP 562)."""
    if name not in _STDERR:
        raise AttributeError(f"module 'hscc.console' has no attribute {name!r}")
    return _console(name)


def _console(name: str) -> Console:
    """The console `out` or `err`, made on first use (this module's own functions do not
    see a name `__getattr__` would make)."""
    if name not in globals():
        from rich.console import Console

        globals()[name] = Console(stderr=_STDERR[name], markup=False, emoji=False, highlight=False)
    console: Console = globals()[name]
    return console


def plain(text: str) -> None:
    """Print `text` and a newline on standard output as it is, without Rich: for output
    scripts read (a path), where importing Rich would cost more than the rest."""
    print(text, flush=True)


def fail(code: int, message: str) -> typer.Exit:
    """Print "error: MESSAGE" on stderr; return the Exit to raise with `code`."""
    from rich.text import Text

    _console("err").print(Text.assemble(("error:", "bold red"), " ", message), soft_wrap=True)
    return typer.Exit(code)


def print_whole(renderable: RenderableType, console: Console | None = None) -> None:
    """Print a table so that no column that must not wrap (names a user types: experiments,
    parameters, links) is cut: wider than the terminal when it has to be, never truncated."""
    from rich.console import Console, Group

    console = console or _console("out")
    if isinstance(renderable, Group):  # each part as wide as it needs, not as the widest
        for part in renderable.renderables:
            print_whole(part, console)
        return
    need = _width_needed(console, renderable)
    _lay_out(console, renderable, max(need, console.width))
    if need <= console.width:
        console.print(renderable)
        return
    wide = Console(
        file=console.file,
        width=need,
        markup=False,
        force_terminal=console.is_terminal,
        no_color=console.no_color,
        color_system=console.color_system,  # type: ignore[arg-type]
    )
    wide.print(renderable)


def _lay_out(console: Console, renderable: RenderableType, width: int) -> None:
    """Fix each column's width of a table too wide for `width` at its natural size: no-wrap
    columns at their widest cell, the others at their longest word plus a share of what is
    left. Rich shrinks columns in proportion to their widest cell instead, which breaks a
    header such as "differs" mid-word where the table had room for it."""
    from rich.console import Group
    from rich.table import Table

    if isinstance(renderable, Group):
        for r in renderable.renderables:
            _lay_out(console, r, width)
        return
    if not isinstance(renderable, Table) or any(c.width is not None for c in renderable.columns):
        return
    options = console.options.update_width(1 << 16)
    table = renderable
    sizes = [table._measure_column(console, options, c) for c in table.columns]  # noqa: SLF001
    if sum(m.maximum for m in sizes) + table._extra_width <= width:  # noqa: SLF001
        return  # fits as it is
    low = [_narrowest(m, c) for m, c in zip(sizes, table.columns, strict=True)]
    room = max(0, width - sum(low) - table._extra_width)  # noqa: SLF001
    # What is left goes first to the cells (a value read on one line), then to the headers.
    body = [_body_width(console, table, c) for c in table.columns]
    widths = list(low)
    for want in (body, [m.maximum for m in sizes]):
        slack = [max(0, w - have) for w, have in zip(want, widths, strict=True)]
        total = sum(slack)
        if total == 0 or room == 0:
            continue
        share = [min(extra, room * extra // total) for extra in slack]
        widths = [w + s for w, s in zip(widths, share, strict=True)]
        room -= sum(share)
    for c, w in zip(table.columns, widths, strict=True):
        c.width = w - table._get_padding_width(c._index)  # noqa: SLF001


def _body_width(console: Console, table: Any, column: Any) -> int:
    """The widest body cell of `column` (its header left out), padding included."""
    from rich.measure import Measurement

    options = console.options.update_width(1 << 16)
    cells = [Measurement.get(console, options, cell).maximum for cell in column._cells]  # noqa: SLF001
    return int(max(cells, default=0) + table._get_padding_width(column._index))  # noqa: SLF001


# A column that may fold its words (a citation, a path) breaks one longer than this.
_FOLD_AT = 16


def _narrowest(size: Any, column: Any) -> int:
    """The narrowest a column may be (its measure, padding included): a no-wrap column's
    widest cell, a folding column's longest word up to _FOLD_AT, another's longest word."""
    if column.no_wrap:
        return int(size.maximum)
    if column.overflow == "fold":
        return int(min(size.minimum, _FOLD_AT + 2))
    return int(size.minimum)


def table_width(renderable: RenderableType) -> int:
    """The narrowest width at which `renderable` (a table, a group of them) cuts nothing."""
    return _width_needed(_console("out"), renderable)


def _width_needed(console: Console, renderable: RenderableType) -> int:
    """The narrowest width at which `renderable` cuts nothing: a table's no-wrap columns at
    their widest cell, its other columns at their longest word. (Rich's own measure takes
    every column at its longest word, and then cuts the no-wrap ones with "…".)"""
    from rich.console import Group
    from rich.measure import Measurement
    from rich.table import Table

    options = console.options.update_width(1 << 16)
    if isinstance(renderable, Group):
        return max((_width_needed(console, r) for r in renderable.renderables), default=0)
    if isinstance(renderable, Table):
        columns = [
            renderable._measure_column(console, options, c)  # noqa: SLF001 (no public measure)
            for c in renderable.columns
        ]
        widths = [_narrowest(m, c) for m, c in zip(columns, renderable.columns, strict=True)]
        return sum(widths) + renderable._extra_width  # noqa: SLF001
    return Measurement.get(console, options, renderable).minimum


@dataclass(frozen=True)
class Lazy:
    """A command of a group imported only when it runs (its module's imports are not every
    command's): the first paragraph of its help, which the group's help lists, and how to
    make it."""

    summary: str
    make: Callable[[], Command]


class Group(TyperGroup):
    """A command group that answers a misspelt command with the closest one, and whose
    `lazy` commands are made when one of them runs or shows its own help."""

    lazy: ClassVar[dict[str, Lazy]] = {}

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        _plain_values(self, ctx)
        return super().parse_args(ctx, args)

    def list_commands(self, ctx: Context) -> list[str]:
        made = super().list_commands(ctx)
        return [*made, *(name for name in self.lazy if name not in made)]

    def resolve_command(
        self, ctx: Context, args: list[str]
    ) -> tuple[str | None, Command | None, list[str]]:
        if args and args[0] in self.lazy and args[0] not in self.commands:
            self.add_command(self.lazy[args[0]].make(), args[0])
        try:
            return super().resolve_command(ctx, args)
        except UsageError:
            name = args[0] if args else ""
            known = self.list_commands(ctx)
            hint = did_you_mean(name, known)
            if name and name not in known:
                raise UsageError(
                    f"no command {name!r}{hint or ' (hscc --help lists them)'}", ctx
                ) from None
            raise

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            _no_flag_metavar(command, ctx)
            _plain_values(command, ctx)
            command.help = reflow(command.help)
        elif cmd_name in self.lazy:  # listed, not run: its summary is all a listing shows
            command = TyperCommand(cmd_name, help=self.lazy[cmd_name].summary)
        return command

    def format_help(self, ctx: Context, formatter: HelpFormatter) -> None:
        _no_flag_metavar(self, ctx)
        self.help = reflow(self.help)
        super().format_help(ctx, formatter)


def reflow(help: str | None) -> str | None:
    """A help text as paragraphs the terminal wraps: the line breaks of a docstring's
    paragraph are joined (typer keeps them, which leaves orphan lines at any width other
    than the source's); indented lines (examples) keep theirs."""
    if help is None:
        return None
    paragraphs = inspect.cleandoc(help).split("\n\n")
    return "\n\n".join(
        p
        if any(line.startswith((" ", "\b")) for line in p.splitlines())
        else " ".join(p.split("\n"))
        for p in paragraphs
    )


def _no_flag_metavar(command: Command, ctx: Context) -> None:
    """An on/off flag takes no value: show none in the help ("--overwrite", not "--overwrite <bool>")."""
    for param in [*command.params, command.get_help_option(ctx)]:
        if isinstance(param, TyperOption) and param.is_flag and param.metavar is None:
            param.metavar = ""


@dataclass(frozen=True)
class _Plain(RuntimeParam):
    """Typer coerces every value through a pydantic TypeAdapter: importing pydantic and
    building one adapter per parameter costs more than a short run. A string for a `str`
    parameter is taken as it is, and one for a `Path` is made a Path and checked by typer's
    own path checks (`coerce_cli_path`, what the adapter calls); anything else, and every
    error message, stays typer's. An option not given (None) needs no coercion at all."""

    descriptor: TypeDescriptor

    def _coerce_value(self, value: Any, param: Any, ctx: Context) -> Any:
        info = self.parameter_info
        plain = _optional_of(self.annotation)
        if isinstance(value, str) and info.parser is None:
            if plain is str:
                return value
            if plain is Path and self.descriptor.file_annotation is None:
                return coerce_cli_path(
                    Path(value), info, path_type=info.path_type or Path, param=param, ctx=ctx
                )
        return build_runtime_param(self.descriptor)._coerce_value(value, param, ctx)


def _optional_of(annotation: Any) -> Any:
    """X for `X | None` or Optional[X]; the annotation itself otherwise."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        return args[0] if len(args) == 1 else annotation
    return annotation


def _plain_values(command: Command, ctx: Context) -> None:
    for param in [*command.params, command.get_help_option(ctx)]:
        if isinstance(param, (TyperArgument, TyperOption)) and param._runtime_param is None:
            d = param.type_descriptor
            param._runtime_param = _Plain(d.parameter_info, d.annotation, d)
