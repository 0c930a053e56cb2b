"""The DataFrame API over a run (analysis.tables): intervals against scipy on fixed
inputs, Benjamini-Hochberg against scipy, the survival curve against the histogram,
card power against the tally, and the Wilson interval's coverage on simulated data."""
import math

import numpy as np
import pytest
import scipy.stats as st

from cardlab.analysis import tables as T
from cardlab.analysis.stats import diff_independent, wilson


@pytest.fixture(scope="module")
def run3():
    """Three-player Skyscraper, reference on seats 0 and 2 and greedy on seat 1."""
    from cardlab.sim.runner import make_setup, run

    return run(make_setup("skyscraper", 3, None, "reference,greedy,reference", 5), 3000, jobs=2)


def scipy_wilson(k, n):
    ci = st.binomtest(int(k), int(n)).proportion_ci(confidence_level=0.95, method="wilson")
    return ci.low, ci.high


# ---------------------------------------------------------------- intervals vs scipy
@pytest.mark.parametrize("k,n", [(0, 10), (1, 10), (5, 10), (10, 10), (3, 7), (37, 200),
                                 (1234, 5000), (0, 1), (1, 1), (49_999, 100_000)])
def test_wilson_matches_scipy(k, n):
    lo, hi = wilson(k, n)
    slo, shi = scipy_wilson(k, n)
    assert lo == pytest.approx(slo, abs=1e-12) and hi == pytest.approx(shi, abs=1e-12)


@pytest.mark.parametrize("k1,n1,k2,n2", [(30, 100, 20, 100), (5, 50, 40, 60), (0, 30, 3, 30),
                                         (700, 1000, 300, 900)])
def test_newcombe_and_p_value_against_scipy(k1, n1, k2, n2):
    # Newcombe's hybrid score interval built from scipy's Wilson limits
    l1, u1 = scipy_wilson(k1, n1)
    l2, u2 = scipy_wilson(k2, n2)
    p1, p2 = k1 / n1, k2 / n2
    d, lo, hi = diff_independent(k1, n1, k2, n2)
    assert d == pytest.approx(p1 - p2)
    assert lo == pytest.approx(d - math.hypot(p1 - l1, u2 - p2), abs=1e-12)
    assert hi == pytest.approx(d + math.hypot(u1 - p1, p2 - l2), abs=1e-12)
    # the pooled two-proportion z-test is Pearson's chi-square test of the 2x2 table
    table = [[k1, n1 - k1], [k2, n2 - k2]]
    expected = st.chi2_contingency(table, correction=False).pvalue
    assert T.two_proportion_p(k1, n1, k2, n2) == pytest.approx(expected, rel=1e-9, abs=1e-300)


def test_p_value_edge_cases():
    assert math.isnan(T.two_proportion_p(1, 0, 1, 5))
    assert T.two_proportion_p(0, 10, 0, 20) == 1.0
    assert T.two_proportion_p(5, 10, 10, 20) == pytest.approx(1.0)


def test_bh_matches_scipy():
    rng = np.random.default_rng(3)
    for size in (1, 2, 5, 17, 200):
        p = rng.uniform(0, 1, size) ** 3
        np.testing.assert_allclose(T.bh_adjust(p), st.false_discovery_control(p, method="bh"),
                                   rtol=1e-12)
    p = np.array([0.01, 0.01, 0.04, 0.04, 0.5, 0.0, 1.0])  # ties, 0 and 1
    np.testing.assert_allclose(T.bh_adjust(p), st.false_discovery_control(p), rtol=1e-12)
    # NaN stays NaN and does not count toward m
    q = T.bh_adjust([0.01, np.nan, 0.04])
    assert math.isnan(q[1])
    np.testing.assert_allclose(q[[0, 2]], st.false_discovery_control([0.01, 0.04]))
    assert T.bh_adjust([]).shape == (0,)


def test_wilson_coverage_on_simulated_binomials():
    rng = np.random.default_rng(20261129)
    n, p = 200, 0.3
    ks = rng.binomial(n, p, size=2000)
    covered = np.mean([lo <= p <= hi for lo, hi in (wilson(k, n) for k in ks)])
    assert 0.93 <= covered <= 0.97


# ---------------------------------------------------------------- outcome tables
def test_seat_and_strategy_tables(run3):
    t = run3.tally
    n = t.games
    seats = T.seat_table(run3)
    assert list(seats.columns) == ["seat", "strategy", "games", "win_share", "win_rate", "ci_low",
                                   "ci_high"]
    assert list(seats["strategy"]) == ["reference", "greedy", "reference"]
    assert seats["win_rate"].sum() + t.no_winner / n == pytest.approx(1)
    for row in seats.itertuples():
        assert row.win_share == pytest.approx(t.wins[row.seat])
        assert row.ci_low <= row.win_rate <= row.ci_high
        if float(row.win_share).is_integer():
            assert (row.ci_low, row.ci_high) == pytest.approx(scipy_wilson(row.win_share, n), abs=1e-12)

    strat = T.strategy_table(run3).set_index("strategy")
    assert strat.loc["reference", "seats"] == [0, 2]
    assert strat.loc["reference", "seat_games"] == 2 * n
    assert strat.loc["reference", "win_rate"] == pytest.approx((t.wins[0] + t.wins[2]) / (2 * n))
    assert strat.loc["greedy", "win_rate"] == pytest.approx(t.wins[1] / n)
    lo, hi = wilson(t.wins[0] + t.wins[2], 2 * n)
    assert (strat.loc["reference", "ci_low"], strat.loc["reference", "ci_high"]) == (lo, hi)

    ss = T.strategy_seat_table(run3)
    assert list(zip(ss["strategy"], ss["seat"])) == [("reference", 0), ("reference", 2), ("greedy", 1)]
    assert list(ss["fair_share"]) == pytest.approx([1 / 3] * 3)


def test_outcome_and_end_tables(run3):
    t = run3.tally
    n = t.games
    ends = T.end_table(run3)
    assert list(ends["end"]) == list(run3.setup.game.end_names)
    assert ends["games"].sum() == n
    for row in ends.itertuples():
        assert (row.ci_low, row.ci_high) == pytest.approx(scipy_wilson(row.games, n), abs=1e-12)
    out = T.outcome_table(run3).set_index("outcome")
    assert out.loc["unfinished_rate", "value"] == t.unfinished / n
    assert out.loc["no_winner_rate", "value"] == t.no_winner / n
    rates = t.wins / n
    # the seats play different strategies: seat 0's edge is confounded, never a
    # first-player advantage
    assert "first_player_advantage" not in out.index
    assert out.loc["seat0_edge_confounded", "value"] == pytest.approx(rates[0] - 1 / 3)
    gap = max(abs(rates[a] - rates[b]) for a in range(3) for b in range(a + 1, 3))
    assert out.loc["balance", "value"] == pytest.approx(1 - gap)


def test_survival_curve_matches_histogram(run3):
    hist = run3.tally.finished_hist  # lengths are of finished games, capped ones apart
    df = T.length_table(run3)
    assert (df["capped"].to_numpy() == run3.tally.cap_hist).all()
    n = hist.sum()
    assert list(df["length"]) == list(range(len(hist)))
    assert (df["games"].to_numpy() == hist).all()
    assert df["share"].sum() == pytest.approx(1)
    s = df["survival"].to_numpy()
    assert (np.diff(s) <= 0).all() and s[-1] == 0 and s[0] <= 1
    for t_ in (0, 5, 20, 40, len(hist) // 2):
        assert s[t_] == pytest.approx(hist[t_ + 1:].sum() / n)
    # the median (from the summary) is the first t with S(t) <= 1/2
    from cardlab.analysis.summary import length_stats

    assert int(np.argmax(s <= 0.5)) == length_stats(hist, "turns")["median"]


# ---------------------------------------------------------------- card power
def test_card_power_rows_match_tally(run3):
    t = run3.tally
    n = t.games
    df = T.card_power_table(run3)
    cards = run3.setup.game.card_types(run3.setup.rules)
    assert list(dict.fromkeys(df["strategy"])) == ["all", "reference", "greedy"]
    assert len(df) == 3 * len(cards)
    assert list(df.columns) == T.CARD_COLUMNS
    seats_of = {"all": [0, 1, 2], "reference": [0, 2], "greedy": [1]}
    code_idx = {code: i for i, code in cards}
    for row in df.itertuples():
        seats, i = seats_of[row.strategy], code_idx[row.card]
        held, held_w = t.held[seats, i].sum(), t.held_win[seats, i].sum()
        played, played_w = t.played[seats, i].sum(), t.played_win[seats, i].sum()
        wins = t.wins[seats].sum()
        assert row.seat_games == n * len(seats)
        assert row.held_games == held and row.played_games == played
        assert row.gns_games == n * len(seats) - held
        assert row.gih_wr == pytest.approx(held_w / held)
        assert row.gns_wr == pytest.approx((wins - held_w) / (n * len(seats) - held))
        assert row.iwd == pytest.approx(row.gih_wr - row.gns_wr)
        assert row.iwd_ci_low <= row.iwd <= row.iwd_ci_high
        assert row.played_wr == pytest.approx(played_w / played if played else np.nan, nan_ok=True)
        assert row.play_rate == pytest.approx(played / held)
        # held / never held split the group's seat-games: the rates average to its win rate
        assert (row.held_rate * row.gih_wr + (1 - row.held_rate) * row.gns_wr
                == pytest.approx(wins / (n * len(seats))))
        if float(held_w).is_integer():
            assert (row.gih_ci_low, row.gih_ci_high) == pytest.approx(scipy_wilson(held_w, held), abs=1e-12)
        assert (row.play_rate_ci_low, row.play_rate_ci_high) == pytest.approx(
            scipy_wilson(played, held), abs=1e-12)
    for name, g in df.groupby("strategy", sort=False):
        assert (np.diff(g["iwd"].to_numpy()) <= 0).all()  # ranked by IWD
        np.testing.assert_allclose(g["bh_q"], st.false_discovery_control(g["p_value"]), rtol=1e-12)
        assert (g["real"] == (g["bh_q"] < 0.05)).all()
    pooled = T.card_power_table(run3, by_strategy=False)
    assert set(pooled["strategy"]) == {"all"}
    assert pooled.equals(df[df["strategy"] == "all"].reset_index(drop=True))


def test_card_power_agrees_with_summary(run3):
    from cardlab.analysis.summary import card_power

    ref = {c["card"]: c for c in card_power(run3)}
    df = T.card_power_table(run3, by_strategy=False)
    for row in df.itertuples():
        c = ref[row.card]
        assert row.iwd == pytest.approx(c["iwd"], abs=1e-6)
        assert row.iwd_ci_low == pytest.approx(c["iwd_ci"][0], abs=1e-6)
        assert row.gih_wr == pytest.approx(c["gih_wr"], abs=1e-6)


def test_the_text_says_why_a_card_type_has_no_iwd(run3):
    """A type every seat held in every game (a Lost Cities wager) has no game to compare
    with, and one no seat held has none either: the text says so instead of leaving the type
    out without a word."""
    import copy

    from cardlab.analysis.summary import render_text, summarize

    r = copy.deepcopy(run3)
    t = r.tally
    t.held[:, 0] = t.games                  # type 0: held by every seat in every game
    t.held_win[:, 0] = t.wins
    t.held[:, 1] = 0                        # type 1: never held
    t.held_win[:, 1] = 0
    t.played[:, 1] = t.played_win[:, 1] = 0
    s = summarize(r)
    (_, a), (_, b) = r.setup.game.card_types(r.setup.rules)[:2]
    assert [c["iwd"] for c in s["card_power"][:2]] == [None, None]
    text = render_text(s)
    assert (f"  no IWD for {a}: held by every seat in every game, so no game to compare (cardlab cardpower "
            "gives the causal value)") in text.splitlines()
    assert f"  no IWD for {b}: never held by any seat" in text.splitlines()
    assert "no IWD" not in render_text(summarize(run3))
