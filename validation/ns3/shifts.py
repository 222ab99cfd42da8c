"""How much a configuration's second-half Jain index moves when the flows start a little later.

    python shifts.py --out DIR --hscc-python PATH --only NAME --shifts 0,1,2 [--hscc-only]
                     [--recovery classic]

Flow i starts i·d ms later than in configs.py, for each d in --shifts. Without
random loss a drop-tail bottleneck decides which flows lose at an overflow by
the exact interleaving of their packets, so an index that moves over a wide
range under millisecond shifts is not a number two simulators can be expected
to share; docs/validation/ns3.md uses this for the CUBIC, Scalable and Vegas rows.
Runs both tools (validate.run_one) unless --hscc-only; DIR as for validate.py.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import configs  # noqa: E402
import validate  # noqa: E402

MAX_SHIFTS = 20


def shifted(c: configs.Config, d_ms: float) -> configs.Config:
    flows = tuple(
        replace(f, start=round(f.start + i * d_ms / 1000, 6)) for i, f in enumerate(c.flows)
    )
    return replace(c, name=f"{c.name}-shift{d_ms:g}ms", flows=flows)


def hscc_only(c: configs.Config, out: Path, hscc_python: str) -> dict:
    d = out / c.name
    d.mkdir(parents=True)
    (d / "scenario.json").write_text(json.dumps(configs.hscc_scenario(c), indent=1))
    validate._run(
        [
            hscc_python,
            str(HERE / "hscc_side.py"),
            str(d / "scenario.json"),
            str(d / "hscc-out.json"),
        ],
        validate.HSCC_TIMEOUT_S,
        d / "hscc.log",
    )
    return validate.summarize(json.loads((d / "hscc-out.json").read_text()))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--hscc-python", required=True)
    ap.add_argument("--only", required=True, choices=sorted(configs.CONFIGS))
    ap.add_argument("--shifts", required=True, help="comma-separated d in ms, e.g. 0,2,4")
    ap.add_argument(
        "--recovery",
        choices=("prr", "classic"),
        default="prr",
        help="window reduction in recovery in both tools, as validate.py's --recovery",
    )
    ap.add_argument(
        "--hscc-only",
        action="store_true",
        help="run hscc only (ns-3 takes minutes per run at 1 Gbit/s)",
    )
    args = ap.parse_args(argv)
    try:
        shifts = [float(x) for x in args.shifts.split(",")]
    except ValueError:
        ap.error(f"--shifts {args.shifts!r}: want numbers of ms separated by commas")
    if not 1 <= len(shifts) <= MAX_SHIFTS or any(not 0 <= d <= 100 for d in shifts):
        ap.error(f"--shifts: 1 to {MAX_SHIFTS} values, each 0 to 100 ms")
    if args.out.exists() and (not args.out.is_dir() or any(args.out.iterdir())):
        ap.error(f"{args.out} exists and is not an empty directory; give a new one")
    args.out.mkdir(parents=True, exist_ok=True)

    base = replace(configs.CONFIGS[args.only], recovery=args.recovery)
    rows = []
    for d in shifts:
        c = shifted(base, d)  # Config checks that every flow still starts in the first half
        if args.hscc_only:
            rows.append({"d_ms": d, "ns3": None, "hscc": hscc_only(c, args.out, args.hscc_python)})
        else:
            r = validate.run_one(c, args.out, args.hscc_python)
            rows.append({"d_ms": d, "ns3": r["ns3"], "hscc": r["hscc"]})
        (args.out / "shifts.json").write_text(json.dumps(rows, indent=1))
    print(f"{args.only}: second-half Jain with flow i starting i·d ms later")
    print("| d (ms) | ns-3 | hscc |\n|---|---|---|")
    for r in rows:
        n = "—" if r["ns3"] is None else f"{r['ns3']['jain_second_half']:.3f}"
        print(f"| {r['d_ms']:g} | {n} | {r['hscc']['jain_second_half']:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
