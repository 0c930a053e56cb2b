"""Block Tower (game id ``block_tower``): knobs, rule vector, card types and trace decoding.

Rules: ``docs/rules/block_tower.md`` (our page, with the decisions we took) and
``../shared/rules/block_tower.md``.  The compiled game is in ``kernel.py`` (the
resumable step function: setup, step, the turn's phases) and ``moves.py`` (rules, the
collapse model, ``legal``); the state schema, decisions and numbers it shares with
strategies are in ``layout.py``; ``model.py`` draws towers with the kernel's own
placement code (for the collapse-model tests and the calibration check); the kernel's
``RULES`` is what ``sim/bind.py`` binds the engine, the search player and the strategies to.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from cardlab.sim.block_tower import layout as L
from cardlab.sim.errors import InputError
from cardlab.sim.game import Game
from cardlab.sim.knobs import Knob


def f2i(x: float) -> int:
    """A float knob as the int64 holding its float64 bits (read back with st.view)."""
    return int(np.array([x], np.float64).view(np.int64)[0])


class BlockTower(Game):
    id = "block_tower"
    title = "Block Tower: stack blocks with cards; make the next player topple the tower"
    min_players = 2
    default_players = 4
    length_unit = "rounds"
    layout = L          # the schema: seats, events, ends, tally and the modules follow from it
    score_name = "points"
    seat0_role = "the start player of round 0; the start card passes every round"
    # `tower` lists blocks (whose cards lie in the point pile), not cards
    card_zones = ("draw", "hands", "point_pile", "won", "used_actions")
    report_figures = "cardlab.analysis.block_tower:collapse_section"
    report_events = L.EV_H1  # the collapse_h* counters are the collapse-height figure
    precompile = ("cardlab.strategies.block_tower:tactician_action",
                  "cardlab.strategies.block_tower:tactician_second", "cardlab.strategies.block_tower:tactician_block",
                  "cardlab.strategies.block_tower:saboteur_block", "cardlab.strategies.block_tower:careful_action",
                  "cardlab.strategies.block_tower:careful_block", "cardlab.strategies.block_tower:random_action",
                  "cardlab.strategies.block_tower:random_second", "cardlab.strategies.block_tower:random_block")
    knobs = (
        Knob("points_split", "list", (8.0, 7.0, 5.0), "block cards worth 1, 2 and 3 points (codes B01.. in "
             "that order; at most 30 blocks)", 0, L.MAXB),
        Knob("target_points", "int", 30, "points that win (checked at each round's end; the highest "
             "total at or above it wins, ties share)", 1, 10_000),
        Knob("hand_size", "int", 3, "cards dealt to each player at a round's start", 1, 10),
        Knob("min_tower", "int", 4, "a collapse of a tower with fewer blocks than this scores 0", 0, L.MAXB + 1),
        Knob("difficulty", "list", (0.0, 0.3, 0.6), "placement difficulty d_b of a 1-, 2-, 3-point block", -10, 10),
        Knob("instability", "list", (0.1, 0.2, 0.3), "instability share s_b added by a 1-, 2-, 3-point block", 0, 10),
        Knob("base", "float", 0.01, "collapse model: base hazard", 0, 100),
        Knob("a_h", "float", 0.18, "collapse model: hazard growth per block of height", -5, 5),
        Knob("a_u", "float", 0.5, "collapse model: hazard growth per unit of instability", -5, 5),
        Knob("skill", "list", (0.0,), "per-seat skill (positive = steadier): one value for every seat, "
             "or one per seat", -10, 10),
        Knob("anywhere_factor", "float", 0.5, "hazard factor m of a block placed under ANYWHERE", 0, 10),
        Knob("risk_of_style", "float", 0.5, "sabotage style x multiplies the hazard by 1 + risk_of_style*x", 0, 10),
        Knob("push_of_style", "float", 1.0, "sabotage style x multiplies the instability added by "
             "1 + push_of_style*x", 0, 10),
        Knob("adjust_risk", "float", 0.5, "ADJUST falls with this times the top block's hazard", 0, 10),
        Knob("remove_risk", "float", 0.5, "REMOVE falls with this times the top block's hazard", 0, 10),
        Knob("reshuffle_draw", "choice", "three", "cards drawn after the two-action-card reshuffle: "
             "three (the rulebook's 'draw three new cards') or hand_size", choices=("three", "hand_size")),
        Knob("reshuffle_at", "choice", "any_time", "when the two-action-card reshuffle (once a turn) is "
             "offered: any_time = whenever the hand holds two action cards during the turn before the "
             "block (its start, after each draw up to a block card, after the action cards); "
             "turn_start = only at the turn's start", choices=("any_time", "turn_start")),
        Knob("swap_give", "choice", "match", "SWAP: match = an exchange, give as many cards as you take "
             "(min of 2, your cards, the target's cards; not playable on an empty hand); two = give "
             "min(2, your cards) and take what the target has", choices=("match", "two")),
        Knob("swap_last_block", "choice", "keep", "SWAP while the draw pile is empty: keep = the cards "
             "given must leave a block card in the hand (the rulebook: after an action card you must "
             "still play a block card, and none can be drawn); allow = any cards may be given, and a "
             "hand left without a block card ends the round by the even split in mid-turn (the "
             "reference page's reading)",
             choices=("keep", "allow")),
        Knob("split_min_tower", "bool", True, "the even split when the draw pile runs out also pays 0 "
             "for a tower of fewer than min_tower blocks"),
        Knob("max_rounds", "int", 200, "round cap: a game stopped by it is unfinished, with no winner", 1, 5000),
        # a compensation knob: not in the rulebook, a balancing option against the first start
        # player's edge (measured in docs/rules/block_tower.md); the default is the printed game
        Knob("first_start_fewer", "int", 0, "balancing option (not in the rulebook): the first round's "
             "start seat (seat 0) is dealt n cards fewer (fewer than hand_size)", 0, 9, compensation=True),
    )

    # ------------------------------------------------------------ knobs
    def validate(self, rules: dict[str, Any], players: int) -> None:
        split = rules["points_split"]
        if len(split) != 3 or any(not float(x).is_integer() for x in split):
            raise InputError(f"bad value {','.join(f'{x:g}' for x in split)!r} for knob 'points_split': "
                             f"allowed three whole numbers (blocks worth 1, 2, 3 points)")
        nb = int(sum(split))
        if not 1 <= nb <= L.MAXB:
            raise InputError(f"bad points_split {','.join(f'{x:g}' for x in split)!r}: the blocks must "
                             f"number 1 to {L.MAXB}, not {nb}")
        for name in ("difficulty", "instability"):
            if len(rules[name]) != 3:
                raise InputError(f"bad value {','.join(f'{x:g}' for x in rules[name])!r} for knob "
                                 f"'{name}': allowed three numbers (1-, 2-, 3-point blocks)")
        if len(rules["skill"]) not in (1, players):
            raise InputError(f"bad value {','.join(f'{x:g}' for x in rules['skill'])!r} for knob "
                             f"'skill': allowed one number or one per seat ({players} for "
                             f"--players {players})")
        fewer = rules["first_start_fewer"]
        if fewer >= rules["hand_size"]:
            raise InputError(f"bad value {fewer} for knob 'first_start_fewer' with hand_size="
                             f"{rules['hand_size']}: allowed 0 to {rules['hand_size'] - 1} (fewer than "
                             f"hand_size: the start seat is dealt at least one card)")
        cards = nb + 4
        if players * rules["hand_size"] > cards:
            raise InputError(f"cannot deal hand_size={rules['hand_size']} to {players} players from "
                             f"{cards} cards ({nb} blocks + 4 action cards): allowed hand_size up to "
                             f"{cards // players}")

    def rules_vector(self, rules: dict[str, Any], players: int) -> np.ndarray:
        v = np.zeros(L.N_RULES, dtype=np.int64)  # the kernel copies it to st[S_RULES:]

        def put(slot, x):
            v[slot - L.S_RULES] = x

        n1, n2, n3 = (int(x) for x in rules["points_split"])
        nb = n1 + n2 + n3
        put(L.R_PLAYERS, players)
        put(L.R_NB, nb)
        put(L.R_N1, n1)
        put(L.R_N12, n1 + n2)
        put(L.R_TARGET, int(rules["target_points"]))
        put(L.R_HAND, int(rules["hand_size"]))
        put(L.R_MIN_TOWER, int(rules["min_tower"]))
        put(L.R_MAX_ROUNDS, int(rules["max_rounds"]))
        put(L.R_BLOCKMASK, (1 << nb) - 1)
        put(L.R_RESH_N, 3 if rules["reshuffle_draw"] == "three" else int(rules["hand_size"]))
        put(L.R_RESH_ANY, 1 if rules["reshuffle_at"] == "any_time" else 0)
        put(L.R_SWAP_MATCH, 1 if rules["swap_give"] == "match" else 0)
        put(L.R_SPLIT_MIN, 1 if rules["split_min_tower"] else 0)
        put(L.R_SWAP_KEEP, 1 if rules["swap_last_block"] == "keep" else 0)
        put(L.R_FIRST_START_FEWER, int(rules["first_start_fewer"]))
        for slot, name in ((L.R_BASE, "base"), (L.R_AH, "a_h"), (L.R_AU, "a_u"),
                           (L.R_ANYF, "anywhere_factor"), (L.R_RISK_STYLE, "risk_of_style"),
                           (L.R_PUSH_STYLE, "push_of_style"), (L.R_ADJ_RISK, "adjust_risk"),
                           (L.R_REM_RISK, "remove_risk")):
            put(slot, f2i(rules[name]))
        for k in range(3):
            put(L.R_D + k, f2i(rules["difficulty"][k]))
            put(L.R_S + k, f2i(rules["instability"][k]))
        skill = rules["skill"]
        for s in range(L.MAXP):
            put(L.R_SKILL + s, f2i(skill[0] if len(skill) == 1 else (skill[s] if s < len(skill) else 0.0)))
        return v

    def max_length(self, rules: dict[str, Any], players: int | None = None) -> int:
        return int(rules["max_rounds"])

    def card_types(self, rules: dict[str, Any]) -> list[tuple[int, str]]:
        """Card power by card type: 1-, 2-, 3-point blocks (B1pt..B3pt) and each action card;
        a point value no block has is left out."""
        split = rules["points_split"]
        return [(t, L.TYPE_CODES[t]) for t in range(L.NT) if t >= 3 or split[t] > 0]

    def restriction_types(self) -> list[tuple[int, str]]:
        """Every block value and action card (points_split decides which values a deck has)."""
        return list(enumerate(L.TYPE_CODES))

    # ------------------------------------------------------------ presentation
    trace_parts = {"point_pile": "pile", "used_actions": "used", "tower": "pile", "shares": "share",
                   "start_seat": "start", "direction": "dir"}

    def card_face(self, code: str) -> tuple[str, str] | None:
        if code in L.ACTIONS:
            return code, "action"
        return (code, "block") if code.startswith("B") and code[1:].isdigit() else None

    def describe_action(self, act: tuple[int, int, int, int], obs: dict) -> str | None:
        L = self.layout
        kind, a, b, c = act
        d = obs["decision"]
        if d == "reshuffle":
            return "reshuffle your hand into the draw pile and draw anew" if kind else "keep your hand"
        if d in ("action", "second"):
            return "no action card" if kind < 0 and not (a or b or c) else f"play {L.card_code(kind)}"
        if d == "block":
            return f"place {L.card_code(kind)}, style {a / L.STYLE_ONE:g} (0 careful .. 1 sabotage)"
        return None

    # ------------------------------------------------------------ zones and traces
    def zone_cards(self, st: np.ndarray, name: str, seat: int | None = None) -> list[int]:
        """The card ids in zone ``name`` of a state (seat's, for a per-seat zone), through
        the schema (piles, and the bit-mask zones: hands, won, used).  The ``share`` zone
        holds blocks' numbers, not cards (``VALUES``)."""
        return L.S.cards(st, name, seat)

    def zones(self, snap: np.ndarray, players: int) -> dict:
        """Every zone of a state snapshot, cards as rule-page codes."""
        code = L.card_code
        f = snap.view(np.float64)
        nd, h = int(snap[L.S_DRAW_N]), int(snap[L.S_PILE_N])
        pile = [code(int(c)) for c in snap[L.S_PILE:L.S_PILE + h]]

        def cards(m):
            return [code(c) for c in L.mask_cards(int(m))]

        return {
            "draw": [code(int(c)) for c in snap[L.S_DRAW:L.S_DRAW + nd][::-1]],
            "hands": [cards(snap[L.S_HANDS + s]) for s in range(players)],
            "point_pile": pile,
            "won": [cards(snap[L.S_WON + s]) for s in range(players)],
            "used_actions": cards(snap[L.S_USED]),
            "tower": list(pile),
            "shares": [round(float(x), 12) for x in f[L.S_SHARE:L.S_SHARE + h]],
            "instability": round(float(f[L.S_U]), 12),
            "scores": [int(x) for x in snap[L.S_SCORES:L.S_SCORES + players]],
            "round": int(snap[L.S_ROUND]),
            "start_seat": int(snap[L.S_START]),
            "direction": int(snap[L.S_DIR]),
        }

    def decode_trace(self, rules, players, st):
        n, tev, tsnap = self.trace_arrays(st)
        code = L.card_code
        events = []
        for i in range(n):
            kind, player, turn, a, b, c, d, e, _f = (int(x) for x in tev[i])
            ev: dict[str, Any] = {"type": "event", "step": i, "turn": turn,
                                  "player": None if player < 0 else player,
                                  "action": L.EVENT_NAMES[kind]}
            if kind == L.EV_ROUND:
                ev.update(round=int(tsnap[i][L.S_ROUND]), start_seat=a, direction=b)
            elif kind == L.EV_DEAL:
                ev.update(seat=a, cards=[code(x) for x in L.mask_cards(b)])
            elif kind == L.EV_DRAW:
                ev.update(card=code(a))
            elif kind == L.EV_RESHUFFLE:
                ev.update(cards_back=a)
            elif kind == L.EV_PLACE:
                ev.update(card=code(a), style=b / L.STYLE_ONE, height=c, fell=bool(d),
                          hazard=e / 1e9)
            elif kind == L.EV_COLLAPSE:
                ev.update(height=a, to=b, pile_points=c, scored=d, during=L.DURING[e])
            elif kind == L.EV_SPLIT:
                ev.update(pile_points=a, each=b, height=c)
            elif kind == L.EV_ADJUST:
                ev.update(block=code(a), new_share=b / L.SHARE_ONE, fell=bool(c), hazard=d / 1e9)
            elif kind == L.EV_REMOVE:
                ev.update(block=code(a), fell=bool(b), hazard=c / 1e9, to="draw (bottom)")
            elif kind == L.EV_SWAP:
                ev.update(target=a, gave=[code(x) for x in (b, c) if x >= 0],
                          took=[code(x) for x in L.mask_cards(d)])
            ev["state"] = self.zones(tsnap[i], players)
            events.append(ev)
        return events


GAME = BlockTower()
