"""Scenarios: the TOML file format and the equivalent Python objects.

A scenario mirrors the engine's form (crates/hscc-sim/src/scenario.rs) with
units: every time, rate, size, buffer and probability may be written as
"100ms", "700Mbps", "64KB", "0.5bdp", "1e-6" or as a plain SI number. After
validation the fields hold SI numbers (seconds, bit/s, bytes); ``to_engine()``
gives the engine's JSON form. Every rejected value raises ``ScenarioError``
naming the field, the value and what is allowed.

    duration = "60s"
    [output]
    sample_interval = "100ms"
    [topology]
    kind = "dumbbell"
    bottleneck = { rate = "100Mbps", delay = "5ms", buffer = "1bdp" }
    pairs = [{ rtt = "40ms" }, { rtt = "120ms" }]
    [[flows]]
    pair = 0
    algorithm = "reno"

Besides [[flows]] (TCP), a scenario may have [[udp]], [[voip]], [[web]] and
[[changes]] entries (see hscc.traffic).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Annotated, Literal, Optional

from pydantic import Field, PrivateAttr, StrictInt, ValidationError, model_validator

from hscc.errors import Issue, ScenarioError
from hscc.fields import MAX_FLOWS, Duration, FileName, Model, PositiveSeconds, between, safe_file_name
from hscc.topology import Dumbbell, Graph, GraphLink, Link, Pair, ParkingLot, Topology
from hscc.traffic import Change, Flow, Udp, Voip, Web, WebSize, check_hosts, check_web_hosts
from hscc.validation import issues_from

__all__ = ["Change", "Dumbbell", "Flow", "Graph", "GraphLink", "Link", "Output", "Pair", "ParkingLot", "Scenario", "Udp", "Voip", "Web", "WebSize"]

MAX_SAMPLES = 10_000_000  # per time series: keeps traces within memory
MAX_FILE_BYTES = 16 << 20  # a scenario file; the largest real one is a few kB
MAX_DEPTH = 32  # tables and lists inside each other; scenarios use at most 5
# A dotted key of more than MAX_DEPTH parts (tomllib's time grows with the square of their
# number), looked for where keys start (a line, after "{" or ","); possessive quantifiers
# and those few starting points keep the search linear in the text.
_LONG_DOTTED_KEY = re.compile(
    r"(?m)(?:^|[{,])[ \t]*+\[{0,2}+[ \t]*+(?:(?:[A-Za-z0-9_-]++|\"[^\"\n]*+\"|'[^'\n]*+')[ \t]*+\.[ \t]*+){%d,}" % MAX_DEPTH)
_PYTHON_ONLY = {"label"}  # fields the engine does not take


class Output(Model):
    """What a run records beyond the summary."""

    sample_interval: PositiveSeconds = Field(0.1, description="time-series sampling interval (default 100ms)")
    traces: list[Literal["flows", "queues"]] = Field(["flows", "queues"], description='time series to keep: "flows" (throughput, cwnd, sRTT), "queues" (monitored links); [] for none')


class Scenario(Model):
    """A whole experiment: network, traffic, duration, seed and outputs."""

    name: Optional[FileName] = Field(None, description="short name, used in run directory names (default: the file name)")
    description: Optional[str] = Field(None, description="what the scenario shows")
    duration: Duration = Field(description="simulated time, e.g. 60s")
    seed: Annotated[StrictInt, between(0, 2**64 - 1, "0 to 2^64 - 1")] = Field(1, description="seed of every random choice")
    topology: Topology = Field(description="the network")
    flows: list[Flow] = Field(default_factory=list, description="TCP flows")
    udp: list[Udp] = Field(default_factory=list, description="UDP flows")
    voip: list[Voip] = Field(default_factory=list, description="VoIP calls")
    web: list[Web] = Field(default_factory=list, description="web-like traffic")
    changes: list[Change] = Field(default_factory=list, description="scheduled link changes")
    output: Output = Field(default_factory=Output, description="sampling interval and traces")
    _source: Optional[str] = PrivateAttr(None)  # the file it was read from

    @property
    def source(self) -> Optional[str]:
        """The file the scenario was read from, if any."""
        return self._source

    @model_validator(mode="after")
    def _check(self) -> "Scenario":
        if not (self.flows or self.udp or self.voip or self.web):
            raise Issue("flows", [], "at least one [[flows]], [[udp]], [[voip]] or [[web]] entry")
        for kind in ("flows", "udp", "voip"):
            for i, h in enumerate(getattr(self, kind)):
                check_hosts(self.topology, h, f"{kind}[{i}]")
        for i, w in enumerate(self.web):
            check_web_hosts(self.topology, w, f"web[{i}]")
        seen: dict[str, str] = {}
        for kind in ("flows", "udp", "voip", "web"):
            for i, entry in enumerate(getattr(self, kind)):
                if entry.label is not None:
                    if entry.label in seen:
                        raise Issue(f"{kind}[{i}].label", entry.label, f"a label not used by another entry ({seen[entry.label]} has it)")
                    seen[entry.label] = f"{kind}[{i}]"
        total = sum(f.count for f in self.flows)
        if total > MAX_FLOWS:
            raise Issue("flows", total, f"at most {MAX_FLOWS} flows in all (counts included)")
        if self.output.traces and self.duration / self.output.sample_interval > MAX_SAMPLES:
            raise Issue("output.sample_interval", self.output.sample_interval, f"an interval of at least duration / {MAX_SAMPLES:.0e} = {self.duration / MAX_SAMPLES:g} s")
        return self

    # --- construction -------------------------------------------------------------------

    @classmethod
    def parse(cls, data: dict, source: str | None = None) -> "Scenario":
        """From a dict (parsed TOML or JSON); ScenarioError on any bad value."""
        if not isinstance(data, dict):
            raise ScenarioError([Issue("scenario", data, "a table of scenario fields")], source)
        where = _too_deep(data)
        if where is not None:
            raise ScenarioError([], source, f"{source or 'scenario'}: {where} is nested more than {MAX_DEPTH} tables or lists deep")
        try:
            sc = cls.model_validate(data)
        except ValidationError as e:
            raise ScenarioError(issues_from(e, cls), source) from None
        if sc.name is None and source:
            sc.name = safe_file_name(Path(source).stem)
        sc._source = source
        return sc

    @classmethod
    def from_toml(cls, path: str | Path) -> "Scenario":
        """Read a scenario file; ScenarioError when it is missing, not TOML, or invalid."""
        path = Path(path)
        try:
            with open(path, "rb") as f:
                raw = f.read(MAX_FILE_BYTES + 1)  # bounded: /dev/zero is a file too
            if len(raw) > MAX_FILE_BYTES:
                raise ScenarioError([], str(path), f"{path} is larger than {MAX_FILE_BYTES >> 20} MiB; a scenario file is a few kB")
            text = raw.decode("utf-8")
        except (OSError, UnicodeDecodeError) as e:
            reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
            raise ScenarioError([], str(path), f"cannot read scenario file {path}: {reason}") from None
        if _LONG_DOTTED_KEY.search(text):
            raise ScenarioError([], str(path), f"{path}: a dotted key is nested more than {MAX_DEPTH} tables deep")
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise ScenarioError([], str(path), f"{path} is not valid TOML: {e}") from None
        except ValueError:  # Python's own bound on int(): 4300 digits
            raise ScenarioError([], str(path), f"{path}: a number has more digits than can be read (at most 4300)") from None
        except RecursionError:
            raise ScenarioError([], str(path), f"{path}: values are nested more than {MAX_DEPTH} deep") from None
        return cls.parse(data, str(path))

    @classmethod
    def coerce(cls, scenario: "Scenario | str | Path | dict") -> "Scenario":
        """A Scenario from a Scenario, a TOML path or a dict."""
        if isinstance(scenario, Scenario):
            return scenario
        if isinstance(scenario, (str, Path)):
            return cls.from_toml(scenario)
        return cls.parse(scenario)

    def with_seed(self, seed: int) -> "Scenario":
        """A copy with another seed (validated)."""
        return Scenario.parse({**self.model_dump(mode="json"), "seed": seed}, self._source)

    # --- the engine's form --------------------------------------------------------------

    def to_engine(self) -> dict:
        """The engine's JSON scenario form (SI numbers)."""
        items = lambda xs: [x.model_dump(exclude_none=True, exclude=_PYTHON_ONLY) for x in xs]  # noqa: E731
        return {
            "duration": self.duration,
            "seed": self.seed,
            "sample_interval": self.output.sample_interval if self.output.traces else None,
            "topology": self.topology.to_engine(),
            "flows": items(self.flows),
            "udp": items(self.udp),
            "voip": items(self.voip),
            "web": [w.to_engine() for w in self.web],
            "changes": items(self.changes),
        }

    def traffic(self) -> str:
        """E.g. "2 TCP flows, 1 UDP flow, 1 VoIP call, 1 web source"."""
        counts = [(sum(f.count for f in self.flows), "TCP flow"), (len(self.udp), "UDP flow"),
                  (len(self.voip), "VoIP call"), (len(self.web), "web source")]
        return ", ".join(f"{n} {what}{'s' if n != 1 else ''}" for n, what in counts if n)

    def flow_labels(self) -> list[tuple[int, str]]:
        """(index in `flows`, label) of every TCP flow the engine runs, counts expanded."""
        out = []
        for i, f in enumerate(self.flows):
            for k in range(f.count):
                if f.label is None:
                    label = f"{f.algorithm} {len(out)}"
                else:
                    label = f.label if f.count == 1 else f"{f.label} #{k}"
                out.append((i, label))
        return out

    def udp_labels(self) -> list[tuple[str, str]]:
        """(source, label) of every UDP flow the engine runs: [[udp]] entries, then two per [[voip]] call."""
        out = [(f"udp[{i}]", u.label or f"{u.pattern} {i}") for i, u in enumerate(self.udp)]
        for i, v in enumerate(self.voip):
            name = v.label or f"voip {i}"
            out += [(f"voip[{i}]", f"{name} →"), (f"voip[{i}]", f"{name} ←")]
        return out


def _too_deep(data: dict) -> str | None:
    """The path of the first value nested more than MAX_DEPTH deep, or None (iterative: no recursion limit)."""
    stack: list[tuple[object, str, int]] = [(data, "", 0)]
    while stack:
        value, path, depth = stack.pop()
        if depth > MAX_DEPTH:
            return path[:80] + ("..." if len(path) > 80 else "")
        if isinstance(value, dict):
            stack += [(v, f"{path}.{k}" if path else str(k), depth + 1) for k, v in value.items()]
        elif isinstance(value, list):
            stack += [(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(value)]
    return None
