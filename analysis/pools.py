"""Seat verdicts that hold across players: the same game played by several *pools* of
players, and whether each finding holds for every pool or depends on who plays.

A seat edge measured with one deterministic strategy in every seat can be an artefact of
that bot (identical bots make identical mistakes in the same seat).  So the seat
advantage, the dominant strategy and the unfinished rate are measured in every pool:

- **self-play pools**: each heuristic of the game in every seat (``game.strategies`` minus
  ``random`` by default; any strategy may be named, ``random`` and ``mcts`` included, with
  parameters as ``NAME:key=value``);
- the **mixed** pool: every game draws each seat's strategy at random (uniform, each seat
  on its own) from the heuristics, so a seat meets every strategy and every table mix.

The mixed pool's draw is deterministic and independent of ``--jobs``: game *g*'s strategy
for seat *s* is ``splitmix64(splitmix64(seed * golden) ^ g ^ salt(s)) mod K`` (``K``
heuristics; the bias of the modulus is below 2^-60), a stream of its own that never touches
the game's chance stream.  The games are then grouped by their assignment of strategies to
seats, and each group is played by the compiled kernel on exactly its game indices (one
call per game, on threads): game *g* of the mixed pool is game *g* of the seed's sequence
with that assignment, so it meets the same deal as game *g* of every self-play pool
(common random numbers).  Integer tallies summed in any order give the same bytes.

Per pool: the win rate per seat (95% Wilson), seat 0's edge over the fair share (among
games with a winner when at least 0.1% of games have none), the unfinished rate, the
no-winner rate and, in a pool of several strategies, each strategy's win rate per
seat-game and the dominant one (its interval above every other strategy's).  Each verdict
says "holds for every pool" (every pool gives the same answer: a real advantage, a real
disadvantage, or none detectable; capped games or none) or "depends on the players",
with the per-pool figures.

Python use::

    from cardlab.analysis.pools import run_pools
    p = run_pools(setup, ["reference", "greedy", "mixed"], games=5000)
    p.verdicts, p.to_dict()
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from cardlab.analysis.stats import wilson
from cardlab.sim.errors import InputError
from cardlab.sim.tally import WIN_UNIT, Tally

MIXED = "mixed"
NEGLIGIBLE = 0.001      # a no-winner / unfinished rate below this is negligible
_SALT = np.uint64(0xD1B54A32D192ED03)   # keeps the draw apart from every game stream
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


# --------------------------------------------------------------------------- the pools
def default_pools(game) -> list[str]:
    """Every heuristic but ``random`` in self-play, then the mixed pool (never ``mcts``:
    the search player is slow; name it in ``--pools`` to add it)."""
    return [n for n in game.strategies if n != "random"] + [MIXED]


def parse_pools(spec: str | None, game, players: int) -> list[str]:
    """``--pools``: None or ``default`` for ``default_pools``, ``none`` for no pools, else
    comma-separated pool names (``mixed`` or a strategy, parameters allowed).  Every name
    is checked now (InputError naming it and what is allowed)."""
    from cardlab.strategies.base import parse_strategies

    if spec is None or spec.strip() == "default":
        return default_pools(game)
    if spec.strip() == "none":
        return []
    names = [x.strip() for x in spec.split(",")]
    if not all(names):
        raise InputError(f"bad --pools {spec!r}: an empty pool name")
    for n in names:
        if n == MIXED:
            if len(_heuristics(game)) < 2:
                raise InputError(f"bad --pools {spec!r}: '{MIXED}' needs 2 or more heuristics")
            continue
        try:
            parse_strategies(n, game.all_strategies, players, game.id, game.default_strategy)
        except InputError as e:
            raise InputError(f"bad --pools {spec!r}: {e} (or '{MIXED}', 'default', 'none')") from None
    if len(set(names)) != len(names):
        raise InputError(f"bad --pools {spec!r}: a pool is named twice")
    return names


def _heuristics(game) -> list[str]:
    return [n for n in game.strategies if n != "random"]


def _splitmix(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        z = x + _GOLDEN
        z = (z ^ (z >> np.uint64(30))) * _M1
        z = (z ^ (z >> np.uint64(27))) * _M2
        return z ^ (z >> np.uint64(31))


def mixed_assignment(seed: int, start: int, games: int, players: int, k: int) -> np.ndarray:
    """(games, players): the strategy index (0..k-1) each seat plays in games
    [start, start + games) of the mixed pool; depends on (seed, game index, seat) only."""
    g = np.arange(start, start + games, dtype=np.uint64)
    with np.errstate(over="ignore"):
        root = _splitmix(np.array([np.uint64(seed) * _GOLDEN], dtype=np.uint64))[0]
        out = np.empty((games, players), dtype=np.int64)
        for s in range(players):
            h = _splitmix(_splitmix(root ^ g ^ (_SALT * np.uint64(s + 1))))
            out[:, s] = (h % np.uint64(k)).astype(np.int64)
    return out


# --------------------------------------------------------------------------- playing
@dataclass
class PoolResult:
    name: str
    tally: Tally
    strategy_seat_wins: dict[str, np.ndarray]    # win units per seat when it played the strategy
    strategy_seat_games: dict[str, np.ndarray]   # seat-games per seat when it played the strategy


def _setup_for(base, spec: str):
    from cardlab.sim.runner import Setup
    from cardlab.strategies.base import parse_strategies

    g = base.game
    seats = parse_strategies(spec, g.all_strategies, base.players, g.id, g.default_strategy)
    return Setup(g, base.players, base.rules, seats, base.seed)


def play_self(base, spec: str, games: int, jobs: int | None, progress=None) -> PoolResult:
    from cardlab.sim import runner

    setup = _setup_for(base, spec)
    r = runner.run(setup, games, jobs, progress=progress)
    P = base.players
    label = setup.seats[0].label
    return PoolResult(spec, r.tally, {label: r.tally.win_units.astype(np.int64).copy()},
                      {label: np.full(P, games, dtype=np.int64)})


def play_mixed(base, games: int, jobs: int | None, progress=None) -> PoolResult:
    """The mixed pool: games [0, games) of ``base``'s seed, each seat's strategy drawn by
    ``mixed_assignment``, each assignment's games played on their own indices."""
    from concurrent.futures import ThreadPoolExecutor

    from cardlab.sim import runner

    game = base.game
    names = _heuristics(game)
    P = base.players
    draw = mixed_assignment(base.seed, 0, games, P, len(names))
    groups: dict[tuple, list[int]] = defaultdict(list)
    for g, row in enumerate(draw):
        groups[tuple(int(x) for x in row)].append(g)
    max_len = game.max_length(base.rules)
    setups = {a: _setup_for(base, ",".join(names[i] for i in a)) for a in groups}
    kernel = runner.warm(next(iter(setups.values())))  # one kernel serves every assignment

    def play(a):
        s = setups[a]
        arrays = s.arrays()
        tally = game.tally.new(max_len)
        rows = np.zeros((0, game.row_width), dtype=np.int64)
        for g in groups[a]:
            runner.play_kernel(s, kernel, arrays, g, g + 1, tally, rows, 0)
        if progress is not None:
            progress(len(groups[a]))
        return a, tally

    total = game.tally.new(max_len)
    wins = {n: np.zeros(P, dtype=np.int64) for n in names}
    seat_games = {n: np.zeros(P, dtype=np.int64) for n in names}
    order = sorted(groups)
    workers = jobs or runner.default_jobs()
    with ThreadPoolExecutor(max_workers=workers) as ex:
        results = list(ex.map(play, order)) if workers > 1 else [play(a) for a in order]
    for a, tally in results:
        total += tally
        t = Tally(game.tally, tally, P)
        for s, i in enumerate(a):
            wins[names[i]][s] += int(t.win_units[s])
            seat_games[names[i]][s] += t.games
    if int(total[0]) != games:
        from cardlab.sim.errors import RunError

        raise RunError(f"the mixed pool played {int(total[0])} of {games} games")
    return PoolResult(MIXED, Tally(game.tally, total, P), wins, seat_games)


# --------------------------------------------------------------------------- statistics
def _edge_class(ci) -> int:
    return 1 if ci[0] > 0 else (-1 if ci[1] < 0 else 0)


def pool_stats(p: PoolResult) -> dict[str, Any]:
    """The per-pool figures (the entries of the ``pools`` JSON object)."""
    t = p.tally
    n, P = t.games, t.players
    wins = t.wins
    fair = 1.0 / P
    decided = n - t.no_winner
    use_decided = t.no_winner / n >= NEGLIGIBLE and decided > 0
    base = decided if use_decided else n
    lo, hi = wilson(float(wins[0]), base)
    edge = float(wins[0]) / base - fair if base else float("nan")
    ci = [lo - fair, hi - fair]
    out: dict[str, Any] = {
        "pool": p.name, "games": n, "strategies": sorted(p.strategy_seat_wins),
        "win_rate_by_seat": [float(w / n) for w in wins],
        "win_rate_ci_by_seat": [list(wilson(float(w), n)) for w in wins],
        "seat0_edge": edge, "seat0_edge_ci": ci,
        "seat0_edge_among": "games with a winner" if use_decided else "all games",
        "seat0_edge_class": _edge_class(ci),
        "no_winner_rate": t.no_winner / n,
        "unfinished_rate": t.unfinished / n, "unfinished_rate_ci": list(wilson(t.unfinished, n)),
        "unfinished_games": t.unfinished,
    }
    if len(p.strategy_seat_wins) > 1:
        by = {}
        for name in p.strategy_seat_wins:
            k = float(p.strategy_seat_wins[name].sum()) / WIN_UNIT
            m = int(p.strategy_seat_games[name].sum())
            by[name] = {"win_rate": k / m if m else None, "ci": list(wilson(k, m)) if m else None,
                        "seat_games": m}
        out["win_rate_by_strategy"] = by
        out["dominant"] = _dominant(by)
    return out


def _dominant(by: dict[str, dict]) -> str | None:
    """The strategy whose win-rate interval lies above every other strategy's, or None."""
    ok = {k: v for k, v in by.items() if v["ci"] is not None}
    for name, v in ok.items():
        if all(v["ci"][0] > w["ci"][1] for other, w in ok.items() if other != name):
            return name
    return None


def _pts(x: float) -> str:
    return f"{100 * x:+.1f}"


def verdicts(stats: list[dict[str, Any]], role: str = "the first player") -> dict[str, dict[str, Any]]:
    """Each finding over the pools: ``holds`` (True: the same answer in every pool) and a
    sentence that names the per-pool figures."""
    out: dict[str, dict[str, Any]] = {}
    if not stats:
        return out
    # seat 0's edge
    word = {1: "an advantage", -1: "a disadvantage", 0: "no detectable edge"}
    classes = {s["seat0_edge_class"] for s in stats}
    figs = "; ".join(f"{s['pool']} {_pts(s['seat0_edge'])} [{_pts(s['seat0_edge_ci'][0])}, "
                     f"{_pts(s['seat0_edge_ci'][1])}]" for s in stats)
    if len(classes) == 1:
        c = classes.pop()
        lo = min(s["seat0_edge"] for s in stats)
        hi = max(s["seat0_edge"] for s in stats)
        text = (f"Seat 0's ({role}) edge holds for every pool: {word[c]} in all {len(stats)} pools "
                f"({_pts(lo)} to {_pts(hi)} points; {figs}).")
        out["seat0_edge"] = {"holds": True, "answer": word[c], "min": lo, "max": hi, "text": text}
    else:
        parts = []
        for c in (1, -1, 0):
            pools = [s["pool"] for s in stats if s["seat0_edge_class"] == c]
            if pools:
                parts.append(f"{word[c]} with {', '.join(pools)}")
        text = (f"Seat 0's ({role}) edge depends on the players: " + "; ".join(parts) +
                f" (points over the fair share, 95% intervals: {figs}).")
        out["seat0_edge"] = {"holds": False, "answer": None,
                             "min": min(s["seat0_edge"] for s in stats),
                             "max": max(s["seat0_edge"] for s in stats), "text": text}
    # unfinished games
    has = [s["unfinished_rate"] >= NEGLIGIBLE for s in stats]
    figs = "; ".join(f"{s['pool']} {100 * s['unfinished_rate']:.2f}%" for s in stats)
    if all(has) or not any(has):
        what = "games stop at the cap in every pool" if all(has) else "no pool leaves games unfinished"
        out["unfinished"] = {"holds": True, "answer": all(has),
                             "text": f"Unfinished games: holds for every pool, {what} ({figs})."}
    else:
        some = [s["pool"] for s, h in zip(stats, has) if h]
        out["unfinished"] = {"holds": False, "answer": None,
                             "text": f"Unfinished games depend on the players: at least 0.1% of "
                                     f"games hit the cap with {', '.join(some)} ({figs})."}
    # the dominant strategy: only a pool of several strategies can show one
    multi = [s for s in stats if "dominant" in s]
    if multi:
        doms = {s["dominant"] for s in multi}
        figs = "; ".join(f"{s['pool']}: " + ", ".join(
            f"{k} {100 * v['win_rate']:.1f}%" for k, v in s["win_rate_by_strategy"].items()
            if v["win_rate"] is not None) for s in multi)
        note = " (self-play pools have one strategy, so they cannot show one)"
        if len(doms) == 1:
            d = doms.pop()
            what = f"{d} dominates" if d else "no strategy dominates"
            out["dominant"] = {"holds": True, "answer": d,
                               "text": f"Dominant strategy: {what} in every pool of several "
                                       f"strategies{note} ({figs})."}
        else:
            out["dominant"] = {"holds": False, "answer": None,
                               "text": f"The dominant strategy depends on the players{note} ({figs})."}
    return out


# --------------------------------------------------------------------------- the run
@dataclass
class Pools:
    game: str
    players: int
    seed: int
    games: int
    pools: list[str]
    stats: list[dict[str, Any]] = field(default_factory=list)
    verdicts: dict[str, dict[str, Any]] = field(default_factory=dict)
    mixed_from: list[str] = field(default_factory=list)   # the mixed pool's heuristics

    def to_dict(self) -> dict[str, Any]:
        return {"games_per_pool": self.games, "seed": self.seed, "pools": self.pools,
                "mixed_from": self.mixed_from if MIXED in self.pools else None,
                "by_pool": self.stats, "verdicts": self.verdicts}

    def sentences(self) -> list[str]:
        return [v["text"] for v in self.verdicts.values()]


def run_pools(setup, pools: list[str], games: int, jobs: int | None = None,
              progress: Callable[[int], None] | None = None) -> Pools:
    """Play every pool on ``setup``'s game, rules, players and seed, ``games`` each."""
    from cardlab.sim import runner

    runner.check_counts(games, setup.seed, jobs)
    out = Pools(setup.game.id, setup.players, setup.seed, games, list(pools),
                mixed_from=_heuristics(setup.game))
    for name in pools:
        r = play_mixed(setup, games, jobs, progress) if name == MIXED else play_self(
            setup, name, games, jobs, progress)
        out.stats.append(pool_stats(r))
    out.verdicts = verdicts(out.stats, setup.game.seat0_role)
    return out
