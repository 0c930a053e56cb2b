"""cardlab balance: targets, the racing search on synthetic objectives whose answer is known by
construction, verification and resume on a real game, the verdict's words, bad input."""
import json
import math
import os
import shutil
import subprocess
import sys
import time
from types import SimpleNamespace

import numpy as np
import pytest
from browser import CHECK_SCRIPT, _chromium, chromium  # noqa: F401 (chromium: the fixture)

from cardlab.analysis.balance import CURRENT, Games, Search, knob_values, singles
from cardlab.analysis.balance_report import strong_sentence
from cardlab.analysis.balance_run import balance, parse_budget
from cardlab.analysis.balance_targets import parse_target, parse_targets
from cardlab.sim.errors import InputError
from cardlab.sim.knobs import Knob


# ------------------------------------------------------------------ targets and budgets
def test_targets_read_every_form():
    t = parse_target("seat_edge=0±1")
    assert (t.figure, t.lo, t.hi) == ("seat_edge", -1, 1)
    assert (parse_target("seat_edge=0+-1.5").lo, parse_target("seat_edge = 0 +/- 1.5").hi) == (-1.5, 1.5)
    t = parse_target("length=20..30")
    assert (t.lo, t.hi) == (20, 30) and t.holds(21, 29) and not t.holds(19, 25) and t.excluded(31, 40)
    t = parse_target("unfinished<0.5%")
    assert t.lo == -math.inf and t.hi == 0.5 and t.miss(1.0) > 0 and t.miss(0.2) == 0
    assert parse_target("comeback>=20").lo == 20


@pytest.mark.parametrize("text, words", [
    ("seat_edge", "expected FIGURE"), ("fairness=0±1", "unknown --target figure 'fairness'"),
    ("seat_edge=0", "never exact"), ("length=30..20", "empty band"), ("seat_edge=0±0", "above 0"),
    ("unfinished<0", "no rule change can reach"), ("length=a..b", "not a number"),
    ("seat_edge=150±10", "no rule change can reach")])
def test_bad_targets_say_what_is_wrong(text, words):
    with pytest.raises(InputError, match=words):
        parse_target(text)


def test_targets_are_needed_once_each():
    with pytest.raises(InputError, match="at least one --target"):
        parse_targets([])
    with pytest.raises(InputError, match="given twice"):
        parse_targets(["length<30", "length>10"])


def test_budgets():
    assert parse_budget("30m") == 1800 and parse_budget("1h30m") == 5400 and parse_budget("90s") == 90
    assert parse_budget("45") == 45
    for bad in ("soon", "0s", "30x", "9999h"):
        with pytest.raises(InputError, match="--budget"):
            parse_budget(bad)


def test_knob_values_are_nearest_first_and_in_range():
    assert knob_values(Knob("k", "int", 0, "", 0, 5), 0) == ["1", "2", "3", "4"]
    assert knob_values(Knob("k", "int", 3, "", 0, 10), 3)[:4] == ["2", "4", "1", "5"]
    assert knob_values(Knob("t", "int", 1000, "", 1, 100_000), 1000)[:4] == ["900", "1100", "750", "1250"]
    assert knob_values(Knob("b", "bool", True, ""), True) == ["false"]
    assert knob_values(Knob("c", "choice", "b", "", choices=("a", "b", "c", "d")), "b") == ["a", "c", "d"]
    assert knob_values(Knob("l", "list", (1.0,), "", 0, 2), (1.0,)) == []


# ------------------------------------------------------------------ the search on known answers
def _uniform(start: int, n: int) -> np.ndarray:
    """splitmix64 of each game index, as a uniform in [0, 1): the same number for the same
    game under every candidate (common random numbers)."""
    z = (np.arange(start, start + n, dtype=np.uint64) + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)).astype(np.float64) / 2.0 ** 53


class Synthetic:
    """Two seats; seat 0's edge in points is ``edge(knob values)``, known by construction."""
    players = 2

    def __init__(self, edge):
        self.edge, self.refused = edge, {}

    def prepare(self, c):
        return True

    def games(self, c, start, n):
        p = 0.5 + self.edge({k: int(v) for k, v in c.changes}) / 100
        mask = np.where(_uniform(start, n) < p, 1, 2)
        zero = np.zeros(n, dtype=np.int64)
        return Games(start, mask, zero + 10, zero.astype(np.int8), np.full((n, 4), -1))


def _search(edge, knobs, target="seat_edge=0±1", max_changes=2, budget=60.0):
    s = Search(Synthetic(edge), parse_targets([target]), 500, 64_000, time.perf_counter() + budget)
    s.run(singles(knobs, {k.name: k.default for k in knobs}), max_changes, 3)
    return s


def test_the_search_finds_the_one_value_that_levels_the_seats():
    x = Knob("x", "int", 0, "", 0, 10)
    s = _search(lambda v: 2.0 * (3 - v.get("x", 0)), [x])  # x=3 levels it; x=2, 4 are 2 points off
    short, met = s.short_list(3)
    assert met and [p.candidate.label for p in short] == ["x=3"]
    assert s.standings[CURRENT].status == "misses"
    assert {c.label: st.dropped for c, st in s.standings.items()}["x=8"] == "misses"


def test_pairs_are_predicted_from_the_singles_and_ranked_after_them():
    a, b = Knob("a", "int", 0, "", 0, 5), Knob("b", "int", 0, "", 0, 5)
    s = _search(lambda v: 5 - 2 * v.get("a", 0) - 3 * v.get("b", 0), [a, b], "seat_edge=0±0.6")
    short, met = s.short_list(3)
    assert met and short[0].candidate.label == "a=1, b=1" and len(short[0].candidate.changes) == 2
    assert not any(st.status == "meets" for c, st in s.standings.items() if len(c.changes) == 1)
    # one knob that meets alone comes first, before any pair that fills the short list
    s = _search(lambda v: 2.0 * (3 - v.get("a", 0)), [a, b])
    short, met = s.short_list(3)
    assert met and short[0].candidate.label == "a=3"
    assert all(len(p.candidate.changes) == 2 for p in short[1:])
    # enough single changes meet: no pair is played
    s = _search(lambda v: 0.2 * (3 - v.get("a", 0)) + 0.1 * v.get("b", 0), [a, b])
    assert len(s.meeting()) >= 3 and all(len(c.changes) <= 1 for c in s.standings)


def test_an_unreachable_target_ends_with_the_closest_and_no_claim():
    x = Knob("x", "int", 0, "", 0, 10)
    s = _search(lambda v: 8.0 - 0.5 * v.get("x", 0), [x], max_changes=1)  # at best +4 points
    short, met = s.short_list(3)
    assert not met and short[0].candidate.label == "x=8"


# ------------------------------------------------------------------ a real game
def _strip(d):
    return {k: v for k, v in d.items() if k not in ("elapsed_s", "reused_games")}


KW = dict(knobs=["draw_limit"], games=200, max_games=400, strong="random", budget="5m")


@pytest.fixture(scope="module")
def verified(tmp_path_factory):
    out = tmp_path_factory.mktemp("balance") / "b"
    return balance("crazy_eights", ["seat_edge=0±25", "unfinished<5%"], out=out, **KW), out


def test_balance_verifies_on_fresh_games_and_a_rerun_reuses_every_game(verified, tmp_path):
    r, out = verified
    assert r.met and r.proposals and r.proposals[0].verified
    p = r.proposals[0]
    assert p.fresh_games >= 1000 and p.strong["verdict"] == "inside" and p.strong_games >= 20
    assert "meets seat_edge=0±25, unfinished<5%" in r.verdict and "holds under strong play" in r.verdict
    assert {e["figure"] for e in p.side_effects} >= {"seat_edge", "length", "unfinished", "no_winner"}
    for f in ("balance.json", "search.csv", "search.png", "index.html", "report.md"):
        assert (out / f).exists()
    assert p.replays and all((out / x["href"].split("#")[0]).is_file() for x in p.replays)
    copy = tmp_path / "again"
    shutil.copytree(out, copy)
    again = balance("crazy_eights", ["seat_edge=0±25", "unfinished<5%"], out=copy, **KW)
    assert again.reused_games >= r.search_games
    assert _strip(again.to_json()) == _strip(json.loads((out / "balance.json").read_text()))


def test_the_balance_page_shows_its_plot_and_links_its_replays_in_a_browser(verified, chromium, tmp_path):
    import re

    r, out = verified
    page = (out / "index.html").read_text()
    assert r.proposals[0].candidate.label in page and "replays/1/" in page
    probe = out / "probe.html"  # the page plus a script that reports every image
    probe.write_text(page.replace("</body>", CHECK_SCRIPT + "</body>"))
    p = _chromium(chromium, "--virtual-time-budget=5000", "--dump-dom", probe.as_uri())
    m = re.search(r'<div id="imgcheck" data-total="(\d+)" data-broken="(\d+)" data-widths="([\d,]*)"', p.stdout)
    assert m, f"chromium did not run the check (rc {p.returncode}): {p.stderr[-800:]}"
    assert int(m[1]) == 1 and int(m[2]) == 0 and int(m[3]) > 300
    assert "Short list" in p.stdout and r.proposals[0].candidate.label in p.stdout


def test_a_target_no_change_reaches_says_so_and_which_came_closest():
    r = balance("crazy_eights", ["length<2"], knobs=["draw_limit"], games=200, max_games=400, strong="none",
                budget="2m", replays=False)
    assert not r.met and not any(p.fresh for p in r.proposals)
    assert r.verdict.startswith("No change of at most 1 knob(s)") and "The closest: draw_limit=" in r.verdict


def test_the_strong_sentence_calls_a_heuristics_only_fix_one():
    fig = {"target": "seat_edge=0±1", "component": 0, "value": 3.0, "ci": [2.0, 4.0], "games": 900,
           "verdict": "outside", "games_to_decide": None}
    tg = parse_targets(["seat0_edge=0±1"])
    fig["target"] = tg[0].text
    r = SimpleNamespace(game="crazy_eights", targets=tg, strong_player="mcts:iterations=64", strong_current=None)
    p = SimpleNamespace(strong={"verdict": "outside", "figures": [fig]}, strong_games=900, verified=True)
    assert "works only for the heuristics" in strong_sentence(r, p)
    p.verified = False
    assert "misses the target under strong play too" in strong_sentence(r, p)
    fig |= {"verdict": "open", "ci": [-0.5, 2.5], "games_to_decide": 4200}
    p.strong["verdict"] = "open"
    assert "cannot tell yet" in strong_sentence(r, p) and "about 4,200 games would decide" in strong_sentence(r, p)


@pytest.mark.parametrize("args, words", [
    (["--target", "fairness=0±1"], "unknown --target figure"),
    (["--target", "seat_edge=0±1", "--knobs", "nope"], "unknown --knobs name 'nope'"),
    (["--target", "seat_edge=0±1", "--knobs", "draw_limit", "--set", "draw_limit=2"], "both --set and --knobs"),
    (["--target", "seat_edge=0±1", "--budget", "soon"], "bad --budget"),
    (["--target", "seat_edge=0±1", "--max-changes", "4"], "bad --max-changes"),
    (["--target", "seat_edge=0±1", "--strong", "nobody"], "bad --strong")])
def test_bad_input_is_one_line_and_exit_2(args, words):
    env = dict(os.environ, CARDLAB_HISTORY="off")
    p = subprocess.run([sys.executable, "-m", "cardlab.cli", "balance", "crazy_eights", "-q", *args],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 2 and words in p.stderr and "Traceback" not in p.stderr, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1


def test_the_dask_backend_gives_the_local_result_on_one_cluster(monkeypatch):
    from cardlab.sim import dask_backend

    clusters = []
    real = dask_backend.connect
    monkeypatch.setattr(dask_backend, "connect", lambda *a: clusters.append(1) or real(*a))
    kw = dict(knobs=["draw_limit"], games=200, max_games=400, strong="none", budget="5m", replays=False, jobs=2)
    on_dask = balance("crazy_eights", ["length<30"], backend="dask", **kw)
    assert len(clusters) == 1  # every block of every candidate on the one session's cluster
    assert _strip(on_dask.to_json()) == _strip(balance("crazy_eights", ["length<30"], **kw).to_json())


def test_a_balance_run_prints_json_and_is_recorded_in_the_history(tmp_path, monkeypatch):
    from cardlab.analysis.history import runs

    env = {k: v for k, v in os.environ.items() if k != "CARDLAB_HISTORY"} | {"CARDLAB_HOME": str(tmp_path)}
    p = subprocess.run([sys.executable, "-m", "cardlab.cli", "balance", "crazy_eights", "--target", "length<30",
                        "--knobs", "draw_limit", "--games", "200", "--max-games", "400", "--strong", "none",
                        "--json"], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["met"] and doc["proposals"][0]["verified"] and doc["command"].startswith("cardlab balance")
    monkeypatch.setenv("CARDLAB_HOME", str(tmp_path))
    monkeypatch.delenv("CARDLAB_HISTORY", raising=False)
    rec = runs("crazy_eights")
    assert list(rec["command"]) == ["balance"] and json.loads(rec["summary"][0])["verdict"] == doc["verdict"]
