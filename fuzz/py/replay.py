"""Run files through the fuzz harness's oracle, without atheris.

    python fuzz/py/replay.py [options] FILE_OR_DIR...

Prints one line per file (outcome, and what happened for a finding); exits 1
if any file gave a finding. Used to check the reproducers in fuzz/reproducers
and to replay a campaign's findings after a fix.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import settings
from findings import Findings
from oracle import FINE, Oracle


def main() -> int:
    p = settings.parser(__doc__.splitlines()[0])
    p.add_argument("paths", nargs="+", type=Path)
    args = p.parse_args()
    files = sorted(
        f for path in args.paths for f in ([path] if path.is_file() else path.rglob("*.toml"))
    )
    work = Path(tempfile.mkdtemp(prefix="hscc-replay-"))
    findings = Findings(work)  # replay keeps its findings out of the campaign's directory
    oracle = Oracle(
        work,
        findings,
        memory_mib=args.engine_memory_mib,
        cap_s=args.sim_cap,
        events=args.events,
        timeout_s=args.engine_timeout,
        py_timeout_s=args.py_timeout,
    )
    bad = 0
    try:
        for f in files:
            t0 = time.monotonic()
            outcome = oracle.check(f.read_bytes())
            line = f"{outcome:16} {time.monotonic() - t0:6.2f}s  {f}"
            if outcome not in FINE:
                bad += 1
                info = _last_info(findings)
                line += f"\n{'':25} {info.get('signature')}: {info.get('location') or info.get('where') or info.get('detail', '')}"[
                    :400
                ]
            print(line, flush=True)
    finally:
        oracle.close()
        shutil.rmtree(work, ignore_errors=True)
    print(f"replay: {len(files)} files, {bad} with findings", file=sys.stderr)
    return 1 if bad else 0


def _last_info(findings: Findings) -> dict:
    infos = sorted(findings.dir.glob("*/info.json"), key=lambda p: p.stat().st_mtime)
    return json.loads(infos[-1].read_text()) if infos else {}


if __name__ == "__main__":
    sys.exit(main())
