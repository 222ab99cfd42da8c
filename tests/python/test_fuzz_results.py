"""validation/results/fuzz.json: fuzz/py/fuzz_results.py turns a fuzzer's summary into an
entry and merges it into the file as its docstring says; render.py renders the committed file
into the campaign tables of docs/validation/engine.md; each entry's numbers agree with each
other. Standard library and the files only (no atheris, no hscc extension, no network)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "validation" / "results"))

import render  # noqa: E402
from renderers.fuzz import fuzz_campaign, fuzz_outcomes  # noqa: E402

# Loaded by path, not put on sys.path: fuzz/py's modules have generic names (settings, oracle).
_spec = importlib.util.spec_from_file_location(
    "hscc_fuzz_results", ROOT / "fuzz" / "py" / "fuzz_results.py"
)
assert _spec and _spec.loader
fuzz_results = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuzz_results)

FUZZ_JSON = ROOT / "validation" / "results" / "fuzz.json"
ENGINE_MD = ROOT / "docs" / "validation" / "engine.md"
TRANSCRIBED = "transcribed from docs/validation/engine.md (campaign of 2026-11-23)"
ENTRY_KEYS = {
    "campaign",
    "fuzzer",
    "date",
    "command",
    "revision",
    "machine",
    "source",
    "jobs",
    "inputs",
    "wall_seconds",
    "inputs_per_second",
    "coverage",
    "findings",
    "distinct_findings",
    "outcomes",
}


@pytest.fixture
def fixed_run(monkeypatch):
    """today, the revision and the load as constants: an entry is then computable by hand."""
    monkeypatch.setattr(fuzz_results.results, "today", lambda: "2026-01-02")
    monkeypatch.setattr(fuzz_results.results, "revision", lambda: "abc1234")
    monkeypatch.setattr(fuzz_results.os, "getloadavg", lambda: (1.234, 0.0, 0.0))
    monkeypatch.setattr(fuzz_results.os, "cpu_count", lambda: 2)


def _e(campaign: str, fuzzer: str, inputs: int) -> dict:
    return {"campaign": campaign, "fuzzer": fuzzer, "inputs": inputs}


@pytest.mark.timeout(30)
def test_merge_replaces_the_same_campaign_and_fuzzer_in_place_and_appends_the_rest():
    doc = {
        "schema": "hscc.fuzz.results/1",
        "entries": [_e("a", "Python", 1), _e("a", "engine", 2), _e("b", "Python", 3)],
    }
    merged = fuzz_results.merge(doc, [_e("c", "Python", 5), _e("a", "engine", 4)])
    assert merged == {
        "schema": "hscc.fuzz.results/1",
        "entries": [
            _e("a", "Python", 1),
            _e("a", "engine", 4),
            _e("b", "Python", 3),
            _e("c", "Python", 5),
        ],
    }
    assert doc["entries"][1] == _e("a", "engine", 2)  # the input is left as it was


@pytest.mark.timeout(30)
def test_update_creates_the_file_then_keeps_earlier_entries(tmp_path):
    path = tmp_path / "fuzz.json"
    fuzz_results.update(path, [_e("a", "Python", 1)])
    fuzz_results.update(path, [_e("b", "readers", 2), _e("a", "Python", 3)])
    assert json.loads(path.read_text(encoding="utf-8")) == {
        "schema": "hscc.fuzz.results/1",
        **fuzz_results.TOP,
        "entries": [_e("a", "Python", 3), _e("b", "readers", 2)],
    }
    assert [p.name for p in tmp_path.iterdir()] == ["fuzz.json"]  # no temporary file left


PYTHON_SUMMARY = {  # as campaign.py writes it
    "inputs": 300,
    "jobs": 2,
    "wall_seconds": 6.0,
    "inputs_per_second": 50.0,
    "outcomes": {"model_rejected": 200, "file_rejected": 80, "ran": 10, "traceback": 7, "hang": 3},
    "distinct_findings": 3,
    "findings": {
        "traceback:python:ValueError at hscc/units.py:57 in _split": 5,
        "traceback:engine:TypeError": 2,
        "hang:python:dotted-key": 3,
    },
    "libfuzzer_artifacts": ["libfuzzer-oom-0123abcd"],
    "coverage": {"edges": 10, "features": 20, "corpus": 3},
    "starts": [1, 1],
}


@pytest.mark.timeout(30)
def test_a_python_entry_counts_each_kind_of_finding(fixed_run):
    command = "bash scripts/fuzz.sh --python-only --inputs 300"
    e = fuzz_results.entry("python", PYTHON_SUMMARY, campaign="c", command=command)
    zero = {"count": 0, "distinct": 0}
    assert e == {
        "campaign": "c",
        "fuzzer": "Python",
        "date": "2026-01-02",
        "command": command,
        "revision": "abc1234",
        "machine": {"cores": 2, "load_average": 1.23},
        "source": f"{command} on 2026-01-02 at abc1234",
        "jobs": 2,
        "inputs": 300,
        "wall_seconds": 6.0,
        "inputs_per_second": 50.0,
        "coverage": {"edges": 10, "features": 20, "corpus": 3},
        "findings": {
            "panic": zero,
            "traceback": {"count": 7, "distinct": 2},
            "hang": {"count": 3, "distinct": 1},
            "memory": {"count": 1, "distinct": 1},  # libFuzzer's own out-of-memory stop
            "unclear": zero,
            "crash": zero,
        },
        "distinct_findings": 4,
        "outcomes": PYTHON_SUMMARY["outcomes"],
    }


@pytest.mark.timeout(30)
def test_an_engine_entry_groups_engine_report_s_findings_by_kind(fixed_run):
    summary = {  # as engine_report.py writes it
        "executions": 6000,
        "cov": 100,
        "ft": 300,
        "corpus": 40,
        "exec_per_second": 98,
        "distinct_findings": 3,
        "findings": {
            "panic at crates/hscc-sim/src/a.rs:1: attempt to add with overflow": {
                "count": 3,
                "smallest": "crash-1",
            },
            "timeout: dumbbell+udp": {"count": 2, "smallest": "timeout-1"},
            "out of memory: dumbbell+web": {"count": 1, "smallest": "oom-1"},
        },
    }
    e = fuzz_results.entry("engine", summary, campaign="c", command="x", wall_seconds=61.0)
    assert (e["inputs"], e["wall_seconds"], e["inputs_per_second"]) == (6000, 61.0, 98)
    assert e["coverage"] == {"edges": 100, "features": 300, "corpus": 40}
    assert e["findings"] == {
        "panic": {"count": 3, "distinct": 1},
        "traceback": None,
        "hang": {"count": 2, "distinct": 1},
        "memory": {"count": 1, "distinct": 1},
        "unclear": None,
        "crash": {"count": 0, "distinct": 0},
    }
    assert e["distinct_findings"] == 3 and e["outcomes"] is None


@pytest.mark.timeout(30)
def test_a_readers_entry_takes_its_coverage_from_libfuzzer_s_log(fixed_run):
    log = (
        "INFO: Instrumenting hscc\n"
        "#24\tINITED cov: 400 ft: 1100 corp: 23/40Kb exec/s: 0 rss: 200Mb\n"
        "#30\tNEW    cov: 416 ft: 1196 corp: 26/41Kb lim: 16384 exec/s: 15 rss: 210Mb L: 9/99\n"
        "fuzz_readers: 30 inputs, 0 findings\n"
    )
    summary = {"inputs": 30, "seconds": 2.0, "inputs_per_second": 15.0, "findings": {}}
    e = fuzz_results.entry("readers", summary, campaign="c", command="x", log_text=log)
    assert e["coverage"] == {"edges": 416, "features": 1196, "corpus": 26}
    assert (e["jobs"], e["wall_seconds"], e["distinct_findings"]) == (1, 2.0, 0)
    assert e["findings"]["unclear"] is None and e["findings"]["panic"] == {
        "count": 0,
        "distinct": 0,
    }


@pytest.mark.timeout(30)
def test_fork_mode_status_lines_are_read():
    line = "#3212053: cov: 10652 ft: 30564 corp: 2740 exec/s: 5141 oom/timeout/crash: 0/2/0 time: 624s job: 9 dft_time: 0"
    assert fuzz_results.last_status(f"noise\n{line}\n") == {
        "executions": 3212053,
        "cov": 10652,
        "ft": 30564,
        "corpus": 2740,
        "exec_per_second": 5141,
        "ooms": 0,
        "timeouts": 2,
        "crashes": 0,
    }
    assert fuzz_results.last_status("no status here\n") == {}


@pytest.mark.timeout(30)
def test_the_command_line_writes_an_entry_or_with_no_results_none(tmp_path, fixed_run, capsys):
    summary = tmp_path / "summary.json"
    summary.write_text(json.dumps(PYTHON_SUMMARY))
    out = tmp_path / "out.json"
    base = ["--fuzzer", "python", "--summary", str(summary), "--campaign", "c", "--command", "x"]
    assert fuzz_results.main([*base, "--no-results", "--results", str(out)]) == 0
    assert not out.exists()
    assert fuzz_results.main([*base, "--results", str(out)]) == 0
    assert fuzz_results.main([*base, "--results", str(out)]) == 0  # the same campaign: replaced
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert [(e["campaign"], e["fuzzer"], e["inputs"]) for e in doc["entries"]] == [
        ("c", "Python", 300)
    ]
    missing = ["--fuzzer", "engine", "--summary", str(tmp_path / "none.json")]
    assert fuzz_results.main([*missing, "--campaign", "c", "--command", "x", "--no-results"]) == 1


def _blocks() -> dict[str, str]:
    text = ENGINE_MD.read_text(encoding="utf-8")
    return {
        args["table"]: m.group("body")
        for m, file, args in render.blocks(text)
        if file == "validation/results/fuzz.json"
    }


@pytest.mark.timeout(30)
def test_the_doc_shows_the_committed_file_as_render_renders_it():
    assert ENGINE_MD in render.pages()  # so render.check() covers its tables
    doc = json.loads(FUZZ_JSON.read_text(encoding="utf-8"))
    blocks = _blocks()
    assert set(blocks) == {"campaign", "outcomes"}
    assert blocks["campaign"] == fuzz_campaign(doc, None)
    assert blocks["outcomes"] == fuzz_outcomes(doc, None)
    assert len(blocks["campaign"].splitlines()) == 2 + len(doc["entries"])
    first = blocks["campaign"].splitlines()[2]
    assert first.startswith("| full | 2026-11-23 | Python | 2 / 2 | 1 000 000 | 2 871 | 348 |")
    assert "| 0 | 387 (1) | 0 | 0 | 0 | 0 | 1 |" in first


@pytest.mark.timeout(30)
def test_a_stale_fuzz_number_is_found():
    text = ENGINE_MD.read_text(encoding="utf-8")
    changed = text.replace("| 3 212 053 |", "| 3 212 054 |", 1)
    assert changed != text
    assert render.stale_blocks(changed) == ["validation/results/fuzz.json table=campaign"]


@pytest.mark.timeout(30)
def test_each_entry_s_numbers_agree_with_each_other():
    doc = json.loads(FUZZ_JSON.read_text(encoding="utf-8"))
    assert doc["schema"] == fuzz_results.SCHEMA
    keys = [(e["campaign"], e["fuzzer"]) for e in doc["entries"]]
    assert len(keys) == len(set(keys)), "a campaign has two entries of one fuzzer"
    for e in doc["entries"]:
        name = f"{e['campaign']} / {e['fuzzer']}"
        assert not ENTRY_KEYS - e.keys(), name
        assert e["fuzzer"] in fuzz_results.LOOKS_FOR, name
        # libFuzzer's exec/s (the engine's) counts from libFuzzer's own start, the wall time
        # from the command's: a few per cent apart
        assert e["inputs_per_second"] == pytest.approx(e["inputs"] / e["wall_seconds"], rel=0.05), (
            name
        )
        assert set(e["findings"]) == set(fuzz_results.KINDS), name
        for kind, f in e["findings"].items():
            if f is None:
                assert kind not in fuzz_results.LOOKS_FOR[e["fuzzer"]], name
                continue
            assert 0 <= f["distinct"] <= f["count"], f"{name}: {kind}"
            assert (f["distinct"] == 0) == (f["count"] == 0), f"{name}: {kind}"
        distinct = sum(f["distinct"] for f in e["findings"].values() if f)
        assert e["distinct_findings"] == distinct, name
        if e["outcomes"] is not None:
            assert sum(e["outcomes"].values()) == e["inputs"], name
            for kind, f in e["findings"].items():  # plus the inputs libFuzzer itself stopped on
                assert e["outcomes"].get(kind, 0) <= (f["count"] if f else 0), f"{name}: {kind}"
        if e["date"] == "2026-11-23":
            assert e["source"] == TRANSCRIBED, name
