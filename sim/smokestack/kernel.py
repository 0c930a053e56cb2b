"""Smokestack's game loop, read top to bottom like the rulebook: setup (deal, center,
stock, setup chimneys), then turns of sweep question / double chimney / swap or pass,
with the stalled-table replacement after ``players`` passes in a row, until the stock
is empty or the turn cap hits.

``run_games`` is the one compiled entry point: it plays games [start, stop) into a
tally, and in trace mode (``capacity`` > 0) records every event of one game.
"""
import numpy as np
from numba import njit

from cardlab.sim.jit import inline
from cardlab.sim.errors import ILLEGAL
from cardlab.sim.record import record_game
from cardlab.sim.rng import seed_game, shuffle
from cardlab.sim.smokestack.layout import (
    A_SWAP, END_CAP, END_STOCK, EV_PASS, N_RULES, NCARDS, R_MAX_TURNS, R_PLAYERS,
    R_SWEEPS_PER_PLAYER, R_SWEEPS_PER_TURN, S_BVER, S_CENTER, S_CUR, S_EVC, S_HELD, S_NCH,
    S_NLAY, S_OVER, S_PASSES, S_PLAYED, S_RULES, S_SCORE, S_SIZE, S_STOCK, S_STOCK_N,
    S_SWEEPS, S_TURN, TRACE_ROW, ZONES_END,
)
from cardlab.sim.smokestack.moves import (
    can_double, deal_layout, double, double_legal, emit, settle, stall, stall_legal, swap,
    swap_legal, sweep,
)
from cardlab.strategies.smokestack import ask_double, ask_stall, ask_swap, ask_sweep


@inline
def setup(st):
    """Clear the state, shuffle the deck, deal 4 cards to each seat from seat 1 round to
    the dealer (seat 0), then the center; then setup chimneys, seat 1 first."""
    st[S_STOCK_N:S_STOCK] = 0
    st[ZONES_END:S_SIZE] = 0
    st[S_CENTER:S_CENTER + 4] = -1  # empty until dealt
    P = st[R_PLAYERS]
    for c in range(NCARDS):
        st[S_STOCK + c] = c
    shuffle(st, S_STOCK, S_STOCK + NCARDS)
    st[S_STOCK_N] = NCARDS
    for k in range(1, P + 1):
        s = k if k < P else 0
        st[S_NLAY + s] = 1
        deal_layout(st, s, 0)
    deal_layout(st, -1, 0)
    for k in range(1, P + 1):
        settle(st, k if k < P else 0, 0)


@inline
def play_turn(st, sids, params, me):
    """One turn of the mover ``me``: the sweep question, a double chimney, swap or pass."""
    P = st[R_PLAYERS]
    # the sweep question, every seat in order from the mover
    per_turn = st[R_SWEEPS_PER_TURN]
    per_player = st[R_SWEEPS_PER_PLAYER]
    done = 0
    st[S_BVER] += 1  # layouts do not change during the question until a sweep
    for k in range(P):
        if done >= per_turn:
            break
        s = me + k
        if s >= P:
            s -= P
        if per_player >= 0 and st[S_SWEEPS + s] >= per_player:
            continue
        if ask_sweep(sids[s], st, s, params[s]) != 0:
            sweep(st, s)
            st[S_BVER] += 1
            done += 1
    st[S_TURN] += 1
    sid = sids[me]
    p = params[me]
    if can_double(st, me):
        l = ask_double(sid, st, me, p)
        if l >= 0:
            if not double_legal(st, me, l):
                raise ValueError(ILLEGAL, "double chimney", "layout", me, l)
            double(st, me, l)
            if st[S_OVER] != 0:
                return
    kind, l, i, j = ask_swap(sid, st, me, p)
    if not swap_legal(st, me, kind, l, i, j):
        raise ValueError(ILLEGAL, "swap", "kind,layout,i,j", me, kind, l, i, j)
    if kind == A_SWAP:
        st[S_PASSES] = 0
        swap(st, me, l, i, j)
    else:
        st[S_PASSES] += 1
        emit(st, EV_PASS, me, 0, 0, 0, 0, 0, 0)


@inline
def check_stall(st, sids, params, me):
    """After ``players`` turns in a row without a swap, the next mover ``me`` picks two
    center slots to replace from the stock (the stalled table)."""
    if st[S_PASSES] >= st[R_PLAYERS]:
        a, b = ask_stall(sids[me], st, me, params[me])
        if not stall_legal(st, me, a, b):
            raise ValueError(ILLEGAL, "stall slots", "a,b", me, a, b)
        stall(st, me, a, b)
        st[S_PASSES] = 0


@inline
def play_game(st, sids, params):
    """Play one game from a seeded generator.  Returns (winner mask, turns, unfinished)."""
    setup(st)
    P = st[R_PLAYERS]
    me = 1 if P > 1 else 0
    while st[S_OVER] == 0 and st[S_TURN] < st[R_MAX_TURNS]:
        check_stall(st, sids, params, me)
        if st[S_OVER] != 0:
            break
        st[S_CUR] = me
        play_turn(st, sids, params, me)
        me = me + 1 if me + 1 < P else 0
    best = 0
    for s in range(P):
        st[S_SCORE + s] = st[S_NCH + s]
        best = max(best, st[S_NCH + s])
    mask = np.int64(0)
    for s in range(P):
        if st[S_NCH + s] == best:
            mask |= np.int64(1) << s
    return mask, st[S_TURN], st[S_OVER] == 0


@njit(cache=True, nogil=True)
def run_games(rules, sids, params, seed, start, stop, tally, lay, rows, capacity):
    """Play games [start, stop) and add them to ``tally``; ``rows`` (if it has rows) gets
    one line per game: length, unfinished, winner mask, chimneys per seat.  With
    ``capacity`` > 0 (trace mode, one game) the returned state holds up to ``capacity``
    events after ``S_SIZE``; ``st[S_NEV]`` says how many there were."""
    st = np.zeros(S_SIZE + capacity * TRACE_ROW, dtype=np.int64)
    st[S_RULES:S_RULES + N_RULES] = rules
    P = st[R_PLAYERS]
    for g in range(start, stop):
        seed_game(st, seed, g)
        mask, length, unfinished = play_game(st, sids, params)
        record_game(tally, lay, rows, g - start, P, mask, length, unfinished,
                    END_CAP if unfinished else END_STOCK, st, S_HELD, S_PLAYED, S_SCORE, S_EVC)
    return st
