"""Hostile input gets a clear error naming the field, the value and what is allowed:
never a traceback, a hang or unbounded memory (each test reproduces an input that once did)."""

from __future__ import annotations

import random
import re

import pytest
from typer.testing import CliRunner

from conftest import ONE_FLOW
from hscc.cli import app

runner = CliRunner()

GRAPH = """
duration = "1s"
[topology]
kind = "graph"
nodes = ["a", "b", "c"]
links = [{ a = "a", b = "b", fwd = { rate = "10Mbps", delay = "1ms" } },
         { a = "b", b = "c", fwd = { rate = "10Mbps", delay = "1ms" } }]
[[flows]]
src = "a"
dst = "c"
"""


def check(path) -> str:
    """`hscc check` must exit 2 without a traceback; returns its stderr."""
    r = runner.invoke(app, ["check", str(path)], catch_exceptions=False)
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output
    return r.stderr


@pytest.mark.parametrize(
    "algorithm, params, says",
    [
        (
            "multcp",
            "n = inf",
            "flows[0].params.n: inf is not allowed (a whole number from 1 to 10000)",
        ),
        ("multcp", "n = -inf", "flows[0].params.n: -inf is not allowed"),
        ("multcp", "n = nan", "flows[0].params.n: nan is not allowed"),
        ("ctcp", "lowwnd = inf", "flows[0].params.lowwnd: inf is not allowed"),
        ("ctcp", "gamma = nan", "flows[0].params.gamma: nan is not allowed"),
    ],
)
def test_infinite_and_nan_parameters(write_toml, algorithm, params, says):
    path = write_toml(
        ONE_FLOW.replace(
            'algorithm = "reno"', f'algorithm = "{algorithm}"\nparams = {{ {params} }}'
        )
    )
    assert says in check(path)


@pytest.mark.parametrize(
    "old, new, says",
    [
        ('duration = "10s"', "duration = nan", "duration: nan is not allowed"),
        ('buffer = "1bdp"', 'buffer = "1e30pkts"', "topology.bottleneck.buffer: "),
        ('buffer = "1bdp"', 'buffer = "1e30B"', "1 to 10^8 packets, 1 byte to 10^12 bytes"),
    ],
)
def test_nan_and_huge_quantities(write_toml, old, new, says):
    assert says in check(write_toml(ONE_FLOW.replace(old, new)))


@pytest.mark.parametrize(
    "text",
    [
        "a = " + "[" * 600 + "]" * 600,
        "a = " + "{x=" * 600 + "1" + "}" * 600,
        'duration = "1s"\n' + ".".join(["k"] * 5000) + " = 1",
        "a = " + "[" * 40 + "]" * 40,
    ],
)
def test_deeply_nested_files(write_toml, text):
    assert "nested more than 32" in check(write_toml(text))


def test_a_number_with_thousands_of_digits(write_toml):
    assert "a number has more digits than can be read" in check(write_toml("seed = " + "9" * 5000))


def test_a_toml_date_where_a_time_belongs_is_named(write_toml):
    """A value JSON cannot carry (a TOML date) reaches the engine as text, which names it."""
    text = ONE_FLOW.replace('duration = "10s"', "duration = 1979-05-27")
    assert "duration = 1979-05-27" in text, "the template changed"
    assert "duration: datetime.date(1979, 5, 27) is not allowed" in check(write_toml(text))


def test_an_endless_device_is_not_read():
    assert "/dev/zero: it is a character device, not a regular file" in check("/dev/zero")


def test_a_large_file_is_read_only_up_to_a_bound(tmp_path):
    path = tmp_path / "big.toml"
    with open(path, "wb") as f:
        f.truncate((16 << 20) + 1)  # sparse: no disk used
    assert f"{path} is larger than 16 MiB" in check(path)


def test_the_depth_bound_is_exact_and_names_the_value_past_it():
    from hscc.inputs import MAX_DEPTH, _first_too_deep, too_deep

    def nested(n: int) -> object:
        value: object = 1
        for i in range(n):
            value = [value] if i % 2 else {"k": value}
        return value

    assert too_deep(nested(MAX_DEPTH)) is None
    assert too_deep({"a": [{}], "b": nested(MAX_DEPTH - 1)}) is None
    path = too_deep({"a": nested(MAX_DEPTH)})
    assert path is not None and path.startswith("a[0].k[0].k")
    # Random spines with side branches: too deep exactly when some value is nested past the
    # bound, and the same path as the walk that carries every value's path.
    rng = random.Random(2)

    def depth(v: object) -> int:
        children = list(v.values()) if isinstance(v, dict) else v if isinstance(v, list) else []
        return 1 + max(map(depth, children)) if children else 0

    def spine(d: int, bottom: int) -> object:
        if d >= bottom:
            return rng.choice([1, "x", [], {}])
        items = [rng.choice([1, "y", [], {}, [2], {"z": 3}]) for _ in range(rng.randint(0, 2))]
        items.insert(rng.randint(0, len(items)), spine(d + 1, bottom))
        return items if rng.random() < 0.5 else {f"k{i}": v for i, v in enumerate(items)}

    for _ in range(500):
        data = spine(0, rng.randint(MAX_DEPTH - 3, MAX_DEPTH + 5))
        assert (too_deep(data) is None) == (depth(data) <= MAX_DEPTH)
        assert too_deep(data) == _first_too_deep(data)


def test_a_dict_that_contains_itself_is_refused():
    from hscc import Scenario, ScenarioError

    data = {"duration": 1}
    data["topology"] = data
    with pytest.raises(ScenarioError, match="nested more than 32"):
        Scenario.parse(data)


def test_duplicate_labels(write_toml):
    text = ONE_FLOW + '\nlabel = "a"\n\n[[flows]]\npair = 0\nlabel = "a"\n'
    assert (
        'flows[1].label: "a" is not allowed (a label not used by another entry (flows[0] has it))'
        in check(write_toml(text))
    )


@pytest.mark.parametrize(
    "old, new, says",
    [
        (
            'nodes = ["a", "b", "c"]',
            'nodes = ["a", "b", "c", ""]',
            'topology.nodes[3]: "" is not allowed (a name that is not empty',
        ),
        ('nodes = ["a", "b", "c"]', 'nodes = ["a", "b", "c", "  "]', "topology.nodes[3]"),
        (
            '{ a = "b", b = "c",',
            '{ a = "b", b = "b",',
            'topology.links[1].b: "b" is not allowed (a node other than a (a link joins two nodes)',
        ),
        (
            '{ a = "b", b = "c",',
            '{ a = "b", b = "a",',
            'topology.links[1]: "b-a" is not allowed (one link per pair of nodes, with a name of its own (topology.links[0] is a-b))',
        ),
    ],
)
def test_graph_nonsense(write_toml, old, new, says):
    assert says in check(write_toml(GRAPH.replace(old, new)))


# --- runs that would not fit: refused before they start, with the numbers -----------------

WEB = """
duration = "10s"
[topology]
kind = "dumbbell"
bottleneck = { rate = "10Mbps", delay = "5ms", buffer = "1bdp" }
pairs = [{ rate = "1Gbps", rtt = "20ms" }]
[[web]]
pairs = [0]
rate = 1e6
"""


def test_check_prints_what_a_run_needs(one_flow):
    r = runner.invoke(app, ["check", str(one_flow)])
    assert r.exit_code == 0 and "needs about" in r.stdout and "of memory and" in r.stdout


def test_a_run_above_the_memory_limit_is_refused_before_it_starts(write_toml, tmp_path):
    path = write_toml(WEB)
    r = runner.invoke(
        app,
        ["run", str(path), "--max-memory", "100MB", "-o", str(tmp_path / "run")],
        catch_exceptions=False,
    )
    assert r.exit_code == 2, r.output
    assert re.search(
        r"web\[0\]\.rate: 1000000 is not allowed \(this run needs about [1-3]\.\d+ GB of memory, above the limit of 100 MB",
        r.stderr,
    )
    assert "running" not in r.stderr and not (tmp_path / "run").exists()
    assert runner.invoke(app, ["check", str(path), "--max-memory", "100MB"]).exit_code == 2


def test_a_run_above_the_event_limit_is_refused(one_flow):
    r = runner.invoke(app, ["check", str(one_flow), "--max-events", "1000"])
    assert (
        r.exit_code == 2
        and "duration: 10 s is not allowed (this run needs about" in r.stderr
        and "above the limit of 1.0e3" in r.stderr
    )


@pytest.mark.parametrize(
    "option, value",
    [
        ("--max-memory", "lots"),
        ("--max-memory", "1kB"),
        ("--max-events", "-5"),
        ("--max-events", "1.5"),
    ],
)
def test_bad_limits_are_usage_errors(one_flow, option, value):
    r = runner.invoke(app, ["check", str(one_flow), option, value])
    assert r.exit_code == 2 and f"{option}: '{value}' is not allowed" in r.stderr


def test_the_python_api_takes_the_same_limits(write_toml):
    from hscc import ScenarioError, run

    with pytest.raises(ScenarioError, match="above the limit of 100 MB"):
        run(write_toml(WEB), max_memory=100_000_000)


# --- the fuzzers' findings (fuzz/reproducers) ------------------------------------------------


@pytest.mark.parametrize(
    "old, new, says",
    [
        ('buffer = "1bdp"', 'buffer = "1e308KB"', "topology.bottleneck.buffer: "),
        ("pair = 0", 'pair = 0\nsize = "1e308GB"', "flows[0].size: "),
        ("pair = 0", "pair = 0\nsize = 1" + "0" * 400, "flows[0].size: "),
        ('rate = "10Mbps"', 'rate = "10' + " " * 16000 + 'x"', "topology.bottleneck.rate: "),
        (
            'algorithm = "reno"',
            'algorithm = "multcp"\nparams = { n = 1' + "0" * 400 + " }",
            "flows[0].params.n: ",
        ),
    ],
)
def test_overflowing_and_overlong_quantities(write_toml, old, new, says):
    assert says in check(write_toml(ONE_FLOW.replace(old, new)))


@pytest.mark.parametrize(
    "text",
    [
        "a" + ".a" * 8000 + " = 1",
        "x = { " + "y . " * 40 + "z = 1 }",
        "[" + '"t".' * 40 + "u]",
    ],
)
def test_long_dotted_keys_are_refused_before_parsing(write_toml, text):
    assert "a dotted key is nested more than 32 tables deep" in check(write_toml(text))


def test_dotted_words_in_strings_are_not_keys(write_toml):
    path = write_toml(
        ONE_FLOW.replace(
            'name = "one-flow"', 'name = "one-flow"\ndescription = "' + "Fig. 3. " * 40 + '"'
        )
    )
    assert runner.invoke(app, ["check", str(path)]).exit_code == 0
