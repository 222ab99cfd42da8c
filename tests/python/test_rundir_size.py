"""A run directory stays proportionate to what happened: summary.json leaves out the links
no packet reached (counting them), manifest.json holds the scenario but not the engine's
configuration, every reader finds an idle link in links.parquet, and run directories written
before still load, and the memory estimate counts the files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import hscc
from hscc import limits, report
from hscc.plot import capacities
from hscc.rundir import check_target
from hscc.scenario import Scenario
from hscc.sweeps.metrics import row
from hscc.sweeps.store import RunStore

pytestmark = pytest.mark.timeout(60)

# One flow a → b; the monitored link r – c carries nothing.
IDLE = """
name = "idle-links"
duration = "2s"
seed = 1

[output]
sample_interval = "100ms"

[topology]
kind = "graph"
nodes = ["a", "r", "b", "c"]
links = [
  { a = "a", b = "r", fwd = { rate = "1Gbps", delay = "1ms" } },
  { a = "r", b = "b", fwd = { rate = "10Mbps", delay = "5ms" }, monitor = true },
  { a = "r", b = "c", fwd = { rate = "10Mbps", delay = "5ms", buffer = "100pkts" }, monitor = true },
]

[[flows]]
src = "a"
dst = "b"
"""


@pytest.fixture(scope="module")
def idle(tmp_path_factory):
    path = tmp_path_factory.mktemp("idle") / "idle.toml"
    path.write_text(IDLE)
    return hscc.run(path)


def _idle_names(r) -> list[str]:
    return [x["name"] for x in r.links.iter_rows(named=True) if x["tx_packets"] + x["drops"] == 0]


def test_summary_json_leaves_out_idle_links_and_counts_them(idle, tmp_path):
    idle_names = _idle_names(idle)
    assert len(idle_names) == 2  # r → c and c → r
    run_dir = idle.write(tmp_path / "run")
    s = json.loads((run_dir / "summary.json").read_text())
    assert s["idle_links"] == 2
    assert not {x["name"] for x in s["links"]} & set(idle_names)
    assert len(s["links"]) + s["idle_links"] == hscc.load(run_dir).links.height == 6


def test_an_idle_monitored_link_is_a_sweep_metric_and_a_report_row(idle, tmp_path):
    name = next(n for n in _idle_names(idle) if n.endswith(":fwd"))
    metrics = row(idle.summary, lambda: idle.web, lambda: idle.links)
    assert metrics[f"{name}.utilization"] == 0.0 and metrics[f"{name}.drops"] == 0
    table = next(x for x in idle.links.iter_rows(named=True) if x["name"] == name)
    assert all(metrics[f"{name}.{k}"] == table[k] for k in ("mean_qdelay_s", "marks"))
    # A stored run's metrics (a sweep's cache) read links.parquet the same way.
    store = RunStore(tmp_path / "store")
    store.save({"k": idle.files()})
    assert store.metrics("k") == metrics
    # `hscc run`'s table of monitored links shows it too.
    from rich.console import Console

    console = Console(width=200, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(report.summary(idle))
    assert name in console.export_text()


def _as_format_2(run_dir: Path) -> None:
    """Rewrite `run_dir` as hscc wrote run directories before: format 2, the engine's
    configuration in manifest.json, every link in summary.json."""
    r = hscc.load(run_dir)
    m = json.loads((run_dir / "manifest.json").read_text())
    m["format"] = 2
    m["engine_config"] = json.loads(r.scenario.resolved().config())
    (run_dir / "manifest.json").write_text(json.dumps(m, indent=2))
    s = json.loads((run_dir / "summary.json").read_text())
    del s["idle_links"]
    s["links"] = r.links.to_dicts()
    (run_dir / "summary.json").write_text(json.dumps(s, indent=2))


def test_a_run_directory_written_before_still_loads(idle, tmp_path):
    run_dir = idle.write(tmp_path / "run")
    now = row(idle.summary, lambda: idle.web, lambda: idle.links)
    _as_format_2(run_dir)
    old = hscc.load(run_dir)
    assert "engine_config" in old.manifest and "idle_links" not in old.summary
    assert old.links.equals(idle.links)
    assert row(old.summary, lambda: old.web, lambda: old.links) == now
    assert capacities(old) == capacities(idle)
    check_target(run_dir, overwrite=True)  # still hscc's: replaced when asked
    assert idle.write(run_dir, overwrite=True) == run_dir


def _dumbbell(pairs: int) -> dict:
    return {
        "name": "wide",
        "duration": "0.5s",
        "seed": 1,
        "output": {"traces": []},
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate": "10Mbps", "delay": "5ms"},
            "pairs": [{"rtt": "20ms"}] * pairs,
        },
        "flows": [{"pair": 0, "algorithm": "reno"}],
    }


def charged(sc: Scenario) -> int:
    """The files and the scenario they include (manifest.json), as the estimate charges them."""
    parts = json.loads(sc.resolved().estimate())["memory"]
    return parts["files"] + parts["scenario"]


def test_the_estimate_counts_the_files_of_a_wide_topology():
    # 3000 host pairs (12 002 link directions with the bottleneck), one flow: summary.json has the 6 links
    # the flow crosses, links.parquet all of them, manifest.json every pair.
    sc = Scenario.parse(_dumbbell(3000))
    files = hscc.run(sc).files()
    assert json.loads(files["summary.json"])["idle_links"] == 12_002 - 6
    assert len(files["summary.json"]) < 20_000
    written = sum(len(b) for b in files.values())
    assert written <= charged(sc) <= 20 * written, (written, charged(sc))
    # The files grow with the topology, and so does their part of the estimate.
    assert 1.8 < charged(Scenario.parse(_dumbbell(6000))) / charged(sc) < 2.2
    assert limits.estimate(sc.resolved()).memory_bytes > charged(sc)
