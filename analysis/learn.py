"""``cardlab learn GAME``: train the ``learned`` player's evaluation, generation by generation.

Expert iteration in its simplest honest form (Anthony, Tian & Barber 2017; TD-Gammon's
afterstate values):

1. **generation 1** learns from games of the game's heuristics: every seat order of the
   heuristics (``Game.strategies``, random included), so the positions cover careful and
   careless play;
2. **generation k + 1** learns from games of its *teacher*: by default generation k (the
   ``learned`` player), or with ``teacher`` a player of the game such as
   ``mcts:iterations=64`` (search makes the data: expert iteration proper) or
   ``mcts:iterations=64:value=1`` (search whose play-outs generation k scores); the teacher
   against itself in every seat, and in each seat in turn against each heuristic; with the
   previous generation's positions kept (a replay of one generation), so a generation does
   not forget what its own play no longer visits.

Positions are sampled along the fast path's own games (``analysis/value.sample_setup``:
each seat's observation vector every ``every`` decisions), each labelled with that seat's
final win share; games that hit the turn cap are left out.  The evaluation is the logistic
model of ``analysis/value.fit`` (L2-penalized, standardized inputs, scipy's L-BFGS), folded
into one weight per feature for the compiled player (``sim/models.py``).

After each generation a **strength table**: the new generation in each seat in turn against
every heuristic in the other seats, and against the previous generation, on the same deals
(common random numbers), its win share with a 95% Wilson interval beside the fair share.

Everything is seeded: the sampled games, the evaluation games and the fit (deterministic
L-BFGS from zeros), chunks of fixed size in a fixed order, so a model is the same for any
``jobs``.  The model file is written after every generation; a run of the same game, players,
rules, settings and code (``resume``) continues after its last finished generation, and one
that has them all already returns the file as it is.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

from cardlab.analysis.stats import wilson
from cardlab.analysis.value import Network, fit, fit_network, sample_setup, spacing, win_share
from cardlab.sim.errors import InputError

CHUNK = 50               # games per sampling chunk (fixed: the data are the same for any jobs)
BUFFER_BYTES = 16 << 20  # a chunk's sampling buffer (it refills until the chunk is done)


@dataclass
class Settings:
    """What a model depends on besides the code: checked before a file is resumed."""
    game: str
    players: int
    rules: dict
    games: int
    every: int
    eval_games: int
    seed: int
    l2: float
    hidden: int
    teacher: str = "learned"

    def key(self) -> dict:
        out = asdict(self)
        if self.teacher == "learned":  # the default: a file made before teachers still resumes
            del out["teacher"]
        return out


def fold(value, n: int) -> np.ndarray:
    """A fitted ``analysis/value.Value`` (linear) or ``Network`` (one hidden layer) as the
    weights of a row of ``sim/models.pack``, the inputs' standardization folded in."""
    if isinstance(value, Network):
        H = value.W1.shape[0]
        W1 = np.zeros((H, n))
        W1[:, value.keep] = value.W1 / value.scale
        b1 = value.b1 - (value.W1 / value.scale) @ value.mean
        return np.concatenate([W1.ravel(), b1, value.w2, [value.b2]])
    w = np.zeros(n + 1)
    w[value.keep] = value.w / value.scale
    w[n] = value.b - float(np.sum(value.w * value.mean / value.scale))
    return w


def pools_for(game, players: int, gen: int, teacher: str = "learned") -> list[str]:
    """The seat orders generation ``gen`` learns from (see the module's docstring)."""
    heur = list(game.strategies)
    if gen == 1:
        return [",".join(heur[(i + j) % len(heur)] for j in range(players)) for i in range(len(heur))]
    me = f"learned:gen={gen - 1}" if teacher == "learned" else teacher
    out = [",".join([me] * players)]
    for h in heur:
        out += [",".join(me if j == s else h for j in range(players)) for s in range(players)]
    return out


def _chunk(setup, lo: int, hi: int, every: int):
    X, meta = [], []
    rows = max(64 * setup.players, BUFFER_BYTES // (8 * setup.game.binding().N_FEATURES))
    while lo < hi:
        x, m, nxt = sample_setup(setup, lo, hi, every, rows)
        if nxt == lo:
            raise InputError(f"{setup.game.id}: one game gives more than {rows:,} observation rows at "
                             f"--every {every}: use a larger --every")
        X.append(x)
        meta.append(m)
        lo = nxt
    return np.concatenate(X), np.concatenate(meta)


def gather(setups: list, games: int, every: int, start: int, jobs: int | None,
           progress: Callable[[int], None] | None = None, backend: str = "local",
           scheduler: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Observation rows and their win shares from ``games`` games shared by ``setups``
    (games [start, start + games / len(setups)) of each, in CHUNK-game chunks on ``jobs``
    threads, or with ``backend="dask"`` as tasks on the cluster); the finished games' rows
    only, in a fixed order (the same for any jobs and either backend)."""
    from joblib import Parallel, delayed

    from cardlab.sim.runner import default_jobs, warm

    each = max(1, games // len(setups))
    tasks = [(s, lo, min(lo + CHUNK, start + each), every) for s in setups
             for lo in range(start, start + each, CHUNK)]
    for s in setups:
        warm(s)  # compiled (or loaded) here first: local threads and the cluster's workers load it
    if backend == "dask":
        from cardlab.sim.dask_backend import map_calls

        parts = [None] * len(tasks)
        for i, out in map_calls(_chunk, tasks, scheduler, jobs or default_jobs()):
            parts[i] = out
            if progress:
                progress(tasks[i][2] - tasks[i][1])
    else:
        def one(task):
            out = _chunk(*task)
            if progress:
                progress(task[2] - task[1])
            return out

        parts = Parallel(n_jobs=jobs or default_jobs(), prefer="threads")(delayed(one)(t) for t in tasks)
    X = np.concatenate([p[0] for p in parts])
    meta = np.concatenate([p[1] for p in parts])
    done = meta[:, 3] != 0
    return X[done], win_share(meta[done])


def strength(game_id: str, players: int, sets, W: np.ndarray, gen: int, games: int, seed: int,
             jobs: int | None, progress: Callable[[int], None] | None = None, **where) -> list[dict]:
    """Generation ``gen`` in each seat in turn (``games`` games in all per opponent) against
    every heuristic and, from generation 2, the previous generation: its win share, a 95%
    Wilson interval and the fair share."""
    from cardlab.sim import runner
    from cardlab.sim.registry import get_game

    game = get_game(game_id)
    fair = 1.0 / players
    per_seat = max(1, games // players)
    rows = []
    opponents = list(game.strategies) + ([f"learned:gen={gen - 1}"] if gen > 1 else [])
    for opp in opponents:
        share, n = 0.0, 0
        for s in range(players):
            order = [f"learned:gen={gen}" if i == s else opp for i in range(players)]
            setup = runner.make_setup(game_id, players, sets, ",".join(order), seed, W)
            t = runner.run(setup, per_seat, jobs, progress=progress, **where).tally
            share += float(t.wins[s])
            n += t.games
        lo, hi = wilson(share, n)
        rows.append({"opponent": opp.replace(f"learned:gen={gen - 1}", f"generation {gen - 1}"),
                     "games": n, "win_rate": round(share / n, 6), "ci": [round(lo, 6), round(hi, 6)],
                     "fair": round(fair, 6), "verdict": "stronger" if lo > fair else "weaker" if hi < fair
                     else "cannot tell"})
    return rows


def learn(game_id: str, players: int | None = None, generations: int = 3, games: int = 2000,
          every: int | None = None, eval_games: int = 1200, seed: int = 1, jobs: int | None = None,
          l2: float = 1.0, hidden: int = 0, sets: list[str] | None = None, out=None, resume: bool = True,
          progress: Callable[[int], None] | None = None, say: Callable[[str], None] | None = None,
          teacher: str = "learned", backend: str = "local", scheduler: str | None = None):
    """Train (or continue) the model of ``game_id`` at ``players``; returns (model, path).
    ``out`` is the model file (default: the user's models folder, ``sim/models.py``);
    ``teacher`` the player whose games generation 2 on learns from (the module's docstring);
    ``backend="dask"``: the sampled games and the strength tables on one Dask client
    (``scheduler``, or a LocalCluster of ``jobs`` workers), the same model as local threads."""
    from cardlab.sim.dask_backend import backend_session

    with backend_session(backend, scheduler, jobs):
        return _learn(game_id, players, generations, games, every, eval_games, seed, jobs, l2, hidden, sets, out,
                      resume, progress, say, teacher, dict(backend=backend, scheduler=scheduler))


def _learn(game_id, players, generations, games, every, eval_games, seed, jobs, l2, hidden, sets, out, resume,
           progress, say, teacher, where):
    from pathlib import Path

    from cardlab.sim import models, runner
    from cardlab.sim.cache import code_identity
    from cardlab.sim.registry import get_game

    game = get_game(game_id)
    P = game.default_players if players is None else players
    runner.check_counts(games, seed, jobs)
    if not 1 <= generations <= 50:
        raise InputError(f"bad --generations {generations}: allowed 1 to 50")
    if eval_games < P:
        raise InputError(f"bad --eval-games {eval_games}: allowed {P} or more (one per seat)")
    if not 0 <= l2 <= 1e6:
        raise InputError(f"bad --l2 {l2}: allowed 0 to 1e6")
    if not 0 <= hidden <= 256:
        raise InputError(f"bad --hidden {hidden}: allowed 0 (a linear evaluation) to 256")
    base = runner.make_setup(game_id, P, sets, None, seed)  # checks the players and rules
    teacher = (teacher or "learned").strip()
    if "," in teacher:
        raise InputError(f"bad --teacher {teacher!r}: one player (it takes every seat of its games)")
    if teacher != "learned":  # a bad name or parameter is one line before any game
        runner.make_setup(game_id, P, sets, teacher, seed, models.empty(len(game.feature_names())))
    if every is None:
        every = spacing(game_id, P, pools_for(game, P, 1)[0], games, seed)
    if every < 1:
        raise InputError(f"bad --every {every}: allowed 1 or more")
    settings = Settings(game.id, P, game.rules_json(base.rules), games, every, eval_games, seed, l2, hidden,
                        teacher)
    path = Path(out) if out else models.user_folder() / models.file_name(game.id, P)
    models.check_writable(path)  # before any game: a run never ends unable to keep its model
    code = code_identity()
    model = None
    if resume and path.is_file():
        old = models.load(path, None, P)  # its game is checked here; another encoding is trained afresh
        if old.game != game.id:
            raise InputError(f"model file {path} is for game '{old.game}', not '{game.id}': give another --out")
        if (old.info.get("settings") == settings.key() and old.info.get("code") == code
                and old.encoding == models.encoding(game) and old.n_features == len(game.feature_names())):
            model = old
        elif say:
            say(f"{path}: made with other settings, code or observation encoding; training afresh")
    if model is None:
        model = models.new(game, P, settings=settings.key(), code=code)
    model.info["command"] = command_line(game.id, P, sets, generations, games, every, eval_games, seed, l2, hidden,
                                         teacher)
    n = model.n_features
    say = say or (lambda _: None)
    kept: tuple[np.ndarray, np.ndarray] | None = None
    while len(model.generations) < generations:
        gen = len(model.generations) + 1
        t0 = time.perf_counter()
        W = model.array()
        # generation g's games: their own stretch of game indices (no two generations learn
        # from the same deals)
        X, y = gather(_setups(game, P, base.rules, pools_for(game, P, gen, teacher), W, seed), games, every,
                      gen * games, jobs, progress, **where)
        if gen > 1 and kept is None:  # resumed: the previous generation's positions again
            kept = gather(_setups(game, P, base.rules, pools_for(game, P, gen - 1, teacher), model.array(gen - 2),
                                  seed), games, every, (gen - 1) * games, jobs, None, **where)
        Xa, ya = (X, y) if kept is None else (np.concatenate([kept[0], X]), np.concatenate([kept[1], y]))
        value = fit(Xa, ya, l2) if hidden == 0 else fit_network(Xa, ya, hidden, l2, seed + gen)
        model.add(hidden, fold(value, n), generation=gen, positions=int(len(ya)), games=games,
                  pools=pools_for(game, P, gen, teacher))
        table = strength(game_id, P, sets, model.array(), gen, eval_games, seed + 1, jobs, progress, **where)
        model.generations[-1].update(strength=table, seconds=round(time.perf_counter() - t0, 1))
        models.save(model, path)
        say(render_generation(model.generations[-1]))
        kept = (X, y)
    return model, path


def _setups(game, P: int, rules: dict, pools: list[str], W: np.ndarray, seed: int) -> list:
    """A Setup per seat order, its learned seats playing the model array ``W``."""
    from cardlab.sim import runner
    from cardlab.sim.strategy_spec import parse_strategies

    return [runner.Setup(game, P, rules, parse_strategies(pool, game.all_strategies, P, game.id,
                                                          game.default_strategy), seed, W) for pool in pools]


def command_line(game_id, players, sets, generations, games, every, eval_games, seed, l2, hidden,
                 teacher="learned") -> str:
    sets_txt = "".join(f" --set {s}" for s in (sets or []))
    teacher_txt = "" if teacher == "learned" else f" --teacher {teacher}"
    return (f"cardlab learn {game_id} --players {players} --generations {generations} --games {games} "
            f"--every {every} --eval-games {eval_games} --seed {seed} --l2 {l2:g} --hidden {hidden}"
            f"{teacher_txt}{sets_txt}")


def render_generation(g: dict) -> str:
    """One generation's strength table as text."""
    lines = [f"generation {g['generation']}: {g['positions']:,} positions from {g['games']:,} games, "
             f"{g['seconds']:.0f} s"]
    for r in g["strength"]:
        lo, hi = r["ci"]
        lines.append(f"  vs {r['opponent']:<16} {100 * r['win_rate']:5.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"
                     f"  fair {100 * r['fair']:.1f}%  {r['verdict']}  ({r['games']:,} games)")
    return "\n".join(lines)


def render_model(model) -> str:
    head = f"{model.game}, {model.players} players: {len(model.generations)} generation(s)"
    return "\n".join([head] + [render_generation(g) for g in model.generations])
