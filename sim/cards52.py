"""A standard 52-card deck with bit-mask hands: compiled helpers for deals, following
suit and tricks (the ``cards52`` template of ``cardlab new-game`` is built on them).

Cards.  Card ``c = 13 * suit + rank``: suits C D H S (0..3), ranks 2 3 4 5 6 7 8 9 T J Q K A
(0..12, **the ace high**), so within a suit a higher card is a higher number.  Every card
is one bit of an int64 (bit ``c``, 52 < 63), and so is every set of cards: a hand, a trick,
the cards a seat has won are each one word (a ``MASK`` zone of size 1 in a schema).  Codes
for traces and rules pages are rank then suit: ``2C``, ``TD``, ``QH``, ``AS``.

Masks.  ``SUIT_MASK[s]`` holds the 13 cards of suit ``s`` and ``SUIT_MASK[NO_SUIT]`` none
(``NO_SUIT`` = 4 stands for "no trumps" and for "no card led yet", so ``hand &
SUIT_MASK[trump]`` is a seat's trumps, none in a no-trump game); ``RANK_MASK[r]`` the four
cards of rank ``r``; ``FULL`` the deck.  The bit counts of ``sim/bits.py`` (``popcount``,
``lowest``, ``highest``) work on all of them: ``highest(hand & SUIT_MASK[s])`` is a seat's
best card of suit ``s``.

The compiled helpers (fixed signatures, ``sim/jit.py``):

- ``suit_of(c)``, ``rank_of(c)``;
- ``deal_masks(st, stock, stock_n, hands, players, n)``: the 52 cards into the pile at
  ``stock``, shuffled with the game's chance stream (``sim/rng.shuffle``), ``n`` cards to
  each seat's mask (``st[hands + s]``) one at a time from seat 0 off the top; the cards
  left stay in the pile (a stock or a face-down kitty) and ``st[stock_n]`` counts them;
  ``deal_masks_to(st, stock, stock_n, hands, seats, n)`` deals only to the seats whose bit
  is set in ``seats`` (the seats still in a knock-out game);
- ``follow_mask(hand, led)``: the cards a seat may play to a trick: its cards of the led
  suit, or its whole hand when it has none of them or leads (``led = NO_SUIT``);
- ``beaters(best, trump)``: every card that beats ``best``, the card winning a trick so far
  (a higher card of its suit, or any trump when it is not one);
- ``trick_winner(cards, leader, players, trump)``: the seat whose card wins a trick (the
  highest trump, else the highest card of the suit led); ``cards[s]`` is seat ``s``'s card,
  -1 for a seat that has not played yet (a trick in progress: the seat winning it so far);
- ``lowest_rank(mask)``, ``highest_rank(mask)``: the card of lowest / highest rank in a
  mask (of equal ranks, the earliest suit in C D H S order); -1 for an empty mask;
- ``longest_suit(hand)``: the suit a hand holds most cards of (ties: the higher top card,
  then the earlier suit);
- ``mark_ranks(st, at, mask)``: ``st[at + rank] = 1`` for each card of the mask (card
  power by rank: ``S_HELD + seat * 13``); ``has_rank(st, c, t)``: card ``c`` is of
  card-power type ``t`` when its rank is ``t`` (a game's ``Rules(has_type=has_rank)``).

And plain Python for traces, tests and rules pages: ``card_code(c)`` / ``card_of(code)``,
``codes(mask)`` (the codes of a mask, lowest card first) / ``mask_of(codes)``.
"""
import numpy as np

from cardlab.sim.bits import highest, lowest, popcount
from cardlab.sim.jit import helper
from cardlab.sim.rng import shuffle

NCARDS = 52
SUITS = "CDHS"
RANKS = "23456789TJQKA"
NO_SUIT = 4   # no trumps; no card led yet
FULL = (1 << NCARDS) - 1
SUIT_MASK = tuple(0x1FFF << (13 * s) for s in range(4)) + (0,)  # ... [NO_SUIT]: no card
RANK_MASK = tuple(sum(1 << (13 * s + r) for s in range(4)) for r in range(13))


# ---------------------------------------------------------------- codes (plain Python)


def card_code(c: int) -> str:
    """Card number -> code: 0 -> ``2C``, 12 -> ``AC``, 51 -> ``AS``."""
    return RANKS[c % 13] + SUITS[c // 13]


def card_of(code: str) -> int:
    """Code -> card number: ``QH`` -> 36 (ValueError for a code that is no card)."""
    if len(code) != 2 or code[0] not in RANKS or code[1] not in SUITS:
        raise ValueError(f"{code!r} is no card: a rank of {RANKS} then a suit of {SUITS}")
    return 13 * SUITS.index(code[1]) + RANKS.index(code[0])


def codes(mask: int) -> list[str]:
    """The codes of the cards of a mask, lowest card number first (clubs 2 to spades A)."""
    return [card_code(c) for c in range(NCARDS) if (int(mask) >> c) & 1]


def mask_of(cards) -> int:
    """The mask of some cards, given as codes (``"AS"``) or numbers."""
    return sum(1 << (card_of(c) if isinstance(c, str) else int(c)) for c in set(cards))


# ---------------------------------------------------------------- cards


@helper("int64(int64)")
def suit_of(c):
    """The suit of card c: 0..3 = C D H S."""
    return c // 13


@helper("int64(int64)")
def rank_of(c):
    """The rank of card c: 0..12 = 2 .. A."""
    return c % 13


@helper("void(ST, int64, int64, int64, int64, int64)")
def deal_masks_to(st, stock, stock_n, hands, seats, n):
    """Shuffle the 52 cards into the pile ``st[stock:stock + 52]`` (the game's chance
    stream) and deal ``n`` to the mask ``st[hands + s]`` (emptied first) of each seat ``s``
    whose bit is set in ``seats``, one card at a time from the lowest seat, off the top
    (the pile's end); the other seats' masks are left as they are (a knock-out game's seats
    that are out).  The cards left stay at the bottom of the pile, counted by ``st[stock_n]``."""
    for c in range(NCARDS):
        st[stock + c] = c
    shuffle(st, stock, stock + NCARDS)
    m = seats
    while m != 0:
        st[hands + lowest(m)] = 0
        m &= m - 1
    top = NCARDS
    for _ in range(n):
        m = seats
        while m != 0:
            top -= 1
            st[hands + lowest(m)] |= np.int64(1) << st[stock + top]
            m &= m - 1
    st[stock_n] = top


@helper("void(ST, int64, int64, int64, int64, int64)")
def deal_masks(st, stock, stock_n, hands, players, n):
    """``deal_masks_to`` every seat 0 .. players - 1: the 52 cards shuffled into the pile
    at ``stock``, ``n`` to each seat's mask one at a time from seat 0, off the top; the
    ``52 - n * players`` cards left stay at the bottom of the pile, counted by ``st[stock_n]``."""
    deal_masks_to(st, stock, stock_n, hands, (np.int64(1) << players) - 1, n)


@helper("int64(int64, int64)")
def follow_mask(hand, led):
    """The cards of ``hand`` a seat may play to a trick led in suit ``led``: those of the
    led suit; all of them when it has none (void) or leads (``led = NO_SUIT``)."""
    m = hand & SUIT_MASK[led]
    return m if m != 0 else hand


@helper("int64(int64, int64)")
def beaters(best, trump):
    """Every card that beats card ``best`` when it is winning a trick (of the suit led or
    a trump): the higher cards of its suit, and every trump unless it is one."""
    s = best // 13
    m = SUIT_MASK[s] & ~((np.int64(2) << best) - 1)
    if s != trump:
        m |= SUIT_MASK[trump]
    return m


@helper("int64(ST, int64, int64, int64)")
def trick_winner(cards, leader, players, trump):
    """The seat winning the trick ``cards`` (``cards[s]``: seat s's card, -1 not played
    yet), led by ``leader``: the highest trump, else the highest card of the suit led."""
    best = leader
    for k in range(1, players):
        s = leader + k
        if s >= players:
            s -= players
        c = cards[s]
        if c >= 0 and (beaters(cards[best], trump) >> c) & 1:
            best = s
    return best


@helper("int64(int64)")
def lowest_rank(mask):
    """The card of the lowest rank in ``mask`` (equal ranks: clubs first); -1 if empty."""
    for r in range(13):
        m = mask & RANK_MASK[r]
        if m != 0:
            return lowest(m)
    return -1


@helper("int64(int64)")
def highest_rank(mask):
    """The card of the highest rank in ``mask`` (equal ranks: clubs first); -1 if empty."""
    for r in range(12, -1, -1):
        m = mask & RANK_MASK[r]
        if m != 0:
            return lowest(m)
    return -1


@helper("int64(int64)")
def longest_suit(hand):
    """The suit ``hand`` holds most cards of; ties to the suit with the higher top card,
    then to the earlier suit (C D H S); clubs for an empty hand."""
    best, key = 0, -1
    for s in range(4):
        m = hand & SUIT_MASK[s]
        k = popcount(m) * 16 + (highest(m) % 13 + 1 if m != 0 else 0)
        if k > key:
            best, key = s, k
    return best


@helper("void(ST, int64, int64)")
def mark_ranks(st, at, mask):
    """``st[at + rank] = 1`` for the rank of every card of ``mask`` (card-power bits)."""
    while mask != 0:
        st[at + lowest(mask) % 13] = 1
        mask &= mask - 1


@helper("boolean(ST, int64, int64)")
def has_rank(st, c, t):
    """Card ``c`` is of card-power type ``t``: card power by rank (``c % 13``)."""
    return c % 13 == t
