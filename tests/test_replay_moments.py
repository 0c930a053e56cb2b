"""Where a replay opens and the strip's series (analysis/replay_moments.py): the moment
finder on hand-built series (a comeback, a wire-to-wire win, ties, a stall), then real
traces: each seat's series is what the trace's own zones say, and the lead read from it is
the fast path's (the same lead changes and decided point as the game's row), for a game
counted in turns (Skyscraper) and one counted in rounds (Block Tower)."""
from __future__ import annotations

import numpy as np
import pytest

from cardlab.analysis.replay_moments import Moment, Story, find_moment, game_story, lead_story
from cardlab.sim import runner
from cardlab.sim.registry import game_ids
from cardlab.sim.shape import ROW_COLS
from cardlab.sim.trace import candidate_periods, snapshots, trace


def story(values, periods, winners, *, unfinished=False, length=None, frozen_from=None):
    return lead_story(Story(len(values[0]), length or periods[-1], winners, unfinished, "turns", "points",
                            values=values, periods=periods, period_of="turn", frozen_from=frozen_from))


# ------------------------------------------------------------------ hand-built series
# four turns; seat 0 leads at the end of turns 1 and 2 (seat 1 leads mid-turn 2 only: a
# turn's lead is its last event's), seat 1 takes the lead in turn 3 at event 6 (at event 5
# the top is shared, at event 4 it led already but lost it again) and wins
COMEBACK = dict(values=[[1, 2, 2, 3, 3, 3, 3, 3],
                        [0, 0, 4, 1, 4, 3, 4, 5]],
                periods=[1, 1, 2, 2, 3, 3, 3, 4], winners=[1])


def test_a_comeback_opens_at_the_last_lead_change():
    st = story(**COMEBACK)
    assert [(t.turn, t.event, t.seat, t.change) for t in st.takes] == [(1, 0, 0, False), (3, 6, 1, True)]
    assert st.lead_changes == 1 and st.decided() == 3
    m = find_moment("comeback", st)
    assert m.event == 6
    assert m.why == ("The lead changes for the last time (change 1 of 1): seat 1 takes it in turn 3 of 4 "
                     "and keeps it to the end.")
    # the winner's decisive play is the same event; the closest finish opens there too
    assert find_moment("typical", st).event == find_moment("closest", st).event == 6
    assert "takes the lead for good in turn 3 of 4" in find_moment("lopsided", st).why
    assert find_moment("longest", st) == Moment(7, "The end, after 4 turns: seat 1 wins.")
    assert find_moment("capped", st) is None  # a finished game did not stall


def test_a_wire_to_wire_win_opens_where_the_winner_first_leads():
    # events of turn 0 (the deal) tie; seat 0 is ahead from event 2 of turn 1 to the end
    st = story([[0, 0, 1, 1, 2, 3], [0, 0, 0, 0, 1, 1]], [0, 0, 1, 1, 2, 2], [0])
    assert st.lead_changes == 0 and st.decided() == 1
    m = find_moment("typical", st)
    assert m == Moment(2, "Seat 0 leads for good from turn 1 of 2 (the lead never changes hands).")
    assert find_moment("comeback", st) == m  # no lead change: the decisive play
    assert find_moment("closest", st).event == 5  # no lead change: the finish


def test_ties_are_not_lead_changes():
    # A leads, the top is shared, A leads again: no lead change; A leads for good from turn 3
    st = story([[1, 1, 2], [0, 1, 1]], [1, 2, 3], [0])
    assert st.lead_changes == 0 and st.decided() == 3
    assert find_moment("seat0_win", st).event == 2
    # A leads, a tie, then B: one change
    st = story([[1, 1, 1], [0, 1, 2]], [1, 2, 3], [1])
    assert st.lead_changes == 1 and find_moment("comeback", st).event == 2
    # a shared win (the top shared at the end): no decisive play, no moment for typical;
    # the closest finish still opens at the last lead change
    st = story([[1, 0, 2, 2], [0, 1, 1, 2]], [1, 2, 3, 4], [0, 1])
    assert st.decided() is None and find_moment("typical", st) is None
    assert st.lead_changes == 2 and find_moment("closest", st).event == 2
    assert find_moment("closest", st).why.endswith("turn 3 of 4.")  # seat 0 does not keep it alone


def test_turns_without_events_keep_the_lead_before_them():
    st = story([[1, 1, 0, 0], [0, 0, 2, 2]], [1, 1, 3, 3], [1])
    assert [c for _, c in st.samples] == [0, 0, 1] and st.samples[1] == (1, 0)
    assert st.decided() == 3 and find_moment("typical", st).event == 2


def test_a_capped_game_opens_where_progress_stops():
    flat_from_4 = [[0, 1, 1, 2, 2, 2, 2], [0, 0, 1, 1, 1, 1, 1]]
    st = story(flat_from_4, [1, 2, 3, 4, 5, 6, 7], [], unfinished=True, length=500, frozen_from=5)
    m = find_moment("capped", st)
    assert m.event == 4
    assert "from event 5 on, no seat's progress (points) changes in the last 3 events (3 turns)" in m.why
    assert "from event 6 on no card moves at all" in m.why
    # no progress at all: the whole game; progress up to the last event: the last event
    assert find_moment("capped", story([[0, 0, 0], [0, 0, 0]], [1, 2, 3], [], unfinished=True)).event == 0
    m = find_moment("capped", story([[0, 0, 1], [0, 0, 0]], [1, 2, 3], [], unfinished=True))
    assert m.event == 2 and m.why.startswith("Progress still moves")
    # a capped game has no winner to lead: the other picks have no moment
    assert find_moment("typical", st) is None


def test_no_series_no_moment_but_the_end():
    st = Story(events=10, length=5, winners=[0], unfinished=False)
    assert find_moment("comeback", st) is None and find_moment("capped", st) is None
    assert find_moment("longest", st).event == 9
    assert st.strip([("x", Moment(1, "y"))]) is None


def test_one_seat_has_no_lead_to_take():
    st = story([[0, 1, 2]], [1, 2, 3], [0])
    assert find_moment("typical", st) is None and find_moment("longest", st).event == 2


def test_the_strip_joins_moments_at_one_event():
    st = story(**COMEBACK)
    m = find_moment("comeback", st)
    s = st.strip([("The biggest comeback", m), ("The closest finish", m), ("The longest game", Moment(7, "end"))])
    assert s["values"] == COMEBACK["values"] and s["what"] == "points"
    assert [(x["e"], x["title"]) for x in s["moments"]] == [(6, "The biggest comeback / The closest finish"),
                                                            (7, "The longest game")]
    assert s["moments"][0]["why"] == m.why  # the same sentence once


def _lines(turns, rounds, length, unfinished=False):
    events = [{"type": "event", "turn": t, "state": {"round": r}} for t, r in zip(turns, rounds)]
    return [{"type": "header"}, *events, {"type": "result", "length": length, "unfinished": unfinished}]


def test_which_turn_an_event_belongs_to():
    # the events' turn field counts the game's length
    assert candidate_periods(_lines([0, 1, 1, 2], [0, 0, 0, 0], 2), "turns") == [("turn", [0, 1, 1, 2])]
    # a game counted in rounds whose turn field counts turns: its 0-based round counter, shifted
    assert candidate_periods(_lines([0, 1, 2, 3, 4, 5], [0, 0, 0, 1, 1, 1], 2), "rounds") == [
        ("round", [1, 1, 1, 2, 2, 2])]
    # a reading that goes back is no reading
    assert candidate_periods(_lines([0, 2, 1], [0, 0, 0], 2), "turns") == []
    # a capped game's length is the cap (a frozen table may be ended early): unshifted
    assert candidate_periods(_lines([0, 1, 15], [0, 0, 0], 500, True), "turns")[0] == ("turn", [0, 1, 15])


# ------------------------------------------------------------------ real traces
@pytest.mark.parametrize("gid,players,decode,period_of", [
    ("skyscraper", 2, lambda state, s: len(state["towers"][s]), "turn"),   # floors
    ("block_tower", 3, lambda state, s: state["scores"][s], "round"),      # points, in rounds
])
def test_real_traces_read_the_lead_as_the_fast_path(gid, players, decode, period_of):
    setup = runner.make_setup(gid, players, [], "reference", seed=5)
    games = 25
    rows = runner.run(setup, games, 1, keep_rows=True).rows
    seen_change = 0
    for g in range(games):
        lines = trace(setup, g)
        st = game_story(setup, g, lines)
        events = lines[1:-1]
        # the series is what the trace's own zones say, event by event
        assert st.values == [[decode(e["state"], s) for e in events] for s in range(players)], (gid, g)
        if st.unfinished:
            continue
        assert st.exact and st.period_of == period_of
        d = st.decided()
        lc, back, milli = (int(x) for x in rows[g, -ROW_COLS:-1])
        assert (st.lead_changes, 1000 * d // st.length if d else -1) == (lc, milli), (gid, g)
        h = st.length // 2
        if back >= 0:  # the comeback column: the half-time leader did not win
            assert back == int(st.samples[h - 1][1] not in st.winners)
        seen_change += lc > 0
        m = find_moment("comeback", st)
        if lc:  # the last lead change: the new leader leads at its turn's end
            t = [x for x in st.takes if x.change][-1]
            assert m.event == t.event and st.leader_at(m.event) == t.seat
            assert st.leader_at(m.event - 1) != t.seat or m.event == st.samples[t.turn - 2][0] + 1
    assert seen_change  # the sample has lead changes to find


@pytest.mark.parametrize("gid", game_ids())
def test_every_game_reads_the_lead_as_the_fast_path(gid):
    """In every shipped game, the turn (or round) reading of the events reproduces the
    game's row: its lead changes and decided point (``Story.exact``)."""
    setup = runner.make_setup(gid, None, [], None, seed=3)
    finished = 0
    for g in range(12):
        st = game_story(setup, g, trace(setup, g))
        assert st.values and len(st.values) == setup.players and len(st.values[0]) == st.events
        if not st.unfinished:
            assert st.exact and st.period_of != "event", (gid, g)
            finished += 1
    assert finished


def test_a_real_capped_game_opens_where_it_stalls(sky2):
    rows = runner.run(sky2, 300, 1, keep_rows=True).rows
    g = int(np.flatnonzero(rows[:, 1])[0])  # Skyscraper caps a few games in a hundred
    lines = trace(sky2, g)
    st = game_story(sky2, g, lines)
    m = find_moment("capped", st)
    vals = np.array(st.values)
    assert (vals[:, m.event:] == vals[:, [m.event]]).all()  # nothing changes from the moment on
    assert m.event < 2 or (vals[:, m.event - 1] != vals[:, m.event - 2]).any()  # ... and just before it did
    assert snapshots(sky2, g, st.events + 1) is None  # another game's event count: not this game
