"""Block Tower as a resumable step function, read top to bottom like the rules page:
rounds (start card, shuffle, deal) of turns, until a round's end leaves someone at the
target or the round cap hits.

A turn of the seat ``st[S_CUR]``, and where its decisions (layout.py) come in:

1. the turn opens: no block card and nothing to draw ends the round by running out;
   two action cards in hand: **D_RESHUFFLE** (shuffle the hand into the draw pile and
   draw three new cards, once a turn);
2. a hand with only action cards draws one card at a time until a block card arrives
   (with ``reshuffle_at=any_time`` the reshuffle is offered after each draw);
3. **D_ACTION**: one action card, or none; a fall during it ends the round; a SWAP that
   brought an action card: **D_SECOND** (one of the cards just received);
4. after the action card(s) the reshuffle is offered again, and the hand draws up to a
   block card (step 2) if it has none;
5. **D_BLOCK**: the block card and the placement style; a fall ends the round, else the
   seat draws 1 card (2 after an action card, 3 after a received one too) and the turn
   passes in the round's direction.

``step`` applies the pending decision's answer (``decide``) and plays every chance part
after it (``carry_on``: draws, reshuffles, the round's end and the next deal, the next
turns' openings) up to the next decision or the game's end; it and ``setup`` run the
game in one compiled helper, ``play_from`` (see "the model" below).  What the old
nested loops kept in locals lives in the state: whose turn (``S_CUR``), the round (``S_ROUND``), the
action cards played this turn (``S_ACTED``: the draws after the block, and whether the
turn is past its action step), the reshuffle used (``S_RESH``), ANYWHERE in force
(``S_ANY``), the cards the seat received in its SWAP (``S_RECV``, one word per seat: only the
seat that took them sees them).  ``RULES`` at the foot declares the
rules functions that ``sim/bind.py`` binds the shared engine, the search player and the
strategies to.
"""
import numpy as np
from numba import njit

from cardlab.sim import shape
from cardlab.sim.block_tower.moves import progress
from cardlab.sim.bits import popcount
from cardlab.sim.block_tower.layout import (
    ACT_MASK,
    ADJUST,
    ANYWHERE,
    D_ACTION,
    D_BLOCK,
    D_RESHUFFLE,
    D_SECOND,
    END_CAP,
    END_TARGET,
    ENGINE,
    EV_TURN,
    NO_ACTION,
    NT,
    R_BLOCKMASK,
    R_MAX_ROUNDS,
    R_N1,
    R_N12,
    R_PLAYERS,
    R_RESH_ANY,
    R_TARGET,
    REMOVE,
    S_ACTED,
    S_ACTOR,
    S_ACTS,
    S_ANY,
    S_CUR,
    S_DIR,
    S_DRAW_N,
    S_EVC,
    S_EVERH,
    S_EVERP,
    S_HANDS,
    S_HELD,
    S_PHASE,
    S_PILE_N,
    S_PLAYED,
    S_PREV,
    S_RECV,
    S_RESH,
    S_ROUND,
    S_SCORE,
    S_SCORES,
    S_START,
    S_TURN,
    SWAP,
)
from cardlab.sim.block_tower.moves import (  # legal: the model's, for Game.model()
    action_legal,
    adjust,
    anywhere,
    block_legal,
    collapse,
    draw_one,
    legal,  # noqa: F401
    
    new_round,
    place,
    remove,
    reshuffle,
    split,
    swap,
)
from cardlab.sim.jit import helper, illegal1, illegal2, illegal4, inline
from cardlab.sim.game import Rules
from cardlab.sim.block_tower.layout import S_HAND_N
from cardlab.sim.block_tower.moves import legal_count, legal_key, restrict_bits

# how a part of the turn ends
PENDING = 0      # a decision of the turn is pending (st[S_PHASE], st[S_ACTOR])
TURN_OVER = 1    # the block stood and the draws are done: the next seat's turn
ROUND_OVER = 2   # a collapse or the even split ended the round
NEW_TURN = 3     # the turn of st[S_CUR] opens (a game's first turn)
DRAW = 4         # go on: draw up to a block card (step 2) ...
OFFER_DRAW = 5   # ... the reshuffle offered first (after the action cards) ...
START_DRAW = 6   # ... the reshuffle offered first, as at the turn's start
REFUSED = -1     # an illegal answer: nothing was applied


# ---------------------------------------------------------------- the game's end


@inline
def game_over(st, mask, rounds, unfinished):
    """The result: winners, rounds played, points per seat, and the card-power bits by
    card type (1-, 2-, 3-point blocks: three ranges of card ids; then each action card);
    no decision pending."""
    P = st[R_PLAYERS]
    one = (np.int64(1) << st[R_N1]) - 1
    two = ((np.int64(1) << st[R_N12]) - 1) & ~one
    three = st[R_BLOCKMASK] & ~(one | two)
    for s in range(P):
        st[S_SCORE + s] = st[S_SCORES + s]
        for k in range(2):
            m = st[S_EVERH + s] if k == 0 else st[S_EVERP + s]
            o = (S_HELD if k == 0 else S_PLAYED) + s * NT
            st[o] = (m & one) != 0
            st[o + 1] = (m & two) != 0
            st[o + 2] = (m & three) != 0
            for a in range(4):
                st[o + 3 + a] = (m >> (ADJUST + a)) & 1
    shape.finish(st, ENGINE, mask, rounds, unfinished, END_CAP if unfinished else END_TARGET)


@inline
def round_over(st):
    """A round ended: the win test (the highest total at or above target_points wins,
    ties share), then the round cap; else the next round is dealt and its start seat's
    turn comes.  True when the game is over."""
    P = st[R_PLAYERS]
    r = st[S_ROUND] + 1  # rounds played, this one included
    shape.turn_over(st, ENGINE, progress, r)  # the game's length is in rounds: round r ends
    best = 0
    for s in range(P):
        best = max(best, st[S_SCORES + s])
    if best >= st[R_TARGET]:
        mask = np.int64(0)
        for s in range(P):
            if st[S_SCORES + s] == best:
                mask |= np.int64(1) << s
        game_over(st, mask, r, False)
        return True
    if r >= st[R_MAX_ROUNDS]:
        game_over(st, np.int64(0), r, True)
        return True
    new_round(st, r)
    st[S_CUR] = st[S_START]
    return False


# ---------------------------------------------------------------- a turn


@inline
def ask(st, decision):
    """The seat whose turn it is has ``decision`` to take."""
    st[S_PHASE] = decision
    st[S_ACTOR] = st[S_CUR]
    return PENDING


@inline
def offer_reshuffle(st, start):
    """Two action cards in hand (and cards to draw): the seat may shuffle its hand into
    the draw pile and draw three new cards, once a turn; offered at the turn's start
    (start = 1) and, with reshuffle_at=any_time, at every later point before the block
    where the hand may have gained action cards.  True when it is offered (pending)."""
    me = st[S_CUR]
    if st[S_RESH] == 0 and (start != 0 or st[R_RESH_ANY] != 0) and st[S_DRAW_N] > 0 and \
            popcount(st[S_HANDS + me] & ACT_MASK) >= 2:
        ask(st, D_RESHUFFLE)
        return True
    return False


@inline
def open_turn(st):
    """1. The turn opens: the turn's marks are cleared; no block card and nothing to
    draw ends the round by running out; else the reshuffle is offered (as at the turn's
    start), then step 2."""
    me = st[S_CUR]
    st[S_TURN] += 1
    st[S_EVC + EV_TURN] += 1
    st[S_ANY] = 0
    st[S_RECV + me] = 0
    st[S_RESH] = 0
    st[S_ACTED] = 0
    if st[S_HANDS + me] & st[R_BLOCKMASK] == 0 and st[S_DRAW_N] == 0:
        split(st, me)
        return ROUND_OVER
    return START_DRAW


@inline
def draw_to_block(st, offer):
    """2. (and 1. and 4.: offer = 2 the reshuffle offered first as at the turn's start,
    1 as later in the turn, 0 not first) A hand without a block card draws one card at
    a time until a block card arrives, the reshuffle offered after each draw; running
    out of cards first ends the round (the even split).  Then the action card (none
    played yet this turn) or the block comes."""
    me = st[S_CUR]
    bm = st[R_BLOCKMASK]
    while True:
        if offer != 0 and offer_reshuffle(st, 1 if offer == 2 else 0):
            return PENDING
        if st[S_HANDS + me] & bm != 0:
            return ask(st, D_ACTION if st[S_ACTED] == 0 else D_BLOCK)
        if draw_one(st, me) < 0:
            split(st, me)
            return ROUND_OVER
        offer = 1


@inline
def play_action(st, me, kind, a, b, c, second):
    """3. Play action card ``kind`` (NO_ACTION: none; second = 1: a card received in the
    SWAP).  A fall during it ends the round; a SWAP that brought an action card asks for
    the second action; else the reshuffle is offered again and step 2 follows (no action
    card at all: the block comes at once)."""
    if kind == NO_ACTION:
        if second != 0:
            return OFFER_DRAW
        return ask(st, D_BLOCK)
    st[S_ACTED] += 1
    fell = False
    if kind == ADJUST:
        fell = adjust(st, me, a)
    elif kind == ANYWHERE:
        anywhere(st, me)
    elif kind == REMOVE:
        fell = remove(st, me)
    else:
        swap(st, me, a, b, c)
    if fell:
        collapse(st, me, st[S_PILE_N], 1 if kind == ADJUST else 2)
        return ROUND_OVER
    if kind == SWAP and st[S_RECV + me] & st[S_HANDS + me] & ACT_MASK != 0:
        return ask(st, D_SECOND)
    return OFFER_DRAW


@inline
def play_block(st, me, card, x):
    """5. Place the block card with style x; a fall ends the round, else draw 1 card (2
    after an action card, 3 after a received one too) while the pile lasts."""
    h = st[S_PILE_N]
    if place(st, me, card, x):
        collapse(st, me, h, 0)
        return ROUND_OVER
    for _ in range(st[S_ACTED] + 1):
        if draw_one(st, me) < 0:
            break
    return TURN_OVER


@inline
def decide(st, act):
    """Check the pending decision's answer and, if it is legal, apply it; returns how
    that part of the turn ended, or REFUSED (nothing changed: ``refuse`` names it)."""
    kind, a, b, c = act
    me = st[S_ACTOR]
    ph = st[S_PHASE]
    if ph == D_BLOCK:
        if b != 0 or c != 0 or not block_legal(st, me, kind, a):
            return REFUSED
        return play_block(st, me, kind, a)
    if ph == D_ACTION or ph == D_SECOND:
        second = 1 if ph == D_SECOND else 0
        # most turns play no action card: that answer is checked without a call
        if (kind != NO_ACTION or a != 0 or b != 0 or c != 0) and \
                not action_legal(st, me, kind, a, b, c, second):
            return REFUSED
        return play_action(st, me, kind, a, b, c, second)
    if ph == D_RESHUFFLE:
        if (kind != 0 and kind != 1) or a != 0 or b != 0 or c != 0:
            return REFUSED
        if kind != 0:
            reshuffle(st, me)
        return DRAW
    return REFUSED


@inline
def refuse(st, act):
    """An illegal answer is an error naming the decision, the seat and the answer."""
    kind, a, b, c = act
    me = st[S_ACTOR]
    ph = st[S_PHASE]
    if ph == D_BLOCK:
        illegal2("block and style", "card,style", me, kind, a)
    if ph == D_ACTION:
        illegal4("action card", "kind,a,b,c", me, kind, a, b, c)
    if ph == D_SECOND:
        illegal4("second action card", "kind,a,b,c", me, kind, a, b, c)
    if ph == D_RESHUFFLE:
        illegal1("reshuffle", "use", me, kind)
    raise ValueError("block_tower: no decision is pending (the game is over)")


@inline
def carry_on(st, outcome):
    """Play on from a part of the turn that ended with ``outcome`` up to the next
    decision or the game's end: the draws up to a block card, the turn passing in the
    round's direction, a round's end and the next round's deal, the next turns' openings."""
    while outcome != PENDING:
        if outcome >= DRAW:
            outcome = draw_to_block(st, outcome - DRAW)
            continue
        if outcome == TURN_OVER:
            me = st[S_CUR]
            st[S_PREV] = me
            me += st[S_DIR]
            if me >= st[R_PLAYERS]:
                me -= st[R_PLAYERS]
            elif me < 0:
                me += st[R_PLAYERS]
            st[S_CUR] = me
        elif outcome == ROUND_OVER:
            if round_over(st):
                return
        outcome = open_turn(st)  # (NEW_TURN: the first turn of the game)


# ---------------------------------------------------------------- the model
#
# The game's code runs in one compiled helper, ``play_from`` (a fixed signature and no
# reference counting: sim/jit.py).  ``setup`` (a new game, no answer) and ``step`` only
# call it; ``play_from`` reports an illegal answer and ``step`` raises it (``refuse``,
# through ``illegalN``).  LLVM pastes the compiled helper into
# both (``paste``), and ``step`` into the engine's loop: one body compiled once, no call per
# decision (measured on one thread, 337,000 -> 411,000 games/s; pasted by numba instead,
# 434,000 but a cold compile twice as long, and reference counts in the search kernel).


@helper("boolean(ST, ACT, boolean)", paste=True)
def play_from(st, act, new_game):
    """The game from a new game's deal (new_game: the state cleared, round 0 dealt, the
    start seat's turn opened) or from the pending decision's answer ``act`` (checked,
    then applied), up to the next decision or the game's end.  False (and nothing
    changed) when the answer is illegal."""
    if new_game:
        st[S_TURN:S_ACTS] = 0  # every zone and the game's bookkeeping (not the scratch)
        new_round(st, 0)
        st[S_CUR] = st[S_START]
        outcome = NEW_TURN
    else:
        outcome = decide(st, act)
        if outcome == REFUSED:
            return False
    carry_on(st, outcome)
    return True


NO_ANSWER = (0, 0, 0, 0)  # setup's (unread) answer


@njit(cache=True, nogil=True, inline="always")
def setup(st):
    """A new game on the seeded generator, up to its first decision: ``deal`` then
    ``begin`` in the one pasted body of ``play_from``."""
    play_from(st, NO_ANSWER, True)


@njit(cache=True, nogil=True)
def deal(st):
    """``setup``'s first part (``play_from`` with a new game, up to round 0's deal): causal
    card power gives a card after it."""
    st[S_TURN:S_ACTS] = 0
    new_round(st, 0)
    st[S_CUR] = st[S_START]


@njit(cache=True, nogil=True)
def begin(st):
    """``setup``'s second part: the start seat's turn opens (its draws to a block card, the
    reshuffle offer), up to the first decision."""
    carry_on(st, NEW_TURN)


@helper("void(ST, ACT)", paste=True)
def step(st, act):
    """Apply the pending decision's answer ``act`` and play on to the next decision; an
    illegal answer is an error naming it."""
    if not play_from(st, act, False):
        refuse(st, act)


# ---------------------------------------------------------------- causal card power


@helper("boolean(ST, int64, int64)")
def has_type(st, c, t):
    """Card power's types: 1-, 2-, 3-point blocks (ranges of ids), then each action card."""
    if c >= ADJUST:
        return t == 3 + c - ADJUST
    if c < st[R_N1]:
        return t == 0
    if c < st[R_N12]:
        return t == 1
    return t == 2


@helper("void(ST)")
def after_give(st):
    """The ever-held masks follow the hands: before any decision a seat has held exactly
    its hand; and the public hand sizes (a swap of one card for another keeps them, but
    they are the hands' own count)."""
    for s in range(st[R_PLAYERS]):
        st[S_EVERH + s] = st[S_HANDS + s]
        st[S_HAND_N + s] = popcount(st[S_HANDS + s])


# ---------------------------------------------------------------- what the engine plays

# the rules functions the engine, the search player and card power are bound to (sim/bind.py)
RULES = Rules(setup=setup, deal=deal, begin=begin, step=step, legal=legal, progress=progress,
              restrict_bits=restrict_bits, legal_key=legal_key, legal_count=legal_count,
              has_type=has_type, after_give=after_give)
