"""Smokestack as a resumable step function, read top to bottom like the rulebook: setup
(deal, center, stock, setup chimneys), then turns of the mover — the stalled-table
check, the sweep question, a double chimney, the swap or pass — until the stock is
empty or the turn cap hits.

The pending decision is ``st[S_PHASE]``, asked of seat ``st[S_ACTOR]``; in a turn's order:

- ``D_STALL``: after ``players`` turns in a row without a swap, the next mover picks the
  two center slots to replace (before its sweep question; a stall is not a turn);
- ``D_SWEEP``: every seat that may still call, in seat order from the mover
  (``st[S_CUR]``), until ``sweeps_per_turn`` sweeps were called;
- ``D_DOUBLE``: the mover, when a double chimney is legal;
- ``D_SWAP``: the mover swaps or passes, which ends its turn.

Two compensation knobs (not in the rulebook: balancing options whose defaults are the
printed game) act here: ``first_turn_no_double`` skips the double chimney of seats 1..n's
first turns, and ``ties`` breaks a tie for the most chimneys in ``game_over``.

``step`` applies the answer and plays every chance event after it (deals, chimney
replacements, the stall's reshuffle) up to the next decision, or ends the game.  Where
the sweep question stands (``S_ASK_K``, ``S_SWEPT``) lives in the state, so a copy of
``st`` at any decision plays on exactly like the original.  ``RULES`` at the foot declares the
rules functions that ``sim/bind.py`` binds the shared engine, the search player and the
strategies to.
"""
import numpy as np

from cardlab.sim import shape
from cardlab.sim.smokestack.moves import progress
from cardlab.sim.jit import helper, illegal1, illegal2, illegal4, inline
from cardlab.sim.rng import shuffle
from cardlab.sim.smokestack.layout import (
    A_SWAP, D_DOUBLE, D_STALL, D_SWAP, D_SWEEP, END_CAP, END_STOCK, ENGINE, EV_PASS, NCARDS,
    R_FIRST_TURN_NO_DOUBLE, R_MAX_TURNS, R_PLAYERS, R_SWEEPS_PER_PLAYER, R_SWEEPS_PER_TURN, R_TIES,
    S_ACTOR, S_ACTS, S_ASK_K, S_BVER, S_CENTER, S_CUR, S_NCH, S_NLAY, S_OVER, S_PASSES, S_PHASE,
    S_SCORE, S_STOCK, S_STOCK_N, S_SWEEPS, S_SWEPT, S_TURN, TIES_LATER_SEAT, TIES_SHARE, ZONES_END,
)
from cardlab.sim.smokestack.moves import (  # noqa: F401 - legal: the model's, for callers
    can_double, deal_layout, double, double_legal, emit, legal, settle, stall, stall_legal,
    swap, swap_legal, sweep, sweep_legal,
)
from cardlab.sim.game import Rules
from cardlab.sim.smokestack.layout import MAXCH, MAXL, NT, S_CH, S_HELD, S_LAY
from cardlab.sim.smokestack.moves import restrict_bits


# ---------------------------------------------------------------- setup


@inline
def deal(st):
    """Clear the state, shuffle the deck, deal 4 cards to each seat from seat 1 round to
    the dealer (seat 0), then the center; then setup chimneys, seat 1 first."""
    # reset what a game reads before writing (the stock is written before it is read;
    # the action buffer is written by ``legal`` before it is read)
    st[S_STOCK_N:S_STOCK] = 0
    st[ZONES_END:S_ACTS] = 0
    st[S_CENTER:S_CENTER + 4] = -1  # empty until dealt
    P = st[R_PLAYERS]
    for c in range(NCARDS):
        st[S_STOCK + c] = c
    shuffle(st, S_STOCK, S_STOCK + NCARDS)
    st[S_STOCK_N] = NCARDS
    for k in range(1, P + 1):
        s = k if k < P else 0
        st[S_NLAY + s] = 1
        deal_layout(st, s, 0)
    deal_layout(st, -1, 0)
    for k in range(1, P + 1):
        settle(st, k if k < P else 0, 0)


@inline
def begin(st):
    """After the deal (and a card given by causal card power): seat 1's turn (the seat
    left of the dealer) begins."""
    begin_turn(st, 1 if st[R_PLAYERS] > 1 else 0)


# ---------------------------------------------------------------- turns


@inline
def turns_taken(st, s):
    """Turns seat ``s`` took so far: turn t = 1, 2, ... is seat t mod P's (seat 1 moves
    first, the dealer, seat 0, last), so a game that ends mid-round leaves the seats
    after the last mover one turn short.  A turn counts from its double or swap decision
    on (``S_TURN``), even when the stock ran out during it."""
    P = st[R_PLAYERS]
    k = s - 1 if s > 0 else P - 1  # the seat's place in turn order
    return (st[S_TURN] + P - 1 - k) // P


@inline
def break_tie(st, mask):
    """The winners of a tie for the most chimneys (``mask``: two seats or more) under the
    ``ties`` compensation knob: ``later_seat``, the one tied seat latest in turn order (the
    dealer if tied, else the highest tied seat number); ``fewer_turns``, the tied seats
    that took the fewest turns (still a shared win when they took as many)."""
    P = st[R_PLAYERS]
    if st[R_TIES] == TIES_LATER_SEAT:
        s = 0 if mask & 1 else P - 1
        while (mask >> s) & 1 == 0:
            s -= 1
        return np.int64(1) << s
    fewest = st[S_TURN] + 1
    for s in range(P):
        if (mask >> s) & 1:
            fewest = min(fewest, turns_taken(st, s))
    out = np.int64(0)
    for s in range(P):
        if (mask >> s) & 1 and turns_taken(st, s) == fewest:
            out |= np.int64(1) << s
    return out


@inline
def game_over(st):
    """The result: the most chimneys win (ties share the win, 0 chimneys too, unless the
    ``ties`` compensation knob breaks them); the game is unfinished when the cap, not the
    empty stock, ended it.  No decision pending."""
    P = st[R_PLAYERS]
    best = 0
    for s in range(P):
        st[S_SCORE + s] = st[S_NCH + s]
        best = max(best, st[S_NCH + s])
    mask = np.int64(0)
    for s in range(P):
        if st[S_NCH + s] == best:
            mask |= np.int64(1) << s
    if st[R_TIES] != TIES_SHARE and mask & (mask - 1) != 0:
        mask = break_tie(st, mask)
    unfinished = st[S_OVER] == 0
    shape.finish(st, ENGINE, mask, st[S_TURN], unfinished, END_CAP if unfinished else END_STOCK)


@inline
def begin_turn(st, me):
    """Seat ``me`` is the next mover.  An empty stock or the turn cap ends the game
    first; a table stalled by ``players`` passes in a row makes ``me`` choose the stall
    (``D_STALL``) before its turn; otherwise the sweep question begins."""
    if st[S_OVER] != 0 or st[S_TURN] >= st[R_MAX_TURNS]:
        game_over(st)
        return
    if st[S_PASSES] >= st[R_PLAYERS]:
        st[S_PHASE] = D_STALL
        st[S_ACTOR] = me
        return
    sweep_question(st, me)


@inline
def sweep_question(st, me):
    """Before mover ``me``'s turn every seat is asked, in seat order from the mover,
    whether it calls a sweep."""
    st[S_CUR] = me
    st[S_BVER] += 1  # layouts do not change during the question until a sweep
    st[S_SWEPT] = 0
    ask_sweep_from(st, 0)


@inline
def ask_sweep_from(st, k):
    """The sweep question goes on with the k-th seat from the mover (seats that used up
    ``sweeps_per_player`` are not asked), until ``sweeps_per_turn`` sweeps were called
    or every seat was asked; then the turn proper: the mover's double chimney when one
    is legal (``D_DOUBLE``), else its swap (``D_SWAP``).  Turns 1..n are seats 1..n's first
    turns: with the ``first_turn_no_double`` compensation knob (n, 0 as printed) they
    have no double chimney."""
    P = st[R_PLAYERS]
    me = st[S_CUR]
    per_player = st[R_SWEEPS_PER_PLAYER]
    if st[S_SWEPT] < st[R_SWEEPS_PER_TURN]:
        while k < P:
            s = me + k
            if s >= P:
                s -= P
            if per_player < 0 or st[S_SWEEPS + s] < per_player:
                st[S_ASK_K] = k
                st[S_PHASE] = D_SWEEP
                st[S_ACTOR] = s
                return
            k += 1
    shape.turn_over(st, ENGINE, progress, st[S_TURN])  # the turn before (and this question) ends
    st[S_TURN] += 1
    st[S_ACTOR] = me
    no_double = st[S_TURN] <= st[R_FIRST_TURN_NO_DOUBLE]  # turn t <= n: seat t's first
    st[S_PHASE] = D_DOUBLE if not no_double and can_double(st, me) else D_SWAP


# ---------------------------------------------------------------- the answers


@inline
def answer_sweep(st, s, call):
    """Seat ``s`` calls the sweep (1) or not (0): every seat receives the layouts of the
    seat on its left; the question goes on with the next seat."""
    if not sweep_legal(st, s, call):
        illegal1("sweep", "call", s, call)
    if call != 0:
        sweep(st, s)
        st[S_BVER] += 1
        st[S_SWEPT] += 1
    ask_sweep_from(st, st[S_ASK_K] + 1)


@inline
def answer_double(st, me, l):
    """The mover declares layout ``l`` a double chimney (-1: none): a new layout is dealt
    (and checked), which can end the game; then the mover swaps or passes."""
    if l != -1:
        if not double_legal(st, me, l):
            illegal1("double chimney", "layout", me, l)
        double(st, me, l)
        if st[S_OVER] != 0:
            game_over(st)
            return
    st[S_PHASE] = D_SWAP


@inline
def answer_swap(st, me, act):
    """The mover's swap (center card j into slot i of layout l; a completed chimney is
    replaced at once) or pass; a swap restarts the count of passes."""
    kind, l, i, j = act
    if not swap_legal(st, me, kind, l, i, j):
        illegal4("swap", "kind,layout,i,j", me, kind, l, i, j)
    if kind == A_SWAP:
        st[S_PASSES] = 0
        swap(st, me, l, i, j)
    else:
        st[S_PASSES] += 1
        emit(st, EV_PASS, me, 0, 0, 0, 0, 0, 0)


@inline
def answer_stall(st, me, a, b):
    """The next mover's stall: center slots a then b get the top stock cards."""
    if not stall_legal(st, me, a, b):
        illegal2("stall slots", "a,b", me, a, b)
    stall(st, me, a, b)
    st[S_PASSES] = 0


# ---------------------------------------------------------------- the model


@helper("void(ST, ACT)", paste=True)
def step(st, act):
    """Apply the pending seat's answer, then play on to the next decision: a swap or pass
    ends the turn (the next seat's turn begins; an empty stock ends the game), a stall
    is followed by the mover's sweep question (or the end, when it took the last stock
    card)."""
    ph = st[S_PHASE]
    me = st[S_ACTOR]
    if ph == D_SWEEP:  # the most frequent decision: every seat, every turn
        answer_sweep(st, me, act[0])
    elif ph == D_SWAP:
        answer_swap(st, me, act)
        begin_turn(st, me + 1 if me + 1 < st[R_PLAYERS] else 0)
    elif ph == D_DOUBLE:
        answer_double(st, me, act[0])
    else:
        answer_stall(st, me, act[0], act[1])
        if st[S_OVER] != 0:
            game_over(st)
        else:
            sweep_question(st, me)


# ---------------------------------------------------------------- causal card power


@helper("boolean(ST, int64, int64)")
def has_type(st, c, t):
    return (c >> 2) == t  # card power by rank


@helper("int64(ST, int64, int64, ST, int64)")
def lay_cards(st, offset, seat, pool, k):
    """Seat's layout cards (the first nlay layouts, empty slots skipped) into pool[k:]."""
    o = S_LAY + seat * MAXL * 4
    for i in range(st[S_NLAY + seat] * 4):
        if st[o + i] >= 0:
            pool[k] = st[o + i]
            k += 1
    return k


@helper("void(ST, int64, int64, ST, int64, int64)")
def lay_put(st, offset, seat, pool, k, n):
    """pool[k:k+n] back into seat's layout slots that held cards, in order."""
    o = S_LAY + seat * MAXL * 4
    j = k
    for i in range(st[S_NLAY + seat] * 4):
        if st[o + i] >= 0:
            st[o + i] = pool[j]
            j += 1


@helper("boolean(ST, int64, int64)")
def chimney_holds(st, seat, t):
    """Seat's setup chimneys hold a card of rank t (the seat holds it, outside its layout)."""
    for i in range(st[S_NCH + seat] * 4):
        if (st[S_CH + seat * MAXCH * 4 + i] >> 2) == t:
            return True
    return False


@helper("void(ST)")
def after_give(st):
    """A layout the swap made a chimney is set aside and replaced, as at setup (seat 1
    first); the card-power bits follow the cards each seat was dealt: its layouts and its
    setup chimneys."""
    P = st[R_PLAYERS]
    for k in range(1, P + 1):
        settle(st, k if k < P else 0, 0)
    for s in range(P):
        for t in range(NT):
            st[S_HELD + s * NT + t] = 0
        for i in range(st[S_NLAY + s] * 4):
            c = st[S_LAY + s * MAXL * 4 + i]
            if c >= 0:
                st[S_HELD + s * NT + (c >> 2)] = 1
        for i in range(st[S_NCH + s] * 4):
            st[S_HELD + s * NT + (st[S_CH + s * MAXCH * 4 + i] >> 2)] = 1


# ---------------------------------------------------------------- what the engine plays

# the rules functions the engine, the search player and card power are bound to (sim/bind.py)
RULES = Rules(deal=deal, begin=begin, step=step, legal=legal, progress=progress, restrict_bits=restrict_bits,
              table_cards=lay_cards, table_put=lay_put, has_type=has_type, after_give=after_give,
              also_holds=chimney_holds)
