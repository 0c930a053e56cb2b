"""Strategy tournaments: every pairing in every seat order, a win-rate matrix,
Bradley-Terry ratings with intervals, and whether one strategy dominates.

Pairings
--------
- **2 players**: every unordered pair {a, b} plays ``games`` games with a in seat 0 and
  ``games`` games with b in seat 0, so the seat advantage cancels.  a's win rate against
  b is a's win share over those 2 x games games; ``M[a, b] + M[b, a] = 1 - no-winner
  share`` of the pairing.
- **P > 2 players**: for every ordered pair (a, b), a takes one seat and b fills all the
  others, a rotated through every seat (``games`` games per seat), so P x games games.
  a's win rate against b is a's win share over those games; the fair share is 1/P.

Every run uses the same root seed, so game i of every pairing starts from the same deal
(common random numbers): differences between pairings are not deal luck.

Ratings
-------
A Bradley-Terry (Luce choice) model of who wins a game: with log-strengths theta, in a
game of a against m seats of b, P(a wins | someone wins) = e^theta_a / (e^theta_a +
m e^theta_b) = sigmoid(theta_a - theta_b - log m).  For two players this is the classic
Bradley-Terry model.  Games with no winner are left out; shared wins count as fractions.
The maximum-likelihood theta (mean 0) comes from ``scipy.optimize.minimize``; the 95%
intervals are theta +- 1.96 se with the covariance the pseudo-inverse of the observed
Fisher information (the Hessian of the negative log-likelihood; its null direction is
the shift that the mean-0 constraint removes).

Python use::

    from cardlab.analysis.tournament import run_tournament
    t = run_tournament("skyscraper", ["reference", "random", "greedy"], games=2000)
    t.matrix            # t.matrix.loc[a, b]: a's win rate against b
    t.ratings, t.dominant, t.verdict
"""
from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from cardlab.analysis.stats import Z95, wilson
from cardlab.sim.errors import InputError


@dataclass
class Tournament:
    """The result of ``run_tournament``.

    - ``matrix``: DataFrame, index and columns the strategies; ``matrix.loc[a, b]`` is a's
      win rate against b (diagonal NaN).  ``ci_low`` / ``ci_high``: the same shape, the
      95% Wilson interval of each entry.
    - ``pairs``: long form of the matrix: strategy, opponent, games, win_share, win_rate,
      ci_low, ci_high, no_winner (games of the pairing with no winner).
    - ``games``: one row per run: order (the per-seat strategies, comma-joined), a, b,
      a_seat, games, a_win_share, b_win_share (summed over b's seats), no_winner,
      unfinished.  For 2 players every run serves both (a, b) and (b, a).
    - ``ratings``: strategy, rating (Bradley-Terry log-strength, mean 0), se, ci_low,
      ci_high, mean_win_rate (mean of the row of ``matrix``); sorted by rating, best first.
    - ``dominant``: the strategy whose win rate against every other is above the fair
      share (0.5 for two players, 1/P in general) with the whole interval above it; or None.
    - ``verdict``: one plain sentence.
    """
    game: str
    players: int
    strategies: list[str]
    games_per_order: int
    seed: int
    rules: dict[str, Any]
    matrix: pd.DataFrame
    ci_low: pd.DataFrame
    ci_high: pd.DataFrame
    pairs: pd.DataFrame
    games: pd.DataFrame
    ratings: pd.DataFrame
    dominant: str | None
    verdict: str
    fair_share: float
    elapsed_s: float = 0.0
    extra: dict = field(default_factory=dict)

    @property
    def total_games(self) -> int:
        return int(self.games["games"].sum())

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able summary (what ``cardlab tournament --json`` prints)."""
        def r(x, nd=6):
            return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(float(x), nd)

        matrix = {a: {b: None if a == b else {"win_rate": r(self.matrix.loc[a, b]),
                                              "ci": [r(self.ci_low.loc[a, b]), r(self.ci_high.loc[a, b])]}
                      for b in self.strategies} for a in self.strategies}
        return {
            "game": self.game, "players": self.players, "strategies": self.strategies,
            "games_per_order": self.games_per_order, "total_games": self.total_games,
            "seed": self.seed, "rules": self.rules, "fair_share": r(self.fair_share),
            "matrix": matrix,
            "ratings": [{"strategy": row.strategy, "rating": r(row.rating), "se": r(row.se),
                         "ci": [r(row.ci_low), r(row.ci_high)], "mean_win_rate": r(row.mean_win_rate)}
                        for row in self.ratings.itertuples()],
            "dominant": self.dominant, "verdict": self.verdict,
            "runs": [{"order": row.order.split(","), "a": row.a, "b": row.b, "a_seat": int(row.a_seat),
                      "games": int(row.games), "a_win_share": r(row.a_win_share),
                      "b_win_share": r(row.b_win_share), "no_winner": int(row.no_winner),
                      "unfinished": int(row.unfinished)} for row in self.games.itertuples()],
            "elapsed_s": r(self.elapsed_s, 3),
        }


# --------------------------------------------------------------------------- plan
def check_strategies(strategies: list[str] | str) -> list[str]:
    """Normalize a strategy list (or comma-separated string); InputError unless it names at
    least two distinct strategies, each once."""
    if isinstance(strategies, str):
        items = [s.strip() for s in strategies.split(",")]
    else:
        items = [s.strip() for part in strategies for s in str(part).split(",")]
    if any(not s for s in items):
        raise InputError(f"bad --strategies value {','.join(items)!r}: empty strategy name")
    dup = [s for s in dict.fromkeys(items) if items.count(s) > 1]
    if dup:
        raise InputError(f"bad --strategies: '{dup[0]}' is named twice; a tournament needs "
                         f"distinct strategies")
    if len(items) < 2:
        raise InputError(f"bad --strategies {','.join(items)!r}: a tournament needs at least "
                         f"2 distinct strategies, e.g. reference,random")
    return items


def plan(strategies: list[str], players: int) -> list[tuple[str, str, int, list[str]]]:
    """The runs of a tournament: (a, b, a_seat, per-seat strategy list).

    2 players: each unordered pair in both seat orders (a is the seat-0 strategy).
    P > 2: each ordered pair (a, b) with a in seat s = 0..P-1 and b on every other seat."""
    runs = []
    if players == 2:
        for a, b in itertools.combinations(strategies, 2):
            runs.append((a, b, 0, [a, b]))
            runs.append((b, a, 0, [b, a]))
    else:
        for a, b in itertools.permutations(strategies, 2):
            for s in range(players):
                runs.append((a, b, s, [a if i == s else b for i in range(players)]))
    return runs


def progress_total(game_id: str, strategies: list[str], players: int, games: int,
                   sets: list[str] | None = None) -> tuple[int, bool]:
    """What a tournament's progress bar counts, and whether it weighs games by their work
    (``Setup.work``: with a search player among the strategies, a game of it costs as much
    as thousands of heuristic games, so games alone would make the time left wrong).
    Raises InputError for what ``run_tournament`` would refuse."""
    from cardlab.sim import runner

    works = [runner.make_setup(game_id, players, sets, ",".join(order)).work
             for *_, order in plan(strategies, players)]
    return games * sum(works), max(works) > 1


# --------------------------------------------------------------------------- ratings
def bradley_terry(records, strategies: list[str], z: float = Z95) -> pd.DataFrame:
    """Bradley-Terry (Luce) maximum likelihood from ``records``: iterables of
    (a, b, m, wins_a, wins_b) meaning a played m seats of b, a won ``wins_a`` games and
    the b seats together ``wins_b``.  P(a wins) = sigmoid(theta_a - theta_b - log m).

    Returns strategy, rating (theta, mean 0), se, ci_low, ci_high (theta +- z se, the
    covariance being the pseudo-inverse of the observed information).  A strategy that
    never (or always) wins has an infinite MLE: its rating is clipped at +-30 and its
    interval is unbounded on that side."""
    from scipy.optimize import minimize

    idx = {s: i for i, s in enumerate(strategies)}
    K = len(strategies)
    rec = [(idx[a], idx[b], math.log(m), float(wa), float(wb)) for a, b, m, wa, wb in records
           if wa + wb > 0]
    ia = np.array([r[0] for r in rec], dtype=int)
    ib = np.array([r[1] for r in rec], dtype=int)
    off = np.array([r[2] for r in rec])
    wa = np.array([r[3] for r in rec])
    wb = np.array([r[4] for r in rec])
    n = wa + wb

    def nll(theta):
        x = theta[ia] - theta[ib] - off
        # -[wa log sig(x) + wb log sig(-x)] = wa softplus(-x) + wb softplus(x)
        f = float(np.sum(wa * np.logaddexp(0, -x) + wb * np.logaddexp(0, x)))
        p = 1 / (1 + np.exp(-x))
        g_x = n * p - wa  # d f / d x
        grad = np.zeros(K)
        np.add.at(grad, ia, g_x)
        np.add.at(grad, ib, -g_x)
        c = theta.sum()  # pins the free shift: mean 0 at the optimum
        return f + 0.5 * c * c, grad + c

    bound = 30.0
    res = minimize(nll, np.zeros(K), jac=True, method="L-BFGS-B", bounds=[(-bound, bound)] * K,
                   options={"maxiter": 10_000, "ftol": 1e-15, "gtol": 1e-10})
    theta = res.x - res.x.mean()
    x = theta[ia] - theta[ib] - off
    p = 1 / (1 + np.exp(-x))
    w = n * p * (1 - p)
    H = np.zeros((K, K))
    np.add.at(H, (ia, ia), w)
    np.add.at(H, (ib, ib), w)
    np.add.at(H, (ia, ib), -w)
    np.add.at(H, (ib, ia), -w)
    cov = np.linalg.pinv(H, hermitian=True)
    se = np.sqrt(np.clip(np.diag(cov), 0, None))
    lo, hi = theta - z * se, theta + z * se
    # a strategy with no wins (or no losses) at all: the MLE is at infinity
    for k in range(K):
        won = wa[ia == k].sum() + wb[ib == k].sum()
        lost = wb[ia == k].sum() + wa[ib == k].sum()
        if won == 0:
            lo[k] = -np.inf
        if lost == 0:
            hi[k] = np.inf
    return pd.DataFrame({"strategy": strategies, "rating": theta, "se": se, "ci_low": lo,
                         "ci_high": hi})


# --------------------------------------------------------------------------- tournament
def run_tournament(game_id: str, strategies: list[str] | str, players: int | None = None,
                   games: int = 2000, seed: int = 1, jobs: int | None = None,
                   sets: list[str] | None = None,
                   progress: Callable[[int], None] | None = None, weighted: bool = False,
                   backend: str = "local", scheduler: str | None = None) -> Tournament:
    """Play every pairing of ``strategies`` in every seat order (``games`` games per seat
    order, the same seed for every run) and rate the strategies.  Raises InputError on
    bad input (unknown game, strategy, knob; fewer than 2 distinct strategies; 1 player).
    ``progress(n)`` is called as chunks of n games end; with ``weighted``, n is weighted
    by the run's ``Setup.work`` (``progress_total`` says which, and the total).
    ``backend="dask"`` plays every run on one Dask client (``scheduler``, or a LocalCluster
    of ``jobs`` workers), with the same result as local threads."""
    from cardlab.sim import runner
    from cardlab.sim.dask_backend import backend_session
    from cardlab.sim.registry import get_game

    names = check_strategies(strategies)
    game = get_game(game_id)
    players = game.default_players if players is None else players
    if players < 2:
        raise InputError(f"bad --players {players}: a tournament needs at least 2 players")
    runner.check_counts(games, seed, jobs)
    # validate everything (players, knobs, every strategy) before playing anything
    for name in names:
        runner.make_setup(game_id, players, sets, name, seed)
    runs = plan(names, players)
    t0 = time.perf_counter()
    rows = []
    rules = None
    with backend_session(backend, scheduler, jobs):
        results = []
        for a, b, a_seat, order in runs:
            setup = runner.make_setup(game_id, players, sets, ",".join(order), seed)
            rules = setup.game.rules_json(setup.rules)
            results.append(runner.run(setup, games, jobs, backend=backend, scheduler=scheduler,
                                      progress=runner.weigh(progress, setup) if weighted else progress))
    for (a, b, a_seat, order), res in zip(runs, results):
        t = res.tally
        wins = t.wins
        a_w = float(wins[a_seat])
        rows.append({"order": ",".join(order), "a": a, "b": b, "a_seat": a_seat, "games": t.games,
                     "a_win_share": a_w, "b_win_share": float(wins.sum()) - a_w,
                     "no_winner": t.no_winner, "unfinished": t.unfinished})
    elapsed = time.perf_counter() - t0
    runs_df = pd.DataFrame(rows, columns=["order", "a", "b", "a_seat", "games", "a_win_share",
                                          "b_win_share", "no_winner", "unfinished"])
    return _assemble(game.id, players, names, games, seed, rules, runs_df, elapsed)


def _assemble(game_id, players, names, games, seed, rules, runs_df, elapsed) -> Tournament:
    fair = 1.0 / players
    # a's games and wins against b
    acc: dict[tuple[str, str], list[float]] = {(a, b): [0.0, 0.0, 0.0] for a in names for b in names
                                                if a != b}
    records = []
    for r in runs_df.itertuples():
        acc[(r.a, r.b)][0] += r.games
        acc[(r.a, r.b)][1] += r.a_win_share
        acc[(r.a, r.b)][2] += r.no_winner
        if players == 2:  # the same games, seen from b
            acc[(r.b, r.a)][0] += r.games
            acc[(r.b, r.a)][1] += r.b_win_share
            acc[(r.b, r.a)][2] += r.no_winner
        records.append((r.a, r.b, players - 1, r.a_win_share, r.b_win_share))
    pair_rows = []
    M = pd.DataFrame(np.nan, index=names, columns=names)
    L, H = M.copy(), M.copy()
    for (a, b), (n, w, nw) in acc.items():
        lo, hi = wilson(w, n)
        M.loc[a, b], L.loc[a, b], H.loc[a, b] = w / n, lo, hi
        pair_rows.append({"strategy": a, "opponent": b, "games": int(n), "win_share": w,
                          "win_rate": w / n, "ci_low": lo, "ci_high": hi, "no_winner": int(nw)})
    for X in (M, L, H):
        X.index.name, X.columns.name = "strategy", "opponent"
    pairs = pd.DataFrame(pair_rows)
    ratings = bradley_terry(records, names)
    ratings["mean_win_rate"] = [M.loc[s].mean() for s in names]
    ratings = ratings.sort_values("rating", ascending=False, kind="mergesort").reset_index(drop=True)
    dominant = None
    for s in ratings["strategy"]:  # best rated first (for P > 2 two could qualify)
        if all(L.loc[s, o] > fair for o in names if o != s):
            dominant = s
            break
    verdict = _verdict(names, M, L, H, ratings, dominant, fair)
    return Tournament(game_id, players, names, games, seed, rules or {}, M, L, H, pairs, runs_df,
                      ratings, dominant, verdict, fair, elapsed)


def _verdict(names, M, L, H, ratings, dominant, fair) -> str:
    share = f"{100 * fair:.0f}%" if fair == 0.5 else f"the fair share {100 * fair:.1f}%"
    if dominant is not None:
        worst = min((o for o in names if o != dominant), key=lambda o: M.loc[dominant, o])
        return (f"{dominant} dominates: it beats every other strategy, its closest contest "
                f"being {100 * M.loc[dominant, worst]:.1f}% "
                f"[{100 * L.loc[dominant, worst]:.1f}%, {100 * H.loc[dominant, worst]:.1f}%] "
                f"against {worst}, with the whole 95% interval above {share}.")
    best = ratings.iloc[0]["strategy"]
    others = [o for o in names if o != best]
    not_beaten = [o for o in others if not L.loc[best, o] > fair]
    o = max(not_beaten, key=lambda o: M.loc[o, best])
    fig = f"{100 * M.loc[best, o]:.1f}% [{100 * L.loc[best, o]:.1f}%, {100 * H.loc[best, o]:.1f}%]"
    if H.loc[best, o] < fair:  # the whole interval below: it does not dominate
        return f"No strategy dominates: {best} rates highest, but its win rate against {o} is {fig}, below {share}."
    return (f"No strategy is shown to dominate: {best} rates highest, but its win rate against {o} is "
            f"{fig}, not clearly above {share} (cannot tell yet with these games).")


def render_text(t: Tournament) -> str:
    """A readable report: the matrix, the ratings with intervals, the verdict."""
    names = t.strategies
    w = max(8, max(len(s) for s in names))
    head = (f"{t.game}: tournament of {len(names)} strategies, {t.players} players, "
            f"{t.games_per_order:,} games per seat order ({t.total_games:,} games), seed {t.seed}")
    lines = [head, ""]
    if t.players == 2:
        lines.append("Win rate of the row strategy against the column strategy "
                     "(both seat orders; 95% interval below):")
    else:
        lines.append(f"Win rate of the row strategy, one seat, against {t.players - 1} seats "
                     f"of the column strategy (every seat; fair share {100 * t.fair_share:.1f}%; "
                     f"95% interval below):")
    cw = max(15, w)
    lines.append(" " * (w + 2) + "".join(f"{s:>{cw}}" for s in names))
    for a in names:
        top = "".join(f"{'—':>{cw}}" if a == b else f"{100 * t.matrix.loc[a, b]:>{cw - 1}.1f}%"
                      for b in names)
        ci = "".join(" " * cw if a == b else
                     f"{f'[{100 * t.ci_low.loc[a, b]:.1f}, {100 * t.ci_high.loc[a, b]:.1f}]':>{cw}}"
                     for b in names)
        lines.append(f"  {a:<{w}}{top}")
        lines.append(f"  {'':<{w}}{ci}")
    lines.append("")
    lines.append("Bradley-Terry ratings (log-strength, mean 0; 95% interval):")
    for r in t.ratings.itertuples():
        lines.append(f"  {r.strategy:<{w}} {r.rating:+7.3f}  [{r.ci_low:+.3f}, {r.ci_high:+.3f}]"
                     f"   mean win rate {100 * r.mean_win_rate:.1f}%")
    nw = t.games["no_winner"].sum()
    if nw:
        lines.append(f"  {nw:,} games ({100 * nw / t.total_games:.1f}%) had no winner "
                     f"and are left out of the ratings")
    lines.append("")
    lines.append(t.verdict)
    lines.append(f"{t.elapsed_s:.1f} s")
    return "\n".join(lines)


__all__ = [
    "Tournament",
    "bradley_terry",
    "check_strategies",
    "plan",
    "render_text",
    "run_tournament",
]
