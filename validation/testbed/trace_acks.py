"""How a kernel run's ACKs and data bursts look from inside the kernel (ftrace).

    sudo .venv/bin/python validation/testbed/trace_acks.py SCENARIO.toml --out DIR [--after 8] [--seconds 4]
    sudo .venv/bin/python validation/testbed/trace_acks.py SCENARIO.toml --out DIR --from-start 0,0.3,0.6,1,2,4

Runs `hscc testbed run SCENARIO --out DIR`; `--after` seconds in, records for
`--seconds` in an ftrace instance of its own (removed after): `tcp:tcp_probe`
(every segment a socket on port 5001 receives) and `net:net_dev_start_xmit` on
the endpoints' `eth0`. Then prints, for this run's processes only:
- per sender socket, how many segments each ACK acknowledged (2 when the
  receiver ACKs every second segment) and the largest;
- who sent the receivers' ACKs: the softirq of the data's arrival (in the delay
  line's context, it writes the data back) or the receiving program (`recvmsg`);
- the sender's data bursts: packets leaving less than 30 µs apart.
With `--from-start EDGES` it records from the run's start instead (the scenario
must last longer than the recording) and prints, for each interval between the
edges (seconds after the first data packet), how many segments each ACK
acknowledged and who sent the ACKs (slow start's ACKs, docs/validation/kernel.md).
docs/testbed.md ("Traps") gives what it showed before and after the receivers'
SO_RCVLOWAT.
"""

from __future__ import annotations

import argparse
import collections
import itertools
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

TRACING = Path("/sys/kernel/tracing/instances/hscc-trace-acks")
EVENTS = {
    "tcp/tcp_probe": "dport == 5001 || sport == 5001",
    "net/net_dev_start_xmit": 'name == "eth0"',
}
LINE = re.compile(r"^\s*(.+?)-(\d+)\s+\[\d+\]\s+(\S+)\s+([\d.]+): (\w+): (.*)$")
BURST_GAP_S = (
    30e-6  # a 1500-byte packet takes 120 µs at 100 Mbit/s: closer than this is back to back
)


def record(seconds: float) -> str:
    if not TRACING.parent.is_dir():
        raise SystemExit(
            f"no {TRACING.parent}: mount tracefs first (mount -t tracefs nodev {TRACING.parent.parent})"
        )
    TRACING.mkdir()
    try:
        (TRACING / "buffer_size_kb").write_text("65536")
        for event, condition in EVENTS.items():
            (TRACING / "events" / event / "filter").write_text(condition)
            (TRACING / "events" / event / "enable").write_text("1")
        (TRACING / "tracing_on").write_text("1")
        time.sleep(seconds)
        (TRACING / "tracing_on").write_text("0")
        return (TRACING / "trace").read_text()
    finally:
        (TRACING / "tracing_on").write_text("0")
        for event in EVENTS:
            (TRACING / "events" / event / "enable").write_text("0")
        TRACING.rmdir()


def run_pids(pid: int) -> set[str]:
    """The threads of every process in the run's three namespaces."""
    out = set()
    for side in "srd":
        listed = subprocess.run(
            ["ip", "netns", "pids", f"hscc-tb-{pid}-{side}"], capture_output=True, text=True
        ).stdout
        for p in listed.split():
            out |= {t.name for t in Path(f"/proc/{p}/task").glob("*")}
    return out


class Event(NamedTuple):
    """One of the run's trace lines: an ACK the sender took (`snd_una` after it), or a packet
    sent on an endpoint (`length` on the wire: data if more than 1000 bytes, else an ACK)."""

    t: float
    softirq: bool
    comm: str
    ack: bool
    socket: str = ""
    snd_una: int = 0
    length: int = 0


def events(trace: str, pids: set[str]) -> Iterator[Event]:
    """The trace's lines of this run's processes, parsed."""
    for line in trace.splitlines():
        m = LINE.match(line)
        if not m or m.group(2) not in pids:
            continue
        comm, _, flags, ts, kind, rest = m.groups()
        if kind == "tcp_probe" and ":5001 " in rest.split("dest=")[1][:30]:
            yield Event(
                float(ts),
                flags[2] == "s",
                comm,
                True,
                re.search(r"sock_cookie=(\w+)", rest).group(1),
                int(re.search(r"snd_una=(0x\w+)", rest).group(1), 16),
            )
        elif kind == "net_dev_start_xmit":
            yield Event(
                float(ts),
                flags[2] == "s",
                comm,
                False,
                length=int(re.search(r" len=(\d+)", rest).group(1)),
            )


def segments_acked(una: int, next_una: int) -> int:
    """Segments an ACK acknowledged: its step of the sender's snd_una (wrapping), in 1448-byte segments."""
    return ((next_una - una) % (1 << 32)) // 1448


def sent_by(e: Event) -> str:
    """Who sent an ACK: the softirq of the data's arrival, or the receiving program."""
    return "on arrival (softirq)" if e.softirq else f"by the receiving program ({e.comm})"


def analyse(trace: str, pids: set[str]) -> None:
    acked = collections.defaultdict(list)  # sender socket -> snd_una at each ACK
    ack_senders, ack_takers = collections.Counter(), collections.Counter()
    taken = []  # when the sender processed each ACK
    data, sizes = [], collections.Counter()
    for e in events(trace, pids):
        if e.ack:
            acked[e.socket].append(e.snd_una)
            ack_takers["in softirq" if e.softirq else f"from the socket's backlog ({e.comm})"] += 1
            taken.append(e.t)
        elif e.length > 1000:
            data.append(e.t)
            sizes[e.length] += 1
        else:
            ack_senders[sent_by(e)] += 1
    for cookie, una in acked.items():
        steps = collections.Counter(segments_acked(a, b) for a, b in itertools.pairwise(una))
        two = steps[2] / max(1, sum(steps.values()))
        print(
            f"sender socket {cookie}: {len(una)} ACKs, {two:.0%} acknowledged two segments, "
            f"{sum(n for k, n in steps.items() if k >= 10)} ten or more, at most {max(steps, default=0)}"
        )
    print("receivers' ACKs sent", dict(ack_senders))
    print(
        "senders took their ACKs",
        dict(ack_takers),
        f"{sum(b - a < 5e-6 for a, b in itertools.pairwise(taken))} within 5 µs of the previous one",
    )
    data.sort()
    bursts, size = [], 1
    for a, b in itertools.pairwise(data):
        if b - a < BURST_GAP_S:
            size += 1
        else:
            bursts.append(size)
            size = 1
    bursts.append(size)
    print(
        f"data: {len(data)} packets (bytes on the wire: {dict(sizes)}), largest burst {max(bursts)}, "
        f"{sum(b for b in bursts if b >= 16) / max(1, len(data)):.1%} of packets in bursts of 16 or more"
    )


def by_interval(trace: str, pids: set[str], edges: list[float]) -> None:
    """Per interval between `edges` (s after the first data packet): segments per ACK and the ACKs' senders."""
    una, acks_at, data, sent = [], [], [], []
    for e in events(trace, pids):
        if e.ack:
            una.append(e.snd_una)
            acks_at.append(e.t)
        elif e.length > 1000:
            data.append(e.t)
        else:
            sent.append((e.t, sent_by(e)))
    if not data:
        raise SystemExit("no data packets in the trace: did the run start within the recording?")
    t0 = data[0]
    steps = [
        (t - t0, segments_acked(a, b))
        for t, (a, b) in zip(acks_at[1:], itertools.pairwise(una), strict=True)
    ]
    for lo, hi in itertools.pairwise(edges):
        sizes = collections.Counter(n for t, n in steps if lo <= t < hi)
        acks = sum(sizes.values())
        senders = collections.Counter(who for t, who in sent if lo <= t - t0 < hi)
        print(
            f"{lo:g}-{hi:g} s: {acks} ACKs, {sum(k * n for k, n in sizes.items()) / max(1, acks):.2f} segments per ACK, "
            f"ACKs by segments acknowledged {dict(sorted(sizes.items()))}; sent {dict(senders)}"
        )


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("scenario", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--after", type=float, default=8.0)
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument(
        "--from-start",
        metavar="EDGES",
        help="record from the start; intervals (s after the first data packet), e.g. 0,0.3,0.6,1,2,4",
    )
    args = ap.parse_args()
    edges = [float(x) for x in args.from_start.split(",")] if args.from_start else None
    hscc = Path(sys.executable).with_name("hscc")
    run = subprocess.Popen(
        [str(hscc), "testbed", "run", str(args.scenario), "--out", str(args.out)]
    )
    try:
        if edges:
            time.sleep(0.2)  # the namespaces are being built; the traffic starts later
            trace = record(
                max(args.seconds, edges[-1] + 2.0)
            )  # + the set-up before the first packet
            pids = run_pids(run.pid)
        else:
            time.sleep(args.after)
            pids = run_pids(run.pid)
            trace = record(args.seconds)
    finally:
        if run.wait(timeout=600) != 0:
            print(f"hscc testbed run failed (exit code {run.returncode})", file=sys.stderr)
    if edges:
        by_interval(trace, pids, edges)
    else:
        analyse(trace, pids)
    return run.returncode


if __name__ == "__main__":
    sys.exit(main())
