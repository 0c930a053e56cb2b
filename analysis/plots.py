"""The report's figures: one function per figure, each returning PNG bytes.

Figures are built on ``matplotlib.figure.Figure`` with an Agg canvas directly, never
through ``pyplot``: nothing is registered in pyplot's global figure list, no backend is
switched for the caller, and a figure is garbage as soon as its function returns.
Inputs are plain numbers and lists (from ``summarize()``, a tally's length histogram or
a DataFrame), so the functions work unchanged on ``analysis.tables`` output.
"""
from __future__ import annotations

import io
from typing import Sequence

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

DPI = 100
BLUE, ORANGE, GREY, RED = "#1f77b4", "#ff7f0e", "#7f7f7f", "#d62728"


def _new(width: float = 7.0, height: float = 4.0) -> Figure:
    fig = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _png(fig: Figure) -> bytes:
    buf = io.BytesIO()
    # no Software/date metadata: regenerating a report gives identical images for identical numbers
    fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
    fig.clear()
    return buf.getvalue()


def seat_win_rates(rates: Sequence[float], cis: Sequence[Sequence[float]],
                   labels: Sequence[str] | None = None, no_winner_rate: float | None = None,
                   title: str = "Win rate by seat") -> bytes:
    """Bars of each seat's win rate with its 95% interval as error bars; a dashed line
    at the fair share 1/players (and the share left to no winner, when there is any)."""
    P = len(rates)
    rates = np.asarray(rates, dtype=float) * 100
    lo = np.array([c[0] for c in cis], dtype=float) * 100
    hi = np.array([c[1] for c in cis], dtype=float) * 100
    fig = _new(max(4.5, 1.4 * P + 2.5), 4.0)
    ax = fig.add_subplot()
    x = np.arange(P)
    names = [f"seat {i}" + (f"\n{labels[i]}" if labels else "") for i in range(P)]
    ax.bar(x, rates, color=BLUE, width=0.6)
    ax.errorbar(x, rates, yerr=[rates - lo, hi - rates], fmt="none", ecolor="black",
                capsize=8, lw=1.5, label="95% interval")
    for xi, r, h in zip(x, rates, hi):
        ax.annotate(f"{r:.1f}%", (xi, h), xytext=(0, 4), textcoords="offset points",
                    ha="center", va="bottom", fontsize=10)
    fair = 100.0 / P
    ax.axhline(fair, color=RED, ls="--", lw=1.2, label=f"fair share {fair:.1f}%")
    if no_winner_rate:
        ax.axhline(fair * (1 - no_winner_rate), color=GREY, ls=":", lw=1.2,
                   label=f"fair share of decided games ({100 * no_winner_rate:.1f}% had no winner)")
    ax.set_xticks(x, names)
    ax.set_ylabel("win rate (%)")
    ax.set_xlabel("seat (0 plays first)")
    ax.set_ylim(0, max(float(hi.max()), fair) * 1.4)
    ax.set_title(title)
    ax.legend(loc="upper right", fontsize=8)
    return _png(fig)


def _xmax(games: np.ndarray, cap: int | None) -> int:
    """Where to stop the length axis: the 99.5th percentile of finished games."""
    h = games.astype(float).copy()
    if cap is not None and 0 <= cap < len(h):
        h[cap] = 0
    n = h.sum()
    if n <= 0:
        return max(len(games) - 1, 1)
    cdf = np.cumsum(h) / n
    return int(np.searchsorted(cdf, 0.995)) + 1


def length_histogram(hist: Sequence[int], unit: str = "turns", cap: int | None = None,
                     title: str = "Game length", capped: int = 0) -> bytes:
    """Share of **finished** games by length (``hist``), with their mean and median; the
    ``capped`` games the cap stopped (at ``cap``) are named in the legend, never drawn or
    averaged in: they have no length of their own."""
    games = np.asarray(hist, dtype=np.int64)
    n = games.sum()
    share = games / n * 100 if n else games.astype(float)
    xmax = _xmax(games, None)
    fig = _new(7.0, 4.0)
    ax = fig.add_subplot()
    x = np.arange(len(games))
    keep = x <= xmax
    ax.bar(x[keep], share[keep], width=1.0, color=BLUE, label="finished games")
    if n:
        mean = float((x * games).sum() / n)
        med = int(np.searchsorted(np.cumsum(games) / n, 0.5 - 1e-12))
        ax.axvline(med, color=ORANGE, lw=1.5, label=f"median {med} (finished)")
        if mean <= xmax:
            ax.axvline(mean, color=RED, ls="--", lw=1.2, label=f"mean {mean:.1f} (finished)")
    if capped:
        where = f" ({cap} {unit})" if cap is not None else ""
        ax.plot([], [], " ", label=f"not drawn: {100 * capped / (n + capped):.1f}% of all games "
                                   f"stopped by the cap{where}")
    ax.set_xlim(-0.5, xmax + 0.5)
    ax.set_xlabel(f"game length ({unit})")
    ax.set_ylabel("share of finished games (%)")
    ax.set_title(title)
    ax.legend(fontsize=8)
    return _png(fig)


def survival(hist: Sequence[int]) -> np.ndarray:
    """S(t): the share of games still running after t units, i.e. with length > t."""
    games = np.asarray(hist, dtype=np.float64)
    n = games.sum()
    if n <= 0:
        return np.zeros(len(games))
    return 1.0 - np.cumsum(games) / n


def survival_curve(hist: Sequence[int], unit: str = "turns", cap: int | None = None,
                   title: str = "Survival: finished games still running", capped: int = 0) -> bytes:
    """The share of the **finished** games (``hist``) still running after t units (a step
    curve), where half and 90% of them had ended; the ``capped`` games are named in the
    legend (they never end, so they are in no quantile)."""
    games = np.asarray(hist, dtype=np.int64)
    s = survival(games) * 100
    xmax = _xmax(games, None)
    fig = _new(7.0, 4.0)
    ax = fig.add_subplot()
    x = np.arange(len(games))
    keep = x <= xmax
    ax.step(x[keep], s[keep], where="post", color=BLUE, lw=2, label="finished games still running")
    for q in (50, 10):
        t = int(np.searchsorted(-s, -q))  # first t with S(t) <= q
        if t <= xmax:
            ax.axhline(q, color=GREY, ls=":", lw=1)
            ax.annotate(f"{q}% still running after {t} {unit}", (t, q), xytext=(6, 4),
                        textcoords="offset points", fontsize=8)
    if capped:
        where = f" ({cap} {unit})" if cap is not None else ""
        ax.plot([], [], " ", label=f"and {100 * capped / (games.sum() + capped):.1f}% of all games "
                                   f"stopped by the cap{where}")
    ax.set_xlim(0, xmax)
    ax.set_ylim(0, 102)
    ax.set_xlabel(f"{unit} played")
    ax.set_ylabel("finished games still running (%)")
    ax.set_title(title)
    ax.legend(fontsize=8)
    return _png(fig)


def card_power_forest(cards: Sequence[str], iwd: Sequence[float], lo: Sequence[float],
                      hi: Sequence[float], title: str = "Card power: IWD with 95% intervals") -> bytes:
    """Forest plot: one row per card type, IWD (points) with its interval, sorted with the
    largest IWD on top; intervals that exclude 0 are drawn solid, the others grey."""
    iwd = np.asarray(iwd, dtype=float) * 100
    lo = np.asarray(lo, dtype=float) * 100
    hi = np.asarray(hi, dtype=float) * 100
    order = np.argsort(iwd, kind="stable")  # ascending: the largest ends up on top
    cards = [cards[i] for i in order]
    iwd, lo, hi = iwd[order], lo[order], hi[order]
    fig = _new(7.0, max(2.5, 0.38 * len(cards) + 1.4))
    ax = fig.add_subplot()
    y = np.arange(len(cards))
    real = (lo > 0) | (hi < 0)
    for yi, m, a, b, r in zip(y, iwd, lo, hi, real):
        c = BLUE if r else GREY
        ax.plot([a, b], [yi, yi], color=c, lw=2)
        ax.plot([m], [yi], "o", color=c, ms=6)
    ax.axvline(0, color="black", lw=1)
    ax.set_yticks(y, cards)
    ax.set_xlabel("IWD: win rate when held minus when never held (points)")
    ax.set_ylabel("card")
    ax.set_title(title)
    ax.plot([], [], "o-", color=BLUE, label="interval excludes 0")
    ax.plot([], [], "o-", color=GREY, label="within noise")
    ax.legend(fontsize=8, loc="lower right")
    ax.grid(axis="x", alpha=0.3)
    return _png(fig)


def tournament_heatmap(matrix, title: str = "Tournament: row strategy's win rate against column") -> bytes:
    """Heat map of a strategy-vs-strategy matrix (a DataFrame of win rates in [0, 1];
    rows and columns are strategy names), annotated with percentages."""
    vals = np.asarray(matrix.to_numpy(dtype=float)) * 100
    rows = [str(r) for r in matrix.index]
    cols = [str(c) for c in matrix.columns]
    fig = _new(max(4.5, 1.1 * len(cols) + 2.5), max(3.5, 0.7 * len(rows) + 1.8))
    ax = fig.add_subplot()
    im = ax.imshow(vals, cmap="RdBu", vmin=0, vmax=100, aspect="auto")
    for i in range(vals.shape[0]):
        for j in range(vals.shape[1]):
            if np.isfinite(vals[i, j]):
                ax.text(j, i, f"{vals[i, j]:.1f}%", ha="center", va="center", fontsize=9,
                        color="white" if abs(vals[i, j] - 50) > 30 else "black")
    ax.set_xticks(range(len(cols)), cols, rotation=30, ha="right")
    ax.set_yticks(range(len(rows)), rows)
    ax.set_xlabel("opponent")
    ax.set_ylabel("strategy")
    ax.set_title(title)
    fig.colorbar(im, ax=ax, label="win rate (%)")
    return _png(fig)


def skill_curve(rungs: Sequence[str], rates: Sequence[float], lo: Sequence[float], hi: Sequence[float],
                fair: float, field: str) -> bytes:
    """The skill ladder: each rung's win rate against the field with its 95% interval,
    weakest rung first, and the fair share as a dashed line."""
    x = np.arange(len(rungs))
    r = 100 * np.asarray(rates, dtype=float)
    err = np.vstack([r - 100 * np.asarray(lo, dtype=float), 100 * np.asarray(hi, dtype=float) - r])
    fig = _new(max(5.5, 0.9 * len(rungs) + 2.5), 4.0)
    ax = fig.add_subplot()
    ax.errorbar(x, r, yerr=err, fmt="o-", color="#1f5fa8", capsize=4)
    ax.axhline(100 * fair, ls="--", color="grey", label=f"fair share {100 * fair:.1f}%")
    ax.set_xticks(x, [s.replace("mcts:iterations=", "mcts@") for s in rungs], rotation=30, ha="right")
    ax.set_ylabel(f"win rate against {field} (%)")
    ax.set_title("Skill curve: each rung in one seat, the field in the others")
    ax.legend(loc="best")
    return _png(fig)


def decided_point_histogram(hist: Sequence[int], mean: float | None = None,
                            title: str = "When the game is decided") -> bytes:
    """Won games by their decided point (the share of the game after which the eventual
    winner leads for good), ``len(hist)`` bins of equal width over (0, 1]."""
    games = np.asarray(hist, dtype=np.int64)
    n = games.sum()
    share = games / n * 100 if n else games.astype(float)
    k = len(games)
    fig = _new(7.0, 3.6)
    ax = fig.add_subplot()
    ax.bar((np.arange(k) + 0.5) / k * 100, share, width=100 / k, color=BLUE,
           label="won games with a single winner leading at the end")
    if mean is not None:
        ax.axvline(100 * mean, color=RED, ls="--", lw=1.2, label=f"mean {100 * mean:.1f}%")
    ax.set_xlim(0, 100)
    ax.set_xlabel("decided point: share of the game after which the winner leads for good (%)")
    ax.set_ylabel("share of games (%)")
    ax.set_title(title)
    ax.legend(fontsize=8)
    return _png(fig)
