"""Run many games: fixed-size chunks of game indices, played in parallel, tallies summed.

Every game is seeded from (seed, game index) and every tally entry is an integer, so
the merged tally is identical for any ``jobs``, chunk order or backend.  Locally the
chunks run on threads: the kernels release the GIL (``nogil``), so there is no process
start-up and nothing to pickle.  The compiled kernel is warmed (compiled or loaded
from cache) once before any worker starts.
"""
from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from cardlab.sim.errors import ILLEGAL, IllegalActionError, InputError
from cardlab.sim.game import Game
from cardlab.sim.tally import Tally
from cardlab.sim.strategy_spec import SeatStrategy

# games per chunk: fixed, so results never depend on the parallel layout.  Small enough that
# the threads finish together (Skyscraper on 2 threads, 10^6 games in-process: 1.88x one
# thread with 20,000-game chunks, 1.95x with 5,000; a chunk costs ~31 us of Python)
CHUNK = 5_000
# with a search seat (mcts): a game takes milliseconds to seconds, and a run of a few
# thousand games in one 20,000-game chunk kept a single core busy (every ladder rung,
# tournament match and restricted run); the tally is the same for any chunking
SEARCH_CHUNK = 20
SEARCH_DECISIONS = 30  # a searching seat's decisions a game, roughly (Setup.work: progress only)
MAX_SEED = 2**63 - 1
MAX_GAMES = 2**63 - 1  # game indices are int64: a longer run could never seed its games right


@dataclass
class Setup:
    """Everything that determines a run's result (and nothing that does not)."""
    game: Game
    players: int
    rules: dict[str, Any]
    seats: list[SeatStrategy]
    seed: int = 1
    # the learned seats' model array (sim/models.py): None = the game's model for the
    # players, looked up when a seat plays ``learned`` or ``mcts:value=1`` (make_setup does it at once)
    models: np.ndarray | None = field(default=None, compare=False)

    def identity(self) -> dict:
        """What decides this setup's games, as JSON values (with a game count and the code
        version it identifies a result: see sim/checkpoint.py, analysis/sweep.py); with a
        learned seat, the model it plays too."""
        out = {"game": self.game.id, "players": self.players, "rules": self.game.rules_json(self.rules),
               "strategies": [s.label for s in self.seats], "seed": self.seed}
        if self.learns:
            from cardlab.sim.models import digest

            out["model"] = digest(self.model_array())
        return out

    @property
    def searches(self) -> bool:
        """A seat plays a player the engine answers (``mcts``, ``learned``: then the kernel
        with them compiled in runs)."""
        return any(s.strategy.search for s in self.seats)

    @property
    def learns(self) -> bool:
        """A seat plays a learned model (``learned``, or ``mcts`` with value=1)."""
        return any(s.reads_model for s in self.seats)

    def model_array(self) -> np.ndarray:
        """The model array the kernel gets: this setup's, the game's for a learned seat, or
        an empty one (no seat reads it)."""
        from cardlab.sim import models

        if self.models is not None:
            return self.models
        if self.learns:
            return models.weights_for(self.game, self.players)
        return models.empty(self.game.binding().N_FEATURES)

    @property
    def work(self) -> int:
        """A game's rough cost in fast-path games, for progress bars over runs that mix
        heuristic and search seats (a ladder, a tournament): 1, plus for each seat that
        searches its iterations a decision times SEARCH_DECISIONS (an iteration costs
        about one to two fast-path games, and a seat searches some tens of decisions a
        game).  Only the estimate of the time left uses it; no result does."""
        from cardlab.sim.search import P_ITERATIONS

        return 1 + SEARCH_DECISIONS * sum(int(s.row()[P_ITERATIONS]) for s in self.seats
                                          if s.strategy.search and s.strategy.name == "mcts")

    def kernel(self):
        """The compiled kernel this setup runs on (the one with ``mcts`` and ``learned``
        only when a seat needs it), as ``kernel(rules, sids, params, seed, start, stop,
        tally, lay, rows, capacity)``."""
        if not self.searches:
            return self.game.kernel()
        run, W = self.game.search_kernel(), np.ascontiguousarray(self.model_array(), dtype=np.float64)

        def kernel(rules, sids, params, seed, start, stop, tally, lay, rows, capacity):
            return run(rules, sids, params, seed, start, stop, tally, lay, rows, capacity, W)

        return kernel

    def arrays(self):
        rv = self.game.rules_vector(self.rules, self.players)
        sids = np.zeros(self.game.max_players, dtype=np.int64)
        params = np.zeros((self.game.max_players, 8), dtype=np.float64)
        for s, seat in enumerate(self.seats):
            sids[s] = seat.strategy.id
            params[s] = seat.row()
        return rv, sids, params


@dataclass
class RunResult:
    setup: Setup
    games: int
    tally: Tally
    elapsed_s: float
    rows: np.ndarray | None = None
    extra: dict = field(default_factory=dict)

    @property
    def games_per_second(self) -> float:
        return self.games / self.elapsed_s if self.elapsed_s > 0 else float("inf")


def make_setup(game_id: str, players: int | None = None, sets: list[str] | None = None,
               strategies: str | list[str] | None = None, seed: int = 1, models: np.ndarray | None = None) -> Setup:
    """A validated Setup from CLI-style values: ``sets`` as ``["KEY=VALUE", ...]``,
    ``strategies`` as ``"a,b:key=value"``; ``models`` the learned seats' model array (by
    default the game's, ``sim/models.py``).  Raises InputError on any bad value."""
    from cardlab.sim.knobs import parse_assignments
    from cardlab.sim.registry import get_game
    from cardlab.sim.strategy_spec import parse_strategies

    game = get_game(game_id)
    players = game.default_players if players is None else players
    rules = game.resolve_rules(parse_assignments(sets or []), players)
    if not (0 <= seed <= MAX_SEED):
        raise InputError(f"bad --seed {seed}: allowed 0 to {MAX_SEED}")
    seats = parse_strategies(strategies, game.all_strategies, players, game.id, game.default_strategy)
    setup = Setup(game, players, rules, seats, seed, models)
    if setup.learns:  # the model now: a missing or unfit one is one line before any game
        setup.models = setup.model_array()
    return setup


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def check_counts(games: int, seed: int, jobs: int | None) -> None:
    if not (1 <= games <= MAX_GAMES):
        raise InputError(f"bad --games {games}: allowed 1 to {MAX_GAMES:,} (the game-index range)")
    if not (0 <= seed <= MAX_SEED):
        raise InputError(f"bad --seed {seed}: allowed 0 to {MAX_SEED}")
    if jobs is not None and jobs < 1:
        raise InputError(f"bad --jobs {jobs}: allowed 1 or more")


def warm(setup: Setup):
    """Compile the kernel (or load it from the cache) by playing zero games."""
    from cardlab.sim import precompile

    helper = precompile.start(setup.game)  # cold start: a second core compiles too
    warmed = False
    try:
        kernel = setup.kernel()
        rv, sids, params = setup.arrays()
        tally = setup.game.tally.new(setup.game.max_length(setup.rules, setup.players))
        rows = np.zeros((0, setup.game.row_width), dtype=np.int64)
        kernel(rv, sids, params, setup.seed, 0, 0, tally, _layout(setup.game), rows, 0)
        warmed = True
    finally:
        precompile.finish(setup.game, helper, warmed)
    return kernel


def _layout(game: Game) -> np.ndarray:
    from cardlab.sim.record import layout_array

    return layout_array(game.tally)


def fault(lo: int) -> None:
    """Failure injection for tests: ``CARDLAB_FAULT=raise:LO`` makes the chunk starting at
    game LO raise; ``CARDLAB_FAULT=kill:LO:MARKER`` kills the process playing it (once:
    MARKER, a file path, records that it happened; without MARKER on every attempt)."""
    spec = os.environ.get("CARDLAB_FAULT")
    if not spec:
        return
    what, at, *marker = spec.split(":", 2)
    if int(at) != lo:
        return
    if what == "raise":
        raise RuntimeError(f"injected failure in the chunk at game {lo}")
    if what == "kill":
        if marker:
            if os.path.exists(marker[0]):
                return
            open(marker[0], "w").close()
        os._exit(17)


def play_chunk(setup: Setup, lo: int, hi: int, keep_rows: bool):
    """Games [lo, hi) of ``setup`` in this thread or process: (lo, hi, tally, rows).  The
    arrays are private to the call: numba reference-counts array arguments atomically,
    and two threads counting on one shared array bounce its cache line between cores."""
    fault(lo)
    game = setup.game
    kernel = setup.kernel()
    rv, sids, params = setup.arrays()
    tally = game.tally.new(game.max_length(setup.rules, setup.players))
    rows = np.zeros((hi - lo if keep_rows else 0, game.row_width), dtype=np.int64)
    play_kernel(setup, kernel, (rv, sids, params), lo, hi, tally, rows, 0)
    return lo, hi, tally, rows


def play_kernel(setup: Setup, kernel, arrays, lo: int, hi: int, tally, rows, capacity: int):
    """``kernel`` on games [lo, hi); a strategy's illegal action becomes an
    IllegalActionError naming the seat, strategy, decision, action and the game index."""
    rv, sids, params = arrays
    try:
        return kernel(rv, sids, params, setup.seed, lo, hi, tally, _layout(setup.game), rows, capacity)
    except ValueError as e:
        if not e.args or e.args[0] != ILLEGAL:
            raise
        index = lo if hi - lo == 1 else _failing_game(setup, kernel, arrays, lo, hi)
        raise illegal_action_error(setup, index, e.args) from None


def _failing_game(setup: Setup, kernel, arrays, lo: int, hi: int) -> int:
    """The first game of [lo, hi) whose kernel raises (games are independent: each is
    seeded from its own index)."""
    rv, sids, params = arrays
    game = setup.game
    rows = np.zeros((0, game.row_width), dtype=np.int64)
    for g in range(lo, hi):
        try:
            tally = game.tally.new(game.max_length(setup.rules, setup.players))
            kernel(rv, sids, params, setup.seed, g, g + 1, tally, _layout(game), rows, 0)
        except ValueError:
            return g
    return lo


def illegal_action_error(setup: Setup, index: int, args: tuple) -> IllegalActionError:
    """The one-line message for ``raise ValueError(ILLEGAL, decision, fields, seat, *values)``."""
    _, decision, fields, seat, *values = args
    names = fields.split(",")
    action = ", ".join(f"{k}={int(v)}" for k, v in zip(names, values))
    seat = int(seat)
    label = "?"
    if 0 <= seat < len(setup.seats):  # the strategy with every parameter's value
        strat, row = setup.seats[seat].strategy, setup.seats[seat].row()
        label = strat.name + ("" if not strat.params else
                              " (" + ", ".join(f"{p.name}={row[i]:g}" for i, p in enumerate(strat.params)) + ")")
    sets = "".join(f" --set {k.name}={k.show(setup.rules[k.name])}" for k in setup.game.knobs
                   if setup.rules[k.name] != k.default)
    strategies = ",".join(s.label for s in setup.seats)
    return IllegalActionError(
        f"{setup.game.id}: seat {seat} strategy {label} chose an illegal {decision}: {action}, "
        f"in game index {index} of seed {setup.seed}; reproduce with: cardlab trace {setup.game.id} "
        f"--seed {setup.seed} --index {index} --players {setup.players} --strategies {strategies}{sets}")


def run(setup: Setup, games: int, jobs: int | None = None, *, keep_rows: bool = False,
        progress: Callable[[int], None] | None = None, chunk: int | None = None,
        start: int = 0, backend: str = "local", scheduler: str | None = None,
        checkpoint=None, resume: bool = False) -> RunResult:
    """Play games [start, start + games) of ``setup``; ``progress(n)`` is called as chunks end
    (``chunk`` games each: CHUNK, or SEARCH_CHUNK when a seat searches).

    ``backend="dask"`` runs the chunks on a Dask cluster (``scheduler`` address, or a
    LocalCluster of ``jobs`` worker processes).  ``checkpoint`` (a folder) saves every
    finished chunk's tally; with ``resume`` a run continues from the chunks already there.
    Every chunk's game count is checked, so a lost or failed chunk stops the run with a
    RunError instead of returning a short total."""
    from cardlab.sim.dask_backend import check_backend
    from cardlab.sim.errors import RunError

    check_counts(games, setup.seed, jobs)
    check_backend(backend, scheduler)
    jobs = jobs or default_jobs()
    if chunk is None:
        chunk = SEARCH_CHUNK if setup.searches else CHUNK
    warm(setup)
    game = setup.game
    max_len = game.max_length(setup.rules, setup.players)
    bounds = [(a, min(a + chunk, start + games)) for a in range(start, start + games, chunk)]
    total = game.tally.new(max_len)
    all_rows = np.zeros((games if keep_rows else 0, game.row_width), dtype=np.int64)
    ck = None
    if checkpoint is not None:
        from cardlab.sim.checkpoint import Checkpoint

        if keep_rows:
            raise InputError("per-game rows cannot be checkpointed")
        ck = Checkpoint.open(checkpoint, setup, games, start, chunk, resume)
        for lo, hi, tally in ck.finished():
            total += tally
            if progress is not None:
                progress(hi - lo)
        bounds = [b for b in bounds if not ck.has(b[0])]

    t0 = time.perf_counter()
    if backend == "dask":
        from cardlab.sim.dask_backend import map_chunks

        results = map_chunks(setup, bounds, keep_rows, scheduler, jobs)
    elif jobs == 1 or len(bounds) <= 1:
        results = (play_chunk(setup, lo, hi, keep_rows) for lo, hi in bounds)
    else:
        from joblib import Parallel, delayed

        results = Parallel(n_jobs=jobs, backend="threading", return_as="generator_unordered")(
            delayed(play_chunk)(setup, lo, hi, keep_rows) for lo, hi in bounds)
    try:
        for lo, hi, tally, rows in results:
            if tally[0] != hi - lo:
                raise RunError(f"the chunk of games [{lo}, {hi}) came back with {int(tally[0])} games")
            total += tally
            if ck is not None:
                ck.save(lo, hi, tally)
            if keep_rows:
                all_rows[lo - start:hi - start] = rows
            if progress is not None:
                progress(hi - lo)
    except (RunError, InputError):
        raise
    except Exception as e:
        done = f"; the {ck.count()} finished chunks are saved in {ck.folder} (--resume)" if ck else ""
        raise RunError(f"a worker failed ({type(e).__name__}: {e}); the run was stopped with no "
                       f"result{done}") from e
    if int(total[0]) != games:
        raise RunError(f"only {int(total[0])} of {games} games came back; the run was stopped with no result")
    elapsed = time.perf_counter() - t0
    if ck is not None:
        ck.complete()
    return RunResult(setup, games, Tally(game.tally, total, setup.players), elapsed,
                     all_rows if keep_rows else None)


def weigh(progress: Callable[[int], None] | None, setup: Setup) -> Callable[[int], None] | None:
    """``progress`` called with games weighted by ``setup.work`` (``progress_bar(work=True)``)."""
    if progress is None:
        return None
    w = setup.work
    return lambda n: progress(n * w)


def progress_bar(total: int, enabled: bool | None = None, work: bool = False):
    """A rich progress bar with games/s on stderr when it is a terminal, else a no-op.
    With ``work`` the bar counts games weighted by ``Setup.work`` (a ladder: a game of
    mcts@1024 costs thousands of heuristic games) and shows the share done, the time
    spent and the time left instead of games.  Returns (callback, context manager)."""
    import contextlib

    if enabled is None:
        enabled = sys.stderr.isatty()
    if not enabled:
        return None, contextlib.nullcontext()
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)

    if work:
        bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(),
                       TextColumn("{task.percentage:>5.1f}%"), TimeElapsedColumn(), TextColumn("spent,"),
                       TimeRemainingColumn(), TextColumn("left"), transient=True, refresh_per_second=4)
        task = bar.add_task("playing", total=total)
        return (lambda n: bar.advance(task, n)), bar

    class Rate(TextColumn):
        def __init__(self):
            super().__init__("")

        def render(self, task):
            from rich.text import Text

            speed = task.finished_speed or task.speed
            return Text(f"{speed:,.0f} games/s" if speed else "", style="cyan")

    bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                   Rate(), TimeRemainingColumn(), transient=True, refresh_per_second=8)
    task = bar.add_task("playing", total=total)
    return (lambda n: bar.advance(task, n)), bar
