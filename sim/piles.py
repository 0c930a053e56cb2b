"""Piles of cards: compiled helpers over a ``PILE`` zone of the state and its counter.

A pile is a schema zone with ``encoding=PILE`` and ``count=`` a counter
(``S.zone("stock", NCARDS, ..., encoding=PILE, count="stock_n")``): its cards lie at
``st[at:at + st[n_at]]``, **bottom first**, so the top card is the last one and taking it
is one decrement.  Every helper takes the zone's offset ``at`` and its counter's ``n_at``
(the layout's ``S_STOCK, S_STOCK_N``); none checks that the pile has a card or room for
one, which the rules know better (a stock that may be empty is asked ``st[n_at] > 0``
first).  The only draws from the game's chance stream are ``rng.shuffle``'s (``new_deck``,
``restock``), over the same range a loop and a ``shuffle`` of one's own would draw for, so
a game moved onto these helpers deals the same cards (Crazy Eights did, its golden files
unchanged).

- ``pile_top(st, at, n_at)``: the top card (the pile is not empty);
- ``pile_pop(st, at, n_at)``: the top card, taken off;
- ``pile_push(st, at, n_at, c)``: card ``c`` onto the top;
- ``new_deck(st, at, n_at, types, copies)``: ``copies`` cards of each type ``0..types-1``
  into the (empty) pile, shuffled: a fresh deck (``types=52, copies=1`` for one standard
  deck);
- ``restock(st, at, n_at, pile, pile_n)``: an empty pile (the stock) is renewed from
  another (the discard pile): all its cards but the top one, shuffled; the top card stays
  where it was, alone.  Returns the number of cards moved;
- ``bury_top(st, at, n_at, j)``: the top card goes back into the pile with ``j`` cards
  under it (the cards from place ``j`` up move one up; ``j`` at most ``st[n_at] - 1``,
  which leaves it on top): a starter buried again at a random depth, with at least one
  card above it, is ``bury_top(st, at, n_at, below(st, st[n_at] - 1))`` (Crazy Eights).
"""
from cardlab.sim.jit import helper
from cardlab.sim.rng import shuffle


@helper("int64(ST, int64, int64)", paste=True)
def pile_top(st, at, n_at):
    return st[at + st[n_at] - 1]


@helper("int64(ST, int64, int64)", paste=True)
def pile_pop(st, at, n_at):
    n = st[n_at] - 1
    st[n_at] = n
    return st[at + n]


@helper("void(ST, int64, int64, int64)", paste=True)
def pile_push(st, at, n_at, c):
    st[at + st[n_at]] = c
    st[n_at] += 1


@helper("void(ST, int64, int64, int64, int64)", paste=True)
def new_deck(st, at, n_at, types, copies):
    n = 0
    for t in range(types):
        for _ in range(copies):
            st[at + n] = t
            n += 1
    shuffle(st, at, at + n)
    st[n_at] = n


@helper("int64(ST, int64, int64, int64, int64)", paste=True)
def restock(st, at, n_at, pile, pile_n):
    n = st[pile_n] - 1
    for i in range(n):
        st[at + i] = st[pile + i]
    st[pile] = st[pile + n]
    st[pile_n] = 1
    shuffle(st, at, at + n)
    st[n_at] = n
    return n


@helper("void(ST, int64, int64, int64)", paste=True)
def bury_top(st, at, n_at, j):
    top = at + st[n_at] - 1
    c = st[top]
    for i in range(top - 1, at + j - 1, -1):
        st[i + 1] = st[i]
    st[at + j] = c
