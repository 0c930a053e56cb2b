"""Skyscraper as a resumable step function, read top to bottom like the rulebook: the
deal, then turns of draw / play / refill until someone has ``floors_to_win`` floors or
the turn cap hits.

The one decision is ``D_PLAY``: the seat to act plays a card (or a pair) or stops.
``step`` applies the action; a stop ends the turn (refill) and plays the next turns'
chance parts (skips, the start-of-turn draw) up to the next seat's ``D_PLAY``.
``RULES`` at the foot declares the rules functions that ``sim/bind.py`` binds the shared
engine, the search player and the strategies to.
"""
import numpy as np

from cardlab.sim import shape
from cardlab.sim.skyscraper.moves import progress
from cardlab.sim.jit import helper, illegal4, inline
from cardlab.sim.rng import SEAT_RNG, shuffle
from cardlab.sim.skyscraper.layout import (
    A_STOP, D_PLAY, END_CAP, END_WIN, ENGINE, EV_DEAL, EV_SKIP, F0, NT, R_DRAW_SKIP_AT,
    R_FIRST_TURN_NO_DRAW, R_FLOOR_COPIES, R_FLOOR_MAX, R_FLOORS_TO_WIN, R_HAND_SIZE,
    R_LATER_SEATS_EXTRA, R_MAX_TURNS, R_PLAYERS, R_REFILL_TO,
    R_SPECIAL_COUNTS, S_ACTOR, S_ACTS, S_CUR, S_DRAW, S_DRAW_N, S_HAND, S_HELD, S_HSIZE,
    S_MARK_MOVES, S_MARK_RNG, S_MOVES, S_NFL, S_PHASE, S_SCORE, S_SHORTCUT_OFF, S_SKIP, S_TURN,
    ZONES_END,
)
from cardlab.sim.skyscraper.moves import apply_action, draw, emit, is_legal, legal  # noqa: F401 - legal: the model's
from cardlab.sim.game import Rules
from cardlab.sim.skyscraper.moves import restrict_bits


# ---------------------------------------------------------------- setup


@inline
def deal(st):
    """Clear the state, shuffle the deck and deal ``hand_size`` cards to each seat."""
    # reset what a game reads before writing (the piles are written before they are read)
    st[S_DRAW_N:S_DRAW] = 0
    st[ZONES_END:S_ACTS] = 0
    st[S_MARK_MOVES] = -1
    st[S_MARK_RNG] = -1
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
    # seat 0's cards first, then seat 1's, off the top; with the later_seats_extra
    # compensation knob (0 as printed) every seat after seat 0 is dealt that many more
    for s in range(P):
        k = st[R_HAND_SIZE] + (st[R_LATER_SEATS_EXTRA] if s > 0 else 0)
        for _ in range(k):
            n -= 1
            t = st[S_DRAW + n]
            st[S_HAND + s * NT + t] += 1
            st[S_HELD + s * NT + t] = 1
        st[S_DRAW_N] = n
        st[S_HSIZE + s] = k
        emit(st, EV_DEAL, -1, s, k, 0, 0, 0, 0)


@inline
def begin(st):
    """After the deal (and a card given by causal card power): seat 0's turn begins (its
    draw, if any)."""
    begin_turns(st, 0)


# ---------------------------------------------------------------- turns


@inline
def game_over(st, mask, unfinished):
    """The result: winners, length in turns, floors per seat; no decision pending."""
    for s in range(st[R_PLAYERS]):
        st[S_SCORE + s] = st[S_NFL + s]
    shape.finish(st, ENGINE, mask, st[S_TURN], unfinished, END_CAP if unfinished else END_WIN)


@inline
def start_turn(st, me):
    """The start of seat ``me``'s turn: a skipped turn (milkshake, truck) is spent at once
    (False); a played one starts with the draw below ``draw_skip_at`` cards and waits
    for the seat's first ``D_PLAY`` (True).  Seat slots 1..n are seats 0..n-1's first: with
    the ``first_turn_no_draw`` compensation knob (n, 0 as printed) they have no draw."""
    st[S_CUR] = me
    if st[S_SKIP + me] > 0:  # no draw, no play, no refill
        st[S_SKIP + me] -= 1
        emit(st, EV_SKIP, me, 0, 0, 0, 0, 0, 0)
        return False
    n = st[R_FIRST_TURN_NO_DRAW]  # 0 as printed: every turn has its draw
    if st[S_HSIZE + me] < st[R_DRAW_SKIP_AT] and (n == 0 or st[S_TURN] > n):
        draw(st, me)
    st[S_PHASE] = D_PLAY
    st[S_ACTOR] = me
    return True


@inline
def same_streams(st, P):
    """No generator drew since ``mark_streams``: a stream's first word changes at every
    draw (the chance stream's, and each seat's own)."""
    if st[0] != st[S_MARK_RNG]:
        return False
    for s in range(P):
        if st[SEAT_RNG + 4 * s] != st[S_MARK_RNG + 1 + s]:
            return False
    return True


@inline
def mark_streams(st, P):
    st[S_MARK_RNG] = st[0]
    for s in range(P):
        st[S_MARK_RNG + 1 + s] = st[SEAT_RNG + 4 * s]


@inline
def begin_turns(st, me):
    """Seat ``me``'s turn, and the next seats' while they skip, up to a seat's first
    ``D_PLAY``.  Every seat slot counts as a turn; the cap ends the game unfinished."""
    P = st[R_PLAYERS]
    while True:
        if st[S_TURN] >= st[R_MAX_TURNS]:
            game_over(st, np.int64(0), True)
            return
        if me == 0 and st[S_SHORTCUT_OFF] == 0:
            # A whole round in which nothing moved and no random number was drawn (by
            # chance or by any seat's strategy) leaves the state as it was: every later
            # round is the same no-op (hands of 8 that cannot build, say), so jump
            # straight to the turn cap.  Exact, and it spares the few percent of stuck
            # games most of the run time.
            if st[S_MOVES] == st[S_MARK_MOVES] and same_streams(st, P):
                st[S_TURN] = st[R_MAX_TURNS]
                game_over(st, np.int64(0), True)
                return
            st[S_MARK_MOVES] = st[S_MOVES]
            mark_streams(st, P)
        shape.turn_over(st, ENGINE, progress, st[S_TURN])  # the turn before ends
        st[S_TURN] += 1
        if start_turn(st, me):
            return
        me = me + 1 if me + 1 < P else 0


@inline
def refill(st, me):
    """The end of a turn: draw to ``refill_to`` cards (while the piles last)."""
    while st[S_HSIZE + me] < st[R_REFILL_TO]:
        if not draw(st, me):
            break


# ---------------------------------------------------------------- the model


@helper("void(ST, ACT)", paste=True)
def step(st, act):
    """Apply the pending seat's action: a stop ends its turn; any other action must be
    legal, and a floor that reaches ``floors_to_win`` wins at once, even mid-turn."""
    kind, a, b, c = act
    me = st[S_ACTOR]
    if kind == A_STOP:
        refill(st, me)
        begin_turns(st, me + 1 if me + 1 < st[R_PLAYERS] else 0)
        return
    if not is_legal(st, me, kind, a, b, c):
        illegal4("action", "kind,a,b,c", me, kind, a, b, c)
    if apply_action(st, me, kind, a, b, c) and st[S_NFL + me] >= st[R_FLOORS_TO_WIN]:
        game_over(st, np.int64(1) << me, False)


# ---------------------------------------------------------------- causal card power


@helper("boolean(ST, int64, int64)")
def has_type(st, c, t):
    return c == t  # a hand counts cards by type (after a give a seat has held its hand's types)


# ---------------------------------------------------------------- what the engine plays

# the rules functions the engine, the search player and card power are bound to (sim/bind.py)
RULES = Rules(deal=deal, begin=begin, step=step, legal=legal, progress=progress, restrict_bits=restrict_bits,
              has_type=has_type)
