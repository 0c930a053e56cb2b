"""Skyscraper's rules as compiled helpers over the packed state ``st``.

Reading order follows the rulebook: hands and piles, drawing (with the reshuffle),
towers, then legality and the effect of every action.  Strategies read the state
through the small accessors at the top; only the kernel changes it.
"""
import numpy as np

from cardlab.sim.events import write_event
from cardlab.sim.engine import put_action
from cardlab.sim.jit import helper, inline
from cardlab.sim.schema import KIND_BIT

from cardlab.sim.rng import below, shuffle
from cardlab.sim.skyscraper.layout import (
    A_BALL, A_BONE, A_BUILD, A_DISCARD, A_DOG, A_HAM, A_SHAKE, A_STEAL, A_STOP, A_SUPER,
    A_THIEF, A_TRUCK, BALL, BONE, DOG, EV_BALL, EV_BONE, EV_BUILD, EV_DISCARD, EV_DOG,
    EV_DRAW, EV_HAM, EV_RESHUFFLE, EV_SHAKE, EV_STEAL, EV_SUPER, EV_THIEF, EV_TRUCK, F0,
    FL_DOGS, FL_T0, FL_T1, FL_V0, FL_V1, FW, HAM, J, MAXF, NT, R_DOG_MOVES_UP, R_FLOOR_MAX,
    R_FLOOR_SUM, R_MAX_DOGS, R_PLAYERS, R_SKIPS_STACK, R_SOLO_DISCARD, SHAKE, SUPER,
    S_ACTOR, S_ACTS, S_DISC, S_DISC_N, S_DRAW, S_DRAW_N, S_EVC, S_HAND, S_HELD, S_HSIZE,
    S_MOVES, S_NEV, S_NFL, S_PLAYED, S_SIZE, S_SKIP, S_TOWER, S_TURN, THIEF, TRUCK,
    ZONES_END,
)

# ---------------------------------------------------------------- reading the state


@helper("int64(ST, int64, int64)")
def held(st, seat, t):
    """How many cards of type t are in seat's hand."""
    return st[S_HAND + seat * NT + t]


@helper("int64(ST, int64)")
def hand_size(st, seat):
    return st[S_HSIZE + seat]


@helper("int64(ST, int64)")
def floors(st, seat):
    return st[S_NFL + seat]


@helper("int64(ST, int64, int64)")
def floor_at(st, seat, f):
    """Offset of floor f (0 = bottom) of seat's tower."""
    return S_TOWER + (seat * MAXF + f) * FW


@helper("int64(ST, int64)")
def top(st, seat):
    """Offset of seat's top floor, or -1 when the tower is empty."""
    n = st[S_NFL + seat]
    return floor_at(st, seat, n - 1) if n > 0 else -1


@helper("int64(ST, int64)")
def top_dogs(st, seat):
    n = st[S_NFL + seat]
    return st[floor_at(st, seat, n - 1) + FL_DOGS] if n > 0 else 0


@helper("int64(ST, int64, int64)")
def top_value(st, seat, k):
    """Value of card k (0 or 1) of seat's top floor (a joker's given value)."""
    return st[top(st, seat) + FL_V0 + k]


@helper("boolean(int64)")
def is_floor(t):
    return t > F0


@helper("int64(int64)")
def value_of(t):
    return t - F0


# ---------------------------------------------------------------- events (trace mode)


@helper("void(ST, int64, int64, int64, int64, int64, int64, int64, int64)")
def emit(st, kind, player, a, b, c, d, e, f):
    """Count an event; in trace mode (st longer than S_SIZE) also record it."""
    st[S_EVC + kind] += 1
    st[S_MOVES] += 1
    if st.shape[0] > S_SIZE:
        write_event(st, S_NEV, S_SIZE, ZONES_END, kind, player, st[S_TURN], a, b, c, d, e, f)


# ---------------------------------------------------------------- hands and piles


@helper("void(ST, int64, int64)")
def take_into_hand(st, seat, t):
    st[S_HAND + seat * NT + t] += 1
    st[S_HSIZE + seat] += 1
    st[S_HELD + seat * NT + t] = 1


@helper("void(ST, int64, int64)")
def play_from_hand(st, seat, t):
    st[S_HAND + seat * NT + t] -= 1
    st[S_HSIZE + seat] -= 1
    st[S_PLAYED + seat * NT + t] = 1


@helper("void(ST, int64)")
def discard(st, t):
    st[S_DISC + st[S_DISC_N]] = t
    st[S_DISC_N] += 1


@helper("boolean(ST, int64)", paste=True)
def draw(st, seat):
    """Draw the top card into seat's hand; an empty pile first takes the shuffled
    discards; with both empty nothing happens.  Returns whether a card was drawn."""
    if st[S_DRAW_N] == 0:
        n = st[S_DISC_N]
        if n == 0:
            return False
        for i in range(n):
            st[S_DRAW + i] = st[S_DISC + i]
        st[S_DISC_N] = 0
        shuffle(st, S_DRAW, S_DRAW + n)
        st[S_DRAW_N] = n
        emit(st, EV_RESHUFFLE, -1, n, 0, 0, 0, 0, 0)
    n = st[S_DRAW_N] - 1
    t = st[S_DRAW + n]
    st[S_DRAW_N] = n
    take_into_hand(st, seat, t)
    emit(st, EV_DRAW, seat, t, 0, 0, 0, 0, 0)
    return True


# ---------------------------------------------------------------- towers


@helper("void(ST, int64, int64, int64, int64, int64)")
def add_floor(st, seat, t0, v0, t1, v1):
    """Put a new floor on top of seat's tower (a dog may follow it up, knob)."""
    n = st[S_NFL + seat]
    o = floor_at(st, seat, n)
    st[o + FL_T0] = t0
    st[o + FL_V0] = v0
    st[o + FL_T1] = t1
    st[o + FL_V1] = v1
    st[o + FL_DOGS] = 0
    if n > 0 and st[R_DOG_MOVES_UP] != 0:
        below_o = floor_at(st, seat, n - 1)
        st[o + FL_DOGS] = st[below_o + FL_DOGS]
        st[below_o + FL_DOGS] = 0
    st[S_NFL + seat] = n + 1


@helper("void(ST, int64)")
def wreck_top(st, seat):
    """Remove seat's top floor, discarding floor card 0, floor card 1, then its dogs."""
    o = top(st, seat)
    discard(st, st[o + FL_T0])
    discard(st, st[o + FL_T1])
    for _ in range(st[o + FL_DOGS]):
        discard(st, DOG)
    st[o + FL_DOGS] = 0
    st[S_NFL + seat] -= 1


@helper("UniTuple(int64, 2)(ST, int64, int64, int64)")
def steal_into(st, me, target, k):
    """Take card k of target's top floor; its other card goes to the discard pile.
    Returns (type, value) of the card taken."""
    o = top(st, target)
    t = st[o + FL_T0 + k]
    v = st[o + FL_V0 + k]
    discard(st, st[o + FL_T0 + 1 - k])
    st[S_NFL + target] -= 1
    return t, v


@helper("void(ST, int64)")
def add_skip(st, seat):
    if st[R_SKIPS_STACK] != 0 or st[S_SKIP + seat] == 0:
        st[S_SKIP + seat] += 1


@helper("int64(ST, int64, int64)")
def steal_random_card(st, me, target):
    """Move a uniformly chosen card of target's hand into mine; -1 if it is empty."""
    n = st[S_HSIZE + target]
    if n == 0:
        return -1
    r = below(st, n)
    base = S_HAND + target * NT
    for t in range(NT):
        c = st[base + t]
        if r < c:
            st[base + t] -= 1
            st[S_HSIZE + target] -= 1
            take_into_hand(st, me, t)
            return t
        r -= c
    return -1  # unreachable while the counts are consistent


# ---------------------------------------------------------------- legality


@helper("boolean(ST, int64, int64, int64, int64, int64)", paste=True)
def is_legal(st, me, kind, a, b, c):
    P = st[R_PLAYERS]
    fsum = st[R_FLOOR_SUM]
    hand = S_HAND + me * NT  # st[hand + t]: copies of card type t in my hand
    if kind == A_STOP:
        return True
    if kind == A_BUILD:
        # a floor card plus a floor card or a joker, summing to floor_sum
        if a <= F0 or a >= NT or not (F0 < b < NT or b == J):
            return False
        if st[hand + a] < (2 if a == b else 1) or st[hand + b] < 1:
            return False
        vb = b - F0 if b != J else c
        return 1 <= vb <= st[R_FLOOR_MAX] and a - F0 + vb == fsum
    if kind == A_DISCARD:
        return P == 1 and st[R_SOLO_DISCARD] != 0 and BONE <= a <= SUPER and st[hand + a] > 0
    if kind == A_DOG:
        n = st[S_NFL + me]
        return st[hand + DOG] > 0 and n > 0 and \
            st[S_TOWER + (me * MAXF + n - 1) * FW + FL_DOGS] < st[R_MAX_DOGS]
    if P == 1:
        return False  # alone, attack and skip cards have no target (see A_DISCARD)
    if kind == A_SUPER or kind == A_SHAKE or kind == A_TRUCK or kind == A_THIEF:
        card = SUPER if kind == A_SUPER else SHAKE if kind == A_SHAKE else TRUCK if kind == A_TRUCK else THIEF
        return st[hand + card] > 0 and (kind != A_THIEF or (0 <= a < P and a != me))
    # the rest act on target a's top floor
    if a < 0 or a >= P or a == me or st[S_NFL + a] == 0:
        return False
    top_a = S_TOWER + (a * MAXF + st[S_NFL + a] - 1) * FW
    dogs = st[top_a + FL_DOGS]
    if kind == A_STEAL:
        # a real floor card (never a joker) completing the other card of an unguarded top floor
        return (b == 0 or b == 1) and dogs == 0 and F0 < c < NT and st[hand + c] > 0 \
            and c - F0 + st[top_a + FL_V0 + b] == fsum
    if kind == A_BONE:
        return st[hand + BONE] > 0 and dogs > 0
    if kind == A_HAM:
        return st[hand + HAM] > 0 and dogs == 0
    if kind == A_BALL:
        return st[hand + BALL] > 0
    return False


@helper("int64(ST, int64, boolean)")
def legal_actions(st, me, both_orders):
    """Write every legal action except STOP into the action buffer; return how many.
    Every candidate is listed first, then the buffer keeps those ``is_legal`` accepts.
    A natural pair can be laid in either order (which card is floor card 0 matters to a
    later steal): ``both_orders`` lists both, as the model's ``legal`` must; without it
    each value pair is listed once, as the ``random`` strategy has always drawn them."""
    P = st[R_PLAYERS]
    fsum = st[R_FLOOR_SUM]
    fmax = st[R_FLOOR_MAX]
    n = 0
    for va in range(1, fmax + 1):  # builds: each value pair once, and each card + joker
        if va <= fsum - va:
            n = put_action(st, S_ACTS, n, A_BUILD, F0 + va, F0 + fsum - va, 0)
        elif both_orders:
            n = put_action(st, S_ACTS, n, A_BUILD, F0 + va, F0 + fsum - va, 0)
        n = put_action(st, S_ACTS, n, A_BUILD, F0 + va, J, fsum - va)
    n = put_action(st, S_ACTS, n, A_DOG, 0, 0, 0)
    for t in range(BONE, SUPER + 1):
        n = put_action(st, S_ACTS, n, A_DISCARD, t, 0, 0)
    for d in range(1, P):
        o = (me + d) % P
        for k in range(2):
            if floors(st, o) > 0:
                n = put_action(st, S_ACTS, n, A_STEAL, o, k, F0 + fsum - top_value(st, o, k))
        for kind in range(A_BONE, A_THIEF + 1):  # bone, hammer, ball, thief
            n = put_action(st, S_ACTS, n, kind, o, 0, 0)
    for kind in range(A_SUPER, A_TRUCK + 1):  # super thief, milkshake, truck
        n = put_action(st, S_ACTS, n, kind, 0, 0, 0)
    m = 0
    for i in range(n):
        o = S_ACTS + 4 * i
        if is_legal(st, me, st[o], st[o + 1], st[o + 2], st[o + 3]):
            m = put_action(st, S_ACTS, m, st[o], st[o + 1], st[o + 2], st[o + 3])
    return m


@helper("int64(ST)")
def legal(st):
    """The model's ``legal``: every legal action of the pending ``D_PLAY`` into the
    action buffer (4 numbers each, from ``S_ACTS``), stopping last; returns how many."""
    n = legal_actions(st, st[S_ACTOR], True)
    put_action(st, S_ACTS, n, A_STOP, 0, 0, 0)
    return n + 1


# ---------------------------------------------------------------- effects

# the card each action plays and the event it records, by action kind (A_STOP..A_DISCARD)
ACTION_CARD = (-1, -1, -1, DOG, BONE, HAM, BALL, THIEF, SUPER, SHAKE, TRUCK, -1)
ACTION_EVENT = (-1, EV_BUILD, EV_STEAL, EV_DOG, EV_BONE, EV_HAM, EV_BALL, EV_THIEF, EV_SUPER,
                EV_SHAKE, EV_TRUCK, EV_DISCARD)


@helper("boolean(ST, int64, int64, int64, int64, int64)", paste=True)
def apply_action(st, me, kind, a, b, c):
    """Carry out a legal action.  Returns True when it added a floor to my tower."""
    P = st[R_PLAYERS]
    if kind == A_BUILD:
        play_from_hand(st, me, a)
        play_from_hand(st, me, b)
        vb = value_of(b) if b != J else c
        add_floor(st, me, a, value_of(a), b, vb)
        emit(st, EV_BUILD, me, a, b, value_of(a), vb, 0, 0)
        return True
    if kind == A_STEAL:
        play_from_hand(st, me, c)
        t, v = steal_into(st, me, a, b)
        add_floor(st, me, c, value_of(c), t, v)
        emit(st, EV_STEAL, me, a, b, c, t, v, 0)
        return True
    if kind == A_DOG:
        play_from_hand(st, me, DOG)
        st[top(st, me) + FL_DOGS] += 1
        emit(st, EV_DOG, me, 0, 0, 0, 0, 0, 0)
        return False
    # every other card is played from the hand onto the discard pile, then acts
    card = ACTION_CARD[kind] if kind != A_DISCARD else a
    play_from_hand(st, me, card)
    discard(st, card)
    x = a  # the event's fields: the target or card, then what was taken
    y = -1
    z = -1
    if kind == A_BONE:  # the dog follows the bone
        discard(st, DOG)
        st[top(st, a) + FL_DOGS] -= 1
    elif kind == A_HAM or kind == A_BALL:
        wreck_top(st, a)
    elif kind == A_THIEF:
        y = steal_random_card(st, me, a)
    elif kind == A_SUPER:
        # one card from every opponent in turn order (-1: that hand was empty or absent)
        x = steal_random_card(st, me, (me + 1) % P)
        y = steal_random_card(st, me, (me + 2) % P) if P > 2 else -1
        z = steal_random_card(st, me, (me + 3) % P) if P > 3 else -1
    elif kind == A_SHAKE:
        x = (me + 1) % P
        add_skip(st, x)
    elif kind == A_TRUCK:
        for d in range(1, P):
            add_skip(st, (me + d) % P)
    emit(st, ACTION_EVENT[kind], me, x, y, z, 0, 0, 0)
    return False


# ---------------------------------------------------------------- restricted play
# (``mcts:never=``, sim/search.py) what an action commits: the card types it plays from
# the hand (a build's two cards, a steal's card, a discarded card, an action card), and
# its kind among RESTRICT_KINDS (layout.py)


@helper("int64(ST, int64, int64, int64, int64)")
def restrict_bits(st, kind, a, b, c):
    if kind == A_STOP:
        return np.int64(1) << (KIND_BIT + 3)
    if kind == A_BUILD:
        return (np.int64(1) << a) | (np.int64(1) << b) | (np.int64(1) << KIND_BIT)
    if kind == A_STEAL:
        return (np.int64(1) << c) | (np.int64(1) << (KIND_BIT + 1))
    if kind == A_DISCARD:
        return (np.int64(1) << a) | (np.int64(1) << (KIND_BIT + 2))
    return np.int64(1) << ACTION_CARD[kind]


@inline  # pasted into the engine's per-turn note: no call per seat and turn
def progress(st, seat):
    """The seat's progress score (``sim/shape.py``): the floors in its tower."""
    return st[S_NFL + seat]
