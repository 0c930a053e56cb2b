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
