"""The network of a scenario: a dumbbell, a parking lot or a graph of named nodes.

Links are named as the engine names them (for [[changes]] and in results):
dumbbell "bottleneck:fwd" / "bottleneck:rev", "access-s0:fwd", "access-d0:fwd", …;
parking lot "bottleneck0:fwd", …; graph "A-B:fwd" / "A-B:rev" for a link a = "A", b = "B".
"""

from __future__ import annotations

from typing import Annotated, Literal, Optional, Union

from pydantic import Field, StrictBool, StrictInt, model_validator

from hscc.errors import MISSING, Issue
from hscc.fields import MAX_FLOWS, Buffer, Model, Probability, Rate, Seconds, between


class Link(Model):
    """One direction of a link."""

    rate: Rate = Field(description="rate, e.g. 100Mbps")
    delay: Seconds = Field(description="one-way propagation delay, e.g. 5ms")
    buffer: Buffer = Field("1bdp", description="queue limit: 1500pkts, 64KB or 0.5bdp (default 1bdp)")
    loss: Probability = Field(0.0, description="random loss probability per packet, e.g. 1e-6")
    jitter: Seconds = Field(0.0, description="Gaussian delay jitter (standard deviation), e.g. 1ms")


class Pair(Model):
    """The access links of one sender/receiver host pair."""

    rate: Rate = Field("10Gbps", description="access-link rate (default 10Gbps)")
    delay: Optional[Seconds] = Field(None, description="one-way delay of the sender's access link")
    rtt: Optional[Seconds] = Field(None, description="dumbbell only: the pair's base RTT, setting delay = rtt/2 - bottleneck delay - recv_delay")
    recv_delay: Seconds = Field(0.0, description="one-way delay of the receiver's access link")
    buffer: Buffer = Field("100000pkts", description="access-link queue limit in packets or bytes")

    @model_validator(mode="after")
    def _no_bdp(self) -> "Pair":
        if "bdp" in self.buffer:
            raise Issue("buffer", f"{self.buffer['bdp']:g}bdp", "packets or bytes for access links, e.g. 1000pkts")
        return self


class Dumbbell(Model):
    """Host pairs on either side of one bottleneck (monitored in both directions)."""

    kind: Literal["dumbbell"]
    bottleneck: Link = Field(description="the left-to-right bottleneck")
    reverse: Optional[Link] = Field(None, description="right-to-left bottleneck (default: the bottleneck without its loss)")
    pairs: list[Pair] = Field(min_length=1, description="host pairs; traffic names them by index")

    @model_validator(mode="after")
    def _check_rtt(self) -> "Dumbbell":
        for i, p in enumerate(self.pairs):
            if p.rtt is not None and p.delay is not None:
                raise Issue(f"pairs[{i}].rtt", p.rtt, "either delay or rtt, not both")
            if p.rtt is None and p.delay is None:
                raise Issue(f"pairs[{i}].delay", MISSING, "the sender's access delay, e.g. 10ms, or rtt = the pair's base RTT")
            if p.rtt is not None and self.access_delay(p) < 0:
                fixed = 2 * (self.bottleneck.delay + p.recv_delay)
                raise Issue(f"pairs[{i}].rtt", p.rtt, f"at least 2 × (bottleneck delay + recv_delay) = {fixed:g} s")
        return self

    def access_delay(self, p: Pair) -> float:
        """The sender's access delay of pair `p`: given, or derived from its rtt."""
        if p.rtt is None:
            return p.delay
        return p.rtt / 2 - self.bottleneck.delay - p.recv_delay

    def to_engine(self) -> dict:
        topo = self.model_dump(exclude_none=True)
        for p, model in zip(topo["pairs"], self.pairs):
            p.pop("rtt", None)
            p["delay"] = self.access_delay(model)
        return topo


class ParkingLot(Model):
    """A chain of `hops` bottlenecks (each monitored), crossed by long and cross traffic."""

    kind: Literal["parking_lot"]
    hops: Annotated[StrictInt, between(1, 254, "1 to 254 bottlenecks")] = Field(description="number of bottlenecks")
    link: Link = Field(description="every bottleneck, both directions")
    access: Pair = Field(description="access links of every host pair")
    long: Annotated[StrictInt, between(0, MAX_FLOWS, "0 or more host pairs")] = Field(description="host pairs crossing every bottleneck")
    cross: Annotated[StrictInt, between(0, MAX_FLOWS, "0 or more host pairs")] = Field(description="host pairs crossing one bottleneck, per bottleneck")

    @model_validator(mode="after")
    def _delay_not_rtt(self) -> "ParkingLot":
        if self.access.rtt is not None:
            raise Issue("access.rtt", self.access.rtt, "rtt is for dumbbell pairs; give delay here")
        if self.access.delay is None:
            raise Issue("access.delay", MISSING, "the one-way access delay, e.g. 10ms")
        return self

    def to_engine(self) -> dict:
        return self.model_dump(exclude_none=True)


class GraphLink(Model):
    """A link between two named nodes (both directions)."""

    a: str = Field(description="one end (node name)")
    b: str = Field(description="other end (node name)")
    fwd: Link = Field(description="direction a → b")
    rev: Optional[Link] = Field(None, description="direction b → a (default: same as fwd)")
    monitor: StrictBool = Field(False, description="record queue statistics and traces for both directions")


class Graph(Model):
    """Any graph of named nodes; routes are shortest paths."""

    kind: Literal["graph"]
    nodes: list[str] = Field(min_length=2, description="node names")
    links: list[GraphLink] = Field(min_length=1, description="links")

    @model_validator(mode="after")
    def _names(self) -> "Graph":
        for i, n in enumerate(self.nodes):
            if not n.strip() or any(ord(c) < 32 for c in n):
                raise Issue(f"nodes[{i}]", n, "a name that is not empty and has no control characters")
            if n in self.nodes[:i]:
                raise Issue(f"nodes[{i}]", n, "a name not used by another node")
        pairs: dict[frozenset, int] = {}
        for i, link in enumerate(self.links):
            for end in ("a", "b"):
                if getattr(link, end) not in self.nodes:
                    raise Issue(f"links[{i}].{end}", getattr(link, end), f"one of the nodes: {', '.join(self.nodes)}")
            if link.a == link.b:
                raise Issue(f"links[{i}].b", link.b, f"a node other than a ({link.a}): a link joins two nodes")
            pair = frozenset((link.a, link.b))
            if pair in pairs:
                raise Issue(f"links[{i}]", f"{link.a}-{link.b}", f"one link per pair of nodes (links[{pairs[pair]}] joins them already)")
            pairs[pair] = i
        return self

    def to_engine(self) -> dict:
        return self.model_dump(exclude_none=True)


Topology = Annotated[Union[Dumbbell, ParkingLot, Graph], Field(discriminator="kind")]
