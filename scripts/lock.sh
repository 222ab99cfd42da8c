#!/usr/bin/env bash
# Regenerate requirements-dev.lock: resolve the dependencies and dev extras that
# pyproject.toml declares with uv (pinned below) and pin every package with the
# sha256 hashes of its files, so that `pip install -r requirements-dev.lock`
# (scripts/bootstrap.sh) refuses a file that is not the one locked.
# Run after changing the dependencies in pyproject.toml; commit the result.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install --disable-pip-version-check -q uv==0.13.8
python3 - > "$tmp/requirements.in" <<'PY'
import tomllib
project = tomllib.load(open("pyproject.toml", "rb"))["project"]
print("\n".join(project["dependencies"] + project["optional-dependencies"]["dev"]))
PY
# uv keeps the versions already in the lock where they still fit (pass
# --upgrade to this script to move everything to the newest).
cp requirements-dev.lock "$tmp/lock" 2>/dev/null || true
# Run in $tmp with relative names: the lock's "via -r requirements.in" lines stay the
# same from one run to the next.
python_version=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
(cd "$tmp" && venv/bin/uv pip compile --quiet --no-header --generate-hashes "$@" \
  --python-version "$python_version" requirements.in -o lock)
{
  echo "# Exact versions and hashes of hscc's Python dependencies and dev tools, from pyproject.toml."
  echo "# Installed by scripts/bootstrap.sh; regenerate with: bash scripts/lock.sh"
  echo "# $(python3 --version), $(uname -sm)"
  grep -v '^#' "$tmp/lock"
} > requirements-dev.lock
echo "wrote requirements-dev.lock ($(grep -c '^[A-Za-z]' requirements-dev.lock) packages)"
