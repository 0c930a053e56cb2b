"""Interval estimates used across the analysis layer (95% by default)."""
from __future__ import annotations

import math

Z95 = 1.959963984540054


def wilson(k: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion k/n (k may be fractional: shared wins)."""
    if n <= 0:
        return (float("nan"), float("nan"))
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def diff_multinomial(pa: float, pb: float, n: float, z: float = Z95) -> tuple[float, float, float]:
    """pa - pb for two outcomes of the same n games (negatively correlated):
    Var = (pa + pb - (pa - pb)^2) / n.  Returns (difference, low, high)."""
    d = pa - pb
    if n <= 0:
        return (d, float("nan"), float("nan"))
    se = math.sqrt(max(pa + pb - d * d, 0.0) / n)
    return (d, d - z * se, d + z * se)


def diff_independent(k1: float, n1: float, k2: float, n2: float,
                     z: float = Z95) -> tuple[float, float, float]:
    """p1 - p2 for two independent samples (Newcombe's hybrid score interval)."""
    if n1 <= 0 or n2 <= 0:
        return (float("nan"), float("nan"), float("nan"))
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1, z)
    l2, u2 = wilson(k2, n2, z)
    d = p1 - p2
    lo = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    hi = d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return (d, lo, hi)


def paired_diff(x, y, z: float = Z95) -> tuple[float, float, float, float]:
    """mean(x - y) for paired samples (the same games played two ways, common random
    numbers), with its t interval and the two-sided p-value (scipy's one-sample t test
    on the differences).  Returns (difference, low, high, p); identical samples give a
    zero-width interval and p = 1."""
    import numpy as np
    from scipy import stats

    d = np.asarray(x, dtype=np.float64) - np.asarray(y, dtype=np.float64)
    if d.size == 0:
        return (float("nan"), float("nan"), float("nan"), float("nan"))
    m = float(d.mean())
    if d.size < 2 or float(d.std()) == 0.0:
        return (m, m, m, 1.0 if m == 0.0 else 0.0)
    res = stats.ttest_1samp(d, 0.0)
    lo, hi = res.confidence_interval(confidence_level=2 * stats.norm.cdf(z) - 1)
    return (m, float(lo), float(hi), float(res.pvalue))
