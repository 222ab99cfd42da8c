"""Per-flow loss-recovery counters: recovery.bpf.c on the kernel's
tcp_cong_state_set tracepoint, loaded and attached from this process (so it
is detached when the run ends, however it ends) for the senders' namespace
only, read per socket cookie at the end of the run.

Why a tracepoint: TCP_INFO has the retransmissions (tcpi_total_retrans) and,
since Linux 6.7, the timeouts (tcpi_total_rto) but no count of fast
recoveries. A sockops program has callbacks for RTOs and retransmissions but
none for the congestion-avoidance state, and needs the senders in a cgroup of
their own. fentry on tcp_enter_recovery works on this kernel, but it is a
static function another build may inline; the tracepoint is where every state
change passes, whatever calls it.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

from hscc.testbed import libbpf

_COUNTS = struct.Struct("=QQQQ")  # struct recovery_counts
FIELDS = ("recoveries", "cwr", "losses", "loss_episodes")
MAX_SOCKETS = 1024  # recovery.bpf.c's map


class Counter:
    """The attached counter; `counts()` per socket cookie, `close()` detaches it."""

    def __init__(self, program: Path, netns: str) -> None:
        self._obj = libbpf.Object(program)
        try:
            self._obj.load()
            inode = os.stat(f"/run/netns/{netns}").st_ino  # a namespace's inode is its ns.inum
            libbpf.update(self._obj.map_fd("netns_inode"), bytes(4), struct.pack("=Q", inode))
            self._obj.attach("on_ca_state")
        except Exception:
            self._obj.close()
            raise

    def counts(self) -> dict[int, dict[str, int]]:
        rows = libbpf.items(self._obj.map_fd("counts"), 8, _COUNTS.size, MAX_SOCKETS)
        return {
            struct.unpack("=Q", k)[0]: dict(zip(FIELDS, _COUNTS.unpack(v), strict=True))
            for k, v in rows
        }

    def recursion_misses(self) -> int | None:
        """How many state changes the program missed: the kernel skips a tracing program
        that fires again on a CPU where it is already running (a timer's softirq that
        interrupts it), and counts each skip (`recursion_misses` in the program's fdinfo,
        Linux 5.12 on). None where the kernel does not say."""
        fd = self._obj.program_fd("on_ca_state")
        for line in Path(f"/proc/self/fdinfo/{fd}").read_text().splitlines():
            key, _, value = line.partition(":")
            if key == "recursion_misses":
                return int(value)
        return None

    def close(self) -> None:
        self._obj.close()
