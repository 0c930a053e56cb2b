"""Invariants of whole Smokestack games, seeded, across player counts, strategies and knobs.

(a) raw snapshots straight from ``run_games`` in trace mode, checked with numpy over a few
    thousand games: every card in exactly one zone after every event, rules untouched,
    stalls exactly after ``players`` passes in a row, 8 deals after setup in every
    finished 4-player game, and the traced row equals the fast path's row;
(b) ~100 games through the JSON trace (``sim.trace.trace``): census of the decoded zones
    and result vs the fast path;
(c) the CLI: --jobs 1 vs 2, and the unfinished rate of the two stall rules.
"""
from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest

from cardlab.sim import runner
from cardlab.sim.runner import make_setup
from cardlab.sim.smokestack import GAME
from cardlab.sim.smokestack import layout as L
from cardlab.sim.trace import trace
from tests.tracing import play_traced

SEED = 20261129
TRACE_CAP = 400


def census(snaps: np.ndarray, players: int) -> np.ndarray:
    """For every snapshot, how many times each of the 52 cards appears in the zones."""
    n = snaps.shape[0]
    cnt = np.zeros((n, 53), np.int64)  # column 52 collects the -1 placeholders / unused
    rows = np.arange(n)[:, None]

    def add(cards, valid):
        c = np.where(valid, cards, 52)
        np.add.at(cnt, (np.broadcast_to(rows, c.shape), c), 1)

    k = np.arange(L.NCARDS)
    add(snaps[:, L.S_STOCK:L.S_STOCK + 52], k[None, :] < snaps[:, L.S_STOCK_N][:, None])
    add(snaps[:, L.S_REM:L.S_REM + 52], k[None, :] < snaps[:, L.S_REM_N][:, None])
    cen = snaps[:, L.S_CENTER:L.S_CENTER + 4]
    add(cen, cen >= 0)
    for s in range(players):
        lay = snaps[:, L.S_LAY + s * L.MAXL * 4:L.S_LAY + (s + 1) * L.MAXL * 4]
        li = np.arange(L.MAXL * 4) // 4
        v = (li[None, :] < snaps[:, L.S_NLAY + s][:, None]) & (lay >= 0)
        add(lay, v)
        ch = snaps[:, L.S_CH + s * L.MAXCH * 4:L.S_CH + (s + 1) * L.MAXCH * 4]
        ci = np.arange(L.MAXCH * 4) // 4
        add(ch, ci[None, :] < snaps[:, L.S_NCH + s][:, None])
    return cnt[:, :52]


SETUPS = [
    (4, "reference", ()), (4, "random", ()), (2, "reference", ()), (3, "greedy,collector,sweeper", ()),
    (5, "random,reference", ()), (8, "reference", ()), (8, "random", ()),
    (4, "reference", ("stall_removed=discard",)), (4, "random", ("stall_removed=discard",)),
    (4, "collector,random", ("max_layouts=4", "straights_count=false")),
    (6, "sweeper,random", ("sweeps_per_turn=3", "sweeps_per_player=2", "max_turns=60")),
]
GAMES = 300   # per setup, traced raw: ~3300 games


@pytest.fixture(scope="module")
def kernel():
    return GAME.kernel()


@pytest.mark.parametrize("players,strategies,sets", SETUPS)
def test_raw_snapshots(kernel, players, strategies, sets):
    setup = make_setup("smokestack", players, list(sets), strategies, SEED)
    fast = runner.run(setup, GAMES, jobs=1, keep_rows=True).rows
    rv = setup.arrays()[0]
    for g in range(GAMES):
        st, row = play_traced(kernel, setup, g, TRACE_CAP)
        assert np.array_equal(row, fast[g])
        n = int(st[L.S_NEV])
        _, ev, snaps = GAME.trace_arrays(st)
        ev, snaps = ev[:n], snaps[:n]
        cnt = census(snaps, players)
        assert (cnt == 1).all(), f"game {g}: a card missing or doubled"
        assert (snaps[:, L.S_RULES:L.S_RULES + L.N_RULES] == rv).all()
        assert (snaps[players:, L.S_NLAY:L.S_NLAY + players] >= 1).all()  # after the deal
        assert (snaps[:, L.S_NLAY:L.S_NLAY + players] <= setup.rules["max_layouts"]).all()
        kinds = ev[:, 0]
        # a stall comes exactly after `players` turns in a row without a swap
        run = 0
        for k in kinds:
            if k == L.EV_SWAP:
                run = 0
            elif k == L.EV_PASS:
                run += 1
                assert run <= players
            elif k == L.EV_DOUBLE:
                pass
            elif k == L.EV_STALL:
                assert run == players
                run = 0
        # every completed chimney really is one
        for e in ev[(kinds == L.EV_CHIMNEY) | (kinds == L.EV_STRAIGHT)]:
            cards = e[4:8]
            if e[0] == L.EV_CHIMNEY:
                assert len(set(cards & 3)) == 1
            else:
                r = sorted(set(cards >> 2))
                assert setup.rules["straights_count"] and len(r) == 4 and \
                    (r[3] - r[0] == 3 or r == [0, 1, 2, 12])
        length, unfinished, mask = row[:3]
        scores = row[3:3 + players]
        assert list(scores) == [int(st[L.S_NCH + s]) for s in range(players)]
        assert mask == sum(1 << s for s in range(players) if scores[s] == scores.max())
        if not unfinished:
            assert st[L.S_STOCK_N] == 0
        else:
            assert length == setup.rules["max_turns"] and st[L.S_STOCK_N] > 0
        if players == 4 and not unfinished and not sets:
            c = Counter(kinds.tolist())
            assert c[L.EV_CHIMNEY] + c[L.EV_STRAIGHT] + c[L.EV_DOUBLE] == 8
            assert c[L.EV_DEAL] == 5 + 8


def _codes_census(z):
    cards = list(z["stock"]) + list(z["center"]) + list(z["removed"])
    for lays in z["layouts"]:
        for lay in lays:
            cards += lay
    for chs in z["chimneys"]:
        for ch in chs:
            cards += ch
    return Counter(cards)


@pytest.mark.parametrize("players,strategies,sets", [
    (4, "reference", ()), (3, "random,greedy,reference", ()),
    (4, "sweeper,collector", ("stall_removed=discard",)), (7, "random", ()),
])
def test_json_traces(players, strategies, sets):
    setup = make_setup("smokestack", players, list(sets), strategies, SEED)
    fast = runner.run(setup, 25, jobs=1, keep_rows=True).rows
    deck = Counter(L.card_code(c) for c in range(52))
    for g in range(25):
        lines = trace(setup, g)
        header, events, result = lines[0], lines[1:-1], lines[-1]
        assert header["players"] == players
        json.dumps(lines)
        for ev in events:
            assert _codes_census(ev["state"]) == deck
            assert (ev["player"] is None) == (ev["action"] == "deal")
        row = fast[g]
        assert result["length"] == row[0] and result["unfinished"] == bool(row[1])
        assert result["winners"] == [s for s in range(players) if (row[2] >> s) & 1]
        assert result["scores"] == list(row[3:3 + players])
        assert result["winners"]  # the most chimneys always win, capped games too


def _cli(*args):
    out = subprocess.run([sys.executable, "-m", "cardlab.cli", *args], capture_output=True,
                         text=True, check=True).stdout
    return json.loads(out)


def test_jobs_do_not_change_the_result():
    base = ["simulate", "smokestack", "--games", "3000", "--players", "4", "--seed", "5",
            "--strategies", "reference,random,sweeper,collector", "--json"]
    a = _cli(*base, "--jobs", "1")
    b = _cli(*base, "--jobs", "2")
    for d in (a, b):
        d.pop("elapsed_s")
        d.pop("games_per_second")
    assert a == b


def test_discard_never_stalls_forever():
    setup = make_setup("smokestack", 4, [], "greedy", SEED)
    shuffle = runner.run(setup, 2000, jobs=1).tally
    setup = make_setup("smokestack", 4, ["stall_removed=discard"], "greedy", SEED)
    discard = runner.run(setup, 2000, jobs=1).tally
    assert discard.unfinished == 0
    assert shuffle.unfinished > 0
