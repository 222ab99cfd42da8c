"""The scenario file format: good files give the engine's form, bad files a clear error."""

from __future__ import annotations

import json

import pytest

from conftest import EXAMPLES, ONE_FLOW
from hscc import Scenario, ScenarioError, _core


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.toml")), ids=lambda p: p.name)
def test_every_example_is_valid_for_the_engine(path):
    sc = Scenario.from_toml(path)
    assert sc.name == path.stem
    _core.Simulation(json.dumps(sc.to_engine()))  # the engine accepts it too


def test_the_demo_resolves_rtts_and_units():
    sc = Scenario.from_toml(EXAMPLES / "two-reno-rtt.toml")
    e = sc.to_engine()
    assert e["duration"] == 60.0 and e["output"]["sample_interval"] == pytest.approx(0.1)
    b = e["topology"]["bottleneck"]
    assert b["rate"] == 100e6 and b["delay"] == pytest.approx(0.005) and b["buffer"] == {"bdp": 1.0}
    assert [p["rtt"] for p in e["topology"]["pairs"]] == pytest.approx([0.04, 0.12])
    assert [f["algorithm"] for f in e["flows"]] == ["reno", "reno"]
    cfg = json.loads(_core.resolve(json.dumps(e)).config())
    # rtt = 2 × (access delay + bottleneck delay): 40 ms → 15 ms, 120 ms → 55 ms (links 2 and 6: the senders' access links).
    access = {link["name"]: link["cfg"]["delay"] for link in cfg["topology"]["links"]}
    assert [access["access-s0:fwd"], access["access-s1:fwd"]] == [15_000_000_000, 55_000_000_000]
    # The engine resolves the 1-BDP buffer: 100 Mbit/s × 120 ms / 1500 B = 1000 packets.
    assert cfg["topology"]["links"][0]["cfg"]["buffer"] == {"packets": 1000}


def test_the_testbed_example_has_the_papers_shape():
    e = Scenario.from_toml(EXAMPLES / "ctcp-testbed.toml").to_engine()
    assert e["topology"]["bottleneck"]["rate"] == 700e6
    assert e["topology"]["bottleneck"]["buffer"] == {"packets": 1500}
    assert e["topology"]["pairs"][0]["rtt"] == pytest.approx(0.1)
    assert [(f["algorithm"], f["count"]) for f in e["flows"]] == [("ctcp", 4), ("reno", 4)]
    assert e["flows"][0]["params"] == {"gamma": 30.0}


def test_aliases_bools_and_labels():
    sc = Scenario.parse(
        {
            "duration": 5,
            "topology": {
                "kind": "dumbbell",
                "bottleneck": {"rate": 1e7, "delay": 0.01},
                "pairs": [{"delay": 0.01}],
            },
            "flows": [
                {
                    "pair": 0,
                    "algorithm": "Compound",
                    "params": {"nwr": True},
                    "count": 2,
                    "label": "c",
                },
                {"pair": 0, "algorithm": "newreno"},
            ],
        }
    )
    assert [f.algorithm for f in sc.flows] == ["ctcp", "reno"]
    assert sc.to_engine()["flows"][0]["params"] == {"nwr": 1.0}
    assert sc.flow_labels() == [(0, "c #0"), (0, "c #1"), (1, "reno 2")]


def test_parking_lot_and_graph():
    lot = Scenario.parse(
        {
            "duration": "1s",
            "topology": {
                "kind": "parking_lot",
                "hops": 3,
                "link": {"rate": "100Mbps", "delay": "5ms", "buffer": "1bdp"},
                "access": {"rate": "1Gbps", "delay": "1ms"},
                "long": 1,
                "cross": 2,
            },
            "flows": [{"long": 0}, {"cross": [2, 1], "algorithm": "cubic"}],
        }
    )
    _core.Simulation(json.dumps(lot.to_engine()))
    graph = Scenario.parse(
        {
            "duration": "1s",
            "topology": {
                "kind": "graph",
                "nodes": ["a", "b", "c"],
                "links": [
                    {
                        "a": "a",
                        "b": "b",
                        "fwd": {"rate": "100Mbps", "delay": "10ms", "buffer": "50pkts"},
                    },
                    {
                        "a": "b",
                        "b": "c",
                        "fwd": {"rate": "10Mbps", "delay": "10ms", "buffer": "64KB"},
                        "monitor": True,
                    },
                ],
            },
            "flows": [{"src": "a", "dst": "c"}],
        }
    )
    cfg = json.loads(_core.resolve(json.dumps(graph.to_engine())).config())
    assert cfg["topology"]["links"][2]["cfg"]["buffer"] == {"bytes": 64000}


def test_a_scenario_as_run_parses_again_to_the_same_engine_form():
    sc = Scenario.from_toml(EXAMPLES / "two-reno-rtt.toml")
    again = Scenario.parse(sc.to_dict())
    assert again.to_engine() == sc.to_engine()


# Each bad case: (what to replace in ONE_FLOW, with what) → (field, value) the message must name.
BAD = [
    ('algorithm = "reno"', 'algorithm = "cubix"', "flows[0].algorithm", '"cubix"', "one of: reno"),
    (
        'algorithm = "reno"',
        'algorithm = "ctcp"\nparams = { gama = 3 }',
        "flows[0].params.gama",
        "3",
        "a parameter of ctcp: alpha",
    ),
    (
        'algorithm = "reno"',
        'algorithm = "ctcp"\nparams = { gamma = -1 }',
        "flows[0].params.gamma",
        "-1",
        "from 0 to 1000000",
    ),
    (
        'algorithm = "reno"',
        'algorithm = "vegas"\nparams = { alpha = 2.5 }',
        "flows[0].params.alpha",
        "2.5",
        "a whole number from 0 to 1000",
    ),
    (
        'rate = "10Mbps"',
        'rate = "-5Mbps"',
        "topology.bottleneck.rate",
        '"-5Mbps"',
        "1 bit/s to 10 Tbit/s",
    ),
    (
        'rate = "10Mbps"',
        'rate = "10MBps"',
        "topology.bottleneck.rate",
        '"10MBps"',
        "rates are in bits",
    ),
    (
        'rate = "10Mbps"',
        'rtae = "10Mbps"',
        "topology.bottleneck.rtae",
        '"10Mbps"',
        "one of the fields rate, delay, buffer",
    ),
    (
        'buffer = "1bdp"',
        'buffer = "0pkts"',
        "topology.bottleneck.buffer",
        '"0pkts"',
        "1 to 10^8 packets",
    ),
    (
        'buffer = "1bdp"',
        'buffer = "lots"',
        "topology.bottleneck.buffer",
        '"lots"',
        "1500pkts, 64KB, 0.5bdp",
    ),
    (
        'delay = "5ms", buffer',
        'delay = "5ms", loss = 1.5, buffer',
        "topology.bottleneck.loss",
        "1.5",
        "probability from 0 to 1",
    ),
    (
        'kind = "dumbbell"',
        'kind = "star"',
        "topology.kind",
        '"star"',
        '"dumbbell", "parking_lot", "graph"',
    ),
    (
        'rtt = "20ms"',
        'rtt = "4ms"',
        "topology.pairs[0].rtt",
        '"4ms"',
        "at least 2 × (bottleneck delay",
    ),
    (
        'rtt = "20ms"',
        'rtt = "20ms", delay = "5ms"',
        "topology.pairs[0].rtt",
        '"20ms"',
        "either delay or rtt",
    ),
    (
        'rtt = "20ms"',
        'rtt = "20ms", buffer = "1bdp"',
        "topology.pairs[0].buffer",
        '"1bdp"',
        "packets or bytes for access links",
    ),
    ("pair = 0", "pair = 3", "flows[0].pair", "3", "a host pair index from 0 to 0"),
    ("pair = 0", 'src = "a"', "flows[0].src", '"a"', "pair for a dumbbell"),
    ("pair = 0", "pair = 0\nmss = 0", "flows[0].mss", "0", "64 to 65495 bytes"),
    ("pair = 0", "pair = 0\ncount = 0", "flows[0].count", "0", "1 to 1000000 flows"),
    ("pair = 0", 'pair = 0\nsack = "yes"', "flows[0].sack", '"yes"', "true or false"),
    (
        "pair = 0",
        'pair = 0\nrecovery = "fast"',
        "flows[0].recovery",
        '"fast"',
        'one of "prr", "classic", "sack1"',
    ),
    (
        "pair = 0",
        'pair = 0\nsack = false\nrecovery = "sack1"',
        "flows[0].recovery",
        '"sack1"',
        '"sack1" needs sack = true',
    ),
    ("pair = 0", 'pair = 0\nstart = "2s"\nstop = "1s"', "flows[0].stop", '"1s"', "after start"),
    ("pair = 0", 'pair = 0\nrwnd = "1KB"', "flows[0].rwnd", '"1KB"', "one MSS to 65535 x 2^14"),
    ("pair = 0", 'pair = 0\nrwnd = "2GB"', "flows[0].rwnd", '"2GB"', "TCP's largest window"),
    ('duration = "10s"', 'duration = "0s"', "duration", '"0s"', "a positive duration"),
    (
        'duration = "10s"',
        'duration = "a while"',
        "duration",
        '"a while"',
        "a time of 0 or more, such as 100ms",
    ),
    ("seed = 7", "seed = -1", "seed", "-1", "a whole number from 0 to 18446744073709551615"),
    (
        'sample_interval = "100ms"',
        'sample_interval = "1ns"',
        "output.sample_interval",
        '"1ns"',
        "at most 10 million samples per run",
    ),
    (
        'sample_interval = "100ms"',
        'sample_interval = "100ms"\ntraces = ["pkts"]',
        "output.traces[0]",
        '"pkts"',
        '"flows" or "queues"',
    ),
]


@pytest.mark.parametrize(
    "old, new, field, value, allowed", BAD, ids=[b[2] + ":" + b[1][:20] for b in BAD]
)
def test_bad_files_name_the_field_the_value_and_what_is_allowed(
    write_toml, old, new, field, value, allowed
):
    assert old in ONE_FLOW
    path = write_toml(ONE_FLOW.replace(old, new, 1))
    with pytest.raises(ScenarioError) as e:
        Scenario.from_toml(path)
    msg = str(e.value)
    assert f"{field}: {value}" in msg, msg
    assert allowed in msg, msg
    assert str(path) in msg


def test_missing_required_fields_are_named(write_toml):
    path = write_toml(ONE_FLOW.replace('duration = "10s"', "").replace('rate = "10Mbps", ', ""))
    with pytest.raises(ScenarioError) as e:
        Scenario.from_toml(path)
    assert [i.field for i in e.value.issues] == ["topology.bottleneck.rate"]  # the first one found
    assert 'topology.bottleneck.rate: missing (Rate, e.g. "100Mbps"' in str(e.value)


def test_a_file_that_is_not_toml_or_not_there(write_toml, tmp_path):
    with pytest.raises(ScenarioError, match=r"is not valid TOML: .*line 2"):
        Scenario.from_toml(write_toml('duration = "1s"\nthis is not toml\n'))
    with pytest.raises(ScenarioError, match="cannot read scenario file .*nope.toml: No such file"):
        Scenario.from_toml(tmp_path / "nope.toml")


def test_routing_errors_are_found_when_the_scenario_is_read():
    # A graph whose links leave the destination unreachable: the engine routes every source while checking.
    with pytest.raises(ScenarioError) as e:
        Scenario.parse(
            {
                "duration": "1s",
                "topology": {
                    "kind": "graph",
                    "nodes": ["a", "b", "c"],
                    "links": [
                        {
                            "a": "a",
                            "b": "b",
                            "fwd": {"rate": "10Mbps", "delay": "1ms", "buffer": "1bdp"},
                        }
                    ],
                },
                "flows": [{"src": "a", "dst": "c"}],
            }
        )
    assert 'flows[0].dst: "c" is not allowed (a node reachable from src)' in str(e.value)


def test_limits_apply_when_a_run_is_built_not_when_it_is_read():
    import hscc

    sc = Scenario.from_toml(EXAMPLES / "two-reno-rtt.toml")  # fine to read…
    with pytest.raises(ScenarioError) as e:
        hscc.run(sc, max_memory=1000)  # …refused to run within 1 kB
    assert "memory" in str(e.value)


def test_the_field_reference_is_generated_from_the_engine_and_current():
    from hscc import reference

    doc = (EXAMPLES.parent / "docs" / "scenario.md").read_text()
    assert doc.strip() == reference.markdown().strip(), (
        "docs/scenario.md is stale: run `hscc fields > docs/scenario.md`"
    )
    # Every field of every table is documented where it is defined.
    undocumented = [
        f"{name}.{field}"
        for name, d in reference.definitions().items()
        for field, node in d.get("properties", {}).items()
        if field != "kind" and not node.get("description")
    ]
    assert undocumented == []


def test_a_check_counts_traffic_without_reading_the_normalized_form(tmp_path):
    # Two counted TCP entries (3 + 1 flows), two UDP flows, one VoIP call (two UDP
    # sources in the engine), one web source; a check of 10^5 flows must not parse
    # the filled-in form of every flow, so the summary comes from the engine's labels.
    text = (EXAMPLES / "mixed-traffic.toml").read_text()
    sc = Scenario.from_toml(EXAMPLES / "mixed-traffic.toml")
    assert sc.traffic() == "2 TCP flows, 1 UDP flow, 1 VoIP call, 1 web source"
    assert object.__getattribute__(sc, "_checked") is None
    assert (sc.resolved().topology, sc.resolved().duration) == ("dumbbell", 40.0)
    path = tmp_path / "more.toml"
    path.write_text(
        text.replace("[[flows]]", "[[flows]]\ncount = 3", 1)
        + '\n[[udp]]\npair = 1\npattern = "cbr"\nrate = "1Mbps"\nlabel = "cbr"\n'
    )
    more = Scenario.from_toml(path)
    assert more.traffic() == "4 TCP flows, 2 UDP flows, 1 VoIP call, 1 web source"
    assert more.flows[0].count == 3  # the fields are read on first use
    assert object.__getattribute__(more, "_checked") is not None
