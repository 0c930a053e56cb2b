"""What ``cardlab balance`` aims at: targets on a game's headline figures, and each figure per game.

A target names a figure and the band it must lie in::

    seat_edge=0±1        every seat's edge within [-1, +1] points (also 0+-1)
    length=20..30        the finished games' mean length between 20 and 30 (the game's unit)
    unfinished<0.5%      under 0.5% of games stopped by the cap (<, <=, >, >= alike)

Every figure is a mean of one number per game (``per_game``), so one interval method serves
all: the normal approximation on the per-game values, as the sweep's paired differences use.
A seat's edge is its win share among the games with a winner (a shared win split evenly)
minus the fair share 1/P, in points; ``seat_edge`` holds when every seat's does
(its components are the seats), ``seat0_edge`` only seat 0's.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from cardlab.sim.errors import InputError

# figure -> (what it is, its unit in the text, per-game scale: 100 turns a 0/1 into percent)
FIGURES = {
    "seat_edge": ("every seat's win share minus the fair share", "points"),
    "seat0_edge": ("seat 0's win share minus the fair share", "points"),
    "length": ("the finished games' mean length", "unit"),
    "unfinished": ("the share of games stopped by the cap", "%"),
    "no_winner": ("the share of games without a winner", "%"),
    "lead_changes": ("lead changes per finished game", ""),
    "comeback": ("the share of games the half-time leader loses", "%"),
    "close": ("the share of games decided by the smallest margin", "%"),
}
RATES = {"unfinished", "no_winner", "comeback", "close"}   # 0..100 %
EDGES = {"seat_edge", "seat0_edge"}                        # -100..100 points
HEADLINES = ("seat_edge", "length", "unfinished", "no_winner")  # the side effects always shown

_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)"
_TARGET = re.compile(r"^\s*([a-z_0-9]+)\s*(<=|>=|=|<|>)\s*(.+?)\s*$")


@dataclass(frozen=True)
class Target:
    figure: str
    lo: float        # the band, in the figure's display unit (points, %, the game's unit)
    hi: float
    text: str        # as the designer wrote it

    def holds(self, lo: float, hi: float) -> bool:
        """An interval [lo, hi] lies inside the band."""
        return self.lo <= lo and hi <= self.hi

    def excluded(self, lo: float, hi: float) -> bool:
        """An interval [lo, hi] lies wholly outside the band."""
        return hi < self.lo or lo > self.hi

    def miss(self, value: float) -> float:
        """How far a value lies outside the band, in units of the band's scale (0 inside)."""
        out = max(self.lo - value, value - self.hi, 0.0)
        return out / self.scale

    @property
    def scale(self) -> float:
        """A band's natural size: its width, or for a one-sided band its bound's size."""
        if math.isfinite(self.lo) and math.isfinite(self.hi) and self.hi > self.lo:
            return self.hi - self.lo
        bound = self.hi if math.isfinite(self.hi) else self.lo
        return max(abs(bound), 1.0)

    def margin(self, value: float) -> float:
        """How far inside the band a value lies (negative: outside)."""
        return min(value - self.lo, self.hi - value)

    def band(self) -> str:
        lo, hi = self.lo, self.hi
        if math.isinf(lo):
            return f"< {hi:g}"
        if math.isinf(hi):
            return f"> {lo:g}"
        return f"{lo:g} to {hi:g}"


def _number(raw: str, what: str) -> float:
    s = raw.strip().rstrip("%").strip()
    if not re.fullmatch(_NUM, s):
        raise InputError(f"bad --target {what!r}: {raw.strip()!r} is not a number")
    return float(s)


def parse_target(text: str) -> Target:
    """``seat_edge=0±1`` / ``length=20..30`` / ``unfinished<0.5%`` -> a Target (InputError
    naming what is wrong and what is allowed)."""
    m = _TARGET.match(text.replace("+-", "±").replace("+/-", "±"))
    if not m:
        raise InputError(f"bad --target {text!r}: expected FIGURE=CENTER±TOL, FIGURE=LO..HI or "
                         f"FIGURE<VALUE (figures: {', '.join(FIGURES)})")
    fig, op, rest = m.groups()
    if fig not in FIGURES:
        raise InputError(f"unknown --target figure {fig!r}: allowed {', '.join(FIGURES)}")
    if op == "=":
        if "±" in rest:
            c, tol = rest.split("±", 1)
            center, tol_ = _number(c, text), _number(tol, text)
            if tol_ <= 0:
                raise InputError(f"bad --target {text!r}: the tolerance must be above 0")
            lo, hi = center - tol_, center + tol_
        elif ".." in rest:
            a, b = rest.split("..", 1)
            lo, hi = _number(a, text), _number(b, text)
        else:
            raise InputError(f"bad --target {text!r}: a figure measured on random games is never exact; "
                             f"give a band, e.g. {fig}={rest}±1 or {fig}=LO..HI")
    elif op in ("<", "<="):
        lo, hi = -math.inf, _number(rest, text)
    else:
        lo, hi = _number(rest, text), math.inf
    if not lo < hi:
        raise InputError(f"bad --target {text!r}: an empty band ({lo:g} to {hi:g})")
    floor, ceil = (0.0, 100.0) if fig in RATES else (-100.0, 100.0) if fig in EDGES else (0.0, math.inf)
    if hi <= floor or lo >= ceil:
        raise InputError(f"bad --target {text!r}: {fig} lies between {floor:g} and {ceil:g}, "
                         f"so no rule change can reach that band")
    return Target(fig, lo, hi, text.strip())


def parse_targets(items) -> list[Target]:
    targets = [parse_target(t) for t in items or []]
    if not targets:
        raise InputError("nothing to balance: give at least one --target, e.g. --target seat_edge=0±1")
    seen = [t.figure for t in targets]
    for f in set(seen):
        if seen.count(f) > 1:
            raise InputError(f"--target {f} is given twice: give one band for it")
    return targets


# ------------------------------------------------------------------ per-game figures
def per_game(figure: str, players: int, mask: np.ndarray, length: np.ndarray, unfinished: np.ndarray,
             shape: np.ndarray) -> list[np.ndarray]:
    """One array per component: the figure's value in each game, NaN where it does not apply
    (a capped game has no length; a game without a winner no seat share; the shape figures
    as ``sim/shape.py`` marks them)."""
    mask = mask.astype(np.int64)
    if figure in EDGES:
        winners = sum(((mask >> s) & 1) for s in range(players)).astype(float)
        seats = range(players) if figure == "seat_edge" else (0,)
        out = []
        for s in seats:
            share = ((mask >> s) & 1) / np.maximum(winners, 1.0) - 1.0 / players
            out.append(np.where(winners > 0, 100.0 * share, np.nan))
        return out
    if figure == "length":
        return [np.where(unfinished != 0, np.nan, length.astype(float))]
    if figure == "unfinished":
        return [100.0 * (unfinished != 0)]
    if figure == "no_winner":
        return [100.0 * (mask == 0)]
    col = {"lead_changes": 0, "comeback": 1, "close": 3}[figure]
    v = shape[:, col].astype(float)
    v[v < 0] = np.nan
    return [v if figure == "lead_changes" else 100.0 * v]


def mean_interval(x: np.ndarray, z: float) -> tuple[float, float, float, float, int]:
    """(mean, lo, hi, per-game sd, n) of the applicable values, normal approximation."""
    x = x[~np.isnan(x)]
    n = len(x)
    if n == 0:
        return math.nan, -math.inf, math.inf, math.nan, 0
    m = float(x.mean())
    sd = float(x.std(ddof=1)) if n > 1 else math.inf
    half = z * sd / math.sqrt(n) if n > 1 else math.inf
    return m, m - half, m + half, sd, n
