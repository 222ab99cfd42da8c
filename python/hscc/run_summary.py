"""A run's summary tables as plain data: per flow, per monitored link, per UDP flow and
per web source, with the line on fairness under them. `hscc run` prints them as text
(`text_table`, no Rich to import: most of a short run's start-up); notebooks and the test
bed show them through Rich (`report.summary`).

Built from summary.json's rows, without polars: a run's table costs no DataFrame. The web
sources' response-time bins, and the links no packet reached, are only in the Parquet
tables."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hscc.units import format_rate, format_seconds

if TYPE_CHECKING:
    from hscc.results import Result

MAX_ROWS = 40  # rows shown in the terminal (flows, a sweep's points); the files hold them all


@dataclass
class Table:
    """A titled table: `columns` by name, each right-aligned unless named in `left`;
    `wrap` names the one column that may wrap when the table is narrowed (none may be
    cut). `sections` holds the row indices a rule goes above."""

    title: str
    columns: tuple[str, ...]
    left: frozenset[str]
    wrap: str | None
    rows: list[tuple[str, ...]] = field(default_factory=list)
    sections: list[int] = field(default_factory=list)
    caption: str | None = None

    def add_row(self, *cells: str) -> None:
        self.rows.append(cells + ("",) * (len(self.columns) - len(cells)))

    def add_section(self) -> None:
        self.sections.append(len(self.rows))


def _table(title: str, *columns: str) -> Table:
    """The first column left-aligned (and the one that wraps, unless it is a link's name,
    typed in [[changes]] and metrics), the second too, the rest right-aligned (a rate too)."""
    left = frozenset(c for i, c in enumerate(columns) if i < 2 and c != "rate")
    return Table(title, columns, left, wrap=columns[0] if columns[0] != "link" else None)


def tables(result: Result) -> list[Table]:
    """The run's tables that have rows: flows, bottlenecks, UDP flows, web transfers."""
    return [t for t in (_flows(result), _links(result), _udp(result), _web(result)) if t.rows]


def fairness(result: Result) -> str:
    """The line under the tables: Jain's index of the TCP goodputs."""
    jain = result.summary["jain_index"]
    if jain is None:
        return "Jain's fairness index: undefined (no TCP goodput)"
    return f"Jain's fairness index of the TCP goodputs: {jain:.3f}"


def _flows(result: Result) -> Table:
    s = result.summary
    kernel = result.manifest.get("kernel_run")
    how = f"on Linux {kernel['kernel']}" if kernel else "simulated"
    t = _table(
        f"{s.get('name') or 'run'}: {s['duration_s']:g} s {how} in {s['wall_time_s']:.2f} s, seed {s['seed']}",
        "flow",
        "algorithm",
        "RTT",
        "sRTT",
        "goodput",
        "share",
        "retrans",
    )
    t.caption = "RTT: base, no queuing · sRTT: mean smoothed · share: of total goodput"
    rows: list[dict[str, Any]] = s["flows"]
    for f in rows[:MAX_ROWS]:
        srtt = f["mean_srtt_s"]
        t.add_row(
            f["label"],
            f["algorithm"],
            format_seconds(f["base_rtt_s"]),
            format_seconds(srtt) if srtt is not None else "–",
            format_rate(f["goodput_bps"]),
            f"{100 * f['share']:.1f}%",
            str(f["retrans"]),
        )
    if len(rows) > MAX_ROWS:
        t.add_row(f"… {len(rows) - MAX_ROWS} more", "(flows.parquet)")
    if len(rows) > 1:
        t.add_section()
        t.add_row(
            "all",
            "",
            "",
            "",
            format_rate(s["total_goodput_bps"]),
            "100%",
            str(sum(f["retrans"] for f in rows)),
        )
    return t


def _links(result: Result) -> Table:
    from hscc.results import monitored_links

    t = _table(
        "bottlenecks (monitored links)",
        "link",
        "rate",
        "utilization",
        "drops",
        "mean qdelay",
        "p99 qdelay",
    )
    for link in monitored_links(result.summary, lambda: result.links):  # Result.bottlenecks
        t.add_row(
            link["name"],
            format_rate(link["rate_bps"]),
            f"{100 * link['utilization']:.1f}%",
            str(link["drops"]),
            format_seconds(link["mean_qdelay_s"]),
            format_seconds(link["p99_qdelay_s"]),
        )
    return t


def _udp(result: Result) -> Table:
    t = _table(
        "UDP flows", "flow", "source", "throughput", "loss", "mean delay", "p99 delay", "jitter"
    )
    for u in result.summary["udp"][:MAX_ROWS]:
        t.add_row(
            u["label"],
            u["source"],
            format_rate(u["throughput_bps"]),
            f"{100 * u['loss_rate']:.2f}%",
            format_seconds(u["mean_delay_s"]),
            format_seconds(u["p99_delay_s"]),
            format_seconds(u["jitter_s"]),
        )
    return t


def _web(result: Result) -> Table:
    t = _table(
        "web transfers: response times by size",
        "source",
        "size (bytes)",
        "done",
        "mean",
        "median",
        "p90",
    )
    for w in result.summary.get("web", []):
        bins = result.web.filter(result.web["web"] == w["web"]).to_dicts()
        t.add_row(w["label"], "all", f"{w['completed']} of {w['started']}")
        for b in bins:
            t.add_row(
                "",
                f"{b['size_min']}–{b['size_max']}",
                str(b["count"]),
                format_seconds(b["mean_s"]),
                format_seconds(b["median_s"]),
                format_seconds(b["p90_s"]),
            )
    return t
