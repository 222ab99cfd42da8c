"""Structure-aware mutation of scenario files.

A TOML input is parsed, one to three of its values are changed (a number to
an extreme, a quantity to another unit, a kind or algorithm to another name,
a list entry duplicated or dropped, a table spliced from a seed, ...) and the
table is written back with tomli_w. Random byte mutation stays in the mix
(mutate() falls back to it), so the parser's own error paths are fuzzed too.
Deterministic for a given seed, as libFuzzer requires.
"""

from __future__ import annotations

import copy
import random
import tomllib
from collections import deque
from collections.abc import Callable
from typing import Any

import tomli_w
import vocab

MAX_SLOTS = 4000  # values considered per document: bounds the walk on big inputs
MAX_LIST = 64  # a duplicated list grows at most to this many entries per step


class Mutator:
    def __init__(self, seeds: list[dict], byte_mutate: Callable[[bytes, int], bytes]):
        self.seeds = seeds  # parsed seed files, for splicing
        self.byte_mutate = byte_mutate
        self.keys, self.values = vocab.words()

    def mutate(self, data: bytes, max_size: int, seed: int) -> bytes:
        rng = random.Random(seed)
        if rng.random() < 0.25:
            return self.byte_mutate(data, max_size)
        try:
            out = self._structured(data, rng)
        except (
            TypeError,
            ValueError,
            RecursionError,
        ):  # a value tomli_w cannot write, a very deep table
            out = None
        except Exception:  # noqa: BLE001 - a mutator bug must not end the campaign; bytes still mutate
            out = None
        return out if out is not None and len(out) <= max_size else self.byte_mutate(data, max_size)

    def _structured(self, data: bytes, rng: random.Random) -> bytes | None:
        doc = _parse(data)
        if doc is None:
            if rng.random() < 0.5 or not self.seeds:
                return None
            doc = copy.deepcopy(rng.choice(self.seeds))  # start again from a seed
        for _ in range(rng.randint(1, 3)):
            self._step(doc, rng)
        return tomli_w.dumps(doc).encode()

    def crossover(self, a: bytes, b: bytes, max_out: int, seed: int) -> bytes:
        """Top-level fields of `b` replace those of `a` (each with probability 1/2)."""
        rng = random.Random(seed)
        da, db = _parse(a), _parse(b)
        if da is None or db is None:
            return a[: max_out // 2] + b[: max_out - min(len(a), max_out // 2)]
        for k, v in db.items():
            if rng.random() < 0.5:
                da[k] = v
        try:
            out = tomli_w.dumps(da).encode()
        except (TypeError, ValueError, RecursionError):
            return a[:max_out]
        return out[:max_out]

    # --- one mutation ------------------------------------------------------------------

    def _step(self, doc: dict, rng: random.Random) -> None:
        slots = _slots(doc)
        container, key = rng.choice(slots) if slots else (doc, rng.choice(self.keys))
        op = rng.choice(self._ops)
        op(self, container, key, rng)

    def _number(self, c: Any, k: Any, rng: random.Random) -> None:
        c[k] = (
            rng.choice(vocab.NUMBERS)
            if rng.random() < 0.7
            else _near(c[k] if _has(c, k) else 0, rng)
        )

    def _quantity(self, c: Any, k: Any, rng: random.Random) -> None:
        n = rng.choice(vocab.NUMBERS)
        c[k] = f"{n}{rng.choice(vocab.UNITS)}"

    def _word(self, c: Any, k: Any, rng: random.Random) -> None:
        c[k] = rng.choice(self.values)

    def _odd(self, c: Any, k: Any, rng: random.Random) -> None:
        c[k] = copy.deepcopy(rng.choice(vocab.ODD_VALUES))

    def _long_string(self, c: Any, k: Any, rng: random.Random) -> None:
        # Long padded quantities: a parser's worst case, within max_len.
        pad = rng.choice((" ", "0", "\t", "a", "1"))
        c[k] = (
            f"{rng.choice(vocab.NUMBERS)}{rng.choice(vocab.UNITS)}{pad * rng.choice((100, 1000, 4000, 15000))}{rng.choice(('x', '', ' s'))}"
        )

    def _delete(self, c: Any, k: Any, rng: random.Random) -> None:
        if isinstance(c, dict):
            c.pop(k, None)
        elif isinstance(c, list) and c:
            c.pop(k if k < len(c) else -1)

    def _add_field(self, c: Any, k: Any, rng: random.Random) -> None:
        target = c[k] if _has(c, k) and isinstance(c[k], dict) else c
        if isinstance(target, dict):
            value = rng.choice(
                (
                    rng.choice(vocab.NUMBERS),
                    rng.choice(self.values),
                    f"{rng.choice(vocab.NUMBERS)}{rng.choice(vocab.UNITS)}",
                )
            )
            target[rng.choice(self.keys)] = value

    def _grow_list(self, c: Any, k: Any, rng: random.Random) -> None:
        target = c[k] if _has(c, k) else None
        if isinstance(target, list) and target:
            times = rng.choice((1, 1, 2, 8, MAX_LIST))
            for _ in range(min(times, MAX_LIST - len(target))):
                target.append(copy.deepcopy(rng.choice(target)))
        elif isinstance(c, list) and c:
            c.append(copy.deepcopy(rng.choice(c)))

    def _splice(self, c: Any, k: Any, rng: random.Random) -> None:
        """Replace the value with one found under the same key in a seed (or any seed value)."""
        if not self.seeds:
            return
        donor = rng.choice(self.seeds)
        same = [v for (dc, dk) in _slots(donor) if dk == k for v in (dc[dk],)]
        pool = same or [dc[dk] for dc, dk in _slots(donor)]
        if pool:
            c[k] = copy.deepcopy(rng.choice(pool))

    _ops = (
        _number,
        _number,
        _quantity,
        _quantity,
        _word,
        _odd,
        _long_string,
        _delete,
        _delete,
        _add_field,
        _add_field,
        _grow_list,
        _grow_list,
        _splice,
        _splice,
    )


def _parse(data: bytes) -> dict | None:
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError, ValueError):
        return None


def _has(c: Any, k: Any) -> bool:
    return (isinstance(c, dict) and k in c) or (
        isinstance(c, list) and isinstance(k, int) and k < len(c)
    )


def _slots(doc: dict) -> list[tuple[Any, Any]]:
    """(container, key) of every value, breadth first, at most MAX_SLOTS."""
    out: list[tuple[Any, Any]] = []
    queue: deque[Any] = deque([doc])
    while queue and len(out) < MAX_SLOTS:
        c = queue.popleft()
        items = c.items() if isinstance(c, dict) else enumerate(c)
        for k, v in items:
            out.append((c, k))
            if isinstance(v, (dict, list)):
                queue.append(v)
    return out[:MAX_SLOTS]


def _near(v: Any, rng: random.Random) -> Any:
    """A value next to v: ±1, ×2, /2, negated (numbers only)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return rng.choice(vocab.NUMBERS)
    return rng.choice(
        (v + 1, v - 1, v * 2, v / 2 if isinstance(v, float) else v // 2, -v, v * 1000)
    )
