"""A fuzzing campaign's figures as data: validation/results/fuzz.json.

    python fuzz/py/fuzz_results.py --fuzzer python|readers|engine --summary SUMMARY.json
        --campaign LABEL --command CMD [--log LIBFUZZER_LOG] [--wall-seconds S]
        [--results PATH | --no-results]

scripts/fuzz.sh calls it after each fuzzer with the summary that fuzzer wrote
(fuzz/out/python/summary.json from campaign.py, fuzz/out/readers/summary.json
from fuzz_readers.py, fuzz/out/engine/summary.json from engine_report.py); it
prints the entry and puts it into the results file. render.py turns the file
into the campaign tables of docs/validation/engine.md. Standard library only.

The file:

    {
      "schema": "hscc.fuzz.results/1",
      "target": what is fuzzed, "command": the command of a campaign,
      "units": the units and sources of the numbers, in words,
      "entries": [
        {
          "campaign": a label shared by the entries of one fuzz.sh call (--campaign),
          "fuzzer": "Python" | "readers" | "engine",
          "date": YYYY-MM-DD, "command": the fuzz.sh call, "revision": git (short) or null,
          "machine": {"cores": os.cpu_count(), "load_average": 1-minute load at the end}
                     (or {"cores", "note"}),
          "source": where the numbers come from (the run that wrote them, or a transcription),
          "jobs": fuzzing processes,
          "inputs": inputs run,
          "wall_seconds": the campaign's wall time (Python: its longest job's fuzzing time;
                          engine: libFuzzer's run as fuzz.sh timed it),
          "inputs_per_second": inputs / wall_seconds (engine: libFuzzer's exec/s),
          "coverage": {"edges", "features", "corpus"} from libFuzzer's last status line
                      (cov, ft, corp; the largest of the Python jobs'), or null,
          "findings": {kind: {"count": inputs, "distinct": signatures} or null where the
                       fuzzer does not look for that kind}, kinds KINDS,
          "distinct_findings": distinct findings of every kind,
          "outcomes": (Python) inputs per outcome: "model_rejected" (refused by validation),
                      "file_rejected" (refused as a file), "engine_rejected" (refused by
                      the engine, naming a field), "ran", and the findings' kinds; else null,
          "note": (optional) what the numbers alone do not say
        }, ...
      ]
    }

`update` merges: an entry replaces the one of the same campaign and fuzzer in its
place, any other is appended; every other entry is kept. Written atomically.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

FUZZ = Path(__file__).resolve().parent.parent
REPO = FUZZ.parent
sys.path.insert(0, str(REPO / "validation" / "results"))

import results  # noqa: E402

SCHEMA = "hscc.fuzz.results/1"
RESULTS = REPO / "validation" / "results" / "fuzz.json"
KINDS = ("panic", "traceback", "hang", "memory", "unclear", "crash")
FUZZERS = {"python": "Python", "readers": "readers", "engine": "engine"}
# The kinds each fuzzer looks for; the others are null in its entries.
LOOKS_FOR = {
    "Python": KINDS,
    "readers": ("panic", "traceback", "hang", "memory", "crash"),
    "engine": ("panic", "hang", "memory", "crash"),
}
TOP = {
    "target": (
        "the scenario path: scenario, sweep and experiment files through hscc's readers, "
        "validation and the engine (docs/validation/engine.md)"
    ),
    "command": "bash scripts/fuzz.sh",
    "units": (
        "wall time in s; inputs/s = inputs / wall time (engine: libFuzzer's exec/s); coverage as "
        "libFuzzer reports it at the end (cov = edges, ft = features, corp = corpus size); "
        "findings per kind: count (inputs) and distinct (signatures), null where the fuzzer "
        "does not look for that kind"
    ),
}
_STATUS = re.compile(
    r"^#(\d+):?\s+(?:\w+\s+)?cov: (\d+) ft: (\d+) corp: (\d+)\S*.*?exec/s: (\d+)"
    r"(?:.*oom/timeout/crash: (\d+)/(\d+)/(\d+))?"
)


def last_status(text: str) -> dict[str, int]:
    """Executions, coverage and corpus size from libFuzzer's last status line ({} if none)."""
    last = None
    for line in text.splitlines():
        m = _STATUS.match(line)
        if m:
            last = m
    if last is None:
        return {}
    keys = ("executions", "cov", "ft", "corpus", "exec_per_second", "ooms", "timeouts", "crashes")
    return {k: int(v) for k, v in zip(keys, last.groups(), strict=True) if v is not None}


def coverage(statuses: list[dict[str, int]]) -> dict[str, int] | None:
    """{"edges", "features", "corpus"}: the largest of the status lines given (one per job)."""
    statuses = [s for s in statuses if "cov" in s]
    if not statuses:
        return None
    return {
        "edges": max(s["cov"] for s in statuses),
        "features": max(s["ft"] for s in statuses),
        "corpus": max(s["corpus"] for s in statuses),
    }


def signature_kind(signature: str) -> str:
    """The kind of a Python or readers finding from its signature ("traceback:python:...")."""
    kind = signature.split(":", 1)[0]
    return kind if kind in KINDS else "crash"


def engine_kind(group: str) -> str:
    """The kind of an engine_report.py group ("panic at F:L: ...", "timeout: dumbbell+udp", ...)."""
    if group.startswith("panic"):
        return "panic"
    if group.startswith(("timeout", "slow-unit")):
        return "hang"
    if group.startswith(("out of memory", "oom", "leak")):
        return "memory"
    return "crash"


def tally(fuzzer: str, hits: dict[str, int]) -> dict[str, dict[str, int] | None]:
    """{kind: {"count", "distinct"}} from {signature: count}; null for kinds the fuzzer misses."""
    out: dict[str, dict[str, int] | None] = {
        k: ({"count": 0, "distinct": 0} if k in LOOKS_FOR[fuzzer] else None) for k in KINDS
    }
    for sig, n in hits.items():
        kind = engine_kind(sig) if fuzzer == "engine" else signature_kind(sig)
        slot = out[kind]
        if slot is None:  # a kind this fuzzer was not expected to find: shown all the same
            slot = out[kind] = {"count": 0, "distinct": 0}
        slot["count"] += n
        slot["distinct"] += 1
    return out


def entry(
    fuzzer: str,
    summary: dict[str, Any],
    *,
    campaign: str,
    command: str,
    log_text: str = "",
    wall_seconds: float | None = None,
) -> dict[str, Any]:
    """One campaign's entry from the summary its fuzzer wrote (see the module doc)."""
    name = FUZZERS[fuzzer]
    if name == "engine":
        inputs = summary.get("executions") or 0
        wall = wall_seconds
        rate = summary.get("exec_per_second") or (round(inputs / wall, 1) if wall else None)
        hits = {g: f["count"] for g, f in summary.get("findings", {}).items()}
        cov = coverage([summary])
        jobs = 1
    else:
        inputs = summary["inputs"]
        wall = summary.get("wall_seconds", summary.get("seconds"))
        rate = summary.get("inputs_per_second")
        hits = dict(summary.get("findings", {}))
        for a in summary.get("libfuzzer_artifacts", []):  # libFuzzer's own stops, one each
            kind = {"timeout": "hang", "oom": "memory"}.get(a.split("-")[1], "crash")
            hits[f"{kind}:libfuzzer:{a}"] = 1
        cov = summary.get("coverage") or coverage([last_status(log_text)])
        jobs = summary.get("jobs", 1)
    findings = tally(name, hits)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    out: dict[str, Any] = {
        "campaign": campaign,
        "fuzzer": name,
        "date": results.today(),
        "command": command,
        "revision": results.revision(),
        "machine": {
            "cores": os.cpu_count(),
            "load_average": None if load is None else round(load, 2),
        },
        "source": results.run_source(command),
        "jobs": jobs,
        "inputs": inputs,
        "wall_seconds": wall,
        "inputs_per_second": rate,
        "coverage": cov,
        "findings": findings,
        "distinct_findings": sum(f["distinct"] for f in findings.values() if f),
        "outcomes": dict(summary["outcomes"]) if name == "Python" else None,
    }
    return out


def merge(doc: dict[str, Any], entries: list[dict[str, Any]]) -> dict[str, Any]:
    """`doc` with `entries` in it: each replaces the entry of its campaign and fuzzer in place,
    or is appended in the order given; the others are kept."""
    new = {(e["campaign"], e["fuzzer"]): e for e in entries}
    kept = [new.pop((e["campaign"], e["fuzzer"]), e) for e in doc["entries"]]
    return {**doc, "entries": kept + list(new.values())}


def update(path: Path, entries: list[dict[str, Any]]) -> dict[str, Any]:
    """Put `entries` into the results file at `path` (a new file gets TOP), atomically."""
    path = Path(path)
    doc = results.load(path) if path.is_file() else {"schema": SCHEMA, **TOP, "entries": []}
    doc = merge(doc, entries)
    results.write(path, doc)
    return doc


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--fuzzer", choices=sorted(FUZZERS), required=True)
    p.add_argument("--summary", type=Path, required=True, help="the summary the fuzzer wrote")
    p.add_argument("--campaign", required=True, help="the label of this fuzz.sh call")
    p.add_argument("--command", required=True, help="the fuzz.sh call, as typed")
    p.add_argument("--log", type=Path, help="libFuzzer's output, for its coverage (readers)")
    p.add_argument("--wall-seconds", type=float, help="the fuzzer's wall time (engine)")
    results.add_arguments(p, RESULTS)
    args = p.parse_args(argv)
    if not args.summary.is_file():
        print(f"fuzz_results: no {args.summary}: the fuzzer wrote no summary", file=sys.stderr)
        return 1
    e = entry(
        args.fuzzer,
        results.load(args.summary),
        campaign=args.campaign,
        command=args.command,
        log_text=args.log.read_text(errors="replace") if args.log and args.log.is_file() else "",
        wall_seconds=args.wall_seconds,
    )
    print(json.dumps(e, indent=1, ensure_ascii=False))
    if not args.no_results:
        update(args.results, [e])
        print(f"fuzz_results: wrote the {e['fuzzer']} entry to {args.results}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
