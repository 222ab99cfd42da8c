"""One input through the whole scenario path, and what became of it.

bytes → a scenario file → Scenario.from_toml (read, decode, TOML, nesting,
validation: what `hscc check` and `hscc run` call) → the CLI's summary and
labels → to_engine() JSON → the engine (in engine_worker.py: build, a short
run bounded by simulated time and events, results).

Outcomes that are fine: "file_rejected" / "model_rejected" (ScenarioError),
"engine_rejected" (the engine's structured ValueError), "ran".
Findings: "traceback" (any other exception), "panic" (a Rust panic), "hang"
(over the wall-time bound), "memory" (MemoryError, or the engine out of its
address space), "crash" (the engine process died otherwise), "unclear" (the
engine refused what Python accepted with a message naming no field).
"""

from __future__ import annotations

import json
import time
import traceback
from pathlib import Path

from engine_client import EngineClient
from findings import Findings

FINE = ("file_rejected", "model_rejected", "engine_rejected", "ran")
REDUCED = (
    "memory",
    "hang",
    "crash",
)  # findings without a location: named by the traffic that causes them
TRAFFIC = ("flows", "udp", "voip", "web", "changes")


class Oracle:
    def __init__(
        self,
        work: Path,
        findings: Findings,
        *,
        memory_mib: int,
        cap_s: float,
        events: int,
        timeout_s: float,
        py_timeout_s: float,
    ):
        from hscc.errors import ScenarioError
        from hscc.scenario import Scenario

        self.Scenario, self.ScenarioError = Scenario, ScenarioError
        self.path = work / "input.toml"  # rewritten for every input: the CLI reads files
        self.findings = findings
        self.engine = EngineClient(work, memory_mib, cap_s, events, timeout_s)
        self.engine.start()  # before the first input, whose time it would otherwise count
        self.py_timeout_s = py_timeout_s
        self._reduced: dict[tuple[str, str], str] = {}

    def check(self, data: bytes) -> str:
        """Run one input; record a finding if there is one; return the outcome."""
        self.path.write_bytes(data)
        t0 = time.monotonic()
        outcome, info, engine_json, shape = self._python_step()
        py_seconds = time.monotonic() - t0
        if (outcome == "ok" or outcome in FINE) and py_seconds > self.py_timeout_s:
            detail = f"reading and validating took {py_seconds:.1f} s (bound {self.py_timeout_s:g} s), then {outcome}"
            outcome, info, engine_json, shape = (
                "hang",
                {"stage": "python", "detail": detail},
                None,
                _text_shape(data),
            )
        if engine_json is not None and outcome == "ok":
            reply = self.engine.run(engine_json)
            outcome, info = self._engine_outcome(reply)
            if outcome in REDUCED:
                shape = self._reduce(outcome, engine_json, shape)
            seconds = time.monotonic() - t0
            self.findings.count(outcome, seconds, "engine")
            if outcome in FINE:
                self.findings.note_slow(seconds, data)
        else:
            self.findings.count(outcome, py_seconds, "python")
        if outcome not in FINE:
            signature = self._signature(outcome, info, shape)
            self.findings.record(
                outcome,
                signature,
                data,
                {**info, "shape": shape, "python_seconds": round(py_seconds, 3)},
            )
        return outcome

    def _python_step(self) -> tuple[str, dict, str | None, str]:
        try:
            sc = self.Scenario.from_toml(self.path)
            shape = _shape(sc)
            # What `hscc check` prints and `hscc run` labels: part of the path a user sees.
            _ = f"{self.path}: valid ({sc.topology.kind}; {sc.traffic()}; {sc.duration:g} s)"
            sc.flow_labels()
            sc.udp_labels()
            return "ok", {}, json.dumps(sc.to_engine()), shape
        except self.ScenarioError as e:
            message = str(e)
            if not message.strip():
                return "unclear", {"stage": "python", "detail": "empty error message"}, None, "?"
            return ("model_rejected" if e.issues else "file_rejected"), {}, None, "?"
        except MemoryError:
            return (
                "memory",
                {
                    "stage": "python",
                    "detail": "MemoryError",
                    "traceback": traceback.format_exc()[-4000:],
                },
                None,
                "?",
            )
        except Exception as e:  # noqa: BLE001 - every other exception is a finding
            return (
                "traceback",
                {
                    "stage": "python",
                    "detail": f"{type(e).__name__}: {e}"[:2000],
                    "where": _where(e),
                    "traceback": traceback.format_exc()[-4000:],
                },
                None,
                "?",
            )

    def _reduce(self, outcome: str, engine_json: str, shape: str) -> str:
        """The shape without each kind of traffic that the outcome does not need.

        Greedy, once per (outcome, shape): at most len(TRAFFIC) more engine runs,
        so a memory finding is named "dumbbell+web" whatever else its input had.
        """
        key = (outcome, shape)
        if key not in self._reduced:
            d = json.loads(engine_json)
            for kind in TRAFFIC:
                if d.get(kind):
                    trial = {**d, kind: []}
                    if self.engine.run(json.dumps(trial))["outcome"] == outcome:
                        d = trial
            self._reduced[key] = "+".join(
                [d["topology"]["kind"], *(k for k in TRAFFIC if d.get(k))]
            )
        return self._reduced[key]

    def _engine_outcome(self, reply: dict) -> tuple[str, dict]:
        kind = reply["outcome"]
        if kind == "rejected":
            if not reply.get("structured") or reply.get("field") == "scenario":
                return "unclear", {
                    "stage": "engine",
                    "detail": reply.get("detail", ""),
                    "field": reply.get("field"),
                }
            return "engine_rejected", {}
        if kind == "ran":
            return "ran", {}
        return kind, {k: v for k, v in reply.items() if k != "outcome"}

    def _signature(self, outcome: str, info: dict, shape: str) -> str:
        stage = info.get("stage", "engine")
        if outcome == "traceback":
            return f"traceback:{stage}:{info.get('where') or info.get('detail', '')[:80]}"
        if outcome == "panic":
            loc = info.get("location") or info.get("detail", "")[:80]
            return f"panic:{loc.split(': ', 1)[0]}"
        if outcome == "unclear":
            return f"unclear:{stage}:{info.get('field')}"
        return f"{outcome}:{stage}:{shape}"

    def close(self) -> None:
        self.engine.stop()


def _shape(sc) -> str:
    """E.g. "dumbbell+flows+udp": enough to tell apart hangs and memory findings."""
    kinds = [k for k in ("flows", "udp", "voip", "web", "changes") if getattr(sc, k)]
    return "+".join([sc.topology.kind, *kinds])


def _text_shape(data: bytes) -> str:
    """What makes a slow file slow, roughly: a very dotted key, a very long line, or neither."""
    lines = data.split(b"\n")
    if max((ln.split(b"=", 1)[0].count(b".") for ln in lines), default=0) > 500:
        return "dotted-key"
    if max(map(len, lines), default=0) > 4000:
        return "long-line"
    return "other"


def _where(e: BaseException) -> str:
    """The innermost frame in hscc's code ("hscc/units.py:57 in _split"), else the innermost frame."""
    frames = traceback.extract_tb(e.__traceback__)
    ours = [f for f in frames if "/hscc/" in f.filename] or frames
    if not ours:
        return type(e).__name__
    f = ours[-1]
    return f"{type(e).__name__} at {'/'.join(Path(f.filename).parts[-2:])}:{f.lineno} in {f.name}"
