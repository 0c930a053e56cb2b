"""The luck profile (analysis/luck.py, cardlab luck): the variance decomposition on outcomes
with a known answer, the replays on Crazy Eights (the unrotated first replay is the fast
path's game, rotations move the hands, re-draws keep the cards), determinism across --jobs,
the skill measure from ladder ratings, and the command's errors."""
import json
import subprocess
import sys

import numpy as np
import pytest

from cardlab.analysis import luck
from cardlab.sim import runner

D, P, K = 3000, 3, 2


def onehot(w):
    return np.eye(P)[w]


def shares(Y):
    c = luck.components(Y)
    return {k: c["share_" + k] for k in luck.PARTS}


def test_deal_only_outcomes_are_all_deal():
    w = np.random.default_rng(0).integers(P, size=D)
    Y = np.broadcast_to(onehot(w)[:, None, None, :], (D, P, K, P)).copy()
    s = shares(Y)
    assert s["deal"] == pytest.approx(1, abs=1e-3)   # the players' share: noise only
    assert s["draws"] == pytest.approx(0, abs=1e-9) and s["seat"] == pytest.approx(0, abs=1e-9)


def test_draw_only_outcomes_are_all_draws():
    Y = onehot(np.random.default_rng(1).integers(P, size=(D, P, K)))
    s = shares(Y)
    assert s["draws"] == pytest.approx(1, abs=0.02)
    assert abs(s["deal"]) < 0.02 and abs(s["seat"]) < 0.02 and abs(s["players"]) < 0.01


def test_seat_only_outcomes_are_all_seat_order():
    Y = np.zeros((D, P, K, P))
    for r in range(P):          # seat 0 always wins; player j sits in seat (j + r) mod P
        for j in range(P):
            Y[:, r, :, j] = (j + r) % P == 0
    s = shares(Y)
    assert s["seat"] == pytest.approx(1, abs=1e-9) and s["deal"] == pytest.approx(0, abs=1e-9)


def test_known_mix_of_deal_and_draws():
    """With probability a the deal's favourite wins, else a uniform player: the deal's share
    of the variance is a^2 (Var_d of a player's chance is a^2 (1/P)(1 - 1/P))."""
    rng = np.random.default_rng(2)
    a = 0.4
    fav = rng.integers(P, size=D)
    w = np.where(rng.random((D, P, K)) < a, fav[:, None, None], rng.integers(P, size=(D, P, K)))
    Y = onehot(w)
    out = luck.decompose(Y, w, seed=3, resamples=500)
    deal = out["shares"]["deal"]
    assert deal["share"] == pytest.approx(a * a, abs=0.02)
    assert deal["ci"][0] < a * a < deal["ci"][1]
    assert sum(v["share"] for v in out["shares"].values()) == pytest.approx(1)
    # two replays agree with probability sum_i P(i wins | deal)^2
    both = a * a + 2 * a * (1 - a) / P + (1 - a) ** 2 / P    # the same winner
    assert out["same_winner"]["rate"] == pytest.approx(both, abs=0.02)
    assert out["same_winner"]["unrelated"] == pytest.approx(1 / P, abs=0.01)


def test_players_share_is_the_strategies_difference():
    rng = np.random.default_rng(4)
    pr = np.array([0.5, 0.3, 0.2])
    Y = onehot(rng.choice(P, p=pr, size=(D, P, K)))
    expected = np.var(pr) / (np.mean(pr * (1 - pr)) + np.var(pr))
    assert shares(Y)["players"] == pytest.approx(expected, abs=0.01)


def test_bad_shapes_are_refused():
    with pytest.raises(ValueError):
        luck.components(np.zeros((10, 2, 1, 2)))   # one replay: nothing to compare
    with pytest.raises(ValueError):
        luck.components(np.zeros((10, 2, 2)))


# ------------------------------------------------------------------ real replays


@pytest.fixture(scope="module")
def c8():
    setup = runner.make_setup("crazy_eights", 3)
    return setup, luck.Replays(setup, 2)


def test_the_unrotated_first_replay_is_the_fast_paths_game(c8):
    setup, rep = c8
    n = 30
    rows = runner.run(setup, n, jobs=1, keep_rows=True).rows
    redrawn = 0
    for d in range(n):
        y, pm, _ = rep.play(d)
        assert pm[0, 0] == rows[d, 2]        # the original streams: the same winners, game d
        redrawn += pm[0, 1] != pm[0, 0]
        assert y.sum(axis=2).max() <= 1 + 1e-12
    assert redrawn >= 5                      # the other replays are other games


def test_rotation_moves_the_hands_and_redraw_keeps_the_cards(c8):
    setup, rep = c8
    S = setup.game.schema
    base = rep.deal(7).copy()
    for r in range(1, 3):
        st = base.copy()
        st[:rep.rot_end] = base[rep.rot_idx[r]]
        for j in range(3):
            assert S.value(st, "hands", (j + r) % 3) == S.value(base, "hands", j)
            assert S.value(st, "hand_n", (j + r) % 3) == S.value(base, "hand_n", j)
        assert np.array_equal(S.read(st, "stock"), S.read(base, "stock"))
        assert np.array_equal(S.read(st, "discard"), S.read(base, "discard"))
        assert list(rep.sids[r]) == list(rep.sids[0])        # the same strategy everywhere
    st = base.copy()
    rep._redraw(st, np.random.default_rng(0))
    stock, was = S.read(st, "stock"), S.read(base, "stock")
    assert sorted(stock) == sorted(was) and not np.array_equal(stock, was)
    for s in range(3):
        assert S.value(st, "hands", s) == S.value(base, "hands", s)  # the hands stay
    assert not np.array_equal(st[:4], base[:4])                     # a new chance stream


def test_strategies_move_with_their_hands():
    setup = runner.make_setup("crazy_eights", 3, strategies="random,reference,starver")
    rep = luck.Replays(setup, 2)
    ids = list(rep.sids[0][:3])
    assert list(rep.sids[1][:3]) == [ids[2], ids[0], ids[1]]   # player j in seat j + 1


def test_profile_is_the_same_for_any_jobs_and_adds_up():
    a = luck.run_luck("crazy_eights", 60, jobs=1).to_dict()
    b = luck.run_luck("crazy_eights", 60, jobs=2).to_dict()
    a.pop("elapsed_s"), b.pop("elapsed_s")
    assert a == b
    sh = a["shares"]
    assert sum(v["share"] for v in sh.values()) == pytest.approx(1)
    for v in sh.values():
        assert v["ci"][0] <= v["share"] <= v["ci"][1]
    assert a["games"] == 60 * 3 * 2
    assert 0 <= a["same_winner"]["rate"] <= 1 and a["same_winner"]["coin"] == pytest.approx(1 / 3)
    # 60 deals cannot pin a share to +-5 points: the verdict says so, with a deal count
    assert any(s.startswith("Cannot tell yet with 60 deals") for s in a["verdict"])


def test_a_narrow_profile_names_what_decides_most():
    p = luck.LuckProfile("x", 2, ["a", "a"], {}, 1, 5000, 2, 20000, 0.0,
                         {"deal": {"share": 0.2, "ci": [0.18, 0.22]}, "draws": {"share": 0.78, "ci": [0.76, 0.8]},
                          "seat": {"share": 0.02, "ci": [0.01, 0.03]}, "players": {"share": 0.0, "ci": [-0.001, 0.001]}},
                         {"rate": 0.6, "ci": [0.59, 0.61], "coin": 0.5, "unrelated": 0.5}, [])
    v = luck._verdict(p)
    assert v[0].startswith("Later draws decide the most: 78.0% [76.0%, 80.0%]")
    assert not any("Cannot tell" in s for s in v)
    p.shares["deal"] = {"share": 0.55, "ci": [0.3, 0.8]}
    v = luck._verdict(p)
    assert "the share of the deal to within +-5 points; about 130,000 deals would" in v[0]
    assert "Cannot tell yet with 5,000 deals which part decides the most." in v


# ------------------------------------------------------------------ skill


def test_skill_measure_spread_and_its_benchmark():
    flat = luck.skill_measure([("a", 0.0, (-0.1, 0.1)), ("b", 0.0, (-0.1, 0.1))], 2)
    assert flat["elo_sd"] == 0 and flat["p_deterministic"] == 0
    assert flat["elo_sd_ci"][0] >= 0 and flat["elo_sd_ci"][1] > 0   # the ratings' own noise
    # ratings of a p-deterministic game read back as that p
    from cardlab.analysis.tournament import bradley_terry

    n, seats, p = 6, 3, 0.3
    bt = bradley_terry(luck._p_deterministic_records(n, seats, p), [str(i) for i in range(n)])
    rows = [(s, r, (r - 0.01, r + 0.01)) for s, r in zip(bt["strategy"], bt["rating"])]
    m = luck.skill_measure(rows, seats)
    assert m["elo_sd"] == pytest.approx(np.std(bt["rating"]) * 400 / np.log(10), rel=1e-3)
    assert m["p_deterministic"] == pytest.approx(p, abs=1e-3)
    lo, hi = m["p_deterministic_ci"]
    assert lo < p < hi
    assert m["chess_reference"] is None and "Duersch" in m["reference"]
    fewer = luck.skill_measure(rows, seats, exclude=["0"])
    assert fewer["players_rated"] == 5 and fewer["elo_sd"] < m["elo_sd"]


def test_profile_from_the_committed_ladder():
    m = luck.profile_from_ladder("reports/ladders/crazy_eights_default.json")
    assert m["game"] == "crazy_eights" and m["seats"] == 3 and m["players_rated"] == 10
    assert m["elo_sd_ci"][0] < m["elo_sd"] < m["elo_sd_ci"][1]
    assert 0 < m["p_deterministic"] < 1
    assert "Duersch, Lambrecht & Oechssler 2020" in m["verdict"]


# ------------------------------------------------------------------ the command


def cardlab(*args):
    return subprocess.run([sys.executable, "-m", "cardlab.cli", *args], capture_output=True, text=True,
                          env={**__import__("os").environ, "CARDLAB_HISTORY": "off"})


def test_command_json():
    p = cardlab("luck", "crazy_eights", "-n", "40", "--json", "--ladder",
                "reports/ladders/crazy_eights_default.json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["deals"] == 40 and out["seat_orders"] == out["players"] == 3
    assert set(out["shares"]) == set(luck.PARTS)
    assert out["skill"]["game"] == "crazy_eights"


@pytest.mark.parametrize("args, says", [
    (["luck", "crazy_eights", "-n", "5"], "needs 20 deals or more"),
    (["luck", "crazy_eights", "--draws", "1"], "bad --draws 1"),
    (["luck", "crazy_eights", "--strategies", "mcts"], "heuristic strategies only"),
    (["luck", "skyscraper", "-p", "1"], "2 players or more"),
    (["luck", "skyscraper", "--ladder", "reports/ladders/crazy_eights_default.json"], "rates crazy_eights"),
    (["luck", "skyscraper", "--ladder", "README.md"], "not a ladder's JSON"),
])
def test_command_errors_are_one_line(args, says):
    p = cardlab(*args)
    assert p.returncode == 2
    assert says in p.stderr and len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr
