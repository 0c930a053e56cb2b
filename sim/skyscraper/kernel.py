"""Skyscraper's game loop, read top to bottom like the rulebook: setup, then turns of
draw / play / refill until someone has ``floors_to_win`` floors or the turn cap hits.

``run_games`` is the one compiled entry point: it plays games [start, stop) into a
tally, and in trace mode (``capacity`` > 0) records every event of one game.
"""
import numpy as np
from numba import njit

from sim.jit import inline
from sim.errors import ILLEGAL
from sim.record import record_game
from sim.rng import seed_game, shuffle
from sim.skyscraper.layout import (
    A_STOP, END_CAP, END_WIN, EV_DEAL, EV_SKIP, F0, N_RULES, NT, R_DRAW_SKIP_AT,
    R_FLOOR_COPIES, R_FLOOR_MAX, R_FLOORS_TO_WIN, R_HAND_SIZE, R_MAX_TURNS, R_PLAYERS,
    R_REFILL_TO, R_SPECIAL_COUNTS, S_ACTS, S_CUR, S_DRAW, S_DRAW_N, S_EVC, S_HAND, S_HELD,
    S_HSIZE, S_MOVES, S_NFL, S_PLAYED, S_RULES, S_SCORE, S_SIZE, S_SKIP, S_TURN,
    TRACE_ROW, ZONES_END,
)
from sim.skyscraper.moves import apply_action, draw, emit, is_legal
from strategies.skyscraper import choose


@inline
def setup(st):
    """Clear the state, shuffle the deck and deal ``hand_size`` cards to each seat."""
    # reset what a game reads before writing (the piles are written before they are read)
    st[S_DRAW_N:S_DRAW] = 0
    st[ZONES_END:S_ACTS] = 0
    P = st[R_PLAYERS]
    n = 0
    for v in range(1, st[R_FLOOR_MAX] + 1):
        for _ in range(st[R_FLOOR_COPIES]):
            st[S_DRAW + n] = F0 + v
            n += 1
    for t in range(9):
        for _ in range(st[R_SPECIAL_COUNTS[t]]):
            st[S_DRAW + n] = t
            n += 1
    shuffle(st, S_DRAW, S_DRAW + n)
    st[S_DRAW_N] = n
    # seat 0's cards first, then seat 1's, off the top
    for s in range(P):
        for _ in range(st[R_HAND_SIZE]):
            n -= 1
            t = st[S_DRAW + n]
            st[S_HAND + s * NT + t] += 1
            st[S_HELD + s * NT + t] = 1
        st[S_DRAW_N] = n
        st[S_HSIZE + s] = st[R_HAND_SIZE]
        emit(st, EV_DEAL, -1, s, st[R_HAND_SIZE], 0, 0, 0, 0)


@inline
def play_turn(st, sids, params, me):
    """One seat's turn: draw, play until the strategy stops, refill.  True on a win."""
    if st[S_SKIP + me] > 0:  # a milkshake or truck: no draw, no play, no refill
        st[S_SKIP + me] -= 1
        emit(st, EV_SKIP, me, 0, 0, 0, 0, 0, 0)
        return False
    if st[S_HSIZE + me] < st[R_DRAW_SKIP_AT]:
        draw(st, me)
    sid = sids[me]
    p = params[me]
    while True:
        kind, a, b, c = choose(sid, st, me, p)
        if kind == A_STOP:
            break
        if not is_legal(st, me, kind, a, b, c):
            raise ValueError(ILLEGAL, "action", "kind,a,b,c", me, kind, a, b, c)
        if apply_action(st, me, kind, a, b, c):
            if st[S_NFL + me] >= st[R_FLOORS_TO_WIN]:
                return True  # wins at once, even mid-turn
    while st[S_HSIZE + me] < st[R_REFILL_TO]:
        if not draw(st, me):
            break
    return False


@inline
def play_game(st, sids, params):
    """Play one game from a seeded generator.  Returns (winner mask, turns, unfinished)."""
    setup(st)
    P = st[R_PLAYERS]
    me = 0
    mark_moves = -1
    mark_rng = -1
    while st[S_TURN] < st[R_MAX_TURNS]:
        if me == 0:
            # A whole round in which nothing moved and no random number was drawn leaves
            # the state as it was: every later round is the same no-op (hands of 8 that
            # cannot build, say), so jump straight to the turn cap.  Exact, and it spares
            # the few percent of stuck games most of the run time.
            if st[S_MOVES] == mark_moves and st[0] == mark_rng:
                st[S_TURN] = st[R_MAX_TURNS]
                break
            mark_moves = st[S_MOVES]
            mark_rng = st[0]
        st[S_TURN] += 1  # every seat slot is a turn, skipped or played
        st[S_CUR] = me
        if play_turn(st, sids, params, me):
            for s in range(P):
                st[S_SCORE + s] = st[S_NFL + s]
            return np.int64(1) << me, st[S_TURN], False
        me = me + 1 if me + 1 < P else 0
    for s in range(P):
        st[S_SCORE + s] = st[S_NFL + s]
    return np.int64(0), st[S_TURN], True


@njit(cache=True, nogil=True)
def run_games(rules, sids, params, seed, start, stop, tally, lay, rows, capacity):
    """Play games [start, stop) and add them to ``tally``; ``rows`` (if it has rows) gets
    one line per game: length, unfinished, winner mask, floors per seat.  With
    ``capacity`` > 0 (trace mode, one game) the returned state holds up to ``capacity``
    events after ``S_SIZE``; ``st[S_NEV]`` says how many there were."""
    st = np.zeros(S_SIZE + capacity * TRACE_ROW, dtype=np.int64)
    st[S_RULES:S_RULES + N_RULES] = rules
    P = st[R_PLAYERS]
    for g in range(start, stop):
        seed_game(st, seed, g)
        mask, length, unfinished = play_game(st, sids, params)
        record_game(tally, lay, rows, g - start, P, mask, length, unfinished,
                    END_CAP if unfinished else END_WIN, st, S_HELD, S_PLAYED, S_SCORE, S_EVC)
    return st
