"""Block Tower rules on hand-built states: scoring a collapse, the 4-block minimum, the
rounds (start card, direction), the even split (and its 4-block minimum), the
two-action-card reshuffle (when it is offered, three cards), the action cards (SWAP as an
exchange), drawing 1/2/3, the first block, the collapse model's fall probability
(chi-square over the compiled draw), the rule knobs, the strategies' choices, and the
model: games driven only through setup / legal / step with random legal actions (every
card in one zone after every step), legal listing exactly what step accepts, and a copy
of a mid-turn position playing on like the original.

A state carries its own rules (st[S_RULES:]) and generator (st[0:4]); hands, the draw
pile (top first) and the point pile (bottom first) are given as rule-page codes.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from cardlab.sim.block_tower import GAME
from cardlab.sim.block_tower import kernel as K
from cardlab.sim.block_tower import layout as L
from cardlab.sim.block_tower import model as MD
from cardlab.sim.block_tower import moves as M
from cardlab.sim.rng import seed_game
from cardlab.sim.schema import DONE
from cardlab.strategies import block_tower as S

from turns import block_tower_turn
from cardlab.sim.testing import conformance_tests

# every check a game must pass (sim/testing.py): conservation, trace = fast path,
# compiled = plain Python, any --jobs, honesty of every strategy, parameters, knobs, golden trace
test_conformance = conformance_tests("block_tower")
B = GAME.binding()  # the engine bound to the rules (sim/bind.py)


C = L.card_of
P0 = (0.0,) * 8  # a strategy's parameter values (all zero)
SAFE = {"base": 0}           # nothing ever falls
DOOM = {"base": 100}         # every tested placement falls (p = 1 - e^-100...)


def make_state(players=4, hands=None, draw=(), pile=(), styles=None, rules=None, me=0, prev=-1,
               rnd=0, seed=7, capacity=0, phase=None):
    """A hand-built position; ``phase`` (a D_* decision) makes it seat me's pending
    decision (what legal and step read; play_turn opens the turn itself)."""
    r = GAME.resolve_rules({k: str(v) for k, v in (rules or {}).items()}, players)
    st = L.S.new_state(GAME.rules_vector(r, players), capacity)
    seed_game(st, seed, 0)
    if phase is not None:
        st[L.S_PHASE] = phase
        st[L.S_ACTOR] = me
    f = st.view(np.float64)
    st[L.S_ROUND] = rnd
    st[L.S_START] = rnd % players
    st[L.S_DIR] = 1 if rnd % 2 == 0 else -1
    st[L.S_CUR] = me
    st[L.S_PREV] = prev
    for s, cards in (hands or {}).items():
        st[L.S_HANDS + s] = sum(1 << C(x) for x in cards)
        st[L.S_HAND_N + s] = len(cards)  # the public hand size the rules keep with the hand
    st[L.S_DRAW_N] = len(draw)
    for k, x in enumerate(reversed(draw)):
        st[L.S_DRAW + k] = C(x)
    u = 0.0
    for i, x in enumerate(pile):
        st[L.S_PILE + i] = C(x)
        sh = M.base_share(st, C(x)) * (1 + r["push_of_style"] * ((styles or {}).get(i, 0)))
        f[L.S_SHARE + i] = sh
        u += sh
    st[L.S_PILE_N] = len(pile)
    f[L.S_U] = u
    return st


def hand(st, s):
    return [L.card_code(c) for c in L.mask_cards(st[L.S_HANDS + s])]


def won(st, s):
    return [L.card_code(c) for c in L.mask_cards(st[L.S_WON + s])]


def draw_pile(st):
    n = int(st[L.S_DRAW_N])
    return [L.card_code(int(c)) for c in st[L.S_DRAW:L.S_DRAW + n][::-1]]


def pile(st):
    return [L.card_code(int(c)) for c in st[L.S_PILE:L.S_PILE + int(st[L.S_PILE_N])]]


def scores(st, players=4):
    return [int(x) for x in st[L.S_SCORES:L.S_SCORES + players]]


def u_of(st):
    return float(st.view(np.float64)[L.S_U])


def arrays(name="reference", **over):
    strat = GAME.strategies[name]
    sids = np.full(L.MAXP, strat.id, np.int64)
    params = np.zeros((L.MAXP, 8), np.float64)
    for s in range(L.MAXP):
        params[s] = strat.row(over)
    return sids, params


def turn(st, me, name="reference", **over):
    sids, params = arrays(name, **over)
    st[L.S_CUR] = me
    return bool(block_tower_turn(st, sids, params, me))


TOWER5 = ("B01", "B02", "B03", "B04", "B05")       # five 1-point blocks


# ---------------------------------------------------------------- collapse and scoring


def test_previous_player_scores_the_pile_including_the_toppling_card():
    st = make_state(hands={2: ["B16"]}, draw=("B06", "B07"), pile=TOWER5, rules=DOOM, me=2, prev=1)
    assert turn(st, 2)                                  # the round ended
    assert scores(st) == [0, 5 + 3, 0, 0]               # 5 one-pointers + the fatal 3-pointer
    assert won(st, 1) == list(TOWER5) + ["B16"]
    assert pile(st) == [] and u_of(st) == 0.0 and hand(st, 2) == []
    assert st[L.S_EVC + L.EV_COLLAPSE] == 1 and st[L.S_EVC + L.EV_FALL_PLACE] == 1
    assert st[L.S_EVC + L.EV_H1 + 5 - 1] == 1           # collapse height 5 (before the fatal block)
    assert draw_pile(st) == ["B06", "B07"]              # no draw after a collapse


def test_a_three_block_tower_scores_zero_and_four_scores():
    st = make_state(hands={3: ["B20"]}, pile=TOWER5[:3], rules=DOOM, me=3, prev=2)
    assert turn(st, 3)
    assert scores(st) == [0, 0, 0, 0] and won(st, 2) == list(TOWER5[:3]) + ["B20"]
    st = make_state(hands={3: ["B20"]}, pile=TOWER5[:4], rules=DOOM, me=3, prev=2)
    assert turn(st, 3)
    assert scores(st) == [0, 0, 4 + 3, 0]
    st = make_state(hands={3: ["B20"]}, pile=TOWER5[:3], rules={**DOOM, "min_tower": 3}, me=3, prev=2)
    assert turn(st, 3)
    assert scores(st) == [0, 0, 3 + 3, 0]


def test_the_first_block_never_falls():
    st = make_state(hands={0: ["B20"]}, draw=("B01",), rules=DOOM)
    assert not turn(st, 0)
    assert pile(st) == ["B20"] and hand(st, 0) == ["B01"]
    assert MD.fall_count(make_state(rules=DOOM), 0, C("B20"), 1000, 1000) == 0
    # a single block cannot fall during ADJUST or REMOVE either
    for card in ("ADJUST", "REMOVE"):
        st = make_state(hands={1: [card, "B02"]}, pile=("B20",), rules=DOOM, prev=0)
        assert not (M.adjust(st, 1, 0) if card == "ADJUST" else M.remove(st, 1))
    # and the second block on a doomed table always falls
    st = make_state(pile=("B20",), rules=DOOM)
    assert MD.fall_count(st, 0, C("B01"), 0, 100) == 100


def test_even_split_ignores_the_remainder():
    # seat 1 to move holds only an action card and the draw pile is empty
    pile11 = ("B01", "B02", "B09", "B10", "B16", "B17")  # 1+1+2+2+3+3 = 12 -> add one
    st = make_state(hands={1: ["ADJUST"]}, pile=pile11[:5], rules=SAFE, me=1, prev=0)
    assert M.pile_points(st) == 9
    assert turn(st, 1)
    assert scores(st) == [2, 2, 2, 2]                   # floor(9 / 4), remainder 1 dropped
    assert pile(st) == list(pile11[:5])                 # the cards stay until the next deal
    assert st[L.S_EVC + L.EV_SPLIT] == 1
    st = make_state(players=3, hands={1: []}, pile=pile11, rules=SAFE, me=1, prev=0)
    assert turn(st, 1) and scores(st, 3) == [4, 4, 4]   # floor(12 / 3)


def test_split_of_a_tower_below_min_tower_pays_nothing():
    """Issue 14 (decision): 'towers with fewer than 4 blocks are worth 0' also holds for the
    even split when the draw pile runs out (split_min_tower=true)."""
    def split_scores(tower, **rules):
        st = make_state(hands={1: ["ADJUST"]}, pile=tower, rules={**SAFE, **rules}, me=1, prev=0)
        assert turn(st, 1) and st[L.S_EVC + L.EV_SPLIT] == 1
        return scores(st)

    three = ("B16", "B17", "B18")                                    # 9 points, 3 blocks
    assert split_scores(three) == [0, 0, 0, 0]
    assert split_scores(three, split_min_tower="false") == [2, 2, 2, 2]
    assert split_scores(three, min_tower=3) == [2, 2, 2, 2]
    assert split_scores(three + ("B19",)) == [3, 3, 3, 3]           # 4 blocks, 12 points


def test_only_action_cards_draw_until_a_block_then_play():
    # (reshuffle_at=turn_start: drawing SWAP would otherwise offer the reshuffle, which
    # careful takes without a block card; see test_reshuffle_is_offered_after_drawing...)
    st = make_state(hands={1: ["ADJUST"]}, draw=("SWAP", "B03", "B04"), pile=("B20",),
                    rules={**SAFE, "reshuffle_at": "turn_start"}, me=1, prev=0)
    assert not turn(st, 1, "careful")
    # drew SWAP, then B03 (a block): played B03, then drew 1 (no action was played)
    assert pile(st) == ["B20", "B03"] and hand(st, 1) == ["B04", "ADJUST", "SWAP"]
    # running out while drawing ends the round by a split
    st = make_state(hands={1: ["ADJUST"]}, draw=("SWAP",), pile=("B20",), rules=SAFE, me=1, prev=0)
    assert turn(st, 1) and scores(st) == [0, 0, 0, 0] and st[L.S_EVC + L.EV_SPLIT] == 1


def test_two_action_reshuffle():
    st = make_state(hands={0: ["ADJUST", "REMOVE"]}, draw=("SWAP", "ANYWHERE", "B05"), rules=SAFE)
    assert not turn(st, 0)
    # hand into the draw pile (5 cards, shuffled), draw 3, then until a block arrives
    assert st[L.S_EVC + L.EV_RESHUFFLE] == 1
    cards = sorted(hand(st, 0) + draw_pile(st) + pile(st))
    assert cards == sorted(["ADJUST", "REMOVE", "SWAP", "ANYWHERE", "B05"])
    assert pile(st) == ["B05"]
    # the reference never reshuffles while it holds a block card
    st = make_state(hands={0: ["ADJUST", "REMOVE", "B01"]}, draw=("SWAP", "B05"), rules=SAFE)
    assert S.reference_reshuffle(st, 0, P0) == 0


def test_reshuffle_draws_three_new_cards():
    """Issue 14: 'draw three new cards', not hand_size (the other reading is a knob)."""
    draw = ("B01", "B02", "B03", "B04", "B05", "B06")
    for knob, want in (("three", 3), ("hand_size", 5)):
        st = make_state(hands={0: ["ADJUST", "REMOVE"]}, draw=draw,
                        rules={**SAFE, "hand_size": 5, "reshuffle_draw": knob})
        M.reshuffle(st, 0)
        assert len(hand(st, 0)) == want and st[L.S_DRAW_N] == 8 - want, knob
    st = make_state(hands={0: ["ADJUST", "REMOVE"]}, draw=draw, rules={**SAFE, "hand_size": 5})
    M.reshuffle(st, 0)
    assert len(hand(st, 0)) == 3                                    # the default: three


def test_reshuffle_is_offered_after_drawing_up_to_a_block():
    """Issue 14: 'if you ever have two action cards' also holds after a draw in the turn."""
    def play(**rules):
        st = make_state(hands={0: ["ADJUST"]}, draw=("REMOVE", "B05", "B06", "B07", "B08"),
                        rules={**SAFE, **rules})
        assert not turn(st, 0)
        return st

    st = play()
    # the draw brought a second action card (no block card yet): the reference reshuffled
    assert st[L.S_EVC + L.EV_RESHUFFLE] == 1 and len(pile(st)) == 1
    assert sorted(hand(st, 0) + draw_pile(st) + pile(st)) == \
        sorted(["ADJUST", "REMOVE", "B05", "B06", "B07", "B08"])
    st = play(reshuffle_at="turn_start")                            # the old reading
    assert st[L.S_EVC + L.EV_RESHUFFLE] == 0
    assert pile(st) == ["B05"] and hand(st, 0) == ["B06", "ADJUST", "REMOVE"]


def test_reshuffle_is_offered_after_a_swap():
    """Issue 14: a SWAP that brings two action cards offers the reshuffle before the block."""
    def play(**rules):
        st = make_state(hands={0: ["SWAP", "B19", "B20"], 1: ["ADJUST", "REMOVE"]},
                        draw=("B06", "B07", "B08", "B09"), pile=TOWER5[:4], rules={**SAFE, **rules},
                        prev=3)
        assert not turn(st, 0)
        return st

    st = play()
    # gave B20, B19, took ADJUST, REMOVE (none applies at h = 4), no block card: reshuffled
    assert hand(st, 1) == ["B19", "B20"] and st[L.S_EVC + L.EV_RESHUFFLE] == 1
    assert len(pile(st)) == 5 and st[L.S_RECV + 0] == 0             # the received cards left
    st = play(reshuffle_at="turn_start")
    assert st[L.S_EVC + L.EV_RESHUFFLE] == 0
    assert pile(st)[-1] == "B06" and hand(st, 0) == ["B07", "B08", "ADJUST", "REMOVE"]


def test_reshuffle_at_most_once_a_turn():
    for seed in range(30):
        st = make_state(hands={0: ["ADJUST", "REMOVE"]}, draw=("ANYWHERE", "SWAP", "B05"), rules=SAFE,
                        seed=seed)
        assert not turn(st, 0)
        assert st[L.S_EVC + L.EV_RESHUFFLE] == 1 and pile(st) == ["B05"], seed


# ---------------------------------------------------------------- rounds


def test_direction_reverses_each_round_and_the_start_card_passes_left():
    st = make_state(players=3, capacity=0)
    for r in range(6):
        M.new_round(st, r)
        assert st[L.S_START] == r % 3 and st[L.S_DIR] == (1 if r % 2 == 0 else -1)
        assert all(len(hand(st, s)) == 3 for s in range(3))
        assert st[L.S_DRAW_N] == 24 - 9 and pile(st) == [] and st[L.S_PREV] == -1
    # a whole traced game: every round's turns go round the table in its direction
    from cardlab.sim.runner import make_setup
    from cardlab.sim.trace import trace

    lines = trace(make_setup("block_tower", 4, ["target_points=60"], "reference", 3), 0)
    rounds, cur = [], None
    for ev in lines[1:-1]:
        if ev["action"] == "round":
            cur = (ev["start_seat"], ev["direction"], [])
            rounds.append(cur)
        elif ev["action"] == "place":
            cur[2].append(ev["player"])
    assert len(rounds) >= 3
    for r, (start, d, seats) in enumerate(rounds):
        assert start == r % 4 and d == (1 if r % 2 == 0 else -1)
        assert seats == [(start + d * k) % 4 for k in range(len(seats))]


def test_deal_order_starts_at_the_start_seat_in_turn_order():
    st = make_state(players=4, capacity=20)
    M.new_round(st, 1)                                   # start seat 1, direction -1
    n, ev, _ = GAME.trace_arrays(st)
    deals = [int(e[3]) for e in ev[:n] if e[0] == L.EV_DEAL]
    assert deals == [1, 0, 3, 2]


# ---------------------------------------------------------------- action cards


def test_remove_sends_the_card_to_the_bottom_of_the_draw_pile():
    st = make_state(hands={2: ["REMOVE", "B01"]}, draw=("B06", "B07"),
                    pile=("B09", "B16", "B20"), styles={2: 1}, rules=SAFE, prev=1)
    u0 = u_of(st)
    assert not M.remove(st, 2)
    assert pile(st) == ["B09", "B16"] and draw_pile(st) == ["B06", "B07", "B20"]
    assert u_of(st) == pytest.approx(u0 - 0.3 * 2)       # its (sabotage) share
    assert st[L.S_USED] == 1 << L.REMOVE and hand(st, 2) == ["B01"]
    # REMOVE falls with the top block's hazard times remove_risk: the previous player scores
    st = make_state(hands={2: ["REMOVE", "B01"]}, pile=TOWER5, rules=DOOM, me=2, prev=1)
    assert M.remove(st, 2)
    st = make_state(hands={2: ["REMOVE", "B01"]}, draw=("B06",), pile=TOWER5 + ("B09", "B10", "B11"),
                    rules=DOOM, me=2, prev=1)
    assert turn(st, 2)                                    # reference: REMOVE at h >= 8
    assert scores(st) == [0, 5 + 6, 0, 0] and st[L.S_EVC + L.EV_FALL_REMOVE] == 1
    assert st[L.S_EVC + L.EV_H1 + 8 - 1] == 1


def test_adjust_resets_the_share_and_can_topple():
    st = make_state(hands={1: ["ADJUST", "B01"]}, pile=("B09", "B16"), styles={1: 1}, rules=SAFE, prev=0)
    assert u_of(st) == pytest.approx(0.2 + 0.6)
    assert not M.adjust(st, 1, 1500)                      # 1.5 x its base share
    assert u_of(st) == pytest.approx(0.2 + 0.45)
    assert st.view(np.float64)[L.S_SHARE + 1] == pytest.approx(0.45)
    st = make_state(hands={1: ["ADJUST", "B01"]}, pile=("B09", "B16"), styles={1: 1}, rules=DOOM,
                    me=1, prev=0)
    assert turn(st, 1)                                    # reference ADJUSTs a sabotaged top
    assert st[L.S_EVC + L.EV_FALL_ADJUST] == 1 and won(st, 0) == ["B09", "B16"]
    assert scores(st) == [0, 0, 0, 0]                     # only 2 blocks: below min_tower


def test_adjust_and_remove_hazard_is_the_top_blocks_own():
    rules = {"base": 0.02, "a_h": 0.3, "a_u": 0.7, "skill": "0,0.4,0,0"}
    st = make_state(pile=("B01", "B09", "B16"), styles={2: 1}, rules=rules)
    u = 0.1 + 0.2 + 0.6
    want = 0.02 * math.exp(0.3 * (3 - 2) + 0.7 * (u - 0.6) + 0.6 - 0.4) * 0.5
    assert M.top_hazard(st, 1, 0.5) == pytest.approx(want, rel=1e-12)


def test_anywhere_halves_the_hazard():
    st = make_state(hands={0: ["ANYWHERE", "B01"]}, pile=TOWER5, rules={"base": 0.05})
    h0 = M.hazard(st, 0, C("B01"), 5, M.turn_hazard(st, 0))
    M.anywhere(st, 0)
    assert M.hazard(st, 0, C("B01"), 5, M.turn_hazard(st, 0)) == pytest.approx(0.5 * h0)
    assert not M.action_legal(st, 0, L.ANYWHERE, 0, 0, 0, 0)  # used, and in force


def test_a_strategys_hazard_memo_is_its_own_and_exact():
    """``my_hazard`` (the strategies') is ``hazard`` (the rules') to the last bit, kept in
    the seat's own memo only: a hit answers the same, another seat's memo is untouched,
    and the rules keep no cache a strategy could fill."""
    st = make_state(hands={0: ["B01"], 1: ["B16"]}, pile=TOWER5, rules={"base": 0.05, "skill": "0,0.3,0,0"})
    rest = np.concatenate([st[:L.S_HZ], st[L.S_HZ + L.HZW:]])  # everything but seat 0's memo
    for _ in range(2):  # a miss, then a hit
        assert S.my_hazard(st, 0, C("B01"), 5, 1.0) == M.hazard(st, 0, C("B01"), 5, 1.0)
    assert np.array_equal(np.concatenate([st[:L.S_HZ], st[L.S_HZ + L.HZW:]]), rest)
    assert st[L.S_HZ] == 5 | (1 << 8)
    f = st.view(np.float64)
    f[L.S_HZ + 2] = 1e6  # a memo that lies fools only its own seat's strategy, never the rules
    assert M.hazard(st, 0, C("B01"), 5, 1.0) < 1 and S.my_hazard(st, 0, C("B01"), 5, 1.0) > 1
    assert S.my_hazard(st, 1, C("B16"), 5, 0.5) == M.hazard(st, 1, C("B16"), 5, 0.5)


def test_swap_received_action_and_draw_three():
    # seat 0: h = 6, no 1-point block, SWAP: gives B20, B19 to the next player (seat 1)
    # and takes both of seat 1's cards; the received ANYWHERE applies at h >= 6
    st = make_state(hands={0: ["SWAP", "B19", "B20"], 1: ["ANYWHERE", "B09"]},
                    draw=("B01", "B02", "B03", "B04"), pile=TOWER5 + ("B06",), rules=SAFE, prev=3)
    assert not turn(st, 0)
    assert hand(st, 1) == ["B19", "B20"]
    assert pile(st)[-1] == "B09" and st[L.S_USED] == (1 << L.SWAP) | (1 << L.ANYWHERE)
    assert hand(st, 0) == ["B01", "B02", "B03"] and draw_pile(st) == ["B04"]   # drew 3
    # SWAP alone draws 2; the cards taken come from the target's hand before mine arrive;
    # an exchange: the target holds 1 card, so I give 1 (my highest-code block) and take 1
    st = make_state(hands={0: ["SWAP", "B19", "B20"], 1: ["B10"]}, draw=("B01", "B02", "B03"),
                    pile=TOWER5[:4], rules=SAFE, prev=3)
    assert not turn(st, 0)
    assert hand(st, 1) == ["B20"] and pile(st)[-1] == "B10"
    assert hand(st, 0) == ["B01", "B02", "B19"]
    # swap_give=two (the other reading): give 2 and take the 1 card it has
    st = make_state(hands={0: ["SWAP", "B19", "B20"], 1: ["B10"]}, draw=("B01", "B02", "B03"),
                    pile=TOWER5[:4], rules={**SAFE, "swap_give": "two"}, prev=3)
    assert not turn(st, 0)
    assert hand(st, 1) == ["B19", "B20"] and pile(st)[-1] == "B10"
    assert hand(st, 0) == ["B01", "B02"]


def test_swap_is_an_exchange_give_as_many_as_you_take():
    """Issue 14: SWAP with a short hand gave two cards and took fewer; it is an exchange."""
    hands = {0: ["SWAP", "B01", "ADJUST"], 1: ["B02"], 2: [], 3: ["B03", "B04"]}
    st = make_state(hands=hands, draw=("B20",))  # a card to draw: swap_last_block does not bind
    assert [M.swap_size(st, 0, t) for t in (1, 2, 3)] == [1, 0, 2]
    assert M.action_legal(st, 0, L.SWAP, 1, C("B01"), -1, 0)       # the target holds 1: give 1
    assert not M.action_legal(st, 0, L.SWAP, 1, C("B01"), C("ADJUST"), 0)
    for c in (-1, C("ADJUST")):                                      # an empty hand: no exchange
        assert not M.action_legal(st, 0, L.SWAP, 2, C("B01"), c, 0)
    assert M.action_legal(st, 0, L.SWAP, 3, C("B01"), C("ADJUST"), 0)
    M.swap(st, 0, 1, C("B01"), -1)
    assert hand(st, 0) == ["B02", "ADJUST"] and hand(st, 1) == ["B01"]
    # the random strategy only SWAPs with a seat it can exchange with
    for seed in range(60):
        st = make_state(hands={0: ["SWAP", "B01", "ADJUST"], 1: [], 2: ["B02"], 3: []}, seed=seed, draw=("B20",))
        act = S.random_action(st, 0, P0)
        assert M.action_legal(st, 0, *act, 0), act
    # swap_give=two (the other reading): give min(2, my cards) and take what the target has
    st = make_state(hands=hands, rules={"swap_give": "two"}, draw=("B20",))
    assert [M.swap_size(st, 0, t) for t in (1, 2, 3)] == [2, 2, 2]
    assert M.action_legal(st, 0, L.SWAP, 2, C("B01"), C("ADJUST"), 0)
    M.swap(st, 0, 2, C("B01"), C("ADJUST"))
    assert hand(st, 0) == [] and hand(st, 2) == ["B01", "ADJUST"]


def test_swap_takes_at_random_from_the_target():
    seen = set()
    for seed in range(40):
        st = make_state(hands={0: ["SWAP", "B19", "B20"], 2: ["B01", "B02", "B03", "B04"]}, seed=seed)
        M.swap(st, 0, 2, C("B20"), C("B19"))
        got = tuple(hand(st, 0))
        assert len(got) == 2 and set(got) <= {"B01", "B02", "B03", "B04"}
        assert sorted(hand(st, 2)) == sorted({"B01", "B02", "B03", "B04", "B19", "B20"} - set(got))
        seen.add(got)
    assert len(seen) == 6                                  # every pair turns up


def test_draw_one_card_normally_two_after_an_action():
    st = make_state(hands={0: ["B01", "B02"]}, draw=("B03", "B04", "B05"), rules=SAFE)
    assert not turn(st, 0)
    assert st[L.S_DRAW_N] == 2
    st = make_state(hands={0: ["B01", "B02", "ANYWHERE"]}, draw=("B03", "B04", "B05"),
                    pile=TOWER5 + ("B06",), rules=SAFE)
    assert not turn(st, 0)
    assert st[L.S_DRAW_N] == 1 and hand(st, 0) == ["B02", "B03", "B04"]


def test_legality_checks():
    st = make_state(hands={0: ["SWAP", "B01", "ADJUST"], 1: ["B02"], 2: ["B03", "B04"]}, pile=(),
                    draw=("B20",))  # a card to draw: swap_last_block does not bind
    assert not M.action_legal(st, 0, L.ADJUST, 0, 0, 0, 0)          # no tower
    assert not M.action_legal(st, 0, L.REMOVE, 0, 0, 0, 0)          # not held
    assert not M.action_legal(st, 0, L.SWAP, 0, C("B01"), -1, 0)    # target is me
    assert not M.action_legal(st, 2, L.SWAP, 1, C("B03"), -1, 0)    # SWAP not held
    assert not M.action_legal(st, 0, L.SWAP, 2, C("B01"), -1, 0)    # must give 2
    assert M.action_legal(st, 0, L.SWAP, 2, C("B01"), C("ADJUST"), 0)
    assert not M.action_legal(st, 0, L.SWAP, 2, C("B01"), C("B01"), 0)
    assert not M.action_legal(st, 0, L.SWAP, 2, C("B01"), C("ADJUST"), 1)  # not as a second
    assert M.block_legal(st, 0, C("B01"), 1000) and not M.block_legal(st, 0, C("B01"), 1001)
    assert not M.block_legal(st, 0, C("B02"), 0) and not M.block_legal(st, 0, C("ADJUST"), 0)
    st = make_state(hands={0: ["ADJUST", "B01"]}, pile=("B05",))
    assert M.action_legal(st, 0, L.ADJUST, 2000, 0, 0, 0)
    assert not M.action_legal(st, 0, L.ADJUST, 2001, 0, 0, 0)
    # the numbers an answer does not use must be 0 (so that legal() lists every answer)
    assert M.action_legal(st, 0, L.NO_ACTION, 0, 0, 0, 0)
    for extra in ((1, 0, 0), (0, 1, 0), (0, 0, -1)):
        assert not M.action_legal(st, 0, L.NO_ACTION, *extra, 0)
    assert not M.action_legal(st, 0, L.ADJUST, 500, 1, 0, 0)
    st = make_state(hands={0: ["ANYWHERE", "REMOVE", "B01"]}, pile=("B05",))
    for kind in (L.ANYWHERE, L.REMOVE):
        assert M.action_legal(st, 0, kind, 0, 0, 0, 0) and not M.action_legal(st, 0, kind, 0, 1, 0, 0)


# ---------------------------------------------------------------- rule knobs


NEW_KNOBS = {"reshuffle_draw": ("three", "four"), "reshuffle_at": ("any_time", "never"),
             "swap_give": ("match", "one"), "split_min_tower": (True, "maybe"),
             "swap_last_block": ("keep", "never")}


def test_new_knobs_are_typed_listed_and_refused_by_name():
    from cardlab.sim.errors import InputError

    r = GAME.resolve_rules({}, 4)
    for name, (default, bad) in NEW_KNOBS.items():
        assert r[name] == default
        with pytest.raises(InputError, match=f"bad value '{bad}' for knob '{name}': allowed"):
            GAME.resolve_rules({name: bad}, 4)
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-m", "cardlab.cli", "rules", "block_tower"],
                       capture_output=True, text=True, check=False)
    assert p.returncode == 0, p.stderr
    for name in NEW_KNOBS:
        assert f"  {name} " in p.stdout, name
    p = subprocess.run([sys.executable, "-m", "cardlab.cli", "simulate", "block_tower", "--games", "10",
                        "--set", "swap_give=one"], capture_output=True, text=True, check=False)
    assert p.returncode == 2 and "swap_give" in p.stderr and len(p.stderr.strip().splitlines()) == 1


# ---------------------------------------------------------------- the collapse model


def expected_p(rules, h, u, pts, skill=0.0, m=1.0, x=0.0):
    d = rules["difficulty"][pts - 1]
    H = rules["base"] * math.exp(rules["a_h"] * (h - 1) + rules["a_u"] * u + d - skill) * m
    H *= 1 + rules["risk_of_style"] * x
    return 1 - math.exp(-H)


def test_collapse_probability_matches_the_formula_chi_square():
    over = {"base": "0.03", "a_h": "0.2", "a_u": "0.6", "skill": "0,0.5"}
    rules = GAME.resolve_rules(over, 2)
    n = 20_000
    cases = []
    for h in range(1, 15):
        pts = 1 + h % 3
        seat = h % 2
        x = 1000 if h % 4 == 0 else 0
        anywhere = h % 5 == 0
        cases.append((h, pts, seat, x, anywhere))
    obs, us = [], []
    for h, pts, seat, x, anywhere in cases:
        # 1-point blocks B01..B08, then 2-point blocks B09..
        tower = tuple(f"B{k + 1:02d}" for k in range(h))
        st = make_state(players=2, pile=tower, rules=over, seed=100 + h)
        if anywhere:
            st[L.S_ANY] = 1
        c = {1: C("B08"), 2: C("B15"), 3: C("B20")}[pts]
        obs.append(MD.fall_count(st, seat, c, x, n))
        us.append(u_of(st))
    obs = np.array(obs, float)

    def chi2_sf(r):
        p = np.array([expected_p(r, h, u, pts, r["skill"][seat], 0.5 if anywhere else 1.0, x / 1000)
                      for (h, pts, seat, x, anywhere), u in zip(cases, us)])
        chi2 = (((obs - n * p) ** 2) / (n * p * (1 - p))).sum()
        return stats.chi2.sf(chi2, len(p))

    assert chi2_sf(rules) > 1e-3, obs / n
    # the test can fail: a 10% error in a_h, or a forgotten style factor, is detected
    assert chi2_sf({**rules, "a_h": 0.22}) < 1e-6
    assert chi2_sf({**rules, "risk_of_style": 0.0}) < 1e-6


def test_heights_of_careful_towers_median_ten_to_eleven():
    st = make_state()
    out = np.zeros((4000, 2 + L.MAXB), np.int64)
    MD.sample_towers(st, out, 0, 0)
    h = out[:, 0]
    assert 9 <= np.median(h) <= 11                      # the rules page: "about 10-11 blocks"
    assert (out[:, 1] == 1).mean() > 0.99


# ---------------------------------------------------------------- reference choices


def test_reference_block_choice_and_style():
    st = make_state(hands={0: ["B01", "B12", "B18"]}, pile=("B02", "B03"))
    assert S.reference_block(st, 0, P0) == (C("B18"), 0)          # h < 3: highest code
    st = make_state(hands={0: ["B01", "B12", "B18"]}, pile=("B02", "B03", "B04"))
    # h = 3: lowest code; H0 = 0.01 e^(0.36 + 0.5*0.3) = 0.0167 <= 0.03: sabotage
    assert S.reference_block(st, 0, P0) == (C("B01"), 1000)
    st = make_state(hands={0: ["B01", "B12", "B18"]}, pile=TOWER5 + ("B06", "B07"))
    # h = 7: H0 = 0.01 e^(1.08 + 0.35) = 0.0418 > 0.03: careful
    assert S.reference_block(st, 0, P0) == (C("B01"), 0)
    st[L.S_ANY] = 1                                                # m = 0.5: 0.0209
    assert S.reference_block(st, 0, P0) == (C("B01"), 1000)


def test_reference_action_order():
    ref = S.reference_action
    st = make_state(hands={0: ["ADJUST", "ANYWHERE", "REMOVE", "B01"]}, pile=TOWER5[:2], styles={1: 1})
    assert ref(st, 0, P0) == (L.ADJUST, 0, 0, 0)                   # sabotaged top
    st = make_state(hands={0: ["ADJUST", "ANYWHERE", "REMOVE", "B01"]}, pile=TOWER5[:2])
    assert ref(st, 0, P0)[0] == L.NO_ACTION                         # not sabotaged, h < 6
    st = make_state(hands={0: ["ADJUST", "ANYWHERE", "REMOVE", "B01"]}, pile=TOWER5 + ("B06",))
    assert ref(st, 0, P0)[0] == L.ANYWHERE
    st = make_state(hands={0: ["REMOVE", "B01"]}, pile=TOWER5 + ("B06", "B07"))
    assert ref(st, 0, P0)[0] == L.NO_ACTION                         # h = 7 < 8
    st = make_state(hands={0: ["REMOVE", "B01"]}, pile=TOWER5 + ("B06", "B07", "B08"))
    assert ref(st, 0, P0)[0] == L.REMOVE


def test_reference_swap_conditions_and_cards_given():
    ref = S.reference_action
    hands = {0: ["SWAP", "ADJUST", "B12", "B18"], 1: ["B06", "B07"]}
    st = make_state(hands=hands, pile=TOWER5[:4], draw=("B20",))
    assert ref(st, 0, P0) == (L.SWAP, 1, C("B18"), C("B12"))       # highest-code blocks first
    st = make_state(hands={0: ["SWAP", "ADJUST", "REMOVE", "B12"], 1: ["B06", "B07"]}, pile=TOWER5[:4], draw=("B20",))
    assert ref(st, 0, P0) == (L.SWAP, 1, C("B12"), C("ADJUST"))    # then lowest-code actions
    st = make_state(hands={0: ["SWAP", "B12", "B18"], 3: ["B06", "B07"]}, pile=TOWER5[:4], rnd=1, draw=("B20",))
    assert ref(st, 0, P0) == (L.SWAP, 3, C("B18"), C("B12"))       # next player, direction -1
    st = make_state(hands={0: ["SWAP", "ADJUST", "B12", "B18"], 1: ["B06"]}, pile=TOWER5[:4], draw=("B20",))
    assert ref(st, 0, P0) == (L.SWAP, 1, C("B18"), -1)             # an exchange: 1 for 1
    for h, hs in ((3, {0: ["SWAP", "B12"], 1: ["B01"]}),            # h < 4
                  (4, {0: ["SWAP", "B02", "B12"], 1: ["B01"]}),     # holds a 1-point block
                  (4, {0: ["SWAP", "B12"], 1: []}),                 # next player's hand empty
                  (4, {0: ["SWAP"], 1: ["B01"]})):                  # nothing else to give
        st = make_state(hands=hs, pile=TOWER5[:h], draw=("B20",))
        assert ref(st, 0, P0)[0] == L.NO_ACTION, (h, hs)


def test_strategies_make_their_named_choices():
    st = make_state(hands={0: ["B01", "B12", "B18"]}, pile=TOWER5 + ("B06",))
    careful = GAME.strategies["careful"].row()
    assert S.careful_block(st, 0, careful) == (C("B01"), 0)
    sab = GAME.strategies["saboteur"].row()
    # h = 6 >= late_height 5: the hardest block; the pile holds 6 < rich_pile 8 points: careful
    assert S.saboteur_block(st, 0, sab) == (C("B18"), 0)
    st = make_state(hands={0: ["B01", "B12", "B18"]}, pile=("B13", "B14", "B15", "B16"))
    assert S.saboteur_block(st, 0, sab) == (C("B01"), 1000)        # rich pile, early: easy block
    tac = GAME.strategies["tactician"].row()
    st = make_state(hands={0: ["REMOVE", "B12"]}, pile=TOWER5 + ("B06", "B07", "B08", "B09", "B10"),
                    rules={"base": 0.03})
    assert S.tactician_action(st, 0, tac)[0] == L.REMOVE
    st = make_state(hands={0: ["REMOVE", "B12"]}, pile=TOWER5[:3])
    assert S.tactician_action(st, 0, tac)[0] == L.NO_ACTION


def test_careful_never_removes_an_empty_tower():
    """Issue 14: careful:remove_at=0 played REMOVE on an empty tower (illegal)."""
    row = GAME.strategies["careful"].row({"remove_at": 0, "anywhere_at": 0})
    st = make_state(hands={0: ["REMOVE", "B01", "B02"]}, draw=("B03",), pile=())
    assert S.careful_action(st, 0, row)[0] == L.NO_ACTION
    assert not turn(st, 0, "careful", remove_at=0)                   # no illegal-action error
    assert pile(st) == ["B01"]
    st = make_state(hands={0: ["REMOVE", "B01"]}, pile=("B02",))
    assert S.careful_action(st, 0, row)[0] == L.REMOVE               # a block stands: it may


def test_tactician_swaps_with_the_leader_not_just_the_next_seat():
    """Issue 14: hands are always 3 cards, so 'the biggest hand' was always the next seat.
    The tactician SWAPs with the opponent with the most points (public)."""
    tac = GAME.strategies["tactician"].row()
    hands = {0: ["SWAP", "B12", "B18"], 1: ["B01", "B02", "B03"], 2: ["B04", "B05", "B06"],
             3: ["B07", "B09", "B10"]}

    def target(scores, rnd=0, hs=hands):
        st = make_state(hands=hs, pile=TOWER5[:2], rnd=rnd, draw=("B20",))
        st[L.S_SCORES:L.S_SCORES + 4] = scores
        return S.tactician_action(st, 0, tac)

    assert target([0, 4, 17, 9]) == (L.SWAP, 2, C("B18"), C("B12"))  # the leader, hardest first
    assert target([0, 4, 9, 17])[1] == 3
    assert target([0, 0, 0, 0])[1] == 1                             # level: the next seat ...
    assert target([0, 0, 0, 0], rnd=1)[1] == 3                      # ... in this round's direction
    assert target([0, 5, 0, 5], rnd=1)[1] == 3                      # ties: first in turn order
    # a leader with an empty hand cannot be swapped with (an exchange): the next best
    assert target([0, 4, 17, 9], hs={**hands, 2: []})[1] == 3
    # the leader holds 1 card: the exchange gives my hardest block only
    assert target([0, 4, 17, 9], hs={**hands, 2: ["B04"]}) == (L.SWAP, 2, C("B18"), -1)
    # and the kernel plays it: seat 0 swaps with seat 2
    st = make_state(hands=hands, draw=("B11", "B13", "B14"), pile=TOWER5[:2], rules=SAFE, prev=3)
    st[L.S_SCORES:L.S_SCORES + 4] = [0, 4, 17, 9]
    assert not turn(st, 0, "tactician")
    assert {"B12", "B18"} <= set(hand(st, 2)) and len(hand(st, 2)) == 3
    assert hand(st, 1) == hands[1] and hand(st, 3) == hands[3]
    assert pile(st)[-1] in hands[2]                                 # played a card taken from seat 2


# ---------------------------------------------------------------- the model: setup / legal / step


MODEL_SETUPS = [  # (players, knobs): every player count, and the knobs that change the turn
    (2, {}), (3, {}), (4, {}), (5, {}), (6, {}),
    (4, {"swap_give": "two", "reshuffle_at": "turn_start", "reshuffle_draw": "hand_size",
         "hand_size": 4}),
    (6, {"hand_size": 4}),                                   # the whole deck dealt
    (3, {"hand_size": 6, "split_min_tower": "false", "points_split": "4,6,10"}),
    (2, {"base": 0, "max_rounds": 3}),                       # nothing falls: splits, the cap
    (4, {"swap_last_block": "allow"}),                       # a SWAP may give the last block away
]
MODEL_GAMES = 250     # per setup: 2250 games
STEP_CAP = 100_000    # decisions a game may take before the test calls it stuck


def model_game(players, knobs, seed, g):
    """Game g of (seed, knobs) set up by the model: (state at its first decision, rules)."""
    rules = GAME.resolve_rules({k: str(v) for k, v in knobs.items()}, players)
    st = L.S.new_state(GAME.rules_vector(rules, players))
    seed_game(st, seed, g)
    K.setup(st)
    return st, rules


def deck_of(rules):
    nb = int(sum(rules["points_split"]))
    return ((1 << nb) - 1) | L.ACT_MASK, nb + 4


def census(st, players):
    """(the cards found in the zones as a bit mask, how many cards were found): a card in
    two zones shows as a count above the mask's size.  Every card zone of the schema: the
    bit-mask zones (hands, won, used) and the piles (draw, point pile)."""
    seen = 0
    n = 0
    masks = [int(st[L.S_USED])] + [int(st[L.S_HANDS + s]) for s in range(players)] + \
        [int(st[L.S_WON + s]) for s in range(players)]
    for m in masks:
        seen |= m
        n += m.bit_count()
    for o, k in ((L.S_DRAW, L.S_DRAW_N), (L.S_PILE, L.S_PILE_N)):
        for c in st[o:o + st[k]].tolist():
            seen |= 1 << c
            n += 1
    return seen, n


def pick(st, n, u):
    """The legal action at buffer index floor(u * n), as the 4-tuple step takes."""
    o = L.S_ACTS + 4 * int(u * n)
    return int(st[o]), int(st[o + 1]), int(st[o + 2]), int(st[o + 3])


def test_the_census_reads_every_card_zone_of_the_schema():
    """The census below counts exactly the schema's card zones (hands, won, used, draw,
    point pile): the shares are blocks' numbers (VALUES), not cards."""
    names = {p.name for p in L.S.zone_parts()}
    assert names == {"used", "hands", "won", "draw", "pile"}
    assert L.S.parts["share"].encoding == "values"
    assert {p.name for p in L.S.zone_parts() if p.visible == "nobody"} == {"draw"}
    assert L.S.hidden_from(1, 3) == [("hands", 0), ("hands", 2), ("draw", None)]
    st, rules = model_game(4, {}, 3, 0)
    cards = []
    for p in L.S.zone_parts():
        for seat in (range(4) if p.owner else [None]):
            cards += GAME.zone_cards(st, p.name, seat)
    deck, n = deck_of(rules)
    assert sorted(cards) == L.mask_cards(deck) and len(cards) == n
    assert census(st, 4) == (deck, n)


def test_what_a_seat_may_read_beyond_the_cards():
    """Issue 36: the game's own counters, books and memory by visibility.  Public: the hand
    sizes (a SWAP's size) and the turn's marks (every seat sees ANYWHERE played, the
    reshuffle, the action cards); the seat's own: the cards its SWAP took and its
    strategy's hazard memo; hidden: the card-power books.  No book is shared by the rules
    and the strategies (the old hazard cache) and none is left for a re-deal to re-make."""
    vis = {p.name: (p.section, p.visible) for p in L.S.parts.values()}
    assert vis["hand_n"] == ("zones", "public")
    assert {n: vis[n] for n in ("any", "resh", "acted", "recv", "everh", "everp")} == {
        "any": ("book", "public"), "resh": ("book", "public"), "acted": ("book", "public"),
        "recv": ("book", "owner"), "everh": ("book", "nobody"), "everp": ("book", "nobody")}
    assert vis["hz"] == ("scratch", "owner") and L.S.parts["hz"].offset + L.S.parts["hz"].words <= L.S_ACTS
    assert not any(n.startswith("hz_") for n in vis) and not any(p.derived for p in L.S.parts.values())


def test_random_legal_play_keeps_every_card_in_one_zone_and_always_ends():
    """2,250 games driven only through setup / legal / step, each decision a uniformly
    random legal action: after every step each card is in exactly one zone, the pending
    decision is the seat to move's, and every game ends (at the target or the round cap)."""
    rng = np.random.default_rng(20261201)
    phases = {d: 0 for d in (L.D_RESHUFFLE, L.D_ACTION, L.D_SECOND, L.D_BLOCK)}
    most = 0
    for k, (players, knobs) in enumerate(MODEL_SETUPS):
        for g in range(MODEL_GAMES):
            st, rules = model_game(players, knobs, 1000 + k, g)
            deck, ncards = deck_of(rules)
            u = rng.random(STEP_CAP)
            for i in range(STEP_CAP):
                assert census(st, players) == (deck, ncards), (players, knobs, g, i)
                ph = int(st[L.S_PHASE])
                if ph == DONE:
                    break
                assert ph in phases and st[L.S_ACTOR] == st[L.S_CUR]
                phases[ph] += 1
                n = K.legal(st)
                assert 1 <= n <= L.MAXACT
                most = max(most, n)
                K.step(st, pick(st, n, u[i]))
            else:
                raise AssertionError(f"game {g} of {players}p {knobs} did not end in {STEP_CAP} decisions")
            # the result: the cap (no winner) or the highest score at the target (ties share)
            sc = [int(x) for x in st[L.S_SCORES:L.S_SCORES + players]]
            assert st[L.S_SCORE:L.S_SCORE + players].tolist() == sc
            assert st[L.S_LENGTH] == st[L.S_ROUND] + 1
            if st[L.S_UNFINISHED]:
                assert st[L.S_MASK] == 0 and st[L.S_LENGTH] == rules["max_rounds"]
                assert max(sc) < rules["target_points"]
            else:
                assert max(sc) >= rules["target_points"]
                assert st[L.S_MASK] == sum(1 << s for s in range(players) if sc[s] == max(sc))
    assert min(phases.values()) > 100, phases          # every decision was met, many times
    assert most >= 3 * (L.STYLE_ONE + 1)                # a block decision with 3+ block cards


def positions(per_phase=4):
    """Positions from random legal play: ``per_phase`` states pending each decision, the
    action card's with three or four kinds of answers (no action, ADJUST's shares, SWAPs,
    ...), the second action card's with a card to play, the rest now and then."""
    rng = np.random.default_rng(7)
    found = {d: [] for d in (L.D_RESHUFFLE, L.D_ACTION, L.D_SECOND, L.D_BLOCK)}
    for g in range(2000):
        if all(len(v) == per_phase for v in found.values()):
            break
        players, knobs = MODEL_SETUPS[g % 6]
        st, _ = model_game(players, knobs, 50, g)
        while st[L.S_PHASE] != DONE:
            ph = int(st[L.S_PHASE])
            n = K.legal(st)
            if len(found[ph]) < per_phase:
                kinds = len(set(st[L.S_ACTS:L.S_ACTS + 4 * n:4].tolist()))
                if (ph == L.D_ACTION and kinds >= 3 + len(found[ph]) % 2) or \
                        (ph == L.D_SECOND and n >= 2) or \
                        (ph == L.D_RESHUFFLE) or (ph == L.D_BLOCK and rng.random() < 0.02):
                    found[ph].append((players, st.copy()))
            K.step(st, pick(st, n, rng.random()))
    return found


def candidates(st, players):
    """A grid of answers around the legal ones (every decision's fields at and past
    their bounds), for the check that step accepts nothing legal does not list."""
    ph = st[L.S_PHASE]
    if ph == L.D_RESHUFFLE:
        return [(u, a, 0, 0) for u in (-1, 0, 1, 2) for a in (0, 1)]
    if ph == L.D_BLOCK:
        return [(c, x, 0, 0) for c in range(-1, L.NCMAX + 1) for x in (-1, 0, 1, 999, 1000, 1001)] + \
            [(0, 0, 1, 0), (0, 0, 0, 1)]
    cards = list(range(-1, L.NCMAX + 1))
    out = [(L.NO_ACTION, 0, 0, 0), (L.NO_ACTION, 1, 0, 0), (0, 0, 0, 0), (L.SWAP + 1, 0, 0, 0)]
    for kind in (L.ADJUST, L.ANYWHERE, L.REMOVE):
        out += [(kind, a, b, 0) for a in (-1, 0, 1, 2000, 2001) for b in (0, 1)]
    out += [(L.SWAP, t, b, c) for t in range(-1, players + 1) for b in cards for c in cards]
    return out


def test_legal_lists_exactly_what_step_accepts():
    """On positions of every decision: each listed action passes the kernel's check (all
    of them through the check functions, a sample through step itself on a copy), and
    of a grid of answers around them step accepts exactly the listed ones."""
    rng = np.random.default_rng(11)
    found = positions()
    assert all(len(v) == 4 for v in found.values()), {k: len(v) for k, v in found.items()}
    for ph, states in found.items():
        for players, st in states:
            me = int(st[L.S_ACTOR])
            n = K.legal(st)
            listed = {tuple(int(x) for x in st[L.S_ACTS + 4 * i:L.S_ACTS + 4 * i + 4]) for i in range(n)}
            assert len(listed) == n                      # no action twice
            second = 1 if ph == L.D_SECOND else 0
            for act in listed:
                if ph == L.D_BLOCK:
                    assert act[2:] == (0, 0) and M.block_legal(st, me, act[0], act[1]), act
                elif ph == L.D_RESHUFFLE:
                    assert act in ((0, 0, 0, 0), (1, 0, 0, 0))
                else:
                    assert M.action_legal(st, me, *act, second), act
            for act in [list(listed)[j] for j in rng.choice(n, size=min(n, 12), replace=False)]:
                K.step(st.copy(), act)                   # never raises
            for act in candidates(st, players):
                if act in listed:
                    continue
                if ph == L.D_BLOCK:
                    ok = act[2:] == (0, 0) and M.block_legal(st, me, act[0], act[1])
                elif ph == L.D_RESHUFFLE:
                    ok = False
                else:
                    ok = M.action_legal(st, me, *act, second)
                assert not ok, (ph, act)
            unlisted = [a for a in candidates(st, players) if a not in listed]
            for act in (unlisted if ph == L.D_RESHUFFLE else unlisted[::97]):
                with pytest.raises(ValueError):
                    K.step(st.copy(), act)


def test_an_illegal_answer_names_the_decision():
    st = make_state(hands={0: ["B01", "ADJUST"]}, pile=("B05",), phase=L.D_BLOCK)
    with pytest.raises(ValueError) as e:
        K.step(st, (C("B02"), 0, 0, 0))                     # not in hand
    assert e.value.args[1:] == ("block and style", "card,style", 0, C("B02"), 0)
    st = make_state(hands={0: ["B01", "ADJUST"]}, pile=("B05",), phase=L.D_ACTION)
    with pytest.raises(ValueError) as e:
        K.step(st, (L.ADJUST, 2001, 0, 0))
    assert e.value.args[1:] == ("action card", "kind,a,b,c", 0, L.ADJUST, 2001, 0, 0)
    st = make_state(hands={0: ["B01", "ADJUST", "REMOVE"]}, draw=("B02",), phase=L.D_RESHUFFLE)
    with pytest.raises(ValueError) as e:
        K.step(st, (2, 0, 0, 0))
    assert e.value.args[1:] == ("reshuffle", "use", 0, 2)


def unshaped(st):
    """The state without the engine's shape words: the fast path notes the final standing
    there after the game ends (sim/shape.end), which ``play_on`` does not."""
    from cardlab.sim.schema import SHAPE_HEAD, SHAPE_LOG_WORDS

    out = st.copy()
    out[L.S_SHAPE:L.S_SHAPE + SHAPE_HEAD + L.S.maxp + SHAPE_LOG_WORDS] = 0
    return out


def test_a_mid_turn_copy_plays_on_like_the_original():
    """Positions at decisions that are not the first of their seat's turn (the block after
    the action card, a second action card, a reshuffle after a draw or the action card),
    copied: both copies played on with the same strategies (the random one drawing from
    the state's generator) end identical, and identical to the game played uninterrupted."""
    from cardlab.sim import runner
    from cardlab.sim.runner import make_setup

    setup = make_setup("block_tower", 4, [], "reference,random,tactician,saboteur", 77)
    rv, sids, params = setup.arrays()
    kernel = GAME.kernel()
    lay = runner._layout(GAME)
    tested = {L.D_ACTION: 0, L.D_SECOND: 0, L.D_RESHUFFLE: 0, L.D_BLOCK: 0}
    for g in range(200):
        if g >= 8 and tested[L.D_SECOND] and tested[L.D_RESHUFFLE]:
            break
        rows = np.zeros((1, GAME.row_width), np.int64)
        whole = kernel(rv, sids, params, setup.seed, g, g + 1, GAME.tally.new(200), lay, rows, 0)
        assert whole[L.S_PHASE] == DONE
        st = L.S.new_state(rv)
        seed_game(st, setup.seed, g)
        K.setup(st)
        last_turn = -1
        mid = 0
        stop_at = (5, 23, 61)[g % 3]
        while st[L.S_PHASE] != DONE:
            me = int(st[L.S_ACTOR])
            ph = int(st[L.S_PHASE])
            if st[L.S_TURN] == last_turn:                     # the turn already had a decision
                mid += 1
                if (g < 8 and mid == stop_at) or (ph in (L.D_SECOND, L.D_RESHUFFLE) and tested[ph] < 2):
                    tested[ph] += 1
                    a, b = st.copy(), st.copy()
                    B.play_on(a, sids, params)
                    B.play_on(b, sids, params)
                    assert a[L.S_PHASE] == DONE and np.array_equal(a, b), g
                    assert np.array_equal(unshaped(a), unshaped(whole)), g  # as if never interrupted
                    assert list(rows[0, :3]) == [a[L.S_LENGTH], a[L.S_UNFINISHED], a[L.S_MASK]]
            last_turn = int(st[L.S_TURN])
            K.step(st, GAME.binding().choose(int(sids[me]), st, me, tuple(params[me])))
        assert np.array_equal(unshaped(st), unshaped(whole)), g  # the Python-driven game too
    assert tested[L.D_BLOCK] >= 4 and tested[L.D_SECOND] and tested[L.D_RESHUFFLE], tested


# ---------------------------------------------------------------- SWAP and the last block card
# Issue 34: "Después de jugar una carta de acción, aún debes jugar una carta de bloqueo de tu
# mano" -- after an action card you must still play a block card.  With the draw pile empty a
# SWAP that gives away the last block card leaves nothing to play (seed 7, game 286, turn 17:
# the round ended by the even split in mid-turn).  swap_last_block=keep (the default) forbids
# it; allow is the old reading.

TOWER14 = tuple(f"B{i:02d}" for i in range(1, 15))


def swap_answers(st, me):
    """The SWAP answers legal() lists for seat me's pending action decision."""
    n = M.legal(st)
    acts = [tuple(int(x) for x in st[L.S_ACTS + 4 * i:L.S_ACTS + 4 * i + 4]) for i in range(n)]
    return n, [a for a in acts if a[0] == L.SWAP]


def test_swap_may_not_give_away_the_last_block_card_when_none_can_be_drawn():
    hands = {0: ["B15", "SWAP"], 1: ["ADJUST"], 2: ["B16", "B17"], 3: ["B18"]}
    st = make_state(hands=hands, pile=TOWER14, rules=SAFE, prev=3, phase=L.D_ACTION)
    assert GAME.resolve_rules({}, 4)["swap_last_block"] == "keep"
    assert M.swap_size(st, 0, 1) == 1
    # the acceptance check, the listing and the count agree: no SWAP at all
    assert not any(M.action_legal(st, 0, L.SWAP, t, C("B15"), -1, 0) for t in (1, 2, 3))
    n, swaps = swap_answers(st, 0)
    assert swaps == [] and n == M.legal_count(st) == 1            # only "no action card"
    with pytest.raises(ValueError):
        K.step(st.copy(), (L.SWAP, 1, C("B15"), -1))
    # the reference does not SWAP: it plays its block and the round goes on
    assert S.reference_action(st, 0, P0) == S.NONE
    assert not turn(st, 0)
    assert pile(st)[-1] == "B15" and hand(st, 1) == ["ADJUST"] and st[L.S_EVC + L.EV_SPLIT] == 0

    # with a card left to draw the same SWAP is legal (the hand draws up to a block card)
    st = make_state(hands=hands, draw=("B19",), pile=TOWER14, rules=SAFE, prev=3, phase=L.D_ACTION)
    assert M.action_legal(st, 0, L.SWAP, 1, C("B15"), -1, 0)
    assert (L.SWAP, 1, C("B15"), -1) in swap_answers(st, 0)[1]

    # swap_last_block=allow (the old reading): the SWAP gives B15 for ADJUST, no block card is
    # left and nothing can be drawn: the round ends by the even split in the middle of the turn
    allow = {**SAFE, "swap_last_block": "allow"}
    st = make_state(hands=hands, pile=TOWER14, rules=allow, prev=3, phase=L.D_ACTION)
    assert M.action_legal(st, 0, L.SWAP, 1, C("B15"), -1, 0)
    n, swaps = swap_answers(st, 0)
    assert (L.SWAP, 1, C("B15"), -1) in swaps and n == M.legal_count(st)
    assert S.reference_action(st, 0, P0) == (L.SWAP, 1, C("B15"), -1)
    assert turn(st, 0)                                               # the round ended
    assert st[L.S_EVC + L.EV_SPLIT] == 1 and hand(st, 1) == ["B15"] and "ADJUST" in hand(st, 0)


def test_swap_keeps_a_block_card_and_may_give_the_others():
    # two blocks and an action card besides SWAP, an exchange of 2: every pair but the two
    # blocks keeps a block card
    hands = {0: ["SWAP", "ADJUST", "B12", "B13"], 1: ["B01", "B02"], 2: ["B03"], 3: []}
    st = make_state(hands=hands, pile=TOWER5[:4], phase=L.D_ACTION)
    assert not M.action_legal(st, 0, L.SWAP, 1, C("B12"), C("B13"), 0)
    assert not M.action_legal(st, 0, L.SWAP, 1, C("B13"), C("B12"), 0)
    assert M.action_legal(st, 0, L.SWAP, 1, C("B13"), C("ADJUST"), 0)
    assert M.action_legal(st, 0, L.SWAP, 2, C("B13"), -1, 0)        # 1 for 1: one block left
    n, swaps = swap_answers(st, 0)
    assert n == M.legal_count(st)
    to1 = {a[2:] for a in swaps if a[1] == 1}
    assert to1 == {(b, c) for b in map(C, ("ADJUST", "B12", "B13")) for c in map(C, ("ADJUST", "B12", "B13"))
                   if b != c} - {(C("B12"), C("B13")), (C("B13"), C("B12"))}
    assert len([a for a in swaps if a[1] == 2]) == 3 and not [a for a in swaps if a[1] == 3]
    # the reference gives its highest-code block, then an action card instead of its last block
    assert S.reference_action(st, 0, P0) == (L.SWAP, 1, C("B13"), C("ADJUST"))
    # the tactician (SWAP its only action card) keeps its last block: no SWAP with two blocks ...
    tac = GAME.strategies["tactician"].row()
    two = {0: ["SWAP", "B12", "B18"], 1: ["B01", "B02"], 2: ["B03", "B04"], 3: ["B05", "B06"]}
    st = make_state(hands=two, pile=TOWER5[:2], phase=L.D_ACTION)
    st[L.S_SCORES:L.S_SCORES + 4] = [0, 4, 17, 9]
    assert S.tactician_action(st, 0, tac) == S.NONE
    # ... and its hardest two of three
    st = make_state(hands={**two, 0: ["SWAP", "B12", "B18", "B01"]}, pile=TOWER5[:2], phase=L.D_ACTION)
    st[L.S_SCORES:L.S_SCORES + 4] = [0, 4, 17, 9]
    assert S.tactician_action(st, 0, tac) == (L.SWAP, 2, C("B18"), C("B12"))
    # the random strategy only plays listed SWAPs (uniform over the legal gives)
    seen = set()
    for seed in range(200):
        st = make_state(hands=hands, pile=TOWER5[:4], seed=seed, phase=L.D_ACTION)
        act = S.random_action(st, 0, P0)
        assert M.action_legal(st, 0, *act, 0), act
        if act[0] == L.SWAP:
            seen.add(act[1:])
    assert seen == {a[1:] for a in swaps}


def test_swap_last_block_allow_plays_the_old_games():
    """swap_last_block=allow restores the old rule: the same tally as before the knob
    (the old goldens' 4-player reference self-play, seed 1, played under it now)."""
    import json
    import subprocess
    from pathlib import Path

    from cardlab.analysis.summary import summarize
    from cardlab.sim import runner

    root = Path(__file__).resolve().parent.parent
    old = subprocess.run(["git", "show", "00e2753:tests/golden/block_tower/4p_reference.json"], cwd=root,
                         capture_output=True, text=True)
    if old.returncode != 0:
        pytest.skip("the commit before the knob is not in this checkout")
    want = json.loads(old.stdout)
    got = json.loads(json.dumps(summarize(runner.run(
        runner.make_setup("block_tower", 4, ["swap_last_block=allow"], "reference", 1), 20_000, 2))))
    assert got["win_rate_by_seat"] == want["win_rate_by_seat"]
    assert got["events_per_game"] == want["events_per_game"] and got["length"] == want["length"]


# ---------------------------------------------------------------- the compensation knob


def _deal(r, rules=None):
    """Round r dealt on one seed: each seat's hand (card ids), in deal order, and the draw
    pile left."""
    st = make_state(players=4, rules=rules, capacity=20)
    M.new_round(st, r)
    n, ev, _ = GAME.trace_arrays(st)
    deals = [(int(e[3]), [c for c in range(L.NCMAX) if (int(e[4]) >> c) & 1]) for e in ev[:n]
             if e[0] == L.EV_DEAL]
    return deals, [int(x) for x in st[L.S_DRAW:L.S_DRAW + st[L.S_DRAW_N]]]


def test_first_start_fewer_deals_round_zeros_start_seat_fewer_cards():
    printed, left = _deal(0)
    assert [(s, len(h)) for s, h in printed] == [(0, 3), (1, 3), (2, 3), (3, 3)]
    deals, rest = _deal(0, {"first_start_fewer": 2})
    assert [(s, len(h)) for s, h in deals] == [(0, 1), (1, 3), (2, 3), (3, 3)]
    # the same cards off the same top: seat 0 takes 1, each next seat the next 3
    order = lambda d: [c for _, h in d for c in h]  # noqa: E731
    assert len(rest) == len(left) + 2 and set(order(deals)) | set(rest) == set(order(printed)) | set(left)
    # later rounds are dealt as printed, whoever starts them
    assert _deal(1, {"first_start_fewer": 2}) == _deal(1)
    assert _deal(4, {"first_start_fewer": 2})[0] == _deal(4)[0]


def test_first_start_fewer_must_leave_the_start_seat_a_card():
    from cardlab.sim.errors import InputError
    for rules in ({"first_start_fewer": "3"}, {"hand_size": "2", "first_start_fewer": "2"}, {"first_start_fewer": "10"}):
        with pytest.raises(InputError, match="first_start_fewer") as e:
            GAME.resolve_rules(rules, 4)
        assert "\n" not in str(e.value)
    GAME.resolve_rules({"hand_size": "5", "first_start_fewer": "4"}, 4)
    assert [k.name for k in GAME.knobs if k.compensation] == ["first_start_fewer"]


def test_first_start_fewer_moves_seat_zeros_hand_and_result_on_the_same_seed():
    """3,000 games of reference self-play: with two cards fewer seat 0 plays round 0 from
    a 1-card hand, so the games differ (a knob that changed nothing would give the very
    same games, the same wins and points, and fail)."""
    from cardlab.sim import runner

    def run(*sets):
        r = runner.run(runner.make_setup("block_tower", 4, list(sets), "reference", seed=9), 3000, jobs=1)
        return r.tally.wins[:4].copy(), r.tally.games

    printed, games = run()
    fewer, _ = run("first_start_fewer=2")
    assert games == 3000 and not np.array_equal(printed, fewer)
    assert fewer[0] < printed[0] + 0.01 * games  # never more than a point better for seat 0
