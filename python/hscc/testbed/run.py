"""`hscc testbed run`: a scenario on the Linux kernel of this machine.

The order: check the scenario (plan) and the machine (limits, tools), reserve
the run directory, load the BPF programs the flows need, build the
namespaces, start the delay line, shape its TUN devices, start the receivers
then the senders with a common start time t0 on CLOCK_MONOTONIC, sample the
bottleneck's queue on the flows' grid, collect, write. Whatever happens
(success, error, Ctrl-C or SIGTERM), `finally` stops every process this run
started (by its pid), deletes its namespaces (which removes links, qdiscs,
filters, TUN devices) and unregisters the BPF programs it registered.
"""

from __future__ import annotations

import json
import os
import platform
import selectors
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from hscc import provenance, rundir
from hscc.errors import ScenarioError
from hscc.kernel import netns, registry, toolchain
from hscc.kernel.programs import KernelError
from hscc.limits import default_max_memory
from hscc.scenario import Scenario, names_program
from hscc.testbed import build, limits, loss, network, record, recovery
from hscc.testbed.network import Names
from hscc.testbed.plan import Plan, TestbedError, builtin_differences, check_interval, make

ENDPOINT = Path(__file__).with_name("endpoint.py")
START_MARGIN_S = 1.0  # from launching the endpoints to t0: they are listening and idle by then
READY_TIMEOUT_S = 15.0
EXIT_TIMEOUT_S = 30.0  # after the run's end, for the endpoints to report


def missing() -> str | None:
    """Why the testbed cannot run on this machine, or None."""
    if os.geteuid() != 0:
        return "the testbed needs root (network namespaces, qdiscs, a real-time delay line)"
    for tool in ("ip", "tc", "ethtool", "cc"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (apt-get install iproute2 ethtool gcc)"
    if not Path("/dev/net/tun").exists():
        return "/dev/net/tun is missing (no TUN devices for the delay line)"
    return None


def plan_for(scenario: Scenario, use_bpf: bool = False) -> Plan:
    """The checked plan (TestbedError names what cannot be done); no kernel state is touched."""
    resolved = scenario.resolved()
    try:
        resolved.check(default_max_memory())  # the limits a simulated run would have
    except ValueError as e:
        raise ScenarioError.from_engine(e, scenario.source) from None
    plan = make(scenario, json.loads(resolved.config()), use_bpf)
    check_interval(plan)
    limits.check(plan)
    return plan


class _Processes:
    """The processes this run started, stopped by pid."""

    def __init__(self) -> None:
        self.started: list[subprocess.Popen[str]] = []

    def start(self, ns: str, *cmd: str) -> subprocess.Popen[str]:
        # A process group of its own: Ctrl-C at the terminal reaches this process only, which
        # stops them in order.
        p = subprocess.Popen(
            ["ip", "netns", "exec", ns, *cmd],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            process_group=0,
        )
        self.started.append(p)
        return p

    def stop_all(self) -> None:
        for p in self.started:
            if p.poll() is None:
                p.terminate()
        for p in self.started:
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=5)


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    main = (
        threading.current_thread() is threading.main_thread()
    )  # only the main thread may set handlers
    old = signal.signal(signal.SIGTERM, signal.default_int_handler) if main else None
    try:
        yield
    finally:
        if old is not None:
            signal.signal(signal.SIGTERM, old)


def run(
    scenario: Scenario,
    out_dir: Path,
    overwrite: bool = False,
    use_bpf: bool = False,
    progress: Callable[[float], None] | None = None,
) -> Path:
    """Run `scenario` on the kernel and write its run directory to `out_dir`.
    TestbedError: refused (the scenario, or this machine); KernelError: the kernel refused a step."""
    plan = plan_for(scenario, use_bpf)  # the scenario first: its refusals need no root
    reason = missing()
    if reason:
        raise TestbedError(f"cannot run the testbed here: {reason}")
    if plan.bpf and toolchain.missing_for_kernel():
        raise TestbedError(
            f"flows need hscc's eBPF programs ({', '.join(plan.bpf)}): {toolchain.missing_for_kernel()}"
        )
    delay_line = build.delay_line()
    loss_program = build.loss_program() if plan.loss > 0 else None
    try:
        counter_program, counter_missing = build.recovery_program(), None
    except (
        TestbedError
    ) as e:  # the run goes on; its flows' recoveries are null, and the manifest says why
        counter_program, counter_missing = None, str(e)
    started = datetime.now(UTC)
    wall0 = time.perf_counter()
    names = Names.for_this_process()
    procs = _Processes()
    loaded: list[str] = []
    code: dict[str, str] = {}  # the program files registered, by the digest of their code
    loss_maps: loss.Maps | None = None
    counter: recovery.Counter | None = None
    with _sigterm_as_interrupt(), rundir.staging(out_dir, overwrite) as tmp:
        try:
            for algorithm, params in plan.bpf.items():
                if registry.pin_of(algorithm)[0].exists():
                    raise TestbedError(
                        f"{algorithm} is registered already (hscc kernel load, or another run); the testbed "
                        f"registers its own with the scenario's parameters: `hscc kernel unload {algorithm}` first"
                    )
                registry.load(algorithm, list(params))
                loaded.append(algorithm)
                if names_program(algorithm):
                    code |= provenance.programs({"flows": [{"algorithm": algorithm}]})
            network.build_hosts(plan, names)
            if counter_program:
                try:
                    counter = recovery.Counter(counter_program, names.senders)
                except KernelError as e:
                    counter_missing = f"the kernel refused the recovery counter: {e}"
            dl = procs.start(
                names.router,
                str(delay_line),
                "tf",
                "tr",
                str(_fifo_capacity(plan)),
                ",".join(str(round(d * 1e6)) for d in plan.fwd_delay),
                ",".join(str(round(d * 1e6)) for d in plan.rev_delay),
            )
            _await_line(dl, dl.stdout, "ready", "the delay line")
            network.build_router(plan, names)
            if loss_program:
                loss_maps = loss.attach(names.router, loss_program, scenario.seed, plan.loss)
            netstat0 = record.netstat(names.senders)
            t0 = time.monotonic() + START_MARGIN_S
            common = {
                "t0": t0,
                "interval": plan.interval,
                "end": plan.duration,
                "port": network.PORT,
            }
            rcv = procs.start(
                names.receivers,
                sys.executable,
                str(ENDPOINT),
                "receive",
                json.dumps(
                    {
                        **common,
                        "lowat": network.receive_lowat(plan),
                        "flows": [
                            {"flow": f.flow, "end": f.end, "size": f.size} for f in plan.flows
                        ],
                    }
                ),
            )
            _await_line(rcv, rcv.stderr, "listening", "the receiver")
            snd = procs.start(
                names.senders,
                sys.executable,
                str(ENDPOINT),
                "send",
                json.dumps(
                    {
                        **common,
                        "notsent_lowat": _notsent_lowat(plan),
                        "flows": [
                            {
                                "flow": f.flow,
                                "cc": f.cc,
                                "src": network.sender_addr(f.pair),
                                "dst": network.receiver_addr(f.pair),
                                "start": f.start,
                                "stop": f.end,
                                "size": f.size,
                            }
                            for f in plan.flows
                        ],
                    }
                ),
            )
            queue_samples = record.sample_queues(
                names.router,
                t0,
                plan.interval,
                plan.duration,
                {"the delay line": dl, "the receivers": rcv, "the senders": snd},
                progress,
            )
            sent = _report(snd, "the senders")
            received = _report(rcv, "the receivers")
            network.stop_senders(names)
            final_qdiscs = record.qdiscs(names.router)
            tun_drops = record.tun_drops(names.router)
            random_loss = loss_maps.report(scenario.seed, plan.loss) if loss_maps else None
            ca_states, netstat1 = _final_counts(counter, names.senders)
            counter_misses = counter.recursion_misses() if counter else None
            dl.send_signal(signal.SIGTERM)
            line = _report(dl, "the delay line")
            for d in ("fwd", "rev"):
                line[d]["late_1ms_share"] = (
                    line[d]["late_1ms"] / line[d]["packets"] if line[d]["packets"] else 0.0
                )
            errors = [f["error"] for f in sent["flows"] if f["error"]]
            errors += [
                f"flow {f.flow}'s socket got congestion control {s['cc']!r}, not {f.cc!r}"
                for f, s in zip(plan.flows, sent["flows"], strict=True)
                if s["cc"] not in (f.cc, None)
            ]
            if errors:
                raise KernelError("; ".join(errors))
            # "fwd"/"rev": the bottleneck's intervals with a backlog it did not serve (a stall the delay line does not see)
            service = {
                name.split(":")[1]: limits.service_stalls(queue_samples, dev, plan.rate_bps)
                for name, dev, _, _ in record.LINKS
            }
            kernel = {
                "engine": "linux",
                "kernel": platform.release(),
                "machine": {"cpus": os.cpu_count(), "load_average": os.getloadavg()},
                "namespaces": {"default_cc": netns.DEFAULT_CC, **network.host_sysctls(plan)},
                "receivers": _receivers(plan, received),
                "congestion_controls": sorted({f.cc for f in plan.flows}),
                "builtin_differences": builtin_differences(plan),
                "bpf_programs": {a: list(p) for a, p in plan.bpf.items()},
                "senders": record.sender_report(plan, sent, ca_states),
                "recovery_counter": {
                    "program": "recovery.bpf.c on the tcp_cong_state_set tracepoint (tp_btf), per socket",
                    "unavailable": counter_missing,
                    "recursion_misses": counter_misses,
                },
                "random_loss": random_loss,
                "qdiscs": final_qdiscs,
                "tun_tx_drops": tun_drops,
                "delay_line": line,
                "limits": {
                    "max_rate_bps": limits.max_rate(),
                    "max_bdp_bits": limits.max_bdp(),
                    "stall_bound_s": limits.STALL_BOUND_S,
                    "late_share_bound": limits.LATE_SHARE_BOUND,
                },
                "bottleneck_service": service,
                "flags": limits.flags(line, service)
                + ([f"the TUN devices dropped {tun_drops} packets"] if tun_drops else []),
                "netstat": record.netstat_delta(netstat0, netstat1),
                "time_series": "TCP_INFO of each sender socket (getsockopt) and the receiver's byte count, sampled on the same grid",
            }
            manifest = {
                **rundir.marker(),
                "created": started.isoformat(timespec="seconds"),
                "wall_time_s": time.perf_counter() - wall0,
                "seed": scenario.seed,
                "events": None,
                **provenance.environment(),
                "scenario_file": scenario.source,
                "scenario": scenario.to_dict(),
                "kernel_run": kernel,
            }
            if code:
                manifest["programs"] = code
            result = record.result(
                plan,
                manifest,
                sent,
                received,
                queue_samples,
                random_loss["drops"] if random_loss else 0,
                ca_states,
            )
            result.write_files(tmp)
        finally:
            for held in (counter, loss_maps):
                if held:
                    held.close()
            procs.stop_all()
            network.remove(names)
            for algorithm in loaded:
                try:
                    registry.unload(algorithm)
                except KernelError as e:  # still report the run's own error, if any
                    print(f"warning: {e}", file=sys.stderr)
    return Path(out_dir)


def _receivers(plan: Plan, received: dict[str, Any]) -> dict[str, Any]:
    """The receivers' SO_RCVLOWAT and, per flow, data segments per ACK (2 when every second one is
    acknowledged) and how its receive window opened (`window_opening`)."""
    acks = {int(i): a for i, a in received["acks"].items()}
    return {
        "so_rcvlowat": network.receive_lowat(plan),
        "segments_per_ack": {
            f.flow: (
                acks[f.flow]["data_segs_in"] / acks[f.flow]["segs_out"]
                if acks.get(f.flow, {}).get("segs_out")
                else None
            )
            for f in plan.flows
        },
        "window_opening": {f.flow: window_opening(acks.get(f.flow, {})) for f in plan.flows},
    }


def window_opening(ack: dict[str, Any]) -> dict[str, Any] | None:
    """How a receiving socket opened its window: its rcv_ssthresh when accepted and at the end, its
    window clamp, and `quick_acks`, the segments Linux acknowledged one by one to get there
    (`tcp_grow_window` raises rcv_ssthresh by 2·advmss per data segment and sets a quick ACK for
    each: those seen when accepted, plus the growth after it over 2·advmss): the value of the
    simulator's flow field of that name that models this receiver."""
    opened = ack.get("opened") or {}
    if not opened or "rcv_ssthresh" not in ack:
        return None
    start, end, step = opened["rcv_ssthresh"], ack["rcv_ssthresh"], 2 * ack["advmss"]
    return {
        "rcv_ssthresh": [start, end],
        "window_clamp": ack["window_clamp"],
        "quick_acks": opened["data_segs_in"] + max(0, -(-(end - start) // step)),
    }


def _final_counts(
    counter: recovery.Counter | None, ns: str
) -> tuple[dict[int, dict[str, Any]] | None, dict[str, int]]:
    """The recovery counter's counts and the namespace's MIB counters, read where no state
    change falls between them: ACKs still queued toward the senders (a loaded machine
    delivers them late) can start a recovery after the link went down. Reads again, a
    bounded number of times, until the counter stands still across the MIB read."""
    if counter is None:
        return None, record.netstat(ns)
    before = counter.counts()
    for _ in range(20):
        net = record.netstat(ns)
        after = counter.counts()
        if after == before:
            break
        before = after
        time.sleep(0.05)
    return after, net


def _fifo_capacity(plan: Plan) -> int:
    """Packets each of the delay line's FIFOs holds: the path's load plus 100 ms of stall at the bottleneck rate."""
    longest = max(plan.fwd_delay + plan.rev_delay)
    return int(1.5 * plan.rate_bps * (longest + 0.1) / 12_000) + 256


def _notsent_lowat(plan: Plan) -> int:
    """Unsent bytes a sender keeps queued: 20 ms at the bottleneck rate, at least 256 kB."""
    return int(max(256 << 10, plan.rate_bps * 0.02 / 8))


def _await_line(p: subprocess.Popen[str], stream: IO[str] | None, expected: str, what: str) -> None:
    """Wait (at most READY_TIMEOUT_S) for `what` to print the line `expected`."""
    assert stream is not None  # _Processes.start pipes stdout and stderr
    sel = selectors.DefaultSelector()
    sel.register(stream, selectors.EVENT_READ)
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        if sel.select(timeout=max(0.0, deadline - time.monotonic())):
            line = stream.readline()
            if line.strip() == expected:
                return
            if not line:
                break
    err = p.stderr.read() if p.poll() is not None and p.stderr else ""
    raise KernelError(f"{what} did not start: {err.strip() or 'no answer in time'}")


def _report(p: subprocess.Popen[str], what: str) -> dict[str, Any]:
    try:
        out, err = p.communicate(timeout=EXIT_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise KernelError(
            f"{what} did not finish {EXIT_TIMEOUT_S:g} s after the run's end"
        ) from None
    if p.returncode != 0:
        raise KernelError(f"{what} failed (exit code {p.returncode}): {err.strip()}")
    lines = [line for line in out.splitlines() if line.startswith("{")]
    if not lines:
        raise KernelError(f"{what} printed no report: {err.strip()}")
    report: dict[str, Any] = json.loads(lines[-1])
    return report
