"""3UP 3DOWN's game loop, read top to bottom like the rulebook: setup (shuffle, deal the
down cards, deal six, everyone chooses their up cards), then turns of discards (with
the chains of extra discards a Clear +1/+2 owes and their optional draws), pick-ups and
the draw back up to 3, until a seat is out of cards or the turn cap hits.

``run_games`` is the one compiled entry point: it plays games [start, stop) into a
tally, and in trace mode (``capacity`` > 0) records every event of one game.
"""
import numpy as np
from numba import njit

from cardlab.sim.jit import helper, inline
from cardlab.sim.errors import ILLEGAL
from cardlab.sim.record import record_game
from cardlab.sim.rng import seed_game, shuffle
from cardlab.sim.three_up.layout import (
    A_PICKUP, BAD_DISCARD, BAD_UP, END_CAP, END_OUT, HAND, N_RULES, P_CHOSEN, P_DOWN,
    P_EMPTY_HAND, P_FORCED, R_DRAW_AFTER_PICKUP, R_EMPTY_HAND_PICKUP, R_MAX_TURNS,
    R_NCARDS, R_PLAYERS, S_DOWN_N, S_DRAW, S_DRAW_N, S_EVC, S_GAVE_UP, S_HAND_N, S_HELD,
    S_PLAYED, S_RULES, S_BAD, S_SCORE, S_SIZE, S_TOP, S_TURN, S_UP_N, S_WIN, SRC_HAND,
    SRC_UP, T_CLR1, T_CLR2, TRACE_ROW, ZONES_END,
)
from cardlab.sim.three_up.moves import (
    can_play, choose_up, deal, discard, discard_legal, draw_up, pickup,
    play_down, up_legal,
)
from cardlab.strategies.three_up import ask_discard, ask_draw, ask_up


@inline
def illegal(st, decision, seat, a, b, c):
    """Record an illegal answer; the game stops and ``run_games`` raises."""
    st[S_BAD] = decision
    st[S_BAD + 1] = seat
    st[S_BAD + 2] = a
    st[S_BAD + 3] = b
    st[S_BAD + 4] = c


@inline
def setup(st, sids, params):
    """Clear the state, shuffle the deck; deal 3 down cards to each seat from seat 0,
    then 6 cards to each seat; each seat in order lays 3 of its 6 face up."""
    st[S_DRAW_N:S_DRAW] = 0
    st[ZONES_END:S_SIZE] = 0
    st[S_TOP] = -1
    st[S_WIN] = -1
    P = st[R_PLAYERS]
    N = st[R_NCARDS]
    for c in range(N):
        st[S_DRAW + c] = c
    shuffle(st, S_DRAW, S_DRAW + N)
    st[S_DRAW_N] = N
    for s in range(P):
        deal(st, s, 1)
    for s in range(P):
        deal(st, s, 0)
    for s in range(P):
        mask = ask_up(sids[s], st, s, params[s])
        if not up_legal(st, s, mask):
            illegal(st, BAD_UP, s, mask, 0, 0)
            return
        choose_up(st, s, mask)


@inline
def play_turn(st, sids, params, me):
    """One turn of ``me``: a discard, plus the extra discards Clear +1/+2 owe (each
    preceded by the optional draw when it follows one of them), then the draw back up
    to 3; or a pick-up, which ends the turn.  A hand emptied inside a chain while the
    draw pile lasts gives up the owed discards (empty_hand_in_chain=draw: on to the draw)
    or picks up the pile (=pickup).  Ends the game when me is out of cards."""
    st[S_TURN] += 1
    sid = sids[me]
    p = params[me]
    owed = 1
    may_draw = False
    picked = False
    while owed > 0:
        if may_draw and st[S_DRAW_N] > 0 and st[S_HAND_N + me] < HAND:
            if ask_draw(sid, st, me, p) != 0:
                draw_up(st, me, 1)
        may_draw = False
        if st[S_HAND_N + me] == 0 and st[S_DRAW_N] > 0:
            # an empty hand while the draw pile lasts (only inside a chain)
            if st[R_EMPTY_HAND_PICKUP] != 0:  # empty_hand_in_chain=pickup: cannot play
                pickup(st, me, P_EMPTY_HAND)
                picked = True
            else:  # =draw: the owed discards are given up, the turn goes on to the draw
                st[S_GAVE_UP] += 1
            break
        if st[S_HAND_N + me] == 0 and st[S_UP_N + me] == 0:
            t = play_down(st, me)  # blind
            if t < 0:
                pickup(st, me, P_DOWN)
                picked = True
                break
        else:
            kind, t, n, _x = ask_discard(sid, st, me, p)
            if not discard_legal(st, me, kind, t, n):
                illegal(st, BAD_DISCARD, me, kind, t, n)
                return
            if kind == A_PICKUP:  # voluntary when a discard was legal
                pickup(st, me, P_CHOSEN if can_play(st, me) else P_FORCED)
                picked = True
                break
            discard(st, me, SRC_HAND if st[S_HAND_N + me] > 0 else SRC_UP, t, n)
        if st[S_HAND_N + me] == 0 and st[S_UP_N + me] == 0 and st[S_DOWN_N + me] == 0:
            st[S_WIN] = me  # out of cards: the game ends at once, mid-chain too
            return
        bonus = 1 if t == T_CLR1 else 2 if t == T_CLR2 else 0
        owed += bonus - 1
        may_draw = bonus > 0
    # the draw back up to 3 (after a pick-up only with draw_after_pickup)
    if not picked or st[R_DRAW_AFTER_PICKUP] != 0:
        draw_up(st, me, 0)


@helper("UniTuple(int64, 3)(ST, ST, PARS)")
def play_game(st, sids, params):
    """Play one game from a seeded generator.  Returns (winner mask, turns, unfinished).
    A helper, not inlined into ``run_games``: compiled without reference counting, so
    the game's many helper calls pass ``st`` without atomic reference counts."""
    setup(st, sids, params)
    P = st[R_PLAYERS]
    me = 0
    while st[S_WIN] < 0 and st[S_TURN] < st[R_MAX_TURNS] and st[S_BAD] == 0:
        play_turn(st, sids, params, me)
        me = me + 1 if me + 1 < P else 0
    for s in range(P):
        st[S_SCORE + s] = st[S_HAND_N + s] + st[S_UP_N + s] + st[S_DOWN_N + s]
    w = st[S_WIN]
    mask = np.int64(1) << w if w >= 0 else np.int64(0)
    return mask, st[S_TURN], 1 if w < 0 else 0


@njit(cache=True, nogil=True)
def run_games(rules, sids, params, seed, start, stop, tally, lay, rows, capacity):
    """Play games [start, stop) and add them to ``tally``; ``rows`` (if it has rows) gets
    one line per game: length, unfinished, winner mask, cards left per seat.  With
    ``capacity`` > 0 (trace mode, one game) the returned state holds up to ``capacity``
    events after ``S_SIZE``; ``st[S_NEV]`` says how many there were."""
    st = np.zeros(S_SIZE + capacity * TRACE_ROW, dtype=np.int64)
    st[S_RULES:S_RULES + N_RULES] = rules
    P = st[R_PLAYERS]
    for g in range(start, stop):
        seed_game(st, seed, g)
        mask, length, unf = play_game(st, sids, params)
        if st[S_BAD] == BAD_UP:
            raise ValueError(ILLEGAL, "up cards", "mask", st[S_BAD + 1], st[S_BAD + 2])
        if st[S_BAD] == BAD_DISCARD:
            raise ValueError(ILLEGAL, "discard", "kind,type,count", st[S_BAD + 1], st[S_BAD + 2],
                             st[S_BAD + 3], st[S_BAD + 4])
        unfinished = unf != 0
        record_game(tally, lay, rows, g - start, P, mask, length, unfinished,
                    END_CAP if unfinished else END_OUT, st, S_HELD, S_PLAYED, S_SCORE, S_EVC)
    return st
