"""Student's t distribution's two-sided quantile, for the confidence intervals of means.

Exact for the integer degrees of freedom a mean of n runs has (n − 1): the t CDF in
closed form (Abramowitz & Stegun 26.7.3 and 26.7.4, a finite series in θ = arctan(t/√ν)),
inverted by bisection; above 1000 degrees of freedom, where that series grows long, the
Cornish–Fisher expansion about the normal quantile (A&S 26.7.5). Both are within 10⁻¹²
of scipy's `stdtrit` (tests/python/test_student_t.py). Written here rather than imported:
scipy costs half a second of CPU to import, more than a short sweep's runs.
"""

from __future__ import annotations

import functools
import math
from statistics import NormalDist

_SERIES_UP_TO = 1000  # degrees of freedom; beyond, the expansion


@functools.lru_cache(maxsize=1024)
def quantile(confidence: float, df: int) -> float:
    """t such that P(|T| ≤ t) = `confidence` for T with `df` degrees of freedom (NaN below 1)."""
    if df < 1:
        return math.nan
    if not 0 < confidence < 1:
        raise ValueError(f"confidence: {confidence} is not allowed (between 0 and 1)")
    if df > _SERIES_UP_TO:
        return _cornish_fisher(confidence, df)
    lo, hi = 0.0, math.pi / 2
    mid = hi
    for _ in range(1100):  # until the interval is one double wide (fewer than 1100 halvings)
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        if _within(mid, df) < confidence:
            lo = mid
        else:
            hi = mid
    return math.sqrt(df) * math.tan(mid)


def _within(theta: float, df: int) -> float:
    """P(|T| ≤ √df·tan θ) for T with `df` degrees of freedom (A&S 26.7.3, 26.7.4)."""
    c2 = math.cos(theta) ** 2
    total, term = 1.0, 1.0
    if df % 2:  # odd: 2/π (θ + sin θ cos θ (1 + 2/3 cos²θ + 2·4/(3·5) cos⁴θ + …))
        if df == 1:
            return 2 / math.pi * theta
        for j in range(1, (df - 1) // 2):
            term *= c2 * (2 * j) / (2 * j + 1)
            total += term
        return 2 / math.pi * (theta + math.sin(theta) * math.cos(theta) * total)
    for j in range(1, df // 2):  # even: sin θ (1 + 1/2 cos²θ + 1·3/(2·4) cos⁴θ + …)
        term *= c2 * (2 * j - 1) / (2 * j)
        total += term
    return math.sin(theta) * total


def _cornish_fisher(confidence: float, df: int) -> float:
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    g = (
        (z**3 + z) / 4,
        (5 * z**5 + 16 * z**3 + 3 * z) / 96,
        (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384,
        (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160,
    )
    return z + math.fsum(gi / df ** (i + 1) for i, gi in enumerate(g))
