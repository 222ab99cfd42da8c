"""The kernel smoke test: one real flow with an hscc program.

In a network namespace of its own: the loopback at a 1500-byte MTU behind a
token bucket (100 Mbit/s, 64 KB queue), so the flow fills a queue, loses
segments and recovers, and the program's ssthresh and recovery hooks run,
not only slow start. The namespace's default congestion control is set to
the built-in reno first (a new namespace would inherit the host's, here bbr,
which turns pacing on); the program itself is never a default, only the
flow's socket selects it (TCP_CONGESTION).

Everything made is removed on success, failure and Ctrl-C: the namespace
(and with it the flow's processes) and the registration if this test made it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from hscc.kernel import netns, programs, registry, toolchain
from hscc.kernel.programs import KernelError

FLOW = Path(__file__).with_name("flow.py")
RATE = "100mbit"
QUEUE = "64kb"
# At 100 Mbit/s a healthy flow moves ~3 MB per quarter second; 1 MB in all
# is far below that and far above a flow that stalls after its first window.
MIN_BYTES = 1_000_000


@dataclass
class SmokeResult:
    """What one smoke run saw."""

    algorithm: str
    kernel_name: str
    seconds: float
    cc: str = ""  # what the socket got
    bytes: int = 0
    intervals: list[int] = field(default_factory=list)
    tcp_info: dict[str, int] = field(default_factory=dict)
    watched: object = None  # what `watch` returned halfway through the flow

    def problems(self) -> list[str]:
        """Why this run does not pass; empty when it does."""
        out = []
        if self.cc != self.kernel_name:
            out.append(f"the socket got congestion control {self.cc!r}, not {self.kernel_name!r}")
        if self.bytes < MIN_BYTES:
            out.append(
                f"only {self.bytes} bytes moved in {self.seconds:g} s (at least {MIN_BYTES} expected)"
            )
        stalled = [i for i, b in enumerate(self.intervals) if b == 0]
        if stalled:
            out.append(
                f"no bytes arrived in quarter-seconds {stalled} of {len(self.intervals)}: the flow stalled"
            )
        return out


def _make_namespace(ns: str) -> None:
    netns.add(ns)
    netns.sh("ip", "-n", ns, "link", "set", "dev", "lo", "mtu", "1500")
    netns.sh(
        "tc",
        "-n",
        ns,
        "qdisc",
        "add",
        "dev",
        "lo",
        "root",
        "tbf",
        "rate",
        RATE,
        "burst",
        "16kb",
        "limit",
        QUEUE,
    )


def run(
    name: str,
    assignments: list[str] | None = None,
    seconds: float = 2.0,
    watch: Callable[[str], object] | None = None,
) -> SmokeResult:
    """Load `name` (unless it is loaded already), run one flow with it for
    `seconds`, and remove what this run made. `watch`, if given, is called
    with the namespace's name halfway through the flow (to look at its
    sockets). KernelError when something could not be set up; the result's
    problems() when the flow misbehaved."""
    reason = toolchain.missing_for_smoke()
    if reason:
        raise KernelError(f"cannot run the kernel smoke test here: {reason}")
    algorithm = programs.resolve(name)
    kname = programs.kernel_name(algorithm)
    ns = f"hscc-smoke-{os.getpid()}-{algorithm}"
    loaded_here = False
    try:
        if not (registry.PIN_DIR / algorithm).exists():
            registry.load(algorithm, assignments)
            loaded_here = True
        elif assignments:
            raise KernelError(
                f"{algorithm} is loaded already; unload it to smoke-test other parameters"
            )
        _make_namespace(ns)
        flow = subprocess.Popen(
            ["ip", "netns", "exec", ns, sys.executable, str(FLOW), kname, str(seconds)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            watched = None
            if watch is not None:
                time.sleep(seconds / 2)
                watched = watch(ns)
            stdout, stderr = flow.communicate(timeout=seconds + 60)
        except BaseException as e:  # Ctrl-C included: the flow's socket holds the program
            flow.kill()
            flow.communicate()
            if isinstance(e, subprocess.TimeoutExpired):
                raise KernelError(
                    f"the flow with {kname} did not end in {seconds + 60:g} s"
                ) from None
            raise
        if flow.returncode != 0:
            raise KernelError(f"the flow with {kname} failed: {stderr.strip()}")
        seen = json.loads(stdout)
        return SmokeResult(
            algorithm,
            kname,
            seconds,
            seen["cc"],
            seen["bytes"],
            seen["intervals"],
            seen["tcp_info"],
            watched,
        )
    finally:
        netns.delete(ns)
        if loaded_here:
            registry.unload(algorithm)
