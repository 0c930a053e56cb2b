"""The runner: determinism across jobs and chunking, merging, flat memory, statistics."""
import json

import numpy as np
import pytest

from cardlab.analysis.summary import TIMING_KEYS, summarize
from cardlab.sim.runner import make_setup as _setup
from cardlab.sim import runner
from cardlab.sim.errors import InputError


def _strip(summary):
    return {k: v for k, v in summary.items() if k not in TIMING_KEYS}


def test_same_result_for_any_jobs_and_chunking(sky2):
    base = runner.run(sky2, 3000, jobs=1, chunk=3000)
    for jobs, chunk in ((2, 500), (2, 777), (1, 64)):
        other = runner.run(sky2, 3000, jobs=jobs, chunk=chunk)
        assert np.array_equal(base.tally.data, other.tally.data), (jobs, chunk)
        assert json.dumps(_strip(summarize(base))) == json.dumps(_strip(summarize(other)))


def test_a_search_seat_runs_in_small_chunks_with_the_same_result():
    """A run with an ``mcts`` seat is cut into SEARCH_CHUNK-game chunks (so both cores play
    a few hundred slow games), and its tally is the one a single chunk gives."""
    setup = _setup("crazy_eights", 3, None, "mcts:iterations=8,reference,random", 4)
    seen = []
    small = runner.run(setup, 2 * runner.SEARCH_CHUNK + 5, jobs=2, progress=seen.append)
    assert sorted(seen) == [5, runner.SEARCH_CHUNK, runner.SEARCH_CHUNK]
    one = runner.run(setup, 2 * runner.SEARCH_CHUNK + 5, jobs=1, chunk=runner.CHUNK)
    assert np.array_equal(small.tally.data, one.tally.data)
    seen.clear()
    runner.run(_setup("crazy_eights", 3, None, "reference", 4), 45, jobs=2, progress=seen.append)
    assert seen == [45]  # no search seat: the fast path's chunk


def test_runs_merge_by_addition(sky2):
    whole = runner.run(sky2, 2000, jobs=1)
    first = runner.run(sky2, 1200, jobs=1)
    rest = runner.run(sky2, 800, jobs=1, start=1200)
    assert np.array_equal(whole.tally.data, first.tally.data + rest.tally.data)


def test_rows_match_tallies(sky2):
    r = runner.run(sky2, 1500, jobs=2, chunk=400, keep_rows=True)
    rows = r.rows
    assert rows.shape == (1500, sky2.game.row_width)
    assert r.tally.games == 1500
    assert r.tally.length_sum == rows[:, 0].sum()
    assert r.tally.unfinished == rows[:, 1].sum()
    wins = [(rows[:, 2] >> s & 1).sum() for s in range(2)]
    assert list(r.tally.wins) == wins  # one winner per finished game in Skyscraper
    assert np.array_equal(r.tally.hist[:rows[:, 0].max() + 1], np.bincount(rows[:, 0]))


def test_different_seeds_differ(sky2):
    a = runner.run(sky2, 500, jobs=1)
    other = _setup("skyscraper", 2, None, "reference", 2)
    b = runner.run(other, 500, jobs=1)
    assert not np.array_equal(a.tally.data, b.tally.data)


def test_win_shares_and_no_winner_add_up(sky2):
    r = runner.run(sky2, 4000, jobs=2, chunk=1000)
    s = summarize(r)
    assert sum(s["win_rate_by_seat"]) + s["no_winner_rate"] == pytest.approx(1.0, abs=1e-9)
    # in Skyscraper every game without a winner is one that hit the cap
    assert s["no_winner_rate"] == s["unfinished_rate"]
    assert s["end_conditions"]["cap"] == r.tally.unfinished


def test_interval_coverage_over_independent_seeds(sky2):
    """A 95% interval from 1,000 games covers the long-run win rate in most of 20 runs."""
    truth = runner.run(sky2, 100_000, jobs=2).tally.wins[0] / 100_000
    covered = 0
    for seed in range(100, 120):
        s = _setup("skyscraper", 2, None, "reference", seed)
        lo, hi = summarize(runner.run(s, 1000, jobs=1))["win_rate_ci_by_seat"][0]
        covered += lo <= truth <= hi
    assert covered >= 16  # P(fewer than 16 of 20 | 95% coverage) < 0.3%


def test_first_player_advantage_and_seat_gap_are_reported(sky2):
    s = summarize(runner.run(sky2, 5000, jobs=2))
    fpa, (lo, hi) = s["first_player_advantage"], s["first_player_advantage_ci"]
    assert lo <= fpa <= hi and hi - lo < 0.05
    assert fpa == pytest.approx(s["win_rate_by_seat"][0] - 0.5, abs=1e-6)
    gap = s["seat_differences"][0]
    assert gap["seats"] == [0, 1]
    assert gap["ci"][0] <= gap["diff"] <= gap["ci"][1]
    assert s["balance"] == pytest.approx(1 - abs(gap["diff"]), abs=1e-6)


@pytest.mark.parametrize("games,seed,jobs", [(0, 1, 1), (10, -1, 1), (10, 1, 0)])
def test_bad_counts_are_refused(sky2, games, seed, jobs):
    with pytest.raises(InputError):
        runner.check_counts(games, seed, jobs)


def test_memory_does_not_grow_with_games(sky2):
    """The tally has a fixed size: only rows (opt-in) grow with the number of games."""
    small = runner.run(sky2, 100, jobs=1)
    big = runner.run(sky2, 20_000, jobs=2)
    assert small.tally.data.nbytes == big.tally.data.nbytes
    assert small.rows is None and big.rows is None
