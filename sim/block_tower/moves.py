"""Block Tower's rules as compiled helpers over the packed state ``st``.

Reading order follows the rules page: events, the collapse model (hazards and the fall
draw), cards moving (deal, draw, the two-action reshuffle), the round's start and its
two ends (collapse, even split), then the block placement and the four action cards,
the legality checks the kernel applies to every strategy answer, and ``legal``, which
lists every legal answer of the pending decision.  Strategies read the state through
the measures at the top; only the kernel changes it.
"""
import math

import numpy as np

from cardlab.sim.bits import lowest, popcount
from cardlab.sim.block_tower.layout import (
    ACT_MASK,
    ADJUST,
    ANYWHERE,
    EV_ADJUST,
    EV_ANYWHERE,
    EV_COLLAPSE,
    EV_DEAL,
    EV_DRAW,
    EV_FALL_PLACE,
    EV_H1,
    EV_PLACE,
    EV_REMOVE,
    EV_RESHUFFLE,
    EV_ROUND,
    EV_SPLIT,
    EV_SWAP,
    D_ACTION,
    D_BLOCK,
    D_RESHUFFLE,
    D_SECOND,
    NO_ACTION,
    R_ADJ_RISK,
    R_AH,
    R_ANYF,
    R_AU,
    R_BASE,
    R_BLOCKMASK,
    R_D,
    R_FIRST_START_FEWER,
    R_HAND,
    R_MIN_TOWER,
    R_N1,
    R_N12,
    R_NB,
    R_PLAYERS,
    R_PUSH_STYLE,
    R_REM_RISK,
    R_RESH_N,
    R_RISK_STYLE,
    R_S,
    R_SKILL,
    R_SPLIT_MIN,
    R_SWAP_KEEP,
    R_SWAP_MATCH,
    REMOVE,
    S_ACTOR,
    S_ACTS,
    S_ANY,
    S_DIR,
    S_DRAW,
    S_DRAW_N,
    S_EVC,
    S_EVERH,
    S_EVERP,
    S_HAND_N,
    S_HANDS,
    S_NEV,
    S_PHASE,
    S_PILE,
    S_PILE_N,
    S_PREV,
    S_RECV,
    S_RESH,
    S_ROUND,
    S_SCORES,
    S_SHARE,
    S_SIZE,
    S_START,
    S_TURN,
    S_U,
    S_USED,
    S_WON,
    SHARE_ONE,
    STYLE_ONE,
    SWAP,
    ZONES_END,
)
from cardlab.sim.events import write_event
from cardlab.sim.engine import put_action
from cardlab.sim.jit import helper, inline
from cardlab.sim.schema import KIND_BIT
from cardlab.sim.rng import below, shuffle, uniform

# ---------------------------------------------------------------- measures


@helper("int64(ST, int64)")
def points(st, c):
    """Points of block card c: 1, 2 or 3 by its place in points_split."""
    return 1 + (c >= st[R_N1]) + (c >= st[R_N12])


@helper("int64(ST)")
def pile_points(st):
    t = 0
    for i in range(st[S_PILE_N]):
        t += points(st, st[S_PILE + i])
    return t


@helper("float64(ST, int64)")
def difficulty(st, c):
    """d_b of block card c."""
    return st.view(np.float64)[R_D + points(st, c) - 1]


@helper("float64(ST, int64)")
def base_share(st, c):
    """s_b of block card c: the instability it adds when placed with style 0."""
    return st.view(np.float64)[R_S + points(st, c) - 1]


@helper("float64(ST, int64)")
def share_at(st, i):
    """Instability share of the i-th standing block (0 = bottom)."""
    return st.view(np.float64)[S_SHARE + i]


@helper("float64(ST, int64, int64, int64)")
def hazard_exp(st, me, t, h):
    """exp(a_h*(h-1) + a_u*u + d_t - skill) of seat me placing a t-point block as the
    (h+1)-th block at the current instability: the part of the hazard a memo keeps
    (``hazard`` is base times it times m)."""
    f = st.view(np.float64)
    return math.exp(f[R_AH] * (h - 1) + f[R_AU] * f[S_U] + f[R_D + t - 1] - f[R_SKILL + me])


@helper("float64(ST, int64, int64, int64, float64)")
def hazard(st, me, c, h, m):
    """The careful hazard H0 of seat me placing block c as the (h+1)-th block at the
    current instability, with factor m (anywhere_factor under ANYWHERE, else 1):
    base * exp(a_h*(h-1) + a_u*u + d_b - skill) * m.  0 for the first block.
    Nothing is cached here: the rules and the strategies share no memory (a strategy
    keeps its own memo in its seat's memory: ``strategies.block_tower.my_hazard``)."""
    if h <= 0:
        return 0.0
    return st.view(np.float64)[R_BASE] * hazard_exp(st, me, points(st, c), h) * m


@helper("float64(ST, int64)")
def turn_hazard(st, me):
    """hazard() factor m for seat me now: anywhere_factor if ANYWHERE is in force."""
    return st.view(np.float64)[R_ANYF] if st[S_ANY] != 0 else 1.0


@helper("float64(ST, int64, float64)")
def top_hazard(st, me, risk):
    """The top block's own placement hazard where it stands (re-placed on the h-1 blocks
    below it, u without its share), times risk; no style factor, m = 1.  0 for h < 2."""
    h = st[S_PILE_N]
    if h < 2:
        return 0.0
    f = st.view(np.float64)
    top = st[S_PILE + h - 1]
    e = f[R_AH] * (h - 2) + f[R_AU] * (f[S_U] - f[S_SHARE + h - 1]) + \
        f[R_D + points(st, top) - 1] - f[R_SKILL + me]
    return f[R_BASE] * math.exp(e) * risk


@helper("float64(float64)")
def fall_probability(hz):
    """p = 1 - exp(-H) (0 for H = 0, also for base = 0 with an infinite exponent)."""
    if not hz > 0.0:
        return 0.0
    return -math.expm1(-hz)


@helper("boolean(ST, float64)")
def falls(st, hz):
    """The collapse draw: one uniform U in [0, 1), the tower falls iff U < p = 1 - exp(-H).
    Since p <= H, U >= H settles most draws without computing p (the same answer)."""
    r = uniform(st)
    if r >= hz:
        return False
    return r < fall_probability(hz)


# ---------------------------------------------------------------- events (trace mode)


@helper("int64(float64)")
def nano(hz):
    """A hazard for an event row: in units of 1e-9, capped at 1e9 (= H of 1e9)."""
    if not hz > 0.0:
        return 0
    return np.int64(min(hz, 1e9) * 1e9 + 0.5)


@helper("boolean(ST, int64)")
def count(st, kind):
    """Count an event; True in trace mode (st longer than S_SIZE), where the caller then
    records it with ``emit``.  (Tiny, so the compiler pastes it into its callers: a game
    counts ~100 events, and the trace check and an event's fields cost nothing on the
    fast path; one call per event to a counting and writing helper cost ~20% of the
    games' speed, and pasting such a helper at every event ~1 s of compile time.)"""
    st[S_EVC + kind] += 1
    return st.shape[0] > S_SIZE


@helper("void(ST, int64, int64, int64, int64, int64, int64, int64, int64)")
def emit(st, kind, player, a, b, c, d, e, f):
    """Trace mode: record a counted event (six fields of its own) with the turn, and the
    snapshot of every zone after it, through the shared writer (sim/events.py)."""
    write_event(st, S_NEV, S_SIZE, ZONES_END, kind, player, st[S_TURN], a, b, c, d, e, f)


# ---------------------------------------------------------------- cards moving


@helper("void(ST, int64, int64)")
def receive(st, me, c):
    """Card c enters seat me's hand (and its public count)."""
    bit = np.int64(1) << c
    st[S_HANDS + me] |= bit
    st[S_HAND_N + me] += 1
    st[S_EVERH + me] |= bit


@helper("int64(ST, int64)")
def draw_one(st, me):
    """Seat me draws the top card of the draw pile (one draw event); -1 if it is empty."""
    n = st[S_DRAW_N]
    if n == 0:
        return -1
    n -= 1
    c = st[S_DRAW + n]
    st[S_DRAW_N] = n
    receive(st, me, c)
    if count(st, EV_DRAW):
        emit(st, EV_DRAW, me, c, 0, 0, 0, 0, 0)
    return c


@helper("void(ST, int64)")
def reshuffle(st, me):
    """Two action cards in hand: the whole hand goes into the draw pile, which is
    shuffled, then the player draws three cards (reshuffle_draw=three; hand_size cards
    with reshuffle_draw=hand_size), fewer if the pile runs out.  Used once a turn
    (st[S_RESH]); cards received in this turn's SWAP have left the hand, so none of
    them can be played as a second action card any more (st[S_RECV + me])."""
    hand = st[S_HANDS + me]
    n = st[S_DRAW_N]
    k = popcount(hand)
    while hand != 0:
        st[S_DRAW + n] = lowest(hand)
        n += 1
        hand &= hand - 1
    st[S_HANDS + me] = 0
    st[S_HAND_N + me] = 0
    st[S_DRAW_N] = n
    st[S_RESH] = 1
    st[S_RECV + me] = 0
    shuffle(st, S_DRAW, S_DRAW + n)
    if count(st, EV_RESHUFFLE):
        emit(st, EV_RESHUFFLE, me, k, 0, 0, 0, 0, 0)
    for _ in range(st[R_RESH_N]):
        if draw_one(st, me) < 0:
            break


@helper("void(ST, int64)")
def new_round(st, r):
    """Round r: the start card is at seat r mod players with direction +1 (even r) or
    -1 (odd r); every card is shuffled into the draw pile; hand_size cards are dealt to
    each seat off the top, the start seat first, in turn order (one deal event a seat).
    The ``first_start_fewer`` compensation knob (0: the printed deal) deals round 0's start
    seat (seat 0) that many cards fewer; the others are dealt the next cards off the top."""
    P = st[R_PLAYERS]
    nb = st[R_NB]
    st[S_ROUND] = r
    st[S_START] = r % P
    st[S_DIR] = 1 if r % 2 == 0 else -1
    st[S_PREV] = -1
    st[S_PILE_N] = 0
    st[S_USED] = 0
    st.view(np.float64)[S_U] = 0.0
    for s in range(P):
        st[S_HANDS + s] = 0
        st[S_HAND_N + s] = 0
        st[S_WON + s] = 0
    for c in range(nb):
        st[S_DRAW + c] = c
    for k in range(4):
        st[S_DRAW + nb + k] = ADJUST + k
    n = nb + 4
    shuffle(st, S_DRAW, S_DRAW + n)
    st[S_DRAW_N] = n
    if count(st, EV_ROUND):
        emit(st, EV_ROUND, -1, r % P, st[S_DIR], 0, 0, 0, 0)
    s = st[S_START]
    d = st[S_DIR]
    hs = st[R_HAND]
    for i in range(P):
        n = st[S_DRAW_N]
        got = np.int64(0)
        for _k in range(hs - st[R_FIRST_START_FEWER] if r == 0 and i == 0 else hs):
            n -= 1
            c = st[S_DRAW + n]
            receive(st, s, c)
            got |= np.int64(1) << c
        st[S_DRAW_N] = n
        if count(st, EV_DEAL):
            emit(st, EV_DEAL, -1, s, got, 0, 0, 0, 0)
        s += d
        if s >= P:
            s -= P
        elif s < 0:
            s += P


# ---------------------------------------------------------------- the round's ends


@helper("void(ST, int64, int64, int64)")
def collapse(st, me, h, during):
    """The tower fell during seat me's move with h blocks standing before it: the
    previous player takes the whole point pile (the fatal block's card included) and
    scores its points, 0 if h < min_tower.  The round is over."""
    prev = st[S_PREV]
    pts = 0
    m = np.int64(0)
    for i in range(st[S_PILE_N]):
        c = st[S_PILE + i]
        pts += points(st, c)
        m |= np.int64(1) << c
    st[S_WON + prev] |= m
    got = pts if h >= st[R_MIN_TOWER] else 0
    st[S_SCORES + prev] += got
    st[S_PILE_N] = 0
    st.view(np.float64)[S_U] = 0.0
    st[S_EVC + EV_FALL_PLACE + during] += 1
    st[S_EVC + EV_H1 + h - 1] += 1
    if count(st, EV_COLLAPSE):
        emit(st, EV_COLLAPSE, me, h, prev, pts, got, during, 0)


@helper("void(ST, int64)")
def split(st, me):
    """The round ends by running out (seat me to move has no block card and the draw
    pile is empty): every player gets floor(pile points / players), 0 when the tower
    has fewer than min_tower blocks (split_min_tower=true: such a tower is worth 0 here
    too); the cards stay on the point pile until the next deal."""
    P = st[R_PLAYERS]
    pts = pile_points(st)
    each = pts // P
    if st[R_SPLIT_MIN] != 0 and st[S_PILE_N] < st[R_MIN_TOWER]:
        each = 0
    for s in range(P):
        st[S_SCORES + s] += each
    if count(st, EV_SPLIT):
        emit(st, EV_SPLIT, me, pts, each, st[S_PILE_N], 0, 0, 0)


# ---------------------------------------------------------------- block and actions


@helper("boolean(ST, int64, int64, int64)")
def place(st, me, c, x):
    """Seat me puts block card c on the point pile and its block on the tower, with
    placement style x (thousandths: 0 careful .. 1000 sabotage).  Returns True if the
    tower fell (the card stays on the pile for the collapse)."""
    f = st.view(np.float64)
    bit = np.int64(1) << c
    st[S_HANDS + me] &= ~bit
    st[S_HAND_N + me] -= 1
    st[S_EVERP + me] |= bit
    h = st[S_PILE_N]
    st[S_PILE + h] = c
    st[S_PILE_N] = h + 1
    xs = x / STYLE_ONE
    fell = False
    hz = 0.0
    if h >= 1:
        hz = hazard(st, me, c, h, turn_hazard(st, me)) * (1.0 + f[R_RISK_STYLE] * xs)
        fell = falls(st, hz)
    if fell:
        f[S_SHARE + h] = 0.0
    else:
        sh = f[R_S + points(st, c) - 1] * (1.0 + f[R_PUSH_STYLE] * xs)
        f[S_SHARE + h] = sh
        f[S_U] += sh
    if count(st, EV_PLACE):
        emit(st, EV_PLACE, me, c, x, h, 1 if fell else 0, nano(hz), 0)
    return fell


@helper("void(ST, int64, int64)")
def use_action(st, me, a):
    """Action card a leaves seat me's hand for the used action cards."""
    bit = np.int64(1) << a
    st[S_HANDS + me] &= ~bit
    st[S_HAND_N + me] -= 1
    st[S_EVERP + me] |= bit
    st[S_USED] |= bit


@helper("boolean(ST, int64, int64)")
def adjust(st, me, new_share):
    """ADJUST: re-place the top block (falls with its top-block hazard times
    adjust_risk, never with fewer than 2 blocks); on success its share becomes
    new_share thousandths of its base share and u changes by the difference."""
    use_action(st, me, ADJUST)
    f = st.view(np.float64)
    h = st[S_PILE_N]
    top = st[S_PILE + h - 1]
    hz = top_hazard(st, me, f[R_ADJ_RISK])
    fell = falls(st, hz) if h >= 2 else False
    if not fell:
        new = f[R_S + points(st, top) - 1] * (new_share / SHARE_ONE)
        f[S_U] += new - f[S_SHARE + h - 1]
        f[S_SHARE + h - 1] = new
    if count(st, EV_ADJUST):
        emit(st, EV_ADJUST, me, top, new_share, 1 if fell else 0, nano(hz), 0, 0)
    return fell


@helper("void(ST, int64)")
def anywhere(st, me):
    """ANYWHERE: this turn's block may touch any block: its hazard is multiplied by
    anywhere_factor."""
    use_action(st, me, ANYWHERE)
    st[S_ANY] = 1
    if count(st, EV_ANYWHERE):
        emit(st, EV_ANYWHERE, me, 0, 0, 0, 0, 0, 0)


@helper("boolean(ST, int64)")
def remove(st, me):
    """REMOVE: take the top block off (falls with its top-block hazard times
    remove_risk, never with fewer than 2 blocks); on success h and u drop by its share
    and its card goes from the point pile to the bottom of the draw pile."""
    use_action(st, me, REMOVE)
    f = st.view(np.float64)
    h = st[S_PILE_N]
    top = st[S_PILE + h - 1]
    hz = top_hazard(st, me, f[R_REM_RISK])
    fell = falls(st, hz) if h >= 2 else False
    if not fell:
        f[S_U] -= f[S_SHARE + h - 1]
        if h == 1:
            f[S_U] = 0.0  # no rounding residue on an empty table
        f[S_SHARE + h - 1] = 0.0
        st[S_PILE_N] = h - 1
        n = st[S_DRAW_N]
        for i in range(n, 0, -1):
            st[S_DRAW + i] = st[S_DRAW + i - 1]
        st[S_DRAW] = top
        st[S_DRAW_N] = n + 1
    if count(st, EV_REMOVE):
        emit(st, EV_REMOVE, me, top, 1 if fell else 0, nano(hz), 0, 0, 0)
    return fell


@helper("int64(ST, int64, int64)")
def take_random(st, mask, k):
    """k distinct cards drawn uniformly at random from the mask (k <= its size)."""
    out = np.int64(0)
    for _ in range(k):
        r = below(st, popcount(mask))
        m = mask
        for _j in range(r):
            m &= m - 1
        bit = m & -m
        out |= bit
        mask &= ~bit
    return out


@helper("int64(ST, int64, int64)")
def swap_size(st, me, target):
    """How many cards seat me's SWAP with target gives: min(2, my cards besides SWAP),
    and with swap_give=match (an exchange: give as many as you take) at most the
    target's hand size, so 0 (not playable on that target) when its hand is empty.
    With swap_give=two the target's hand may be smaller (then I take fewer).  The
    target's size is its public count (``hand_n``): a strategy may ask this too."""
    k = min(2, popcount(st[S_HANDS + me] & ~(np.int64(1) << SWAP)))
    if st[R_SWAP_MATCH] != 0:
        k = min(k, st[S_HAND_N + target])
    return k


@helper("boolean(ST)")
def swap_must_keep(st):
    """swap_last_block=keep and the draw pile is empty: a SWAP must leave a block card in
    the hand (after an action card a block card must still be played, and none can be
    drawn)."""
    return st[R_SWAP_KEEP] != 0 and st[S_DRAW_N] == 0


@helper("boolean(ST, int64, int64)")
def swap_keeps_block(st, me, give):
    """Whether seat me may give the cards of the mask ``give`` in a SWAP as far as
    swap_last_block goes: with keep and an empty draw pile the cards it keeps must
    include a block card; otherwise always."""
    return not swap_must_keep(st) or (st[S_HANDS + me] & st[R_BLOCKMASK] & ~give) != 0


@helper("int64(ST, int64, int64)")
def swap_gives(st, me, target):
    """How many legal answers seat me's SWAP with target has: the ordered choices of
    swap_size cards among mine besides SWAP (r of them: r for one card, r(r-1) for two),
    less, when swap_must_keep, those that give away every block card of the hand.
    0: SWAP cannot be played on that target."""
    k = swap_size(st, me, target)
    rest = st[S_HANDS + me] & ~(np.int64(1) << SWAP)
    r = popcount(rest)
    n = r if k == 1 else r * (r - 1) if k == 2 else 0
    if n == 0 or not swap_must_keep(st):
        return n
    b = popcount(rest & st[R_BLOCKMASK])
    if b == 0:
        return 0
    if k == 1:
        return n - 1 if b == 1 else n
    if b == 1:
        return n - 2 * (r - 1)  # either card is the block
    if b == 2:
        return n - 2            # the two blocks, in either order
    return n


@helper("void(ST, int64, int64, int64, int64)")
def swap(st, me, target, g1, g2):
    """SWAP: give target the card(s) g1 (and g2, -1 for none) and take as many (at most
    the target's hand, which swap_give=match makes always enough) at random from the
    target's hand as it was before receiving mine.  The cards taken are remembered in
    st[S_RECV + me] (one may be played this turn)."""
    use_action(st, me, SWAP)
    give = np.int64(1) << g1
    if g2 >= 0:
        give |= np.int64(1) << g2
    k = popcount(give)
    th = st[S_HANDS + target]
    n = min(k, popcount(th))
    took = take_random(st, th, n)
    st[S_HANDS + me] = (st[S_HANDS + me] & ~give) | took
    st[S_HANDS + target] = (th & ~took) | give
    st[S_HAND_N + me] += n - k
    st[S_HAND_N + target] += k - n
    st[S_EVERH + me] |= took
    st[S_EVERH + target] |= give
    st[S_RECV + me] = took
    if count(st, EV_SWAP):
        emit(st, EV_SWAP, me, target, g1, g2, took, 0, 0)


# ---------------------------------------------------------------- legality


@helper("boolean(ST, int64, int64, int64, int64, int64, int64)")
def action_legal(st, me, kind, a, b, c, second):
    """Whether (kind, a, b, c) is a legal action for seat me: the card in hand (for a
    second action: one received in this turn's SWAP); ADJUST and REMOVE need a block
    standing; SWAP gives swap_size distinct cards of mine (at least 1) to another seat,
    and with swap_last_block=keep and an empty draw pile keeps a block card in my hand.
    Numbers an action does not use must be 0: (NO_ACTION, 0, 0, 0), (ADJUST, share, 0,
    0), (ANYWHERE, 0, 0, 0), (REMOVE, 0, 0, 0), so that legal() lists every answer."""
    if kind == NO_ACTION:
        return a == 0 and b == 0 and c == 0
    if kind < ADJUST or kind > SWAP:
        return False
    hand = st[S_HANDS + me]
    if (hand >> kind) & 1 == 0:
        return False
    if second != 0 and (st[S_RECV + me] >> kind) & 1 == 0:
        return False
    if kind == ADJUST:
        return st[S_PILE_N] >= 1 and 0 <= a <= 2 * SHARE_ONE and b == 0 and c == 0
    if kind == REMOVE:
        return st[S_PILE_N] >= 1 and a == 0 and b == 0 and c == 0
    if kind == ANYWHERE:
        return st[S_ANY] == 0 and a == 0 and b == 0 and c == 0
    # SWAP
    P = st[R_PLAYERS]
    if second != 0 or not (0 <= a < P) or a == me:
        return False
    rest = hand & ~(np.int64(1) << SWAP)
    k = swap_size(st, me, a)
    if k == 0:
        return False
    if not (0 <= b < 64) or (rest >> b) & 1 == 0:
        return False
    give = np.int64(1) << b
    if k == 1:
        if c != -1:
            return False
    else:
        if not (0 <= c < 64) or c == b or (rest >> c) & 1 == 0:
            return False
        give |= np.int64(1) << c
    return swap_keeps_block(st, me, give)


@helper("boolean(ST, int64, int64, int64)")
def block_legal(st, me, c, x):
    return 0 <= c < st[R_NB] and (st[S_HANDS + me] >> c) & 1 == 1 and 0 <= x <= STYLE_ONE


@helper("int64(ST, int64)")
def action_count(st, me):
    return popcount(st[S_HANDS + me] & ACT_MASK)


# ---------------------------------------------------------------- every legal action


@helper("int64(ST, int64, int64, int64)")
def list_action_cards(st, me, cards, second):
    """Every legal answer of the action (second = 0) or second action (1) decision that
    plays a card of ``cards``, after (NO_ACTION, 0, 0, 0): each ADJUST share 0..2000,
    ANYWHERE, REMOVE, and (not as a second action) each SWAP target with each ordered
    choice of the cards to give (swap_last_block=keep with an empty draw pile: those that
    keep a block card in the hand)."""
    n = put_action(st, S_ACTS, 0, NO_ACTION, 0, 0, 0)
    h = st[S_PILE_N]
    if (cards >> ADJUST) & 1 and h >= 1:
        for share in range(2 * SHARE_ONE + 1):
            n = put_action(st, S_ACTS, n, ADJUST, share, 0, 0)
    if (cards >> ANYWHERE) & 1 and st[S_ANY] == 0:
        n = put_action(st, S_ACTS, n, ANYWHERE, 0, 0, 0)
    if (cards >> REMOVE) & 1 and h >= 1:
        n = put_action(st, S_ACTS, n, REMOVE, 0, 0, 0)
    if (cards >> SWAP) & 1 and second == 0:
        rest = st[S_HANDS + me] & ~(np.int64(1) << SWAP)
        for t in range(st[R_PLAYERS]):
            if t == me:
                continue
            k = swap_size(st, me, t)
            if k == 0:
                continue
            m1 = rest
            while m1 != 0:
                g1 = lowest(m1)
                m1 &= m1 - 1
                b1 = np.int64(1) << g1
                if k == 1:
                    if swap_keeps_block(st, me, b1):
                        n = put_action(st, S_ACTS, n, SWAP, t, g1, -1)
                    continue
                m2 = rest & ~b1
                while m2 != 0:
                    g2 = lowest(m2)
                    m2 &= m2 - 1
                    if swap_keeps_block(st, me, b1 | (np.int64(1) << g2)):
                        n = put_action(st, S_ACTS, n, SWAP, t, g1, g2)
    return n


@helper("int64(ST)")
def legal(st):
    """Every legal action of the pending decision, written to the buffer at S_ACTS (4
    numbers each; the answer a strategy returns for it), and how many there are: the
    reshuffle's no and yes, the action card's and the second action card's answers
    (list_action_cards), every (block card, style 0..1000) of the block.  The kernel's
    step accepts exactly these."""
    ph = st[S_PHASE]
    me = st[S_ACTOR]
    hand = st[S_HANDS + me]
    if ph == D_RESHUFFLE:
        put_action(st, S_ACTS, 0, 0, 0, 0, 0)
        return put_action(st, S_ACTS, 1, 1, 0, 0, 0)
    if ph == D_ACTION:
        return list_action_cards(st, me, hand & ACT_MASK, 0)
    if ph == D_SECOND:
        return list_action_cards(st, me, st[S_RECV + me] & hand & ACT_MASK, 1)
    n = 0
    if ph == D_BLOCK:
        blocks = hand & st[R_BLOCKMASK]
        while blocks != 0:
            c = lowest(blocks)
            blocks &= blocks - 1
            for x in range(STYLE_ONE + 1):
                n = put_action(st, S_ACTS, n, c, x, 0, 0)
    return n


@helper("int64(ST, int64, int64, int64)")
def count_action_cards(st, me, cards, second):
    """How many answers ``list_action_cards`` lists, without listing them."""
    n = 1  # NO_ACTION
    h = st[S_PILE_N]
    if (cards >> ADJUST) & 1 and h >= 1:
        n += 2 * SHARE_ONE + 1
    if (cards >> ANYWHERE) & 1 and st[S_ANY] == 0:
        n += 1
    if (cards >> REMOVE) & 1 and h >= 1:
        n += 1
    if (cards >> SWAP) & 1 and second == 0:
        for t in range(st[R_PLAYERS]):
            if t != me:
                n += swap_gives(st, me, t)
    return n


@helper("int64(ST)")
def legal_count(st):
    """How many legal actions ``legal`` would list, without listing them: the search
    counts a decision first and lists a wide one only when it grows (sim/search.py)."""
    ph = st[S_PHASE]
    me = st[S_ACTOR]
    hand = st[S_HANDS + me]
    if ph == D_RESHUFFLE:
        return 2
    if ph == D_ACTION:
        return count_action_cards(st, me, hand & ACT_MASK, 0)
    if ph == D_SECOND:
        return count_action_cards(st, me, st[S_RECV + me] & hand & ACT_MASK, 1)
    if ph == D_BLOCK:
        return popcount(hand & st[R_BLOCKMASK]) * (STYLE_ONE + 1)
    return 0


@helper("int64(ST, int64, int64, int64, int64, int64, int64)")
def legal_key(st, o, n, kind, a, b, c):
    """Where (kind, a, b, c) stands in ``legal``'s list of the pending decision (a number
    that orders the actions as ``legal`` lists them), or -1 when it is not legal; the
    list itself (``n`` actions at ``o``) is not needed here.  The search checks the few actions a
    wide node remembers with it instead of looking up each of the thousands listed
    (sim/search.py)."""
    ph = st[S_PHASE]
    me = st[S_ACTOR]
    if ph == D_BLOCK:
        if b != 0 or c != 0 or not block_legal(st, me, kind, a):
            return -1
        return kind * (STYLE_ONE + 1) + a
    if ph == D_ACTION or ph == D_SECOND:
        if not action_legal(st, me, kind, a, b, c, 1 if ph == D_SECOND else 0):
            return -1
        if kind == NO_ACTION:
            return 0
        if kind == ADJUST:
            return 1 + a
        if kind != SWAP:  # ANYWHERE, REMOVE
            return 2 * SHARE_ONE + 2 + kind - ANYWHERE
        return 2 * SHARE_ONE + 4 + (a * 64 + b) * 65 + c + 1
    if ph == D_RESHUFFLE:
        return kind if (kind == 0 or kind == 1) and a == 0 and b == 0 and c == 0 else -1
    return -1


# ---------------------------------------------------------------- restricted play
# (``mcts:never=``, sim/search.py) what an action commits: an action card its type
# (ADJUST..SWAP), a block card its points (B1pt, B2pt, B3pt); and its kind among
# RESTRICT_KINDS (layout.py): the two-action reshuffle


@helper("int64(ST, int64, int64, int64, int64)")
def restrict_bits(st, k, a, b, c):
    ph = st[S_PHASE]
    if ph == D_RESHUFFLE:
        return (np.int64(1) << KIND_BIT) if k == 1 else np.int64(0)
    if ph == D_ACTION or ph == D_SECOND:
        return (np.int64(1) << (3 + k - ADJUST)) if k >= ADJUST else np.int64(0)
    if ph == D_BLOCK:
        return np.int64(1) << (0 if k < st[R_N1] else 1 if k < st[R_N12] else 2)
    return np.int64(0)


@inline  # pasted into the engine's per-turn note: no call per seat and turn
def progress(st, seat):
    """The seat's progress score (``sim/shape.py``): its points."""
    return st[S_SCORES + seat]
