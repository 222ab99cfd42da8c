"""Simulator against kernel: each configuration run by `hscc run` and by
`hscc testbed run` from the same scenario, compared with `hscc compare`.

    sudo .venv/bin/python validation/testbed/validate.py --out runs/testbed-validation [--only NAME] [--seconds 30] [--repeat 2] [--sim-seeds 10]

Writes under --out: NAME.sim.toml and NAME.kernel.toml (the same but for a
variant's change, see Config), sim/NAME/ (and sim/NAME-seedS/ for --sim-seeds),
kernel/NAME-K/ (run directories), table.md (every table of the run) and
results.json. It also puts each configuration it compared with the kernel, with
today's date, into validation/results/kernel.json (--results PATH elsewhere,
--no-results not at all), replacing that configuration's entry and keeping the
others; `python validation/results/render.py --write` then updates
docs/validation/kernel.md. Runs without the kernel (--repeat 0) or with a
changed host jitter (--sim-host-jitter) are not validations and write nothing there. The kernel runs one at a time (they are real time and
share the machine); each row says the machine's load average as the kernel run
started and the delay line's worst stall (FLAGGED beyond the testbed's bound).
A second table gives the spread: the simulator over seeds 1..N (the seed
draws its host jitter and its random loss) next to the kernel over its
repetitions. With --kernel-seeds the kernel's repetition k runs seed k too
(the testbed's loss classifier draws from the seed: another draw of the random
loss each) and its row compares with the simulator's seed k; without, every
kernel run is seed 1's draw. Nothing is
tuned to match: both sides run the scenario as written, except the variants
named in Config, which match the two sides' configurations in a stated way.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from hscc import compare, load, runner
from hscc import testbed as tb
from hscc.scenario import Scenario

HERE = Path(__file__).resolve().parent
# This directory's testbed_*.py also where this file is loaded by its path (the tests do).
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "results"))
import results as results_file  # noqa: E402
from testbed_configs import CONFIGS, _toml, lifted_limits, scenario  # noqa: E402
from testbed_entries import result_entries  # noqa: E402
from testbed_summary import by_algorithm, summary  # noqa: E402
from testbed_tables import write_tables  # noqa: E402


def sim_run(out: Path, name: str, seed: int) -> Path:
    """Where a configuration's simulator run of `seed` is written (seed 1 is the one the rows compare with)."""
    return out / "sim" / (name if seed == 1 else f"{name}-seed{seed}")


def scenario_file(out: Path, name: str, side: str, seed: int) -> Path:
    """The scenario file of a configuration's `side` ("sim" or "kernel") run of `seed`."""
    return out / f"{name}.{side}{'' if seed == 1 else f'-seed{seed}'}.toml"


def kernel_run(out: Path, name: str, k: int) -> Path:
    """Where a configuration's `k`-th kernel run (from 0) is written."""
    return out / "kernel" / f"{name}-{k}"


def run_kernel(scenario: Scenario, out: Path, use_bpf: bool, tries: int = 40) -> None:
    """`hscc testbed run`, waiting (up to `tries` × 15 s) while another run holds a program this one registers."""
    for _ in range(tries - 1):
        try:
            tb.run(scenario, out, overwrite=True, use_bpf=use_bpf)
            return
        except tb.TestbedError as e:
            if "registered already" not in str(e):
                raise
            print(f"waiting: {e}", file=sys.stderr, flush=True)
            time.sleep(15)
    tb.run(scenario, out, overwrite=True, use_bpf=use_bpf)


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--only", action="append")
    ap.add_argument(
        "--seconds",
        type=float,
        default=30.0,
        help="run length of configurations that do not set their own",
    )
    ap.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="kernel runs per configuration (0: the simulator only)",
    )
    ap.add_argument(
        "--sim-seeds",
        type=int,
        default=1,
        help="simulator runs per configuration, seeds 1..N (the seed draws the host jitter); rows compare with seed 1",
    )
    ap.add_argument(
        "--kernel-seeds",
        action="store_true",
        help="kernel run k (from 1) runs seed k, against the simulator's seed k: one draw of the random loss per run (needs --sim-seeds >= --repeat)",
    )
    ap.add_argument(
        "--sim-host-jitter",
        metavar="TIME",
        help="the simulator's flows' host_jitter (e.g. 50us), to measure its effect; not the default",
    )
    results_file.add_arguments(ap, results_file.KERNEL)
    ap.add_argument(
        "--retable",
        action="store_true",
        help="run nothing: read the run directories under --out again and rewrite its tables (after a change of how they are read)",
    )
    args = ap.parse_args()
    if args.retable:
        return retable(args.out)
    if args.kernel_seeds and args.sim_seeds < args.repeat:
        ap.error(
            f"--kernel-seeds pairs kernel run k with the simulator's seed k: --sim-seeds {args.sim_seeds} < --repeat {args.repeat}"
        )
    names = args.only or list(CONFIGS)
    unknown = [n for n in names if n not in CONFIGS]
    if unknown:
        ap.error(f"--only {unknown[0]}: no such configuration (one of: {', '.join(CONFIGS)})")
    args.out.mkdir(parents=True, exist_ok=True)
    results, spreads = [], []
    for name in names:
        c = CONFIGS[name]
        sims = []
        for seed in range(1, args.sim_seeds + 1):
            toml = scenario_file(args.out, name, "sim", seed)
            toml.write_text(_toml(scenario(name, args.seconds, "sim", seed, args.sim_host_jitter)))
            sim_dir = sim_run(args.out, name, seed)
            runner.run(Scenario.from_toml(toml)).write(sim_dir, overwrite=True)
            sims.append(load(sim_dir))
        kernels = []
        for k in range(args.repeat):
            seed = k + 1 if args.kernel_seeds else 1
            sim = sims[seed - 1]
            ktoml = scenario_file(args.out, name, "kernel", seed)
            ktoml.write_text(_toml(scenario(name, args.seconds, "kernel", seed)))
            kdir = kernel_run(args.out, name, k)
            load_avg = os.getloadavg()
            lifted = lifted_limits(name)
            os.environ.update(lifted)
            try:
                run_kernel(Scenario.from_toml(ktoml), kdir, c.variant == "bpf")
            finally:
                for key in lifted:
                    del os.environ[key]
            kern = load(kdir)
            kernels.append(kern)
            cmp = compare.compare(sim, kern)
            totals = {r.what: r for r in cmp.totals}
            ratios = [r.ratio for r in cmp.flows if r.ratio is not None]
            algos_s, algos_k = by_algorithm(sim), by_algorithm(kern)
            line = kern.manifest["kernel_run"]["delay_line"]
            row = {
                "config": name,
                "repetition": k,
                "seed": seed,
                "load_avg": load_avg[0],
                "seconds": c.seconds or args.seconds,
                "sim_goodput": totals["goodput, all flows (bit/s)"].a,
                "kernel_goodput": totals["goodput, all flows (bit/s)"].b,
                "sim_flows": [r.a for r in cmp.flows],
                "kernel_flows": [r.b for r in cmp.flows],
                "per_flow_ratio_min": min(ratios),
                "per_flow_ratio_max": max(ratios),
                "algorithm_ratio": {a: algos_k[a] / algos_s[a] for a in algos_s if algos_s[a]},
                "jain_sim": totals["Jain's index"].a,
                "jain_kernel": totals["Jain's index"].b,
                "loss_sim": totals["loss at the bottleneck"].a,
                "loss_kernel": totals["loss at the bottleneck"].b,
                "retrans_sim": totals["retransmitted segments / sent"].a,
                "retrans_kernel": totals["retransmitted segments / sent"].b,
                "qdelay_sim": totals["queuing delay, mean (s)"].a,
                "qdelay_kernel": totals["queuing delay, mean (s)"].b,
                "flags": kern.manifest["kernel_run"]["flags"],
                "max_stall_s": max(line[d]["max_late_s"] for d in ("fwd", "rev")),
                "late_hist_us": {d: line[d]["late_hist_us"] for d in ("fwd", "rev")},
            }
            results.append(row)
            print(json.dumps(row), flush=True)
        spreads.append(
            {
                "config": name,
                "seconds": c.seconds or args.seconds,
                "sim": [summary(r) for r in sims],
                "kernel": [summary(r) for r in kernels],
                "kernel_seeds": args.kernel_seeds,
            }
        )
    write_tables(args.out, results, spreads)
    if args.repeat > 0 and not args.sim_host_jitter and not args.no_results:
        results_file.update(
            args.results,
            result_entries(results, spreads),
            "sudo .venv/bin/python validation/testbed/validate.py --out DIR --repeat 2 --sim-seeds 5",
            **results_file.KERNEL_TOP,
        )
        print(
            f"wrote {args.results} (python validation/results/render.py --write updates the docs)"
        )
    return 0


def retable(out: Path) -> int:
    """The tables of an earlier `validate.py --out OUT` again, each run's numbers read anew from its run directory."""
    saved = json.loads((out / "results.json").read_text())
    spreads = []
    for s in saved["spread"]:
        name = s["config"]
        sims = [sim_run(out, name, seed) for seed in range(1, len(s["sim"]) + 1)]
        kernels = [kernel_run(out, name, k) for k in range(len(s["kernel"]))]
        spreads.append(
            {
                **s,
                "sim": [summary(load(d)) for d in sims],
                "kernel": [summary(load(d)) for d in kernels],
            }
        )
    write_tables(out, saved["rows"], spreads)
    return 0


if __name__ == "__main__":
    sys.exit(main())
