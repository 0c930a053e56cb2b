"""The search player with its play-outs cut and scored by the learned evaluation
(``mcts:value=1:depth=D``, sim/search.py and sim/evaluate.py): that the cut happens where it
says, that the evaluation steers it, that it reads only its sampled world, and that a table
without a model is one line."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from cardlab.sim import models, runner
from cardlab.sim.errors import InputError
from cardlab.sim.positions import random_play_positions
from cardlab.sim.registry import get_game

CE = get_game("crazy_eights")
N = len(CE.feature_names())


def seeded_model(game, seed: int) -> np.ndarray:
    m = models.new(game, game.default_players)
    m.add(0, np.random.default_rng(seed).normal(0, 0.3, len(game.feature_names()) + 1))
    return m.array()


def moves(game, spec: dict, W: np.ndarray, positions) -> list[tuple[int, ...]]:
    B, L = game.binding(), game.layout
    p = game.all_strategies["mcts"].row(spec)
    return [tuple(int(x) for x in B.search_decide(st.copy(), int(st[L.S_ACTOR]), p, W)) for st in positions]


@pytest.mark.parametrize("game_id", ["crazy_eights", "five_towers"])
def test_a_cut_that_never_comes_is_the_plain_search_and_an_early_one_is_not(game_id):
    """With the cut past the end of every game the model is never read: every decision is
    the plain search's, move for move (the evaluation draws no random number).  Cut at the
    new node, two opposite models make different choices, so the cut does read them."""
    game = get_game(game_id)
    pos = [st for st in random_play_positions(game, 30, (2, 25), 3) if game.model().legal(st.copy()) > 1][:12]
    W = seeded_model(game, 1)
    plain = moves(game, {"iterations": 40, "trust": 0}, W, pos)
    assert moves(game, {"iterations": 40, "trust": 0, "value": 1, "depth": 1000}, W, pos) == plain
    # (enough iterations that the root's children are visited more than once each)
    cut = moves(game, {"iterations": 300, "trust": 0, "value": 1, "depth": 0}, W, pos)
    flipped = moves(game, {"iterations": 300, "trust": 0, "value": 1, "depth": 0}, -W, pos)
    assert cut != flipped


def one_weight(name: str, w: float) -> np.ndarray:
    m = models.new(CE, 3)
    row = np.zeros(N + 1)
    row[CE.feature_names().index(name)] = w
    m.add(0, row)
    return m.array()


def test_the_evaluation_steers_the_search():
    """Drawing instead of playing is offered (one card a turn).  Scored at once by a model
    that likes a big hand, the search draws at every chance and hardly wins against two
    seats shedding cards; by one that likes a small hand it sheds and wins its share."""
    sets = ["may_draw_when_able=true", "draw_limit=1"]
    spec = "mcts:iterations=24:value=1:depth=0:trust=0,reference,reference"
    wins = {}
    for sign in (+1, -1):
        setup = runner.make_setup("crazy_eights", 3, sets, spec, 5, one_weight("hands[+0].n", 3.0 * sign))
        t = runner.run(setup, 40, 1).tally
        wins[sign] = t.wins[0] / t.games
    assert wins[+1] < 0.1 and wins[-1] > 0.2


def test_with_value_2_the_answer_to_beat_is_the_evaluations():
    """Drawing instead of playing is offered.  With ``trust=10`` the search keeps to its
    default answer unless it has overwhelming evidence: with ``value=1`` that is the rollout
    heuristic's (``reference`` never draws while it can play), with ``value=2`` the action
    the model rates best one move ahead, which draws for a model that likes a big hand and
    plays a card for one that likes a small hand."""
    sets = ["may_draw_when_able=true", "draw_limit=1"]
    L = CE.layout

    def offers_a_draw(st) -> bool:  # and two cards or more: the listed draw comes last
        st = st.copy()
        n = CE.model().legal(st)
        return st[L.S_PHASE] == L.D_PLAY and n > 2 and st[L.S_ACTS + 4 * (n - 1)] == L.A_DRAW

    pos = [st for st in random_play_positions(CE, 40, (1, 30), 4, sets) if offers_a_draw(st)][:15]
    assert len(pos) >= 10
    spec = {"iterations": 24, "trust": 10, "depth": 0}
    big, small = one_weight("hands[+0].n", 3.0), one_weight("hands[+0].n", -3.0)
    draws = {name: [m[0] == L.A_DRAW for m in moves(CE, dict(spec, value=v), W, pos)]
             for name, v, W in (("heuristic", 1, big), ("likes big", 2, big), ("likes small", 2, small))}
    assert not any(draws["heuristic"]) and not any(draws["likes small"]) and all(draws["likes big"])


def test_same_games_for_any_jobs_and_the_model_is_in_the_identity():
    W = seeded_model(CE, 2)
    setup = runner.make_setup("crazy_eights", 3, None, "mcts:iterations=16:value=1:depth=3,reference", 9, W)
    one, two = runner.run(setup, 24, 1).tally, runner.run(setup, 24, 2).tally
    assert np.array_equal(one.wins, two.wins) and one.length_sum == two.length_sum
    assert setup.identity()["model"] == models.digest(W)
    assert "model" not in runner.make_setup("crazy_eights", 3, None, "mcts:iterations=16", 9).identity()


def test_no_model_is_one_line_and_exit_2(tmp_path, monkeypatch):
    monkeypatch.setenv("CARDLAB_MODELS", str(tmp_path / "models"))
    monkeypatch.setenv("CARDLAB_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(models, "shipped_folder", lambda: tmp_path / "shipped")
    with pytest.raises(InputError, match="no learned model for crazy_eights with 3 players"):
        runner.make_setup("crazy_eights", 3, None, "mcts:value=1,reference", 1)
    runner.make_setup("crazy_eights", 3, None, "mcts:value=0,reference", 1)  # no model needed
    env = dict(os.environ, CARDLAB_HISTORY="off")
    p = subprocess.run([sys.executable, "-m", "cardlab.cli", "simulate", "crazy_eights", "-n", "4", "--players", "5",
                        "--strategies", "mcts:value=1,reference", "-q"], capture_output=True, text=True, env=env)
    assert p.returncode == 2 and "no learned model for crazy_eights with 5 players" in p.stderr
    assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1
    for bad in ("value=3", "depth=-1"):
        p = subprocess.run([sys.executable, "-m", "cardlab.cli", "simulate", "crazy_eights", "-n", "4",
                            "--strategies", f"mcts:{bad}", "-q"], capture_output=True, text=True, env=env)
        assert p.returncode == 2 and f"mcts:{bad.split('=')[0]}" in p.stderr and "Traceback" not in p.stderr


# the search scoring its cut play-outs by the next seat's view of the REAL position (the
# hand it would be re-dealt) instead of its sampled world: the audit must see the read
CHEAT = """
import sys
from cardlab.sim import search
from cardlab.sim.audit import audit, VALUE_SEARCH_AUDIT
honest = audit("crazy_eights", VALUE_SEARCH_AUDIT, 3, None, 12, 17)
orig = search.shares
def peeking(world, P, W, g, x, features, out):  # the searcher's real position, from its frame
    return orig(sys._getframe(1).f_locals["st"], P, W, g, x, features, out)
search.shares = peeking
caught = audit("crazy_eights", VALUE_SEARCH_AUDIT, 3, None, 12, 17)
print(honest["violations"], caught["violations"], "+".join(sorted({k["part"] for k in caught["kept"]})))
"""


def test_the_audit_proves_it_and_catches_a_peek():
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", CARDLAB_HISTORY="off")
    p = subprocess.run([sys.executable, "-c", CHEAT], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    honest, caught, parts = p.stdout.split()
    assert honest == "0" and int(caught) > 0 and "hands" in parts.split("+")
