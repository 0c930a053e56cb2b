"""A pandas API over one run: every outcome statistic of a ``RunResult`` as a DataFrame.

Pure functions of ``result.tally`` and ``result.setup`` (nothing is re-simulated), meant
for notebooks::

    from cardlab.sim.runner import make_setup, run
    from cardlab.analysis import tables

    result = run(make_setup("skyscraper", 3, None, "reference,greedy,random", seed=1), 50_000)
    tables.seat_table(result)
    tables.card_power_table(result).query("strategy == 'all'")

Every rate comes with a 95% Wilson score interval (``ci_low``, ``ci_high``), computed by
``analysis.stats.wilson``; a shared win adds ``1/k`` to each of its ``k`` winners, so a
win "count" may be fractional and the interval is then the Wilson formula evaluated at
the fractional count.

Functions and their columns
---------------------------
``seat_table(result)``
    seat, strategy, games, win_share, win_rate, ci_low, ci_high
    (``win_share``: the seat's wins, shared wins split evenly; ``win_rate`` = win_share / games)
``strategy_table(result)``
    strategy, seats, seat_games, win_share, win_rate, ci_low, ci_high
    (a strategy on several seats pools them: ``seat_games`` = games x number of seats)
``strategy_seat_table(result)``
    strategy, seat, games, win_share, win_rate, ci_low, ci_high, fair_share
    (one row per (strategy, seat) pair of the run, ordered by strategy then seat)
``outcome_table(result)``
    outcome, value, ci_low, ci_high: no_winner_rate, unfinished_rate,
    first_player_advantage (seat 0 minus 1/players; named ``seat0_edge_confounded`` when
    the seats play different strategies: then it is mostly the strategies' difference),
    balance (1 - largest pairwise seat gap; its interval is not defined and left NaN)
``end_table(result)``
    end, games, rate, ci_low, ci_high (one row per end condition of the game)
``length_table(result)``
    length, games, share, survival, capped: one row per length t = 0 .. the game's cap;
    ``games``, ``share`` and ``survival`` = S(t) = P(length > t) are of the *finished*
    games (non-increasing, 0 at the longest); ``capped`` counts the games the cap stopped
    at t, kept apart
``card_power_table(result, by_strategy=True)``
    one row per (strategy group, card type), see its docstring.
``bh_adjust(p)``
    Benjamini-Hochberg adjusted p-values (q-values).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from cardlab.analysis.stats import Z95, diff_independent, diff_multinomial, wilson

ALL = "all"  # the strategy label of the pooled (every seat) card-power group


def _labels(result) -> list[str]:
    return [seat.label for seat in result.setup.seats]


def _rate_row(k: float, n: float) -> dict:
    lo, hi = wilson(k, n)
    return {"win_rate": k / n if n else float("nan"), "ci_low": lo, "ci_high": hi}


# --------------------------------------------------------------------------- outcomes
def seat_table(result) -> pd.DataFrame:
    """Win rate per seat with a 95% Wilson interval.

    Columns: seat, strategy (the seat's strategy label), games, win_share (wins, shared
    wins split evenly), win_rate, ci_low, ci_high."""
    t = result.tally
    n = t.games
    rows = []
    for s, (label, w) in enumerate(zip(_labels(result), t.wins)):
        rows.append({"seat": s, "strategy": label, "games": n, "win_share": float(w),
                     **_rate_row(float(w), n)})
    return pd.DataFrame(rows, columns=["seat", "strategy", "games", "win_share", "win_rate",
                                       "ci_low", "ci_high"])


def strategy_table(result) -> pd.DataFrame:
    """Win rate per strategy label, pooling the seats that play it.

    Columns: strategy, seats (list of seat indices), seat_games (games x seats),
    win_share, win_rate (= win_share / seat_games), ci_low, ci_high.  Ordered by first
    seat.  With one strategy on every seat the rate is (1 - no_winner_rate) / players."""
    t = result.tally
    n = t.games
    by: dict[str, list[int]] = {}
    for s, label in enumerate(_labels(result)):
        by.setdefault(label, []).append(s)
    rows = []
    for label, seats in by.items():
        w = float(t.wins[seats].sum())
        rows.append({"strategy": label, "seats": seats, "seat_games": n * len(seats),
                     "win_share": w, **_rate_row(w, n * len(seats))})
    return pd.DataFrame(rows, columns=["strategy", "seats", "seat_games", "win_share",
                                       "win_rate", "ci_low", "ci_high"])


def strategy_seat_table(result) -> pd.DataFrame:
    """Win rate per (strategy, seat): the seat table ordered by strategy, with the
    fair share 1/players alongside.

    Columns: strategy, seat, games, win_share, win_rate, ci_low, ci_high, fair_share."""
    df = seat_table(result)
    df = df[["strategy", "seat", "games", "win_share", "win_rate", "ci_low", "ci_high"]].copy()
    df["fair_share"] = 1.0 / result.setup.players
    order = {label: i for i, label in enumerate(dict.fromkeys(_labels(result)))}
    df = df.sort_values(["strategy", "seat"], key=lambda c: c.map(order) if c.name == "strategy" else c)
    return df.reset_index(drop=True)


def outcome_table(result) -> pd.DataFrame:
    """Whole-run outcome statistics.

    Columns: outcome, value, ci_low, ci_high.  Rows: ``no_winner_rate``,
    ``unfinished_rate`` (games stopped by the length cap), and for 2+ players
    ``first_player_advantage`` (seat 0's win rate minus 1/players; the interval is seat
    0's Wilson interval shifted by 1/players) and ``balance`` (1 - the largest
    |win-rate difference| over pairs of seats; no interval: NaN).  When the seats play
    different strategies the seat-0 row is ``seat0_edge_confounded``: a seat's edge is
    then mostly its strategy's, never a first-player advantage (``analysis.pools``
    measures the seat effect in pools where every seat plays alike)."""
    from cardlab.analysis.summary import seat_edge_confounded

    t = result.tally
    n = t.games
    P = result.setup.players
    rows = [{"outcome": "no_winner_rate", "value": t.no_winner / n, **_ci(t.no_winner, n)},
            {"outcome": "unfinished_rate", "value": t.unfinished / n, **_ci(t.unfinished, n)}]
    if P >= 2:
        w0 = float(t.wins[0])
        lo, hi = wilson(w0, n)
        name = "seat0_edge_confounded" if seat_edge_confounded(result.setup) else "first_player_advantage"
        rows.append({"outcome": name, "value": w0 / n - 1 / P,
                     "ci_low": lo - 1 / P, "ci_high": hi - 1 / P})
        rates = t.wins / n
        gap = max(abs(diff_multinomial(rates[a], rates[b], n)[0])
                  for a in range(P) for b in range(a + 1, P))
        rows.append({"outcome": "balance", "value": 1.0 - gap, "ci_low": float("nan"),
                     "ci_high": float("nan")})
    return pd.DataFrame(rows, columns=["outcome", "value", "ci_low", "ci_high"])


def _ci(k: float, n: float) -> dict:
    lo, hi = wilson(k, n)
    return {"ci_low": lo, "ci_high": hi}


def end_table(result) -> pd.DataFrame:
    """Games per end condition (the game's ``end_names``, e.g. Skyscraper's ``floors``
    and ``cap``).  Columns: end, games, rate, ci_low, ci_high."""
    t = result.tally
    n = t.games
    rows = [{"end": name, "games": int(c), "rate": c / n if n else float("nan"), **_ci(float(c), n)}
            for name, c in zip(result.setup.game.end_names, t.end)]
    return pd.DataFrame(rows, columns=["end", "games", "rate", "ci_low", "ci_high"])


def length_table(result) -> pd.DataFrame:
    """The length distribution of the finished games (in the game's ``length_unit``) and
    its survival curve, with the games the cap stopped beside it.

    One row per length t = 0 .. max length.  Columns: length, games (finished games that
    lasted exactly t), share (games / finished games), survival (S(t) = P(length > t)
    among finished games: non-increasing, 0 from the longest on), capped (games the cap
    stopped at length t: not finished, so in none of the other columns)."""
    t = result.tally
    hist = np.asarray(t.finished_hist, dtype=np.int64)
    n = int(hist.sum())
    longer = n - np.cumsum(hist)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = hist / n if n else np.full(len(hist), np.nan)
        surv = longer / n if n else np.full(len(hist), np.nan)
    return pd.DataFrame({"length": np.arange(len(hist)), "games": hist, "share": share,
                         "survival": surv, "capped": np.asarray(t.cap_hist, dtype=np.int64)})


# --------------------------------------------------------------------------- card power
def _adjust(p, step) -> np.ndarray:
    """Adjusted p-values: ``step(sorted finite p, m)`` gives them for the ascending
    p-values; NaN entries are left NaN and not counted in m."""
    p = np.asarray(p, dtype=float)
    q = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    m = int(ok.sum())
    if m == 0:
        return q
    pv = p[ok]
    order = np.argsort(pv, kind="mergesort")
    out = np.empty(m)
    out[order] = np.minimum(step(pv[order], m), 1.0)
    q[ok] = out
    return q


def bh_adjust(p) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (step-up, controls the false discovery rate).

    q_(i) = min over j >= i of min(1, p_(j) * m / j) for the ascending p-values
    p_(1) <= ... <= p_(m).  NaN entries are left NaN and not counted in m.  Matches
    ``scipy.stats.false_discovery_control(p, method='bh')`` on finite input."""
    return _adjust(p, lambda ps, m: np.minimum.accumulate((ps * m / np.arange(1, m + 1))[::-1])[::-1])


def holm_adjust(p) -> np.ndarray:
    """Holm's step-down adjusted p-values (controls the family-wise error rate):
    q_(i) = max over j <= i of min(1, p_(j) * (m - j + 1)); NaN entries left out."""
    return _adjust(p, lambda ps, m: np.maximum.accumulate(ps * (m - np.arange(m))))


def two_proportion_p(k1: float, n1: float, k2: float, n2: float) -> float:
    """Two-sided p-value of the pooled z-test for p1 = p2 (two independent proportions):
    z = (p1 - p2) / sqrt(p (1 - p) (1/n1 + 1/n2)) with p = (k1 + k2) / (n1 + n2),
    p-value = 2 P(Z > |z|) = erfc(|z| / sqrt 2).  NaN if either sample is empty; 1 when
    the pooled variance is 0 (both samples all wins or all losses)."""
    if n1 <= 0 or n2 <= 0:
        return float("nan")
    p1, p2 = k1 / n1, k2 / n2
    p = (k1 + k2) / (n1 + n2)
    var = p * (1 - p) * (1 / n1 + 1 / n2)
    if var <= 0:
        return 1.0
    z = (p1 - p2) / math.sqrt(var)
    return math.erfc(abs(z) / math.sqrt(2))


CARD_COLUMNS = [
    "strategy", "card", "seat_games", "held_games", "held_rate",
    "gih_wr", "gih_ci_low", "gih_ci_high",
    "gns_games", "gns_wr", "gns_ci_low", "gns_ci_high",
    "iwd", "iwd_ci_low", "iwd_ci_high", "p_value", "bh_q", "real",
    "played_games", "played_wr", "played_ci_low", "played_ci_high",
    "play_rate", "play_rate_ci_low", "play_rate_ci_high",
]


def _groups(result, by_strategy: bool) -> list[tuple[str, list[int]]]:
    groups = [(ALL, list(range(result.setup.players)))]
    if by_strategy:
        by: dict[str, list[int]] = {}
        for s, label in enumerate(_labels(result)):
            by.setdefault(label, []).append(s)
        groups += list(by.items())
    return groups


def card_power_table(result, by_strategy: bool = True, alpha: float = 0.05) -> pd.DataFrame:
    """Card power per card type, for the pooled ``'all'`` group (every seat) and, with
    ``by_strategy``, for each strategy label (the seats it plays, pooled).

    The unit is a *seat-game* (one seat in one game); a seat "holds" a card type if it
    ever held one during the game.  Win counts are win shares (shared wins split).

    Columns (one row per (strategy group, card); groups in the order ``'all'`` then
    strategies by first seat; within a group sorted by ``iwd`` descending, NaN last):

    - strategy, card, seat_games (games x seats of the group)
    - held_games (seat-games that ever held the card), held_rate = held_games / seat_games
    - gih_wr, gih_ci_low, gih_ci_high: win rate in seat-games where the card was held
    - gns_games, gns_wr, gns_ci_low, gns_ci_high: win rate in seat-games never holding it
    - iwd, iwd_ci_low, iwd_ci_high: IWD = GIH WR - GNS WR with Newcombe's hybrid score
      interval (``analysis.stats.diff_independent``)
    - p_value: two-sided pooled two-proportion z-test of GIH WR = GNS WR
      (``two_proportion_p``; treats held / never-held seat-games as independent samples,
      an approximation when several seats of one game are pooled)
    - bh_q: Benjamini-Hochberg adjusted p over the cards of the group; real: bh_q < alpha
      (a difference that survives the false discovery rate control at ``alpha``)
    - played_games, played_wr, played_ci_low, played_ci_high: win rate in seat-games
      where the card was played at least once
    - play_rate, play_rate_ci_low, play_rate_ci_high: played_games / held_games

    IWD measures association, not cause: strong seats draw and keep more cards."""
    t = result.tally
    game = result.setup.game
    cards = game.card_types(result.setup.rules)
    frames = []
    for label, seats in _groups(result, by_strategy):
        n_games = t.games * len(seats)
        wins_total = float(t.wins[seats].sum())
        rows = []
        for idx, code in cards:
            held = float(t.held[seats, idx].sum())
            held_w = float(t.held_win[seats, idx].sum())
            played = float(t.played[seats, idx].sum())
            played_w = float(t.played_win[seats, idx].sum())
            gns_n, gns_w = n_games - held, wins_total - held_w
            d, dlo, dhi = diff_independent(held_w, held, gns_w, gns_n)
            glo, ghi = wilson(held_w, held)
            nlo, nhi = wilson(gns_w, gns_n)
            plo, phi = wilson(played_w, played)
            rlo, rhi = wilson(played, held)
            nan = float("nan")
            rows.append({
                "strategy": label, "card": code, "seat_games": n_games,
                "held_games": int(held), "held_rate": held / n_games if n_games else nan,
                "gih_wr": held_w / held if held else nan, "gih_ci_low": glo, "gih_ci_high": ghi,
                "gns_games": int(gns_n), "gns_wr": gns_w / gns_n if gns_n else nan,
                "gns_ci_low": nlo, "gns_ci_high": nhi,
                "iwd": d, "iwd_ci_low": dlo, "iwd_ci_high": dhi,
                "p_value": two_proportion_p(held_w, held, gns_w, gns_n),
                "played_games": int(played), "played_wr": played_w / played if played else nan,
                "played_ci_low": plo, "played_ci_high": phi,
                "play_rate": played / held if held else nan,
                "play_rate_ci_low": rlo, "play_rate_ci_high": rhi,
            })
        g = pd.DataFrame(rows)
        g["bh_q"] = bh_adjust(g["p_value"].to_numpy())
        g["real"] = g["bh_q"] < alpha  # NaN compares False
        g = g.sort_values("iwd", ascending=False, na_position="last", kind="mergesort")
        frames.append(g)
    return pd.concat(frames, ignore_index=True)[CARD_COLUMNS]


__all__ = [
    "ALL",
    "Z95",
    "bh_adjust",
    "card_power_table",
    "end_table",
    "length_table",
    "outcome_table",
    "seat_table",
    "strategy_seat_table",
    "strategy_table",
    "two_proportion_p",
]
