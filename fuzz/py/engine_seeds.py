"""Seeds and a dictionary for the engine's cargo-fuzz target.

    python fuzz/py/engine_seeds.py OUT_DIR

Writes into OUT_DIR the engine JSON form (what `hscc check FILE --json`
prints) of every seed scenario Python accepts, and the hand-written engine
inputs of fuzz/seeds/engine/ (values Python refuses, so that the engine's own
checks are fuzzed too); and OUT_DIR/../engine.dict, libFuzzer's dictionary of
the format's field names and words.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import settings
import vocab


def main() -> int:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    from hscc.errors import ScenarioError
    from hscc.scenario import Scenario

    written = 0
    for f in settings.seed_files():
        try:
            sc = Scenario.from_toml(f)
        except ScenarioError:
            continue  # Python refuses it: no engine form
        except Exception as e:  # noqa: BLE001 - a reproducer of a Python defect: no engine form either
            print(
                f"engine_seeds: {f.name}: {type(e).__name__} (a Python finding; skipped)",
                file=sys.stderr,
            )
            continue
        (out / f"seed-{f.parent.name}-{f.stem}.json").write_text(json.dumps(sc.to_engine()))
        written += 1
    for f in sorted((settings.FUZZ / "seeds" / "engine").glob("*.json")):
        shutil.copyfile(f, out / f"seed-engine-{f.name}")
        written += 1
    keys, values = vocab.words()
    tokens = (
        {f'"{k}"' for k in keys}
        | {f'"{v}"' for v in values}
        | {"null", "true", "false", "1e308", "-1", "18446744073709551615", "{", "}", "[", "]", ":"}
    )
    (out.parent / "engine.dict").write_text("".join(f"{vocab.escape(t)}\n" for t in sorted(tokens)))
    print(f"engine_seeds: {written} seeds in {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
