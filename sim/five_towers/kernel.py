"""5 Towers' game loop, read top to bottom like the rulebook: setup (the deck by player
count, shuffled), then rounds of offer / bidding / building / cleanup until the round in
which the draw pile runs out for the second time, then scoring.

``run_games`` is the one compiled entry point: it plays games [start, stop) into a
tally, and in trace mode (``capacity`` > 0) records every event of one game.
"""
import numpy as np
from numba import njit

from cardlab.sim.jit import inline
from cardlab.sim.errors import ILLEGAL
from cardlab.sim.record import record_game
from cardlab.sim.rng import seed_game, shuffle
from cardlab.sim.five_towers.layout import (
    END_CAP, END_DECK, EV_ALL_PASS, EV_BID, EV_BUILD1, EV_PASS, EXTRA, MAXH, N_RULES,
    NK, NT, NV, R_ALLPASS_STAY, R_DECK, R_MAX_ROUNDS, R_PLAYERS, R_TEAR_AFTER,
    S_BIDDER, S_DRAW, S_DRAW_N, S_EVC, S_HELD, S_HIGH, S_OFFER, S_OFFER_N,
    S_OVER, S_PLAN, S_PLAN_N, S_PLAN_TEAR, S_PLAYED, S_ROUND, S_RULES, S_SCORE, S_SIZE,
    S_START, S_TH, S_TOW, TRACE_ROW, ZONES_END,
)
from cardlab.sim.five_towers.moves import (
    bid_legal, discard_offer, emit, legal, max_buildable, place, refresh, reveal, score, tear_down, tearable,
    top,
)
from cardlab.strategies.five_towers import ask_bid, ask_build


@inline
def setup(st):
    """Clear the state and shuffle the deck: one card of each value 0-15 per kind, and
    with the full deck a second 0, 2, 5, 7, 10 and 12 per kind."""
    st[S_DRAW_N:ZONES_END] = 0
    st[ZONES_END:S_SIZE] = 0
    st[S_OFFER:S_OFFER + 8] = -1
    n = 0
    for k in range(NK):
        for v in range(NV):
            st[S_DRAW + n] = k * 16 + v
            n += 1
    if st[R_DECK] > n:
        for k in range(NK):
            for v in EXTRA:
                st[S_DRAW + n] = 128 + k * 16 + v
                n += 1
    shuffle(st, S_DRAW, S_DRAW + n)
    st[S_DRAW_N] = n
    st[S_BIDDER] = -1
    refresh(st)


@inline
def bidding(st, sids, params):
    """Each seat speaks once from the start player: a higher, buildable bid or a pass.
    The start player must open if they can build a card; a bid of the whole offer ends
    the bidding.  Leaves the high bid and bidder in st[S_HIGH], st[S_BIDDER]."""
    P = st[R_PLAYERS]
    start = st[S_START]
    n = st[S_OFFER_N]
    st[S_HIGH] = 0
    st[S_BIDDER] = -1
    for i in range(P):
        s = start + i
        if s >= P:
            s -= P
        b = ask_bid(sids[s], st, s, params[s])
        if b == 0:
            if i == 0 and max_buildable(st, s) > 0:
                raise ValueError(ILLEGAL, "bid (the start player must open)", "bid", s, 0)
            emit(st, EV_PASS, s, 0, 0, 0, 0, 0)
            continue
        if not bid_legal(st, s, b):
            raise ValueError(ILLEGAL, "bid", "bid", s, b)
        st[S_HIGH] = b
        st[S_BIDDER] = s
        emit(st, EV_BID, s, b, 0, 0, 0, 0)
        if b == n:
            break


@inline
def build(st, sids, params, me, b):
    """The builder takes b offer cards and places them in the order its strategy chose,
    tearing down one tower top before (or after) if it chose to.  Every step is checked."""
    ask_build(sids[me], st, me, params[me], b)
    n = st[S_PLAN_N]
    tear = st[S_PLAN_TEAR]
    if n != b:
        raise ValueError(ILLEGAL, "build plan (card count differs from the bid)", "cards,bid", me, n, b)
    used = 0
    for i in range(n):
        j = st[S_PLAN + i]
        if j < 0 or j >= st[S_OFFER_N] or st[S_OFFER + j] < 0 or (used >> j) & 1:
            raise ValueError(ILLEGAL, "build plan (offer slot)", "slot", me, j)
        used |= 1 << j
    after = st[R_TEAR_AFTER] != 0
    if tear >= 0 and not after:
        if tear >= NK or not tearable(st, me, tear):
            raise ValueError(ILLEGAL, "tear-down", "kind", me, tear)
        tear_down(st, me, tear)
    for i in range(n):
        j = st[S_PLAN + i]
        c = st[S_OFFER + j]
        if not legal(c & 15, top(st, me, (c >> 4) & 7)):
            raise ValueError(ILLEGAL, "placement", "slot,card", me, j, c)
        place(st, me, j)
    if tear >= 0 and after:
        if tear >= NK or not tearable(st, me, tear):
            raise ValueError(ILLEGAL, "tear-down", "kind", me, tear)
        tear_down(st, me, tear)
    st[S_EVC + EV_BUILD1 + b - 1] += 1


@inline
def play_round(st, sids, params):
    """Offer, bidding, building, cleanup.  Returns False when the offer comes up empty
    (the second run-out before any card: that is not a round)."""
    st[S_ROUND] += 1
    reveal(st)
    if st[S_OFFER_N] == 0:
        st[S_ROUND] -= 1
        return False
    P = st[R_PLAYERS]
    bidding(st, sids, params)
    me = st[S_BIDDER]
    if me >= 0:
        build(st, sids, params, me, st[S_HIGH])
        discard_offer(st)
        st[S_START] = me + 1 if me + 1 < P else 0
    else:
        emit(st, EV_ALL_PASS, -1, 0, 0, 0, 0, 0)
        discard_offer(st)
        if st[R_ALLPASS_STAY] == 0:
            st[S_START] = st[S_START] + 1 if st[S_START] + 1 < P else 0
    return True


@njit(cache=True, nogil=True)
def step_round(st, sids, params):
    """One round of a hand-built or half-played state (for tests and tools); the
    fast path plays the same ``play_round`` inside ``play_game``."""
    return play_round(st, sids, params)


@inline
def play_game(st, sids, params):
    """Play one game from a seeded generator.  Returns (winner mask, rounds, unfinished)."""
    setup(st)
    P = st[R_PLAYERS]
    while st[S_ROUND] < st[R_MAX_ROUNDS] and st[S_OVER] == 0:
        if not play_round(st, sids, params):
            break
    unfinished = st[S_OVER] == 0 and st[S_ROUND] >= st[R_MAX_ROUNDS]
    best = -(1 << 40)
    for s in range(P):
        sc = score(st, s)
        st[S_SCORE + s] = sc
        best = max(best, sc)
        for k in range(NK):  # card power: the cards that scored
            o = (s * NK + k) * MAXH
            for i in range(st[S_TH + s * NK + k]):
                st[S_PLAYED + s * NT + (st[S_TOW + o + i] & 15)] = 1
                st[S_PLAYED + s * NT + NV + k] = 1
    mask = np.int64(0)
    if not unfinished:
        for s in range(P):
            if st[S_SCORE + s] == best:
                mask |= np.int64(1) << s
    return mask, st[S_ROUND], unfinished


@njit(cache=True, nogil=True)
def run_games(rules, sids, params, seed, start, stop, tally, lay, rows, capacity):
    """Play games [start, stop) and add them to ``tally``; ``rows`` (if it has rows) gets
    one line per game: length, unfinished, winner mask, points per seat.  With
    ``capacity`` > 0 (trace mode, one game) the returned state holds up to ``capacity``
    events after ``S_SIZE``; ``st[S_NEV]`` says how many there were."""
    st = np.zeros(S_SIZE + capacity * TRACE_ROW, dtype=np.int64)
    st[S_RULES:S_RULES + N_RULES] = rules
    P = st[R_PLAYERS]
    for g in range(start, stop):
        seed_game(st, seed, g)
        mask, length, unfinished = play_game(st, sids, params)
        record_game(tally, lay, rows, g - start, P, mask, length, unfinished,
                    END_CAP if unfinished else END_DECK, st, S_HELD, S_PLAYED, S_SCORE, S_EVC)
    return st
