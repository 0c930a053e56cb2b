"""A seat's observation as a fixed-length vector of numbers, for every game, from its schema.

A learned evaluation (issue 38) needs to see a position as the deciding seat sees it, as
numbers, and nothing more.  The recipe is derived from the declared visibility alone
(``Schema.feature_table``: no per-game code): the rule vector, the public counters and
books, every public zone, and the seat's own blocks of its OWNER parts; a hidden part adds
nothing (what a seat knows of it, a pile's size, a hand's count, is a public counter of its
own).  A zone of cards (a pile, slots, a bit mask) becomes how many cards of each card type
it holds (the game's ``has_type``, the types of card power: 5 Towers' card counts once by
value and once by kind) and how many in all; numbers, counts by type and a game's own rows
(``TABLE``) are copied; a game may add numbers of its own after them (``S.more_features``
names them, its ``more_features`` hook writes them: Crazy Eights' suits).  A per-seat part
takes ``maxp`` blocks, the observer's first and then the seats after it in play order,
zeros past the table's seats and where the observer may not look, so a vector means the
same situation whichever seat sees it.

Honest by construction, and proven: ``sim/audit.check_features`` runs this function as plain
Python over the audit's watched state for every seat of random positions (no read of a word
the seat may not see), and a test checks that positions a seat cannot tell apart (its
re-dealt twins) give the same vector.  ``Game.features(st, seat)`` is the call from Python,
``Game.binding().features(st, me, out)`` the compiled one.
"""
import numpy as np
from numba import njit

from cardlab.sim.jit import helper
from cardlab.sim.redeal import ENC_COUNTS, ENC_MASK, ENC_PILE, ENC_SLOTS, ENC_TABLE

ENCODING = 1  # the recipe's version: bump it when a change gives a feature name another meaning (sim/models.py)
ENC_VALUES = 5
FW = 10  # numbers per row of a feature table (Schema.feature_table)
PLAIN, SEAT, FLOAT = 0, 1, 2  # what a row's numbers are (Schema.numbers)


@helper("boolean(ST, int64, int64)")
def no_types(st, c, t):
    """A game that declares no card types (no ``has_type`` in its RULES): its card zones
    count cards only."""
    return False


@njit(cache=True, nogil=True, inline="always")
def no_more(st, me, out, at):
    """A game that adds no numbers of its own to the observation vector."""
    return


@njit(cache=True, nogil=True, inline="always")
def _card(st, c, out, f, has_type, n_types):
    for t in range(n_types):
        if has_type(st, c, t):
            out[f + t] += 1.0


@njit(cache=True, nogil=True, inline="always")  # pasted into each game's bound ``features``:
def features(st, me, tab, out, has_type, n_types, players_at):  # has_type a compile-time constant
    """Seat ``me``'s observation vector of ``st`` into ``out`` (its length: the table's last
    row's first feature plus its blocks), by the recipe ``tab`` (``Schema.feature_table``);
    ``players_at`` is the rule slot of the player count."""
    P = st[players_at]
    f64 = st.view(np.float64)  # a float's bits, read back as the float
    out[:] = 0.0
    for r in range(tab.shape[0]):
        off, size, enc, cnt, cnt_seat = tab[r, 0], tab[r, 1], tab[r, 2], tab[r, 3], tab[r, 4]
        per_seat, owner_only, first, width, kind = tab[r, 5], tab[r, 6], tab[r, 7], tab[r, 8], tab[r, 9]
        for k in range(P if per_seat else 1):
            seat = (me + k) % P
            if owner_only and seat != me:
                continue  # another seat's hand: nothing of it but its public counters
            o = off + (seat * size if per_seat else 0)
            f = first + k * width
            if enc == ENC_VALUES and kind == SEAT:  # a seat, from the observer: 0 itself, -1 none
                for i in range(size):
                    out[f + i] = (st[o + i] - me) % P if st[o + i] >= 0 else -1.0
            elif enc == ENC_VALUES and kind == FLOAT:
                for i in range(size):
                    out[f + i] = f64[o + i]
            elif enc == ENC_VALUES or enc == ENC_COUNTS or enc == ENC_TABLE:
                for i in range(size):
                    out[f + i] = st[o + i]
            elif enc == ENC_PILE:
                n = st[cnt + (seat if cnt_seat else 0)]
                for i in range(n):
                    _card(st, st[o + i], out, f, has_type, n_types)
                out[f + n_types] = n
            elif enc == ENC_SLOTS:
                n = 0
                for i in range(size):
                    if st[o + i] >= 0:
                        _card(st, st[o + i], out, f, has_type, n_types)
                        n += 1
                out[f + n_types] = n
            elif enc == ENC_MASK:
                n = 0
                for w in range(size):
                    word = st[o + w]
                    for b in range(63):
                        if (word >> b) & 1:
                            _card(st, 63 * w + b, out, f, has_type, n_types)
                            n += 1
                out[f + n_types] = n
