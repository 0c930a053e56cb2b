"""Smokestack strategies.

The game asks four questions (its schema's decisions, ``st[S_PHASE]``); each strategy
answers each with its own compiled function taking ``(st, me, p)`` (``p``: the seat's
parameter row, read by the names in its ``Strategy`` entry below):

- ``sweep``  -> 1 to call a sweep, 0 not (every seat that may still call, before every
  turn, in seat order from the mover; ``st[S_CUR]`` is the mover);
- ``double`` -> the layout declared a double chimney, or -1 (the mover, only when legal);
- ``swap``   -> (A_SWAP, layout, layout slot, center slot) or (A_PASS, 0, 0, 0);
- ``stall``  -> (a, b): the two center slots to replace (the next mover).

``choose``, written from the registry at the bottom (``sim/bind.py``), dispatches on the
pending decision, then on the strategy id, and makes the answer the model's 4-number action
(``jit.as_act``).  The kernel checks every answer for legality, so a bug here is an error,
never a silent cheat.  To add one: copy a neighbour (its ``Strategy`` entry, parameters
read by name through ``P_<NAME>``, one function per decision) and register it at the
bottom.
"""
import numpy as np

from cardlab.sim.jit import helper
from cardlab.sim.rng import seat_below
from cardlab.sim.smokestack import layout as L
from cardlab.sim.smokestack.layout import (
    A_PASS, A_SWAP, MAXL, MAXP, R_MAX_LAYOUTS, R_PLAYERS,
    R_STRAIGHTS, RANKBIT, S_BEST, S_BSTAMP, S_BVER, S_CENTER, S_CUR, S_LAY, S_NLAY,
    S_STOCK_N, STRAIGHT,
)
from cardlab.sim.smokestack.moves import has_pair
from cardlab.strategies.base import Param, Strategy, ids, register

PASS = (A_PASS, 0, 0, 0)

# ---------------------------------------------------------------- shared measures


@helper("int64(ST, int64)")
def best_progress(st, seat):
    """best(p): the highest max(flush, straight) among seat's layouts."""
    strt = st[R_STRAIGHTS] != 0
    b = 0
    for l in range(st[S_NLAY + seat]):
        o = S_LAY + (seat * MAXL + l) * 4
        cnt = 0
        m = 0
        for k in range(4):
            x = st[o + k]
            cnt += 1 << (4 * (x & 3))
            m |= RANKBIT[x]
        f = max(max(cnt & 15, (cnt >> 4) & 15), max((cnt >> 8) & 15, cnt >> 12))
        sv = np.int64(STRAIGHT[m]) if strt else 0
        v = max(f, sv)
        b = max(b, v)
    return b


@helper("UniTuple(int64, 2)(ST, int64, int64, int64, int64)")
def fs4(st, a, b, c, d):
    """(flush, straight) of four cards (straight 0 with straights_count=false)."""
    cnt = (1 << (4 * (a & 3))) + (1 << (4 * (b & 3))) + (1 << (4 * (c & 3))) + (1 << (4 * (d & 3)))
    f = max(max(cnt & 15, (cnt >> 4) & 15), max((cnt >> 8) & 15, (cnt >> 12) & 15))
    s = np.int64(STRAIGHT[RANKBIT[a] | RANKBIT[b] | RANKBIT[c] | RANKBIT[d]]) if st[R_STRAIGHTS] != 0 else 0
    return f, s


@helper("boolean(ST, int64, int64, int64, int64)")
def pair4(st, a, b, c, d):
    """Whether the four cards a..d hold two of one rank (``has_pair`` of four cards that
    need not lie in a layout: a swap is weighed without writing it)."""
    a >>= 2
    b >>= 2
    c >>= 2
    d >>= 2
    return a == b or a == c or a == d or b == c or b == d or c == d


@helper("int64(ST, int64)")
def first_pair(st, me):
    """The first layout of mine with a pair, or -1."""
    for l in range(st[S_NLAY + me]):
        if has_pair(st, S_LAY + (me * MAXL + l) * 4):
            return l
    return -1


# ---------------------------------------------------------------- reference


REFERENCE = Strategy("reference", "The exact reference strategy of shared/reference/smokestack.md: "
                     "sweeps on a better left neighbour, doubles whenever legal, best strict-improvement "
                     "swap, removes the least useful center cards on a stall.")


@helper("int64(ST, int64, int64)")
def best_cached(st, me, seat):
    """best_progress of seat's layouts, computed once per sweep-question round in seat
    me's own cache (its memory: words me * MAXP + seat of S_BEST and S_BSTAMP); the
    kernel bumps the public st[S_BVER] at the start of each round and after each sweep."""
    k = me * MAXP + seat
    if st[S_BSTAMP + k] != st[S_BVER]:
        st[S_BEST + k] = best_progress(st, seat)
        st[S_BSTAMP + k] = st[S_BVER]
    return st[S_BEST + k]


@helper("int64(ST, int64, PAR)")
def reference_sweep(st, me, p):
    """best(me + 1) >= best(me) + 1 for the mover, + 2 for anyone else (best_cached
    written out: the seat's own cache, this seat's entry and its left neighbour's)."""
    P = st[R_PLAYERS]
    nxt = me + 1 if me + 1 < P else 0
    need = 1 if me == st[S_CUR] else 2
    ver = st[S_BVER]
    km = me * MAXP + me
    kn = me * MAXP + nxt
    if st[S_BSTAMP + km] != ver:
        st[S_BEST + km] = best_progress(st, me)
        st[S_BSTAMP + km] = ver
    if st[S_BSTAMP + kn] != ver:
        st[S_BEST + kn] = best_progress(st, nxt)
        st[S_BSTAMP + kn] = ver
    return 1 if st[S_BEST + kn] >= st[S_BEST + km] + need else 0


@helper("int64(ST, int64, PAR)")
def reference_double(st, me, p):
    """Whenever legal: the first layout with a pair."""
    return first_pair(st, me)


@helper("ACT(ST, int64, PAR)")
def reference_swap(st, me, p):
    """The strict improvement of one layout with the highest value (l, i, j order).
    value(L) is computed inline from packed suit counts (4 bits a suit) and a rank mask:
    for each slot i the other three cards are counted once, then each center card added
    (its suit's count + 1, its rank bit)."""
    strt = st[R_STRAIGHTS] != 0
    c0 = st[S_CENTER]
    c1 = st[S_CENTER + 1]
    c2 = st[S_CENTER + 2]
    c3 = st[S_CENTER + 3]
    s0 = 4 * (c0 & 3)
    s1 = 4 * (c1 & 3)
    s2 = 4 * (c2 & 3)
    s3 = 4 * (c3 & 3)
    r0 = RANKBIT[c0] if strt else 0
    r1 = RANKBIT[c1] if strt else 0
    r2 = RANKBIT[c2] if strt else 0
    r3 = RANKBIT[c3] if strt else 0
    best = -1
    bl = -1
    bi = -1
    bj = -1
    for l in range(st[S_NLAY + me]):
        o = S_LAY + (me * MAXL + l) * 4
        x0 = st[o]
        x1 = st[o + 1]
        x2 = st[o + 2]
        x3 = st[o + 3]
        k0 = 1 << (4 * (x0 & 3))
        k1 = 1 << (4 * (x1 & 3))
        k2 = 1 << (4 * (x2 & 3))
        k3 = 1 << (4 * (x3 & 3))
        b0 = RANKBIT[x0] if strt else 0
        b1 = RANKBIT[x1] if strt else 0
        b2 = RANKBIT[x2] if strt else 0
        b3 = RANKBIT[x3] if strt else 0
        cnt = k0 + k1 + k2 + k3
        f = max(max(cnt & 15, (cnt >> 4) & 15), max((cnt >> 8) & 15, cnt >> 12))
        sv = np.int64(STRAIGHT[b0 | b1 | b2 | b3])
        cur = 5 * f + sv if f >= sv else 5 * sv + f
        for i in range(4):
            if i == 0:
                cnt3 = k1 + k2 + k3
                m3 = b1 | b2 | b3
            elif i == 1:
                cnt3 = k0 + k2 + k3
                m3 = b0 | b2 | b3
            elif i == 2:
                cnt3 = k0 + k1 + k3
                m3 = b0 | b1 | b3
            else:
                cnt3 = k0 + k1 + k2
                m3 = b0 | b1 | b2
            f3 = max(max(cnt3 & 15, (cnt3 >> 4) & 15), max((cnt3 >> 8) & 15, cnt3 >> 12))
            for j in range(4):
                if j == 0:
                    f = max(f3, ((cnt3 >> s0) & 15) + 1)
                    sv = np.int64(STRAIGHT[m3 | r0])
                elif j == 1:
                    f = max(f3, ((cnt3 >> s1) & 15) + 1)
                    sv = np.int64(STRAIGHT[m3 | r1])
                elif j == 2:
                    f = max(f3, ((cnt3 >> s2) & 15) + 1)
                    sv = np.int64(STRAIGHT[m3 | r2])
                else:
                    f = max(f3, ((cnt3 >> s3) & 15) + 1)
                    sv = np.int64(STRAIGHT[m3 | r3])
                v = 5 * f + sv if f >= sv else 5 * sv + f
                if v > cur and v > best:
                    best = v
                    bl = l
                    bi = i
                    bj = j
    if bl < 0:
        return PASS
    return (A_SWAP, bl, bi, bj)


@helper("UniTuple(int64, 2)(ST, int64, PAR)")
def reference_stall(st, me, p):
    """Remove the least useful center slot, then the least useful of the other three;
    usefulness u[j] = the best value any of my layouts would get with center card j in
    any slot."""
    strt = st[R_STRAIGHTS] != 0
    u0 = -1
    u1 = -1
    u2 = -1
    u3 = -1
    for l in range(st[S_NLAY + me]):
        o = S_LAY + (me * MAXL + l) * 4
        for i in range(4):
            cnt3 = 0
            m3 = 0
            for k in range(4):
                if k != i:
                    x = st[o + k]
                    cnt3 += 1 << (4 * (x & 3))
                    m3 |= RANKBIT[x]
            for j in range(4):
                c = st[S_CENTER + j]
                cnt = cnt3 + (1 << (4 * (c & 3)))
                f = max(max(cnt & 15, (cnt >> 4) & 15), max((cnt >> 8) & 15, cnt >> 12))
                sv = np.int64(STRAIGHT[m3 | RANKBIT[c]]) if strt else 0
                u = 5 * f + sv if f >= sv else 5 * sv + f
                if j == 0:
                    u0 = max(u0, u)
                elif j == 1:
                    u1 = max(u1, u)
                elif j == 2:
                    u2 = max(u2, u)
                else:
                    u3 = max(u3, u)
    a = 0
    ua = u0
    if u1 < ua:
        a = 1
        ua = u1
    if u2 < ua:
        a = 2
        ua = u2
    if u3 < ua:
        a = 3
        ua = u3
    b = -1
    ub = 1 << 40
    for j in range(4):
        u = u0 if j == 0 else u1 if j == 1 else u2 if j == 2 else u3
        if j != a and u < ub:
            b = j
            ub = u
    return a, b


# ---------------------------------------------------------------- random


RANDOM = Strategy("random", "Uniform over the legal choices at each decision (sweep yes/no, double "
                  "yes/no, any swap or the pass, any two stall slots).")


@helper("int64(ST, int64, PAR)")
def random_sweep(st, me, p):
    """Yes or no with even odds."""
    return seat_below(st, me, 2)


@helper("int64(ST, int64, PAR)")
def random_double(st, me, p):
    """Yes or no with even odds; yes picks uniformly among the layouts with a pair."""
    if seat_below(st, me, 2) == 0:
        return -1
    n = 0
    for l in range(st[S_NLAY + me]):
        if has_pair(st, S_LAY + (me * MAXL + l) * 4):
            n += 1
    k = seat_below(st, me, n)
    for l in range(st[S_NLAY + me]):
        if has_pair(st, S_LAY + (me * MAXL + l) * 4):
            if k == 0:
                return l
            k -= 1
    return -1


@helper("ACT(ST, int64, PAR)")
def random_swap(st, me, p):
    """Uniform over every swap (layout, slot, center slot) and the pass."""
    n = st[S_NLAY + me] * 16
    r = seat_below(st, me, n + 1)
    if r == n:
        return PASS
    return (A_SWAP, r >> 4, (r >> 2) & 3, r & 3)


@helper("UniTuple(int64, 2)(ST, int64, PAR)")
def random_stall(st, me, p):
    """Two distinct slots, uniformly."""
    a = seat_below(st, me, 4)
    b = seat_below(st, me, 3)
    if b >= a:
        b += 1
    return a, b


# ---------------------------------------------------------------- greedy and collector: the best-gain swap


COLLECTOR = Strategy("collector", "Plans for double chimneys and straights: keeps pairs while a layout "
                     "can still be opened, weighs straights, doubles while the stock is deep enough.", (
                         Param("pair_bonus", 2, 0, 12, "score bonus for a layout holding a pair while another layout may be opened", True),
                         Param("straight_weight", 1, 0, 2, "weight of the straight measure against the suit count"),
                         Param("double_min_stock", 8, 0, 52, "declare a double chimney only with at least this many stock cards", True),
                     ))
P_COLLECTOR = COLLECTOR.at


@helper("int64(ST, int64, PAR, int64, int64, int64, int64)")
def collector_eval(st, me, p, a, b, c, d):
    """6 * flush + round(6 * straight_weight) * straight, + pair_bonus for a pair while
    another layout may still be opened, of a layout holding the cards a..d."""
    f, s = fs4(st, a, b, c, d)
    v = 6 * f + int(6.0 * p[P_COLLECTOR.straight_weight] + 0.5) * s
    if st[S_NLAY + me] < st[R_MAX_LAYOUTS] and pair4(st, a, b, c, d):
        v += int(p[P_COLLECTOR.pair_bonus])
    return v


@helper("int64(ST, int64, PAR, int64, int64, int64, int64, int64)")
def layout_score(st, me, p, a, b, c, d, how):
    """What a best-gain swap maximises for a layout holding the cards a..d: how = 0, its
    best suit count (greedy); how = 1, collector_eval (collector)."""
    if how == 0:
        return fs4(st, a, b, c, d)[0]
    return collector_eval(st, me, p, a, b, c, d)


@helper("ACT(ST, int64, PAR, int64)")
def best_gain_swap(st, me, p, how):
    """The swap with the largest strict gain of layout_score (first in l, i, j order on
    ties); pass when none gains.  Each swap is weighed on the four cards it would leave in
    the layout (center card j in slot i), never written there: a strategy only reads the
    table."""
    best = 0
    bl = -1
    bi = -1
    bj = -1
    for l in range(st[S_NLAY + me]):
        o = S_LAY + (me * MAXL + l) * 4
        x0 = st[o]
        x1 = st[o + 1]
        x2 = st[o + 2]
        x3 = st[o + 3]
        cur = layout_score(st, me, p, x0, x1, x2, x3, how)
        for i in range(4):
            for j in range(4):
                c = st[S_CENTER + j]
                gain = layout_score(st, me, p, c if i == 0 else x0, c if i == 1 else x1,
                                    c if i == 2 else x2, c if i == 3 else x3, how) - cur
                if gain > best:
                    best = gain
                    bl = l
                    bi = i
                    bj = j
    if bl < 0:
        return PASS
    return (A_SWAP, bl, bi, bj)


# ---------------------------------------------------------------- greedy


GREEDY = Strategy("greedy", "Takes the center card that most increases one layout's best suit "
                  "count, passes otherwise; never sweeps or doubles; stalls like reference.")


@helper("int64(ST, int64, PAR)")
def greedy_sweep(st, me, p):
    """Never sweeps."""
    return 0


@helper("int64(ST, int64, PAR)")
def greedy_double(st, me, p):
    """Never declares a double chimney."""
    return -1


@helper("ACT(ST, int64, PAR)")
def greedy_swap(st, me, p):
    """The center card that most increases one layout's best suit count; pass otherwise."""
    return best_gain_swap(st, me, p, 0)


# ---------------------------------------------------------------- collector


@helper("int64(ST, int64, PAR)")
def collector_sweep(st, me, p):
    """Never sweeps."""
    return 0


@helper("int64(ST, int64, PAR)")
def collector_double(st, me, p):
    """Open a second layout while the stock still holds at least double_min_stock cards."""
    if st[S_STOCK_N] < p[P_COLLECTOR.double_min_stock]:
        return -1
    return first_pair(st, me)


@helper("ACT(ST, int64, PAR)")
def collector_swap(st, me, p):
    """The swap with the largest strict gain of collector_eval."""
    return best_gain_swap(st, me, p, 1)


# ---------------------------------------------------------------- sweeper


SWEEPER = Strategy("sweeper", "Calls the sweep whenever the layouts on its left are better than its "
                   "own by a margin; otherwise plays like reference.", (
                       Param("margin", 1, 0, 4, "sweep when best(left) >= best(mine) + margin", True),
                   ))
P_SWEEPER = SWEEPER.at


@helper("int64(ST, int64, PAR)")
def sweeper_sweep(st, me, p):
    """Calls the sweep when the layouts on its left are better than its own by margin."""
    P = st[R_PLAYERS]
    nxt = me + 1 if me + 1 < P else 0
    return 1 if best_cached(st, me, nxt) >= best_cached(st, me, me) + p[P_SWEEPER.margin] else 0


# ---------------------------------------------------------------- registry

# Where a strategy plays a decision exactly as the reference does (its help says so), it
# registers the reference's function for it, and the dispatch calls that function.
STRATEGIES = register(
    L.S,
    (REFERENCE, {"sweep": reference_sweep, "double": reference_double, "swap": reference_swap,
                 "stall": reference_stall}),
    (RANDOM, {"sweep": random_sweep, "double": random_double, "swap": random_swap,
              "stall": random_stall}),
    (GREEDY, {"sweep": greedy_sweep, "double": greedy_double, "swap": greedy_swap,
              "stall": reference_stall}),
    (COLLECTOR, {"sweep": collector_sweep, "double": collector_double, "swap": collector_swap,
                 "stall": reference_stall}),
    (SWEEPER, {"sweep": sweeper_sweep, "double": reference_double, "swap": reference_swap,
               "stall": reference_stall}),
)
ID = ids(STRATEGIES)
