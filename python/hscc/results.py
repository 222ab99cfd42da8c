"""A run's results as polars DataFrames, and the run directory that holds them.

A run directory has:

- ``manifest.json``: the scenario as run, the engine configuration it resolved
  to (buffers in packets, times in picoseconds), hscc and engine versions, the
  git revision if any, seed, start time and wall time;
- ``summary.json``: run totals, every flow and every link (the rows below);
- ``flows.parquet``, ``links.parquet``: one row per TCP flow / per link;
- ``udp.parquet``: one row per UDP flow; ``web.parquet``: response times;
- ``timeseries.parquet``, ``queues.parquet``: the sampled traces;
- ``cc_log.parquet``: the per-ACK congestion-control log, when the scenario
  asks for one (``[output] cc_log``; its columns: ``hscc.cclog``).
- with ``[output] pcap``: ``flow-N-LABEL.pcap``, ``link-N-NAME.pcap`` (packet
  captures, docs/traces.md) and, with links, ``drops.parquet``.

It is written atomically (see ``hscc.atomic``). Columns, all in SI units:

flows: flow (engine index), spec (index of its [[flows]] entry), label,
algorithm, src, dst, start_s, end_s (end of its active period), base_rtt_s
(propagation + serialization), mean_srtt_s (mean sampled sRTT; null without
flow traces), srtt_s (at the end), min_rtt_s, goodput_bps (in-order payload
bits per second of the active period), share (of the summed goodput),
completion_s (null unless it finished), final_cwnd (segments), segs_sent,
retrans, retrans_ratio, delivered_segs, delivered_bytes, lost_fast (segments
marked lost before the RTO), rack_lost (of those, by RACK), tlps (tail loss
probes), undos (spurious reductions undone), recoveries, timeouts, acks_sent,
ecn_reductions (window reductions for ECN echoes), ce_received (data segments
that arrived CE-marked), slow_start_s, signals (delay-detected
congestion signals of its algorithm), signals_s (their times; not in summary.json, which has
their synchronization instead: signal_sync = {events, seen_by_all}, Result.signal_synchronization()
with T_wait = 0.5 s).

links: link, name, from, to, rate_bps, monitored, utilization, tx_packets,
tx_bytes, drops_queue (buffer full), drops_queue_slow_start, drops_random,
drops_aqm (the queue discipline's drops), marks (its ECN CE marks), drops
(all of them), mean_qdelay_s, p99_qdelay_s,
max_qdelay_s, mean_queue_pkts, mean_queue_bytes (time-averaged backlog),
normalized_occupancy (mean backlog / buffer size); queue statistics only for
monitored links.

udp (one row per UDP flow; a [[voip]] call is two, → then ←): udp (engine
index), source ("udp[0]", "voip[1]"), label, sent, received, lost, loss_rate,
throughput_bps (received), mean_delay_s, p99_delay_s, max_delay_s (one-way),
jitter_s (RFC 3550).

web (one row per web source and response-size bin): web (index of its [[web]]
entry), label, size_min, size_max (bytes), count (completed transfers),
mean_s, median_s, p90_s (response times); summary.json has each source's
transfers started, completed and refused (arrivals beyond the engine's cap on
transfers in progress).

timeseries (one row per sample and flow): time_s (end of the interval),
flow, throughput_bps (goodput over the interval), cwnd (segments), srtt_s.

queues (one row per sample and monitored link): time_s, link, name,
queue_pkts, queue_bytes (at the sample), qdelay_s (mean over the packets that
left the queue in the interval), drops, marks (in the interval), utilization
(of the interval).

drops (one row per packet a captured link dropped): link, time_s, cause
("queue": buffer full, "aqm", "random", "random_after_queue"), kind ("data",
"ack", "udp"), flow (engine index, null for UDP and web transfers), label,
udp (engine index of a UDP flow), seq (the engine's segment, ACK or datagram
number), tcp_seq (the TCP sequence or acknowledgement number in the captures),
retrans, size (bytes on the wire).
"""

from __future__ import annotations

import io
import itertools
import json
import math
from pathlib import Path

import polars as pl

from hscc import _core, cclog

from hscc.rundir import CAPTURE, DROPS as DROPS_FILE, FILES, FRAMES, RunDirError, read_manifest, staging
from hscc.scenario import Scenario

_COUNTERS = ("segs_sent", "retrans", "delivered_segs", "delivered_bytes", "lost_fast", "rack_lost", "tlps", "undos", "recoveries",
             "timeouts", "acks_sent", "ecn_reductions", "ce_received")
_F, _S = pl.Float64, pl.String
FLOWS = {
    "flow": pl.UInt32, "spec": pl.UInt32, "label": _S, "algorithm": _S, "src": _S, "dst": _S,
    "start_s": _F, "end_s": _F, "base_rtt_s": _F, "mean_srtt_s": _F, "srtt_s": _F, "min_rtt_s": _F,
    "goodput_bps": _F, "share": _F, "completion_s": _F, "final_cwnd": pl.UInt32, **{k: pl.UInt64 for k in _COUNTERS},
    "retrans_ratio": _F, "slow_start_s": _F, "signals": pl.UInt64, "signals_s": pl.List(_F),
}
TIMESERIES = {"time_s": pl.Float64, "flow": pl.UInt32, "throughput_bps": pl.Float64, "cwnd": pl.UInt32, "srtt_s": pl.Float64}
QUEUES = {
    "time_s": pl.Float64, "link": pl.UInt32, "name": pl.String, "queue_pkts": pl.UInt64, "queue_bytes": pl.UInt64,
    "qdelay_s": pl.Float64, "drops": pl.UInt64, "marks": pl.UInt64, "utilization": pl.Float64,
}
LINKS = {
    "link": pl.UInt32, "name": _S, "from": _S, "to": _S, "rate_bps": pl.UInt64, "monitored": pl.Boolean, "utilization": _F,
    "tx_packets": pl.UInt64, "tx_bytes": pl.UInt64, "drops_queue": pl.UInt64, "drops_queue_slow_start": pl.Int64,
    "drops_random": pl.UInt64, "drops_aqm": pl.UInt64, "marks": pl.UInt64, "drops": pl.UInt64, "mean_qdelay_s": _F,
    "p99_qdelay_s": _F, "max_qdelay_s": _F, "mean_queue_pkts": _F, "mean_queue_bytes": _F, "normalized_occupancy": _F,
}
UDP = {
    "udp": pl.UInt32, "source": pl.String, "label": pl.String, "sent": pl.UInt64, "received": pl.UInt64, "lost": pl.UInt64,
    "loss_rate": pl.Float64, "throughput_bps": pl.Float64, "mean_delay_s": pl.Float64, "p99_delay_s": pl.Float64,
    "max_delay_s": pl.Float64, "jitter_s": pl.Float64,
}
WEB = {
    "web": pl.UInt32, "label": pl.String, "size_min": pl.UInt64, "size_max": pl.UInt64, "count": pl.UInt64,
    "mean_s": pl.Float64, "median_s": pl.Float64, "p90_s": pl.Float64,
}
DROPS = {
    "link": _S, "time_s": _F, "cause": _S, "kind": _S, "flow": pl.UInt32, "label": _S, "udp": pl.UInt32,
    "seq": pl.UInt64, "tcp_seq": pl.UInt32, "retrans": pl.Boolean, "size": pl.UInt32,
}
_PS = 1e-12


class Columns:
    """A table as the engine's output gives it: its columns as lists under `schema`. It becomes a
    DataFrame only when someone reads it; a sweep's worker writes its Parquet file straight from the
    lists (the frame and back cost more than the simulation of a short run, docs/performance.md)."""

    __slots__ = ("schema", "data")

    def __init__(self, schema: dict, data: dict[str, list]):
        self.schema, self.data = schema, data

    @classmethod
    def from_rows(cls, schema: dict, rows: list[dict]) -> "Columns":
        return cls(schema, {k: [r[k] for r in rows] for k in schema})

    @property
    def height(self) -> int:
        return len(next(iter(self.data.values())))

    def frame(self) -> pl.DataFrame:
        return pl.DataFrame(self.data, schema=self.schema) if self.height else _empty(self.schema)


Table = pl.DataFrame | Columns


def _table(name: str) -> property:
    def get(self: "Result") -> pl.DataFrame:
        t = self._tables[name]
        if isinstance(t, Columns):
            t = self._tables[name] = t.frame()
        return t

    return property(get, doc=f"The {name} table (see the module's doc for its columns).")


class Result:
    """Everything a run produced. DataFrames: ``flows``, ``links``, ``udp``, ``web``, ``timeseries``, ``queues``,
    ``cc_log`` (empty unless the scenario asks for the per-ACK log); ``drops``; ``captures``: packet capture
    files by name (pcap bytes)."""

    def __init__(self, manifest: dict, summary: dict, flows: Table, links: Table, udp: Table,
                 web: Table, timeseries: Table, queues: Table, cc_log: pl.DataFrame | None = None,
                 captures: dict[str, bytes] | None = None, drops: pl.DataFrame | None = None):
        self.manifest, self.summary = manifest, summary
        self._tables = {"flows": flows, "links": links, "udp": udp, "web": web, "timeseries": timeseries, "queues": queues}
        self._cc_log = cc_log
        self.captures = captures or {}
        self.drops = _empty(DROPS) if drops is None else drops

    flows, links, udp, web = _table("flows"), _table("links"), _table("udp"), _table("web")
    timeseries, queues = _table("timeseries"), _table("queues")

    @property
    def cc_log(self) -> pl.DataFrame:
        """The per-ACK congestion-control log (no rows unless the scenario asks for it)."""
        if self._cc_log is None:
            self._cc_log = cclog.empty()
        return self._cc_log

    @property
    def scenario(self) -> Scenario:
        """The scenario as run (reproduces the run with `hscc.run`)."""
        return Scenario.parse(self.manifest["scenario"])

    @property
    def bottlenecks(self) -> pl.DataFrame:
        """The monitored links."""
        return self.links.filter(pl.col("monitored"))

    @property
    def jain_index(self) -> float | None:
        """Jain's fairness index of the TCP flows' goodputs (None without TCP flows)."""
        return self.summary["jain_index"]

    def throughput_ratio(self, a: list[int], b: list[int]) -> float:
        """Aggregate goodput of engine flows `a` over that of flows `b` (RTT fairness)."""
        g = dict(zip(self.flows["flow"].to_list(), self.flows["goodput_bps"].to_list()))
        return sum(g[i] for i in a) / sum(g[i] for i in b)


    def short_term_jain(self, window: float = 1.0, start: float = 0.0) -> float | None:
        """Mean of Jain's index over consecutive `window`-second windows from `start` on,
        over the flows active for the whole window (Sync-TCP §VI.B); None without traces."""
        ts = self.timeseries
        if ts.height == 0:
            return None
        times = ts.filter(pl.col("flow") == ts["flow"][0])["time_s"].to_list()
        dt = times[1] - times[0] if len(times) > 1 else times[0]
        flows = [
            (ts.filter(pl.col("flow") == row["flow"])["throughput_bps"].to_list(), row["start_s"], row["end_s"])
            for row in self.flows.iter_rows(named=True)
        ]
        return _core.short_term_jain(times, dt, flows, window, start)


    def signal_synchronization(self, flows: list[int] | None = None, window: float = 0.5) -> tuple[int, int]:
        """(congestion events, events every active flow detected): the flows' delay-detected
        signals grouped within `window` s (Sync-TCP §VI.A uses T_wait = 0.5 s). By default
        the flows whose algorithm reports such signals (any that signalled)."""
        return _signal_sync(list(self.flows.iter_rows(named=True)), flows, window)

    def plot(self, out: str | Path, svg: bool = False, overwrite: bool = False) -> list[Path]:
        """Draw throughput, cwnd and queuing delay over time to `out` (.png, and .svg if asked);
        an existing file is replaced only with `overwrite`."""
        from hscc.plot import plot  # matplotlib only when plotting

        return plot(self, out, svg, overwrite)

    def write(self, run_dir: str | Path, overwrite: bool = False) -> Path:
        """Write the run directory atomically. An existing run there is replaced only
        with `overwrite`; anything else that exists is never replaced (RunDirError)."""
        run_dir = Path(run_dir)
        with staging(run_dir, overwrite) as tmp:
            self.write_files(tmp)
        return run_dir

    def write_files(self, directory: Path) -> None:
        """Write the run's files into `directory` as they are (`write` is the atomic way)."""
        for name, data in self.files().items():
            (directory / name).write_bytes(data)

    def files(self) -> dict[str, bytes]:
        """The run directory's files by name, as bytes (a worker sends these to whoever stores the run)."""
        tables = _parquet({name: self._tables[name] for name in FRAMES})
        out = {"manifest.json": _json(self.manifest), "summary.json": _json(self.summary),
               **{f"{name}.parquet": data for name, data in tables.items()}}
        if self._cc_log is not None and self._cc_log.height:  # by polars: the extension's writer does not take all of its dtypes
            buf = io.BytesIO()
            self.cc_log.write_parquet(buf)
            out[cclog.FILE] = buf.getvalue()
        out.update(self.captures)
        if any(name.startswith("link-") for name in self.captures):
            out[DROPS_FILE] = _parquet({"drops": self.drops})["drops"]
        return out

    def __repr__(self) -> str:
        name = self.manifest["scenario"].get("name") or "run"
        jain = "" if self.jain_index is None else f", Jain {self.jain_index:.3f}"
        return f"<hscc.Result {name}: {self.flows.height} flows, {self.summary['duration_s']:g} s{jain}>"

    @classmethod
    def from_engine(cls, raw: dict, scenario: Scenario, manifest: dict, cc_log: list | None = None,
                    captures: dict[str, bytes] | None = None) -> "Result":
        """From the engine's result JSON (crates/hscc-sim/src/results.rs), the per-ACK log's columns and the capture files.

        Each table is built in one step from its rows (or, for the traces, its columns), and
        summary.json's rows are those same rows: a short run's tables cost well under a
        millisecond, not one DataFrame per flow and a round trip through polars per table."""
        traces = raw["traces"]
        flow_traces = traces["flows"] if "flows" in scenario.output.traces else []
        timeseries = _timeseries(traces["time_s"], flow_traces)
        queues = _queues(traces["time_s"], traces["links"] if "queues" in scenario.output.traces else [])
        total = sum(r["goodput_bps"] for r in raw["flows"])  # the flows' shares and summary.json's total
        flow_rows = _flow_rows(raw["flows"], scenario, flow_traces, total)
        link_rows = _link_rows(raw["links"])
        udp_rows = _udp_rows(raw["udp"], scenario)
        flows, links, udp = Columns.from_rows(FLOWS, flow_rows), Columns.from_rows(LINKS, link_rows), Columns.from_rows(UDP, udp_rows)
        web = _web(raw["web"], scenario)
        signalled = any(r["signals"] for r in flow_rows)
        events, seen = _signal_sync(flow_rows, None, 0.5) if signalled else (0, 0)
        summary = {
            "name": scenario.name,
            "duration_s": raw["duration_s"],
            "seed": raw["seed"],
            "events": raw["events"],
            "wall_time_s": manifest["wall_time_s"],
            "jain_index": _finite(raw["jain_index"]) if raw["flows"] else None,  # undefined without TCP flows
            "total_goodput_bps": total,
            "flows": [{k: v for k, v in r.items() if k != "signals_s"} for r in flow_rows],
            "links": link_rows,
            "udp": udp_rows,
            "web": [{"web": w["id"], "label": _web_label(scenario, w["id"]), "started": w["started"], "completed": w["completed"],
                     "refused": w["refused"]}
                    for w in raw["web"]],
            "signal_sync": {"events": events, "seen_by_all": seen},
        }
        if captures:
            summary["pcap"] = {"files": sorted(captures), "missed": raw["captures"]["missed"]}
        labels = flows.data["label"]
        drops = _drops(raw["captures"]["drops"], labels)
        log = cclog.frame(cc_log, labels) if cc_log else None
        return cls(manifest, summary, flows, links, udp, web, timeseries, queues, log, captures, drops)


def load(run_dir: str | Path) -> Result:
    """Read a run directory written by `Result.write` (or `hscc run`)."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise RunDirError(f"{run_dir}: no such run directory")
    manifest = read_manifest(run_dir)
    missing = [f for f in FILES if not (run_dir / f).is_file()]
    if manifest is None or missing:
        why = f"missing: {', '.join(missing)}" if missing else "its manifest.json is not hscc's"
        raise RunDirError(f"{run_dir} is not an hscc run directory ({why})")
    try:
        summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
        frames = {n: pl.read_parquet(run_dir / f"{n}.parquet") for n in FRAMES}
        if (run_dir / cclog.FILE).is_file():
            frames["cc_log"] = pl.read_parquet(run_dir / cclog.FILE)
        captures = {p.name: p.read_bytes() for p in sorted(run_dir.iterdir()) if CAPTURE.fullmatch(p.name) and p.is_file()}
        drops = pl.read_parquet(run_dir / DROPS_FILE) if (run_dir / DROPS_FILE).is_file() else None
    except (OSError, ValueError, pl.exceptions.PolarsError) as e:
        raise RunDirError(f"{run_dir}: unreadable run directory: {e}") from None
    return Result(manifest, summary, **frames, captures=captures, drops=drops)


def _flow_rows(rows: list[dict], scenario: Scenario, traces: list[dict], total: float) -> list[dict]:
    """The flows table's rows, as its columns hold them and summary.json lists them. `traces`: the
    flows' sampled traces, in engine order (none without flow traces); `total`: their summed goodput."""
    labels = scenario.flow_labels()
    mean_srtt = {i: fsum_mean([x for x in t["srtt_s"] if x > 0]) for i, t in enumerate(traces)}
    out = []
    for r, (spec, label) in zip(rows, labels):
        c = r["counters"]
        out.append({
            "flow": r["id"], "spec": spec, "label": label, "algorithm": r["algorithm"], "src": r["src"], "dst": r["dst"],
            "start_s": r["start_s"], "end_s": r["end_s"], "base_rtt_s": r["base_rtt_s"],
            "mean_srtt_s": mean_srtt.get(r["id"]), "srtt_s": r["srtt_s"], "min_rtt_s": r["min_rtt_s"],
            "goodput_bps": r["goodput_bps"], "share": r["goodput_bps"] / total if total > 0 else 0.0,
            "completion_s": r["completion_s"], "final_cwnd": r["final_cwnd"],
            **{k: c[k] for k in _COUNTERS},
            "retrans_ratio": c["retrans"] / c["segs_sent"] if c["segs_sent"] else 0.0,
            "slow_start_s": c["slow_start_time"] * _PS,
            "signals": len(r["signals_s"]), "signals_s": r["signals_s"],
        })
    return out


def _link_rows(rows: list[dict]) -> list[dict]:
    out = []
    for r in rows:
        c = r["counters"]
        out.append({
            "link": r["id"], "name": r["name"], "from": r["from"], "to": r["to"], "rate_bps": r["rate_bps"],
            "monitored": r["monitored"], "utilization": r["utilization"], **c,
            "drops": c["drops_queue"] + c["drops_aqm"] + c["drops_random"],
            **{k: r[k] for k in ("mean_qdelay_s", "p99_qdelay_s", "max_qdelay_s", "mean_queue_pkts", "mean_queue_bytes", "normalized_occupancy")},
        })
    return out


def _drops(rows: list[dict], labels: list[str]) -> pl.DataFrame:
    out = [{**r, "label": None if r["flow"] is None else labels[r["flow"]]} for r in rows]
    return pl.DataFrame(out, schema=DROPS) if out else _empty(DROPS)


def _udp_rows(rows: list[dict], scenario: Scenario) -> list[dict]:
    labels = scenario.udp_labels()
    rest = list(UDP)[3:]
    return [{"udp": r["id"], "source": src, "label": label, **{k: r.get(k) for k in rest}} for r, (src, label) in zip(rows, labels)]


def _signal_sync(rows: list[dict], flows: list[int] | None, window: float) -> tuple[int, int]:
    """`Result.signal_synchronization` over the flows table's rows."""
    if flows is None:
        signalling = {r["algorithm"] for r in rows if r["signals"] > 0}
        flows = [r["flow"] for r in rows if r["algorithm"] in signalling]
    by_id = {r["flow"]: r for r in rows}
    return _core.signal_synchronization([(by_id[i]["signals_s"], by_id[i]["start_s"], by_id[i]["end_s"]) for i in flows], window)


def _web(rows: list[dict], scenario: Scenario) -> Columns:
    return Columns.from_rows(WEB, [{"web": w["id"], "label": _web_label(scenario, w["id"]), **b} for w in rows for b in w["bins"]])


def _web_label(scenario: Scenario, i: int) -> str:
    return scenario.web[i].label or f"web {i}"


def _timeseries(t: list[float], flows: list[dict]) -> Columns:
    return Columns(TIMESERIES, {
        "time_s": t * len(flows), "flow": _repeat(range(len(flows)), len(t)),
        **{k: _chain(f[k] for f in flows) for k in ("throughput_bps", "cwnd", "srtt_s")},
    })


def _queues(t: list[float], links: list[dict]) -> Columns:
    return Columns(QUEUES, {
        "time_s": t * len(links), "link": _repeat((q["link"] for q in links), len(t)), "name": _repeat((q["name"] for q in links), len(t)),
        **{k: _chain(q[k] for q in links) for k in ("queue_pkts", "queue_bytes", "qdelay_s", "drops", "marks", "utilization")},
    })


def _repeat(values, n: int) -> list:
    """Each of `values` `n` times, in order: one trace's key column."""
    return [v for v in values for _ in range(n)]


def _chain(lists) -> list:
    return list(itertools.chain.from_iterable(lists))


def _parquet(tables: dict[str, Table]) -> dict[str, bytes]:
    """Each table as Parquet, written by the extension from its columns: polars
    costs about 27 µs per column to write a table and a run has 88 (docs/performance.md)."""
    return {name: _parquet_table(t) for name, t in tables.items()}


_EMPTY_PARQUET: dict[tuple, bytes] = {}


def _parquet_table(t: Table) -> bytes:
    """One table's Parquet file; a table without rows is the same file every time (a run without UDP,
    web sources or a trace has two to four), so it is written once per schema."""
    if isinstance(t, Columns) and not t.height:
        key = tuple(t.schema.items())
        if key not in _EMPTY_PARQUET:
            _EMPTY_PARQUET[key] = _core.parquet_table(_columns(t))
        return _EMPTY_PARQUET[key]
    return _core.parquet_table(_columns(t))


def _columns(t: Table) -> list[tuple[str, str, list]]:
    """(name, polars dtype's name, values) of each column, as the Parquet writer takes them."""
    if isinstance(t, Columns):
        return [(k, str(dtype), t.data[k]) for k, dtype in t.schema.items()]
    return [(c.name, str(c.dtype), c.to_list()) for c in t.iter_columns()]


def fsum_mean(values: list[float]) -> float | None:
    """The mean, its sum correctly rounded (math.fsum: no summation order to depend on); None if empty."""
    return math.fsum(values) / len(values) if values else None


_EMPTY: dict[tuple, pl.DataFrame] = {}


def _empty(schema: dict) -> pl.DataFrame:
    """A table with `schema` and no rows: made once per schema (0.4 ms), then copied (µs)."""
    key = tuple(schema.items())
    if key not in _EMPTY:
        _EMPTY[key] = pl.DataFrame(schema=schema)
    return _EMPTY[key].clone()


def _finite(x: float | None) -> float | None:
    return x if x is not None and math.isfinite(x) else None


def _json(data: dict) -> bytes:
    """`json.dumps(data, indent=2, allow_nan=False) + "\\n"`, byte for byte: Python's C encoder writes the
    compact text and the extension lays it out (Python's own indenting is pure Python, 5x slower)."""
    return _core.json_indented(json.dumps(data, separators=(",", ":"), allow_nan=False))
