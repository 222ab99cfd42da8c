"""'Did you mean' for a misspelt name: one rule for commands, flags, scenario fields,
algorithms, parameters and experiments."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """'; did you mean "X"?' for the choice closest to a misspelt `word` (empty if none is close)."""
    options = list(choices)
    close = difflib.get_close_matches(word.lower(), [c.lower() for c in options], n=1, cutoff=0.6)
    if not close:
        return ""
    return f'; did you mean "{next(c for c in options if c.lower() == close[0])}"?'
