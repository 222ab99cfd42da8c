"""The MSRV in Cargo.toml (`rust-version`) against what the locked dependencies declare.

Only the pinned toolchain is installed where hscc is built, so the stated minimum is
never compiled with; clippy's `incompatible_msrv` checks hscc's own code against it, and
this checks the rest: exits 1 if a locked package needs a newer Rust than stated (the
value would be false), or if the stated value is above both every package's and CODE_NEEDS
(then it claims more than anything needs). scripts/lint.sh runs it.

    python scripts/check_msrv.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# What hscc's own code needs: `u64::is_multiple_of` (1.87). Raise it with the code.
CODE_NEEDS = (1, 87)


def version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def shown(v: tuple[int, ...]) -> str:
    return ".".join(map(str, v))


def main() -> int:
    stated = version(
        tomllib.loads((ROOT / "Cargo.toml").read_text())["workspace"]["package"]["rust-version"]
    )
    meta = json.loads(
        subprocess.run(
            ["cargo", "metadata", "--locked", "--format-version", "1"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    ours = set(meta["workspace_members"])
    needs = sorted(
        (version(p["rust_version"]), f"{p['name']} {p['version']}")
        for p in meta["packages"]
        if p["id"] not in ours and p.get("rust_version")
    )
    if not needs:
        print("msrv: no locked package declares a rust-version", file=sys.stderr)
        return 1
    top = needs[-1][0]
    highest = [name for v, name in needs if v == top]
    if top > stated:
        print(
            f"msrv: rust-version = {shown(stated)} in Cargo.toml is false: "
            f"{', '.join(highest)} need {shown(top)}; raise it",
            file=sys.stderr,
        )
        return 1
    if stated > max(top, CODE_NEEDS):
        print(
            f"msrv: rust-version = {shown(stated)} in Cargo.toml is above what anything needs "
            f"(the dependencies {shown(top)}, hscc's code {shown(CODE_NEEDS)}); lower it",
            file=sys.stderr,
        )
        return 1
    print(f"msrv: {shown(stated)}, set by {', '.join(highest)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
