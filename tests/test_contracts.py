"""Contracts every game keeps (with the conformance kit's, sim/testing.py, which checks
the ``simulate --json`` identity for every game and player count):

* the identity from the command line, on the audit's case;
* a strategy's illegal action stops the run with one message that names the game, seat,
  strategy with its parameters, decision, action, and the seed and game index to trace;
* counts beyond the game-index range are refused.
"""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from cardlab.sim import runner
from cardlab.sim.errors import ILLEGAL, IllegalActionError, InputError
from cardlab.sim.registry import game_ids, get_game
from cardlab.sim.testing import check_identity


def test_json_identity_from_the_cli():
    """The audit's case: 5 Towers, 3 players, 20,000 games, seed 7 summed to 1.000001."""
    p = subprocess.run([sys.executable, "-m", "cardlab.cli", "simulate", "five_towers", "--players", "3",
                        "--games", "20000", "--seed", "7", "--json", "--jobs", "2"],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    s = json.loads(p.stdout)
    check_identity(s)
    assert s["games"] == 20000 and len(s["wins_by_seat"]) == 3


def test_games_beyond_the_index_range_are_refused():
    with pytest.raises(InputError, match="bad --games 100000000000000000000: allowed 1 to"):
        runner.check_counts(10**20, 1, None)
    runner.check_counts(runner.MAX_GAMES, 1, None)  # the largest count is allowed
    p = subprocess.run([sys.executable, "-m", "cardlab.cli", "simulate", "skyscraper", "--games",
                        "100000000000000000000"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2
    assert p.stderr.strip().count("\n") == 0 and "bad --games" in p.stderr


def test_illegal_action_names_everything_to_reproduce_it():
    setup = runner.make_setup("block_tower", 3, ["target_points=15"], "careful:anywhere_at=4,tactician,random", seed=99)
    game = setup.game

    def kernel(rv, sids, params, seed, lo, hi, tally, lay, rows, capacity):
        # a stand-in kernel whose game 20_007 has seat 1 answer illegally
        if lo <= 20_007 < hi:
            raise ValueError(ILLEGAL, "action card", "kind,a,b,c", 1, 32, 0, 2, 0)
        tally[0] += hi - lo

    tally = game.tally.new(game.max_length(setup.rules, setup.players))
    rows = np.zeros((0, game.row_width), dtype=np.int64)
    with pytest.raises(IllegalActionError) as e:
        runner.play_kernel(setup, kernel, setup.arrays(), 20_000, 40_000, tally, rows, 0)
    msg = str(e.value)
    assert "\n" not in msg
    for part in ("block_tower", "seat 1", "tactician (danger=", "illegal action card",
                 "kind=32, a=0, b=2, c=0", "game index 20007", "seed 99",
                 "cardlab trace block_tower --seed 99 --index 20007 --players 3 "
                 "--strategies careful:anywhere_at=4,tactician,random --set target_points=15"):
        assert part in msg, (part, msg)
    # any other ValueError of a kernel is not dressed up as an illegal action
    def broken(*args):
        raise ValueError("something else")
    with pytest.raises(ValueError, match="something else"):
        runner.play_kernel(setup, broken, setup.arrays(), 0, 10, tally, rows, 0)


def test_illegal_action_reaches_the_cli_as_one_line(tmp_path, monkeypatch):
    """Through ``run`` (the path every command takes) the error is an IllegalActionError,
    which the CLI prints as one line with exit status 1 (a defect, not bad input)."""
    setup = runner.make_setup("skyscraper", 2, [], "reference", seed=3)

    def kernel(rv, sids, params, seed, lo, hi, tally, lay, rows, capacity):
        if capacity == 0 and lo <= 5 < hi:
            raise ValueError(ILLEGAL, "action", "kind,a,b,c", 0, 9, 1, 2, 3)
        tally[0] += hi - lo

    monkeypatch.setattr(type(setup.game), "kernel", lambda self: kernel)
    with pytest.raises(IllegalActionError, match=r"game index 5 of seed 3; reproduce with: cardlab trace "
                                                 r"skyscraper --seed 3 --index 5"):
        runner.run(setup, 100, jobs=1)


@pytest.mark.parametrize("page", ["README.md", "docs/games.md"])
def test_readme_games_table_matches_the_registry(page):
    """The README's player ranges come from the games themselves (it once said 2–8 for
    Block Tower, which takes 2–6); so do those of the games page, which repeats the table."""
    import pathlib
    import re

    text = (pathlib.Path(__file__).parents[1] / page).read_text()
    rows = dict(re.findall(r"^\| `(\w+)` \| (\d+–\d+) \|", text, flags=re.M))
    for gid in game_ids():
        g = get_game(gid)
        want = f"{g.min_players}–{g.max_players}"
        assert rows.get(gid) == want, (
            f"{page}: the games table has no row for {gid} with its players {want} (a new game: add "
            f"| `{gid}` | {want} | ... |, docs/adding_a_game.md section 9)" if gid not in rows else
            f"{page}: {gid} takes {want} players, its row says {rows[gid]}")
