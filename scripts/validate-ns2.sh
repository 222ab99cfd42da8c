#!/usr/bin/env bash
# Opt-in cross-check of hscc (stack = "ns2") against ns-2.35 (docs/validation/ns2.md).
#
#   bash scripts/validate-ns2.sh --out runs/ns2-check [--only NAME ...] [--seeds N] [--duration S]
#   bash scripts/validate-ns2.sh --out runs/ns2-classic --recovery classic [--only NAME ...]
#
# Installs ns-2 (Debian's ns2 package) where apt-get and root are there, builds
# hscc (scripts/bootstrap.sh), then runs every configuration of
# validation/ns2/ns2_configs.py in ns-2 and in hscc, one simulation at a time, and
# writes table.md and results.json under --out (a new or empty directory) and
# validation/results/ns2.json (then: python validation/results/render.py --write).
# The full suite (13 configurations, 2 seeds, 150-300 s each) takes about 50
# minutes, almost all of it ns-2. --recovery classic runs hscc alone, every flow
# with classic recovery, against the ns-2 numbers already in ns2.json (ns-2 runs
# Sack1 either way), for the Sack1 agent's configurations: about 2 minutes, no
# ns-2 needed.
set -euo pipefail
cd "$(dirname "$0")/.."
hscc_only=false
prev=
for a in "$@"; do
  if [ "$prev $a" = "--recovery classic" ] || [ "$a" = "--recovery=classic" ]; then
    hscc_only=true
  fi
  prev=$a
done
if ! $hscc_only && ! command -v ns >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ns2; } >/dev/null
  else
    echo "validate-ns2: ns-2 (ns) is not installed and cannot be here: apt-get install ns2" >&2
    exit 1
  fi
fi
bash scripts/bootstrap.sh >/dev/null
exec .venv/bin/python validation/ns2/validate.py "$@"
