"""Crazy Eights (game id ``crazy_eights``): knobs, rule vector, card types and trace decoding.

Rules: ``docs/rules/crazy_eights.md`` (our page, with the decisions we took) and
``../shared/rules/crazy_eights.md``.  The compiled game is in ``kernel.py`` (the resumable
step function) and ``moves.py`` (the rules' helpers, ``legal``); the state schema and the
numbers it shares with strategies are in ``layout.py``; the kernel's ``RULES`` is what
``sim/bind.py`` binds the engine, the search player and the strategies to.
"""
from __future__ import annotations

from typing import Any

from cardlab.sim.crazy_eights import layout as L
from cardlab.sim.errors import InputError
from cardlab.sim.game import Game, suited_face
from cardlab.sim.knobs import Knob

MAX_HAND = 25


class CrazyEights(Game):
    id = "crazy_eights"
    title = "Crazy Eights: shed your hand on a matching rank or suit; eights are wild"
    min_players = 2
    default_players = 3
    length_unit = "turns"
    layout = L          # the schema: seats, events, ends, tally and the modules follow from it
    score_name = "points"
    precompile = ("cardlab.sim.crazy_eights.kernel:step",)
    # the report also plays these variants on the same seeds: how often tables block without
    # a new stock, and what a kept 8 starter gives seat 0
    report_variants = (("reshuffle", "false"), ("starter_eight", "keep"))
    # ladder: only the 1,024-iteration search beats starver (Bradley-Terry +0.14 against +0.08)
    strong_player = "mcts:iterations=1024"
    knobs = (
        Knob("hand_size", "choice", "auto", "cards dealt to each seat: auto = 7 with 2 players, 5 "
             f"with 3 or more; or a number 1..{MAX_HAND}",
             choices=("auto",) + tuple(str(n) for n in range(1, MAX_HAND + 1))),
        Knob("starter_eight", "choice", "rebury", "an 8 turned as the starter: rebury = back into "
             "the stock under at least one card, turn the next; keep = it stays and any card may "
             "be played on it", choices=("rebury", "keep")),
        Knob("may_draw_when_able", "bool", False, "a seat that can play may draw instead (one card "
             "at a time, at each of its play decisions)"),
        Knob("draw_limit", "int", 0, "cards a seat may draw in one turn: 0 = until it can play; n = "
             "at most n, then it passes", 0, L.NCARDS),
        Knob("reshuffle", "bool", True, "an empty stock is renewed from the discard pile except its "
             "top card, shuffled (false: no new stock)"),
        Knob("score", "choice", "win", "win = record who won only (scores 0); points = each winner "
             "scores the penalty points left in the losers' hands, each loser minus its own",
             choices=("win", "points")),
        Knob("max_turns", "int", 1000, "turn cap (seat slots, passes included): the game ends "
             "unfinished, no winner", 1, 100_000),
        # compensation knobs: not in the rulebook, balancing options against the first
        # player's edge (cardlab balance searches them); 0 deals exactly the printed game
        Knob("first_seat_extra", "int", 0, "balancing option (not in the rulebook): the first "
             "player (seat 0) is dealt this many cards more than the others, after the normal "
             "rounds", 0, 5, compensation=True),
        Knob("last_seat_fewer", "int", 0, "balancing option (not in the rulebook): the last seat "
             "in turn order is dealt this many cards fewer (it sits out the deal's last rounds)",
             0, 3, compensation=True),
        Knob("follow_suit_turns", "int", 0, "balancing option (not in the rulebook): in the game's "
             "first n turns (seat 0's first, then seat 1's, ...) a card must follow suit: no rank "
             "match, no 8", 0, 6, compensation=True),
    )

    @staticmethod
    def hand_size(rules: dict[str, Any], players: int) -> int:
        h = rules["hand_size"]
        return (7 if players == 2 else 5) if h == "auto" else int(h)

    def validate(self, rules: dict[str, Any], players: int) -> None:
        h = self.hand_size(rules, players)
        extra, fewer = rules["first_seat_extra"], rules["last_seat_fewer"]
        if fewer >= h:  # every seat starts with a card: a seat dealt none would be out at once
            raise InputError(f"cannot deal last_seat_fewer={fewer} with hand_size={rules['hand_size']} "
                             f"({h} cards): the last seat would be dealt no card (at most {h - 1})")
        # the starter needs a card; reburying an 8 needs a card that is not an 8 in what is
        # left, which the 4 eights cannot all be once 5 cards are left
        most = L.NCARDS - (5 if rules["starter_eight"] == "rebury" else 1)
        dealt = h * players + extra - fewer
        if dealt > most:
            what = f"hand_size={rules['hand_size']} ({h} cards) to {players} players"
            each = f" ({most // players} each)"
            if extra or fewer:
                what += f" with first_seat_extra={extra}, last_seat_fewer={fewer} ({dealt} cards in all)"
                each = ""
            raise InputError(f"cannot deal {what}: with starter_eight={rules['starter_eight']} at most "
                             f"{most} cards can be dealt{each}")

    def rule_values(self, rules: dict[str, Any], players: int) -> dict[str, int]:
        return {"hand_size": self.hand_size(rules, players), "rebury": rules["starter_eight"] == "rebury",
                "may_draw": rules["may_draw_when_able"], "points": rules["score"] == "points"}

    def card_types(self, rules: dict[str, Any]) -> list[tuple[int, str]]:
        return list(enumerate(L.RANKS))  # card power by rank

    # ------------------------------------------------------------ presentation
    def card_face(self, code: str) -> tuple[str, str] | None:
        return suited_face(code, L.SUITS, L.RANKS)

    def describe_action(self, act: tuple[int, int, int, int], obs: dict) -> str | None:
        kind, card, _, _ = act
        if obs["decision"] == "call":
            return f"call {'CDHS'[kind]} ({('clubs', 'diamonds', 'hearts', 'spades')[kind]})"
        return f"play {L.card_code(card)}" if kind == L.A_PLAY else "draw a card from the stock"

    # ------------------------------------------------------------ traces (the zones: Game.zones,
    # from the schema: stock top card first, discard pile bottom first, each seat's hand)
    event_fields = {"deal": ("seat", "card:card"), "starter": ("card:card", "reburied:bool"),
                    "play": ("card:card", "called:SUITS?"), "draw": ("card:card",), "reshuffle": ("cards",)}


GAME = CrazyEights()
