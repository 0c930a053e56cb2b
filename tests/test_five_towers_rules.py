"""5 Towers rules on hand-built states: placement (the 8 and 9 exceptions, the 0 cap),
buildable bids, the bidding, building and cleanup of a round, the reshuffle and the
end, scoring, and the reference strategy against a plain-Python reading of its page;
then the model: every decision's ``legal`` against ``step``, thousands of games driven
only through ``setup``/``legal``/``step``, and positions copied mid-build played on.

A state carries its own rules (st[S_RULES:]) and generator (st[0:4]); towers, offer and
piles are given as rule-page codes (see tests/five_towers_helpers.py).
"""
from __future__ import annotations

import numpy as np
import pytest

from cardlab.sim import runner
from cardlab.sim.five_towers import GAME
from cardlab.sim.five_towers import kernel as K
from cardlab.sim.five_towers import layout as L
from cardlab.sim.errors import ILLEGAL
from cardlab.sim.five_towers import moves as M
from cardlab.sim.runner import make_setup
from cardlab.strategies import five_towers as S
from tests import five_towers_helpers as H

from turns import five_towers_round
from cardlab.sim.testing import conformance_tests

# every check a game must pass (sim/testing.py): conservation, trace = fast path,
# compiled = plain Python, any --jobs, honesty of every strategy, parameters, knobs, golden trace
test_conformance = conformance_tests("five_towers")
B = GAME.binding()  # the engine bound to the rules (sim/bind.py)


EMPTY = L.EMPTY


def seats(players=3, strategies="reference"):
    """(strategy ids, parameter rows) for step_round."""
    setup = make_setup("five_towers", players, [], strategies, 1)
    _, sids, params = setup.arrays()
    return sids, params


def events(st):
    n, ev, _ = GAME.trace_arrays(st)
    return [(L.EVENT_NAMES[int(e[0])], int(e[1]), *map(int, e[3:])) for e in ev[:n]]


# ---------------------------------------------------------------- placement


def test_lower_on_top_with_the_8_and_9_exceptions():
    assert M.goes_on(3, 7) and not M.goes_on(7, 7) and not M.goes_on(12, 3)
    for x in range(16):
        assert M.goes_on(x, 8), "anything goes on an 8"
        assert M.goes_on(x, EMPTY), "anything starts a tower"
        assert not M.goes_on(x, 0), "nothing goes on a 0"
    for t in range(1, 16):
        assert M.goes_on(9, t), "a 9 goes on anything but a 0"
    assert M.goes_on(9, 3) and not M.goes_on(9, 0)


def test_a_zero_caps_and_cannot_be_torn_down():
    st = H.make_state(towers={0: {"C": ["C12", "C0"], "S": ["S12", "S4"]}})
    assert not M.tearable(st, 0, 0) and M.tearable(st, 0, 1)
    assert not M.tearable(st, 0, 2), "an empty tower has nothing to tear down"
    st = H.make_state(towers={0: {"C": ["C12", "C0"]}}, offer=["C15", "C9", "C8"])
    assert M.max_buildable(st, 0) == 0, "a capped tower takes nothing, even with a tear-down"


def test_a_tear_down_may_empty_a_tower():
    st = H.make_state(towers={0: {"T": ["T3"]}}, offer=["T14"])
    assert M.below_top(st, 0, 2) == EMPTY
    assert M.max_buildable(st, 0) == 1  # tear T3 down, start afresh with T14
    M.tear_down(st, 0, 2)
    assert H.tower(st, 0, "T") == [] and M.top(st, 0, 2) == EMPTY
    assert int(st[L.S_RUB_N]) == 1


def test_the_search_finds_orders_a_guess_would_miss():
    # on top 10: 12 can only follow the 8, and the 9 goes on anything but 0: 8, 12, 9, 5
    st = H.make_state(towers={0: {"R": ["R15", "R10"]}}, offer=["R12", "R9", "R8", "R5", "A3"])
    assert M.max_buildable(st, 0) == 5
    n = M.tower_search(st, 0, 3, 0)
    seq = [int(st[L.S_OFFER + j]) & 15 for j in st[L.S_SEQ:L.S_SEQ + n]]
    assert n == 4 and sorted(seq) == [5, 8, 9, 12]
    cur = 10
    for x in seq:
        assert H.legal(x, cur)
        cur = x


def test_a_bid_of_n_is_refused_when_no_n_cards_can_be_placed():
    # tops S2 and T5: no S or T card fits; one tear-down (S2 uncovers S15, T5 empties the
    # tower) lets two of them in, and C0 starts a tower: 3, never 4
    st = H.make_state(towers={1: {"S": ["S15", "S2"], "T": ["T5"]}},
                      offer=["S13", "S14", "T7", "T6", "C0"], start=0)
    assert M.max_buildable(st, 1) == 3
    assert M.bid_legal(st, 1, 3) and not M.bid_legal(st, 1, 4)
    st[L.S_HIGH] = 3
    assert not M.bid_legal(st, 1, 3), "a bid must beat the high bid"
    st = H.make_state(towers={1: {"S": ["S15", "S2"]}}, offer=["S13", "S14", "C0"],
                      rules={"teardown_when": "after"})
    assert M.max_buildable(st, 1) == 1, "a tear-down after placing does not help placing"


def test_max_buildable_matches_an_exhaustive_search_over_orders():
    rng = np.random.default_rng(5)
    checked = 0
    for _ in range(300):
        players = 2
        towers = {}
        for k in "CSTRA":
            h = int(rng.integers(0, 4))
            vals = sorted(rng.choice(16, h, replace=False), reverse=True)
            towers[k] = [f"{k}{v}" for v in vals]
        kinds = rng.choice(list("CSTRA"), 5, p=[.5, .2, .1, .1, .1])
        offer = []
        for k in kinds:
            v = int(rng.integers(0, 16))
            offer.append(f"{k}{v}")
        taken = {c for cs in towers.values() for c in cs}
        if len(set(offer)) < 5 or taken & set(offer):
            continue
        for rules in ({}, {"teardown_when": "after"}):
            st = H.make_state(players, towers={0: towers}, offer=offer, rules=rules)
            mb = H.max_buildable(st, 0)
            assert M.max_buildable(st, 0) == mb, (towers, offer, rules)
            assert M.max_buildable_fresh(st, 0) == mb, "a strategy's count is the rules'"
            assert [M.bid_legal(st, 0, b) for b in range(1, 6)] == [b <= mb for b in range(1, 6)]
            checked += 1
    assert checked > 200


# ---------------------------------------------------------------- a round


def test_a_bid_of_the_whole_offer_ends_the_bidding():
    st = H.make_state(draw=["C15", "C14", "C13", "C12", "C11", "S3"], capacity=64)
    sids, params = seats()
    assert five_towers_round(st, sids, params)
    ev = events(st)
    assert [e[:3] for e in ev if e[0] in ("bid", "pass")] == [("bid", 0, 5)]
    assert H.tower(st, 0, "C") == ["C15", "C14", "C13", "C12", "C11"]
    assert int(st[L.S_START]) == 1, "the player left of the builder starts the next round"


def test_the_start_player_moves_left_of_the_builder():
    # seat 0 (start) wants C14, C13, C12 and bids 3; seat 1 (C capped) and seat 2 (on C15
    # it wants the same 3) pass
    st = H.make_state(towers={1: {"C": ["C5", "C0"]}, 2: {"C": ["C15"]}},
                      draw=["C4", "C12", "C14", "C13", "A0"], capacity=64)
    sids, params = seats()
    five_towers_round(st, sids, params)
    ev = events(st)
    assert [e[:3] for e in ev if e[0] in ("bid", "pass")] == \
        [("bid", 0, 3), ("pass", 1, 0), ("pass", 2, 0)]
    st = H.make_state(towers={0: {"C": ["C5", "C0"], "A": ["A6", "A0"]}, 1: {"C": ["C6", "C0"]},
                              2: {"C": ["C15"]}},
                      draw=["C4", "C12", "C14", "C13", "A0"], capacity=64)
    five_towers_round(st, sids, params)
    ev = events(st)
    assert [e[:3] for e in ev if e[0] in ("bid", "pass")] == \
        [("pass", 0, 0), ("pass", 1, 0), ("bid", 2, 3)]
    assert H.tower(st, 2, "C") == ["C15", "C14", "C13", "C12"]
    assert int(st[L.S_START]) == 0, "left of seat 2 in a 3-player game is seat 0"
    assert sorted(L.card_code(int(c)) for c in st[L.S_DISC:L.S_DISC + st[L.S_DISC_N]]) == ["A0", "C4"]


def test_all_pass_discards_the_offer_and_moves_the_start_player():
    capped = {k: [f"{k}3", f"{k}0"] for k in "CSTRA"}
    st = H.make_state(towers={s: capped for s in range(3)}, draw=["C9", "S9", "T8", "R15", "A1", "C1"],
                      start=2, capacity=64)
    sids, params = seats()
    five_towers_round(st, sids, params)
    ev = events(st)
    assert [e[0] for e in ev].count("pass") == 3 and ("all_pass", -1) == ev[-6][:2]
    assert int(st[L.S_DISC_N]) == 5 and int(st[L.S_OFFER_N]) == 0
    assert int(st[L.S_START]) == 0
    st = H.make_state(towers={s: capped for s in range(3)}, draw=["C9", "S9", "T8", "R15", "A1"],
                      start=2, rules={"all_pass": "stay"})
    five_towers_round(st, sids, params)
    assert int(st[L.S_START]) == 2


def test_the_reshuffle_happens_once_and_the_second_run_out_ends_the_game():
    sids, params = seats(2)
    # 3 cards in the pile, 4 in the discard: the round reveals 3, reshuffles, reveals 2 more
    st = H.make_state(2, draw=["C1", "C2", "C3"], discard=["S1", "S2", "S3", "S4"], capacity=64)
    five_towers_round(st, sids, params)
    ev = events(st)
    assert [e[0] for e in ev[:6]] == ["reveal"] * 3 + ["reshuffle", "reveal", "reveal"]
    assert int(st[L.S_RUNOUTS]) == 1 and int(st[L.S_OVER]) == 0
    # second run-out mid-offer: the round is played on its short offer, then the game ends
    st = H.make_state(2, draw=["C15", "C14"], capacity=64)
    st[L.S_RUNOUTS] = 1
    assert five_towers_round(st, sids, params)
    ev = events(st)
    assert [e[:3] for e in ev if e[0] == "bid"] == [("bid", 0, 2)], "a bid of the whole short offer"
    assert int(st[L.S_OVER]) == 1
    # an empty pile at the second run-out: no round at all
    st = H.make_state(2, discard=["C15"])
    st[L.S_RUNOUTS] = 1
    assert not five_towers_round(st, sids, params)
    assert int(st[L.S_ROUND]) == 0 and int(st[L.S_OVER]) == 1


def test_the_first_pile_of_80_cards_lasts_16_rounds():
    setup = make_setup("five_towers", 3, [], "reference", 3)
    from cardlab.sim.trace import trace

    lines = trace(setup, 0)
    resh = [e for e in lines[1:-1] if e["action"] == "reshuffle"]
    assert len(resh) == 1 and resh[0]["turn"] == 17
    assert len(resh[0]["state"]["draw"]) == resh[0]["draw"]


# ---------------------------------------------------------------- scoring


def test_a_capped_tallest_tower_scores_three_a_card_and_rubble_is_triangular():
    st = H.make_state(towers={0: {"C": ["C15", "C12", "C9", "C0"], "S": ["S10", "S7"],
                                  "T": ["T3", "T0"]}},
                      rubble={0: ["A5", "A4", "R9"]})
    # 8 cards + capped (4 + 2) + tallest 4 = 18; rubble 1 + 2 + 3 = 6
    assert M.score(st, 0) == 18 - 6 == H.score(st, 0)
    st = H.make_state(towers={0: {"C": ["C15", "C12", "C9", "C0"], "S": ["S10", "S7"]}})
    assert M.score(st, 0) == 4 * 3 + 2, "the capped tallest tower: 3 points a card"
    st = H.make_state(towers={0: {"C": ["C15", "C12", "C9", "C0"]}}, rubble={0: ["A5", "A4", "R9"]},
                      rules={"rubble_penalty": "linear"})
    assert M.score(st, 0) == 12 - 3
    st = H.make_state(towers={0: {"S": ["S10", "S7"], "T": ["T11", "T1"]}})
    assert M.score(st, 0) == 4 + 2, "two tallest towers: the bonus counts once"
    st = H.make_state(rubble={1: ["C3"]})
    assert M.score(st, 1) == -1 and M.score(st, 0) == 0


# ---------------------------------------------------------------- the reference strategy


def test_reference_tears_down_when_it_gains_more_than_the_rubble_costs():
    # top C3, below C15: tearing lets C14, C13, C12 in (3 > 0 + 2)
    st = H.make_state(towers={0: {"C": ["C15", "C3"]}}, offer=["C14", "C13", "C12", "S2", "T1"])
    assert S.reference_plan(st, 0) == (3, 0)
    # with two rubble cards already the same tear-down costs 4: not worth it
    st = H.make_state(towers={0: {"C": ["C15", "C3"]}}, rubble={0: ["A1", "A2"]},
                      offer=["C14", "C13", "C12", "S2", "T1"])
    assert S.reference_plan(st, 0) == (0, -1)
    p = (0.0,) * 8
    assert S.reference_bid(st, 0, p) == 1, "forced to open, it bids 1"
    S.reference_build(st, 0, p, 1)
    # C14 cannot go on C3; S2 and T1 may start towers: the highest legal card is S2
    assert _plan(st) == (-1, ["S2"])


def test_reference_matches_its_page_on_states_from_real_games():
    """Bids and builds of the compiled reference against the plain-Python reading of
    shared/reference/five_towers.md, on the start-of-bidding states of 150 games."""
    from tests.test_five_towers_invariants import traced

    p = (0.0,) * 8
    checked = 0
    for players, sets in ((3, ()), (4, ()), (2, ("teardown_when=after",))):
        setup = make_setup("five_towers", players, list(sets), "random", 11)
        for g in range(50):
            st_end, _ = traced(setup, g)
            n, ev, snaps = GAME.trace_arrays(st_end)
            for i in range(n - 1):
                if ev[i, 0] == L.EV_REVEAL and ev[i + 1, 0] != L.EV_REVEAL and ev[i + 1, 0] != L.EV_RESHUFFLE:
                    start = int(ev[i + 1, 1]) if ev[i + 1, 0] in (L.EV_BID, L.EV_PASS) else 0
                    for high in (0, 1, 2):
                        for s in range(players):
                            st = H.from_snapshot(snaps[i], start, high)
                            assert S.reference_plan(st, s) == H.reference_plan(st, s)
                            b = S.reference_bid(st, s, p)
                            assert b == H.reference_bid(st, s)
                            if b:
                                assert b <= M.max_buildable(st, s)
                                S.reference_build(st, s, p, b)
                                assert _plan_slots(st, s) == H.reference_build(st, s, b)
                                checked += 1
    assert checked > 2000


@pytest.mark.parametrize("name", ["random", "greedy", "cautious", "capper"])
def test_every_strategy_bids_only_what_it_can_build(name):
    # the kernel raises on an illegal bid or placement: 300 games of each is the test
    setup = make_setup("five_towers", 4, [], f"{name},reference", 2)
    res = runner.run(setup, 300, jobs=1)
    assert res.tally.games == 300 and res.tally.unfinished == 0


# ---------------------------------------------------------------- the cautious strategy


def _row(name, **params):
    return GAME.strategies[name].row(params)


def _plan_slots(st, seat=0):
    """The build plan in seat's own memory: (kind torn or -1, offer slots in order)."""
    n = int(st[L.S_PLAN_N + seat])
    o = L.S_PLAN + seat * L.MAXOFF
    return int(st[L.S_PLAN_TEAR + seat]), [int(x) for x in st[o:o + n]]


def _plan(st, seat=0):
    """The build plan in seat's own memory, its cards as codes."""
    tear, slots = _plan_slots(st, seat)
    return tear, [L.card_code(int(st[L.S_OFFER + j])) for j in slots]


# seat 0's towers and the offer at seed 1, game 86, round 22 (3 players, all cautious):
# it bid 2, tore A9 down (A6, A5, A4 fit on A7), then placed C9 and S10 and no A card
GAME86_TOWERS = {"C": ["C15", "C14", "C13", "C11"], "S": ["S12"], "T": ["T15"],
                 "R": ["R12", "R11"], "A": ["A7", "A9"]}
GAME86_OFFER = ["A4", "A5", "A6", "S10", "C9"]


def test_cautious_tears_down_only_for_the_cards_it_actually_bids():
    st = H.make_state(towers={0: GAME86_TOWERS}, offer=GAME86_OFFER, start=2, high=1)
    p = _row("cautious")  # max_drop 2, max_bid 2, tear_gain 3
    assert S.cautious_bid(st, 0, p) == 2
    S.cautious_build(st, 0, p, 2)
    assert _plan(st) == (-1, ["C9", "S10"]), "C9 and S10 need no tear-down"
    # room for the whole offer: the tear-down adds 3 cards (>= tear_gain) and is taken
    p = _row("cautious", max_bid=5)
    assert S.cautious_bid(st, 0, p) == 5
    S.cautious_build(st, 0, p, 5)
    tear, plan = _plan(st)
    assert tear == 4 and sorted(plan) == ["A4", "A5", "A6", "C9", "S10"]
    # max_bid 3: the tear-down adds only 1 card to the 3 it can bid
    assert S.cautious_bid(st, 0, _row("cautious", max_bid=3)) == 2, "1 < tear_gain 3: no tear-down"
    p = _row("cautious", max_bid=3, tear_gain=1)
    assert S.cautious_bid(st, 0, p) == 3
    S.cautious_build(st, 0, p, 3)
    assert _plan(st) == (4, ["C9", "S10", "A6"])


def test_each_seat_keeps_its_plan_in_its_own_memory():
    """A plan lasts from one decision to the next: it is the seat's own memory (a world of
    the search re-deals the other seats' away), so another seat's plan never overwrites it."""
    st = H.make_state(towers={0: GAME86_TOWERS, 1: {"S": ["S12"]}}, offer=GAME86_OFFER, start=2, high=1)
    p = _row("cautious")
    S.cautious_build(st, 0, p, 2)
    S.cautious_build(st, 1, p, 1)
    assert _plan(st, 0) == (-1, ["C9", "S10"]) and _plan(st, 1) == (-1, ["S10"])
    own = [L.S.parts[n] for n in ("plan_tear", "plan_for", "plan_done", "plan_n", "plan", "pc")]
    assert all(q.owner and q.visible == "owner" for q in own)


def test_cautious_keeps_the_other_kinds_when_the_torn_kind_comes_first():
    # C3 blocks C6, C5, C4, which fit on the C7 below it; A10 fits on A11.  max_bid 3,
    # tear_gain 1: the tear-down adds 2 cards to the bid; the plan keeps A10 and takes 2 C
    # cards (kind order alone would take C6, C5, C4 and cut A10)
    st = H.make_state(towers={0: {"C": ["C7", "C3"], "A": ["A11"]}},
                      offer=["C6", "C5", "C4", "A10", "T1"])
    p = _row("cautious", max_bid=3, tear_gain=1)
    assert S.searched_plan(st, 0, 2, 99, 1, 3, 0) == (3, 0)
    assert S.cautious_bid(st, 0, p) == 3
    S.cautious_build(st, 0, p, 3)
    assert _plan(st) == (0, ["C6", "C5", "A10"])
    assert S.searched_plan(st, 0, 2, 99, 3, 3, 0) == (1, -1), "gain 2 < tear_gain 3"


def _torn_and_unused(players, strategies, games, seed=21):
    """(tear-downs, tear-downs followed by no card of that kind) over traced games."""
    from tests.test_five_towers_invariants import traced

    setup = make_setup("five_towers", players, [], strategies, seed)
    torn = useless = 0
    for g in range(games):
        st_end, _ = traced(setup, g)
        n, ev, _ = GAME.trace_arrays(st_end)
        for i in range(n):
            if ev[i, 0] != L.EV_TEARDOWN:
                continue
            seat, kind = int(ev[i, 1]), int(ev[i, 3])
            kinds = set()
            j = i + 1
            while j < n and ev[j, 0] == L.EV_PLACE:
                assert int(ev[j, 1]) == seat
                kinds.add(int(ev[j, 5]))
                j += 1
            torn += 1
            useless += kind not in kinds
    return torn, useless


@pytest.mark.parametrize("players,strategies,games,min_torn", [
    (3, "cautious", 100, 0),
    (3, "cautious:tear_gain=1", 100, 20),
    (3, "cautious:tear_gain=2,cautious:max_bid=3:tear_gain=1,cautious:max_bid=4:tear_gain=2", 100, 20),
    (2, "cautious:tear_gain=1,reference", 100, 10),
    (4, "cautious:tear_gain=1:max_bid=3,greedy,cautious:tear_gain=2,capper", 60, 10),
])
def test_cautious_never_tears_down_a_tower_it_then_leaves_alone(players, strategies, games, min_torn):
    torn, useless = _torn_and_unused(players, strategies, games)
    assert useless == 0, f"{useless} of {torn} tear-downs placed no card of the torn kind"
    assert torn >= min_torn, f"only {torn} tear-downs: the test checks too little"


def test_cautious_game_86_tears_nothing_down_in_round_22():
    from cardlab.sim.trace import trace

    lines = trace(make_setup("five_towers", 3, [], "cautious", 1), 86)
    r22 = [e for e in lines[1:-1] if e["turn"] == 22 and e["player"] == 0]
    assert [e["action"] for e in r22] == ["bid", "place", "place"]
    assert sorted(e["card"] for e in r22[1:]) == ["C9", "S10"]


# ---------------------------------------------------------------- the model: legal and step


def _acts(st):
    """The pending decision's legal actions (first numbers), as ``legal`` lists them."""
    n = int(M.legal(st))
    return [int(a) for a in st[L.S_ACTS:L.S_ACTS + 4 * n:4]]


def _refusal(st, a):
    """None if ``step`` accepts action a on a copy of st, else the refusal's decision words."""
    c = st.copy()
    try:
        K.step(c, (a, 0, 0, 0))
    except ValueError as e:
        assert e.args[0] == ILLEGAL, e.args
        return e.args[1]
    return None


# every number a strategy might answer, per decision: the legal ones and some beyond
CANDIDATES = {L.D_BID: range(-1, L.MAXOFF + 2), L.D_TEAR: range(-2, L.NK + 1),
              L.D_PLACE: range(-1, L.MAXOFF + 1)}


def _legal_is_what_step_accepts(st):
    listed = _acts(st)
    accepted = [a for a in CANDIDATES[int(st[L.S_PHASE])] if _refusal(st, a) is None]
    assert listed == accepted, (int(st[L.S_PHASE]), listed, accepted)
    return listed


def test_a_build_step_that_leaves_the_bid_unplaceable_is_refused():
    # seat 1 (start) can place 3 only with a tear-down: S2 off (S15 takes S14, S13) or T5
    # off (T7, T6 start afresh), and C0 starts a tower
    st = H.make_state(towers={1: {"S": ["S15", "S2"], "T": ["T5"]}},
                      offer=["S13", "S14", "T7", "T6", "C0"], start=1,
                      draw=["A1", "A2", "A3", "A4", "A5", "A6"])
    assert _legal_is_what_step_accepts(st) == [1, 2, 3]
    assert _refusal(st, 0) == "bid (the start player must open)"
    assert _refusal(st, 4) == "bid"
    for a in (3, 0, 0):  # seat 1 bids 3, seats 2 and 0 pass
        K.step(st, (a, 0, 0, 0))
    assert (int(st[L.S_PHASE]), int(st[L.S_ACTOR])) == (L.D_TEAR, 1)
    assert _legal_is_what_step_accepts(st) == [1, 2]
    assert _refusal(st, -1) == "tear-down (the bid could not be placed)"
    assert _refusal(st, 0) == "tear-down", "an empty tower has no top to tear down"
    K.step(st, (1, 0, 0, 0))  # S2 torn down: top S15
    assert H.tower(st, 1, "S") == ["S15"] and int(st[L.S_PHASE]) == L.D_PLACE
    # S13 first would block S14 (and T7 does not go on T5): S14 or C0
    assert _legal_is_what_step_accepts(st) == [1, 4]
    assert _refusal(st, 0) == "placement (the rest of the bid could not be placed)"
    assert _refusal(st, 2) == "placement"
    assert _refusal(st, 7) == "build plan (offer slot)"
    assert _refusal(st, -1) == "build plan (card count differs from the bid)", "no card: a plan too short"
    K.step(st, (1, 0, 0, 0))
    assert _legal_is_what_step_accepts(st) == [0, 4]
    assert _refusal(st, 1) == "build plan (offer slot)", "a slot already taken"
    K.step(st, (4, 0, 0, 0))
    K.step(st, (0, 0, 0, 0))
    assert H.tower(st, 1, "S") == ["S15", "S14", "S13"] and H.tower(st, 1, "C") == ["C0"]
    assert int(st[L.S_START]) == 2 and int(st[L.S_ROUND]) == 1  # the next round's offer
    assert int(st[L.S_EVC + L.EV_BUILD1 + 2]) == 1


def test_legal_and_a_strategys_counts_write_only_working_memory():
    """The search asks ``legal`` on the real position and a strategy counts what it may
    bid: both may write only working memory (sim/audit.py), so they count without the
    rules' memo (kind_can), which step keeps for itself."""
    working = np.zeros(L.S_SIZE, dtype=bool)
    for q in L.S.parts.values():
        if q.visible == "working":
            working[q.offset:q.offset + q.words] = True
    st = H.make_state(towers={1: {"S": ["S15", "S2"], "T": ["T5"]}},
                      offer=["S13", "S14", "T7", "T6", "C0"], start=1,
                      draw=["A1", "A2", "A3", "A4", "A5", "A6"])
    for a in (None, 3, 0, 0, 1, 1):  # the bid, seat 1's bid of 3, two passes, tear S2, place S14
        if a is not None:
            K.step(st, (a, 0, 0, 0))
        before = st.copy()
        n = int(M.legal(st))
        assert n > 0 and M.max_buildable_fresh(st, 1) == M.max_buildable(st.copy(), 1)
        assert working[np.flatnonzero(st != before)].all(), int(st[L.S_PHASE])


def test_with_teardown_after_the_tear_is_the_last_step():
    st = H.make_state(2, towers={0: {"C": ["C12"]}}, offer=["C10", "C3"], rules={"teardown_when": "after"})
    K.step(st, (2, 0, 0, 0))  # a bid of the whole offer ends the bidding
    assert (int(st[L.S_PHASE]), int(st[L.S_ACTOR])) == (L.D_PLACE, 0)
    assert _legal_is_what_step_accepts(st) == [0], "C3 first would block C10"
    K.step(st, (0, 0, 0, 0))
    K.step(st, (1, 0, 0, 0))
    assert int(st[L.S_PHASE]) == L.D_TEAR
    assert _legal_is_what_step_accepts(st) == [-1, 0], "any tower with a top but a 0 may lose it"
    K.step(st, (0, 0, 0, 0))
    assert H.tower(st, 0, "C") == ["C12", "C10"] and int(st[L.S_RUB_N]) == 1


def test_a_build_it_cannot_plan_is_played_on_with_legal_steps():
    # the reference wants 3 (the C tear-down); made to build 2 (a bid it did not make, as in
    # the search player's worlds) it has no 2-card plan: it takes the first legal step each
    # time, and the round ends with both cards placed
    from cardlab.sim.testing import legal_actions

    st = H.make_state(towers={0: {"C": ["C15", "C3"]}}, offer=["C14", "C13", "C12", "S2", "T1"])
    st[L.S_HIGH], st[L.S_BIDDER] = 2, 0
    st[L.S_PHASE], st[L.S_ACTOR] = L.D_TEAR, 0
    p = (0.0,) * 8
    first = None
    while st[L.S_PHASE] in (L.D_TEAR, L.D_PLACE) and st[L.S_ACTOR] == 0 and st[L.S_HIGH] == 2:
        act = GAME.binding().choose(S.ID.reference, st, 0, p)
        assert act == legal_actions(GAME, st)[0]
        if st[L.S_PHASE] == L.D_PLACE and first is None:
            first = st.copy()
        K.step(st, act)
    assert first is not None and int(first[L.S_PLACED]) == 0
    # a "no card" answer (a plan shorter than the bid) is refused, naming both counts
    with pytest.raises(ValueError) as e:
        K.step(first, (-1, 1, 0, 0))
    assert e.value.args == (ILLEGAL, "build plan (card count differs from the bid)", "cards,bid", 0, 1, 2)


def _zone_cards(snaps):
    """Every card of every snapshot (rows), -1 where a slot holds none."""
    k = np.arange(L.NCARDS)
    h = np.arange(L.MAXH)

    def first(o, width, count):
        return np.where(np.arange(width)[None, :] < count[:, None], snaps[:, o:o + width], -1)

    parts = [first(L.S_DRAW, L.NCARDS, snaps[:, L.S_DRAW_N]), first(L.S_DISC, L.NCARDS, snaps[:, L.S_DISC_N]),
             snaps[:, L.S_OFFER:L.S_OFFER + L.MAXOFF]]
    for s in range(L.MAXP):
        parts.append(first(L.S_RUB + s * L.NCARDS, len(k), snaps[:, L.S_RUB_N + s]))
        for t in range(L.NK):
            parts.append(first(L.S_TOW + (s * L.NK + t) * L.MAXH, len(h), snaps[:, L.S_TH + s * L.NK + t]))
    return np.concatenate(parts, axis=1)


def _deck(ndeck):
    ids = [k * 16 + v for k in range(L.NK) for v in range(16)]
    if ndeck == 110:
        ids += [128 + k * 16 + v for k in range(L.NK) for v in L.EXTRA]
    want = np.zeros(256, np.int64)
    want[ids] = 1
    return want


MODEL_SETUPS = [(2, ()), (3, ()), (4, ()), (5, ()), (3, ("teardown_when=after",)),
                (4, ("deck=full", "offer_size=8")), (2, ("all_pass=stay", "offer_size=1")),
                (5, ("teardown_when=after", "offer_size=8")), (3, ("max_rounds=12",)),
                (3, ("rubble_penalty=linear", "offer_size=3", "deck=full"))]
MODEL_GAMES = 210  # per setup: 2,100 games


def test_random_legal_games_keep_every_card_in_one_zone_and_end():
    """Games driven only through setup / legal / step with uniformly random legal actions:
    after every step every card of the dealt deck is in exactly one zone, every decision
    has a legal action, and every game ends (the deck runs out twice) or hits its cap.
    In every 15th game every decision's list is checked against what step accepts."""
    from cardlab.sim.rng import seed_game
    from cardlab.sim.schema import DONE

    gen = np.random.default_rng(20261201)
    games = 0
    for players, sets in MODEL_SETUPS:
        setup = make_setup("five_towers", players, list(sets), "random", 99)
        r, rv = setup.rules, setup.arrays()[0]
        want = _deck(int(rv[L.R_DECK - L.S_RULES]))
        for g in range(MODEL_GAMES):
            st = L.S.new_state(rv)
            seed_game(st, 99, g)
            B.setup(st)
            snaps = [st[:L.ZONES_END].copy()]
            check = g % 15 == 0
            while st[L.S_PHASE] != DONE:
                if check:
                    acts = _legal_is_what_step_accepts(st)
                else:
                    acts = _acts(st)
                assert acts, f"game {g}: no legal action (decision {int(st[L.S_PHASE])})"
                K.step(st, (acts[int(gen.integers(len(acts)))], 0, 0, 0))
                snaps.append(st[:L.ZONES_END].copy())
                assert len(snaps) < 20_000, "a game that does not end"
            cards = _zone_cards(np.array(snaps))
            rows = np.broadcast_to(np.arange(len(cards))[:, None], cards.shape)
            ok = cards >= 0
            census = np.bincount(rows[ok] * 256 + cards[ok], minlength=len(cards) * 256).reshape(-1, 256)
            assert (census == want[None, :]).all(), f"{players}p {sets} game {g}: a card missing or doubled"
            if st[L.S_UNFINISHED]:
                assert st[L.S_LENGTH] == r["max_rounds"] and st[L.S_MASK] == 0
            else:
                assert st[L.S_OVER] == 1 and st[L.S_RUNOUTS] == 2 and st[L.S_MASK] != 0
            scores = [H.score(st, s, r["rubble_penalty"] == "linear") for s in range(players)]
            assert list(st[L.S_SCORE:L.S_SCORE + players]) == scores
            games += 1
    assert games >= 2000


@pytest.mark.parametrize("players,sets,strategies", [
    (3, (), "random,reference,greedy"),
    (4, ("teardown_when=after",), "cautious:tear_gain=1,capper,random,reference"),
    (5, ("deck=full", "offer_size=8"), "random,greedy,cautious,capper,random"),
])
def test_a_position_copied_mid_build_plays_on_identically(players, sets, strategies):
    """Positions in the middle of a build (the plan in the builder's scratch, the random
    strategy's generator in the state) played on twice with play_on: identical final
    states, and the result of the uninterrupted fast-path game."""
    from cardlab.sim.rng import seed_game

    setup = make_setup("five_towers", players, list(sets), strategies, 8)
    rv, sids, params = setup.arrays()
    fast = runner.run(setup, 12, jobs=1, keep_rows=True).rows
    copied = 0
    for g in range(12):
        st = L.S.new_state(rv)
        seed_game(st, setup.seed, g)
        B.setup(st)
        decisions = 0
        while st[L.S_PHASE] != 0:
            mid = (st[L.S_PHASE] == L.D_PLACE and st[L.S_PLACED] >= 1) or \
                (st[L.S_PHASE] == L.D_TEAR and st[L.S_PLACED] >= 1) or \
                (st[L.S_PHASE] == L.D_BID and st[L.S_SPOKEN] >= 1)
            if mid and decisions % 7 == g % 7:
                a, b = st.copy(), st.copy()
                B.play_on(a, sids, params)
                B.play_on(b, sids, params)
                np.testing.assert_array_equal(a, b)
                got = [a[L.S_LENGTH], a[L.S_UNFINISHED], a[L.S_MASK], *a[L.S_SCORE:L.S_SCORE + players]]
                assert got == list(fast[g][:3 + players]), f"game {g}: the copy played on differently"
                copied += 1
            me = int(st[L.S_ACTOR])
            K.step(st, GAME.binding().choose(sids[me], st, me, tuple(params[me])))
            decisions += 1
        row = [st[L.S_LENGTH], st[L.S_UNFINISHED], st[L.S_MASK], *st[L.S_SCORE:L.S_SCORE + players]]
        assert row == list(fast[g][:3 + players]), f"game {g}: the model driven from Python differs"
    assert copied >= 30


# ---------------------------------------------------------------- compensation knobs


def _ended(rules, towers):
    """A game that ends now (the second run-out finds the draw pile empty) on ``towers``."""
    st = H.make_state(towers=towers, discard=["C15"], rules=rules)
    st[L.S_RUNOUTS] = 1
    K.next_round(st)
    assert st[L.S_PHASE] == L.DONE and st[L.S_END] == L.END_DECK
    return [int(x) for x in st[L.S_SCORE:L.S_SCORE + 3]], int(st[L.S_MASK])


def test_seat_points_start_seat_s_with_s_times_n_points():
    towers = {0: {"C": ["C15", "C12", "C9"]}, 1: {"S": ["S10", "S7"]}, 2: {"T": ["T3"]}}
    assert _ended({}, towers) == ([6, 4, 2], 0b001)
    # seat 1 starts with 2 points, seat 2 with 4: a three-way tie, shared as printed
    assert _ended({"seat_points": 2}, towers) == ([6, 6, 6], 0b111)
    assert _ended({"seat_points": 3}, towers) == ([6, 7, 8], 0b100)
    st = H.make_state(4, rubble={3: ["C3"]}, rules={"seat_points": 5})
    assert [M.score(st, s) for s in range(4)] == [0, 5, 10, 14], "the points are part of the score"


def test_ties_later_seat_gives_a_tie_for_the_top_score_to_the_highest_seat():
    towers = {0: {"C": ["C15", "C12"]}, 1: {"S": ["S10", "S7"]}, 2: {"T": ["T3"]}}
    assert _ended({}, towers) == ([4, 4, 2], 0b011)
    assert _ended({"ties": "later_seat"}, towers) == ([4, 4, 2], 0b010)
    towers[2] = {"T": ["T3", "T2"]}
    assert _ended({"ties": "later_seat"}, towers) == ([4, 4, 4], 0b100)
    towers[2] = {}
    towers[1] = {}
    assert _ended({"ties": "later_seat"}, towers) == ([4, 0, 0], 0b001), "no tie: as printed"


def test_compensation_knobs_are_checked_in_one_line_naming_the_knob():
    from cardlab.sim.errors import InputError
    for knob, bad in (("seat_points", "-1"), ("seat_points", "11"), ("ties", "fewer_turns")):
        with pytest.raises(InputError, match=knob) as e:
            GAME.resolve_rules({knob: bad}, 3)
        assert "\n" not in str(e.value)
    assert all(k.compensation == (k.name in ("seat_points", "ties")) for k in GAME.knobs)
    assert GAME.resolve_rules({}, 3)["seat_points"] == 0 and GAME.resolve_rules({}, 3)["ties"] == "share"


def test_compensation_knobs_move_the_seats_win_rates_on_the_same_seed():
    """3,000 games of reference self-play a run, one seed: 4 start points a seat take seat
    0's edge of about 8.5 points and seat 2's deficit of about 9 to within a few points
    (each move about 5 standard errors; a knob that changed nothing would give the very
    same games and fail); ties=later_seat moves only tied games, towards the later seats."""
    def rates(*sets):
        r = runner.run(runner.make_setup("five_towers", 3, list(sets), "reference", seed=9), 3000, jobs=1)
        return r.tally.wins[:3] / r.tally.games

    printed = rates()
    points = rates("seat_points=4")
    assert points[0] < printed[0] - 0.05 and points[2] > printed[2] + 0.05
    ties = rates("ties=later_seat")
    assert ties[0] < printed[0] and ties[2] > printed[2]
