"""3UP 3DOWN bound to the engine: the shared game loop (``sim/engine.py``), the search player
(``sim/search.py``), the game's strategies (``strategies/three_up.py``) and causal card power
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
from cardlab.sim.three_up.layout import (
    CLEAR, ENGINE, GIVE, MAXP, NT, REDEAL, R_PLAYERS, R_TYPE, S_HCNT, S_HELD, S_SIZE, S_WIN,
)
from cardlab.sim.three_up.moves import is_legal, legal, progress, restrict_bits
from cardlab.sim.three_up.kernel import (
    answer_in_turn, begin_turn, end_turn, give_begin, give_deal, owed_discards, refuse, setup, step,
    table_cards, table_put,
)
from cardlab.strategies.base import default_rows
from cardlab.strategies.three_up import ID, STRATEGIES, choose


# ---------------------------------------------------------------- the engine


@njit(cache=True, nogil=True)
def play_turn(st, sids, params, me):
    """Seat ``me``'s whole turn on a hand-built state (tests): its discards and optional
    draws as its strategy answers them, then the draw back up to 3, through the model's
    phases; the next turn does not begin and the game is not scored."""
    begin_turn(st, me)
    while owed_discards(st, me):
        kind, a, b, c = choose(sids[me], st, me, engine.seat_params(params, me))
        if not is_legal(st, kind, a, b, c):
            refuse(st, kind, a, b)
        answer_in_turn(st, me, kind, a, b)
    if st[S_WIN] < 0:
        end_turn(st, me)


@njit(cache=True, nogil=True)
def play_on(st, sids, params):
    """Play a position (a copy of a state at any decision) to the end of its game."""
    engine.play_on(st, sids, params, ENGINE, choose, step)


@njit(**LOOP)  # without reference counting where numba allows (sim/jit.LOOP)
def play_games(st, sids, params, seed, start, stop, tally, lay, rows):
    """The shared engine's game loop on 3UP 3DOWN (see sim/engine.py)."""
    engine.play_games(st, sids, params, seed, start, stop, tally, lay, rows,
                      ENGINE, setup, choose, step, progress)


run_games = engine.runner(play_games, ENGINE)  # the fast path from Python: state, games, state


# ---------------------------------------------------------------- the search player

RPAR = default_rows(STRATEGIES)  # every strategy's default parameters (heuristic rollouts)


@njit(cache=True, nogil=True)
def search_decide(st, me, p):
    """Seat ``me``'s action by the search player ``mcts`` (``sim/search.py``) on this game."""
    return search.decide(st, me, p, RPAR, ENGINE, choose, step, legal, REDEAL, CLEAR, table_cards, table_put,
                         restrict_bits, search.listed, legal, False)


@njit(cache=True, nogil=True)
def run_games_search(rules, sids, params, seed, start, stop, tally, lay, rows, capacity):
    """The shared engine on 3UP 3DOWN, seats playing ``mcts`` answered by ``search_decide``."""
    return engine.run_games(rules, sids, params, seed, start, stop, tally, lay, rows, capacity,
                            ENGINE, setup, choose, step, progress, search_decide, ID.mcts)


@helper("boolean(ST, int64, int64)")
def has_type(st, c, t):
    return st[R_TYPE + c] == t


@helper("void(ST)")
def after_give(st):
    """The card-power bits follow the hands (``table_put`` rebuilt the per-type counts and
    the dealt positions): the face-down cards are not held until they are played."""
    for s in range(st[R_PLAYERS]):
        for t in range(NT):
            st[S_HELD + s * NT + t] = 1 if st[S_HCNT + s * NT + t] > 0 else 0


# ---------------------------------------------------------------- causal card power


@njit(cache=True, nogil=True)
def give_card(st, seat, t, arm, g):
    """The arm of causal card power on a set-up state (``sim/give.py``): seat's start
    zones hold a card of type t (IN) or none (OUT)."""
    return give.swap(st, seat, t, arm, g, st[R_PLAYERS], GIVE, np.empty(S_SIZE, dtype=np.int64),
                     np.empty(4 * GIVE.shape[0] * MAXP, dtype=np.int64), has_type, table_cards, table_put,
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
