"""Findings of a campaign, one directory each, and its running totals.

A finding is keyed by a signature (kind and where it happened); its directory
keeps the smallest input seen with that signature (input.toml), so the
reproducer shrinks as the campaign goes on, and info.json says what happened.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections import Counter
from pathlib import Path

KEEP_SLOW = 10  # slowest accepted inputs kept (not findings: material for the resource estimate)


class Findings:
    def __init__(self, out: Path):
        self.dir = out / "findings"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.stats_path = out / f"stats-{os.getpid()}.json"
        self.t0 = time.monotonic()
        self.outcomes: Counter[str] = Counter()
        self.seconds: Counter[str] = (
            Counter()
        )  # wall time per outcome: where the campaign's time goes
        self.hits: Counter[str] = Counter()
        self.slowest: tuple[float, str] = (0.0, "")
        self._sizes: dict[str, int] = {}
        self._slow: list[tuple[float, Path]] = []

    @property
    def inputs(self) -> int:
        return sum(self.outcomes.values())

    def count(self, outcome: str, seconds: float = 0.0, what: str = "") -> None:
        self.outcomes[outcome] += 1
        self.seconds[outcome] += seconds
        if seconds > self.slowest[0]:
            self.slowest = (seconds, what)

    def note_slow(self, seconds: float, data: bytes) -> None:
        """Keep the input among the KEEP_SLOW slowest seen."""
        if len(self._slow) >= KEEP_SLOW and seconds <= self._slow[0][0]:
            return
        d = self.dir.parent / "slow"
        d.mkdir(exist_ok=True)
        path = d / f"{seconds:09.3f}s-{hashlib.sha1(data).hexdigest()[:8]}.toml"
        path.write_bytes(data)
        self._slow = sorted([*self._slow, (seconds, path)])
        while len(self._slow) > KEEP_SLOW:
            self._slow.pop(0)[1].unlink(missing_ok=True)

    def record(self, kind: str, signature: str, data: bytes, info: dict) -> None:
        """Keep the input if it is the first or the smallest with this signature."""
        self.hits[signature] += 1
        slug = f"{kind}-{_slug(signature)}-{hashlib.sha1(signature.encode()).hexdigest()[:8]}"
        d = self.dir / slug
        size = self._sizes.get(signature)
        if size is None and (d / "input.toml").exists():
            size = (d / "input.toml").stat().st_size  # kept by an earlier run
        if size is None or len(data) < size:
            d.mkdir(exist_ok=True)
            (d / "input.toml").write_bytes(data)
            self._sizes[signature] = len(data)
        else:
            self._sizes[signature] = size
        (d / "info.json").write_text(
            json.dumps(
                {
                    "kind": kind,
                    "signature": signature,
                    "hits_this_run": self.hits[signature],
                    **info,
                },
                indent=1,
                default=str,
            )
        )

    def write_stats(self, extra: dict | None = None) -> dict:
        seconds = time.monotonic() - self.t0
        stats = {
            "inputs": self.inputs,
            "seconds": round(seconds, 1),
            "inputs_per_second": round(self.inputs / seconds, 1) if seconds > 0 else None,
            "outcomes": dict(self.outcomes),
            "seconds_by_outcome": {k: round(v, 1) for k, v in self.seconds.items()},
            "distinct_findings": len(self.hits),
            "findings": dict(self.hits),
            "slowest_input_seconds": round(self.slowest[0], 3),
            "slowest_input_stage": self.slowest[1],
            **(extra or {}),
        }
        tmp = self.stats_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(stats, indent=1))
        tmp.replace(self.stats_path)
        return stats


def _slug(signature: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", signature.split(":", 1)[-1]).strip("-")[:60]
