"""5 Towers' rules as compiled helpers over the packed state ``st``.

Reading order follows the rulebook: events, placement legality and the exhaustive
placement search (what "a bid must be buildable" means), the legality of each decision
and ``legal`` (every legal action of the pending one), the offer and the reshuffle,
building (tear-down, placement), cleanup and scoring.  Strategies read the state and use
the search; only the kernel changes the table (the zones and the books, its memo
``kind_can`` included): what a strategy calls here writes working memory only
(``max_buildable_fresh``, ``legal``, ``search``).
"""
import numpy as np

from cardlab.sim.bits import lowest, popcount
from cardlab.sim.events import write_event
from cardlab.sim.jit import helper, inline
from cardlab.sim.schema import KIND_BIT
from cardlab.sim.rng import shuffle
from cardlab.sim.five_towers.layout import (
    D_BID, D_PLACE, D_TEAR, EMPTY, EV_DISCARD, EV_PLACE, EV_RESHUFFLE, EV_REVEAL,
    EV_TEARDOWN, MAXH, MAXP, NCARDS, NK, NT, NV, R_OFFER, R_RUBBLE_LINEAR, R_SEAT_POINTS, R_TEAR_AFTER,
    S_ACTOR, S_ACTS, S_CAN, S_CAN_SEAT, S_DISC, S_DISC_N, S_DP, S_DRAW, S_DRAW_N, S_EVC,
    S_HELD, S_HIGH, S_KM, S_NEV, S_OFFER, S_OFFER_N, S_OVER, S_PHASE, S_PLACED, S_ROUND,
    S_RUB, S_RUB_N, S_RUNOUTS, S_SEQ, S_SIZE, S_SPOKEN, S_TH, S_TOP, S_TOW, S_VER, ZONES_END,
)

# ---------------------------------------------------------------- events (trace mode)


@helper("void(ST, int64, int64, int64, int64, int64, int64, int64)")
def emit(st, kind, player, a, b, c, d, e):
    """Count an event; in trace mode (st longer than S_SIZE) also record it, with the
    round as its turn."""
    st[S_EVC + kind] += 1
    if st.shape[0] > S_SIZE:
        write_event(st, S_NEV, S_SIZE, ZONES_END, kind, player, st[S_ROUND], a, b, c, d, e, 0)


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
    forget_all(st)
    for j in range(st[S_OFFER_N]):
        c = st[S_OFFER + j]
        if c >= 0:
            st[S_KM + ((c >> 4) & 7)] |= 1 << j


@helper("void(ST)")
def forget_all(st):
    """The offer changed: no seat's placeable counts are known (see kind_can)."""
    for k in range(NK):
        st[S_CAN + k] = -1
    st[S_CAN_SEAT] = -1


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
def goes_on(x, t):
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
    if not goes_on(x, t):
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


@helper("int64(ST, int64, int64)")
def kind_can(st, seat, k):
    """The most offer cards of kind k that seat can place on its tower as it stands
    (most_legal), counted once: st[S_CAN + k] for seat st[S_CAN_SEAT], -1 until counted
    (the offer changing, or a placement or tear-down on a tower of the kind, makes it -1
    again; another seat's question starts afresh).  The rules' own memo: the bid checks
    and the tear-down and placement checks share it; a strategy never writes the table,
    so it counts afresh instead (``kind_count`` without ``memo``)."""
    if st[S_CAN_SEAT] != seat:
        for q in range(NK):
            st[S_CAN + q] = -1
        st[S_CAN_SEAT] = seat
    c = st[S_CAN + k]
    if c < 0:
        c = most_legal(st, st[S_KM + k], top(st, seat, k))
        st[S_CAN + k] = c
    return c


@helper("int64(ST, int64, int64, boolean)", paste=True)
def kind_count(st, seat, k, memo):
    """kind_can's count: with ``memo`` the rules' (counted once, in their book), without
    it counted afresh, writing nothing but working memory (a strategy's question)."""
    if memo:
        return kind_can(st, seat, k)
    return most_legal(st, st[S_KM + k], top(st, seat, k))


@helper("int64(ST, int64, boolean)", paste=True)
def buildable(st, seat, memo):
    """The largest bid seat may make: the most offer cards it can place legally, with the
    best optional tear-down when tear-downs happen before building (``memo``: the rules'
    count, kind_count)."""
    n0 = 0
    gain = 0
    before = st[R_TEAR_AFTER] == 0
    for k in range(NK):
        slots = st[S_KM + k]
        if slots == 0:
            continue
        c0 = kind_count(st, seat, k, memo)
        n0 += c0
        if before and c0 < popcount(slots) and tearable(st, seat, k):
            gain = max(gain, most_legal(st, slots, below_top(st, seat, k)) - c0)
    return n0 + gain


@helper("int64(ST, int64)")
def max_buildable(st, seat):
    """The largest bid seat may make (buildable), as the rules count it: in their memo."""
    return buildable(st, seat, True)


@helper("int64(ST, int64)")
def max_buildable_fresh(st, seat):
    """max_buildable for a strategy: the same count made afresh, without the rules' memo
    (a strategy reads and writes only what its seat may: never the table)."""
    return buildable(st, seat, False)


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
        return 1 if goes_on(x, t) else 0
    if rest & (rest - 1) == 0:
        y = st[S_OFFER + lowest(rest)] & 15
        lx = goes_on(x, t)
        ly = goes_on(y, t)
        if (lx and goes_on(y, x)) or (ly and goes_on(x, y)):
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
        if st[S_KM + k]:
            n0 += kind_can(st, seat, k)
            if n0 >= b:
                return True
    if st[R_TEAR_AFTER] != 0:
        return False
    for k in range(NK):
        slots = st[S_KM + k]
        if slots and tearable(st, seat, k):
            c0 = kind_can(st, seat, k)
            if n0 - c0 + most_legal(st, slots, below_top(st, seat, k)) >= b:
                return True
    return False


# ---------------------------------------------------------------- the decisions
# A bid (D_BID) is a number of cards or 0 to pass.  The build is split into small
# decisions: the tear-down (D_TEAR: a kind or -1 for none), before the placements or,
# with teardown_when=after, after them, and one placement (D_PLACE: an offer slot) per
# card bid.  A plan today's rules accept is exactly a sequence of legal decisions, and a
# decision is legal only if the rest of the bid can still be placed, so a build never
# ends in a dead end (the plan of b cards must exist: the bid was buildable).


@helper("boolean(ST, int64)")
def must_open(st, seat):
    """The start player (the first to speak) may not pass if they can build a card."""
    return st[S_SPOKEN] == 0 and max_buildable(st, seat) > 0


@helper("boolean(ST, int64, int64, int64, int64, int64, boolean)")
def can_place(st, seat, need, k, t, slots, memo):
    """Can seat still place ``need`` offer cards when its tower of kind k (-1: none) has
    top t and the offer keeps ``slots`` of that kind (after a tear-down or a placement
    there), the other towers as they stand?  The kinds are independent, so that is the
    most per kind, summed: the other kinds first (with ``memo`` counted once per build,
    in the rules' memo; without, afresh: kind_count), kind k last."""
    if need <= 0:
        return True
    known = memo and st[S_CAN_SEAT] == seat
    n = 0
    for q in range(NK):
        if q != k and st[S_KM + q] != 0:
            c = st[S_CAN + q] if known else -1  # (kind_can, without a call when counted)
            n += c if c >= 0 else kind_count(st, seat, q, memo)
            if n >= need:
                return True
    if k >= 0 and slots != 0:
        n += most_legal(st, slots, t)
    return n >= need


# why step refuses a build step (0: it is legal)
TEAR_NO_TOP, TEAR_NO_ROOM = 1, 2            # not a tower with a top to lose; the bid unplaceable
PLACE_NO_CARD, PLACE_NO_FIT, PLACE_NO_ROOM = 1, 2, 3  # no card there; not on its tower; the rest


@helper("int64(ST, int64, int64, boolean)")
def tear_refusal(st, seat, k, memo):
    """0 if seat may tear down the top of its tower of kind k now (-1: no tear-down), else
    why not: the tower has no top to lose (empty, or capped by a 0), or, before placing,
    the bid could no longer be placed (``memo``: the rules' count, can_place)."""
    if not (k == -1 or (0 <= k < NK and tearable(st, seat, k))):
        return TEAR_NO_TOP
    if st[R_TEAR_AFTER] != 0:
        return 0
    if k < 0:
        ok = can_place(st, seat, st[S_HIGH], -1, 0, 0, memo)
    else:
        ok = can_place(st, seat, st[S_HIGH], k, below_top(st, seat, k), st[S_KM + k], memo)
    return 0 if ok else TEAR_NO_ROOM


@helper("int64(ST, int64, int64, boolean)")
def place_refusal(st, seat, j, memo):
    """0 if seat may place offer slot j's card now, else why not: the slot holds no card,
    the card does not go on seat's tower of its kind, or the rest of the bid could no
    longer be placed (``memo``: the rules' count, can_place)."""
    if not (0 <= j < st[S_OFFER_N]) or st[S_OFFER + j] < 0:
        return PLACE_NO_CARD
    c = st[S_OFFER + j]
    k = (c >> 4) & 7
    if not goes_on(c & 15, st[S_TOP + seat * NK + k]):  # (top)
        return PLACE_NO_FIT
    if not can_place(st, seat, st[S_HIGH] - st[S_PLACED] - 1, k, c & 15, st[S_KM + k] & ~(1 << j), memo):
        return PLACE_NO_ROOM
    return 0


@helper("int64(ST, int64, int64)")
def _put(st, n, a):
    o = S_ACTS + 4 * n
    st[o] = a
    st[o + 1] = 0
    st[o + 2] = 0
    st[o + 3] = 0
    return n + 1


@helper("int64(ST)")
def legal(st):
    """The model's ``legal``: every legal action of the pending decision into the action
    buffer (4 numbers each, from ``S_ACTS``); returns how many.  The same tests as
    ``step``'s: a pass (unless the start player must open), then every buildable bid; or
    every tear-down choice (-1 first) that leaves the bid placeable; or every offer slot
    that goes on its tower and leaves the rest of the bid placeable.  Counted afresh,
    without the rules' memo: a strategy asks it (a build it has no plan for), and so does
    the search player on the real position, where only working memory may be written."""
    me = st[S_ACTOR]
    ph = st[S_PHASE]
    n = 0
    if ph == D_BID:
        # must_open's and bid_legal's count, made once: bid b is legal exactly when
        # high < b <= offer_n and b <= max_buildable (bid_legal stops as soon as b fit)
        most = max_buildable_fresh(st, me)
        if not (st[S_SPOKEN] == 0 and most > 0):  # (must_open)
            n = _put(st, n, 0)
        for b in range(st[S_HIGH] + 1, min(st[S_OFFER_N], most) + 1):
            n = _put(st, n, b)
    elif ph == D_TEAR:
        for k in range(-1, NK):
            if tear_refusal(st, me, k, False) == 0:
                n = _put(st, n, k)
    else:
        for j in range(st[S_OFFER_N]):
            if place_refusal(st, me, j, False) == 0:
                n = _put(st, n, j)
    return n


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
    forget_all(st)


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
    st[S_VER] += 1  # the offer changed (a cache on the version must not outlive it)
    forget_all(st)


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
    st[S_CAN + k] = -1
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
    st[S_CAN + k] = -1
    st[S_VER] += 1
    st[S_HELD + seat * NT + (c & 15)] = 1
    st[S_HELD + seat * NT + NV + k] = 1
    emit(st, EV_PLACE, seat, j, c, k, h + 1, 0)


# ---------------------------------------------------------------- scoring


@helper("int64(ST, int64)")
def score(st, seat):
    """1 a card in the towers, +1 a card of a tower capped by a 0, +1 a card of the
    tallest tower; minus the rubble penalty (1 + 2 + ... + n, or n when linear); plus
    the seat's start points (the ``seat_points`` compensation knob: seat s starts with
    s * n points, 0 as printed)."""
    pts = seat * st[R_SEAT_POINTS]
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


# ---------------------------------------------------------------- restricted play
# (``mcts:never=``, sim/search.py) what an action commits: a placement the offer card's
# value and kind (types value, then NV + kind); and its kind among RESTRICT_KINDS
# (layout.py): bidding at all (not passing), tearing a tower down


@helper("int64(ST, int64, int64, int64, int64)")
def restrict_bits(st, k, a, b, c):
    ph = st[S_PHASE]
    if ph == D_BID:
        return (np.int64(1) << KIND_BIT) if k > 0 else np.int64(0)
    if ph == D_TEAR:
        return (np.int64(1) << (KIND_BIT + 1)) if k >= 0 else np.int64(0)
    if ph == D_PLACE and k >= 0:
        card = st[S_OFFER + k]
        return (np.int64(1) << (card & 15)) | (np.int64(1) << (NV + ((card >> 4) & 7)))
    return np.int64(0)


@inline  # pasted into the engine's per-turn note: no call per seat and turn
def progress(st, seat):
    """The seat's progress score (``sim/shape.py``): the points its towers and rubble would
    score if the game ended now (``score``)."""
    return score(st, seat)
