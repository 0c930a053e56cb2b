"""Smokestack (game id ``smokestack``): knobs, rule vector, card types and trace decoding.

Rules: ``docs/rules/smokestack.md`` (our page, with the decisions we took) and
``../shared/rules/smokestack.md``.  The compiled game is in ``kernel.py`` (the model:
``setup``, ``step``) and ``moves.py`` (rules, ``legal``); the declared state it shares with
strategies is in ``layout.py``; the kernel's ``RULES`` is what ``sim/bind.py``
binds the engine, the search player and the strategies to.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from cardlab.sim.errors import InputError
from cardlab.sim.game import Game, suited_face
from cardlab.sim.knobs import Knob
from cardlab.sim.smokestack import layout as L


class Smokestack(Game):
    id = "smokestack"
    title = "Smokestack: collect chimneys of four cards of a suit"
    min_players = 2
    default_players = 4
    length_unit = "turns"
    layout = L          # the schema: seats, events, ends, tally and the modules follow from it
    score_name = "chimneys"
    seat0_role = "the dealer, who moves last; seat 1 moves first"
    precompile = ("cardlab.sim.smokestack.kernel:step", "cardlab.strategies.smokestack:reference_stall",
                  "cardlab.strategies.smokestack:random_stall", "cardlab.strategies.smokestack:collector_double",
                  "cardlab.strategies.smokestack:greedy_double")
    # the default shuffle-back stall rule can stall a game for good: show it beside "discard"
    report_variants = (("stall_removed", "discard"), ("stall_removed", "shuffle"))
    # ladder: 64 iterations already beat every heuristic (+1.65 against sweeper's +0.89)
    strong_player = "mcts:iterations=64"
    knobs = (
        Knob("max_layouts", "int", 2, "layouts a player may build at once (double chimneys open more)", 1, L.MAXL),
        Knob("straights_count", "bool", True, "four consecutive ranks (ace high or low) also make a chimney"),
        Knob("sweeps_per_turn", "int", 1, "sweeps that may be called before one turn", 0, L.MAXP),
        Knob("sweeps_per_player", "int", -1, "sweeps each player may call per game (-1: unlimited)", -1, 1000),
        Knob("stall_removed", "choice", "shuffle", "on a stalled table the two removed center cards are "
             "shuffled into the stock (shuffle) or taken out of the game (discard)",
             choices=("shuffle", "discard")),
        Knob("max_turns", "int", 2000, "turn cap: the game is scored as it stands and counted unfinished", 1, 100_000),
        # compensation knobs: not in the rulebook, balancing options against the advantage of
        # moving first (measured in docs/rules/smokestack.md); each default is the printed game
        Knob("ties", "choice", "share", "seats tied for the most chimneys share the win (share, as printed); "
             "those of them that took the fewest turns win (fewer_turns); or the tied seat latest in turn "
             "order wins alone (later_seat: the dealer, then seat players-1, ..., seat 1 last)",
             choices=L.TIES, compensation=True),
        Knob("first_turn_no_double", "int", 0, "the first n movers (seats 1..n) may not declare a double "
             "chimney on their first turn (fewer than the players)", 0, L.MAXP - 1, compensation=True),
    )

    def validate(self, rules: dict[str, Any], players: int) -> None:
        # n = players would take the first-turn double from every seat alike: no compensation
        n = rules["first_turn_no_double"]
        if n >= players:
            raise InputError(f"bad value {n} for knob 'first_turn_no_double' with {players} players: "
                             f"allowed 0 to {players - 1} (fewer than the players)")

    def rules_vector(self, rules: dict[str, Any], players: int) -> np.ndarray:
        v = np.zeros(L.N_RULES, dtype=np.int64)  # the kernel copies it to st[S_RULES:]
        v[L.R_PLAYERS - L.S_RULES] = players
        v[L.R_MAX_LAYOUTS - L.S_RULES] = int(rules["max_layouts"])
        v[L.R_STRAIGHTS - L.S_RULES] = int(bool(rules["straights_count"]))
        v[L.R_SWEEPS_PER_TURN - L.S_RULES] = int(rules["sweeps_per_turn"])
        v[L.R_SWEEPS_PER_PLAYER - L.S_RULES] = int(rules["sweeps_per_player"])
        v[L.R_STALL_DISCARD - L.S_RULES] = int(rules["stall_removed"] == "discard")
        v[L.R_MAX_TURNS - L.S_RULES] = int(rules["max_turns"])
        v[L.R_TIES - L.S_RULES] = L.TIES.index(rules["ties"])
        v[L.R_FIRST_TURN_NO_DOUBLE - L.S_RULES] = int(rules["first_turn_no_double"])
        return v

    def max_length(self, rules: dict[str, Any], players: int | None = None) -> int:
        return int(rules["max_turns"])

    def card_types(self, rules: dict[str, Any]) -> list[tuple[int, str]]:
        """Card power by rank (13 types: a suit is worth the same as any other)."""
        return [(r, L.RANKS[r]) for r in range(L.NT)]

    # ------------------------------------------------------------ presentation
    trace_parts = {"layouts": "lay", "chimneys": "ch", "removed": "rem"}

    def card_face(self, code: str) -> tuple[str, str] | None:
        return suited_face(code, L.SUITS, L.RANKS)

    def describe_action(self, act: tuple[int, int, int, int], obs: dict) -> str | None:
        L = self.layout
        kind, a, b, c = act
        d = obs["decision"]
        if d == "sweep":
            return "call the sweep" if kind else "do not call the sweep"
        if d == "double":
            return "no double chimney" if kind < 0 else f"declare a double chimney in layout {kind}"
        if d == "swap":
            if kind == L.A_PASS:
                return "pass"
            center = obs["zones"].get("center")
            card = center[c] if isinstance(center, list) and 0 <= c < len(center) else None
            what = f"center card {c}" + (f" ({card})" if isinstance(card, str) else "")
            return f"swap {what} into slot {b} of layout {a}"
        if d == "stall":
            return f"replace center slots {kind} and {a}"
        return None

    # ------------------------------------------------------------ traces
    @staticmethod
    def zone_cards(st: np.ndarray, name: str, seat: int | None) -> list[int]:
        """A seat's layouts (the first ``nlay``, empty slots -1) or chimneys (the first
        ``nch``, 4 cards each): its TABLE zones."""
        n = int(st[(L.S_NLAY if name == "lay" else L.S_NCH) + seat]) * 4
        return [int(c) for c in L.S.read(st, name, seat)[:n] if c >= 0]

    def zones(self, snap: np.ndarray, players: int) -> dict:
        """Every zone of a state snapshot, cards as rule-page codes."""
        code = L.card_code
        ns, nr = int(snap[L.S_STOCK_N]), int(snap[L.S_REM_N])
        layouts, chimneys = [], []
        for s in range(players):
            lays = []
            for l in range(int(snap[L.S_NLAY + s])):
                o = L.S_LAY + (s * L.MAXL + l) * 4
                lays.append([code(int(c)) for c in snap[o:o + 4] if c >= 0])
            layouts.append(lays)
            chs = []
            for k in range(int(snap[L.S_NCH + s])):
                o = L.S_CH + (s * L.MAXCH + k) * 4
                chs.append([code(int(c)) for c in snap[o:o + 4]])
            chimneys.append(chs)
        return {
            "stock": [code(int(c)) for c in snap[L.S_STOCK:L.S_STOCK + ns][::-1]],
            "center": [code(int(c)) for c in snap[L.S_CENTER:L.S_CENTER + 4] if c >= 0],
            "layouts": layouts,
            "chimneys": chimneys,
            "removed": [code(int(c)) for c in snap[L.S_REM:L.S_REM + nr]],
        }

    def decode_trace(self, rules, players, st):
        n, tev, tsnap = self.trace_arrays(st)
        code = L.card_code
        events = []
        for i in range(n):
            kind, player, turn, a, b, c, d, e, f = (int(x) for x in tev[i])
            ev: dict[str, Any] = {"type": "event", "step": i, "turn": turn,
                                  "player": None if player < 0 else player,
                                  "action": L.EVENT_NAMES[kind]}
            if kind == L.EV_DEAL:
                if a < 0:
                    ev.update(to="center", cards=c)
                else:
                    ev.update(to="layout", seat=a, layout=b, cards=c)
            elif kind == L.EV_DOUBLE:
                ev.update(layout=a, new_layout=b)
            elif kind == L.EV_SWAP:
                ev.update(layout=a, slot=b, center_slot=c, took=code(d), gave=code(e))
            elif kind in (L.EV_CHIMNEY, L.EV_STRAIGHT):
                ev.update(layout=a, cards=[code(x) for x in (b, c, d, e)])
            elif kind == L.EV_STALL:
                ev.update(slots=[a, b], removed=[code(x) for x in (c, d) if x >= 0],
                          replaced_by=[code(x) for x in (e, f) if x >= 0],
                          to="removed" if rules["stall_removed"] == "discard" else "stock")
            ev["state"] = self.zones(tsnap[i], players)
            events.append(ev)
        return events


GAME = Smokestack()
