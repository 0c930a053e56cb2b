"""Invariants of whole Skyscraper games, seeded, across player counts, strategies and knobs.

(a) full JSON traces (``sim.trace.trace``): every card in exactly one zone after every
    event, every floor sums to floor_sum, each event's effect on the zones matches the
    event, and the trace's result equals the fast path's per-game row;
(b) raw snapshots straight from ``run_games`` in trace mode (the events stored after
    S_SIZE in the returned state), checked with numpy over a few thousand games (census,
    floors, hand sizes, rules words untouched, event counts vs. the tally);
(c) the same on non-default knob sets.
"""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from cardlab.sim.runner import make_setup as _setup
from cardlab.sim import runner
from cardlab.sim.skyscraper import GAME
from cardlab.sim.skyscraper import layout as L
from cardlab.sim.trace import trace

from skyscraper_helpers import census_codes, census_many, deck_census, live_floors, new_state

# (players, strategies): every strategy alone and in mixes, at every player count
TRACE_SETUPS = [
    (1, "reference"), (1, "random"), (1, "greedy"), (1, "aggressive"), (1, "defensive"),
    (2, "reference"), (2, "random,reference"), (2, "greedy,aggressive"), (2, "defensive,random"),
    (2, "aggressive,defensive"),
    (3, "reference"), (3, "random,greedy,aggressive"), (3, "defensive,reference,random"),
    (4, "reference"), (4, "random,greedy,aggressive,defensive"),
]
TRACE_GAMES = 10          # per setup: 150 traced games


def setup_for(players, strategies, sets=(), seed=20240611):
    return _setup("skyscraper", players, list(sets), strategies, seed)


@pytest.fixture(scope="module")
def kernel():
    return GAME.kernel()


# Room for events a raw-snapshot game is first played with; a longer game is replayed
# with room for all of its events.  Small on purpose: the kernel allocates (and zeroes)
# the whole trace-mode state, TRACE_ROW words per event, on every call (4096 events are
# ~49 MB, some 40 ms a game).
TRACE_CAP = 512


# ---------------------------------------------------------------- (a) JSON traces


def _floor_ok(floor, rules):
    (c0, c1), (v0, v1) = floor["cards"], floor["values"]
    fmax, fsum = rules["floor_max"], rules["floor_sum"]
    if c0 == "J" and c1 == "J":
        return False
    for c, v in ((c0, v0), (c1, v1)):
        if c == "J":
            if not 1 <= v <= fmax:
                return False
        elif not (c.startswith("F") and int(c[1:]) == v):
            return False
    return v0 + v1 == fsum and floor["dogs"] <= rules["max_dogs_per_floor"] \
        and floor["dog"] == (floor["dogs"] > 0)


def _check_event(prev, ev, players, deck, rules):
    """The zones after ``ev`` follow from the zones before it (``prev``)."""
    s, p, a = ev["state"], ev["player"], ev["action"]
    assert (p is None) == (a in ("deal", "reshuffle"))
    if prev is None:
        return
    if a == "draw":
        assert prev["draw"] and prev["draw"][0] == ev["card"]
        assert s["draw"] == prev["draw"][1:]
        assert Counter(s["hands"][p]) == Counter(prev["hands"][p]) + Counter([ev["card"]])
    elif a == "reshuffle":
        assert prev["draw"] == [] and s["discard"] == []
        assert Counter(s["draw"]) == Counter(prev["discard"]) and ev["cards"] == len(s["draw"])
    elif a == "skip":
        assert s["skips"][p] == prev["skips"][p] - 1
        assert {k: v for k, v in s.items() if k != "skips"} == \
            {k: v for k, v in prev.items() if k != "skips"}
    elif a == "build":
        assert len(s["towers"][p]) == len(prev["towers"][p]) + 1
        top = s["towers"][p][-1]
        assert top["cards"] == ev["cards"] and top["values"] == ev["values"]
        assert Counter(prev["hands"][p]) - Counter(s["hands"][p]) == Counter(ev["cards"])
    elif a == "steal":
        t = ev["target"]
        assert t != p and len(s["towers"][t]) == len(prev["towers"][t]) - 1
        old = prev["towers"][t][-1]
        assert not old["dog"]
        k = ev["taken_index"]
        assert old["cards"][k] == ev["taken"] and old["values"][k] == ev["taken_value"]
        assert s["towers"][p][-1]["cards"] == [ev["played"], ev["taken"]]
        assert sum(s["towers"][p][-1]["values"]) == rules["floor_sum"]
        assert s["discard"] == prev["discard"] + [old["cards"][1 - k]]
    elif a in ("hammer", "ball"):
        t = ev["target"]
        old = prev["towers"][t][-1]
        assert len(s["towers"][t]) == len(prev["towers"][t]) - 1
        assert a == "ball" or not old["dog"]
        assert s["discard"] == prev["discard"] + ["HAM" if a == "hammer" else "BALL"] \
            + old["cards"] + ["DOG"] * old["dogs"]
    elif a == "bone":
        t = ev["target"]
        assert prev["towers"][t][-1]["dogs"] == s["towers"][t][-1]["dogs"] + 1
        assert s["discard"] == prev["discard"] + ["BONE", "DOG"]
    elif a in ("milkshake", "truck"):
        hit = [(p + 1) % players] if a == "milkshake" else [(p + d) % players for d in range(1, players)]
        for q in range(players):
            if q not in hit:
                assert s["skips"][q] == prev["skips"][q]
            elif rules["skips_stack"] or prev["skips"][q] == 0:
                assert s["skips"][q] == prev["skips"][q] + 1
            else:
                assert s["skips"][q] == prev["skips"][q]


def _check_trace(lines, setup):
    rules, players = setup.rules, setup.players
    deck = Counter(census_codes(deck_census(rules)))
    header, *events, result = lines
    assert header["type"] == "header" and result["type"] == "result"
    assert header["players"] == players and header["rules"] == GAME.rules_json(rules)
    assert [e["action"] for e in events[:players]] == ["deal"] * players
    prev = None
    last_turn = 0
    for i, ev in enumerate(events):
        s = ev["state"]
        assert ev["step"] == i
        assert ev["turn"] >= last_turn
        last_turn = ev["turn"]
        census = Counter()
        for zone in (s["draw"], s["discard"], *s["hands"]):
            census.update(zone)
        for tw in s["towers"]:
            for floor in tw:
                census.update(floor["cards"])
                census["DOG"] += floor["dogs"]
                assert _floor_ok(floor, rules), (i, ev["action"], floor)
        assert +census == deck, (i, ev["action"], census - deck, deck - census)
        assert all(k >= 0 for k in s["skips"])
        _check_event(prev, ev, players, deck, rules)
        prev = s
    final = events[-1]["state"]
    assert result["scores"] == [len(t) for t in final["towers"]]
    if result["unfinished"]:
        assert result["winners"] == [] and result["length"] == rules["max_turns"]
    else:
        (w,) = result["winners"]
        assert result["length"] == events[-1]["turn"]
        assert events[-1]["player"] == w and events[-1]["action"] in ("build", "steal")
        assert result["scores"][w] == rules["floors_to_win"]
        assert all(sc < rules["floors_to_win"] for q, sc in enumerate(result["scores"]) if q != w)
    return result


def _row_result(row, players):
    length, unfinished, mask = (int(x) for x in row[:3])
    return {"winners": [s for s in range(players) if (mask >> s) & 1], "length": length,
            "scores": [int(x) for x in row[3:3 + players]], "unfinished": bool(unfinished)}


@pytest.mark.parametrize("players,strategies", TRACE_SETUPS)
def test_json_traces_conserve_cards_and_match_the_fast_path(players, strategies):
    setup = setup_for(players, strategies)
    batch = runner.run(setup, TRACE_GAMES, jobs=1, keep_rows=True)
    for index in range(TRACE_GAMES):
        lines = trace(setup, index)
        result = _check_trace(lines, setup)
        assert lines[0]["game_index"] == index and lines[0]["seed"] == setup.seed
        res = {k: result[k] for k in ("winners", "length", "scores", "unfinished")}
        assert res == _row_result(batch.rows[index], players), index
        single = runner.run(setup, 1, jobs=1, keep_rows=True, start=index)
        assert res == _row_result(single.rows[0], players), index


def test_trace_with_a_small_buffer_replays_the_same_game():
    setup = setup_for(2, "random")
    assert trace(setup, 3, capacity=8) == trace(setup, 3)


# ---------------------------------------------------------------- (b) raw snapshots


def _play_traced(kernel, setup, index):
    """One game in trace mode; returns (events, snapshots, row, tally)."""
    rv, sids, params = setup.arrays()
    lay = runner._layout(GAME)
    cap = TRACE_CAP
    while True:
        tally = GAME.tally.new(GAME.max_length(setup.rules, setup.players))
        rows = np.zeros((1, GAME.row_width), np.int64)
        st = kernel(rv, sids, params, setup.seed, index, index + 1, tally, lay, rows, cap)
        assert st.shape == (L.S_SIZE + cap * L.TRACE_ROW,)
        n, tev, tsnap = GAME.trace_arrays(st)
        assert n == int(st[L.S_NEV]) and tev.shape == (cap, L.EVW)
        assert tsnap.shape == (cap, L.ZONES_END)
        if n <= cap:
            return tev[:n], tsnap[:n], rows[0], tally
        assert cap == TRACE_CAP, "a replay with room for every event overflowed"
        cap = n  # too small: replay the same game with room for all its events


def _check_snapshots(ev, snaps, row, tally, setup):
    P, rules = setup.players, setup.rules
    n = snaps.shape[0]
    assert n >= P and (ev[:P, 0] == L.EV_DEAL).all()
    # the snapshots start with the generator and the rules: the rules are never written
    rv = setup.arrays()[0]
    bad = np.flatnonzero((snaps[:, L.S_RULES:L.S_RULES + L.N_RULES] != rv[None, :]).any(axis=1))
    assert bad.size == 0, (int(bad[0]), L.EVENT_NAMES[ev[bad[0], 0]])
    deck = deck_census(rules)
    census = census_many(snaps, P)
    bad = np.flatnonzero((census != deck[None, :]).any(axis=1))
    assert bad.size == 0, (int(bad[0]), L.EVENT_NAMES[ev[bad[0], 0]],
                           census_codes(census[bad[0]] - deck))
    t0, v0, t1, v1, dogs = live_floors(snaps, P)
    assert ((v0 + v1) == rules["floor_sum"]).all()
    for t, v in ((t0, v0), (t1, v1)):
        face = t > L.F0
        assert (v[face] == t[face] - L.F0).all()
        assert ((t == L.J) | face).all()
        assert ((v >= 1) & (v <= rules["floor_max"])).all()
    assert not ((t0 == L.J) & (t1 == L.J)).any()
    assert ((dogs >= 0) & (dogs <= rules["max_dogs_per_floor"])).all()
    hands = snaps[:, L.S_HAND:L.S_HAND + L.MAXP * L.NT].reshape(n, L.MAXP, L.NT)
    assert (hands >= 0).all() and (hands[:, P:] == 0).all()
    np.testing.assert_array_equal(hands.sum(axis=2), snaps[:, L.S_HSIZE:L.S_HSIZE + L.MAXP])
    assert (snaps[:, L.S_SKIP:L.S_SKIP + L.MAXP] >= 0).all()
    nfl = snaps[:, L.S_NFL:L.S_NFL + L.MAXP]
    assert (nfl[:, :P] <= rules["floors_to_win"]).all()
    # turns only go forward; the row agrees with the last snapshot
    assert (np.diff(ev[:, 2]) >= 0).all()
    length, unfinished, mask = (int(x) for x in row[:3])
    np.testing.assert_array_equal(row[3:3 + P], nfl[-1, :P])
    if unfinished:
        assert mask == 0 and length == rules["max_turns"]
    else:
        w = int(mask).bit_length() - 1
        assert mask == 1 << w and nfl[-1, w] == rules["floors_to_win"]
        assert ev[-1, 1] == w and ev[-1, 0] in (L.EV_BUILD, L.EV_STEAL) and ev[-1, 2] == length
    # the tally's event counts are the events of the trace
    te = GAME.tally.events
    np.testing.assert_array_equal(tally[te:te + L.N_EV], np.bincount(ev[:, 0], minlength=L.N_EV))


RAW_SETUPS = [
    (1, "reference", 300), (1, "random", 300), (2, "reference", 500), (2, "random,greedy", 500),
    (2, "aggressive,defensive", 400), (3, "random,aggressive,reference", 400),
    (4, "defensive,random,greedy,reference", 400), (4, "aggressive", 300),
]


@pytest.mark.parametrize("players,strategies,games", RAW_SETUPS)
def test_raw_snapshots_conserve_cards(kernel, players, strategies, games):
    setup = setup_for(players, strategies, seed=777 + players)
    fast = runner.run(setup, games, jobs=1, keep_rows=True)
    for g in range(games):
        ev, snaps, row, tally = _play_traced(kernel, setup, g)
        _check_snapshots(ev, snaps, row, tally, setup)
        # trace mode does not change the game
        np.testing.assert_array_equal(row, fast.rows[g])


# ---------------------------------------------------------------- (c) other knob sets

KNOB_SETS = [
    ("floors_to_win=4",),
    ("dog_moves_up=true", "max_dogs_per_floor=2"),
    ("jokers=0", "skips_stack=false"),
    ("floor_max=9", "floor_sum=10"),
    ("max_dogs_per_floor=2", "dogs=8", "bones=4", "balls=3"),
    ("hand_size=8", "draw_skip_at=10", "refill_to=5", "floor_copies=2", "thieves=6"),
    ("solo_discard_specials=false", "max_turns=120"),
]


@pytest.mark.parametrize("sets", KNOB_SETS, ids=["+".join(s) for s in KNOB_SETS])
def test_knob_sets_conserve_cards(kernel, sets):
    for players, strategies in ((1, "reference"), (2, "random,aggressive"), (3, "reference"),
                                (4, "greedy,defensive,random,aggressive")):
        setup = setup_for(players, strategies, sets, seed=31 + players)
        games = 60
        fast = runner.run(setup, games, jobs=1, keep_rows=True)
        for g in range(games):
            ev, snaps, row, tally = _play_traced(kernel, setup, g)
            _check_snapshots(ev, snaps, row, tally, setup)
            np.testing.assert_array_equal(row, fast.rows[g])
        for index in range(2):
            _check_trace(trace(setup, index), setup)


# ---------------------------------------------------------------- the stuck-table shortcut


def _python_game(setup, index):
    """The game played on through the binding's ``play_on`` with the shortcut switched off
    (the kernel otherwise jumps to the turn cap once a whole round changes nothing): the
    row it should have produced."""
    B = GAME.binding()  # the engine bound to the rules (sim/bind.py)

    rv, sids, params = setup.arrays()
    # the rules and a generator seeded for (seed, index) in st, as run_games does
    st = new_state(setup.players, setup.rules, seed=setup.seed, index=index)
    np.testing.assert_array_equal(st[L.S_RULES:L.S_RULES + L.N_RULES], rv)
    st[L.S_SHORTCUT_OFF] = 1
    B.setup(st)
    B.play_on(st, sids, params)
    P = setup.players
    row = np.zeros(GAME.row_width, np.int64)
    row[:3] = st[L.S_LENGTH], st[L.S_UNFINISHED], st[L.S_MASK]
    row[3:3 + P] = st[L.S_NFL:L.S_NFL + P]
    return row


@pytest.mark.parametrize("players,strategies,sets", [
    (1, "reference", ()), (1, "random", ()), (2, "reference", ()),
    (2, "greedy", ("hand_size=8", "draw_skip_at=10", "refill_to=5", "floor_copies=2")),
])
def test_turn_cap_shortcut_is_exact(players, strategies, sets):
    setup = setup_for(players, strategies, sets, seed=5)
    fast = runner.run(setup, 200, jobs=1, keep_rows=True)
    capped = np.flatnonzero(fast.rows[:, 1] == 1)[:6].tolist()
    done = np.flatnonzero(fast.rows[:, 1] == 0)[:4].tolist()
    assert capped, "no capped game to check"
    n = 3 + L.S.maxp  # the result and scores (the shape columns after them are the engine's)
    for g in capped + done:
        np.testing.assert_array_equal(_python_game(setup, g)[:n], fast.rows[g][:n], err_msg=f"game {g}")
