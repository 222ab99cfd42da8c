"""Summarise a cargo-fuzz campaign: executions and coverage from libFuzzer's
log, and each artifact (crash-, oom-, timeout-, slow-unit-) replayed once to
group them by where they stop (the panic's file:line).

    python fuzz/py/engine_report.py LOG ARTIFACT_DIR FUZZ_BINARY [LIMIT_FLAGS...]

Writes ARTIFACT_DIR/../summary.json; exits 1 if there is any artifact.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from fuzz_results import last_status

REPLAY_SECONDS = 60  # per artifact; a timeout artifact takes libFuzzer's -timeout plus start-up
_PANIC = re.compile(r"panicked at ([^\s:]+:\d+):\d+:\s*\n?(.*)")


def main() -> int:
    log, artifacts, binary, *limits = sys.argv[1:]
    status = _last_status(Path(log).read_text(errors="replace"))
    groups: dict[str, list[str]] = defaultdict(list)
    for a in sorted(Path(artifacts).glob("*")):
        groups[_replay(binary, limits, a)].append(a.name)
    summary = {
        **status,
        "distinct_findings": len(groups),
        "findings": {
            k: {"count": len(v), "smallest": _smallest(Path(artifacts), v)}
            for k, v in groups.items()
        },
    }
    (Path(artifacts).parent / "summary.json").write_text(json.dumps(summary, indent=1))
    print(json.dumps(summary, indent=1))
    return 1 if groups else 0


def _last_status(text: str) -> dict:
    """Executions, coverage and corpus size from libFuzzer's last status line."""
    return last_status(text) or {"executions": None}


def _replay(binary: str, limits: list[str], artifact: Path) -> str:
    """ "panic at FILE:LINE: message", "out of memory", "timeout" or the kind from the artifact's name."""
    try:
        r = subprocess.run(
            [binary, *limits, "-runs=1", str(artifact)],
            capture_output=True,
            text=True,
            errors="replace",
            timeout=REPLAY_SECONDS,
        )
        text = r.stderr + r.stdout
    except subprocess.TimeoutExpired:
        return "timeout (replay over 60 s)"
    m = _PANIC.search(text)
    if m:
        message = re.sub(r"\d+", "N", m.group(2).strip())[:120]  # one group for every value
        return f"panic at {m.group(1)}: {message}"
    if "out-of-memory" in text or "memory allocation of" in text:
        return f"out of memory: {_shape(artifact)}"
    if "ERROR: libFuzzer: timeout" in text:
        return f"timeout: {_shape(artifact)}"
    return f"{artifact.name.split('-', 1)[0]}: {_shape(artifact)}"


def _shape(artifact: Path) -> str:
    """ "dumbbell+udp": the topology and traffic of a JSON input, to tell timeouts and OOMs apart."""
    try:
        d = json.loads(artifact.read_bytes())
        kinds = [k for k in ("flows", "udp", "voip", "web", "changes") if d.get(k)]
        return "+".join([str(d["topology"]["kind"]), *kinds])
    except (ValueError, KeyError, TypeError, AttributeError):
        return "not a scenario"


def _smallest(d: Path, names: list[str]) -> str:
    return min(names, key=lambda n: (d / n).stat().st_size)


if __name__ == "__main__":
    sys.exit(main())
