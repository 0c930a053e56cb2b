"""Skyscraper (game id ``skyscraper``): knobs, rule vector, card types and trace decoding.

Rules: ``docs/rules/skyscraper.md`` (our page, with the decisions we took) and
``../shared/rules/skyscraper.md``.  The compiled game is in ``kernel.py`` (loop) and
``moves.py`` (rules); the numbers it shares with strategies are in ``layout.py``;
the kernel's ``RULES`` is what ``sim/bind.py`` binds the engine, the search player and the
strategies to.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from cardlab.sim.errors import InputError
from cardlab.sim.game import Game
from cardlab.sim.knobs import Knob
from cardlab.sim.skyscraper import layout as L


def _count(name, default, meaning):
    return Knob(name, "int", default, meaning, 0, 12)


class Skyscraper(Game):
    id = "skyscraper"
    title = "Skyscraper: build five floors of two cards summing to 9"
    min_players = 1
    default_players = 2
    length_unit = "turns"
    layout = L          # the schema: seats, events, ends, tally and the modules follow from it
    score_name = "floors"
    precompile = ("cardlab.sim.skyscraper.kernel:step",)
    knobs = (
        Knob("floor_copies", "int", 4, "copies of each floor card value", 1, 12),
        Knob("floor_max", "int", 8, "floor cards have values 1..floor_max", 2, L.FLOOR_LIMIT),
        Knob("floor_sum", "int", 9, "two floor cards summing to this make a floor", 2, 2 * L.FLOOR_LIMIT),
        _count("jokers", 4, "jokers (stand for any floor value; never two together)"),
        _count("dogs", 4, "guard dogs (protect a top floor from steals and hammers)"),
        _count("bones", 2, "bones (remove an opponent's dog)"),
        _count("hammers", 3, "jackhammers (demolish an unguarded top floor)"),
        _count("balls", 1, "wrecking balls (demolish a top floor, dog or not)"),
        _count("shakes", 3, "milkshakes (the next opponent skips a turn)"),
        _count("trucks", 1, "donut trucks (every opponent skips a turn)"),
        _count("thieves", 3, "thieves (take a random card from one opponent's hand)"),
        _count("super_thieves", 1, "super thieves (take a random card from every opponent)"),
        Knob("floors_to_win", "int", 5, "floors needed to win at once (the short variant: 4)", 1, 12),
        Knob("hand_size", "int", 5, "cards dealt to each player", 0, 20),
        Knob("draw_skip_at", "int", 8, "no start-of-turn draw while the hand holds this many cards", 1, 60),
        Knob("refill_to", "int", 3, "refill the hand to this many cards at the end of a turn", 0, 20),
        Knob("max_dogs_per_floor", "int", 1, "dogs that may guard one floor", 1, 4),
        Knob("dog_moves_up", "bool", False, "a dog follows its owner's new top floor (false: stays on its floor)"),
        Knob("skips_stack", "bool", True, "two skip cards on one player skip two turns (false: one)"),
        Knob("solo_discard_specials", "bool", True, "alone, attack and skip cards may be discarded with no effect"),
        Knob("max_turns", "int", 500, "turn cap (seat slots, skipped ones included): the game ends unfinished", 1, 100_000),
        # compensation knobs: not in the rulebook, balancing options against the advantage of
        # moving first (measured in docs/rules/skyscraper.md); each default is the printed game
        Knob("first_turn_no_draw", "int", 0, "balancing option (not in the rulebook): the first n "
             "seats (0..n-1) skip the start-of-turn draw on their first turn (fewer than the players)",
             0, L.MAXP - 1, compensation=True),
        Knob("later_seats_extra", "int", 0, "balancing option (not in the rulebook): every seat after "
             "the first is dealt this many cards more", 0, 3, compensation=True),
    )

    def validate(self, rules: dict[str, Any], players: int) -> None:
        fmax, fsum = rules["floor_max"], rules["floor_sum"]
        if not (2 <= fsum <= 2 * fmax):
            raise InputError(f"bad floor_sum={fsum}: with floor_max={fmax} two floor cards can sum "
                             f"only to 2..{2 * fmax}")
        deck = self.deck_size(rules)
        if deck > L.DECK_MAX:
            raise InputError(f"deck of {deck} cards is too large: at most {L.DECK_MAX}")
        n = rules["first_turn_no_draw"]
        if n >= players > 0:
            # n = players would take the first draw from every seat alike: no compensation
            raise InputError(f"bad value {n} for knob 'first_turn_no_draw' with {players} players: "
                             f"allowed 0 to {players - 1} (fewer than the players)")
        extra = rules["later_seats_extra"]
        need = rules["hand_size"] * players + extra * max(players - 1, 0)
        if need > deck:
            what = f" (and later_seats_extra={extra} more to each seat after the first)" if extra else ""
            raise InputError(f"cannot deal {rules['hand_size']} cards{what} to {players} players from a "
                             f"deck of {deck}: lower hand_size or add cards")

    @staticmethod
    def deck_size(rules: dict[str, Any]) -> int:
        specials = ("jokers", "dogs", "bones", "hammers", "balls", "shakes", "trucks", "thieves",
                    "super_thieves")
        return rules["floor_copies"] * rules["floor_max"] + sum(rules[k] for k in specials)

    def rules_vector(self, rules: dict[str, Any], players: int) -> np.ndarray:
        v = np.zeros(L.N_RULES, dtype=np.int64)  # the kernel copies it to st[S_RULES:]
        v[L.R_PLAYERS - L.S_RULES] = players
        names = {
            L.R_FLOOR_COPIES: "floor_copies", L.R_FLOOR_MAX: "floor_max", L.R_FLOOR_SUM: "floor_sum",
            L.R_JOKERS: "jokers", L.R_DOGS: "dogs", L.R_BONES: "bones", L.R_HAMMERS: "hammers",
            L.R_BALLS: "balls", L.R_SHAKES: "shakes", L.R_TRUCKS: "trucks", L.R_THIEVES: "thieves",
            L.R_SUPERS: "super_thieves", L.R_FLOORS_TO_WIN: "floors_to_win",
            L.R_HAND_SIZE: "hand_size", L.R_DRAW_SKIP_AT: "draw_skip_at",
            L.R_REFILL_TO: "refill_to", L.R_MAX_DOGS: "max_dogs_per_floor",
            L.R_DOG_MOVES_UP: "dog_moves_up", L.R_SKIPS_STACK: "skips_stack",
            L.R_SOLO_DISCARD: "solo_discard_specials", L.R_MAX_TURNS: "max_turns",
            L.R_FIRST_TURN_NO_DRAW: "first_turn_no_draw", L.R_LATER_SEATS_EXTRA: "later_seats_extra",
        }
        for slot, name in names.items():
            v[slot - L.S_RULES] = int(rules[name])
        return v

    def max_length(self, rules: dict[str, Any], players: int | None = None) -> int:
        return int(rules["max_turns"])

    def card_types(self, rules: dict[str, Any]) -> list[tuple[int, str]]:
        counts = [rules[k] for k in ("jokers", "dogs", "bones", "hammers", "balls", "shakes",
                                     "trucks", "thieves", "super_thieves")]
        out = [(t, L.card_code(t)) for t in range(9) if counts[t] > 0]
        out += [(L.F0 + v, L.card_code(L.F0 + v)) for v in range(1, rules["floor_max"] + 1)]
        return out

    # ------------------------------------------------------------ presentation
    trace_parts = {"discard": "disc"}

    def card_face(self, code: str) -> tuple[str, str] | None:
        if code in L.SPECIAL_CODES:
            return code, "special"
        return (code[1:], "floor") if code.startswith("F") and code[1:].isdigit() else None

    def describe_action(self, act: tuple[int, int, int, int], obs: dict) -> str | None:
        L = self.layout
        kind, a, b, c = act
        code = L.card_code
        if kind == L.A_STOP:
            return "end your turn"
        if kind == L.A_BUILD:
            joker = f" (joker as {c})" if code(b) == "J" else ""
            return f"build a floor of {code(a)} and {code(b)}{joker}"
        if kind == L.A_STEAL:
            return f"play {code(c)} to steal card {b} of seat {a}'s top floor"
        if kind == L.A_DISCARD:
            return f"discard {code(a)}"
        name = {L.A_DOG: "DOG", L.A_BONE: "BONE", L.A_HAM: "HAM", L.A_BALL: "BALL", L.A_THIEF: "THIEF",
                L.A_SUPER: "SUPER", L.A_SHAKE: "SHAKE", L.A_TRUCK: "TRUCK"}.get(kind)
        if name and kind in (L.A_BONE, L.A_HAM, L.A_BALL, L.A_THIEF):
            return f"play {name} on seat {a}"
        return f"play {name}" if name else None

    # ------------------------------------------------------------ traces
    @staticmethod
    def zone_cards(st: np.ndarray, name: str, seat: int | None) -> list[int]:
        """A tower's cards (its TABLE zone): each floor's two cards and the dogs guarding it."""
        rows = L.S.read(st, name, seat).reshape(L.MAXF, L.FW)[:L.S.value(st, "nfl", seat)]
        return [int(t) for f in rows for t in (f[L.FL_T0], f[L.FL_T1])] + [L.DOG] * int(rows[:, L.FL_DOGS].sum())

    def zones(self, snap: np.ndarray, players: int) -> dict:
        """Every zone of a state snapshot, cards as rule-page codes (read by name through
        the schema; a tower's rows are Skyscraper's own)."""
        code, S = L.card_code, L.S
        towers = []
        for s in range(players):
            rows = S.read(snap, "tower", s).reshape(L.MAXF, L.FW)[:S.value(snap, "nfl", s)]
            towers.append([{"cards": [code(int(f[L.FL_T0])), code(int(f[L.FL_T1]))],
                            "values": [int(f[L.FL_V0]), int(f[L.FL_V1])],
                            "dog": int(f[L.FL_DOGS]) > 0, "dogs": int(f[L.FL_DOGS]),
                            "guards": [code(L.DOG)] * int(f[L.FL_DOGS])} for f in rows])
        return {
            "draw": [code(t) for t in S.cards(snap, "draw")[::-1]],
            "discard": [code(t) for t in S.cards(snap, "disc")],
            "hands": [[code(t) for t in S.cards(snap, "hand", s)] for s in range(players)],
            "towers": towers,
            "skips": [S.value(snap, "skip", s) for s in range(players)],
        }

    def decode_trace(self, rules, players, st):
        n, tev, tsnap = self.trace_arrays(st)
        code = L.card_code
        opt = lambda t: None if t < 0 else code(int(t))  # noqa: E731
        events = []
        for i in range(n):
            kind, player, turn, a, b, c, d, e, _ = (int(x) for x in tev[i])
            name = L.EVENT_NAMES[kind]
            ev: dict[str, Any] = {"type": "event", "step": i, "turn": turn,
                                  "player": None if player < 0 else player, "action": name}
            if kind == L.EV_DEAL:
                ev.update(seat=a, cards=b)
            elif kind == L.EV_RESHUFFLE:
                ev.update(cards=a)
            elif kind in (L.EV_DRAW, L.EV_DISCARD):
                ev.update(card=code(a))
            elif kind == L.EV_BUILD:
                ev.update(cards=[code(a), code(b)], values=[c, d])
            elif kind == L.EV_STEAL:
                ev.update(target=a, taken_index=b, played=code(c), taken=code(d), taken_value=e,
                          cards=[code(c), code(d)], values=[c - L.F0, e])
            elif kind in (L.EV_BONE, L.EV_HAM, L.EV_BALL, L.EV_SHAKE):
                ev.update(target=a)
            elif kind == L.EV_THIEF:
                ev.update(target=a, card=opt(b))
            elif kind == L.EV_SUPER:
                ev.update(targets=[(player + k) % players for k in range(1, players)],
                          cards=[opt(x) for x in (a, b, c)[:players - 1]])
            elif kind == L.EV_TRUCK:
                ev.update(targets=[(player + k) % players for k in range(1, players)])
            ev["state"] = self.zones(tsnap[i], players)
            events.append(ev)
        return events


GAME = Skyscraper()
