"""``cardlab ladder``: the skill curve (analysis/ladder.py) on a tiny budget."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cardlab.analysis.ladder import parse_budgets, per_order, run_ladder, total_work
from cardlab.sim.errors import InputError


def small(jobs):
    return run_ladder("crazy_eights", [4, 16], games=16, self_games=16, versus_games=8, seed=3, jobs=jobs)


def test_the_ladder_is_the_same_for_any_jobs_and_reads_its_own_numbers():
    one, two = small(1), small(2)
    assert json.dumps(one.to_dict() | {"elapsed_s": 0}) == json.dumps(two.to_dict() | {"elapsed_s": 0})
    d = one.to_dict()
    assert d["rungs"] == ["random", "reference", "hoarder", "starver", "mcts:iterations=4", "mcts:iterations=16"]
    for c in d["curve"]:
        assert c["games"] == 3 * 16 and c["ci"][0] <= c["win_rate"] <= c["ci"][1]
    best = max(d["curve"], key=lambda c: c["win_rate"])
    ref = next(c for c in d["curve"] if c["rung"] == "reference")
    assert d["headroom"]["best"] == best["rung"]
    assert d["headroom"]["points"] == pytest.approx(100 * (best["win_rate"] - ref["win_rate"]), abs=1e-3)
    assert d["still_rising"]["top"] == "mcts:iterations=16" and d["still_rising"]["below"] == "mcts:iterations=4"
    assert {r["rung"] for r in d["ratings"]} == set(d["rungs"])
    assert d["verdict"].startswith("Against a field of reference")


def test_learned_rungs_sit_beside_the_heuristics_and_name_their_model():
    """--also: the learned player and a search scored by the model are rungs like any
    other (curve, self-play, ratings), between the heuristics and the budgets; the ladder
    names the model they played (the shipped one for 3 players)."""
    from cardlab.sim import models
    from cardlab.sim.registry import get_game

    lad = run_ladder("crazy_eights", [4, 16], games=8, self_games=8, versus_games=6, seed=3, jobs=1,
                     also=["learned", "mcts:iterations=8:value=1:depth=2"])
    d = lad.to_dict()
    assert d["rungs"] == ["random", "reference", "hoarder", "starver", "learned", "mcts:iterations=8:value=1:depth=2",
                          "mcts:iterations=4", "mcts:iterations=16"]
    assert [c["rung"] for c in d["curve"]] == d["rungs"] and {r["rung"] for r in d["ratings"]} == set(d["rungs"])
    assert d["model"] == models.digest(models.weights_for(get_game("crazy_eights"), 3))
    assert "model" not in small(1).to_dict()
    for bad, msg in ((["reference"], "a rung the ladder has already"), (["learned,reference"], "one player"),
                     (["mcts:value=3"], "mcts:value")):
        with pytest.raises(InputError, match=msg):
            run_ladder("crazy_eights", [4, 16], games=8, also=bad)
    p = subprocess.run([sys.executable, "-m", "cardlab.cli", "ladder", "crazy_eights", "--also", "learned,learned",
                        "-q", "--no-history"], capture_output=True, text=True)
    assert p.returncode == 2 and "bad --also 'learned,learned': a rung named twice" in p.stderr
    assert "Traceback" not in p.stderr


def test_the_default_ladder_adds_the_learned_rungs_when_a_model_fits(tmp_path, monkeypatch):
    """Without --also the ladder adds the learned player and the search its model scores
    when a model for the game and table is found and fits this code; none without one (a
    designer's game before ``cardlab learn``), none with a reason for one that does not fit;
    ``--also none`` asks for none."""
    from cardlab.analysis.ladder import LEARNED_RUNGS, default_also, parse_also
    from cardlab.sim import models

    assert default_also("crazy_eights", 3) == (list(LEARNED_RUNGS), None)  # the shipped model
    monkeypatch.setattr(models, "shipped_folder", lambda: tmp_path / "none")
    monkeypatch.setenv(models.ENV, str(tmp_path))
    monkeypatch.setattr(models, "user_folder", lambda: tmp_path / "user")
    assert default_also("crazy_eights", 3) == ([], None)
    (tmp_path / models.file_name("crazy_eights", 3)).write_text("{}")
    rungs, why = default_also("crazy_eights", 3)
    assert rungs == [] and why.startswith("the learned rungs are left out: damaged model file")
    assert parse_also("none") == [] and parse_also(" None ") == []


def test_bad_budgets_are_refused():
    for bad in ("0,16", "16,8", "a", "", "16,16"):
        with pytest.raises(InputError, match="bad --budgets"):
            parse_budgets(bad)
    assert parse_budgets("16,64") == [16, 64]


def test_cli_bad_budgets_exit_2_in_one_line():
    p = subprocess.run([sys.executable, "-m", "cardlab.cli", "ladder", "skyscraper", "--budgets", "64,8"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "--budgets" in p.stderr


def test_a_seat_edge_must_hold_for_all_the_rungs_tested():
    """The seat-0 edges of the rungs are tested together (Benjamini-Hochberg): a nominal
    p of about 0.03 among eight rungs (Skyscraper's mcts@256 in the default ladder: +2.4
    [+0.2, +4.6]) is not a finding; an edge of many standard errors is, and the verdict
    names it."""
    from cardlab.analysis.ladder import edge_tests

    def entry(rung, rate, games=2000):
        return {"rung": rung, "games": games, "seat0_win_rate": rate, "seat0_edge": rate - 0.5}

    selfp = [entry("a", 0.503), entry("b", 0.524), entry("c", 0.494), entry("d", 0.506),
             entry("e", 0.497), entry("f", 0.501), entry("g", 0.512), entry("h", 0.5)]
    edge_tests(selfp, 0.5)
    b = selfp[1]
    assert 0.02 < b["p"] < 0.04 and b["p_adjusted"] > 0.05 and not any(e["edge_found"] for e in selfp)
    selfp[0] = entry("a", 0.38)  # 12 points in 2,000 games: ~10 standard errors
    edge_tests(selfp, 0.5)
    assert [e["rung"] for e in selfp if e["edge_found"]] == ["a"]
    from scipy.stats import binomtest
    assert selfp[1]["p"] == pytest.approx(binomtest(1048, 2000, 0.5).pvalue, rel=0.15)  # near the exact test


def test_the_verdict_names_the_edges_that_hold():
    d = small(1).to_dict()
    assert all({"p", "p_adjusted", "edge_found"} <= set(e) for e in d["self_play"])
    found = [e["rung"] for e in d["self_play"] if e["edge_found"]]
    assert ("differs from the fair share with" in d["verdict"]) == bool(found)
    assert all(r in d["verdict"] for r in found)


def test_the_tournament_shares_a_pairings_games_among_its_seat_orders():
    """--versus-games counts a pairing's games over all its seat orders (2 with two
    players, 2P with P): the default 500 puts 250, 84 or 63 games in each order, so the
    tournament costs about what the curve does instead of P times more."""
    assert [per_order(500, p) for p in (2, 3, 4)] == [250, 84, 63]
    assert per_order(1, 4) == 1 and per_order(16, 4) == 2
    d = small(1).to_dict()  # versus_games=8 with 3 players: 6 seat orders
    assert (d["self_games"], d["versus_games"], d["versus_per_order"]) == (16, 8, 2)


def test_the_progress_bar_counts_the_ladders_work():
    """The ladder reports its progress in games weighted by each run's work (a game with
    a search seat weighs its iterations), and the weights add up to what total_work
    announced before the ladder started, so the bar's time left is about the ladder."""
    from cardlab.sim.runner import SEARCH_DECISIONS, make_setup

    assert make_setup("crazy_eights", 3, None, "reference").work == 1
    assert make_setup("crazy_eights", 3, None, "mcts:iterations=16,mcts:iterations=4,random").work == \
        1 + SEARCH_DECISIONS * 20
    seen = []
    run_ladder("crazy_eights", [4, 16], games=3, self_games=2, versus_games=7, seed=3, jobs=1, progress=seen.append)
    assert sum(seen) == total_work("crazy_eights", [4, 16], "reference", 3, 3, 2, 7)
    assert max(seen) > 20 * min(seen)  # searching runs weigh more than heuristic ones


# ---------------------------------------------------------------- claims no wider than their intervals
def _inputs(half_pts: float, games: int):
    """A ladder's figures with every estimate near 0 and intervals of +-half_pts points."""
    from cardlab.analysis.ladder import _verdict  # noqa: F401 - the function under test

    h = half_pts / 100
    curve = [{"rung": "reference", "games": games, "win_rate": 0.5},
             {"rung": "mcts:iterations=16", "games": games, "win_rate": 0.505},
             {"rung": "mcts:iterations=64", "games": games, "win_rate": 0.506}]
    selfp = [{"rung": c["rung"], "games": games, "seat0_edge": 0.003, "ci": [0.003 - h, 0.003 + h],
              "edge_found": False} for c in curve]
    headroom = {"best": "mcts:iterations=64", "reference": "reference", "points": 0.6,
                "ci": [0.6 - half_pts, 0.6 + half_pts]}
    rising = {"top": "mcts:iterations=64", "below": "mcts:iterations=16", "points": 0.1,
              "ci": [0.1 - half_pts, 0.1 + half_pts], "still_rising": False}
    luck = {"weakest": "reference", "strongest": "mcts:iterations=64", "weakest_wins": 0.35, "coin": 0.5,
            "luck_share": 0.7, "luck_share_ci": [0.7 - 4 * h, 0.7 + 4 * h], "games": games}
    return ("g", 2, "reference", curve, selfp, headroom, rising, luck, 0.5)


def test_wide_intervals_claim_no_absence_and_say_how_many_games_would_decide():
    """A few hundred games (the demo's ladders): "levelled off", "no edge", "no headroom"
    and "luck decides" are not said; the text says it cannot tell and names a game count."""
    from cardlab.analysis.ladder import _verdict

    v = _verdict(*_inputs(13.6, 200))
    for claim in ("levelled off", "no first-player edge", "no skill headroom", "luck decides",
                  "skill decides", "skill matters"):
        assert claim not in v, (claim, v)
    assert v.count("cannot tell") + v.count("Cannot tell") >= 3 and "cannot be ruled out" in v
    assert "would decide" in v and "would tell" in v


def test_narrow_intervals_support_the_claims_of_absence():
    from cardlab.analysis.ladder import _verdict

    v = _verdict(*_inputs(1.2, 20_000))
    assert "levelled off" in v and "no first-player edge beyond 2 points" in v
    assert "no skill headroom beyond +-2 points" in v and "luck decides much" in v
    assert "cannot tell" not in v.lower()


def test_a_found_difference_is_called_one_whatever_the_margin():
    from cardlab.analysis.ladder import _verdict

    args = list(_inputs(13.6, 200))
    args[5] = dict(args[5], points=30.0, ci=[16.4, 43.6])
    args[6] = dict(args[6], points=20.0, ci=[6.4, 33.6], still_rising=True)
    v = _verdict(*args)
    assert "a skill headroom of +30.0 points" in v and "still rises" in v


def test_games_for_a_precision():
    from cardlab.analysis.stats import games_for, wilson

    n = games_for(0.01)                      # +-1 point on a fair coin: ~9,604 games
    assert 9_500 < n < 9_700
    lo, hi = wilson(n / 2, n)
    assert hi - lo == pytest.approx(0.02, rel=0.01)
    assert games_for(0.01, arms=2) == pytest.approx(2 * n, abs=1)
    with pytest.raises(ValueError):
        games_for(0)


def test_the_ladder_on_dask_is_the_local_one_on_one_cluster(monkeypatch):
    """--backend dask: every run of the ladder (the curve, self-play, the rungs'
    tournament) on one client, the same numbers as local threads."""
    from cardlab.sim import dask_backend

    clusters = []
    real = dask_backend.connect
    monkeypatch.setattr(dask_backend, "connect", lambda *a: clusters.append(1) or real(*a))
    kw = dict(games=6, self_games=6, versus_games=6, seed=3, jobs=2, also=["learned"])
    on_dask = run_ladder("crazy_eights", [4], backend="dask", **kw).to_dict()
    local = run_ladder("crazy_eights", [4], **kw).to_dict()
    assert clusters == [1] and on_dask | {"elapsed_s": 0} == local | {"elapsed_s": 0}
    with pytest.raises(InputError, match="bad --backend 'spark': allowed local or dask"):
        run_ladder("crazy_eights", [4], backend="spark", **kw)
