"""`hscc new-algorithm`: the files a new congestion-control program starts from."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import typer

from hscc import console
from hscc.console import fail as _fail
from hscc.exit_codes import BAD_INPUT


def new_algorithm(
    name: Annotated[
        str,
        typer.Argument(
            help="The algorithm's name: a C identifier of at most 15 characters.",
            show_default=False,
        ),
    ],
    directory: Annotated[
        Path, typer.Option("--dir", help="Where to write the two files.", show_default=False)
    ] = Path("."),
) -> None:
    """Write NAME.bpf.c, a commented congestion-control program with every hook (Reno as
    written), NAME.toml, a scenario that runs it against Reno, and NAME-sweep.toml, a sweep
    over one of its parameters (docs/programs.md)."""
    from importlib import resources

    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,14}", name):
        raise _fail(
            BAD_INPUT,
            f"name {name!r}: a C identifier (letters, digits, _) of at most 15 characters "
            "(the kernel's TCP_CA_NAME_MAX is 16 with the terminating NUL)",
        )
    targets = {
        f"{name}.bpf.c": "algorithm.bpf.c",
        f"{name}.toml": "algorithm.toml",
        f"{name}-sweep.toml": "algorithm-sweep.toml",
    }
    for target in targets:
        if (directory / target).exists():
            raise _fail(BAD_INPUT, f"{directory / target} exists; choose another name or --dir")
    directory.mkdir(parents=True, exist_ok=True)
    for target, template in targets.items():
        text = resources.files("hscc").joinpath("templates", template).read_text()
        (directory / target).write_text(text.replace("__NAME__", name))
    console.out.print(f"wrote {', '.join(str(directory / t) for t in targets)}", soft_wrap=True)
    console.out.print(
        f"run it:   hscc run {directory / (name + '.toml')} --out runs/{name}", soft_wrap=True
    )
    console.out.print(
        f"sweep:    hscc sweep {directory / (name + '-sweep.toml')} --out runs/{name}-increase",
        soft_wrap=True,
    )
    console.out.print(f"kernel:   hscc kernel load {directory / (name + '.bpf.c')}", soft_wrap=True)
    console.out.print("guide:    docs/programs.md", soft_wrap=True)
