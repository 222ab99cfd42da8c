"""Student's t quantile of the confidence intervals: closed forms where they exist, and
scipy's stdtrit (a dev dependency; hscc itself does not import scipy) everywhere else."""

from __future__ import annotations

import math

import pytest

from hscc.student_t import quantile

pytestmark = pytest.mark.timeout(60)

CONFIDENCES = (0.5, 0.8, 0.9, 0.95, 0.99, 0.999)


@pytest.mark.parametrize("c", CONFIDENCES)
def test_one_and_two_degrees_of_freedom_have_closed_forms(c):
    # ν = 1 is the Cauchy distribution: P(|T| ≤ t) = 2/π arctan t.
    assert quantile(c, 1) == pytest.approx(math.tan(math.pi * c / 2), rel=1e-11)
    # ν = 2: P(|T| ≤ t) = t / √(2 + t²).
    assert quantile(c, 2) == pytest.approx(c * math.sqrt(2 / (1 - c * c)), rel=1e-11)


def test_it_is_scipys_stdtrit_to_eleven_digits_across_degrees_of_freedom():
    stdtrit = pytest.importorskip("scipy.special").stdtrit
    # Every count of runs a sweep point usually has, and both sides of where the expansion
    # takes over from the series (1000).
    dfs = [*range(1, 101), 150, 333, 500, 999, 1000, 1001, 1200, 5000, 10**4, 10**6, 10**8]
    for c in CONFIDENCES:
        for df in dfs:
            expected = float(stdtrit(df, 0.5 + c / 2))
            assert quantile(c, df) == pytest.approx(expected, rel=1e-11), (c, df)


def test_it_shrinks_with_more_runs_and_grows_with_the_confidence():
    for c in CONFIDENCES:
        ts = [quantile(c, df) for df in (1, 2, 3, 5, 10, 30, 100, 1000, 1001, 10**6)]
        assert ts == sorted(ts, reverse=True)
    assert [quantile(c, 4) for c in CONFIDENCES] == sorted(quantile(c, 4) for c in CONFIDENCES)


def test_no_degrees_of_freedom_give_nan_and_a_confidence_outside_0_1_is_refused():
    assert math.isnan(quantile(0.95, 0))
    for bad in (0.0, 1.0, 1.5):
        with pytest.raises(ValueError, match="confidence"):
            quantile(bad, 3)
