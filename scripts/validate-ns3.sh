#!/usr/bin/env bash
# Opt-in cross-check of hscc against ns-3 (docs/validation/ns3.md).
#
#   bash scripts/validate-ns3.sh --out runs/ns3-check [--quick] [--only NAME ...] [--recovery classic]
#                                [--ns3-timeout SECONDS] [--ns3-from OLD_DIR]
#
# Creates validation/ns3/.venv (Python 3.11: the pinned ns3 wheel is cp311) from
# validation/ns3/requirements.lock with hashes, checks the harness on a tiny
# configuration (validation/ns3/test_harness.py), then runs every configuration of
# validation/ns3/configs.py in ns-3 and in hscc, one simulation at a time, and writes
# table.md, results.json and flows.csv under --out (a new or empty directory).
# hscc comes from this tree's .venv (scripts/bootstrap.sh), or $HSCC_PYTHON.
# The full suite takes about 1.5 hours (ns-3 at 1 Gbit/s is most of it; HighSpeed, Scalable and Vegas
# there take 3–10 CPU minutes each on an idle machine); --quick about 40 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
dir="$root/validation/ns3"
venv="$dir/.venv"
say() { echo "validate-ns3: $*" >&2; }

py="${PYTHON311:-python3.11}"
command -v "$py" >/dev/null 2>&1 || { say "Python 3.11 is needed ($py not found; set PYTHON311): the ns3 wheel is cp311"; exit 1; }
"$py" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' || { say "$py is not Python 3.11"; exit 1; }

out=""
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  [ "${args[$i]}" = "--out" ] && [ $((i + 1)) -lt ${#args[@]} ] && out="${args[$((i + 1))]}"
done
[ -n "$out" ] || { say "usage: bash scripts/validate-ns3.sh --out DIR [--quick] [--only NAME ...] [--ns3-from OLD_DIR]"; exit 2; }
if [ -e "$out" ] && { [ ! -d "$out" ] || [ -n "$(ls -A "$out")" ]; }; then
  say "$out exists and is not an empty directory; give a new one"; exit 2
fi

hscc_py="${HSCC_PYTHON:-$root/.venv/bin/python}"
if ! "$hscc_py" -c 'import hscc._core' 2>/dev/null; then
  if [ -z "${HSCC_PYTHON:-}" ]; then
    say "hscc is not built in $root/.venv: running scripts/bootstrap.sh"
    bash scripts/bootstrap.sh
  else
    say "HSCC_PYTHON=$hscc_py cannot import hscc"; exit 1
  fi
fi

lock_sum=$(sha256sum "$dir/requirements.lock" | cut -c1-32)
if [ ! -x "$venv/bin/python" ]; then
  say "creating validation/ns3/.venv"
  "$py" -m venv "$venv"
fi
if [ "$(cat "$venv/.lock" 2>/dev/null)" != "$lock_sum" ]; then
  say "installing ns3 3.44 and the harness's packages (cppyy builds from source: a few minutes, once)"
  "$venv/bin/python" -m pip install --disable-pip-version-check -q --require-hashes -r "$dir/requirements.lock"
  echo "$lock_sum" > "$venv/.lock"
fi

say "checking the harness on a tiny configuration"
HSCC_PYTHON="$hscc_py" "$venv/bin/python" -m pytest -q -p no:cacheprovider "$dir/test_harness.py"

say "running the configurations (one simulation at a time)"
"$venv/bin/python" "$dir/validate.py" --hscc-python "$hscc_py" "$@"
