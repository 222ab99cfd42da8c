"""validation/dummynet/tick.py: its six set-ups are what its table says they are."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tick():
    path = ROOT / "validation" / "dummynet" / "tick.py"
    spec = importlib.util.spec_from_file_location("dummynet_tick", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["dummynet_tick"] = module
    spec.loader.exec_module(module)
    return module


def pipe(sc):
    topo = sc["topology"]
    if topo["kind"] == "dumbbell":
        return topo["bottleneck"], topo.get("reverse", topo["bottleneck"])
    (link,) = [x for x in topo["links"] if x["a"] == "router_in"]
    return link["fwd"], link["rev"]


@pytest.mark.timeout(120)
def test_the_set_ups_tick_the_directions_they_name(tick):
    base = tick.point(2.0)
    for _name, _what, shape, how in tick.SETUPS:
        sc = shape(base, how)
        fwd, rev = pipe(sc)
        assert fwd.get("tick") == (None if how == "none" else "1ms")
        assert rev.get("tick") == ("1ms" if how == "both" else None)
    graph = tick.testbed(base, "none")
    assert [f["src"] for f in graph["flows"]] == ["s0", "s1", "s2", "s3"]
    # the long flows' hosts carry the rest of their 240 ms: (240/2 - 20) ms each way
    delays = {x["a"]: x["fwd"]["delay"] for x in graph["topology"]["links"] if x["b"] == "switch_l"}
    assert delays == {"s0": "0ms", "s1": "0ms", "s2": "100ms", "s3": "100ms"}


@pytest.mark.timeout(120)
def test_a_short_run_of_the_test_bed_measures_every_column(tick):
    m = tick.measure(tick.testbed(tick.point(2.0), "data"), seed=1)
    assert set(m) == {
        "ratio",
        "goodput_bps",
        "loss_events_short",
        "loss_events_long",
        "pipe_drops",
        "switch_drops",
    }
    assert math.isfinite(m["ratio"]) and m["ratio"] > 0
    assert 0 < m["goodput_bps"] <= 700e6
