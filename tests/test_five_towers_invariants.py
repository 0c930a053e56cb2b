"""Invariants of whole 5 Towers games, seeded, across player counts, strategies and knobs.

(a) raw snapshots straight from ``run_games`` in trace mode, checked over a few thousand
    games: every card in exactly one zone after every event, every tower legal at every
    step (lower on top, anything on an 8, a 9 on anything but a 0, nothing on a 0), every
    bid buildable and placed in full, the final scores recomputed from the final state,
    and the traced row equal to the fast path's row;
(b) games through the JSON trace (``sim.trace.trace``): census of the decoded zones and
    the result vs the fast path;
(c) the CLI: --jobs 1 vs 2.
"""
from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest

from cardlab.sim import runner
from cardlab.sim.five_towers import GAME
from cardlab.sim.five_towers import layout as L
from cardlab.sim.runner import make_setup
from cardlab.sim.trace import trace
from tests.tracing import play_traced
from tests import five_towers_helpers as H

SEED = 20261129
TRACE_CAP = 400


def traced(setup, g):
    """(final trace-mode state, fast-path row) of game g."""
    return play_traced(runner.warm(setup), setup, g, TRACE_CAP)


def census(snaps, players, ncards):
    """How many times each card id appears in the zones of every snapshot."""
    n = snaps.shape[0]
    cnt = np.zeros((n, 257), np.int64)  # column 256: unused slots
    rows = np.arange(n)[:, None]

    def add(cards, valid):
        c = np.where(valid & (cards >= 0), cards, 256)
        np.add.at(cnt, (np.broadcast_to(rows, c.shape), c), 1)

    k = np.arange(L.NCARDS)
    add(snaps[:, L.S_DRAW:L.S_DRAW + L.NCARDS], k[None, :] < snaps[:, L.S_DRAW_N][:, None])
    add(snaps[:, L.S_DISC:L.S_DISC + L.NCARDS], k[None, :] < snaps[:, L.S_DISC_N][:, None])
    add(snaps[:, L.S_OFFER:L.S_OFFER + L.MAXOFF], np.ones((n, L.MAXOFF), bool))
    h = np.arange(L.MAXH)
    for s in range(players):
        for t in range(L.NK):
            o = L.S_TOW + (s * L.NK + t) * L.MAXH
            add(snaps[:, o:o + L.MAXH], h[None, :] < snaps[:, L.S_TH + s * L.NK + t][:, None])
        o = L.S_RUB + s * L.NCARDS
        add(snaps[:, o:o + L.NCARDS], k[None, :] < snaps[:, L.S_RUB_N + s][:, None])
    return cnt[:, :256]


def deck_ids(n):
    ids = [k * 16 + v for k in range(L.NK) for v in range(16)]
    if n == 110:
        ids += [128 + k * 16 + v for k in range(L.NK) for v in L.EXTRA]
    return ids


SETUPS = [
    (3, "reference", ()), (3, "random", ()), (2, "reference", ()), (4, "reference", ()),
    (5, "random,reference", ()), (4, "greedy,cautious,capper,random", ()),
    (3, "random", ("teardown_when=after",)), (3, "capper,random", ("rubble_penalty=linear",)),
    (2, "random", ("deck=full", "offer_size=3")), (5, "greedy,random", ("deck=base", "offer_size=8")),
    (3, "random", ("all_pass=stay", "offer_size=1")), (4, "random", ("max_rounds=12",)),
]
GAMES = 170   # per setup: ~2000 games


@pytest.mark.parametrize("players,strategies,sets", SETUPS)
def test_raw_snapshots(players, strategies, sets):
    setup = make_setup("five_towers", players, list(sets), strategies, SEED)
    fast = runner.run(setup, GAMES, jobs=1, keep_rows=True).rows
    rules = setup.rules
    ndeck = int(setup.arrays()[0][L.R_DECK - L.S_RULES])
    want = np.zeros(256, np.int64)
    want[deck_ids(ndeck)] = 1
    for g in range(GAMES):
        st, row = traced(setup, g)
        assert np.array_equal(row, fast[g])
        n = int(st[L.S_NEV])
        _, ev, snaps = GAME.trace_arrays(st)
        ev, snaps = ev[:n], snaps[:n]
        assert (census(snaps, players, ndeck) == want[None, :]).all(), f"game {g}: a card missing or doubled"
        kinds = ev[:, 0]
        # every placement legal on the top it went on, and kind matches tower
        for i in np.nonzero(kinds == L.EV_PLACE)[0]:
            seat, slot, card, k, height = (int(x) for x in ev[i, [1, 3, 4, 5, 6]])
            assert (card >> 4) & 7 == k
            o = L.S_TOW + (seat * L.NK + k) * L.MAXH
            below = int(snaps[i, o + height - 2]) & 15 if height >= 2 else L.EMPTY
            assert H.legal(card & 15, below), f"game {g}: {L.card_code(card)} on {below}"
            assert int(snaps[i, o + height - 1]) == card
        for i in np.nonzero(kinds == L.EV_TEARDOWN)[0]:
            assert int(ev[i, 4]) & 15 != 0, "a 0 is never torn down"
        # each bid was placed in full by the high bidder; bids rise within a round
        rnd = ev[:, 2]
        for r in np.unique(rnd[kinds == L.EV_BID]):
            bids = ev[(rnd == r) & (kinds == L.EV_BID)]
            assert (np.diff(bids[:, 3]) > 0).all()
            places = ev[(rnd == r) & (kinds == L.EV_PLACE)]
            assert len(places) == bids[-1, 3] and (places[:, 1] == bids[-1, 1]).all()
            assert ((rnd == r) & (kinds == L.EV_TEARDOWN)).sum() <= 1
        # at most two run-outs, one reshuffle
        assert (kinds == L.EV_RESHUFFLE).sum() <= 1
        length, unfinished, mask = (int(x) for x in row[:3])
        final = np.zeros(L.S_SIZE, np.int64)
        final[:L.ZONES_END] = st[:L.ZONES_END]
        scores = [H.score(final, s, rules["rubble_penalty"] == "linear") for s in range(players)]
        assert list(row[3:3 + players]) == scores
        if unfinished:
            assert length == rules["max_rounds"] and mask == 0
        else:
            assert st[L.S_OVER] == 1 and st[L.S_RUNOUTS] == 2
            assert mask == sum(1 << s for s in range(players) if scores[s] == max(scores))


def _census(z):
    cards = list(z["draw"]) + list(z["discard"]) + list(z["offer"])
    for tw in z["towers"]:
        for cs in tw.values():
            cards += cs
    for r in z["rubble"]:
        cards += r
    return Counter(cards)


@pytest.mark.parametrize("players,strategies", [(3, "reference"), (4, "random,greedy,cautious,capper")])
def test_json_traces(players, strategies):
    setup = make_setup("five_towers", players, [], strategies, SEED)
    fast = runner.run(setup, 20, jobs=1, keep_rows=True).rows
    deck = Counter(L.card_code(c) for c in deck_ids(80 if players <= 3 else 110))
    for g in range(20):
        lines = trace(setup, g)
        events, result = lines[1:-1], lines[-1]
        json.dumps(lines)
        for ev in events:
            assert _census(ev["state"]) == deck
            assert (ev["player"] is None) == (ev["action"] in ("reveal", "reshuffle", "discard", "all_pass"))
            if ev["action"] == "place":
                tw = ev["state"]["towers"][ev["player"]][ev["kind"]]
                assert tw[-1] == ev["card"] and len(tw) == ev["height"]
        row = fast[g]
        assert result["length"] == row[0] and result["unfinished"] == bool(row[1])
        assert result["winners"] == [s for s in range(players) if (row[2] >> s) & 1]
        assert result["scores"] == list(row[3:3 + players])


def _cli(*args):
    out = subprocess.run([sys.executable, "-m", "cardlab.cli", *args], capture_output=True,
                         text=True, check=True).stdout
    return json.loads(out)


def test_jobs_do_not_change_the_result():
    base = ["simulate", "five_towers", "--games", "3000", "--players", "4", "--seed", "5",
            "--strategies", "reference,random,greedy,capper", "--json"]
    a = _cli(*base, "--jobs", "1")
    b = _cli(*base, "--jobs", "2")
    for d in (a, b):
        d.pop("elapsed_s")
        d.pop("games_per_second")
    assert a == b
