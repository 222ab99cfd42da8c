"""What this machine's testbed sustains, checked before a run starts.

The numbers are measured (docs/testbed.md, "Limits"): on this 2-core VM
shared with other work, one CUBIC flow through the delay line held its rate to
within 5 % with the delay line's stalls under the bound below up to these
values; beyond them the delay line or the endpoints run out of CPU and the
kernel's numbers would describe the machine, not TCP. $HSCC_TESTBED_MAX_RATE
and $HSCC_TESTBED_MAX_BDP (bit/s, bits) override them on a machine that
measured its own.
"""

from __future__ import annotations

import os

from hscc.testbed.plan import Plan, TestbedError

MAX_RATE_BPS = 300e6
MAX_BDP_BITS = 300e6 * 0.08  # rate × the longest base RTT
# A run is flagged when its delay line's worst stall exceeds this, or more than
# LATE_SHARE_BOUND of its packets left more than 1 ms late.
STALL_BOUND_S = 0.005
LATE_SHARE_BOUND = 0.01


def max_rate() -> float:
    return float(os.environ.get("HSCC_TESTBED_MAX_RATE", MAX_RATE_BPS))


def max_bdp() -> float:
    return float(os.environ.get("HSCC_TESTBED_MAX_BDP", MAX_BDP_BITS))


def check(plan: Plan) -> None:
    """TestbedError (naming the field) when `plan` is beyond what this machine sustains."""
    rate, rtt = plan.rate_bps, plan.max_rtt
    if rate > max_rate():
        raise TestbedError(
            f"topology.bottleneck.rate = {rate / 1e6:g} Mbit/s: this machine's testbed sustains at most "
            f"{max_rate() / 1e6:g} Mbit/s (docs/testbed.md, Limits)"
        )
    if rate * rtt > max_bdp():
        raise TestbedError(
            f"topology.bottleneck.rate × base RTT = {rate / 1e6:g} Mbit/s × {rtt * 1e3:g} ms = {rate * rtt / 1e6:g} Mbit: "
            f"this machine's testbed sustains at most {max_bdp() / 1e6:g} Mbit in flight (docs/testbed.md, Limits)"
        )


def probe() -> dict:
    """This machine's clock resolution and how late the delay line's 1 ms sleeps
    wake now, in its scheduling class (real time if allowed): `delayline --probe`."""
    import json
    import subprocess

    from hscc.testbed import build

    r = subprocess.run([str(build.delay_line()), "--probe"], capture_output=True, text=True, timeout=30, check=False)
    if r.returncode != 0:
        raise TestbedError(f"the delay line's probe failed: {r.stderr.strip()}")
    return json.loads(r.stdout)


def flags(delay_line: dict) -> list[str]:
    """Why a run's delay line makes its numbers suspect; empty when it held its delays."""
    out = []
    for name in ("fwd", "rev"):
        d = delay_line[name]
        if d["max_late_s"] > STALL_BOUND_S:
            out.append(f"{name}: the delay line stalled for {d['max_late_s'] * 1e3:.1f} ms (bound {STALL_BOUND_S * 1e3:g} ms)")
        share = d["late_1ms_share"]
        if share > LATE_SHARE_BOUND:
            out.append(f"{name}: {share:.1%} of packets left more than 1 ms late (bound {LATE_SHARE_BOUND:.0%})")
        if d["overflow"]:
            out.append(f"{name}: the delay line dropped {d['overflow']} packets (its FIFO was full)")
    return out
