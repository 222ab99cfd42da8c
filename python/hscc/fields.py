"""Pydantic field types for quantities with units, and the base model of scenarios."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, StrictInt

from hscc import units

MAX_FLOWS = 100_000


def between(lo: float, hi: float, allowed: str, lo_open: bool = False) -> AfterValidator:
    """Reject values outside [lo, hi] (or (lo, hi]) with `allowed` as the message."""

    def check(v: float) -> float:
        if not ((lo < v) if lo_open else (lo <= v)) or not v <= hi:  # written so that NaN fails
            raise ValueError(allowed)
        return v

    return AfterValidator(check)


def _buffer(v: object) -> dict[str, Any]:
    b = units.buffer(v)
    if next(iter(b.values())) <= 0 or b.get("bdp", 0) > 1e4 or b.get("packets", 0) > 1e9 or b.get("bytes", 0) > 1e12:
        raise ValueError("1 to 10^9 packets, 1 byte to 10^12 bytes, or a BDP multiple above 0 (at most 10000)")
    return b


Seconds = Annotated[float, BeforeValidator(units.seconds), between(0, 3600, "a time from 0 to 1 hour")]
PositiveSeconds = Annotated[float, BeforeValidator(units.seconds), between(0, 3600, "above 0, at most 1 hour", lo_open=True)]
Duration = Annotated[float, BeforeValidator(units.seconds), between(0, 1e7, "a duration above 0, at most 10^7 s", lo_open=True)]
Rate = Annotated[float, BeforeValidator(units.rate), between(1, 1e13, "a rate from 1 bit/s to 10 Tbit/s")]
Probability = Annotated[float, BeforeValidator(units.probability)]
Bytes = Annotated[int, BeforeValidator(units.size), between(1, 2**62, "at least 1 byte")]
Mss = Annotated[int, BeforeValidator(units.size), between(64, 65495, "64 to 65495 bytes")]
Buffer = Annotated[dict[str, Any], BeforeValidator(_buffer)]
Count = Annotated[StrictInt, between(1, MAX_FLOWS, f"1 to {MAX_FLOWS} flows")]
Index = Annotated[StrictInt, between(0, 2**31, "an index from 0")]


_NAME_ALLOWED = ("1 to 100 characters, usable as a file name: no /, \\, control characters or leading dot")


def _file_name(v: str) -> str:
    if not is_file_name(v):
        raise ValueError(_NAME_ALLOWED)
    return v


_NOT_IN_FILE_NAMES = re.compile(r"[/\\\x00-\x1f\x7f]")


def is_file_name(v: str) -> bool:
    """Whether `v` can name a run directory as it is (runs/NAME-TIMESTAMP): one path component."""
    return 0 < len(v) <= 100 and not v.startswith(".") and not _NOT_IN_FILE_NAMES.search(v)


def safe_file_name(v: str) -> str:
    """`v` made a file name: characters a file name cannot have become "_" ("scenario" if nothing is left)."""
    name = _NOT_IN_FILE_NAMES.sub("_", v).lstrip(".")[:100]
    return name if is_file_name(name) else "scenario"


FileName = Annotated[str, AfterValidator(_file_name)]


class Model(BaseModel):
    """Unknown fields are errors; defaults are validated like given values."""

    model_config = ConfigDict(extra="forbid", validate_default=True)
