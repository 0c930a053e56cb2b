"""Crazy Eights: invariants of whole games played by the fast path (``run_games``), over
every player count and the rule variants: event counts, scores, ends."""
from __future__ import annotations

import numpy as np
import pytest

from cardlab.sim import runner
from cardlab.sim.crazy_eights import GAME
from cardlab.sim.crazy_eights import layout as L

POOL = "reference,random,hoarder,starver,reference,random,hoarder"


def _run(players, sets, games=3000, seed=4):
    s = runner.make_setup("crazy_eights", players, sets, ",".join(POOL.split(",")[:players]), seed)
    return s, runner.run(s, games, jobs=1, keep_rows=True)


@pytest.mark.parametrize("players", range(2, 8))
def test_event_counts_add_up(players):
    """Every game deals players * hand_size cards and turns one starter that is not an 8
    (plus one starter event per reburied 8); every turn ends with exactly one play or one
    pass (a call is part of its play event); a reshuffle is always followed by a draw."""
    s, r = _run(players, [])
    t = r.tally
    ev = dict(zip(L.EVENT_NAMES, t.events))
    h = GAME.hand_size(s.rules, players)
    assert ev["deal"] == t.games * players * h
    assert ev["starter"] >= t.games
    assert ev["play"] + ev["pass"] == t.length_sum
    assert ev["reshuffle"] <= ev["draw"]


@pytest.mark.parametrize("players", [2, 3, 5, 7])
def test_points_scores_sum_to_zero_with_one_winner(players):
    """score=points: a single winner scores what the losers lose; win scores are all 0."""
    _, r = _run(players, ["score=points", "reshuffle=false"])
    rows = r.rows
    P = players
    winners = np.array([bin(int(m)).count("1") for m in rows[:, 2]])
    scores = rows[:, 3:3 + P]
    one = winners == 1
    assert one.sum() > 0 and (winners > 1).sum() > 0  # blocked ties happen without a reshuffle
    assert (scores[one].sum(axis=1) == 0).all()
    for g in np.nonzero(winners >= 1)[0]:
        mask = int(rows[g, 2])
        won = [(mask >> s) & 1 for s in range(P)]
        lost_sum = -sum(int(scores[g, s]) for s in range(P) if not won[s])
        assert all(scores[g, s] == lost_sum for s in range(P) if won[s]), g
        assert all(scores[g, s] <= 0 for s in range(P) if not won[s])
    _, r = _run(players, ["reshuffle=false"], games=500)
    assert (r.rows[:, 3:3 + P] == 0).all()


def test_ends_match_their_rules():
    """Every end happens (out, blocked without a reshuffle, the cap); a capped game has no
    winner and length max_turns, every other game a winner."""
    _, r = _run(4, ["reshuffle=false", "max_turns=40"])
    rows = r.rows
    ends = dict(zip(GAME.end_names, r.tally.end))
    assert all(v > 0 for v in ends.values())
    capped = rows[:, 1] == 1
    assert (rows[capped, 0] == 40).all() and (rows[capped, 2] == 0).all()
    assert (rows[~capped, 2] != 0).all() and (rows[~capped, 0] <= 40).all()


def test_keep_turns_exactly_one_starter_and_rebury_never_starts_on_an_eight():
    s, r = _run(3, ["starter_eight=keep"], games=2000)
    assert dict(zip(L.EVENT_NAMES, r.tally.events))["starter"] == 2000
    s, r = _run(3, [], games=2000)
    n_starter = dict(zip(L.EVENT_NAMES, r.tally.events))["starter"]
    # about 4 in 52 starters are 8s and are buried again: more events than games
    assert 2000 < n_starter < 2000 * 1.2
