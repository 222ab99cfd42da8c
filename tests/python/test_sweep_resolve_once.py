"""A sweep resolves each scenario once: its own process builds and estimates each point once
(the axis values' check included), and a worker builds and estimates each run once."""

from __future__ import annotations

from conftest import ONE_FLOW
from hscc import _core
from hscc.sweeps import plan, spec, worker

SHORT = ONE_FLOW.replace('duration = "10s"', 'duration = "1s"')
# 3 × 2 = 6 points; `check` visits point 0 and one point per other axis value (2 + 1).
AXES = {
    "topology.bottleneck.loss": [0, "1%", "2%"],
    "flows[0].algorithm": ["reno", "cubic"],
}


def counted(work):
    """(scenario builds, estimates) the engine made while `work` ran, and what it returned."""
    before = _core.work_counts()
    out = work()
    after = _core.work_counts()
    return (after[0] - before[0], after[1] - before[1]), out


def test_a_plan_builds_and_estimates_each_point_once(write_toml):
    sw = spec.parse({"axes": AXES, "replicates": 2}, base=write_toml(SHORT, "short.toml"))
    work, made = counted(lambda: plan.make(sw))
    assert len(made.jobs) == 12
    # Six points, whatever the replicates; the four `check` resolved are not resolved again.
    assert work == (6, 6)
    work, points = counted(lambda: plan.check(sw))
    assert (work, points) == ((4, 4), 6)


def test_a_worker_builds_and_estimates_its_run_once(write_toml):
    sw = spec.parse({"axes": AXES}, base=write_toml(SHORT, "short.toml"))
    job = plan.make(sw).jobs[3]
    work, (status, _, row) = counted(lambda: worker.run_job(job.scenario, None, None, False))
    assert status == "ok" and row["events"] > 0
    assert work == (1, 1)


def test_hscc_reproduce_looks_its_experiment_up_once(tmp_path, monkeypatch):
    """`hscc reproduce NAME` finds NAME in the catalogue once (for a did-you-mean before a
    missing --out) and hands the experiment on; the sweep is stopped before it runs."""
    from typer.testing import CliRunner

    import hscc.reproduce as rep
    from hscc.cli import app

    looked_up: list[str] = []
    find = rep.find

    def counting_find(name: str) -> rep.Experiment | None:
        looked_up.append(name)
        return find(name)

    def stop(*args, **kwargs):
        raise RuntimeError("stopped before the runs")

    monkeypatch.setattr(rep, "find", counting_find)
    monkeypatch.setattr(rep, "run_sweep", stop)
    name = rep.catalogue()[0].name
    out = CliRunner().invoke(
        app, ["reproduce", name, "--quick", "-q", "--out", str(tmp_path / "r")]
    )
    assert "stopped before the runs" in out.output, out.output
    assert looked_up == [name]
