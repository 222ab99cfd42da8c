"""hscc kernel: parameters and names without a kernel; with one (root, BTF,
clang, bpftool, libbpf), each program of bpf/ passes the verifier, carries
a real flow in a namespace of its own, and leaves nothing behind."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hscc import catalog
from hscc.cli import app
from hscc.kernel import programs, registry, smoke, toolchain
from hscc.kernel.programs import KernelError

# Real kernel measurements: scripts/test.sh runs these alone, after the rest.
pytestmark = pytest.mark.real_kernel

runner = CliRunner()


# --- without a kernel -------------------------------------------------------


def test_programs_are_named_for_their_algorithms():
    names = programs.available()
    assert {"reno", "cubic"} <= set(names)
    for n in names:
        assert (
            programs.kernel_name(n) == "hscc_" + n.replace("-", "_")
            and len(programs.kernel_name(n)) <= 15
        )
    assert programs.resolve("NewReno") == "reno"  # aliases resolve as in scenarios
    assert programs.kernel_name("ctcp-la") == "hscc_ctcp_la"


def test_parameters_become_the_rust_fixed_point():
    g = dict(programs.globals_for("cubic", ["beta=0.8", "hystart=true", "c=0.4"]))
    # round(0.8·1024) = 819; round(0.4·102.4)·10 = 410; 8·(1024 + 819)/3/(1024 − 819) = 23.
    assert (g["beta"], g["cube_rtt_scale"], g["beta_scale"], g["hystart"]) == (819, 410, 23, 1)
    assert dict(programs.globals_for("cubic", []))["beta"] == 717
    assert programs.globals_for("reno", []) == []


def test_highspeeds_generated_table_reaches_the_program_row_by_row():
    # RFC constants: the program's copy of the RFC table. Others: the table
    # hscc-cc generates (73 rows for this High_P), as array globals.
    # The formula's constants (HstcpFormula::RFC) ride along, unused in the table mode.
    assert programs.globals_for("highspeed", []) == [
        ("per_ack", 0),
        ("response", 0),
        ("formula_low_window", 38),
        ("formula_log2_low_q16", 343928),
        ("formula_log2_cap_q16", 1129911),
        ("formula_b_drop_q32", 154872712),
        ("formula_k_q32", 3423921373),
        ("rows", 0),
    ]
    g = dict(programs.globals_for("highspeed", ["high_p=1.000001e-7"]))
    assert g["rows"] == 73 and (g["table_cwnd[1]"], g["table_md[1]"]) == (110, 113)
    assert "table_cwnd[72]" in g and "table_cwnd[73]" not in g
    # The formula mode: its constants for these parameters, no table.
    g = dict(programs.globals_for("highspeed", ["response=1", "high_p=1.000001e-7"]))
    assert (g["response"], g["rows"], g["formula_low_window"]) == (1, 0, 38)
    assert "table_cwnd[0]" not in g


def test_the_papers_parameters_become_their_programs_globals():
    g = dict(programs.globals_for("ctcp", ["gamma=20", "nwr=true", "k=0.8"]))
    # γ 20 → Q8 5120; k 0.8 → Q24 round(0.8·2^24) = 13421773; α stays 1/8 → Q16 8192.
    assert (g["gamma_init_q8"], g["nwr"], g["k_q24"], g["alpha_q16"]) == (5120, 1, 13421773, 8192)
    # ctcp-la is ctcp with [LA13]'s choices: every ACK sampled, the round's
    # minimum of more than 2 samples, the sent window, TUBE γ, paced increase.
    la = dict(programs.globals_for("ctcp-la", []))
    assert (la["sample_interval_us"], la["min_samples"], la["rtt_min_filter"], la["win_sent"]) == (
        0,
        2,
        1,
        1,
    )
    assert (la["gamma_tube"], la["pace_dwnd"], la["lowwnd"]) == (1, 1, 38)
    f = dict(programs.globals_for("fit", ["n_fixed=4", "alpha_auto=false", "alpha=0.25"]))
    assert (f["n_fixed"], f["n_init"], f["alpha_auto"], f["alpha_fixed_q16"]) == (1, 4, 0, 16384)
    assert dict(programs.globals_for("fit", []))["n_init"] == 1  # N adapts from 1
    y = dict(programs.globals_for("sync", ["t_win_ms=50", "beta_max=0.9"]))
    # 50 ms → 50 000 µs; round(0.9·65536) = 58982; 2 Mbit/s → 250 000 B/s.
    assert (y["t_win_us"], y["beta_max_q16"], y["t2s_bytes_s"]) == (50_000, 58982, 250_000)


@pytest.mark.parametrize(
    "name, params, message",
    [
        ("cubic", ["beta=2"], "cubic.beta = '2' is not allowed: a number from 0.5 to 0.95"),
        ("cubic", ["hystart=maybe"], "cubic.hystart = 'maybe' is not allowed: true or false"),
        ("cubic", ["hystart_detect=1.5"], "is not allowed: an integer from 1 to 3"),
        ("cubic", ["foo=1"], "cubic has no parameter 'foo' (its parameters: c, beta,"),
        ("cubic", ["beta"], "parameter 'beta' is not NAME=VALUE"),
        ("reno", ["beta=0.5"], "reno has no parameter 'beta' (its parameters: none)"),
    ],
)
def test_bad_parameters_are_named(name, params, message):
    with pytest.raises(KernelError) as e:
        programs.globals_for(name, params)
    assert message in str(e.value)


def test_unknown_or_missing_algorithms_are_refused_before_the_kernel():
    r = runner.invoke(app, ["kernel", "load", "bogus"])
    assert r.exit_code == 2 and 'algorithm "bogus" is not known' in r.output
    missing = next(
        (a.name for a in catalog.algorithms() if a.name not in programs.available()), None
    )
    if missing:
        r = runner.invoke(app, ["kernel", "load", missing])
        assert r.exit_code == 2 and f"{missing} has no eBPF program yet" in r.output
    r = runner.invoke(app, ["kernel", "load", "cubic", "beta=9"])
    assert r.exit_code == 2 and "cubic.beta = '9' is not allowed" in r.output
    r = runner.invoke(app, ["kernel", "unload"])
    assert r.exit_code == 2 and "give an algorithm or --all" in r.output


def test_list_without_bpftool_shows_the_pins_and_says_what_it_cannot(monkeypatch, tmp_path):
    """No bpftool (a wheel installed where the kernel toolchain is not): `hscc kernel list`
    lists the pinned programs without map ids and the programs of bpf/, and says why."""
    real_which = registry.shutil.which
    monkeypatch.setattr(
        registry.shutil, "which", lambda tool: None if tool == "bpftool" else real_which(tool)
    )
    (tmp_path / "pins").mkdir()
    (tmp_path / "pins" / "cubic").touch()
    available = tmp_path / "available"
    available.write_text("reno cubic hscc_cubic\n")
    monkeypatch.setattr(registry, "PIN_DIR", tmp_path / "pins")
    monkeypatch.setattr(registry, "AVAILABLE", available)
    with pytest.raises(KernelError, match="bpftool is not installed"):
        registry.struct_ops_maps()
    assert registry.registrations() == [
        registry.Registration("cubic", "hscc_cubic", None, True, True)
    ]
    r = runner.invoke(app, ["kernel", "list"], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    assert "hscc_cubic" in r.output and "bpftool is not installed" in r.output
    assert f"programs in bpf/: {', '.join(programs.available())}" in r.output


# --- in the kernel ------------------------------------------------------------

NO_KERNEL = toolchain.missing_for_smoke()
kernel = pytest.mark.skipif(NO_KERNEL is not None, reason=f"kernel tests skipped: {NO_KERNEL}")


def leftovers() -> list[str]:
    """hscc's struct_ops maps, pins (or their empty directory) and smoke namespaces still
    present."""
    out = [f"struct_ops {k}" for k in registry.struct_ops_maps()]
    if registry.PIN_DIR.is_dir():
        pins = list(registry.PIN_DIR.iterdir())
        out += [f"pin {p}" for p in pins] or [f"directory {registry.PIN_DIR}"]
    ns = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=False).stdout
    out += [
        f"namespace {line.split()[0]}" for line in ns.splitlines() if line.startswith("hscc-smoke-")
    ]
    return out


def wait_for_no_leftovers(before: frozenset[str] = frozenset(), seconds: float = 10.0) -> list[str]:
    """What is left beyond `before` once the kernel has had `seconds` to drop it."""
    deadline = time.monotonic() + seconds
    while (left := [x for x in leftovers() if x not in before]) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


@pytest.fixture
def clean_kernel():
    """A test removes what it loaded and nothing else: what hscc had loaded
    before it (a user's `hscc kernel load`, another suite) is left alone."""
    before = frozenset(leftovers()) if NO_KERNEL is None else frozenset()
    yield before
    if NO_KERNEL is None:
        for x in leftovers():
            if x.startswith("pin ") and x not in before:
                registry.unload(x.rsplit("/", 1)[-1])
        assert not wait_for_no_leftovers(before), f"left behind: {wait_for_no_leftovers(before)}"


def skip_if_loaded(before: frozenset[str], *algorithms: str) -> None:
    """A program that is already loaded is someone else's: do not test on it."""
    for a in algorithms:
        if any(x.endswith(f"/{a}") or x == f"struct_ops {programs.kernel_name(a)}" for x in before):
            pytest.skip(
                f"{programs.kernel_name(a)} is already loaded by someone else; unload it to run this test"
            )


@kernel
@pytest.mark.parametrize("algorithm", programs.available())
def test_smoke_flow_in_a_namespace(algorithm, clean_kernel):
    skip_if_loaded(clean_kernel, algorithm)
    r = smoke.run(algorithm, seconds=2.0)
    assert r.problems() == [], r
    # Slow start ended: ssthresh left its initial infinite value (docs/kernel.md: the untraced
    # 0x81104110 it is seen to read). A loss-based program overflows the token bucket's queue
    # and its ssthresh hook sets it; Vegas leaves slow start once one segment waits in the queue
    # (gamma) and may finish the flow without a loss.
    assert r.tcp_info["snd_ssthresh"] != 0x7FFFFFFF, r.tcp_info
    if algorithm != "vegas":
        assert r.tcp_info["total_retrans"] > 0, r.tcp_info
    assert not wait_for_no_leftovers(clean_kernel), leftovers()


SOCKETS = Path(__file__).with_name("kernel_sockets.bpf.c")


def namespace_sockets(pin: Path, ns: str) -> list[tuple[str, int, int, int]]:
    """The TCP sockets of namespace `ns` through the pinned iterator: (congestion control,
    state, pacing status, pacing rate)."""
    out = subprocess.run(
        ["nsenter", f"--net=/run/netns/{ns}", "cat", str(pin)],
        capture_output=True,
        text=True,
        timeout=10,
        check=True,
    ).stdout
    return [
        (cc, int(st), int(ps), int(rate))
        for cc, st, ps, rate, _ in map(str.split, out.splitlines())
    ]


@kernel
@pytest.mark.timeout(120)
def test_bbr_asks_for_the_stacks_internal_pacing_at_its_own_rate(clean_kernel):
    """hscc_bbr's init asks for Linux's internal pacing (SK_PACING_NEEDED, as bbr_init's cmpxchg)
    and its cong_control sets the pacing rate: both read from the sending socket halfway through a
    smoke flow (kernel_sockets.bpf.c, a BPF iterator). The reno sockets beside it (the receiver's,
    the namespace's default) are not paced."""
    skip_if_loaded(clean_kernel, "bbr")
    from hscc.testbed import build

    obj = build.kernel_object(SOCKETS, "sockets", "the socket iterator")
    pin = Path(f"/sys/fs/bpf/hscc-test-sockets-{os.getpid()}")
    subprocess.run(["bpftool", "iter", "pin", str(obj), str(pin)], check=True, timeout=30)
    try:
        r = smoke.run("bbr", seconds=2.0, watch=lambda ns: namespace_sockets(pin, ns))
    finally:
        pin.unlink()
    assert r.problems() == [], r
    established = 1
    senders = [x for x in r.watched if x[0] == "hscc_bbr" and x[1] == established]
    assert len(senders) == 1, r.watched
    _, _, status, rate = senders[0]
    assert status == 1, f"hscc_bbr's socket is not paced: sk_pacing_status {status}"
    # The token bucket's 100 Mbit/s is 12.5 MB/s; BBR paces at its bandwidth estimate times a
    # gain of 0.75 to 2.89 (STARTUP's), so well inside 4 to 50 MB/s.
    assert 4e6 < rate < 5e7, rate
    assert {x[2] for x in r.watched if x[0] == "reno"} == {0}, r.watched
    assert not wait_for_no_leftovers(clean_kernel), leftovers()


@kernel
def test_load_list_unload_with_parameters_in_the_kernels_rodata(clean_kernel):
    skip_if_loaded(clean_kernel, "cubic")
    r = runner.invoke(app, ["kernel", "load", "cubic", "beta=0.8", "hystart=true"])
    assert r.exit_code == 0, r.output
    assert "hscc_cubic" in registry.available_ccs()
    # The kernel's copy of the program's globals holds the converted values.
    maps = json.loads(
        subprocess.run(
            ["bpftool", "-j", "map", "show"], capture_output=True, text=True, check=True
        ).stdout
    )
    # Its .rodata.params map is the last one made before its struct_ops map.
    ops_id = registry.struct_ops_maps()["hscc_cubic"]
    rodata = [m["id"] for m in maps if m.get("name") == ".rodata.params" and m["id"] < ops_id]
    dump = subprocess.run(
        ["bpftool", "-j", "map", "dump", "id", str(max(rodata))],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    values = {
        k: v
        for d in json.loads(dump)[0]["formatted"]["value"][".rodata.params"]
        for k, v in d.items()
    }
    assert (values["beta"], values["hystart"]) == (819, True), values
    r = runner.invoke(app, ["kernel", "list"])
    assert r.exit_code == 0 and "hscc_cubic" in r.output and "pin" in r.output, r.output
    r = runner.invoke(app, ["kernel", "load", "cubic"])
    assert r.exit_code == 2 and "already loaded" in r.output
    r = runner.invoke(app, ["kernel", "unload", "cubic"])
    assert r.exit_code == 0 and "unloaded hscc_cubic" in r.output, r.output
    assert "hscc_cubic" not in registry.available_ccs()
    r = runner.invoke(app, ["kernel", "unload", "cubic"])
    assert r.exit_code == 2 and "not loaded" in r.output


def fit_pool() -> dict[str, int]:
    """TCP-FIT's shared α pool as the kernel holds it (the program's .bss)."""
    maps = json.loads(
        subprocess.run(
            ["bpftool", "-j", "map", "show"], capture_output=True, text=True, check=True
        ).stdout
    )
    ops_id = registry.struct_ops_maps()["hscc_fit"]
    bss = max(m["id"] for m in maps if m.get("name") == "fit.bss" and m["id"] < ops_id)
    dump = subprocess.run(
        ["bpftool", "-j", "map", "dump", "id", str(bss)], capture_output=True, text=True, check=True
    ).stdout
    return json.loads(dump)[0]["formatted"]["value"][".bss"][0]["pool"]


@kernel
def test_fit_shares_alpha_in_the_programs_globals():
    # Loads and unloads only hscc_fit, so it can run beside other kernel work.
    if "hscc_fit" in registry.available_ccs():
        pytest.skip("hscc_fit is registered already")
    registry.load("fit")
    try:
        assert fit_pool() == {"sum_q16": 0, "sessions": 0}
        results: list[smoke.SmokeResult] = []
        flow = threading.Thread(target=lambda: results.append(smoke.run("fit", seconds=3.0)))
        flow.start()
        pools = []
        deadline = time.monotonic() + 60
        while flow.is_alive() and time.monotonic() < deadline:
            pools.append(fit_pool())
            time.sleep(0.1)
        flow.join(timeout=60)
        assert results and results[0].problems() == [], results
        # The flow's socket joined once a loss ended its first loss-free
        # period (the token bucket's queue overflows), with an α in (0, 1).
        assert any(p["sessions"] == 1 and 0 < p["sum_q16"] < 65536 for p in pools), pools
        assert max(p["sessions"] for p in pools) == 1, pools
        # It left when it closed (release): the pool is empty again.
        left = time.monotonic() + 10
        while fit_pool() != {"sum_q16": 0, "sessions": 0} and time.monotonic() < left:
            time.sleep(0.1)
        assert fit_pool() == {"sum_q16": 0, "sessions": 0}
    finally:
        registry.unload("fit")


@kernel
def test_the_namespace_default_is_never_an_hscc_program(clean_kernel):
    skip_if_loaded(clean_kernel, "reno")
    before = open("/proc/sys/net/ipv4/tcp_congestion_control").read().strip()
    r = smoke.run("reno", seconds=1.0)
    assert r.problems() == []
    assert open("/proc/sys/net/ipv4/tcp_congestion_control").read().strip() == before


@kernel
def test_ctrl_c_during_a_smoke_run_leaves_nothing(clean_kernel):
    skip_if_loaded(clean_kernel, "cubic")
    p = subprocess.Popen(
        [sys.executable, "-m", "hscc", "kernel", "smoke", "cubic", "--seconds", "20"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    # Wait until the flow runs (the namespace exists), then interrupt.
    while (
        not any(x.startswith("namespace") and x not in clean_kernel for x in leftovers())
        and time.monotonic() < deadline
        and p.poll() is None
    ):
        time.sleep(0.1)
    time.sleep(0.5)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    assert not wait_for_no_leftovers(clean_kernel), leftovers()


@kernel
def test_a_users_program_file_loads_with_its_parameters_and_unloads(
    clean_kernel, tmp_path, monkeypatch
):
    """The template `hscc new-algorithm` writes, and Linux's own selftests bpf_cubic.c as
    published, registered from their files under the names in their ops."""
    monkeypatch.setenv("HSCC_CACHE_DIR", str(tmp_path / "cache"))
    r = runner.invoke(app, ["new-algorithm", "hscctmpl", "--dir", str(tmp_path)])
    assert r.exit_code == 0, r.output
    program = str(tmp_path / "hscctmpl.bpf.c")
    r = runner.invoke(app, ["kernel", "load", program, "increasse=2"])
    assert r.exit_code == 2 and "no parameter 'increasse'" in r.output, r.output
    r = runner.invoke(app, ["kernel", "load", program, "increase=70000000000"])
    assert r.exit_code == 2 and "4-byte global" in r.output, r.output
    r = runner.invoke(app, ["kernel", "load", program, "increase=3"])
    assert r.exit_code == 0 and "as hscctmpl" in r.output, r.output
    assert "hscctmpl" in registry.available_ccs()
    # The kernel's copy of the program's .rodata holds the value given, the other its default.
    ops_id = registry.struct_ops_maps("hscctmpl")["hscctmpl"]
    maps = json.loads(
        subprocess.run(
            ["bpftool", "-j", "map", "show"], capture_output=True, text=True, check=True
        ).stdout
    )
    rodata = max(
        m["id"] for m in maps if str(m.get("name", "")).endswith(".rodata") and m["id"] < ops_id
    )
    dump = subprocess.run(
        ["bpftool", "-j", "map", "dump", "id", str(rodata)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    values = {
        k: v for d in json.loads(dump)[0]["formatted"]["value"][".rodata"] for k, v in d.items()
    }
    assert (values["increase"], values["beta"]) == (3, 512), values
    r = runner.invoke(app, ["kernel", "list"])
    assert r.exit_code == 0 and "hscctmpl" in r.output, r.output
    r = runner.invoke(app, ["kernel", "unload", program])
    assert r.exit_code == 0 and "unloaded hscctmpl" in r.output, r.output
    assert "hscctmpl" not in registry.available_ccs()
    cubic = subprocess.run(
        ["bash", str(Path(__file__).resolve().parents[2] / "scripts/linux-selftests.sh")],
        capture_output=True,
        text=True,
        timeout=100,
    )
    if cubic.returncode != 0:
        pytest.skip(f"Linux's BPF selftests are not here: {cubic.stderr.strip()}")
    r = runner.invoke(app, ["kernel", "load", str(Path(cubic.stdout.strip()) / "bpf_cubic.c")])
    assert r.exit_code == 0 and "as bpf_cubic" in r.output, r.output
    # Its struct_ops map is named after its variable (`cubic`), not its ops' name: found still.
    ops_id = registry.ops_maps()["bpf_cubic"]
    assert f"(struct_ops map {ops_id})" in r.output, r.output
    [reg] = [x for x in registry.registrations() if x.kernel_name == "bpf_cubic"]
    assert reg.map_id == ops_id and reg.pinned, reg
    r = runner.invoke(app, ["kernel", "unload", "bpf_cubic"])
    assert r.exit_code == 0, r.output


@kernel
@pytest.mark.timeout(120)
def test_an_edited_header_beside_a_program_builds_it_anew_for_the_kernel(
    clean_kernel, tmp_path, monkeypatch
):
    """The kernel's build of a program file is keyed, as the simulator's is, by the headers
    it includes from beside it: after an edit to one, the kernel runs the edited code."""
    monkeypatch.setenv("HSCC_CACHE_DIR", str(tmp_path / "cache"))
    r = runner.invoke(app, ["new-algorithm", "hscchdr", "--dir", str(tmp_path)])
    assert r.exit_code == 0, r.output
    program = tmp_path / "hscchdr.bpf.c"
    text = program.read_text()
    old = "const volatile __u32 increase = 1;"
    assert old in text, "the template changed"
    program.write_text(
        '#include "hscchdr_knob.h"\n' + text.replace(old, "const volatile __u32 increase = KNOB;")
    )
    if "hscchdr" in registry.available_ccs():
        pytest.skip("hscchdr is registered already")
    header = tmp_path / "hscchdr_knob.h"
    for knob in (1, 7):
        header.write_text(f"#define KNOB {knob}\n")
        r = runner.invoke(app, ["kernel", "load", str(program)])
        assert r.exit_code == 0 and "as hscchdr" in r.output, r.output
        assert kernel_globals("hscchdr", ".rodata")["increase"] == knob
        r = runner.invoke(app, ["kernel", "unload", str(program)])
        assert r.exit_code == 0, r.output


def with_data_globals(text: str, name: str) -> str:
    """The template program `name` with two more parameters, as the simulator takes them: a
    plain initialized global `gain` (section .data, not `const volatile`) that multiplies
    `increase`, and `tag`, a 4-byte `const volatile` array (.rodata) it never reads."""
    out = text.replace(
        "const volatile __u32 beta = 512;",
        'const volatile __u32 beta = 512;\n__u32 gain = 1;\nconst volatile char tag[4] = "abc";',
    ).replace(
        "w = tp->snd_cwnd / (increase ? increase : 1);",
        "w = tp->snd_cwnd / (increase * gain ? increase * gain : 1);",
    )
    assert out.count("gain") == 3, f"{name}: the template changed"
    return out


def kernel_globals(kname: str, section: str) -> dict[str, object]:
    """The values of a registered program's globals in `section` (.data or .rodata), as
    the kernel holds them: its map of that name made last before its struct_ops map."""
    ops_id = registry.struct_ops_maps(kname)[kname]
    maps = json.loads(
        subprocess.run(
            ["bpftool", "-j", "map", "show"], capture_output=True, text=True, check=True, timeout=30
        ).stdout
    )
    found = max(
        m["id"] for m in maps if str(m.get("name", "")).endswith(section) and m["id"] < ops_id
    )
    dump = subprocess.run(
        ["bpftool", "-j", "map", "dump", "id", str(found)],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    ).stdout
    return {k: v for d in json.loads(dump)[0]["formatted"]["value"][section] for k, v in d.items()}


@kernel
@pytest.mark.timeout(120)
def test_a_programs_plain_initialized_global_is_set_in_the_kernel_as_in_the_simulator(
    clean_kernel, tmp_path, monkeypatch
):
    """The simulator takes every initialized global as a parameter (.rodata and .data, and
    an array of 4 bytes as one number); the kernel sets the same ones in the maps of their
    sections before the verifier runs."""
    monkeypatch.setenv("HSCC_CACHE_DIR", str(tmp_path / "cache"))
    r = runner.invoke(app, ["new-algorithm", "hsccdata", "--dir", str(tmp_path)])
    assert r.exit_code == 0, r.output
    program = tmp_path / "hsccdata.bpf.c"
    program.write_text(with_data_globals(program.read_text(), "hsccdata"))
    if "hsccdata" in registry.available_ccs():
        pytest.skip("hsccdata is registered already")
    r = runner.invoke(app, ["kernel", "load", str(program), "gain=8", f"tag={0x646362}"])
    assert r.exit_code == 0 and "as hsccdata" in r.output, r.output
    assert kernel_globals("hsccdata", ".data") == {"gain": 8}
    assert kernel_globals("hsccdata", ".rodata") == {"increase": 1, "beta": 512, "tag": "bcd"}
    r = runner.invoke(app, ["kernel", "unload", str(program)])
    assert r.exit_code == 0 and "unloaded hsccdata" in r.output, r.output
    assert "hsccdata" not in registry.available_ccs()


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc) to build programs with")
@pytest.mark.timeout(60)
def test_a_programs_plain_initialized_global_is_a_parameter_in_the_simulator(tmp_path, monkeypatch):
    """The simulator's half of the test above: the same globals, with their defaults (`tag`
    is "abc" read little-endian), and `gain` changes the run as `increase` does."""
    import hscc
    from hscc.kernel import user

    monkeypatch.setenv("HSCC_CACHE_DIR", str(tmp_path / "cache"))
    r = runner.invoke(app, ["new-algorithm", "hsccdata", "--dir", str(tmp_path)])
    assert r.exit_code == 0, r.output
    program = tmp_path / "hsccdata.bpf.c"
    program.write_text(with_data_globals(program.read_text(), "hsccdata"))
    assert user.info(program).params == {
        "beta": (4, 512),
        "gain": (4, 1),
        "increase": (4, 1),
        "tag": (4, 0x636261),
    }
    scenario = tmp_path / "hsccdata.toml"
    text = scenario.read_text().replace('duration = "10s"', 'duration = "5s"')

    def share(params: str) -> float:
        path = tmp_path / "s.toml"
        path.write_text(text.replace('"hsccdata.bpf.c"', f'"hsccdata.bpf.c"\n{params}'))
        flows = dict(hscc.run(path).flows.select("label", "goodput_bps").iter_rows())
        return flows["hsccdata 0"] / (flows["hsccdata 0"] + flows["reno 1"])

    # +8 segments per round trip against Reno's +1 takes more of the link, set either way.
    base, gained = share(""), share("params.gain = 8")
    assert gained > base + 0.1, (base, gained)
    assert gained == share("params.increase = 8")
