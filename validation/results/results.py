"""The validation results as data: validation/results/ns3.json, ns2.json, kernel.json and engine.json.

One schema for every file (standard library only: the ns-3 harness runs in its
own Python 3.11 environment without hscc):

    {
      "schema": "hscc.validation.results/1",
      "target": what is validated,
      "reference": what it is compared with,
      "command": the command that measures every configuration,
      "source": where the numbers come from (a transcription, or the run that wrote them),
      "tolerance": {metric: relative tolerance},
      "rule": the verdict rule, in words,
      "configurations": [
        {
          "name", "group", "date" (YYYY-MM-DD of the measurement), "command" (for this one),
          "source" (as above, for this configuration), "conditions" (machine, versions, variant),
          "measured": the simulator's values (hscc),
          "reference": the reference's values (ns-3, or the Linux kernel),
          "tolerance", "verdict" ("agrees" | "differs" | "unfinished" | "reported"),
          "note" (the mechanism of a difference)
        }, ...
      ]
    }

engine.json's entries are the rows the engine's tests write (crates/hscc-sim/tests/engine/
record.rs) and carry three more fields: "test" (the cargo test that measures it), "label"
(the row in words) and "suite" ("default" or "slow": the #[ignore]d tests). Their
`reference` holds the model's or the paper's values (null for none) and their `tolerance`,
per key of `measured`, what the test asserts: a number is a relative tolerance against
`reference[key]`, {"abs": x} an absolute one, {"min": a, "max": b} bounds (either
optional). An empty tolerance is a number reported, not asserted: verdict "reported".

What `measured` and `reference` hold depends on the reference (docs/validation/ns3.md,
docs/validation/kernel.md); `verdict` is always what `verdict()` computes from them,
which tests/python/test_docs_validation.py checks. validate.py writes an entry per
configuration it ran (`update`), keeping the others; render.py turns the files into
the tables of docs/validation/.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import tempfile
from pathlib import Path

SCHEMA = "hscc.validation.results/1"
HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
NS3 = HERE / "ns3.json"
KERNEL = HERE / "kernel.json"
ENGINE = HERE / "engine.json"
NS2 = HERE / "ns2.json"

# Relative tolerances. ns-3: hscc / ns-3 on the aggregate goodput and the second-half Jain index.
# Kernel: kernel / simulator (seed 1) on the aggregate goodput of every kernel run, and on Jain's
# index for more than one flow.
NS3_TOLERANCE = {"aggregate_goodput": 0.10, "jain_second_half": 0.10}
KERNEL_TOLERANCE = {"goodput_ratio": 0.10, "jain_ratio": 0.10}
# ns-2: hscc / ns-2 - 1 on the aggregate goodput, the goodput ratio of the two groups a configuration
# compares, and each group's loss events (window reductions for congestion), all means over seeds;
# loss events also agree within NS2_EVENT_SLACK of each other (counts of a few events move by one
# at random).
NS2_TOLERANCE = {"aggregate_bps": 0.25, "ratio": 0.25, "loss_events_a": 0.25, "loss_events_b": 0.25}
NS2_EVENT_SLACK = 2
NS2_RULE = (
    'agrees: hscc (stack = "ns2") within ±25 % of ns-2.35 on the aggregate goodput, on the '
    "goodput ratio of the two groups of flows compared, and on each group's loss events "
    "(window reductions for congestion; or within 2 events), each a mean over the same seeds"
)
NS3_RULE = (
    "agrees: hscc within ±10 % of ns-3 on the aggregate goodput and on Jain's index of the "
    "flows' goodputs over the second half of the run"
)
KERNEL_RULE = (
    "agrees: every kernel run's aggregate goodput within ±10 % of the simulator's (seed 1) and, "
    "with more than one flow, its Jain index within ±10 % of the simulator's; where the kernel "
    "runs are seeds 1..N (one random-loss draw each), their mean goodput within ±10 % of the "
    "simulator's mean over the same seeds"
)


NS3_TOP = {
    "target": "the simulator (hscc): matched dumbbells",
    "reference": "ns-3 3.44 (ns3==3.44.post0, cppyy 3.5.0, Python 3.11)",
    "tolerance": NS3_TOLERANCE,
    "rule": NS3_RULE,
    "units": (
        "goodput in bit/s, per flow over its active time; CPU and wall time in s (the "
        "simulation itself); delta = hscc / ns-3 - 1"
    ),
}
KERNEL_TOP = {
    "target": "the simulator (hscc): one dumbbell, 1-ms bottleneck, DropTail buffer",
    "reference": (
        "Linux in network namespaces (hscc testbed run): HTB + pfifo bottleneck, "
        "the user-space delay line, real sockets"
    ),
    "tolerance": KERNEL_TOLERANCE,
    "rule": KERNEL_RULE,
    "units": (
        "goodput in bit/s; loss = drops at the bottleneck / packets offered to it; retrans = "
        "retransmitted segments / sent; queuing delay in s; measured = the simulator (seed 1; over "
        "its seeds in spread and trajectory), reference = the kernel (each run; over its runs in "
        "spread and trajectory); a range is [min, max, mean]"
    ),
}


ENGINE_RULE = (
    "agrees: every measured value the test asserts is within its tolerance (relative to the "
    "model's or the paper's value, absolute, or between bounds), as the test asserts it; "
    "reported: a number shown, not asserted"
)
ENGINE_TOP = {
    "target": "the engine, its TCP and the algorithms (hscc-sim)",
    "reference": "analytical models (Padhye, the RFCs' response functions) and the papers' analyses",
    "tolerance": {"per configuration": "what its test asserts (see `rule`)"},
    "rule": ENGINE_RULE,
    "units": (
        "p: loss rate per packet; send_rate in segments/s; w (window) in segments; queues in "
        "packets; delays in the unit their key names (_s, _ms); utilization and fractions as "
        "fractions of 1"
    ),
}


NS2_TOP = {
    "target": 'the simulator (hscc) with stack = "ns2": the papers\' ns-2 set-ups',
    "reference": (
        "ns-2.35 (Debian's ns2 package): Agent/TCP/Sack1 and Agent/TCPSink/Sack1; CUBIC and "
        "Compound on TCP-Linux (Agent/TCP/Linux) with Agent/TCPSink/Sack1"
    ),
    "tolerance": NS2_TOLERANCE,
    "rule": NS2_RULE,
    "units": (
        "goodput in bit/s over the run; ratio = goodput of group a / group b; loss events = "
        "window reductions for congestion (ns-2's ncwndcuts1_, TCP-Linux's ncwndcuts_, hscc's "
        "recoveries + timeouts); "
        "drops in TCP packets; CPU in s; delta = hscc / ns-2 - 1"
    ),
}


def kernel_group(name: str) -> str:
    """The section of docs/validation/kernel.md a testbed configuration belongs to."""
    if name.endswith("-trajectory"):
        return "trajectories"
    if "-500M-" in name:
        return "500M"
    if name.endswith(("-linux-rto", "-quick-acks")) or name == "cubic-1-300M-80ms-sim-hystart":
        return "rto-receivers"
    first = name.split("-")[0].rstrip("0123456789")
    if first == "bbr":
        return "bbr"
    if name.startswith("ctcp-la"):
        return "others"
    if first in ("ctcp", "africa", "fit", "sync"):
        return "papers"
    if first in ("reno", "cubic"):
        return "reno-cubic"
    return "others"


def ns3_verdict(entry: dict) -> str:
    """agrees / differs from the entry's deltas (hscc / ns-3 − 1), unfinished without ns-3's numbers."""
    if entry.get("reference") is None:
        return "unfinished"
    tol, delta = entry["tolerance"], entry["delta"]
    ok = all(delta.get(k) is not None and abs(delta[k]) <= tol[k] + 1e-12 for k in tol)
    return "agrees" if ok else "differs"


def ns2_verdict(entry: dict) -> str:
    """agrees / differs from the entry's deltas (hscc / ns-2 − 1) and, for loss events, counts."""
    tol, delta = entry["tolerance"], entry["delta"]

    def ok(k: str) -> bool:
        if delta.get(k) is not None and abs(delta[k]) <= tol[k] + 1e-12:
            return True
        m, r = entry["measured"].get(k), entry["reference"].get(k)
        return k.startswith("loss_events") and abs(m - r) <= NS2_EVENT_SLACK + 1e-12

    return "agrees" if all(ok(k) for k in tol) else "differs"


def draws_ratio(runs: list[dict]) -> float | None:
    """For kernel runs of seeds 1..N (each its own random-loss draw, `seed` in each run): their
    mean goodput over the simulator's mean over the same seeds (each run's ratio is to its
    seed's); None for runs of one draw."""
    if not runs or not all("seed" in r for r in runs):
        return None
    kernel = sum(r["goodput_bps"] for r in runs)
    return kernel / sum(r["goodput_bps"] / r["goodput_ratio"] for r in runs)


def kernel_verdict(entry: dict) -> str:
    """agrees / differs from each kernel run against the simulator's seed-1 run, or, for kernel
    runs of seeds 1..N (each its own random-loss draw, `seed` in each run), from their mean
    against the simulator's mean over the same seeds (each run's ratio is to its seed's)."""
    tol, sim, runs = entry["tolerance"], entry["measured"], entry["reference"]["runs"]
    means = draws_ratio(runs)
    if means is not None:
        ok = abs(means - 1) <= tol["goodput_ratio"] + 1e-12
    else:
        ok = bool(runs) and all(
            abs(r["goodput_ratio"] - 1) <= tol["goodput_ratio"] + 1e-12 for r in runs
        )
    if entry.get("flows", 1) > 1:
        ok = ok and all(
            sim["jain"] and abs(r["jain"] / sim["jain"] - 1) <= tol["jain_ratio"] + 1e-12
            for r in runs
        )
    return "agrees" if ok else "differs"


def _within(measured, reference, tol) -> bool:
    """One measured value against its tolerance (see the module doc)."""
    if not isinstance(measured, (int, float)):
        return False
    if isinstance(tol, (int, float)):
        return bool(reference) and abs(measured / reference - 1) <= tol + 1e-12
    if "abs" in tol:
        return reference is not None and abs(measured - reference) <= tol["abs"] + 1e-12
    return tol.get("min", -float("inf")) <= measured <= tol.get("max", float("inf"))


def engine_verdict(entry: dict) -> str:
    """agrees / differs from every asserted value of an engine row; reported if none is."""
    tol, reference = entry["tolerance"], entry["reference"] or {}
    if not tol:
        return "reported"
    ok = all(_within(entry["measured"].get(k), reference.get(k), t) for k, t in tol.items())
    return "agrees" if ok else "differs"


def verdict(doc: dict, entry: dict) -> str:
    """The entry's verdict under its file's rule."""
    if "test" in entry:
        return engine_verdict(entry)
    if "loss_events_a" in entry.get("tolerance", {}):
        return ns2_verdict(entry)
    return kernel_verdict(entry) if "runs" in (entry.get("reference") or {}) else ns3_verdict(entry)


def load(path: Path) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def dump(doc: dict) -> str:
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


def add_arguments(ap: argparse.ArgumentParser, default: Path) -> None:
    """`--results PATH` and `--no-results`, as every validation script takes them."""
    ap.add_argument(
        "--results",
        type=Path,
        default=default,
        metavar="PATH",
        help="the results file to put this run's configurations into "
        f"(default {default.relative_to(ROOT)})",
    )
    ap.add_argument("--no-results", action="store_true", help="do not write the results file")


def today() -> str:
    return datetime.date.today().isoformat()


def git(*args: str) -> str | None:
    """What `git ARGS` prints in the tree, None outside a checkout or where git fails."""
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), *args], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout if out.returncode == 0 else None


def revision() -> str | None:
    """The tree's git revision (short), None outside a checkout."""
    return (git("rev-parse", "--short", "HEAD") or "").strip() or None


def update(path: Path, entries: list[dict], command: str, **top) -> dict:
    """Put `entries` (one per configuration just measured) into the file at `path`, replacing
    the entries of the same name and keeping the others (a run of some configurations does not
    erase the rest); `top` sets the file's other fields if it is new. Written atomically."""
    path = Path(path)
    doc = (
        load(path)
        if path.is_file()
        else {"schema": SCHEMA, **top, "command": command, "configurations": []}
    )
    old = {e["name"]: e for e in doc["configurations"]}
    for e in entries:  # a note says why a verdict is what it is: kept while the verdict is
        was = old.get(e["name"])
        if was and "note" in was and "note" not in e and was["verdict"] == e["verdict"]:
            e["note"] = was["note"]
    new = {e["name"]: e for e in entries}
    kept = [e for e in doc["configurations"] if e["name"] not in new]
    order = [e["name"] for e in doc["configurations"]]
    merged = kept + list(new.values())
    merged.sort(key=lambda e: order.index(e["name"]) if e["name"] in order else len(order))
    doc["configurations"] = merged
    last = entries[0].get("source") if entries else None
    doc["source"] = (
        last
        if all(e.get("source") == last for e in merged)
        else f"per configuration (each entry's `source`); the last run: {last}"
    )
    write(path, doc)
    return doc


def write(path: Path, doc: dict) -> None:
    """Write a results file atomically: a reader sees the old file or the new one whole."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(dump(doc))
    os.replace(tmp, path)


def run_source(command: str) -> str:
    """An entry's `source` when a run of `command` wrote it."""
    rev = revision()
    return f"{command} on {today()}" + (f" at {rev}" if rev else "")
