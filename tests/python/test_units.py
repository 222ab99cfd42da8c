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


def test_numbers_never_turn_to_an_exponent_a_person_would_not_write():
    """The one number formatter of every table: 3 significant digits, positional from 10^3
    on (a sweep's mean drop count is "2190 ± 40", not "2.19e+03 ± 40")."""
    assert units.significant(2189.5) == "2190"
    assert units.significant(123456.0) == "123000" and units.significant(123456.0, 4) == "123500"
    assert units.significant(999.96) == "1000"  # rounds up across a power of ten
    assert units.significant(96.2) == "96.2" and units.significant(0.0127) == "0.0127"
    assert units.significant(1.2e-5) == "1.2e-05"  # small values keep theirs
    assert units.significant(1e15) == "1e+15"
    assert units.format_seconds(12345.0) == "12340 s"
    from hscc.units_table import format_interval, format_value

    assert format_value("flows[0].retrans", 2189.5, 40.2) == "2190 ± 40"
    assert format_interval("flows[0].retrans", 2189.5, 2000.0, 2400.0) == "2190 [2000, 2400]"
