"""The honesty check catches strategies that peek, and the re-deal it rests on changes
only what the deciding seat cannot see.

Every shipped strategy passes ``check_honesty`` in each game's conformance tests; here
two deliberately cheating strategies, written like any strategy over the state, must
fail it in every game: one reads the cards its seat cannot see (an opponent's hand, the
order of the draw pile), one reads the game's chance stream (which decides the next
draws).  And ``determinize`` is checked directly on positions from seeded games.
"""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from cardlab.sim.observe import observation, players_of, unseen
from cardlab.sim.registry import game_ids, get_game
from cardlab.sim.rng import SEAT_RNG, SEED_AT, seat_next_u64
from cardlab.sim.runner import make_setup
from cardlab.sim.schema import DONE
from cardlab.sim.testing import HonestyError, check_honesty, legal_actions, new_game

DECISIONS = 300


def peeks_at_hidden_cards(game):
    """A legal action chosen by where the cards its seat cannot see lie (which
    opponent holds what, the order of the draw pile)."""
    def choose(sid, st, me, p):
        acts = legal_actions(game, st)
        return acts[sum(i * c for i, c in enumerate(unseen(game, st, me))) % len(acts)]
    return choose


def peeks_at_chance(game):
    """A legal action chosen by the game's generator: it foresees the next draw."""
    def choose(sid, st, me, p):
        acts = legal_actions(game, st)
        return acts[int(st[0] & 0xFFFF) % len(acts)]
    return choose


@pytest.mark.parametrize("cheat", [peeks_at_hidden_cards, peeks_at_chance])
@pytest.mark.parametrize("game_id", game_ids())
def test_a_cheating_strategy_fails_the_honesty_check(game_id, cheat):
    game = get_game(game_id)
    with pytest.raises(HonestyError, match="peeks"):
        check_honesty(game_id, decisions=DECISIONS, strategies=["reference"], choose=cheat(game))


def positions(game_id, n=40, seed=4):
    """States at decisions of seeded games played with random legal actions."""
    game = get_game(game_id)
    setup = make_setup(game_id)
    rng = np.random.default_rng(seed)
    L, M = game.layout, game.model()
    out, g = [], 0
    while len(out) < n:
        st = new_game(game, setup, g)
        while st[L.S_PHASE] != DONE and len(out) < n:
            if rng.random() < 0.1:
                out.append(st.copy())
            acts = legal_actions(game, st)
            M.step(st, acts[rng.integers(len(acts))])
        g += 1
    return game, out


@pytest.mark.parametrize("game_id", game_ids())
def test_determinize_redeals_only_what_the_seat_cannot_see(game_id):
    game, states = positions(game_id)
    rng = np.random.default_rng(1)
    moved = 0
    for st in states:
        me = int(st[game.layout.S_ACTOR])
        seen = game.observation(st, me)
        before = st.copy()
        d = game.determinize(st, me, rng)
        assert np.array_equal(st, before), "determinize changed the real position"
        # what the seat sees is the same; the pool it cannot see is the same multiset
        assert observation(game, d, me) == seen
        for name, owner in game.schema.hidden_from(me, players_of(game, st)):
            z = seen["zones"][name] if owner is None else seen["zones"][name][owner]
            assert list(z) == ["hidden"], f"{name} of seat {owner} is shown to seat {me}"
        assert Counter(unseen(game, d, me)) == Counter(unseen(game, st, me))
        moved += unseen(game, d, me) != unseen(game, st, me)
        # the future is drawn afresh, except the seat's own random choices
        assert not np.array_equal(d[0:4], st[0:4]), "the chance stream was not reseeded"
        a, b = st.copy(), d.copy()
        assert [seat_next_u64(a, me) for _ in range(3)] == [seat_next_u64(b, me) for _ in range(3)]
        P = players_of(game, st)
        others = [s for s in range(P) if s != me]
        assert all(not np.array_equal(d[SEAT_RNG + 4 * s:][:4], st[SEAT_RNG + 4 * s:][:4]) for s in others)
        assert not d[SEAT_RNG + 4 * P:SEED_AT].any(), "a seat the game does not have got a stream"
        # nothing hidden is left behind: the engine's books are cleared
        for part in ("held", "played", "evc", "shape"):
            p = game.schema.parts[part]
            assert not d[p.offset:p.offset + p.words].any(), f"{part} left behind"
        assert not np.array_equal(d[SEED_AT:SEED_AT + 2], st[SEED_AT:SEED_AT + 2])
        # and the copy is a position the game plays on from
        assert legal_actions(game, d), "a re-dealt position has no legal action"
    assert moved > len(states) // 2, "re-deals hardly ever moved a card"
