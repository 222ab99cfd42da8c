"""The testbed's TCP endpoints: every sender in one process, every receiver in another.

Run inside the sender's or receiver's namespace (`ip netns exec`), by path,
with the standard library only:  python endpoint.py send|receive CONFIG_JSON
Both sample on the same grid, t0 + k·interval on CLOCK_MONOTONIC (one clock
for every namespace), and print one JSON object when the run ends at
t0 + end:

- the sender: per flow, the congestion control its socket really got, its
  cookie (for the recovery counter, recovery.bpf.c) and its TCP_INFO at every
  grid point (cwnd, sRTT, delivery rate, retransmissions...);
- the receiver: per flow, the payload bytes received by every grid point and
  by the flow's own end, when a sized flow completed and when the last byte
  arrived, and its socket's segment counts (data in, ACKs out).

A receiver's socket has a large SO_RCVLOWAT (network.receive_lowat says why),
so that the kernel ACKs every second segment as it arrives, however late this
program reads; the program still reads every READ_EVERY_S, and lowers the lowat
to what a sized flow still lacks, so its counts lag by no more.

A flow's socket selects its algorithm (TCP_CONGESTION) before connecting; its
first four bytes name the flow to the receiver. TCP_NOTSENT_LOWAT keeps the
unsent backlog small, so that a flow's stop time stops it within
milliseconds rather than after its whole send buffer has drained.
"""

from __future__ import annotations

import json
import os
import select
import socket
import struct
import sys
import threading
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the same module, as the type checker finds it
    from hscc.kernel.tcpinfo import tcp_info
else:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kernel"))
    from tcpinfo import tcp_info  # hscc/kernel/tcpinfo.py, standard library only

HEADER = struct.Struct("!I")
CHUNK = 1 << 18
SO_COOKIE = 57  # include/uapi/asm-generic/socket.h: the socket's cookie, as BPF programs see it
POLL_S = 0.02  # how often a blocked sender looks at the clock
READ_EVERY_S = 0.005  # a receiver reads at least this often, whatever its SO_RCVLOWAT
LINGER_S = 5.0  # how long the receiver waits at the end for the senders to close
SAMPLED = (
    "snd_cwnd",
    "rtt_us",
    "delivery_rate",
    "pacing_rate",
    "total_retrans",
    "bytes_acked",
    "snd_ssthresh",
    "ca_state",
    "notsent_bytes",
    "app_limited",
)


def sleep_until(t: float) -> None:
    while True:
        left = t - time.monotonic()
        if left <= 0:
            return
        time.sleep(min(left, 0.5))


def grid(cfg: dict[str, Any]) -> list[float]:
    n = int(round(cfg["end"] / cfg["interval"]))
    return [cfg["t0"] + k * cfg["interval"] for k in range(1, n + 1)]


def send(cfg: dict[str, Any]) -> dict[str, Any]:
    t0, end = cfg["t0"], cfg["t0"] + cfg["end"]
    socks: dict[int, socket.socket] = {}
    out = {
        f["flow"]: {"flow": f["flow"], "cc": None, "error": None, "samples": [], "final": None}
        for f in cfg["flows"]
    }

    def flow(f: dict[str, Any]) -> None:
        rec = out[f["flow"]]
        try:
            sleep_until(t0 + f["start"])
            s = socket.socket()
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, f["cc"].encode())
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NOTSENT_LOWAT, cfg["notsent_lowat"])
            s.bind((f["src"], 0))
            s.settimeout(5)
            s.connect((f["dst"], cfg["port"]))
            rec["cc"] = (
                s.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).rstrip(b"\0").decode()
            )
            rec["connected_s"] = time.monotonic() - t0
            rec["cookie"] = struct.unpack("=Q", s.getsockopt(socket.SOL_SOCKET, SO_COOKIE, 8))[0]
            s.sendall(HEADER.pack(f["flow"]))
            socks[f["flow"]] = s
            s.settimeout(POLL_S)
            buf = memoryview(bytearray(CHUNK))
            left = f["size"] if f["size"] is not None else float("inf")
            stop = t0 + f["stop"]
            # Bounded by time: ends at the flow's stop (or after its size) whatever the network does.
            while left > 0 and time.monotonic() < stop:
                try:
                    left -= s.send(buf[: int(min(CHUNK, left))])
                except (TimeoutError, BlockingIOError):
                    pass
        except OSError as e:
            if (
                time.monotonic() < t0 + f["stop"]
            ):  # at the stop, a receiver that has finished may reset it
                rec["error"] = f"flow {f['flow']} ({f['src']} -> {f['dst']}, {f['cc']}): {e}"

    threads = [threading.Thread(target=flow, args=(f,), daemon=True) for f in cfg["flows"]]
    for t in threads:
        t.start()
    for k, at in enumerate(grid(cfg), start=1):
        sleep_until(at)
        for i, s in list(socks.items()):
            try:
                info = tcp_info(s)
            except OSError:
                continue
            out[i]["samples"].append([k] + [info[name] for name in SAMPLED])
    sleep_until(end)
    for t in threads:  # each stops sending at its stop time, within POLL_S
        t.join(timeout=5)
    for i, s in list(socks.items()):
        try:
            out[i]["final"] = tcp_info(s)
            s.setsockopt(
                socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
            )  # reset: nothing lingers
            s.close()
        except OSError:
            pass
    return {"sampled": SAMPLED, "flows": list(out.values())}


def receive(cfg: dict[str, Any]) -> dict[str, Any]:
    t0 = cfg["t0"]
    flows = {f["flow"]: f for f in cfg["flows"]}
    got = {i: 0 for i in flows}
    completed: dict[int, float] = {}
    last: dict[int, float] = {}  # when each flow's last byte arrived
    acks: dict[int, dict[str, Any]] = {}  # segment counts, and the window's state when opened
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("0.0.0.0", cfg["port"]))
    srv.listen(len(flows) + 4)

    def serve(conn: socket.socket) -> None:
        with conn:
            opened = window_state(conn)
            head = b""
            while len(head) < HEADER.size:
                b = conn.recv(HEADER.size - len(head))
                if not b:
                    return
                head += b
            (i,) = HEADER.unpack(head)
            if i not in got:
                return
            size = flows[i]["size"]
            buf = memoryview(bytearray(1 << 20))
            lowat = set_lowat(conn, cfg["lowat"], size)
            readable = select.poll()
            readable.register(conn, select.POLLIN)
            try:
                while True:  # until the sender closes or resets
                    readable.poll(
                        READ_EVERY_S * 1000
                    )  # lowat bytes, the end, or time to read anyway
                    try:
                        n = conn.recv_into(buf, 0, socket.MSG_DONTWAIT)
                    except BlockingIOError:
                        continue
                    except OSError:
                        return
                    if n == 0:
                        return
                    got[i] += n
                    last[i] = time.monotonic() - t0
                    if size is not None and got[i] >= size and i not in completed:
                        completed[i] = time.monotonic() - t0
                    if size is not None and 0 < size - got[i] < lowat:
                        lowat = set_lowat(conn, lowat, size - got[i])
            finally:
                acks[i] = {**segment_counts(conn), "opened": opened}

    serving: list[threading.Thread] = []

    def accept() -> None:
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            t = threading.Thread(target=serve, args=(conn,), daemon=True)
            serving.append(t)
            t.start()

    threading.Thread(target=accept, daemon=True).start()
    print("listening", file=sys.stderr, flush=True)
    samples: dict[int, list[int]] = {i: [] for i in flows}
    at_end: dict[int, int] = {}
    ends = sorted((t0 + f["end"], i) for i, f in flows.items())
    for at in grid(cfg):
        while ends and ends[0][0] <= at:
            te, i = ends.pop(0)
            sleep_until(te)
            at_end[i] = got[i]
        sleep_until(at)
        for i in flows:
            samples[i].append(got[i])
    for te, i in ends:
        sleep_until(te)
        at_end[i] = got[i]
    # Read on until the senders reset their connections, so that none is reset from here while still sending.
    for t in list(serving):
        t.join(timeout=max(0.0, t0 + cfg["end"] + LINGER_S - time.monotonic()))
    return {
        "samples": samples,
        "at_end": at_end,
        "completed": completed,
        "last_byte": last,
        "total": got,
        "acks": acks,
    }


def set_lowat(conn: socket.socket, lowat: int, lacking: int | None) -> int:
    """SO_RCVLOWAT: at most what a sized flow still lacks, so that its last byte wakes the reader."""
    lowat = max(1, min(lowat, lacking if lacking is not None else lowat))
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVLOWAT, lowat)
    return lowat


def segment_counts(conn: socket.socket) -> dict[str, int | None]:
    """The receiving socket's data segments in and segments (ACKs) out, and its window's state."""
    try:
        info = tcp_info(conn)
        clamp = conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_WINDOW_CLAMP)
    except OSError:
        return {}
    return {"segs_out": info["segs_out"], "window_clamp": clamp, **window_state(conn, info)}


def window_state(
    conn: socket.socket, info: dict[str, int | None] | None = None
) -> dict[str, int | None]:
    """How far the receive window's threshold has opened (rcv_ssthresh, bytes) after how many data segments."""
    try:
        info = info or tcp_info(conn)
    except OSError:
        return {}
    return {
        "rcv_ssthresh": info["rcv_ssthresh"],
        "advmss": info["advmss"],
        "data_segs_in": info["data_segs_in"],
    }


if __name__ == "__main__":
    config = json.loads(sys.argv[2])
    result = send(config) if sys.argv[1] == "send" else receive(config)
    print(json.dumps(result), flush=True)
    os._exit(0)  # the connection threads are daemons; do not wait for them
