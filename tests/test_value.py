"""A learned evaluation's first step (analysis/value.py): observations sampled along the very
games the fast path plays, a logistic evaluation fitted on them, and its measure on games it
never saw."""
from __future__ import annotations

import numpy as np

from cardlab.analysis.value import Value, fit, sample, value_report, win_share
from cardlab.sim import runner


def test_the_sampler_plays_the_fast_paths_games():
    """Same seed, same games: every sampled game ends with the winners the fast path's rows
    give, each position has a row per seat, and a second run is identical."""
    X, meta, P = sample("crazy_eights", games=40, every=3, seed=9)
    X2, meta2, _ = sample("crazy_eights", games=40, every=3, seed=9)
    assert np.array_equal(X, X2) and np.array_equal(meta, meta2)
    assert len(X) % P == 0 and (meta[::P, 1] == 0).all() and (meta[:, 2] % 3 == meta[:, 0] % 3).all()
    assert (meta[:, 2] < meta[:, 4]).all()  # a sampled decision lies within its game
    setup = runner.make_setup("crazy_eights", None, None, None, 9)
    _, _, _, rows = runner.play_chunk(setup, 0, 40, True)
    for g, mask in {int(g): int(m) for g, m in meta[:, [0, 3]]}.items():
        assert mask == rows[g, 2], g
    assert sorted(set(meta[:, 0])) == list(range(40))
    share = win_share(meta)
    for g in range(40):  # the shares of a position's seats add up to one (or zero: the cap)
        rows_g = share[meta[:, 0] == g].reshape(-1, P).sum(axis=1)
        assert np.allclose(rows_g, 1.0) or np.allclose(rows_g, 0.0)


def test_fit_finds_the_signal_and_drops_constant_columns():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=4000), rng.normal(size=4000), np.full(4000, 7.0)])
    y = (rng.random(4000) < 1 / (1 + np.exp(-2 * X[:, 0]))).astype(float)
    v = fit(X, y, l2=1.0)
    assert isinstance(v, Value) and list(v.keep) == [0, 1]
    assert v.w[0] > 1.5 and abs(v.w[1]) < 0.2


def test_the_evaluation_beats_the_fair_guess_on_unseen_games():
    """Crazy Eights, 800 games of the reference strategy: on the quarter of games held out,
    the fitted evaluation's log-loss is below the fair guess's, and the seat it rates best
    wins more often than one seat in three, most of all late in the game."""
    r = value_report("crazy_eights", games=800, every=4, seed=2)
    assert r["games"] == 800 and r["positions"] > 500
    assert r["log_loss"] < r["fair_log_loss"] - 0.01
    assert r["pick_rate"] > r["fair_pick_rate"] + 0.08
    late = r["by_stage"][-1]["pick_rate"]
    assert late > r["by_stage"][0]["pick_rate"] and late > 0.55
