"""Crazy Eights' rules as compiled helpers over the packed state ``st``: the hand and the
piles, what may be played, drawing (with the reshuffle), ``legal``, penalties.
Strategies read the state through the helpers ``playable`` and ``draw_offered`` (public
facts and the seat's own hand only); only the kernel changes it."""
import numpy as np

from cardlab.sim.bits import lowest, popcount
from cardlab.sim.crazy_eights import layout as L
from cardlab.sim.engine import put_action
from cardlab.sim.events import emit
from cardlab.sim.jit import helper, inline
from cardlab.sim.piles import pile_pop, pile_push, pile_top, restock
from cardlab.sim.schema import KIND_BIT


# ---------------------------------------------------------------- hands and piles


@helper("void(ST, int64, int64)")
def take(st, seat, c):
    """Card c goes into seat's hand (card power: the seat held its rank)."""
    st[L.S_HANDS + seat] |= 1 << c
    st[L.S_HAND_N + seat] += 1
    st[L.S_HELD + seat * 13 + c % 13] = 1


@helper("void(ST, int64, int64)")
def play_card(st, seat, c):
    """Card c goes from seat's hand onto the discard pile; a play ends a run of passes."""
    st[L.S_HANDS + seat] &= ~(1 << c)
    st[L.S_HAND_N + seat] -= 1
    st[L.S_PLAYED + seat * 13 + c % 13] = 1
    pile_push(st, L.S_DISCARD, L.S_DISC_N, c)
    st[L.S_PASSES] = 0


@helper("int64(ST, int64)")
def playable(st, seat):
    """Seat's cards that may be played now: the suit to follow (the called one after an 8;
    any on a kept 8 starter), the top card's rank, and every 8.  In the game's first
    ``follow_suit_turns`` turns (a compensation knob; turns count from 1) only the suit to
    follow, and no 8: the first seats in turn order must follow the starter's suit."""
    if st[L.R_FOLLOW_SUIT_TURNS] != 0 and st[L.S_TURN] <= st[L.R_FOLLOW_SUIT_TURNS]:
        return st[L.S_HANDS + seat] & L.SUIT_MASK[st[L.S_SUIT]] & ~L.EIGHTS
    top = pile_top(st, L.S_DISCARD, L.S_DISC_N)
    return st[L.S_HANDS + seat] & (L.SUIT_MASK[st[L.S_SUIT]] | L.RANK_MASK[top % 13] | L.EIGHTS)


@helper("boolean(ST)")
def can_draw(st):
    """A card can be drawn: the stock has one, or (reshuffle=true) the discard pile has
    more than its top card to make a new stock of."""
    return st[L.S_STOCK_N] > 0 or (st[L.R_RESHUFFLE] != 0 and st[L.S_DISC_N] > 1)


@helper("boolean(ST)")
def under_limit(st):
    """The seat to act may draw another card this turn (draw_limit 0: no limit)."""
    return st[L.R_DRAW_LIMIT] == 0 or st[L.S_DRAWN] < st[L.R_DRAW_LIMIT]


@helper("boolean(ST)")
def draw_offered(st):
    """At a play decision, drawing instead of playing is allowed (may_draw_when_able)."""
    return st[L.R_MAY_DRAW] != 0 and can_draw(st) and under_limit(st)


@helper("void(ST, int64)", paste=True)
def draw(st, seat):
    """Seat draws the stock's top card (the caller checked ``can_draw``).  An empty stock
    is first renewed: every discard but the top card, shuffled."""
    if st[L.S_STOCK_N] == 0:
        n = restock(st, L.S_STOCK, L.S_STOCK_N, L.S_DISCARD, L.S_DISC_N)
        emit(st, L.ENGINE, L.EV_RESHUFFLE, -1, n, 0)
    c = pile_pop(st, L.S_STOCK, L.S_STOCK_N)
    take(st, seat, c)
    st[L.S_DRAWN] += 1
    st[L.S_PASSES] = 0
    emit(st, L.ENGINE, L.EV_DRAW, seat, c, 0)


# ---------------------------------------------------------------- legality


@helper("boolean(ST, int64, int64, int64, int64)", paste=True)
def is_legal(st, kind, a, b, c):
    """The pending decision allows (kind, a, b, c): a legal card or the offered draw; after
    an 8, a suit."""
    if st[L.S_PHASE] == L.D_CALL:
        return 0 <= kind <= 3 and a == 0 and b == 0 and c == 0
    if st[L.S_PHASE] != L.D_PLAY or b != 0 or c != 0:
        return False
    if kind == L.A_DRAW:
        return a == 0 and draw_offered(st)
    return kind == L.A_PLAY and 0 <= a < 52 and ((playable(st, st[L.S_ACTOR]) >> a) & 1) == 1


@helper("int64(ST)")
def legal(st):
    """Every legal action of the pending decision into the action buffer (4 numbers each,
    from L.S_ACTS); returns how many.  Play: each legal card (lowest code first), then the
    draw when offered; call: the four suits."""
    if st[L.S_PHASE] == L.D_CALL:
        for s in range(4):
            put_action(st, L.S_ACTS, s, s, 0, 0, 0)
        return 4
    cards = playable(st, st[L.S_ACTOR])
    n = 0
    while cards != 0:
        n = put_action(st, L.S_ACTS, n, L.A_PLAY, lowest(cards), 0, 0)
        cards &= cards - 1
    if draw_offered(st):
        n = put_action(st, L.S_ACTS, n, L.A_DRAW, 0, 0, 0)
    return n


# ---------------------------------------------------------------- scoring


@helper("int64(int64)")
def penalty(hand):
    """Penalty points of a hand: an 8 = 50, K Q J T = 10, an ace 1, others their number."""
    total = 0
    while hand != 0:
        total += L.PENALTY[lowest(hand) % 13]
        hand &= hand - 1
    return total


# ---------------------------------------------------------------- restricted play
# (``mcts:never=``, sim/search.py) what an action commits: a played card its rank; and its
# kind among RESTRICT_KINDS (layout.py): drawing when a card could be played


@helper("int64(ST, int64, int64, int64, int64)")
def restrict_bits(st, k, a, b, c):
    if st[L.S_PHASE] != L.D_PLAY:
        return np.int64(0)
    if k == L.A_PLAY:
        return np.int64(1) << (a % 13)
    return np.int64(1) << KIND_BIT


# ---------------------------------------------------------------- a seat's view as numbers


@inline
def more_features(st, me, out, at):
    """The observation's own numbers (``layout``: ``S.more_features``), what its rank types
    hide: seat ``me``'s cards of each suit, the discard pile's cards of each suit, the suit
    to follow (one of C D H S or any, one-hot) and how many of its cards could be played on
    the pile now.  Its own hand and public zones only."""
    hand = st[L.S_HANDS + me]
    for s in range(4):
        out[at + s] = popcount(hand & L.SUIT_MASK[s])
    for i in range(st[L.S_DISC_N]):
        out[at + 4 + st[L.S_DISCARD + i] // 13] += 1.0
    out[at + 8 + st[L.S_SUIT]] = 1.0
    out[at + 13] = popcount(playable(st, me))


@inline  # pasted into the engine's per-turn note: no call per seat and turn
def progress(st, seat):
    """The seat's progress score (``sim/shape.py``): minus the cards left in its hand (0 is out)."""
    return -st[L.S_HAND_N + seat]
