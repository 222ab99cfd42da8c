"""One TCP flow over 127.0.0.1 with a chosen congestion control, measured.

Run inside the smoke test's network namespace (`ip netns exec`), by path,
with the standard library only:  python flow.py CC SECONDS
Prints one JSON object: the congestion control the socket really got, the
bytes the receiver got in each quarter second, and the sender's TCP_INFO
(cwnd, ssthresh, retransmissions) at the end.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the same module, as the type checker finds it
    from hscc.kernel.tcpinfo import tcp_info
else:
    from tcpinfo import tcp_info  # beside this file (run by path, so its directory is on sys.path)

INTERVAL_S = 0.25
KEPT = ("ca_state", "snd_ssthresh", "snd_cwnd", "total_retrans")


def run(cc: str, seconds: float) -> dict[str, object]:
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    received = [0]

    def serve() -> None:
        conn, _ = srv.accept()
        conn.settimeout(seconds + 10)
        with conn:
            while True:
                b = conn.recv(1 << 16)
                if not b:
                    return
                received[0] += len(b)

    server = threading.Thread(target=serve, daemon=True)
    server.start()
    cl = socket.socket()
    cl.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
    cl.connect(srv.getsockname())
    chosen = cl.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).rstrip(b"\0").decode()
    cl.settimeout(INTERVAL_S / 5)
    buf = bytes(1 << 16)
    intervals: list[int] = []
    start = time.monotonic()
    mark, last = start + INTERVAL_S, 0
    # Bounded by time: the loop ends after `seconds` whatever the flow does.
    while time.monotonic() < start + seconds:
        try:
            cl.send(buf)
        except (TimeoutError, BlockingIOError):
            pass
        if time.monotonic() >= mark:
            intervals.append(received[0] - last)
            last = received[0]
            mark += INTERVAL_S
    info = {k: v for k, v in tcp_info(cl).items() if k in KEPT}
    cl.close()
    server.join(timeout=10)
    srv.close()
    return {
        "cc": chosen,
        "bytes": received[0],
        "intervals": intervals,
        "interval_s": INTERVAL_S,
        "tcp_info": info,
    }


if __name__ == "__main__":
    print(json.dumps(run(sys.argv[1], float(sys.argv[2]))))
