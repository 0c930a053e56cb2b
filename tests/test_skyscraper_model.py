"""Skyscraper through its game model only: ``setup`` / ``legal`` / ``step`` with random
legal actions (every card in exactly one zone after every step, every game ends or hits
its cap), and positions copied mid-turn that play on exactly like the original."""
import numpy as np
import pytest

from cardlab.sim import runner
from cardlab.sim.schema import DONE
from cardlab.sim.skyscraper import GAME
from cardlab.sim.skyscraper import kernel as K
from cardlab.sim.skyscraper import layout as L

from skyscraper_helpers import card_census, deck_census, new_state

B = GAME.binding()  # the engine bound to the rules (sim/bind.py)


def _actions(st, n):
    return st[L.S_ACTS:L.S_ACTS + 4 * n].reshape(n, 4)


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_random_legal_play_through_the_model_conserves_every_card(players):
    """500 games per player count (2,000 in all), a uniformly random legal action at every
    decision: the census of all zones equals the deck after every step, every listed
    action is accepted, and every game ends with a result or at its (short) cap."""
    rules = GAME.resolve_rules({"max_turns": 40}, players)
    deck = deck_census(rules)
    gen = np.random.default_rng(players)
    ends = {0: 0, 1: 0}
    for g in range(500):
        st = new_state(players, rules, seed=11, index=g)
        B.setup(st)
        steps = 0
        while st[L.S_PHASE] != DONE:
            assert st[L.S_PHASE] == L.D_PLAY and 0 <= st[L.S_ACTOR] < players
            n = int(K.legal(st))
            acts = _actions(st, n)
            assert tuple(acts[-1]) == (L.A_STOP, 0, 0, 0)  # stopping is always legal
            K.step(st, tuple(int(x) for x in acts[gen.integers(n)]))
            np.testing.assert_array_equal(card_census(st, players), deck, err_msg=f"game {g} step {steps}")
            steps += 1
            assert steps < 10_000
        ends[int(st[L.S_UNFINISHED])] += 1
        assert st[L.S_LENGTH] <= 40
        if st[L.S_UNFINISHED]:
            assert st[L.S_MASK] == 0 and st[L.S_END] == L.END_CAP
        else:
            winner = int(st[L.S_MASK]).bit_length() - 1
            assert st[L.S_MASK] == 1 << winner and st[L.S_NFL + winner] >= rules["floors_to_win"]
    assert ends[0] > 0  # some games are won even by random play
    if players > 1:
        assert ends[1] > 0


def _candidates():
    """Every action over the fields each kind reads (the rest are 0): builds (card, card or
    joker, joker value), steals (target, card index, card), targeted cards, discards."""
    no_field = (L.A_STOP, L.A_DOG, L.A_SUPER, L.A_SHAKE, L.A_TRUCK)
    for kind in range(12):
        if kind in no_field:
            yield kind, 0, 0, 0
        elif kind == L.A_BUILD:
            for a in range(L.NT):
                for b in (L.J,) + tuple(range(L.F0 + 1, L.NT)):
                    for c in range(L.FLOOR_LIMIT + 1) if b == L.J else (0,):
                        yield kind, a, b, c
        elif kind == L.A_STEAL:
            for a in range(-1, L.MAXP + 1):
                for b in range(-1, 3):
                    for c in range(L.NT):
                        yield kind, a, b, c
        else:  # a target seat or (discard) a card type
            for a in range(-1, L.NT):
                yield kind, a, 0, 0


def test_legal_lists_exactly_what_step_accepts():
    """Every listed action is legal, and no unlisted candidate is (is_legal over a grid of
    candidates on states reached by random play)."""
    from cardlab.sim.skyscraper import moves as M

    gen = np.random.default_rng(5)
    for g in range(60):
        players = 1 + g % 4
        st = new_state(players, GAME.resolve_rules({}, players), seed=3, index=g)
        B.setup(st)
        for _ in range(int(gen.integers(0, 30))):
            if st[L.S_PHASE] == DONE:
                break
            n = int(K.legal(st))
            K.step(st, tuple(int(x) for x in _actions(st, n)[gen.integers(n)]))
        if st[L.S_PHASE] == DONE:
            continue
        me = int(st[L.S_ACTOR])
        listed = {tuple(int(x) for x in a) for a in _actions(st, int(K.legal(st)))}
        for kind, a, b, c in _candidates():
            if M.is_legal(st, me, kind, a, b, c):
                assert (kind, a, b, c) in listed, (kind, a, b, c)
        assert all(M.is_legal(st, me, *a) for a in listed)


@pytest.mark.parametrize("strategies", ["reference", "random,aggressive,greedy"])
def test_a_copy_taken_mid_turn_plays_on_like_the_original(strategies):
    """Play games decision by decision with the seats' strategies; at a decision that is
    not the first of its seat's turn, copy the state; both copies played on give the same
    final state, and the result equals the fast path's row for that game."""
    choose = GAME.binding().choose

    players = 3
    setup = runner.make_setup("skyscraper", players, [], strategies, seed=21)
    rv, sids, params = setup.arrays()
    fast = runner.run(setup, 40, jobs=1, keep_rows=True)
    checked = 0
    for g in range(40):
        st = new_state(players, setup.rules, seed=21, index=g)
        B.setup(st)
        last = (-1, -1)
        copy = None
        while st[L.S_PHASE] != DONE:
            me = int(st[L.S_ACTOR])
            if (me, int(st[L.S_TURN])) == last and copy is None:
                copy = st.copy()  # a second decision of the same turn
                break
            last = (me, int(st[L.S_TURN]))
            K.step(st, choose(sids[me], st, me, tuple(params[me])))
        if copy is None:
            continue
        other = copy.copy()
        B.play_on(st, sids, params)
        B.play_on(other, sids, params)
        np.testing.assert_array_equal(st, other)
        row = fast.rows[g]
        assert (st[L.S_LENGTH], st[L.S_UNFINISHED], st[L.S_MASK]) == tuple(row[:3]), g
        np.testing.assert_array_equal(st[L.S_SCORE:L.S_SCORE + players], row[3:3 + players])
        checked += 1
    assert checked >= 10
