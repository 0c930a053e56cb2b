"""Strategy search: find the parameters that make a strategy strongest against a field.

    from cardlab.analysis.optimize import optimize
    r = optimize("skyscraper", "aggressive", ["reference"], games=4000, budget=60)
    r.best, r.verdict, r.evaluations

- **Objective.** The candidate's win share against the field: the candidate takes one
  seat, the field strategies fill the others in order, and the candidate is rotated
  through every seat (``games / players`` games per seat, so seat advantage cancels).
- **Common random numbers.** Every candidate plays the same game indices of the same
  seed, so two candidates are compared on the same deals and the search is not chasing
  deal luck.
- **Search.** ``scipy.optimize.differential_evolution`` over the strategy's declared
  parameter bounds (integer parameters stay integers), seeded, with at most ``budget``
  candidate evaluations; the default parameters are one member of the first
  population, so the search starts from them.
- **Honest numbers.** The best of many noisy candidates looks better than it is (the
  winner's curse), so the winner and the defaults are re-played on fresh seeds, and the
  report gives those win rates with Wilson intervals and their paired difference.
- **Across rule variants** (``vary``): the tuned and default parameters are replayed
  under each variant, showing how the tuned strategy's edge changes with a knob.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd

from cardlab.analysis.stats import wilson
from cardlab.sim.errors import InputError

CAND = None  # the candidate's seat in a seating
FRESH_SEED_OFFSET = 1_000_003  # fresh games: a different root seed (an independent stream)


@dataclass
class OptResult:
    game: str
    strategy: str
    against: list[str]
    players: int
    seed: int
    games: int
    budget: int
    default: dict[str, float]
    best: dict[str, float]
    train_default: float
    train_best: float
    fresh_games: int
    fresh_default: dict[str, Any]   # rate, ci
    fresh_best: dict[str, Any]
    difference: dict[str, float]    # tuned - default on the fresh games: diff, lo, hi, p
    evaluations: pd.DataFrame       # one row per candidate, in evaluation order
    verdict: str
    variants: pd.DataFrame | None = None
    sets: list[str] = field(default_factory=list)
    elapsed_s: float = 0.0

    @property
    def fair(self) -> float:
        return 1.0 / self.players

    @property
    def leans_on(self) -> str:
        """The first clause of the strategy's description, e.g. "attacks and slows the leader"."""
        from cardlab.sim.registry import get_game

        text = get_game(self.game).strategies[self.strategy].help
        first = text.split(":")[0].split(";")[0].split(".")[0].strip()
        return first[:1].lower() + first[1:]

    def to_json(self) -> dict:
        out = {k: getattr(self, k) for k in ("game", "strategy", "against", "players", "seed", "games",
                                              "budget", "default", "best", "train_default", "train_best",
                                              "fresh_games", "fresh_default", "fresh_best", "difference",
                                              "verdict", "sets", "elapsed_s")}
        out["evaluations"] = self.evaluations.to_dict(orient="records")
        if self.variants is not None:
            out["variants"] = self.variants.to_dict(orient="records")
        return out


def seatings(players: int, against: Sequence[str]) -> list[list]:
    """The candidate in each seat in turn, the field filling the other seats in order."""
    out = []
    for s in range(players):
        field_iter = (against[i % len(against)] for i in range(players - 1))
        out.append([CAND if i == s else next(field_iter) for i in range(players)])
    return out


def spec(name: str, params: dict[str, float]) -> str:
    return name + "".join(f":{k}={v:g}" for k, v in params.items())


def evaluate(game_id: str, players: int, strategy: str, params: dict[str, float], against: Sequence[str],
             games: int, seed: int, sets: Sequence[str] | None = None, jobs: int | None = None,
             per_game: bool = False) -> tuple[float, np.ndarray | None]:
    """The candidate's mean win share over every seating (games // players games each);
    with ``per_game`` also its share in every game, in a fixed order (seating, index)."""
    from cardlab.sim.runner import make_setup, run

    per = max(1, games // players)
    total = 0.0
    shares = []
    me = spec(strategy, params)
    for seats in seatings(players, against):
        s = seats.index(CAND)
        setup = make_setup(game_id, players, list(sets or []),
                           ",".join(me if x is CAND else x for x in seats), seed)
        r = run(setup, per, jobs, keep_rows=per_game)
        total += float(r.tally.wins[s]) / per
        if per_game:
            mask = r.rows[:, 2]
            n_win = np.zeros(per)
            for q in range(players):
                n_win += (mask >> q) & 1
            shares.append(np.where((mask >> s) & 1, 1.0 / np.maximum(n_win, 1), 0.0))
    return total / players, (np.concatenate(shares) if per_game else None)


def _rate(shares: np.ndarray) -> dict[str, Any]:
    k, n = float(shares.sum()), len(shares)
    lo, hi = wilson(k, n)
    return {"rate": k / n, "ci": [lo, hi], "games": n}


def _fmt_params(p: dict[str, float]) -> str:
    return ", ".join(f"{k}={v:g}" for k, v in p.items()) or "no parameters"


def verdict_text(r: "OptResult") -> str:
    fb, fd, d = r.fresh_best, r.fresh_default, r.difference
    field_txt = "/".join(dict.fromkeys(r.against))
    half = (fb["ci"][1] - fb["ci"][0]) / 2
    head = (f"a tuned {r.strategy} ({_fmt_params(r.best)}) wins {100 * fb['rate']:.1f}% ± {100 * half:.1f}% "
            f"against the {field_txt} field on {r.fresh_games:,} fresh games, against "
            f"{100 * fd['rate']:.1f}% with its default parameters ({100 * d['diff']:+.1f} points, 95% interval "
            f"{100 * d['lo']:+.1f} to {100 * d['hi']:+.1f}; fair share {100 * r.fair:.1f}%)")
    if d["lo"] > 0:
        tail = ": tuning makes it clearly stronger"
        if fb["ci"][0] > r.fair:
            moved = ", ".join(f"{k} {r.default[k]:g} -> {v:g}" for k, v in r.best.items() if v != r.default[k])
            tail += (f", and it beats the field outright: a dominant line of play exists ({r.strategy}: "
                     f"{r.leans_on}; tuning moved {moved}); check whether what it exploits is too strong")
        elif fb["ci"][1] < r.fair:
            tail += ", though it still loses to the field: no degenerate strategy found along these parameters"
        return head[0].upper() + head[1:] + tail + "."
    if d["hi"] < 0:
        return (head[0].upper() + head[1:] + ": the search overfitted its training games (the defaults do "
                "better on fresh games); give it more --games or a larger --budget.")
    return (head[0].upper() + head[1:] + ": no measurable gain from tuning; the defaults are about as "
            "good as this search can find.")


def optimize(game_id: str, strategy: str, against: Sequence[str] | str, *, games: int, budget: int,
             players: int | None = None, seed: int = 1, sets: Sequence[str] | None = None,
             jobs: int | None = None, fresh_games: int | None = None,
             vary: Sequence[str] | None = None,
             progress: Callable[[int, float, float], None] | None = None) -> OptResult:
    """Search ``strategy``'s parameters for the highest win rate against ``against``."""
    from scipy.optimize import differential_evolution

    from cardlab.analysis.sweep import paired_difference
    from cardlab.sim.registry import get_game
    from cardlab.sim.runner import MAX_GAMES, check_counts, make_setup

    t0 = time.perf_counter()
    game = get_game(game_id)
    players = game.default_players if players is None else players
    if isinstance(against, str):
        against = [a.strip() for a in against.split(",") if a.strip()]
    if not against:
        raise InputError("bad --against: name at least one strategy for the field")
    known = game.strategies
    if strategy not in known:
        raise InputError(f"unknown strategy '{strategy}' for game '{game_id}': allowed {', '.join(known)}")
    params = known[strategy].params
    if not params:
        tunable = [s.name for s in known.values() if s.params]
        raise InputError(f"strategy '{strategy}' has no parameters to tune: allowed {', '.join(tunable)}")
    check_counts(games, seed, jobs)
    if budget < 1:
        raise InputError(f"bad --budget {budget}: allowed 1 or more candidate evaluations")
    if games < players:
        raise InputError(f"bad --games {games}: allowed at least one game per seat ({players})")
    fresh_games = 4 * games if fresh_games is None else fresh_games
    if fresh_games < players or fresh_games > MAX_GAMES:
        raise InputError(f"bad --fresh-games {fresh_games}: allowed {players} (one game per seat) to {MAX_GAMES:,}")
    if vary:  # checked before the search, not after it
        from cardlab.analysis.sweep import make_grid, parse_vary

        spec_ = parse_vary(vary)
        if any(k in ("players", "strategies") for k, _ in spec_):
            raise InputError("optimize --vary takes rule knobs only (players and strategies are fixed by the search)")
        make_grid(game_id, spec_, sets, None, players, seed)
    # validates the field, the rules and the player count once, with a clear message
    make_setup(game_id, players, list(sets or []), ",".join([strategy] + list(against)), seed)

    def to_params(x) -> dict[str, float]:
        return {p.name: float(round(v)) if p.integer else float(v) for p, v in zip(params, x)}

    default = {p.name: float(p.default) for p in params}
    cache: dict[tuple, float] = {}
    rows: list[dict] = []

    def score(d: dict[str, float]) -> float:
        key = tuple(d.values())
        if key not in cache:
            w, _ = evaluate(game_id, players, strategy, d, against, games, seed, sets, jobs)
            cache[key] = w
            rows.append({"evaluation": len(rows) + 1, **d, "win_rate": w})
            if progress is not None:
                progress(len(rows), w, max(r["win_rate"] for r in rows))
        return cache[key]

    train_default = score(default)
    dim = len(params)
    popsize = max(1, min(15, budget // (2 * dim)))  # the population is popsize * dim (at least 5)
    pop = max(5, popsize * dim)
    maxiter = max(0, budget // pop - 1)

    def objective(x):
        if len(rows) >= budget and tuple(to_params(x).values()) not in cache:
            return 0.0  # out of budget: never better than a real evaluation
        return -score(to_params(x))

    lo = np.array([p.lo for p in params], float)
    hi = np.array([p.hi for p in params], float)
    x0 = np.clip([p.default for p in params], lo, hi)
    if budget > 1:
        differential_evolution(objective, list(zip(lo, hi)), popsize=popsize, maxiter=maxiter, seed=seed,
                               polish=False, init="latinhypercube", tol=0, x0=x0,
                               integrality=[p.integer for p in params], updating="immediate")
    evals = pd.DataFrame(rows)
    best_row = evals.loc[evals["win_rate"].idxmax()]
    best = {p.name: float(best_row[p.name]) for p in params}
    # fresh seeds: the same fresh games for both, paired by game
    fseed = seed + FRESH_SEED_OFFSET
    _, sb = evaluate(game_id, players, strategy, best, against, fresh_games, fseed, sets, jobs, per_game=True)
    _, sd = evaluate(game_id, players, strategy, default, against, fresh_games, fseed, sets, jobs, per_game=True)
    diff = paired_difference(sb, sd)
    res = OptResult(game_id, strategy, list(against), players, seed, games, budget, default, best,
                    train_default, float(best_row["win_rate"]), len(sb), _rate(sd), _rate(sb),
                    {k: diff[k] for k in ("diff", "lo", "hi", "p")}, evals, "", sets=list(sets or []))
    res.verdict = verdict_text(res)
    if vary:
        res.variants = edge_by_variant(res, vary, fresh_games, jobs)
    res.elapsed_s = time.perf_counter() - t0
    return res


def edge_by_variant(res: OptResult, vary: Sequence[str], games: int, jobs: int | None) -> pd.DataFrame:
    """The tuned and default parameters replayed (fresh seeds) under every rule variant of
    ``vary`` (``["KEY=V1,V2", ...]``, rule knobs only): the tuned edge per variant."""
    from cardlab.analysis.sweep import make_grid, paired_difference, parse_vary

    spec_ = parse_vary(vary)
    if any(k in ("players", "strategies") for k, _ in spec_):
        raise InputError("optimize --vary takes rule knobs only (players and strategies are fixed by the search)")
    grid = make_grid(res.game, spec_, res.sets, None, res.players, res.seed)
    out = []
    fseed = res.seed + FRESH_SEED_OFFSET
    for v in grid:
        sets = list(res.sets) + [f"{k}={val}" for k, val in v.values.items()]
        _, sb = evaluate(res.game, res.players, res.strategy, res.best, res.against, games, fseed, sets, jobs, True)
        _, sd = evaluate(res.game, res.players, res.strategy, res.default, res.against, games, fseed, sets, jobs, True)
        d = paired_difference(sb, sd)
        rb, rd = _rate(sb), _rate(sd)
        out.append({"variant": v.label, **v.values, "tuned": rb["rate"], "tuned_lo": rb["ci"][0],
                    "tuned_hi": rb["ci"][1], "default": rd["rate"], "default_lo": rd["ci"][0],
                    "default_hi": rd["ci"][1], "edge": d["diff"], "edge_lo": d["lo"], "edge_hi": d["hi"],
                    "p": d["p"], "games": len(sb)})
    return pd.DataFrame(out)


def render_text(r: OptResult) -> str:
    L = [f"optimize {r.game}: {r.strategy} against {', '.join(r.against)} ({r.players} players), "
         f"{len(r.evaluations)} candidates x {r.games:,} games (seed {r.seed}), fresh check on "
         f"{r.fresh_games:,} games",
         f"  default parameters: {_fmt_params(r.default)}",
         f"  tuned parameters:   {_fmt_params(r.best)}",
         f"  training games:     default {100 * r.train_default:.1f}%, tuned {100 * r.train_best:.1f}% "
         f"(optimistic: the best of {len(r.evaluations)} noisy candidates)"]
    for name, x in (("default", r.fresh_default), ("tuned", r.fresh_best)):
        L.append(f"  fresh games, {name + ':':<9} {100 * x['rate']:.1f}% [{100 * x['ci'][0]:.1f}, "
                 f"{100 * x['ci'][1]:.1f}]")
    d = r.difference
    L.append(f"  tuned - default:    {100 * d['diff']:+.1f} points [{100 * d['lo']:+.1f}, {100 * d['hi']:+.1f}], "
             f"p = {d['p']:.2g}")
    if r.variants is not None:
        L.append("  the tuned edge across rule variants (fresh games):")
        for _, v in r.variants.iterrows():
            L.append(f"    {v['variant']}: tuned {100 * v['tuned']:.1f}%, default {100 * v['default']:.1f}%, "
                     f"edge {100 * v['edge']:+.1f} [{100 * v['edge_lo']:+.1f}, {100 * v['edge_hi']:+.1f}]")
    L.append("")
    L.append(r.verdict)
    return "\n".join(L)
