"""The dumbbell in three network namespaces, and its removal.

    senders (S) ──veth── router (R) ──veth── receivers (D)
    10.1.0.(10+p)   left 10.1.0.1 · right 10.2.0.1   10.2.0.(10+p)

Pair p's sender and receiver are addresses 10+p on either side. In the router,
a policy rule sends what arrives on `left` to the TUN device `tf` and what
arrives on `right` to `tr`; the delay line (delayline.c) holds each packet for
its pair's one-way delay and writes it back into the same device, whence the
router forwards it by its main table. The bottleneck is the egress of `tf`
(and, for ACKs, of `tr`): HTB at the scenario's rate over a pfifo (or bfifo)
of its buffer, so the queue comes before the delay as on a simulated link.
On a TUN device a packet is its IP length, 1500 bytes, as the simulator counts
it. Offloads are off on every veth, so packets are MTU-sized end to end
(no TSO/GSO super-packets through HTB, no GRO merging the receiver's ACKs).
Random loss: a tc BPF classifier on the router's `left` ingress (loss.py).

Everything lives in the three namespaces (named with this process's id) and
the delay line's TUN devices, which vanish with it; `remove` deletes them.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass

from hscc.kernel import netns
from hscc.kernel.netns import sh
from hscc.testbed.plan import Plan

MTU = 1500
TUN_TXQUEUELEN = (
    20000  # the TUN's ring toward the delay line; it drops when full, so room for a long stall
)
HTB_BURST = 2 * MTU  # bytes HTB may send back to back: a link serializes packet by packet
PORT = 5001
OFFLOADS = ("tso", "gso", "gro", "tx-checksumming", "rx-checksumming")


@dataclass(frozen=True)
class Names:
    senders: str
    router: str
    receivers: str

    @classmethod
    def for_this_process(cls) -> Names:
        prefix = f"hscc-tb-{os.getpid()}"
        return cls(f"{prefix}-s", f"{prefix}-r", f"{prefix}-d")

    def all(self) -> tuple[str, str, str]:
        return (self.senders, self.router, self.receivers)


def sender_addr(pair: int) -> str:
    return f"10.1.0.{10 + pair}"


def receiver_addr(pair: int) -> str:
    return f"10.2.0.{10 + pair}"


def _most_bytes(plan: Plan) -> int:
    """The socket buffers' maximum: four times the path's BDP plus its queue, at least 8 MB."""
    bdp_bytes = plan.rate_bps * plan.max_rtt / 8
    queue_bytes = plan.buffer[1] * (MTU if plan.buffer[0] == "packets" else 1)
    return int(max(8 << 20, 4 * (bdp_bytes + queue_bytes)))


def host_sysctls(plan: Plan) -> dict[str, str]:
    """Endpoint settings: no cached metrics between flows, buffers for four times the path's BDP
    plus its queue, and timestamps with or without random per-connection offsets."""
    most = _most_bytes(plan)
    return {
        "net.ipv4.tcp_no_metrics_save": "1",
        "net.ipv4.tcp_timestamps": "1" if plan.random_ts_offset else "2",
        "net.ipv4.tcp_rmem": f"4096 131072 {most}",
        "net.ipv4.tcp_wmem": f"4096 16384 {most}",
    }


def receive_lowat(plan: Plan) -> int:
    """SO_RCVLOWAT of the receivers' sockets (bytes): how much unread data they may hold and still
    acknowledge every second segment as it arrives, as the simulator's receiver does.

    Linux sends that ACK on arrival only if the window's right edge advances, or
    if less than SO_RCVLOWAT is unread (`__tcp_ack_snd_check`). With the default
    lowat of one byte, data the receiving program has not read yet (a preempted
    Python thread on a loaded machine) shrinks the window, the ACK waits for the
    program's next read and then covers everything since: a stretch ACK that
    lets the sender put dozens of packets back to back into the bottleneck.
    Half the receive buffer's maximum, the largest lowat the kernel accepts; it
    also caps the receive window (tcp_set_rcvlowat), at twice the path's BDP
    plus its queue or more, which no window of this path reaches."""
    return _most_bytes(plan) // 2


def build_hosts(plan: Plan, n: Names) -> None:
    """The three namespaces, the veths, addresses, routes and offloads (not the TUN side)."""
    netns.add(n.senders, host_sysctls(plan))
    netns.add(n.receivers, host_sysctls(plan))
    netns.add(
        n.router,
        {
            "net.ipv4.ip_forward": "1",
            "net.ipv4.conf.all.rp_filter": "0",  # a packet written back into a TUN arrives from the "wrong" side
            "net.ipv4.conf.default.rp_filter": "0",
            "net.ipv4.conf.all.send_redirects": "0",
            "net.ipv4.conf.default.send_redirects": "0",
        },
    )
    for side, host, net in (("left", n.senders, "10.1.0"), ("right", n.receivers, "10.2.0")):
        sh(
            "ip",
            "-n",
            n.router,
            "link",
            "add",
            "name",
            side,
            "mtu",
            str(MTU),
            "type",
            "veth",
            "peer",
            "name",
            "eth0",
            "netns",
            host,
        )
        sh("ip", "-n", n.router, "addr", "add", f"{net}.1/24", "dev", side)
        sh("ip", "-n", host, "link", "set", "dev", "eth0", "mtu", str(MTU))
        for p in range(plan.pairs):
            sh("ip", "-n", host, "addr", "add", f"{net}.{10 + p}/24", "dev", "eth0")
        for ns, dev in ((n.router, side), (host, "eth0")):
            offloads_off(ns, dev)
            sh("ip", "-n", ns, "link", "set", "dev", dev, "up")
        sh("ip", "-n", host, "route", "add", "default", "via", f"{net}.1")


def offloads_off(ns: str, dev: str) -> None:
    args = [x for o in OFFLOADS for x in (o, "off")]
    sh("ip", "netns", "exec", ns, "ethtool", "-K", dev, *args)


def build_router(plan: Plan, n: Names) -> None:
    """Once the delay line has made `tf` and `tr`: bring them up, route through them, shape them."""
    r = n.router
    for dev, table, iif in (("tf", "100", "left"), ("tr", "101", "right")):
        sh(
            "ip",
            "-n",
            r,
            "link",
            "set",
            "dev",
            dev,
            "mtu",
            str(MTU),
            "txqueuelen",
            str(TUN_TXQUEUELEN),
            "up",
        )
        sh("ip", "-n", r, "route", "add", "default", "dev", dev, "table", table)
        sh("ip", "-n", r, "rule", "add", "iif", iif, "lookup", table, "pref", table)
        bottleneck(r, dev, plan)


def bottleneck(ns: str, dev: str, plan: Plan) -> None:
    rate = f"{plan.rate_bps}bit"
    kind, limit = plan.buffer
    sh("tc", "-n", ns, "qdisc", "add", "dev", dev, "root", "handle", "1:", "htb", "default", "1")
    sh(
        "tc",
        "-n",
        ns,
        "class",
        "add",
        "dev",
        dev,
        "parent",
        "1:",
        "classid",
        "1:1",
        "htb",
        "rate",
        rate,
        "ceil",
        rate,
        "burst",
        str(HTB_BURST),
        "cburst",
        str(HTB_BURST),
        "quantum",
        str(MTU),
    )
    sh(
        "tc",
        "-n",
        ns,
        "qdisc",
        "add",
        "dev",
        dev,
        "parent",
        "1:1",
        "handle",
        "10:",
        "pfifo" if kind == "packets" else "bfifo",
        "limit",
        str(limit),
    )


def stop_senders(n: Names) -> None:
    """Let nothing more from the senders into the router, so that the run's final counters (the queues',
    the loss classifier's) are read with no packet passing between the reads: the endpoints have exited,
    but their closed sockets keep retransmitting what was not yet acknowledged."""
    sh("ip", "-n", n.router, "link", "set", "left", "down")


def remove(n: Names) -> None:
    """Delete the namespaces (and with them every link, qdisc, filter and TUN device in them).

    Their TCP sockets are destroyed first (SOCK_DESTROY, `ss -K`): a sender killed
    with data unsent closes gracefully and its socket lives on as an orphan,
    retransmitting into a deleted network for minutes, holding the namespace
    and, when its algorithm is an hscc program, the program's registration."""
    for ns in n.all():
        subprocess.run(
            ["ip", "netns", "exec", ns, "ss", "-K", "-t", "-a"],
            capture_output=True,
            timeout=30,
            check=False,
        )
        netns.delete(ns)
