#!/usr/bin/env bash
# The demo: two Reno flows with different RTTs share a 100 Mbit/s bottleneck.
# Sets up what is needed (scripts/bootstrap.sh), runs examples/two-reno-rtt.toml,
# prints the summary table and writes the results and a plot to runs/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
.venv/bin/hscc run examples/two-reno-rtt.toml --out runs/demo --overwrite
.venv/bin/hscc plot runs/demo
echo
echo "plot: $PWD/runs/demo/plot.png"
