"""5 Towers bound to the engine: the shared game loop (``sim/engine.py``), the search player
(``sim/search.py``), the game's strategies (``strategies/five_towers.py``) and causal card power
(``sim/give.py``), each given the rules of ``kernel.py`` (``setup``, ``step``, ``legal``).

The rules (``kernel.py``, ``moves.py``, ``layout.py``) never import the strategies: this is the
one module of the game that does (the layers: docs/architecture.md, ``.importlinter``).
``Game.binding()`` imports it: ``run_games`` and ``run_games_search`` are what the runner
plays, ``play_on`` plays a position to the end of its game, ``search_decide`` is the search
player's answer, ``give_state`` and ``run_causal`` are causal card power.
"""
import numpy as np
from numba import njit

from cardlab.sim import engine, give, search
from cardlab.sim.jit import LOOP, helper
from cardlab.sim.redeal import no_table_cards, no_table_put
from cardlab.sim.rng import stream_below
from cardlab.sim.five_towers.layout import (
    CLEAR, ENGINE, MAXH, NK, NT, NV, REDEAL, S_ACTOR, S_DRAW, S_DRAW_N, S_HELD, S_TH, S_TOW,
)
from cardlab.sim.five_towers.moves import legal, progress, refresh, restrict_bits
from cardlab.sim.five_towers.kernel import give_begin, give_deal, open_round, play, setup, step
from cardlab.strategies.base import default_rows
from cardlab.strategies.five_towers import ID, STRATEGIES, choose


# ---------------------------------------------------------------- the engine


@njit(cache=True, nogil=True)
def step_round(st, sids, params):
    """One round of a hand-built or half-played state (for tests and tools): the offer,
    then the seats' strategies through the same decisions as the fast path, up to the
    cleanup.  False when the offer came up empty (no round)."""
    if not open_round(st):
        return False
    while True:
        me = st[S_ACTOR]
        if play(st, choose(sids[me], st, me, engine.seat_params(params, me))):
            return True


@njit(cache=True, nogil=True)
def play_on(st, sids, params):
    """Play a position (a copy of a state at any decision) to the end of its game."""
    engine.play_on(st, sids, params, ENGINE, choose, step)


@njit(**LOOP)  # without reference counting where numba allows (sim/jit.LOOP)
def play_games(st, sids, params, seed, start, stop, tally, lay, rows):
    """The shared engine's game loop on 5 Towers (see sim/engine.py)."""
    engine.play_games(st, sids, params, seed, start, stop, tally, lay, rows,
                      ENGINE, setup, choose, step, progress)


run_games = engine.runner(play_games, ENGINE)  # the fast path from Python: state, games, state


# ---------------------------------------------------------------- the search player

RPAR = default_rows(STRATEGIES)  # every strategy's default parameters (heuristic rollouts)


@njit(cache=True, nogil=True)
def search_decide(st, me, p):
    """Seat ``me``'s action by the search player ``mcts`` (``sim/search.py``) on this game."""
    return search.decide(st, me, p, RPAR, ENGINE, choose, step, legal, REDEAL, CLEAR, no_table_cards, no_table_put,
                         restrict_bits, search.listed, legal, False)


@njit(cache=True, nogil=True)
def run_games_search(rules, sids, params, seed, start, stop, tally, lay, rows, capacity):
    """The shared engine on 5 Towers, seats playing ``mcts`` answered by ``search_decide``."""
    return engine.run_games(rules, sids, params, seed, start, stop, tally, lay, rows, capacity,
                            ENGINE, setup, choose, step, progress, search_decide, ID.mcts)


# ---------------------------------------------------------------- causal card power


@helper("boolean(ST, int64, int64)")
def has_type(st, c, t):
    """Card power's types: a value 0..15, then a kind (a card has one of each)."""
    if t < NV:
        return (c & 15) == t
    return ((c >> 4) & 7) == t - NV


@njit(cache=True, nogil=True)
def give_card(st, seat, t, arm, g):
    """5 Towers' seats start with no cards, so both arms give the seat one start card, at
    the bottom of its tower of that kind, taken from the draw pile: IN a random copy of
    type t, OUT a random card of another type (``sim/give.py``; the draw pile keeps the
    order of the rest, so later reveals are the same cards)."""
    want = arm == give.ARM_IN
    n = st[S_DRAW_N]
    m = 0
    for i in range(n):
        if has_type(st, st[S_DRAW + i], t) == want:
            m += 1
    if m == 0:
        return give.GAVE_NONE
    pick = stream_below(g, m)
    j = 0
    for i in range(n):
        if has_type(st, st[S_DRAW + i], t) == want:
            if pick == 0:
                j = i
                break
            pick -= 1
    c = st[S_DRAW + j]
    for i in range(j, n - 1):
        st[S_DRAW + i] = st[S_DRAW + i + 1]
    st[S_DRAW_N] = n - 1
    k = (c >> 4) & 7
    o = seat * NK + k
    st[S_TOW + o * MAXH] = c
    st[S_TH + o] = 1
    st[S_HELD + seat * NT + (c & 15)] = 1
    st[S_HELD + seat * NT + NV + k] = 1
    refresh(st)
    return give.GAVE_SWAPPED


@njit(cache=True, nogil=True)
def give_state(st, seed, game, seat, t, arm):
    """Game ``game`` of ``seed`` set up on ``st`` (rules in place) and given its arm: what
    ``give_card`` returned (tests, ``analysis/causal.py``)."""
    return give.given_state(st, seed, game, seat, t, arm, np.zeros(4, dtype=np.int64),
                            give_deal, give_begin, give_card)


@njit(cache=True, nogil=True)
def run_causal(rules, sids, params, seed, start, stop, types, out):
    """Games [start, stop) in both arms for every type of ``types`` (``sim/give.py``)."""
    give.run_paired(rules, sids, params, seed, start, stop, types, out, ENGINE, give_deal,
                    give_begin, choose, step, give_card)
