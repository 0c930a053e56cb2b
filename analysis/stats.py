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


def finite_or_none(x: float | None) -> float | None:
    """A statistic for JSON: None for a missing value or NaN (too few games), else a float."""
    return None if x is None or x != x else float(x)


def mean_interval(total: float, total_sq: float, n: float, z: float = Z95
                  ) -> tuple[float, float, float]:
    """The mean of n values from their sum and sum of squares, with its 95% normal-
    approximation interval (the shape figures' means are over thousands of games; no scipy
    import, which would add half a second to every ``cardlab simulate``).  Returns (mean,
    low, high); NaN for n < 1, an interval of zero width when every value is the same."""
    if n <= 0:
        return (float("nan"), float("nan"), float("nan"))
    mean = total / n
    if n < 2:
        return (mean, float("nan"), float("nan"))
    se = math.sqrt(max(total_sq - n * mean * mean, 0.0) / (n - 1) / n)
    return (mean, mean - z * se, mean + z * se)


def paired_diff(x, y) -> tuple[float, float, float, float]:
    """mean(x - y) for paired samples given as arrays (the same games played two ways on
    common random numbers): ``diff_paired`` on their differences."""
    import numpy as np

    d = np.asarray(x, dtype=np.float64) - np.asarray(y, dtype=np.float64)
    return diff_paired(float(d.sum()), float((d * d).sum()), d.size)


def diff_paired(sum_d: float, sum_d2: float, n: float, z: float | None = None
                ) -> tuple[float, float, float, float]:
    """The mean of n paired differences from their sum and sum of squares, with its 95%
    Student-t interval and the two-sided p-value of "the mean is 0" (scipy.stats.t).
    Returns (mean, low, high, p); an interval of zero width when every difference is the
    same (then p is 1 for a mean of 0, else 0)."""
    from scipy import stats

    if n <= 0:
        return (float("nan"), float("nan"), float("nan"), float("nan"))
    mean = sum_d / n
    if n < 2:
        return (mean, float("nan"), float("nan"), float("nan"))
    var = max(sum_d2 - n * mean * mean, 0.0) / (n - 1)
    se = math.sqrt(var / n)
    if se == 0.0:
        return (mean, mean, mean, 1.0 if mean == 0 else 0.0)
    q = stats.t.ppf(0.975, n - 1) if z is None else z
    p = float(2 * stats.t.sf(abs(mean) / se, n - 1))
    return (mean, mean - q * se, mean + q * se, p)


def games_for(halfwidth: float, p: float = 0.5, arms: int = 1, z: float = Z95) -> int:
    """Games (in each arm) that give a 95% interval of about +-``halfwidth`` on a
    proportion near ``p`` (``arms=2``: on the difference of two independent proportions,
    each near p): n = arms * z^2 p (1 - p) / halfwidth^2, the normal approximation the
    Wilson interval approaches.  The sample-size figure of every "cannot tell yet"."""
    if not 0.0 < halfwidth:
        raise ValueError("halfwidth must be positive")
    return max(1, math.ceil(arms * z * z * p * (1.0 - p) / (halfwidth * halfwidth)))



def games_for_diff(halfwidth: float, pa: float, pb: float, z: float = Z95) -> int:
    """Games that give ``diff_multinomial``'s 95% interval of about +-``halfwidth`` on pa - pb,
    two outcomes of the same games (two seats' win rates): n = z^2 (pa + pb - (pa - pb)^2) /
    halfwidth^2, from its variance.  Not ``games_for(arms=2)``: that is two independent
    samples, whose variance p(1 - p) per arm leaves out the negative correlation (two seats
    near 1/2 each need four times the games of one seat's share, not twice)."""
    if not 0.0 < halfwidth:
        raise ValueError("halfwidth must be positive")
    var = max(pa + pb - (pa - pb) ** 2, 0.0)
    return max(1, math.ceil(z * z * var / (halfwidth * halfwidth)))


def games_for_wilson(halfwidth: float, p: float, z: float = Z95) -> int:
    """Games whose Wilson interval on a share near ``p`` has a half-width of at most
    ``halfwidth``: ``games_for``'s normal approximation, raised to the fewest games that do
    where it falls short (a rate near 0 or 1, such as the unfinished rate: games_for says 1
    game for a share of 0, where the Wilson interval needs about z^2 / (2 halfwidth))."""
    n = games_for(halfwidth, p, z=z)

    def half(m: int) -> float:
        lo, hi = wilson(p * m, m, z)
        return (hi - lo) / 2

    if half(n) <= halfwidth:
        return n
    lo, hi = n, 2 * n
    while half(hi) > halfwidth:
        lo, hi = hi, 2 * hi
    while hi - lo > 1:  # the half-width falls with n (for n above z^2): the fewest that do
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if half(mid) <= halfwidth else (mid, hi)
    return hi


def hist_mean_interval(hist, z: float = Z95) -> tuple[float, float] | None:
    """The 95% interval of the mean of a histogram's values (value i counted hist[i] times):
    mean +- z sd / sqrt(n); None for fewer than two values."""
    import numpy as np

    h = np.asarray(hist, dtype=float)
    n = h.sum()
    if n < 2:
        return None
    x = np.arange(len(h))
    m = float((x * h).sum() / n)
    var = max(0.0, float((x * x * h).sum() / n) - m * m) * n / (n - 1)
    half = z * math.sqrt(var / n)
    return (m - half, m + half)


def shown(x: float, ci=None, most: int = 6) -> str:
    """``x`` at the precision its interval justifies: to the decimal place of the first
    significant digit of the interval's half-width (24.636 for 24.636221 +- 0.003; 25 for
    +- 2), at most ``most`` decimals; without an interval, 3 significant figures."""
    if ci is None or ci[0] is None or ci[1] is None:
        return f"{x:.3g}"
    half = abs(ci[1] - ci[0]) / 2
    if half <= 0 or not math.isfinite(half):
        return f"{x:.{min(most, 2)}f}"
    nd = min(most, max(0, -math.floor(math.log10(half))))
    return f"{x:.{nd}f}"


def about_games(n: int) -> str:
    """A game count rounded up to two significant figures (it is an estimate): 8,536 -> 8,600."""
    if n >= 100:
        k = 10 ** (len(str(n)) - 2)
        n = -(-n // k) * k
    return f"{n:,}"
