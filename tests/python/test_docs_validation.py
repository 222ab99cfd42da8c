"""The validation tables of docs/validation/ are rendered from validation/results/*.json:
a table that differs from its data fails here, not in a reader's hands. Also the
results files' schema, their verdicts against their own rule, and `update`'s merge.
Standard library only (no hscc extension needed)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "validation" / "results"))

import render  # noqa: E402
import results  # noqa: E402
from renderers.engine import ENGINE_TARGETS, _value  # noqa: E402
from renderers.fuzz import fuzz_status  # noqa: E402
from renderers.markdown import _int  # noqa: E402
from renderers.ns2 import NS2_VARIANTS, ns2_main, ns2_notes  # noqa: E402
from renderers.status import NS2_TARGETS  # noqa: E402

FILES = [results.NS3, results.NS2, results.KERNEL, results.ENGINE]
ENTRY_KEYS = {
    "name",
    "group",
    "date",
    "command",
    "source",
    "conditions",
    "measured",
    "reference",
    "tolerance",
    "verdict",
}


def test_every_generated_table_is_what_its_data_renders():
    stale = render.check()
    assert not stale, (
        "tables that differ from validation/results/ (run: python validation/results/render.py --write):\n"
        + "\n".join(stale)
    )


def test_the_validation_pages_have_their_tables():
    pages = {p.name for p in render.pages()}
    assert {"index.md", "ns3.md", "ns2.md", "kernel.md", "engine.md"} <= pages
    text = (ROOT / "docs" / "validation" / "kernel.md").read_text(encoding="utf-8")
    groups = {e["group"] for e in results.load(results.KERNEL)["configurations"]}
    for g in groups:  # every group of configurations is shown somewhere
        assert f"table=summary group={g} -->" in text, g
    engine = (ROOT / "docs" / "validation" / "engine.md").read_text(encoding="utf-8")
    for g in {e["group"] for e in results.load(results.ENGINE)["configurations"]}:
        assert f"engine.json table=columns group={g} -->" in engine or (
            f"engine.json table=checks group={g} -->" in engine
        ), g


def test_the_fuzzing_status_row_is_the_data_s():
    """The index's fuzzing row counts every entry of fuzz.json, the latest campaigns too."""
    index = (ROOT / "docs" / "validation" / "index.md").read_text(encoding="utf-8")
    assert "<!-- generated: validation/results/fuzz.json table=status -->" in index
    entries = results.load(results.ROOT / "validation" / "results" / "fuzz.json")["entries"]
    row = fuzz_status({"entries": entries, "command": "c"}, None).splitlines()[-1]
    assert _int(sum(e["inputs"] for e in entries)) in row
    assert max(e["date"] for e in entries) in row
    one = [dict(entries[0], distinct_findings=0)]
    assert "no finding" in fuzz_status({"entries": one, "command": "c"}, None)


def test_every_engine_group_has_a_status_row():
    groups = {e["group"] for e in results.load(results.ENGINE)["configurations"]}
    listed = {g for gs in ENGINE_TARGETS for g in gs}
    assert groups <= listed, groups - listed


def test_a_stale_number_is_found():
    page = ROOT / "docs" / "validation" / "ns3.md"
    text = page.read_text(encoding="utf-8")
    assert render.stale_blocks(text) == []
    changed = text.replace(
        "| newreno-loss1e-3-d1 | 200 | 8.14 / 8.43 |",
        "| newreno-loss1e-3-d1 | 200 | 8.14 / 8.44 |",
        1,
    )
    assert changed != text
    assert render.stale_blocks(changed) == ["validation/results/ns3.json table=main group=prr"]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_results_files_follow_the_schema(path):
    doc = results.load(path)
    assert doc["schema"] == results.SCHEMA
    for key in ("target", "reference", "command", "source", "tolerance", "rule", "configurations"):
        assert doc.get(key), key
    names = [e["name"] for e in doc["configurations"]]
    assert len(names) == len(set(names)), "a configuration appears twice"
    for e in doc["configurations"]:
        missing = ENTRY_KEYS - e.keys()
        assert not missing, f"{e['name']}: missing {missing}"
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", e["date"]), e["name"]
        assert e["source"] and e["command"], e["name"]
        assert e["verdict"] in ("agrees", "differs", "unfinished", "reported"), e["name"]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_verdict_is_what_its_numbers_give(path):
    doc = results.load(path)
    wrong = [
        f"{e['name']}: {e['verdict']} but the rule gives {results.verdict(doc, e)}"
        for e in doc["configurations"]
        if results.verdict(doc, e) != e["verdict"]
    ]
    assert not wrong, "\n".join(wrong)


def test_differences_say_why():
    for path in FILES:
        for e in results.load(path)["configurations"]:
            if e["verdict"] == "differs":
                assert e.get("note"), f"{path.name}: {e['name']} differs without a note"


def test_the_transcribed_numbers_say_where_they_come_from():
    for path in FILES:
        doc = results.load(path)
        for e in doc["configurations"]:
            if "transcribed" in e["source"]:
                assert "82f231c" in e["source"] and "rewrites it" in e["source"], e["name"]


def test_the_ns3_configurations_are_the_harness_s():
    sys.path.insert(0, str(ROOT / "validation" / "ns3"))
    import configs

    for e in results.load(results.NS3)["configurations"]:
        base = e["name"].removesuffix("-classic")
        assert base in configs.CONFIGS, e["name"]


def test_the_ns2_configurations_are_the_harness_s_and_have_a_status_row():
    sys.path.insert(0, str(ROOT / "validation" / "ns2"))
    import ns2_configs

    for e in results.load(results.NS2)["configurations"]:
        assert e.get("variant_of", e["name"]) in ns2_configs.CONFIGS, e["name"]
        assert e["group"] in NS2_TARGETS, e["group"]


def test_an_ns2_recovery_variant_is_compared_with_its_configurations_ns2_numbers():
    doc = results.load(results.NS2)
    by_name = {e["name"]: e for e in doc["configurations"]}
    variants = [e for e in doc["configurations"] if e["group"] in NS2_VARIANTS]
    for v in variants:
        base = by_name[v["variant_of"]]
        assert v["name"] == f"{base['name']}-{v['recovery']}" and v["group"] == v["recovery"]
        # The ns-2 runs the table shows; cpu_s is how long a run of them took, not their result.
        same = {k: x for k, x in v["reference"].items() if k != "cpu_s"}
        assert same == {k: x for k, x in base["reference"].items() if k != "cpu_s"}, v["name"]
        assert v["duration_s"] == base["duration_s"], v["name"]
    page = (ROOT / "docs" / "validation" / "ns2.md").read_text(encoding="utf-8")
    for g in {v["group"] for v in variants}:
        assert f"ns2.json table=recovery group={g} -->" in page, g
    # The matched configurations' tables leave the variants to theirs.
    matched = ns2_main(doc, None) + ns2_notes(doc, None)
    assert not any(f"| {v['name']} |" in matched for v in variants)


def test_the_ns2_recovery_paragraph_states_what_was_measured():
    # docs/validation/ns2.md's "Recovery" and "What remains" sentences in words: each claim
    # checked against ns2.json here (change the two together).
    page = " ".join((ROOT / "docs" / "validation" / "ns2.md").read_text(encoding="utf-8").split())
    doc = results.load(results.NS2)
    by = {e["name"]: e for e in doc["configurations"]}

    def three(name: str, k: str) -> tuple[float, float, float]:
        base, v = by[name], by[f"{name}-classic"]
        return base["reference"][k], base["measured"][k], v["measured"][k]

    assert "drops more than twice the TCP packets it drops in ns-2 or with" in page
    n, s, c = three("ctcp-rtt3-hstcp", "bottleneck_tcp_drops")
    assert c > 2 * n and c > 2 * s
    assert "africa-rtt6-hstcp's runs time out many times more often" in page
    n, s, c = three("africa-rtt6-hstcp", "timeouts")
    assert c > 5 * max(n, s)
    assert "its 180-ms flow's loss events leave the tolerance" in page
    tol = results.NS2_TOLERANCE["loss_events_b"]
    assert abs(by["africa-rtt6-hstcp-classic"]["delta"]["loss_events_b"]) > tol
    assert abs(by["africa-rtt6-hstcp"]["delta"]["loss_events_b"]) <= tol
    assert "africa-safety-hstcp's bottleneck drops twice the TCP packets it drops with" in page
    n, s, c = three("africa-safety-hstcp", "bottleneck_tcp_drops")
    assert round(c / s) == 2
    assert "its runs time out 6 times as often" in page
    n, s, c = three("africa-safety-hstcp", "timeouts")
    assert round(c / s) == 6
    assert "ctcp-rtt6-reno's 240-ms flows get less still" in page
    n, s, c = three("ctcp-rtt6-reno", "goodput_b_bps")
    assert c < s < n
    for name in ("ctcp-rtt3-reno", "ctcp-rtt3-hstcp"):  # "goodput ratios come closer"
        assert abs(by[f"{name}-classic"]["delta"]["ratio"]) < abs(by[name]["delta"]["ratio"])
    assert "As many configurations agree as with" in page and "six of eight" in page
    variants = [e for e in doc["configurations"] if e["group"] == "classic"]
    agree = {e["variant_of"] for e in variants if e["verdict"] == "agrees"}
    agree_sack1 = {e["variant_of"] for e in variants if by[e["variant_of"]]["verdict"] == "agrees"}
    assert len(variants) == 8 and len(agree) == len(agree_sack1) == 6
    assert 'ctcp-rtt3-reno with `"classic"` only, africa-rtt6-hstcp with `"sack1"` only' in page
    assert agree - agree_sack1 == {"ctcp-rtt3-reno"}
    assert agree_sack1 - agree == {"africa-rtt6-hstcp"}
    africa = [
        e
        for e in doc["configurations"]
        if e["name"].startswith("africa-") and e["group"] != "classic"
    ]
    drops = [
        e["measured"]["bottleneck_tcp_drops"] / e["reference"]["bottleneck_tcp_drops"]
        for e in africa
    ]
    assert f"hscc drops {min(drops):.1f}–{max(drops):.1f}× ns-2's TCP packets" in page
    assert "points every configuration agrees" in page
    assert all(e["verdict"] == "agrees" for e in africa)


def test_the_ns2_tcp_linux_paragraph_states_what_was_measured():
    # docs/validation/ns2.md's "TCP-Linux" paragraph in words, each claim checked against
    # ns2.json here (change the two together).
    page = " ".join((ROOT / "docs" / "validation" / "ns2.md").read_text(encoding="utf-8").split())
    by = {e["name"]: e for e in results.load(results.NS2)["configurations"]}
    sys.path.insert(0, str(ROOT / "validation" / "ns2"))
    import ns2_configs
    import ns2_tcl

    linux = [
        n
        for n, c in ns2_configs.CONFIGS.items()
        if any(f["algorithm"] in ns2_tcl.LINUX_ALGOS for f in c.scenario(1)["flows"])
    ]
    differ = [n for n in linux if by[n]["verdict"] == "differs"]
    assert "One of its five configurations differs, ctcp-rtt6-compound." in page
    assert len(linux) == 5 and differ == ["ctcp-rtt6-compound"]
    assert ns2_tcl.LINUX_ALGOS["cubic"][1]["version_2_1"] is True
    assert all(by[n]["seeds"] == 2 for n in linux)  # "each tool's two seeds are one run"
    # The agent's two rules, which hscc's TCP-Linux flows take.
    assert (ns2_tcl.LINUX_TCP["rto_restart"], ns2_tcl.LINUX_TCP["tlp"]) == ("every_ack", False)
    # ctcp-rtt3-compound: no flow times out in either tool now; the ratios quoted.
    e = by["ctcp-rtt3-compound"]
    assert e["reference"]["timeouts"] == 0 and e["measured"]["timeouts"] == 0
    assert "which ns-2's never does" in page
    # sync-rtt4-cubic: the 240-ms flow times out once in both tools.
    e = by["sync-rtt4-cubic"]
    assert e["reference"]["timeouts"] == e["measured"]["timeouts"] == 1
    assert "times out in both tools, where hscc's probe would find" in page
    # sync-rtt2-cubic: two timeouts in both tools.
    e = by["sync-rtt2-cubic"]
    assert e["reference"]["timeouts"] == e["measured"]["timeouts"] == 2
    assert "the 120-ms flow times out twice in both tools" in page
    # The CUBIC configurations: within 5-11 % of ns-2's ratio, with as many loss events
    # (within the tolerance's two).
    cubic = ("sync-rtt2-cubic", "sync-rtt4-cubic", "sync-rtt8-cubic")
    for n in cubic:
        e = by[n]
        assert abs(e["measured"]["ratio"] / e["reference"]["ratio"] - 1) <= 0.11, n
        for k in ("loss_events_a", "loss_events_b"):
            assert abs(e["measured"][k] - e["reference"][k]) <= 2, (n, k)
    assert "With that rule hscc's ratios come within 11 % of ns-2's" in page


def test_the_ns2_queue_spread_paragraph_states_what_was_measured():
    # queue_spread.py's rows in ns2.json: hscc's side of each deterministic configuration one
    # packet apart, the middle row its entry's own run, and where ns-2's goodput ratio falls;
    # docs/validation/ns2.md names the configurations outside the spread.
    page = " ".join((ROOT / "docs" / "validation" / "ns2.md").read_text(encoding="utf-8").split())
    spread = [e for e in results.load(results.NS2)["configurations"] if "queue_spread" in e]
    assert len(spread) == 8
    outside = set()
    for e in spread:
        rows = e["queue_spread"]["rows"]
        buffers = [r["buffer"] for r in rows]
        assert buffers[1] - 1 == buffers[0] and buffers[1] + 1 == buffers[2]
        assert rows[1]["ratio"] == pytest.approx(e["measured"]["ratio"], rel=1e-9)
        ratios = [r["ratio"] for r in rows]
        if not min(ratios) <= e["reference"]["ratio"] <= max(ratios):
            outside.add(e["name"])
    cubic = {"sync-rtt2-cubic", "sync-rtt4-cubic", "sync-rtt8-cubic"}
    assert outside == {"ctcp-rtt3-compound", "ctcp-rtt6-compound"} | cubic
    assert (
        "spread in 3 of 8 (outside: ctcp-rtt3-compound, ctcp-rtt6-compound, sync-rtt2-cubic, "
        "sync-rtt4-cubic, sync-rtt8-cubic)" in page
    )
    assert (
        "Outside are ctcp-rtt6-compound, where a rule of the 2006 Compound module differs (its "
        "note), and ctcp-rtt3-compound and the three CUBIC configurations, which agree (ns-2's "
        "ratio at most 7 % beyond the spread's nearer end)." in page
    )
    for e in spread:
        if e["name"] in cubic | {"ctcp-rtt3-compound"}:
            ratios = [r["ratio"] for r in e["queue_spread"]["rows"]]
            near = min(ratios, key=lambda r: abs(r - e["reference"]["ratio"]))
            assert abs(e["reference"]["ratio"] / near - 1) <= 0.075, e["name"]
    verdicts = {e["name"]: e["verdict"] for e in spread}
    assert all(verdicts[n] == "agrees" for n in cubic | {"ctcp-rtt3-compound"})


def _entry(
    name: str, ratio: float, jain: float = 1.0, flows: int = 1, note: str | None = None
) -> dict:
    e = {
        "name": name,
        "group": "reno-cubic",
        "date": "2026-01-01",
        "command": "x",
        "source": "s",
        "conditions": "c",
        "flows": flows,
        "measured": {"jain": 1.0},
        "reference": {"runs": [{"goodput_ratio": ratio, "jain": jain}]},
        "tolerance": dict(results.KERNEL_TOLERANCE),
    }
    e["verdict"] = results.kernel_verdict(e)
    if note:
        e["note"] = note
    return e


def test_the_kernel_rule_reads_goodput_and_jain():
    assert _entry("a", 1.09)["verdict"] == "agrees"
    assert _entry("a", 0.89)["verdict"] == "differs"
    assert _entry("a", 1.0, jain=0.85)["verdict"] == "agrees"  # one flow: Jain is not read
    assert _entry("a", 1.0, jain=0.85, flows=2)["verdict"] == "differs"


def test_kernel_runs_of_seeds_are_read_by_their_mean():
    # Kernel seeds 1 and 2 against the simulator's seeds 1 and 2: 23 against 20 Mbit/s (1.15) and
    # 21 against 24 (0.875). Each draw alone is outside ±10 %, their means (44 against 44) agree.
    e = _entry("a", 1.0)
    e["reference"]["runs"] = [
        {"goodput_bps": 23e6, "goodput_ratio": 1.15, "jain": 1.0, "seed": 1},
        {"goodput_bps": 21e6, "goodput_ratio": 0.875, "jain": 1.0, "seed": 2},
    ]
    assert results.kernel_verdict(e) == "agrees"
    # The simulator's seed 2 at 30: 44 against 50.
    e["reference"]["runs"][1]["goodput_ratio"] = 21 / 30
    assert results.kernel_verdict(e) == "differs"
    for r in e["reference"]["runs"]:
        del r["seed"]  # one draw repeated: each run on its own
    e["reference"]["runs"][1]["goodput_ratio"] = 0.875
    assert results.kernel_verdict(e) == "differs"


def test_update_replaces_what_ran_and_keeps_the_rest(tmp_path):
    path = tmp_path / "kernel.json"
    first = [_entry("a", 1.0, note="why a"), _entry("b", 0.5, note="why b")]
    results.update(path, first, "cmd", **results.KERNEL_TOP)
    doc = results.update(path, [_entry("b", 0.6), _entry("c", 1.0)], "cmd", **results.KERNEL_TOP)
    by = {e["name"]: e for e in doc["configurations"]}
    assert list(by) == ["a", "b", "c"]
    assert by["a"]["note"] == "why a"  # not run: kept as it was
    assert by["b"]["reference"]["runs"][0]["goodput_ratio"] == 0.6
    assert by["b"]["note"] == "why b"  # the same verdict: its explanation stands
    doc = results.update(path, [_entry("b", 1.0)], "cmd", **results.KERNEL_TOP)
    assert (
        "note" not in {e["name"]: e for e in doc["configurations"]}["b"]
    )  # a new verdict drops it
    assert json.loads(path.read_text())["schema"] == results.SCHEMA


def _engine_row(measured: dict, reference: dict | None, tolerance: dict) -> dict:
    return {"test": "t", "measured": measured, "reference": reference, "tolerance": tolerance}


def test_the_engine_rule_reads_each_tolerance_form():
    v = results.engine_verdict
    assert v(_engine_row({"w": 11.9}, {"w": 10.0}, {"w": 0.2})) == "agrees"
    assert v(_engine_row({"w": 12.1}, {"w": 10.0}, {"w": 0.2})) == "differs"
    assert v(_engine_row({"n": 9.0}, {"n": 8.1}, {"n": {"abs": 1.0}})) == "agrees"
    assert v(_engine_row({"n": 9.0}, {"n": 7.9}, {"n": {"abs": 1.0}})) == "differs"
    assert v(_engine_row({"u": 0.95}, None, {"u": {"min": 0.95}})) == "agrees"
    assert v(_engine_row({"u": 0.94}, None, {"u": {"min": 0.95}})) == "differs"
    assert v(_engine_row({"q": 5.0}, None, {"q": {"min": 3, "max": 9}})) == "agrees"
    assert v(_engine_row({"q": 9.5}, None, {"q": {"min": 3, "max": 9}})) == "differs"
    assert v(_engine_row({"w": 5.0}, {"w": 10.0}, {})) == "reported"
    assert v(_engine_row({}, {"w": 10.0}, {"w": 0.2})) == "differs"  # a value the test lost


def test_engine_rows_merge_with_their_suite_and_verdict(tmp_path):
    sys.path.insert(0, str(ROOT / "validation" / "results"))
    import engine_rows

    row = {
        "name": "r",
        "group": "padhye",
        "label": "1e-2",
        "test": "validation::slow_one",
        "conditions": "c",
        "measured": {"send_rate": 110.0},
        "reference": {"send_rate": 100.0},
        "tolerance": {"send_rate": 0.15},
    }
    slow = engine_rows.slow_tests("validation::slow_one: test\n\n1 tests, 0 benchmarks\n")
    e = engine_rows.entry(row, slow, "s", "2026-01-01")
    assert (e["suite"], e["verdict"]) == ("slow", "agrees")
    assert e["command"].endswith("validation::slow_one -- --exact --include-ignored")
    with pytest.raises(ValueError, match="missing"):
        engine_rows.entry({"name": "x"}, slow, "s", "2026-01-01")
    (tmp_path / "rows").mkdir()
    (tmp_path / "rows" / "r.json").write_text(json.dumps(row))
    (tmp_path / "slow.txt").write_text("")
    out = tmp_path / "engine.json"
    argv = ["--rows", str(tmp_path / "rows"), "--slow-tests", str(tmp_path / "slow.txt")]
    assert engine_rows.main([*argv, "--results", str(out)]) == 0
    doc = results.load(out)
    assert doc["rule"] == results.ENGINE_RULE
    assert doc["configurations"][0]["suite"] == "default"


def test_a_stale_engine_number_is_found():
    page = ROOT / "docs" / "validation" / "engine.md"
    text = page.read_text(encoding="utf-8")
    e = next(e for e in results.load(results.ENGINE)["configurations"] if e["group"] == "padhye")
    rate = f"{e['measured']['send_rate']:.1f}"
    row = f"| {e['label']} | {_value(e, 'measured.p', '.3e')} | {rate} |"
    assert row in text
    changed = text.replace(row, row.replace(rate, f"{e['measured']['send_rate'] + 1:.1f}"), 1)
    assert render.stale_blocks(changed) == [
        "validation/results/engine.json table=columns group=padhye"
    ]
