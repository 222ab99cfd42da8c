"""A congestion control written in Python, for trying an idea before writing it as a
program file (docs/programs.md).

    class MyReno(hscc.Algorithm):
        name = "myreno"                  # what a scenario's `algorithm` names
        params = {"beta": 0.5}           # a flow's params set them: params.beta = 0.7

        def ssthresh(self, tp):
            return max(int(tp.snd_cwnd * self.beta), 2)

    hscc.run({... "flows": [{"algorithm": "myreno", ...}]})

Defining the class registers it in this process under `name`. The hooks are Linux's
`tcp_congestion_ops`, as a program file has them; each receives `tp`, the sender's view
(`snd_cwnd`, `snd_ssthresh`, `srtt_us`, `min_rtt_us`, `now_us`, ... and the kfuncs
`tp.slow_start(acked)` and `tp.cong_avoid_ai(w, acked)`), and writes the window back through
it. The defaults below are Reno's. An exception in a hook stops the run with the class, the
hook and the exception. A sweep's workers register the class by importing its module, so for
a sweep it must be defined in a module (not in a notebook or a script's __main__).
"""

from __future__ import annotations

from typing import Any, ClassVar

from hscc import _core

# Every Algorithm subclass of this process, by name.
_REGISTERED: dict[str, type[Algorithm]] = {}


def modules(names: set[str] | None = None) -> tuple[str, ...]:
    """The modules that define this process's Python algorithms (those of `names`, if
    given), importable elsewhere (a sweep's workers, an isolated run import them): __main__
    is not."""
    chosen = [c for n, c in _REGISTERED.items() if names is None or n in names]
    return tuple(sorted({c.__module__ for c in chosen} - {"__main__"}))


def any_in_main() -> bool:
    """Whether a Python algorithm of this process is defined in __main__ (a sweep's workers
    do not have it)."""
    return any(c.__module__ == "__main__" for c in _REGISTERED.values())


def named_in(scenario: dict[str, Any]) -> list[tuple[str, str]]:
    """Every algorithm a checked scenario's flows and web sources name, with its field:
    ("flows[0].algorithm", "reno"), in order."""
    return [
        (f"{key}[{i}].algorithm", entry["algorithm"])
        for key in ("flows", "web")
        for i, entry in enumerate(scenario.get(key) or [])
        if isinstance(entry, dict) and isinstance(entry.get("algorithm"), str)
    ]


def in_main(names: set[str]) -> dict[str, str]:
    """Of the algorithms `names`, those whose Python class is defined in __main__: name ->
    the class's name."""
    return {
        n: c.__qualname__
        for n, c in _REGISTERED.items()
        if n in names and c.__module__ == "__main__"
    }


class Algorithm:
    """Base class of a Python congestion control: Reno, until a subclass overrides hooks."""

    name: ClassVar[str] = ""
    params: ClassVar[dict[str, float]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not cls.name:
            raise TypeError(f"{cls.__qualname__}: set `name`, the algorithm's name in scenarios")
        origin = f"python:{cls.__module__}.{cls.__qualname__}"
        _core.register_algorithm(
            cls.name, origin, cls, [(k, float(v)) for k, v in cls.params.items()]
        )
        _REGISTERED[cls.name] = cls

    def __init__(self, **params: float) -> None:
        for k, v in {**type(self).params, **params}.items():
            setattr(self, k, v)

    def init(self, tp: _core.Sock) -> None:
        """A connection starts."""

    def ssthresh(self, tp: _core.Sock) -> int:
        """A loss: the slow-start threshold to reduce to (Reno: half the window)."""
        return max(tp.snd_cwnd >> 1, 2)

    def cong_avoid(self, tp: _core.Sock, ack: int, acked: int) -> None:
        """An ACK acknowledged `acked` segments: grow the window (Reno)."""
        if not tp.is_cwnd_limited():
            return
        if tp.in_slow_start():
            acked = tp.slow_start(acked)
            if not acked:
                return
        tp.cong_avoid_ai(tp.snd_cwnd, acked)

    def set_state(self, tp: _core.Sock, state: int) -> None:
        """The congestion state changed (0 open, 1 disorder, 2 CWR, 3 recovery, 4 loss)."""

    def cwnd_event(self, tp: _core.Sock, event: int) -> None:
        """An event (0 TX start, 1 restart after idle, 2 CWR complete, 3 loss, 4/5 ECN)."""

    def in_ack_event(self, tp: _core.Sock, flags: int) -> None:
        """Every ACK, before the window changes."""

    def pkts_acked(self, tp: _core.Sock, pkts_acked: int, rtt_us: int) -> None:
        """An ACK's sample: segments it acknowledged and an RTT (-1: none)."""

    def undo_cwnd(self, tp: _core.Sock) -> int:
        """A loss turned out spurious: the window to return to (Reno: the larger)."""
        return max(tp.snd_cwnd, tp.prior_cwnd)
