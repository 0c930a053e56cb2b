"""Crazy Eights' rules as compiled helpers over the packed state ``st``: the hand and the
piles, what may be played, drawing (with the reshuffle), ``legal``, penalties.
Strategies read the state through the helpers ``playable`` and ``draw_offered`` (public
facts and the seat's own hand only); only the kernel changes it."""
import numpy as np

from cardlab.sim.bits import lowest, popcount
from cardlab.sim.engine import put_action
from cardlab.sim.events import emit
from cardlab.sim.jit import helper, inline
from cardlab.sim.schema import KIND_BIT
from cardlab.sim.rng import shuffle
from cardlab.sim.crazy_eights.layout import (
    A_DRAW, A_PLAY, D_CALL, D_PLAY, EIGHTS, ENGINE, EV_DRAW, EV_RESHUFFLE, PENALTY, RANK_MASK,
    R_DRAW_LIMIT, R_FOLLOW_SUIT_TURNS, R_MAY_DRAW, R_RESHUFFLE, SUIT_MASK, S_ACTOR, S_ACTS,
    S_DISCARD, S_DISC_N, S_DRAWN, S_HANDS, S_HAND_N, S_HELD, S_PASSES, S_PHASE, S_PLAYED, S_STOCK,
    S_STOCK_N, S_SUIT, S_TURN,
)


# ---------------------------------------------------------------- hands and piles


@helper("void(ST, int64, int64)")
def take(st, seat, c):
    """Card c goes into seat's hand (card power: the seat held its rank)."""
    st[S_HANDS + seat] |= 1 << c
    st[S_HAND_N + seat] += 1
    st[S_HELD + seat * 13 + c % 13] = 1


@helper("int64(ST)")
def top(st):
    """The top card of the discard pile (never empty after the starter)."""
    return st[S_DISCARD + st[S_DISC_N] - 1]


@helper("void(ST, int64, int64)")
def play_card(st, seat, c):
    """Card c goes from seat's hand onto the discard pile; a play ends a run of passes."""
    st[S_HANDS + seat] &= ~(1 << c)
    st[S_HAND_N + seat] -= 1
    st[S_PLAYED + seat * 13 + c % 13] = 1
    st[S_DISCARD + st[S_DISC_N]] = c
    st[S_DISC_N] += 1
    st[S_PASSES] = 0


@helper("int64(ST, int64)")
def playable(st, seat):
    """Seat's cards that may be played now: the suit to follow (the called one after an 8;
    any on a kept 8 starter), the top card's rank, and every 8.  In the game's first
    ``follow_suit_turns`` turns (a compensation knob; turns count from 1) only the suit to
    follow, and no 8: the first seats in turn order must follow the starter's suit."""
    if st[R_FOLLOW_SUIT_TURNS] != 0 and st[S_TURN] <= st[R_FOLLOW_SUIT_TURNS]:
        return st[S_HANDS + seat] & SUIT_MASK[st[S_SUIT]] & ~EIGHTS
    return st[S_HANDS + seat] & (SUIT_MASK[st[S_SUIT]] | RANK_MASK[top(st) % 13] | EIGHTS)


@helper("boolean(ST)")
def can_draw(st):
    """A card can be drawn: the stock has one, or (reshuffle=true) the discard pile has
    more than its top card to make a new stock of."""
    return st[S_STOCK_N] > 0 or (st[R_RESHUFFLE] != 0 and st[S_DISC_N] > 1)


@helper("boolean(ST)")
def under_limit(st):
    """The seat to act may draw another card this turn (draw_limit 0: no limit)."""
    return st[R_DRAW_LIMIT] == 0 or st[S_DRAWN] < st[R_DRAW_LIMIT]


@helper("boolean(ST)")
def draw_offered(st):
    """At a play decision, drawing instead of playing is allowed (may_draw_when_able)."""
    return st[R_MAY_DRAW] != 0 and can_draw(st) and under_limit(st)


@helper("void(ST, int64)", paste=True)
def draw(st, seat):
    """Seat draws the stock's top card (the caller checked ``can_draw``).  An empty stock
    is first renewed: every discard but the top card, shuffled."""
    if st[S_STOCK_N] == 0:
        n = st[S_DISC_N] - 1
        for i in range(n):
            st[S_STOCK + i] = st[S_DISCARD + i]
        st[S_DISCARD] = st[S_DISCARD + n]
        st[S_DISC_N] = 1
        shuffle(st, S_STOCK, S_STOCK + n)
        st[S_STOCK_N] = n
        emit(st, ENGINE, EV_RESHUFFLE, -1, n, 0)
    n = st[S_STOCK_N] - 1
    c = st[S_STOCK + n]
    st[S_STOCK_N] = n
    take(st, seat, c)
    st[S_DRAWN] += 1
    st[S_PASSES] = 0
    emit(st, ENGINE, EV_DRAW, seat, c, 0)


# ---------------------------------------------------------------- legality


@helper("boolean(ST, int64, int64, int64, int64)", paste=True)
def is_legal(st, kind, a, b, c):
    """The pending decision allows (kind, a, b, c): a legal card or the offered draw; after
    an 8, a suit."""
    if st[S_PHASE] == D_CALL:
        return 0 <= kind <= 3 and a == 0 and b == 0 and c == 0
    if st[S_PHASE] != D_PLAY or b != 0 or c != 0:
        return False
    if kind == A_DRAW:
        return a == 0 and draw_offered(st)
    return kind == A_PLAY and 0 <= a < 52 and ((playable(st, st[S_ACTOR]) >> a) & 1) == 1


@helper("int64(ST)")
def legal(st):
    """Every legal action of the pending decision into the action buffer (4 numbers each,
    from S_ACTS); returns how many.  Play: each legal card (lowest code first), then the
    draw when offered; call: the four suits."""
    if st[S_PHASE] == D_CALL:
        for s in range(4):
            put_action(st, S_ACTS, s, s, 0, 0, 0)
        return 4
    cards = playable(st, st[S_ACTOR])
    n = 0
    while cards != 0:
        n = put_action(st, S_ACTS, n, A_PLAY, lowest(cards), 0, 0)
        cards &= cards - 1
    if draw_offered(st):
        n = put_action(st, S_ACTS, n, A_DRAW, 0, 0, 0)
    return n


# ---------------------------------------------------------------- scoring


@helper("int64(int64)")
def penalty(hand):
    """Penalty points of a hand: an 8 = 50, K Q J T = 10, an ace 1, others their number."""
    total = 0
    while hand != 0:
        total += PENALTY[lowest(hand) % 13]
        hand &= hand - 1
    return total


# ---------------------------------------------------------------- restricted play
# (``mcts:never=``, sim/search.py) what an action commits: a played card its rank; and its
# kind among RESTRICT_KINDS (layout.py): drawing when a card could be played


@helper("int64(ST, int64, int64, int64, int64)")
def restrict_bits(st, k, a, b, c):
    if st[S_PHASE] != D_PLAY:
        return np.int64(0)
    if k == A_PLAY:
        return np.int64(1) << (a % 13)
    return np.int64(1) << KIND_BIT


# ---------------------------------------------------------------- a seat's view as numbers


@inline
def more_features(st, me, out, at):
    """The observation's own numbers (``layout``: ``S.more_features``), what its rank types
    hide: seat ``me``'s cards of each suit, the discard pile's cards of each suit, the suit
    to follow (one of C D H S or any, one-hot) and how many of its cards could be played on
    the pile now.  Its own hand and public zones only."""
    hand = st[S_HANDS + me]
    for s in range(4):
        out[at + s] = popcount(hand & SUIT_MASK[s])
    for i in range(st[S_DISC_N]):
        out[at + 4 + st[S_DISCARD + i] // 13] += 1.0
    out[at + 8 + st[S_SUIT]] = 1.0
    out[at + 13] = popcount(playable(st, me))


@inline  # pasted into the engine's per-turn note: no call per seat and turn
def progress(st, seat):
    """The seat's progress score (``sim/shape.py``): minus the cards left in its hand (0 is out)."""
    return -st[S_HAND_N + seat]
