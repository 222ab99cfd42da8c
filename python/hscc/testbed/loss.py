"""Random loss at the bottleneck, drawn from the scenario's seed.

The classifier (loss.bpf.c) sits on the router's ingress from the senders and
drops packet n (counting the IPv4 packets it sees, SYNs excepted) when the
upper 32 bits of draw(seed, n) are below probability × 2^32; `draw` below is
the same function in Python. So one seed drops the same packet indices in
every run, and another seed other ones; which flow's packet carries index n
still depends on the kernel's timing, so two runs' flows differ all the same.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import Any

from hscc.kernel.netns import sh
from hscc.kernel.programs import KernelError
from hscc.testbed import libbpf

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
DROP_LOG_LEN = 4096  # loss.bpf.c
REPORTED_DROPS = 1000  # dropped indices a manifest lists
_CONFIG = struct.Struct("=QQQ")  # struct loss_config: seed, threshold, armed
_STATE = struct.Struct("=QQ")  # struct loss_state: packets, drops
_ZERO = bytes(4)


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def threshold(probability: float) -> int:
    """A packet drops when its draw's upper 32 bits are below this (2^32: every packet)."""
    return min(1 << 32, round(probability * (1 << 32)))


def draw(seed: int, n: int) -> int:
    """Packet n's draw: the n-th output of SplitMix64 started from SplitMix64(seed)."""
    key = _mix((seed + GOLDEN) & MASK)
    return _mix((key + (n + 1) * GOLDEN) & MASK)


def dropped(seed: int, probability: float, packets: int) -> list[int]:
    """The indices among the first `packets` that the classifier drops for `seed` and `probability`."""
    t = threshold(probability)
    return [n for n in range(packets) if draw(seed, n) >> 32 < t]


class Maps:
    """The classifier's maps, by descriptor: configure it, read what it did."""

    def __init__(self, fds: dict[str, int]) -> None:
        self.fds = fds

    def configure(self, seed: int, probability: float) -> None:
        """Arm it: from now on it draws packet indices for `seed` at `probability`."""
        libbpf.update(
            self.fds["loss_config"], _ZERO, _CONFIG.pack(seed & MASK, threshold(probability), 1)
        )

    def _entry(self, name: str, key: bytes, size: int) -> bytes:
        """An entry of one of the program's array maps, which has every key below its size."""
        value = libbpf.lookup(self.fds[name], key, size)
        if value is None:
            raise KernelError(f"the loss program's {name} map has no entry {key.hex()}")
        return value

    def report(self, seed: int, probability: float) -> dict[str, Any]:
        """Seed, rate, the packets it drew for, its drops, the realised loss and the first dropped indices."""
        packets, drops = _STATE.unpack(self._entry("loss_state", _ZERO, _STATE.size))
        logged = min(drops, DROP_LOG_LEN)
        indices = sorted(
            struct.unpack("=Q", self._entry("drop_log", struct.pack("=I", i), 8))[0]
            for i in range(logged)
        )
        return {
            "seed": seed,
            "probability": probability,
            "threshold": threshold(probability),
            "packets": packets,
            "drops": drops,
            "realised": drops / packets if packets else 0.0,
            "first_drops": indices[:REPORTED_DROPS],
            "draw": "SplitMix64(SplitMix64(seed), packet index), hscc.testbed.loss.draw",
        }

    def close(self) -> None:
        for fd in self.fds.values():
            os.close(fd)
        self.fds = {}


def attach(router: str, program: Path, seed: int, probability: float) -> Maps:
    """Attach the classifier to the router's ingress from the senders and arm it for `seed` and `probability`."""
    sh("tc", "-n", router, "qdisc", "add", "dev", "left", "clsact")
    sh(
        "tc",
        "-n",
        router,
        "filter",
        "add",
        "dev",
        "left",
        "ingress",
        "bpf",
        "direct-action",
        "obj",
        str(program),
        "sec",
        "classifier",
    )
    maps = Maps(libbpf.tc_maps(router, "left"))
    try:
        maps.configure(seed, probability)
    except Exception:
        maps.close()
        raise
    return maps
