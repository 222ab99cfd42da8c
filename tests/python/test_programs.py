"""A user's congestion-control program (a `.bpf.c` file) run by the simulator: the template
`hscc new-algorithm` writes, a program's faults as errors naming file and line, and the
kernel's own BPF CUBIC and DCTCP (Linux's selftests, unchanged) against hscc's built-in
cubic and dctcp."""

from __future__ import annotations

import io
import itertools
import json
import resource
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import hscc
from conftest import in_ssthresh, new_algorithm
from hscc.cli import app
from hscc.errors import ProgramError

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    shutil.which("cc") is None, reason="no C compiler (cc) to build programs with"
)


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("HSCC_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))


def goodputs(res: hscc.Result) -> dict[str, float]:
    return dict(res.flows.select("label", "goodput_bps").iter_rows())


def test_the_template_runs_against_reno_from_its_scenario(tmp_path):
    scenario = new_algorithm(tmp_path / "work")
    out = tmp_path / "run"
    # From another directory: the program is found relative to the scenario file.
    r = runner.invoke(app, ["run", str(scenario), "--out", str(out), "-q"])
    assert r.exit_code == 0, r.output
    res = hscc.load(out)
    flows = goodputs(res)
    assert set(flows) == {"mycc 0", "reno 1"}
    # As written the template is Reno (beta 512/1024, +1 per RTT): the two share the link.
    a, b = flows["mycc 0"], flows["reno 1"]
    assert a + b > 0.9 * 100e6
    assert 0.5 < a / b < 2.0, (a, b)
    # The run records the file it ran, as an absolute path.
    recorded = res.manifest["scenario"]["flows"][0]["algorithm"]
    assert recorded == str((tmp_path / "work" / "mycc.bpf.c").absolute())


def test_a_parameter_is_a_global_of_the_program(tmp_path):
    scenario = new_algorithm(tmp_path)
    text = scenario.read_text()
    base = hscc.run(scenario)
    aggressive = tmp_path / "aggressive.toml"
    aggressive.write_text(
        text.replace('algorithm = "mycc.bpf.c"', 'algorithm = "mycc.bpf.c"\nparams.increase = 8')
    )
    more = hscc.run(aggressive)

    def share(res):
        f = goodputs(res)
        return f["mycc 0"] / (f["mycc 0"] + f["reno 1"])

    # +8 segments per RTT against Reno's +1 takes more of the link.
    assert share(more) > share(base) + 0.1, (share(base), share(more))
    # Same scenario and seed: the same run, byte for byte in its table.
    again = hscc.run(aggressive)
    assert again.flows.equals(more.flows)
    bad = tmp_path / "bad.toml"
    bad.write_text(
        text.replace('algorithm = "mycc.bpf.c"', 'algorithm = "mycc.bpf.c"\nparams.incrase = 8')
    )
    r = runner.invoke(app, ["check", str(bad)])
    assert r.exit_code == 2 and "incrase" in r.output and "increase" in r.output, r.output


def test_a_global_named_as_a_c_library_function_is_the_programs_own(tmp_path):
    """The template's `increase` renamed `gamma`, the C library's name of a function: the
    program reads its own global, the value the scenario sets (linked -Bsymbolic; without,
    its loads went to the function's bytes and every value of the parameter gave one run)."""
    scenario = new_algorithm(tmp_path)
    program = tmp_path / "mycc.bpf.c"
    program.write_text(program.read_text().replace("increase", "gamma"))
    text = scenario.read_text()

    def share(value: int) -> float:
        path = tmp_path / f"gamma{value}.toml"
        path.write_text(
            text.replace(
                'algorithm = "mycc.bpf.c"', f'algorithm = "mycc.bpf.c"\nparams.gamma = {value}'
            )
        )
        f = goodputs(hscc.run(path))
        return f["mycc 0"] / (f["mycc 0"] + f["reno 1"])

    # gamma = 1 is Reno against Reno; +8 segments per RTT takes more of the link.
    assert abs(share(1) - 0.5) < 0.1 and share(8) > share(1) + 0.1, (share(1), share(8))


@pytest.mark.timeout(60)
def test_a_value_for_a_global_is_taken_alike_by_the_simulator_and_the_kernels_loader(tmp_path):
    """What the simulator takes for a program's global (`params`), `hscc kernel load` and the
    testbed take as the same whole number (true as 1), and what it refuses they refuse (no
    kernel needed: the loader's parameters are checked before it)."""
    from hscc.kernel import user
    from hscc.kernel.programs import KernelError

    scenario = tomllib.loads(new_algorithm(tmp_path).read_text())
    scenario["duration"] = "100ms"
    scenario["flows"][0]["algorithm"] = str(tmp_path / "mycc.bpf.c")
    prog = user.info(tmp_path / "mycc.bpf.c")
    for value in (2, 2.0, True, False, -1, 4294967295, 2.5, 4294967296, -2147483649):
        scenario["flows"][0]["params"] = {"increase": value}
        # As the testbed writes a flow's params for the loader (testbed/plan.py).
        text = str(value).lower() if isinstance(value, bool) else str(value)
        try:
            hscc.run(scenario)
        except hscc.ScenarioError:
            with pytest.raises(KernelError, match="a whole number in"):
                user.globals_for(prog, [f"increase={text}"])
        else:
            assert user.globals_for(prog, [f"increase={text}"]) == [("increase", int(value))]


@pytest.mark.timeout(60)
def test_a_run_records_the_digest_of_its_programs_code_and_compare_checks_it(tmp_path):
    """The manifest names each program file with the SHA-256 of its code (the file and the
    headers it includes from beside it): the same in a copy of both elsewhere, another after
    an edit to the header; `hscc compare` says whether its two runs ran the same code."""
    scenario = new_algorithm(tmp_path / "a")
    program = tmp_path / "a" / "mycc.bpf.c"
    text = program.read_text().replace(
        '#include "bpf_tracing_net.h"', '#include "bpf_tracing_net.h"\n#include "knob.h"'
    )
    program.write_text(text.replace("increase = 1;", "increase = KNOB;"))
    (tmp_path / "a" / "knob.h").write_text("#define KNOB 1\n")
    scenario.write_text(scenario.read_text().replace('duration = "10s"', 'duration = "1s"'))
    shutil.copytree(tmp_path / "a", tmp_path / "b")

    def ran(directory: str, out: str) -> str:
        r = runner.invoke(app, ["run", str(tmp_path / directory / "mycc.toml"), "-o", out, "-q"])
        assert r.exit_code == 0, r.output
        [(path, digest)] = hscc.load(out).manifest["programs"].items()
        assert path == str(tmp_path / directory / "mycc.bpf.c")
        return digest

    first = ran("a", str(tmp_path / "run-a"))
    assert ran("b", str(tmp_path / "run-b")) == first  # the same code, elsewhere
    (tmp_path / "a" / "knob.h").write_text("#define KNOB 4\n")
    assert ran("a", str(tmp_path / "run-a4")) != first
    assert "programs" not in hscc.run(python_scenario("reno")).manifest

    r = runner.invoke(app, ["compare", str(tmp_path / "run-a"), str(tmp_path / "run-b")])
    assert r.exit_code == 0 and f"mycc.bpf.c: the same code in both runs (sha256 {first[:16]})" in (
        r.output
    ), r.output
    r = runner.invoke(app, ["compare", str(tmp_path / "run-a"), str(tmp_path / "run-a4"), "--json"])
    assert json.loads(r.output)["programs"] == [
        {
            "program": str(program),
            "a": first,
            "b": hscc.load(tmp_path / "run-a4").manifest["programs"][str(program)],
            "same": False,
        }
    ]


def test_a_division_by_zero_gives_the_kernels_result(tmp_path):
    """BPF defines x / 0 = 0: a program that divides by a zero it reads at run time (rcv_nxt,
    0 on the simulator's sender) runs on, as in the kernel, exactly as the program with that
    0 written out."""
    template = new_algorithm(tmp_path / "template")
    text = (tmp_path / "template" / "mycc.bpf.c").read_text()
    line = "\tw = tp->snd_cwnd / (increase ? increase : 1);"
    assert line in text
    divides = new_algorithm(tmp_path / "divides")
    (tmp_path / "divides" / "mycc.bpf.c").write_text(
        text.replace(line, "\tw = tp->snd_cwnd / (tp->snd_cwnd > 30 ? tp->rcv_nxt : 1);")
    )
    written = new_algorithm(tmp_path / "written")
    (tmp_path / "written" / "mycc.bpf.c").write_text(
        text.replace(line, "\tw = tp->snd_cwnd > 30 ? 0 : tp->snd_cwnd;")
    )
    by_zero = goodputs(hscc.run(divides))
    assert by_zero == goodputs(hscc.run(written))
    assert by_zero != goodputs(hscc.run(template)), "the window passes 30: the 0 matters"


@pytest.mark.timeout(60)
def test_a_program_flows_hook_log_and_capture(tmp_path):
    """`[output] cc_log` and `pcap` name a program's flow by its label as any flow's: its hook
    calls are logged, and its packets captured as many as it sent."""
    import dpkt

    scenario = new_algorithm(tmp_path)
    text = scenario.read_text().replace('duration = "10s"', 'duration = "2s"')
    text = text.replace(
        'traces = ["flows", "queues"]',
        'traces = ["flows", "queues"]\npcap = { flows = ["mycc 0"] }\ncc_log = { flows = ["mycc 0"] }',
    )
    assert text.count("mycc 0") == 2
    scenario.write_text(text)
    res = hscc.run(scenario)
    assert res.cc_log.height > 1000 and set(res.cc_log["label"]) == {"mycc 0"}
    assert "cong_avoid" in set(res.cc_log["hook"])
    [(name, data)] = res.captures.items()
    assert name == "flow-0-mycc_0.pcap"
    sent = res.flows.filter(pl.col("label") == "mycc 0")["segs_sent"][0]
    data_packets = sum(
        1
        for _, buf in dpkt.pcap.Reader(io.BytesIO(data))
        if len(dpkt.ip.IP(buf).data.data) > 0  # data segments, not the ACKs coming back
    )
    assert data_packets == sent, (data_packets, sent)


@pytest.mark.timeout(60)
def test_a_program_with_cong_control_gets_the_rate_sample_and_no_cong_avoid(tmp_path):
    """A cong_control that holds the window at 20 segments: as Linux's tcp_cong_control, it
    runs on every ACK in place of cong_avoid, and its rate sample (`rs`) is the engine's: with
    the window fixed, each sample spans one round trip and delivers one window, so the flow
    gets 20 segments per RTT."""
    scenario = new_algorithm(tmp_path, "fixed")
    program = tmp_path / "fixed.bpf.c"
    text = program.read_text()
    ops = 'SEC(".struct_ops")\nstruct tcp_congestion_ops fixed = {'
    assert text.count(ops) == 1
    program.write_text(
        text.replace(
            ops,
            'SEC("struct_ops")\nvoid BPF_PROG(fixed_cong_control, struct sock *sk, __u32 ack, '
            "int flag,\n\t      const struct rate_sample *rs)\n{\n\ttcp_sk(sk)->snd_cwnd = 20;\n}\n\n"
            + ops
            + "\n\t.cong_control = (void *)fixed_cong_control,",
        )
    )
    text = scenario.read_text().replace(
        'traces = ["flows", "queues"]',
        'traces = ["flows", "queues"]\ncc_log = { flows = ["fixed 0"] }',
    )
    scenario.write_text(text[: text.index("[[flows]]", text.index('"fixed.bpf.c"'))])  # alone
    res = hscc.run(scenario)
    hooks = dict(res.cc_log.group_by("hook").len().iter_rows())
    assert "cong_avoid" not in hooks and hooks["cong_control"] == hooks["in_ack_event"] > 2000
    rs = res.cc_log.filter(pl.col("hook") == "cong_control")
    flow = res.flows.row(0, named=True)
    assert rs["rs_delivered"].median() == 20
    assert abs(rs["rs_interval_us"].median() / 1e6 - flow["min_rtt_s"]) < 0.01 * flow["min_rtt_s"]
    assert flow["final_cwnd"] == 20
    expected = 20 * 1448 * 8 / flow["min_rtt_s"]  # bit/s: one window per round trip
    assert abs(flow["goodput_bps"] - expected) < 0.01 * expected, (flow["goodput_bps"], expected)


BAD_WINDOWS = {
    # hook: (the template's line, what the hook does instead, the error)
    "ssthresh": (
        "return kept > 2 ? kept : 2;",
        "return 0;",
        "ssthresh returned 0: a window is at least 1 segment",
    ),
    "cong_avoid": (
        "\ttcp_cong_avoid_ai(tp, w ? w : 1, acked);",
        "\ttcp_cong_avoid_ai(tp, w ? w : 1, acked);\n"
        "\tif (tp->snd_cwnd > 20)\n\t\ttp->snd_cwnd = tp->snd_cwnd_clamp + 1;",
        # The clamp is the receiver's window in segments: 16 000 000 // 1448 = 11049.
        "cong_avoid set snd_cwnd to 11050, beyond snd_cwnd_clamp 11049",
    ),
}


# What a program writes past, and how the error begins and goes on: one byte past its only
# zero-initialised global (the last of its writable data, 32 bytes and 32-aligned, so it ends
# at the guard page), and 12 bytes past a local array of 16 (over gcc's 8 bytes of padding
# into the stack protector's canary), each through a pointer the bounds sanitizer cannot check.
OVERRUNS = {
    "global": (
        "__u64 hist[4];\n",
        "\tvolatile __u8 *h = (volatile __u8 *)hist;\n\th[31 + (tp->snd_cwnd != 0)] = 1;\n",
        "read or wrote past the end of the program's globals",
    ),
    "stack": (
        "",
        "\t__u8 buf[16];\n\tvolatile __u8 *b = buf;\n"
        "\tfor (__u32 i = 0; i < 16 + 12 * (tp->snd_cwnd != 0); i++)\n\t\tb[i] = (__u8)i;\n",
        "(mycc_ssthresh): wrote past the end of a local array",
    ),
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("past", sorted(OVERRUNS))
def test_a_write_past_the_globals_or_a_local_array_stops_hscc_run_in_process(past, tmp_path):
    """The kernel's verifier refuses both; in the simulator each faults inside the hook and
    `hscc.run` in this process (`isolate=False`) raises an error naming the file, the line (for the stack
    protector, the function) and the hook; the process goes on to run the template."""
    scenario = new_algorithm(tmp_path)
    program = tmp_path / "mycc.bpf.c"
    declare, code, error = OVERRUNS[past]
    params = "const volatile __u32 beta = 512;"
    text = in_ssthresh(program, code)
    program.write_text(program.read_text().replace(params, declare + params, 1))
    with pytest.raises(ProgramError) as e:
        hscc.run(scenario, isolate=False)
    message = str(e.value)
    lines = program.read_text().splitlines()
    if past == "global":
        place = f"{program}:{1 + lines.index(code.splitlines()[1])} "
    else:
        place = f"{program}:"
    assert message.startswith(place) and error in message, message
    assert message.endswith("in ssthresh"), message
    program.write_text(text)
    assert set(goodputs(hscc.run(scenario, isolate=False))) == {"mycc 0", "reno 1"}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("hook", sorted(BAD_WINDOWS))
def test_a_hook_that_leaves_no_window_or_one_past_the_clamp_is_named(hook, tmp_path):
    scenario = new_algorithm(tmp_path)
    line, instead, error = BAD_WINDOWS[hook]
    program = tmp_path / "mycc.bpf.c"
    text = program.read_text()
    assert text.count(line) == 1
    program.write_text(text.replace(line, instead))
    # A receiver's window of 16 MB: a window past the clamp stays one a run can hold.
    scenario.write_text(
        scenario.read_text().replace('"mycc.bpf.c"', '"mycc.bpf.c"\nrwnd = "16MB"', 1)
    )
    with pytest.raises(ProgramError) as e:
        hscc.run(scenario)
    assert str(e.value) == f"{program}: {error}"


@pytest.mark.timeout(120)
def test_a_window_held_at_the_clamp_without_rwnd_stays_within_tcps_largest_window(tmp_path):
    # No rwnd: the clamp is TCP's largest window, 65535 x 2^14 bytes = 741523 segments of 1448
    # bytes, so the sender's memory is bounded (it once grew without bound toward 2^31 segments).
    scenario = new_algorithm(tmp_path)
    program = tmp_path / "mycc.bpf.c"
    line = "\ttcp_cong_avoid_ai(tp, w ? w : 1, acked);"
    program.write_text(
        program.read_text().replace(line, line + "\n\ttp->snd_cwnd = tp->snd_cwnd_clamp;")
    )
    out = tmp_path / "run"
    limit = 3 << 30  # bytes of address space: a sender without the bound aborts under it
    r = subprocess.run(
        [sys.executable, "-m", "hscc", "run", str(scenario), "--out", str(out), "-q"],
        capture_output=True,
        text=True,
        timeout=100,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit)),
    )
    assert r.returncode == 0, r.stderr[-2000:]
    flows = hscc.load(out).flows
    sent = flows.filter(pl.col("label") == "mycc 0")["segs_sent"].item()
    # It did send bursts far beyond the path's 700-segment pipe, yet no more than one clamp per RTO.
    assert 741_523 < sent < 20 * 741_523, sent


def test_a_program_that_does_not_build_is_a_scenario_error(tmp_path):
    scenario = new_algorithm(tmp_path)
    program = tmp_path / "mycc.bpf.c"
    program.write_text(program.read_text().replace("return kept > 2 ? kept : 2;", "return kept >"))
    r = runner.invoke(app, ["check", str(scenario)])
    assert r.exit_code == 2, r.output
    assert "flows[0].algorithm" in r.output and "mycc.bpf.c:" in r.output, r.output
    missing = tmp_path / "missing.toml"
    missing.write_text(scenario.read_text().replace("mycc.bpf.c", "nowhere.bpf.c"))
    r = runner.invoke(app, ["check", str(missing)])
    assert r.exit_code == 2 and "cannot read" in r.output, r.output


def test_new_algorithm_refuses_a_name_the_kernel_cannot_take(tmp_path):
    r = runner.invoke(app, ["new-algorithm", "a-very-long-name-x", "--dir", str(tmp_path)])
    assert r.exit_code == 2 and "C identifier" in r.output
    new_algorithm(tmp_path, "ok")
    r = runner.invoke(app, ["new-algorithm", "ok", "--dir", str(tmp_path)])
    assert r.exit_code == 2 and "exists" in r.output


def linux_selftests() -> Path:
    r = subprocess.run(
        ["bash", str(ROOT / "scripts/linux-selftests.sh")],
        capture_output=True,
        text=True,
        timeout=100,
    )
    if r.returncode != 0:
        pytest.skip(f"Linux's BPF selftests are not here: {r.stderr.strip()}")
    return Path(r.stdout.strip())


CUBIC_CASES = {
    # name: (rate, RTT, loss, duration)
    "100M-40ms": ("100Mbps", "40ms", 0.0, "30s"),
    "10M-lossy": ("10Mbps", "100ms", 0.01, "60s"),
}


@pytest.mark.parametrize("case", sorted(CUBIC_CASES))
def test_linux_bpf_cubic_unchanged_runs_as_the_builtin_cubic(case, tmp_path):
    """Linux's tools/testing/selftests/bpf/progs/bpf_cubic.c, as published, against hscc's
    cubic with HyStart (Linux's settings): the same goodput, to the byte, on a clean
    100 Mbit/s path and a 10 Mbit/s path with 1 % loss. (The two can differ elsewhere: the BPF
    version counts the cubic's time in µs rather than jiffies and restarts HyStart's round
    elsewhere, as the test on the CTCP test bed below shows, adds the TSO cushion to its
    ACK-train threshold when paced, and restarts after idle from the last send where hscc's
    cubic uses the last ACK.)"""
    src = linux_selftests() / "bpf_cubic.c"
    rate, rtt, loss, duration = CUBIC_CASES[case]

    def scenario(algorithm: str, params: dict) -> dict:
        return {
            "name": f"cubic-{case}",
            "duration": duration,
            "seed": 3,
            "topology": {
                "kind": "dumbbell",
                "bottleneck": {"rate": rate, "delay": "5ms", "buffer": "1bdp", "loss": loss},
                "pairs": [{"rate": "1Gbps", "rtt": rtt}],
            },
            "flows": [{"pair": 0, "algorithm": algorithm, "params": params}],
        }

    bpf = hscc.run(scenario(str(src), {}))
    builtin = hscc.run(scenario("cubic", {"hystart": True}))
    a, b = goodputs(bpf), goodputs(builtin)
    assert list(a) == ["bpf_cubic 0"]
    assert a["bpf_cubic 0"] == b["cubic 0"], (a, b)


# What bpf_cubic.c (Linux 6.12's selftests) does otherwise than tcp_cubic.c, which hscc's
# cubic follows, where a run shows it: (published text, tcp_cubic.c's way) for each.
BPF_CUBIC_DEPARTURES = [
    # The cubic's time t: delay_min added in µs, where tcp_cubic.c rounds it up to jiffies
    # (usecs_to_jiffies; 100.042 ms is 101 jiffies).
    (
        "\tt = (__s32)(tcp_jiffies32 - ca->epoch_start) * USEC_PER_JIFFY;\n"
        "\tt += ca->delay_min;\n"
        "\t/* change the unit from usec to bictcp_HZ */\n"
        "\tt <<= BICTCP_HZ;\n"
        "\tt /= USEC_PER_SEC;",
        "\tt = (__s32)(tcp_jiffies32 - ca->epoch_start);\n"
        "\tt += (ca->delay_min + USEC_PER_JIFFY - 1) / USEC_PER_JIFFY;\n"
        "\tt <<= BICTCP_HZ;\n"
        "\tt /= HZ;",
    ),
    # HyStart's round: restarted in cong_avoid when `ack` passes end_seq (so after
    # pkts_acked has looked for the exit on that ACK, and only while cwnd-limited), where
    # tcp_cubic.c restarts it in hystart_update when snd_una does, before looking, and at
    # any window.
    ("\t\tif (hystart && after(ack, ca->end_seq))\n\t\t\tbictcp_hystart_reset(sk);\n", ""),
    (
        "\t__u32 threshold;\n\n\tif (hystart_detect & HYSTART_ACK_TRAIN) {",
        "\t__u32 threshold;\n\n\tif (after(tp->snd_una, ca->end_seq))\n"
        "\t\tbictcp_hystart_reset(sk);\n\tif (tp->snd_cwnd < hystart_low_window)\n"
        "\t\treturn;\n\n\tif (hystart_detect & HYSTART_ACK_TRAIN) {",
    ),
    (
        "\tif (!ca->found && tcp_in_slow_start(tp) && hystart &&\n"
        "\t    tp->snd_cwnd >= hystart_low_window)\n",
        "\tif (!ca->found && tcp_in_slow_start(tp) && hystart)\n",
    ),
]


@pytest.mark.timeout(120)
def test_linux_bpf_cubic_on_the_ctcp_testbed_differs_by_two_known_departures_only(tmp_path):
    """The CTCP test bed's shape (700 Mbit/s, RTT 100 ms, 1500-packet buffer) with 8 flows:
    bpf_cubic.c as published and hscc's cubic (HyStart on) part after a few seconds (the
    total stays within a fraction of a percent; the flows' shares do not), and with its two
    departures from tcp_cubic.c undone (BPF_CUBIC_DEPARTURES) it gives the built-in's run to
    the byte, so those two are the whole difference."""
    published = (linux_selftests() / "bpf_cubic.c").read_text()
    undone = published
    for text, kernel in BPF_CUBIC_DEPARTURES:
        assert undone.count(text) == 1, f"bpf_cubic.c changed: {text!r}"
        undone = undone.replace(text, kernel)
    (tmp_path / "bpf_cubic.c").write_text(undone)
    base = tomllib.loads((ROOT / "examples/ctcp-testbed.toml").read_text())

    def goodput(algorithm: str, params: dict) -> list[float]:
        sc = {**base, "duration": "20s", "name": "cubic-testbed"}
        sc["flows"] = [{"pair": 0, "algorithm": algorithm, "params": params, "count": 8}]
        return hscc.run(sc).flows["goodput_bps"].to_list()

    builtin = goodput("cubic", {"hystart": True})
    assert goodput(str(tmp_path / "bpf_cubic.c"), {}) == builtin
    as_published = goodput(str(linux_selftests() / "bpf_cubic.c"), {})
    assert as_published != builtin
    assert abs(sum(as_published) - sum(builtin)) < 0.01 * sum(builtin)


DCTCP_CASES = {
    # name: (buffer, random loss): examples/dctcp.toml's data-centre shape (1 Gbit/s, RTT
    # 1 ms, CE-marking at 20 packets queued); the second with a 25-packet buffer and 0.05 %
    # loss, so that the flows also lose packets and recover.
    "marks": ("500pkts", 0.0),
    "marks-and-losses": ("25pkts", 0.0005),
}


@pytest.mark.timeout(120)
@pytest.mark.parametrize("case", sorted(DCTCP_CASES))
def test_linux_bpf_dctcp_unchanged_runs_as_the_builtin_dctcp(case, tmp_path):
    """Linux's tools/testing/selftests/bpf/progs/bpf_dctcp.c, as published, against hscc's
    dctcp (Linux 6.12's tcp_dctcp.c): the same run, hook call for hook call (cc_log), ACK for
    ACK (the flows' table and time series, the queue). The selftest is tcp_dctcp.c's sender
    without PLB (off by default in Linux); its receiver half (the ECN_IS_CE / ECN_NO_CE events,
    icsk_ack.pending, bpf_tcp_send_ack) is the engine's receiver in both runs, and its
    fallback (bpf_setsockopt when ECN is not negotiated) never runs: a flow that needs ECN
    has it (docs/programs.md)."""
    src = linux_selftests() / "bpf_dctcp.c"
    buffer, loss = DCTCP_CASES[case]

    def scenario(algorithm: str, label: str) -> dict:
        return {
            "name": f"dctcp-{case}",
            "duration": "2s",
            "seed": 1,
            "output": {
                "sample_interval": "10ms",
                "traces": ["flows", "queues"],
                "cc_log": {"flows": [f"{label} 0", f"{label} 1"]},
            },
            "topology": {
                "kind": "dumbbell",
                "bottleneck": {
                    "rate": "1Gbps",
                    "delay": "100us",
                    "buffer": buffer,
                    "loss": loss,
                    "queue": {"kind": "step", "k_packets": 20},
                },
                "pairs": [{"rate": "10Gbps", "rtt": "1ms"}] * 2,
            },
            "flows": [{"pair": i, "algorithm": algorithm} for i in range(2)],
        }

    bpf = hscc.run(scenario(str(src), "bpf_dctcp"))
    builtin = hscc.run(scenario("dctcp", "dctcp"))
    assert bpf.flows["label"].to_list() == ["bpf_dctcp 0", "bpf_dctcp 1"]
    # The scenario does what it is for: marks and window cuts on ECN, and losses where asked.
    assert (builtin.flows["ce_received"] > 100).all() and (
        builtin.flows["ecn_reductions"] > 10
    ).all()
    if loss:
        assert (builtin.flows["recoveries"] > 5).all()
    names = ["label", "algorithm"]
    assert bpf.flows.drop(names).equals(builtin.flows.drop(names))
    assert bpf.timeseries.equals(builtin.timeseries) and bpf.queues.equals(builtin.queues)
    assert bpf.cc_log.height > 10_000
    assert bpf.cc_log.drop("label").equals(builtin.cc_log.drop("label"))


def test_a_sweep_over_a_programs_parameter_on_two_workers_and_on_dask(tmp_path):
    """Each worker builds the program from its file (or finds it in the cache): a local pool
    of two and a local Dask cluster give the same rows."""
    scenario = new_algorithm(tmp_path)
    axes = {"flows[0].params.increase": [1, 6]}
    local = hscc.sweep(scenario, axes, replicates=1, jobs=2)
    points = local.points.drop("wall_time_s")
    assert points.height == 2 and set(points["status"]) == {"ok"}
    pytest.importorskip("distributed")
    dask = hscc.sweep(scenario, axes, replicates=1, jobs=2, dask="local")
    assert dask.points.drop("wall_time_s").equals(points)


def guide_commands() -> list[str]:
    """docs/programs.md's tutorial, its commands as written, in order."""
    text = (ROOT / "docs/programs.md").read_text()
    block = text.split("```console\n", 1)[1].split("```", 1)[0]
    commands = [line.removeprefix("$ ") for line in block.splitlines() if line.startswith("$ ")]
    assert commands[0] == "hscc new-algorithm mycc" and len(commands) >= 5
    return commands


def run_in_order(commands: list[str], cwd: Path) -> None:
    """Each command in `cwd` with this environment's hscc (root's, for those under sudo)."""
    exe = str(Path(sys.executable).with_name("hscc"))
    for cmd in commands:
        argv = shlex.split(cmd.removeprefix("sudo "))
        assert argv[0] == "hscc", cmd
        r = subprocess.run([exe, *argv[1:]], cwd=cwd, capture_output=True, text=True, timeout=200)
        assert r.returncode == 0, (cmd, r.stdout, r.stderr)


@pytest.mark.timeout(120)
def test_the_guides_commands_run_in_order(tmp_path):
    """docs/programs.md's tutorial, every command as written, in an empty directory, up to
    the first that needs the kernel (sudo): the kernel suite runs them all, below."""
    commands = guide_commands()
    simulator = list(itertools.takewhile(lambda c: not c.startswith("sudo "), commands))
    assert len(simulator) >= 3, commands
    run_in_order(simulator, tmp_path)
    assert (tmp_path / "runs/mycc/summary.json").is_file()
    assert (tmp_path / "runs/mycc-increase/points.parquet").is_file()


@pytest.mark.real_kernel
@pytest.mark.timeout(240)
def test_the_guides_commands_run_in_order_with_the_kernel(tmp_path):
    """The tutorial whole, kernel load, testbed run and compare included: the program is
    registered for the testbed's run and removed after."""
    from hscc.kernel import registry, toolchain
    from hscc.testbed.run import missing

    reason = missing() or toolchain.missing_for_kernel()
    if reason is not None:
        pytest.skip(f"the tutorial's kernel steps need the kernel: {reason}")
    if "mycc" in registry.available_ccs():
        pytest.skip("a congestion control named mycc is registered already")
    run_in_order(guide_commands(), tmp_path)
    assert hscc.load(tmp_path / "runs/mycc-kernel").flows["label"].to_list() == [
        "mycc 0",
        "reno 1",
    ]
    assert "mycc" not in registry.available_ccs()


def test_a_sweep_files_program_values_are_relative_to_the_sweep_file(tmp_path):
    work = tmp_path / "work"
    new_algorithm(work)
    (work / "algos.toml").write_text(
        'base = "mycc.toml"\nreplicates = 1\n[axes]\n"flows[1].algorithm" = ["reno", "mycc.bpf.c"]\n'
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    r = subprocess.run(
        [
            str(Path(sys.executable).with_name("hscc")),
            "sweep",
            str(work / "algos.toml"),
            "-o",
            "out",
            "-q",
        ],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        timeout=100,
    )
    assert r.returncode == 0, r.stderr
    points = hscc.load_sweep(elsewhere / "out").points
    assert points.height == 2 and set(points["status"]) == {"ok"}, points


def python_scenario(*algorithms: str, params: dict | None = None) -> dict:
    return {
        "name": "python",
        "duration": "20s",
        "seed": 1,
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate": "20Mbps", "delay": "5ms", "buffer": "1bdp"},
            "pairs": [{"rate": "1Gbps", "rtt": "40ms"}],
        },
        "flows": [
            {"pair": 0, "algorithm": a, **({"params": params} if params and i == 0 else {})}
            for i, a in enumerate(algorithms)
        ],
    }


def test_a_python_algorithm_with_renos_hooks_is_reno_to_the_byte():
    import py_algorithms  # noqa: F401  (defining the classes registers them)

    py = hscc.run(python_scenario("pyreno", "reno"))
    builtin = hscc.run(python_scenario("reno", "reno"))
    assert py.flows["label"].to_list() == ["pyreno 0", "reno 1"]
    assert py.flows["goodput_bps"].to_list() == builtin.flows["goodput_bps"].to_list()


def test_a_python_algorithms_parameters_and_its_exceptions():
    import py_algorithms  # noqa: F401

    gentle = goodputs(hscc.run(python_scenario("pybeta", "reno", params={"beta": 0.9})))
    halving = goodputs(hscc.run(python_scenario("pybeta", "reno")))
    # Keeping 90 % of the window on a loss takes more of the link than halving it.
    assert gentle["pybeta 0"] > halving["pybeta 0"] * 1.2, (gentle, halving)
    with pytest.raises(ProgramError, match="pyraises: cong_avoid raised ValueError: an idea"):
        hscc.run(python_scenario("pyraises"))
    with pytest.raises(hscc.ScenarioError, match="beta"):
        hscc.run(python_scenario("pybeta", params={"gamma": 1}))


def test_a_sweep_of_a_python_algorithm_imports_its_module_in_the_workers():
    import py_algorithms  # noqa: F401

    r = hscc.sweep(python_scenario("pybeta", "reno"), {"flows[0].params.beta": [0.5, 0.9]}, jobs=2)
    assert set(r.points["status"]) == {"ok"}, r.points


MAIN_SWEEP = """
import hscc


class Mine(hscc.Algorithm):
    name = "pymainonly"


if __name__ == "__main__":
    sc = SCENARIO
    print(hscc.run(sc).flows["label"].to_list())
    plain = {**sc, "flows": [{**f, "algorithm": "reno"} for f in sc["flows"]]}
    axes = {"flows[0].algorithm": ["reno", "cubic"]}
    print(hscc.sweep(plain, axes, jobs=2).points["status"].to_list())
    for axes in ({"flows[0].algorithm": ["reno"]}, {"flows[0].algorithm": ["reno", "cubic"]}):
        try:
            hscc.sweep(sc, axes, jobs=2)
        except hscc.SweepError as e:
            print(e)
"""


@pytest.mark.timeout(60)
def test_a_sweep_of_a_python_algorithm_defined_in_main_is_refused_with_the_reason(tmp_path):
    """A class of a script run directly (or a notebook) is in __main__, which a sweep's
    workers cannot import: hscc.run runs it, a sweep that names it, of any size, is refused
    before it starts, naming the class, rather than failing every run with an unknown
    algorithm; a sweep that does not name it runs."""
    script = tmp_path / "mine.py"
    sc = python_scenario("reno", "pymainonly") | {"duration": "1s"}
    script.write_text(MAIN_SWEEP.replace("SCENARIO", repr(sc)))
    r = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=50
    )
    assert r.returncode == 0, r.stderr
    ran, swept, *refused = r.stdout.strip().splitlines()
    assert (ran, swept) == ("['reno 0', 'pymainonly 1']", "['ok', 'ok']"), r.stdout
    assert len(refused) == 2, r.stdout
    for line in refused:
        assert line.startswith(
            "flows[1].algorithm = 'pymainonly': its class Mine is defined in __main__"
        ), line


def test_an_experiment_file_may_swap_a_series_algorithm_for_a_program_file(tmp_path):
    from hscc import reproduce as rep
    from hscc.reproduce import experiment
    from test_reproduce import SMALL

    work = tmp_path / "work"
    new_algorithm(work)
    data = json.loads(json.dumps(SMALL))
    data["series"]["names"] = {"reno": "Reno", "mycc.bpf.c": "mycc"}
    data["sweep"]["axes"]["flows[0].algorithm"] = ["reno", "mycc.bpf.c"]
    data["measures"][0]["published"] = {"mycc.bpf.c": [0.1, 0.3]}
    data["claims"][0]["a"] = "mycc.bpf.c"
    (work / "small.toml").write_text(
        "\n".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in data.items()) + "\n"
    )
    # The program's path is taken relative to the experiment file, wherever hscc runs.
    exp = experiment.load(work / "small.toml")
    r = rep.reproduce(exp, tmp_path / "out", quick=True)
    assert r.failed_runs == 0
    mycc = r.table.filter(pl.col("series") == "mycc")
    assert mycc.height > 0 and mycc["mean"].null_count() == 0, r.table
    # The points keep the value as written (the runs record the absolute path), so the series,
    # the column and the seeds derived from it do not depend on where the file lies.
    assert set(r.sweep.points["flows[0].algorithm"]) == {"reno", "mycc.bpf.c"}


def toml_value(v: object) -> str:
    """`v` as a TOML value on one line (an inline table for a dict)."""
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {toml_value(x)}" for k, x in v.items()) + " }"
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    return json.dumps(v)  # strings, numbers and booleans are written alike


@pytest.mark.timeout(120)
def test_bbr3s_own_program_file_runs_as_the_builtin_bbr3_with_every_lost_packet(tmp_path):
    """hscc's `bpf/bbr3.bpf.c`, named as a user's program file with the built-in's parameters
    as its globals, gives the built-in `bbr3`'s run on a lossy shallow buffer to the byte: the
    simulator hands the program each lost segment (`skb_marked_lost`) and the rate sample's
    `tx_in_flight` and `lost`, as it hands them to the Rust module (without them the program
    would fall back to its kernel-build estimate, and the runs would part)."""
    from hscc import _core

    params = dict(_core.bpf_globals("bbr3", "{}"))

    def scenario(algorithm: str, flow_params: dict[str, int]) -> dict:
        return {
            "duration": 20,
            "seed": 3,
            "topology": {
                "kind": "dumbbell",
                "bottleneck": {"rate": "50Mbps", "delay": "10ms", "buffer": {"packets": 40}},
                "pairs": [{"rate": "1Gbps", "rtt": "40ms"}, {"rate": "1Gbps", "rtt": "40ms"}],
            },
            "flows": [
                {"pair": 0, "algorithm": algorithm, "params": flow_params, "label": "bbr3"},
                {"pair": 1, "algorithm": "cubic", "start": 1, "label": "cubic"},
            ],
            "output": {"cc_log": {"flows": ["bbr3"]}},
        }

    builtin = hscc.run(scenario("bbr3", {}))
    program = hscc.run(scenario(str(ROOT / "bpf" / "bbr3.bpf.c"), params))
    assert goodputs(program) == goodputs(builtin)
    lost = [r.cc_log.filter(pl.col("hook") == "skb_marked_lost").height for r in (builtin, program)]
    assert lost[0] == lost[1] > 50, lost
    cols = ["time_s", "cwnd_after", "pacing_rate_after", "rs_tx_in_flight", "rs_lost"]
    assert builtin.cc_log.select(cols).equals(program.cc_log.select(cols))


# hscc's own programs that a user's program-file run does not give the built-in's run for,
# and why; every other program of bpf/ must.
PROGRAM_FILE_DIFFERS = {
    # The kernel has no tcp_enter_cwr for programs: cdg.bpf.c reduces at once where the
    # built-in (and the conformance build, through the shim's tcp_enter_cwr) enters CWR.
    "cdg": "no tcp_enter_cwr for programs",
}


@pytest.mark.timeout(600)
def test_every_program_of_bpf_runs_as_a_program_file_as_its_builtin_does(tmp_path):
    """Each `bpf/NAME.bpf.c`, named as a user's program file with the built-in's parameters as
    its globals, gives the built-in `NAME`'s flows table on a two-flow lossy dumbbell (ECN
    through RED for DCTCP): the file a user loads into the kernel is the algorithm the
    simulator runs."""
    from hscc import _core

    def scenario(algorithm: str, params: dict[str, int], ecn: bool) -> dict:
        bottleneck: dict = {"rate": "20Mbps", "delay": "10ms", "buffer": {"packets": 30}}
        if ecn:
            bottleneck["queue"] = {"kind": "red", "ecn": True, "min_th": 5, "max_th": 15}
        flows = [
            {"pair": i, "algorithm": algorithm, "params": params, "label": f"f{i}", "start": start}
            | ({"ecn": True} if ecn else {})
            for i, start in ((0, 0), (1, 0.5))
        ]
        return {
            "duration": 10,
            "seed": 4,
            "topology": {
                "kind": "dumbbell",
                "bottleneck": bottleneck,
                "pairs": [{"rate": "1Gbps", "rtt": "40ms"}, {"rate": "1Gbps", "rtt": "60ms"}],
            },
            "flows": flows,
        }

    files = sorted((ROOT / "bpf").glob("*.bpf.c"))
    names = {f.name.removesuffix(".bpf.c") for f in files}
    assert names >= set(PROGRAM_FILE_DIFFERS) and len(names) > 20
    parted = {}
    for path in files:
        name = path.name.removesuffix(".bpf.c")
        params = dict(_core.bpf_globals(name, "{}"))
        ecn = name == "dctcp"
        builtin = hscc.run(scenario(name, {}, ecn)).flows
        program = hscc.run(scenario(str(path), params, ecn)).flows
        cols = ["goodput_bps", "retrans", "final_cwnd", "recoveries"]
        if not builtin.select(cols).equals(program.select(cols)):
            parted[name] = (builtin.select(cols).rows(), program.select(cols).rows())
    assert set(parted) == set(PROGRAM_FILE_DIFFERS), parted
