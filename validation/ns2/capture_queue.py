"""hscc's DropTail queue at a link, rebuilt from the link's capture (validate.py --trace-queues).

A link capture holds every packet offered to the link at the moment it was offered, dropped
ones too (docs/traces.md). Serving them first in, first out at the link's rate, with the
packet on the wire not counted and a packet refused when `limit` wait, as hscc's DropTail
does, gives the packets each one found waiting; the refusals it finds are the link's drops
in drops.parquet when the rate and limit are the link's.
"""

from __future__ import annotations

import struct
from collections import deque
from collections.abc import Iterator

from queue_trace import Arrival

# Bytes on the wire of a TCP packet beyond its payload (ns2_tcl.HEADER: hscc's mss + 52).
TCP_HEADER = 52
_SYN = 0x02
LINKTYPE_RAW = 101


def packets(pcap: bytes) -> Iterator[tuple[float, str, int, int, int]]:
    """(time s, kind "tcp" or "udp", source port, segment or packet number, bytes on the
    wire) of each packet of an hscc capture (raw IPv4), the handshake left out: hscc writes
    a SYN and SYN-ACK that take no simulated time."""
    magic, linktype = struct.unpack("<I16xI", pcap[:24]) if len(pcap) >= 24 else (0, 0)
    if magic not in (0xA1B2C3D4, 0xA1B23C4D) or linktype != LINKTYPE_RAW:
        raise ValueError(
            f"not an hscc capture: magic {magic:#x}, link type {linktype} "
            f"(allowed: a little-endian pcap of raw IPv4, link type {LINKTYPE_RAW})"
        )
    tick = 1e-9 if magic == 0xA1B23C4D else 1e-6
    first_seq: dict[int, int] = {}
    udp = 0
    off = 24
    while off + 16 <= len(pcap):
        sec, frac, incl, orig = struct.unpack("<IIII", pcap[off : off + 16])
        p = pcap[off + 16 : off + 16 + incl]
        off += 16 + incl
        t = sec + frac * tick
        ihl = (p[0] & 0x0F) * 4
        if p[9] == 17:
            yield t, "udp", 0, udp, orig
            udp += 1
            continue
        sport, _, seq = struct.unpack(">HHI", p[ihl : ihl + 8])
        doff, flags = (p[ihl + 12] >> 4) * 4, p[ihl + 13]
        if flags & _SYN:
            continue
        payload = orig - ihl - doff
        if payload and sport not in first_seq:
            first_seq[sport] = seq
        n = (seq - first_seq.get(sport, seq)) % 2**32 // payload if payload else 0
        yield t, "tcp", sport, n, payload + TCP_HEADER


def arrivals(pcap: bytes, rate_bps: float, limit: int) -> Iterator[Arrival]:
    """Every packet of the capture with the packets it found waiting (flow: the source port,
    0 for UDP; seq: the segment number from the first captured, the UDP packet's index)."""
    waiting: deque[float] = deque()  # each waiting packet's service time
    free_at = 0.0  # when the packet on the wire has left
    for t, kind, port, seq, size in packets(pcap):
        while waiting and free_at <= t:
            free_at += waiting.popleft()
        dropped = len(waiting) >= limit
        yield Arrival(t, kind, port, seq, len(waiting), dropped)
        if dropped:
            continue
        service = size * 8 / rate_bps
        if free_at <= t:
            free_at = t + service
        else:
            waiting.append(service)
