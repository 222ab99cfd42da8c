"""One table of metric names → what they are called and in which unit they are shown,
used by run plots, sweep plots and the command line's tables.

A metric is named as in the result tables and sweeps (``goodput_bps``,
``flows[1].goodput_bps``, ``bottleneck:fwd.mean_qdelay_s``): the part after the
last dot is looked up here, the part before it says whose it is.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from hscc.units import format_rate, format_seconds, significant

# kind: rate (bit/s), time (s), fraction (0..1, shown in %), index (0..1, shown as is),
# a count of something: segments, packets, bytes, count (shown as is, the thing in the unit),
# or a name (an algorithm, a buffer as written: not a number).
_TABLE: dict[str, tuple[str, str]] = {
    "goodput_bps": ("goodput", "rate"),
    "total_goodput_bps": ("total goodput", "rate"),
    "throughput_bps": ("throughput", "rate"),
    "rate_bps": ("link rate", "rate"),
    "jain_index": ("Jain's fairness index", "index"),
    "normalized_occupancy": ("normalized queue occupancy", "index"),
    "share": ("share of goodput", "fraction"),
    "utilization": ("utilization", "fraction"),
    "loss_rate": ("loss rate", "fraction"),
    "retrans_ratio": ("retransmitted fraction", "fraction"),
    "signal_sync": ("signals seen by every flow", "fraction"),
    "qdelay_s": ("queuing delay", "time"),
    "mean_qdelay_s": ("mean queuing delay", "time"),
    "p99_qdelay_s": ("p99 queuing delay", "time"),
    "max_qdelay_s": ("max queuing delay", "time"),
    "mean_delay_s": ("mean delay", "time"),
    "p99_delay_s": ("p99 delay", "time"),
    "delay_s": ("one-way delay", "time"),
    "jitter_s": ("jitter", "time"),
    "response_s": ("response time", "time"),
    "base_rtt_s": ("base RTT", "time"),
    "mean_srtt_s": ("mean sRTT", "time"),
    "mean_s": ("mean response time", "time"),
    "wall_time_s": ("wall time", "time"),
    "duration_s": ("duration", "time"),
    "time_s": ("time", "time"),
    "cwnd": ("congestion window", "segments"),
    "ssthresh": ("slow-start threshold", "segments"),
    "size_bytes": ("transfer size", "bytes"),
    "queue_pkts": ("queue", "packets"),
    "mean_queue_pkts": ("mean queue", "packets"),
    "retrans": ("retransmissions", "count"),
    "timeouts": ("timeouts", "count"),
    "recoveries": ("recoveries", "count"),
    "lost_fast": ("losses repaired fast", "count"),
    "signals": ("delay signals", "count"),
    "window_cuts": ("window cuts", "count"),
    "signal_events": ("congestion events", "count"),
    "signal_seen_by_all": ("events seen by every flow", "count"),
    "drops": ("drops", "packets"),
    "drops_queue": ("drops (queue full)", "packets"),
    "drops_queue_slow_start": ("drops (queue full, TCP in slow start)", "packets"),
    "drops_queue_udp": ("drops (queue full, UDP)", "packets"),
    "drops_random": ("drops (random loss)", "packets"),
    "drops_aqm": ("drops (AQM)", "packets"),
    "marks": ("ECN marks", "packets"),
    "started": ("transfers started", "count"),
    "completed": ("transfers completed", "count"),
    "refused": ("transfers refused", "count"),
    "events": ("events", "count"),
    # Scenario fields a sweep varies (its axes), by their last part.
    "loss": ("random loss rate", "index"),
    "rtt": ("RTT", "time"),
    "delay": ("delay", "time"),
    "rate": ("rate", "rate"),
    "jitter": ("jitter", "time"),
    "buffer": ("buffer", "name"),
    "algorithm": ("algorithm", "name"),
    "count": ("flows", "count"),
    "duration": ("duration", "time"),
}


@dataclass(frozen=True)
class Metric:
    """What a metric name means: `label` ("goodput"), `owner` ("flows[1]" or ""), `kind`."""

    name: str
    label: str
    owner: str
    kind: str

    @property
    def title(self) -> str:
        """ "flows[1] goodput", "Jain's fairness index"."""
        return f"{self.owner} {self.label}" if self.owner else self.label


def metric(name: str) -> Metric:
    """The table's entry for `name` (its last dotted part); a name not in it is shown as written."""
    owner, _, base = name.rpartition(".")
    if base.isdigit() or "[" in base and "]" not in base:  # a dot inside a number or index
        owner, base = "", name
    label, kind = _TABLE.get(base, (base, _guess_kind(base)))
    return Metric(name, label, owner, kind)


def field_label(path: str) -> str:
    """A scenario field's path as a person reads it: "topology.bottleneck.loss" →
    "bottleneck random loss rate", "flows[1].algorithm" → "flows[1] algorithm"."""
    m = metric(path)
    owner = m.owner.removeprefix("topology.").removeprefix("topology")
    return f"{owner} {m.label}".strip()


def _guess_kind(base: str) -> str:
    if base.endswith("_bps"):
        return "rate"
    if base.endswith("_s"):
        return "time"
    return "count"


_RATE_UNITS = ((1e12, "Tbit/s"), (1e9, "Gbit/s"), (1e6, "Mbit/s"), (1e3, "kbit/s"), (1.0, "bit/s"))
_TIME_UNITS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))


def scale(kind: str, values: Iterable[float | None]) -> tuple[float, str]:
    """(divisor, unit) to show values of `kind` in: the prefix that suits the largest of them."""
    finite = [abs(v) for v in values if v is not None and math.isfinite(v)]
    top = max(finite, default=0.0)
    if kind == "rate":
        return next(((f, u) for f, u in _RATE_UNITS if top >= f), (1.0, "bit/s"))
    if kind == "time":
        return next(((f, u) for f, u in _TIME_UNITS if top >= f), (1.0, "s"))
    if kind == "fraction":
        return 0.01, "%"
    if kind in ("segments", "packets", "bytes"):
        return 1.0, kind
    return 1.0, ""


# The values a metric of each kind can take. A confidence interval is cut to them, never
# past a value a run measured (a run outside the range means the range is wrong for it).
_RANGES: dict[str, tuple[float, float]] = {
    "rate": (0.0, math.inf),
    "time": (0.0, math.inf),
    "fraction": (0.0, 1.0),
    "index": (0.0, 1.0),
    "segments": (0.0, math.inf),
    "packets": (0.0, math.inf),
    "bytes": (0.0, math.inf),
    "count": (0.0, math.inf),
}


def physical_range(name: str) -> tuple[float, float]:
    """(lowest, highest) value metric `name` can take: [0, 1] for fractions and indices,
    [0, ∞) for rates, times and counts, unbounded for anything else."""
    return _RANGES.get(metric(name).kind, (-math.inf, math.inf))


def clip_interval(
    low: float, high: float, bounds: tuple[float, float], observed: tuple[float, float]
) -> tuple[float, float]:
    """A confidence interval [low, high] cut to `bounds`, widened to the `observed`
    (smallest, largest) replicate where one lies outside them."""
    lo_bound = min(bounds[0], observed[0])
    hi_bound = max(bounds[1], observed[1])
    return max(low, lo_bound), min(high, hi_bound)


def axis_label(m: Metric, unit: str) -> str:
    """An axis label: "flows[1] goodput (Mbit/s)"."""
    return f"{m.title} ({unit})" if unit else m.title


def format_interval(name: str, mean: float | None, low: float | None, high: float | None) -> str:
    """A mean and its confidence interval in the units of `format_value`: "96.2 ± 0.4 Mbit/s"
    for a symmetric interval, "0.93 [0.77, 1]" for one cut to the metric's range, the mean
    alone without an interval."""
    if mean is None or low is None or high is None:
        return format_value(name, mean)
    below, above = mean - low, high - mean
    if math.isclose(below, above, rel_tol=1e-9, abs_tol=1e-12 * max(1.0, abs(mean))):
        return format_value(name, mean, above)
    kind = metric(name).kind
    divisor, unit = scale(kind, [mean, low, high])
    return _with_unit(
        f"{significant(mean / divisor)} [{significant(low / divisor)}, "
        f"{significant(high / divisor)}]",
        kind,
        unit,
    )


def format_value(name: str, value: float | None, half_width: float | None = None) -> str:
    """`value` of metric `name` in human units, with "± half_width" in the same unit:
    "96.2 Mbit/s", "96.2 ± 0.4 Mbit/s", "40.1 ms", "99.3%", "0.998", "–" for none."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    kind = metric(name).kind
    if half_width is None:
        if kind == "rate":
            return format_rate(value)
        if kind == "time":
            return format_seconds(value)
    divisor, unit = scale(kind, [value])
    number = significant(value / divisor)
    if half_width is not None:
        number += f" ± {significant(half_width / divisor, 2)}"
    if (
        kind in ("count", "packets", "segments", "bytes")
        and float(value).is_integer()
        and half_width is None
    ):
        number = f"{int(value)}"
    return _with_unit(number, kind, unit)


def _with_unit(number: str, kind: str, unit: str) -> str:
    """`number` with its unit: "99.3%", "96.2 Mbit/s"; counts and indices bare."""
    if unit == "%":
        return f"{number}%"
    if kind in ("count", "packets", "segments", "bytes", "index") or not unit:
        return number
    return f"{number} {unit}"
