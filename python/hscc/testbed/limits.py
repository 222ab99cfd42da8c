"""What this machine's testbed sustains, checked before a run starts.

The numbers are measured (docs/testbed.md, "Limits"): on this 2-core VM, one
CUBIC flow through the delay line filled the link with the delay line's stalls
under the bound below up to these values; beyond them the machine runs short
of CPU (at 400-500 Mbit/s the link is still full, but the ACKs leave the delay
line late and the runs are flagged) and the kernel's numbers would describe
the machine, not TCP. $HSCC_TESTBED_MAX_RATE
and $HSCC_TESTBED_MAX_BDP (bit/s, bits) override them on a machine that
measured its own.
"""

from __future__ import annotations

import os
from itertools import pairwise
from typing import Any

from hscc.testbed.plan import Plan, TestbedError

MAX_RATE_BPS = 300e6
MAX_BDP_BITS = 300e6 * 0.1  # rate × the longest base RTT
# A run is flagged when its delay line's worst stall exceeds this, or more than
# LATE_SHARE_BOUND of its packets left more than 1 ms late.
STALL_BOUND_S = 0.005
LATE_SHARE_BOUND = 0.01
# The bottleneck itself, upstream of the delay line: a run is flagged when, between two queue samples, the
# bottleneck held a backlog but sent less than SERVICE_SHARE_BOUND of what it surely could have (work
# conservation: a link holding B bytes sends min(B, rate · Δt) in Δt). Only backlogs of at least
# SERVICE_MIN_BYTES (ten full packets) count: a `tc` snapshot is not instantaneous.
SERVICE_SHARE_BOUND = 0.5
SERVICE_MIN_BYTES = 15_000


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


def probe() -> dict[str, Any]:
    """This machine's clock resolution and how late the delay line's 1 ms sleeps
    wake now, in its scheduling class (real time if allowed): `delayline --probe`."""
    import json
    import subprocess

    from hscc.testbed import build

    r = subprocess.run(
        [str(build.delay_line()), "--probe"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    if r.returncode != 0:
        raise TestbedError(f"the delay line's probe failed: {r.stderr.strip()}")
    found: dict[str, Any] = json.loads(r.stdout)
    return found


def service_stalls(samples: list[Any], dev: str, rate_bps: float) -> list[dict[str, Any]]:
    """The intervals between queue samples (`record.QueueSample`) in which the bottleneck queue on `dev`
    held a backlog but sent less than SERVICE_SHARE_BOUND of min(backlog, rate × the time that surely
    passed between the two snapshots): the machine stopped serving the queue (softirq starved), a stall
    the delay line, downstream and at real-time priority, does not see."""
    out = []
    for a, b in pairwise(samples):
        surely = (
            b.asked - a.t
        )  # each snapshot was taken inside its call: at least this long between them
        could = min(a.queues[dev]["backlog"], rate_bps / 8 * surely) if surely > 0 else 0
        sent = b.queues[dev]["bytes"] - a.queues[dev]["bytes"]
        if could >= SERVICE_MIN_BYTES and sent < SERVICE_SHARE_BOUND * could:
            out.append(
                {
                    "t_s": a.t,
                    "interval_s": surely,
                    "backlog_bytes": a.queues[dev]["backlog"],
                    "sent_share": sent / could,
                }
            )
    return out


def flags(
    delay_line: dict[str, Any], service: dict[str, list[dict[str, Any]]] | None = None
) -> list[str]:
    """Why a run's numbers are suspect: the delay line did not hold its delays, or (`service`, per
    direction, from `service_stalls`) the bottleneck stopped sending with packets waiting. Empty when neither."""
    out = []
    for name, stalls in (service or {}).items():
        if stalls:
            worst = min(stalls, key=lambda x: x["sent_share"])
            out.append(
                f"{name}: the bottleneck held a backlog but sent under {SERVICE_SHARE_BOUND:.0%} of what it could in "
                f"{len(stalls)} interval(s), worst {worst['sent_share']:.0%} over {worst['interval_s'] * 1e3:.0f} ms "
                f"at {worst['t_s']:.1f} s (the machine stopped serving it, upstream of the delay line)"
            )
    for name in ("fwd", "rev"):
        d = delay_line[name]
        if d["max_late_s"] > STALL_BOUND_S:
            out.append(
                f"{name}: the delay line stalled for {d['max_late_s'] * 1e3:.1f} ms (bound {STALL_BOUND_S * 1e3:g} ms)"
            )
        share = d["late_1ms_share"]
        if share > LATE_SHARE_BOUND:
            out.append(
                f"{name}: {share:.1%} of packets left more than 1 ms late (bound {LATE_SHARE_BOUND:.0%})"
            )
        if d["overflow"]:
            out.append(
                f"{name}: the delay line dropped {d['overflow']} packets (its FIFO was full)"
            )
    return out
