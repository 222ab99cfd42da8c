"""The traffic of a scenario: TCP flows, UDP flows, VoIP calls, web-like
transfers, and scheduled link changes.

Flows, UDP flows and calls name their hosts in the topology's own terms: a
dumbbell host pair (`pair = 0`), a parking lot's long pair (`long = 0`) or
cross pair (`cross = [bottleneck, i]`), or graph nodes (`src`, `dst`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Optional

from pydantic import BeforeValidator, Field, StrictBool, StrictInt, model_validator

from hscc import catalog, units
from hscc.errors import MISSING, Issue
from hscc.fields import Bytes, Count, Index, Model, Mss, PositiveSeconds, Rate, Seconds, between
from hscc.topology import Dumbbell, Graph, ParkingLot


class Hosts(Model):
    """Where traffic enters and leaves the network."""

    pair: Optional[Index] = Field(None, description="dumbbell: index of the host pair")
    long: Optional[Index] = Field(None, description="parking lot: index of the long host pair")
    cross: Optional[tuple[Index, Index]] = Field(None, description="parking lot: [bottleneck, index] of a cross host pair")
    src: Optional[str] = Field(None, description="graph: sending node")
    dst: Optional[str] = Field(None, description="graph: receiving node")
    label: Optional[str] = Field(None, description="name in tables and plots")


def _algorithm(name: str, params: dict) -> str:
    """The canonical algorithm name; params checked and converted in place (bools → 0/1)."""
    algo = catalog.find(name)
    if algo is None:
        raise Issue("algorithm", name, f"one of: {catalog.known_names()}")
    for key, value in params.items():
        p = algo.param(key)
        if p is None:
            known = ", ".join(q.name for q in algo.params) or "none"
            raise Issue(f"params.{key}", value, f"a parameter of {algo.name}: {known}")
        try:
            params[key] = p.check(value)
        except ValueError as e:
            raise Issue(f"params.{key}", value, str(e)) from None
    return algo.name


def _stop_after_start(start: float, stop: Optional[float]) -> None:
    if stop is not None and stop <= start:
        raise Issue("stop", stop, f"a time after start ({start:g} s)")


class Flow(Hosts):
    """A TCP flow, or `count` identical ones."""

    reverse: StrictBool = Field(False, description="send from the receiving host to the sending host")
    algorithm: str = Field("reno", description="congestion control (see `hscc algorithms`)")
    params: dict[str, Any] = Field(default_factory=dict, description="the algorithm's parameters")
    count: Count = Field(1, description="identical flows to create")
    start: Seconds = Field(0.0, description="start time")
    stop: Optional[Seconds] = Field(None, description="stop sending new data at this time")
    size: Optional[Bytes] = Field(None, description="bytes to transfer (unlimited when absent)")
    mss: Mss = Field(1448, description="maximum segment size, bytes (1448: 1500-byte packets)")
    rwnd: Optional[Bytes] = Field(None, description="receiver window, bytes (unlimited when absent)")
    sack: StrictBool = Field(True, description="SACK loss recovery (NewReno when false)")
    recovery: Literal["prr", "classic"] = Field("prr", description="window reduction in recovery")
    init_cwnd: Annotated[StrictInt, between(1, 1_000_000, "1 to 1000000 segments")] = Field(10, description="initial window, segments")
    min_rto: PositiveSeconds = Field(0.2, description="minimum retransmission timeout")
    delayed_ack: StrictBool = Field(True, description="delayed ACKs (every second segment)")
    delack_timeout: Seconds = Field(0.04, description="delayed-ACK timer")
    pacing: StrictBool = Field(False, description="Linux default pacing when the algorithm sets no rate")
    timestamps: StrictBool = Field(True, description="TCP timestamps")
    send_jitter: Seconds = Field(0.0, description="random processing delay per packet at the sender, uniform in [0, send_jitter]")

    @model_validator(mode="after")
    def _check(self) -> "Flow":
        self.algorithm = _algorithm(self.algorithm, self.params)
        _stop_after_start(self.start, self.stop)
        if self.rwnd is not None and self.rwnd < self.mss:
            raise Issue("rwnd", self.rwnd, f"at least one MSS ({self.mss} bytes)")
        return self


class Udp(Hosts):
    """A UDP flow: constant bit rate, on/off, or Poisson arrivals."""

    pattern: Literal["cbr", "onoff", "poisson"] = Field(description='"cbr", "onoff" or "poisson"')
    rate: Rate = Field(description="rate on the wire (the peak rate for onoff), e.g. 50Mbps")
    on: Optional[PositiveSeconds] = Field(None, description="onoff: on period")
    off: Optional[PositiveSeconds] = Field(None, description="onoff: off period")
    packet_size: Annotated[int, between(28, 65535, "28 to 65535 bytes")] = Field(1500, description="bytes on the wire per packet")
    start: Seconds = Field(0.0, description="start time")
    stop: Optional[Seconds] = Field(None, description="stop time")

    @model_validator(mode="after")
    def _check(self) -> "Udp":
        for period in ("on", "off"):
            if self.pattern == "onoff" and getattr(self, period) is None:
                raise Issue(period, MISSING, "the on and off periods of an onoff source, e.g. 10s")
            if self.pattern != "onoff" and getattr(self, period) is not None:
                raise Issue(period, getattr(self, period), "on/off periods only with pattern = \"onoff\"")
        _stop_after_start(self.start, self.stop)
        return self


class Voip(Hosts):
    """A two-way VoIP call: a CBR flow each way (src → dst, then dst → src)."""

    rate: Rate = Field("64kbps", description="voice codec rate (default G.711, 64kbps)")
    interval: Annotated[float, BeforeValidator(units.seconds), between(0, 1, "a packet interval above 0, at most 1 s", lo_open=True)] = Field(0.02, description="packet interval (default 20ms)")
    header: Annotated[int, between(0, 65535, "0 to 65535 bytes")] = Field(40, description="IP + UDP + RTP header bytes per packet")
    start: Seconds = Field(0.0, description="start time")
    stop: Optional[Seconds] = Field(None, description="stop time")

    @model_validator(mode="after")
    def _check(self) -> "Voip":
        _stop_after_start(self.start, self.stop)
        return self


class WebSize(Model):
    """Response sizes: a fixed size ("50KB"), or { dist = "exponential" | "pareto", mean, shape }."""

    dist: Literal["fixed", "exponential", "pareto"] = Field(description='"fixed", "exponential" or "pareto"')
    bytes: Optional[Bytes] = Field(None, description="fixed: the size")
    mean: Optional[Bytes] = Field(None, description="exponential, pareto: the mean size")
    shape: Optional[Annotated[float, between(1, 100, "a tail index above 1", lo_open=True)]] = Field(None, description="pareto: the tail index (> 1)")

    @model_validator(mode="before")
    @classmethod
    def _fixed(cls, v: object) -> object:
        return v if isinstance(v, dict) else {"dist": "fixed", "bytes": v}

    @model_validator(mode="after")
    def _check(self) -> "WebSize":
        need = {"fixed": ("bytes",), "exponential": ("mean",), "pareto": ("shape", "mean")}[self.dist]
        for k in ("bytes", "mean", "shape"):
            v = getattr(self, k)
            if k in need and v is None:
                raise Issue(k, MISSING, f"the {k} of a {self.dist} size distribution")
            if k not in need and v is not None:
                raise Issue(k, v, f"only {', '.join(need)} for a {self.dist} size distribution")
        return self

    def to_engine(self) -> dict:
        if self.dist == "fixed":
            return {"fixed": self.bytes}
        if self.dist == "exponential":
            return {"exponential": {"mean": float(self.mean)}}
        return {"pareto": {"shape": self.shape, "mean": float(self.mean)}}


class Web(Model):
    """Web-like traffic: short TCP transfers arriving as a Poisson process."""

    pairs: list[Index] = Field(default_factory=list, description="dumbbell: host pairs whose senders serve and receivers fetch")
    servers: list[str] = Field(default_factory=list, description="graph: serving nodes")
    clients: list[str] = Field(default_factory=list, description="graph: fetching nodes")
    rate: Annotated[float, between(0, 1e9, "a number of transfers per second above 0", lo_open=True)] = Field(description="transfers per second")
    size: WebSize = Field({"dist": "pareto", "shape": 1.2, "mean": 12000}, description="response sizes (default Pareto, shape 1.2, mean 12KB)")
    algorithm: str = Field("reno", description="congestion control of the transfers")
    params: dict[str, Any] = Field(default_factory=dict, description="the algorithm's parameters")
    start: Seconds = Field(0.0, description="first arrival no earlier than this")
    stop: Optional[Seconds] = Field(None, description="no arrivals from this time")
    label: Optional[str] = Field(None, description="name in tables")

    @model_validator(mode="after")
    def _check(self) -> "Web":
        self.algorithm = _algorithm(self.algorithm, self.params)
        _stop_after_start(self.start, self.stop)
        return self

    def to_engine(self) -> dict:
        d = self.model_dump(exclude_none=True, exclude={"label"})
        d["size"] = self.size.to_engine()
        return d


class Change(Model):
    """A scheduled change of one link's rate and/or delay."""

    at: Seconds = Field(description="when")
    link: str = Field(description='link name, e.g. "bottleneck:fwd"')
    rate: Optional[Rate] = Field(None, description="new rate")
    delay: Optional[Seconds] = Field(None, description="new propagation delay")

    @model_validator(mode="after")
    def _check(self) -> "Change":
        if self.rate is None and self.delay is None:
            raise Issue("rate", MISSING, "a new rate, a new delay, or both")
        return self


_HOSTS = {"dumbbell": ("pair",), "parking_lot": ("long", "cross"), "graph": ("src", "dst")}


def check_hosts(topo: Dumbbell | ParkingLot | Graph, h: Hosts, at: str) -> None:
    """Raise an Issue unless `h` names existing hosts in the topology's own terms."""
    wanted = _HOSTS[topo.kind]
    for other in ("pair", "long", "cross", "src", "dst"):
        if other not in wanted and getattr(h, other) is not None:
            raise Issue(f"{at}.{other}", getattr(h, other), f"{' / '.join(wanted)} for a {topo.kind} topology")
    if isinstance(topo, Dumbbell):
        n = len(topo.pairs)
        if h.pair is None or h.pair >= n:
            raise Issue(f"{at}.pair", MISSING if h.pair is None else h.pair, f"a host pair index from 0 to {n - 1}")
    elif isinstance(topo, ParkingLot):
        if (h.long is None) == (h.cross is None):
            raise Issue(f"{at}.long", MISSING if h.long is None else h.long, "exactly one of long = i or cross = [bottleneck, i]")
        if h.long is not None and h.long >= topo.long:
            raise Issue(f"{at}.long", h.long, f"an index below long = {topo.long}")
        if h.cross is not None and (h.cross[0] >= topo.hops or h.cross[1] >= topo.cross):
            raise Issue(f"{at}.cross", list(h.cross), f"[bottleneck below {topo.hops}, index below cross = {topo.cross}]")
    else:
        for end in ("src", "dst"):
            name = getattr(h, end)
            if name not in topo.nodes:
                raise Issue(f"{at}.{end}", MISSING if name is None else name, f"one of the nodes: {', '.join(topo.nodes)}")
        if h.src == h.dst:
            raise Issue(f"{at}.dst", h.dst, "a node other than src")


def check_web_hosts(topo: Dumbbell | ParkingLot | Graph, w: Web, at: str) -> None:
    """Raise an Issue unless the web source's hosts exist."""
    if isinstance(topo, ParkingLot):
        raise Issue(at, "web traffic", "web traffic on a dumbbell or a graph (parking lots have no spare hosts)")
    if isinstance(topo, Dumbbell):
        if w.servers or w.clients:
            raise Issue(f"{at}.servers", w.servers or w.clients, "pairs = [...] for a dumbbell topology")
        if not w.pairs or any(k >= len(topo.pairs) for k in w.pairs):
            raise Issue(f"{at}.pairs", w.pairs, f"host pair indices from 0 to {len(topo.pairs) - 1}")
        return
    if w.pairs:
        raise Issue(f"{at}.pairs", w.pairs, "servers = [...] and clients = [...] for a graph topology")
    for k in ("servers", "clients"):
        names = getattr(w, k)
        bad = [n for n in names if n not in topo.nodes]
        if not names or bad:
            raise Issue(f"{at}.{k}", bad[0] if bad else names, f"one or more of the nodes: {', '.join(topo.nodes)}")
