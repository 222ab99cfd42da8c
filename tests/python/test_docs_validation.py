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

FILES = [results.NS3, results.KERNEL]
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
    assert {"index.md", "ns3.md", "kernel.md"} <= pages
    text = (ROOT / "docs" / "validation" / "kernel.md").read_text(encoding="utf-8")
    groups = {e["group"] for e in results.load(results.KERNEL)["configurations"]}
    for g in groups:  # every group of configurations is shown somewhere
        assert f"table=summary group={g} -->" in text, g


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
        assert e["verdict"] in ("agrees", "differs", "unfinished"), e["name"]


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
