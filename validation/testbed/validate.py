"""Simulator against kernel: each configuration run by `hscc run` and by
`hscc testbed run` from the same scenario, compared with `hscc compare`.

    sudo .venv/bin/python validation/testbed/validate.py --out runs/testbed-validation [--only NAME] [--seconds 30] [--repeat 2]

Writes under --out: NAME.sim.toml and NAME.kernel.toml (the same but for a
variant's change, see CONFIGS), sim/NAME/, kernel/NAME-K/ (run directories),
table.md (the table docs/validation.md shows) and results.json. The kernel runs
one at a time (they are real time and share the machine); each row says the
machine's load average as the kernel run started and the delay line's worst
stall (FLAGGED beyond the testbed's bound). Nothing is tuned to match: both
sides run the scenario as written, except the variants named in CONFIGS,
which match the two sides' configurations in a stated way.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from hscc import compare, load, runner
from hscc import testbed as tb
from hscc.scenario import Scenario

# name: (flows as [(algorithm, count)], rate Mbit/s, RTT ms, buffer, random loss, variant)
# variant "": both sides run the scenario as written (the kernel's built-in reno/cubic);
# "sim-hystart": the simulator's cubic with hystart = true, as Linux's built-in cubic runs (the kernel side unchanged);
# "bpf": the kernel runs hscc's eBPF program (hscc_cubic, hystart off as the scenario says) instead of the built-in.
CONFIGS = {
    "reno-1-100M-40ms": ([("reno", 1)], 100, 40, "1bdp", 0.0, ""),
    "cubic-1-100M-40ms": ([("cubic", 1)], 100, 40, "1bdp", 0.0, ""),
    "cubic-1-100M-40ms-sim-hystart": ([("cubic", 1)], 100, 40, "1bdp", 0.0, "sim-hystart"),
    "cubic-1-100M-40ms-bpf": ([("cubic", 1)], 100, 40, "1bdp", 0.0, "bpf"),
    "reno-1-100M-40ms-0.25bdp": ([("reno", 1)], 100, 40, "0.25bdp", 0.0, ""),
    "cubic-1-100M-40ms-0.25bdp": ([("cubic", 1)], 100, 40, "0.25bdp", 0.0, ""),
    "reno-4-100M-40ms": ([("reno", 4)], 100, 40, "1bdp", 0.0, ""),
    "cubic-4-100M-40ms": ([("cubic", 4)], 100, 40, "1bdp", 0.0, ""),
    "reno2-cubic2-100M-40ms": ([("reno", 2), ("cubic", 2)], 100, 40, "1bdp", 0.0, ""),
    "reno2-cubic2-100M-40ms-sim-hystart": ([("reno", 2), ("cubic", 2)], 100, 40, "1bdp", 0.0, "sim-hystart"),
    "reno-1-200M-80ms": ([("reno", 1)], 200, 80, "1bdp", 0.0, ""),
    "cubic-1-200M-80ms": ([("cubic", 1)], 200, 80, "1bdp", 0.0, ""),
    "reno-1-50M-20ms-loss1e-3": ([("reno", 1)], 50, 20, "1bdp", 1e-3, ""),
    "cubic-1-50M-20ms-loss1e-3": ([("cubic", 1)], 50, 20, "1bdp", 1e-3, ""),
}


def scenario(name: str, seconds: float, side: str) -> dict:
    """The scenario `side` ("sim" or "kernel") runs."""
    flows, rate, rtt, buffer, loss, variant = CONFIGS[name]
    bottleneck = {"rate": f"{rate}Mbps", "delay": "1ms", "buffer": buffer, "loss": loss}
    hystart = variant == "sim-hystart" and side == "sim"
    return {
        "name": name, "duration": f"{seconds}s", "seed": 1,
        "output": {"sample_interval": "100ms", "traces": ["flows", "queues"]},
        "topology": {"kind": "dumbbell", "bottleneck": bottleneck, "pairs": [{"rate": "10Gbps", "rtt": f"{rtt}ms"}]},
        "flows": [{"pair": 0, "algorithm": a, "count": n, "label": a, **({"params": {"hystart": True}} if hystart and a == "cubic" else {})}
                  for a, n in flows],
    }


def _toml(d: dict) -> str:
    """The scenario as TOML (the few shapes used above)."""
    def value(v):
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, dict):
            return "{ " + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + " }"
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return repr(v)

    lines = [f"{k} = {value(v)}" for k, v in d.items() if k not in ("output", "topology", "flows")]
    lines += ["", "[output]", *(f"{k} = {value(v)}" for k, v in d["output"].items())]
    t = d["topology"]
    lines += ["", "[topology]", f"kind = {value(t['kind'])}", f"bottleneck = {value(t['bottleneck'])}", f"pairs = {value(t['pairs'])}"]
    for f in d["flows"]:
        lines += ["", "[[flows]]", *(f"{k} = {value(v)}" for k, v in f.items())]
    return "\n".join(lines) + "\n"


def by_algorithm(r) -> dict[str, float]:
    """Summed goodput per algorithm (bit/s)."""
    out: dict[str, float] = {}
    for row in r.flows.iter_rows(named=True):
        out[row["algorithm"]] = out.get(row["algorithm"], 0.0) + row["goodput_bps"]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--only", action="append")
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--repeat", type=int, default=1, help="kernel runs per configuration")
    args = ap.parse_args()
    names = args.only or list(CONFIGS)
    args.out.mkdir(parents=True, exist_ok=True)
    results = []
    for name in names:
        sides = {}
        for side in ("sim", "kernel"):
            toml = args.out / f"{name}.{side}.toml"
            toml.write_text(_toml(scenario(name, args.seconds, side)))
            sides[side] = Scenario.from_toml(toml)
        sim_dir = args.out / "sim" / name
        runner.run(sides["sim"]).write(sim_dir, overwrite=True)
        sim = load(sim_dir)
        for k in range(args.repeat):
            kdir = args.out / "kernel" / f"{name}-{k}"
            load_avg = os.getloadavg()
            tb.run(sides["kernel"], kdir, overwrite=True, use_bpf=CONFIGS[name][5] == "bpf")
            kern = load(kdir)
            c = compare.compare(sim, kern)
            totals = {r.what: r for r in c.totals}
            ratios = [r.ratio for r in c.flows if r.ratio is not None]
            algos_s, algos_k = by_algorithm(sim), by_algorithm(kern)
            row = {
                "config": name, "repetition": k, "load_avg": load_avg[0],
                "sim_goodput": totals["goodput, all flows (bit/s)"].a, "kernel_goodput": totals["goodput, all flows (bit/s)"].b,
                "per_flow_ratio_min": min(ratios), "per_flow_ratio_max": max(ratios),
                "algorithm_ratio": {a: algos_k[a] / algos_s[a] for a in algos_s if algos_s[a]},
                "jain_sim": totals["Jain's index"].a, "jain_kernel": totals["Jain's index"].b,
                "loss_sim": totals["loss at the bottleneck"].a, "loss_kernel": totals["loss at the bottleneck"].b,
                "retrans_sim": totals["retransmitted segments / sent"].a, "retrans_kernel": totals["retransmitted segments / sent"].b,
                "qdelay_sim": totals["queuing delay, mean (s)"].a, "qdelay_kernel": totals["queuing delay, mean (s)"].b,
                "flags": kern.manifest["kernel_run"]["flags"],
                "max_stall_s": max(kern.manifest["kernel_run"]["delay_line"][d]["max_late_s"] for d in ("fwd", "rev")),
            }
            results.append(row)
            print(json.dumps(row), flush=True)
    (args.out / "results.json").write_text(json.dumps(results, indent=1))
    (args.out / "table.md").write_text(table(results))
    print(table(results))
    return 0


def table(rows: list[dict]) -> str:
    head = ("| configuration | goodput sim → kernel (Mbit/s) | kernel / sim | per flow | Jain sim / kernel | "
            "loss sim / kernel | retrans sim / kernel | qdelay sim / kernel (ms) | stall (ms), load |")
    out = [head, "|" + "---|" * 9]
    for r in rows:
        algos = r["algorithm_ratio"]
        per_algo = " ".join(f"{a} {v:.2f}" for a, v in algos.items()) if len(algos) > 1 else ""
        out.append(
            f"| {r['config']}{' #' + str(r['repetition'] + 1) if r['repetition'] else ''} | "
            f"{r['sim_goodput'] / 1e6:.1f} → {r['kernel_goodput'] / 1e6:.1f} | {r['kernel_goodput'] / r['sim_goodput']:.3f} | "
            f"{r['per_flow_ratio_min']:.2f}–{r['per_flow_ratio_max']:.2f} {per_algo} | "
            f"{r['jain_sim']:.3f} / {r['jain_kernel']:.3f} | {r['loss_sim']:.2e} / {r['loss_kernel']:.2e} | "
            f"{r['retrans_sim']:.2e} / {r['retrans_kernel']:.2e} | {r['qdelay_sim'] * 1e3:.1f} / {r['qdelay_kernel'] * 1e3:.1f} | "
            f"{r['max_stall_s'] * 1e3:.1f}{' FLAGGED' if r['flags'] else ''}, {r['load_avg']:.1f} |"
        )
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.exit(main())
