"""Block Tower bound to the engine: the shared game loop (``sim/engine.py``), the search player
(``sim/search.py``), the game's strategies (``strategies/block_tower.py``) and causal card power
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
from cardlab.sim.bits import popcount
from cardlab.sim.jit import LOOP, helper
from cardlab.sim.redeal import no_table_cards, no_table_put
from cardlab.sim.block_tower.layout import (
    ADJUST, CLEAR, ENGINE, GIVE, MAXP, REDEAL, R_N1, R_N12, R_PLAYERS, S_CUR, S_EVERH, S_HAND_N,
    S_HANDS, S_SIZE,
)
from cardlab.sim.block_tower.moves import legal, legal_count, legal_key, progress, restrict_bits
from cardlab.sim.block_tower.kernel import (
    DRAW, PENDING, REFUSED, ROUND_OVER, TURN_OVER, decide, draw_to_block, give_begin, give_deal,
    open_turn, refuse, setup, step,
)
from cardlab.strategies.base import default_rows
from cardlab.strategies.block_tower import ID, STRATEGIES, choose


# ---------------------------------------------------------------- the engine


@njit(cache=True, nogil=True)
def play_turn(st, sids, params, me):
    """Seat ``me``'s whole turn on a hand-built state (tests): its strategy's decisions
    and the chance parts between them, as the fast path plays them, stopping at the
    turn's end (no next turn, no next round).  True when the round ended during it."""
    st[S_CUR] = me
    outcome = open_turn(st)
    while outcome != TURN_OVER and outcome != ROUND_OVER:
        if outcome == PENDING:
            act = choose(sids[me], st, me, engine.seat_params(params, me))
            outcome = decide(st, act)
            if outcome == REFUSED:
                refuse(st, act)
        else:
            outcome = draw_to_block(st, outcome - DRAW)
    return outcome == ROUND_OVER


@njit(cache=True, nogil=True)
def play_on(st, sids, params):
    """Play a position (a copy of a state at any decision) to the end of its game."""
    engine.play_on(st, sids, params, ENGINE, choose, step)


@njit(**LOOP)  # without reference counting where numba allows (sim/jit.LOOP)
def play_games(st, sids, params, seed, start, stop, tally, lay, rows):
    """The shared engine's game loop on Block Tower (see sim/engine.py)."""
    engine.play_games(st, sids, params, seed, start, stop, tally, lay, rows,
                      ENGINE, setup, choose, step, progress)


run_games = engine.runner(play_games, ENGINE)  # the fast path from Python: state, games, state


# ---------------------------------------------------------------- the search player

RPAR = default_rows(STRATEGIES)  # every strategy's default parameters (heuristic rollouts)


@njit(cache=True, nogil=True)
def search_decide(st, me, p):
    """Seat ``me``'s action by the search player ``mcts`` (``sim/search.py``) on this game."""
    return search.decide(st, me, p, RPAR, ENGINE, choose, step, legal, REDEAL, CLEAR, no_table_cards, no_table_put,
                         restrict_bits, legal_key, legal_count, True)


@njit(cache=True, nogil=True)
def run_games_search(rules, sids, params, seed, start, stop, tally, lay, rows, capacity):
    """The shared engine on Block Tower, seats playing ``mcts`` answered by ``search_decide``."""
    return engine.run_games(rules, sids, params, seed, start, stop, tally, lay, rows, capacity,
                            ENGINE, setup, choose, step, progress, search_decide, ID.mcts)


@helper("boolean(ST, int64, int64)")
def has_type(st, c, t):
    """Card power's types: 1-, 2-, 3-point blocks (ranges of ids), then each action card."""
    if c >= ADJUST:
        return t == 3 + c - ADJUST
    if c < st[R_N1]:
        return t == 0
    if c < st[R_N12]:
        return t == 1
    return t == 2


@helper("void(ST)")
def after_give(st):
    """The ever-held masks follow the hands: before any decision a seat has held exactly
    its hand; and the public hand sizes (a swap of one card for another keeps them, but
    they are the hands' own count)."""
    for s in range(st[R_PLAYERS]):
        st[S_EVERH + s] = st[S_HANDS + s]
        st[S_HAND_N + s] = popcount(st[S_HANDS + s])


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
