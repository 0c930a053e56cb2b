"""The shape of a game (sim/shape.py): the fast path's per-game figures equal a recount by
hand from the trace of the same game (the standing at the end of each turn is the
snapshot of that turn's last event, decoded by the game), and the tallies do not depend
on --jobs."""
from __future__ import annotations

import numpy as np
import pytest

from cardlab.analysis.shape import shape_summary
from cardlab.sim import runner, shape
from cardlab.sim.trace import trace

# progress from a decoded trace snapshot, written from the rules, not from moves.progress
DECODED = {
    "skyscraper": lambda state, s: len(state["towers"][s]),   # floors
    "crazy_eights": lambda state, s: -len(state["hands"][s]),  # minus the cards in hand
}
GAMES = 40


def _code(state, players, progress):
    v = [progress(state, s) for s in range(players)]
    top = max(v)
    return v.index(top) + 1 if v.count(top) == 1 else 0


def recount(lines, progress):
    """(lead changes, comeback, decided point in 1/1000, close) of a traced finished game,
    -1 where a figure does not apply, counted from the events' snapshots."""
    header, *events, result = lines
    P, K, winners = header["players"], result["length"], result["winners"]
    last_of_turn = {}
    for e in events:  # the standing after the last event of each turn number
        last_of_turn[e["turn"]] = _code(e["state"], P, progress)
    codes, cur = [], last_of_turn.get(0, 0)
    for t in range(1, K + 1):  # a turn without events keeps the standing before it
        cur = last_of_turn.get(t, cur)
        codes.append(cur)
    changes, leader = 0, 0
    for c in codes:
        if c and c != leader:
            changes += leader != 0
            leader = c
    comeback = decided = close = -1
    if winners:
        h = K // 2
        if h >= 1 and codes[h - 1]:
            comeback = int(codes[h - 1] - 1 not in winners)
        if len(winners) == 1 and codes[-1] == winners[0] + 1:
            d = K
            while d > 1 and codes[d - 2] == codes[-1]:
                d -= 1
            decided = 1000 * d // K
        final = [progress(events[-1]["state"], s) for s in range(P)]
        losers = [final[s] for s in range(P) if s not in winners]
        margin = min(final[s] for s in winners) - max(losers) if losers else 0
        close = int(not losers or margin <= header_close(header["game"]))
    return changes, comeback, decided, close


def header_close(gid):
    from cardlab.sim.registry import get_game

    return get_game(gid).close_margin


@pytest.mark.parametrize("gid,players,strategies", [("skyscraper", 2, "reference"),
                                                     ("skyscraper", 3, "reference"),
                                                     ("crazy_eights", 3, "reference")])
def test_shape_matches_hand_counted_traces(gid, players, strategies):
    setup = runner.make_setup(gid, players, [], strategies, seed=5)
    r = runner.run(setup, GAMES, 1, keep_rows=True)
    cols = r.rows[:, -shape.ROW_COLS:]
    seen_change = seen_comeback = 0
    for g in range(GAMES):
        lines = trace(setup, g)
        if lines[-1]["unfinished"]:
            assert list(cols[g]) == [-1] * shape.ROW_COLS
            continue
        want = recount(lines, DECODED[gid])
        assert tuple(int(x) for x in cols[g]) == want, f"{gid} game {g}"
        seen_change += want[0] > 0
        seen_comeback += want[1] == 1
    # the sample exercises what it checks: lead changes and comebacks happen
    assert seen_change and seen_comeback
    # and the tallies are the rows' sums
    t = r.tally
    fin = cols[:, 0] >= 0
    assert t.shape("measured") == fin.sum()
    assert t.shape("lead_changes") == cols[fin, 0].sum()
    assert t.shape("comebacks") == (cols[:, 1] == 1).sum()
    assert t.shape("half_led") == (cols[:, 1] >= 0).sum()
    assert t.shape("decided") == (cols[:, 2] >= 0).sum() == t.decided_hist.sum()
    assert t.shape("close") == (cols[:, 3] == 1).sum()


def test_shape_tallies_do_not_depend_on_jobs():
    setup = runner.make_setup("crazy_eights", 4, [], "reference,random", seed=9)
    one = runner.run(setup, 600, 1, chunk=150)
    two = runner.run(setup, 600, 2, chunk=150)
    assert np.array_equal(one.tally.data, two.tally.data)
    a, b = shape_summary(one.tally, setup.game), shape_summary(two.tally, setup.game)
    assert a == b and a["games"] > 0 and a["lead_changes"] > 0
    lo, hi = a["comeback_rate_ci"]
    assert lo <= a["comeback_rate"] <= hi


def test_shape_at_eight_seats():
    """Seat 7's standing is code 8: the top nibble of a log word (a sign bit in int64)."""
    setup = runner.make_setup("smokestack", 8, [], "reference", seed=3)
    r = runner.run(setup, 400, 1, keep_rows=True)
    cols, length, fin = r.rows[:, -shape.ROW_COLS:], r.rows[:, 0], r.rows[:, 1] == 0
    assert ((0 <= cols[fin, 0]) & (cols[fin, 0] <= length[fin])).all()
    assert set(cols[:, 1]) <= {-1, 0, 1} and set(cols[:, 3]) <= {-1, 0, 1}
    assert (cols[:, 2] <= 1000).all() and r.tally.shape("lead_changes") == cols[fin, 0].sum()
