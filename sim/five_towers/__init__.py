"""5 Towers (game id ``five_towers``): knobs, rule vector, card types and trace decoding.

Rules: ``docs/rules/five_towers.md`` (our page, with the decisions we took) and
``../shared/rules/five_towers.md``.  The compiled game is in ``kernel.py`` (the
resumable step function: rounds of offer, bidding, building, cleanup) and ``moves.py``
(rules, the placement search and ``legal``); the declared state and the numbers it
shares with strategies are in ``layout.py``; the kernel's ``RULES`` is what ``sim/bind.py`` binds
the engine, the search player and the strategies to.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from cardlab.sim.errors import InputError
from cardlab.sim.five_towers import layout as L
from cardlab.sim.game import Game
from cardlab.sim.knobs import Knob


def deck_size(deck: str, players: int) -> int:
    """80 cards (one 0-15 per kind) or 110 (a second 0, 2, 5, 7, 10, 12 per kind)."""
    if deck == "auto":
        return 80 if players <= 3 else 110
    return 80 if deck == "base" else 110


class FiveTowers(Game):
    id = "five_towers"
    title = "5 Towers: bid for offer cards, build five descending towers"
    min_players = 2
    default_players = 3
    length_unit = "rounds"
    layout = L          # the schema: seats, events, ends, tally and the modules follow from it
    score_name = "points"
    seat0_role = "the start player of the first round"
    precompile = ("cardlab.sim.five_towers.kernel:step", "cardlab.strategies.five_towers:capper_building",
                  "cardlab.strategies.five_towers:cautious_building", "cardlab.strategies.five_towers:greedy_building")
    # the extra cards of the 4-5 player deck: compare them on the same seeds
    report_variants = (("deck", "base"), ("deck", "full"))
    # ladder: between 64 (+1.49, below greedy's +1.56) and 256 iterations (+2.05); 256 costs
    # 0.33 s a game, more than a report's 5 minutes allow for ~1,400 games
    strong_player = "mcts:iterations=128"
    knobs = (
        Knob("deck", "choice", "auto", "auto: 80 cards for 2-3 players, 110 for 4-5; base: 80 (one "
             "0-15 per kind); full: 110 (a second 0, 2, 5, 7, 10, 12 per kind)",
             choices=("auto", "base", "full")),
        Knob("offer_size", "int", 5, "cards revealed each round (also the highest bid)", 1, L.MAXOFF),
        Knob("all_pass", "choice", "discard", "when every player passes the offer is discarded and "
             "the start player moves one seat left (discard) or opens again (stay)",
             choices=("discard", "stay")),
        Knob("teardown_when", "choice", "before", "the builder may tear down one tower top before "
             "placing (and it counts for what they may bid) or after placing",
             choices=("before", "after")),
        Knob("rubble_penalty", "choice", "triangular", "n torn-down cards cost n(n+1)/2 points "
             "(triangular) or n (linear)", choices=("triangular", "linear")),
        Knob("max_rounds", "int", 1000, "safety cap on rounds: a game stopped there is unfinished "
             "and has no winner", 1, 100_000),
        # compensation knobs: not in the rulebook, balancing options against the advantage of
        # starting the first round (measured in docs/rules/five_towers.md); each default is the
        # printed game
        Knob("seat_points", "int", 0, "balancing option (not in the rulebook): seat s starts with "
             "s x n points (seat 0, the first start player, none; seat 1 n, seat 2 2n, ...)",
             0, 10, compensation=True),
        Knob("ties", "choice", "share", "balancing option (not in the rulebook): seats tied for the "
             "top score share the win (share, as printed) or the tied seat latest in the first "
             "round's bidding order, the highest seat number, wins alone (later_seat)",
             choices=L.TIES, compensation=True),
    )

    def validate(self, rules: dict[str, Any], players: int) -> None:
        n = deck_size(rules["deck"], players)
        if rules["offer_size"] > n:
            raise InputError(f"bad value {rules['offer_size']} for knob 'offer_size': the {n}-card "
                             f"deck cannot fill it")

    def rules_vector(self, rules: dict[str, Any], players: int) -> np.ndarray:
        v = np.zeros(L.N_RULES, dtype=np.int64)  # the kernel copies it to st[S_RULES:]
        v[L.R_PLAYERS - L.S_RULES] = players
        v[L.R_DECK - L.S_RULES] = deck_size(rules["deck"], players)
        v[L.R_OFFER - L.S_RULES] = int(rules["offer_size"])
        v[L.R_ALLPASS_STAY - L.S_RULES] = int(rules["all_pass"] == "stay")
        v[L.R_TEAR_AFTER - L.S_RULES] = int(rules["teardown_when"] == "after")
        v[L.R_RUBBLE_LINEAR - L.S_RULES] = int(rules["rubble_penalty"] == "linear")
        v[L.R_MAX_ROUNDS - L.S_RULES] = int(rules["max_rounds"])
        v[L.R_SEAT_POINTS - L.S_RULES] = int(rules["seat_points"])
        v[L.R_TIES - L.S_RULES] = L.TIES.index(rules["ties"])
        return v

    def max_length(self, rules: dict[str, Any], players: int | None = None) -> int:
        return int(rules["max_rounds"])

    findings_off = {"always_played": "a card counts as held once taken into a tower and as played when "
                                     "it is still there at the end, so nearly every card held is "
                                     "'played': the rules, not a decision"}

    def card_types(self, rules: dict[str, Any]) -> list[tuple[int, str]]:
        """Card power by value (0-15) and by kind: "held" = took one into a tower,
        "played" = had one in a tower at the end (it scored)."""
        return list(enumerate(L.type_names()))

    # ------------------------------------------------------------ presentation
    trace_parts = {"discard": "disc", "towers": "tow", "rubble": "rub"}

    def card_face(self, code: str) -> tuple[str, str] | None:
        """KIND + value (A7, S13): coloured by tower kind, the kind letter kept."""
        return (code, f"kind-{code[0]}") if len(code) >= 2 and code[0] in L.KINDS and code[1:].isdigit() else None

    def describe_action(self, act: tuple[int, int, int, int], obs: dict) -> str | None:
        L = self.layout
        x, y, _, _ = act
        d = obs["decision"]
        if d == "bid":
            return "pass" if x == 0 else f"bid {x}"
        if d == "tear":
            return "no tear-down" if x < 0 else f"tear down your {L.KINDS[x]} tower"
        if d == "place":
            offer = obs["zones"].get("offer")
            card = offer[x] if isinstance(offer, list) and 0 <= x < len(offer) else None
            return f"take offer slot {x}" + (f" ({card})" if isinstance(card, str) else "")
        return None

    # ------------------------------------------------------------ traces
    @staticmethod
    def zone_cards(st: np.ndarray, name: str, seat: int | None) -> list[int]:
        """A seat's towers (its TABLE zone): the first ``th`` cards of each kind, bottom first."""
        rows = L.S.read(st, name, seat).reshape(L.NK, L.MAXH)
        return [int(c) for k in range(L.NK) for c in rows[k, :int(st[L.S_TH + seat * L.NK + k])]]

    def zones(self, snap: np.ndarray, players: int) -> dict:
        """Every zone of a state snapshot, cards as rule-page codes."""
        code = L.card_code
        towers, rubble = [], []
        for s in range(players):
            tw = {}
            for k in range(L.NK):
                h = int(snap[L.S_TH + s * L.NK + k])
                o = L.S_TOW + (s * L.NK + k) * L.MAXH
                tw[L.KINDS[k]] = [code(int(c)) for c in snap[o:o + h]]
            towers.append(tw)
            r = int(snap[L.S_RUB_N + s])
            rubble.append([code(int(c)) for c in snap[L.S_RUB + s * L.NCARDS:][:r]])
        nd, nx = int(snap[L.S_DRAW_N]), int(snap[L.S_DISC_N])
        return {
            "draw": [code(int(c)) for c in snap[L.S_DRAW:L.S_DRAW + nd][::-1]],
            "discard": [code(int(c)) for c in snap[L.S_DISC:L.S_DISC + nx]],
            "offer": [code(int(c)) for c in snap[L.S_OFFER:L.S_OFFER + L.MAXOFF] if c >= 0],
            "towers": towers,
            "rubble": rubble,
        }

    def decode_trace(self, rules, players, st):
        n, tev, tsnap = self.trace_arrays(st)
        code = L.card_code
        events = []
        for i in range(n):
            kind, player, rnd, a, b, c, d, _, _ = (int(x) for x in tev[i])
            ev: dict[str, Any] = {"type": "event", "step": i, "turn": rnd,
                                  "player": None if player < 0 else player,
                                  "action": L.EVENT_NAMES[kind]}
            if kind == L.EV_REVEAL:
                ev.update(slot=a, card=code(b))
            elif kind == L.EV_RESHUFFLE:
                ev.update(draw=a)
            elif kind == L.EV_BID:
                ev.update(bid=a)
            elif kind == L.EV_TEARDOWN:
                ev.update(kind=L.KINDS[a], card=code(b))
            elif kind == L.EV_PLACE:
                ev.update(slot=a, card=code(b), kind=L.KINDS[c], height=d)
            elif kind == L.EV_DISCARD:
                ev.update(slot=a, card=code(b))
            ev["state"] = self.zones(tsnap[i], players)
            events.append(ev)
        return events


GAME = FiveTowers()
