"""Smokestack's rules as compiled helpers over the packed state ``st``.

Reading order follows the rulebook: events, dealing (with the stock-empty end),
chimneys, then legality (and ``legal``, every legal action of the pending decision)
and the four things that change the table: double chimney, swap, sweep and the
stalled-table replacement.  Strategies read the state through the measures at the top;
only the kernel changes it.
"""
import numpy as np

from cardlab.sim.events import write_event
from cardlab.sim.engine import put_action
from cardlab.sim.jit import helper, inline
from cardlab.sim.schema import KIND_BIT
from cardlab.sim.rng import shuffle
from cardlab.sim.smokestack.layout import (
    A_PASS, A_SWAP, D_DOUBLE, D_STALL, D_SWAP, D_SWEEP, EV_CHIMNEY, EV_DEAL, EV_DOUBLE,
    EV_STALL, EV_STRAIGHT, EV_SWAP, EV_SWEEP, MAXCH, MAXL, NT, RANKBIT, R_MAX_LAYOUTS,
    R_PLAYERS, R_STALL_DISCARD, R_STRAIGHTS, STRAIGHT, S_ACTOR, S_ACTS, S_CENTER, S_CH,
    S_EVC, S_HELD, S_LAY, S_NCH, S_NEV, S_NLAY, S_OVER, S_PHASE, S_PLAYED, S_REM, S_REM_N,
    S_SIZE, S_STOCK, S_STOCK_N, S_SWEEPS, S_TMP, S_TURN, ZONES_END,
)

# ---------------------------------------------------------------- measures


@helper("int64(ST, int64, int64, int64, int64)")
def value4(st, a, b, c, d):
    """value(L) = 5 * max(flush, straight) + min(flush, straight) of the cards a..d
    (straight counts 0 with straights_count=false; -1 is an empty slot)."""
    cnt = 0
    m = 0
    if a >= 0:
        cnt += 1 << (4 * (a & 3))
        m |= RANKBIT[a]
    if b >= 0:
        cnt += 1 << (4 * (b & 3))
        m |= RANKBIT[b]
    if c >= 0:
        cnt += 1 << (4 * (c & 3))
        m |= RANKBIT[c]
    if d >= 0:
        cnt += 1 << (4 * (d & 3))
        m |= RANKBIT[d]
    f = max(max(cnt & 15, (cnt >> 4) & 15), max((cnt >> 8) & 15, (cnt >> 12) & 15))
    s = np.int64(STRAIGHT[m]) if st[R_STRAIGHTS] != 0 else 0
    return 5 * f + s if f >= s else 5 * s + f


@helper("int64(ST, int64, int64)")
def lay_at(st, seat, l):
    """Offset of layout l of seat."""
    return S_LAY + (seat * MAXL + l) * 4


@helper("boolean(ST, int64)")
def has_pair(st, o):
    """Whether the layout at offset o holds two cards of one rank."""
    a = st[o] >> 2
    b = st[o + 1] >> 2
    c = st[o + 2] >> 2
    d = st[o + 3] >> 2
    return a == b or a == c or a == d or b == c or b == d or c == d


# ---------------------------------------------------------------- events (trace mode)


@helper("void(ST, int64, int64, int64, int64, int64, int64, int64, int64)")
def emit(st, kind, player, a, b, c, d, e, f):
    """Count an event; in trace mode (st longer than S_SIZE) also record it."""
    st[S_EVC + kind] += 1
    if st.shape[0] > S_SIZE:
        write_event(st, S_NEV, S_SIZE, ZONES_END, kind, player, st[S_TURN], a, b, c, d, e, f)


# ---------------------------------------------------------------- dealing and chimneys


@helper("void(ST, int64, int64)")
def deal_layout(st, seat, l):
    """Deal up to 4 stock cards into layout l of seat (seat -1: the center); a short
    deal leaves -1 in the empty slots.  An empty stock afterwards ends the game."""
    o = S_CENTER if seat < 0 else S_LAY + (seat * MAXL + l) * 4
    n = st[S_STOCK_N]
    k = 0
    for i in range(4):
        if n > 0:
            n -= 1
            c = st[S_STOCK + n]
            st[o + i] = c
            k += 1
            if seat >= 0:
                st[S_HELD + seat * NT + (c >> 2)] = 1
        else:
            st[o + i] = -1
    st[S_STOCK_N] = n
    emit(st, EV_DEAL, -1, seat, l, k, 0, 0, 0)
    if n == 0:
        st[S_OVER] = 1


@helper("void(ST, int64, int64)", paste=True)
def settle(st, seat, l):
    """While layout l of seat is a chimney (4 of a suit, or a straight when they count),
    set it aside and deal a replacement in its place; stops when the stock runs out (a
    layout holding the last cards is not checked)."""
    o = S_LAY + (seat * MAXL + l) * 4
    while st[S_OVER] == 0:
        a = st[o]
        b = st[o + 1]
        c = st[o + 2]
        d = st[o + 3]
        kind = -1
        if (a & 3) == (b & 3) and (a & 3) == (c & 3) and (a & 3) == (d & 3):
            kind = EV_CHIMNEY
        elif st[R_STRAIGHTS] != 0 and \
                STRAIGHT[RANKBIT[a] | RANKBIT[b] | RANKBIT[c] | RANKBIT[d]] == 4:
            kind = EV_STRAIGHT
        if kind < 0:
            return
        n = st[S_NCH + seat]
        q = S_CH + (seat * MAXCH + n) * 4
        for i in range(4):
            st[q + i] = st[o + i]
            st[S_PLAYED + seat * NT + (st[o + i] >> 2)] = 1
            st[o + i] = -1  # empty until the replacement is dealt
        st[S_NCH + seat] = n + 1
        emit(st, kind, seat, l, a, b, c, d, 0)
        deal_layout(st, seat, l)


# ---------------------------------------------------------------- legality


@helper("boolean(ST, int64, int64)")
def sweep_legal(st, me, call):
    """The sweep question's answer: 1 calls the sweep, 0 does not."""
    return call == 0 or call == 1


@helper("boolean(ST, int64, int64)")
def double_legal(st, me, l):
    n = st[S_NLAY + me]
    return 0 <= l < n and n < st[R_MAX_LAYOUTS] and has_pair(st, S_LAY + (me * MAXL + l) * 4)


@helper("boolean(ST, int64)")
def can_double(st, me):
    """Whether the mover may declare a double chimney with any layout."""
    n = st[S_NLAY + me]
    if n >= st[R_MAX_LAYOUTS]:
        return False
    for l in range(n):
        if has_pair(st, S_LAY + (me * MAXL + l) * 4):
            return True
    return False


@helper("boolean(ST, int64, int64, int64, int64, int64)")
def swap_legal(st, me, kind, l, i, j):
    if kind == A_PASS:
        return True  # a pass reads no other number
    return kind == A_SWAP and 0 <= l < st[S_NLAY + me] and 0 <= i < 4 and 0 <= j < 4 and \
        st[S_LAY + (me * MAXL + l) * 4 + i] >= 0


@helper("boolean(ST, int64, int64, int64)")
def stall_legal(st, me, a, b):
    return 0 <= a < 4 and 0 <= b < 4 and a != b


@helper("int64(ST)")
def legal(st):
    """The model's ``legal``: every legal action of the pending decision into the action
    buffer (4 numbers each, from ``S_ACTS``); returns how many.  In the order the
    ``random`` strategy numbers its choices: no sweep, then the sweep; no double (-1),
    then each layout with a pair; every swap by (layout, slot, center slot), then the
    pass; the stall's slot pairs (a, b) by a, then b."""
    me = st[S_ACTOR]
    ph = st[S_PHASE]
    n = 0
    if ph == D_SWEEP:
        n = put_action(st, S_ACTS, n, 0, 0, 0, 0)
        n = put_action(st, S_ACTS, n, 1, 0, 0, 0)
    elif ph == D_DOUBLE:
        n = put_action(st, S_ACTS, n, -1, 0, 0, 0)
        for l in range(st[S_NLAY + me]):
            if double_legal(st, me, l):
                n = put_action(st, S_ACTS, n, l, 0, 0, 0)
    elif ph == D_SWAP:
        for l in range(st[S_NLAY + me]):
            for i in range(4):
                if swap_legal(st, me, A_SWAP, l, i, 0):
                    for j in range(4):
                        n = put_action(st, S_ACTS, n, A_SWAP, l, i, j)
        n = put_action(st, S_ACTS, n, A_PASS, 0, 0, 0)
    elif ph == D_STALL:
        for a in range(4):
            for b in range(4):
                if a != b:
                    n = put_action(st, S_ACTS, n, a, b, 0, 0)
    return n


# ---------------------------------------------------------------- effects


@helper("void(ST, int64, int64)")
def double(st, me, l):
    """Double chimney: layout l stays, a new layout is dealt (and checked)."""
    n = st[S_NLAY + me]
    o = S_LAY + (me * MAXL + n) * 4
    for i in range(4):
        st[o + i] = -1  # the new layout, empty until dealt
    st[S_NLAY + me] = n + 1
    emit(st, EV_DOUBLE, me, l, n, 0, 0, 0, 0)
    deal_layout(st, me, n)
    settle(st, me, n)


@helper("void(ST, int64, int64, int64, int64)")
def swap(st, me, l, i, j):
    """Take center card j into slot i of layout l; the layout card goes to center j."""
    o = S_LAY + (me * MAXL + l) * 4 + i
    took = st[S_CENTER + j]
    gave = st[o]
    st[o] = took
    st[S_CENTER + j] = gave
    st[S_HELD + me * NT + (took >> 2)] = 1
    emit(st, EV_SWAP, me, l, i, j, took, gave, 0)
    settle(st, me, l)


@helper("void(ST, int64)", paste=True)
def sweep(st, caller):
    """Every seat p receives all layouts of seat p + 1 (chimneys stay)."""
    P = st[R_PLAYERS]
    n0 = st[S_NLAY]
    for k in range(n0 * 4):
        st[S_TMP + k] = st[S_LAY + k]
    for p in range(P - 1):
        n = st[S_NLAY + p + 1]
        src = S_LAY + (p + 1) * MAXL * 4
        dst = S_LAY + p * MAXL * 4
        for k in range(n * 4):
            c = st[src + k]
            st[dst + k] = c
            if c >= 0:
                st[S_HELD + p * NT + (c >> 2)] = 1
        st[S_NLAY + p] = n
    dst = S_LAY + (P - 1) * MAXL * 4
    for k in range(n0 * 4):
        c = st[S_TMP + k]
        st[dst + k] = c
        if c >= 0:
            st[S_HELD + (P - 1) * NT + (c >> 2)] = 1
    st[S_NLAY + P - 1] = n0
    st[S_SWEEPS + caller] += 1
    emit(st, EV_SWEEP, caller, 0, 0, 0, 0, 0, 0)


@helper("void(ST, int64, int64, int64)")
def stall(st, me, a, b):
    """Stalled table: center slots a then b get the top two stock cards; the removed
    cards are shuffled into the stock (whole stock reshuffled) or taken out of the game.
    With one stock card only slot a is replaced."""
    ca = st[S_CENTER + a]
    cb = st[S_CENTER + b]
    n = st[S_STOCK_N]
    na = -1
    nb = -1
    if n > 0:
        n -= 1
        na = st[S_STOCK + n]
        st[S_CENTER + a] = na
    if n > 0:
        n -= 1
        nb = st[S_STOCK + n]
        st[S_CENTER + b] = nb
    else:
        cb = -1  # slot b keeps its card
    if st[R_STALL_DISCARD] != 0:
        r = st[S_REM_N]
        st[S_REM + r] = ca
        r += 1
        if cb >= 0:
            st[S_REM + r] = cb
            r += 1
        st[S_REM_N] = r
    else:
        st[S_STOCK + n] = ca
        n += 1
        if cb >= 0:
            st[S_STOCK + n] = cb
            n += 1
        shuffle(st, S_STOCK, S_STOCK + n)
    st[S_STOCK_N] = n
    emit(st, EV_STALL, me, a, b, ca, cb, na, nb)
    if n == 0:
        st[S_OVER] = 1


# ---------------------------------------------------------------- restricted play
# (``mcts:never=``, sim/search.py) what an action commits: a swap the rank of the center
# card it takes into the layout; and its kind among RESTRICT_KINDS (layout.py): calling a
# sweep, declaring a double chimney, swapping at all


@helper("int64(ST, int64, int64, int64, int64)")
def restrict_bits(st, k, a, b, c):
    ph = st[S_PHASE]
    if ph == D_SWEEP:
        return (np.int64(1) << KIND_BIT) if k == 1 else np.int64(0)
    if ph == D_DOUBLE:
        return (np.int64(1) << (KIND_BIT + 1)) if k >= 0 else np.int64(0)
    if ph == D_SWAP and k == A_SWAP:
        return (np.int64(1) << (st[S_CENTER + c] >> 2)) | (np.int64(1) << (KIND_BIT + 2))
    return np.int64(0)


@inline  # pasted into the engine's per-turn note: no call per seat and turn
def progress(st, seat):
    """The seat's progress score (``sim/shape.py``): its chimneys (what the game is won on)."""
    return st[S_NCH + seat]
