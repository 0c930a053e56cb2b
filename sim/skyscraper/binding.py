"""Skyscraper bound to the engine: the shared game loop (``sim/engine.py``), the search player
(``sim/search.py``), the game's strategies (``strategies/skyscraper.py``) and causal card power
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
from cardlab.sim.skyscraper.layout import (
    A_STOP, CLEAR, D_PLAY, ENGINE, GIVE, MAXP, NT, REDEAL, R_PLAYERS, S_HAND, S_HELD, S_MASK,
    S_PHASE, S_SIZE,
)
from cardlab.sim.skyscraper.moves import legal, progress, restrict_bits
from cardlab.sim.skyscraper.kernel import give_begin, give_deal, refill, setup, start_turn, step
from cardlab.strategies.base import default_rows
from cardlab.strategies.skyscraper import ID, STRATEGIES, choose


# ---------------------------------------------------------------- the engine


@njit(cache=True, nogil=True)
def play_turn(st, sids, params, me):
    """Seat ``me``'s whole turn on a hand-built state (tests): the draw, its strategy's
    plays, the refill, as the fast path plays them.  True when it won."""
    if not start_turn(st, me):
        return False
    while st[S_PHASE] == D_PLAY:
        act = choose(sids[me], st, me, engine.seat_params(params, me))
        if act[0] == A_STOP:
            refill(st, me)
            return False
        step(st, act)
    return st[S_MASK] == np.int64(1) << me


@njit(cache=True, nogil=True)
def play_on(st, sids, params):
    """Play a position (a copy of a state at any decision) to the end of its game."""
    engine.play_on(st, sids, params, ENGINE, choose, step)


@njit(**LOOP)  # without reference counting where numba allows (sim/jit.LOOP)
def play_games(st, sids, params, seed, start, stop, tally, lay, rows):
    """The shared engine's game loop on Skyscraper (see sim/engine.py)."""
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
    """The shared engine on Skyscraper, seats playing ``mcts`` answered by ``search_decide``."""
    return engine.run_games(rules, sids, params, seed, start, stop, tally, lay, rows, capacity,
                            ENGINE, setup, choose, step, progress, search_decide, ID.mcts)


@helper("boolean(ST, int64, int64)")
def has_type(st, c, t):
    return c == t  # a hand counts cards by type


@helper("void(ST)")
def after_give(st):
    """The card-power bits follow the hands: before any decision a seat has held exactly
    the types in its hand."""
    for s in range(st[R_PLAYERS]):
        for t in range(NT):
            st[S_HELD + s * NT + t] = 1 if st[S_HAND + s * NT + t] > 0 else 0


# ---------------------------------------------------------------- causal card power


@njit(cache=True, nogil=True)
def give_card(st, seat, t, arm, g):
    """The arm of causal card power on a set-up state (``sim/give.py``): seat's start
    zones hold a card of type t (IN) or none (OUT)."""
    return give.swap(st, seat, t, arm, g, st[R_PLAYERS], GIVE, np.empty(S_SIZE, dtype=np.int64),
                     np.empty(4 * GIVE.shape[0] * MAXP, dtype=np.int64), has_type, no_table_cards, no_table_put,
                     after_give, give.no_more_held)


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
