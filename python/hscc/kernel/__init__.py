"""hscc's algorithms in the Linux kernel: the eBPF struct_ops programs of
bpf/ built for the running kernel, registered and unregistered (`hscc kernel
load/list/unload`), and a smoke test that runs a real flow with one of them
in a network namespace of its own (`hscc kernel smoke`).

- `toolchain`: what this machine lacks for it (root, BTF, clang, bpftool, libbpf).
- `programs`: the programs of bpf/, their parameters (hscc-cc's conversion) and the build.
- `registry`: load, list, unload; a registration is a pinned struct_ops link.
- `smoke`: the namespace, the flow and the checks.

See docs/kernel.md.
"""

from hscc.kernel.programs import KernelError

__all__ = ["KernelError"]
