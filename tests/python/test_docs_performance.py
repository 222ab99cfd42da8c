"""docs/performance.md's figures are rendered from validation/results/performance.json, which
scripts/bench.py writes: the page's tables, the file's schema, and the merge of a run of some
parts. Standard library only, nothing timed."""

from __future__ import annotations

import copy
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "validation" / "results"))
sys.path.insert(0, str(ROOT / "scripts"))

import bench  # noqa: E402
import render  # noqa: E402
import results  # noqa: E402
from bench_parts.cargo_benches import CALLGRIND  # noqa: E402
from bench_parts.sweeps import sweep_case  # noqa: E402
from renderers.benches import perf_flows, perf_loss_burst, perf_startup  # noqa: E402
from renderers.markdown import _int  # noqa: E402
from renderers.sweeps import perf_sweeps  # noqa: E402

PAGE = ROOT / "docs" / "performance.md"
# The sections of the page whose figures come from performance.json.
MEASURED = ("## Current figures", "### The papers' experiments")


def measured_sections() -> str:
    text = PAGE.read_text(encoding="utf-8")
    start, end = (text.index(h) for h in MEASURED)
    return text[start:end]


def edited(name: str) -> tuple[dict, dict]:
    """A copy of performance.json for a test to change, and its part `name`."""
    doc = copy.deepcopy(results.load(bench.PERFORMANCE))
    return doc, doc["parts"][name]


def test_the_page_has_every_table_of_the_file():
    assert PAGE in render.pages()
    text = PAGE.read_text(encoding="utf-8")
    for table in render.TABLES["performance.json"]:
        assert f"performance.json table={table}" in text, table
    for group in {g for _, g, _ in CALLGRIND} | {"probe"}:  # probe: the lean probe's count
        assert f"performance.json table=callgrind group={group} -->" in text, group
    for group in ("stored", "tiny"):
        assert f"performance.json table=sweeps group={group} -->" in text, group
    assert render.stale_blocks(text) == []


def test_the_measured_sections_hold_no_typed_figures():
    """Outside the generated blocks: no table and no date; the numbers are the data's."""
    prose = render.MARKER.sub("", measured_sections())
    assert not re.search(r"^\|", prose, re.M), "a table typed by hand"
    assert not re.search(r"\b20\d\d-\d\d-\d\d\b", prose), "a date typed by hand"


def test_the_file_follows_its_schema():
    doc = results.load(bench.PERFORMANCE)
    assert doc["schema"] == bench.SCHEMA
    assert doc["command"] == bench.COMMAND
    assert set(doc["parts"]) == set(bench.PARTS)
    for name, part in doc["parts"].items():
        assert re.fullmatch(r"\d{4}-\d\d-\d\d", part["date"]), name
        assert part["run"].startswith(f"{bench.COMMAND} --only {name}"), name
        assert part["source"].startswith(part["run"]), name
        c = part["conditions"]
        assert c["revision"] and c["engine"], name
        assert c["machine"]["cpu"] and c["machine"]["cores"], name
        for when in ("start", "end"):
            assert len(c["load_average"][when]) == 3, name


def test_a_stale_figure_is_found():
    text = PAGE.read_text(encoding="utf-8")
    part = results.load(bench.PERFORMANCE)["parts"]["testbed"]
    events = _int(part["lengths"][0]["runs"][0]["events"])
    row = re.search(rf"^\| {part['lengths'][0]['seconds']} s \|.*$", text, re.M)
    assert row and f"| {events} |" in row.group(0)
    changed = text.replace(row.group(0), row.group(0).replace(events, events + "1", 1), 1)
    assert render.stale_blocks(changed) == ["validation/results/performance.json table=testbed"]


def test_a_quick_trial_says_so():
    for quick in (True, False):
        d, part = edited("startup")
        part["conditions"].pop("quick", None)
        if quick:
            part["conditions"]["quick"] = True
        first = perf_startup(d, None).splitlines()[0]
        assert ("quick trial" in first) == quick
        assert "load average (1 minute)" in first


def test_the_flows_cache_counts_are_a_table_of_their_own():
    doc, part = edited("flows")
    part.pop("cache", None)
    without = perf_flows(doc, None)
    assert "callgrind" not in without
    per_event = {
        "instructions": 1234.4,
        "first_level_misses": 9.876,
        "second_level_read_misses": 6.5,
        "second_level_write_misses": 2.25,
    }
    part["cache"] = {
        "warm_s": 0.5,
        "seconds": 0.3,
        "second_level": {"bytes": 2 << 20, "ways": 16, "line": 64},
        "counts": [
            {"flows": 10_000, "events": 2_500_000, "per_event": per_event},
            {"flows": 10_000, "one_pair": True, "events": 2_000_000, "per_event": per_event},
        ],
    }
    text = perf_flows(doc, None)
    assert text.startswith(without)
    assert "2048 kB, 16-way, 64-byte lines" in text
    assert "over the last 0.3 s of a 0.8-s run" in text
    assert "| 10 000 | 2 500 000 | 1234 | 9.88 | 6.50 | 2.25 |" in text
    assert "| 10 000 on one host pair | 2 000 000 | 1234 | 9.88 | 6.50 | 2.25 |" in text


def test_the_flows_table_gives_the_slower_runs_beside_the_fastest():
    doc, part = edited("flows")
    part["repeats"] = 3
    for c in part["counts"]:
        c.pop("engine_runs_s", None)
    assert "in brackets" not in perf_flows(doc, None)
    c = part["counts"][0]
    c["data_segments"] = 1_000_000
    c["engine_s"] = 0.5
    c["engine_runs_s"] = [0.7, 0.5, 0.6]
    text = perf_flows(doc, None)
    assert "(in brackets, the engine's other runs)" in text
    assert "| 500 ns (600, 700) | 1.00× |" in text


def test_the_flows_verdict_holds_the_last_count_against_twice_the_first():
    doc, part = edited("flows")
    first, last = part["counts"][0], part["counts"][-1]
    first.update(engine_s=0.5, data_segments=2_000_000)  # 250 ns a segment
    last.update(engine_s=1.5, data_segments=3_000_000)  # 500 ns: 2.00×
    assert "flows per data segment: 2.00×, met." in perf_flows(doc, None)
    last["engine_s"] = 1.503  # 501 ns
    assert "flows per data segment: 2.00×, **not met**." in perf_flows(doc, None)


def test_the_flows_on_one_pair_are_held_against_both_first_counts():
    doc, part = edited("flows")
    part.pop("one_pair", None)
    without = perf_flows(doc, None)
    assert "all on one host pair" not in without
    first = part["counts"][0]
    first.update(engine_s=0.5, data_segments=2_000_000)  # 250 ns a segment
    part["one_pair"] = [
        {"flows": 10, "engine_s": 0.4, "data_segments": 2_000_000, "events": 6_000_000},
        {"flows": 10_000, "engine_s": 1.2, "data_segments": 2_400_000, "events": 8_160_000},
    ]
    text = perf_flows(doc, None)
    # 200 ns, then 500 ns: 2.50× the first on one pair, 2.00× the first with a pair each.
    assert "| 10 | 0.40 s | 2 000 000 | 3.00 | 200 ns | 1.00× | 0.80× |" in text
    assert "| 10 000 | 1.20 s | 2 400 000 | 3.40 | 500 ns | 2.50× | 2.00× |" in text


def test_each_stored_sweep_is_held_against_the_speed_up_target():
    doc, part = edited("sweeps")
    part["speed_up_target"] = 0.6
    first, second = part["stored"][:2]
    for case, two in ((first, [0.59, 0.60, 0.70]), (second, [0.61, 0.62, 0.50])):
        case["workers"] = [
            {**w, "wall_s": [1.0, 1.0, 1.0] if w["jobs"] == 1 else two} for w in case["workers"]
        ]
    text = perf_sweeps(doc, "stored")
    # Medians over 1 s: 0.60 (met at the target) and 0.61.
    assert (
        f"Target: 2 workers within 0.6× of 1 worker's wall time: {first['name']} 0.60×, met; "
        f"{second['name']} 0.61×, **not met**." in text
    )


def test_the_loss_burst_verdict_is_the_median_of_the_bench_runs():
    doc, part = edited("loss_burst")
    part["bench_runs"] = 3
    for r in part["recoveries"]:
        r["ratios"] = [1.2, 1.6, 1.4]
    part["recoveries"][0]["ratios"] = [1.4, 1.7, 1.6]
    rows = perf_loss_burst(doc, None).splitlines()
    assert "median of 3 bench runs (each)" in rows[-4]
    assert rows[-2].endswith("| 1.60× (1.40×, 1.70×, 1.60×) | **not met** |")
    assert rows[-1].endswith("| 1.40× (1.20×, 1.60×, 1.40×) | met |")


def test_the_sweeps_part_holds_every_case():
    part = results.load(bench.PERFORMANCE)["parts"]["sweeps"]
    names = {c["name"] for c in part["tiny"]}
    assert {"loop of hscc.run", "sweep jobs=1 out=DIR", "sweep jobs=2 out=None"} <= names
    in_turn = {name for t in part["tiny_in_turn"] for name in (t["local"], t["dask"])}
    assert [t["label"] for t in part["tiny_in_turn"]] == ["back to back", "each after 0.5 s idle"]
    assert in_turn <= names
    for c in part["tiny"]:
        assert (c["workers"], c["runs"]) == sweep_case(c["name"]), c["name"]
        pairs = 2 * part["reps"] + 1 if c["name"] in in_turn else part["reps"]
        assert len(c["wall_s"]) == len(c["engine_s"]) == pairs, c["name"]
    assert set(part["tiny_cpu"]) == {"sweep jobs=2 out=None", "dask cluster jobs=2 out=None"}
    for name, groups in part["tiny_cpu"].items():
        assert all(len(v) == part["reps"] for v in groups.values()), name
    assert [c["name"] for c in part["stored"]] == ["CTCP test bed", "two-Reno demo"]
    for c in part["stored"]:
        assert [w["jobs"] for w in c["workers"]] == [1, 2]
        assert all(len(w["wall_s"]) == part["reps"] for w in c["workers"])
    assert part["store"]


def test_the_sweeps_cpu_table_gives_each_process_group_beside_the_runs_time():
    doc, part = edited("sweeps")
    cases = {c["name"]: c for c in part["tiny"]}
    cases["sweep jobs=2 out=None"]["engine_s"] = [0.11, 0.10, 0.12]
    cases["dask cluster jobs=2 out=None"]["engine_s"] = [0.15, 0.16, 0.17]
    part["tiny_cpu"] = {
        "sweep jobs=2 out=None": {"sweep": [0.04, 0.05, 0.03], "pool": [0.2, 0.21, 0.22]},
        "dask cluster jobs=2 out=None": {
            "sweep": [0.05, 0.05, 0.06],
            "scheduler": [0.05, 0.04, 0.06],
            "workers": [0.25, 0.26, 0.24],
        },
    }
    rows = perf_sweeps(doc, "tiny").splitlines()
    head = rows.index(
        "| case | Σ of the runs' wall_time_s | the sweep's process | workers | Dask's scheduler | CPU in all |"
    )
    # Medians of each group; "in all", the median of the repetitions' sums (0.24, 0.26, 0.25 and 0.35, 0.35, 0.36).
    assert rows[head + 2 :] == [
        "| sweep jobs=2 out=None | 0.110 s | 0.040 s | 0.210 s | – | 0.250 s |",
        "| dask cluster jobs=2 out=None | 0.160 s | 0.050 s | 0.250 s | 0.050 s | 0.350 s |",
    ]
    del part["tiny_cpu"]  # a file from before the count: the tiny table alone
    assert "Dask's scheduler" not in perf_sweeps(doc, "tiny")


def test_the_dask_target_is_held_against_the_larger_ratio_of_the_pairs_in_turn():
    doc, part = edited("sweeps")
    part["dask_target"] = 1.3

    def case(name: str, walls: list[float]) -> dict:
        return {"name": name, "workers": 2, "runs": 200, "wall_s": walls, "engine_s": [0] * 3}

    part["tiny"] += [
        case("L1", [0.10, 0.10, 0.20]),
        case("D1", [0.12, 0.15, 0.22]),
        case("L2", [0.10, 0.10, 0.10]),
        case("D2", [0.125, 0.12, 0.14]),
    ]
    part["tiny_in_turn"] = [
        {"label": "back to back", "local": "L1", "dask": "D1"},
        {"label": "idle", "local": "L2", "dask": "D2"},
    ]
    text = perf_sweeps(doc, "tiny")
    # Pair by pair: 1.20, 1.50, 1.10 (median 1.20) and 1.25, 1.20, 1.40 (median 1.25).
    assert (
        "back to back, 1.20× (the median of 3 pairs: 1.20, 1.50, 1.10); "
        "idle, 1.25× (the median of 3 pairs: 1.25, 1.20, 1.40). Target ≤ 1.3× (both ways): met."
    ) in text
    part["tiny"][-1]["wall_s"] = [0.13, 0.135, 0.14]  # 1.35 the larger: the target missed
    assert "Target ≤ 1.3× (both ways): **not met**." in perf_sweeps(doc, "tiny")
    part["tiny_in_turn"] = []  # a run without Dask
    assert "Target" not in perf_sweeps(doc, "tiny")


def test_sweep_cases_by_name():
    assert sweep_case("loop of hscc.run") == (1, 200)
    assert sweep_case("sweep jobs=2 out=DIR") == (2, 200)
    assert sweep_case("2 runs, jobs=1 out=None") == (1, 2)
    assert sweep_case("1 run, out=DIR") == (1, 1)
    assert sweep_case("hscc sweep -j 2 --out DIR (new process)") == (2, 200)


def test_a_run_of_some_parts_keeps_the_others(tmp_path):
    path = tmp_path / "performance.json"
    old = {"date": "2026-01-01", "conditions": {}}
    results.write(path, bench.merge(path, {"testbed": old, "startup": old}))
    new = {"date": "2026-01-02", "conditions": {}}
    doc = bench.merge(path, {"startup": new})
    assert doc["schema"] == bench.SCHEMA
    assert doc["parts"] == {"testbed": old, "startup": new}
    assert list(bench.merge(path, {"callgrind": new})["parts"]) == [
        "testbed",
        "callgrind",
        "startup",
    ]
