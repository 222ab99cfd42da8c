"""The tables of the docs from the results files (ns3.json, ns2.json, kernel.json, engine.json, fuzz.json, dummynet.json,
fairness.json, performance.json).

    python validation/results/render.py --check    # exit 1 and list every table that differs
    python validation/results/render.py --write    # rewrite the tables in the docs

A table lives between two marker comments in a page:

    <!-- generated: validation/results/kernel.json table=summary group=papers -->
    ...
    <!-- end generated -->

`table` is one of the tables below; `group` selects the configurations of one group.
engine.json's tables are `columns` (the columns of ENGINE_COLUMNS[group]) and `checks`
(any row: its measured values, reference and bounds as they are).
Standard library only (the test that runs --check needs neither hscc nor its extension).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import results  # noqa: E402
from renderers import (  # noqa: E402
    benches,
    dummynet,
    engine,
    entries,
    fairness,
    fuzz,
    kernel,
    ns2,
    ns3,
    probe,
    simulators,
    status,
    sweeps,
)

ROOT = results.ROOT
DOCS = ROOT / "docs"
MARKER = re.compile(
    r"(?P<open><!-- generated: (?P<file>\S+)(?P<args>(?: \w+=\S+)*) -->\n)"
    r"(?P<body>.*?)"
    r"(?P<close><!-- end generated -->)",
    re.S,
)


# Each results file's tables: the `table=` of a marker, and the renderer that makes it.
TABLES = {
    "dummynet.json": {"tick": dummynet.dummynet_tick},
    "ns3.json": {
        "main": ns3.ns3_main,
        "flows": ns3.ns3_flows,
        "queue": ns3.ns3_queue,
        "replications": ns3.ns3_replications,
        "notes": entries.notes,
        "status": status.status,
    },
    "ns2.json": {
        "main": ns2.ns2_main,
        "recovery": ns2.ns2_recovery,
        "spread": ns2.ns2_spread,
        "notes": ns2.ns2_notes,
        "status": status.status,
    },
    "engine.json": {
        "columns": engine.engine_columns,
        "checks": engine.engine_checks,
        "notes": entries.notes,
        "status": engine.engine_status,
    },
    "kernel.json": {
        "summary": kernel.kernel_summary,
        "trajectory": kernel.kernel_trajectory,
        "shares": kernel.kernel_shares,
        "models": kernel.kernel_models,
        "notes": entries.notes,
        "status": status.status,
    },
    "fuzz.json": {
        "campaign": fuzz.fuzz_campaign,
        "outcomes": fuzz.fuzz_outcomes,
        "status": fuzz.fuzz_status,
    },
    "fairness.json": {
        "shares": fairness.fairness_shares,
        "threshold": fairness.fairness_threshold,
    },
    "performance.json": {
        "testbed": benches.perf_testbed,
        "callgrind": benches.perf_callgrind,
        "many_flows": benches.perf_many_flows,
        "flows": benches.perf_flows,
        "loss_burst": benches.perf_loss_burst,
        "startup": benches.perf_startup,
        "sweeps": sweeps.perf_sweeps,
        "probe": probe.perf_probe,
        "simulators": simulators.perf_simulators,
        "memory": benches.perf_memory,
    },
}


def render(file: str, args: dict[str, str]) -> str:
    name = Path(file).name
    doc = results.load(ROOT / file)
    return TABLES[name][args["table"]](doc, args.get("group"))


def blocks(text: str):
    for m in MARKER.finditer(text):
        args = dict(a.split("=", 1) for a in m.group("args").split())
        yield m, m.group("file"), args


def pages() -> list[Path]:
    return sorted(
        p
        for p in DOCS.rglob("*.md")
        if "<!-- generated: validation/results/" in p.read_text(encoding="utf-8")
    )


def stale_blocks(text: str) -> list[str]:
    """The generated tables of a page's text that differ from what their results file renders."""
    return [
        f"{file} {' '.join(f'{k}={v}' for k, v in args.items())}"
        for m, file, args in blocks(text)
        if m.group("body") != render(file, args)
    ]


def check() -> list[str]:
    """Every generated table that differs from what its results file renders: "page: file args"."""
    return [
        f"{page.relative_to(ROOT)}: {block}"
        for page in pages()
        for block in stale_blocks(page.read_text(encoding="utf-8"))
    ]


def write() -> list[Path]:
    changed = []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        new = MARKER.sub(
            lambda m: (
                m.group("open")
                + render(m.group("file"), dict(a.split("=", 1) for a in m.group("args").split()))
                + m.group("close")
            ),
            text,
        )
        if new != text:
            page.write_text(new, encoding="utf-8")
            changed.append(page)
    return changed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument(
        "--check", action="store_true", help="exit 1 if a table differs from its results file"
    )
    mode.add_argument(
        "--write", action="store_true", help="rewrite the tables from the results files"
    )
    args = ap.parse_args(argv)
    if args.check:
        stale = check()
        for s in stale:
            print(f"stale: {s}", file=sys.stderr)
        if stale:
            print("run: python validation/results/render.py --write", file=sys.stderr)
        return 1 if stale else 0
    for page in write():
        print(f"wrote {page.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
