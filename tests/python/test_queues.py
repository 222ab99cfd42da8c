"""Queue disciplines and ECN through the Python API: the tables carry marks and
the discipline's drops per link, ECN reductions and CE marks per flow."""

from __future__ import annotations

import pytest

import hscc
from conftest import EXAMPLES
from hscc import Scenario


def test_codel_marks_the_ecn_flow_and_drops_the_other():
    r = hscc.run(EXAMPLES / "codel-ecn.toml")
    link = r.bottlenecks.row(0, named=True)
    assert link["name"] == "bottleneck:fwd"
    assert link["marks"] > 0 and link["drops_aqm"] > 0 and link["drops_queue"] == 0
    assert link["drops"] == link["drops_queue"] + link["drops_aqm"] + link["drops_random"]
    # CoDel's 5 ms target, not the 600 ms buffer.
    assert link["mean_qdelay_s"] < 0.015
    ecn, plain = r.flows.to_dicts()
    assert ecn["ce_received"] == link["marks"] and ecn["ecn_reductions"] > 0 and ecn["retrans"] == 0
    assert plain["ce_received"] == 0 and plain["ecn_reductions"] == 0 and plain["retrans"] > 0
    q = r.queues.filter(r.queues["name"] == "bottleneck:fwd")
    assert q["marks"].sum() == link["marks"]


def test_the_same_scenario_under_droptail_fills_the_buffer():
    sc = Scenario.from_toml(EXAMPLES / "codel-ecn.toml").to_dict()
    del sc["topology"]["bottleneck"]["queue"]
    r = hscc.run(Scenario.parse(sc))
    link = r.bottlenecks.row(0, named=True)
    assert link["marks"] == 0 and link["drops_aqm"] == 0
    assert link["mean_qdelay_s"] > 0.1


def test_a_field_of_another_discipline_is_refused_by_name():
    sc = Scenario.from_toml(EXAMPLES / "codel-ecn.toml").to_dict()
    sc["topology"]["bottleneck"]["queue"] = {"kind": "codel", "min_th": 5}
    with pytest.raises(
        Exception, match=r"topology\.bottleneck\.queue\.min_th.*only with kind = red"
    ):
        hscc.run(Scenario.parse(sc))
