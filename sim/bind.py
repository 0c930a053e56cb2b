"""One binding for every game: the shared engine (``sim/engine.py``), the search player
(``sim/search.py``), the game's strategies (``strategies/GAME.py``) and causal card power
(``sim/give.py``) bound to the rules its kernel declares (``RULES = Rules(...)``,
``sim/game.Rules``).  ``Game.binding()`` returns the bound module:

    run_games, run_games_search   what the runner plays (the fast path; with mcts or learned seats)
    play_on(st, sids, params)     a position (a copy of a state at any decision) to its end
    search_decide(st, me, p, W)   the search player's answer (W: the model array, value=1)
    learned_decide(st, me, p, W)  the learned player's (W: its model array, sim/models.py)
    rate(st, me, acts, k, samples, W, g, score)   the evaluation's best action (both of them)
    engine_decide(st, me, sid, p, W)   either, by the seat's strategy id
    give_card, give_state, run_causal   causal card power (a game with ``has_type`` or ``give_card``)
    features(st, me, out)         a seat's observation as N_FEATURES numbers (sim/features.py)
    sample_features(...)          observations along played games, for a learned evaluation
    choose, ID, STRATEGIES, RPAR  the game's strategies; and every declared rules function

**Why a module written from a template, and not functions taking the rules as arguments.**
numba caches a compiled function by the file that defines it.  An entry point that took a
game's rules as arguments (a tuple of compiled functions: numba's first-class function
types) missed numba's on-disk cache in every new process, and a closure over them does too
(its cells are pickled into the cache key with a per-process id); either would mean a cold
compile of a minute or more for every command.  So each game's entry points are
module-level functions of a small module written from ``TEMPLATE`` below into the compile
cache (``sim/cache.py``: the folder is keyed by every source under ``sim/`` and
``strategies/``, this template included, so a changed game or template gets a new
module), the same text for every game but its imports, cached by numba like any module.
Nothing of it is in the repository: a game declares ``RULES`` and nothing else.

The written file's modification time is derived from its text, so processes that write it
at once (pytest workers, a Dask cluster's workers) leave it exactly as one would, and
numba's cache index (which checks the time and size of the source) stays valid.
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
import tempfile
import threading
from pathlib import Path
from types import ModuleType

from cardlab.sim import cache

TEMPLATE = '''"""{title}: the engine, the search player, the strategies and causal card power bound to
the rules ``{kernel}.RULES`` declares.  Written by cardlab.sim.bind from its TEMPLATE into the
compile cache: do not edit (the next change to the sources writes a new one)."""
import numpy as np
from numba import njit

from cardlab.sim import engine, features as observe_numbers, give, learned, search, shape
from cardlab.sim.features import no_types
from cardlab.sim.rng import seed_game
from cardlab.sim.jit import LOOP
from cardlab.sim.redeal import no_honour_shown, no_table_cards, no_table_put
from cardlab.strategies.base import default_rows
from {layout} import CLEAR, ENGINE, GIVE, MAXP, REDEAL, R_PLAYERS, S, S_PHASE, S_SIZE
from {strategies} import ID, STRATEGIES
{imports}
{dispatch}

# ---------------------------------------------------------------- the engine


@njit(cache=True, nogil=True)
def play_on(st, sids, params):
    """Play a position (a copy of a state at any decision) to the end of its game."""
    engine.play_on(st, sids, params, ENGINE, choose, step)


@njit(**LOOP)  # without reference counting where numba allows (sim/jit.LOOP)
def play_games(st, sids, params, seed, start, stop, tally, lay, rows):
    """The shared engine's game loop on this game (see sim/engine.py)."""
    engine.play_games(st, sids, params, seed, start, stop, tally, lay, rows,
                      ENGINE, setup, choose, step, progress)


run_games = engine.runner(play_games, ENGINE)  # the fast path from Python: state, games, state

# ---------------------------------------------------------------- the search player

RPAR = default_rows(STRATEGIES)  # every strategy's default parameters (heuristic rollouts)


@njit(cache=True, nogil=True)
def search_decide(st, me, p, W):
    """Seat ``me``'s action by the search player ``mcts`` (``sim/search.py``) on this game
    (``W``: the model array its play-outs are scored by with value=1)."""
    return search.decide(st, me, p, RPAR, ENGINE, choose, step, legal, REDEAL, CLEAR,
                         table_cards, table_put, honour_shown, restrict_bits, legal_key, legal_count, {keyed},
                         W, features, N_FEATURES, rate)


@njit(cache=True, nogil=True)
def learned_decide(st, me, p, W):
    """Seat ``me``'s action by the learned player (``sim/learned.py``) with the model array ``W``."""
    return learned.decide(st, me, p, W, RPAR, ENGINE, choose, legal, rate)


@njit(cache=True, nogil=True)
def rate(st, me, acts, k, samples, W, g, score):
    """The best of ``acts[:k]`` by the evaluation row ``g`` of ``W`` (``search.rate_actions``):
    the learned player's choice and, with value=2, the search's answer to beat; compiled
    once here for both."""
    return search.rate_actions(st, me, acts, k, samples, W, g, score, ENGINE, step, REDEAL, CLEAR, table_cards,
                               table_put, honour_shown, features, N_FEATURES)


@njit(cache=True, nogil=True)
def engine_decide(st, me, sid, p, W):
    """The answer of a player the engine asks (``mcts``, ``learned``) for seat ``me``."""
    if sid == ID.learned:
        return learned_decide(st, me, p, W)
    return search_decide(st, me, p, W)


@njit(cache=True, nogil=True)
def run_games_search(rules, sids, params, seed, start, stop, tally, lay, rows, capacity, W):
    """The shared engine, seats playing ``mcts`` or ``learned`` answered by ``engine_decide``."""
    return engine.run_games(rules, sids, params, seed, start, stop, tally, lay, rows, capacity,
                            ENGINE, setup, choose, step, progress, engine_decide, ID.mcts, W)

# ---------------------------------------------------------------- a seat's observation as numbers

FEATURES = S.feature_table()  # the recipe, from the declared visibility (sim/features.py)
N_TYPES = S.n_types
N_FEATURES = len(S.feature_names())
N_MORE = len(S.more_names)  # the game's own numbers, last (more_features)


@njit(cache=True, nogil=True)
def features(st, me, out):
    """Seat ``me``'s observation of ``st`` as N_FEATURES numbers into ``out``: the schema's
    recipe, then the game's own numbers."""
    observe_numbers.features(st, me, FEATURES, out, has_type, N_TYPES, R_PLAYERS)
    more_features(st, me, out, N_FEATURES - N_MORE)


@njit(cache=True, nogil=True)
def sample_features(rules, sids, params, seed, start, stop, every, X, meta, W):
    """Games [start, stop) played as the fast path plays them (mcts and learned seats by
    ``engine_decide``, ``W`` the learned player's model array); at every ``every``-th
    decision of a game (from decision g % every of game g, so sparse samples spread over
    the games' course), each seat's observation into the next rows of X and (game, seat,
    decision) into meta; once the game is over, its winners' mask and its number of
    decisions in meta's last two columns of its rows.  Returns (rows written, the first game
    not played): it stops before a game whose rows would not fit (no game is cut short)."""
    st = engine.new_state(rules, 0, ENGINE)
    P = st[R_PLAYERS]
    n = 0
    for g in range(start, stop):
        seed_game(st, seed, g)
        shape.begin(st, ENGINE)
        setup(st)
        first, k = n, 0
        while st[ENGINE.phase] != 0:
            if k % every == g % every:
                if n + P > X.shape[0]:
                    return first, g
                for s in range(P):
                    features(st, s, X[n])
                    meta[n, 0], meta[n, 1], meta[n, 2] = g, s, k
                    n += 1
            engine.answer(st, sids, params, ENGINE, choose, step, engine_decide, ID.mcts, W)
            k += 1
        for i in range(first, n):
            meta[i, 3], meta[i, 4] = st[ENGINE.mask], k
    return n, stop
'''

# causal card power: the schema's swap (``give.swap``) unless the game gives its own way
SWAP = '''

# ---------------------------------------------------------------- causal card power


@njit(cache=True, nogil=True)
def give_card(st, seat, t, arm, g):
    """The arm of causal card power on a set-up state (``sim/give.py``): seat's start
    zones hold a card of type t (IN) or none (OUT)."""
    return give.swap(st, seat, t, arm, g, st[R_PLAYERS], GIVE, np.empty(S_SIZE, dtype=np.int64),
                     np.empty(4 * GIVE.shape[0] * MAXP, dtype=np.int64), has_type, table_cards,
                     table_put, after_give, also_holds)
'''
CAUSAL = '''

@njit(cache=True, nogil=True)
def give_state(st, seed, game, seat, t, arm):
    """Game ``game`` of ``seed`` set up on ``st`` (rules in place) and given its arm: what
    ``give_card`` returned (tests, ``analysis/causal.py``)."""
    return give.given_state(st, seed, game, seat, t, arm, np.zeros(4, dtype=np.int64),
                            deal, begin, give_card)


@njit(cache=True, nogil=True)
def run_causal(rules, sids, params, seed, start, stop, types, out):
    """Games [start, stop) in both arms for every type of ``types`` (``sim/give.py``)."""
    give.run_paired(rules, sids, params, seed, start, stop, types, out, ENGINE, deal,
                    begin, choose, step, give_card)
'''
# the held bits after a give, when the game has causal card power by the swap and no after_give
AFTER_GIVE = '''

@njit(cache=True, nogil=True)
def after_give(st):
    """What follows from the cards after a give (``give.held_follows_start``): before any
    decision a seat has held exactly the types of the cards in its start zones."""
    give.held_follows_start(st, st[R_PLAYERS], GIVE, np.empty(S_SIZE, dtype=np.int64), ENGINE.held, N_TYPES,
                            has_type, table_cards)
'''
# what an optional hook stands for when a game leaves it out
DEFAULTS = {"begin": "give.nothing", "more_features": "observe_numbers.no_more",
            "table_cards": "no_table_cards", "table_put": "no_table_put", "honour_shown": "no_honour_shown",
            "legal_key": "engine.listed",
            "legal_count": "legal", "also_holds": "give.no_more_held", "has_type": "no_types"}
# setup, unless the game declares its own: the deal, then the opening up to the first decision
SETUP = '''

@njit(cache=True, nogil=True, inline="always")
def setup(st):
    """A new game on the seeded generator, up to its first decision: the deal, then the
    opening (the game's ``deal`` and ``begin``)."""
    deal(st)
    begin(st)
'''

_BOUND: dict[str, ModuleType] = {}
_LOCK = threading.Lock()  # one thread writes and imports a game's module (Dask workers have several)


def dispatch(game) -> str:
    """The text of ``choose(sid, st, me, p)``, the strategies' dispatch: for the pending
    decision (``st[S_PHASE]``) and the seat's strategy id, the function ``register`` lists
    for that strategy and decision (``strategies/GAME.py``), its answer made four numbers by
    ``jit.as_act``.  Written from the registry, so no strategy can fall through to another
    one's code; the last heuristic also answers ids past them (the engine answers ``mcts``
    and ``learned`` before asking ``choose``).  Raises a one-line error for a registered
    function the strategy module does not hold under its own name."""
    from cardlab.sim.errors import InputError
    from cardlab.strategies.base import ANSWERS

    module = importlib.import_module(game.strategy_module)
    heuristics = [s for s in module.STRATEGIES if not s.search]
    decisions = [d for d, _ in game.layout.S.decisions]
    for strat in heuristics:
        for d, name in strat.decisions:
            if getattr(module, name, None) is not ANSWERS[(game.layout.S.game, strat.name)][d]:
                raise InputError(f"game '{game.id}': strategy '{strat.name}' answers '{d}' with {name}, which "
                                 f"{game.strategy_module} does not hold under that name (register functions "
                                 "defined or imported there by their own name)")
    names = sorted({name for s in heuristics for _, name in s.decisions})
    out = ["", "# ---------------------------------------------------------------- the strategies' dispatch",
           "from cardlab.sim.jit import as_act, helper",
           f"from {game.strategy_module} import {', '.join(names)}", "", "",
           '@helper("ACT(int64, ST, int64, PAR)", paste=True)  # compiled once, pasted by LLVM',
           "def choose(sid, st, me, p):",
           '    """The seat\'s strategy (``sid``: ``ID`` by name) answers the pending decision."""',
           "    phase = st[S_PHASE]"]
    for k, d in enumerate(decisions):
        last_decision = k == len(decisions) - 1
        pad = "    " if last_decision else "        "
        out.append(f"    # {d}" if last_decision else f"    if phase == {k + 1}:  # {d}")
        for i, strat in enumerate(heuristics):
            call = f"return as_act({dict(strat.decisions)[d]}(st, me, p))"
            if i == len(heuristics) - 1:
                out.append(f"{pad}{call}  # {strat.name}")
            else:
                out += [f"{pad}if sid == {strat.id}:  # {strat.name}", f"{pad}    {call}"]
    return "\n".join(out) + "\n"


def source(game) -> str:
    """The bound module's text for ``game``: ``TEMPLATE`` with the imports of its declared
    rules functions (``RULES`` in its kernel module), hooks left out standing for their
    defaults.  Raises a one-line error naming what the declaration lacks."""
    from cardlab.sim.errors import InputError

    kernel = importlib.import_module(game.kernel_module)
    rules = getattr(kernel, "RULES", None)
    if rules is None:
        raise InputError(f"game '{game.id}': {game.kernel_module} declares no RULES = Rules(deal=..., "
                         "step=..., legal=..., progress=..., restrict_bits=...) (docs/adding_a_game.md)")
    named = rules.named()
    for field, (module, name) in named.items():
        fn = getattr(rules, field)
        if getattr(sys.modules.get(module), name, None) is not fn:
            raise InputError(f"game '{game.id}': RULES.{field} is {module}.{name}, which that module does not "
                             "hold under that name (declare a function of a module, by its own name)")
    more = bool(game.layout.S.more_names)
    if more != ("more_features" in named):
        raise InputError(f"game '{game.id}': " + ("the schema declares more_features names but RULES has no "
                         "more_features hook to write them" if more else "RULES has a more_features hook "
                         "but the schema declares no names for its numbers (S.more_features)"))
    # causal card power: the game's own give, or the schema's swap over what has_type says
    causal = "give_card" in named or "has_type" in named
    if "after_give" in named and not causal:
        raise InputError(f"game '{game.id}': RULES has after_give (causal card power by the schema's swap) "
                         "but no has_type (what type a card counts as)")
    by_module: dict[str, list[str]] = {}
    for field, (module, name) in named.items():
        by_module.setdefault(module, []).append(name if name == field else f"{name} as {field}")
    lines = [f"from {m} import {', '.join(sorted(names))}" for m, names in sorted(by_module.items())]
    lines += [f"{field} = {default}" for field, default in DEFAULTS.items() if field not in named]
    text = TEMPLATE.format(title=game.title.split(":")[0] or game.id, kernel=game.kernel_module,
                           layout=game.layout.__name__, strategies=game.strategy_module,
                           imports="\n".join(lines) + ("" if "setup" in named else SETUP),
                           keyed="True" if "legal_key" in named else "False", dispatch=dispatch(game))
    if causal:
        if "give_card" not in named:
            text += SWAP + ("" if "after_give" in named else AFTER_GIVE)
        text += CAUSAL
    return text


def _write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` unless it is there already; its modification time is a
    function of the text (numba's cache index and Python's byte code check time and size)."""
    data = text.encode()
    stamp = 1_000_000_000 + int(hashlib.sha256(data).hexdigest()[:7], 16)
    try:
        if path.read_bytes() == data and int(path.stat().st_mtime) == stamp:
            return
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)  # a name of its own
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.utime(tmp, (stamp, stamp))
        os.replace(tmp, path)  # atomic: a process reading it sees one whole text or the other
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def bound(game) -> ModuleType:
    """The game's bound module, written (when its text changed) and imported once per process
    (once, whichever threads ask at the same moment)."""
    mod = _BOUND.get(game.id)
    if mod is not None:
        return mod
    with _LOCK:
        mod = _BOUND.get(game.id)
        if mod is not None:
            return mod
        folder = cache.FOLDER or cache.configure()
        path = folder / "bindings" / f"{game.id}_bound.py"
        _write(path, source(game))
        name = f"cardlab_bound_{game.id}"
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod  # before running it: numba and pickle look functions up by module
        try:
            spec.loader.exec_module(mod)
        except BaseException:
            del sys.modules[name]  # no half-made module left for the next caller
            raise
        _BOUND[game.id] = mod
        return mod
