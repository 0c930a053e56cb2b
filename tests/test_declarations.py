"""What a Game class declares instead of writing: the rule vector from its knobs
(``rule_values`` for the rest), the trace decoding from ``event_fields``, the length cap from
a ``max_turns``/``max_rounds`` knob; each mistake is an error naming it."""
from __future__ import annotations

import pytest

from cardlab.sim.crazy_eights import GAME as C8
from cardlab.sim.crazy_eights import layout as L


def test_the_rule_vector_comes_from_the_knobs_and_rule_values():
    r = C8.resolve_rules({"score": "points", "starter_eight": "keep", "draw_limit": 3, "max_turns": 77,
                          "first_seat_extra": 2}, 3)
    v = C8.rules_vector(r, 3)
    got = {name: int(v[i]) for i, name in enumerate(L.S.rule_names)}
    assert got == {"players": 3, "hand_size": 5, "rebury": 0, "may_draw": 0, "draw_limit": 3, "reshuffle": 1,
                   "points": 1, "max_turns": 77, "first_seat_extra": 2, "last_seat_fewer": 0,
                   "follow_suit_turns": 0}
    assert C8.max_length(r) == 77


def test_a_rule_slot_nothing_fills_is_named(monkeypatch):
    monkeypatch.setattr(type(C8), "rule_values", lambda self, rules, players: {})
    r = C8.resolve_rules(None, 3)
    with pytest.raises(TypeError, match="crazy_eights: rule slot 'hand_size' is no number knob"):
        C8.rules_vector(r, 3)


def test_event_fields_decode_every_kind():
    """One field of each kind, on hand-made event rows: a number, a card, a mask of cards, a
    yes/no, a mask of seats, a sequence of the layout's, and "?" for none."""
    class Fields(type(C8)):
        event_fields = {"deal": ("seat", "card:card"), "starter": ("cards:cards", "flag:bool"),
                        "play": ("winners:seats", "called:SUITS?"), "draw": ("called:SUITS?",)}

        def zones(self, snap, players):
            return {}

    g = Fields()
    st = L.S.new_state(g.rules_vector(g.resolve_rules(None, 3), 3), capacity=4)
    rows = [(L.EV_DEAL, -1, 0, 2, L.card_of("8H")), (L.EV_STARTER, -1, 0, (1 << 0) | (1 << 13), 1),
            (L.EV_PLAY, 1, 3, 0b101, 2), (L.EV_DRAW, 2, 4, -1, 0)]
    for i, row in enumerate(rows):
        o = L.S_SIZE + i * L.TRACE_ROW
        st[o:o + len(row)] = row
    st[L.S_NEV] = len(rows)
    ev = g.decode_trace({}, 3, st)
    assert ev[0] == {"type": "event", "step": 0, "turn": 0, "player": None, "action": "deal", "seat": 2,
                     "card": "8H", "state": {}}
    assert (ev[1]["cards"], ev[1]["flag"]) == (["AC", "AD"], True)
    assert (ev[2]["player"], ev[2]["winners"], ev[2]["called"]) == (1, [0, 2], "H")
    assert ev[3]["called"] is None


def test_an_unknown_field_kind_is_named():
    class Typo(type(C8)):
        event_fields = {"deal": ("seat", "card:crad")}

        def zones(self, snap, players):
            return {}

    g = Typo()
    st = L.S.new_state(g.rules_vector(g.resolve_rules(None, 3), 3), capacity=1)
    st[L.S_SIZE:L.S_SIZE + 5] = (L.EV_DEAL, -1, 0, 1, 5)
    st[L.S_NEV] = 1
    with pytest.raises(ValueError, match=r"crazy_eights: event 'deal' field 'card:crad': 'crad' is no field kind "
                                         r"\(card, cards, seats, bool, a sequence of the layout's\)"):
        g.decode_trace({}, 3, st)


def test_zone_labels_title_the_zones_in_play_and_the_replay(monkeypatch, tmp_path):
    """``zone_labels`` (a presentation hook) titles a zone in ``cardlab play``'s view and in the
    replay viewer's data; an unlabelled zone shows its name with spaces."""
    from cardlab.analysis.replay_view import viewer_data
    from cardlab.play import render_view
    from cardlab.sim import runner
    from cardlab.sim.positions import new_game
    from cardlab.sim.trace import trace

    monkeypatch.setattr(type(C8), "zone_labels", {"stock": "stock (face down)"})
    setup = runner.make_setup("crazy_eights", 3, None, None, 5)
    view = render_view(C8, new_game(C8, setup, 0), 0)
    assert "  stock (face down): " in view and "  discard: " in view
    data = viewer_data(trace(setup, 0))
    assert data["zones"]["stock"]["label"] == "stock (face down)" and data["zones"]["hands"]["label"] == "hands"


def test_event_fields_and_float_knobs_are_checked_once():
    """A misspelt event in event_fields, or a float knob filling a rule slot, is one error
    naming it (never a silently wrong trace or rule vector)."""
    class Misspelt(type(C8)):
        event_fields = {"deals": ("seat",)}

    st = L.S.new_state(C8.rules_vector(C8.resolve_rules(None, 3), 3), capacity=1)
    with pytest.raises(ValueError, match=r"event_fields\['deals'\]: no such event \(the events: deal, "):
        Misspelt().decode_trace({}, 3, st)
    rules = dict(C8.resolve_rules(None, 3), draw_limit=2.5)
    with pytest.raises(TypeError, match="rule slot 'draw_limit' is a float knob"):
        C8.rules_vector(rules, 3)
