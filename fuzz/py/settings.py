"""Options shared by the fuzzer and the replayer: the bounds of one input."""

from __future__ import annotations

import argparse
from pathlib import Path

FUZZ = Path(__file__).resolve().parent.parent  # fuzz/
REPO = FUZZ.parent
SEED_DIRS = (REPO / "examples", FUZZ / "seeds" / "toml", FUZZ / "reproducers")


def parser(description: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=description)
    p.add_argument(
        "--out",
        type=Path,
        default=FUZZ / "out" / "python",
        help="corpus, findings and stats (default fuzz/out/python)",
    )
    p.add_argument(
        "--sim-cap",
        type=float,
        default=1.0,
        help="simulated seconds run at most per valid input (default 1)",
    )
    p.add_argument(
        "--events", type=int, default=20_000, help="...or until this many events (default 20000)"
    )
    p.add_argument(
        "--engine-timeout",
        type=float,
        default=10.0,
        help="wall seconds for the engine step of one input (default 10)",
    )
    p.add_argument(
        "--py-timeout",
        type=float,
        default=1.0,
        help="wall seconds for reading and validating one input (default 1)",
    )
    p.add_argument(
        "--engine-memory-mib",
        type=int,
        default=1024,
        help="address space of the engine process, MiB (default 1024)",
    )
    return p


def seed_files() -> list[Path]:
    return sorted(f for d in SEED_DIRS if d.is_dir() for f in d.glob("*.toml"))
