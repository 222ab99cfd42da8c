"""Checks of the ns-3 cross-check harness itself (run by scripts/validate-ns3.sh, not by
the default test suite): it needs validation/ns3/.venv (ns3) and HSCC_PYTHON (hscc)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import configs  # noqa: E402
import validate  # noqa: E402

HSCC_PYTHON = os.environ.get(
    "HSCC_PYTHON", str(Path(__file__).resolve().parents[2] / ".venv" / "bin" / "python")
)


def test_one_flow_without_loss_fills_the_link_in_both_tools(tmp_path: Path) -> None:
    c = configs.TINY
    row = validate.run_one(c, tmp_path, HSCC_PYTHON)
    # Payload capacity: 1448 payload bytes per 1502 bytes on the wire (PPP framing).
    capacity = c.rate_bps * configs.SEGMENT / (configs.PACKET + configs.PPP)
    for tool in ("ns3", "hscc"):
        s = row[tool]
        assert s["second_half_bps"][0] >= 0.95 * capacity, (tool, s["second_half_bps"][0], capacity)
        assert s["second_half_bps"][0] <= 1.001 * capacity, (
            tool,
            s["second_half_bps"][0],
            capacity,
        )
        assert s["random_drops"] == 0
    assert abs(row["delta_aggregate"]) <= 0.05, row["delta_aggregate"]
    assert row["verdict"] == "within ±10 %"
    # Both tools ran the same configuration: their inputs are on disk beside the outputs.
    for f in ("ns3.json", "scenario.json", "ns3-out.json", "hscc-out.json"):
        assert (tmp_path / c.name / f).is_file()


def test_verdict_needs_both_goodput_and_jain_within_ten_percent() -> None:
    s = {"aggregate_bps": 1e6, "jain_second_half": 1.0}
    assert validate.verdict(s, dict(s, aggregate_bps=1.11e6))[0] == "DIFFERS"
    assert validate.verdict(s, dict(s, aggregate_bps=1.09e6))[0] == "within ±10 %"
    assert validate.verdict(s, dict(s, jain_second_half=0.89))[0] == "DIFFERS"
    assert validate.verdict(s, dict(s, jain_second_half=None))[0] == "DIFFERS"


def test_an_ns3_run_past_its_budget_is_reported_not_fatal(tmp_path: Path) -> None:
    # 5 s is less than importing ns-3's bindings takes: the run is stopped, hscc's side stays.
    row = validate.run_one(configs.TINY, tmp_path, HSCC_PYTHON, ns3_timeout=5.0)
    assert row["ns3"] is None and row["hscc"]["aggregate_bps"] > 0
    assert row["verdict"].startswith("ns-3 not finished: 0 of 20 s simulated"), row["verdict"]
    md = validate.table([row])
    assert "| tiny-1x10M | 20 | — / " in md and "ns-3 not finished" in md


def test_jain() -> None:
    assert validate.jain([1.0, 1.0, 1.0]) == pytest.approx(1.0)
    assert validate.jain([1.0, 0.0]) == pytest.approx(0.5)
    assert validate.jain([0.0, 0.0]) is None


def test_refuses_a_non_empty_run_directory(tmp_path: Path) -> None:
    (tmp_path / "old.txt").write_text("keep me")
    with pytest.raises(SystemExit) as e:
        validate.main(["--out", str(tmp_path), "--hscc-python", HSCC_PYTHON])
    assert e.value.code == 2
    assert (tmp_path / "old.txt").read_text() == "keep me"


def test_unknown_configuration_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as e:
        validate.main(
            ["--out", str(tmp_path / "new"), "--hscc-python", HSCC_PYTHON, "--only", "no-such"]
        )
    assert e.value.code == 2
    assert not (tmp_path / "new").exists()


def _read_by_hscc(scenarios: list[dict]) -> list[dict]:
    """The scenarios as hscc reads them (every default and the `stack` profile filled in)."""
    code = (
        "import json, sys; from hscc.scenario import Scenario; "
        "print(json.dumps([Scenario.parse(s).to_dict() for s in json.load(sys.stdin)]))"
    )
    out = subprocess.run(
        [HSCC_PYTHON, "-c", code],
        input=json.dumps(scenarios),
        capture_output=True,
        text=True,
        check=True,
    )
    read: list[dict] = json.loads(out.stdout)
    return read


def test_both_sides_describe_the_same_network() -> None:
    cs = list(configs.CONFIGS.values())
    scenarios = [configs.hscc_scenario(c) for c in cs]
    for c, h, read in zip(cs, scenarios, _read_by_hscc(scenarios), strict=True):
        n = configs.ns3_json(c)
        links = {(link["a"], link["b"]): link for link in h["topology"]["links"]}
        bn = links["L", "R"]
        assert len(n["flows"]) == len(h["flows"]) == (len(links) - 1) // 2
        assert n["bottleneck"]["rate_bps"] == bn["fwd"]["rate"] == bn["rev"]["rate"]
        assert n["bottleneck"]["buffer_pkts"] == int(bn["fwd"]["buffer"].removesuffix("pkts"))
        assert n["bottleneck"]["loss"] == bn["fwd"].get("loss", 0.0) and "loss" not in bn["rev"]
        assert all(link["fwd"]["framing"] == configs.PPP for link in links.values())
        # The TCP settings as hscc runs them: the ns3 profile's and the flows' own.
        for i, (nf, hf) in enumerate(zip(n["flows"], read["flows"], strict=True)):
            assert (hf["src"], hf["dst"]) == (f"S{i}", f"D{i}")
            assert nf["start_s"] == hf["start"]
            assert (nf["send_delay_s"], nf["recv_delay_s"]) == (
                links[f"S{i}", "L"]["fwd"]["delay"],
                links["R", f"D{i}"]["fwd"]["delay"],
            )
            assert (
                n["tcp"]["min_rto_s"] == hf["min_rto"]
                and n["tcp"]["delack_count"] == hf["delack_segments"]
            )
            assert n["tcp"]["delack_timeout_s"] == hf["delack_timeout"]
            assert (n["tcp"]["segment_size"], n["tcp"]["init_cwnd"]) == (hf["mss"], hf["init_cwnd"])
            assert n["tcp"].get("recovery", "prr") == hf["recovery"]
            assert (hf["loss_detection"], hf["host_jitter"]) == ("dupack", 0)


def test_vegas_trace_rounds_recompute_tcp_vegas_diff(tmp_path: Path) -> None:
    import trace_vegas

    head = "t_us,ack,cwnd,ssthresh,last_rtt_us,srtt_us,base_rtt_us,min_rtt_us,cnt_rtt,beg_snd_nxt,next_tx,doing_vegas,cong_state,queue\n"
    rows = [  # a round judged on 2 samples (Reno's), then one judged: 160 - (uint)(160·10000/10100) = 160 - 158 = 2
        "1000,1,10,1e6,10000,10000,10000,10000,2,100,200,1,0,0",
        "2000,101,11,1e6,10000,10000,10000,-1,0,300,400,1,0,0",
        "3000,201,160,1e6,10100,10100,10000,10100,5,300,500,1,0,7",
        "4000,301,159,158,10100,10100,10000,-1,0,600,700,1,0,9",
    ]
    (tmp_path / "t.csv").write_text(head + "\n".join(rows) + "\n")
    lines = trace_vegas.rounds(str(tmp_path / "t.csv"))
    assert len(lines) == 2
    assert "cwnd    10 ->    11.0" in lines[0] and "diff -" in lines[0]
    assert "cwnd   160 ->   159.0" in lines[1] and "diff 2 " in lines[1] and "queue 9" in lines[1]


def test_step_marking_and_ecn_are_on_both_sides_for_dctcp() -> None:
    """The DCTCP configurations: hscc marks at one packet more than ns-3's RED K (ns-3's device
    queue holds that packet), on the data's direction only, with ECN on for both ends."""
    cs = [c for c in configs.CONFIGS.values() if any(f.algo == "dctcp" for f in c.flows)]
    assert cs and all(c.step_k is not None for c in cs)
    scenarios = [configs.hscc_scenario(c) for c in cs]
    for c, read in zip(cs, _read_by_hscc(scenarios), strict=True):
        n = configs.ns3_json(c)
        assert n["bottleneck"]["step_k"] == c.step_k
        bn = next(
            link for link in read["topology"]["links"] if (link["a"], link["b"]) == ("L", "R")
        )
        assert bn["fwd"]["queue"]["kind"] == "step"
        assert bn["fwd"]["queue"]["k_packets"] == c.step_k + 1
        assert bn["rev"].get("queue") in (None, {"kind": "droptail"}), bn["rev"]
        for nf, hf in zip(n["flows"], read["flows"], strict=True):
            assert nf["type"] == nf["receiver_type"] == "ns3::TcpDctcp"
            assert hf["algorithm"] == "dctcp" and hf["ecn"] is True
    # The configurations without step marking keep their DropTail and their ns-3 input.
    for c in configs.CONFIGS.values():
        if c.step_k is None:
            assert "step_k" not in configs.ns3_json(c)["bottleneck"]
            assert all("receiver_type" not in f for f in configs.ns3_json(c)["flows"])


def test_bbr_runs_as_ns3s_tcpbbr_with_the_matched_parameters() -> None:
    cs = [c for c in configs.CONFIGS.values() if any(f.algo == "bbr" for f in c.flows)]
    assert cs
    scenarios = [configs.hscc_scenario(c) for c in cs]
    for c, read in zip(cs, _read_by_hscc(scenarios), strict=True):
        n = configs.ns3_json(c)
        for spec, nf, hf in zip(c.flows, n["flows"], read["flows"], strict=True):
            if spec.algo != "bbr":
                continue
            assert nf["type"] == "ns3::TcpBbr" and "receiver_type" not in nf
            assert hf["algorithm"] == "bbr" and hf["ecn"] is False
            # HighGain 2.89 and 1/2.89 to the nearest 1/256; ns-3 has no long-term sampling
            # and an ACK-aggregation allowance of at most 2 segments.
            assert hf["params"] == {
                "high_gain": 740.0,
                "drain_gain": 89.0,
                "extra_acked_gain": 0.0,
                "lt_loss_thresh": 256.0,
            }


def test_ns3_builds_red_at_k_and_dctcp_receivers(tmp_path: Path) -> None:
    """ns3_dumbbell.py's network for a DCTCP configuration, built but not run: RED at
    MinTh = MaxTh = K on L's bottleneck device over a 1-packet device queue, DCTCP receivers."""
    c = configs.CONFIGS["dctcp-2x1G"]
    (tmp_path / "ns3.json").write_text(json.dumps(configs.ns3_json(c)))
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[2]); import ns3_dumbbell as d; "
        "cfg = json.load(open(sys.argv[1])); net = d.build(cfg); ns = net.ns; red = net.red; "
        "dev = net.bdevs.Get(0).GetObject[ns.PointToPointNetDevice](); "
        "rx = ns.NodeList.GetNode(2 + len(cfg['flows'])).GetObject[ns.TcpL4Protocol](); "
        "tid = ns.TypeIdValue(); rx.GetAttribute('SocketType', tid); "
        "a = {k: ns.DoubleValue() for k in ('MinTh', 'MaxTh', 'QW')}; "
        "[red.GetAttribute(k, v) for k, v in a.items()]; "
        "b = {k: ns.BooleanValue() for k in ('Gentle', 'UseEcn', 'UseHardDrop')}; "
        "[red.GetAttribute(k, v) for k, v in b.items()]; "
        "out = {k: v.Get() for k, v in a.items()}; out.update({k: bool(v.Get()) for k, v in b.items()}); "
        "out['red_limit'] = str(red.GetMaxSize()); out['device_limit'] = str(dev.GetQueue().GetMaxSize()); "
        "out['receiver'] = str(tid.Get().GetName()); print(json.dumps(out))"
    )
    p = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "ns3.json"), str(Path(__file__).parent)],
        capture_output=True,
        text=True,
        check=True,
    )
    got = json.loads(p.stdout.strip().splitlines()[-1])
    assert got == {
        "MinTh": float(c.step_k),
        "MaxTh": float(c.step_k),
        "QW": 1.0,
        "Gentle": False,
        "UseEcn": True,
        "UseHardDrop": False,
        "red_limit": f"{c.buffer_pkts - 1}p",
        "device_limit": "1p",
        "receiver": "ns3::TcpDctcp",
    }, got


def test_bbr_trace_reports_the_cwnd_at_each_exit_from_recovery() -> None:
    import trace_bbr

    s = 1_000_000_000
    events = [  # (ns, kind 0 cwnd / 1 ssthresh / 2 state, value)
        (1 * s, 1, 336.0),
        (1 * s, 0, 660.0),
        (2 * s, 2, 3.0),  # CA_RECOVERY
        (2 * s, 0, 500.0),
        (3 * s, 0, 520.0),
        (4 * s, 0, 660.0),  # RestoreCwnd (CA_EVENT_COMPLETE_CWR)
        (4 * s, 2, 0.0),  # CA_OPEN
        (4 * s, 0, 336.0),  # cwnd = ssthresh
        (4 * s, 0, 337.0),  # CongControl
        (5 * s, 0, 400.0),
    ]
    lines = trace_bbr.exits(events)
    assert len(lines) == 1
    assert "end of recovery" in lines[0] and "cwnd at its start   660" in lines[0]
    assert "before the exit   660" in lines[0] and "336 -> 337" in lines[0]
    assert lines[0].endswith("ssthresh 336")
