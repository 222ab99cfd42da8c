"""How long the kernel's senders take to answer an ACK: the testbed's send-time jitter.

    sudo .venv/bin/python validation/testbed/turnaround.py --out runs/turnaround [--flows 4] [--seconds 20] [--capture 5]

Runs N Reno flows (100 Mbit/s, 40 ms, 1 BDP buffer) on the testbed and, from
--skip seconds in, captures --capture seconds of the senders' interface (eth0
in the senders' namespace, headers only, dumpcap). Per flow, the turnaround of
an ACK is the time from its arrival to the first data segment the flow sends
after it, counted when that segment leaves before the flow's next ACK (so the
ACK released it). The simulator's counterpart is `host_jitter`: every segment
leaves its host after a delay uniform in [0, 8 µs]. Prints the distribution
(percentiles in µs) per flow and over all flows, and writes it to
OUT/turnaround.json next to the run directory OUT/kernel.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

from hscc import testbed as tb
from hscc.scenario import Scenario
from hscc.testbed.network import Names

PERCENTILES = (10, 50, 90, 99, 99.9)


def capture(
    ns: str, path: Path, skip: float, seconds: float, stop: threading.Event, procs: list
) -> None:
    """Capture the senders' eth0 for `seconds`, `skip` seconds after the namespace appears."""
    deadline = time.monotonic() + 30
    while not stop.is_set() and time.monotonic() < deadline:
        if ns in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout:
            break
        time.sleep(0.1)
    if stop.wait(skip):
        return
    p = subprocess.Popen(
        [
            "ip",
            "netns",
            "exec",
            ns,
            "dumpcap",
            "-q",
            "-i",
            "eth0",
            "-s",
            "96",
            "-a",
            f"duration:{seconds:g}",
            "-w",
            str(path),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    procs.append(p)
    p.wait()


def turnarounds(pcap: Path) -> dict[int, list[float]]:
    """Per sender port, the ACK-to-next-data times (s) of the ACKs that released a segment."""
    out = subprocess.run(
        [
            "tshark",
            "-r",
            str(pcap),
            "-Y",
            "tcp && ip",
            "-T",
            "fields",
            "-e",
            "frame.time_relative",
            "-e",
            "ip.src",
            "-e",
            "tcp.srcport",
            "-e",
            "tcp.dstport",
            "-e",
            "tcp.len",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    last_ack: dict[int, float] = {}
    result: dict[int, list[float]] = {}
    for line in out.splitlines():
        t, src, sport, dport, length = line.split("\t")
        if src.startswith("10.1."):  # from a sender
            port = int(sport)
            if int(length) > 0 and port in last_ack:
                result.setdefault(port, []).append(float(t) - last_ack.pop(port))
        elif int(length) == 0:  # an ACK to a sender
            last_ack[int(dport)] = float(t)
    return result


def percentiles(x: list[float]) -> dict[str, float]:
    x = sorted(x)
    return {f"p{p:g}": x[min(len(x) - 1, int(p / 100 * len(x)))] * 1e6 for p in PERCENTILES} | {
        "n": len(x)
    }


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--flows", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--skip", type=float, default=10.0)
    ap.add_argument("--capture", type=float, default=5.0)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    scenario = Scenario.parse(
        {
            "name": f"reno-{args.flows}-turnaround",
            "duration": f"{args.seconds:g}s",
            "seed": 1,
            "output": {"sample_interval": "100ms", "traces": ["flows", "queues"]},
            "topology": {
                "kind": "dumbbell",
                "bottleneck": {"rate": "100Mbps", "delay": "1ms", "buffer": "1bdp"},
                "pairs": [{"rate": "10Gbps", "rtt": "40ms"}],
            },
            "flows": [{"pair": 0, "algorithm": "reno", "count": args.flows}],
        }
    )
    pcap = args.out / "senders.pcapng"
    stop, procs = threading.Event(), []
    t = threading.Thread(
        target=capture,
        args=(Names.for_this_process().senders, pcap, args.skip, args.capture, stop, procs),
    )
    t.start()
    try:
        tb.run(scenario, args.out / "kernel", overwrite=True)
    finally:
        stop.set()
        t.join(timeout=args.capture + 5)
        for p in procs:  # the capture this script started, by its process
            if p.poll() is None:
                p.terminate()
                p.wait(timeout=5)
    per_flow = turnarounds(pcap)
    report = {
        "flows": {str(port): percentiles(x) for port, x in sorted(per_flow.items())},
        "all": percentiles([v for x in per_flow.values() for v in x]),
    }
    (args.out / "turnaround.json").write_text(json.dumps(report, indent=1))
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
