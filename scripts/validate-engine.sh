#!/usr/bin/env bash
# The engine's validation tables as data. Runs the measuring tests of
# crates/hscc-sim/tests/engine/ (Padhye, the response functions, the papers'
# analyses; the #[ignore]d slow ones included) in release with
# HSCC_RESULTS_DIR set, so each writes its table rows; merges the rows into
# validation/results/engine.json (validation/results/engine_rows.py) and
# renders docs/validation/ (validation/results/render.py --write).
#
#   bash scripts/validate-engine.sh                # every measuring test: a few minutes on 2 cores, plus the build
#   bash scripts/validate-engine.sh papers::       # some of them (cargo test filters)
#
# A failing test still has its rows merged (with verdict "differs" where a
# number is out of its tolerance) and the script exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v cargo >/dev/null 2>&1; then export PATH="$HOME/.cargo/bin:$PATH"; fi
python=python3
[ -x .venv/bin/python ] && python=.venv/bin/python

filters=("$@")
[ ${#filters[@]} -eq 0 ] && filters=(validation:: response:: papers::)

rows=$(mktemp -d)
trap 'rm -rf "$rows"' EXIT
cargo=(cargo test --release --locked -p hscc-sim --test engine)
"${cargo[@]}" -- --list --ignored >"$rows/slow-tests.txt"
mkdir "$rows/rows"
status=0
HSCC_RESULTS_DIR="$rows/rows" "${cargo[@]}" -- --include-ignored "${filters[@]}" || status=1
"$python" validation/results/engine_rows.py --rows "$rows/rows" --slow-tests "$rows/slow-tests.txt"
"$python" validation/results/render.py --write
if [ "$status" -ne 0 ]; then
  echo "FAILED: a measuring test failed (see above); its rows are merged with their verdicts" >&2
fi
exit "$status"
