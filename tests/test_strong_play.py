"""The strong pool (analysis/pools.run_strong) and the classification it drives, on real runs:
its size, its measured strength, and a seat edge the heuristics show that strong play does
not (5 Towers) read as an artefact of the heuristics."""
from __future__ import annotations

import json

import pytest

from cardlab.analysis import headlines as H
from cardlab.analysis import pipeline
from cardlab.analysis.pools import parse_strong, run_strong, strength_sentence
from cardlab.analysis.stats import games_for
from cardlab.sim import runner
from cardlab.sim.errors import InputError


def test_strong_pool_size_resolves_seats_and_the_main_runs_edges():
    base = games_for(0.025, 1 / 3)
    assert pipeline.strong_games_for(3) == base == 1366
    assert pipeline.strong_games_for(3, main_edges=[0.01, -0.015, 0.005]) == base  # nothing worth more games
    assert pipeline.strong_games_for(3, main_edges=[0.086, 0.01, -0.095]) == base  # large edges need no more
    # Crazy Eights' +2.5-point first-player edge: resolved to +-1.25 points, within the cap
    assert pipeline.strong_games_for(3, main_edges=[0.025, -0.002, -0.023]) == min(
        games_for(0.0115, 1 / 3), pipeline.EXTEND_CAP * base)
    assert pipeline.strong_games_for(4, 0.04) == games_for(0.04, 0.25) == 451


def test_parse_strong_checks_the_player():
    setup = runner.make_setup("skyscraper", 2, None, None, 1)
    assert parse_strong(None, setup) == setup.game.strong_player
    assert parse_strong("none", setup) is None
    assert parse_strong("mcts:iterations=8", setup) == "mcts:iterations=8"
    for bad in ("nosuch", "mcts:iterations=0", "reference,greedy"):
        with pytest.raises(InputError, match="bad --strong"):
            parse_strong(bad, setup)


def test_strength_is_measured_head_to_head_in_every_seat():
    setup = runner.make_setup("skyscraper", 2, None, None, 3)
    st = run_strong(setup, 20, 10, jobs=2, spec="mcts:iterations=8")
    assert st["pool"]["games"] == 20 and st["pool"]["strong"] and st["player"] == "mcts:iterations=8"
    assert [x["against"] for x in st["strength"]] == ["reference", "greedy", "aggressive", "defensive"]
    for x in st["strength"]:
        assert x["games"] == 10 and x["ci"][0] <= x["win_rate"] <= x["ci"][1] and x["fair"] == 0.5
        assert x["beats"] is (True if x["ci"][0] > 0.5 else False if x["ci"][1] < 0.5 else None)
    # greedy stalls and loses almost every game to anything that plays on: search beats it
    assert next(x for x in st["strength"] if x["against"] == "greedy")["win_rate"] > 0.5
    assert strength_sentence(st).startswith("Strong play: mcts:iterations=8 ")
    again = run_strong(setup, 20, 10, jobs=1, spec="mcts:iterations=8")
    assert again["strength"] == st["strength"] and again["pool"]["win_rate_by_seat"] == st["pool"]["win_rate_by_seat"]


def test_five_towers_seat_edge_reads_as_an_artefact_of_the_heuristics(tmp_path):
    """Issue 35's target on a real run: reference gives the start player about +8.6
    points; the search player in every seat gives none, and the headline says whose the
    edge is.  (Small: 2,000 reference games, 600 games of mcts at 16 iterations.)"""
    paths, out = pipeline.run_report("five_towers", 2000, None, 1, 2, None, None, out=str(tmp_path / "r"),
                                     pools="none", causal_games=0, strong="mcts:iterations=16",
                                     strong_games=600, strength_games=0, replay_games=0, luck_deals=0,
                                     quiet=True)
    s = json.loads(paths["summary.json"].read_text())
    seat0 = next(h for h in s["headlines"] if h["kind"] == "seat_edge" and h["seat"] == 0)
    assert seat0["class"] == H.ARTEFACT, seat0["text"]
    assert seat0["heuristics"][0]["edge"] > 0.05 and seat0["strong"]["ci"][0] < 0 < seat0["strong"]["ci"][1]
    assert "an artefact of the heuristics" in s["verdict"]
    assert "--strong mcts:iterations=16 --strong-games 600" in s["command"]
    page = paths["index.html"].read_text()
    assert 'data-class="artefact_of_heuristics"' in page and "strong: mcts:iterations=16" in page


def test_a_report_on_dask_is_the_local_report_on_one_cluster(tmp_path, monkeypatch):
    """``cardlab report --backend dask``: the main run, the pools, the strong pool with its
    strength, the ladder with restricted play and the tournament on one client; the same
    report as local threads (every figure but the timings)."""
    from cardlab.sim import dask_backend

    clusters, on_cluster = [], set()
    real, real_map = dask_backend.connect, dask_backend.map_chunks
    monkeypatch.setattr(dask_backend, "connect", lambda *a: clusters.append(1) or real(*a))
    monkeypatch.setattr(dask_backend, "map_chunks", lambda setup, *a: on_cluster.add(
        ",".join(s.label for s in setup.seats)) or real_map(setup, *a))
    kw = dict(pools="reference", pools_games=30, causal_games=0, strong="mcts:iterations=4", strong_games=9,
              strength_games=6, replay_games=0, luck_deals=0, with_ladder=True, ladder_budgets="4",
              ladder_games=3, tournament="reference,hoarder", tournament_games=6, variant_games=30,
              quiet=True)
    summaries = []
    for backend in ("dask", "local"):
        paths, _ = pipeline.run_report("crazy_eights", 300, None, 5, 2, None, None,
                                       out=str(tmp_path / backend), backend=backend, **kw)
        summaries.append(json.loads(paths["summary.json"].read_text()))
    assert clusters == [1]
    assert {"reference,reference,reference",                           # the main run
            "mcts:iterations=4,mcts:iterations=4,mcts:iterations=4",   # the strong pool
            "mcts:iterations=4,reference,reference",                   # its strength
            "mcts:iterations=32:never=8,mcts:iterations=32,mcts:iterations=32",  # restricted play
            "reference,hoarder,hoarder"} <= on_cluster                 # the tournament
    assert summaries[0]["pools"]["strong"]["strength"] and summaries[0]["ladder"]["rungs"]
    on_dask, local = (_figures(s) for s in summaries)
    assert on_dask == local
    with pytest.raises(InputError, match="--scheduler needs --backend dask"):
        pipeline.run_report("crazy_eights", 300, None, 5, 2, None, None, out=str(tmp_path / "x"),
                            scheduler="tcp://nowhere:8786", **kw)


def _figures(summary):
    """A summary without what differs between two runs of the same report: the timings, and
    the command (it names the report's folder)."""
    if isinstance(summary, dict):
        return {k: _figures(v) for k, v in summary.items()
                if k not in ("elapsed_s", "games_per_second", "seconds", "command")}
    if isinstance(summary, list):
        return [_figures(v) for v in summary]
    return summary
