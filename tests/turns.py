"""A seat's whole turn (or round) on a hand-built state, played by its strategy through the
same decisions as the fast path, for the rule tests: the drivers that bring a game's rules
and its strategies together outside the engine (the rules never import the strategies, and
the engine binding, ``sim/bind.py``, only plays whole games)."""
import numpy as np
from numba import njit

import cardlab.sim.block_tower.kernel as BTK
import cardlab.sim.five_towers.kernel as FTK
import cardlab.sim.five_towers.layout as FTL
import cardlab.sim.skyscraper.kernel as SKK
import cardlab.sim.skyscraper.layout as SKL
import cardlab.sim.smokestack.kernel as SMK
import cardlab.sim.smokestack.layout as SML
import cardlab.sim.three_up.kernel as TUK
import cardlab.sim.three_up.layout as TUL
import cardlab.sim.three_up.moves as TUM
from cardlab.sim import engine
from cardlab.sim.registry import get_game

# each game's strategies' dispatch, written from its registry by the binding (sim/bind.py)
block_tower, five_towers, skyscraper, smokestack, three_up = (
    get_game(g).binding() for g in ("block_tower", "five_towers", "skyscraper", "smokestack", "three_up"))


@njit(cache=True, nogil=True)
def skyscraper_turn(st, sids, params, me):
    """Seat ``me``'s whole Skyscraper turn: the draw, its strategy's plays, the refill.
    True when it won."""
    if not SKK.start_turn(st, me):
        return False
    while st[SKL.S_PHASE] == SKL.D_PLAY:
        act = skyscraper.choose(sids[me], st, me, engine.seat_params(params, me))
        if act[0] == SKL.A_STOP:
            SKK.refill(st, me)
            return False
        SKK.step(st, act)
    return st[SKL.S_MASK] == np.int64(1) << me


@njit(cache=True, nogil=True)
def block_tower_turn(st, sids, params, me):
    """Seat ``me``'s whole Block Tower turn: its strategy's decisions and the chance parts
    between them, stopping at the turn's end (no next turn, no next round).  True when the
    round ended during it."""
    st[BTK.S_CUR] = me
    outcome = BTK.open_turn(st)
    while outcome != BTK.TURN_OVER and outcome != BTK.ROUND_OVER:
        if outcome == BTK.PENDING:
            act = block_tower.choose(sids[me], st, me, engine.seat_params(params, me))
            outcome = BTK.decide(st, act)
            if outcome == BTK.REFUSED:
                BTK.refuse(st, act)
        else:
            outcome = BTK.draw_to_block(st, outcome - BTK.DRAW)
    return outcome == BTK.ROUND_OVER


@njit(cache=True, nogil=True)
def five_towers_round(st, sids, params):
    """One 5 Towers round: the offer, then the seats' strategies up to the cleanup.  False
    when the offer came up empty (no round)."""
    if not FTK.open_round(st):
        return False
    while True:
        me = st[FTL.S_ACTOR]
        if FTK.play(st, five_towers.choose(sids[me], st, me, engine.seat_params(params, me))):
            return True


@njit(cache=True, nogil=True)
def smokestack_turn(st, sids, params, me):
    """Seat ``me``'s Smokestack turn: the sweep question, a double chimney, the swap or pass
    (the stalled-table check before it is ``smokestack_stall``)."""
    SMK.sweep_question(st, me)
    while st[SML.S_PHASE] == SML.D_SWEEP or st[SML.S_PHASE] == SML.D_DOUBLE:
        s = st[SML.S_ACTOR]
        SMK.step(st, smokestack.choose(sids[s], st, s, engine.seat_params(params, s)))
    if st[SML.S_PHASE] == SML.D_SWAP:
        SMK.answer_swap(st, me, smokestack.choose(sids[me], st, me, engine.seat_params(params, me)))


@njit(cache=True, nogil=True)
def smokestack_stall(st, sids, params, me):
    """The stalled-table check before seat ``me``'s Smokestack turn: after ``players`` turns
    in a row without a swap, ``me``'s strategy picks the two center slots to replace."""
    if st[SML.S_PASSES] >= st[SML.R_PLAYERS]:
        st[SML.S_PHASE] = SML.D_STALL
        st[SML.S_ACTOR] = me
        act = smokestack.choose(sids[me], st, me, engine.seat_params(params, me))
        SMK.answer_stall(st, me, act[0], act[1])


@njit(cache=True, nogil=True)
def three_up_turn(st, sids, params, me):
    """Seat ``me``'s whole 3UP turn: its discards and optional draws as its strategy answers
    them, then the draw back up to 3; the next turn does not begin, the game is not scored."""
    TUK.begin_turn(st, me)
    while TUK.owed_discards(st, me):
        kind, a, b, c = three_up.choose(sids[me], st, me, engine.seat_params(params, me))
        if not TUM.is_legal(st, kind, a, b, c):
            TUK.refuse(st, kind, a, b)
        TUK.answer_in_turn(st, me, kind, a, b)
    if st[TUL.S_WIN] < 0:
        TUK.end_turn(st, me)
