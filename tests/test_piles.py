"""The pile helpers (sim/piles.py) on hand-set piles, and the default trace zones
(Game.zones) they are shown by."""
import numpy as np
import pytest

from cardlab.sim import rng
from cardlab.sim.game import Game
from cardlab.sim.piles import bury_top, new_deck, pile_pop, pile_push, pile_top, restock
from cardlab.sim.registry import get_game

FREE = rng.RNG_WORDS  # the words before it are the chance stream's, the seat streams' and the seed
N_AT, PILE_N, AT, PILE = FREE, FREE + 1, FREE + 2, FREE + 30  # two counters, a stock, a discard pile


def state(stock=(), discard=(), seed=5):
    st = np.zeros(FREE + 60, dtype=np.int64)
    rng.seed_game(st, seed, 0)
    st[N_AT], st[PILE_N] = len(stock), len(discard)
    st[AT:AT + len(stock)] = stock
    st[PILE:PILE + len(discard)] = discard
    return st


def cards(st, at, n_at):
    return [int(c) for c in st[at:at + st[n_at]]]


def test_the_piles_lie_past_the_streams():
    st = np.zeros(FREE + 60, dtype=np.int64)
    rng.seed_game(st, 5, 0)
    rng.shuffle(st, AT, AT + 10)
    assert not st[FREE:].any()  # seeding and drawing wrote nothing where the test keeps its piles


def test_top_pop_push_work_on_the_last_card():
    st = state(stock=(7, 3, 9))
    assert pile_top(st, AT, N_AT) == 9 and cards(st, AT, N_AT) == [7, 3, 9]
    assert pile_pop(st, AT, N_AT) == 9 and cards(st, AT, N_AT) == [7, 3]
    pile_push(st, AT, N_AT, 12)
    assert cards(st, AT, N_AT) == [7, 3, 12] and pile_top(st, AT, N_AT) == 12


def test_new_deck_is_copies_of_each_type_shuffled_by_the_chance_stream():
    st = state()
    new_deck(st, AT, N_AT, 4, 3)
    got = cards(st, AT, N_AT)
    assert sorted(got) == [t for t in range(4) for _ in range(3)]
    want = state()  # the same draws as shuffling the ordered deck by hand
    want[AT:AT + 12] = [t for t in range(4) for _ in range(3)]
    rng.shuffle(want, AT, AT + 12)
    assert got == [int(c) for c in want[AT:AT + 12]]
    assert got != sorted(got)  # seed 5 does move them (a shuffle that did nothing would fail)
    other = state(seed=6)
    new_deck(other, AT, N_AT, 4, 3)
    assert cards(other, AT, N_AT) != got


def test_restock_keeps_the_top_card_and_shuffles_the_rest_into_the_empty_stock():
    st = state(stock=(), discard=(20, 21, 22, 23, 24, 25))
    n = restock(st, AT, N_AT, PILE, PILE_N)
    assert n == 5 and cards(st, PILE, PILE_N) == [25]
    assert sorted(cards(st, AT, N_AT)) == [20, 21, 22, 23, 24]
    want = state(discard=(20, 21, 22, 23, 24, 25))
    want[AT:AT + 5] = [20, 21, 22, 23, 24]
    rng.shuffle(want, AT, AT + 5)
    assert cards(st, AT, N_AT) == [int(c) for c in want[AT:AT + 5]]


@pytest.mark.parametrize("j, want", [(0, [9, 1, 2, 3, 4]), (2, [1, 2, 9, 3, 4]), (4, [1, 2, 3, 4, 9])])
def test_bury_top_puts_the_top_card_under_j_cards(j, want):
    st = state(stock=(1, 2, 3, 4, 9))
    bury_top(st, AT, N_AT, j)
    assert cards(st, AT, N_AT) == want


def test_default_zones_show_the_schema_zones_table_first_and_a_hidden_pile_top_first():
    game = get_game("crazy_eights")
    S = game.layout.S
    snap = np.zeros(S.zones_end, dtype=np.int64)
    S.put_cards(snap, "stock", [0, 1, 2])      # bottom first: 2 (3C) is the top
    S.put_cards(snap, "discard", [13, 14])     # AD under 2D
    S.put_cards(snap, "hands", [7], seat=1)
    z = game.zones(snap, 2)
    assert list(z) == ["stock", "discard", "hands"]
    assert z == {"stock": ["3C", "2C", "AC"], "discard": ["AD", "2D"], "hands": [[], ["8C"]]}
    game.trace_parts = {"draw pile": "stock", "hand": "hands"}  # an instance's own: the class keeps {}
    try:
        assert list(game.zones(snap, 2)) == ["draw pile", "discard", "hand"]
    finally:
        del game.trace_parts


def test_default_zones_refuse_a_table_zone_by_name():
    game = get_game("skyscraper")  # its towers are a TABLE zone: its own zones() reads them
    snap = np.zeros(game.layout.S.zones_end, dtype=np.int64)
    with pytest.raises(NotImplementedError, match=r"skyscraper: zone 'tower' is a TABLE zone: write zones"):
        Game.zones(game, snap, 2)
