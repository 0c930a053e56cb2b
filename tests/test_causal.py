"""Causal card power (sim/give.py, analysis/causal.py): the IN and OUT arms are what they
claim on every game (the seat holds >= 1 copy / none, every card still in exactly one zone,
derived state consistent), setup is the deal then the opening, a card that cannot matter is
within noise of 0, a card made decisive by a knob is clearly positive, and the result does
not depend on --jobs."""
import subprocess
import sys

import numpy as np
import pytest

from cardlab.analysis.causal import run_causal
from cardlab.sim import runner, testing
from cardlab.sim.give import ARM_IN, ARM_OUT, GAVE_NONE
from cardlab.sim.registry import game_ids, get_game
from cardlab.sim.rng import seed_aside, seed_game

GAMES = game_ids()
# the games that say where a card can be given (S.give): causal card power is optional, and
# a game whose seats start with no cards (No Thanks!) declares none
GIVING = [g for g in GAMES if get_game(g).schema.give_start]


def start_cards(game, st, seat):
    """The card ids of seat's start zones (``Schema.give``), read in Python."""
    L, S = game.layout, game.schema
    out = []
    for name in S.give_start:
        p = S.parts[name]
        if p.encoding != "table":
            out += S.cards(st, name, seat)
        elif game.id == "three_up":
            out += game.zone_cards(st, name, seat)
        elif game.id == "smokestack":
            o = L.S_LAY + seat * L.MAXL * 4
            out += [int(c) for c in st[o:o + 4 * int(st[L.S_NLAY + seat])] if c >= 0]
        elif game.id == "five_towers":
            for k in range(L.NK):
                o = seat * L.NK + k
                out += [int(c) for c in st[L.S_TOW + o * L.MAXH:][:int(st[L.S_TH + o])]]
        elif hasattr(game, "zone_cards"):  # a designer's table zone, read by its own hook
            out += [int(c) for c in game.zone_cards(st, name, seat)]
        else:
            raise AssertionError(f"{game.id}: no reader for table zone {name}")
    return out


def chimneys(game, st, seat):
    """Smokestack's setup chimneys: held by the seat, though not a start zone."""
    if game.id != "smokestack":
        return []
    L = game.layout
    o = L.S_CH + seat * L.MAXCH * 4
    return [int(c) for c in st[o:o + 4 * int(st[L.S_NCH + seat])]]


def dealt(game, B, setup, g):
    st = game.schema.new_state(game.rules_vector(setup.rules, setup.players))
    seed_game(st, setup.seed, g)
    B.deal(st)
    return st


@pytest.mark.parametrize("gid", GAMES)
def test_setup_is_the_deal_then_the_opening(gid):
    game = get_game(gid)
    B = game.binding()  # the declared rules functions, and setup
    for players in (game.min_players, game.max_players):
        setup = runner.make_setup(gid, players, None, None, 3)
        for g in range(8):
            st = dealt(game, B, setup, g)
            B.begin(st)
            assert np.array_equal(st, testing.new_game(game, setup, g)), f"{gid} game {g}"


@pytest.mark.parametrize("gid", GIVING)
def test_arms_hold_the_card_or_none_and_conserve_cards(gid):
    game = get_game(gid)
    B = game.binding()
    made = {ARM_IN: 0, ARM_OUT: 0}
    for players in (game.min_players, game.default_players, game.max_players):
        setup = runner.make_setup(gid, players, None, None, 5)
        types = [t for t, _ in game.card_types(setup.rules)]
        for g in range(12):
            seat = g % players
            nat = dealt(game, B, setup, g)
            deck = testing.card_census(game, nat, players)
            if gid != "five_towers":  # 5 Towers' give adds a start card to an empty tower
                again = nat.copy()
                B.after_give(again)  # nothing to follow on a deal nobody changed
                assert np.array_equal(again, nat), f"{gid}: after_give changed a natural deal"
            for t in types[g % 3::3]:
                for arm in (ARM_IN, ARM_OUT):
                    st = dealt(game, B, setup, g)
                    rng = np.zeros(4, dtype=np.int64)
                    seed_aside(rng, setup.seed, g, 7)
                    if B.give_card(st, seat, t, arm, rng) == GAVE_NONE:
                        continue
                    made[arm] += 1
                    mine = start_cards(game, st, seat) + chimneys(game, st, seat)
                    held = sum(bool(B.has_type(st, c, t)) for c in mine)
                    assert (held >= 1) if arm == ARM_IN else (held == 0), (gid, g, t, arm, held)
                    assert testing.card_census(game, st, players) == deck, (gid, g, t, arm)
                    # every other seat's start zones keep their size
                    for s in range(players):
                        assert len(start_cards(game, st, s)) == len(start_cards(game, nat, s)) + \
                            (gid == "five_towers" and s == seat)
                    assert np.array_equal(st[:4], nat[:4]), "the chance stream was drawn from"
                    B.begin(st)  # the game opens from the given cards
    assert made[ARM_IN] > 50 and made[ARM_OUT] > 50, made


def test_held_bits_follow_a_given_hand():
    """Skyscraper's card-power bits after a give: the types in each hand, exactly."""
    game = get_game("skyscraper")
    B = game.binding()
    L = game.layout
    setup = runner.make_setup("skyscraper", 3, None, None, 2)
    for g in range(20):
        for arm in (ARM_IN, ARM_OUT):
            st = dealt(game, B, setup, g)
            rng = np.zeros(4, dtype=np.int64)
            seed_aside(rng, 2, g, 1)
            B.give_card(st, g % 3, L.DOG, arm, rng)
            for s in range(3):
                hand = st[L.S_HAND + s * L.NT:][:L.NT]
                assert np.array_equal(st[L.S_HELD + s * L.NT:][:L.NT], (hand > 0).astype(np.int64))
            assert (st[L.S_HAND + (g % 3) * L.NT + L.DOG] > 0) == (arm == ARM_IN)


def _card(c, code):
    return next(r for r in c["cards"] if r["card"] == code)


def test_a_card_that_cannot_matter_is_within_noise_of_zero():
    """5 Towers' kinds are labels (every kind has the same values): the value of starting
    with a card of kind C rather than of another kind is 0 but for noise."""
    c = run_causal("five_towers", games=400, seed=3, jobs=1, cards=["kind C", "kind A"])
    for code in ("kind C", "kind A"):
        r = _card(c, code)
        lo, hi = r["value_ci"]
        assert r["pairs"] == 400 and lo < 0 < hi and abs(r["value"]) < 0.06, r


def test_a_card_made_decisive_is_clearly_positive():
    """Skyscraper with floors_to_win=1: the first floor wins, and a joker completes a floor
    with any floor card, so starting with one is worth a lot; a hammer is no help."""
    c = run_causal("skyscraper", games=300, seed=4, jobs=1, sets=["floors_to_win=1"],
                   cards=["J", "HAM"])
    j = _card(c, "J")
    assert j["value_ci"][0] > 0.10 and j["significant"], j
    assert j["win_in"] > j["win_out"]
    assert len(j["per_seat"]) == 2 and sum(s["pairs"] for s in j["per_seat"]) == 300
    ham = _card(c, "HAM")
    assert ham["value"] < j["value_ci"][0]


def test_a_game_nobody_wins_gives_exactly_zero():
    c = run_causal("skyscraper", games=100, seed=1, jobs=1, sets=["max_turns=1"], cards=["DOG"])
    r = c["cards"][0]
    assert r["value"] == 0 and r["value_ci"] == [0, 0] and r["p_value"] == 1 and not r["significant"]


def test_jobs_do_not_change_the_result():
    a = run_causal("skyscraper", games=1100, seed=9, jobs=1, cards=["DOG", "F4", "TRUCK"])
    b = run_causal("skyscraper", games=1100, seed=9, jobs=2, cards=["DOG", "F4", "TRUCK"])
    for k in ("elapsed_s", "games_per_second"):
        a.pop(k), b.pop(k)
    assert a == b


def test_cli_bad_input_is_one_line_and_exit_2():
    for args in (["nosuch"], ["skyscraper", "--cards", "DOG,XYZ"], ["skyscraper", "-n", "0"],
                 ["skyscraper", "--strategies", "mcts"]):
        p = subprocess.run([sys.executable, "-m", "cardlab.cli", "cardpower", *args],
                           capture_output=True, text=True)
        assert p.returncode == 2, (args, p.stderr)
        assert p.stderr.count("\n") == 1 and p.stderr.startswith("cardlab: error:"), p.stderr


def test_report_shows_it_beside_iwd_and_uses_it_in_the_verdict(tmp_path):
    import json

    from cardlab.analysis.report import build_report, details, verdict
    from cardlab.analysis.summary import summarize

    setup = runner.make_setup("skyscraper", 2, ["floors_to_win=1"], None, 4)
    result = runner.run(setup, 300, 1)
    c = run_causal("skyscraper", 2, None, 200, 4, 1, ["floors_to_win=1"])
    paths = build_report(result, "cardlab report skyscraper", tmp_path, causal=c)
    page = paths["index.html"].read_text()
    assert "value of starting with it" in page and "Benjamini-Hochberg" in page
    js = json.loads(paths["summary.json"].read_text())
    assert js["causal_card_power"]["cards"] == c["cards"]
    v, d = js["verdict"], js["verdict_detail"]
    assert "Card power (causal): starting with J" in d and "IWD" not in d and "IWD" not in v
    assert v == verdict(summarize(result), c) and "IWD" in details(summarize(result))


def test_every_shipped_game_says_where_a_card_can_be_given():
    """The filter above skips only a designer's game without ``S.give``, never a shipped one."""
    assert {"skyscraper", "smokestack", "five_towers", "three_up", "block_tower", "crazy_eights"} <= set(GIVING)
