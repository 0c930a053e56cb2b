"""The findings list (analysis/findings.py): each finding is raised exactly when its
figure's interval clears the threshold, severe ones first; a seat edge carries its class
by player strength (analysis/headlines.py): about the game only under strong play."""
from __future__ import annotations

import pytest

from cardlab.analysis import findings as F


def pool(name, edge, lo, hi):
    return {"pool": name, "seat0_edge": edge, "seat0_edge_ci": [lo, hi]}


def summary(**kw):
    s = {"strategies": ["reference", "reference"], "seat0_role": "the first player", "unfinished_rate": 0.0,
         "unfinished_rate_ci": [0.0, 0.001], "first_player_advantage": 0.0, "first_player_advantage_ci": [-0.01, 0.01],
         "card_power": []}
    return s | kw


def kinds(s):
    return [f.kind for f in F.findings(s)]


def test_a_seat_edge_finding_carries_its_class_and_clears_3_points():
    from test_headlines import ZERO, summary as classified

    # an edge the heuristics show and strong play does not: a minor finding, called an artefact
    art = classified(3, [(0.086, 0.085, 0.087), ZERO, ZERO], strong=[(0.0, -0.024, 0.026), ZERO, ZERO])
    f = [x for x in F.findings(art) if x.kind == "seat_edge"]
    assert len(f) == 1 and f[0].severity == 1 and f[0].klass == "artefact_of_heuristics"
    assert f[0].to_dict()["class"] == "artefact_of_heuristics" and f[0].ci == pytest.approx([0.085, 0.087], abs=0.0005)
    # one that holds under strong play: severe, about the game
    game = classified(3, [(0.086, 0.085, 0.087), ZERO, ZERO], strong=[(0.08, 0.055, 0.105), ZERO, ZERO])
    f = [x for x in F.findings(game) if x.kind == "seat_edge"]
    assert [(x.severity, x.klass) for x in f] == [(3, "about_the_game")]
    # under strong play an edge whose interval reaches below 3 points raises none
    near = classified(3, [(0.04, 0.02, 0.06), ZERO, ZERO], strong=[(0.04, 0.02, 0.06), ZERO, ZERO])
    assert [x for x in F.findings(near) if x.kind == "seat_edge"] == []
    # no pools: one pool's edge is a weaker finding; a confounded edge none at all
    one = summary(first_player_advantage=0.08, first_player_advantage_ci=[0.07, 0.09])
    assert [(x.kind, x.severity) for x in F.findings(one)] == [("seat_edge", 2)]
    assert kinds(one | {"seat_edge_confounded": True}) == []


def test_unfinished_causal_played_and_shape_findings_in_order_of_severity():
    s = summary(unfinished_rate=0.08, unfinished_rate_ci=[0.07, 0.09],
                causal_card_power={"cards": [
                    {"card": "J", "value": 0.2, "value_ci": [0.15, 0.25], "significant": True},
                    {"card": "Q", "value": 0.2, "value_ci": [-0.1, 0.5], "significant": False},
                    {"card": "K", "value": 0.05, "value_ci": [0.03, 0.07], "significant": True}]},
                card_power=[{"card": "A", "play_rate": 0.005, "play_rate_ci": [0.001, 0.01]},
                            {"card": "B", "play_rate": 0.5, "play_rate_ci": [0.4, 0.6]},
                            {"card": "C", "play_rate": 0.995, "play_rate_ci": [0.99, 0.999]}],
                shape={"comeback_rate": 0.05, "comeback_rate_ci": [0.03, 0.08],
                       "decided_point": 0.2, "decided_point_ci": [0.18, 0.22]})
    f = F.findings(s)
    assert [x.kind for x in f] == ["unfinished", "causal_card", "runaway_leader", "decided_early",
                                   "never_played", "always_played"]
    assert [x.severity for x in f] == sorted([x.severity for x in f], reverse=True)
    assert "J" in f[1].text and "A" in f[4].text and "C" in f[5].text and "B" not in f[5].text
    assert kinds(summary(unfinished_rate=0.012, unfinished_rate_ci=[0.009, 0.015])) == []  # interval reaches 1%


def seats(rates, games, players=4):
    """A summary of ``games`` games with these seat win rates (Wilson intervals)."""
    from cardlab.analysis.stats import wilson

    return summary(players=players, games=games, strategies=["reference"] * players,
                   win_rate_by_seat=rates, win_rate_ci_by_seat=[list(wilson(r * games, games)) for r in rates])


def test_every_seat_is_judged_not_only_seat_0():
    """Issue 35: the last seat's large edge raised no finding, because only seat 0 was
    tested.  Every seat is tested against the fair share (Holm over the seats) and named
    by its place; seat 0 keeps its own, pools-aware finding."""
    s = seats([0.24, 0.24, 0.22, 0.30], 20_000)
    f = [x for x in F.findings(s) if x.kind == "seat_edge"]
    assert len(f) == 1 and f[0].text.startswith("Seat 3 (the last in seat order) has an advantage of +5.0")
    assert f[0].ci[0] > F.SEAT_EDGE and "Holm over 4 seats" in f[0].threshold
    tests = F.seat_tests(s)
    assert [t["role"] for t in tests] == ["the first player", "2nd in seat order", "3rd in seat order",
                                          "the last in seat order"]
    assert tests[3]["p_adjusted"] < 0.05 and tests[0]["p_adjusted"] >= tests[0]["p"]
    # the same rates from 400 games: the interval does not clear 3 points -- no finding
    assert [x for x in F.findings(seats([0.24, 0.24, 0.22, 0.30], 400)) if x.kind == "seat_edge"] == []
    # a clear but small edge (under 3 points) is no finding either
    assert [x for x in F.findings(seats([0.25, 0.25, 0.24, 0.26], 200_000)) if x.kind == "seat_edge"] == []
    # seats playing different strategies: the seat figures are the strategies'
    assert [x for x in F.findings(s | {"seat_edge_confounded": True}) if x.kind == "seat_edge"] == []


def test_a_game_turns_off_a_generic_finding_that_does_not_fit_it():
    """``Game.findings_off``: 5 Towers declares that "played whenever held" says nothing there
    (held = taken into a tower, played = still there at the end); its report raises no such
    finding and shows the reason; Crazy Eights raises it."""
    from cardlab.analysis.report import findings_html, findings_md, findings_off_notes

    always = [{"card": "8", "play_rate": 0.996, "play_rate_ci": [0.995, 0.997]}]
    assert kinds(summary(game="crazy_eights", card_power=always)) == ["always_played"]
    s = summary(game="five_towers", card_power=always)
    assert kinds(s) == [] and "always_played" in F.findings_off(s)
    s["findings"] = []
    s["findings_off"] = [{"kind": k, "reason": r} for k, r in F.findings_off(s).items()]
    note = findings_off_notes(s)[0]
    assert note.startswith("Not raised for this game: always played (a card counts as held once taken")
    assert note in "".join(findings_md(s)) and "findings-off" in "".join(findings_html(s))
    assert F.findings_off({"game": "nope"}) == {} and F.findings_off({}) == {}


def test_findings_off_names_only_kinds_that_exist():
    """``KINDS`` is every kind the module raises, and every game's ``findings_off`` names
    only those: a misspelt kind would turn nothing off, silently."""
    import inspect
    import re

    from cardlab.sim.registry import game_ids, get_game

    src = inspect.getsource(F)
    raised = set(re.findall(r'Finding\("(\w+)"', src)) | set(re.findall(r'"(\w+_played)", "', src))
    assert raised == set(F.KINDS)
    for gid in game_ids():
        unknown = set(get_game(gid).findings_off) - set(F.KINDS)
        assert not unknown, f"{gid}: findings_off names {sorted(unknown)}, not kinds of analysis/findings.KINDS"
