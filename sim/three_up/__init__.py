"""3UP 3DOWN (game id ``three_up``): knobs, rule vector, card types and trace decoding.

Rules: ``docs/rules/three_up.md`` (our page, with the decisions we took) and
``../shared/rules/three_up.md``.  The compiled game is in ``kernel.py`` (setup and the
resumable ``step``) and ``moves.py`` (rules, ``legal``); the state schema and the numbers
it shares with strategies are in ``layout.py``; the kernel's ``RULES`` is what
``sim/bind.py`` binds the engine, the search player and the strategies to.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from cardlab.sim.errors import InputError
from cardlab.sim.game import Game
from cardlab.sim.knobs import Knob
from cardlab.sim.three_up import layout as L


def _count(name, meaning):
    return Knob(name, "int", -1, meaning + " (-1: the deck preset's count)", -1, 12)


class ThreeUp(Game):
    id = "three_up"
    title = "3UP 3DOWN: shed hand, up and blind down cards onto an equal-or-higher pile"
    min_players = 2
    default_players = 4
    length_unit = "turns"
    layout = L          # the schema: seats, events, ends, tally and the modules follow from it
    score_name = "cards_left"
    seat0_role = "the first player"
    precompile = ("cardlab.sim.three_up.kernel:apply",)
    # the two decks on the same seeds
    report_variants = (("deck", "seed74"), ("deck", "published84"))
    # ladder: only the 1,024-iteration search beats reference clearly (Bradley-Terry +0.45
    # against +0.24; at 256 iterations +0.35, the intervals overlap)
    strong_player = "mcts:iterations=1024"
    # a variant whose results need a caveat wherever the report shows them: "knob=value" ->
    # (a short tag beside its label, the note under the table) (analysis/report.py)
    report_variant_caveats = {
        "deck=published84": ("unverified deck", "deck=published84 is an unverified composition (7 of each "
                             "number, 7 CLR, 6 CLR1, 1 CLR2): the seed text says 84 cards but itemises 74, "
                             "and this deck is the published game's only as reported elsewhere, with no "
                             "source we could check. Its rows are a what-if, not a statement about the "
                             "published game (docs/rules/three_up.md, decision 1)."),
    }
    knobs = (
        Knob("deck", "choice", "seed74", "deck preset: seed74 (the seed text's 74 cards: 6 of each "
             "number, 6 CLR, 6 CLR1, 2 CLR2) or published84 (UNVERIFIED composition, no checkable "
             "source: 7 of each number, 7 CLR, 6 CLR1, 1 CLR2, the published game as reported "
             "elsewhere; the seed text says 84 cards but itemises 74)", choices=tuple(L.PRESETS)),
        Knob("max_number", "int", 10, "number cards run 1..max_number", 1, L.MAXN),
        _count("copies", "copies of each number card"),
        _count("clear_copies", "Clear cards"),
        _count("clear1_copies", "Clear +1 cards"),
        _count("clear2_copies", "Clear +2 cards (all green)"),
        Knob("clear_run", "int", 3, "equal numbers in a row on top of the pile (one player's "
             "multiple or several players') that clear it", 2, 100),
        Knob("equal_is_legal", "bool", True, "a number equal to the top card may be played "
             "(false: strictly higher)"),
        Knob("must_play_if_able", "bool", True, "a player with a legal discard must make one "
             "(false: a strategy may pick up a non-empty pile instead)"),
        Knob("draw_after_pickup", "bool", False, "a turn that ends with a pick-up still draws "
             "back up to 3 (false: the literal 'and the turn ends')"),
        Knob("empty_hand_in_chain", "choice", "draw", "a hand emptied inside a Clear +1/+2 chain "
             "while the draw pile lasts: draw (the seat gives up the owed discards and draws back "
             "up to 3 at the end of the turn) or pickup (the reference page's reading: it cannot "
             "play, picks up the pile, often empty, and the turn ends with no draw)",
             choices=L.EMPTY_HAND_CHOICES),
        Knob("extra_discards", "choice", "hand_optional", "the extra discards a Clear +1/+2 grants: "
             "hand_optional (the seed text: Clear +1 'allows' another discard; a seat discarding from "
             "its hand may end the chain instead and go on to the draw, while from its up or down "
             "cards each extra discard must be made and a failed one picks up the pile, the penalty "
             "the text states for a Clear +2 played from them) or compulsory (the reference page's "
             "reading: every extra discard must be made; no legal one, also from the hand, picks up "
             "the pile)",
             choices=L.EXTRA_CHOICES),
        Knob("max_turns", "int", 1000, "turn cap (seat slots, pick-up-only turns included): the "
             "game ends with no winner, counted unfinished", 1, 100_000),
        # a compensation knob: not in the rulebook, a balancing option against the first
        # player's edge (measured in docs/rules/three_up.md); 0 is the printed game
        Knob("later_seats_extra", "int", 0, "balancing option (not in the rulebook): once every seat "
             "has laid its up cards, each seat after seat 0 draws this many cards into its hand "
             "before the first turn", 0, 3, compensation=True),
    )

    def validate(self, rules: dict[str, Any], players: int) -> None:
        counts = L.deck_counts(rules)
        n = sum(counts.values())
        if max(counts.values()) > L.MAXK:
            raise InputError(f"at most {L.MAXK} cards of one face")
        if n > L.MAXC:
            raise InputError(f"deck of {n} cards is too large: at most {L.MAXC} "
                             f"(lower copies or max_number)")
        need = (L.NDOWN + L.NDEAL) * players
        if need > n:
            raise InputError(f"cannot deal {L.NDOWN} down cards and {L.NDEAL} cards to each of "
                             f"{players} players ({need} cards) from a deck of {n}: add cards "
                             f"or lower --players")
        extra = rules["later_seats_extra"] * (players - 1)
        if need + extra > n:
            raise InputError(f"cannot give each seat after seat 0 later_seats_extra="
                             f"{rules['later_seats_extra']} cards more ({extra} in all): the deal "
                             f"leaves {n - need} in the draw pile")

    def rules_vector(self, rules: dict[str, Any], players: int) -> np.ndarray:
        v = np.zeros(L.N_RULES, dtype=np.int64)  # the kernel copies it to st[S_RULES:]
        cards = L.deck_cards(rules)
        v[L.R_PLAYERS - L.S_RULES] = players
        v[L.R_NCARDS - L.S_RULES] = len(cards)
        v[L.R_MAXN - L.S_RULES] = int(rules["max_number"])
        v[L.R_CLEAR_RUN - L.S_RULES] = int(rules["clear_run"])
        v[L.R_EQUAL - L.S_RULES] = int(bool(rules["equal_is_legal"]))
        v[L.R_MUST - L.S_RULES] = int(bool(rules["must_play_if_able"]))
        v[L.R_DRAW_AFTER_PICKUP - L.S_RULES] = int(bool(rules["draw_after_pickup"]))
        v[L.R_EMPTY_HAND_PICKUP - L.S_RULES] = L.EMPTY_HAND_CHOICES.index(rules["empty_hand_in_chain"])
        v[L.R_EXTRA_OPT - L.S_RULES] = L.EXTRA_CHOICES.index(rules["extra_discards"])
        v[L.R_MAX_TURNS - L.S_RULES] = int(rules["max_turns"])
        for i, (t, _) in enumerate(cards):
            v[L.R_TYPE - L.S_RULES + i] = t
        v[L.R_LATER_SEATS_EXTRA - L.S_RULES] = int(rules["later_seats_extra"])
        return v

    def max_length(self, rules: dict[str, Any], players: int | None = None) -> int:
        return int(rules["max_turns"])

    def card_types(self, rules: dict[str, Any]) -> list[tuple[int, str]]:
        """Card power by face (numbers, CLR, CLR1, CLR2 present in the deck): colours
        never matter for play."""
        return [(t, L.face(t)) for t, n in sorted(L.deck_counts(rules).items()) if n > 0]

    def restriction_types(self) -> list[tuple[int, str]]:
        """Every face a deck may hold (max_number goes up to 15)."""
        return [(t, L.face(t)) for t in range(L.NT)]

    # ------------------------------------------------------------ re-dealing hidden cards
    # (sim/observe.py) a hand is a stack of card ids per type with its count (S_HCNT) and
    # the mask of its types (S_HMASK): read and written here; and while seats still choose
    # their up cards, each one's six dealt positions (S_DEALT) must name the cards its
    # re-dealt hand now holds (once chosen, they are cleared).  As the compiled
    # ``kernel.table_put``: nothing of the old hand is left behind.
    @staticmethod
    def zone_cards(st: np.ndarray, name: str, seat: int | None) -> list[int]:
        if name != "hand":
            return L.S.cards(st, name, seat)
        o = seat * L.NT
        return [int(st[L.S_HAND + (o + t) * L.MAXK + k])
                for t in range(L.NT) for k in range(int(st[L.S_HCNT + o + t]))]

    @staticmethod
    def put_zone_cards(st: np.ndarray, name: str, seat: int | None, cards: list[int]) -> bool:
        if name != "hand":
            return False
        o = seat * L.NT
        st[L.S_HCNT + o:L.S_HCNT + o + L.NT] = 0
        st[L.S_HAND + o * L.MAXK:L.S_HAND + (o + L.NT) * L.MAXK] = 0  # the cards that left it
        m = 0
        for c in cards:
            t = int(st[L.R_TYPE + c])
            k = int(st[L.S_HCNT + o + t])
            st[L.S_HAND + (o + t) * L.MAXK + k] = c
            st[L.S_HCNT + o + t] = k + 1
            m |= 1 << t
        st[L.S_HMASK + seat] = m  # the types it holds (its owner's information, like the hand)
        dealt = np.zeros(L.NDEAL, dtype=np.int64)
        if st[L.S_PHASE] == L.D_UP and seat >= st[L.S_ACTOR]:  # its up choice is to come
            dealt[:len(cards)] = cards
        st[L.S_DEALT + seat * L.NDEAL:L.S_DEALT + (seat + 1) * L.NDEAL] = dealt
        return True

    # ------------------------------------------------------------ presentation
    trace_parts = {"cleared": "gone"}

    def card_face(self, code: str) -> tuple[str, str] | None:
        """COLOUR + face (R7, GCLR1): the colour letter becomes the card's colour."""
        return (code[1:], f"col-{code[0]}") if len(code) >= 2 and code[0] in L.COLOURS else None

    def describe_action(self, act: tuple[int, int, int, int], obs: dict) -> str | None:
        L = self.layout
        kind, t, n, _ = act
        if obs["decision"] == "discard":
            if kind == L.A_STOP:
                return "end the chain (decline the extra discards still owed) and go on to the draw"
            return "pick up the pile" if kind == L.A_PICKUP else f"play {n} card(s) of type {t}"
        return None

    def card_names(self, st: np.ndarray):
        names = self.codes(st)  # the deck of the rules st carries
        return names.__getitem__

    # ------------------------------------------------------------ traces
    @staticmethod
    def codes(snap: np.ndarray) -> list[str]:
        """Card code (colour + face, e.g. ``R7``, ``GCLR2``) of every card id of the
        deck in a snapshot (the rules it carries say which deck)."""
        n = int(snap[L.R_NCARDS])
        types = snap[L.R_TYPE:L.R_TYPE + n]
        out = []
        k = 0
        for t in types:
            t = int(t)
            if t == L.T_CLR2:
                out.append("G" + L.face(t))
            else:
                out.append(L.COLOURS[k % 3] + L.face(t))
                k += 1
        return out

    def zones(self, snap: np.ndarray, players: int, code: list[str] | None = None) -> dict:
        """Every zone of a state snapshot, cards as rule-page codes."""
        code = code or self.codes(snap)

        def cards(lo, n):
            return [code[int(c)] for c in snap[lo:lo + n]]

        nd = int(snap[L.S_DRAW_N])
        return {
            "draw": cards(L.S_DRAW, nd)[::-1],
            "pile": cards(L.S_PILE, int(snap[L.S_PILE_N])),
            "cleared": cards(L.S_GONE, int(snap[L.S_GONE_N])),
            "hands": [[x for t in range(L.NT)
                       for x in cards(L.S_HAND + (s * L.NT + t) * L.MAXK, int(snap[L.S_HCNT + s * L.NT + t]))]
                      for s in range(players)],
            "up": [cards(L.S_UP + s * L.NUP, int(snap[L.S_UP_N + s])) for s in range(players)],
            "down": [cards(L.S_DOWN + s * L.NDOWN, int(snap[L.S_DOWN_N + s])) for s in range(players)],
        }

    def decode_trace(self, rules, players, st):
        n, tev, tsnap = self.trace_arrays(st)
        code = self.codes(st)
        events = []
        z = None
        for i in range(n):
            kind, player, turn, a, b, c, _d, _e, _f = (int(x) for x in tev[i])
            before = z
            z = self.zones(tsnap[i], players, code)
            ev: dict[str, Any] = {"type": "event", "step": i, "turn": turn,
                                  "player": None if player < 0 else player,
                                  "action": L.EVENT_NAMES[kind]}
            if kind == L.EV_DEAL:
                ev.update(seat=a, to="down" if b else "hand",
                          cards=z["down"][a] if b else z["hands"][a])
            elif kind == L.EV_UP:
                ev.update(up=[code[x] for x in (a, b, c)], hand=z["hands"][player])
            elif kind == L.EV_PLAY:
                ev.update(source="hand" if a == L.SRC_HAND else "up", number=L.face(b),
                          cards=z["pile"][-c:])
            elif kind == L.EV_DOWN:
                ev.update(source="down", card=code[a], legal=bool(b))
            elif kind == L.EV_CLEAR:
                ev.update(by=L.WHY_NAMES[a], cards=z["cleared"][len(z["cleared"]) - b:])
            elif kind == L.EV_PICKUP:
                ev.update(cards=before["pile"], why=L.PICKUP_NAMES[b])
            elif kind == L.EV_DRAW:
                ev.update(card=code[a], optional=bool(b))
            elif kind == L.EV_STOP:
                ev.update(declined=a)
            ev["state"] = z
            events.append(ev)
        return events


GAME = ThreeUp()
