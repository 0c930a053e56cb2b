"""Crazy Eights as a resumable step function, read top to bottom like the rulebook: the
deal, the starter, then turns in seat order: play a card that matches (an 8 and its call),
or draw until one can be played, or pass; until a seat is out of cards, the table is
blocked (every seat passed in a row and no card can be drawn), or the turn cap.

Two decisions (``layout.py``): ``D_PLAY`` (a legal card, or the optional draw) and
``D_CALL`` (the suit after an 8).  Where a turn stands lives in the state: the seat
(``S_ACTOR``), the cards it drew this turn (``S_DRAWN``), the passes in a row
(``S_PASSES``), the suit to follow (``S_SUIT``), so a copy of ``st`` at any decision,
mid-turn included, plays on exactly like the original.  ``RULES`` at the foot declares the
rules functions that ``sim/bind.py`` binds the shared engine, the search player and the
strategies to.
"""
import numpy as np

from cardlab.sim import shape
from cardlab.sim.cards52 import has_rank  # card power by rank: c % 13, as here
from cardlab.sim.crazy_eights.layout import (
    A_DRAW, ANY, D_CALL, D_PLAY, EIGHT, END_BLOCKED, END_CAP, END_OUT, ENGINE, EV_DEAL, EV_PASS,
    EV_PLAY, EV_STARTER, N_RULES, NCARDS, R_FIRST_SEAT_EXTRA, R_HAND_SIZE, R_LAST_SEAT_FEWER,
    R_MAX_TURNS, R_PLAYERS, R_POINTS, R_REBURY, S_ACTOR, S_DISCARD, S_DISC_N, S_DRAWN, S_HAND_N,
    S_HANDS, S_PASSES, S_PHASE, S_RULES, S_SCORE, S_SIZE, S_STOCK, S_STOCK_N, S_SUIT, S_TURN,
)
from cardlab.sim.crazy_eights.moves import (
    can_draw, draw, is_legal, legal, more_features, penalty, play_card, playable, progress,
    restrict_bits, take, top, under_limit,
)
from cardlab.sim.events import emit
from cardlab.sim.game import Rules
from cardlab.sim.jit import helper, illegal4, inline
from cardlab.sim.rng import below, shuffle

# ---------------------------------------------------------------- setup


@inline
def deal_one(st, s):
    """Seat ``s`` is dealt the stock's top card (the end of the shuffled array)."""
    n = st[S_STOCK_N] - 1
    st[S_STOCK_N] = n
    take(st, s, st[S_STOCK + n])
    emit(st, ENGINE, EV_DEAL, -1, s, st[S_STOCK + n])


@inline
def deal(st):
    """A new game: the hands, then the starter (causal card power gives a card after it)."""
    deal_hands(st)
    turn_starter(st)


@inline
def deal_hands(st):
    """Clear the state, shuffle the deck and deal ``hand_size`` cards to each seat, one at
    a time from seat 0, off the stock's top (the end of the shuffled array).  The
    compensation knobs (0: the printed deal, card for card) change only the counts: the
    last seat sits out the last ``last_seat_fewer`` rounds, and after the rounds seat 0 is
    dealt ``first_seat_extra`` cards more, one at a time, off the same top."""
    # everything but the generator and the rules: the zones, the engine's bookkeeping and
    # the strategies' memory (a strategy must start every game knowing nothing)
    st[S_RULES + N_RULES:S_SIZE] = 0
    P = st[R_PLAYERS]
    for c in range(NCARDS):
        st[S_STOCK + c] = c
    shuffle(st, S_STOCK, S_STOCK + NCARDS)
    st[S_STOCK_N] = NCARDS
    rounds = st[R_HAND_SIZE]
    last_from = rounds - st[R_LAST_SEAT_FEWER]  # the first round the last seat sits out
    for r in range(rounds):
        for s in range(P):
            if s == P - 1 and r >= last_from:
                continue
            deal_one(st, s)
    for _ in range(st[R_FIRST_SEAT_EXTRA]):
        deal_one(st, 0)


@inline
def turn_starter(st):
    """The next card, face up, starts the discard pile.  An 8 (starter_eight=rebury) goes
    back into the stock under a uniformly chosen number of cards, at least one (so the
    next card turned is another), and the next card is turned; kept, any card may follow it."""
    while True:
        n = st[S_STOCK_N] - 1
        c = st[S_STOCK + n]
        if c % 13 == EIGHT and st[R_REBURY] != 0:
            j = below(st, n)  # its place from the bottom among the n cards under it
            for i in range(n - 1, j - 1, -1):
                st[S_STOCK + i + 1] = st[S_STOCK + i]
            st[S_STOCK + j] = c
            emit(st, ENGINE, EV_STARTER, -1, c, 1)
            continue
        st[S_STOCK_N] = n
        st[S_DISCARD] = c
        st[S_DISC_N] = 1
        st[S_SUIT] = ANY if c % 13 == EIGHT else c // 13
        emit(st, ENGINE, EV_STARTER, -1, c, 0)
        return


@inline
def begin(st):
    """After the deal (and a card given by causal card power): seat 0's turn."""
    turns(st, 0)


# ---------------------------------------------------------------- turns and the end


@inline
def game_over(st, mask, end):
    """The result: winners, length in turns; with score=points each winner scores the
    penalty points left in the losers' hands and each loser minus its own (0 at the cap)."""
    P = st[R_PLAYERS]
    lost = 0
    for s in range(P):
        if ((mask >> s) & 1) == 0:
            lost += penalty(st[S_HANDS + s])
    for s in range(P):
        pts = 0
        if st[R_POINTS] != 0 and end != END_CAP:
            pts = lost if (mask >> s) & 1 else -penalty(st[S_HANDS + s])
        st[S_SCORE + s] = pts
    shape.finish(st, ENGINE, mask, st[S_TURN], end == END_CAP, end)


@inline
def blocked(st):
    """Nobody can move: the seat(s) with the fewest penalty points in hand win (ties share)."""
    best = np.int64(1) << 62
    mask = np.int64(0)
    for s in range(st[R_PLAYERS]):
        pts = penalty(st[S_HANDS + s])
        if pts < best:
            best = pts
            mask = np.int64(0)
        if pts == best:
            mask |= np.int64(1) << s
    game_over(st, mask, END_BLOCKED)


@inline
def seek_play(st, me):
    """Seat ``me``'s turn from where it stands: with a legal card it decides (``D_PLAY``,
    True); without one it draws, one card at a time, until it has one; when it may not
    draw (no stock and no new one, or draw_limit cards drawn) it passes (False)."""
    while playable(st, me) == 0:
        if not (can_draw(st) and under_limit(st)):
            st[S_PASSES] += 1
            emit(st, ENGINE, EV_PASS, me, 0, 0)
            return False
        draw(st, me)
    st[S_PHASE] = D_PLAY
    return True


@inline
def turns(st, me):
    """Seat ``me``'s turn, and the next seats' while they pass, up to a decision.  The game
    is blocked after ``players`` passes in a row with nothing to draw; the turn cap ends it
    unfinished.  Every seat slot is a turn (a pass too)."""
    P = st[R_PLAYERS]
    while True:
        if st[S_PASSES] >= P and not can_draw(st):
            blocked(st)
            return
        if st[S_TURN] >= st[R_MAX_TURNS]:
            game_over(st, np.int64(0), END_CAP)
            return
        shape.turn_over(st, ENGINE, progress, st[S_TURN])  # the turn before ends
        st[S_TURN] += 1
        st[S_ACTOR] = me
        st[S_DRAWN] = 0
        if seek_play(st, me):
            return
        me = me + 1 if me + 1 < P else 0


# ---------------------------------------------------------------- the model


@helper("boolean(ST, int64, int64, int64, int64)", paste=True)
def apply(st, kind, a, b, c):
    """Carry out the pending seat's answer and play on to the next decision; False (and
    nothing changed) when the decision does not allow it.  A helper, so the turns are
    compiled once without reference counting, and pasted by LLVM into ``step``."""
    if not is_legal(st, kind, a, b, c):
        return False
    me = st[S_ACTOR]
    if st[S_PHASE] == D_CALL:  # the 8 on the discard pile: the next seat follows the call
        st[S_SUIT] = kind
        emit(st, ENGINE, EV_PLAY, me, top(st), kind)
    elif kind == A_DRAW:  # it could play before it drew: it still can, and decides again
        draw(st, me)
        return True
    else:
        play_card(st, me, a)
        if st[S_HAND_N + me] == 0:  # out: the game is over at once (an 8 calls nothing)
            emit(st, ENGINE, EV_PLAY, me, a, -1)
            game_over(st, np.int64(1) << me, END_OUT)
            return True
        if a % 13 == EIGHT:
            st[S_PHASE] = D_CALL
            return True
        st[S_SUIT] = a // 13
        emit(st, ENGINE, EV_PLAY, me, a, -1)
    turns(st, me + 1 if me + 1 < st[R_PLAYERS] else 0)
    return True


@helper("void(ST, ACT)", paste=True)
def step(st, act):
    """Apply the pending seat's answer and play on (``apply``); an illegal one raises,
    naming the decision, the seat and the answer."""
    kind, a, b, c = act
    if not apply(st, kind, a, b, c):
        if st[S_PHASE] == D_CALL:
            illegal4("call", "suit,b,c,d", st[S_ACTOR], kind, a, b, c)
        illegal4("play", "kind,card,b,c", st[S_ACTOR], kind, a, b, c)


# ---------------------------------------------------------------- what the engine plays

# the rules functions the engine, the search player and card power (by rank: after a give a
# seat has held the ranks in its hand, the binding's default) are bound to (sim/bind.py)
RULES = Rules(deal=deal, begin=begin, step=step, legal=legal, progress=progress, restrict_bits=restrict_bits,
              has_type=has_rank, more_features=more_features)
