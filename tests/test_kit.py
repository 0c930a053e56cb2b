"""The conformance kit itself (sim/testing.py): its helpers read what they claim, and
``check_game`` names the game and the check that failed."""
from __future__ import annotations

import re

import pytest

from cardlab.sim.errors import InputError
from cardlab.sim.testing import CHECKS, check_game, needed_rules


def test_with_rule_parsing():
    assert needed_rules("only with must_play_if_able=false, picks up") == (["must_play_if_able=false"], None)
    assert needed_rules("matters with players=3 (truck)") == ([], 3)
    assert needed_rules("plain help") == ([], None)


def test_check_game_names_the_failed_check(monkeypatch):
    def broken(game_id):
        raise AssertionError("cards changed at step 4")

    monkeypatch.setitem(CHECKS, "conservation", broken)
    with pytest.raises(AssertionError, match=r"check_game\('skyscraper'\): conservation failed: cards changed"):
        check_game("skyscraper", only=["conservation"])


def test_check_game_refuses_an_unknown_game():
    with pytest.raises(InputError, match="unknown game 'nope'"):
        check_game("nope")


def test_legal_complete_catches_a_legal_that_leaves_a_play_out(monkeypatch):
    """``legal_complete``: a ``legal`` that leaves out one playable card (here: every
    position's last listed action dropped, when there are several) is caught by ``step``
    accepting it, with the game, seed, step, decision and the action named; the real one
    passes."""
    from cardlab.sim import testing

    assert testing.check_legal_complete("crazy_eights", games=6) > 0
    real = testing.legal_actions

    def slipped(game, st):
        acts = real(game, st)
        return acts[:-1] if len(acts) > 1 else acts

    monkeypatch.setattr(testing, "legal_actions", slipped)
    with pytest.raises(AssertionError, match=r"crazy_eights game \d+ \(seed 4, \d players\), step \d+, "
                                             r"decision '\w+' of seat \d: step accepts \(.*\), which legal does "
                                             r"not list"):
        testing.check_legal_complete("crazy_eights", games=6)


def test_an_exception_inside_the_rules_is_a_named_failure(monkeypatch):
    """A rules function that raises (here ``step``, after the first decisions) fails
    ``conservation`` with the game, seed, step, decision and the action, not a bare
    traceback."""
    from cardlab.sim import testing
    from cardlab.sim.registry import get_game

    model = get_game("crazy_eights").model()
    real, calls = model.step, []

    def broken(st, act):
        calls.append(act)
        if len(calls) > 5:
            raise IndexError("index 99 is out of bounds")
        return real(st, act)

    monkeypatch.setattr(model, "step", broken)
    with pytest.raises(AssertionError, match=r"crazy_eights game 0 \(seed 3, 2 players\), step 5, decision "
                                             r"'\w+' of seat \d: step with the listed action \(.*\) raised "
                                             r"IndexError: index 99"):
        testing.check_conservation("crazy_eights", games=1)


def _late_events(turns: list[int]) -> list[int]:
    """The first slip: what happens after ``turn_over(t)`` (the next deal, a knock-out, here
    the next turn's first play or draw) still stamped t; the end keeps the last turn."""
    return [b if 1 <= b < a else a for b, a in zip([turns[0]] + turns, turns[:-1])] + turns[-1:]


def _noted_after(turns: list[int]) -> list[int]:
    """The second slip: the standing noted just after the counter moved on, so turn t's
    events carry t - 1 and only the end carries the last turn."""
    return [t - 1 for t in turns[:-1]] + turns[-1:]


@pytest.mark.parametrize("slip", [_late_events, _noted_after])
def test_lead_in_trace_names_progress_that_moves_after_the_turn_is_noted(monkeypatch, slip):
    """``lead_in_trace``: a game whose events are stamped unlike its ``shape.turn_over``
    calls (progress changing after the turn is noted, under the same turn's stamp) is named
    with the game, players, seed, turn, the leader noted against the leader the events say,
    the rule and the fix.  Crazy Eights itself passes; the slips are made in its trace
    decoding (the stamps the kernel writes), the seam a new game's slip shows through."""
    from cardlab.sim import testing
    from cardlab.sim.registry import get_game

    assert {"shape_noted", "lead_in_trace"} <= set(CHECKS)  # every game's test file runs it
    testing.check_lead_in_trace("crazy_eights")
    game = get_game("crazy_eights")
    real = game.decode_trace

    def slipped(rules, players, st):
        events = real(rules, players, st)
        for e, t in zip(events, slip([e["turn"] for e in events])):
            e["turn"] = t
        return events

    monkeypatch.setattr(game, "decode_trace", slipped)
    with pytest.raises(AssertionError) as e:
        check_game("crazy_eights", only=["lead_in_trace"])
    msg = str(e.value)
    assert re.fullmatch(
        r"check_game\('crazy_eights'\): lead_in_trace failed: crazy_eights, \d players, seed 7, game \d+: at the "
        r"end of turn (\d+) of \d+ the fast path noted (seat \d|nobody \(a shared top\)) leading, but the "
        r"trace's events say (seat \d|nobody \(a shared top\)): after the last event of turn \1, event \d+ of "
        r"\d+ \('\w+'( of seat \d)?, stamped turn \d+(, read as turn \1)?\), the progress \(minus the cards "
        r"left in hand\) seat by seat is \[-?\d+(, -?\d+)+\]\. progress\(st, seat\) must not change between "
        r"shape\.turn_over\(st, ENGINE, progress, t\) and the last event stamped t: call turn_over for turn t "
        r"before the turn counter moves on, as Crazy Eights' turns\(\) does \(docs/game_reference\.md, "
        r"'The progress score'\)", msg), msg


@pytest.mark.parametrize("game_id", ["skyscraper", "smokestack", "five_towers", "three_up", "block_tower",
                                     "crazy_eights"])
def test_conservation_counts_the_schema_card_zones(game_id):
    """The census is the schema's zones (a TABLE zone through the game's ``zone_cards``),
    never a trace's: it agrees with the cards the game's trace decoding shows (Block Tower's
    tower, its point pile read as blocks, left out by ``card_zones``), and a card duplicated
    in a zone is caught as that card."""
    from collections import Counter

    from cardlab.sim import runner
    from cardlab.sim.positions import zone_census
    from cardlab.sim.registry import get_game
    from cardlab.sim.testing import card_census, new_game, random_legal

    game = get_game(game_id)
    players = game.default_players
    st = new_game(game, runner.make_setup(game_id, players, None, None, 3), 0)
    rng = __import__("numpy").random.default_rng(1)
    for _ in range(12):  # a few random decisions in: cards in every kind of zone
        game.model().step(st, random_legal(game, st, rng))
    deck = card_census(game, st, players)
    name = game.card_names(st)
    assert Counter(name(c) for c in deck.elements()) == zone_census(game, game.zones(st[:game.layout.ZONES_END], players))
    from cardlab.sim.observe import zone_cards

    parts = game.schema.zone_parts()
    # a slip: one card of a pile or a counts zone duplicated is a different census
    pile = next(p for p in parts if p.encoding in ("pile", "counts") and zone_cards(game, st, p.name,
                                                                              0 if p.owner else None))
    bad = st.copy()
    seat = 0 if pile.owner else None
    blk = pile.block(seat)
    if pile.encoding == "counts":
        card = next(i for i, n in enumerate(bad[blk]) if n > 0)
        bad[blk.start + card] += 1
    else:
        cp = game.schema.parts[pile.count]
        at = cp.offset + (seat if cp.owner else 0)
        card = int(bad[blk.start])
        bad[blk.start + int(bad[at])] = card  # the pile's first card once more on top
        bad[at] += 1
    assert card_census(game, bad, players) - deck == Counter({card: 1})


def test_a_table_zone_without_its_reader_is_named():
    """A game with a TABLE zone and no ``zone_cards`` cannot be counted: the error says
    which zone and which hook."""
    from cardlab.sim.registry import get_game
    from cardlab.sim.testing import card_census, new_game
    from cardlab.sim import runner

    game = get_game("smokestack")
    st = new_game(game, runner.make_setup("smokestack", 3, None, None, 3), 0)

    class NoReader(type(game)):
        zone_cards = None

    with pytest.raises(ValueError, match=r"zone 'lay' is a table zone: the game's zone_cards\(st, name, seat\) "
                                         r"must read its cards"):
        card_census(NoReader(), st, 3)


def test_random_play_smoke_says_worth_a_look_beyond_its_margin():
    """Under uniformly random play 3UP 3DOWN's first seat wins 26.8% [25.4, 28.2] of 4,000
    games (4 players): "worth a look" at a margin of 0 points, nothing at the stated 5."""
    from cardlab.sim.testing import RANDOM_EDGE, random_play_smoke

    lines = random_play_smoke("three_up", margin=0.0)
    assert any("seat 0 wins 26.8% [25.4, 28.2] of 4,000 games (4 players, fair 25.0%" in x for x in lines), lines
    assert all(x.startswith("three_up: worth a look: under uniformly random play") for x in lines)
    assert random_play_smoke("three_up") == [] and RANDOM_EDGE == 0.05


def test_trace_zones_names_a_zone_of_cards_that_no_schema_zone_matches(monkeypatch):
    """``trace_zones``: a zone of the trace's state that shows cards but matches no schema
    zone (a renamed ``stock``, hidden from every seat) would be shown to every seat by play
    and the replay; the check names the game, the zone, its cards, the fix and the schema's
    zones.  Mapped in ``trace_parts``, the same name passes, and the replay hides it; with
    the mapping, the default ``zones()`` shows the stock under that name by itself."""
    from cardlab.analysis.trace_zones import seat_view, zone_info
    from cardlab.sim import runner
    from cardlab.sim.registry import get_game
    from cardlab.sim.trace import trace

    game = get_game("crazy_eights")
    real = game.zones

    def renamed(snap, players):
        z = real(snap, players)
        z["draw pile"] = z.pop("stock")
        return z

    monkeypatch.setattr(game, "zones", renamed)
    with pytest.raises(AssertionError) as e:
        check_game("crazy_eights", only=["trace_zones"])
    assert re.fullmatch(
        r"check_game\('crazy_eights'\): trace_zones failed: crazy_eights, 2 players, seed 11, game 0: the trace "
        r"zone 'draw pile' \(event 0, 'deal'\) shows cards \((\w\w, ){3}\w\w, \.\.\.\) but is no zone of the "
        r"schema, so play and the replay would show it to every seat\. Name it after its part in zones\(\) "
        r"\(the part's name or its plural\) or map it in the game's trace_parts = \{'draw pile': PART\}; the "
        r"schema's zones: hands, stock, discard", str(e.value)), str(e.value)
    monkeypatch.delattr(game, "zones")  # the wrapper goes: Crazy Eights shows the default, Game.zones
    monkeypatch.setattr(game, "trace_parts", {"draw pile": "stock"})
    check_game("crazy_eights", only=["trace_zones"])
    state = trace(runner.make_setup("crazy_eights", 2, None, None, 11), 0)[1]["state"]
    assert list(state) == ["draw pile", "discard", "hands"]
    assert zone_info(game, state, 2)["draw pile"]["visible"] == "nobody"
    assert seat_view(game, state, 2, 0)["draw pile"] == {"hidden": len(state["draw pile"])}



def test_a_stalling_game_and_a_changed_golden_trace_say_what_to_do(monkeypatch, tmp_path):
    """Every traced game at the turn cap fails lead_in_trace as a game that stalls (not as a
    question of leads); a golden trace that differs names the command that re-records it."""
    from cardlab.sim import runner, testing

    real = runner.make_setup
    monkeypatch.setattr(runner, "make_setup", lambda g, p=None, sets=None, strategies=None, seed=1:
                        real(g, p, ["max_turns=2"], strategies, seed))
    with pytest.raises(AssertionError, match=r"crazy_eights: every traced game \(4 at each of 2, 3 and 7 players, "
                       r"the default strategies\) hit the turn cap, so no noted standing could be compared: the "
                       r"game stalls under its own strategies"):
        testing.check_lead_in_trace("crazy_eights")
    monkeypatch.setattr(runner, "make_setup", real)
    golden = (testing.GOLDEN_TRACES / "crazy_eights.jsonl").read_text().splitlines()
    (tmp_path / "crazy_eights.jsonl").write_text("\n".join(golden[:1] + [golden[1].replace('"', "'", 1)]
                                                           + golden[2:]) + "\n")
    monkeypatch.setattr(testing, "GOLDEN_TRACES", tmp_path)
    with pytest.raises(AssertionError, match=r"(?s)the golden trace differs at line 1:.*write the game anew with "
                       r"python scripts/golden.py --trace crazy_eights; else the change is a slip"):
        testing.check_golden_trace("crazy_eights")
