"""Seat verdicts across pools (analysis/pools.py), honest lengths (finished games only) and
why capped games stuck (analysis/stuck.py)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from cardlab.analysis import pools as PL
from cardlab.analysis import tables as T
from cardlab.analysis.headlines import CLASS_WORDS
from cardlab.analysis.stuck import classify, stuck_games
from cardlab.analysis.summary import length_stats, summarize
from cardlab.sim import runner
from cardlab.sim.errors import InputError
from cardlab.sim.registry import get_game
from cardlab.sim.trace import trace


# ------------------------------------------------------------------ pools
def test_seat_verdict_flips_from_holds_to_depends():
    # 5 Towers, 3 players: the start player's edge is large for reference and cautious
    # (about +8.5 points in self-play) and absent for random: the same verdict machinery
    # must say "holds" for the first pair of pools and "depends" once random plays
    setup = runner.make_setup("five_towers", 3, None, None, 1)
    agree = PL.run_pools(setup, ["reference", "cautious"], 400, jobs=2)
    v = agree.verdicts["seat0_edge"]
    assert v["holds"] and v["answer"] == "an advantage", v["text"]
    assert "the same in every heuristic pool" in v["text"] and "strong play" in v["text"]
    differ = PL.run_pools(setup, ["reference", "random"], 400, jobs=2)
    v = differ.verdicts["seat0_edge"]
    assert not v["holds"] and "differs between the heuristic pools" in v["text"], v["text"]
    by = {s["pool"]: s for s in differ.stats}
    assert by["reference"]["seat0_edge_class"] == 1 and by["random"]["seat0_edge_class"] == 0


def test_mixed_pool_is_deterministic_and_draws_every_strategy():
    setup = runner.make_setup("skyscraper", 2, None, None, 3)
    a = PL.play_mixed(setup, 300, jobs=1)
    b = PL.play_mixed(setup, 300, jobs=2)
    assert np.array_equal(a.tally.data, b.tally.data)
    names = PL._heuristics(setup.game)
    assert "random" not in names and set(a.strategy_seat_games) == set(names)
    # every seat-game is one strategy's: the seat-games add up, and so do the wins
    assert sum(int(x.sum()) for x in a.strategy_seat_games.values()) == 300 * 2
    assert sum(int(x.sum()) for x in a.strategy_seat_wins.values()) == int(a.tally.win_units.sum())
    # the draw: depends on (seed, game index, seat) only, roughly uniform
    d = PL.mixed_assignment(3, 0, 4000, 2, len(names))
    assert np.array_equal(d[1000:1100], PL.mixed_assignment(3, 1000, 100, 2, len(names)))
    assert not np.array_equal(d, PL.mixed_assignment(4, 0, 4000, 2, len(names)))
    counts = np.bincount(d[:, 0], minlength=len(names))
    assert counts.min() > 0.8 * 1000 and counts.max() < 1.2 * 1000
    # game g of the mixed pool is game g of the fixed setup with its assignment: rebuilt
    # game by game through the ordinary runner, the tallies are identical
    total = np.zeros_like(a.tally.data)
    for g, row in enumerate(d[:300]):
        spec = ",".join(names[i] for i in row)
        total += runner.run(runner.make_setup("skyscraper", 2, None, spec, 3), 1, jobs=1, start=g).tally.data
    assert np.array_equal(total, a.tally.data)


def test_parse_pools():
    game = get_game("skyscraper")
    assert PL.parse_pools(None, game, 2) == ["reference", "greedy", "aggressive", "defensive", "mixed"]
    assert "mcts" not in PL.parse_pools("default", game, 2)
    assert PL.parse_pools("none", game, 2) == []
    assert PL.parse_pools("reference,mixed,mcts:iterations=8", game, 2)[-1] == "mcts:iterations=8"
    for bad in ("reference,nosuch", "reference,,mixed", "mixed,mixed"):
        with pytest.raises(InputError):
            PL.parse_pools(bad, game, 2)


def test_confounded_seat_edge_is_never_a_first_player_advantage():
    r = runner.run(runner.make_setup("skyscraper", 3, None, "reference,greedy,random", 1), 600, jobs=2)
    out = T.outcome_table(r).set_index("outcome")
    assert "first_player_advantage" not in out.index and "seat0_edge_confounded" in out.index
    s = summarize(r)
    assert s["seat_edge_confounded"] is True
    from cardlab.analysis.report import details

    v = details(s)
    assert "confounded by strategy" in v and "first-player advantage of" not in v
    same = summarize(runner.run(runner.make_setup("skyscraper", 3, None, None, 1), 300, jobs=2))
    assert same["seat_edge_confounded"] is False


# ------------------------------------------------------------------ lengths
def test_length_figures_are_of_finished_games_as_counted_in_the_traces():
    # Skyscraper's greedy self-play: about 29% of games stop at the cap; count every
    # game's length and cap flag from its trace, by hand
    setup = runner.make_setup("skyscraper", 2, None, "greedy", 5)
    n = 40
    res = runner.run(setup, n, jobs=1)
    finished, capped = [], 0
    for g in range(n):
        result = trace(setup, g)[-1]
        if result["unfinished"]:
            capped += 1
        else:
            finished.append(result["length"])
    assert 0 < capped < n
    s = summarize(res)
    L = s["length"]
    assert L["games"] == len(finished) and L["capped_games"] == capped
    assert L["capped_share"] == capped / n
    assert L["mean"] == pytest.approx(sum(finished) / len(finished))
    assert L["median"] == int(np.percentile(finished, 50, method="inverted_cdf"))
    assert (L["min"], L["max"]) == (min(finished), max(finished))
    df = T.length_table(res)
    assert df["games"].sum() == len(finished) and df["capped"].sum() == capped
    assert (df.loc[df.capped > 0, "length"] == 500).all()
    assert df.loc[sorted(set(finished)), "games"].tolist() == [finished.count(x) for x in sorted(set(finished))]
    # and the old, mixed mean would have been far longer
    mixed = (sum(finished) + 500 * capped) / n
    assert mixed > L["mean"] + 50


def test_length_stats_keeps_capped_games_apart():
    hist = np.array([0, 2, 3, 0, 0])
    cap = np.array([0, 0, 0, 0, 5])
    L = length_stats(hist, "turns", cap)
    assert L["mean"] == pytest.approx((2 + 6) / 5) and L["capped_games"] == 5
    assert L["capped_share"] == 0.5 and L["capped_at"] == [4, 4] and L["max"] == 2


# ------------------------------------------------------------------ stuck games
def test_skyscraper_reference_sticks_by_strategy_and_without_action_cards_by_rules():
    # the known case: ~4% of default reference games are capped; the reference holds a
    # milkshake or a donut truck it never plays (playing one would move a card and make a
    # seat skip), so nearly all are a strategy artefact
    st = stuck_games(runner.make_setup("skyscraper", 2, None, None, 1), scan=2000, limit=40, jobs=2)
    assert st.capped > 40 and len(st.games) == 40
    c = st.counts
    assert c["strategy"] >= 36, c
    assert st.kept_by() == {"reference": c["strategy"]}
    assert "strategy artefact" in st.sentence() and "dead end of the rules" in st.sentence()
    # with no action cards at all a stuck table has nothing left to play: the rules
    bare = ["shakes=0", "trucks=0", "thieves=0", "super_thieves=0", "hammers=0", "balls=0", "bones=0"]
    st = stuck_games(runner.make_setup("skyscraper", 2, bare, None, 1), scan=2000, limit=40, jobs=2)
    assert st.capped >= 3 and st.counts["rules"] == len(st.games), st.counts
    d = json.loads(json.dumps(st.to_dict()))
    assert d["counts"]["rules"] == len(st.games) and d["frozen_tables"] == len(st.games)


def test_classify_refuses_a_finished_game():
    setup = runner.make_setup("skyscraper", 2, None, None, 1)
    rows = runner.run(setup, 20, jobs=1, keep_rows=True).rows
    g = int(np.nonzero(rows[:, 1] == 0)[0][0])
    with pytest.raises(ValueError):
        classify(setup.game, setup, g)


# ------------------------------------------------------------------ the CLI
def test_report_pools_and_stuck_in_summary_json(tmp_path):
    import subprocess
    import sys

    out = tmp_path / "rep"
    p = subprocess.run([sys.executable, "-m", "cardlab.cli", "report", "skyscraper", "-n", "400",
                        "--pools", "reference,mixed", "--pools-games", "300", "--strong", "mcts:iterations=8",
                        "--strong-games", "60", "--strength-games", "12", "--out", str(out), "-q",
                        "-j", "2"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    s = json.loads((out / "summary.json").read_text())
    assert [x["pool"] for x in s["pools"]["by_pool"]] == ["reference", "mixed"]
    strong = s["pools"]["strong"]
    assert strong["player"] == "mcts:iterations=8" and strong["games"] == strong["pool"]["games"] == 60
    assert {x["against"] for x in strong["strength"]} == {"reference", "greedy", "aggressive", "defensive"}
    assert all(x["games"] == 12 for x in strong["strength"])  # 6 game indices in each of 2 seats
    assert s["headlines"] and all(h["class"] in CLASS_WORDS for h in s["headlines"])
    assert s["first_screen"] and s["verdict"] == " ".join(h["text"] for h in s["first_screen"])
    assert s["strong_play"].startswith("Strong play: mcts:iterations=8")
    assert "--strong mcts:iterations=8 --strong-games 60 --strength-games 12" in s["command"]
    assert s["pools"]["games_per_pool"] == 300 and "seat0_edge" in s["pools"]["verdicts"]
    assert s["stuck"]["capped_games"] == s["unfinished_games"] and s["stuck"]["classified"] > 0
    assert "--pools reference,mixed --pools-games 300" in s["command"]
    md = (out / "report.md").read_text()
    assert "## Seat verdicts across pools" in md and "## Why games stuck" in md
    assert "| strong: mcts:iterations=8 | 60 |" in md
    bad = subprocess.run([sys.executable, "-m", "cardlab.cli", "report", "skyscraper", "-n", "10",
                          "--pools", "reference,nosuch", "--out", str(tmp_path / "x")],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "nosuch" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
