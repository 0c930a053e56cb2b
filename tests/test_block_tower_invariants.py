"""Invariants of whole Block Tower games, seeded, across player counts, strategies and knobs.

(a) raw snapshots straight from ``run_games`` in trace mode, checked with numpy over a few
    thousand games: every card in exactly one zone after every event, the public hand
    sizes equal to the hands' cards, rules untouched,
    u equal to the sum of the standing blocks' shares, scores only growing, turn order,
    collapse payments and draw counts, and the traced row equal to the fast path's row;
(b) games through the JSON trace (``sim.trace.trace``): census of the decoded zones and
    the result vs the fast path;
(c) determinism: the same tally for any --jobs and on a second run.
"""
from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from cardlab.sim import runner
from cardlab.sim.block_tower import GAME
from cardlab.sim.block_tower import layout as L
from cardlab.sim.runner import make_setup
from cardlab.sim.trace import trace
from tests.tracing import play_traced

SEED = 20261129
TRACE_CAP = 300


def census(snaps: np.ndarray, players: int) -> np.ndarray:
    """For every snapshot, how many times each card id (0..NCMAX-1) appears in the zones."""
    n = snaps.shape[0]
    cnt = np.zeros((n, L.NCMAX + 1), np.int64)
    rows = np.arange(n)[:, None]

    def add(cards, valid):
        c = np.where(valid, cards, L.NCMAX)
        np.add.at(cnt, (np.broadcast_to(rows, c.shape), c), 1)

    k = np.arange(L.NCMAX)
    add(snaps[:, L.S_DRAW:L.S_DRAW + L.NCMAX], k[None, :] < snaps[:, L.S_DRAW_N][:, None])
    kb = np.arange(L.MAXB)
    add(snaps[:, L.S_PILE:L.S_PILE + L.MAXB], kb[None, :] < snaps[:, L.S_PILE_N][:, None])
    bits = (1 << k)[None, :]
    masks = [snaps[:, L.S_HANDS + s] for s in range(players)] + \
        [snaps[:, L.S_WON + s] for s in range(players)] + [snaps[:, L.S_USED]]
    for m in masks:
        cnt[:, :L.NCMAX] += ((m[:, None] & bits) != 0)
    return cnt[:, :L.NCMAX]


SETUPS = [
    (4, "reference", ()), (4, "random", ()), (2, "reference", ()), (3, "careful,saboteur,tactician", ()),
    (5, "random,tactician", ()), (6, "reference", ()), (6, "random,saboteur,careful", ()),
    (4, "tactician,random", ("points_split=4,6,10", "min_tower=2", "target_points=20")),
    (3, "random", ("hand_size=5", "base=0.05", "skill=0.5,-0.5,0", "push_of_style=3")),
    (2, "random,reference", ("base=0", "max_rounds=3")),          # never falls: splits, cap
    # the reference page's readings of the reshuffle, SWAP and split (issue 14)
    (4, "random,tactician,reference", ("reshuffle_at=turn_start", "reshuffle_draw=hand_size",
                                       "swap_give=two", "split_min_tower=false", "hand_size=4")),
    (6, "random,careful", ("hand_size=4",)),                      # the whole deck dealt: early splits
]
GAMES = 300   # per setup, traced raw: 3600 games


@pytest.fixture(scope="module")
def kernel():
    return GAME.kernel()


@pytest.mark.parametrize("players,strategies,sets", SETUPS)
def test_raw_snapshots(kernel, players, strategies, sets):
    setup = make_setup("block_tower", players, list(sets), strategies, SEED)
    fast = runner.run(setup, GAMES, jobs=1, keep_rows=True).rows
    rv = setup.arrays()[0]
    rules = setup.rules
    nb = int(sum(rules["points_split"]))
    deck = np.zeros(L.NCMAX, np.int64)
    deck[:nb] = 1
    deck[L.ADJUST:] = 1
    pts = np.array([1 + (c >= rules["points_split"][0]) + (c >= rules["points_split"][0] + rules["points_split"][1])
                    for c in range(L.MAXB)])
    for g in range(GAMES):
        st, row = play_traced(kernel, setup, g, TRACE_CAP)
        assert np.array_equal(row, fast[g]), g
        n = int(st[L.S_NEV])
        _, ev, snaps = GAME.trace_arrays(st)
        ev, snaps = ev[:n].copy(), snaps[:n]
        cnt = census(snaps, players)
        assert (cnt == deck[None, :]).all(), f"game {g}: a card missing or doubled"
        # the public hand sizes (what a strategy reads of another hand) follow the hands
        bits = (snaps[:, L.S_HANDS:L.S_HANDS + players, None] >> np.arange(L.NCMAX)) & 1
        assert (snaps[:, L.S_HAND_N:L.S_HAND_N + players] == bits.sum(2)).all(), f"game {g}: hand_n"
        assert (snaps[:, L.S_RULES:L.S_RULES + L.N_RULES] == rv).all()
        f = snaps.view(np.float64)
        hgt = snaps[:, L.S_PILE_N]
        shares = np.where(np.arange(L.MAXB)[None, :] < hgt[:, None], f[:, L.S_SHARE:L.S_SHARE + L.MAXB], 0)
        assert np.allclose(f[:, L.S_U], shares.sum(1), atol=1e-9)
        sc = snaps[:, L.S_SCORES:L.S_SCORES + players]
        assert (np.diff(sc, axis=0) >= 0).all()
        # event by event: turn order, collapse payments, the draws after a placement
        order = []
        acted = 0
        for i, e in enumerate(ev):
            kind, player = int(e[0]), int(e[1])
            if kind == L.EV_ROUND:
                start, d = int(e[3]), int(e[4])
                assert snaps[i, L.S_START] == start and snaps[i, L.S_ROUND] % players == start
                order = []
            elif kind in (L.EV_ADJUST, L.EV_ANYWHERE, L.EV_REMOVE, L.EV_SWAP):
                acted += 1
            elif kind == L.EV_PLACE:
                if order and order[-1] != player:
                    assert player == (order[-1] + d) % players
                if not order or order[-1] != player:
                    order.append(player)
                if e[6] == 0:   # it stood: the next events are its draws
                    k = i + 1
                    drew = 0
                    while k < n and ev[k, 0] == L.EV_DRAW and ev[k, 1] == player:
                        drew += 1
                        k += 1
                    want = 1 + min(acted, 2)
                    assert drew == want or (drew < want and snaps[k - 1, L.S_DRAW_N] == 0), (g, i)
                acted = 0
            elif kind == L.EV_COLLAPSE:
                h, prev, pile_pts, got = int(e[3]), int(e[4]), int(e[5]), int(e[6])
                assert prev == order[-2] if int(e[7]) == 0 or order[-1] == player else prev == order[-1]
                before = snaps[i - 1]
                cards = before[L.S_PILE:L.S_PILE + before[L.S_PILE_N]]
                assert pile_pts == pts[cards].sum()
                assert got == (pile_pts if h >= rules["min_tower"] else 0)
                assert snaps[i, L.S_SCORES + prev] - before[L.S_SCORES + prev] == got
                acted = 0
            elif kind == L.EV_SPLIT:
                assert int(e[4]) == int(e[3]) // players
                acted = 0
        length, unfinished, mask = row[:3]
        scores = row[3:3 + players]
        assert list(scores) == list(sc[-1])
        if unfinished:
            assert mask == 0 and length == rules["max_rounds"] and scores.max() < rules["target_points"]
        else:
            assert scores.max() >= rules["target_points"]
            assert mask == sum(1 << s for s in range(players) if scores[s] == scores.max())
        assert length == (ev[:, 0] == L.EV_ROUND).sum()


def _codes_census(z):
    cards = list(z["draw"]) + list(z["point_pile"]) + list(z["used_actions"])
    for h in z["hands"]:
        cards += h
    for w in z["won"]:
        cards += w
    return Counter(cards)


@pytest.mark.parametrize("players,strategies,sets", [
    (4, "reference", ()), (3, "random,careful,tactician", ()), (5, "saboteur,random", ("points_split=10,6,4",)),
])
def test_json_traces(players, strategies, sets):
    setup = make_setup("block_tower", players, list(sets), strategies, SEED)
    fast = runner.run(setup, 20, jobs=1, keep_rows=True).rows
    nb = int(sum(setup.rules["points_split"]))
    deck = Counter([L.card_code(c) for c in range(nb)] + list(L.ACTIONS))
    for g in range(20):
        lines = trace(setup, g)
        header, events, result = lines[0], lines[1:-1], lines[-1]
        assert header["players"] == players and header["game"] == "block_tower"
        json.dumps(lines)
        assert [e["step"] for e in events] == list(range(len(events)))
        for ev in events:
            z = ev["state"]
            assert _codes_census(z) == deck
            assert z["tower"] == z["point_pile"] and len(z["shares"]) == len(z["tower"])
            assert (ev["player"] is None) == (ev["action"] in ("round", "deal"))
        row = fast[g]
        assert result["length"] == row[0] and result["unfinished"] == bool(row[1])
        assert result["winners"] == [s for s in range(players) if (row[2] >> s) & 1]
        assert result["scores"] == list(row[3:3 + players])
        assert result["scores"] == events[-1]["state"]["scores"]


def test_determinism_and_jobs():
    setup = make_setup("block_tower", 4, [], "reference,random,tactician,saboteur", 5)
    a = runner.run(setup, 45_000, jobs=1).tally.data
    b = runner.run(setup, 45_000, jobs=2).tally.data
    c = runner.run(setup, 45_000, jobs=2).tally.data
    assert np.array_equal(a, b) and np.array_equal(b, c)
    other = runner.run(make_setup("block_tower", 4, [], "reference,random,tactician,saboteur", 6),
                       45_000, jobs=2).tally.data
    assert not np.array_equal(a, other)


def test_reference_statistics_are_sane():
    setup = make_setup("block_tower", 4, [], "reference", 1)
    t = runner.run(setup, 20_000, jobs=2).tally
    ev = dict(zip(GAME.event_names, t.events / t.games))
    heights = np.array([ev[f"collapse_h{h}"] for h in range(1, L.MAXB + 1)])
    med = np.searchsorted(np.cumsum(heights) / heights.sum(), 0.5) + 1
    assert 8 <= med <= 12
    assert t.unfinished == 0 and abs(t.wins.sum() / t.games - 1) < 1e-9
    assert ev["collapse"] == pytest.approx(ev["fall_place"] + ev["fall_adjust"] + ev["fall_remove"])
    assert ev["round"] == pytest.approx(ev["collapse"] + ev["split"])


def test_collapse_section_for_the_report():
    from cardlab.analysis.block_tower import collapse_section, collapse_stats
    from cardlab.analysis.summary import summarize

    setup = make_setup("block_tower", 4, [], "reference", 2)
    s = summarize(runner.run(setup, 5000, jobs=1))
    c = collapse_stats(s)
    assert sum(c["share"]) == pytest.approx(1.0)
    assert c["collapses_per_game"] == pytest.approx(s["events_per_game"]["collapse"], abs=1e-3)
    assert c["p10"] <= c["median"] <= c["p90"] and 8 <= c["median"] <= 12
    assert c["share"][0] > 0 and sum(c["share"][L.MAXB - 10:]) == 0   # heights 1.. but never 21+
    assert c["split_share_of_rounds"] == pytest.approx(
        s["events_per_game"]["split"] / s["events_per_game"]["round"])
    figs = collapse_section(s)
    assert len(figs) == 1 and figs[0].png[:4] == b"\x89PNG" and "median" in figs[0].caption
    # nothing ever falls: no figure, and every round ends by running out
    s = summarize(runner.run(make_setup("block_tower", 3, ["base=0", "max_rounds=5"], "reference", 2),
                             200, jobs=1))
    assert collapse_section(s) == [] and collapse_stats(s)["split_share_of_rounds"] == 1.0
