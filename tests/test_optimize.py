"""Strategy search (analysis/optimize.py, `cardlab optimize`): seatings, determinism on a
tiny budget, the budget, honest re-evaluation on fresh seeds, the report section, and
errors."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cardlab.analysis import optimize as O
from cardlab.sim.errors import InputError


def test_the_candidate_takes_every_seat_once():
    assert O.seatings(2, ["a"]) == [[None, "a"], ["a", None]]
    assert O.seatings(3, ["a", "b"]) == [[None, "a", "b"], ["a", None, "b"], ["a", "b", None]]
    assert O.seatings(4, ["a"])[2] == ["a", "a", None, "a"]


def test_a_tiny_search_is_deterministic_and_within_budget():
    kw = dict(games=400, budget=8, seed=3, fresh_games=800, jobs=1)
    a = O.optimize("skyscraper", "aggressive", "reference", **kw)
    b = O.optimize("skyscraper", "aggressive", ["reference"], **{**kw, "jobs": 2})
    assert a.best == b.best and a.evaluations.equals(b.evaluations)
    assert a.fresh_best == b.fresh_best and a.difference == b.difference
    assert 2 <= len(a.evaluations) <= 8
    assert a.evaluations.iloc[0][["lead_margin", "skip_floors", "attack_first"]].tolist() == [0, 1, 1]
    assert a.train_best == a.evaluations["win_rate"].max() >= a.train_default
    assert all(float(v).is_integer() for v in a.best.values())  # integer parameters stay integers
    # the fresh re-evaluation plays other games than the search
    w, _ = O.evaluate("skyscraper", 2, "aggressive", a.best, ["reference"], 800, 3 + O.FRESH_SEED_OFFSET)
    assert w == pytest.approx(a.fresh_best["rate"])
    assert a.fresh_best["games"] == 800


def test_evaluate_matches_a_direct_run():
    from cardlab.sim.runner import make_setup, run

    w, shares = O.evaluate("five_towers", 3, "greedy", {"max_drop": 6, "tear_gain": 2}, ["reference"], 300, 5,
                           per_game=True)
    direct = 0.0
    for s, seats in enumerate(O.seatings(3, ["reference"])):
        strat = ",".join("greedy:max_drop=6:tear_gain=2" if x is None else x for x in seats)
        direct += run(make_setup("five_towers", 3, None, strat, 5), 100, 1).tally.wins[s] / 100
    assert w == pytest.approx(direct / 3) == pytest.approx(shares.mean())


def test_errors():
    with pytest.raises(InputError, match="no parameters to tune"):
        O.optimize("skyscraper", "reference", "random", games=100, budget=3)
    with pytest.raises(InputError, match="unknown strategy 'nope'"):
        O.optimize("skyscraper", "nope", "random", games=100, budget=3)
    with pytest.raises(InputError, match="unknown strategy 'nope'"):
        O.optimize("skyscraper", "aggressive", "nope", games=100, budget=3)
    with pytest.raises(InputError, match="--budget"):
        O.optimize("skyscraper", "aggressive", "random", games=100, budget=0)
    with pytest.raises(InputError, match="--fresh-games -5"):
        O.optimize("skyscraper", "aggressive", "random", games=100, budget=2, fresh_games=-5)
    with pytest.raises(InputError, match="rule knobs only"):
        O.optimize("skyscraper", "aggressive", "random", games=100, budget=2, vary=["players=2,3"])
    with pytest.raises(InputError, match="floors_to_win"):
        O.optimize("skyscraper", "aggressive", "random", games=100, budget=2, vary=["floors_to_win=0,4"])


def test_cli_report_section(tmp_path):
    out = tmp_path / "opt"
    p = subprocess.run([sys.executable, "-m", "cardlab.cli", "optimize", "skyscraper", "--strategy", "aggressive",
                        "--against", "reference", "--games", "600", "--budget", "6", "--vary", "dogs=0,4",
                        "--out", str(out), "-q"], capture_output=True, text=True, check=True)
    assert "tuned parameters" in p.stdout and "fresh games" in p.stdout
    data = json.loads((out / "optimize.json").read_text())
    assert data["strategy"] == "aggressive" and len(data["variants"]) == 2
    html = (out / "index.html").read_text()
    assert data["verdict"].split(" (")[0] in html and html.count("<img") == 2
    p = subprocess.run([sys.executable, "-m", "cardlab.cli", "optimize", "skyscraper", "--strategy", "greedy",
                        "--against", "reference", "--budget", "0"], capture_output=True, text=True)
    assert p.returncode == 2 and "--budget" in p.stderr and len(p.stderr.strip().splitlines()) == 1
