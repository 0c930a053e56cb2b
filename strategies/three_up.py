"""3UP 3DOWN strategies.

The game asks a seat's strategy three kinds of decision (``st[S_PHASE]``, see
``sim/three_up/layout.py``), each answered by a compiled function taking ``(st, me, p)``
(``p``: the seat's parameter row, read by the names in its ``Strategy`` entry below):

- ``up``      -> a mask of 3 of the 6 dealt cards (hand positions 0..5) to lay face up;
- ``draw``    -> 1 to draw back up to 3 before an extra discard owed by a Clear +1/+2
  (asked only when the draw pile has cards and the hand fewer than 3), else 0;
- ``discard`` -> (A_PLAY, type, count, 0) from the current source (the hand; the up
  cards once hand and draw pile are empty) or (A_PICKUP, 0, 0, 0); for an extra discard
  of a Clear +1/+2 chain from the hand with ``extra_discards=hand_optional`` also
  (A_STOP, 0, 0, 0), ending the chain (``moves.may_stop``).  Down cards are played blind
  by the kernel: no question.

``choose``, written from the registry at the bottom (``sim/bind.py``), dispatches on the
pending decision, then on the strategy id.  The kernel checks every answer for legality
(with ``must_play_if_able`` a pick-up is legal only when no discard is), so a bug here is
an error, never a silent cheat.  To add one: its ``Strategy`` entry (parameters read by
name through ``P_<NAME>``) and a function per decision, registered at the bottom.
"""
from cardlab.sim.jit import helper
from cardlab.sim.rng import seat_below
from cardlab.sim.three_up import layout as L
from cardlab.sim.three_up.layout import (
    A_PICKUP, A_PLAY, A_STOP, NDEAL, NUP, R_CLEAR_RUN, R_EQUAL, R_MAXN, R_MUST, R_TYPE, S_DEALT,
    S_PILE_N, S_RUN, S_TOP, T_CLR, T_CLR1, T_CLR2,
)
from cardlab.sim.three_up.moves import first_legal, lowest_legal_number, may_stop, src_base, src_mask
from cardlab.strategies.base import Param, Strategy, ids, register

PICKUP = (A_PICKUP, 0, 0, 0)
STOP = (A_STOP, 0, 0, 0)


@helper("ACT(ST, int64)")
def stop_or_pickup(st, me):
    """Nothing to play: end the chain when the seat may (an optional extra discard from
    the hand, ``may_stop``), else pick up the pile."""
    if may_stop(st, me):
        return STOP
    return PICKUP

# ---------------------------------------------------------------- shared measures


@helper("int64(ST, int64, int64)")
def highest_up(st, me, clears_last):
    """The 3 highest dealt cards, as positions in deal order (equal faces: the first
    dealt). The reference order by code: CLR2 > CLR1 > CLR > 10 > ... > 1; with
    ``clears_last`` every number ranks above the Clears, and a weaker Clear above a
    stronger one (CLR > CLR1 > CLR2), so Clears go up only when needed."""
    o = S_DEALT + me * NDEAL
    mask = 0
    for _ in range(NUP):
        best = -1
        bi = 0
        for i in range(NDEAL):
            t = st[R_TYPE + st[o + i]]
            rank = t if clears_last == 0 else t + 3 if t < T_CLR else T_CLR2 - t
            if not (mask >> i) & 1 and rank > best:
                best = rank
                bi = i
        mask |= 1 << bi
    return mask


@helper("int64(ST, int64, int64)")
def lowest_number(st, base, lo):
    """The lowest number type >= lo with a card in the counts at base, or -1."""
    for t in range(lo, st[R_MAXN]):
        if st[base + t] > 0:
            return t
    return -1


@helper("int64(ST, int64, int64)")
def pick_clear(st, base, strong_first):
    """A Clear type held in the counts at base: the strongest (Clear +2, +1, Clear) or,
    with strong_first=0, the weakest first; -1 if none."""
    if strong_first != 0:
        if st[base + T_CLR2] > 0:
            return T_CLR2
        if st[base + T_CLR1] > 0:
            return T_CLR1
        if st[base + T_CLR] > 0:
            return T_CLR
        return -1
    if st[base + T_CLR] > 0:
        return T_CLR
    if st[base + T_CLR1] > 0:
        return T_CLR1
    if st[base + T_CLR2] > 0:
        return T_CLR2
    return -1


# ---------------------------------------------------------------- reference


REFERENCE = Strategy("reference", "The exact reference strategy of shared/reference/three_up.md: "
                     "the 3 highest dealt cards face up; always takes the optional draw; the lowest "
                     "legal number with all its copies, else Clear +2 > Clear +1 > Clear, else picks up "
                     "(in a Clear +1/+2 chain from the hand with extra_discards=hand_optional it ends the "
                     "chain instead of picking up).")


@helper("int64(ST, int64, PAR)")
def reference_up(st, me, p):
    """The 3 highest codes dealt face up (CLR2 > CLR1 > CLR > 10 > ... > 1)."""
    return highest_up(st, me, 0)


@helper("int64(ST, int64, PAR)")
def always_draw(st, me, p):
    """The optional draw is always taken."""
    return 1


@helper("ACT(ST, int64, PAR)", paste=True)
def reference_discard(st, me, p):
    """(a) the lowest legal number, all copies held in the source; (b) else one Clear:
    Clear +2, else Clear +1, else Clear; (c) else pick up the pile, or end the chain
    when it may (an optional extra discard from the hand)."""
    m = src_mask(st, me)  # the types held in the source: no scan over the types
    t = lowest_legal_number(st, m, first_legal(st))
    if t >= 0:
        return (A_PLAY, t, st[src_base(st, me) + t], 0)
    if (m >> T_CLR2) & 1:
        return (A_PLAY, T_CLR2, 1, 0)
    if (m >> T_CLR1) & 1:
        return (A_PLAY, T_CLR1, 1, 0)
    if (m >> T_CLR) & 1:
        return (A_PLAY, T_CLR, 1, 0)
    return stop_or_pickup(st, me)


# ---------------------------------------------------------------- random


RANDOM = Strategy("random", "Uniform over the legal choices: 3 of the 6 dealt cards face up, "
                  "the optional draw yes/no, any legal discard (a number with 1..all copies held, "
                  "any Clear held; the pick-up too when must_play_if_able=false and there is a pile; "
                  "ending the chain too when an extra discard from the hand is optional, and then the "
                  "pick-up also when no discard is legal).")


@helper("int64(ST, int64, PAR)")
def random_up(st, me, p):
    """Three of the six dealt cards, uniformly."""
    mask = 0
    k = 0
    while k < NUP:
        i = seat_below(st, me, NDEAL)
        if not (mask >> i) & 1:
            mask |= 1 << i
            k += 1
    return mask


@helper("int64(ST, int64, PAR)")
def random_draw(st, me, p):
    return seat_below(st, me, 2)


@helper("ACT(ST, int64, PAR)")
def random_discard(st, me, p):
    """Uniform over every legal discard (each legal number with 1..all copies held, each
    Clear type held) and, when must_play_if_able=false and there is a pile, the pick-up.
    When the seat may end its chain (``may_stop``) that is one more choice, and the
    pick-up is one too when no discard is legal (the two legal answers then); with no
    choice at all it picks up (without a random draw)."""
    base = src_base(st, me)
    lo = first_legal(st)
    hi = st[R_MAXN]
    n = 0
    for t in range(lo, hi):
        n += st[base + t]
    for t in range(T_CLR, T_CLR2 + 1):
        if st[base + t] > 0:
            n += 1
    stop = may_stop(st, me)
    pick = st[R_MUST] == 0 and st[S_PILE_N] > 0
    if stop:
        if n == 0 and not pick:
            n += 1  # the pick-up (no discard is legal) beside the stop
        n += 1
    if pick:
        n += 1
    if n == 0:
        return PICKUP
    r = seat_below(st, me, n)
    for t in range(lo, hi):
        c = st[base + t]
        if r < c:
            return (A_PLAY, t, r + 1, 0)
        r -= c
    for t in range(T_CLR, T_CLR2 + 1):
        if st[base + t] > 0:
            if r == 0:
                return (A_PLAY, t, 1, 0)
            r -= 1
    if stop and r == 0:
        return STOP
    return PICKUP


# ---------------------------------------------------------------- lowest


LOWEST = Strategy("lowest", "Keeps its Clears in hand as rescues: lays face up the 3 highest "
                  "number cards dealt (a Clear goes up only when fewer than 3 numbers were dealt, the "
                  "weakest first); discards the lowest legal number (all copies, or one card with "
                  "all_copies=0) and a Clear only when no number is legal, the weakest first (the "
                  "strongest with strong_first=1; with must_play_if_able=false it picks up a pile of at "
                  "most pickup_pile_max cards instead); in a Clear +1/+2 chain from the hand with "
                  "extra_discards=hand_optional it ends the chain rather than spend a Clear when no number "
                  "is legal; always takes the optional draw. Differs from "
                  "reference in the up choice at every setting (reference lays up its 3 highest codes, "
                  "Clears first), in the Clear order unless strong_first=1, and in playing single "
                  "cards with all_copies=0.", (
                      Param("all_copies", 1, 0, 1, "play every copy of the number (1) or a single card (0)", True),
                      Param("strong_first", 0, 0, 1, "spend the strongest Clear first (1) or the weakest (0)", True),
                      Param("pickup_pile_max", 0, 0, 128, "with must_play_if_able=false, pick up a pile of at "
                            "most this many cards rather than spend a Clear", True),
                  ))
P_LOWEST = LOWEST.at


@helper("int64(ST, int64, PAR)")
def lowest_up(st, me, p):
    """Keeps its Clears in hand: the 3 highest number cards dealt go face up; a Clear
    goes up only when fewer than 3 numbers were dealt, the weakest first."""
    return highest_up(st, me, 1)


@helper("int64(ST, int64, PAR)")
def lowest_draw(st, me, p):
    """Always takes the optional draw (as reference)."""
    return 1


@helper("ACT(ST, int64, PAR)")
def lowest_discard(st, me, p):
    """The lowest legal number (all copies, or one with all_copies=0); with no legal
    number, the end of the chain when it may (an optional extra discard from the hand:
    its Clears stay rescues); else a Clear only when it would otherwise pick up (the
    weakest first unless strong_first); with must_play_if_able=false it picks up a pile
    of at most pickup_pile_max cards rather than spend a Clear."""
    base = src_base(st, me)
    t = lowest_number(st, base, first_legal(st))
    if t >= 0:
        return (A_PLAY, t, st[base + t] if p[P_LOWEST.all_copies] != 0 else 1, 0)
    if may_stop(st, me):
        return STOP
    pn = st[S_PILE_N]
    if st[R_MUST] == 0 and 0 < pn <= p[P_LOWEST.pickup_pile_max]:
        return PICKUP
    t = pick_clear(st, base, 1 if p[P_LOWEST.strong_first] != 0 else 0)
    if t >= 0:
        return (A_PLAY, t, 1, 0)
    return PICKUP


# ---------------------------------------------------------------- dumper


DUMPER = Strategy("dumper", "Plays the largest multiple it can: the legal number held in the most "
                  "copies, all of them; Clears (strongest first) only when no number is legal; else "
                  "picks up (ends the chain instead when an extra discard from the hand is optional); up "
                  "cards and draws like reference.", (
                      Param("ties_high", 0, 0, 1, "on equal copies play the highest number (1) or the lowest (0)", True),
                  ))
P_DUMPER = DUMPER.at


@helper("int64(ST, int64, PAR)")
def dumper_up(st, me, p):
    """Up cards like reference: the 3 highest codes dealt."""
    return highest_up(st, me, 0)


@helper("int64(ST, int64, PAR)")
def dumper_draw(st, me, p):
    """Draws like reference: always."""
    return 1


@helper("ACT(ST, int64, PAR)")
def dumper_discard(st, me, p):
    """The legal number held in the most copies, all of them (ties to the lowest number,
    or the highest with ties_high=1); else the strongest Clear; else pick up, or end the
    chain when it may (an optional extra discard from the hand)."""
    base = src_base(st, me)
    best = 0
    bt = -1
    high = p[P_DUMPER.ties_high] != 0
    for t in range(first_legal(st), st[R_MAXN]):
        c = st[base + t]
        if c > best or (high and c > 0 and c == best):
            best = c
            bt = t
    if bt >= 0:
        return (A_PLAY, bt, best, 0)
    t = pick_clear(st, base, 1)
    if t >= 0:
        return (A_PLAY, t, 1, 0)
    return stop_or_pickup(st, me)


# ---------------------------------------------------------------- clearer


CLEARER = Strategy("clearer", "Keeps the pile small: completes three-of-a-kind clears whenever it "
                   "can, spends its strongest Clear once the pile is big, else plays like reference "
                   "(ending an optional chain instead of picking up, too).", (
                       Param("clear_at", 4, 1, 128, "spend a Clear (strongest first) once the pile holds this many cards", True),
                       Param("use_runs", 1, 0, 1, "play multiples that clear the pile by equal numbers first", True),
                   ))
P_CLEARER = CLEARER.at


@helper("int64(ST, int64, PAR)")
def clearer_up(st, me, p):
    """Up cards like reference: the 3 highest codes dealt."""
    return highest_up(st, me, 0)


@helper("int64(ST, int64, PAR)")
def clearer_draw(st, me, p):
    """Draws like reference: always."""
    return 1


@helper("ACT(ST, int64, PAR)")
def clearer_discard(st, me, p):
    """Keeps the pile small: (1) with use_runs, a multiple that clears by equal numbers
    (the top number completing the run, else the lowest legal number held clear_run
    times); (2) the strongest Clear once the pile holds clear_at cards; (3) the lowest
    legal number, all copies; (4) the strongest Clear; (5) pick up, or end the chain when
    it may (an optional extra discard from the hand)."""
    base = src_base(st, me)
    lo = first_legal(st)
    need = st[R_CLEAR_RUN]
    if p[P_CLEARER.use_runs] != 0:
        top = st[S_TOP]
        if top >= 0 and st[R_EQUAL] != 0 and st[base + top] > 0 and \
                st[S_RUN] + st[base + top] >= need:
            return (A_PLAY, top, st[base + top], 0)
        for t in range(lo, st[R_MAXN]):
            if st[base + t] >= need:
                return (A_PLAY, t, st[base + t], 0)
    if st[S_PILE_N] >= p[P_CLEARER.clear_at]:
        t = pick_clear(st, base, 1)
        if t >= 0:
            return (A_PLAY, t, 1, 0)
    t = lowest_number(st, base, lo)
    if t >= 0:
        return (A_PLAY, t, st[base + t], 0)
    t = pick_clear(st, base, 1)
    if t >= 0:
        return (A_PLAY, t, 1, 0)
    return stop_or_pickup(st, me)


# ---------------------------------------------------------------- registry

STRATEGIES = register(
    L.S,
    (REFERENCE, {"up": reference_up, "draw": always_draw, "discard": reference_discard}),
    (RANDOM, {"up": random_up, "draw": random_draw, "discard": random_discard}),
    (LOWEST, {"up": lowest_up, "draw": lowest_draw, "discard": lowest_discard}),
    (DUMPER, {"up": dumper_up, "draw": dumper_draw, "discard": dumper_discard}),
    (CLEARER, {"up": clearer_up, "draw": clearer_draw, "discard": clearer_discard}),
    # mcts searches 600 worlds a decision by default: a 3UP game is long and four-handed,
    # so one decision moves a seat's win share little, and at 200 the search did not
    # beat the reference head to head (25.9% [23.3, 28.7] against 31.0% [28.2, 33.9] at
    # 600; 1,000 games rotated through the seats); a game with one mcts seat takes ~0.1 s
    search_iterations=600,
)
ID = ids(STRATEGIES)
