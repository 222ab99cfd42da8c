"""Figures in the README and the validation pages that are not generated tables: each is held to
where it comes from, so a stale one fails here, not a reader.

- the test bed's wall time in the README's first paragraph: what `scripts/bench.py`
  measured (validation/results/performance.json, rendered in docs/performance.md);
- how long each opt-in cross-check takes: what its script's own header says;
- the paragraph under docs/validation/kernel.md's `linux`-profile table: that printed table;
- the number of experiments in docs/validation/papers.md: the catalogue's files.

Standard library only, nothing timed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = [README, ROOT / "docs" / "validation" / "index.md"]
DURATION = r"about \d+ minutes|about an? hours?|\d+ hours or more|about \d+(?:\.\d+)? hours?"


def test_the_readme_test_bed_time_is_the_benchmark_s():
    m = re.search(
        r"test bed runs (\d+) simulated seconds in about (\d+(?:\.\d+)?) s", README.read_text()
    )
    assert m, "the README's test bed figure is gone or reworded: update this test"
    seconds, claimed = int(m.group(1)), float(m.group(2))
    part = json.loads((ROOT / "validation/results/performance.json").read_text())["parts"][
        "testbed"
    ]
    walls = [
        r["wall_s"]
        for length in part["lengths"]
        if length["seconds"] == seconds
        for r in length["runs"]
    ]
    assert walls, f"performance.json has no {seconds}-s test bed run"
    mean = sum(walls) / len(walls)
    assert abs(mean - claimed) <= max(0.5, 0.15 * mean), (
        f"README: about {claimed:g} s; scripts/bench.py measured {min(walls):g}–{max(walls):g} s "
        f"({part['date']}): write about {round(mean)} s"
    )


def script_duration(script: str) -> str:
    """The duration a script's header comment states for its full run."""
    header = []
    for line in (ROOT / "scripts" / script).read_text().splitlines()[1:]:
        if not line.startswith("#"):
            break
        header.append(line.lstrip("# ").strip())
    m = re.search(rf"(?:full suite|every configuration)[^.]*?takes ({DURATION})", " ".join(header))
    assert m, f"scripts/{script} no longer states how long it takes"
    return m.group(1)


def test_the_cross_checks_take_what_their_scripts_say():
    stale = []
    for script in ("validate-ns3.sh", "validate-ns2.sh"):
        said = script_duration(script)
        for page in PAGES:
            for n, line in enumerate(page.read_text().splitlines(), 1):
                if f"scripts/{script}" not in line:
                    continue
                for found in re.findall(DURATION, line):
                    if found != said:
                        stale.append(
                            f"{page.relative_to(ROOT)}:{n}: {found!r}, scripts/{script}: {said!r}"
                        )
    assert not stale, "durations that differ from their script's:\n" + "\n".join(stale)


def test_the_duration_pattern():
    assert re.findall(DURATION, "(opt-in, about 40 minutes)") == ["about 40 minutes"]
    assert re.findall(DURATION, "(3 hours or more; --quick)") == ["3 hours or more"]
    assert re.findall(DURATION, "(opt-in, about 1.5 hours)") == ["about 1.5 hours"]


def test_the_linux_profile_paragraph_quotes_its_table():
    """docs/validation/kernel.md: the paragraph under the `linux` profile's printed table
    (validation/testbed/stack_linux.py, itself held to its simulations) quotes that table."""
    page = (ROOT / "docs" / "validation" / "kernel.md").read_text(encoding="utf-8")
    start = page.index("<!-- printed: validation/testbed/stack_linux.py -->")
    end = page.index("<!-- end printed -->", start)
    table = page[start:end]
    paragraph = page[end:].split("\n\n")[1]
    rows = {}
    for line in table.splitlines()[3:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0]] = cells
    missing = []
    for x in re.findall(r"\b\d\.\d\de-\d\b", paragraph):
        mantissa, exp = x.split("e-")
        if f"{mantissa}e-{int(exp):02d}" not in table:
            missing.append(x)
    missing += [x for x in re.findall(r"\b[01]\.\d{3}\b", paragraph) if f"| {x} |" not in table]
    assert not missing, (
        f"kernel.md's linux-profile paragraph quotes numbers its table lacks: {missing}"
    )
    moves = {name: abs(float(c[3]) / float(c[2]) - 1) for name, c in rows.items()}
    top = max(moves, key=moves.__getitem__)
    m = re.search(r"moves no aggregate by more than ([\d.]+) % \(([\w.-]+)\)", paragraph)
    assert m, "the paragraph no longer states the largest change: update this test"
    assert (m.group(1), m.group(2)) == (f"{100 * moves[top]:.1f}", top), (m.groups(), top)


def test_the_experiment_count_is_the_catalogue_s():
    """docs/validation/papers.md's `hscc reproduce list` line: one experiment per data file."""
    page = (ROOT / "docs" / "validation" / "papers.md").read_text(encoding="utf-8")
    m = re.search(r"hscc reproduce list +# the (\d+) experiments", page)
    assert m, "papers.md no longer counts the experiments: update this test"
    files = [
        f
        for f in (ROOT / "python/hscc/reproduce/experiments").glob("*/*.toml")
        if f.name != "shared.toml"  # a paper's shared texts, not an experiment
    ]
    assert int(m.group(1)) == len(files), f"papers.md: {m.group(1)}; the catalogue has {len(files)}"
