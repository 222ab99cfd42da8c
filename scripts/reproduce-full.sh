#!/usr/bin/env bash
# Opt-in slow suite: every experiment of the catalogue at full length (the papers'
# durations and replicates), then docs/reproductions.md's scorecard rewritten from
# the results. Runs are cached in the output directory (default repro/full), so a
# killed run resumes and a second run only recomputes what changed.
#
#   bash scripts/reproduce-full.sh [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh >/dev/null
out="${1:-repro/full}"
.venv/bin/python scripts/reproduce_scorecard.py "$out"
