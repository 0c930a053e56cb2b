"""Every declared strategy parameter, for every game and strategy (a new game or strategy
gets these tests without a line of its own):

* at its lower and at its upper bound, alone at the table and in a mixed pool, seeded games
  never raise (no illegal action, no crash);
* it changes play: the same seeds at its two bounds give different tallies, under the
  default rules or under the rule its help names as ``with KNOB=VALUE``.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

from cardlab.sim import runner
from cardlab.sim.registry import game_ids, get_game

WITH_RULE = re.compile(r"with (\w+)=([^\s,;)]+)")
GAMES_BOUNDS = 120   # games per bound check: enough to reach rare decisions, cheap on 2 cores
GAMES_DEAD = 400     # games per side of the dead-parameter comparison


def _cases():
    for gid in game_ids():
        for strat in get_game(gid).strategies.values():
            for p in strat.params:
                yield pytest.param(gid, strat.name, p, id=f"{gid}-{strat.name}-{p.name}")


CASES = list(_cases())


def needed_rules(help_text: str) -> tuple[list[str], int | None]:
    """The ``with KNOB=VALUE`` rules a parameter's help names (``players=N`` sets the
    player count)."""
    sets, players = [], None
    for knob, value in WITH_RULE.findall(help_text):
        if knob == "players":
            players = int(value)
        else:
            sets.append(f"{knob}={value}")
    return sets, players


def _spec(name: str, p, value: float) -> str:
    return f"{name}:{p.name}={value:g}"


def _mixed(game, spec: str, name: str, players: int) -> str:
    """``spec`` in seat 0, the game's other strategies in the other seats."""
    others = [n for n in game.strategies if n != name]
    return ",".join([spec] + [others[i % len(others)] for i in range(players - 1)])


@pytest.mark.parametrize("gid,name,p", CASES)
def test_parameter_bounds_never_crash(gid, name, p):
    game = get_game(gid)
    sets, _ = needed_rules(p.help)
    for value in (p.lo, p.hi):
        spec = _spec(name, p, value)
        for rules in ([[]] + ([sets] if sets else [])):
            for players in sorted({game.min_players, game.default_players, game.max_players}):
                s = runner.make_setup(gid, players, rules, spec, seed=11)
                assert runner.run(s, GAMES_BOUNDS, jobs=1).games == GAMES_BOUNDS
            players = max(2, game.default_players)
            if players <= game.max_players:
                s = runner.make_setup(gid, players, rules, _mixed(game, spec, name, players), seed=12)
                assert runner.run(s, GAMES_BOUNDS, jobs=1).games == GAMES_BOUNDS
            s = runner.make_setup(gid, game.max_players, rules,
                                  _mixed(game, spec, name, game.max_players), seed=13)
            assert runner.run(s, GAMES_BOUNDS, jobs=1).games == GAMES_BOUNDS


@pytest.mark.parametrize("gid,name,p", CASES)
def test_parameter_changes_play(gid, name, p):
    game = get_game(gid)
    sets, players = needed_rules(p.help)
    players = players or game.default_players
    tallies = []
    for value in (p.lo, p.hi):
        s = runner.make_setup(gid, players, sets, _spec(name, p, value), seed=5)
        tallies.append(runner.run(s, GAMES_DEAD, jobs=1).tally.data)
    rule = f" under {', '.join(sets)}" if sets else " under the default rules"
    assert not np.array_equal(*tallies), (
        f"{gid} {name}:{p.name} plays the same {GAMES_DEAD} games at {p.lo:g} and {p.hi:g}{rule}: "
        f"make it matter, or name the rule it needs in its help as 'with KNOB=VALUE'")


def test_with_rule_parsing():
    assert needed_rules("only with must_play_if_able=false, picks up") == (["must_play_if_able=false"], None)
    assert needed_rules("matters with players=3 (truck)") == ([], 3)
    assert needed_rules("plain help") == ([], None)
