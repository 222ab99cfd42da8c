"""`hscc algorithms` and `hscc fields`: what hscc knows, for people (tables, Markdown)
and for programs (JSON, the scenario files' JSON Schema)."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Annotated

import typer

from hscc import console
from hscc.console import BAD_INPUT, print_whole
from hscc.console import fail as _fail
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
    """Every field a scenario file may have: its kind of value, default and meaning (Markdown)."""
    from hscc import _core

    if run_directory:
        from hscc.results import columns_markdown

        console.out.print(columns_markdown(), soft_wrap=True)
    elif as_json:
        console.out.print_json(_core.scenario_schema())
    else:
        from hscc import reference

        console.out.print(reference.markdown(), soft_wrap=True)
