"""Golden runs: canonical scenarios (tests/golden/*.toml) whose results are committed.

Any change to what the engine computes for them fails here, listing the values that
moved. When a change is meant (a fixed bug, a new model), regenerate on purpose with

    HSCC_GOLDEN=write .venv/bin/python -m pytest tests/python/test_golden.py

and say in the commit message which numbers moved and why.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

import hscc

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
SCENARIOS = sorted(GOLDEN.glob("*.toml"))
VOLATILE = {"wall_time_s"}  # how long the run took, not what it computed


def observed(scenario: Path) -> dict:
    result = hscc.run(scenario)
    summary = {k: v for k, v in result.summary.items() if k not in VOLATILE}
    series = result.timeseries.write_csv().encode()
    return {
        "summary": summary,
        "timeseries_rows": result.timeseries.height,
        "timeseries_sha256": hashlib.sha256(series).hexdigest(),
    }


def differences(expected: object, got: object, path: str = "") -> list[str]:
    """Where two JSON values differ, as 'path: expected -> got' lines."""
    if isinstance(expected, dict) and isinstance(got, dict):
        out = []
        for key in sorted(set(expected) | set(got), key=str):
            out += differences(expected.get(key), got.get(key), f"{path}.{key}" if path else key)
        return out
    if isinstance(expected, list) and isinstance(got, list) and len(expected) == len(got):
        return [
            d
            for i, (e, g) in enumerate(zip(expected, got, strict=True))
            for d in differences(e, g, f"{path}[{i}]")
        ]
    return [] if expected == got else [f"{path}: {expected!r} -> {got!r}"]


def test_there_are_golden_scenarios():
    assert len(SCENARIOS) >= 5, SCENARIOS


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda p: p.stem)
def test_golden_run(scenario: Path):
    expected_file = scenario.with_suffix(".expected.json")
    got = json.loads(json.dumps(observed(scenario)))  # as it would read back from the file
    if os.environ.get("HSCC_GOLDEN") == "write":
        expected_file.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
    assert expected_file.is_file(), (
        f"{expected_file} is missing: regenerate (see this file's docstring)"
    )
    expected = json.loads(expected_file.read_text())
    moved = differences(expected, got)
    assert not moved, (
        f"{scenario.name}: {len(moved)} values moved (first 20 below). If the change is meant, "
        "regenerate with HSCC_GOLDEN=write .venv/bin/python -m pytest tests/python/test_golden.py\n"
        + "\n".join(moved[:20])
    )


def test_differences_names_what_moved():
    assert differences({"a": [1, {"b": 2}]}, {"a": [1, {"b": 3}]}) == ["a[1].b: 2 -> 3"]
    assert differences({"a": 1}, {"a": 1}) == []
    assert differences({"a": 1}, {}) == ["a: 1 -> None"]
