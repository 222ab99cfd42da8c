"""The `hscc` command line.

Exit codes: `hscc.exit_codes`; the entry point is `hscc.__main__.entry`.

Each command lives in the module of its purpose (`run`: run and check a scenario;
`sweep`; `reproduce`; `plot`; `reference`: algorithms and fields; `new_algorithm`; the
kernel and testbed packages' own) and is imported, and built by typer, only when it
runs or shows its own help: `hscc run -q` loads no polars, plotting, sweeps, kernel,
testbed or Rich code (tests/python/test_startup.py).
"""

from __future__ import annotations

import importlib
from typing import Annotated

import typer
from typer._click.core import Command

from hscc.cli.options import EXIT_CODES
from hscc.console import Group, Lazy
from hscc.exit_codes import OK


def _command(name: str, module: str, function: str) -> Lazy:
    """The command `name`: `function` of hscc.cli.`module`, imported and built when it runs
    or shows its help; listed until then by its summary (SUMMARIES)."""

    def make() -> Command:
        one = typer.Typer(add_completion=False)
        defined = getattr(importlib.import_module(f"hscc.cli.{module}"), function)
        one.command(name, epilog=EXIT_CODES)(defined)
        return typer.main.get_command(one)

    return Lazy(SUMMARIES[name], make)


def _compare() -> Command:
    from hscc.testbed.cli import compare

    one = typer.Typer(add_completion=False)
    one.command("compare", epilog=EXIT_CODES)(compare)
    return typer.main.get_command(one)


def _kernel() -> Command:
    from hscc.kernel.cli import kernel_app

    return typer.main.get_group(kernel_app)


def _testbed() -> Command:
    from hscc.testbed.cli import testbed_app

    return typer.main.get_group(testbed_app)


# What `hscc --help` lists for each command, as its help's first paragraph says
# (tests/python/test_startup.py checks each against the command's own); in this order.
SUMMARIES = {
    "run": "Run a scenario: progress in simulated time, a summary table, results written atomically.",
    "sweep": "Run a scenario over the values of some of its fields, with replicates: cached, "
    "resumable, in parallel.",
    "reproduce": "Rerun a paper's experiment and compare it with the published numbers "
    "(hscc reproduce list: the catalogue).",
    "plot": "Plot a run (throughput and cwnd per flow, queuing delay over time), or a sweep "
    "(each metric against the first axis, into SWEEP_DIR/plots/ or --out).",
    "algorithms": "Every congestion-control algorithm with its parameters, defaults, ranges "
    "and sources.",
    "fields": "Every field a scenario file may have: its kind of value, default and meaning "
    "(as tables on a terminal, as Markdown when piped).",
    "check": "Validate a scenario without running it; print what the run would need.",
    "new-algorithm": "Write NAME.bpf.c, a commented congestion-control program with every hook "
    "(Reno as written), NAME.toml, a scenario that runs it against Reno, and NAME-sweep.toml, "
    "a sweep over one of its parameters (docs/programs.md).",
    "compare": "Two runs side by side: per-flow goodput, retransmissions, recoveries and "
    "timeouts, Jain's index, queuing delay and loss, and each flow's window cuts (first cut, "
    "sawtooth period), with ratios B / A.",
    "kernel": "hscc's algorithms as eBPF struct_ops programs in the running Linux kernel "
    "(root, a kernel with BTF, clang, bpftool and libbpf-dev). A loaded program is offered "
    "to sockets as hscc_NAME (TCP_CONGESTION); it never becomes a default. See docs/kernel.md.",
    "testbed": "Run a scenario on this machine's Linux kernel: real TCP sockets in network "
    "namespaces, an HTB + pfifo bottleneck, a real-time delay line. Needs root. Writes the "
    "run directory a simulation writes. See docs/testbed.md.",
}


class _Hscc(Group):
    """`hscc`: every command is imported when it runs or shows its own help; `hscc --help`
    lists them by their summaries."""

    lazy = {
        "run": _command("run", "run", "run"),
        "sweep": _command("sweep", "sweep", "sweep"),
        "reproduce": _command("reproduce", "reproduce", "reproduce"),
        "plot": _command("plot", "plot", "plot"),
        "algorithms": _command("algorithms", "reference", "algorithms"),
        "fields": _command("fields", "reference", "fields"),
        "check": _command("check", "run", "check"),
        "new-algorithm": _command("new-algorithm", "new_algorithm", "new_algorithm"),
        "compare": Lazy(SUMMARIES["compare"], _compare),
        "kernel": Lazy(SUMMARIES["kernel"], _kernel),
        "testbed": Lazy(SUMMARIES["testbed"], _testbed),
    }


app = typer.Typer(
    name="hscc",
    cls=_Hscc,
    help=f"High-speed TCP congestion control: run scenarios on the packet-level simulator, list algorithms, plot results.\n\n{EXIT_CODES}",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        from hscc import _core, console, provenance

        console.plain(  # plain: a line scripts read, and Rich would cost more than the rest
            f"hscc {provenance.version()} (engine {_core.engine_version()}, digest {_core.engine_digest()})"
        )
        raise typer.Exit(OK)


@app.callback()
def main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", "-V", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """hscc: high-speed TCP congestion control toolkit."""
