"""Property-based tests (hypothesis) over every shipped game: random valid knob
combinations, player counts and strategy mixes must play to the end or to the cap
(counted as unfinished), conserve every card through every traced event and never crash
the kernel; random invalid values must be refused with one clear line naming the knob.

The example count is bounded (``EXAMPLES`` per game) and derandomized, so CI time is
fixed and a failure reproduces.
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from cardlab.sim import runner
from cardlab.sim.errors import InputError
from cardlab.sim.registry import game_ids, get_game
from cardlab.sim.runner import make_setup
from cardlab.sim.testing import bad_values, zone_census
from cardlab.sim.trace import trace

EXAMPLES = 12
PROPS = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def knob_values(k):
    """Valid values of one knob, as the strings a user types."""
    if k.kind == "bool":
        return hs.sampled_from(["true", "false"])
    if k.kind == "choice":
        return hs.sampled_from([str(c) for c in k.choices])
    if k.kind == "int":
        lo, hi = int(k.lo), int(k.hi)
        # the edges, the default's neighbourhood, anything in between
        return hs.one_of(hs.sampled_from(sorted({lo, hi, int(k.default)})),
                         hs.integers(lo, min(hi, lo + 40)), hs.integers(lo, hi)).map(str)
    if k.kind == "float":
        return hs.floats(k.lo, k.hi, allow_nan=False).map(lambda x: f"{x:.6g}")
    if k.kind == "list":
        return hs.lists(hs.floats(k.lo, k.hi, allow_nan=False), min_size=1, max_size=4).map(
            lambda xs: ",".join(f"{x:.6g}" for x in xs))
    raise AssertionError(k.kind)


@pytest.mark.parametrize("game_id", game_ids())
@PROPS
@given(data=hs.data())
def test_random_valid_rules_play_safely(game_id, data):
    game = get_game(game_id)
    players = data.draw(hs.integers(game.min_players, game.max_players), label="players")
    sets = [f"{k.name}={data.draw(knob_values(k), label=k.name)}" for k in game.knobs
            if data.draw(hs.booleans(), label=f"set {k.name}")]
    names = list(game.strategies)
    strategies = ",".join(data.draw(hs.lists(hs.sampled_from(names), min_size=1, max_size=players),
                                    label="strategies"))
    seed = data.draw(hs.integers(0, 2**40), label="seed")
    try:
        setup = make_setup(game_id, players, sets, strategies, seed)
    except InputError as e:  # a combination the rules cannot play (e.g. a deck too small)
        msg = str(e)
        assert "\n" not in msg and msg, msg
        return
    n = 40
    res = runner.run(setup, n, jobs=1, keep_rows=True)
    t = res.tally
    assert t.games == n and 0 <= t.unfinished <= n
    assert abs(t.wins.sum() + t.no_winner - n) < 1e-9
    cap = game.max_length(setup.rules, setup.players)
    assert (res.rows[:, 0] >= 0).all() and (res.rows[:, 0] <= cap).all()
    assert (res.rows[res.rows[:, 1] == 1, 0] == cap).all(), "an unfinished game stopped at the cap"
    for g in range(2):
        lines = trace(setup, g)
        events, result = lines[1:-1], lines[-1]
        assert events, "a game has at least one event"
        deck = zone_census(game, events[0]["state"])
        for ev in events:
            assert zone_census(game, ev["state"]) == deck, f"{game_id}: cards changed at step {ev['step']}"
        assert result["length"] == res.rows[g, 0] and result["unfinished"] == bool(res.rows[g, 1])


@pytest.mark.parametrize("game_id", game_ids())
@PROPS
@given(data=hs.data())
def test_random_invalid_values_are_refused_by_name(game_id, data):
    game = get_game(game_id)
    k = data.draw(hs.sampled_from(list(game.knobs)), label="knob")
    v = data.draw(hs.sampled_from(bad_values(k)), label="value")
    with pytest.raises(InputError) as e:
        make_setup(game_id, game.default_players, [f"{k.name}={v}"], None, 1)
    assert k.name in str(e.value) and "\n" not in str(e.value)
    p = data.draw(hs.sampled_from([game.min_players - 1, game.max_players + 1]), label="players")
    with pytest.raises(InputError, match=f"--players {p}"):
        make_setup(game_id, p, [], None, 1)
