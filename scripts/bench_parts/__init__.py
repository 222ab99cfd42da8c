"""The parts scripts/bench.py measures, a module per part or kind of part, and what they
share: the benches' parsers, the conditions of a measurement, the timing of whole processes."""

from pathlib import Path

# The repository: the benches are built and the commands run from it.
ROOT = Path(__file__).resolve().parents[2]
