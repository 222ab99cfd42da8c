"""`hscc kernel ...`: the eBPF programs of bpf/ in the running kernel."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from functools import partial
from typing import Annotated, TypeVar

import typer
from rich.table import Table

from hscc.console import Group, err, out
from hscc.console import fail as _fail
from hscc.exit_codes import BAD_INPUT, FAILED, INTERRUPTED
from hscc.kernel import programs, registry, smoke, toolchain
from hscc.kernel.programs import KernelError

kernel_app = typer.Typer(
    name="kernel",
    cls=Group,
    help=(
        "hscc's algorithms as eBPF struct_ops programs in the running Linux kernel "
        "(root, a kernel with BTF, clang, bpftool and libbpf-dev). A loaded program is "
        "offered to sockets as hscc_NAME (TCP_CONGESTION); it never becomes a default. See docs/kernel.md.\n\n"
        "Exit codes: 0 ok, 1 failed (kernel refused, smoke test failed), 2 bad input or usage, 130 interrupted."
    ),
    no_args_is_help=True,
)


def _bad_input(e: KernelError) -> bool:
    """Parameter and name mistakes are the user's (2); the rest is the kernel's or the machine's (1)."""
    text = str(e)
    return any(
        s in text
        for s in (
            "is not known",
            "has no parameter",
            "is not allowed",
            "is not NAME=VALUE",
            "has no eBPF program",
            "not loaded",
            "already",
        )
    )


T = TypeVar("T")


def _run(action: Callable[[], T]) -> T:
    try:
        return action()
    except KernelError as e:
        raise _fail(BAD_INPUT if _bad_input(e) else FAILED, str(e)) from None
    except KeyboardInterrupt:
        raise _fail(INTERRUPTED, "interrupted; what this command had made is removed") from None


@kernel_app.command("build")
def build() -> None:
    """Build every program of bpf/ and the loader for the running kernel (done by load when needed)."""
    path = _run(programs.build)
    out.print(f"built {', '.join(programs.available())} in {path}", soft_wrap=True)


@kernel_app.command("load")
def load(
    name: Annotated[
        str,
        typer.Argument(
            help="Algorithm (name or alias, as `hscc algorithms` lists them), or a program file NAME.bpf.c.",
            show_default=False,
        ),
    ],
    params: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[PARAM=VALUE]...",
            help="Parameters, e.g. beta=0.8 hystart=true; the names and ranges of `hscc algorithms NAME`.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Build if needed, pass the verifier and register NAME as hscc_NAME (a program file under
    the name in its ops)."""
    reg = _run(lambda: registry.load(name, params or []))
    out.print(
        f"loaded {reg.algorithm or name} as {reg.kernel_name} (struct_ops map {reg.map_id}); select it with TCP_CONGESTION",
        soft_wrap=True,
    )


@kernel_app.command("list")
def list_() -> None:
    """hscc's programs the kernel holds, and those bpf/ has."""
    regs = _run(registry.registrations)
    table = Table("kernel name", "algorithm", "struct_ops map", "selectable", "held by")
    for r in regs:
        table.add_row(
            r.kernel_name,
            r.algorithm or ("?" if r.kernel_name.startswith("hscc_") else "a program file"),
            str(r.map_id) if r.map_id is not None else "-",
            "yes" if r.available else "no",
            "pin (hscc kernel load)" if r.pinned else "no pin: in use by sockets, or not hscc's",
        )
    if regs:
        out.print(table)
    else:
        out.print("no hscc program is loaded")
    if shutil.which("bpftool") is None:
        out.print(
            "bpftool is not installed: only programs pinned by hscc kernel load are listed, "
            f"without their struct_ops maps (apt-get install {toolchain.APT_PACKAGES})",
            soft_wrap=True,
        )
    out.print(f"programs in bpf/: {', '.join(_run(programs.available))}", soft_wrap=True)


@kernel_app.command("unload")
def unload(
    name: Annotated[
        str | None, typer.Argument(help="Algorithm to unregister.", show_default=False)
    ] = None,
    all_: Annotated[
        bool, typer.Option("--all", help="Unregister every program hscc kernel load registered.")
    ] = False,
) -> None:
    """Unregister NAME (or --all) and wait until the kernel has dropped it."""
    if (name is None) == (not all_):
        raise _fail(BAD_INPUT, "give an algorithm or --all (not both)")
    done = _run(registry.unload_all) if name is None else [_run(partial(registry.unload, name))]
    out.print(f"unloaded {', '.join(done)}" if done else "nothing was loaded", soft_wrap=True)


@kernel_app.command("smoke")
def smoke_(
    names: Annotated[
        list[str] | None,
        typer.Argument(help="Algorithms (default: every program of bpf/).", show_default=False),
    ] = None,
    seconds: Annotated[
        float, typer.Option("--seconds", help="Length of each flow.", min=0.5, max=60)
    ] = 2.0,
) -> None:
    """Run one real flow per algorithm in a namespace of its own and check it moved data without stalling."""
    failed = 0
    for n in names or _run(programs.available):
        r = _run(partial(smoke.run, n, seconds=seconds))
        problems = r.problems()
        info = r.tcp_info
        line = f"{r.kernel_name}: {r.bytes / 1e6:.1f} MB in {seconds:g} s, cwnd {info.get('snd_cwnd')}, ssthresh {info.get('snd_ssthresh')}, {info.get('total_retrans')} retransmissions"
        if problems:
            failed += 1
            err.print(f"FAIL {line}: {'; '.join(problems)}", soft_wrap=True)
        else:
            out.print(f"ok   {line}", soft_wrap=True)
    if failed:
        raise typer.Exit(FAILED)
