"""Scenario fields by dotted path: "topology.bottleneck.loss", "flows[1].algorithm",
"flows[0].params.gamma", "topology.pairs[1].rtt"."""

from __future__ import annotations

import copy
import functools
import re
from typing import Any

from hscc.inputs import MAX_INDEX_DIGITS, index
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
    return list(_parts(path))


@functools.lru_cache(maxsize=4096)
def _parts(path: str) -> tuple[str | int, ...]:
    """parse_path's parts, read once per path (a sweep sets the same paths at every point)."""
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
                f'"{_clip(path)}" is not a field path (names joined by "." and list indices in [], '
                'e.g. "flows[1].params.gamma")'
            )
        if m.group(1):
            parts.append(m.group(1))
        else:
            i = index(m.group(2))
            if i is None:
                raise PathError(
                    f'"{_clip(path)}" is not a field path (a list index has at most '
                    f"{MAX_INDEX_DIGITS} digits; [{_clip(m.group(2), 20)}] has {len(m.group(2))})"
                )
            parts.append(i)
        pos = m.end()
    if not parts:
        raise PathError('"" is not a field path (e.g. "topology.bottleneck.loss")')
    if not field_nodes(path):
        raise PathError(
            f'"{_clip(path)}" is not a field of the scenario format (see `hscc fields`)'
        )
    return tuple(parts)


def normalize(path: str) -> str:
    """A path written one way: "flows[00].algorithm" → "flows[0].algorithm" (PathError as parse_path)."""
    return _show(parse_path(path))


def lookup(data: Any, path: str) -> Any:
    """The value at `path` in scenario data, or NOT_FOUND."""
    for part in _parts(path):
        if isinstance(part, int) and isinstance(data, list) and part < len(data):
            data = data[part]
        elif isinstance(part, str) and isinstance(data, dict) and part in data:
            data = data[part]
        else:
            return NOT_FOUND
    return data


def put(data: dict[str, Any], path: str, value: Any, copy: bool = False) -> None:
    """Set the field at `path` in scenario data (in place), making the tables on the way
    that are not there; PathError for a list index past the end or a value in the way.
    With `copy`, the tables and lists on the way are copied before they are changed, so
    whatever `data` shares with other data (a sweep's base) is left as it was."""
    parts = _parts(path)
    node: Any = data
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if isinstance(part, int):
            if not isinstance(node, list):
                raise PathError(
                    f"{_where(parts, i)} is not a list; {_show(parts[: i + 1])} cannot be set"
                )
            if part >= len(node):
                raise PathError(
                    f"{_where(parts, i)} has {len(node)} entries (indices 0 to {len(node) - 1}); "
                    f"{_show(parts[: i + 1])} is not one of them"
                )
        elif not isinstance(node, dict):
            raise PathError(
                f"{_where(parts, i)} is not a table; {_show(parts[: i + 1])} cannot be set"
            )
        if last:
            node[part] = value
        else:
            if isinstance(part, str) and node.get(part) is None:
                node[part] = {}
            elif copy and isinstance(node[part], (dict, list)):
                node[part] = node[part].copy()
            node = node[part]


def remove(data: dict[str, Any], path: str) -> dict[str, Any]:
    """`data` without the field at `path`, the tables and lists on the way copied (so
    `data` is left as it was); PathError when the field is not there."""
    parts = _parts(path)
    if lookup(data, path) is NOT_FOUND:
        raise PathError(f"{_show(parts)} is not set in the scenario")
    out = copy.copy(data)
    node: Any = out
    for part in parts[:-1]:
        node[part] = copy.copy(node[part])
        node = node[part]
    del node[parts[-1]]
    return out


def _where(parts: tuple[str | int, ...], i: int) -> str:
    return _show(parts[:i]) or "the scenario"


def _show(parts: list[str | int] | tuple[str | int, ...]) -> str:
    return "".join(
        f"[{p}]" if isinstance(p, int) else (f".{p}" if k else p) for k, p in enumerate(parts)
    )


def _clip(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[: n - 3] + "..."
