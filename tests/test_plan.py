"""The sample-size planner (``cardlab plan``, analysis/plan.py): its games are the verdicts'
formulas and give the interval asked for, its pilot reads the same games as a run, its
times scale as a run's do, and its command line fails in one line."""
from __future__ import annotations

import json
import math
import re
import subprocess
import sys

import numpy as np
import pytest

from cardlab.analysis import plan as P
from cardlab.analysis.stats import Z95, diff_multinomial, games_for, games_for_diff, games_for_wilson, wilson
from cardlab.sim.errors import InputError
from cardlab.sim.runner import make_setup


def cardlab(*args):
    return subprocess.run([sys.executable, "-m", "cardlab.cli", *args], capture_output=True, text=True,
                          env={**__import__("os").environ, "CARDLAB_HISTORY": "off"})


def half(ci) -> float:
    return (ci[1] - ci[0]) / 2


# --------------------------------------------------------------------------- the formulas
@pytest.mark.parametrize("h", [0.005, 0.01, 0.02])
@pytest.mark.parametrize("p", [0.2, 1 / 3, 0.5, 0.62])
def test_games_are_games_for_and_give_the_wilson_half_width_asked(p, h):
    n = games_for_wilson(h, p)
    assert n == games_for(h, p) == math.ceil(Z95 ** 2 * p * (1 - p) / h ** 2)
    assert 0.95 * h <= half(wilson(p * n, n)) <= h


@pytest.mark.parametrize("pa,pb", [(0.5, 0.5), (0.368, 0.339), (0.25, 0.31), (0.45, 0.5)])
def test_seat_difference_games_are_the_multinomial_variance(pa, pb):
    h = 0.01
    n = games_for_diff(h, pa, pb)
    assert n == math.ceil(Z95 ** 2 * (pa + pb - (pa - pb) ** 2) / h ** 2)
    _, lo, hi = diff_multinomial(pa, pb, n)
    assert 0.95 * h <= (hi - lo) / 2 <= h
    # two seats of the same games are not two independent samples (arms=2 would plan too few)
    assert n > games_for(h, (pa + pb) / 2, arms=2)


def test_a_rare_rate_gets_the_fewest_games_whose_wilson_interval_is_that_narrow():
    h = 0.01
    for u in (0.0, 0.001, 0.003):
        n = games_for_wilson(h, u)
        assert n > games_for(h, u)   # the normal approximation falls short near 0
        assert half(wilson(u * n, n)) <= h < half(wilson(u * (n - 1), n - 1))


def test_empirically_the_planned_games_give_the_half_width_and_coverage():
    rng = np.random.default_rng(7)
    h, p = 0.02, 0.37
    n = games_for_wilson(h, p)
    k = rng.binomial(n, p, size=2000)
    halves = [half(wilson(x, n)) for x in k]
    assert abs(np.mean(halves) / h - 1) < 0.05
    assert 0.93 <= np.mean([wilson(x, n)[0] <= p <= wilson(x, n)[1] for x in k]) <= 0.97
    pa, pb = 0.40, 0.33
    n = games_for_diff(h, pa, pb)
    draws = rng.multinomial(n, [pa, pb, 1 - pa - pb], size=2000)
    ivs = [diff_multinomial(a / n, b / n, n) for a, b, _ in draws]
    assert abs(np.mean([(hi - lo) / 2 for _, lo, hi in ivs]) / h - 1) < 0.05
    assert 0.93 <= np.mean([lo <= pa - pb <= hi for _, lo, hi in ivs]) <= 0.97


def test_halving_the_precision_about_quadruples_the_games():
    for p in (0.25, 0.5):
        for h in (0.04, 0.02, 0.01):
            a, b = games_for_wilson(h, p), games_for_wilson(h / 2, p)
            assert 3.9 <= b / a <= 4.1
        assert games_for_diff(0.005, p, p) / games_for_diff(0.01, p, p) == pytest.approx(4, rel=0.001)
    ns = [games_for_wilson(h / 100, 0.3) for h in (0.25, 0.5, 1, 2, 5, 10, 50)]
    assert ns == sorted(ns, reverse=True) and len(set(ns)) == len(ns)


# --------------------------------------------------------------------------- times and words
def fake_pilot(games_per_s: float, threads: int = 1) -> P.Pilot:
    return P.Pilot(games=100, timed_games=int(games_per_s), elapsed_s=1.0, threads=threads,
                   win_rates=[0.5, 0.5], unfinished=0)


def test_time_is_games_over_the_speed_of_the_threads_a_run_keeps_busy(monkeypatch):
    import cardlab.sim.runner as runner

    monkeypatch.setattr(runner, "default_jobs", lambda: 2)
    one = fake_pilot(1000)
    assert P.estimate_s(10_000, one, jobs=1, chunk=5000) == pytest.approx(10.0)
    assert P.estimate_s(10_000, one, jobs=2, chunk=5000) == pytest.approx(5.0)
    assert P.estimate_s(10_000, one, jobs=8, chunk=5000) == pytest.approx(5.0)   # 2 cores
    assert P.estimate_s(3_000, one, jobs=2, chunk=5000) == pytest.approx(3.0)    # one chunk: one thread
    assert P.estimate_s(100, fake_pilot(10, threads=2), jobs=2, chunk=20) == pytest.approx(10.0)
    assert P.estimate_s(20, fake_pilot(10, threads=2), jobs=2, chunk=20) == pytest.approx(4.0)


def test_words():
    assert [P.about_games(n) for n in (7, 99, 8_537, 8_601, 38_415, 1_000_000)] == \
        ["7", "99", "8,600", "8,700", "39,000", "1,000,000"]
    assert [P.duration(s) for s in (0.003, 0.42, 3.2, 41, 41 * 60, 5 * 3600, 9 * 86400)] == \
        ["0.01 s", "0.42 s", "3.2 s", "41 s", "41 min", "5.0 h", "9 days"]


def test_bad_inputs_are_refused_before_a_game_is_played():
    s = make_setup("crazy_eights", 3, None, None, 1)
    for bad in (0, -1, 50.5, float("nan")):
        with pytest.raises(InputError, match="--precision"):
            P.plan(s, bad)
    with pytest.raises(InputError, match="--pilot-games"):
        P.plan(s, 1, pilot_games=20)
    with pytest.raises(InputError, match="--strong"):
        P.plan(s, 1, strong="mcts,reference")
    with pytest.raises(InputError, match="--players 9"):
        P.plan(s, 1, [9], strong="none")
    with pytest.raises(InputError, match="--players"):
        P.parse_players("2,two")


# --------------------------------------------------------------------------- real runs
def without_timing(x):
    if isinstance(x, dict):
        return {k: without_timing(v) for k, v in x.items() if k not in P.TIMING_KEYS}
    if isinstance(x, list):
        return [without_timing(v) for v in x]
    return x


def test_a_real_plan_reads_its_pilot_and_plans_on_it():
    s = make_setup("crazy_eights", 3, None, None, 1)
    p = P.plan(s, 1, [2], strong="mcts:iterations=4", strong_pilot_games=2, pilot_games=300, jobs=2)
    assert [sec.setup.players for sec in p.sections] == [3, 2]
    sec = p.sections[0]
    from cardlab.sim import runner

    t = runner.run(s, 300, 1).tally   # the pilot is the run of the same games
    assert sec.pilot.win_rates == [float(w) / 300 for w in t.wins]
    kinds = [f.key for f in sec.figures]
    assert kinds == ["seat_share"] * 3 + ["seat_difference", "strong_seat_share"]  # no capped games
    for f in sec.figures:
        if f.key == "seat_share":
            assert f.games == games_for_wilson(0.01, f.planned_on[0])
            assert f.planned_on[0] == sec.pilot.win_rates[f.seats[0]]
    strong = sec.headline("strong_seat_share")
    assert strong.planned_on == [1 / 3] and strong.games == games_for_wilson(0.01, 1 / 3)
    assert strong.pilot_games == 2
    seat = sec.headline("seat_share")
    assert strong.estimated_s / strong.games > seat.estimated_s / seat.games   # search costs more
    sentence = P.sentence(sec, 1)
    assert re.fullmatch(r"Seat effects to ±1 point: about [\d,]+ games \(about [\d.]+ (s|min|h) with reference "
                        r"in every seat; about ([\d,]+ games, )?[\d.]+ (s|min|h|days) with mcts:iterations=4 in "
                        r"every seat\)\.", sentence), sentence
    assert f"about {P.about_games(seat.games)} games" in sentence
    # the same plan whatever the jobs, apart from the clock
    q = P.plan(s, 1, [2], strong="mcts:iterations=4", strong_pilot_games=2, pilot_games=300, jobs=1)
    assert without_timing(q.to_dict()) == without_timing(p.to_dict())


def test_the_unfinished_rate_is_planned_when_the_pilot_has_capped_games():
    s = make_setup("skyscraper", 2, None, None, 1)
    sec = P.plan(s, 2, strong="none", pilot_games=1000).sections[0]
    f = sec.headline("unfinished_rate")
    assert f is not None and sec.pilot.unfinished > 0 and f.measure == "rate"
    assert f.games == games_for_wilson(0.02, sec.pilot.unfinished / 1000)
    assert sec.strong_pilot is None and sec.headline("strong_seat_share") is None


def test_cli_json_shape_and_text():
    p = cardlab("plan", "crazy_eights", "--precision", "2", "--players", "3,2", "--strong", "none",
                "--pilot-games", "200", "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert set(d) == {"game", "seed", "precision_points", "halfwidth", "jobs", "plans", "sentences"}
    assert d["precision_points"] == 2 and d["halfwidth"] == 0.02 and len(d["plans"]) == 2
    sec = d["plans"][0]
    assert {"game", "players", "rules", "strategies", "seed", "pilot", "strong", "strong_pilot", "figures",
            "seat_games", "seat_estimated_s", "strong_games", "strong_estimated_s"} <= set(sec)
    assert sec["players"] == 3 and d["plans"][1]["players"] == 2 and sec["strong"] is None
    fig = sec["figures"][0]
    assert set(fig) == {"figure", "label", "measure", "seats", "value", "ci", "pilot_games", "planned_on",
                        "games", "estimated_s"}
    assert sec["seat_games"] == max(f["games"] for f in sec["figures"] if f["figure"] == "seat_share")
    sim = json.loads(cardlab("simulate", "crazy_eights", "-n", "200", "--json").stdout)
    assert sec["pilot"]["win_rate_by_seat"] == sim["win_rate_by_seat"]
    text = cardlab("plan", "crazy_eights", "--strong", "none", "--pilot-games", "200").stdout
    assert "games for ±1 pt" in text and "seat 0 - seat 1" in text
    assert re.search(r"^Seat effects to ±1 point: about [\d,]+ games \(about .+ with reference in every "
                     r"seat\)\.$", text, flags=re.M), text


@pytest.mark.parametrize("args,word", [
    (["--precision", "0"], "--precision"), (["--precision", "51"], "--precision"),
    (["--precision", "-1"], "--precision"), (["--players", "2,x"], "--players"),
    (["--set", "nope=1"], "nope"), (["--strong", "bogus"], "--strong"),
])
def test_cli_bad_input_exits_2_in_one_line(args, word):
    p = cardlab("plan", "crazy_eights", *args)
    assert p.returncode == 2 and p.stdout == ""
    lines = p.stderr.strip().split("\n")
    assert len(lines) == 1 and lines[0].startswith("cardlab: error:") and word in lines[0], p.stderr


def test_cli_bad_game_exits_2():
    p = cardlab("plan", "no_such_game")
    assert p.returncode == 2 and len(p.stderr.strip().split("\n")) == 1 and "no_such_game" in p.stderr
