"""Figures are drawn again only when what they show changed: a sweep or a reproduction
run again with every run cached rewrites no image (a cached `hscc reproduce all` takes
seconds), and one whose numbers moved gets new images."""

from __future__ import annotations

import os

import polars as pl
import pytest

from hscc import figure_cache
from hscc.sweeps import plot
from hscc.sweeps.result import SweepResult

pytestmark = pytest.mark.timeout(60)


def _sweep(directory, goodput: list[float]) -> SweepResult:
    n = len(goodput)
    points = pl.DataFrame(
        {
            "point": [i // 2 for i in range(n)],
            "replicate": [i % 2 for i in range(n)],
            "seed": list(range(n)),
            "status": ["cached"] * n,
            "error": [None] * n,
            "run": [f"r{i}" for i in range(n)],
            "topology.bottleneck.loss": [1e-6, 1e-6, 1e-4, 1e-4][:n],
            "total_goodput_bps": goodput,
        },
        schema_overrides={"replicate": pl.UInt32, "seed": pl.UInt64, "error": pl.String},
    )
    return SweepResult(points, [["topology.bottleneck.loss"]], None, directory)


def _age(paths, seconds: float = 1000.0) -> dict:
    for p in paths:
        t = p.stat().st_mtime - seconds
        os.utime(p, (t, t))
    return {p: p.stat().st_mtime for p in paths}


def test_a_sweeps_own_plots_are_drawn_again_only_when_the_summary_changed(tmp_path):
    own = tmp_path / "plots"
    paths = plot.plot(_sweep(tmp_path, [9e7, 9.2e7, 5e7, 6e7]), own)
    assert [p.name for p in paths] == ["total-goodput.png"]
    before = _age(paths)
    assert plot.plot(_sweep(tmp_path, [9e7, 9.2e7, 5e7, 6e7]), own) == paths
    assert {p: p.stat().st_mtime for p in paths} == before  # not written again
    plot.plot(_sweep(tmp_path, [9e7, 9.2e7, 5e7, 7e7]), own)  # a replicate moved
    assert all(p.stat().st_mtime > before[p] for p in paths)
    paths[0].unlink()  # a figure deleted by hand is drawn again
    plot.plot(_sweep(tmp_path, [9e7, 9.2e7, 5e7, 7e7]), own)
    assert paths[0].is_file()


def test_the_key_covers_the_data_and_the_drawing_code():
    assert figure_cache.key("a", "b") == figure_cache.key("a", "b")
    assert figure_cache.key("a", "b") != figure_cache.key("ab", "")  # parts are delimited
    assert figure_cache.key("a") != figure_cache.key("b")


def test_a_reproductions_figure_is_read_back_when_nothing_changed(tmp_path):
    from hscc import reproduce
    from hscc.reproduce import compare
    from hscc.reproduce.experiment import find

    exp = find("ctcp-fig9")
    assert exp is not None
    runs = pl.DataFrame(
        {
            "measure": ["throughput"] * 3,
            "series": ["CTCP"] * 3,
            "x": [30.0] * 3,
            "replicate": [0, 1, 2],
            "value": [670.0, 672.0, 674.0],
        },
        schema_overrides={"replicate": pl.UInt32},
    )
    table = compare.cells(exp, runs)
    png, digest = reproduce._figure(exp, table, tmp_path)
    assert png.startswith(b"\x89PNG") and digest
    (tmp_path / "figure.png").write_bytes(png)
    figure_cache.remember(tmp_path, digest)
    again, new = reproduce._figure(exp, table, tmp_path)
    assert again == png and new == ""  # read back, nothing to record
    moved = compare.cells(exp, runs.with_columns(pl.col("value") + 1))
    assert reproduce._figure(exp, moved, tmp_path)[1] not in ("", digest)


def test_the_plotting_modules_import_matplotlib_only_to_draw():
    import subprocess
    import sys

    code = "import sys, hscc.style, hscc.sweeps.plot, hscc.reproduce; print('matplotlib' in sys.modules)"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stdout.strip() == "False", p.stderr
