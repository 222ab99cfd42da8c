"""The tables of fuzz.json: the fuzzing campaigns of the scenario path and their findings."""

from __future__ import annotations

from .entries import _dates
from .markdown import _int, _table

# fuzz.json (schema in fuzz/py/fuzz_results.py): one entry per fuzzer of a scripts/fuzz.sh call.
# The columns of the kinds of finding: (header, kind in an entry's `findings`).
FUZZ_KINDS = [
    ("panics", "panic"),
    ("tracebacks", "traceback"),
    ("hangs", "hang"),
    ("memory", "memory"),
    ("unclear", "unclear"),
    ("crashes", "crash"),
]
# An entry's `outcomes` that are no finding: (header, outcome).
FUZZ_OUTCOMES = [
    ("refused by validation", "model_rejected"),
    ("refused as files", "file_rejected"),
    ("refused by the engine, naming a field", "engine_rejected"),
    ("ran", "ran"),
]


def _amount(x) -> str:
    """Seconds or inputs per second: whole from 100 up, else to a tenth."""
    if x is None:
        return "—"
    return _int(x) if x >= 100 else f"{x:.1f}"


def _coverage(c: dict | None) -> str:
    if not c:
        return "—"
    return f"{_int(c['edges'])} edges, {_int(c['features'])} features, corpus {_int(c['corpus'])}"


def _found(f: dict | None) -> str:
    """A kind of finding: inputs (distinct findings); — where the fuzzer does not look for it."""
    if f is None:
        return "—"
    return "0" if not f["count"] else f"{_int(f['count'])} ({_int(f['distinct'])})"


def fuzz_campaign(doc: dict, group: str | None) -> str:
    rows = [
        [
            e["campaign"],
            e["date"],
            e["fuzzer"],
            f"{e['jobs']} / {_int(e['machine'].get('cores'))}",
            _int(e["inputs"]),
            _amount(e["wall_seconds"]),
            _amount(e["inputs_per_second"]),
            _coverage(e["coverage"]),
            *(_found(e["findings"].get(kind)) for _, kind in FUZZ_KINDS),
            _int(e["distinct_findings"]),
            e.get("note", ""),
        ]
        for e in doc["entries"]
    ]
    head = [
        "campaign",
        "date",
        "fuzzer",
        "jobs / cores",
        "inputs",
        "wall time (s)",
        "inputs/s",
        "coverage",
        *(h for h, _ in FUZZ_KINDS),
        "distinct findings",
        "note",
    ]
    return _table(head, rows)


def fuzz_outcomes(doc: dict, group: str | None) -> str:
    """What became of the Python fuzzer's inputs (the entries that count them)."""
    rows = []
    fine = {k for _, k in FUZZ_OUTCOMES}
    for e in doc["entries"]:
        o = e.get("outcomes")
        if not o:
            continue
        found = sum(v for k, v in o.items() if k not in fine)
        rows.append(
            [e["campaign"], e["date"], _int(e["inputs"])]
            + [_int(o.get(k, 0)) for _, k in FUZZ_OUTCOMES]
            + [_int(found)]
        )
    head = ["campaign", "date", "inputs", *(h for h, _ in FUZZ_OUTCOMES), "findings"]
    return _table(head, rows)


def fuzz_status(doc: dict, group: str | None) -> str:
    """The validation index's row: every campaign's inputs, the findings, the runs since the last."""
    entries = doc["entries"]
    found = [i for i, e in enumerate(entries) if e["distinct_findings"]]
    total = _int(sum(e["inputs"] for e in entries))
    if not found:
        verdict = f"{total} inputs, no finding"
    else:
        n = sum(entries[i]["distinct_findings"] for i in found)
        since = len(entries) - 1 - found[-1]
        verdict = f"{total} inputs; {n} distinct findings, none in the {since} runs after them"
    row = [
        "[hostile scenario input](engine.md#fuzzing-the-scenario-path-scriptsfuzzsh-fuzz)",
        "no panic, traceback, hang or memory blow-up",
        verdict,
        f"`{doc['command']}`",
        _dates(entries),
    ]
    return _table(["target", "reference", "verdict", "command", "date"], [row])
