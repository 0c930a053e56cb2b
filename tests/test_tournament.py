"""Strategy tournaments (analysis.tournament and ``cardlab tournament``): the pairing plan,
determinism, the matrix identities, Bradley-Terry ratings, and the CLI contract."""
import json
import math
import subprocess
import sys

import numpy as np
import pytest

from cardlab.analysis.stats import wilson
from cardlab.analysis.tournament import bradley_terry, check_strategies, plan, progress_total, run_tournament
from cardlab.sim.errors import InputError

NAMES = ["reference", "random", "greedy"]


@pytest.fixture(scope="module")
def t2():
    return run_tournament("skyscraper", NAMES, games=300, seed=3, jobs=2)


def test_plan_covers_every_pairing_and_seat():
    runs = plan(NAMES, 2)
    assert sorted(tuple(r[3]) for r in runs) == sorted(
        [(a, b) for a in NAMES for b in NAMES if a != b])
    runs = plan(NAMES, 3)
    assert len(runs) == 3 * 2 * 3
    for a, b, s, order in runs:
        assert order[s] == a and order.count(b) == 2
    seats = {(a, b): sorted(s for a_, b_, s, _ in runs if (a_, b_) == (a, b)) for a, b, _, _ in runs}
    assert all(v == [0, 1, 2] for v in seats.values())


def test_deterministic_for_a_seed(t2):
    again = run_tournament("skyscraper", NAMES, games=300, seed=3, jobs=1)
    assert again.games.equals(t2.games)
    assert again.matrix.equals(t2.matrix)
    assert again.ratings.equals(t2.ratings)
    assert again.verdict == t2.verdict


def test_two_player_matrix(t2):
    M = t2.matrix
    assert list(M.index) == NAMES and list(M.columns) == NAMES
    assert all(math.isnan(M.loc[s, s]) for s in NAMES)
    assert len(t2.games) == 6 and (t2.games["games"] == 300).all()
    for a in NAMES:
        for b in NAMES:
            if a == b:
                continue
            runs = t2.games[((t2.games.a == a) & (t2.games.b == b)) | ((t2.games.a == b) & (t2.games.b == a))]
            n = runs["games"].sum()
            assert n == 600
            no_winner = runs["no_winner"].sum()
            assert M.loc[a, b] + M.loc[b, a] == pytest.approx(1 - no_winner / n)
            lo, hi = t2.ci_low.loc[a, b], t2.ci_high.loc[a, b]
            assert (lo, hi) == wilson(M.loc[a, b] * n, n)
            assert lo < M.loc[a, b] < hi
    pairs = t2.pairs.set_index(["strategy", "opponent"])
    assert pairs.loc[("reference", "random"), "win_rate"] == M.loc["reference", "random"]


def test_ratings_follow_win_rates(t2):
    r = t2.ratings
    assert list(r.columns) == ["strategy", "rating", "se", "ci_low", "ci_high", "mean_win_rate"]
    assert abs(r["rating"].sum()) < 1e-9
    assert (np.diff(r["rating"]) < 0).all()
    assert (np.diff(r["mean_win_rate"]) < 0).all()  # same order as the win rates
    assert ((r["ci_low"] < r["rating"]) & (r["rating"] < r["ci_high"])).all()


def test_reference_beats_random_clearly(t2):
    # ~75% over 600 games: the interval's low end sits ~10 points above 60%
    assert t2.ci_low.loc["reference", "random"] > 0.6
    assert t2.ratings.iloc[0]["strategy"] == "reference"
    assert t2.dominant == "reference"
    assert t2.verdict.startswith("reference dominates")


def test_bradley_terry_two_strategies_is_the_logit():
    # 2 strategies: theta_a - theta_b = logit(wins_a / decided), se from n p (1 - p)
    r = bradley_terry([("a", "b", 1, 70, 30), ("b", "a", 1, 25, 75)], ["a", "b"]).set_index("strategy")
    p, n = 145 / 200, 200
    assert r.loc["a", "rating"] - r.loc["b", "rating"] == pytest.approx(math.log(p / (1 - p)), abs=1e-6)
    assert r.loc["a", "rating"] == pytest.approx(-r.loc["b", "rating"])
    assert r.loc["a", "se"] == pytest.approx(0.5 / math.sqrt(n * p * (1 - p)), rel=1e-5)
    assert r.loc["a", "ci_low"] == pytest.approx(r.loc["a", "rating"] - 1.959963984540054 * r.loc["a", "se"])


def test_bradley_terry_recovers_strengths():
    theta = {"a": 0.8, "b": 0.0, "c": -0.8}
    names = list(theta)
    for m in (1, 3):  # 2 players, 4 players (one a against 3 b seats)
        recs = []
        for a in names:
            for b in names:
                if a != b:
                    p = 1 / (1 + m * math.exp(theta[b] - theta[a]))
                    recs.append((a, b, m, 10_000 * p, 10_000 * (1 - p)))
        r = bradley_terry(recs, names).set_index("strategy")
        for s in names:
            assert r.loc[s, "rating"] == pytest.approx(theta[s], abs=1e-5)


def test_three_players_rotates_seats():
    t = run_tournament("skyscraper", ["reference", "random"], players=3, games=100, seed=2)
    assert len(t.games) == 2 * 3 and t.fair_share == pytest.approx(1 / 3)
    g = t.games[t.games.a == "reference"]
    assert sorted(g["a_seat"]) == [0, 1, 2]
    n = g["games"].sum()
    assert t.matrix.loc["reference", "random"] == pytest.approx(g["a_win_share"].sum() / n)


@pytest.mark.parametrize("kwargs,needle", [
    ({"strategies": ["reference"]}, "at least 2"),
    ({"strategies": ["reference", "reference"]}, "named twice"),
    ({"strategies": ["reference", "nope"]}, "unknown strategy 'nope'"),
    ({"strategies": ["reference", "random"], "players": 1}, "at least 2 players"),
    ({"strategies": ["reference", "random"], "games": 0}, "--games"),
    ({"strategies": ["reference", "random:bogus=1"]}, "bogus"),
])
def test_bad_input(kwargs, needle):
    with pytest.raises(InputError, match=needle):
        run_tournament("skyscraper", **kwargs)


def test_check_strategies_accepts_a_string():
    assert check_strategies("reference, random") == ["reference", "random"]


def cardlab(*args):
    return subprocess.run([sys.executable, "-m", "cardlab.cli", *args], capture_output=True, text=True,
                          check=False)


def test_cli_json_and_text(monkeypatch, capsys):
    p = cardlab("tournament", "skyscraper", "--strategies", "reference,random", "--games", "200",
                "--seed", "4", "--json")
    assert p.returncode == 0, p.stderr
    s = json.loads(p.stdout)
    assert s["game"] == "skyscraper" and s["players"] == 2 and s["strategies"] == ["reference", "random"]
    assert s["games_per_order"] == 200 and s["total_games"] == 400
    m = s["matrix"]["reference"]["random"]
    assert m["ci"][0] < m["win_rate"] < m["ci"][1]
    assert s["matrix"]["reference"]["reference"] is None
    assert [r["strategy"] for r in s["ratings"]] == ["reference", "random"]
    assert s["dominant"] == "reference" and s["verdict"]
    api = run_tournament("skyscraper", ["reference", "random"], games=200, seed=4)
    assert m["win_rate"] == pytest.approx(api.matrix.loc["reference", "random"], abs=1e-6)
    from cardlab.cli import main  # the readable output, in-process (the kernel is warm)

    monkeypatch.setattr(sys, "argv", ["cardlab", "tournament", "skyscraper", "--strategies",
                                      "reference,random", "-n", "200", "-q"])
    with pytest.raises(SystemExit) as e:
        main()
    text = capsys.readouterr().out
    assert e.value.code == 0
    assert "Bradley-Terry" in text and "dominates" in text and "[" in text


@pytest.mark.parametrize("args,needle", [
    (["--strategies", "reference"], "at least 2"),
    (["--strategies", "reference,nope"], "unknown strategy 'nope'"),
    (["--strategies", "reference,random", "--games", "0"], "--games"),
    (["--strategies", "reference,random", "--players", "9"], "--players"),
    ([], "--strategies"),
])
def test_cli_bad_input_exits_2(args, needle, monkeypatch, capsys):
    from cardlab.cli import main

    monkeypatch.setattr(sys, "argv", ["cardlab", "tournament", "skyscraper", *args])
    with pytest.raises(SystemExit) as e:
        main()
    err = capsys.readouterr().err
    assert e.value.code == 2
    assert len(err.strip().splitlines()) == 1 and needle in err
    assert "Traceback" not in err


def test_cli_bad_input_subprocess():
    p = cardlab("tournament", "skyscraper", "--strategies", "reference,reference")
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "named twice" in p.stderr


def test_a_tournament_with_a_search_player_counts_its_progress_by_work():
    """With ``weighted`` the progress callback gets each run's games times its work (a
    game with an mcts seat weighs its iterations), so the bar's time left holds."""
    from cardlab.sim import runner

    names = ["mcts:iterations=3", "reference"]
    seen = []
    run_tournament("crazy_eights", names, 3, 2, seed=5, jobs=1, progress=seen.append, weighted=True)
    want, weighted = progress_total("crazy_eights", names, 3, 2)  # what the bar announces
    assert weighted and sum(seen) == want > 2 * len(plan(names, 3))
    assert want == 2 * sum(runner.make_setup("crazy_eights", 3, None, ",".join(o)).work for *_, o in plan(names, 3))
    assert progress_total("crazy_eights", ["reference", "random"], 3, 2) == (2 * len(plan(names, 3)), False)
