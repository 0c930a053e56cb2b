"""5 Towers as a resumable step function, read top to bottom like the rulebook: setup (the
deck by player count, shuffled), then rounds of offer / bidding / building / cleanup
until the round in which the draw pile runs out for the second time, then scoring.

The decisions (``layout.py``): ``D_BID`` (each seat once a round, from the start player:
a bid or 0 to pass), then the high bidder's build in small steps: ``D_TEAR`` (a kind to
tear down or -1; before placing, or after with teardown_when=after) and one ``D_PLACE``
(an offer slot) per card bid.  ``step`` checks and applies the pending seat's action and
plays on up to the next decision: the next seat's bid, the build's next step, or the
cleanup and the next round's offer.  ``RULES`` at the foot declares the
rules functions that ``sim/bind.py`` binds the shared engine, the search player and the
strategies to.
"""
import numpy as np
from numba import njit

from cardlab.sim import shape
from cardlab.sim.five_towers.moves import progress
from cardlab.sim.jit import helper, illegal1, illegal2, inline
from cardlab.sim.rng import shuffle
from cardlab.sim.five_towers.layout import (
    D_BID, D_PLACE, D_TEAR, END_CAP, END_DECK, ENGINE, EV_ALL_PASS, EV_BID, EV_BUILD1, EV_PASS,
    EXTRA, MAXH, MAXOFF, NK, NT, NV, R_ALLPASS_STAY, R_DECK, R_MAX_ROUNDS, R_PLAYERS, R_TEAR_AFTER,
    R_TIES, TIES_LATER_SEAT,
    S_ACTOR, S_BIDDER, S_DRAW, S_DRAW_N, S_EVC, S_HIGH, S_OFFER, S_OFFER_N, S_OVER, S_PHASE,
    S_PLACED, S_PLAYED, S_ROUND, S_SCORE, S_SIZE, S_SPOKEN, S_START, S_TH, S_TOW,
)
from cardlab.sim.five_towers.moves import (  # legal: the model's, for Game.model()
    PLACE_NO_CARD, PLACE_NO_FIT, TEAR_NO_TOP, bid_legal, discard_offer, emit, legal, must_open,
    place, place_refusal, refresh, reveal, score, tear_down, tear_refusal,
)
from cardlab.sim.game import Rules
from cardlab.sim.five_towers.layout import S_HELD
from cardlab.sim.five_towers.moves import restrict_bits
from cardlab.sim.redeal import ARM_IN, GAVE_NONE, GAVE_SWAPPED
from cardlab.sim.rng import stream_below

# ---------------------------------------------------------------- setup


@inline
def shuffle_deck(st):
    """A new game's deal: clear the state and shuffle the deck, one card of each value 0-15
    per kind, and with the full deck a second 0, 2, 5, 7, 10 and 12 per kind (causal card
    power gives the start card from it).  The game's ``begin`` follows: ``next_round``, the
    first round's offer, seat 0 starting the bidding."""
    st[S_DRAW_N:S_SIZE] = 0  # every zone, the bookkeeping and the scratch
    st[S_OFFER:S_OFFER + MAXOFF] = -1
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
def ask(st, decision, seat):
    st[S_PHASE] = decision
    st[S_ACTOR] = seat


# ---------------------------------------------------------------- rounds


@inline
def open_round(st):
    """1. Offer: fill it from the draw pile (False when it comes up empty: the second
    run-out before any card is not a round).  2. Bidding: the start player speaks first."""
    shape.turn_over(st, ENGINE, progress, st[S_ROUND])  # the round before ends
    st[S_ROUND] += 1
    reveal(st)
    if st[S_OFFER_N] == 0:
        st[S_ROUND] -= 1
        return False
    st[S_HIGH] = 0
    st[S_BIDDER] = -1
    st[S_SPOKEN] = 0
    ask(st, D_BID, st[S_START])
    return True


@inline
def game_over(st):
    """Scoring: points per seat; every seat with the top score wins (none when capped).
    With the ``ties`` compensation knob at ``later_seat`` a tie for the top score goes to
    the tied seat latest in the first round's bidding order (the highest seat number)."""
    P = st[R_PLAYERS]
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
        if st[R_TIES] == TIES_LATER_SEAT:
            s = P - 1
            while (mask >> s) & 1 == 0:
                s -= 1
            mask = np.int64(1) << s
    shape.finish(st, ENGINE, mask, st[S_ROUND], unfinished, END_CAP if unfinished else END_DECK)


@inline
def next_round(st):
    """The next round's offer and its first bid; the game ends after the round in which
    the draw pile ran out for the second time (or at the round cap)."""
    if st[S_ROUND] < st[R_MAX_ROUNDS] and st[S_OVER] == 0 and open_round(st):
        return
    game_over(st)


@inline
def cleanup(st, builder):
    """4. Cleanup: the offer's leftovers go to the discard pile; the seat left of the
    builder starts the next round (all passed: the start player moves on, knob)."""
    P = st[R_PLAYERS]
    discard_offer(st)
    if builder >= 0:
        st[S_START] = builder + 1 if builder + 1 < P else 0
    elif st[R_ALLPASS_STAY] == 0:
        st[S_START] = st[S_START] + 1 if st[S_START] + 1 < P else 0


# ---------------------------------------------------------------- the decisions


@inline
def bid(st, me, b):
    """2. Bidding: a higher buildable bid or a pass (not the start player if they can
    build).  After every seat has spoken, or a bid of the whole offer, the high bidder
    builds (3.), or everyone passed and the offer is discarded.  True when the round is
    over."""
    if b == 0:
        if must_open(st, me):
            illegal1("bid (the start player must open)", "bid", me, 0)
        emit(st, EV_PASS, me, 0, 0, 0, 0, 0)
    else:
        if not bid_legal(st, me, b):
            illegal1("bid", "bid", me, b)
        st[S_HIGH] = b
        st[S_BIDDER] = me
        emit(st, EV_BID, me, b, 0, 0, 0, 0)
    st[S_SPOKEN] += 1
    P = st[R_PLAYERS]
    if b != st[S_OFFER_N] and st[S_SPOKEN] < P:
        ask(st, D_BID, me + 1 if me + 1 < P else 0)
        return False
    builder = st[S_BIDDER]
    if builder >= 0:  # 3. Building: the tear-down first, unless it comes after placing
        st[S_PLACED] = 0
        ask(st, D_PLACE if st[R_TEAR_AFTER] != 0 else D_TEAR, builder)
        return False
    emit(st, EV_ALL_PASS, -1, 0, 0, 0, 0, 0)
    cleanup(st, -1)
    return True


@inline
def built(st, me):
    """The build is complete: count it by size, then the cleanup."""
    st[S_EVC + EV_BUILD1 + st[S_HIGH] - 1] += 1
    cleanup(st, me)


@inline
def tear(st, me, k):
    """3. The builder may tear down the top of one tower (never a 0) onto their rubble
    pile: before placing (it must leave the bid placeable), or after (knob).  True when
    the round is over."""
    why = tear_refusal(st, me, k, True)
    if why == TEAR_NO_TOP:
        illegal1("tear-down", "kind", me, k)
    if why != 0:
        illegal1("tear-down (the bid could not be placed)", "kind", me, k)
    if k >= 0:
        tear_down(st, me, k)
    if st[R_TEAR_AFTER] != 0:
        built(st, me)
        return True
    ask(st, D_PLACE, me)
    return False


@inline
def place_card(st, me, j, cards):
    """3. Then every card taken is placed, one offer slot at a time, each legal on the
    tower of its kind.  True when the round is over.  "No card" (-1) is refused as a
    plan of ``cards`` cards where the bid asks for more or fewer."""
    why = place_refusal(st, me, j, True)
    if why == PLACE_NO_CARD:
        if j == -1:
            illegal2("build plan (card count differs from the bid)", "cards,bid", me,
                     cards, st[S_HIGH])
        illegal1("build plan (offer slot)", "slot", me, j)
    if why == PLACE_NO_FIT:
        illegal2("placement", "slot,card", me, j, st[S_OFFER + j])
    if why != 0:
        illegal2("placement (the rest of the bid could not be placed)",
                 "slot,card", me, j, st[S_OFFER + j])
    place(st, me, j)
    st[S_PLACED] += 1
    if st[S_PLACED] < st[S_HIGH]:
        ask(st, D_PLACE, me)
        return False
    if st[R_TEAR_AFTER] != 0:
        ask(st, D_TEAR, me)
        return False
    built(st, me)
    return True


@inline
def play(st, act):
    """Apply the pending decision's action; True when it ended the round (cleanup done)."""
    me = st[S_ACTOR]
    ph = st[S_PHASE]
    if ph == D_BID:
        return bid(st, me, act[0])
    if ph == D_TEAR:
        return tear(st, me, act[0])
    return place_card(st, me, act[0], act[1])


# ---------------------------------------------------------------- the model


@helper("void(ST, ACT)", paste=True)
def step(st, act):
    """Apply the pending seat's action, then play on to the next decision (a round that
    ends moves on to the next round's offer) or the end of the game."""
    if play(st, act):
        next_round(st)


# ---------------------------------------------------------------- causal card power


@helper("boolean(ST, int64, int64)")
def has_type(st, c, t):
    """Card power's types: a value 0..15, then a kind (a card has one of each)."""
    if t < NV:
        return (c & 15) == t
    return ((c >> 4) & 7) == t - NV


@njit(cache=True, nogil=True)
def give_card(st, seat, t, arm, g):
    """5 Towers' seats start with no cards, so both arms give the seat one start card, at
    the bottom of its tower of that kind, taken from the draw pile: IN a random copy of
    type t, OUT a random card of another type (``sim/give.py``; the draw pile keeps the
    order of the rest, so later reveals are the same cards)."""
    want = arm == ARM_IN
    n = st[S_DRAW_N]
    m = 0
    for i in range(n):
        if has_type(st, st[S_DRAW + i], t) == want:
            m += 1
    if m == 0:
        return GAVE_NONE
    pick = stream_below(g, m)
    j = 0
    for i in range(n):
        if has_type(st, st[S_DRAW + i], t) == want:
            if pick == 0:
                j = i
                break
            pick -= 1
    c = st[S_DRAW + j]
    for i in range(j, n - 1):
        st[S_DRAW + i] = st[S_DRAW + i + 1]
    st[S_DRAW_N] = n - 1
    k = (c >> 4) & 7
    o = seat * NK + k
    st[S_TOW + o * MAXH] = c
    st[S_TH + o] = 1
    st[S_HELD + seat * NT + (c & 15)] = 1
    st[S_HELD + seat * NT + NV + k] = 1
    refresh(st)
    return GAVE_SWAPPED


# ---------------------------------------------------------------- what the engine plays

# the rules functions the engine, the search player and card power are bound to (sim/bind.py)
RULES = Rules(deal=shuffle_deck, begin=next_round, step=step, legal=legal, progress=progress,
              restrict_bits=restrict_bits, has_type=has_type, give_card=give_card)
