"""Smokestack bound to the engine: the shared game loop (``sim/engine.py``), the search player
(``sim/search.py``), the game's strategies (``strategies/smokestack.py``) and causal card power
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
from cardlab.sim.smokestack.layout import (
    CLEAR, D_DOUBLE, D_STALL, D_SWAP, D_SWEEP, ENGINE, GIVE, MAXCH, MAXL, MAXP, NT, REDEAL,
    R_PLAYERS, S_ACTOR, S_CH, S_HELD, S_LAY, S_NCH, S_NLAY, S_PASSES, S_PHASE, S_SIZE,
)
from cardlab.sim.smokestack.moves import legal, progress, restrict_bits, settle
from cardlab.sim.smokestack.kernel import (
    answer_stall, answer_swap, give_begin, give_deal, setup, step, sweep_question,
)
from cardlab.strategies.base import default_rows
from cardlab.strategies.smokestack import ID, STRATEGIES, choose


# ---------------------------------------------------------------- the engine


@njit(cache=True, nogil=True)
def play_turn(st, sids, params, me):
    """Seat ``me``'s turn on a hand-built state (tests): the sweep question, a double
    chimney, the swap or pass, as the fast path plays them (the stalled-table check
    before it is ``check_stall``)."""
    sweep_question(st, me)
    while st[S_PHASE] == D_SWEEP or st[S_PHASE] == D_DOUBLE:
        s = st[S_ACTOR]
        step(st, choose(sids[s], st, s, engine.seat_params(params, s)))
    if st[S_PHASE] == D_SWAP:
        answer_swap(st, me, choose(sids[me], st, me, engine.seat_params(params, me)))


@njit(cache=True, nogil=True)
def check_stall(st, sids, params, me):
    """The stalled-table check before seat ``me``'s turn on a hand-built state (tests):
    after ``players`` turns in a row without a swap, ``me``'s strategy picks the two
    center slots to replace."""
    if st[S_PASSES] >= st[R_PLAYERS]:
        st[S_PHASE] = D_STALL
        st[S_ACTOR] = me
        act = choose(sids[me], st, me, engine.seat_params(params, me))
        answer_stall(st, me, act[0], act[1])


@njit(cache=True, nogil=True)
def play_on(st, sids, params):
    """Play a position (a copy of a state at any decision) to the end of its game."""
    engine.play_on(st, sids, params, ENGINE, choose, step)


@njit(**LOOP)  # without reference counting where numba allows (sim/jit.LOOP)
def play_games(st, sids, params, seed, start, stop, tally, lay, rows):
    """The shared engine's game loop on Smokestack (see sim/engine.py)."""
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
    """The shared engine on Smokestack, seats playing ``mcts`` answered by ``search_decide``."""
    return engine.run_games(rules, sids, params, seed, start, stop, tally, lay, rows, capacity,
                            ENGINE, setup, choose, step, progress, search_decide, ID.mcts)


@helper("boolean(ST, int64, int64)")
def has_type(st, c, t):
    return (c >> 2) == t  # card power by rank


@helper("int64(ST, int64, int64, ST, int64)")
def lay_cards(st, offset, seat, pool, k):
    """Seat's layout cards (the first nlay layouts, empty slots skipped) into pool[k:]."""
    o = S_LAY + seat * MAXL * 4
    for i in range(st[S_NLAY + seat] * 4):
        if st[o + i] >= 0:
            pool[k] = st[o + i]
            k += 1
    return k


@helper("void(ST, int64, int64, ST, int64, int64)")
def lay_put(st, offset, seat, pool, k, n):
    """pool[k:k+n] back into seat's layout slots that held cards, in order."""
    o = S_LAY + seat * MAXL * 4
    j = k
    for i in range(st[S_NLAY + seat] * 4):
        if st[o + i] >= 0:
            st[o + i] = pool[j]
            j += 1


@helper("boolean(ST, int64, int64)")
def chimney_holds(st, seat, t):
    """Seat's setup chimneys hold a card of rank t (the seat holds it, outside its layout)."""
    for i in range(st[S_NCH + seat] * 4):
        if (st[S_CH + seat * MAXCH * 4 + i] >> 2) == t:
            return True
    return False


@helper("void(ST)")
def after_give(st):
    """A layout the swap made a chimney is set aside and replaced, as at setup (seat 1
    first); the card-power bits follow the cards each seat was dealt: its layouts and its
    setup chimneys."""
    P = st[R_PLAYERS]
    for k in range(1, P + 1):
        settle(st, k if k < P else 0, 0)
    for s in range(P):
        for t in range(NT):
            st[S_HELD + s * NT + t] = 0
        for i in range(st[S_NLAY + s] * 4):
            c = st[S_LAY + s * MAXL * 4 + i]
            if c >= 0:
                st[S_HELD + s * NT + (c >> 2)] = 1
        for i in range(st[S_NCH + s] * 4):
            st[S_HELD + s * NT + (st[S_CH + s * MAXCH * 4 + i] >> 2)] = 1


# ---------------------------------------------------------------- causal card power


@njit(cache=True, nogil=True)
def give_card(st, seat, t, arm, g):
    """The arm of causal card power on a set-up state (``sim/give.py``): seat's start
    zones hold a card of type t (IN) or none (OUT)."""
    return give.swap(st, seat, t, arm, g, st[R_PLAYERS], GIVE, np.empty(S_SIZE, dtype=np.int64),
                     np.empty(4 * GIVE.shape[0] * MAXP, dtype=np.int64), has_type, lay_cards, lay_put,
                     after_give, chimney_holds)


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
