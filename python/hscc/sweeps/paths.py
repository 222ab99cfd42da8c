"""Scenario fields by dotted path: "topology.bottleneck.loss", "flows[1].algorithm",
"flows[0].params.gamma", "topology.pairs[1].rtt"."""

from __future__ import annotations

import re
from typing import Any

from hscc.reference import field_nodes

_PART = re.compile(r"\.?([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]")
NOT_FOUND = object()


class PathError(ValueError):
    """A path that is not written right, names no scenario field, or points past a list's end."""


def parse_path(path: str) -> list[str | int]:
    """The parts of a path: "flows[1].params.gamma" → ["flows", 1, "params", "gamma"];
    PathError unless it is well formed and names a field of the scenario format."""
    if not isinstance(path, str):
        raise PathError(f'{path!r} is not a field path (text such as "topology.bottleneck.loss")')
    parts: list[str | int] = []
    pos = 0
    while pos < len(path):
        m = _PART.match(path, pos)
        if (
            m is None
            or (pos == 0 and path.startswith((".", "[")))
            or (pos > 0 and m.group(1) and path[pos] != ".")
        ):
            raise PathError(
                f'"{path}" is not a field path (names joined by "." and list indices in [], '
                'e.g. "flows[1].params.gamma")'
            )
        parts.append(m.group(1) if m.group(1) else int(m.group(2)))
        pos = m.end()
    if not parts:
        raise PathError('"" is not a field path (e.g. "topology.bottleneck.loss")')
    if not field_nodes(path):
        raise PathError(f'"{path}" is not a field of the scenario format (see `hscc fields`)')
    return parts


def lookup(data: Any, path: str) -> Any:
    """The value at `path` in scenario data, or NOT_FOUND."""
    for part in parse_path(path):
        if isinstance(part, int) and isinstance(data, list) and part < len(data):
            data = data[part]
        elif isinstance(part, str) and isinstance(data, dict) and part in data:
            data = data[part]
        else:
            return NOT_FOUND
    return data


def put(data: dict[str, Any], path: str, value: Any) -> None:
    """Set the field at `path` in scenario data (in place), making the tables on the way
    that are not there; PathError for a list index past the end or a value in the way."""
    parts = parse_path(path)
    node: Any = data
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        where = _show(parts[:i]) or "the scenario"
        if isinstance(part, int):
            if not isinstance(node, list):
                raise PathError(f"{where} is not a list; {_show(parts[: i + 1])} cannot be set")
            if part >= len(node):
                raise PathError(
                    f"{where} has {len(node)} entries (indices 0 to {len(node) - 1}); "
                    f"{_show(parts[: i + 1])} is not one of them"
                )
        elif not isinstance(node, dict):
            raise PathError(f"{where} is not a table; {_show(parts[: i + 1])} cannot be set")
        if last:
            node[part] = value
        else:
            if isinstance(part, str) and node.get(part) is None:
                node[part] = {}
            node = node[part]


def _show(parts: list[str | int]) -> str:
    return "".join(
        f"[{p}]" if isinstance(p, int) else (f".{p}" if k else p) for k, p in enumerate(parts)
    )
