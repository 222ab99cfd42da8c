"""struct tcp_info (include/uapi/linux/tcp.h) as a dict: what a socket's
TCP_INFO says about its congestion control. Standard library only: the
scripts that run inside namespaces by path import it."""

from __future__ import annotations

import socket
import struct

# (name, offset, format) of the fields hscc reads; the layout is fixed ABI.
FIELDS = (
    ("ca_state", 1, "B"),
    ("rto_us", 8, "I"),
    ("unacked", 24, "I"),
    ("lost", 32, "I"),
    ("retrans", 36, "I"),
    ("rtt_us", 68, "I"),
    ("rttvar_us", 72, "I"),
    ("snd_ssthresh", 76, "I"),
    ("snd_cwnd", 80, "I"),
    ("total_retrans", 100, "I"),
    ("pacing_rate", 104, "Q"),
    ("bytes_acked", 120, "Q"),
    ("segs_out", 136, "I"),
    ("notsent_bytes", 144, "I"),
    ("min_rtt_us", 148, "I"),
    ("data_segs_out", 156, "I"),
    ("delivery_rate", 160, "Q"),
    ("busy_time_us", 168, "Q"),
    ("rwnd_limited_us", 176, "Q"),
    ("sndbuf_limited_us", 184, "Q"),
    ("delivered", 192, "I"),
    ("bytes_sent", 200, "Q"),
    ("bytes_retrans", 208, "Q"),
    ("dsack_dups", 216, "I"),
    ("reord_seen", 220, "I"),
    ("data_segs_in", 152, "I"),
    ("rcv_ssthresh", 64, "I"),
    ("advmss", 84, "I"),
)
# Fields of newer kernels: None where the kernel's struct is shorter (they would read 0, which is a count).
NEWER = (
    ("total_rto", 240, "H"),
    ("total_rto_recoveries", 242, "H"),
    ("total_rto_time_ms", 244, "I"),
)  # Linux 6.7+
LENGTH = 248  # up to tcpi_total_rto_time


def tcp_info(sock: socket.socket) -> dict[str, int | None]:
    """The socket's TCP_INFO; of FIELDS, those an older kernel does not fill are 0; of NEWER, None.
    total_rto counts every retransmission timeout (SYN's included), total_rto_recoveries the
    timeouts that started a loss episode (include/uapi/linux/tcp.h)."""
    got = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, LENGTH)
    raw = got.ljust(LENGTH, b"\0")
    info = {name: struct.unpack_from(fmt, raw, off)[0] for name, off, fmt in FIELDS}
    info.update(
        {
            name: struct.unpack_from(fmt, raw, off)[0]
            if len(got) >= off + struct.calcsize(fmt)
            else None
            for name, off, fmt in NEWER
        }
    )
    info["app_limited"] = (
        raw[7] & 1
    )  # tcpi_delivery_rate_app_limited: the last rate sample was app-limited
    return info
