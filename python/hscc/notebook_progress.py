"""Progress in a notebook, where no terminal shows a bar: one line on standard error,
rewritten in place with a carriage return (Jupyter's output area updates such a line, as a
terminal does). `hscc.run` and `hscc.sweep` use it by themselves inside a notebook kernel
when no `progress` callback is given; pass one (e.g. ``lambda *_: None``) to replace it."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from hscc.sweeps.execute import Counts

_EVERY_S = 0.25  # a line at most this often: a notebook's output is not a terminal


def in_notebook() -> bool:
    """Whether this process is a notebook's kernel: IPython's kernel application is running
    (importing ipykernel, as a test or a tool may, is not enough)."""
    kernelapp = sys.modules.get("ipykernel.kernelapp")
    app = getattr(kernelapp, "IPKernelApp", None)
    return app is not None and bool(app.initialized())


class _Line:
    def __init__(self, stream: TextIO | None, clock: Callable[[], float]) -> None:
        self.stream, self.clock = stream, clock
        self.t0 = clock()
        self.last = -_EVERY_S
        self.closed = False

    def show(self, text: str, done: float, total: float) -> None:
        if self.closed:
            return
        now = self.clock() - self.t0
        finished = total > 0 and done >= total
        if not finished and now - self.last < _EVERY_S:
            return
        self.last = now
        left = f", about {_duration(now * (total - done) / done)} left" if 0 < done < total else ""
        stream = self.stream or sys.stderr
        stream.write(f"\r{text}, {_duration(now)} elapsed{left}" + ("\n" if finished else ""))
        stream.flush()
        self.closed = finished


def run_line(
    stream: TextIO | None = None, clock: Callable[[], float] = time.monotonic
) -> Callable[[float, float], None]:
    """A `progress` for `hscc.run`: "hscc.run: 12.3 / 30 s simulated, 4 s elapsed, about
    6 s left", ended with a newline when the run is done."""
    line = _Line(stream, clock)

    def progress(done: float, duration: float) -> None:
        line.show(f"hscc.run: {done:.1f} / {duration:g} s simulated", done, duration)

    return progress


def sweep_line(
    stream: TextIO | None = None, clock: Callable[[], float] = time.monotonic
) -> Callable[[Counts], None]:
    """A `progress` for `hscc.sweep`: "hscc.sweep: 12 of 50 runs (3 cached, 1 failed),
    20 s elapsed, about 40 s left"."""
    line = _Line(stream, clock)

    def progress(c: Counts) -> None:
        finished = c.done + c.cached + c.failed
        extra = [f"{c.cached} cached"] * bool(c.cached) + [f"{c.failed} failed"] * bool(c.failed)
        note = f" ({', '.join(extra)})" if extra else ""
        line.show(f"hscc.sweep: {finished} of {c.total} runs{note}", finished, c.total)

    return progress


def _duration(s: float) -> str:
    """4 → "4 s", 125 → "2 min 5 s"."""
    s = max(0, round(s))
    return f"{s // 60} min {s % 60} s" if s >= 60 else f"{s} s"
