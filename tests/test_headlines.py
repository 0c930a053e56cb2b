"""Headlines classified by player strength (analysis/headlines.py), on synthetic summaries
whose answer is known: each class is reached exactly when its intervals say so, the words
never claim more than the interval, and the first screen keeps at most five."""
from __future__ import annotations

import pytest

from cardlab.analysis import headlines as H


def seats_of(edges, holm=None):
    """Per-seat figures [(edge, lo, hi)] as a pool's ``seat_edges``; the Holm-adjusted p
    small exactly when the interval clears 0 (unless ``holm`` gives them)."""
    return [{"seat": i, "edge": e, "ci": [lo, hi], "p": 0.01,
             "p_adjusted": holm[i] if holm else (0.01 if lo > 0 or hi < 0 else 0.5)}
            for i, (e, lo, hi) in enumerate(edges)]


def pool(name, edges, games=5000, unfinished=(0.0, 0.0, 0.001), **kw):
    return {"pool": name, "games": games, "seat_edges": seats_of(edges), "seat0_edge": edges[0][0],
            "seat0_edge_ci": list(edges[0][1:]), "unfinished_rate": unfinished[0],
            "unfinished_rate_ci": list(unfinished[1:]), "win_rate_by_seat": [], **kw}


def summary(P, main, pools=(), strong=None, strength=(), unfinished=(0.0, 0.0, 0.0005), **kw):
    """A report summary: ``main`` [(edge, lo, hi)] per seat with reference in every seat (a
    million games: the headlines recompute its Wilson intervals from the counts); heuristic ``pools``; ``strong`` per-seat figures of the strong pool (mcts:iterations=64)."""
    fair = 1.0 / P
    s = {"players": P, "games": 1_000_000, "strategies": ["reference"] * P, "seat0_role": "the first player",
         "win_rate_by_seat": [fair + e for e, _, _ in main],
         "win_rate_ci_by_seat": [[fair + lo, fair + hi] for _, lo, hi in main],
         "unfinished_rate": unfinished[0], "unfinished_rate_ci": list(unfinished[1:])}
    p = {"by_pool": list(pools), "verdicts": {}}
    if strong is not None:
        sp = strong if isinstance(strong, dict) else pool("strong", strong, 1400)
        p["strong"] = {"player": "mcts:iterations=64", "games": sp["games"], "pool": sp,
                       "strength": [dict(x) for x in strength]}
    return s | {"pools": p} | kw


ZERO = (0.0, -0.01, 0.01)


def test_a_seat_edge_the_heuristics_show_and_strong_play_does_not_is_their_artefact():
    # 5 Towers' shape: +8.6 with reference, about 0 under strong play
    s = summary(3, [(0.086, 0.085, 0.087), ZERO, (-0.095, -0.096, -0.094)],
                [pool("greedy", [(0.064, 0.06, 0.069), ZERO, (-0.07, -0.075, -0.065)])],
                strong=[(0.0, -0.024, 0.026), (0.005, -0.02, 0.03), (-0.005, -0.03, 0.02)])
    h = H.seat_headline(s, 0)
    assert h["class"] == H.ARTEFACT and h["value"] == pytest.approx(0.086)
    assert "+8.6 points [+8.5, +8.7] with reference in every seat" in h["text"]
    assert "0.0 [-2.4, +2.6] under strong play (mcts:iterations=64 in every seat), not shown" in h["text"]
    assert h["text"].endswith("an artefact of the heuristics.")
    assert H.seat_headline(s, 2)["class"] == H.ARTEFACT
    # the same strong figure, but the heuristics' edge inside its interval: cannot tell yet
    s2 = summary(3, [(0.02, 0.019, 0.021), ZERO, ZERO], strong=[(0.0, -0.024, 0.026), ZERO, ZERO])
    h2 = H.seat_headline(s2, 0)
    assert h2["class"] == H.CANNOT and h2["games_to_decide"] == H.games_for(0.01, 1 / 3)
    assert "cannot tell yet (about 8,600 strong-play games would decide)" in h2["text"]


def test_an_edge_that_holds_under_strong_play_is_about_the_game():
    # Crazy Eights' shape: the first player's edge under reference and under search
    s = summary(3, [(0.025, 0.024, 0.026), ZERO, (-0.025, -0.026, -0.024)],
                strong=[(0.026, 0.012, 0.040), (-0.004, -0.017, 0.010), (-0.022, -0.035, -0.009)])
    h = H.seat_headline(s, 0)
    assert h["class"] == H.ABOUT and h["value"] == pytest.approx(0.026)
    assert h["text"].startswith("Seat 0 (the first player) has an advantage of +2.6 [+1.2, +4.0] under strong play")
    assert H.seat_headline(s, 2)["class"] == H.ABOUT and "a disadvantage" in H.seat_headline(s, 2)["text"]
    # an interval that clears 0 is not enough when the test fails Holm's adjustment over the seats
    s["pools"]["strong"]["pool"]["seat_edges"] = seats_of([(0.026, 0.012, 0.040), ZERO, ZERO], holm=[0.08, 1, 1])
    assert H.seat_headline(s, 0)["class"] == H.CANNOT


def test_opposite_signs_depend_on_the_players():
    s = summary(2, [(0.04, 0.03, 0.05), (-0.04, -0.05, -0.03)],
                [pool("greedy", [(-0.05, -0.06, -0.04), (0.05, 0.04, 0.06)])])
    assert H.seat_headline(s, 0)["class"] == H.DEPENDS  # no strong pool: the heuristics disagree
    s = summary(2, [(0.04, 0.03, 0.05), (-0.04, -0.05, -0.03)], strong=[(-0.03, -0.05, -0.01), (0.03, 0.01, 0.05)])
    h = H.seat_headline(s, 0)
    assert h["class"] == H.DEPENDS and h["text"].endswith("depends on the players.")


def test_no_edge_is_said_only_when_the_whole_interval_is_within_the_margin():
    narrow = summary(4, [ZERO] * 4, strong=[(0.004, -0.02, 0.028)] * 4)
    h = H.seat_headline(narrow, 1)
    assert h["class"] == H.ABOUT and h["absent"] and "no edge beyond +-3 points" in h["text"]
    wide = summary(4, [ZERO] * 4, strong=[(0.01, -0.025, 0.045)] * 4)
    h = H.seat_headline(wide, 1)
    assert h["class"] == H.CANNOT and "no edge" not in h["text"] and "cannot rule out one of 4.5 points" in h["text"]
    assert h["games_to_decide"] == H.games_for(0.02, 0.25)
    # the first screen: one line for every seat when none shows an edge
    first = H.first_screen(H.headlines(narrow))
    assert len(first) == 1 and first[0]["subject"] == "every seat"
    assert first[0]["text"].startswith("No seat has an edge beyond +-3 points under strong play "
                                       "(mcts:iterations=64 in every seat; every seat within [-2.0, +2.8])")
    first = H.first_screen(H.headlines(wide))
    assert first[0]["class"] == H.CANNOT


def test_without_strong_play_nothing_is_called_the_games():
    s = summary(3, [(0.086, 0.085, 0.087), ZERO, (-0.095, -0.096, -0.094)],
                [pool("greedy", [(0.064, 0.06, 0.069), ZERO, (-0.07, -0.075, -0.065)])])
    hs = H.headlines(s)
    assert {h["class"] for h in hs} == {H.CANNOT}
    assert all("not measured under strong play" in h["text"] for h in hs)
    assert H.seat_headline(summary(3, [ZERO] * 3), 1) is None  # nothing shown, nothing measured: no headline


def test_dominant_strategy_judged_by_strong_play_head_to_head():
    mixed = pool("mixed", [ZERO, ZERO], dominant="greedy", win_rate_by_strategy={
        "greedy": {"win_rate": 0.6, "ci": [0.58, 0.62]}, "reference": {"win_rate": 0.4, "ci": [0.38, 0.42]}})

    def with_strength(rate, lo, hi):
        s = summary(2, [ZERO, ZERO], [mixed], strong=[ZERO, ZERO],
                    strength=[{"against": "greedy", "games": 300, "win_rate": rate, "ci": [lo, hi], "fair": 0.5}])
        s["pools"]["verdicts"]["dominant"] = {"holds": True, "answer": "greedy", "text": "t"}
        return H.dominant_headline(s)

    assert with_strength(0.62, 0.56, 0.68)["class"] == H.ARTEFACT
    assert with_strength(0.49, 0.46, 0.52)["class"] == H.ABOUT
    assert with_strength(0.40, 0.34, 0.46)["class"] == H.ABOUT       # search loses to it
    h = with_strength(0.53, 0.47, 0.59)
    assert h["class"] == H.CANNOT and "would decide" in h["text"]


def test_unfinished_games_classified_by_strong_play():
    stalls = (0.05, 0.045, 0.055)
    s = summary(2, [ZERO, ZERO], unfinished=stalls, strong=pool("strong", [ZERO, ZERO], 1400, unfinished=(0.0, 0.0, 0.003)))
    assert H.unfinished_headline(s)["class"] == H.ARTEFACT
    s = summary(2, [ZERO, ZERO], unfinished=stalls, strong=pool("strong", [ZERO, ZERO], 1400, unfinished=(0.04, 0.03, 0.05)))
    assert H.unfinished_headline(s)["class"] == H.ABOUT
    s = summary(2, [ZERO, ZERO], unfinished=stalls, strong=pool("strong", [ZERO, ZERO], 1400, unfinished=(0.01, 0.005, 0.02)))
    assert H.unfinished_headline(s)["class"] == H.CANNOT
    assert H.unfinished_headline(summary(2, [ZERO, ZERO], unfinished=(0.0004, 0.0, 0.001))) is None


def test_first_screen_holds_at_most_five_one_sentence_headlines():
    s = summary(4, [(0.06, 0.05, 0.07), (0.05, 0.04, 0.06), (-0.05, -0.06, -0.04), (-0.06, -0.07, -0.05)],
                strong=[(0.06, 0.04, 0.08), (0.05, 0.03, 0.07), (-0.05, -0.07, -0.03), (-0.06, -0.08, -0.04)],
                unfinished=(0.05, 0.045, 0.055), causal_card_power={"strategies": ["reference"], "cards": [
                    {"card": "J", "value": 0.2, "value_ci": [0.15, 0.25], "significant": True}]})
    s["pools"]["strong"]["pool"]["unfinished_rate_ci"] = [0.04, 0.06]
    s["pools"]["strong"]["pool"]["unfinished_rate"] = 0.05
    first = H.first_screen(H.headlines(s))
    assert len(first) == H.MAX_FIRST
    assert [h["kind"] for h in first] == ["seat_edge"] * 3 + ["unfinished", "card_value"]
    assert all(h["text"].count(". ") == 0 for h in first)  # one sentence each
    assert H.headlines(s)[-1]["class"] == H.CANNOT  # card value: measured with the heuristics only


def test_main_run_is_judged_among_games_with_a_winner_like_the_pools():
    # Skyscraper's shape: 4.3% of games have no winner, which pulls both seats below 50%
    s = summary(2, [(-0.015, -0.016, -0.014), (-0.028, -0.029, -0.027)], no_winner_rate=0.043,
                strong=[(0.011, -0.003, 0.025), (-0.011, -0.025, 0.003)])
    h = H.seat_headline(s, 0)
    assert h["heuristics"][0]["edge"] == pytest.approx(0.485 / 0.957 - 0.5)  # +0.7, not -1.5
    # below 1 point the heuristics' edge shows nothing a designer would act on, and strong
    # play's whole interval lies within +-3 points
    assert h["class"] == H.ABOUT and h["absent"] and "-1.5" not in h["text"]
    assert "none of 1 point or more shown by any heuristic pool" in h["text"]
    s["pools"]["strong"]["pool"]["seat_edges"] = seats_of([(0.011, -0.02, 0.042), ZERO])
    h = H.seat_headline(s, 0)
    assert h["class"] == H.CANNOT and "no pool shows an edge of 1 point or more" in h["text"]


def test_signs_that_differ_below_one_point_do_not_make_the_game_depend_on_the_players():
    # Block Tower's shape: careful +0.7, saboteur -0.7, strong play wide around 0
    pools = [pool("careful", [(0.007, 0.001, 0.014)] + [ZERO] * 3),
             pool("saboteur", [(-0.007, -0.013, -0.001)] + [ZERO] * 3)]
    s = summary(4, [(0.002, 0.001, 0.003)] + [ZERO] * 3, pools, strong=[(-0.024, -0.06, 0.017)] + [ZERO] * 3)
    h = H.seat_headline(s, 0)
    assert h["class"] == H.CANNOT and "depends" not in h["text"]


def test_depends_names_strong_play_and_one_figure_of_each_sign():
    pools = [pool(name, [(e, e - 0.004, e + 0.004), ZERO, ZERO, ZERO])
             for name, e in (("greedy", -0.011), ("collector", -0.015), ("sweeper", 0.014))]
    s = summary(4, [(-0.033, -0.034, -0.032), ZERO, ZERO, ZERO], pools,
                strong=[(-0.025, -0.041, -0.009), ZERO, ZERO, ZERO])
    h = H.seat_headline(s, 0)
    assert h["class"] == H.DEPENDS
    assert h["text"] == ("Seat 0 (the first player): -2.5 [-4.1, -0.9] with mcts:iterations=64 in every seat; "
                         "-3.3 [-3.4, -3.2] with reference in every seat; +1.4 [+1.0, +1.8] with sweeper in "
                         "every seat: depends on the players.")
