"""What every results file's configurations share: a group's entries, the verdict, the
count of agreements, the dates and the table of notes."""

from __future__ import annotations

from .markdown import _table


def _select(doc: dict, group: str | None) -> list[dict]:
    return [e for e in doc["configurations"] if group is None or e.get("group") == group]


def _verdict(e: dict) -> str:
    return {"agrees": "agrees", "differs": "**differs**"}.get(e["verdict"], e["verdict"])


def _count(entries: list[dict]) -> str:
    agree = sum(e["verdict"] == "agrees" for e in entries)
    return f"{agree} of {len(entries)} agree"


def _dates(entries: list[dict]) -> str:
    ds = sorted({e["date"] for e in entries})
    return ds[0] if len(ds) == 1 else f"{ds[0]} to {ds[-1]}"


def notes(doc: dict, group: str | None) -> str:
    """The configurations with a note: a difference and its mechanism, or where the numbers came from."""
    rows = [[e["name"], _verdict(e), e["note"]] for e in _select(doc, group) if e.get("note")]
    return _table(["configuration", "verdict", "why"], rows)
