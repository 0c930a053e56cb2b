"""The shape of a game from its tally (``sim/shape.py`` keeps the counts): lead changes,
comeback rate, decided point and close finishes, each with its 95% interval.

Every figure is over the games that **finished** (a capped game has no length, so no
half-way point and no decided point); the rates are over the finished games that had a
winner.  Proportions get Wilson intervals, means the normal-approximation interval of
``stats.mean_interval``, from integer tallies.
"""
from __future__ import annotations

from typing import Any

from cardlab.analysis.stats import finite_or_none, mean_interval, wilson
from cardlab.sim.tally import DECIDED_BINS, Tally

# the figures a sweep compares between rule variants (analysis/sweep.py), with their labels
METRICS = ("lead_changes", "comeback_rate", "decided_point", "close_finish_rate")
LABEL = {"lead_changes": "lead changes per game", "comeback_rate": "comeback rate",
         "decided_point": "decided point", "close_finish_rate": "close-finish rate"}


def _mean(total: int, total_sq: int, n: int, scale: float = 1.0) -> tuple[float | None, list]:
    if n == 0:
        return None, [None, None]
    m, lo, hi = mean_interval(total / scale, total_sq / scale ** 2, n)
    return finite_or_none(m), [finite_or_none(lo), finite_or_none(hi)]


def _rate(k: int, n: int) -> tuple[float | None, list]:
    if n == 0:
        return None, [None, None]
    lo, hi = wilson(k, n)
    return k / n, [lo, hi]


def shape_summary(tally: Tally, game) -> dict[str, Any]:
    """The ``shape`` object of ``simulate --json`` (documented in docs/reading-the-output.md)."""
    t = tally.shape
    measured, won = t("measured"), t("won")
    lc, lc_ci = _mean(t("lead_changes"), t("lead_changes_sq"), measured)
    cb, cb_ci = _rate(t("comebacks"), t("half_led"))
    dec = t("decided")
    dp, dp_ci = _mean(t("decided_milli"), t("decided_milli_sq"), dec, 1000.0)
    hist = [int(x) for x in tally.decided_hist]
    early, early_ci = _rate(sum(hist[:DECIDED_BINS // 2]), dec)
    close, close_ci = _rate(t("close"), won)
    return {
        "progress": game.progress_what, "close_margin": game.close_margin,
        "of": "finished games", "games": measured, "won_games": won,
        "lead_changes": lc, "lead_changes_ci": lc_ci,
        "comeback_rate": cb, "comeback_rate_ci": cb_ci, "comeback_games": t("half_led"),
        "comebacks": t("comebacks"), "half_unlogged": t("half_unlogged"),
        "decided_point": dp, "decided_point_ci": dp_ci, "decided_games": dec,
        "decided_hist": hist, "decided_by_half_rate": early, "decided_by_half_rate_ci": early_ci,
        "shared_wins": t("shared"), "winner_not_leading": t("behind"),
        "close_finish_rate": close, "close_finish_rate_ci": close_ci, "close_games": t("close"),
    }


def pct(x: float | None) -> str:
    """A rate as a percentage with one decimal, "n/a" for none (also the text summary's)."""
    return "n/a" if x is None else f"{100 * x:.1f}%"


def _ival(v: float | None, ci: list, as_pct: bool) -> str:
    if v is None:
        return "n/a"
    f = pct if as_pct else (lambda x: "n/a" if x is None else f"{x:.2f}")
    return f"{f(v)} [{f(ci[0])}, {f(ci[1])}]"


def shape_line(sh: dict[str, Any]) -> str:
    """The shape in one line of the text summary."""
    return (f"Shape (progress: {sh['progress']}; {sh['games']:,} finished games): lead changes "
            f"{_ival(sh['lead_changes'], sh['lead_changes_ci'], False)} per game, comeback rate "
            f"{_ival(sh['comeback_rate'], sh['comeback_rate_ci'], True)}, decided point "
            f"{_ival(sh['decided_point'], sh['decided_point_ci'], True)} of the game, close finishes "
            f"(margin <= {sh['close_margin']}) {_ival(sh['close_finish_rate'], sh['close_finish_rate_ci'], True)}")


NOTE = ("The shape of the game, from each seat's progress score at the end of every turn "
        "(the sole leader is the one seat with the highest score). A lead change is a new sole "
        "leader; a comeback is a won game whose sole leader at half the game's length did not "
        "win; the decided point is the share of the game after which the eventual winner leads "
        "for good; a close finish is one where the winner's final score beats the best loser's by "
        "at most the game's close margin. Finished games only (capped games have no length); "
        "the rates are of the games that had a winner.")


def shape_rows(s: dict[str, Any]) -> list[tuple[str, str]]:
    """The report's shape table: (figure, value with its 95% interval and counts)."""
    sh = s.get("shape")
    if not sh or not sh.get("games"):
        return []
    return [
        ("progress score", f"{sh['progress']} (close finish: margin <= {sh['close_margin']})"),
        ("lead changes per game", f"{_ival(sh['lead_changes'], sh['lead_changes_ci'], False)} "
                                  f"({sh['games']:,} finished games)"),
        ("comeback rate", f"{_ival(sh['comeback_rate'], sh['comeback_rate_ci'], True)} "
                          f"({sh['comebacks']:,} of {sh['comeback_games']:,} games with a sole leader at half-time)"),
        ("decided point (mean share of the game)",
         f"{_ival(sh['decided_point'], sh['decided_point_ci'], True)} ({sh['decided_games']:,} games; "
         f"{sh['shared_wins']:,} shared wins and {sh['winner_not_leading']:,} with the winner not "
         f"the sole leader at the end left out)"),
        ("decided by half-time", f"{_ival(sh['decided_by_half_rate'], sh['decided_by_half_rate_ci'], True)}"),
        ("close finishes", f"{_ival(sh['close_finish_rate'], sh['close_finish_rate_ci'], True)} "
                           f"({sh['close_games']:,} of {sh['won_games']:,} won games)"),
    ]
