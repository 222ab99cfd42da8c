"""A sweep's program files travel with its tasks (hscc.sweeps.programs): a worker that cannot
read a program as the sweep read it (a Dask worker on another machine, or the file moved or
edited since the sweep was planned) builds the text the sweep read, with the headers it
includes from beside it, and its runs are the ones the file gave where it was."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import hscc
from hscc import _core
from hscc.cli import app
from hscc.sweeps import execute, plan, programs, spec, worker

pytestmark = pytest.mark.skipif(
    shutil.which("cc") is None, reason="no C compiler (cc) to build programs with"
)

AXES = {"flows[0].params.increase": [1, 6]}


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HSCC_CACHE_DIR", str(tmp_path / "cache"))


def template(tmp_path: Path) -> Path:
    """`hscc new-algorithm mycc` in tmp_path/work, 3 s long, with its two defaults moved into
    headers of its own: knobs/mycc.h (beta) includes ../common.h (increase)."""
    work = tmp_path / "work"
    r = CliRunner().invoke(app, ["new-algorithm", "mycc", "--dir", str(work)])
    assert r.exit_code == 0, r.output
    program = work / "mycc.bpf.c"
    text = program.read_text()
    moved = (
        text.replace(
            '#include "bpf_tracing_net.h"', '#include "bpf_tracing_net.h"\n#include "knobs/mycc.h"'
        )
        .replace("increase = 1;", "increase = MYCC_INCREASE;")
        .replace("beta = 512;", "beta = MYCC_BETA;")
    )
    assert moved.count("MYCC_") == 2 and "knobs/mycc.h" in moved
    program.write_text(moved)
    (work / "knobs").mkdir()
    (work / "knobs" / "mycc.h").write_text('#include "../common.h"\n#define MYCC_BETA 512\n')
    (work / "common.h").write_text("#define MYCC_INCREASE 1\n")
    scenario = work / "mycc.toml"
    scenario.write_text(scenario.read_text().replace('duration = "10s"', 'duration = "3s"'))
    return scenario


def sources(job: plan.Job) -> dict[str, programs.Source]:
    return {s.path: s for s in job.sources}


def numbers(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k != "wall_time_s"}


@pytest.mark.timeout(180)
def test_a_dask_worker_that_cannot_read_the_program_runs_the_text_the_sweep_read(tmp_path):
    pytest.importorskip("distributed")
    scenario = template(tmp_path)
    made = plan.make(spec.parse({"axes": AXES, "replicates": 1}, base=str(scenario)))
    program = str(tmp_path / "work" / "mycc.bpf.c")
    assert [[s.path for s in j.sources] for j in made.jobs] == [[program], [program]]
    # From the file where it is, in this process.
    local = [worker.run_job(j.scenario, None, None, False) for j in made.jobs]
    assert [status for status, _, _ in local] == ["ok", "ok"]
    assert numbers(local[0][2]) != numbers(local[1][2]), "the two points are different runs"

    (tmp_path / "work").rename(tmp_path / "elsewhere")  # the program and both its headers
    status, message, _ = worker.run_job(made.jobs[0].scenario, None, None, False)
    assert status == "failed" and "cannot read" in message, "without its text, a worker fails"

    with execute.open_pool(2, "local") as pool:
        outcomes = execute.execute(made.jobs, None, pool, (None, None))
    assert [o.status for o in outcomes] == ["ok", "ok"], [o.error for o in outcomes]
    assert [numbers(o.metrics or {}) for o in outcomes] == [numbers(r[2]) for r in local]
    # The workers built a copy in the cache: the program and its headers, as laid out beside it.
    copy = tmp_path / "cache" / "programs" / "sources" / made.jobs[0].sources[0].digest[:32]
    beside = copy / program.lstrip("/")
    assert beside.is_file() and (beside.parent / "knobs" / "mycc.h").is_file()
    assert (beside.parent / "common.h").read_text() == "#define MYCC_INCREASE 1\n"


@pytest.mark.timeout(60)
def test_a_worker_that_reads_other_text_runs_the_sweeps_and_names_the_original_file(tmp_path):
    scenario = template(tmp_path)
    made = plan.make(spec.parse({"axes": {}, "replicates": 1}, base=str(scenario)))
    job = made.jobs[0]
    planned = worker.run_job(job.scenario, None, None, True, sources(job))
    assert planned[0] == "ok"
    program = tmp_path / "work" / "mycc.bpf.c"
    program.write_text(program.read_text().replace("= MYCC_INCREASE;", "= 8;"))  # after planning
    edited = worker.run_job(job.scenario, None, None, True)
    assert edited[0] == "ok" and numbers(edited[2]) != numbers(planned[2]), "the edit matters"
    shipped = worker.run_job(job.scenario, None, None, True, sources(job))
    assert shipped[0] == "ok" and numbers(shipped[2]) == numbers(planned[2])
    # The run records the file the sweep named, not the cache's copy.
    manifest = json.loads(shipped[1]["manifest.json"])
    assert manifest["scenario"]["flows"][0]["algorithm"] == str(tmp_path / "work" / "mycc.bpf.c")
    assert manifest["scenario"] == json.loads(planned[1]["manifest.json"])["scenario"]
    # And the digest of the code it ran: the planned text's, not the edited file's.
    first = json.loads(planned[1]["manifest.json"])["programs"]
    assert manifest["programs"] == first and list(first) == [str(program)]
    assert json.loads(edited[1]["manifest.json"])["programs"][str(program)] != first[str(program)]


@pytest.mark.timeout(60)
def test_a_fault_in_the_shipped_text_names_the_original_file_and_line(tmp_path):
    scenario = template(tmp_path)
    program = tmp_path / "work" / "mycc.bpf.c"
    broken = program.read_text().replace(
        "\tw = tp->snd_cwnd / (increase ? increase : 1);",
        "\tw = tp->snd_cwnd / (tp->snd_cwnd > 30 ? 0 : 1);",
    )
    program.write_text(broken)
    line = next(i for i, s in enumerate(broken.splitlines(), 1) if "> 30 ? 0 : 1" in s)
    made = plan.make(spec.parse({"axes": {}, "replicates": 1}, base=str(scenario)))
    program.unlink()
    status, message, _ = worker.run_job(
        made.jobs[0].scenario, None, None, False, sources(made.jobs[0])
    )
    assert status == "failed"
    assert f"{program}:{line}:" in message and "division by zero in cong_avoid" in message, message
    assert "sources" not in message, message


def test_the_headers_shipped_are_those_the_compiler_reads_from_beside_the_program(tmp_path):
    (tmp_path / "knobs").mkdir()
    prog = tmp_path / "p.bpf.c"
    prog.write_text(
        '#include "bpf_tracing_net.h"\n'  # not beside it: the shim's
        "#include <bpf/bpf_helpers.h>\n"
        '#include "knobs/a.h"\n'
        '  #  include "b.h"\n'
        "#include <c.h>\n"  # beside it, but <...> never reads from there
    )
    (tmp_path / "knobs" / "a.h").write_text('#include "../common.h"\n')  # relative to a.h
    (tmp_path / "b.h").write_text("")
    (tmp_path / "c.h").write_text("")
    (tmp_path / "common.h").write_text('#include "knobs/a.h"\n')  # a cycle, read once
    s = programs.read(str(prog))
    assert [p for p, _ in s.files] == [
        str(prog),
        str(tmp_path / "knobs" / "a.h"),
        str(tmp_path / "b.h"),
        str(tmp_path / "common.h"),
    ]
    assert s.on_disk() and programs.read(str(prog)).digest == s.digest
    (tmp_path / "common.h").write_text("#define X 1\n")
    assert not s.on_disk() and programs.read(str(prog)).digest != s.digest


@pytest.mark.timeout(90)
def test_a_sweep_into_the_same_directory_runs_an_edited_program_anew(tmp_path):
    scenario = template(tmp_path)
    out = tmp_path / "sweep"
    first = hscc.sweep(scenario, AXES, jobs=1, out=out)
    assert list(first.points["status"]) == ["ok", "ok"]
    unchanged = hscc.sweep(scenario, AXES, jobs=1, out=out)
    assert list(unchanged.points["status"]) == ["cached", "cached"]
    (tmp_path / "work" / "knobs" / "mycc.h").write_text(
        '#include "../common.h"\n#define MYCC_BETA 700\n'
    )
    edited = hscc.sweep(scenario, AXES, jobs=1, out=out)
    assert list(edited.points["status"]) == ["ok", "ok"]
    assert set(edited.points["run"]).isdisjoint(first.points["run"])
    # Built anew, though the engine's own build cache does not look at headers.
    goodput = "flows[0].goodput_bps"
    assert all(a != b for a, b in zip(edited.points[goodput], first.points[goodput], strict=True))


def test_a_run_without_program_files_keeps_its_key():
    """The program digests join the key only where a run names a program: stores of other
    runs stay valid."""
    sc = {"duration": 1.0, "seed": 3, "name": "x", "flows": [{"algorithm": "reno"}]}
    text = json.dumps(
        {
            "digest": _core.engine_digest(),
            "engine": _core.engine_version(),
            "scenario": {"duration": 1.0, "flows": [{"algorithm": "reno"}], "seed": 3},
        },
        separators=(",", ":"),
    )
    assert plan.cache_key(sc) == hashlib.sha256(text.encode()).hexdigest()[:32]


@pytest.mark.timeout(90)
def test_a_program_that_kills_its_worker_fails_its_runs_naming_the_file(tmp_path):
    """A write far outside the memory a program may use (which the kernel's verifier refuses)
    corrupts the process: what follows depends on what it overwrote. Most often the process
    dies outside any hook, where no fault report catches it, and the run's error names the
    program and where to find the line; else a check names it (a window of 0, a crash in a
    hook). Either way the sweep goes on and says which program it was."""
    scenario = template(tmp_path)
    program = tmp_path / "work" / "mycc.bpf.c"
    text = program.read_text()
    old = "\tca->loss_cwnd = tp->snd_cwnd;\n"
    assert text.count(old) == 1, "the template changed"
    program.write_text(
        text.replace(
            old, old + "\tfor (int i = 1; i < 4096; i++)\n\t\t((volatile __u64 *)ca)[i] = 0;\n"
        )
    )
    r = hscc.sweep(scenario, {}, replicates=2, jobs=2)  # 2 runs: on a pool, not in this process
    assert set(r.points["status"]) == {"failed"}, r.points
    for error in r.points["error"]:
        assert "mycc.bpf.c" in error, error
        if "its worker died" in error:
            assert "hscc kernel load" in error, error
