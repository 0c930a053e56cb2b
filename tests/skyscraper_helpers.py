"""Hand-made Skyscraper states for the rule tests, and card censuses for the invariants.

Cards may be given as rule-page codes ("F3", "J", "DOG", ...) or as type numbers.
A tower floor is ``(code0, value0, code1, value1)`` or ``(code0, value0, code1, value1,
dogs)``; ``fl("F3", "J", 6, dogs=1)`` builds one with the face values filled in.
Draw piles are given top first (the state stores them with the top as the last entry).
A state carries its own rules (st[S_RULES:], R_* are offsets into st) and random
generator (st[0:4]); trace mode is the same state with room for events after S_SIZE.
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from cardlab.sim.rng import seed_game
from cardlab.sim.skyscraper import GAME
from cardlab.sim.skyscraper import layout as L

CODES = {L.card_code(t): t for t in range(L.NT)}


def T(card) -> int:
    """Card type number of a code ("F3", "J", ...) or a type number."""
    if isinstance(card, str):
        return CODES[card]
    return int(card)


def code(t) -> str:
    return L.card_code(int(t))


# ---------------------------------------------------------------- arrays for the helpers


def rules_dict(players: int = 2, rules: dict | None = None, **knobs) -> dict:
    """Resolved rules for ``players``: defaults updated by ``rules`` (knob overrides, or an
    already resolved rules dict), then by ``knobs``."""
    return GAME.resolve_rules({**(rules or {}), **knobs}, players)


def rules_vec(players: int = 2, **knobs) -> np.ndarray:
    """The game's rule vector (what the kernel copies to st[S_RULES:S_RULES + N_RULES])."""
    return GAME.rules_vector(rules_dict(players, **knobs), players)


def set_rules(st: np.ndarray, players: int, rules: dict | None = None) -> np.ndarray:
    """Write the rules (knob overrides or a resolved dict; None: defaults) into ``st``,
    as the kernel does once per batch: every R_* constant is then an offset into st."""
    st[L.S_RULES:L.S_RULES + L.N_RULES] = GAME.rules_vector(rules_dict(players, rules), players)
    return st


def new_state(players: int = 2, rules: dict | None = None, seed: int = 1, index: int = 0,
              capacity: int = 0) -> np.ndarray:
    """An empty packed state with the rules written in and the generator (st[0:4]) seeded
    for game ``index`` of ``seed``; ``capacity`` > 0 makes it a trace-mode state with room
    for that many events after S_SIZE."""
    st = np.zeros(L.S_SIZE + capacity * L.TRACE_ROW, np.int64)
    set_rules(st, players, rules)
    seed_game(st, seed, index)
    return st


def rng_words(st) -> np.ndarray:
    """A copy of the generator's state: st[0:4] as uint64."""
    return np.asarray(st)[L.S_RNG:L.S_RNG + 4].view(np.uint64).copy()


def strategy_arrays(sid: int = 0, players: int = 4):
    """sids and params for ``players`` seats all running strategy ``sid`` (default params)."""
    strat = [s for s in GAME.strategies.values() if s.id == sid][0]
    sids = np.zeros(L.MAXP, np.int64)
    params = np.zeros((L.MAXP, 8), np.float64)
    for s in range(players):
        sids[s] = sid
        params[s] = strat.row()
    return sids, params


# ---------------------------------------------------------------- building a state


def fl(c0, c1, v1=None, dogs=0, v0=None):
    """A floor tuple with face values filled in (a joker's value must be given)."""
    t0, t1 = T(c0), T(c1)
    if v0 is None:
        v0 = t0 - L.F0
    if v1 is None:
        if t1 == L.J:
            raise ValueError("a joker's value must be given")
        v1 = t1 - L.F0
    return (t0, v0, t1, v1, dogs)


def make_state(players: int, hands=None, towers=None, draw=None, discard=None, skips=None,
               turn: int = 0, cur: int = 0, rules: dict | None = None, seed: int = 1,
               index: int = 0, capacity: int = 0) -> np.ndarray:
    """A consistent packed state: the rules for ``players`` (knob overrides or a resolved
    dict; None: defaults) and a generator seeded from (seed, index), as ``new_state``;
    hand counts and sizes, towers and their floor counts, draw pile (given top first,
    stored top = last) and discard pile (oldest first).  ``capacity`` > 0: trace mode."""
    st = new_state(players, rules, seed, index, capacity)
    for seat, cards in (hands or {}).items():
        assert 0 <= seat < players
        for c in cards:
            st[L.S_HAND + seat * L.NT + T(c)] += 1
            st[L.S_HELD + seat * L.NT + T(c)] = 1
        st[L.S_HSIZE + seat] = len(cards)
    for seat, floors in (towers or {}).items():
        assert 0 <= seat < players and len(floors) <= L.MAXF
        for f, floor in enumerate(floors):
            c0, v0, c1, v1 = floor[:4]
            dogs = floor[4] if len(floor) > 4 else 0
            o = L.S_TOWER + (seat * L.MAXF + f) * L.FW
            st[o + L.FL_T0] = T(c0)
            st[o + L.FL_V0] = v0
            st[o + L.FL_T1] = T(c1)
            st[o + L.FL_V1] = v1
            st[o + L.FL_DOGS] = dogs
        st[L.S_NFL + seat] = len(floors)
    pile = [T(c) for c in (draw or [])]
    for i, t in enumerate(reversed(pile)):
        st[L.S_DRAW + i] = t
    st[L.S_DRAW_N] = len(pile)
    disc = [T(c) for c in (discard or [])]
    for i, t in enumerate(disc):
        st[L.S_DISC + i] = t
    st[L.S_DISC_N] = len(disc)
    for seat, n in (skips or {}).items():
        st[L.S_SKIP + seat] = n
    st[L.S_TURN] = turn
    st[L.S_CUR] = cur
    st[L.S_PHASE] = L.D_PLAY  # seat ``cur``'s play is the pending decision
    st[L.S_ACTOR] = cur
    return st


# ---------------------------------------------------------------- reading a state


def zones(st, players: int) -> dict:
    """Every zone as codes (draw top first), via the game's own decoder."""
    return GAME.zones(np.asarray(st)[:L.ZONES_END], players)


def hand(st, seat: int) -> list[str]:
    """Seat's hand as a sorted list of codes."""
    out = []
    for t in range(L.NT):
        out += [code(t)] * int(st[L.S_HAND + seat * L.NT + t])
    return sorted(out)


def hand_size(st, seat: int) -> int:
    return int(st[L.S_HSIZE + seat])


def tower(st, seat: int) -> list[tuple]:
    """Seat's tower, bottom first, as (code0, value0, code1, value1, dogs)."""
    out = []
    for f in range(int(st[L.S_NFL + seat])):
        o = L.S_TOWER + (seat * L.MAXF + f) * L.FW
        out.append((code(st[o + L.FL_T0]), int(st[o + L.FL_V0]), code(st[o + L.FL_T1]),
                    int(st[o + L.FL_V1]), int(st[o + L.FL_DOGS])))
    return out


def draw_pile(st) -> list[str]:
    """Draw pile as codes, top first."""
    n = int(st[L.S_DRAW_N])
    return [code(t) for t in st[L.S_DRAW:L.S_DRAW + n][::-1]]


def discard_pile(st) -> list[str]:
    """Discard pile as codes, oldest first."""
    n = int(st[L.S_DISC_N])
    return [code(t) for t in st[L.S_DISC:L.S_DISC + n]]


def skips(st, players: int) -> list[int]:
    return [int(st[L.S_SKIP + s]) for s in range(players)]


def card_census(st, players: int) -> np.ndarray:
    """Copies of every card type (index = type) across draw pile, discard pile, hands and
    towers; a dog lying beside a floor counts as a DOG."""
    st = np.asarray(st)
    c = np.zeros(L.NT, np.int64)
    nd, nx = int(st[L.S_DRAW_N]), int(st[L.S_DISC_N])
    c += np.bincount(st[L.S_DRAW:L.S_DRAW + nd], minlength=L.NT)[:L.NT]
    c += np.bincount(st[L.S_DISC:L.S_DISC + nx], minlength=L.NT)[:L.NT]
    for s in range(players):
        c += st[L.S_HAND + s * L.NT:L.S_HAND + (s + 1) * L.NT]
        for f in range(int(st[L.S_NFL + s])):
            o = L.S_TOWER + (s * L.MAXF + f) * L.FW
            c[st[o + L.FL_T0]] += 1
            c[st[o + L.FL_T1]] += 1
            c[L.DOG] += st[o + L.FL_DOGS]
    return c


def census_codes(counts) -> dict[str, int]:
    """A census array as {code: count} without the zeros (for readable failures)."""
    return {code(t): int(n) for t, n in enumerate(counts) if n}


def census_of_zones(z: dict) -> Counter:
    """Census of a decoded (JSON) zone snapshot, by code."""
    c = Counter(z["draw"]) + Counter(z["discard"])
    for h in z["hands"]:
        c += Counter(h)
    for tw in z["towers"]:
        for floor in tw:
            c += Counter(floor["cards"])
            c["DOG"] += floor.get("dogs", 1 if floor["dog"] else 0)
    return c


def deck_census(rules: dict) -> np.ndarray:
    """The deck's composition for a resolved rules dict, indexed by card type."""
    c = np.zeros(L.NT, np.int64)
    names = ("jokers", "dogs", "bones", "hammers", "balls", "shakes", "trucks", "thieves",
             "super_thieves")
    for t, name in enumerate(names):
        c[t] = rules[name]
    for v in range(1, rules["floor_max"] + 1):
        c[L.F0 + v] = rules["floor_copies"]
    return c


def census_many(snaps: np.ndarray, players: int) -> np.ndarray:
    """``card_census`` of every row of a 2-D array of zone snapshots, vectorized: (n, NT)."""
    snaps = np.asarray(snaps)
    n = snaps.shape[0]
    out = np.zeros((n, L.NT), np.int64)
    if n == 0:
        return out
    rows = np.arange(n)[:, None]
    for base, cnt in ((L.S_DRAW, snaps[:, L.S_DRAW_N]), (L.S_DISC, snaps[:, L.S_DISC_N])):
        pile = snaps[:, base:base + L.DECK_MAX]
        mask = np.arange(L.DECK_MAX)[None, :] < cnt[:, None]
        flat = (rows * L.NT + pile)[mask]
        out += np.bincount(flat, minlength=n * L.NT).reshape(n, L.NT)
    hands = snaps[:, L.S_HAND:L.S_HAND + L.MAXP * L.NT].reshape(n, L.MAXP, L.NT)
    out += hands[:, :players].sum(axis=1)
    tw = snaps[:, L.S_TOWER:L.S_TOWER + L.MAXP * L.MAXF * L.FW].reshape(n, L.MAXP, L.MAXF, L.FW)
    nfl = snaps[:, L.S_NFL:L.S_NFL + L.MAXP]
    live = np.arange(L.MAXF)[None, None, :] < nfl[:, :, None]          # (n, MAXP, MAXF)
    live[:, players:] = False
    r3 = np.broadcast_to(rows[:, :, None], live.shape)
    for k in (L.FL_T0, L.FL_T1):
        flat = (r3 * L.NT + tw[..., k])[live]
        out += np.bincount(flat, minlength=n * L.NT).reshape(n, L.NT)
    out[:, L.DOG] += np.where(live, tw[..., L.FL_DOGS], 0).sum(axis=(1, 2))
    return out


def live_floors(snaps: np.ndarray, players: int):
    """(types0, values0, types1, values1, dogs) of every floor present in any snapshot."""
    snaps = np.asarray(snaps)
    n = snaps.shape[0]
    tw = snaps[:, L.S_TOWER:L.S_TOWER + L.MAXP * L.MAXF * L.FW].reshape(n, L.MAXP, L.MAXF, L.FW)
    nfl = snaps[:, L.S_NFL:L.S_NFL + L.MAXP]
    live = np.arange(L.MAXF)[None, None, :] < nfl[:, :, None]
    live[:, players:] = False
    f = tw[live]
    return f[:, L.FL_T0], f[:, L.FL_V0], f[:, L.FL_T1], f[:, L.FL_V1], f[:, L.FL_DOGS]
