"""Reading the files a user hands to hscc (scenarios, sweeps, experiments) without trusting them.

Every reader goes through `load_toml`, which refuses before parsing what would
block, exhaust memory or take minutes:

- anything but a regular file: a named pipe, a device, a socket or a directory
  (opened with O_NONBLOCK and checked with fstat, so a pipe without a writer
  does not block);
- a file larger than the reader's bound (read up to the bound, never further:
  a file under /proc reports size 0);
- text that is not UTF-8 (the offset of the first bad byte is named);
- a dotted key of more than MAX_DEPTH parts (the TOML parser's time grows with the
  square of their number), tables or lists nested more than MAX_DEPTH deep,
  and integers of more digits than Python reads.

Numbers that enter arithmetic (range ends, factors, indices) are checked with
`finite_number` and `index`, which refuse NaN, infinities, numbers beyond
MAX_MAGNITUDE and integers of too many digits before they are converted.
"""

from __future__ import annotations

import errno
import math
import os
import re
import stat
from collections.abc import Collection
from pathlib import Path
from typing import Any

import tomli

__all__ = [
    "MAX_DEPTH",
    "MAX_INDEX_DIGITS",
    "MAX_MAGNITUDE",
    "InputError",
    "finite_number",
    "index",
    "load_toml",
    "parse_toml",
    "read_text",
    "too_deep",
]

MAX_DEPTH = 32  # tables and lists inside each other; scenarios use at most 5
MAX_MAGNITUDE = 1e300  # a number whose differences and products stay finite
MAX_INDEX_DIGITS = 9  # a list index: far beyond any list a file can hold
# A dotted key of more than MAX_DEPTH parts, looked for where keys start (a line, after "{"
# or ","); possessive quantifiers and those few starting points keep the search linear.
_LONG_DOTTED_KEY = re.compile(
    r"(?m)(?:^|[{,])[ \t]*+\[{0,2}+[ \t]*+(?:(?:[A-Za-z0-9_-]++|\"[^\"\n]*+\"|'[^'\n]*+')[ \t]*+\.[ \t]*+){"
    + str(MAX_DEPTH)
    + ",}"
)
_KINDS = {
    stat.S_IFIFO: "a named pipe",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a directory",
}


class InputError(ValueError):
    """A file or value refused before it is used; the message names the file or field."""


def read_text(path: str | Path, what: str, max_bytes: int) -> str:
    """The UTF-8 text of a regular file of at most `max_bytes` bytes (InputError otherwise).
    `what` names the file's kind in messages ("scenario", "sweep")."""
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as e:
        raise InputError(f"cannot read {what} file {path}: {_reason(e)}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = _KINDS.get(stat.S_IFMT(mode), "not a regular file")
            raise InputError(
                f"cannot read {what} file {path}: it is {kind}, not a regular file "
                f"(a {what} file is a TOML text file)"
            )
        chunks, size = [], 0
        while size <= max_bytes:
            chunk = os.read(fd, max_bytes + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as e:
        raise InputError(f"cannot read {what} file {path}: {_reason(e)}") from None
    finally:
        os.close(fd)
    if size > max_bytes:
        limit = f"{max_bytes >> 20} MiB" if max_bytes >= 1 << 20 else f"{max_bytes >> 10} KiB"
        raise InputError(f"{path} is larger than {limit}; a {what} file is a few kB")
    raw = b"".join(chunks)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(
            f"cannot read {what} file {path}: byte 0x{raw[e.start]:02x} at offset {e.start} "
            "is not UTF-8 (a TOML file is UTF-8 text)"
        ) from None


def parse_toml(text: str, where: str) -> dict[str, Any]:
    """TOML text as data, refusing long dotted keys, deep nesting and numbers too long to read;
    `where` (the file's path) starts every message."""
    if _LONG_DOTTED_KEY.search(text):
        raise InputError(f"{where}: a dotted key is nested more than {MAX_DEPTH} tables deep")
    try:
        data = tomli.loads(text)
    except tomli.TOMLDecodeError as e:
        raise InputError(f"{where} is not valid TOML: {e}") from None
    except ValueError:  # Python's own bound on int(): 4300 digits
        raise InputError(
            f"{where}: a number has more digits than can be read (at most 4300)"
        ) from None
    except RecursionError:
        raise InputError(f"{where}: values are nested more than {MAX_DEPTH} deep") from None
    deep = too_deep(data)
    if deep is not None:
        raise InputError(f"{where}: {deep} is nested more than {MAX_DEPTH} tables or lists deep")
    return data


def load_toml(path: str | Path, what: str, max_bytes: int) -> dict[str, Any]:
    """A TOML file's data (InputError naming the file and what is wrong): `read_text`, then `parse_toml`."""
    return parse_toml(read_text(path, what, max_bytes), str(path))


def too_deep(data: object) -> str | None:
    """The path of the first value nested more than MAX_DEPTH deep, or None (iterative:
    no recursion limit, and a dict that contains itself ends at the bound too). Walks the
    tables and lists alone, without their paths (10^5 host pairs are half a million
    values); the path is found only for data that is too deep."""
    stack: list[tuple[object, int]] = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children: Collection[object] = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if not children:
            continue
        if depth >= MAX_DEPTH:  # its children are nested deeper than the bound
            return _first_too_deep(data)
        stack += [(v, depth + 1) for v in children if isinstance(v, (dict, list))]
    return None


def _first_too_deep(data: object) -> str | None:
    """`too_deep`'s path: the first value, in this walk's order, nested too deep."""
    stack: list[tuple[object, str, int]] = [(data, "", 0)]
    while stack:
        value, path, depth = stack.pop()
        if depth > MAX_DEPTH:
            return path[:80] + ("..." if len(path) > 80 else "")
        if isinstance(value, dict):
            stack += [(v, f"{path}.{k}" if path else str(k), depth + 1) for k, v in value.items()]
        elif isinstance(value, list):
            stack += [(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(value)]
    return None


def finite_number(value: object) -> str | None:
    """Why `value` is not a finite number within ±MAX_MAGNITUDE (None when it is)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, int):
        # abs() and a comparison with a float are exact for any int, however long
        return None if abs(value) <= MAX_MAGNITUDE else "a number from -1e300 to 1e300"
    if not math.isfinite(value):
        return "a finite number"
    return None if abs(value) <= MAX_MAGNITUDE else "a number from -1e300 to 1e300"


def index(digits: str) -> int | None:
    """A list index written in decimal digits, or None when it has more than MAX_INDEX_DIGITS
    (checked on the text, before int() reads it)."""
    stripped = digits.lstrip("0") or "0"
    if len(stripped) > MAX_INDEX_DIGITS:
        return None
    return int(stripped)


def _reason(e: OSError) -> str:
    if e.errno == errno.ELOOP:
        return "too many levels of symbolic links"
    return e.strerror or str(e)
