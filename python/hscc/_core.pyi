"""Types of the Rust engine's Python bindings (crates/hscc-py): the module hscc is built on.

Scenarios cross as JSON text (hscc's scenario form), results as the run directory's files
(summary.json and the tables' Parquet bytes). A rejected scenario raises
``ValueError(message, field, value, allowed)``; an engine failure (a bug) raises RuntimeError.
tests/python/test_core_stub.py checks that this file and the built module name the same
functions, methods and parameters.
"""

from collections.abc import Sequence
from typing import final

__all__ = [
    "Resolved",
    "Simulation",
    "resolve",
    "safe_file_name",
    "work_counts",
    "program_info",
    "program_cache_dir",
    "register_algorithm",
    "Sock",
    "algorithms",
    "scenario_schema",
    "stack_profiles",
    "quantity",
    "engine_version",
    "engine_digest",
    "jain_index",
    "stolen_share",
    "bpf_globals",
    "short_term_jain",
    "signal_synchronization",
    "cc_log_names",
    "parquet_table",
    "json_indented",
    "table_columns",
    "table_schemas",
]

@final
class Resolved:
    """A scenario checked in full, with what the engine derived from it: made once per run
    (`resolve`) and handed to `Simulation`."""

    @property
    def scenario(self) -> str:
        """The scenario with every default filled in and every quantity in SI numbers, JSON."""

    @property
    def topology(self) -> str:
        """The topology's kind: "dumbbell", "parking_lot" or "graph"."""

    @property
    def duration(self) -> float:
        """The run's length, s."""

    def config(self) -> str:
        """The engine configuration (topology with resolved buffers and routes, flows), JSON."""

    def estimate(self) -> str:
        """What the run would cost, JSON: {"memory_bytes", "events", "memory": {part: bytes},
        "events_by": {part: count}, "memory_field": [field, value], "events_field": [field,
        value], ...}."""

    def check(self, max_memory_bytes: int | None = None, max_events: int | None = None) -> None:
        """Refuse a run whose estimate passes the limits (the engine's defaults where not
        given): ValueError(message, field, value, allowed)."""

    @property
    def tcp_labels(self) -> list[tuple[int, str]]:
        """(index in `flows`, label) of every TCP flow, counts expanded, in engine order."""

    @property
    def udp_labels(self) -> list[tuple[str, str]]:
        """(source, label) of every UDP flow: [[udp]] entries, then two per [[voip]] call."""

    @property
    def web_labels(self) -> list[str]:
        """The label of every [[web]] source."""

    @property
    def stacks(self) -> str:
        """What each flow entry's `stack` profile set, JSON: [{"flow": index in `flows`,
        "stack", "settings": [{"knob", "value", "algorithm", "source"}], "overridden": [[knob,
        the scenario's value]]}], one per entry that takes a profile."""

@final
class Simulation:
    """A simulation built from a scenario, run in chunks so that Python can show progress
    and react to Ctrl-C between them."""

    def __new__(
        cls,
        scenario: Resolved | str,
        max_memory_bytes: int | None = None,
        max_events: int | None = None,
    ) -> Simulation:
        """Build from a resolved scenario, or from the JSON scenario form (resolved here);
        ValueError(message, field, value, allowed) names the bad field, also for a run whose
        estimate passes `max_memory_bytes` (default 8 GiB) or `max_events` (default 10**11)."""

    def run_until(self, t: float) -> None:
        """Advance to `t` seconds of simulated time (at most the duration), without the GIL;
        RuntimeError once finished or after an engine failure."""

    @property
    def now(self) -> float:
        """Current simulated time, s (0 once finished)."""

    @property
    def duration(self) -> float:
        """Configured duration, s (0 once finished)."""

    @property
    def events(self) -> int:
        """Events processed so far (all of them, once finished)."""

    def finish(self) -> None:
        """End the run and summarise it; the simulation cannot run further."""

    def flow_labels(self) -> list[str]:
        """The label of every TCP flow, in engine order."""

    def files(
        self,
        wall_time_s: float,
        flow_traces: bool,
        queue_traces: bool,
        captures: Sequence[str],
        tables: Sequence[str] | None = None,
    ) -> tuple[bytes, list[tuple[str, bytes]]]:
        """The finished run's summary.json and its tables' Parquet files, [(table, bytes)] in
        the run directory's order, given what the engine does not know: the wall time, whether
        the flows' and queues' traces are tables, and the capture files' names; with `tables`,
        only those tables' files."""

    def capture_drops(self) -> str:
        """The captured links' drop logs of the finished run, JSON rows (empty without captures)."""

    def take_cc_log(self) -> list[tuple[str, str, bytes]] | None:
        """The per-ACK congestion-control log as columns [(name, numpy dtype, little-endian
        bytes)], or None when no flow was logged; taken: a second call returns None."""

    def take_captures(self) -> list[tuple[str, bytes]]:
        """The packet capture files of the finished run, [(file name, pcap bytes)], handed
        over once."""

def algorithms() -> str:
    """Every algorithm with its parameters (defaults, ranges, sources), JSON."""

def resolve(scenario_json: str) -> Resolved:
    """Check a scenario (JSON, units allowed) in full, against the engine's hard caps (a run's
    limits: `Resolved.check`), and derive what a run needs: the one step between a scenario
    and its run. ValueError(message, field, value, allowed)."""

def safe_file_name(value: str) -> str:
    """`value` made a run name as the engine's `name` rule allows: characters a file name
    cannot have become "_", leading dots go, at most 100 characters ("scenario" if empty)."""

def work_counts() -> tuple[int, int]:
    """Scenario builds and estimates this process has made, (builds, estimates)."""

def register_algorithm(
    name: str, origin: str, algorithm: object, params: Sequence[tuple[str, float]]
) -> None:
    """Register the class `algorithm` (an hscc.Algorithm) as the algorithm `name` with parameters
    (name, default), replacing one of that name; ValueError for a built-in's name."""

@final
class Sock:
    """The sender's view a Python algorithm's hook sees (Linux's tcp_sock fields)."""

    snd_cwnd: int
    snd_ssthresh: int
    snd_cwnd_cnt: int
    pacing_rate: int
    @property
    def snd_cwnd_clamp(self) -> int: ...
    @property
    def prior_cwnd(self) -> int: ...
    @property
    def mss_cache(self) -> int: ...
    @property
    def srtt_us(self) -> int: ...
    @property
    def min_rtt_us(self) -> int: ...
    @property
    def snd_una(self) -> int: ...
    @property
    def snd_nxt(self) -> int: ...
    @property
    def packets_out(self) -> int: ...
    @property
    def sacked_out(self) -> int: ...
    @property
    def lost_out(self) -> int: ...
    @property
    def retrans_out(self) -> int: ...
    @property
    def delivered(self) -> int: ...
    @property
    def lost(self) -> int: ...
    @property
    def max_packets_out(self) -> int: ...
    @property
    def now_us(self) -> int: ...
    @property
    def lsndtime(self) -> int: ...
    @property
    def rcv_tsval(self) -> int: ...
    @property
    def rcv_tsecr(self) -> int: ...
    @property
    def ca_state(self) -> str: ...
    def in_slow_start(self) -> bool: ...
    def is_cwnd_limited(self) -> bool: ...
    def slow_start(self, acked: int) -> int: ...
    def cong_avoid_ai(self, w: int, acked: int) -> None: ...

def program_cache_dir() -> str:
    """Where built programs are kept: `$HSCC_CACHE_DIR`, else `$XDG_CACHE_HOME/hscc`, else
    `~/.cache/hscc`; then `programs`."""

def program_info(path: str) -> tuple[str, str, list[tuple[str, int, int]]]:
    """A program file built for the simulator and loaded: (the name its flows are labelled
    with, the kernel name in its ops, [(parameter, size in bytes, default)]); ValueError with
    the compiler's or loader's message."""

def scenario_schema() -> str:
    """The JSON Schema of scenario files, every field with its doc text."""

def stack_profiles() -> str:
    """The reference-stack profiles (`stack`), JSON: [{"name", "about", "settings": [{"knob",
    "value", "algorithm", "source"}]}], each value JSON as a scenario writes it."""

def quantity(kind: str, value_json: str) -> str:
    """One quantity (JSON: a number or a string with a unit) of `kind` ("time", "rate",
    "size", "probability", "buffer") in SI numbers, as JSON; ValueError(message) otherwise."""

def engine_version() -> str:
    """Version of the engine."""

def engine_digest() -> str:
    """Digest of the engine's and the algorithms' sources this build was made from: two
    builds with the same digest compute the same numbers."""

def jain_index(values: Sequence[float]) -> float | None:
    """Jain's fairness index of `values`: (sum x)**2 / (n * sum x**2); None without
    values or with all of them zero (undefined: no flows, or no traffic)."""

def stolen_share(p: float, q: float) -> float:
    """Bandwidth stolen, (P - Q) / P, from the other flows' aggregate goodput P in the
    baseline and Q in the test; 0 when P is 0."""

def bpf_globals(algorithm: str, params_json: str) -> list[tuple[str, int]]:
    """The load-time globals of `algorithm`'s eBPF program for the parameters `params_json`
    (an object of name -> number), validated as a scenario's are; ValueError names what is wrong."""

def short_term_jain(
    times: Sequence[float],
    dt: float,
    flows: Sequence[tuple[Sequence[float], float, float]],
    window: float,
    start: float,
) -> float | None:
    """Sync-TCP's short-term fairness: the mean Jain index over windows of `window` s from
    `start` on; `flows` = [(throughput per sample, start, end)]."""

def signal_synchronization(
    flows: Sequence[tuple[str, Sequence[float], float, float]],
    chosen: Sequence[int] | None,
    window: float,
) -> tuple[int, int]:
    """(congestion events, events seen by every active flow) among the signals of the flows
    `chosen` (positions in `flows` = [(algorithm, signal times, start, end)]; None: those
    whose algorithm signalled), grouped within `window` s; ValueError for a chosen position
    that is not a flow."""

def cc_log_names() -> tuple[list[str], list[str], list[str]]:
    """Names of the per-ACK log's codes: (hook, ca_state and new_state, event), by code."""

def parquet_table(columns: Sequence[tuple[str, str, Sequence[object]]]) -> bytes:
    """A Parquet file of the columns [(name, polars dtype name, values)], one row group,
    Snappy-compressed; ValueError naming a column whose dtype has no writer."""

def json_indented(compact: str) -> bytes:
    """``json.dumps(data, indent=2) + "\\n"`` as bytes, from
    ``json.dumps(data, separators=(",", ":"))``: the same text, byte for byte."""

def table_columns() -> list[tuple[str, str, list[tuple[str, str]]]]:
    """What each table's columns mean: [(table, what a row is, [(column, meaning)])]."""

def table_schemas() -> list[tuple[str, list[tuple[str, str]]]]:
    """The columns of a run directory's tables as hscc writes them:
    [(table, [(column, polars dtype name)])]."""
