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
from cardlab.sim.crazy_eights import layout as L
from cardlab.sim.crazy_eights.moves import (
    can_draw, draw, is_legal, legal, more_features, penalty, play_card, playable, progress,
    restrict_bits, take, under_limit,
)
from cardlab.sim.events import emit
from cardlab.sim.game import Rules
from cardlab.sim.jit import helper, illegal4, inline
from cardlab.sim.piles import bury_top, new_deck, pile_pop, pile_push, pile_top
from cardlab.sim.rng import below

# ---------------------------------------------------------------- setup


@inline
def deal_one(st, s):
    """Seat ``s`` is dealt the stock's top card (the end of the shuffled array)."""
    c = pile_pop(st, L.S_STOCK, L.S_STOCK_N)
    take(st, s, c)
    emit(st, L.ENGINE, L.EV_DEAL, -1, s, c)


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
    st[L.S_RULES + L.N_RULES:L.S_SIZE] = 0
    P = st[L.R_PLAYERS]
    new_deck(st, L.S_STOCK, L.S_STOCK_N, L.NCARDS, 1)
    rounds = st[L.R_HAND_SIZE]
    last_from = rounds - st[L.R_LAST_SEAT_FEWER]  # the first round the last seat sits out
    for r in range(rounds):
        for s in range(P):
            if s == P - 1 and r >= last_from:
                continue
            deal_one(st, s)
    for _ in range(st[L.R_FIRST_SEAT_EXTRA]):
        deal_one(st, 0)


@inline
def turn_starter(st):
    """The next card, face up, starts the discard pile.  An 8 (starter_eight=rebury) goes
    back into the stock under a uniformly chosen number of cards, at least one (so the
    next card turned is another), and the next card is turned; kept, any card may follow it."""
    c = pile_top(st, L.S_STOCK, L.S_STOCK_N)
    while c % 13 == L.EIGHT and st[L.R_REBURY] != 0:
        # a uniform place among the cards under it, at least one above it
        bury_top(st, L.S_STOCK, L.S_STOCK_N, below(st, st[L.S_STOCK_N] - 1))
        emit(st, L.ENGINE, L.EV_STARTER, -1, c, 1)
        c = pile_top(st, L.S_STOCK, L.S_STOCK_N)
    pile_push(st, L.S_DISCARD, L.S_DISC_N, pile_pop(st, L.S_STOCK, L.S_STOCK_N))
    st[L.S_SUIT] = L.ANY if c % 13 == L.EIGHT else c // 13
    emit(st, L.ENGINE, L.EV_STARTER, -1, c, 0)


@inline
def begin(st):
    """After the deal (and a card given by causal card power): seat 0's turn."""
    turns(st, 0)


# ---------------------------------------------------------------- turns and the end


@inline
def game_over(st, mask, end):
    """The result: winners, length in turns; with score=points each winner scores the
    penalty points left in the losers' hands and each loser minus its own (0 at the cap)."""
    P = st[L.R_PLAYERS]
    lost = 0
    for s in range(P):
        if ((mask >> s) & 1) == 0:
            lost += penalty(st[L.S_HANDS + s])
    for s in range(P):
        pts = 0
        if st[L.R_POINTS] != 0 and end != L.END_CAP:
            pts = lost if (mask >> s) & 1 else -penalty(st[L.S_HANDS + s])
        st[L.S_SCORE + s] = pts
    shape.finish(st, L.ENGINE, mask, st[L.S_TURN], end == L.END_CAP, end)


@inline
def blocked(st):
    """Nobody can move: the seat(s) with the fewest penalty points in hand win (ties share)."""
    best = np.int64(1) << 62
    mask = np.int64(0)
    for s in range(st[L.R_PLAYERS]):
        pts = penalty(st[L.S_HANDS + s])
        if pts < best:
            best = pts
            mask = np.int64(0)
        if pts == best:
            mask |= np.int64(1) << s
    game_over(st, mask, L.END_BLOCKED)


@inline
def seek_play(st, me):
    """Seat ``me``'s turn from where it stands: with a legal card it decides (``L.D_PLAY``,
    True); without one it draws, one card at a time, until it has one; when it may not
    draw (no stock and no new one, or draw_limit cards drawn) it passes (False)."""
    while playable(st, me) == 0:
        if not (can_draw(st) and under_limit(st)):
            st[L.S_PASSES] += 1
            emit(st, L.ENGINE, L.EV_PASS, me, 0, 0)
            return False
        draw(st, me)
    st[L.S_PHASE] = L.D_PLAY
    return True


@inline
def turns(st, me):
    """Seat ``me``'s turn, and the next seats' while they pass, up to a decision.  The game
    is blocked after ``players`` passes in a row with nothing to draw; the turn cap ends it
    unfinished.  Every seat slot is a turn (a pass too)."""
    P = st[L.R_PLAYERS]
    while True:
        if st[L.S_PASSES] >= P and not can_draw(st):
            blocked(st)
            return
        if st[L.S_TURN] >= st[L.R_MAX_TURNS]:
            game_over(st, np.int64(0), L.END_CAP)
            return
        shape.turn_over(st, L.ENGINE, progress, st[L.S_TURN])  # the turn before ends
        st[L.S_TURN] += 1
        st[L.S_ACTOR] = me
        st[L.S_DRAWN] = 0
        if seek_play(st, me):
            return
        me = me + 1 if me + 1 < P else 0


# ---------------------------------------------------------------- the model


@helper("void(ST, ACT)", paste=True)
def step(st, act):
    """Carry out the pending seat's answer and play on to the next decision; an illegal
    answer raises, naming the decision, the seat and the answer (nothing changed)."""
    kind, a, b, c = act
    me = st[L.S_ACTOR]
    if not is_legal(st, kind, a, b, c):
        if st[L.S_PHASE] == L.D_CALL:
            illegal4("call", "suit,b,c,d", me, kind, a, b, c)
        illegal4("play", "kind,card,b,c", me, kind, a, b, c)
    if st[L.S_PHASE] == L.D_CALL:  # the 8 on the discard pile: the next seat follows the call
        st[L.S_SUIT] = kind
        emit(st, L.ENGINE, L.EV_PLAY, me, pile_top(st, L.S_DISCARD, L.S_DISC_N), kind)
    elif kind == L.A_DRAW:  # it could play before it drew: it still can, and decides again
        draw(st, me)
        return
    else:
        play_card(st, me, a)
        if st[L.S_HAND_N + me] == 0:  # out: the game is over at once (an 8 calls nothing)
            emit(st, L.ENGINE, L.EV_PLAY, me, a, -1)
            game_over(st, np.int64(1) << me, L.END_OUT)
            return
        if a % 13 == L.EIGHT:
            st[L.S_PHASE] = L.D_CALL
            return
        st[L.S_SUIT] = a // 13
        emit(st, L.ENGINE, L.EV_PLAY, me, a, -1)
    turns(st, me + 1 if me + 1 < st[L.R_PLAYERS] else 0)


# ---------------------------------------------------------------- what the engine plays

# the rules functions the engine, the search player and card power (by rank: after a give a
# seat has held the ranks in its hand, the binding's default) are bound to (sim/bind.py)
RULES = Rules(deal=deal, begin=begin, step=step, legal=legal, progress=progress, restrict_bits=restrict_bits,
              has_type=has_rank, more_features=more_features)
