"""Network namespaces for kernel runs: made with the built-in reno as their
default congestion control, and removed with everything in them.

A new namespace would inherit the host's default congestion control (bbr
here), and a socket that later switches to reno or cubic keeps bbr's pacing
on; so every namespace hscc makes starts with reno. A BPF program is never
made a default (this kernel leaks the registration when one is refused).
Deleting a namespace removes its links, qdiscs, filters and TUN devices; the
processes started in it must be stopped first (they keep it alive).
"""

from __future__ import annotations

import subprocess

from hscc.kernel.programs import KernelError

DEFAULT_CC = "reno"


def sh(*cmd: str, timeout: float = 30) -> str:
    """Run `cmd`; its stdout, or KernelError with its stderr."""
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    if r.returncode != 0:
        raise KernelError(f"{' '.join(cmd)}: {r.stderr.strip() or f'exit code {r.returncode}'}")
    return r.stdout


def add(ns: str, sysctls: dict[str, str] | None = None) -> None:
    """Make namespace `ns` with its loopback up, reno as its default and `sysctls` set."""
    sh("ip", "netns", "add", ns)
    sh("ip", "-n", ns, "link", "set", "dev", "lo", "up")
    for key, value in {"net.ipv4.tcp_congestion_control": DEFAULT_CC, **(sysctls or {})}.items():
        sh("ip", "netns", "exec", ns, "sysctl", "-qw", f"{key}={value}")


def delete(ns: str) -> None:
    """Remove namespace `ns` if it exists (never raises: this runs while cleaning up)."""
    subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30, check=False)
