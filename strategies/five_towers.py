"""5 Towers strategies.

A seat's strategy answers the game's decisions (``sim/five_towers/layout.py``), each a
compiled function taking ``(st, me, p)`` (``p``: the seat's parameter row, read by the
names in its ``Strategy`` entry below), registered at the bottom:

- ``bid``   -> a number of cards above the high bid st[S_HIGH], or 0 to pass (every
  seat once a round, from the start player st[S_START]);
- ``tear`` and ``place`` -> the high bidder's build, one step at a time: the kind to tear
  down or -1, then one offer slot per card bid.  At the build's first step the strategy
  writes its whole plan into its seat's own memory (``S.scratch(..., owner=True)``: the
  one place a strategy keeps anything from one decision to the next): the kind to tear
  down or -1 (st[S_PLAN_TEAR + me]), then b offer slots in placement order
  (st[S_PLAN_N + me], st[S_PLAN + me * MAXOFF:]); every later step is answered from that
  plan (``planned``).  One function per strategy (``<name>_building``) answers both.

A strategy reads only what its seat may see (here: everything but the draw pile's order)
and writes only its own memory and the working memory (``tmp``, the search's ``dp`` and
``seq``, the action buffer): never the table, nor the rules' memo (``max_buildable_fresh``
and ``legal`` count without it; the audit, ``sim/audit.py``, proves it).

Placements are searched, never guessed: the reference follows its page's "good chain";
the others ask ``search`` (sim/five_towers/moves.py), an exhaustive search over the
order of each kind's offer cards, with their own notion of a good placement.  The
kernel checks every bid (it must be buildable) and every step of the build, so a bug
here is an error, never a silent cheat.  To add one: copy a neighbour (its ``Strategy``
entry, parameters read by name through ``P_<NAME>``) and register it at the bottom
(``choose``, the dispatch, is written from the registry: ``sim/bind.py``).
"""
from cardlab.sim.bits import lowest, popcount
from cardlab.sim.jit import helper
from cardlab.sim.rng import seat_below, seat_uniform
from cardlab.sim.five_towers import layout as L
from cardlab.sim.five_towers.layout import (
    D_PLACE, D_TEAR, MAXOFF, NK, R_TEAR_AFTER, S_HIGH, S_OFFER, S_OFFER_N, S_PC, S_PHASE,
    S_ACTS, S_PLACED, S_PLAN, S_PLAN_DONE, S_PLAN_FOR, S_PLAN_N, S_PLAN_TEAR, S_ROUND, S_RUB_N, S_SEQ,
    S_START, S_TH, S_TMP, S_VER,
)
from cardlab.sim.five_towers.moves import (
    below_top, fits, goes_on, kind_slots, legal, max_buildable_fresh, search, tearable, top,
)
from cardlab.strategies.base import Param, Strategy, ids, register

# ---------------------------------------------------------------- shared pieces


@helper("int64(ST, int64, int64)")
def opening(st, me, wanted):
    """The bid of a strategy that wants ``wanted`` cards: outbid if it wants more than the
    high bid; the start player, forced to open, bids 1 if it can build a card; else pass."""
    h = st[S_HIGH]
    if wanted > h:
        return wanted
    if me == st[S_START] and h == 0 and max_buildable_fresh(st, me) >= 1:
        return 1
    return 0


@helper("void(ST, int64)")
def single_card(st, me):
    """The forced opening's one card: the highest-valued offer card legal on its tower
    (ties: kind order), without tear-down; failing that, the first kind whose tear-down
    makes one of its offer cards legal: tear it down and place the highest such card."""
    bj = -1
    bv = -1
    for k in range(NK):
        t = top(st, me, k)
        for j in range(st[S_OFFER_N]):
            c = st[S_OFFER + j]
            if c >= 0 and ((c >> 4) & 7) == k and (c & 15) > bv and goes_on(c & 15, t):
                bv = c & 15
                bj = j
    st[S_PLAN_TEAR + me] = -1
    if bj < 0 and st[R_TEAR_AFTER] == 0:
        for k in range(NK):
            if not tearable(st, me, k):
                continue
            t = below_top(st, me, k)
            for j in range(st[S_OFFER_N]):
                c = st[S_OFFER + j]
                if c >= 0 and ((c >> 4) & 7) == k and (c & 15) > bv and goes_on(c & 15, t):
                    bv = c & 15
                    bj = j
            if bj >= 0:
                st[S_PLAN_TEAR + me] = k
                break
    st[S_PLAN + me * MAXOFF] = bj
    st[S_PLAN_N + me] = 1


@helper("boolean(ST)", paste=True)
def build_starts(st):
    """Is the pending decision the build's first step (where the builder plans it all)?
    The tear-down when it comes first, else the first placement."""
    if st[R_TEAR_AFTER] == 0:
        return st[S_PHASE] == D_TEAR
    return st[S_PHASE] == D_PLACE and st[S_PLACED] == 0


@helper("void(ST, int64)", paste=True)
def start_plan(st, me):
    """The plan just written belongs to this round's build, and no step of it is played yet."""
    st[S_PLAN_FOR + me] = st[S_ROUND] + 1
    st[S_PLAN_DONE + me] = 0


@helper("ACT(ST, int64)", paste=True)
def planned(st, me):
    """The plan's answer to the pending build step: its tear-down, or its next offer slot.
    A build it has no plan of its own for — one it did not begin, whose earlier steps
    someone else chose, or a bid it did not make and cannot plan (the search player's
    worlds, sim/search.py) — it plays on by taking the first legal step.  (In its own
    games it bids only what it can plan, so it never gets there.)  The plan is the seat's
    own memory: a world of the search re-deals the others' away, never its own."""
    steps = st[S_PLACED] + (1 if st[R_TEAR_AFTER] == 0 and st[S_PHASE] == D_PLACE else 0)
    if (st[S_PLAN_FOR + me] != st[S_ROUND] + 1 or st[S_PLAN_DONE + me] != steps
            or st[S_PLAN_N + me] != st[S_HIGH]):
        legal(st)  # (counted afresh: it writes only the action buffer, working memory)
        o = S_ACTS
        return (st[o], st[o + 1], st[o + 2], st[o + 3])
    st[S_PLAN_DONE + me] += 1
    if st[S_PHASE] == D_TEAR:
        return (st[S_PLAN_TEAR + me], 0, 0, 0)
    return (st[S_PLAN + me * MAXOFF + st[S_PLACED]], 0, 0, 0)


# ---------------------------------------------------------------- reference


REFERENCE = Strategy("reference", "The exact reference strategy of shared/reference/five_towers.md: "
                     "bids the length of its good chains (cards at most 4 below the top), tears down "
                     "when it gains more than the rubble costs, opens with 1 when forced.")

@helper("int64(ST, int64, int64, int64)")
def chain(st, k, t, out):
    """The good chain C(t, V_k): from top t, repeatedly the highest offer card of kind k
    that is good on the current top (legal and at most 4 below it, below 16 on an empty
    tower).  Writes its slots from st[out] when out >= 0; returns its length."""
    left = kind_slots(st, k)
    n = 0
    cur = t
    while left:
        bj = -1
        bv = -1
        rest = left
        while rest:  # the kind's slots, lowest first (ties go to the first)
            j = lowest(rest)
            rest &= rest - 1
            x = st[S_OFFER + j] & 15
            if x > bv and fits(x, cur, 0, 4, 99):
                bv = x
                bj = j
        if bj < 0:
            return n
        left ^= 1 << bj
        if out >= 0:
            st[out + n] = bj
        n += 1
        cur = bv
    return n


@helper("UniTuple(int64, 2)(ST, int64)")
def reference_plan(st, me):
    """(wanted, kind to tear down or -1): no tear-down is worth n0 = the sum of the good
    chains; tearing kind k down is worth its n_k minus (rubble + 2); the best value wins,
    ties to no tear-down, then kind order.  Cached in the seat's own memory (st[S_PC +
    3 * me:]) until the offer or a tower changes (the builder reuses the plan it bid with)."""
    o = S_PC + 3 * me
    if st[o] == st[S_VER]:
        return st[o + 1], st[o + 2]
    n0 = 0
    for k in range(NK):
        st[S_TMP + k] = chain(st, k, top(st, me, k), -1) if kind_slots(st, k) else 0
        n0 += st[S_TMP + k]
    best_v = n0
    best_n = n0
    tear = -1
    if st[R_TEAR_AFTER] == 0:
        cost = st[S_RUB_N + me] + 2
        for k in range(NK):
            slots = kind_slots(st, k)
            if slots == 0 or not tearable(st, me, k):
                continue
            if popcount(slots) - st[S_TMP + k] <= cost:
                continue  # even every card of the kind could not pay for the rubble
            nk = n0 - st[S_TMP + k] + chain(st, k, below_top(st, me, k), -1)
            if nk - cost > best_v:
                best_v = nk - cost
                best_n = nk
                tear = k
    st[o] = st[S_VER]
    st[o + 1] = best_n
    st[o + 2] = tear
    return best_n, tear


@helper("int64(ST, int64, PAR)")
def reference_bid(st, me, p):
    wanted, _ = reference_plan(st, me)
    return opening(st, me, wanted)


@helper("void(ST, int64, PAR, int64)")
def reference_build(st, me, p, b):
    """The plan's tear-down, then the good chains in kind order; a forced opening (wanted
    0, bid 1) takes single_card."""
    wanted, tear = reference_plan(st, me)
    if b != wanted:
        single_card(st, me)
        return
    st[S_PLAN_TEAR + me] = tear
    n = 0
    for k in range(NK):
        t = below_top(st, me, k) if k == tear else top(st, me, k)
        n += chain(st, k, t, S_PLAN + me * MAXOFF + n)
    st[S_PLAN_N + me] = n


@helper("ACT(ST, int64, PAR)")
def reference_building(st, me, p):
    """The build's steps: reference_build's plan, written at the first."""
    if build_starts(st):
        reference_build(st, me, p, st[S_HIGH])
        start_plan(st, me)
    return planned(st, me)


# ---------------------------------------------------------------- searched plans


@helper("UniTuple(int64, 2)(ST, int64, int64, int64, int64, int64, int64)")
def searched_plan(st, me, drop, zh, tear_gain, limit, write):
    """(cards, kind torn or -1) of the best searched plan: per kind the most offer cards
    that ``fit`` (drop, zh) in some order, at most ``limit`` cards in all.  The tear-down
    is chosen for that cut plan, the one actually bid: it must add at least tear_gain
    cards to it (the largest addition, ties kind order), so a tear-down whose cards the
    cut would drop never happens.  With write, the plan goes into the seat's own
    st[S_PLAN...] (kind order, each kind's searched order): every card of the other kinds,
    and of the torn kind as many as the plan has room for (at least the cards the
    tear-down added)."""
    n0 = 0
    for k in range(NK):
        s = kind_slots(st, k)
        h = st[S_TH + me * NK + k]
        st[S_TMP + k] = search(st, s, top(st, me, k), h, drop, zh) if s else 0
        n0 += st[S_TMP + k]
    base = min(n0, limit)
    tear = -1
    gain = 0
    if st[R_TEAR_AFTER] == 0 and base < limit:
        for k in range(NK):
            s = kind_slots(st, k)
            if s == 0 or not tearable(st, me, k):
                continue
            h = st[S_TH + me * NK + k]
            c = search(st, s, below_top(st, me, k), h - 1, drop, zh)
            g = min(n0 - st[S_TMP + k] + c, limit) - base  # added to the plan actually bid
            if g >= tear_gain and g > gain:
                gain = g
                tear = k
    n = base + gain
    if write:
        st[S_PLAN_TEAR + me] = tear
        # with a tear-down every card of the other kinds fits in the plan (n > n0); the
        # torn kind fills the rest, so it always places the cards the tear-down was for
        torn_room = n - (n0 - st[S_TMP + tear]) if tear >= 0 else 0
        cnt = 0
        for k in range(NK):
            if cnt >= n:
                break
            s = kind_slots(st, k)
            if s == 0:
                continue
            h = st[S_TH + me * NK + k]
            if k == tear:
                c = min(search(st, s, below_top(st, me, k), h - 1, drop, zh), torn_room)
            else:
                c = search(st, s, top(st, me, k), h, drop, zh)
            for i in range(min(c, n - cnt)):
                st[S_PLAN + me * MAXOFF + cnt] = st[S_SEQ + i]
                cnt += 1
        st[S_PLAN_N + me] = cnt
    return n, tear


@helper("void(ST, int64, int64, int64, int64, int64, int64)")
def searched_build(st, me, b, drop, zh, tear_gain, limit):
    """Build the searched plan if it is what was bid, else the forced opening's card."""
    n, _ = searched_plan(st, me, drop, zh, tear_gain, limit, 0)
    if n == b:
        searched_plan(st, me, drop, zh, tear_gain, limit, 1)
    else:
        single_card(st, me)


# greedy: every card it can place well

GREEDY = Strategy("greedy", "Bids for every card it can place well (searched over orders), tears "
                  "down when that places tear_gain more cards.", (
                      Param("max_drop", 6, 0, 16, "a placement is good at most this far below the top", True),
                      Param("tear_gain", 2, 1, 8, "tear down only if it places this many more cards", True),
                  ))
P_GREEDY = GREEDY.at


@helper("int64(ST, int64, PAR)")
def greedy_bid(st, me, p):
    n, _ = searched_plan(st, me, int(p[P_GREEDY.max_drop]), 99, int(p[P_GREEDY.tear_gain]), 8, 0)
    return opening(st, me, n)


@helper("void(ST, int64, PAR, int64)")
def greedy_build(st, me, p, b):
    searched_build(st, me, b, int(p[P_GREEDY.max_drop]), 99, int(p[P_GREEDY.tear_gain]), 8)


@helper("ACT(ST, int64, PAR)")
def greedy_building(st, me, p):
    """The build's steps: greedy_build's plan, written at the first."""
    if build_starts(st):
        greedy_build(st, me, p, st[S_HIGH])
        start_plan(st, me)
    return planned(st, me)


# cautious: small bids, small drops, a tear-down only when the small bid needs it

CAUTIOUS = Strategy("cautious", "Bids small (at most max_bid cards), keeps towers open (small "
                    "drops); tears down only when that adds tear_gain cards to the bid (never with the "
                    "defaults: a tear-down adds at most max_bid cards) or, forced to open, for its "
                    "single card.", (
                        Param("max_drop", 2, 0, 16, "a placement is good at most this far below the top", True),
                        Param("max_bid", 2, 1, 8, "never bids for more cards than this", True),
                        Param("tear_gain", 3, 1, 8, "tear down only if it adds this many cards to the bid "
                              "(after the cut to max_bid); above max_bid: never", True),
                    ))
P_CAUTIOUS = CAUTIOUS.at


@helper("int64(ST, int64, PAR)")
def cautious_bid(st, me, p):
    n, _ = searched_plan(st, me, int(p[P_CAUTIOUS.max_drop]), 99, int(p[P_CAUTIOUS.tear_gain]),
                         int(p[P_CAUTIOUS.max_bid]), 0)
    return opening(st, me, n)


@helper("void(ST, int64, PAR, int64)")
def cautious_build(st, me, p, b):
    searched_build(st, me, b, int(p[P_CAUTIOUS.max_drop]), 99, int(p[P_CAUTIOUS.tear_gain]),
                   int(p[P_CAUTIOUS.max_bid]))


@helper("ACT(ST, int64, PAR)")
def cautious_building(st, me, p):
    """The build's steps: cautious_build's plan, written at the first."""
    if build_starts(st):
        cautious_build(st, me, p, st[S_HIGH])
        start_plan(st, me)
    return planned(st, me)


# capper: a 0 is always welcome on a tower tall enough to be worth doubling

CAPPER = Strategy("capper", "Races to cap towers with 0s for the double score: a 0 is good on any "
                  "tower of cap_height cards or more.", (
                      Param("max_drop", 5, 0, 16, "a placement is good at most this far below the top", True),
                      Param("cap_height", 3, 1, 22, "a 0 caps any tower at least this tall", True),
                      Param("tear_gain", 2, 1, 8, "tear down only if it places this many more cards", True),
                  ))
P_CAPPER = CAPPER.at


@helper("int64(ST, int64, PAR)")
def capper_bid(st, me, p):
    n, _ = searched_plan(st, me, int(p[P_CAPPER.max_drop]), int(p[P_CAPPER.cap_height]),
                         int(p[P_CAPPER.tear_gain]), 8, 0)
    return opening(st, me, n)


@helper("void(ST, int64, PAR, int64)")
def capper_build(st, me, p, b):
    searched_build(st, me, b, int(p[P_CAPPER.max_drop]), int(p[P_CAPPER.cap_height]),
                   int(p[P_CAPPER.tear_gain]), 8)


@helper("ACT(ST, int64, PAR)")
def capper_building(st, me, p):
    """The build's steps: capper_build's plan, written at the first."""
    if build_starts(st):
        capper_build(st, me, p, st[S_HIGH])
        start_plan(st, me)
    return planned(st, me)


# ---------------------------------------------------------------- random


RANDOM = Strategy("random", "A uniform legal bid (forced when opening) and a uniform choice among "
                  "the tear-down options and cards that make the bid buildable.", (
                      Param("bid_prob", 0.5, 0, 1, "chance to bid (rather than pass) when not forced"),
                  ))
P_RANDOM = RANDOM.at


@helper("int64(ST, int64, PAR)")
def random_bid(st, me, p):
    """A uniform legal bid: forced when opening, else with probability bid_prob."""
    h = st[S_HIGH]
    hi = min(max_buildable_fresh(st, me), st[S_OFFER_N])
    if hi <= h:
        return 0
    if not (me == st[S_START] and h == 0) and seat_uniform(st, me) >= p[P_RANDOM.bid_prob]:
        return 0
    return h + 1 + seat_below(st, me, hi - h)


@helper("int64(ST, int64, int64)")
def legal_total(st, me, tear):
    """The most offer cards placeable legally with kind ``tear`` torn down first (-1: none);
    per kind caps left in st[S_TMP:]."""
    n = 0
    for k in range(NK):
        s = kind_slots(st, k)
        c = 0
        if s:
            h = st[S_TH + me * NK + k]
            if k == tear:
                c = search(st, s, below_top(st, me, k), h - 1, 16, 99)
            else:
                c = search(st, s, top(st, me, k), h, 16, 99)
        st[S_TMP + k] = c
        n += c
    return n


@helper("void(ST, int64, PAR, int64)")
def random_build(st, me, p, b):
    """A uniform choice among the tear-down options (none, or a tower) that still allow b
    cards, then b cards spread over the kinds at random, each kind's in a legal order."""
    nopt = 0
    for o in range(-1, NK):
        if o >= 0 and (st[R_TEAR_AFTER] != 0 or not tearable(st, me, o)):
            continue
        if legal_total(st, me, o) >= b:
            nopt += 1
    pick = seat_below(st, me, nopt)
    tear = -1
    for o in range(-1, NK):
        if o >= 0 and (st[R_TEAR_AFTER] != 0 or not tearable(st, me, o)):
            continue
        if legal_total(st, me, o) >= b:
            if pick == 0:
                tear = o
                break
            pick -= 1
    left = legal_total(st, me, tear)  # caps per kind in st[S_TMP:]
    for i in range(b):  # a uniform card among the placeable ones, kind by kind
        u = seat_below(st, me, left)
        k = 0
        while u >= st[S_TMP + k]:
            u -= st[S_TMP + k]
            k += 1
        st[S_TMP + k] -= 1
        left -= 1
    st[S_PLAN_TEAR + me] = tear
    cnt = 0
    for k in range(NK):
        s = kind_slots(st, k)
        if s == 0:
            continue
        h = st[S_TH + me * NK + k]
        spare = st[S_TMP + k]
        if k == tear:
            c = search(st, s, below_top(st, me, k), h - 1, 16, 99)
        else:
            c = search(st, s, top(st, me, k), h, 16, 99)
        for i in range(c - spare):
            st[S_PLAN + me * MAXOFF + cnt] = st[S_SEQ + i]
            cnt += 1
    st[S_PLAN_N + me] = cnt


@helper("ACT(ST, int64, PAR)")
def random_building(st, me, p):
    """The build's steps: random_build's plan (its random numbers drawn at the first)."""
    if build_starts(st):
        random_build(st, me, p, st[S_HIGH])
        start_plan(st, me)
    return planned(st, me)


# ---------------------------------------------------------------- registry

STRATEGIES = register(
    L.S,
    (REFERENCE, {"bid": reference_bid, "tear": reference_building, "place": reference_building}),
    (RANDOM, {"bid": random_bid, "tear": random_building, "place": random_building}),
    (GREEDY, {"bid": greedy_bid, "tear": greedy_building, "place": greedy_building}),
    (CAUTIOUS, {"bid": cautious_bid, "tear": cautious_building, "place": cautious_building}),
    (CAPPER, {"bid": capper_bid, "tear": capper_building, "place": capper_building}),
)
ID = ids(STRATEGIES)
