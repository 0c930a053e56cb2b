"""Block Tower strategies.

The kernel asks the seat to move four decisions (``sim/block_tower/layout.py``), and a
strategy answers each with a compiled function taking ``(st, me, p)`` (``p``: the seat's
parameter row, read by the names in its ``Strategy`` entry below; a strategy that answers
a decision exactly like the reference registers the reference's function for it):

- ``reshuffle`` -> 1 to use the two-action-card reshuffle, 0 not (asked, until it is
  used once in the turn, whenever the hand holds 2 or more action cards and the draw
  pile is not empty: at the turn's start, after each draw up to a block card, after the
  action cards; with ``reshuffle_at=turn_start`` only at the turn's start);
- ``action``    -> ``(kind, a, b, c)``: ``(NO_ACTION, 0, 0, 0)``, ``(ADJUST, new share in
  thousandths of the block's base share, 0, 0)``, ``(ANYWHERE, 0, 0, 0)``,
  ``(REMOVE, 0, 0, 0)`` or ``(SWAP, target, card to give, second card or -1)``, giving
  exactly ``swap_size(st, me, target)`` cards (1 or 2; 0 means no SWAP on that target);
- ``second``    -> the same, for a second action card after a SWAP: only a card just
  received in that SWAP (``st[S_RECV + me]``, the seat's own);
- ``block``     -> ``(card, style)``: the block card to play and the placement style in
  thousandths (0 careful .. 1000 sabotage).

``choose``, written from the registry at the bottom (``sim/bind.py``), dispatches on the
pending decision (``st[S_PHASE]``), then calls the seat's strategy's function by its id.
The kernel checks every answer for legality, so a bug here is an error, never a silent
cheat.  Strategies see only what a player sees: their own hand, the table (tower,
point pile, used action cards, scores), hand sizes (``S_HAND_N``); never another hand's
cards or the draw pile's order; and they write only their seat's own memory (the hazard
memo of ``my_hazard``), never the table (the honesty audit, ``sim/audit.py``, proves
both).  To add one: declare its ``Strategy`` entry next to its functions
(parameters read by name through ``P_<NAME>``) and register it at the bottom with a
function for each decision.
"""
import numpy as np

from cardlab.sim.bits import highest, lowest, popcount
from cardlab.sim.block_tower.layout import (
    ACT_MASK,
    ADJUST,
    ANYWHERE,
    NO_ACTION,
    R_ADJ_RISK,
    R_BASE,
    R_BLOCKMASK,
    R_MIN_TOWER,
    R_N1,
    R_PLAYERS,
    R_REM_RISK,
    REMOVE,
    HZW,
    S_DIR,
    S_HAND_N,
    S_HANDS,
    S_HZ,
    S_PILE,
    S_PILE_N,
    S_RECV,
    S_SCORES,
    S_U,
    SHARE_ONE,
    STYLE_ONE,
    SWAP,
)
from cardlab.sim.block_tower.moves import (
    base_share,
    difficulty,
    fall_probability,
    hazard_exp,
    pile_points,
    points,
    share_at,
    swap_gives,
    swap_keeps_block,
    swap_must_keep,
    swap_size,
    top_hazard,
    turn_hazard,
)
from cardlab.sim.jit import helper
from cardlab.sim.block_tower import layout as L
from cardlab.sim.rng import seat_below
from cardlab.strategies.base import Param, Strategy, ids, register

NONE = (NO_ACTION, 0, 0, 0)

# ---------------------------------------------------------------- shared measures


@helper("int64(ST, int64)")
def next_seat(st, me):
    """The seat after me in this round's direction."""
    P = st[R_PLAYERS]
    s = me + st[S_DIR]
    if s >= P:
        return s - P
    if s < 0:
        return s + P
    return s


@helper("float64(ST, int64, int64, int64, float64)")
def my_hazard(st, me, c, h, m):
    """``moves.hazard`` (the careful hazard H0 of my placing block c as the (h+1)-th block
    now, with factor m), its exponential kept in my seat's own memo (``S_HZ``: the key
    h | points << 8, the bits of u, the value) for its exact inputs: a strategy that
    weighs the same placement at its action and its block decision computes it once.
    The same number as ``hazard`` (the memo keeps the exact float64)."""
    if h <= 0:
        return 0.0
    f = st.view(np.float64)
    o = S_HZ + HZW * me
    t = points(st, c)
    key = h | (t << 8)
    if st[o] == key and st[o + 1] == st[S_U]:
        return f[R_BASE] * f[o + 2] * m
    e = hazard_exp(st, me, t, h)
    st[o] = key
    st[o + 1] = st[S_U]
    f[o + 2] = e
    return f[R_BASE] * e * m


@helper("boolean(ST, int64, int64)")
def holds(st, me, card):
    return (st[S_HANDS + me] >> card) & 1 == 1


@helper("boolean(ST)")
def top_sabotaged(st):
    """The top block's share is above its base share (it was placed with sabotage)."""
    h = st[S_PILE_N]
    if h < 1:
        return False
    return share_at(st, h - 1) > base_share(st, st[S_PILE + h - 1])


@helper("int64(ST, int64, int64)")
def block_by_difficulty(st, me, hardest):
    """The block card of mine with the lowest placement difficulty (hardest = 1: the
    highest), ties to the lowest code (hardest: the highest code)."""
    blocks = st[S_HANDS + me] & st[R_BLOCKMASK]
    best = -1
    bd = 0.0
    while blocks != 0:
        c = lowest(blocks)
        blocks &= blocks - 1
        d = difficulty(st, c)
        if best < 0 or (d < bd if hardest == 0 else d >= bd):
            best = c
            bd = d
    return best


@helper("int64(ST, int64)")
def hardest_of(st, blocks):
    """The hardest block of the mask (highest difficulty, ties to the highest code)."""
    best = -1
    bd = 0.0
    while blocks != 0:
        c = lowest(blocks)
        blocks &= blocks - 1
        d = difficulty(st, c)
        if best < 0 or d >= bd:
            best = c
            bd = d
    return best


@helper("UniTuple(int64, 2)(ST, int64, int64, int64)")
def give_hard_first(st, me, by_code, n):
    """The n (1 or 2) cards to give in a SWAP: block cards first (by_code = 1: the highest
    code first; 0: the highest difficulty first), then the lowest-code action cards;
    never the SWAP card itself.  With swap_last_block=keep and an empty draw pile the
    last block card of the hand is kept (an action card goes instead); when that leaves
    too few cards to give, the pair is (-1, -1): no legal SWAP.  (-1 for a card not
    given.)"""
    rest = st[S_HANDS + me] & ~(np.int64(1) << SWAP)
    bm = st[R_BLOCKMASK]
    keep = swap_must_keep(st)
    if keep and rest & bm == 0:
        return -1, -1  # (no block card to keep: never at the action decision)
    g1 = -1
    g2 = -1
    for k in range(n):
        blocks = rest & bm
        if keep and popcount(blocks) == 1:
            blocks = 0  # the last block card stays in the hand
            if rest & ACT_MASK == 0:
                return -1, -1
        if rest == 0:
            break
        if blocks != 0:
            c = highest(blocks) if by_code != 0 else hardest_of(st, blocks)
        else:
            c = lowest(rest & ACT_MASK)
        rest &= ~(np.int64(1) << c)
        if k == 0:
            g1 = c
        else:
            g2 = c
    return g1, g2


# ---------------------------------------------------------------- reference


REFERENCE = Strategy("reference", "The exact reference strategy of shared/reference/block_tower.md: "
                     "reshuffles only without a block card; ADJUSTs a sabotaged top, ANYWHERE from 6 "
                     "blocks, REMOVE from 8, SWAPs hard blocks to the next player from 4; highest "
                     "block below 3, else lowest; sabotages from 3 blocks while H0 <= 0.03.")


@helper("int64(ST, int64, PAR)")
def reference_reshuffle(st, me, p):
    """Only with no block card in hand (the kernel asks with >= 2 action cards and a
    non-empty draw pile)."""
    return 1 if st[S_HANDS + me] & st[R_BLOCKMASK] == 0 else 0


@helper("ACT(ST, int64, int64)")
def reference_pick(st, me, allowed):
    """Steps 1.1-1.3 of the reference among the action cards in ``allowed``."""
    h = st[S_PILE_N]
    if (allowed >> ADJUST) & 1 and h >= 2 and top_sabotaged(st):
        return (ADJUST, 0, 0, 0)
    if (allowed >> ANYWHERE) & 1 and h >= 6:
        return (ANYWHERE, 0, 0, 0)
    if (allowed >> REMOVE) & 1 and h >= 8:
        return (REMOVE, 0, 0, 0)
    return NONE


@helper("ACT(ST, int64, PAR)")
def reference_action(st, me, p):
    """1.1 ADJUST a sabotaged top (h >= 2, new share 0); 1.2 ANYWHERE at h >= 6;
    1.3 REMOVE at h >= 8; 1.4 SWAP with the next player at h >= 4 holding no 1-point
    block, another card, and the next player's hand not empty: give the highest-code
    blocks first, then the lowest-code action cards (as many as the SWAP gives; with
    swap_last_block=keep and an empty draw pile never the last block card: an action
    card instead, else no SWAP)."""
    hand = st[S_HANDS + me]
    act = reference_pick(st, me, hand & ACT_MASK)
    if act[0] != NO_ACTION:
        return act
    if (hand >> SWAP) & 1 and st[S_PILE_N] >= 4:
        one_pt = hand & st[R_BLOCKMASK] & ((np.int64(1) << st[R_N1]) - 1)
        nxt = next_seat(st, me)
        if one_pt == 0 and popcount(hand) >= 2 and st[S_HAND_N + nxt] != 0:
            g1, g2 = give_hard_first(st, me, 1, swap_size(st, me, nxt))
            if g1 >= 0:  # (-1: swap_last_block=keep and only the last block card to give)
                return (SWAP, nxt, g1, g2)
    return NONE


@helper("ACT(ST, int64, PAR)")
def reference_second(st, me, p):
    """Among the action cards just received, the first of 1.1-1.3 that applies."""
    return reference_pick(st, me, st[S_RECV + me] & st[S_HANDS + me] & ACT_MASK)


@helper("UniTuple(int64, 2)(ST, int64, PAR)")
def reference_block(st, me, p):
    """h < 3: the highest-code block, else the lowest-code one; sabotage (x = 1) iff
    h >= 3 and the careful hazard H0 (with m) <= 0.03."""
    blocks = st[S_HANDS + me] & st[R_BLOCKMASK]
    h = st[S_PILE_N]
    c = highest(blocks) if h < 3 else lowest(blocks)
    x = 0
    if h >= 3 and my_hazard(st, me, c, h, turn_hazard(st, me)) <= 0.03:
        x = STYLE_ONE
    return c, x


# ---------------------------------------------------------------- random


RANDOM = Strategy("random", "Uniform over the legal choices at each decision: reshuffle or not, "
                  "no action or any legal action card (uniform share, target and cards), any block "
                  "card, a uniform placement style.")


@helper("int64(ST, int64, PAR)")
def random_reshuffle(st, me, p):
    """Yes or no, one uniform draw."""
    return seat_below(st, me, 2)


@helper("int64(ST, int64, int64)")
def random_card(st, me, m):
    """A uniformly random card of the (non-empty) mask m, from seat me's stream."""
    r = seat_below(st, me, popcount(m))
    for _ in range(r):
        m &= m - 1
    return lowest(m)


@helper("ACT(ST, int64, int64)")
def random_pick(st, me, cards):
    """Uniform over 'no action' and each legal action card in ``cards``, with uniform
    arguments (ADJUST's share in 0..2000 thousandths; SWAP's target among the seats it
    can be played on, and its cards uniform over the legal gives)."""
    h = st[S_PILE_N]
    hand = st[S_HANDS + me]
    ok = np.int64(0)
    if (cards >> ADJUST) & 1 and h >= 1:
        ok |= np.int64(1) << ADJUST
    if (cards >> ANYWHERE) & 1:
        ok |= np.int64(1) << ANYWHERE
    if (cards >> REMOVE) & 1 and h >= 1:
        ok |= np.int64(1) << REMOVE
    rest = hand & ~(np.int64(1) << SWAP)
    P = st[R_PLAYERS]
    targets = np.int64(0)
    if (cards >> SWAP) & 1:
        for t in range(P):
            if t != me and swap_gives(st, me, t) > 0:
                targets |= np.int64(1) << t
    if targets != 0:
        ok |= np.int64(1) << SWAP
    r = seat_below(st, me, popcount(ok) + 1)
    if r == 0:
        return NONE
    m = ok
    for _ in range(r - 1):
        m &= m - 1
    a = lowest(m)
    if a == ADJUST:
        return (ADJUST, seat_below(st, me, 2 * SHARE_ONE + 1), 0, 0)
    if a == SWAP:
        t = random_card(st, me, targets)
        k = swap_size(st, me, t)
        while True:  # uniform over the legal gives: drawn again while it is not one
            g1 = random_card(st, me, rest)
            give = np.int64(1) << g1
            g2 = -1
            if k == 2:
                g2 = random_card(st, me, rest & ~give)
                give |= np.int64(1) << g2
            if swap_keeps_block(st, me, give):
                return (SWAP, t, g1, g2)
    return (a, 0, 0, 0)


@helper("ACT(ST, int64, PAR)")
def random_action(st, me, p):
    return random_pick(st, me, st[S_HANDS + me] & ACT_MASK)


@helper("ACT(ST, int64, PAR)")
def random_second(st, me, p):
    return random_pick(st, me, st[S_RECV + me] & st[S_HANDS + me] & ACT_MASK)


@helper("UniTuple(int64, 2)(ST, int64, PAR)")
def random_block(st, me, p):
    """A uniformly random block card of the hand, a uniform style in [0, 1]."""
    return random_card(st, me, st[S_HANDS + me] & st[R_BLOCKMASK]), seat_below(st, me, STYLE_ONE + 1)


# ---------------------------------------------------------------- careful


CAREFUL = Strategy("careful", "Always places with style 0 and plays the lowest-difficulty block; "
                   "ADJUSTs a sabotaged top, ANYWHERE and REMOVE from set heights; never SWAPs.", (
                       Param("anywhere_at", 6, 0, 30, "play ANYWHERE from this tower height", True),
                       Param("remove_at", 8, 0, 30, "play REMOVE from this tower height", True),
                   ))
P_CAREFUL = CAREFUL.at


@helper("ACT(ST, int64, PAR)")
def careful_action(st, me, p):
    """ADJUST a sabotaged top to share 0 (h >= 2); ANYWHERE at h >= anywhere_at;
    REMOVE at h >= remove_at when a block stands (h >= 1); never SWAP."""
    hand = st[S_HANDS + me]
    h = st[S_PILE_N]
    if (hand >> ADJUST) & 1 and h >= 2 and top_sabotaged(st):
        return (ADJUST, 0, 0, 0)
    if (hand >> ANYWHERE) & 1 and h >= p[P_CAREFUL.anywhere_at]:
        return (ANYWHERE, 0, 0, 0)
    if (hand >> REMOVE) & 1 and h >= 1 and h >= p[P_CAREFUL.remove_at]:
        return (REMOVE, 0, 0, 0)
    return NONE


@helper("ACT(ST, int64, PAR)")
def careful_second(st, me, p):
    """No second action card (careful never SWAPs, so it is never asked)."""
    return NONE


@helper("UniTuple(int64, 2)(ST, int64, PAR)")
def careful_block(st, me, p):
    """The lowest-difficulty block (ties: lowest code), always style 0."""
    return block_by_difficulty(st, me, 0), 0


# ---------------------------------------------------------------- saboteur


SABOTEUR = Strategy("saboteur", "Sabotage style when the point pile is rich (and a fall would pay "
                    "it), hard blocks late; actions like reference.", (
                        Param("rich_pile", 8, 0, 90, "sabotage when the point pile holds at least this many points", True),
                        Param("late_height", 5, 0, 30, "play the hardest block from this tower height", True),
                        Param("max_hazard", 0.1, 0, 5, "never sabotage when my own careful hazard H0 exceeds this"),
                    ))
P_SABOTEUR = SABOTEUR.at


@helper("UniTuple(int64, 2)(ST, int64, PAR)")
def saboteur_block(st, me, p):
    """From h >= late_height the hardest block (highest difficulty), before that the
    easiest; sabotage style when the point pile holds >= rich_pile points, a fall by
    the next player would score (h >= min_tower - 1) and my own hazard H0 <= max_hazard."""
    h = st[S_PILE_N]
    c = block_by_difficulty(st, me, 1 if h >= p[P_SABOTEUR.late_height] else 0)
    x = 0
    if h >= st[R_MIN_TOWER] - 1 and pile_points(st) >= p[P_SABOTEUR.rich_pile] and \
            my_hazard(st, me, c, h, turn_hazard(st, me)) <= p[P_SABOTEUR.max_hazard]:
        x = STYLE_ONE
    return c, x


# ---------------------------------------------------------------- tactician


TACTICIAN = Strategy("tactician", "Uses actions well: REMOVE or ADJUST when the tower is dangerous for "
                     "itself, ANYWHERE on a risky placement; while the tower is low and SWAP is its only "
                     "action card, SWAPs with the opponent with the most points (ties: the first in turn "
                     "order, so the next seat while scores are level), taking its cards at random and giving "
                     "it its hardest blocks; easiest block, sabotage when safe.", (
                         Param("danger", 0.08, 0, 1, "REMOVE/ADJUST when my placement would fall with at least this probability"),
                         Param("risky", 0.03, 0, 1, "ANYWHERE when my placement would fall with at least this probability"),
                         Param("swap_below", 6, 0, 30, "SWAP only while the tower is lower than this", True),
                         Param("sabotage_hazard", 0.03, 0, 5, "sabotage style while my own careful hazard H0 is at most this"),
                     ))
P_TACTICIAN = TACTICIAN.at


@helper("float64(ST, int64)")
def my_risk(st, me):
    """Fall probability of my next careful placement of my easiest block now."""
    c = block_by_difficulty(st, me, 0)
    if c < 0:
        return 0.0
    return fall_probability(my_hazard(st, me, c, st[S_PILE_N], turn_hazard(st, me)))


@helper("ACT(ST, int64, PAR, int64)")
def tactician_pick(st, me, p, cards):
    """REMOVE, else ADJUST (share 0), when my placement would fall with probability
    >= danger and the action itself is safer; ANYWHERE when it would fall with
    probability >= risky."""
    h = st[S_PILE_N]
    f = st.view(np.float64)
    risk = my_risk(st, me)
    if risk >= p[P_TACTICIAN.danger] and h >= 2:
        if (cards >> REMOVE) & 1 and fall_probability(top_hazard(st, me, f[R_REM_RISK])) < risk:
            return (REMOVE, 0, 0, 0)
        if (cards >> ADJUST) & 1 and share_at(st, h - 1) > 0.0 and \
                fall_probability(top_hazard(st, me, f[R_ADJ_RISK])) < risk:
            return (ADJUST, 0, 0, 0)
    if (cards >> ANYWHERE) & 1 and risk >= p[P_TACTICIAN.risky]:
        return (ANYWHERE, 0, 0, 0)
    return NONE


@helper("int64(ST, int64)")
def swap_leader(st, me):
    """The opponent with the most points that a SWAP can be played on (public: scores
    and hand sizes), ties to the earliest in turn order from the next seat (so the next
    seat while the scores are level); -1 if there is none."""
    best = -1
    bs = 0
    s = me
    for _ in range(st[R_PLAYERS] - 1):
        s = next_seat(st, s)
        if swap_gives(st, me, s) > 0 and (best < 0 or st[S_SCORES + s] > bs):
            best = s
            bs = st[S_SCORES + s]
    return best


@helper("ACT(ST, int64, PAR)")
def tactician_action(st, me, p):
    """tactician_pick; else, while h < swap_below and SWAP is my only action card (and I
    hold another card), SWAP with the leader (swap_leader): take cards at random from
    the seat closest to winning, perhaps its action cards, and give it my hardest
    blocks (with swap_last_block=keep and an empty draw pile never my last block card:
    an action card instead, else no SWAP)."""
    hand = st[S_HANDS + me]
    act = tactician_pick(st, me, p, hand & ACT_MASK)
    if act[0] != NO_ACTION:
        return act
    if (hand >> SWAP) & 1 and hand & ACT_MASK == (np.int64(1) << SWAP) and popcount(hand) >= 2 \
            and st[S_PILE_N] < p[P_TACTICIAN.swap_below]:
        best = swap_leader(st, me)
        if best >= 0:
            g1, g2 = give_hard_first(st, me, 0, swap_size(st, me, best))
            if g1 >= 0:  # (-1: swap_last_block=keep and only the last block card to give)
                return (SWAP, best, g1, g2)
    return NONE


@helper("ACT(ST, int64, PAR)")
def tactician_second(st, me, p):
    return tactician_pick(st, me, p, st[S_RECV + me] & st[S_HANDS + me] & ACT_MASK)


@helper("UniTuple(int64, 2)(ST, int64, PAR)")
def tactician_block(st, me, p):
    """The easiest block; sabotage when a fall by the next player would score and my
    own hazard H0 <= sabotage_hazard."""
    h = st[S_PILE_N]
    c = block_by_difficulty(st, me, 0)
    x = 0
    if h >= st[R_MIN_TOWER] - 1 and \
            my_hazard(st, me, c, h, turn_hazard(st, me)) <= p[P_TACTICIAN.sabotage_hazard]:
        x = STYLE_ONE
    return c, x


# ---------------------------------------------------------------- registry

# Where a strategy plays a decision exactly as the reference does (its help says so), it
# registers the reference's function for it, and the dispatch calls that function.
STRATEGIES = register(
    L.S,
    (REFERENCE, {"reshuffle": reference_reshuffle, "action": reference_action,
                 "second": reference_second, "block": reference_block}),
    (RANDOM, {"reshuffle": random_reshuffle, "action": random_action,
              "second": random_second, "block": random_block}),
    (CAREFUL, {"reshuffle": reference_reshuffle, "action": careful_action,
               "second": careful_second, "block": careful_block}),
    (SABOTEUR, {"reshuffle": reference_reshuffle, "action": reference_action,
                "second": reference_second, "block": saboteur_block}),
    (TACTICIAN, {"reshuffle": reference_reshuffle, "action": tactician_action,
                 "second": tactician_second, "block": tactician_block}),
)
ID = ids(STRATEGIES)
