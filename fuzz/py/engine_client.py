"""Drives engine_worker.py: one request at a time, a wall-time bound on each,
and a fresh worker after a hang or a crash."""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

WORKER = Path(__file__).with_name("engine_worker.py")
STDERR_KEEP = 1 << 20  # bytes of worker stderr kept before it is truncated
START_SECONDS = 60.0  # for the worker to start and import hscc, on a loaded machine
_EOF = b"<EOF>"  # a sentinel: the worker closed stdout (it died)
_PANIC_AT = re.compile(r"panicked at ([^\s:]+:\d+)(?::\d+)?:?\s*\n?(.*)")


class EngineClient:
    def __init__(self, work: Path, memory_mib: int, cap_s: float, events: int, timeout_s: float):
        self.work, self.memory_mib, self.cap_s, self.events, self.timeout_s = (
            work,
            memory_mib,
            cap_s,
            events,
            timeout_s,
        )
        self.stderr_path = work / f"engine-worker-{os.getpid()}.stderr"
        self.proc: subprocess.Popen | None = None
        self.restarts = 0

    def start(self) -> None:
        self.stderr_path.write_bytes(b"")
        self._stderr = open(self.stderr_path, "ab")  # append mode: truncating it later is safe
        self.proc = subprocess.Popen(
            [sys.executable, str(WORKER), str(self.memory_mib), repr(self.cap_s), str(self.events)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            bufsize=0,
            env={**os.environ, "RUST_BACKTRACE": "0"},
        )
        self._buf = b""
        if self._read_line(time.monotonic() + START_SECONDS) in (None, _EOF):
            raise RuntimeError(f"the engine worker did not start; see {self.stderr_path}")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self._stderr.close()
            self.proc = None

    def run(self, engine_json: str) -> dict:
        """The worker's answer, or {"outcome": "hang"} / {"outcome": "crash" | "memory"} when it did not answer."""
        if self.proc is None:
            self.start()
        if self.stderr_path.stat().st_size > STDERR_KEEP:
            os.truncate(self.stderr_path, 0)
        before = self.stderr_path.stat().st_size
        try:
            self.proc.stdin.write(engine_json.encode() + b"\n")
        except BrokenPipeError:
            pass  # died already: reported below as a crash
        t0 = time.monotonic()
        line = self._read_line(t0 + self.timeout_s)
        elapsed = time.monotonic() - t0
        if line is None or line is _EOF:
            self.stop()
            self.restarts += 1
            tail = self.stderr_path.read_bytes()[before:].decode("utf-8", "replace")
            self.start()  # now, so that the next input's time and bound do not include the start
            if line is None:
                return {
                    "outcome": "hang",
                    "detail": f"no answer within {self.timeout_s:g} s of wall time",
                    "seconds": elapsed,
                }
            return _death(tail, elapsed)
        reply = json.loads(line)
        if reply["outcome"] == "panic":
            where = panic_location(
                self.stderr_path.read_bytes()[before:].decode("utf-8", "replace")
            )
            reply["location"] = where
        reply.setdefault("seconds", elapsed)
        return reply

    def _read_line(self, deadline: float) -> bytes | None:
        """One line from the worker; None at the deadline, _EOF when it exited."""
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return _EOF
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return line


def panic_location(stderr: str) -> str | None:
    """ "crates/hscc-sim/src/sim/net.rs:123: message" from a Rust panic report."""
    m = None
    for m in _PANIC_AT.finditer(stderr):  # noqa: B007 (keeps the last panic in this stretch)
        pass
    return f"{m.group(1)}: {m.group(2).strip()[:200]}" if m else None


def _death(stderr: str, elapsed: float) -> dict:
    """A worker that exited without answering: out of memory (Rust aborts on a failed allocation) or a crash."""
    if "memory allocation of" in stderr or "MemoryError" in stderr or "capacity overflow" in stderr:
        line = next(
            (
                ln
                for ln in stderr.splitlines()
                if "memory allocation" in ln or "capacity overflow" in ln
            ),
            "out of memory",
        )
        return {"outcome": "memory", "detail": line.strip()[:300], "seconds": elapsed}
    where = panic_location(stderr)
    last = stderr.strip().splitlines()[-1][:300] if stderr.strip() else "no output"
    return {"outcome": "crash", "detail": where or last, "seconds": elapsed}
