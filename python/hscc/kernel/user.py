"""A user's program file (NAME.bpf.c) in the kernel: built with clang -target bpf against
this kernel's vmlinux.h and bpf/include (bpf_tracing_net.h), then registered by the same
loader as hscc's programs, under the name in its ops. Its parameters are its initialized
globals, as in the simulator (hscc-program); a parameter not given keeps the program's value.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from hscc.kernel import programs, toolchain
from hscc.kernel.programs import KernelError, parse_value


def is_program(name: str) -> bool:
    """Whether `name` names a program file rather than an algorithm."""
    from hscc.scenario import names_program

    return names_program(name)


@dataclass(frozen=True)
class Program:
    path: Path
    kernel_name: str  # the ops' .name, what TCP_CONGESTION selects
    params: dict[str, tuple[int, int]]  # name -> (size in bytes, default)


def info(path: str | Path) -> Program:
    """The program at `path`, as the simulator builds and reads it (KernelError if it does
    not build or load there)."""
    from hscc import _core

    p = Path(path).absolute()
    try:
        _, kname, params = _core.program_info(str(p))
    except ValueError as e:
        raise KernelError(str(e)) from None
    return Program(p, kname, {n: (size, default) for n, size, default in params})


def globals_for(prog: Program, assignments: list[str]) -> list[tuple[str, int]]:
    """`name=value` settings as the program's globals: each a parameter of it, a whole
    number that fits its size."""
    out = []
    for a in assignments:
        key, sep, text = a.partition("=")
        key = key.strip()
        if not sep or not key:
            raise KernelError(f"parameter {a!r} is not NAME=VALUE")
        if key not in prog.params:
            known = ", ".join(sorted(prog.params)) or "none"
            raise KernelError(
                f"{prog.path.name} has no parameter {key!r} (its parameters: {known})"
            )
        size = prog.params[key][0]
        value = parse_value(text)
        if isinstance(value, bool):
            value = int(value)  # true is 1, as the simulator takes it (a C bool)
        elif isinstance(value, float) and value.is_integer():
            value = int(value)  # a scenario's values are numbers: 2.0 is 2
        lo, hi = (
            (-(1 << 63), (1 << 63) - 1)
            if size >= 8
            else (-(1 << (8 * size - 1)), (1 << (8 * size)) - 1)
        )
        if not isinstance(value, int) or not lo <= value <= hi:
            raise KernelError(
                f"{prog.path.name}: {key} = {text!r} is not allowed: a whole number in [{lo}, {hi}] "
                f"(a {size}-byte global)"
            )
        out.append((key, value))
    return out


def build(prog: Program) -> Path:
    """The program built for this kernel (cached beside hscc's own build, by the contents of
    the file and of the headers it includes from beside it)."""
    reason = toolchain.missing_for_build()
    if reason:
        raise KernelError(f"cannot build {prog.path.name} for the kernel: {reason}")
    from hscc.sweeps.programs import ProgramSourceError, read

    out = programs.build()  # vmlinux.h and the loader
    # Keyed by the program's path and text and those of the headers it includes from beside
    # it, as the simulator's build is: an edited header builds the program anew.
    try:
        key = read(str(prog.path), "to build it for the kernel", limit=None).digest[:16]
    except ProgramSourceError as e:
        raise KernelError(str(e)) from None
    obj = out / "user" / f"{prog.path.name.removesuffix('.c')}-{key}.o"
    if obj.exists():
        return obj
    obj.parent.mkdir(parents=True, exist_ok=True)
    tmp = obj.with_suffix(".tmp")
    cmd = [
        "clang",
        "-target",
        "bpf",
        "-O2",
        "-g",
        "-Wall",
        "-D__TARGET_ARCH_x86",
        f"-I{out}",
        f"-I{programs.bpf_dir() / 'include'}",
        "-c",
        str(prog.path),
        "-o",
        str(tmp),
    ]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    if r.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise KernelError(f"{prog.path} does not build for the kernel:\n{r.stderr.strip()}")
    tmp.replace(obj)
    return obj
