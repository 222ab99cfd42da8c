#!/usr/bin/env bash
# Regenerate requirements-dev.lock: install the dependencies and dev extras that
# pyproject.toml declares into a fresh virtual environment and pin what pip chose.
# Run after changing the dependencies in pyproject.toml; commit the result.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m venv "$tmp/venv"
python3 - > "$tmp/requirements.in" <<'PY'
import tomllib
project = tomllib.load(open("pyproject.toml", "rb"))["project"]
print("\n".join(project["dependencies"] + project["optional-dependencies"]["dev"]))
PY
"$tmp/venv/bin/pip" install --disable-pip-version-check -q -r "$tmp/requirements.in"
{
  echo "# Exact versions of hscc's Python dependencies and dev tools, from pyproject.toml."
  echo "# Installed by scripts/bootstrap.sh; regenerate with: bash scripts/lock.sh"
  echo "# $(python3 --version), $(uname -sm)"
  "$tmp/venv/bin/pip" freeze --all | grep -v -E '^(pip|setuptools|wheel)=='
} > requirements-dev.lock
echo "wrote requirements-dev.lock ($(grep -vc '^#' requirements-dev.lock) packages)"
