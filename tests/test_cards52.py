"""``sim/cards52.py``: the standard deck's numbering and codes, the deal into bit masks,
following suit, the trick's winner and the rank helpers, compiled (as a game's kernel
calls them) on hand-picked cards."""
import numpy as np
import pytest

from cardlab.sim import cards52 as C
from cardlab.sim.bits import popcount
from cardlab.sim.rng import seed_game

M = C.mask_of


def trick(*codes):
    """A trick as the seats' cards (seat 0 first; '-' for a seat that has not played)."""
    return np.array([-1 if c == "-" else C.card_of(c) for c in codes], dtype=np.int64)


def test_cards_are_13_suit_plus_rank_with_the_ace_high_and_codes_round_trip():
    assert [C.card_code(c) for c in (0, 12, 13, 36, 51)] == ["2C", "AC", "2D", "QH", "AS"]
    assert all(C.card_of(C.card_code(c)) == c for c in range(52))
    assert (C.suit_of(C.card_of("QH")), C.rank_of(C.card_of("QH"))) == (2, 10)
    assert C.codes(M(["AS", "2C", "TD"])) == ["2C", "TD", "AS"] and C.mask_of([]) == 0
    for bad in ("1C", "AX", "A", "10H"):
        with pytest.raises(ValueError, match="is no card"):
            C.card_of(bad)


def test_the_masks_partition_the_deck():
    assert sum(C.SUIT_MASK[:4]) == C.FULL == sum(C.RANK_MASK) and C.SUIT_MASK[C.NO_SUIT] == 0
    assert C.codes(C.SUIT_MASK[1])[:2] == ["2D", "3D"] and C.codes(C.RANK_MASK[12]) == ["AC", "AD", "AH", "AS"]


@pytest.mark.parametrize("players,n", [(4, 13), (3, 17), (7, 7), (5, 3)])
def test_deal_masks_deals_n_disjoint_cards_to_each_seat_and_leaves_the_rest_in_the_pile(players, n):
    st = np.zeros(200, dtype=np.int64)
    seed_game(st, 11, 2)
    stock, stock_n, hands = 60, 59, 120
    st[hands:hands + 8] = -1  # emptied by the deal
    C.deal_masks(st, stock, stock_n, hands, players, n)
    masks = [int(st[hands + s]) for s in range(players)]
    left = [int(c) for c in st[stock:stock + st[stock_n]]]
    assert [popcount(m) for m in masks] == [n] * players and st[stock_n] == 52 - n * players
    assert sum(masks) == C.FULL - M(left) and len(set(left)) == len(left)
    assert st[hands + players] == -1  # other words untouched
    again = np.zeros(200, dtype=np.int64)
    seed_game(again, 11, 2)
    C.deal_masks(again, stock, stock_n, hands, players, n)
    assert np.array_equal(again[hands:hands + players], st[hands:hands + players])  # the seed decides


def test_deal_masks_to_deals_only_the_seats_named_and_all_seats_is_deal_masks():
    """A knock-out game deals only its remaining seats: seats 0 and 2 of 4 here; the
    others' words are untouched.  Every seat named is ``deal_masks`` card for card."""
    st = np.zeros(200, dtype=np.int64)
    seed_game(st, 5, 0)
    stock, stock_n, hands = 60, 59, 120
    st[hands:hands + 4] = [7, 8, 9, 10]
    C.deal_masks_to(st, stock, stock_n, hands, 0b0101, 6)
    assert [popcount(int(st[hands + s])) for s in (0, 2)] == [6, 6] and st[stock_n] == 40
    assert (st[hands + 1], st[hands + 3]) == (8, 10)
    assert int(st[hands]) & int(st[hands + 2]) == 0
    a, b = np.zeros(200, dtype=np.int64), np.zeros(200, dtype=np.int64)
    seed_game(a, 5, 1)
    seed_game(b, 5, 1)
    C.deal_masks(a, stock, stock_n, hands, 4, 5)
    C.deal_masks_to(b, stock, stock_n, hands, 0b1111, 5)
    assert np.array_equal(a, b)


def test_a_seat_follows_the_suit_led_when_it_can_else_plays_anything():
    hand = M(["2H", "KH", "AC", "3S"])
    assert C.codes(C.follow_mask(hand, 2)) == ["2H", "KH"]
    assert C.follow_mask(hand, 1) == hand                   # void in diamonds
    assert C.follow_mask(hand, C.NO_SUIT) == hand           # leading


@pytest.mark.parametrize("cards,leader,trump,winner", [
    (("5H", "KH", "2H", "AC"), 0, C.NO_SUIT, 1),    # the highest of the suit led
    (("5H", "KH", "2S", "AC"), 0, 3, 2),            # a trump beats the suit led
    (("5H", "3S", "2S", "AS"), 0, 3, 3),            # the highest trump
    (("AC", "KH", "2H", "3H"), 1, C.NO_SUIT, 1),    # led by seat 1: AC is off-suit
    (("AC", "KH", "2H", "3H"), 3, 0, 0),            # ... and a trump here
    (("-", "KH", "2S", "-"), 1, 3, 2),              # in progress: the seat winning so far
    (("9D", "-", "-", "-"), 0, 3, 0),
])
def test_the_trick_goes_to_the_highest_trump_else_the_highest_card_of_the_suit_led(cards, leader, trump, winner):
    assert C.trick_winner(trick(*cards), leader, 4, trump) == winner


def test_beaters_are_the_higher_cards_of_the_suit_and_every_trump_unless_trumps_were_led():
    assert C.codes(C.beaters(C.card_of("JH"), C.NO_SUIT)) == ["QH", "KH", "AH"]
    assert C.beaters(C.card_of("QS"), 2) == M(["KS", "AS"]) | C.SUIT_MASK[2]
    assert C.beaters(C.card_of("QS"), 3) == M(["KS", "AS"])
    assert C.beaters(C.card_of("AS"), 3) == 0


def test_ranks_suits_and_card_power_bits():
    hand = M(["KC", "3D", "3H", "AS", "QS"])
    assert C.card_code(C.lowest_rank(hand)) == "3D" and C.card_code(C.highest_rank(hand)) == "AS"
    assert C.lowest_rank(0) == -1 and C.highest_rank(0) == -1
    assert C.longest_suit(hand) == 3                                   # two spades
    assert C.longest_suit(M(["2C", "AC", "3D", "AD"])) == 0           # equal tops: the earlier suit
    assert C.longest_suit(M(["2C", "KC", "3D", "AD"])) == 1           # the higher top card
    st = np.zeros(13, dtype=np.int64)
    C.mark_ranks(st, 0, hand)
    assert [C.RANKS[r] for r in range(13) if st[r]] == ["3", "Q", "K", "A"]


def test_card_power_by_rank_marks_and_recognises_every_card_of_a_rank():
    st = np.zeros(13, dtype=np.int64)
    C.mark_ranks(st, 0, M(["2C", "2S", "QH", "AD"]))
    assert [C.RANKS[r] for r in range(13) if st[r]] == ["2", "Q", "A"]
    assert all(C.has_rank(st, c, c % 13) and not C.has_rank(st, c, (c + 1) % 13) for c in range(52))
