"""Seat figures across players: the same game played by several *pools* of players, and
whether each figure is the same in every heuristic pool or differs between them; and the
**strong pool** (``run_strong``), the game's strongest honest player in every seat, by which
``analysis/headlines.py`` classifies each headline (about the game, an artefact of the
heuristics, depends on the players, cannot tell yet).

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
seat-game and the dominant one (its interval above every other strategy's), and every
seat's edge with Holm over the seats (``seat_edges``).  Each pool verdict says whether the
heuristic pools agree (a real advantage, a real disadvantage, or none shown; capped games
or none) or differ, with the per-pool figures; agreement among heuristics is not yet a
property of the game: the strong pool decides that.

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
STRONG = "strong"       # the strong pool: the game's strong player (Game.strong_player) in every seat
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
            raise InputError(f"bad --pools {spec!r}: {e} (or '{MIXED}', 'default', 'none'; the strong "
                             "pool is --strong's)") from None
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


def play_self(base, spec: str, games: int, jobs: int | None, progress=None, **where) -> PoolResult:
    """``spec`` in every seat; ``where``: ``runner.run``'s backend and scheduler."""
    from cardlab.sim import runner

    setup = _setup_for(base, spec)
    r = runner.run(setup, games, jobs, progress=progress, **where)
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
    max_len = game.max_length(base.rules, base.players)
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
        "seat_edges": seat_edges(wins, base, P),
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


def seat_edges(wins, n: int, players: int) -> list[dict[str, Any]]:
    """Every seat's win share against the fair share 1/P: the edge (points of win rate / 100),
    its 95% Wilson interval, the score test's p-value (the test the Wilson interval inverts)
    and Holm's adjustment over the P seats (family-wise 5%)."""
    from scipy.stats import norm

    from cardlab.analysis.tables import holm_adjust

    fair = 1.0 / players
    if not n:
        return []
    se = (fair * (1.0 - fair) / n) ** 0.5
    rates = [float(w) / n for w in wins]
    ps = [float(2.0 * norm.sf(abs(r - fair) / se)) for r in rates]
    adj = holm_adjust(ps)
    out = []
    for i, r in enumerate(rates):
        lo, hi = wilson(float(wins[i]), n)
        out.append({"seat": i, "edge": r - fair, "ci": [lo - fair, hi - fair], "p": ps[i],
                    "p_adjusted": float(adj[i])})
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
    # class 0 is an interval that includes 0: not shown, which is not the same as none
    word = {1: "an advantage", -1: "a disadvantage", 0: "no edge shown (the interval includes 0)"}
    classes = {s["seat0_edge_class"] for s in stats}
    figs = "; ".join(f"{s['pool']} {_pts(s['seat0_edge'])} [{_pts(s['seat0_edge_ci'][0])}, "
                     f"{_pts(s['seat0_edge_ci'][1])}]" for s in stats)
    if len(classes) == 1:
        c = classes.pop()
        lo = min(s["seat0_edge"] for s in stats)
        hi = max(s["seat0_edge"] for s in stats)
        text = (f"Seat 0's ({role}) edge is the same in every heuristic pool: {word[c]} in all "
                f"{len(stats)} pools ({_pts(lo)} to {_pts(hi)} points; {figs}); whether it is the "
                "game's is for strong play to say (the verdict above).")
        out["seat0_edge"] = {"holds": True, "answer": word[c], "min": lo, "max": hi, "text": text}
    else:
        parts = []
        for c in (1, -1, 0):
            pools = [s["pool"] for s in stats if s["seat0_edge_class"] == c]
            if pools:
                parts.append(f"{word[c]} with {', '.join(pools)}")
        text = (f"Seat 0's ({role}) edge differs between the heuristic pools: " + "; ".join(parts) +
                f" (points over the fair share, 95% intervals: {figs}).")
        out["seat0_edge"] = {"holds": False, "answer": None,
                             "min": min(s["seat0_edge"] for s in stats),
                             "max": max(s["seat0_edge"] for s in stats), "text": text}
    # unfinished games
    has = [s["unfinished_rate"] >= NEGLIGIBLE for s in stats]
    figs = "; ".join(f"{s['pool']} {100 * s['unfinished_rate']:.2f}%" for s in stats)
    if all(has) or not any(has):
        what = ("games stop at the cap in every heuristic pool" if all(has) else
                "no heuristic pool leaves 0.1% of games or more unfinished")
        out["unfinished"] = {"holds": True, "answer": all(has),
                             "text": f"Unfinished games: {what} ({figs})."}
    else:
        some = [s["pool"] for s, h in zip(stats, has) if h]
        out["unfinished"] = {"holds": False, "answer": None,
                             "text": f"Unfinished games differ between the heuristic pools: at least "
                                     f"0.1% of games hit the cap with {', '.join(some)} ({figs})."}
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
            what = f"{d} dominates" if d else "no strategy is shown to dominate"
            out["dominant"] = {"holds": True, "answer": d,
                               "text": f"Dominant strategy among the heuristics: {what} in every "
                                       f"pool of several strategies{note} ({figs})."}
        else:
            out["dominant"] = {"holds": False, "answer": None,
                               "text": f"The dominant heuristic differs between pools{note} ({figs})."}
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
    strong: dict[str, Any] | None = None                  # run_strong's object, when played

    def to_dict(self) -> dict[str, Any]:
        return {"games_per_pool": self.games, "seed": self.seed, "pools": self.pools,
                "mixed_from": self.mixed_from if MIXED in self.pools else None,
                "by_pool": self.stats, "verdicts": self.verdicts, "strong": self.strong}

    def sentences(self) -> list[str]:
        return [v["text"] for v in self.verdicts.values()]


def run_pools(setup, pools: list[str], games: int, jobs: int | None = None,
              progress: Callable[[int], None] | None = None, backend: str = "local",
              scheduler: str | None = None) -> Pools:
    """Play every heuristic pool on ``setup``'s game, rules, players and seed, ``games`` each
    (the strong pool, whose games cost far more, is ``run_strong``'s).  ``backend="dask"``
    plays the self-play pools on the cluster; the mixed pool, a call per game, plays on
    local threads.  Either way the same pools."""
    from cardlab.sim import runner

    runner.check_counts(games, setup.seed, jobs)
    out = Pools(setup.game.id, setup.players, setup.seed, games, list(pools),
                mixed_from=_heuristics(setup.game))
    for name in pools:
        r = play_mixed(setup, games, jobs, progress) if name == MIXED else play_self(
            setup, name, games, jobs, progress, backend=backend, scheduler=scheduler)
        out.stats.append(pool_stats(r))
    out.verdicts = verdicts(out.stats, setup.game.seat0_role)
    return out


# --------------------------------------------------------------------------- the strong pool
STRENGTH_GAMES = 300    # a report's games per heuristic, head to head with the strong player


def parse_strong(spec: str | None, setup) -> str | None:
    """``--strong``: None for the game's strong player (``Game.strong_player``), ``none`` for
    no strong pool, else a strategy spec played in every seat (checked now: InputError)."""
    from cardlab.sim.strategy_spec import parse_strategies

    g = setup.game
    if spec is None:
        spec = g.strong_player
    elif spec.strip() == "none":
        return None
    try:
        seats = parse_strategies(spec.strip(), g.all_strategies, setup.players, g.id, g.default_strategy)
    except InputError as e:
        raise InputError(f"bad --strong {spec!r}: {e} (or 'none')") from None
    if len({s.label for s in seats}) != 1:
        raise InputError(f"bad --strong {spec!r}: one player for every seat")
    return seats[0].label


def strong_setups(setup, spec: str | None = None, strength_games: int = 0):
    """The setups of the strong pool: (the strong player in every seat, [(heuristic, seat,
    setup with the strong player in that seat and the heuristic in the others, games)]).
    The head-to-head games rotate the strong player over the seats, ``ceil(strength_games /
    P)`` game indices each (the same deals in every rotation: common random numbers)."""
    spec = spec or setup.game.strong_player
    P = setup.players
    per = -(-strength_games // P) if strength_games else 0
    h2h = []
    if per:
        for h in _heuristics(setup.game):
            for seat in range(P):
                order = [h] * P
                order[seat] = spec
                h2h.append((h, seat, _setup_for(setup, ",".join(order)), per))
    return _setup_for(setup, spec), h2h


def strong_work(setup, games: int, strength_games: int, spec: str | None = None) -> int:
    """The strong pool's progress-bar total in work units (``Setup.work``)."""
    full, h2h = strong_setups(setup, spec, strength_games)
    return games * full.work + sum(n * s.work for _, _, s, n in h2h)


def run_strong(setup, games: int, strength_games: int = STRENGTH_GAMES, jobs: int | None = None,
               spec: str | None = None, progress: Callable[[int], None] | None = None,
               backend: str = "local", scheduler: str | None = None) -> dict[str, Any]:
    """The strong pool: the game's strong player (``Game.strong_player``, or ``spec``) in
    every seat for ``games`` games (its per-pool figures, as every pool's, flagged
    ``strong``), and its measured strength: head to head against each heuristic of the
    game (one seat strong, the heuristic in every other), its win share against the fair
    share 1/P with a 95% Wilson interval (a game without a winner counts as a loss);
    ``beats`` is True when the interval lies above the fair share, False when below, None
    when it cannot tell.  ``progress`` counts work (``Setup.work``).  ``backend="dask"``:
    every run on one Dask client (``scheduler``, or a LocalCluster of ``jobs`` workers), the
    same pool and strength as local threads."""
    from cardlab.sim import runner
    from cardlab.sim.dask_backend import backend_session

    runner.check_counts(games, setup.seed, jobs)
    full, h2h = strong_setups(setup, spec, strength_games)
    where = dict(backend=backend, scheduler=scheduler)
    with backend_session(backend, scheduler, jobs):
        r = runner.run(full, games, jobs, progress=runner.weigh(progress, full), **where)
        h2h_tallies = [runner.run(s, n, jobs, progress=runner.weigh(progress, s), **where).tally
                       for _, _, s, n in h2h]
    label = full.seats[0].label
    stats = pool_stats(PoolResult(label, r.tally, {label: r.tally.win_units.astype(np.int64).copy()},
                                  {label: np.full(setup.players, games, dtype=np.int64)}))
    stats |= {"pool": STRONG, "strong": True, "player": label, "seconds": round(r.elapsed_s, 1)}
    fair = 1.0 / setup.players
    wins: dict[str, float] = defaultdict(float)
    played: dict[str, int] = defaultdict(int)
    for (h, seat, _, n), t in zip(h2h, h2h_tallies):
        wins[h] += float(t.wins[seat])
        played[h] += n
    strength = []
    for h in wins:
        lo, hi = wilson(wins[h], played[h])
        strength.append({"against": h, "games": played[h], "win_rate": wins[h] / played[h],
                         "ci": [lo, hi], "fair": fair,
                         "beats": True if lo > fair else (False if hi < fair else None)})
    return {"player": label, "games": games, "pool": stats, "strength": strength}


def strength_sentence(strong: dict[str, Any]) -> str:
    """The strong player and its measured strength, in one sentence."""
    st = strong.get("strength") or []
    who = strong["player"]
    if not st:
        return f"The strong pool plays {who} in every seat (its strength was not measured)."
    fair = st[0]["fair"]
    figs = ", ".join(f"{x['against']} {100 * x['win_rate']:.0f}% [{100 * x['ci'][0]:.0f}, "
                     f"{100 * x['ci'][1]:.0f}]" for x in st)
    beats = [x["against"] for x in st if x["beats"]]
    loses = [x["against"] for x in st if x["beats"] is False]
    open_ = [x["against"] for x in st if x["beats"] is None]
    if len(beats) == len(st):
        head = f"{who} beats every heuristic head to head"
    else:
        parts = ([f"beats {', '.join(beats)}"] if beats else []) + (
            [f"loses to {', '.join(loses)}"] if loses else []) + (
            [f"is not shown to beat {', '.join(open_)} (cannot tell yet)"] if open_ else [])
        head = f"{who} " + "; ".join(parts) + " head to head"
    return (f"Strong play: {head} (its win share with one seat against each heuristic in the "
            f"others, fair share {100 * fair:.0f}%: {figs}; {st[0]['games']} games each).")
