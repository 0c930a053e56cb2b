"""Crazy Eights: every rule of docs/rules/crazy_eights.md on hand-set states, the reference
strategy's choices, the other strategies' defining choices, random legal play through the
model with a card census after every step, and positions copied mid-turn.

Cards are written as rule-page codes (``8H``, ``TS``); a stock is given top first, a
discard pile bottom first (its last card is the top)."""
from __future__ import annotations

import numpy as np
import pytest

from cardlab.sim import runner
from cardlab.sim.crazy_eights import GAME
from cardlab.sim.crazy_eights import kernel as K
from cardlab.sim.crazy_eights import layout as L
from cardlab.sim.crazy_eights import moves as M
from cardlab.sim.errors import ILLEGAL, InputError
from cardlab.sim.rng import seed_game
from cardlab.sim.schema import DONE
from cardlab.sim.testing import conformance_tests
from cardlab.strategies.crazy_eights import ID

B = GAME.binding()  # the engine bound to the rules (sim/bind.py)
choose = B.choose  # the strategies' dispatch, written from their registry
C = L.card_of
NOPAR = (0.0,) * 8


# ---------------------------------------------------------------- hand-set states


def make_state(players=3, hands=None, stock=(), discard=("KH",), suit=None, cur=0, turn=0,
               rules=None, seed=1, capacity=0):
    """A position where seat ``cur``'s turn is about to begin (``K.turns(st, cur)``) or, after
    ``ready``, its play decision is pending."""
    st = L.S.new_state(GAME.rules_vector(GAME.resolve_rules(rules or {}, players), players), capacity)
    seed_game(st, seed, 0)
    for s, cards in (hands or {}).items():
        st[L.S_HANDS + s] = sum(1 << C(c) for c in cards)
        st[L.S_HAND_N + s] = len(cards)
    L.S.write(st, "stock", [C(c) for c in stock][::-1])
    L.S.write(st, "discard", [C(c) for c in discard])
    top = C(discard[-1])
    st[L.S_SUIT] = L.SUITS.index(suit) if suit else top // 13
    st[L.S_TURN] = turn
    st[L.S_ACTOR] = cur
    return st


def ready(st, seat, phase=L.D_PLAY):
    st[L.S_PHASE] = phase
    st[L.S_ACTOR] = seat
    return st


def hand(st, s):
    return {L.card_code(c) for c in L.S.cards(st, "hands", s)}


def stock(st):
    return [L.card_code(c) for c in L.S.cards(st, "stock")[::-1]]


def discard(st):
    return [L.card_code(c) for c in L.S.cards(st, "discard")]


def listed(st):
    n = int(K.legal(st))
    return [tuple(int(x) for x in a) for a in st[L.S_ACTS:L.S_ACTS + 4 * n].reshape(n, 4)]


def legal_cards(st):
    return {L.card_code(a[1]) for a in listed(st) if a[0] == L.A_PLAY}


def events(st):
    n, ev, _ = GAME.trace_arrays(st)
    return [(L.EVENT_NAMES[int(e[0])], int(e[1]), int(e[3]), int(e[4])) for e in ev[:n]]


def play(st, code):
    K.step(st, (L.A_PLAY, C(code), 0, 0))


# ---------------------------------------------------------------- what may be played


def test_a_card_matches_the_top_card_in_rank_or_suit_and_eights_anything():
    st = ready(make_state(hands={0: ["5C", "9H", "KS", "8D", "2D"], 1: ["2H"], 2: ["4S"]},
                          discard=["3C", "5H"]), 0)
    assert legal_cards(st) == {"5C", "9H", "8D"}
    assert (L.A_DRAW, 0, 0, 0) not in listed(st)  # may_draw_when_able=false
    with pytest.raises(ValueError) as e:
        play(st, "KS")
    assert e.value.args[:3] == (ILLEGAL, "play", "kind,card,b,c")
    with pytest.raises(ValueError):
        K.step(st, (L.A_PLAY, C("5C"), 1, 0))  # junk in an unused field
    play(st, "9H")
    assert discard(st) == ["3C", "5H", "9H"] and hand(st, 0) == {"5C", "KS", "8D", "2D"}
    assert st[L.S_SUIT] == L.SUITS.index("H") and st[L.S_ACTOR] == 1


def test_an_eight_is_wild_and_its_player_calls_the_suit_the_next_seat_must_follow():
    st = ready(make_state(hands={0: ["8D", "4C"], 1: ["2H", "KS", "9D", "8C"]}, discard=["KC"],
                          capacity=64), 0)
    play(st, "8D")
    assert st[L.S_PHASE] == L.D_CALL and st[L.S_ACTOR] == 0 and discard(st)[-1] == "8D"
    assert listed(st) == [(s, 0, 0, 0) for s in range(4)]
    with pytest.raises(ValueError) as e:
        K.step(st, (4, 0, 0, 0))
    assert e.value.args[1] == "call"
    K.step(st, (L.SUITS.index("H"), 0, 0, 0))
    assert events(st)[-1] == ("play", 0, C("8D"), L.SUITS.index("H"))
    # seat 1 follows hearts (or plays an 8): not the 8's own suit, not the old top's rank
    assert st[L.S_ACTOR] == 1 and legal_cards(st) == {"2H", "8C"}


def test_the_last_card_wins_at_once_an_eight_calls_nothing():
    st = ready(make_state(hands={0: ["8S"], 1: ["2C"], 2: ["3D"]}, capacity=16), 0)
    play(st, "8S")
    assert st[L.S_PHASE] == DONE and st[L.S_MASK] == 1 and st[L.S_END] == L.END_OUT
    assert events(st)[-1] == ("play", 0, C("8S"), -1)


def test_a_kept_eight_starter_takes_any_card_until_the_first_play():
    st = ready(make_state(hands={0: ["2C", "KD", "5H"]}, discard=["8S"], suit=None), 0)
    st[L.S_SUIT] = L.ANY
    assert legal_cards(st) == {"2C", "KD", "5H"}


# ---------------------------------------------------------------- drawing and passing


def test_a_seat_that_cannot_play_draws_until_it_can_then_decides():
    st = make_state(hands={0: ["2C"]}, stock=["3S", "4D", "5H", "6H"], discard=["KH"])
    K.turns(st, 0)
    assert stock(st) == ["6H"] and hand(st, 0) == {"2C", "3S", "4D", "5H"}
    assert st[L.S_PHASE] == L.D_PLAY and st[L.S_DRAWN] == 3 and legal_cards(st) == {"5H"}


def test_draw_limit_stops_the_drawing_and_the_seat_passes():
    st = make_state(hands={0: ["2C"], 1: ["KC"]}, stock=["3S", "4D", "5H"], discard=["KH"],
                    rules={"draw_limit": 2}, capacity=16)
    K.turns(st, 0)
    assert hand(st, 0) == {"2C", "3S", "4D"} and stock(st) == ["5H"]
    assert [e[0] for e in events(st)] == ["draw", "draw", "pass"]
    assert st[L.S_ACTOR] == 1 and st[L.S_PHASE] == L.D_PLAY and st[L.S_PASSES] == 1
    play(st, "KC")  # a play ends the run of passes
    assert st[L.S_PASSES] == 0


def test_may_draw_when_able_offers_a_draw_at_each_play_decision_within_draw_limit():
    st = ready(make_state(hands={0: ["5H", "2C"]}, stock=["3S", "4D", "9S"], discard=["KH"],
                          rules={"may_draw_when_able": True, "draw_limit": 2}), 0)
    assert listed(st)[-1] == (L.A_DRAW, 0, 0, 0)
    K.step(st, (L.A_DRAW, 0, 0, 0))
    assert hand(st, 0) == {"5H", "2C", "3S"} and st[L.S_PHASE] == L.D_PLAY and st[L.S_ACTOR] == 0
    K.step(st, (L.A_DRAW, 0, 0, 0))
    assert (L.A_DRAW, 0, 0, 0) not in listed(st)  # two drawn: the limit
    with pytest.raises(ValueError):
        K.step(st, (L.A_DRAW, 0, 0, 0))
    assert choose(ID.reference, st, 0, NOPAR) == (L.A_PLAY, C("5H"), 0, 0)


def test_an_empty_stock_is_renewed_from_the_discards_under_the_top_card():
    st = make_state(hands={0: ["5S"], 1: ["KC"]}, stock=[], discard=["2C", "3C", "4C", "KH"],
                    capacity=16)
    K.turns(st, 0)
    # the three clubs became the stock, were drawn one by one, none playable; nothing left: pass
    assert discard(st) == ["KH"] and stock(st) == [] and hand(st, 0) == {"5S", "2C", "3C", "4C"}
    assert [e[0] for e in events(st)] == ["reshuffle", "draw", "draw", "draw", "pass"]
    assert events(st)[0][2] == 3


def test_without_reshuffle_an_empty_stock_means_a_pass():
    st = make_state(hands={0: ["5S"], 1: ["KC"]}, stock=[], discard=["2C", "3C", "KH"],
                    rules={"reshuffle": False}, capacity=16)
    K.turns(st, 0)
    assert hand(st, 0) == {"5S"} and events(st) == [("pass", 0, 0, 0)] and st[L.S_ACTOR] == 1


def test_the_reshuffle_shuffles_the_new_stock():
    orders = set()
    for seed in range(30):
        st = make_state(hands={0: ["5S"], 1: ["KC"]}, discard=["2C", "3C", "4C", "5C", "KH"], seed=seed)
        st[L.S_HANDS + 0] |= 1 << C("QH")  # playable: the turn stops after the first draw
        st[L.S_HAND_N + 0] += 1
        st[L.S_ACTOR] = 0
        M.draw(st, 0)
        orders.add(tuple(stock(st)))
    assert len(orders) > 10


# ---------------------------------------------------------------- the end


def _blocked(rules=None, hands=None):
    st = make_state(hands=hands or {0: ["2C"], 1: ["3C", "AS"], 2: ["TC"]}, stock=[],
                    discard=["KH"], rules=rules)
    K.turns(st, 0)
    return st


def test_blocked_the_fewest_penalty_points_win():
    st = _blocked()
    assert st[L.S_PHASE] == DONE and st[L.S_END] == L.END_BLOCKED and st[L.S_MASK] == 0b001
    assert st[L.S_LENGTH] == 3 and st[L.S_UNFINISHED] == 0
    assert list(st[L.S_SCORE:L.S_SCORE + 3]) == [0, 0, 0]  # score=win
    st = _blocked({"score": "points"})
    assert list(st[L.S_SCORE:L.S_SCORE + 3]) == [14, -4, -10]
    st = _blocked(hands={0: ["2C"], 1: ["2D"], 2: ["8C", "TC"]})  # 8C playable: not blocked yet
    assert st[L.S_PHASE] == L.D_PLAY and st[L.S_ACTOR] == 2


def test_blocked_ties_share_the_win():
    st = _blocked({"score": "points"}, hands={0: ["2C"], 1: ["2D"], 2: ["TC", "AC"]})
    assert st[L.S_MASK] == 0b011 and list(st[L.S_SCORE:L.S_SCORE + 3]) == [11, 11, -11]


def test_passes_block_only_in_a_row_and_with_nothing_to_draw():
    # two passes before, then seat 0 draws (the run is broken) and passes at draw_limit
    st = make_state(hands={0: ["2C"], 1: ["KC", "3C"], 2: ["4C"]}, stock=["5D", "6D"],
                    discard=["KH"], rules={"draw_limit": 1})
    st[L.S_PASSES] = 2
    K.turns(st, 0)
    assert st[L.S_PASSES] == 1 and st[L.S_PHASE] == L.D_PLAY and st[L.S_ACTOR] == 1
    # three passes in a row but a card to draw: seat 0 draws instead of the table blocking
    st = make_state(hands={0: ["2C"], 1: ["3C"], 2: ["4C"]}, stock=["5H"], discard=["KH"])
    st[L.S_PASSES] = 3
    K.turns(st, 0)
    assert st[L.S_PHASE] == L.D_PLAY and hand(st, 0) == {"2C", "5H"}


def test_score_points_the_winner_collects_every_losers_penalty():
    st = ready(make_state(hands={0: ["4H"], 1: ["8C", "KD", "AS"], 2: ["7S", "2D"]},
                          rules={"score": "points"}), 0)
    play(st, "4H")
    assert st[L.S_MASK] == 1 and list(st[L.S_SCORE:L.S_SCORE + 3]) == [70, -61, -9]
    assert M.penalty(sum(1 << C(c) for c in ["8C", "KD", "QD", "JD", "TD", "AS", "9S", "2S"])) == 102


def test_the_turn_cap_ends_the_game_unfinished_with_no_winner():
    st = make_state(hands={0: ["2C"], 1: ["3C"]}, stock=["5D"], turn=7, rules={"max_turns": 7,
                                                                              "score": "points"})
    K.turns(st, 0)
    assert st[L.S_PHASE] == DONE and st[L.S_UNFINISHED] == 1 and st[L.S_END] == L.END_CAP
    assert st[L.S_MASK] == 0 and st[L.S_LENGTH] == 7 and list(st[L.S_SCORE:L.S_SCORE + 2]) == [0, 0]
    r = runner.run(runner.make_setup("crazy_eights", 4, ["max_turns=3"], "reference", seed=2), 200, jobs=1)
    assert r.tally.unfinished == 200 and r.tally.no_winner == 200


# ---------------------------------------------------------------- setup


def test_the_deal_goes_one_card_at_a_time_from_seat_zero_off_the_top():
    rules = GAME.resolve_rules({}, 3)
    st = make_state(3, rules=rules, capacity=64)
    B.setup(st)
    ev = events(st)
    deals = [e for e in ev if e[0] == "deal"]
    assert [e[2] for e in deals] == [0, 1, 2] * 5  # seats in turn, five rounds (auto with 3)
    assert all(st[L.S_HAND_N + s] == 5 for s in range(3))
    starters = ev[15:]
    assert [e[0] for e in starters] == ["starter"] * len(starters)
    assert all(e[3] == 1 for e in starters[:-1]) and starters[-1][3] == 0
    assert discard(st) == [L.card_code(starters[-1][2])]
    st2 = make_state(2, capacity=64)
    B.setup(st2)
    assert st2[L.S_HAND_N] == 7 and st2[L.S_HAND_N + 1] == 7


def _starter(rules, stack):
    st = make_state(2, stock=stack, discard=["KH"], rules=rules, capacity=8)
    L.S.write(st, "discard", [])
    K.turn_starter(st)
    return st


def test_an_eight_starter_is_buried_back_in_the_stock_and_the_next_card_turned():
    below_top = set()
    for seed in range(40):
        st = make_state(2, stock=["8H", "5C", "6C", "7C", "9C", "TC"], rules={}, seed=seed, capacity=8)
        L.S.write(st, "discard", [])
        K.turn_starter(st)
        assert discard(st) == ["5C"] and st[L.S_SUIT] == 0
        assert sorted(stock(st)) == sorted(["8H", "6C", "7C", "9C", "TC"])
        below_top.add(stock(st).index("8H"))  # 0: it was right under the card turned
        assert [e[:4] for e in events(st)] == [("starter", -1, C("8H"), 1), ("starter", -1, C("5C"), 0)]
    assert below_top == {0, 1, 2, 3, 4}  # anywhere under the card that was on top


def test_a_kept_eight_starter_stays():
    st = _starter({"starter_eight": "keep"}, ["8H", "5C", "6C"])
    assert discard(st) == ["8H"] and st[L.S_SUIT] == L.ANY and stock(st) == ["5C", "6C"]


def test_knob_values_are_checked():
    with pytest.raises(InputError, match="hand_size"):
        GAME.resolve_rules({"hand_size": "7"}, 7)  # 49 cards: no starter could be reburied
    assert GAME.rules_vector(GAME.resolve_rules({"hand_size": "7", "starter_eight": "keep"}, 7), 7)[1] == 7
    for knob, bad in (("hand_size", "0"), ("draw_limit", "-1"), ("score", "money"), ("max_turns", "0")):
        with pytest.raises(InputError, match=knob):
            GAME.resolve_rules({knob: bad}, 3)


def test_the_observation_adds_what_rank_types_hide():
    """The observation's own numbers (``moves.more_features``): the seat's cards of each suit,
    the discard pile's, the suit to follow one-hot (any on a kept 8 starter), the seat's cards
    playable now; another seat's hand changes none of them."""
    names = GAME.feature_names()
    more = {n[len("more."):]: i for i, n in enumerate(names) if n.startswith("more.")}
    st = make_state(hands={0: ["AC", "TC", "8D", "2H", "KH"], 1: ["3S"]}, discard=["5C", "9H", "KD"], suit="H")
    f = GAME.features(st, 0)
    got = {k: f[i] for k, i in more.items()}
    assert [got[f"hand_suit[{s}]"] for s in L.SUITS] == [2, 1, 2, 0]
    assert [got[f"discard_suit[{s}]"] for s in L.SUITS] == [1, 1, 1, 0]
    assert [got[f"follow[{s}]"] for s in L.SUITS] + [got["follow[any]"]] == [0, 0, 1, 0, 0]
    assert got["playable"] == 3  # 2H and KH follow hearts (KH also the top's rank), 8D is an 8
    st[L.S_HANDS + 1] = 1 << C("QS")  # what seat 0 cannot see
    np.testing.assert_array_equal(GAME.features(st, 0), f)
    st[L.S_SUIT] = L.ANY
    assert GAME.features(st, 0)[more["follow[any]"]] == 1


# ---------------------------------------------------------------- compensation knobs
# not in the rulebook: balancing options (cardlab balance); 0 is the printed game


def _dealt(rules, players=3, seed=5):
    """A seeded deal alone: the (seat, card) of each deal event in order, and the stock left
    (top first)."""
    st = make_state(players, rules=rules, seed=seed, capacity=64)
    K.deal_hands(st)
    _census_deal(st, players)
    return [(e[2], L.card_code(e[3])) for e in events(st)], stock(st), st


def _census_deal(st, players):
    held = [L.S.cards(st, "hands", s) for s in range(players)]
    assert all(len(h) == st[L.S_HAND_N + s] for s, h in enumerate(held))
    cards = np.concatenate([L.S.read(st, "stock"), *held])
    np.testing.assert_array_equal(np.sort(cards), np.arange(52))


def test_first_seat_extra_deals_seat_zero_more_cards_after_the_rounds():
    printed, rest, _ = _dealt({})
    assert [s for s, _ in printed] == [0, 1, 2] * 5
    deal, left, st = _dealt({"first_seat_extra": 2})
    # the printed deal card for card, then seat 0's two cards off the same top
    assert deal == printed + [(0, rest[0]), (0, rest[1])] and left == rest[2:]
    assert [st[L.S_HAND_N + s] for s in range(3)] == [7, 5, 5]
    assert hand(st, 0) == {c for s, c in deal if s == 0}


def test_last_seat_fewer_makes_the_last_seat_sit_out_the_last_rounds():
    printed, rest, _ = _dealt({})
    deal, left, st = _dealt({"last_seat_fewer": 2})
    assert [s for s, _ in deal] == [0, 1, 2] * 3 + [0, 1] * 2
    # the same cards off the top in the same order: only who gets the last ones changes
    assert [c for _, c in deal] == [c for _, c in printed][:13]
    assert left == [c for _, c in printed][13:] + rest
    assert [st[L.S_HAND_N + s] for s in range(3)] == [5, 5, 3]
    # the last seat is the last in turn order at any table: seat 3 of 4 (hand_size auto 5)
    deal, _, st = _dealt({"last_seat_fewer": 1, "first_seat_extra": 1}, players=4)
    assert [s for s, _ in deal] == [0, 1, 2, 3] * 4 + [0, 1, 2] + [0]
    assert [st[L.S_HAND_N + s] for s in range(4)] == [6, 5, 5, 4]


def test_follow_suit_turns_the_first_turns_must_follow_suit_without_an_eight():
    rules = {"follow_suit_turns": 2}
    # turn 1 (seat 0): a rank match and an 8 are not playable, the suit is
    st = make_state(hands={0: ["5C", "KD", "8S", "2H"], 1: ["KS", "8H", "3D"], 2: ["KC", "8D"]},
                    stock=["4S", "9H", "QC"], discard=["KH"], rules=rules, capacity=32)
    K.turns(st, 0)
    assert st[L.S_TURN] == 1 and legal_cards(st) == {"2H"}
    play(st, "2H")
    # turn 2 (seat 1): no heart but KS (rank) and 8H: it draws until it holds a heart
    assert st[L.S_ACTOR] == 1 and st[L.S_TURN] == 2
    assert hand(st, 1) == {"KS", "8H", "3D", "4S", "9H"} and legal_cards(st) == {"9H"}
    play(st, "9H")
    # turn 3 (seat 2): the printed rules again: the 8
    assert st[L.S_ACTOR] == 2 and st[L.S_TURN] == 3 and legal_cards(st) == {"8D"}
    # at 0 (the printed game) the same first position lets the rank match and the 8 be played
    st = make_state(hands={0: ["5C", "KD", "8S", "2H"]}, discard=["KH"], capacity=32)
    K.turns(st, 0)
    assert legal_cards(st) == {"KD", "8S", "2H"}


def test_compensation_deals_are_checked_in_one_line_naming_the_knob():
    for rules, knob in (({"hand_size": "3", "last_seat_fewer": 3}, "last_seat_fewer"),
                        ({"hand_size": "15", "first_seat_extra": 3}, "first_seat_extra"),
                        ({"hand_size": "17", "starter_eight": "keep", "first_seat_extra": 1}, "first_seat_extra")):
        with pytest.raises(InputError, match=knob) as e:
            GAME.resolve_rules(rules, 3)
        assert "\n" not in str(e.value)
    assert "last seat would be dealt no card" in _message({"hand_size": "2", "last_seat_fewer": 2})
    assert "48 cards in all" in _message({"hand_size": "15", "first_seat_extra": 3})
    # the new totals, not the hand size alone: 15 * 3 + 3 - 1 = 47 cards can be dealt
    deal, _, _ = _dealt({"hand_size": "15", "first_seat_extra": 3, "last_seat_fewer": 1})
    assert len(deal) == 47
    for knob, bad in (("first_seat_extra", "6"), ("last_seat_fewer", "4"), ("follow_suit_turns", "-1")):
        with pytest.raises(InputError, match=knob):
            GAME.resolve_rules({knob: bad}, 3)
    assert all(k.compensation == (k.name in ("first_seat_extra", "last_seat_fewer", "follow_suit_turns"))
               and (not k.compensation or k.default == 0) for k in GAME.knobs)


def _message(rules):
    with pytest.raises(InputError) as e:
        GAME.resolve_rules(rules, 3)
    return str(e.value)


def test_compensation_knobs_move_the_seats_win_rates_on_the_same_seed():
    """3,000 games of reference self-play a run, one seed: three extra cards cost seat 0
    about 9 points, two cards fewer give the last seat about 11 (each about 8 standard errors:
    a knob that changed nothing would give the very same games and fail)."""
    def rates(*sets):
        r = runner.run(runner.make_setup("crazy_eights", 3, list(sets), "reference", seed=9), 3000, jobs=1)
        return r.tally.wins[:3] / r.tally.games

    printed = rates()
    assert rates("first_seat_extra=3")[0] < printed[0] - 0.04
    assert rates("last_seat_fewer=2")[2] > printed[2] + 0.04


# ---------------------------------------------------------------- the reference strategy


@pytest.mark.parametrize("cards,top,suit,expected", [
    (["3H", "9H", "QS", "8C", "5H"], "3S", None, "3H"),  # the suit it holds most of
    (["4C", "4D", "JC", "2D"], "4S", None, "4D"),          # tie: same rank, higher suit
    (["KC", "5S", "9C", "2S"], "KS", None, "KC"),          # tie: higher rank
    (["5H", "8H", "8S", "7C", "9C"], "5C", None, "9C"),    # 8s not counted, highest of the suit
    (["8D", "8S", "2H"], "KC", None, "8S"),                # only 8s: the highest suit
    (["2H", "5D", "KD"], "8C", "H", "2H"),                 # after an 8: the called suit
])
def test_reference_play(cards, top, suit, expected):
    st = ready(make_state(hands={0: cards}, discard=[top], suit=suit), 0)
    assert choose(ID.reference, st, 0, NOPAR) == (L.A_PLAY, C(expected), 0, 0)


@pytest.mark.parametrize("left,expected", [
    (["2H", "5H", "KC", "8S"], "H"), (["2H", "KC"], "H"), (["8C"], "S"), ([], "S"),
    (["AC", "2C", "3D"], "C"),
])
def test_reference_call(left, expected):
    st = ready(make_state(hands={0: left}, discard=["8D"]), 0, L.D_CALL)
    assert choose(ID.reference, st, 0, NOPAR) == (L.SUITS.index(expected), 0, 0, 0)


# ---------------------------------------------------------------- the other strategies


def test_random_chooses_every_legal_action_from_its_seat_stream():
    seen = set()
    for g in range(60):
        st = ready(make_state(hands={0: ["5H", "2C", "9H"]}, stock=["3S"], discard=["KH"],
                              rules={"may_draw_when_able": True}), 0)
        seed_game(st, 3, g)
        before = st[:4].copy()
        seen.add(tuple(choose(ID.random, st, 0, NOPAR)))
        assert (st[:4] == before).all()  # never the game's chance stream
    assert seen == {(L.A_PLAY, C("5H"), 0, 0), (L.A_PLAY, C("9H"), 0, 0), (L.A_DRAW, 0, 0, 0)}


def _params(name, **kw):
    return GAME.strategies[name].row(kw)


def test_hoarder_plays_its_eights_first_only_at_eights_at_cards_or_fewer():
    st = ready(make_state(hands={0: ["8S", "5H", "2C"]}, discard=["KH"]), 0)
    assert choose(ID.hoarder, st, 0, _params("hoarder", eights_at=2)) == (L.A_PLAY, C("5H"), 0, 0)
    assert choose(ID.hoarder, st, 0, _params("hoarder", eights_at=3)) == (L.A_PLAY, C("8S"), 0, 0)
    st = ready(make_state(hands={0: ["8S", "8D", "2C"]}, stock=["4D"], discard=["KH"],
                          rules={"may_draw_when_able": True}), 0)
    assert choose(ID.hoarder, st, 0, _params("hoarder", eights_at=2)) == (L.A_DRAW, 0, 0, 0)
    assert choose(ID.reference, st, 0, NOPAR) == (L.A_PLAY, C("8S"), 0, 0)


def test_starver_starves_the_next_seat_of_the_suit_it_drew_on():
    p = _params("starver")
    # seat 0 plays 5C (turn 1): it remembers clubs and seat 1's hand of 3
    st = ready(make_state(hands={0: ["5C", "9C", "2D", "QD", "KD", "7H"], 1: ["2S", "3S", "4S"],
                                 2: ["AH"]}, discard=["5H"], turn=1), 0)
    assert choose(ID.starver, st, 0, p) == (L.A_PLAY, C("5C"), 0, 0)  # the reference's pick too
    # one round later (turn 4) seat 1 holds 4 cards: it drew, so it had no club
    st[L.S_HAND_N + 1] = 4
    st[L.S_TURN] = 4
    st[L.S_HANDS] = sum(1 << C(c) for c in ["9C", "2D", "QD", "KD", "7H", "7C"])
    L.S.write(st, "discard", [C("5H"), C("5C"), C("7S"), C("7D")])
    st[L.S_SUIT] = L.SUITS.index("D")
    assert choose(ID.reference, st, 0, NOPAR) == (L.A_PLAY, C("KD"), 0, 0)
    assert choose(ID.starver, st, 0, p) == (L.A_PLAY, C("7C"), 0, 0)  # clubs again
    assert choose(ID.starver, st, 0, p) == (L.A_PLAY, C("7C"), 0, 0)  # asked twice: the same
    assert choose(ID.starver, st, 0, _params("starver", min_hold=3)) == (L.A_PLAY, C("KD"), 0, 0)
    # after an 8 it calls the starving suit (call_void=1), the reference its longest suit
    ready(st, 0, L.D_CALL)
    assert choose(ID.starver, st, 0, p) == (L.SUITS.index("C"), 0, 0, 0)
    assert choose(ID.starver, st, 0, _params("starver", call_void=0)) == (L.SUITS.index("D"), 0, 0, 0)


# ---------------------------------------------------------------- through the model only


def _census(st, players):
    """Every card in exactly one zone: the stock, the discard pile, the hands."""
    bits = np.arange(52)
    held = [np.nonzero((int(st[L.S_HANDS + s]) >> bits) & 1)[0] for s in range(players)]
    assert sum(len(h) for h in held) == int(st[L.S_HAND_N:L.S_HAND_N + players].sum())
    for s in range(players):
        assert len(held[s]) == st[L.S_HAND_N + s]
    cards = np.concatenate([L.S.read(st, "stock"), L.S.read(st, "discard"), *held])
    np.testing.assert_array_equal(np.sort(cards), bits)
    assert all(int(st[L.S_HANDS + s]) >> 52 == 0 for s in range(players))


def test_random_legal_play_through_the_model_conserves_every_card():
    """2,100 games over every player count and rule variant, a uniformly random legal action
    at every decision (numpy's generator): the census holds after every step, every listed
    action is accepted, every game ends or stops at its cap."""
    gen = np.random.default_rng(16)
    variants = [{}, {"may_draw_when_able": True, "draw_limit": 2}, {"reshuffle": False},
                {"starter_eight": "keep", "score": "points", "max_turns": 60}]
    ends = np.zeros(3, int)
    for g in range(2100):
        players = 2 + (g // 4) % 6
        rules = GAME.resolve_rules(variants[g % 4], players)
        st = L.S.new_state(GAME.rules_vector(rules, players))
        seed_game(st, 77, g)
        B.setup(st)
        _census(st, players)
        steps = 0
        while st[L.S_PHASE] != DONE:
            acts = listed(st)
            assert acts, "a decision with no legal action"
            K.step(st, acts[gen.integers(len(acts))])
            _census(st, players)
            steps += 1
        ends[st[L.S_END]] += 1
        assert st[L.S_LENGTH] <= rules["max_turns"]
        if st[L.S_UNFINISHED]:
            assert st[L.S_MASK] == 0 and st[L.S_LENGTH] == rules["max_turns"]
        else:
            assert st[L.S_MASK] != 0
    assert ends.min() > 0  # out, blocked and the cap all happen


def test_compensation_knobs_conserve_every_card_through_the_model():
    """300 games over every player count with the compensation knobs drawn at random (in
    range), a random legal action at every decision: the census after the deal and every
    step; the dealt hand sizes are the knobs' at the first decision's state."""
    gen = np.random.default_rng(38)
    for g in range(300):
        players = 2 + g % 6
        knobs = {"first_seat_extra": int(gen.integers(6)), "last_seat_fewer": int(gen.integers(4)),
                 "follow_suit_turns": int(gen.integers(7))}
        rules = GAME.resolve_rules(knobs, players)
        h = GAME.hand_size(rules, players)
        st = L.S.new_state(GAME.rules_vector(rules, players))
        seed_game(st, 38, g)
        K.deal_hands(st)
        dealt = [h] * players
        dealt[0] += knobs["first_seat_extra"]
        dealt[-1] -= knobs["last_seat_fewer"]
        assert [int(st[L.S_HAND_N + s]) for s in range(players)] == dealt
        K.turn_starter(st)
        K.turns(st, 0)
        _census(st, players)
        while st[L.S_PHASE] != DONE:
            acts = listed(st)
            if st[L.S_PHASE] == L.D_PLAY and st[L.S_TURN] <= knobs["follow_suit_turns"]:
                assert not any(a[0] == L.A_PLAY and a[1] % 13 == L.EIGHT for a in acts)
            K.step(st, acts[gen.integers(len(acts))])
            _census(st, players)


@pytest.mark.parametrize("strategies,rules", [("reference", []),
                                              ("random,hoarder,starver", ["may_draw_when_able=true"])])
def test_a_copy_taken_mid_turn_plays_on_like_the_original(strategies, rules):
    """At a decision that is not the first of its seat's turn (a call, or a play after a
    draw), copy the state: both copies played on end identically, as the fast path's game."""
    players = 3
    setup = runner.make_setup("crazy_eights", players, rules, strategies, seed=21)
    rv, sids, params = setup.arrays()
    fast = runner.run(setup, 60, jobs=1, keep_rows=True)
    checked = 0
    for g in range(60):
        st = L.S.new_state(rv)
        seed_game(st, 21, g)
        B.setup(st)
        copy = None
        while st[L.S_PHASE] != DONE:
            me = int(st[L.S_ACTOR])
            if st[L.S_PHASE] == L.D_CALL or st[L.S_DRAWN] > 0:
                copy = st.copy()
                break
            K.step(st, choose(sids[me], st, me, tuple(params[me])))
        if copy is None:
            continue
        other = copy.copy()
        B.play_on(st, sids, params)
        B.play_on(other, sids, params)
        np.testing.assert_array_equal(st, other)
        row = fast.rows[g]
        assert (st[L.S_LENGTH], st[L.S_UNFINISHED], st[L.S_MASK]) == tuple(row[:3]), g
        np.testing.assert_array_equal(st[L.S_SCORE:L.S_SCORE + players], row[3:3 + players])
        checked += 1
    assert checked >= 30


test_conformance = conformance_tests("crazy_eights")
