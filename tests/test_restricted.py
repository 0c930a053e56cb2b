"""Restricted play (``mcts:never=``, analysis/restricted.py): the restricted search player
never takes an action its restriction names while another legal action is allowed; never
doing something impossible costs exactly nothing; never building in Skyscraper costs
nearly every win; bad restrictions are refused in one line."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from cardlab.analysis.restricted import run_restricted
from cardlab.sim import runner
from cardlab.sim.errors import InputError
from cardlab.sim.positions import empty_model
from cardlab.sim.registry import game_ids, get_game
from cardlab.sim.schema import DONE
from cardlab.sim.testing import legal_actions, new_game, random_legal


def restricted_positions(game_id, want=4, games=40):
    """Positions of random games in which a legal action commits a card type or action
    kind that another legal action does not: (state, seat, mask)."""
    game = get_game(game_id)
    setup = runner.make_setup(game_id, None, None)
    M = game.model()
    moves = __import__(f"cardlab.sim.{game_id}.moves", fromlist=["restrict_bits"])
    rng = np.random.default_rng(11)
    found = []
    for g in range(games):
        st = new_game(game, setup, g)
        while st[game.layout.S_PHASE] != DONE and len(found) < want:
            acts = legal_actions(game, st)
            bits = [int(moves.restrict_bits(st, *a)) for a in acts]
            for b in bits:
                low = b & -b  # one card type or kind
                if low and any(x & low == 0 for x in bits):
                    found.append((st.copy(), int(st[game.layout.S_ACTOR]), low, moves))
                    break
            M.step(st, random_legal(game, st, rng))
        if len(found) >= want:
            break
    return game, found


@pytest.mark.parametrize("game_id", game_ids())
def test_the_restricted_player_never_takes_what_it_is_denied(game_id):
    game, found = restricted_positions(game_id)
    assert found, f"{game_id}: no position where a restriction binds"
    mcts = game.all_strategies["mcts"]
    names = {int(b): n for n, b in dict(mcts.params[3].names).items()}
    for st, me, mask, moves in found:
        p = mcts.row({"iterations": 24, "never": names[mask]})
        act = tuple(int(x) for x in game.binding().search_decide(st.copy(), me, p, empty_model(game)))
        assert act in legal_actions(game, st)
        assert int(moves.restrict_bits(st, *act)) & mask == 0, (
            f"{game_id}: mcts:never={names[mask]} played {act}, which commits it")


def test_costs_of_never_building_and_of_a_move_that_cannot_arise():
    # 2 players: a solo discard (Skyscraper's 'discard' kind) is never legal
    r = run_restricted("skyscraper", ["build", "discard"], games=20, iterations=8, seed=2, jobs=1)
    by = {row["never"]: row for row in r.to_dict()["restrictions"]}
    assert by["discard"]["cost"] == 0 and by["discard"]["ci"] == [0, 0] and not by["discard"]["matters"]
    assert by["build"]["cost"] > 0.3 and by["build"]["matters"], by["build"]
    assert by["build"]["restricted_win_rate"] < 0.2
    again = run_restricted("skyscraper", ["build", "discard"], games=20, iterations=8, seed=2, jobs=2)
    assert json.dumps(again.to_dict() | {"elapsed_s": 0}) == json.dumps(r.to_dict() | {"elapsed_s": 0})


def test_bad_restrictions_are_refused_in_one_line():
    with pytest.raises(InputError, match="mcts:never"):
        runner.make_setup("skyscraper", 2, None, "mcts:never=J+NOPE", 1)
    for args, words in ((["--never", "NOPE"], "bad --never 'NOPE'"), (["--iterations", "0"], "bad --iterations"),
                        (["--games", "0"], "--games")):
        p = subprocess.run([sys.executable, "-m", "cardlab.cli", "restricted", "skyscraper", *args, "-q"],
                           capture_output=True, text=True)
        assert p.returncode == 2 and words in p.stderr and p.stderr.strip().count("\n") == 0, p.stderr
    assert get_game("skyscraper").all_strategies["mcts"].row({"never": "J+DOG"})[3] == 3.0


def test_more_card_types_than_the_kind_bit_with_action_kinds_is_named(monkeypatch, capsys):
    """Card type t restricts by bit t and action kind i by bit KIND_BIT + i: a designer's
    game with 33 card types (No Thanks!: cards 3..35) and an action kind would give both one
    bit, and restricting the card would restrict the kind.  Named, with the fix."""
    from cardlab.sim.schema import KIND_BIT, SchemaError

    game = get_game("crazy_eights")
    monkeypatch.setattr(type(game), "card_types", lambda self, rules: [(t, str(t + 3)) for t in range(KIND_BIT + 1)])
    with pytest.raises(SchemaError, match=rf"crazy_eights: card type {KIND_BIT} \('{KIND_BIT + 3}'\) would share a "
                       r"restriction bit with an action kind: .* \(RESTRICT_KINDS: draw\) bit 32 \+ i .* declare "
                       r"RESTRICT_KINDS = \(\) in layout.py"):
        game.restriction_names()
    # on the command line: one line, exit 2, not a traceback
    from cardlab import cli

    monkeypatch.setattr(sys, "argv", ["cardlab", "strategies", "crazy_eights"])
    with pytest.raises(SystemExit) as e:
        cli.main()
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.startswith("cardlab: error in the game's declaration: crazy_eights: card type")
    assert err.count("\n") == 1
    monkeypatch.setattr(game.layout, "RESTRICT_KINDS", ())
    assert len(game.restriction_names()) == KIND_BIT + 1  # without action kinds every type has its own bit


def test_a_search_that_wins_more_when_restricted_is_called_too_weak():
    from cardlab.analysis.restricted import _verdict, too_weak

    def row(name, cost, helps):
        return {"never": name, "cost": cost, "ci": [cost - 0.05, cost + 0.05], "matters": cost > 0 and not helps,
                "helps": helps}

    weak = [row(str(i), -0.2, True) for i in range(3)] + [row("swap", 0.3, False)]
    assert too_weak(weak) and _verdict("g", "mcts:iterations=8", weak, 0.25).startswith("Warning")
    fine = [row("swap", 0.3, False), row("A", -0.2, True)] + [row(str(i), 0.0, False) for i in range(10)]
    assert not too_weak(fine) and "even helps" in _verdict("g", "mcts:iterations=8", fine, 0.25)


def test_nothing_is_said_only_where_the_interval_shows_it():
    """A restriction with no clear cost is "a strong player does as well without it" only
    when its interval lies within +-2 points; a wider one is "cannot tell yet", with the
    games that would tell (the interval narrows as one over the root of the games)."""
    from cardlab.analysis.restricted import _verdict, games_to_tell

    def row(name, lo, hi):
        return {"never": name, "cost": (lo + hi) / 2, "ci": [lo, hi], "matters": False, "helps": False}

    narrow = _verdict("g", "mcts:iterations=32", [row("8", -0.015, 0.012)], 1 / 3, 2000)
    assert "cost at most 2 points either way (8): a strong player does as well without them" in narrow
    assert "cannot tell" not in narrow
    wide = _verdict("g", "mcts:iterations=32", [row("8", -0.015, 0.012), row("draw", -0.04, 0.06)], 1 / 3, 100)
    assert "1 of 2 restrictions cost at most 2 points either way (8)" in wide
    assert ("1 of 2 restrictions show no clear cost (draw), but their intervals reach 6 points: cannot tell "
            "yet whether a strong player needs them (about 625 games per seat and restriction would tell "
            "+-2 points)") in wide
    assert games_to_tell(100, 0.05) == 625 and games_to_tell(400, 0.02) == 400
