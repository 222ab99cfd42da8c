"""`hscc algorithms` and `hscc fields`: what hscc knows, for people (tables, Markdown)
and for programs (JSON, the scenario files' JSON Schema)."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Annotated

import typer

from hscc import console
from hscc.console import fail as _fail
from hscc.console import print_whole
from hscc.exit_codes import BAD_INPUT
from hscc.suggest import did_you_mean


def algorithms(
    name: Annotated[
        str | None,
        typer.Argument(help="Show only this algorithm (name or alias).", show_default=False),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")] = False,
) -> None:
    """Every congestion-control algorithm with its parameters, defaults, ranges and sources."""
    from hscc import catalog, report

    algos = catalog.algorithms()
    if name is not None:
        found = catalog.find(name)
        if found is None:
            raise _fail(
                BAD_INPUT,
                f'algorithm "{name}" is not known (one of: {catalog.known_names()})'
                + did_you_mean(
                    name, [n for a in catalog.algorithms() for n in (a.name, *a.aliases)]
                ),
            )
        algos = (found,)
    if as_json:
        console.out.print_json(json.dumps([asdict(a) for a in algos]))
    else:
        print_whole(report.algorithms(algos))


def fields(
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the JSON Schema of scenario files instead.")
    ] = False,
    run_directory: Annotated[
        bool,
        typer.Option(
            "--run-directory", help="Print the columns of a run directory's tables instead."
        ),
    ] = False,
) -> None:
    """Every field a scenario file may have: its kind of value, default and meaning (as
    tables on a terminal, as Markdown when piped)."""
    from hscc import _core

    if as_json and not run_directory:
        console.out.print_json(_core.scenario_schema())
        return
    if run_directory:
        from hscc.results import columns_markdown

        text = columns_markdown()
    else:
        from hscc import reference

        text = reference.markdown()
    if console.out.is_terminal:  # read by a person: tables, not Markdown's pipes
        from hscc import terminal_markdown

        terminal_markdown.show(text, console.out)
    else:  # piped or redirected: the Markdown itself (docs/scenario.md is made so)
        console.plain(text)
