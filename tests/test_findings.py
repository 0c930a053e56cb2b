"""The findings list (analysis/findings.py): each finding is raised exactly when its
figure's interval clears the threshold, severe ones first; a seat edge counts as a
property of the game only when it holds for every pool."""
from __future__ import annotations

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


def test_a_seat_edge_is_a_finding_only_when_it_clears_3_points_in_every_pool():
    holds = {"by_pool": [pool("reference", 0.06, 0.05, 0.07), pool("mixed", 0.05, 0.04, 0.06)],
             "verdicts": {"seat0_edge": {"holds": True, "min": 0.05, "max": 0.06, "text": ""}}}
    f = F.findings(summary(pools=holds))
    assert [x.kind for x in f] == ["seat_edge"] and f[0].severity == 3 and f[0].ci == [0.04, 0.07]
    near = {"by_pool": [pool("reference", 0.04, 0.02, 0.06), pool("mixed", 0.05, 0.04, 0.06)],
            "verdicts": {"seat0_edge": {"holds": True, "min": 0.04, "max": 0.05, "text": ""}}}
    assert kinds(summary(pools=near)) == []  # an interval reaching below 3 points
    depends = {"by_pool": holds["by_pool"], "verdicts": {"seat0_edge": {"holds": False, "min": 0.05, "max": 0.06,
                                                                         "text": ""}}}
    assert kinds(summary(pools=depends)) == []
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
