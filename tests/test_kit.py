"""The conformance kit itself (sim/testing.py): its helpers read what they claim, and
``check_game`` names the game and the check that failed."""
from __future__ import annotations

import pytest

from cardlab.sim.errors import InputError
from cardlab.sim.testing import CHECKS, check_game, needed_rules


def test_with_rule_parsing():
    assert needed_rules("only with must_play_if_able=false, picks up") == (["must_play_if_able=false"], None)
    assert needed_rules("matters with players=3 (truck)") == ([], 3)
    assert needed_rules("plain help") == ([], None)


def test_check_game_names_the_failed_check(monkeypatch):
    def broken(game_id):
        raise AssertionError("cards changed at step 4")

    monkeypatch.setitem(CHECKS, "conservation", broken)
    with pytest.raises(AssertionError, match=r"check_game\('skyscraper'\): conservation failed: cards changed"):
        check_game("skyscraper", only=["conservation"])


def test_check_game_refuses_an_unknown_game():
    with pytest.raises(InputError, match="unknown game 'nope'"):
        check_game("nope")


def test_legal_complete_catches_a_legal_that_leaves_a_play_out(monkeypatch):
    """``legal_complete``: a ``legal`` that leaves out one playable card (here: every
    position's last listed action dropped, when there are several) is caught by ``step``
    accepting it, with the game, seed, step, decision and the action named; the real one
    passes."""
    from cardlab.sim import testing

    assert testing.check_legal_complete("crazy_eights", games=6) > 0
    real = testing.legal_actions

    def slipped(game, st):
        acts = real(game, st)
        return acts[:-1] if len(acts) > 1 else acts

    monkeypatch.setattr(testing, "legal_actions", slipped)
    with pytest.raises(AssertionError, match=r"crazy_eights game \d+ \(seed 4, \d players\), step \d+, "
                                             r"decision '\w+' of seat \d: step accepts \(.*\), which legal does "
                                             r"not list"):
        testing.check_legal_complete("crazy_eights", games=6)


def test_an_exception_inside_the_rules_is_a_named_failure(monkeypatch):
    """A rules function that raises (here ``step``, after the first decisions) fails
    ``conservation`` with the game, seed, step, decision and the action, not a bare
    traceback."""
    from cardlab.sim import testing
    from cardlab.sim.registry import get_game

    model = get_game("crazy_eights").model()
    real, calls = model.step, []

    def broken(st, act):
        calls.append(act)
        if len(calls) > 5:
            raise IndexError("index 99 is out of bounds")
        return real(st, act)

    monkeypatch.setattr(model, "step", broken)
    with pytest.raises(AssertionError, match=r"crazy_eights game 0 \(seed 3, 2 players\), step 5, decision "
                                             r"'\w+' of seat \d: step with the listed action \(.*\) raised "
                                             r"IndexError: index 99"):
        testing.check_conservation("crazy_eights", games=1)


def test_random_play_smoke_says_worth_a_look_beyond_its_margin():
    """Under uniformly random play 3UP 3DOWN's first seat wins 26.8% [25.4, 28.2] of 4,000
    games (4 players): "worth a look" at a margin of 0 points, nothing at the stated 5."""
    from cardlab.sim.testing import RANDOM_EDGE, random_play_smoke

    lines = random_play_smoke("three_up", margin=0.0)
    assert any("seat 0 wins 26.8% [25.4, 28.2] of 4,000 games (4 players, fair 25.0%" in x for x in lines), lines
    assert all(x.startswith("three_up: worth a look: under uniformly random play") for x in lines)
    assert random_play_smoke("three_up") == [] and RANDOM_EDGE == 0.05
