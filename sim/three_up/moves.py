"""3UP 3DOWN's rules as compiled helpers over the packed state ``st``.

Reading order follows the rulebook: events, the deal and the up-card choice, what is
legal, a discard (with the three-of-a-kind and Clear clears), the blind down card,
picking up the pile and drawing; then the model's ``is_legal`` and ``legal``: what each
decision (``D_UP``, ``D_DRAW``, ``D_DISCARD``, see layout.py) allows.  Strategies read the
state through the measures at the top; only the kernel changes it.

A hand is a set of per-type stacks of card ids with their counts (``S_HCNT``, see
layout.py) and a bit mask of the types it holds (``S_HMASK``, kept by every rule that
moves a card into or out of a hand); up cards are 3 slots plus counts per type
(``S_UCNT``).  Legality and strategies read the counts and the masks (``src_mask``: the
lowest legal type is one count-trailing-zeros, not a scan over the types).
"""
import numpy as np

from cardlab.sim.bits import lowest
from cardlab.sim.events import write_event
from cardlab.sim.engine import put_action
from cardlab.sim.jit import helper, inline
from cardlab.sim.schema import KIND_BIT
from cardlab.sim.three_up.layout import (
    A_PICKUP, A_PLAY, A_STOP, D_DISCARD, D_DRAW, D_UP, EV_CLEAR, EV_DEAL, EV_DOWN, EV_DRAW,
    EV_PICKUP, EV_PLAY, EV_STOP, EV_UP, HAND, MAXK, NDEAL, NDOWN, NT, NUP, R_CLEAR_RUN, R_EQUAL,
    R_EXTRA_OPT, R_MAXN, R_MUST, R_TYPE, SRC_HAND, S_ACTOR, S_ACTS, S_DEALT, S_DOWN, S_DOWN_N,
    S_DRAW, S_DRAW_N, S_EVC, S_EXTRA, S_GONE, S_GONE_N, S_HAND, S_HAND_N, S_HCNT, S_HELD, S_HMASK,
    S_KNOWN, S_NEV, S_OWED, S_PHASE, S_PICK0, S_PICKC, S_PILE, S_PILE_N, S_PLAYED, S_RUN, S_SIZE, S_STOPPED,
    S_TOP, S_TURN, S_UCNT, S_UP, S_UP_N, T_CLR, T_CLR1, T_CLR2, WHY_CLR, WHY_RUN, ZONES_END,
)

# ---------------------------------------------------------------- measures


@helper("int64(ST)")
def first_legal(st):
    """The lowest number type legal on the pile (0 on an empty pile)."""
    top = st[S_TOP]
    if top < 0:
        return 0
    return top if st[R_EQUAL] != 0 else top + 1


@helper("boolean(ST, int64)")
def number_legal(st, t):
    """Whether number type t may go on the pile (equal or higher; anything on empty)."""
    top = st[S_TOP]
    return top < 0 or t > top or (t == top and st[R_EQUAL] != 0)


@helper("int64(ST, int64)")
def src_base(st, me):
    """Offset of the per-type counts of the cards me discards from now: the hand, or
    the up cards once the hand is empty (the kernel asks only then with an empty draw
    pile)."""
    if st[S_HAND_N + me] > 0:
        return S_HCNT + me * NT
    return S_UCNT + me * NT


assert NUP == 3, "src_mask reads the up slots one by one"


@helper("int64(ST, int64)", paste=True)
def src_mask(st, me):
    """The card types of me's current source (hand, else up cards) as a bit mask: bit t
    set when it holds a card of type t (the hand's is kept in ``S_HMASK``; the up cards'
    is read off their at most 3 slots)."""
    if st[S_HAND_N + me] > 0:
        return st[S_HMASK + me]
    n = st[S_UP_N + me]  # at most NUP = 3: written out (a loop would be vectorized)
    o = S_UP + me * NUP
    m = np.int64(0)
    if n > 0:
        m |= np.int64(1) << st[R_TYPE + st[o]]
    if n > 1:
        m |= np.int64(1) << st[R_TYPE + st[o + 1]]
    if n > 2:
        m |= np.int64(1) << st[R_TYPE + st[o + 2]]
    return m


CLEAR_BITS = (1 << T_CLR) | (1 << T_CLR1) | (1 << T_CLR2)


@helper("int64(ST, int64, int64)", paste=True)
def lowest_legal_number(st, m, lo):
    """The lowest number type >= lo (and < max_number) set in the type mask m, or -1."""
    nm = (m & ((np.int64(1) << st[R_MAXN]) - 1)) >> lo
    if nm == 0:
        return -1
    return lo + lowest(nm)


@helper("boolean(ST, int64)")
def can_play(st, me):
    """Whether me has a legal discard from its current source (hand, else up cards)."""
    m = src_mask(st, me)
    if m & CLEAR_BITS:
        return True
    return lowest_legal_number(st, m, first_legal(st)) >= 0


# ---------------------------------------------------------------- events (trace mode)


@helper("void(ST, int64, int64, int64, int64, int64)")
def emit(st, kind, player, a, b, c):
    """Count an event; in trace mode (st longer than S_SIZE) also record it."""
    st[S_EVC + kind] += 1
    if st.shape[0] > S_SIZE:
        write_event(st, S_NEV, S_SIZE, ZONES_END, kind, player, st[S_TURN], a, b, c, 0, 0, 0)


# ---------------------------------------------------------------- deal, hands, draws


@helper("int64(ST, int64, int64)")
def hand_push(st, me, c):
    """Card c goes on top of its type's stack in me's hand (counts and mask by type); its
    type is returned."""
    t = st[R_TYPE + c]
    o = me * NT + t
    k = st[S_HCNT + o]
    st[S_HAND + o * MAXK + k] = c
    st[S_HCNT + o] = k + 1
    st[S_HMASK + me] |= np.int64(1) << t
    return t


@helper("int64(ST, int64, int64)")
def hand_pop(st, me, t):
    """The top card of type t's stack leaves me's hand (counts and mask by type); returned."""
    o = me * NT + t
    k = st[S_HCNT + o] - 1
    c = st[S_HAND + o * MAXK + k]
    st[S_HAND + o * MAXK + k] = 0
    st[S_HCNT + o] = k
    if k == 0:
        st[S_HMASK + me] &= ~(np.int64(1) << t)
    return c


@helper("void(ST, int64, int64)")
def hand_add(st, me, c):
    """Card c goes into me's hand (on top of its type's stack)."""
    t = hand_push(st, me, c)
    st[S_HAND_N + me] += 1
    st[S_HELD + me * NT + t] = 1



@helper("void(ST, int64, int64)")
def deal(st, seat, down):
    """Deal seat its 3 down cards (down=1: unseen, not yet held) or its 6 cards for
    the up/hand choice (down=0), off the top of the draw pile."""
    n = st[S_DRAW_N]
    if down != 0:
        for i in range(NDOWN):
            n -= 1
            st[S_DOWN + seat * NDOWN + i] = st[S_DRAW + n]
        st[S_DOWN_N + seat] = NDOWN
        st[S_DRAW_N] = n
        emit(st, EV_DEAL, -1, seat, 1, NDOWN)
    else:
        for i in range(NDEAL):
            n -= 1
            c = st[S_DRAW + n]
            st[S_DEALT + seat * NDEAL + i] = c
            hand_add(st, seat, c)
        st[S_DRAW_N] = n
        emit(st, EV_DEAL, -1, seat, 0, NDEAL)


@helper("boolean(ST, int64, int64)")
def up_legal(st, me, mask):
    """An up-card choice is a mask of exactly 3 of the 6 dealt hand positions."""
    if st[S_HAND_N + me] != NDEAL or mask < 0 or mask >= (1 << NDEAL):
        return False
    k = 0
    for i in range(NDEAL):
        k += (mask >> i) & 1
    return k == NUP


@helper("void(ST, int64, int64)")
def choose_up(st, me, mask):
    """Lay the dealt cards at the positions of mask (deal order, S_DEALT) face up; the
    others stay in hand."""
    u = 0
    rest = mask
    while rest != 0:  # the set positions, ascending (as many rounds as up cards: no
        i = lowest(rest)  # branch on each of the six bits)
        rest &= rest - 1
        c = st[S_DEALT + me * NDEAL + i]
        st[S_UP + me * NUP + u] = c
        u += 1
        o = me * NT + st[R_TYPE + c]  # out of the hand: c is in its type's stack
        b = S_HAND + o * MAXK
        k = st[S_HCNT + o]
        for j in range(k):
            if st[b + j] == c:
                st[b + j] = st[b + k - 1]
                break
        st[S_HCNT + o] = k - 1
        if k == 1:  # its type's last card in hand
            st[S_HMASK + me] &= ~(np.int64(1) << st[R_TYPE + c])
        st[S_UCNT + o] += 1
    st[S_HAND_N + me] -= u
    st[S_UP_N + me] = u
    o = S_UP + me * NUP
    emit(st, EV_UP, me, st[o], st[o + 1], st[o + 2])


@helper("void(ST, int64, int64)", paste=True)
def draw_up(st, me, optional):
    """Draw back up to 3 cards in hand while the draw pile lasts, one event per card
    (optional=1: the optional draw before an extra discard of a Clear +1/+2)."""
    n = st[S_DRAW_N]
    while n > 0 and st[S_HAND_N + me] < HAND:
        n -= 1
        c = st[S_DRAW + n]
        st[S_DRAW_N] = n
        hand_add(st, me, c)
        emit(st, EV_DRAW, me, c, optional, 0)


# ---------------------------------------------------------------- the pile


@helper("void(ST, int64, int64)", paste=True)
def clear_pile(st, me, why):
    """The pile leaves the game (why: WHY_RUN, or the Clear card played)."""
    pn = st[S_PILE_N]
    g = st[S_GONE_N]
    for i in range(pn):
        st[S_GONE + g + i] = st[S_PILE + i]
    st[S_GONE_N] = g + pn
    st[S_PILE_N] = 0
    st[S_TOP] = -1
    st[S_RUN] = 0
    emit(st, EV_CLEAR, me, why, pn, 0)


@helper("void(ST, int64, int64)", paste=True)
def stack(st, t, n):
    """n numbers of type t went on the pile: they extend or start the run on top."""
    if t < T_CLR:
        st[S_RUN] = st[S_RUN] + n if st[S_TOP] == t else n
        st[S_TOP] = t


@helper("void(ST, int64, int64)", paste=True)
def settle_pile(st, me, t):
    """After a discard of type t (shown on the pile): a Clear clears the pile, and so do
    clear_run equal numbers in a row on top."""
    if t >= T_CLR:
        clear_pile(st, me, WHY_CLR + t - T_CLR)
    elif st[S_RUN] >= st[R_CLEAR_RUN]:
        clear_pile(st, me, WHY_RUN)


@helper("boolean(ST, int64)")
def may_stop(st, me):
    """Whether me may end its Clear +1/+2 chain instead of the extra discard now owed:
    extra_discards=hand_optional, the turn's first discard made (``S_EXTRA``), and the
    discard would come from the hand (from the up or down cards it must be made)."""
    return st[R_EXTRA_OPT] != 0 and st[S_EXTRA] != 0 and st[S_HAND_N + me] > 0


@helper("boolean(ST, int64, int64, int64, int64)", paste=True)
def discard_legal(st, me, kind, t, n):
    """A discard answer: pick up (when no discard is legal, or by choice with
    must_play_if_able=false and a pile to take), end the chain (``may_stop``), or n >= 1
    cards of type t from the current source: one Clear (legal on anything), or numbers
    legal on the pile."""
    if kind == A_PICKUP:
        if st[R_MUST] == 0 and st[S_PILE_N] > 0:
            return True
        return not can_play(st, me)
    if kind == A_STOP:  # (A_STOP, 0, 0): no card named
        return t == 0 and n == 0 and may_stop(st, me)
    if kind != A_PLAY or t < 0 or t >= NT or n < 1:
        return False
    base = S_HCNT + me * NT if st[S_HAND_N + me] > 0 else S_UCNT + me * NT
    if n > st[base + t]:
        return False
    if t >= T_CLR:
        return n == 1
    top = st[S_TOP]
    return top < 0 or t > top or (t == top and st[R_EQUAL] != 0)


@helper("void(ST, int64, int64, int64, int64)", paste=True)
def discard(st, me, src, t, n):
    """Discard n cards of type t from the hand (src=SRC_HAND: the top n of its type's
    stack) or the up cards onto the pile, then clear it if they clear it."""
    pn = st[S_PILE_N]
    if src == SRC_HAND:
        o = me * NT + t
        k = st[S_HCNT + o] - n
        b = S_HAND + o * MAXK + k
        for i in range(n):
            st[S_PILE + pn + i] = st[b + i]
        pn += n
        st[S_HCNT + o] = k
        st[S_HAND_N + me] -= n
        st[S_KNOWN + o] = max(st[S_KNOWN + o] - n, 0)  # the seen ones may be among them
        if k == 0:  # its type's last card in hand
            st[S_HMASK + me] &= ~(np.int64(1) << t)
    else:
        base = S_UP + me * NUP
        w = 0
        k = 0
        for i in range(st[S_UP_N + me]):
            c = st[base + i]
            if k < n and st[R_TYPE + c] == t:
                st[S_PILE + pn] = c
                pn += 1
                k += 1
            else:
                st[base + w] = c
                w += 1
        st[S_UP_N + me] = w
        st[S_UCNT + me * NT + t] -= n
    st[S_PILE_N] = pn
    st[S_PLAYED + me * NT + t] = 1
    stack(st, t, n)
    emit(st, EV_PLAY, me, src, t, n)
    settle_pile(st, me, t)


@helper("int64(ST, int64)", paste=True)
def play_down(st, me):
    """Turn over me's last-dealt down card onto the pile.  Legal (a Clear, anything on
    an empty pile, a number legal on the top): it is a discard and its type is returned.
    Otherwise it stays on the pile for the pick-up that follows and -1 is returned."""
    d = st[S_DOWN_N + me] - 1
    c = st[S_DOWN + me * NDOWN + d]
    st[S_DOWN_N + me] = d
    t = st[R_TYPE + c]
    st[S_HELD + me * NT + t] = 1
    pn = st[S_PILE_N]
    st[S_PILE + pn] = c
    st[S_PILE_N] = pn + 1
    ok = t >= T_CLR or number_legal(st, t)
    if not ok:
        emit(st, EV_DOWN, me, c, 0, 0)
        return -1
    st[S_PLAYED + me * NT + t] = 1
    stack(st, t, 1)
    emit(st, EV_DOWN, me, c, 1, 0)
    settle_pile(st, me, t)
    return t


@helper("void(ST, int64, int64)", paste=True)
def pickup(st, me, why):
    """me takes the whole pile into its hand (possibly an empty pile); why: P_*."""
    pn = st[S_PILE_N]
    for i in range(pn):
        c = st[S_PILE + i]
        hand_add(st, me, c)
        st[S_KNOWN + me * NT + st[R_TYPE + c]] += 1  # every seat saw it go in
    st[S_PILE_N] = 0
    st[S_TOP] = -1
    st[S_RUN] = 0
    st[S_PICKC + why] += 1
    if pn == 0:
        st[S_PICK0] += 1
    emit(st, EV_PICKUP, me, pn, why, 0)


@helper("void(ST, int64)")
def stop_chain(st, me):
    """me ends its Clear +1/+2 chain: the extra discards still owed are declined (one
    stop event, with how many); the turn goes on to the draw back up to 3."""
    declined = st[S_OWED]
    st[S_OWED] = 0
    st[S_STOPPED] += 1
    emit(st, EV_STOP, me, declined, 0, 0)


# ---------------------------------------------------------------- the model: legal actions


@helper("boolean(ST, int64, int64, int64, int64)")
def is_legal(st, kind, a, b, c):
    """Whether (kind, a, b, c) answers the pending decision of seat ``st[S_ACTOR]``: an up
    choice (kind = the mask), the optional draw (kind = 0 or 1), a discard (kind, type =
    a, count = b).  Fields a decision does not name are not read."""
    me = st[S_ACTOR]
    phase = st[S_PHASE]
    if phase == D_DISCARD:
        return discard_legal(st, me, kind, a, b)
    if phase == D_DRAW:
        return kind == 0 or kind == 1
    if phase == D_UP:
        return up_legal(st, me, kind)
    return False


@helper("int64(ST)")
def legal(st):
    """The model's ``legal``: every legal action of the pending decision into the action
    buffer (4 numbers each, from ``S_ACTS``, unnamed fields 0); returns how many.  Up: the
    20 masks of 3 of the 6 dealt positions, ascending; the draw: 0, 1; a discard: each legal
    number (ascending) with 1..all its copies in the source, each Clear type held, then the
    pick-up when it is legal, then the stop (ending a chain) when it is legal."""
    me = st[S_ACTOR]
    phase = st[S_PHASE]
    n = 0
    if phase == D_DISCARD:
        base = src_base(st, me)
        for t in range(first_legal(st), st[R_MAXN]):
            for k in range(1, st[base + t] + 1):
                n = put_action(st, S_ACTS, n, A_PLAY, t, k, 0)
        for t in range(T_CLR, T_CLR2 + 1):
            if st[base + t] > 0:
                n = put_action(st, S_ACTS, n, A_PLAY, t, 1, 0)
        if discard_legal(st, me, A_PICKUP, 0, 0):
            n = put_action(st, S_ACTS, n, A_PICKUP, 0, 0, 0)
        if may_stop(st, me):
            n = put_action(st, S_ACTS, n, A_STOP, 0, 0, 0)
    elif phase == D_DRAW:
        n = put_action(st, S_ACTS, n, 0, 0, 0, 0)
        n = put_action(st, S_ACTS, n, 1, 0, 0, 0)
    elif phase == D_UP:
        for mask in range(1 << NDEAL):
            if up_legal(st, me, mask):
                n = put_action(st, S_ACTS, n, mask, 0, 0, 0)
    return n


# ---------------------------------------------------------------- restricted play
# (``mcts:never=``, sim/search.py) what an action commits: a discard the type it plays;
# and its kind among RESTRICT_KINDS (layout.py): picking the pile up, drawing before an
# extra discard


@helper("int64(ST, int64, int64, int64, int64)")
def restrict_bits(st, k, a, b, c):
    ph = st[S_PHASE]
    if ph == D_DISCARD:
        if k == A_PLAY:
            return np.int64(1) << a
        if k == A_PICKUP:
            return np.int64(1) << KIND_BIT
        return np.int64(0)  # ending a chain commits nothing
    if ph == D_DRAW and k == 1:
        return np.int64(1) << (KIND_BIT + 1)
    return np.int64(0)


@inline  # pasted into the engine's per-turn note: no call per seat and turn
def progress(st, seat):
    """The seat's progress score (``sim/shape.py``): minus the cards it has left to shed
    (hand, up and down cards; 0 is out)."""
    return -(st[S_HAND_N + seat] + st[S_UP_N + seat] + st[S_DOWN_N + seat])
