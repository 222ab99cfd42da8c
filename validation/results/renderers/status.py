"""The rows of docs/validation/index.md for ns-3, ns-2 and the kernel: each group's target,
its verdicts, command and dates."""

from __future__ import annotations

import results

from .entries import _count, _dates, _select
from .markdown import _table

# group: (the target in words, its section of the page)
NS3_TARGETS = {
    "prr": ("matched dumbbells, 10 Mbit/s to 1 Gbit/s, PRR recovery", "results"),
    "classic": ("the same, classic recovery in both tools", "results"),
    "bbr": ("BBR (TcpBbr), alone, 4 flows and with CUBIC, 100 Mbit/s", "bbr-and-dctcp"),
    "dctcp": ("DCTCP (TcpDctcp) over step marking, 1 Gbit/s", "bbr-and-dctcp"),
}
NS2_TARGETS = {
    "africa-safety": ("TCP-Africa's safety set-up, HSTCP against Reno", "results"),
    "africa-fairness": ("TCP-Africa's fairness set-up, HSTCP or Reno against Reno", "results"),
    "africa-table1-2": ("TCP-Africa's RTT-fairness set-up, HSTCP", "results"),
    "ctcp-table2": (
        "CTCP Table 2's set-up, Reno, HSTCP and TCP-Linux's Compound, without the tick",
        "results",
    ),
    "sync-fig8": ("Sync-TCP Fig. 8's RTT-fairness set-up, TCP-Linux's CUBIC", "results"),
    "classic": (
        "the Sack1 agent's set-ups, hscc with classic recovery against ns-2's Sack1",
        "differences-and-their-mechanism",
    ),
}
KERNEL_TARGETS = {
    "reno-cubic": ("Reno and CUBIC, 10–300 Mbit/s, 20–120 ms, loss 0–10⁻²", "reno-and-cubic"),
    "rto-receivers": (
        "Reno and CUBIC with Linux's RTO estimator and receivers",
        "linuxs-rto-estimator-and-receivers",
    ),
    "papers": (
        "CTCP, TCP-Africa, TCP-FIT, Sync-TCP (eBPF programs)",
        "the-papers-algorithms-ebpf-programs",
    ),
    "others": ("the other eBPF programs, HighSpeed to CTCP-LA", "the-other-programs"),
    "bbr": ("BBR: Linux's built-in bbr and hscc_bbr", "bbr"),
    "trajectories": ("one flow's cwnd trajectory, 10-ms samples", "cwnd-trajectories"),
    "500M": ("500 Mbit/s × 100 ms, the testbed's limits lifted", "500-mbits--100-ms"),
}


def status(doc: dict, group: str | None) -> str:
    rows = []
    ns3 = results.load(results.NS3)
    ns2 = results.load(results.NS2)
    kernel = results.load(results.KERNEL)
    for name, sel, targets, page in (
        ("ns-3 3.44", ns3, NS3_TARGETS, "ns3.md"),
        ("ns-2.35", ns2, NS2_TARGETS, "ns2.md"),
        ("the Linux kernel (testbed)", kernel, KERNEL_TARGETS, "kernel.md"),
    ):
        for g, (target, anchor) in targets.items():
            entries = _select(sel, g)
            if not entries:
                continue
            cmd = sel["command"] + (" --recovery classic" if g == "classic" else "")
            rows.append(
                [f"[{target}]({page}#{anchor})", name, _count(entries), f"`{cmd}`", _dates(entries)]
            )
    return _table(["target", "reference", "verdict", "command", "date"], rows)
