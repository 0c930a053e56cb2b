"""5 Towers' rules as compiled helpers over the packed state ``st``.

Reading order follows the rulebook: events, placement legality and the exhaustive
placement search (what "a bid must be buildable" means), the offer and the reshuffle,
building (tear-down, placement), cleanup and scoring.  Strategies read the state and use
the search; only the kernel changes the zones.
"""
from cardlab.sim.bits import lowest, popcount
from cardlab.sim.events import event_row, snapshot
from cardlab.sim.jit import helper
from cardlab.sim.rng import shuffle
from cardlab.sim.five_towers.layout import (
    EMPTY, EV_DISCARD, EV_PLACE, EV_RESHUFFLE, EV_REVEAL, EV_TEARDOWN, EVW, MAXH, MAXP, NCARDS,
    NK, NT, NV, R_OFFER, R_RUBBLE_LINEAR, R_TEAR_AFTER, S_DISC, S_DISC_N, S_DP, S_DRAW,
    S_DRAW_N, S_EVC, S_HELD, S_HIGH, S_KM, S_NEV, S_OFFER, S_OFFER_N, S_OVER, S_ROUND, S_RUB, S_RUB_N,
    S_RUNOUTS, S_SEQ, S_SIZE, S_TH, S_TOP, S_TOW, S_VER, TRACE_ROW, ZONES_END,
)

# ---------------------------------------------------------------- events (trace mode)


@helper("void(ST, int64, int64, int64, int64, int64, int64, int64)")
def write_event(st, kind, player, a, b, c, d, e):
    """Trace mode: write event row i and a snapshot of every zone after it."""
    o = event_row(st, S_NEV, S_SIZE, TRACE_ROW)
    if o < 0:
        return
    st[o] = kind
    st[o + 1] = player
    st[o + 2] = st[S_ROUND]
    st[o + 3] = a
    st[o + 4] = b
    st[o + 5] = c
    st[o + 6] = d
    st[o + 7] = e
    snapshot(st, o + EVW, ZONES_END)


@helper("void(ST, int64, int64, int64, int64, int64, int64, int64)")
def emit(st, kind, player, a, b, c, d, e):
    """Count an event; in trace mode (st longer than S_SIZE) also record it."""
    st[S_EVC + kind] += 1
    if st.shape[0] > S_SIZE:
        write_event(st, kind, player, a, b, c, d, e)


# ---------------------------------------------------------------- towers


@helper("int64(ST, int64, int64)")
def top(st, seat, k):
    """The top value of seat's tower of kind k, EMPTY (16) for no tower."""
    return st[S_TOP + seat * NK + k]


@helper("void(ST)")
def refresh(st):
    """Rebuild the caches (tower tops, offer slots by kind) from the zones: after setup,
    and for states built by hand."""
    st[S_VER] += 1
    for o in range(MAXP * NK):
        h = st[S_TH + o]
        st[S_TOP + o] = EMPTY if h == 0 else st[S_TOW + o * MAXH + h - 1] & 15
    st[S_VER] += 1
    for k in range(NK):
        st[S_KM + k] = 0
    for j in range(st[S_OFFER_N]):
        c = st[S_OFFER + j]
        if c >= 0:
            st[S_KM + ((c >> 4) & 7)] |= 1 << j


@helper("int64(ST, int64, int64)")
def below_top(st, seat, k):
    """The value a tear-down would uncover (EMPTY when the tower has one card)."""
    h = st[S_TH + seat * NK + k]
    if h < 2:
        return EMPTY
    return st[S_TOW + (seat * NK + k) * MAXH + h - 2] & 15


@helper("boolean(ST, int64, int64)")
def tearable(st, seat, k):
    """A tower can lose its top card unless it is empty or capped by a 0."""
    h = st[S_TH + seat * NK + k]
    return h > 0 and (st[S_TOW + (seat * NK + k) * MAXH + h - 1] & 15) != 0


@helper("boolean(int64, int64)")
def legal(x, t):
    """May value x go on top value t?  Lower on top; anything on an 8; a 9 on anything
    but a 0; nothing on a 0; anything starts a tower."""
    if t == EMPTY:
        return True
    if t == 0:
        return False
    if t == 8 or x == 9:
        return True
    return x < t


@helper("boolean(int64, int64, int64, int64, int64)")
def fits(x, t, height, drop, zh):
    """A strategy's notion of a good placement: legal, and at most ``drop`` below the top
    (below 16 on an empty tower), or a 0 capping a tower of at least ``zh`` cards.  With
    drop >= 16 every legal placement fits (the rules' own test)."""
    if not legal(x, t):
        return False
    h = EMPTY if t == EMPTY else t
    return x >= h - drop or (x == 0 and height >= zh)


# ---------------------------------------------------------------- placement search


@helper("int64(ST, int64)")
def kind_slots(st, k):
    """Bit mask of the offer slots holding a card of kind k."""
    return st[S_KM + k]


@helper("int64(ST, int64)")
def room(st, x):
    """How open a tower stays with top x (tie-break of the search): an 8 takes anything."""
    if x == 8:
        return 32
    if x == 0:
        return -1
    return 2 * x


@helper("int64(ST, int64, int64, int64, int64, int64)")
def search(st, slots, t, height, drop, zh):
    """The most offer cards of ``slots`` (one kind) that can go one after another on a
    tower with top t and ``height`` cards, every step passing ``fits``; exhaustive over
    orders (a dynamic programme over subsets: bit j of st[S_DP + m] says the cards of
    m can be placed in some order ending with slot j).  Among the largest sets, the one
    leaving the most open top.  Writes that order to st[S_SEQ:] and returns its size."""
    if slots == 0:
        return 0
    if slots & (slots - 1) == 0:  # one card: no order to search
        j = lowest(slots)
        if fits(st[S_OFFER + j] & 15, t, height, drop, zh):
            st[S_SEQ] = j
            return 1
        return 0
    best_n = 0
    best_m = 0
    best_j = -1
    best_r = -2
    sub = 0
    while True:
        sub = (sub - slots) & slots  # the submasks of slots in increasing order
        if sub == 0:
            break
        n = popcount(sub)
        ends = 0
        rest = sub
        while rest:
            j = lowest(rest)
            rest ^= 1 << j
            x = st[S_OFFER + j] & 15
            prev = sub ^ (1 << j)
            if prev == 0:
                ok = fits(x, t, height, drop, zh)
            else:
                ok = False
                pe = st[S_DP + prev]
                i = 0
                while pe >> i:
                    if (pe >> i) & 1 and fits(x, st[S_OFFER + i] & 15, height + n - 1, drop, zh):
                        ok = True
                        break
                    i += 1
            if ok:
                ends |= 1 << j
                r = room(st, x)
                if n > best_n or (n == best_n and r > best_r):
                    best_n = n
                    best_m = sub
                    best_j = j
                    best_r = r
        st[S_DP + sub] = ends
    # walk back from the best set's last card
    m = best_m
    j = best_j
    for pos in range(best_n - 1, -1, -1):
        st[S_SEQ + pos] = j
        prev = m ^ (1 << j)
        if prev == 0:
            break
        x = st[S_OFFER + j] & 15
        pe = st[S_DP + prev]
        i = 0
        while pe >> i:
            if (pe >> i) & 1 and fits(x, st[S_OFFER + i] & 15, height + pos, drop, zh):
                break
            i += 1
        m = prev
        j = i
    return best_n


@helper("int64(ST, int64, int64, int64)")
def tower_search(st, seat, k, torn):
    """search() with the rules' own test on seat's tower of kind k as it stands
    (torn = 0) or after tearing down its top (torn = 1)."""
    slots = kind_slots(st, k)
    if slots == 0:
        return 0
    h = st[S_TH + seat * NK + k]
    if torn:
        return search(st, slots, below_top(st, seat, k), h - 1, 16, 99)
    return search(st, slots, top(st, seat, k), h, 16, 99)


@helper("int64(ST, int64)")
def max_buildable(st, seat):
    """The largest bid seat may make: the most offer cards it can place legally, with the
    best optional tear-down when tear-downs happen before building."""
    n0 = 0
    gain = 0
    before = st[R_TEAR_AFTER] == 0
    for k in range(NK):
        slots = st[S_KM + k]
        if slots == 0:
            continue
        c0 = most_legal(st, slots, top(st, seat, k))
        n0 += c0
        if before and c0 < popcount(slots) and tearable(st, seat, k):
            gain = max(gain, most_legal(st, slots, below_top(st, seat, k)) - c0)
    return n0 + gain


@helper("int64(ST, int64, int64)")
def most_legal(st, slots, t):
    """search() with the rules' own test, counting only: the most cards of ``slots`` (one
    kind) placeable on top t.  One or two cards are decided directly."""
    if slots == 0:
        return 0
    j = lowest(slots)
    x = st[S_OFFER + j] & 15
    rest = slots ^ (1 << j)
    if rest == 0:
        return 1 if legal(x, t) else 0
    if rest & (rest - 1) == 0:
        y = st[S_OFFER + lowest(rest)] & 15
        lx = legal(x, t)
        ly = legal(y, t)
        if (lx and legal(y, x)) or (ly and legal(x, y)):
            return 2
        return 1 if lx or ly else 0
    return search(st, slots, t, 0, 16, 99)


@helper("boolean(ST, int64, int64)")
def bid_legal(st, seat, b):
    """A bid must beat the high bid, fit the offer and be buildable by the bidder (the
    same count as max_buildable, stopping as soon as b cards are placeable)."""
    if not (st[S_HIGH] < b <= st[S_OFFER_N]):
        return False
    n0 = 0
    for k in range(NK):
        n0 += most_legal(st, st[S_KM + k], top(st, seat, k))
        if n0 >= b:
            return True
    if st[R_TEAR_AFTER] != 0:
        return False
    for k in range(NK):
        slots = st[S_KM + k]
        if slots and tearable(st, seat, k):
            c0 = most_legal(st, slots, top(st, seat, k))
            if n0 - c0 + most_legal(st, slots, below_top(st, seat, k)) >= b:
                return True
    return False


# ---------------------------------------------------------------- the offer


@helper("void(ST)")
def reveal(st):
    """Fill the offer from the draw pile.  A reveal that finds the pile empty is a
    run-out: the first shuffles the discard pile into a new pile and filling goes on;
    the second ends the game after this round (whose offer may be short or empty)."""
    n = 0
    for i in range(st[R_OFFER]):
        if st[S_DRAW_N] == 0:
            st[S_RUNOUTS] += 1
            if st[S_RUNOUTS] == 1:
                nd = st[S_DISC_N]
                for q in range(nd):
                    st[S_DRAW + q] = st[S_DISC + q]
                st[S_DISC_N] = 0
                shuffle(st, S_DRAW, S_DRAW + nd)
                st[S_DRAW_N] = nd
                emit(st, EV_RESHUFFLE, -1, nd, 0, 0, 0, 0)
                if nd == 0:
                    st[S_RUNOUTS] = 2  # an empty new pile runs out at once
            if st[S_RUNOUTS] >= 2:
                st[S_OVER] = 1
                break
        d = st[S_DRAW_N] - 1
        c = st[S_DRAW + d]
        st[S_DRAW_N] = d
        st[S_OFFER + i] = c
        st[S_KM + ((c >> 4) & 7)] |= 1 << i
        st[S_VER] += 1
        n += 1
        st[S_OFFER_N] = n
        emit(st, EV_REVEAL, -1, i, c, 0, 0, 0)
    st[S_OFFER_N] = n


@helper("void(ST)")
def discard_offer(st):
    """Cleanup: the cards left in the offer go to the discard pile, one by one."""
    for j in range(st[S_OFFER_N]):
        c = st[S_OFFER + j]
        if c >= 0:
            st[S_OFFER + j] = -1
            st[S_DISC + st[S_DISC_N]] = c
            st[S_DISC_N] += 1
            emit(st, EV_DISCARD, -1, j, c, 0, 0, 0)
    st[S_OFFER_N] = 0
    for k in range(NK):
        st[S_KM + k] = 0


# ---------------------------------------------------------------- building


@helper("void(ST, int64, int64)")
def tear_down(st, seat, k):
    """The top card of seat's tower k goes onto seat's rubble pile."""
    o = seat * NK + k
    h = st[S_TH + o] - 1
    c = st[S_TOW + o * MAXH + h]
    st[S_TOW + o * MAXH + h] = -1
    st[S_TH + o] = h
    st[S_TOP + o] = EMPTY if h == 0 else st[S_TOW + o * MAXH + h - 1] & 15
    st[S_VER] += 1
    r = st[S_RUB_N + seat]
    st[S_RUB + seat * NCARDS + r] = c
    st[S_RUB_N + seat] = r + 1
    emit(st, EV_TEARDOWN, seat, k, c, 0, 0, 0)


@helper("void(ST, int64, int64)")
def place(st, seat, j):
    """Offer slot j's card goes on top of seat's tower of its kind."""
    c = st[S_OFFER + j]
    k = (c >> 4) & 7
    o = seat * NK + k
    h = st[S_TH + o]
    st[S_TOW + o * MAXH + h] = c
    st[S_TH + o] = h + 1
    st[S_TOP + o] = c & 15
    st[S_OFFER + j] = -1
    st[S_KM + k] &= ~(1 << j)
    st[S_VER] += 1
    st[S_HELD + seat * NT + (c & 15)] = 1
    st[S_HELD + seat * NT + NV + k] = 1
    emit(st, EV_PLACE, seat, j, c, k, h + 1, 0)


# ---------------------------------------------------------------- scoring


@helper("int64(ST, int64)")
def score(st, seat):
    """1 a card in the towers, +1 a card of a tower capped by a 0, +1 a card of the
    tallest tower; minus the rubble penalty (1 + 2 + ... + n, or n when linear)."""
    pts = 0
    tallest = 0
    for k in range(NK):
        h = st[S_TH + seat * NK + k]
        pts += h
        if h > 0 and (st[S_TOW + (seat * NK + k) * MAXH + h - 1] & 15) == 0:
            pts += h
        tallest = max(tallest, h)
    r = st[S_RUB_N + seat]
    if st[R_RUBBLE_LINEAR] != 0:
        return pts + tallest - r
    return pts + tallest - r * (r + 1) // 2
