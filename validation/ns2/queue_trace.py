"""How many packets wait in a queue when each packet arrives, in ns-2 and in hscc.

    python validation/ns2/queue_trace.py DIR/NAME/sSEED/queue.tr [--link 0-1] [--drops-until S]
                                         [--between FROM TO]
    python validation/ns2/queue_trace.py DIR/NAME/sSEED/link-0-bottleneck_fwd.pcap
                                         --rate BIT/S --limit N [--drops-until S]
                                         [--between FROM TO]

validate.py --trace-queues writes both. In ns-2's queue trace a line's event is + (the
packet reaches the queue), - (it leaves the queue for the wire), d (the queue refuses it:
right after its +) or r (it reached the far end); the packets waiting are those enqueued
and neither dequeued nor dropped, so the one on the wire is not counted. hscc's queue is
rebuilt from the link's capture (capture_queue.py) with the link's rate and packet limit.
Prints the arrivals (from FROM to TO s with --between), the drops, the most packets an
accepted arrival found waiting and the fewest a refused one found (for ns-2, at one link:
"from-to" node ids, as validate.ns2_link names them); with --drops-until, each drop up to
that time with the packets it found waiting (flow: ns-2's flow id or hscc's source port;
segment or packet number).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Arrival:
    time: float
    kind: str  # ns-2's packet type: tcp, ack, exp (Poisson UDP), ...
    flow: int
    seq: int
    waiting: int  # packets in the queue when it arrived
    dropped: bool


@dataclass
class LinkSummary:
    arrivals: int = 0
    drops: int = 0
    most_waiting_accepted: int = 0
    fewest_waiting_dropped: int | None = None
    drop_list: list[Arrival] = field(default_factory=list)


def arrivals(lines: Iterable[str], link: str) -> Iterator[Arrival]:
    """Every packet offered to `link`'s queue, in trace order, with the packets it found."""
    waiting = 0
    pending: Arrival | None = None  # a + whose d, if any, is the next event of the link
    for line in lines:
        f = line.split()
        if len(f) < 11 or f"{f[2]}-{f[3]}" != link or f[0] not in "+-d":
            continue
        if f[0] == "d" and pending is not None:
            yield Arrival(**{**pending.__dict__, "dropped": True})
            pending = None
            waiting -= 1
            continue
        if pending is not None:
            yield pending
            pending = None
        if f[0] == "+":
            pending = Arrival(float(f[1]), f[4], int(f[7]), int(f[10]), waiting, False)
            waiting += 1
        elif f[0] == "-":
            waiting -= 1
        else:
            raise ValueError(f"{link}: a drop at {f[1]} s right after no arrival: {line.strip()}")
    if pending is not None:
        yield pending


def summarize(
    offered: Iterable[Arrival],
    drops_until: float = -1.0,
    between: tuple[float, float] = (0.0, float("inf")),
) -> LinkSummary:
    """The arrivals from `between[0]` to `between[1]` s counted; the drops up to `drops_until`
    listed."""
    s = LinkSummary()
    for a in offered:
        if not between[0] <= a.time <= between[1]:
            continue
        s.arrivals += 1
        if a.dropped:
            s.drops += 1
            if s.fewest_waiting_dropped is None or a.waiting < s.fewest_waiting_dropped:
                s.fewest_waiting_dropped = a.waiting
            if a.time <= drops_until:
                s.drop_list.append(a)
        else:
            s.most_waiting_accepted = max(s.most_waiting_accepted, a.waiting)
    return s


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("trace", type=Path, help="ns-2's queue trace (queue.tr) or an hscc capture")
    ap.add_argument("--link", default="0-1", help='ns-2: "from-to" node ids (default 0-1)')
    ap.add_argument("--rate", type=float, metavar="BIT/S", help="hscc: the link's rate")
    ap.add_argument("--limit", type=int, metavar="N", help="hscc: the link's packet limit")
    ap.add_argument("--drops-until", type=float, default=-1.0, metavar="SECONDS")
    ap.add_argument(
        "--between",
        type=float,
        nargs=2,
        default=(0.0, float("inf")),
        metavar=("FROM", "TO"),
        help="count the arrivals in this span of seconds only",
    )
    args = ap.parse_args(argv)
    if not args.trace.is_file():
        ap.error(f"{args.trace}: no such file (validate.py --trace-queues writes it)")
    capture = args.trace.suffix == ".pcap"
    if capture and (args.rate is None or args.limit is None or args.rate <= 0 or args.limit < 0):
        ap.error(
            f"{args.trace.name}: an hscc capture needs the link's --rate (bit/s, above 0) and "
            f"--limit (packets, 0 or more); got --rate {args.rate}, --limit {args.limit}"
        )
    try:
        if capture:
            import capture_queue

            data = args.trace.read_bytes()
            offered = capture_queue.arrivals(data, args.rate, args.limit)
            s = summarize(offered, args.drops_until, tuple(args.between))
        else:
            with args.trace.open() as lines:
                s = summarize(arrivals(lines, args.link), args.drops_until, tuple(args.between))
    except ValueError as e:
        ap.error(f"{args.trace}: {e}")
    print(
        f"{args.trace.name if capture else args.link}: {s.arrivals} arrivals, {s.drops} drops; "
        f"an accepted arrival found at most {s.most_waiting_accepted} waiting, "
        + (f"a dropped one at least {s.fewest_waiting_dropped}" if s.drops else "none dropped")
    )
    for a in s.drop_list:
        print(f"  {a.time:.6f} s  {a.kind} flow {a.flow} #{a.seq}: {a.waiting} waiting")
    return 0


if __name__ == "__main__":
    sys.exit(main())
