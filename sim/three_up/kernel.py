"""3UP 3DOWN as a resumable step function, read top to bottom like the rulebook: setup
(shuffle, deal the down cards, deal six), every seat in order chooses its up cards
(``D_UP``), then turns of discards (``D_DISCARD``) with the chains of extra discards a
Clear +1/+2 owes and the optional draw before each of them (``D_DRAW``), blind down
cards, pick-ups and the draw back up to 3, until a seat is out of cards or the turn cap
hits.

``step`` applies the pending seat's answer and plays on through everything that needs no
answer (blind down cards, pick-ups, draws, the next seats' turns) up to the next decision
or the end.  Where a turn stands lives in the state, not in loop variables: its seat
(``S_ACTOR``), the discards it still owes and whether the optional draw comes first
(``S_OWED``, ``S_MAY_DRAW``), so a copy of ``st`` at any decision, mid-chain included,
plays on exactly like the original.  ``RULES`` at the foot declares the
rules functions that ``sim/bind.py`` binds the shared engine, the search player and the
strategies to.
"""
import numpy as np
from numba import njit

from cardlab.sim import shape
from cardlab.sim.three_up.moves import progress
from cardlab.sim.jit import helper, illegal1, illegal3, inline
from cardlab.sim.rng import seat_below, shuffle
from cardlab.sim.three_up.layout import (
    A_PICKUP, A_STOP, D_DISCARD, D_DRAW, D_UP, END_CAP, END_OUT, ENGINE, EV_DRAW, HAND, MAXC, MAXK,
    MAXP, NDEAL, NDOWN, NT, P_CHOSEN, P_DOWN, P_EMPTY_HAND, P_FORCED, R_DRAW_AFTER_PICKUP, R_EMPTY_HAND_PICKUP,
    R_LATER_SEATS_EXTRA, R_MAX_TURNS, R_NCARDS, R_PLAYERS, R_TYPE, SRC_HAND, SRC_UP, S_ACTOR,
    S_ACTS, S_DEALT, S_DOWN, S_DOWN_N, S_DRAW, S_DRAW_N, S_EXTRA, S_GAVE_UP, S_HAND, S_HAND_N, S_HCNT,
    S_KNOWN, S_MAY_DRAW, S_OWED, S_PHASE, S_PICKED, S_SCORE, S_TOP, S_TURN, S_UP_N, S_WIN, T_CLR1, T_CLR2,
    ZONES_END,
)
from cardlab.sim.three_up.moves import (  # noqa: F401 - legal: the model's, for tests
    can_play, choose_up, deal, discard, discard_legal, draw_up, emit, hand_add, hand_pop, hand_push, legal, pickup,
    play_down, stop_chain, up_legal,
)
from cardlab.sim.three_up.layout import S_HMASK
from cardlab.sim.game import Rules
from cardlab.sim.three_up.layout import S_HELD
from cardlab.sim.three_up.moves import restrict_bits

# ---------------------------------------------------------------- setup


@inline
def shuffle_and_deal(st):
    """A new game: clear the state, shuffle the deck; deal 3 down cards to each seat from
    seat 0, then 6 cards to each seat, all off the top; then seat 0 chooses its up cards.
    The whole setup: the pending up choice decides nothing from the cards, so causal card
    power gives a card after it, with no ``begin`` (``table_put`` keeps the dealt positions
    in step with a given hand)."""
    # reset what a game reads before writing (the piles are written before they are read)
    st[S_DRAW_N:S_DRAW] = 0
    st[ZONES_END:S_ACTS] = 0
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
    st[S_PHASE] = D_UP  # seat 0 chooses its up cards first
    st[S_ACTOR] = 0


# ---------------------------------------------------------------- a turn


@inline
def later_seats_draw(st):
    """The compensation knob ``later_seats_extra`` (not in the rulebook; 0 as printed): once
    every seat has laid its up cards, each seat after seat 0, in seat order, draws that many
    cards off the draw pile into its hand before the first turn, one draw event each (more
    cards in hand means more choices: measured, it helps the seat that holds them)."""
    n = st[S_DRAW_N]
    for s in range(1, st[R_PLAYERS]):
        for _ in range(st[R_LATER_SEATS_EXTRA]):
            if n == 0:
                return
            n -= 1
            st[S_DRAW_N] = n
            c = st[S_DRAW + n]
            hand_add(st, s, c)
            emit(st, EV_DRAW, s, c, 0, 0)


@inline
def begin_turn(st, me):
    """Seat ``me``'s turn: every seat slot is a turn; it owes one discard."""
    shape.turn_over(st, ENGINE, progress, st[S_TURN])  # the turn before ends
    st[S_TURN] += 1
    st[S_ACTOR] = me
    st[S_OWED] = 1
    st[S_MAY_DRAW] = 0
    st[S_PICKED] = 0
    st[S_EXTRA] = 0


@inline
def after_discard(st, me, t):
    """A discard of type t was made (from the hand, the up cards or blind): a seat out of
    cards wins at once, mid-chain too; a Clear +1 owes one more discard, a Clear +2 two
    more, and the optional draw comes right after either.  Any discard still owed is an
    extra one (``S_EXTRA``: with extra_discards=hand_optional the seat may end the chain
    instead of one from its hand)."""
    st[S_EXTRA] = 1
    if st[S_HAND_N + me] == 0 and st[S_UP_N + me] == 0 and st[S_DOWN_N + me] == 0:
        st[S_WIN] = me
        st[S_OWED] = 0
        return
    bonus = 1 if t == T_CLR1 else 2 if t == T_CLR2 else 0
    st[S_OWED] += bonus - 1
    st[S_MAY_DRAW] = 1 if bonus > 0 else 0


@inline
def owed_discards(st, me):
    """Seat ``me``'s turn from where it stands, while it owes discards: the optional draw
    before an extra discard (``D_DRAW``), a discard from the hand or the up cards
    (``D_DISCARD``), or a blind down card.  True when a decision is pending; False when
    the turn is over: every owed discard made, a pick-up (``S_PICKED``), or the win.  A
    hand emptied inside a chain while the draw pile lasts gives up the owed discards
    (empty_hand_in_chain=draw: on to the draw) or picks up the pile (=pickup)."""
    while st[S_OWED] > 0:
        if st[S_MAY_DRAW] != 0 and st[S_DRAW_N] > 0 and st[S_HAND_N + me] < HAND:
            st[S_PHASE] = D_DRAW
            return True
        st[S_MAY_DRAW] = 0
        if st[S_HAND_N + me] == 0 and st[S_DRAW_N] > 0:
            # an empty hand while the draw pile lasts (only inside a chain)
            if st[R_EMPTY_HAND_PICKUP] != 0:  # empty_hand_in_chain=pickup: cannot play
                pickup(st, me, P_EMPTY_HAND)
                st[S_PICKED] = 1
            else:  # =draw: the owed discards are given up, the turn goes on to the draw
                st[S_GAVE_UP] += 1
            st[S_OWED] = 0
            return False
        if st[S_HAND_N + me] == 0 and st[S_UP_N + me] == 0:
            t = play_down(st, me)  # blind
            if t < 0:
                pickup(st, me, P_DOWN)
                st[S_PICKED] = 1
                st[S_OWED] = 0
                return False
            after_discard(st, me, t)
        else:
            st[S_PHASE] = D_DISCARD
            return True
    return False


@inline
def answer_in_turn(st, me, kind, a, b):
    """Seat ``me``'s legal answer inside its turn: the optional draw taken (kind 1) or not;
    a pick-up, which ends the turn; the chain ended (A_STOP: the extra discards still owed
    declined, on to the draw); or a discard of b cards of type a from the current source
    (the hand, else the up cards)."""
    if st[S_PHASE] == D_DRAW:
        if kind != 0:
            draw_up(st, me, 1)
        st[S_MAY_DRAW] = 0
        return
    if kind == A_PICKUP:  # voluntary when a discard was legal
        pickup(st, me, P_CHOSEN if can_play(st, me) else P_FORCED)
        st[S_PICKED] = 1
        st[S_OWED] = 0
        return
    if kind == A_STOP:
        stop_chain(st, me)
        return
    discard(st, me, SRC_HAND if st[S_HAND_N + me] > 0 else SRC_UP, a, b)
    after_discard(st, me, a)


@inline
def end_turn(st, me):
    """The draw back up to 3 (after a pick-up only with draw_after_pickup)."""
    if st[S_PICKED] == 0 or st[R_DRAW_AFTER_PICKUP] != 0:
        draw_up(st, me, 0)


@inline
def game_over(st):
    """The result: the seat out of cards wins (nobody at the cap); cards left per seat;
    no decision pending."""
    for s in range(st[R_PLAYERS]):
        st[S_SCORE + s] = st[S_HAND_N + s] + st[S_UP_N + s] + st[S_DOWN_N + s]
    w = st[S_WIN]
    mask = np.int64(1) << w if w >= 0 else np.int64(0)
    shape.finish(st, ENGINE, mask, st[S_TURN], w < 0, END_CAP if w < 0 else END_OUT)


@inline
def turns(st):
    """The pending seat's turn as it stands, then the next seats' turns, up to a decision;
    the game ends when a seat is out of cards or after the turn cap's last turn."""
    P = st[R_PLAYERS]
    while not owed_discards(st, st[S_ACTOR]):
        me = st[S_ACTOR]
        if st[S_WIN] >= 0:
            game_over(st)
            return
        end_turn(st, me)
        if st[S_TURN] >= st[R_MAX_TURNS]:
            game_over(st)
            return
        begin_turn(st, me + 1 if me + 1 < P else 0)


# ---------------------------------------------------------------- the model


@helper("boolean(ST, int64, int64, int64, int64)", paste=True)
def apply(st, kind, a, b, c):
    """Carry out the pending seat's answer and play on to the next decision; False (and
    nothing changed) when the decision does not allow it (the checks of ``is_legal``).
    Inside a turn: a discard or pick-up, or the optional draw; after the deal each seat
    in order lays its up cards (kind = the mask), and the last one's choice begins seat
    0's turn.  A helper, so the whole turn is compiled once without reference counting
    (in the search kernel, which has them, numba's own inlining played these rules at
    about two thirds of the speed), and pasted by LLVM into ``step`` (``paste``)."""
    me = st[S_ACTOR]
    phase = st[S_PHASE]
    if phase == D_DISCARD:
        if not discard_legal(st, me, kind, a, b):
            return False
        answer_in_turn(st, me, kind, a, b)
    elif phase == D_DRAW:
        if kind != 0 and kind != 1:
            return False
        answer_in_turn(st, me, kind, a, b)
    else:
        if phase != D_UP or not up_legal(st, me, kind):
            return False
        choose_up(st, me, kind)
        if me + 1 < st[R_PLAYERS]:
            st[S_ACTOR] = me + 1
            return True
        later_seats_draw(st)
        begin_turn(st, 0)
    turns(st)
    return True


@njit(cache=True, nogil=True, inline="always")
def refuse(st, kind, a, b):
    """An answer the pending decision does not allow: the error names the decision, its
    fields, the seat and the values (sim/errors.py)."""
    me = st[S_ACTOR]
    if st[S_PHASE] == D_UP:
        illegal1("up cards", "mask", me, kind)
    if st[S_PHASE] == D_DRAW:
        illegal1("optional draw", "draw", me, kind)
    illegal3("discard", "kind,type,count", me, kind, a, b)


@helper("void(ST, ACT)", paste=True)
def step(st, act):
    """Apply the pending seat's answer and play on (``apply``); an illegal one raises."""
    kind, a, b, c = act
    if not apply(st, kind, a, b, c):
        refuse(st, kind, a, b)


# ---------------------------------------------------------------- re-deals (sim/redeal.py)
# A hand is the one hidden zone a re-deal cannot read generically: a stack of card ids
# per type with its count (S_HCNT).  Its derived books (S_HMASK, S_DEALT: hidden from the
# other seats, ``derived`` in the layout) are re-made here from the re-dealt hand, and
# nothing of the hand it held is left behind (the stacks' unused slots, the dealt
# positions of an up choice already made); the blocks of seats the game does not have
# the re-deal itself clears (sim/redeal.clear_hidden).


@helper("int64(ST, int64, int64, ST, int64)")
def table_cards(st, offset, seat, pool, k):
    """Seat's hand, its card ids type by type, into pool[k:]; returns the new k."""
    o = seat * NT
    for t in range(NT):
        for i in range(st[S_HCNT + o + t]):
            pool[k] = st[S_HAND + (o + t) * MAXK + i]
            k += 1
    return k


@helper("void(ST, int64, int64, ST, int64, int64)")
def table_put(st, offset, seat, pool, k, n):
    """pool[k:k+n] becomes seat's hand (stacks, counts and mask by type; the stacks' unused
    slots cleared: they held the cards that left the hand); while its up choice is still
    to come, its six dealt positions name the new cards, and once made they are cleared
    (they named the old hand's cards)."""
    o = seat * NT
    for t in range(NT):
        st[S_HCNT + o + t] = 0
    for i in range(NT * MAXK):
        st[S_HAND + o * MAXK + i] = 0
    m = np.int64(0)
    for i in range(n):
        c = pool[k + i]
        t = st[R_TYPE + c]
        j = st[S_HCNT + o + t]
        st[S_HAND + (o + t) * MAXK + j] = c
        st[S_HCNT + o + t] = j + 1
        m |= np.int64(1) << t
    st[S_HMASK + seat] = m
    choosing = st[S_PHASE] == D_UP and seat >= st[S_ACTOR]
    for i in range(NDEAL):
        st[S_DEALT + seat * NDEAL + i] = pool[k + i] if choosing and i < n else 0


# ---------------------------------------------------------------- what every seat saw picked up


@helper("int64(ST, int64, int64)")
def surplus(st, o, t):
    """Cards of type t in seat o's hand beyond those every seat knows it holds (S_KNOWN)."""
    return st[S_HCNT + o * NT + t] - st[S_KNOWN + o * NT + t]


@helper("int64(ST, int64, int64, int64, int64)")
def spare(st, seat, o, t, j):
    """The cards of type t hidden from ``seat`` that a world may move into seat o's hand:
    another seat's (not ``seat``'s, not o's) beyond what it is known to hold, the draw
    pile's, every seat's down cards.  With j < 0 their number; else where the j-th lies:
    seat h's hand as h, draw pile position i as MAXP + i, seat h's down card i as
    MAXP + MAXC + h * NDOWN + i."""
    n = 0
    for h in range(st[R_PLAYERS]):
        s = surplus(st, h, t) if h != seat and h != o else 0
        if s > 0:
            n += s
            if 0 <= j < n:
                return h
    for i in range(st[S_DRAW_N]):
        if st[R_TYPE + st[S_DRAW + i]] == t:
            if j == n:
                return MAXP + i
            n += 1
    for h in range(st[R_PLAYERS]):
        for i in range(st[S_DOWN_N + h]):
            if st[R_TYPE + st[S_DOWN + h * NDOWN + i]] == t:
                if j == n:
                    return MAXP + MAXC + h * NDOWN + i
                n += 1
    return n


@helper("void(ST, ST, int64)")
def honour_shown(src, dst, seat):
    """A picked-up pile went into a hand before every seat's eyes, so in ``seat``'s world
    each other seat o holds at least the cards of each type it is known to hold
    (``S_KNOWN``): where the re-deal left o short of type t, a spare card of type t
    (``spare``, uniformly) changes places with a card of o's hand that no knowledge pins
    (uniformly over its cards beyond what is known).  Both exist: the real position holds
    every known card in place, so the hidden places hold enough of type t, and o's hand is
    as large as it really is.  Choices come from ``seat``'s stream in ``src``; only ``dst``'s
    hidden places change (sim/redeal.py)."""
    for o in range(dst[R_PLAYERS]):
        if o == seat:
            continue
        for t in range(NT):
            while surplus(dst, o, t) < 0:
                free = 0  # o's cards of the other types that no knowledge pins
                for u in range(NT):
                    if u != t:
                        free += max(surplus(dst, o, u), 0)
                j = seat_below(src, seat, free)
                u = -1
                while j >= 0:  # the type of the j-th of them
                    u += 1
                    if u != t:
                        j -= max(surplus(dst, o, u), 0)
                give = hand_pop(dst, o, u)
                at = spare(dst, seat, o, t, seat_below(src, seat, spare(dst, seat, o, t, -1)))
                if at < MAXP:
                    got = hand_pop(dst, at, t)
                    hand_push(dst, at, give)
                else:
                    w = S_DRAW + at - MAXP if at < MAXP + MAXC else S_DOWN + at - MAXP - MAXC
                    got = dst[w]
                    dst[w] = give
                hand_push(dst, o, got)


# ---------------------------------------------------------------- causal card power


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


# ---------------------------------------------------------------- what the engine plays

# the rules functions the engine, the search player and card power are bound to (sim/bind.py)
RULES = Rules(deal=shuffle_and_deal, step=step, legal=legal, progress=progress, restrict_bits=restrict_bits,
              table_cards=table_cards, table_put=table_put, honour_shown=honour_shown, has_type=has_type,
              after_give=after_give)
