"""The engine step of the fuzz harness, in its own process.

Reads one engine JSON scenario per line on stdin, builds it with
hscc._core.Simulation (as `hscc check` and `hscc run` do), runs it in steps of
STEP simulated seconds up to CAP seconds or until EVENTS events (the work of
an input is bounded by events, so busy and idle scenarios cost about the same
and idle ones still reach their timers), collects the results
(Simulation.finish) and answers one JSON line on stdout: {"outcome": "rejected" | "ran" | "panic" | "traceback" |
"memory", "detail": ...}.

A separate process because the engine may abort (a failed allocation under
the address-space limit set here), overflow its stack or run for a long time:
the parent kills and restarts this worker and the campaign goes on.

    python engine_worker.py LIMIT_MIB CAP_SECONDS EVENTS
"""

from __future__ import annotations

import json
import resource
import sys
import time
import traceback

STEP = 0.001  # simulated seconds per run_until call


def main() -> None:
    limit_mib, cap, max_events = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
    resource.setrlimit(resource.RLIMIT_AS, (limit_mib << 20, limit_mib << 20))
    from hscc import _core
    from hscc.errors import ScenarioError

    def handle(text: str) -> dict:
        t0 = time.perf_counter()
        try:
            # The product's contract: a run the engine estimates to need more than the
            # memory allowed is refused up front. Allow a third of this process's
            # address space (the estimate may be low by up to 2x; Python needs the rest).
            sim = _core.Simulation(text, (limit_mib << 20) // 3)
        except (
            ValueError
        ) as e:  # the engine's rejection: ValueError(message, field, value, allowed)
            message = str(ScenarioError.from_engine(e, "fuzz-input"))  # what the CLI prints
            return {
                "outcome": "rejected",
                "detail": message,
                "structured": len(e.args) == 4,
                "field": e.args[1] if len(e.args) == 4 else None,
            }
        except BaseException as e:  # noqa: BLE001 - classify everything else
            return _failure(e, "build")
        try:
            end, t = min(sim.duration, cap), 0.0
            while t < end and sim.events < max_events:  # at most cap / STEP steps
                t = min(end, t + STEP)
                sim.run_until(t)
            events = sim.events
            sim.finish()
        except BaseException as e:  # noqa: BLE001
            return _failure(e, "run")
        return {
            "outcome": "ran",
            "events": events,
            "simulated": t,
            "seconds": time.perf_counter() - t0,
        }

    sys.stdout.write(
        '{"ready": true}\n'
    )  # imports done: the parent's clock for the first input starts now
    sys.stdout.flush()
    for line in sys.stdin:  # one request per line until the parent closes stdin
        reply = handle(line)
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


def _failure(e: BaseException, stage: str) -> dict:
    """A panic (RuntimeError from run/finish, PanicException from the constructor), MemoryError or any other exception."""
    name = type(e).__name__
    text = str(e)
    if name == "PanicException" or (
        isinstance(e, RuntimeError) and "the hscc engine failed" in text
    ):
        outcome = "panic"
    elif isinstance(e, MemoryError):
        outcome = "memory"
    else:
        outcome = "traceback"
    return {
        "outcome": outcome,
        "stage": stage,
        "detail": f"{name}: {text}"[:2000],
        "traceback": traceback.format_exc()[-4000:],
    }


if __name__ == "__main__":
    main()
