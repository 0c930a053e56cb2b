"""Hand-built 5 Towers states and a plain-Python reading of the rules and of the
reference strategy page, to check the compiled code against."""
from __future__ import annotations

from itertools import permutations

import numpy as np

from cardlab.sim.five_towers import GAME
from cardlab.sim.five_towers import layout as L
from cardlab.sim.five_towers import moves as M
from cardlab.sim.rng import seed_game

C = L.card_of
EMPTY = L.EMPTY


def make_state(players=3, towers=None, rubble=None, offer=(), draw=(), discard=(), start=0,
               high=0, rules=None, capacity=0):
    """A state from rule-page codes: towers {seat: {"C": [bottom..top]}}, rubble {seat:
    [...]}, offer (already revealed), draw (top first), discard (oldest first).  Copies
    of a code already used get the second-copy bit, so every card is distinct.  With an
    offer, the pending decision is the start player's bid (high already bid)."""
    r = GAME.resolve_rules(rules or {}, players)
    st = L.S.new_state(GAME.rules_vector(r, players), capacity)
    seed_game(st, 7, 0)
    seen: set[int] = set()

    def card(code):
        c = C(code)
        if c in seen:
            c = C(code, 1)
        seen.add(c)
        return c

    for s, tw in (towers or {}).items():
        for kind, cards in tw.items():
            k = L.KINDS.index(kind)
            o = L.S_TOW + (s * L.NK + k) * L.MAXH
            st[o:o + len(cards)] = [card(x) for x in cards]
            st[L.S_TH + s * L.NK + k] = len(cards)
    for s, cards in (rubble or {}).items():
        st[L.S_RUB + s * L.NCARDS:][:len(cards)] = [card(x) for x in cards]
        st[L.S_RUB_N + s] = len(cards)
    st[L.S_OFFER:L.S_OFFER + L.MAXOFF] = -1
    st[L.S_OFFER:L.S_OFFER + len(offer)] = [card(x) for x in offer]
    st[L.S_OFFER_N] = len(offer)
    st[L.S_DRAW_N] = len(draw)
    for i, x in enumerate(reversed(draw)):
        st[L.S_DRAW + i] = card(x)
    st[L.S_DISC_N] = len(discard)
    st[L.S_DISC:L.S_DISC + len(discard)] = [card(x) for x in discard]
    st[L.S_START] = start
    st[L.S_HIGH] = high
    st[L.S_BIDDER] = -1
    if len(offer):
        st[L.S_PHASE] = L.D_BID
        st[L.S_ACTOR] = start
    M.refresh(st)
    return st


def from_snapshot(snap, start, high=0):
    """A full state from a trace snapshot (zones only), caches rebuilt; the pending
    decision is the start player's bid (high already bid)."""
    st = np.zeros(L.S_SIZE, np.int64)
    st[:L.ZONES_END] = snap
    st[L.S_START] = start
    st[L.S_HIGH] = high
    st[L.S_PHASE] = L.D_BID
    st[L.S_ACTOR] = start
    M.refresh(st)
    return st


def tower(st, s, kind):
    k = L.KINDS.index(kind)
    h = int(st[L.S_TH + s * L.NK + k])
    o = L.S_TOW + (s * L.NK + k) * L.MAXH
    return [L.card_code(int(c)) for c in st[o:o + h]]


# ---------------------------------------------------------------- plain-Python rules


def legal(x, t):
    if t == EMPTY:
        return True
    if t == 0:
        return False
    return t == 8 or x == 9 or x < t


def good(x, t):
    return legal(x, t) and x >= (16 if t == EMPTY else t) - 4


def tops(st, s):
    """(top, below-top, tearable) per kind, read from the tower zone itself."""
    out = []
    for k in range(L.NK):
        h = int(st[L.S_TH + s * L.NK + k])
        o = L.S_TOW + (s * L.NK + k) * L.MAXH
        vals = [int(c) & 15 for c in st[o:o + h]]
        t = vals[-1] if vals else EMPTY
        b = vals[-2] if h >= 2 else EMPTY
        out.append((t, b, h > 0 and t != 0))
    return out


def offer_by_kind(st):
    by = [[] for _ in range(L.NK)]
    for j in range(int(st[L.S_OFFER_N])):
        c = int(st[L.S_OFFER + j])
        if c >= 0:
            by[(c >> 4) & 7].append((j, c & 15))
    return by


def most_legal(t, cards):
    """Exhaustive: the most of cards (values) placeable one after another on top t."""
    best = 0
    for n in range(1, len(cards) + 1):
        for perm in permutations(cards, n):
            cur, ok = t, True
            for x in perm:
                if not legal(x, cur):
                    ok = False
                    break
                cur = x
            if ok:
                best = n
                break
    return best


def max_buildable(st, s):
    tw, by = tops(st, s), offer_by_kind(st)
    after = st[L.R_TEAR_AFTER] != 0
    base = [most_legal(tw[k][0], [v for _, v in by[k]]) for k in range(L.NK)]
    best = sum(base)
    if not after:
        for k in range(L.NK):
            if by[k] and tw[k][2]:
                best = max(best, sum(base) - base[k] + most_legal(tw[k][1], [v for _, v in by[k]]))
    return best


def chain(t, cards):
    """The reference page's good chain: slots in order."""
    left = list(cards)
    out, cur = [], t
    while True:
        cand = [(v, -j) for j, v in left if good(v, cur)]
        if not cand:
            return out
        v, mj = max(cand)
        out.append(-mj)
        left.remove((-mj, v))
        cur = v


def reference_plan(st, s):
    tw, by = tops(st, s), offer_by_kind(st)
    c = [len(chain(tw[k][0], by[k])) for k in range(L.NK)]
    n0 = sum(c)
    best = (n0, n0, -1)  # value, n, kind
    if st[L.R_TEAR_AFTER] == 0:
        r = int(st[L.S_RUB_N + s])
        for k in range(L.NK):
            if by[k] and tw[k][2]:
                nk = n0 - c[k] + len(chain(tw[k][1], by[k]))
                if nk - (r + 2) > best[0]:
                    best = (nk - (r + 2), nk, k)
    return best[1], best[2]


def reference_bid(st, s):
    wanted, _ = reference_plan(st, s)
    h = int(st[L.S_HIGH])
    if wanted > h:
        return wanted
    if s == st[L.S_START] and h == 0 and max_buildable(st, s) >= 1:
        return 1
    return 0


def reference_build(st, s, b):
    """(kind torn or -1, offer slots in order)."""
    wanted, tear = reference_plan(st, s)
    tw, by = tops(st, s), offer_by_kind(st)
    if b == wanted:
        slots = []
        for k in range(L.NK):
            slots += chain(tw[k][1] if k == tear else tw[k][0], by[k])
        return tear, slots
    cand = [(v, -k, -j) for k in range(L.NK) for j, v in by[k] if legal(v, tw[k][0])]
    if cand:
        return -1, [-max(cand)[2]]
    for k in range(L.NK):
        if tw[k][2]:
            c = [(v, -j) for j, v in by[k] if legal(v, tw[k][1])]
            if c:
                return k, [-max(c)[1]]
    raise AssertionError("forced opening without a buildable card")


def score(st, s, linear=False):
    pts, tallest = 0, 0
    for k in range(L.NK):
        h = int(st[L.S_TH + s * L.NK + k])
        o = L.S_TOW + (s * L.NK + k) * L.MAXH
        pts += h
        if h and (int(st[o + h - 1]) & 15) == 0:
            pts += h
        tallest = max(tallest, h)
    r = int(st[L.S_RUB_N + s])
    return pts + tallest - (r if linear else r * (r + 1) // 2)
