"""Skyscraper strategies.

Each strategy is one compiled function ``(st, me, p) -> (kind, a, b, c)``
called repeatedly during a seat's play step until it returns ``A_STOP``; ``p`` is the
seat's parameter row, read by the names in its ``Strategy`` entry below.  The kernel
checks every action for legality, so a bug here is an error, never a silent cheat.
To add one: copy a neighbour (its ``Strategy`` entry, parameters read by name through
``P_<NAME>``) and register it at the bottom (``choose``, the dispatch, is written from
the registry: ``sim/bind.py``).
"""

from cardlab.sim.jit import helper

from cardlab.sim.rng import seat_below
from cardlab.sim.skyscraper.layout import (
    A_BALL, A_BONE, A_BUILD, A_DISCARD, A_DOG, A_HAM, A_SHAKE, A_STEAL, A_STOP, A_SUPER,
    A_THIEF, A_TRUCK, BALL, BONE, DOG, F0, HAM, J, R_FLOOR_MAX, R_FLOOR_SUM, R_FLOORS_TO_WIN,
    R_PLAYERS, R_SOLO_DISCARD, S_ACTS, S_HAND, S_HSIZE, S_NFL, S_TOWER, SHAKE, SUPER, THIEF,
    TRUCK, FL_DOGS, FL_V0, FW, MAXF, NT,
)
from cardlab.sim.skyscraper.moves import floors, hand_size, held, legal_actions, top_dogs, top_value
from cardlab.sim.skyscraper import layout as L
from cardlab.strategies.base import Param, Strategy, ids, register

STOP = (A_STOP, 0, 0, 0)

# ---------------------------------------------------------------- shared reading helpers


@helper("int64(ST, int64)")
def rival(st, me):
    """The opponent with the most floors; ties go to the nearest after me in turn order."""
    P = st[R_PLAYERS]
    best = -1
    bf = -1
    for d in range(1, P):
        o = (me + d) % P
        if floors(st, o) > bf:
            best = o
            bf = floors(st, o)
    return best


@helper("ACT(ST, int64)")
def pair_build(st, me):
    """The first natural floor [a, sum-a] for a = 1, 2, ... (no joker)."""
    fsum = st[R_FLOOR_SUM]
    fmax = st[R_FLOOR_MAX]
    for a in range(1, fsum // 2 + 1):
        b = fsum - a
        if b > fmax:
            continue
        need_b = 2 if a == b else 1
        if held(st, me, F0 + a) > 0 and held(st, me, F0 + b) >= need_b:
            return (A_BUILD, F0 + a, F0 + b, 0)
    return STOP


@helper("ACT(ST, int64)")
def joker_build(st, me):
    """A joker beside the highest floor card it can complete: [v, J valued sum-v]."""
    if held(st, me, J) == 0:
        return STOP
    fsum = st[R_FLOOR_SUM]
    fmax = st[R_FLOOR_MAX]
    for v in range(fmax, 0, -1):
        if held(st, me, F0 + v) > 0 and 1 <= fsum - v <= fmax:
            return (A_BUILD, F0 + v, J, fsum - v)
    return STOP


@helper("ACT(ST, int64, int64)")
def steal_from(st, me, o):
    """Steal card k (k = 0, then 1) of o's unguarded top floor with a matching floor card."""
    if o < 0 or floors(st, o) == 0 or top_dogs(st, o) > 0:
        return STOP
    fsum = st[R_FLOOR_SUM]
    fmax = st[R_FLOOR_MAX]
    for k in range(2):
        need = fsum - top_value(st, o, k)
        if 1 <= need <= fmax and held(st, me, F0 + need) > 0:
            return (A_STEAL, o, k, F0 + need)
    return STOP


@helper("ACT(ST, int64)")
def solo_discard(st, me):
    """Alone, an attack or skip card is dead weight: discard one (knob permitting)."""
    if st[R_SOLO_DISCARD] == 0:
        return STOP
    for t in range(BONE, SUPER + 1):
        if held(st, me, t) > 0:
            return (A_DISCARD, t, 0, 0)
    return STOP


@helper("ACT(ST, int64)")
def guard_top(st, me):
    if held(st, me, DOG) > 0 and floors(st, me) > 0 and top_dogs(st, me) == 0:
        return (A_DOG, 0, 0, 0)
    return STOP


@helper("ACT(ST, int64, int64)")
def knock_down(st, me, o):
    """Against o's top floor: a bone for its dog, the hammer if unguarded, else the ball."""
    if top_dogs(st, o) > 0 and held(st, me, BONE) > 0:
        return (A_BONE, o, 0, 0)
    if top_dogs(st, o) == 0 and held(st, me, HAM) > 0:
        return (A_HAM, o, 0, 0)
    if held(st, me, BALL) > 0:
        return (A_BALL, o, 0, 0)
    return STOP


@helper("ACT(ST, int64, int64)")
def rob(st, me, o):
    """A thief (preferred) or the super thief, if o has cards to take."""
    if hand_size(st, o) > 0:
        if held(st, me, THIEF) > 0:
            return (A_THIEF, o, 0, 0)
        if held(st, me, SUPER) > 0:
            return (A_SUPER, 0, 0, 0)
    return STOP


# ---------------------------------------------------------------- reference


REFERENCE = Strategy("reference", "The exact reference strategy of shared/reference/skyscraper.md "
                     "(alone: also discards dead attack/skip cards).")


@helper("ACT(ST, int64, PAR)")
def reference(st, me, p):
    """../shared/reference/skyscraper.md, to the letter.  Written flat, reading the state
    directly: it is the benchmark strategy, asked about three times a turn."""
    P = st[R_PLAYERS]
    fsum = st[R_FLOOR_SUM]
    fmax = st[R_FLOOR_MAX]
    hand = S_HAND + me * NT  # st[hand + t]: my cards of type t
    # 1. Build: [a, 9-a] for a = 1, 2, 3, 4 (first match); else a joker beside my highest floor card
    for a in range(1, fsum // 2 + 1):
        b = fsum - a
        if b <= fmax and st[hand + F0 + a] > 0 and st[hand + F0 + b] >= (2 if a == b else 1):
            return (A_BUILD, F0 + a, F0 + b, 0)
    if st[hand + J] > 0:
        for v in range(fmax, 0, -1):
            if st[hand + F0 + v] > 0 and 1 <= fsum - v <= fmax:
                return (A_BUILD, F0 + v, J, fsum - v)
    my_floors = st[S_NFL + me]
    if P == 1:
        # alone only step 5 has a target (my own floor); then cardlab's solo addition
        if st[hand + DOG] > 0 and my_floors > 0 and \
                st[S_TOWER + (me * MAXF + my_floors - 1) * FW + FL_DOGS] == 0:
            return (A_DOG, 0, 0, 0)
        return solo_discard(st, me)
    # "the opponent": the most floors, ties to the nearest after me in turn order
    o = -1
    o_floors = -1
    for d in range(1, P):
        s = (me + d) % P
        if st[S_NFL + s] > o_floors:
            o = s
            o_floors = st[S_NFL + s]
    o_top = S_TOWER + (o * MAXF + o_floors - 1) * FW  # meaningful only when o_floors > 0
    o_dogs = st[o_top + FL_DOGS] if o_floors > 0 else 0
    # 2. Steal card k (k = 0, then 1) with a floor card completing it to 9
    if o_floors > 0 and o_dogs == 0:
        for k in range(2):
            need = fsum - st[o_top + FL_V0 + k]
            if 1 <= need <= fmax and st[hand + F0 + need] > 0:
                return (A_STEAL, o, k, F0 + need)
    leads = o_floors >= my_floors
    # 3. Bone the opponent's dog
    if st[hand + BONE] > 0 and o_dogs > 0 and leads:
        return (A_BONE, o, 0, 0)
    # 4. Demolish: the hammer on an unguarded floor, else the ball
    if o_floors > 0 and leads:
        if o_dogs == 0 and st[hand + HAM] > 0:
            return (A_HAM, o, 0, 0)
        if st[hand + BALL] > 0:
            return (A_BALL, o, 0, 0)
    # 5. Dog beside my unguarded top floor
    if st[hand + DOG] > 0 and my_floors > 0 and \
            st[S_TOWER + (me * MAXF + my_floors - 1) * FW + FL_DOGS] == 0:
        return (A_DOG, 0, 0, 0)
    # 6. Thief (preferred) or super thief on a non-empty hand
    if st[S_HSIZE + o] > 0:
        if st[hand + THIEF] > 0:
            return (A_THIEF, o, 0, 0)
        if st[hand + SUPER] > 0:
            return (A_SUPER, 0, 0, 0)
    # 7. Skip an opponent with 3+ floors: milkshake (preferred) or truck
    if o_floors >= 3:
        if st[hand + SHAKE] > 0:
            return (A_SHAKE, 0, 0, 0)
        if st[hand + TRUCK] > 0:
            return (A_TRUCK, 0, 0, 0)
    return STOP


# ---------------------------------------------------------------- random


RANDOM = Strategy("random", "Uniform over the legal actions at each decision, stopping included "
                  "(a natural pair counted once, whichever card lies first).")


@helper("ACT(ST, int64, PAR)")
def random(st, me, p):
    """Uniform over the legal actions, stopping included (a natural pair counted once,
    whichever card lies first)."""
    n = legal_actions(st, me, False)
    i = seat_below(st, me, n + 1)
    if i == n:
        return STOP
    o = S_ACTS + 4 * i
    return (st[o], st[o + 1], st[o + 2], st[o + 3])


# ---------------------------------------------------------------- greedy


GREEDY = Strategy("greedy", "Builds whenever it can (a natural pair, then a joker beside its "
                  "highest floor card), otherwise places a dog on its unguarded top floor (guard=1) "
                  "and robs the fullest hand with a thief or the super thief; never steals, "
                  "demolishes or skips (build-only) unless steal=1.", (
                      Param("steal", 0, 0, 1, "0: never steals a floor card (build-only); 1: when it "
                            "has no natural pair, steals from an unguarded top floor (the tallest "
                            "tower first, then in turn order) before building with a joker", True),
                      Param("thief_min_cards", 1, 1, 8, "play a thief or the super thief only on a "
                            "fullest opponent hand of at least this many cards", True),
                      Param("guard", 1, 0, 1, "1: place a dog on its own unguarded top floor when it "
                            "cannot build; 0: never plays dogs", True),
                  ))
P_GREEDY = GREEDY.at


@helper("ACT(ST, int64, PAR)")
def greedy(st, me, p):
    """Builds whenever it can (a natural pair, then a joker); otherwise guards its top
    floor (guard) and robs the fullest hand with thieves.  Never attacks a tower unless
    steal > 0, which adds stealing a floor card between the pair and the joker."""
    steal, thief_min_cards, guard = p[P_GREEDY.steal], p[P_GREEDY.thief_min_cards], p[P_GREEDY.guard]
    act = pair_build(st, me)
    if act[0] != A_STOP:
        return act
    if steal > 0 and st[R_PLAYERS] > 1:
        # stealing is building with someone else's card: take it from the tallest tower first
        act = steal_from(st, me, rival(st, me))
        if act[0] != A_STOP:
            return act
        P = st[R_PLAYERS]
        for d in range(1, P):
            act = steal_from(st, me, (me + d) % P)
            if act[0] != A_STOP:
                return act
    act = joker_build(st, me)
    if act[0] != A_STOP:
        return act
    if guard > 0:
        act = guard_top(st, me)
        if act[0] != A_STOP:
            return act
    if st[R_PLAYERS] == 1:
        return solo_discard(st, me)
    # more cards, more pairs: rob the fullest hand
    P = st[R_PLAYERS]
    fullest, most = -1, -1
    for d in range(1, P):
        o = (me + d) % P
        if hand_size(st, o) > most:
            fullest, most = o, hand_size(st, o)
    if most >= max(thief_min_cards, 1):
        return rob(st, me, fullest)
    return STOP


# ---------------------------------------------------------------- aggressive


@helper("ACT(ST, int64, int64, float64, float64)")
def _attack(st, me, o, lead_margin, skip_floors):
    """Every way to hurt the leader o, in this order: steal from its unguarded top floor;
    when o has at least my floors + lead_margin, bone its dog / hammer / ball
    (``knock_down``); a thief on it (else the super thief, on every opponent); when o has
    at least skip_floors floors, a milkshake if o is the next seat, else the truck (every
    opponent), else a milkshake anyway (it skips the next seat, whoever that is)."""
    act = steal_from(st, me, o)
    if act[0] != A_STOP:
        return act
    if floors(st, o) >= floors(st, me) + lead_margin and floors(st, o) > 0:
        act = knock_down(st, me, o)
        if act[0] != A_STOP:
            return act
    act = rob(st, me, o)
    if act[0] != A_STOP:
        return act
    if floors(st, o) >= skip_floors:
        P = st[R_PLAYERS]
        # a milkshake only hits the next seat; the truck hits the leader wherever it sits
        if held(st, me, SHAKE) > 0 and (me + 1) % P == o:
            return (A_SHAKE, 0, 0, 0)
        if held(st, me, TRUCK) > 0:
            return (A_TRUCK, 0, 0, 0)
        if held(st, me, SHAKE) > 0:
            return (A_SHAKE, 0, 0, 0)
    return STOP


AGGRESSIVE = Strategy("aggressive", "Attacks the leader, the opponent with the most floors (ties: the "
                      "nearest after it in turn order): steals a floor card from its unguarded top floor; when "
                      "it has at least my floors + lead_margin, bones the dog on its top floor, else hammers "
                      "that floor if unguarded, else throws the ball; robs it with a thief (else the super "
                      "thief, which robs every opponent); once it has skip_floors floors, a milkshake if the "
                      "leader is the next seat, else the donut truck (skips every opponent), else a milkshake "
                      "anyway, which with 3-4 players skips the next seat even when that seat is not the "
                      "leader. attack_first=1 attacks before building (a natural pair, then a joker), 0 builds "
                      "first; last, a dog on its own unguarded top floor. Alone: builds, else discards dead "
                      "cards (solo_discard_specials).", (
                          Param("lead_margin", 0, -3, 3, "demolish only when the leader has at least my floors + this", True),
                          Param("skip_floors", 1, 0, 12, "play skip cards when the leader has at least this many floors", True),
                          Param("attack_first", 1, 0, 1, "1: attack before building; 0: build first", True),
                      ))
P_AGGRESSIVE = AGGRESSIVE.at


@helper("ACT(ST, int64, PAR)")
def aggressive(st, me, p):
    """Attacks the leader (``rival``: the opponent with the most floors) before building
    (attack_first=1) or after (0): ``_attack`` steals from it, demolishes when it leads by
    lead_margin, robs it, and from skip_floors plays a skip (a milkshake, which hits the
    next seat even when that is not the leader, only after the truck when the leader is
    not next); then a dog on its own unguarded top floor."""
    lead_margin = p[P_AGGRESSIVE.lead_margin]
    skip_floors = p[P_AGGRESSIVE.skip_floors]
    attack_first = p[P_AGGRESSIVE.attack_first]
    if st[R_PLAYERS] == 1:
        act = pair_build(st, me)
        if act[0] == A_STOP:
            act = joker_build(st, me)
        return act if act[0] != A_STOP else solo_discard(st, me)
    o = rival(st, me)
    if attack_first > 0:
        act = _attack(st, me, o, lead_margin, skip_floors)
        if act[0] != A_STOP:
            return act
    act = pair_build(st, me)
    if act[0] == A_STOP:
        act = joker_build(st, me)
    if act[0] != A_STOP:
        return act
    if attack_first <= 0:
        act = _attack(st, me, o, lead_margin, skip_floors)
        if act[0] != A_STOP:
            return act
    return guard_top(st, me)


# ---------------------------------------------------------------- defensive


DEFENSIVE = Strategy("defensive", "Builds a natural pair; without one, steals a floor card from the "
                     "unguarded top floor of the opponent with the most floors (whatever its height) before "
                     "building with a joker; then guards its own top floor with a dog. Keeps bones, hammers, "
                     "the ball and skips for a rival within threat floors of winning: then bones, hammers "
                     "or balls that rival's top floor, else plays a milkshake (which skips the next seat, "
                     "with 3-4 players not necessarily the rival), else the donut truck; robs the rival "
                     "with a thief (else the super thief) only while its own hand is smaller than "
                     "keep_hand. Alone: builds, guards, else discards dead cards (solo_discard_specials).", (
                         Param("threat", 2, 0, 12, "a rival with at least floors_to_win - threat floors is a threat", True),
                         Param("keep_hand", 4, 0, 12, "play thieves only while my hand is smaller than this", True),
                     ))
P_DEFENSIVE = DEFENSIVE.at


@helper("ACT(ST, int64, PAR)")
def defensive(st, me, p):
    """A natural pair; else a steal from the rival's unguarded top floor (any rival, not
    only a threat); else a joker; else a dog on its own top floor; keeps bones, the
    hammer, the ball and skips for a rival within ``threat`` floors of winning (the
    milkshake hits the next seat, whoever that is); thieves only to refill a thin hand."""
    threat, keep_hand = p[P_DEFENSIVE.threat], p[P_DEFENSIVE.keep_hand]
    act = pair_build(st, me)
    if act[0] == A_STOP and st[R_PLAYERS] > 1:
        act = steal_from(st, me, rival(st, me))
    if act[0] == A_STOP:
        act = joker_build(st, me)
    if act[0] != A_STOP:
        return act
    act = guard_top(st, me)
    if act[0] != A_STOP:
        return act
    if st[R_PLAYERS] == 1:
        return solo_discard(st, me)
    o = rival(st, me)
    if floors(st, o) > 0 and floors(st, o) >= st[R_FLOORS_TO_WIN] - threat:
        act = knock_down(st, me, o)
        if act[0] != A_STOP:
            return act
        if held(st, me, SHAKE) > 0:
            return (A_SHAKE, 0, 0, 0)
        if held(st, me, TRUCK) > 0:
            return (A_TRUCK, 0, 0, 0)
    if hand_size(st, me) < keep_hand:
        return rob(st, me, o)
    return STOP


# ---------------------------------------------------------------- registry

STRATEGIES = register(L.S, (REFERENCE, {"play": reference}), (RANDOM, {"play": random}),
                      (GREEDY, {"play": greedy}), (AGGRESSIVE, {"play": aggressive}),
                      (DEFENSIVE, {"play": defensive}))
ID = ids(STRATEGIES)
