"""Compiled re-deals of what a seat cannot see: ``determinize`` for the search player.

``sim/observe.py`` re-deals a position in plain Python for tests; the search player
(``sim/search.py``) needs one per iteration, so this is the same re-deal compiled, driven
by the table the schema derives from its visibility (``S.redeal_table()``, sealed into
every layout as ``REDEAL``): one row per zone some seat may not see,

    offset, size (words per owner), encoding, counter offset (-1: none), counter per seat
    (0/1), one block per seat (0/1), visibility

The pool of hidden cards is **sorted** before it is shuffled, so a re-deal depends only on
which cards the seat cannot see, never on where they really are (a search that re-deals
the real position and one that re-deals any re-dealt copy of it sample the same worlds
from the same random numbers: that is why the search player passes the honesty test).
The random numbers come from the deciding seat's own stream; the copy's chance stream,
every seat's stream and the seed words are drawn afresh from it too.

A TABLE zone (3UP's hand by type) is read and written by the game's two compiled hooks
``table_cards(st, offset, seat, pool, k) -> k`` and ``table_put(st, offset, seat, pool,
k, n)``; a game without hidden TABLE zones passes ``no_table_cards`` / ``no_table_put``.

A card the rules showed one seat alone (a book for its eyes, ``Schema.shown_parts``: what
a Priest saw in a hand) is dealt afresh with the rest; the game's compiled hook
``honour_shown(src, dst, seat)`` then swaps cards among the places hidden from the seat so
that what it was shown holds (the looked-at seat holds a card of the type seen); the same
hook keeps what every seat saw go into a hidden place, from a public book (3UP's
picked-up pile stays in its hand: ``three_up/kernel.honour_shown``).  It runs after the
hidden books, the other seats' memory and the pile tails are cleared, reads only what the
seat sees (its own book, public books) and the world, and draws any choice from the
seat's stream in ``src`` (``seat_below(src, seat, n)``, n at least 1), so the world still
depends only on what the seat knows.
"""
import numpy as np
from numba import njit

from cardlab.sim.jit import helper
from cardlab.sim.rng import SEAT_RNG, SEED_AT, seat_below, seat_next_u64
from cardlab.sim.schema import DERIVED as CLEAR_DERIVED  # a clear-table row of a derived book

# encodings and visibilities as numbers (the schema's names, in this order)
ENC_PILE, ENC_COUNTS, ENC_SLOTS, ENC_MASK, ENC_TABLE = 0, 1, 2, 3, 4
VIS_PUBLIC, VIS_OWNER, VIS_NOBODY = 0, 1, 2
RW = 7  # numbers per row of a redeal table
# causal card power's arms and what a give returns (sim/give.py), here in the core so that a
# game giving a card its own way (5 Towers' give_card, in its rules) can name them
ARM_OUT, ARM_IN = 0, 1
GAVE_NONE, GAVE_SWAPPED, GAVE_AS_DEALT = 0, 1, 2


@helper("int64(ST, int64, int64, ST, int64)")
def no_table_cards(st, offset, seat, pool, k):
    """A game without hidden TABLE zones: nothing to read."""
    return k


@helper("void(ST, int64, int64, ST, int64, int64)")
def no_table_put(st, offset, seat, pool, k, n):
    """A game without hidden TABLE zones: nothing to write."""
    return


@helper("void(ST, ST, int64)", paste=True)
def no_honour_shown(src, dst, seat):
    """A game whose rules show no seat a hidden card alone: nothing to honour (pasted: no
    call in every re-deal of the search)."""
    return


@njit(cache=True, nogil=True, inline="always")
def hidden_block(tab, r, seat, owner):
    """Row r's block of ``owner`` (or its only block, owner -1) is hidden from ``seat``."""
    vis = tab[r, 6]
    return vis == VIS_NOBODY or (vis == VIS_OWNER and owner != seat)


@njit(cache=True, nogil=True, inline="always")
def block_cards(st, tab, r, owner, pool, k, table_cards):
    """Append the cards of row r's block (of ``owner``) to pool[k:]; returns the new k."""
    o = tab[r, 0] + (owner * tab[r, 1] if tab[r, 5] != 0 else 0)
    size = tab[r, 1]
    enc = tab[r, 2]
    if enc == ENC_PILE:
        n = st[tab[r, 3] + (owner if tab[r, 4] != 0 else 0)]
        for i in range(n):
            pool[k] = st[o + i]
            k += 1
    elif enc == ENC_COUNTS:
        for t in range(size):
            for _ in range(st[o + t]):
                pool[k] = t
                k += 1
    elif enc == ENC_SLOTS:
        for i in range(size):
            if st[o + i] >= 0:
                pool[k] = st[o + i]
                k += 1
    elif enc == ENC_MASK:
        for w in range(size):
            m = st[o + w]
            for b in range(63):
                if (m >> b) & 1:
                    pool[k] = 63 * w + b
                    k += 1
    else:
        k = table_cards(st, tab[r, 0], owner, pool, k)
    return k


@njit(cache=True, nogil=True, inline="always")
def put_block(st, tab, r, owner, pool, k, n, table_put):
    """Write pool[k:k+n] into row r's block (of ``owner``), which held n cards."""
    o = tab[r, 0] + (owner * tab[r, 1] if tab[r, 5] != 0 else 0)
    size = tab[r, 1]
    enc = tab[r, 2]
    if enc == ENC_PILE:
        for i in range(n):
            st[o + i] = pool[k + i]
    elif enc == ENC_COUNTS:
        for t in range(size):
            st[o + t] = 0
        for i in range(n):
            st[o + pool[k + i]] += 1
    elif enc == ENC_SLOTS:
        j = k
        for i in range(size):
            if st[o + i] >= 0:
                st[o + i] = pool[j]
                j += 1
    elif enc == ENC_MASK:
        for w in range(size):
            st[o + w] = 0
        for i in range(n):
            c = pool[k + i]
            st[o + c // 63] |= np.int64(1) << (c % 63)
    else:
        table_put(st, tab[r, 0], owner, pool, k, n)


@njit(cache=True, nogil=True, inline="always")
def clear_hidden(dst, seat, players, clear):
    """Leave nothing behind (the schema's ``CLEAR`` table, ``Schema.clear_table``): zero
    every hidden part outside the zones that the game does not re-make (the rules' books,
    the other seats' memory; of a book it re-makes, the blocks of seats the game does not
    have) and the unused tail of every pile (what left it)."""
    for r in range(clear.shape[0]):
        size = clear[r, 1]
        for owner in range(clear[r, 2]):
            o = clear[r, 0] + owner * size
            if clear[r, 4] >= 0:
                lo = dst[clear[r, 4] + (owner if clear[r, 5] != 0 else 0)]
            elif clear[r, 3] == VIS_NOBODY or (clear[r, 3] == VIS_OWNER and owner != seat) or \
                    (clear[r, 3] == CLEAR_DERIVED and owner >= players):
                lo = 0
            else:
                lo = size  # the seat's own block, or a derived book the game re-makes
            for i in range(lo, size):
                dst[o + i] = 0


@njit(cache=True, nogil=True, inline="always")
def determinize(src, dst, seat, players, tab, clear, pool, counts, table_cards, table_put, honour_shown):
    """Re-deal in ``dst``, a copy of ``src`` (the caller copies it, leaving out what it
    never reads: ``sim/search.copy_position``), everything ``seat`` cannot see (the cards
    of ``tab``'s zones; what ``clear`` names is cleared: ``clear_hidden``), drawing
    from ``seat``'s own stream in ``src`` (which advances); last the game's
    ``honour_shown(src, dst, seat)`` makes the world agree with what the rules showed the
    seat alone (``no_honour_shown`` for a game that shows none).  ``pool`` and ``counts``
    are scratch arrays (room for every card, and for one count per hidden block)."""
    # gather the hidden cards, block by block, remembering how many each held
    k = 0
    nb = 0
    for r in range(tab.shape[0]):
        for owner in range(players if tab[r, 5] != 0 else 1):
            who = owner if tab[r, 5] != 0 else -1
            if hidden_block(tab, r, seat, who):
                k2 = block_cards(src, tab, r, owner, pool, k, table_cards)
                counts[nb] = k2 - k
                nb += 1
                k = k2
    # sorted, then shuffled: the world depends only on which cards are unseen
    pool[:k].sort()
    for i in range(k - 1, 0, -1):
        j = seat_below(src, seat, i + 1)
        t = pool[i]
        pool[i] = pool[j]
        pool[j] = t
    # deal them back into the same blocks in the same numbers
    k = 0
    nb = 0
    for r in range(tab.shape[0]):
        for owner in range(players if tab[r, 5] != 0 else 1):
            who = owner if tab[r, 5] != 0 else -1
            if hidden_block(tab, r, seat, who):
                put_block(dst, tab, r, owner, pool, k, counts[nb], table_put)
                k += counts[nb]
                nb += 1
    clear_hidden(dst, seat, players, clear)
    honour_shown(src, dst, seat)  # what the seat was shown holds in the world too
    # the future: the chance stream, the other seats' streams, the seed words
    for i in range(4):
        dst[i] = np.int64(seat_next_u64(src, seat) >> np.uint64(1)) | 1
    for s in range(players):  # its own too: every future choice in the world is drawn afresh
        for i in range(4):
            dst[SEAT_RNG + 4 * s + i] = np.int64(seat_next_u64(src, seat) >> np.uint64(1)) | 1
    for i in range(SEAT_RNG + 4 * players, SEED_AT):  # no seat there: an unseeded stream
        dst[i] = 0
    dst[SEED_AT] = np.int64(seat_next_u64(src, seat) >> np.uint64(1))
    dst[SEED_AT + 1] = np.int64(seat_next_u64(src, seat) >> np.uint64(1))
