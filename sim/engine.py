"""The one engine every game runs on: seed, set up, then ask and step until the game ends.

A game is a resumable step function over its declared state (``sim/schema.py``):

- ``setup(st)`` starts a game on the seeded generator ``st[0:4]`` (shuffle, deal) and
  advances to the first decision: ``st[S_PHASE]`` names it, ``st[S_ACTOR]`` is the seat;
- ``choose(sid, st, me, p)`` (the game's strategy dispatch) answers the pending decision
  with an action of four numbers;
- ``step(st, act)`` checks and applies it, then plays every chance event (draws,
  reshuffles, collapses) up to the next decision, or ends the game: ``st[S_PHASE] = 0``
  and the result in ``S_MASK``/``S_LENGTH``/``S_UNFINISHED``/``S_END``.

So a copy of ``st`` at any decision, mid-turn included, is a position that plays on
exactly like the original.  The loop below is the whole fast path; ``sim/bind.py``
binds it to a game's three functions (its kernel's ``RULES``) and its strategies (numba compiles
one specialised, cached kernel per game: the game functions are compile-time arguments).

Measured before choosing this binding (Skyscraper, this machine): passing the game's
functions as arguments of a cached ``@njit`` kernel keeps numba's on-disk cache working
(the per-game kernel is loaded, not compiled, in a second process) and compiles no more
than the game's own code; a factory closure would not (numba keys a closure's cache on
its cell contents, and a dispatcher pickles with a per-process id), and
``literal_unroll`` over a registry compiles every game for any one.
"""
import numpy as np
from numba import njit

from cardlab.sim import shape
from cardlab.sim.jit import MAX_PARAMS, helper
from cardlab.sim.record import record_game
from cardlab.sim.rng import seed_game
from cardlab.sim.schema import DONE


@helper("int64(ST, int64, int64, int64, int64, int64, int64)")
def put_action(st, s_acts, n, kind, a, b, c):
    """Write action n (four numbers) of a game's legal-action buffer at ``s_acts``;
    returns n + 1 (how a game's ``legal`` lists the pending decision's actions)."""
    o = s_acts + 4 * n
    st[o] = kind
    st[o + 1] = a
    st[o + 2] = b
    st[o + 3] = c
    return n + 1


@njit(cache=True, nogil=True)
def listed(st, o, n, kind, a, b, c):
    """The place of (kind, a, b, c) among the ``n`` legal actions listed at ``o``, or -1.
    A game's ``step`` may check an answer with it (``listed(st, S_ACTS, legal(st), ...) >=
    0``: legal is then what ``legal`` lists, by construction; the cards52 template does), and
    it is the search's ``legal_key`` for a game with no quicker one."""
    for i in range(n):
        w = o + 4 * i
        if st[w] == kind and st[w + 1] == a and st[w + 2] == b and st[w + 3] == c:
            return i
    return -1


assert MAX_PARAMS == 8, "seat_params lists MAX_PARAMS values by hand"


@njit(cache=True, nogil=True, inline="always")
def seat_params(params, me):
    """Seat ``me``'s parameter row as a tuple of values (a strategy's ``p``): an array
    view per decision would cost two atomic reference-count updates."""
    return (params[me, 0], params[me, 1], params[me, 2], params[me, 3],
            params[me, 4], params[me, 5], params[me, 6], params[me, 7])


@njit(cache=True, nogil=True, inline="always")
def answer(st, sids, params, E, choose, step, decide=None, first_id=-1, W=None):
    """Ask the pending decision's seat and step.  A seat whose strategy id is ``first_id``
    or more (``mcts``, ``learned``: the players registered after the game's heuristics) is
    answered by ``decide(st, me, sid, p, W)`` (``W``: the learned player's model array,
    ``sim/models.py``); the fast path passes none (then nothing of them is compiled)."""
    me = st[E.actor]
    if decide is not None and sids[me] >= first_id:
        step(st, decide(st, me, sids[me], seat_params(params, me), W))
    else:
        step(st, choose(sids[me], st, me, seat_params(params, me)))


@njit(cache=True, nogil=True, inline="always")
def play_on(st, sids, params, E, choose, step, decide=None, first_id=-1, W=None):
    """``answer`` until the game is over."""
    while st[E.phase] != DONE:
        answer(st, sids, params, E, choose, step, decide, first_id, W)


@njit(cache=True, nogil=True, inline="always")
def new_state(rules, capacity, E):
    """A game's state with ``rules`` in place and room for ``capacity`` trace events."""
    st = np.zeros(E.size + capacity * E.trace_row, dtype=np.int64)
    st[E.rules:E.rules + E.n_rules] = rules
    return st


def runner(play_games, E):
    """A game's fast path as called from Python: ``run_games(rules, sids, params, seed,
    start, stop, tally, lay, rows, capacity)`` makes the state (``new_state``, run as plain
    Python), plays the games with the game's compiled ``play_games`` and returns the state.
    Plain Python around one compiled call per chunk: a compiled wrapper cost each game's
    cold compile about a second (numba optimizes every callee again inside each caller)."""
    make = getattr(new_state, "py_func", new_state)  # NUMBA_DISABLE_JIT=1: already Python

    def run_games(rules, sids, params, seed, start, stop, tally, lay, rows, capacity):
        st = make(rules, capacity, E)
        play_games(st, sids, params, seed, start, stop, tally, lay, rows)
        return st

    return run_games


@njit(cache=True, nogil=True, inline="always")
def play_games(st, sids, params, seed, start, stop, tally, lay, rows,
               E, setup, choose, step, progress, decide=None, first_id=-1, W=None):
    """Play games [start, stop) on the state ``st`` (from ``new_state``) and add them to
    ``tally``; ``rows`` (if it has rows) gets one line per game: length, unfinished,
    winner mask, score per seat, then the game's shape (``sim/shape.py``:
    ``progress(st, seat)`` is the game's progress score; the game notes the standing at
    the end of each turn, the engine the final one).  In trace mode (one game, ``st``
    longer than ``E.size``) ``st`` ends holding the events after the state;
    ``st[S_NEV]`` says how many there were.

    Nothing here allocates, so a game compiles its fast path around this loop without
    numba's reference counting (``_nrt=False``, see ``sim/jit.py``): with it, every
    inlined function's array arguments cost two atomic updates per call, a third of
    Skyscraper's samples in a profile; without, its games run 10% faster."""
    P = st[E.rules]
    for g in range(start, stop):
        seed_game(st, seed, g)
        shape.begin(st, E)
        setup(st)
        play_on(st, sids, params, E, choose, step, decide, first_id, W)
        shape.end(st, E, progress)
        record_game(tally, lay, rows, g - start, P, st[E.mask], st[E.length],
                    st[E.unfinished] != 0, st[E.end], st, E.held, E.played, E.score, E.evc)
        shape.record_shape(tally, lay, rows, g - start, st, E.shape, P, E.close, st[E.mask],
                           st[E.length], st[E.unfinished] != 0)


@njit(cache=True, nogil=True, inline="always")
def run_games(rules, sids, params, seed, start, stop, tally, lay, rows, capacity,
              E, setup, choose, step, progress, decide=None, first_id=-1, W=None):
    """``play_games`` on a new state, returned (the kernels of the players the engine
    answers, which allocate, run on this one)."""
    st = new_state(rules, capacity, E)
    play_games(st, sids, params, seed, start, stop, tally, lay, rows,
               E, setup, choose, step, progress, decide, first_id, W)
    return st
