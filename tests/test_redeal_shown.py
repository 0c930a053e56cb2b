"""The re-deal's ``honour_shown`` hook (``sim/redeal.py``): a card the rules showed one seat
alone (a Priest's look) holds in every world the search deals for that seat.

No shipped game shows a seat a card of another's hand, so the hook here is a test's own:
on Crazy Eights' zones (bit-mask hands, a face-down stock), seat 0 "was shown" one card of
seat 1's hand (noted + 1 in seat 0's own memory word, which its re-deal keeps, as a book
for its eyes would be), and the hook swaps it back into seat 1's hand wherever the re-deal
put it, giving up a card of seat 1's chosen from seat 0's stream.  The engine's part is what is
tested: the hook runs on every re-deal, after the cards are dealt back, and the world still
depends only on what the seat knows."""
from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest
from numba import njit

from cardlab.sim import observe, redeal, runner
from cardlab.sim.audit import search_world_fault
from cardlab.sim.crazy_eights import layout as L
from cardlab.sim.registry import get_game
from cardlab.sim.rng import seat_below, seed_seat
from cardlab.sim.search import copy_position
from cardlab.sim.testing import card_census, check_honesty, new_game

SHOWN = L.S_MEMORY  # seat 0's first memory word: the card it was shown in seat 1's hand + 1


def show(st, c):
    st[SHOWN] = c + 1
    return c


@njit(cache=True)
def put_back_shown(src, dst, seat):
    """Seat 0's world: the card it was shown lies in seat 1's hand; where the re-deal put it
    elsewhere (the stock, another hand), a uniformly chosen card of seat 1's goes there."""
    c = dst[SHOWN] - 1
    if seat != 0 or c < 0 or (dst[L.S_HANDS + 1] >> c) & 1:
        return
    hand = dst[L.S_HANDS + 1]
    k = seat_below(src, seat, dst[L.S_HAND_N + 1])
    give = 0
    for b in range(L.NCARDS):  # the k-th card of seat 1's hand
        if (hand >> b) & 1:
            if k == 0:
                give = b
                break
            k -= 1
    dst[L.S_HANDS + 1] = (hand & ~(np.int64(1) << give)) | (np.int64(1) << c)
    for s in range(2, dst[L.R_PLAYERS]):
        if (dst[L.S_HANDS + s] >> c) & 1:
            dst[L.S_HANDS + s] = (dst[L.S_HANDS + s] & ~(np.int64(1) << c)) | (np.int64(1) << give)
            return
    for i in range(dst[L.S_STOCK_N]):
        if dst[L.S_STOCK + i] == c:
            dst[L.S_STOCK + i] = give
            return


def world(st, seat, hook):
    """One compiled re-deal of ``st`` for ``seat`` (as the search makes it), by ``hook``."""
    dst = np.zeros(L.S_SIZE, dtype=np.int64)
    copy_position(st, dst, L.ENGINE, 0)
    redeal.determinize(st, dst, seat, int(st[L.R_PLAYERS]), L.REDEAL, L.CLEAR, np.empty(L.S_SIZE, dtype=np.int64),
                       np.empty(L.REDEAL.shape[0] * 8 + 1, dtype=np.int64), redeal.no_table_cards,
                       redeal.no_table_put, hook)
    return dst


def test_a_card_shown_to_the_seat_holds_in_every_world_and_only_by_the_hook():
    game = get_game("crazy_eights")
    setup = runner.make_setup("crazy_eights", 4, None, "reference", 5)
    st = new_game(game, setup, 0)
    c = show(st, int(np.flatnonzero([(int(st[L.S_HANDS + 1]) >> b) & 1 for b in range(L.NCARDS)])[2]))
    deck, sizes = card_census(game, st, 4), [int(st[L.S_HAND_N + s]) for s in range(4)]
    held = {"hook": 0, "none": 0}
    for hook, key in ((put_back_shown, "hook"), (redeal.no_honour_shown, "none")):
        src = st.copy()
        for _ in range(200):
            w = world(src, 0, hook)  # each re-deal draws on from seat 0's stream in src
            assert card_census(game, w, 4) == deck  # a swap, never a card made or lost
            assert [int(w[L.S_HAND_N + s]) for s in range(4)] == sizes
            assert all(int(w[L.S_HANDS + s]).bit_count() == sizes[s] for s in range(4))
            assert w[L.S_HANDS] == st[L.S_HANDS]  # its own hand is never re-dealt
            held[key] += (int(w[L.S_HANDS + 1]) >> c) & 1
    assert held["hook"] == 200
    assert 0 < held["none"] < 100  # without it: seat 1 holds 5 of the 46 unseen cards, 1 world in 9


def test_with_the_hook_the_world_depends_only_on_what_the_seat_knows():
    """Re-dealing a re-dealt copy (same view, same stream of seat 0's) gives the same world,
    word for word: the hook reads the world and the seat's own knowledge only."""
    game = get_game("crazy_eights")
    setup = runner.make_setup("crazy_eights", 3, None, "reference", 8)
    for g in range(20):
        st = new_game(game, setup, g)
        seed_seat(st, 0)  # its stream as it stands, not seeded from the seed words on first use
        c = show(st, int(np.flatnonzero([(int(st[L.S_HANDS + 1]) >> b) & 1 for b in range(L.NCARDS)])[0]))
        other = world(st.copy(), 0, put_back_shown)
        stream = slice(L.S_SEAT_RNG, L.S_SEAT_RNG + 4)
        other[stream] = st[stream]  # the twin: what seat 0 sees, and its stream, as in st
        a, b = world(st.copy(), 0, put_back_shown), world(other, 0, put_back_shown)
        assert (a == b).all(), (g, np.flatnonzero(a != b))
        assert (int(a[L.S_HANDS + 1]) >> c) & 1


# ---------------------------------------------------------------- a hook that breaks the world
# The kit re-deals through sim/observe.determinize (the honesty check, the audit), which
# checks the hook's world: only the hidden places changed, each holding as many cards, and
# the same cards.  Each broken hook here breaks one of the three.


def takes_from_my_hand(src, dst, seat):
    """Swaps a card of the seat's own hand with the stock's top: the seat sees its hand."""
    c = dst[L.S_STOCK + dst[L.S_STOCK_N] - 1]
    mine = int(dst[L.S_HANDS + seat]).bit_length() - 1
    dst[L.S_HANDS + seat] = (dst[L.S_HANDS + seat] & ~(1 << mine)) | (1 << c)
    dst[L.S_STOCK + dst[L.S_STOCK_N] - 1] = mine


def copies_a_card(src, dst, seat):
    """Seat 1's lowest card is also written over the stock's top: one card twice, one gone."""
    dst[L.S_STOCK + dst[L.S_STOCK_N] - 1] = int(dst[L.S_HANDS + 1] & -dst[L.S_HANDS + 1]).bit_length() - 1


def adds_a_card(src, dst, seat):
    """A card from the stock's top also goes into seat 1's hand: seat 1 holds one more."""
    dst[L.S_HANDS + 1] |= 1 << int(dst[L.S_STOCK + dst[L.S_STOCK_N] - 1])


@pytest.mark.parametrize("hook, message", [
    (takes_from_my_hand, r"it changed 'hands' of seat 0 \(word 0: \d+ -> \d+\), which the seat sees"),
    (copies_a_card, r"the hidden cards changed \(\w\w 1 more, \w\w 1 fewer\); a hook swaps cards"),
    (adds_a_card, r"'hands' of seat 1 held 5 cards and holds 6; a hook swaps cards"),
])
def test_the_kit_fails_a_hook_that_makes_a_world_no_re_deal_could(monkeypatch, hook, message):
    game = get_game("crazy_eights")
    st = new_game(game, runner.make_setup("crazy_eights", 3, None, "reference", 5), 0)
    rng = np.random.default_rng(1)
    assert observe.determinize(game, st, 0, rng) is not None  # no hook: fine
    monkeypatch.setattr(game.model(), "RULES", replace(game.model().RULES, honour_shown=put_back_shown))
    show(st, int(np.flatnonzero([(int(st[L.S_HANDS + 1]) >> b) & 1 for b in range(L.NCARDS)])[0]))
    for _ in range(20):
        observe.determinize(game, st, 0, rng)  # the right hook: never a complaint
    monkeypatch.setattr(game.model(), "RULES", replace(game.model().RULES, honour_shown=hook))
    with pytest.raises(observe.ImpossibleWorld, match="crazy_eights: honour_shown for seat 0 made a world no "
                       "re-deal could deal: " + message):
        observe.determinize(game, st, 0, rng)
    with pytest.raises(AssertionError, match=message + r".* \(re-dealing game 0 of seed 17 at decision 'play' of "
                       r"seat 0, re-deal 0\)"):
        check_honesty("crazy_eights", decisions=5, strategies=["reference"])


# ---------------------------------------------------------------- the search's own worlds
# The search re-deals with the compiled sim/redeal.determinize; the audit (check_redeal)
# checks its worlds with audit.search_world_fault: a world a re-deal could deal, offering the
# deciding seat the real position's legal actions.


@pytest.mark.parametrize("hook, message", [
    (takes_from_my_hand, r"changed 'hands' of seat 0 \(word 0: \d+ -> \d+\), which the seat sees"),
    (copies_a_card, r"changed the hidden cards \(\w\w 1 more, \w\w 1 fewer\)"),
    (adds_a_card, r"made a world no re-deal could deal: 'hands' of seat 1 held 5 cards and holds 6"),
])
def test_the_audit_names_a_search_world_no_re_deal_could_deal(hook, message):
    game = get_game("crazy_eights")
    st = new_game(game, runner.make_setup("crazy_eights", 3, None, "reference", 5), 0)
    show(st, int(np.flatnonzero([(int(st[L.S_HANDS + 1]) >> b) & 1 for b in range(L.NCARDS)])[0]))
    for hook_ in (redeal.no_honour_shown, put_back_shown):  # the search's worlds, with and without the hook
        src = st.copy()  # each re-deal draws on from seat 0's stream in src
        for _ in range(20):
            assert search_world_fault(game, st, world(src, 0, hook_), 0) is None
    broken = world(st.copy(), 0, redeal.no_honour_shown)
    hook(st, broken, 0)  # as if the search's re-deal had made it
    assert re.fullmatch(r"crazy_eights: the search's re-deal for seat 0 \(sim/redeal.py\) " + message,
                        search_world_fault(game, st, broken, 0))


def test_the_audit_names_a_legal_that_depends_on_what_the_seat_cannot_see(monkeypatch):
    """A ``legal`` that also offers the draw when the stock's (face-down) top card is a heart:
    the search's worlds, with the stock re-dealt, list other actions than the real position."""
    game = get_game("crazy_eights")
    K = game.model()
    honest = K.legal

    def peeking(st):
        n = honest(st)
        if st[L.S_PHASE] == L.D_PLAY and st[L.S_STOCK + st[L.S_STOCK_N] - 1] // 13 == 2:
            st[L.S_ACTS + 4 * n:L.S_ACTS + 4 * n + 4] = (L.A_DRAW, 0, 0, 0)
            n += 1
        return n

    st = new_game(game, runner.make_setup("crazy_eights", 3, None, "reference", 5), 0)
    me, src = int(st[L.S_ACTOR]), st.copy()  # each re-deal draws on from the seat's stream in src
    assert all(search_world_fault(game, st, world(src, me, redeal.no_honour_shown), me) is None for _ in range(20))
    monkeypatch.setattr(K, "legal", peeking)
    faults = {search_world_fault(game, st, world(src, me, redeal.no_honour_shown), me) for _ in range(40)}
    assert any(f and re.fullmatch(r"crazy_eights: the search's re-deal for seat 0 \(sim/redeal.py\) made a world "
                                  r"whose legal actions for the seat differ from the real position's \(\d+ there, "
                                  r"\d+ here; only in the (real position|world): \[\(1, 0, 0, 0\)\]\): what a seat "
                                  r"may do must follow from what it sees \(or its visibility hides what the rules "
                                  r"show it\)", f) for f in faults), faults
    assert None in faults  # the worlds whose stock top agrees with the real one's are fine
