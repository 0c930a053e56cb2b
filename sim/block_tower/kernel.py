"""Block Tower's game loop, read top to bottom like the rules page: rounds (start card,
shuffle, deal) of turns (running-out check, two-action reshuffle, draw up to a block,
one action card, a SWAP's received action card, the reshuffle offered again, the block
placement, the draws), until a round's end leaves someone at the target or the round
cap hits.  The two-action-card reshuffle ("if you ever have two action cards") is
offered, once a turn, whenever the hand holds two action cards before the block is
placed (``reshuffle_at=turn_start``: only at the turn's start).

``run_games`` is the one compiled entry point: it plays games [start, stop) into a
tally, and in trace mode (``capacity`` > 0) records every event of one game.
"""
import numpy as np
from numba import njit

from cardlab.sim.bits import popcount
from cardlab.sim.block_tower.layout import (
    ACT_MASK,
    ADJUST,
    ANYWHERE,
    END_CAP,
    END_TARGET,
    EV_TURN,
    N_RULES,
    NO_ACTION,
    NT,
    R_BLOCKMASK,
    R_MAX_ROUNDS,
    R_N1,
    R_N12,
    R_PLAYERS,
    R_RESH_ANY,
    R_TARGET,
    REMOVE,
    S_ANY,
    S_CUR,
    S_DIR,
    S_DRAW_N,
    S_EVC,
    S_EVERH,
    S_EVERP,
    S_HANDS,
    S_HELD,
    S_PILE_N,
    S_PLAYED,
    S_PREV,
    S_RECV,
    S_RESH,
    S_RULES,
    S_SCORE,
    S_SCORES,
    S_SIZE,
    S_START,
    S_TURN,
    SWAP,
    TRACE_ROW,
    ZONES_END,
)
from cardlab.sim.block_tower.moves import (
    action_legal,
    adjust,
    anywhere,
    block_legal,
    collapse,
    draw_one,
    new_round,
    place,
    remove,
    reshuffle,
    split,
    swap,
)
from cardlab.sim.jit import inline
from cardlab.sim.errors import ILLEGAL
from cardlab.sim.record import record_game
from cardlab.sim.rng import seed_game
from cardlab.strategies.block_tower import ask_action, ask_block, ask_reshuffle, ask_second


@inline
def do_action(st, me, kind, a, b, c):
    """Play action card ``kind``; True if the tower fell during it."""
    fell = False
    if kind == ADJUST:
        fell = adjust(st, me, a)
    elif kind == ANYWHERE:
        anywhere(st, me)
    elif kind == REMOVE:
        fell = remove(st, me)
    else:
        swap(st, me, a, b, c)
    return fell


@inline
def offer_reshuffle(st, sid, p, me, start):
    """Two action cards in hand (and cards to draw): seat me may shuffle its hand into
    the draw pile and draw three new cards, once a turn; offered at the turn's start
    (start = 1) and, with reshuffle_at=any_time, at every later point before the block
    where the hand may have gained action cards."""
    if st[S_RESH] == 0 and (start != 0 or st[R_RESH_ANY] != 0) and st[S_DRAW_N] > 0 and \
            popcount(st[S_HANDS + me] & ACT_MASK) >= 2 and ask_reshuffle(sid, st, me, p) != 0:
        reshuffle(st, me)


@inline
def draw_to_block(st, sid, p, me):
    """A hand without a block card draws one card at a time until a block card arrives
    (the reshuffle is offered after each draw).  False when the draw pile runs out
    first (the round then ends by running out)."""
    bm = st[R_BLOCKMASK]
    while st[S_HANDS + me] & bm == 0:
        if draw_one(st, me) < 0:
            return False
        offer_reshuffle(st, sid, p, me, 0)
    return True


@inline
def play_turn(st, sids, params, me):
    """One turn of seat ``me``.  Returns True when the round ended during it."""
    st[S_TURN] += 1
    st[S_EVC + EV_TURN] += 1
    st[S_CUR] = me
    st[S_ANY] = 0
    st[S_RECV] = 0
    st[S_RESH] = 0
    sid = sids[me]
    p = params[me]
    bm = st[R_BLOCKMASK]
    # no block card and nothing to draw: the round ends by running out
    if st[S_HANDS + me] & bm == 0 and st[S_DRAW_N] == 0:
        split(st, me)
        return True
    # two action cards in hand: the hand may go back into the draw pile for three new cards
    offer_reshuffle(st, sid, p, me, 1)
    # only action cards: draw one card at a time until a block card arrives
    if not draw_to_block(st, sid, p, me):
        split(st, me)
        return True
    acted = 0
    kind, a, b, c = ask_action(sid, st, me, p)
    if kind != NO_ACTION:
        if not action_legal(st, me, kind, a, b, c, 0):
            raise ValueError(ILLEGAL, "action card", "kind,a,b,c", me, kind, a, b, c)
        acted = 1
        if do_action(st, me, kind, a, b, c):
            collapse(st, me, st[S_PILE_N], 1 if kind == ADJUST else 2)
            return True
        if kind == SWAP:
            if st[S_RECV] & st[S_HANDS + me] & ACT_MASK != 0:
                kind, a, b, c = ask_second(sid, st, me, p)
                if kind != NO_ACTION:
                    if not action_legal(st, me, kind, a, b, c, 1):
                        raise ValueError(ILLEGAL, "second action card", "kind,a,b,c", me, kind, a, b, c)
                    acted = 2
                    if do_action(st, me, kind, a, b, c):
                        collapse(st, me, st[S_PILE_N], 1 if kind == ADJUST else 2)
                        return True
        # after the action card(s) the hand may hold two action cards (a SWAP brought
        # them, or it held three): the reshuffle is offered again
        offer_reshuffle(st, sid, p, me, 0)
        # a SWAP gave my last block card away, or the reshuffle drew none: draw up to one
        if not draw_to_block(st, sid, p, me):
            split(st, me)
            return True
    card, x = ask_block(sid, st, me, p)
    if not block_legal(st, me, card, x):
        raise ValueError(ILLEGAL, "block and style", "card,style", me, card, x)
    h = st[S_PILE_N]
    if place(st, me, card, x):
        collapse(st, me, h, 0)
        return True
    # draw: 1 card, 2 after an action card, 3 after a received action card too
    for _ in range(acted + 1):
        if draw_one(st, me) < 0:
            break
    return False


@inline
def play_game(st, sids, params):
    """Play one game from a seeded generator.  Returns (winner mask, rounds, unfinished)."""
    st[S_TURN:ZONES_END] = 0
    st[ZONES_END:S_SIZE] = 0
    P = st[R_PLAYERS]
    r = 0
    mask = np.int64(0)
    while True:
        new_round(st, r)
        me = st[S_START]
        d = st[S_DIR]
        while True:
            if play_turn(st, sids, params, me):
                break
            st[S_PREV] = me
            me += d
            if me >= P:
                me -= P
            elif me < 0:
                me += P
        r += 1
        best = 0
        for s in range(P):
            best = max(best, st[S_SCORES + s])
        if best >= st[R_TARGET]:
            for s in range(P):
                if st[S_SCORES + s] == best:
                    mask |= np.int64(1) << s
            break
        if r >= st[R_MAX_ROUNDS]:
            break
    # the game's bookkeeping: final points and the card-power bits by card type
    # (1-, 2-, 3-point blocks: three ranges of card ids; then each action card)
    one = (np.int64(1) << st[R_N1]) - 1
    two = ((np.int64(1) << st[R_N12]) - 1) & ~one
    three = st[R_BLOCKMASK] & ~(one | two)
    for s in range(P):
        st[S_SCORE + s] = st[S_SCORES + s]
        for k in range(2):
            m = st[S_EVERH + s] if k == 0 else st[S_EVERP + s]
            o = (S_HELD if k == 0 else S_PLAYED) + s * NT
            st[o] = (m & one) != 0
            st[o + 1] = (m & two) != 0
            st[o + 2] = (m & three) != 0
            for a in range(4):
                st[o + 3 + a] = (m >> (ADJUST + a)) & 1
    return mask, r, mask == 0


@njit(cache=True, nogil=True)
def run_games(rules, sids, params, seed, start, stop, tally, lay, rows, capacity):
    """Play games [start, stop) and add them to ``tally``; ``rows`` (if it has rows) gets
    one line per game: rounds, unfinished, winner mask, points per seat.  With
    ``capacity`` > 0 (trace mode, one game) the returned state holds up to ``capacity``
    events after ``S_SIZE``; ``st[S_NEV]`` says how many there were."""
    st = np.zeros(S_SIZE + capacity * TRACE_ROW, dtype=np.int64)
    st[S_RULES:S_RULES + N_RULES] = rules
    P = st[R_PLAYERS]
    for g in range(start, stop):
        seed_game(st, seed, g)
        mask, length, unfinished = play_game(st, sids, params)
        record_game(tally, lay, rows, g - start, P, mask, length, unfinished,
                    END_CAP if unfinished else END_TARGET, st, S_HELD, S_PLAYED, S_SCORE, S_EVC)
    return st
