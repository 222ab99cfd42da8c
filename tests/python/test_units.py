"""Quantities written the way people write them."""

import pytest

from hscc import units
from hscc.units import UnitError


@pytest.mark.parametrize(
    "text, seconds",
    [
        ("100ms", 0.1),
        ("1.5s", 1.5),
        ("250us", 250e-6),
        ("250µs", 250e-6),
        ("40 ms", 0.04),
        ("2min", 120.0),
        ("1e-3", 1e-3),
        (60, 60.0),
        (0.5, 0.5),
        ("10ns", 1e-8),
    ],
)
def test_times(text, seconds):
    assert units.seconds(text) == pytest.approx(seconds)


@pytest.mark.parametrize(
    "text, bps",
    [
        ("700Mbps", 700e6),
        ("10Gbps", 10e9),
        ("1.5Mbit/s", 1.5e6),
        ("64kbps", 64e3),
        ("64Kbps", 64e3),
        ("100 mbps", 100e6),
        ("1Tbps", 1e12),
        ("1e9", 1e9),
        (1_000_000, 1e6),
        ("9600bps", 9600.0),
    ],
)
def test_rates(text, bps):
    assert units.rate(text) == pytest.approx(bps)


@pytest.mark.parametrize(
    "text, nbytes",
    [
        ("64KB", 64_000),
        ("64kB", 64_000),
        ("64KiB", 65_536),
        ("1MB", 10**6),
        ("1MiB", 2**20),
        ("1448B", 1448),
        ("1.5KB", 1500),
        (1000, 1000),
        ("3 bytes", 3),
    ],
)
def test_sizes(text, nbytes):
    assert units.size(text) == nbytes
    assert isinstance(units.size(text), int)


@pytest.mark.parametrize(
    "text, engine",
    [
        ("1500pkts", {"packets": 1500}),
        ("1500 packets", {"packets": 1500}),
        (1500, {"packets": 1500}),
        ("0.5bdp", {"bdp": 0.5}),
        ("2 BDP", {"bdp": 2.0}),
        ("64KB", {"bytes": 64_000}),
        ({"packets": 20}, {"packets": 20}),
        ({"bdp": 1}, {"bdp": 1.0}),
    ],
)
def test_buffers(text, engine):
    assert units.buffer(text) == engine


@pytest.mark.parametrize("text, p", [("1e-6", 1e-6), (0, 0.0), ("0.1%", 0.001), (1, 1.0)])
def test_probabilities(text, p):
    assert units.probability(text) == pytest.approx(p)


@pytest.mark.parametrize(
    "parse, bad, says",
    [
        (units.seconds, "10 furlongs", "a time of 0 or more, such as 100ms"),
        (units.seconds, True, "a time"),
        (units.seconds, "nan", "a time"),
        (units.rate, "100MBps", "rates are in bits"),
        (units.rate, "fast", "a rate from 1 bit/s to 10 Tbit/s, such as 700Mbps"),
        (units.rate, "M", "a rate"),
        (units.size, "1.0001KB", "whole number"),
        (units.size, "64kb", "a size such as 64KB"),
        (units.buffer, "1.5pkts", "whole number"),
        (units.buffer, {"litres": 3}, 'one of "packets", "bytes", "bdp"'),
        (units.probability, 2, "a probability from 0 to 1"),
        (units.probability, "5x", "a probability"),
    ],
)
def test_bad_quantities_say_what_is_allowed(parse, bad, says):
    with pytest.raises(UnitError, match=says):
        parse(bad)


def test_formatting():
    assert units.format_rate(86_026_645) == "86 Mbit/s"
    assert units.format_rate(9_707_585) == "9.71 Mbit/s"
    assert units.format_rate(1.5e9) == "1.5 Gbit/s"
    assert units.format_seconds(0.040149) == "40.1 ms"
    assert units.format_seconds(2.5) == "2.5 s"
    assert units.format_seconds(2.5e-9) == "2.5 ns"
    # a reverse bottleneck's mean queuing delay, where an ACK rarely waits
    assert units.format_seconds(5.97e-13) == "< 1 ns"
    assert units.format_seconds(1e-9) == "1 ns"
    assert units.format_seconds(9.39e-6) == "9.39 µs"
