"""What every game module provides to the runner, the CLI and the analysis layer.

A game is a ``Game`` subclass in ``sim/<game>/__init__.py``: its knobs and player
range, how knob values become the rule vector, its card types, its tally layout, and
how to decode a trace; its state is declared by the schema in ``layout.py``
(``Game.schema``), and its rules are the model in ``kernel.py`` (``Game.model()``),
which declares its rules functions once (``RULES = Rules(deal=..., step=..., legal=...)``).
The shared engine, the search player, the game's strategies and causal card power are
bound to them by ``sim/bind.py`` (``Game.binding()``: ``play_on``, ``run_games``,
``run_games_search``, ``search_decide``, ``run_causal``...), the one place that brings a
game's rules and its strategies together.  Both are imported lazily, so listing games or
knobs never compiles anything.

The lazy imports here (``importlib.import_module`` of the kernel, ``sim/bind.py`` and
``cardlab.strategies.<id>``) are the one sanctioned plug-in lookup of the layers
(docs/architecture.md): a game is found by its id at run time, so the engine side never
imports a game's rules or strategies by name; the import contract (``.importlinter``)
does not see these dynamic imports.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from cardlab.sim.errors import InputError
from cardlab.sim.knobs import Knob, resolve
from cardlab.sim.schema import KIND_BIT, NOBODY, PILE, TABLE, SchemaError
from cardlab.sim.tally import SHAPE_ROW_COLS, TallyLayout
from cardlab.sim.strategy_spec import Strategy


@dataclass(frozen=True)
class Rules:
    """A game's rules functions, declared once at the foot of its ``kernel.py``
    (``RULES = Rules(deal=deal, begin=begin, step=step, ...)``): the engine, the search
    player, causal card power and traces are bound to them by ``sim/bind.py``, not by code
    of the game's.

    Required: ``deal(st)`` (a new game on the seeded generator: shuffle and deal, up to the
    moment causal card power gives a card), ``step(st, act)``, ``legal(st)`` (the pending
    decision's actions into the action buffer, their number), ``progress(st, seat)`` (the
    game's progress score, ``sim/shape.py``) and ``restrict_bits(st, act)`` (what an action
    commits, for ``mcts:never=``).  ``begin(st)`` plays on from the deal to the first
    decision (the first turn's opening: a draw, an offer), nothing when left out; the game's
    ``setup`` is ``deal`` then ``begin``, written by the binding, unless the game declares
    its own ``setup`` that does exactly that in one body (Block Tower's).  The rest are
    optional hooks, None where the game has no use:

    - ``legal_key``, ``legal_count``: the search's keyed actions (a decision whose actions
      are one draw among many, Block Tower; ``engine.listed`` and ``legal`` otherwise);
    - ``table_cards``, ``table_put``: the cards of the game's TABLE zones for a re-deal and
      a give (``redeal.no_table_cards`` / ``no_table_put`` otherwise);
    - ``honour_shown(src, dst, seat)``: after a re-deal for ``seat`` (``sim/redeal.py``),
      swap cards among the re-dealt places so that what the rules showed the seat alone,
      or every seat (3UP's picked-up pile, in a public book), holds in the world
      (``redeal.no_honour_shown`` otherwise: the search forgets it);
    - causal card power (``sim/give.py``, a card given between ``deal`` and ``begin``), by
      the schema's swap: ``has_type(st, card, t)``, ``after_give(st)`` (what follows from
      the cards; ``give.held_follows_start`` otherwise: a seat has held the types of its
      start cards) and ``also_holds(st, seat, t)`` (``give.no_more_held`` otherwise); or
      ``give_card`` where the game gives a card its own way (5 Towers).  Neither
      ``has_type`` nor ``give_card``: no causal card power;
    - ``more_features(st, me, out, at)``: the game's own numbers of a seat's observation
      vector into ``out[at:]``, one per name its schema declares (``S.more_features``).

    ``has_type`` also says what a card counts as in a seat's observation vector
    (``sim/features.py``): without it a card zone there is its number of cards only.
    """
    deal: Any
    step: Any
    legal: Any
    progress: Any
    restrict_bits: Any
    begin: Any = None
    setup: Any = None
    legal_key: Any = None
    legal_count: Any = None
    table_cards: Any = None
    table_put: Any = None
    honour_shown: Any = None
    has_type: Any = None
    after_give: Any = None
    also_holds: Any = None
    give_card: Any = None
    more_features: Any = None

    def named(self) -> dict[str, tuple[str, str]]:
        """Every declared function as (module, name), by its field (the binding imports them)."""
        out = {}
        for f in fields(self):
            fn = getattr(self, f.name)
            if fn is not None:
                py = getattr(fn, "py_func", fn)  # a numba dispatcher, or the function (no JIT)
                out[f.name] = (py.__module__, py.__name__)
        return out


SUIT_SYMBOL = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}


def suited_face(code: str, suits: str, ranks: str) -> tuple[str, str] | None:
    """RANK + SUIT codes (8H, TS) as a card face: 10\u2665 in the suit's colour (a four-colour
    deck, so every suit can be told apart at a glance); None for any other code."""
    if len(code) == 2 and code[0] in ranks and code[1] in suits:
        return ("10" if code[0] == "T" else code[0]) + SUIT_SYMBOL.get(code[1], code[1]), f"suit-{code[1]}"
    return None


class Game:
    id: str = ""
    title: str = ""
    min_players: int = 2
    default_players: int = 2
    length_unit: str = "turns"
    knobs: tuple[Knob, ...] = ()
    layout: Any = None           # the game's layout module: its schema ``S`` and constants
    default_strategy: str = "reference"
    score_name: str = "score"    # what the per-seat score of a game is
    # helpers a second process compiles on a cold start, in this order, then the record
    # helpers every kernel reaches last ("module:function"; see sim/precompile.py): the
    # game's step first (the main process starts with choose), then the strategy
    # functions choose reaches last
    precompile: tuple[str, ...] = ()
    # who seat 0 is at the table (the first-player advantage is always seat 0's)
    seat0_role: str = "the first player"
    # the strong player of a report's strong pool (analysis/pools.py, issue 35): the strongest
    # honest player that fits a report's time budget, in every seat.  Chosen per game from the
    # committed skill ladders (reports/ladders/): the search player at a budget that beats
    # every heuristic of the game; every report measures its strength again, head to head
    strong_player: str = "mcts:iterations=256"
    # rule variants a report also plays (same seeds) and compares: ("knob", "value")
    report_variants: tuple[tuple[str, str], ...] = ()
    # the trace zones that hold cards (None: all of them); a zone of something else, such
    # as Block Tower's blocks, is left out when cards are counted
    card_zones: tuple[str, ...] | None = None
    # a game's own report figures: "module:function" taking the summary dict and returning
    # a list of analysis.report.ReportFigure (shown after the length figures)
    report_figures: str = ""
    # how many of event_names (from the start) the report's events table lists; the rest are
    # counters shown elsewhere (None: all)
    report_events: int | None = None
    # generic findings (analysis/findings.py, by kind) that do not fit this game, each with the
    # reason the report's findings show in their place
    findings_off: dict[str, str] = {}

    # ------------------------------------------------------------ from the schema
    @property
    def max_players(self) -> int:
        return self.layout.S.maxp

    @property
    def end_names(self) -> tuple[str, ...]:
        return self.layout.S.ends

    @property
    def event_names(self) -> tuple[str, ...]:
        return self.layout.S.events

    @property
    def tally(self) -> TallyLayout:
        S = self.layout.S
        return TallyLayout(maxp=S.maxp, n_types=S.n_types, n_end=len(S.ends), n_events=len(S.events))

    @property
    def row_width(self) -> int:
        """A per-game row: length, unfinished, winner mask, a score per seat, then the
        game's shape (``sim/tally.SHAPE_ROW_COLS``: lead changes, comeback, decided point in
        thousandths, close finish; -1 where a figure does not apply)."""
        return 3 + self.layout.S.maxp + SHAPE_ROW_COLS

    @property
    def progress_what(self) -> str:
        """What the game's progress score counts (``S.progress``; ``sim/shape.py``)."""
        return self.layout.S.progress_what

    @property
    def close_margin(self) -> int:
        """A finish is close when the winner's progress beats the best loser's by at most this."""
        return self.layout.S.close_margin

    @property
    def kernel_module(self) -> str:
        return f"cardlab.sim.{self.id}.kernel"

    @property
    def strategy_module(self) -> str:
        return f"cardlab.strategies.{self.id}"

    # ------------------------------------------------------------ knobs and players
    def resolve_rules(self, overrides: dict[str, Any] | None, players: int) -> dict[str, Any]:
        """Every knob's validated value for this player count (defaults + overrides)."""
        if not (self.min_players <= players <= self.max_players):
            raise InputError(f"bad --players {players} for game '{self.id}': allowed "
                             f"{self.min_players} to {self.max_players}")
        rules = resolve(list(self.knobs), overrides, self.id)
        self.validate(rules, players)
        return rules

    def validate(self, rules: dict[str, Any], players: int) -> None:
        """Cross-knob checks (a deck that can be dealt, ...); raise InputError."""

    def rules_vector(self, rules: dict[str, Any], players: int) -> np.ndarray:
        """The rule slots of the schema (``S.rules(...)``, copied to ``st[S_RULES:]``) from the
        knob values: ``players``, then each slot from ``rule_values`` or else the knob of the
        same name (True/False as 1/0).  A slot neither names is an error naming it."""
        S = self.schema
        derived = self.rule_values(rules, players)
        v = np.zeros(len(S.rule_names), dtype=np.int64)
        for i, name in enumerate(S.rule_names):
            if name == "players":
                v[i] = players
            elif name in derived:
                v[i] = int(derived[name])
            elif name in rules and isinstance(rules[name], float):
                raise TypeError(f"{self.id}: rule slot '{name}' is a float knob: give the slot its number in "
                                "rule_values (a scaled integer, or the float's bits declared by S.numbers)")
            elif name in rules and not isinstance(rules[name], (str, tuple)):
                v[i] = int(rules[name])
            else:
                raise TypeError(f"{self.id}: rule slot '{name}' is no number knob and rule_values gives "
                                "no value for it")
        return v

    def rule_values(self, rules: dict[str, Any], players: int) -> dict[str, int]:
        """The rule slots that are not a number or yes/no knob of the same name, by slot name
        (a choice resolved to a number, a size that follows the player count)."""
        return {}

    def max_length(self, rules: dict[str, Any], players: int | None = None) -> int:
        """The length cap, in ``length_unit``: the knob ``max_turns`` or ``max_rounds``.
        ``players`` is the table's (None: the cap must hold for every player count), for a
        game whose length follows from it (hands of 10 cards at 2 players, 7 at 5)."""
        for cap in ("max_turns", "max_rounds"):
            if cap in rules:
                return int(rules[cap])
        raise NotImplementedError(f"{self.id}: no max_turns or max_rounds knob: write max_length")

    def card_types(self, rules: dict[str, Any]) -> list[tuple[int, str]]:
        """(type index, card code) for every card type in the deck, for card power."""
        raise NotImplementedError

    # ------------------------------------------------------------ strategies
    @property
    def strategies(self) -> dict[str, Strategy]:
        """The game's heuristics by name (what ``all`` pools and tournaments mean)."""
        return {n: s for n, s in self.all_strategies.items() if not s.search}

    @property
    def all_strategies(self) -> dict[str, Strategy]:
        """Every strategy a seat may play: the heuristics and the search player ``mcts``,
        whose ``never`` parameter names this game's card types and action kinds."""
        # the sanctioned plug-in lookup (see the module's docstring): a dynamic import
        mod = importlib.import_module(self.strategy_module)
        out = {}
        for s in mod.STRATEGIES:
            if s.search:
                names = tuple(self.restriction_names())
                s = replace(s, params=tuple(replace(p, names=names) if p.flags else p for p in s.params))
            out[s.name] = s
        return out

    def restriction_names(self, rules: dict[str, Any] | None = None) -> list[tuple[str, float]]:
        """What restricted play (``mcts:never=``) may name, with its bit: every card type
        (``restriction_types``; with ``rules``, only those of that deck) and every action kind
        of the layout's ``RESTRICT_KINDS`` (the game's ``moves.restrict_bits`` says what an
        action commits)."""
        kinds = getattr(self.layout, "RESTRICT_KINDS", ())
        types = self.restriction_types() if rules is None else self.card_types(rules)
        clash = [(t, name) for t, name in types if t >= KIND_BIT] if kinds else []
        if clash:
            t, name = clash[0]
            raise SchemaError(f"{self.id}: card type {t} ('{name}') would share a restriction bit with an action "
                              f"kind: restricted play (mcts:never=) gives card type t bit t and action kind i "
                              f"(RESTRICT_KINDS: {', '.join(kinds)}) bit {KIND_BIT} + i (sim/schema.KIND_BIT); declare "
                              f"RESTRICT_KINDS = () in layout.py, or count at most {KIND_BIT} card types (card_types)")
        return ([(name.replace(" ", "_"), float(2 ** t)) for t, name in types]
                + [(k, float(2 ** (KIND_BIT + i))) for i, k in enumerate(kinds)])

    def restriction_types(self) -> list[tuple[int, str]]:
        """The card types a restriction may name: those of the default deck (a game whose
        deck changes with its knobs lists every type any deck may hold)."""
        return self.card_types(self.resolve_rules(None, self.default_players))

    # ------------------------------------------------------------ the model
    @property
    def schema(self):
        """The declared state (``sim/schema.py``): parts, offsets, visibility."""
        return self.layout.S

    def model(self):
        """The compiled model module (the rules): ``setup(st)``, ``legal(st)`` (the pending
        decision's actions into the action buffer), ``step(st, act)``."""
        return importlib.import_module(self.kernel_module)  # the plug-in lookup: dynamic

    def binding(self):
        """The engine bound to the rules its kernel declares (``RULES``) and to the game's
        strategies, by ``sim/bind.py``: ``play_on(st, sids, params)``, ``run_games``,
        ``run_games_search``, ``search_decide(st, me, p, W)``, ``choose``, ``ID``, and where the
        game has causal card power ``give_card``, ``give_state`` and ``run_causal``."""
        # the plug-in lookup (dynamic): sim/bind.py sits in the layer above the rules
        return importlib.import_module("cardlab.sim.bind").bound(self)

    def features(self, st: np.ndarray, seat: int) -> np.ndarray:
        """What ``seat`` sees in ``st`` as a fixed-length vector of numbers (``sim/features.py``,
        compiled; ``feature_names`` names them)."""
        b = self.binding()
        out = np.zeros(b.N_FEATURES, dtype=np.float64)
        b.features(st, seat, out)
        return out

    def feature_names(self) -> list[str]:
        """The name of each number of ``features`` (``Schema.feature_names``)."""
        return self.schema.feature_names()

    def kernel(self):
        return self.binding().run_games

    def search_kernel(self):
        """The same engine with seats answered by the search player (``sim/search.py``)."""
        return self.binding().run_games_search

    def observation(self, st: np.ndarray, seat: int) -> dict[str, Any]:
        """What ``seat`` sees in ``st`` (``sim/observe.py``): hidden zones as counts."""
        from cardlab.sim.observe import observation

        return observation(self, st, seat)

    def determinize(self, st: np.ndarray, seat: int, rng: np.random.Generator) -> np.ndarray:
        """A copy of ``st`` with everything ``seat`` cannot see drawn afresh from ``rng``
        (the hidden cards re-dealt, the generators reseeded: ``sim/observe.py``)."""
        from cardlab.sim.observe import determinize

        return determinize(self, st, seat, rng)

    def trace_arrays(self, st: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
        """(events recorded, event rows, zone snapshots) of a trace-mode state: after
        ``S_SIZE`` come rows of ``EVW`` event numbers, each followed by the snapshot
        ``st[:ZONES_END]`` (the offsets of the game's ``layout`` module)."""
        L = self.layout
        n = int(st[L.S_NEV])
        cap = (len(st) - L.S_SIZE) // L.TRACE_ROW
        buf = st[L.S_SIZE:L.S_SIZE + cap * L.TRACE_ROW].reshape(cap, L.TRACE_ROW)
        return n, buf[:, :L.EVW], buf[:, L.EVW:]

    # what each event's numbers (after kind, player, turn) mean, by event name, for the
    # trace decoding ``decode_trace`` makes of them: "name" (the number), "name:card" (a card
    # code), "name:cards" (a bit mask of cards, as codes), "name:bool", "name:seats" (a bit
    # mask of seats, as a list), "name:SEQ" (the layout's sequence SEQ at the number, e.g.
    # "called:SUITS"); a trailing "?" makes a negative number None ("called:SUITS?")
    event_fields: dict[str, tuple[str, ...]] | None = None
    # trace zone -> schema part, where neither the zone's name nor its singular is the part's
    # name (the replay viewer and the kit hide a zone by its part's visibility); the default
    # ``zones`` names the part's zone so ({"hands": "hand", "face up": "up"})
    trace_parts: dict[str, str] = {}
    # trace zone -> the words ``cardlab play`` and the replay viewer title it with, where the
    # zone's name with spaces for underscores is not what the rules page calls it
    zone_labels: dict[str, str] = {}

    def zone_part(self, zone: str):
        """The schema zone a trace zone shows (``sim/schema.Part``): the part of the zone's
        name, of its singular (``hands``: ``hand``) or of ``trace_parts``; None for a zone
        of no part, shown to every seat by ``play`` and the replay viewer (a derived number
        such as Block Tower's ``instability``; the kit's ``trace_zones`` check refuses one
        that shows cards)."""
        parts = self.schema.parts
        for name in (zone, zone[:-1] if zone.endswith("s") else None, self.trace_parts.get(zone)):
            if name and name in parts and parts[name].section == "zones":
                return parts[name]
        return None

    def zone_label(self, zone: str) -> str:
        """A trace zone's title in ``play`` and the replay viewer (``zone_labels``, else the
        name with spaces: ``point_pile`` -> "point pile")."""
        return self.zone_labels.get(zone, zone.replace("_", " "))

    def card_names(self, st: np.ndarray):
        """card id -> its code on the rules page (``7C``, ``F3``), for observations, the
        kit's messages and ``cardlab play``: the layout's ``card_code`` (the default), or a
        game's own where the deck follows the knobs (3UP: the rules ``st`` carries say which
        deck)."""
        return getattr(self.layout, "card_code", str)

    def zones(self, snap: np.ndarray, players: int) -> dict[str, Any]:
        """A trace's ``state``: every card zone of the schema under its own name (or the
        name ``trace_parts`` maps to it: ``{"hands": "hand"}``), cards as the layout's
        ``card_code`` gives them; first the zones of the table (in schema order), then each
        seat's (a list per seat).  A pile no seat may see (a stock, a face-down deck) is
        listed top card first, the next to come first; every other pile bottom first, as it
        lies (a discard pile's last card is its top).  A game whose trace shows more (a
        score pile's points, a TABLE zone) writes its own."""
        S = self.layout.S
        code = self.card_names(snap)
        named = {part: zone for zone, part in self.trace_parts.items()}

        def listed(p, seat):
            cards = [code(c) for c in S.cards(snap, p.name, seat)]
            return cards[::-1] if p.encoding == PILE and p.visible == NOBODY else cards

        table, seats = {}, {}
        for p in S.zone_parts():
            if p.encoding == TABLE:
                raise NotImplementedError(f"{self.id}: zone '{p.name}' is a TABLE zone: write zones(snap, players) "
                                          "(docs/game_reference.md, traces)")
            if p.owner:
                seats[named.get(p.name, p.name)] = [listed(p, s) for s in range(players)]
            else:
                table[named.get(p.name, p.name)] = listed(p, None)
        return table | seats

    def card_face(self, code: str) -> tuple[str, str] | None:
        """A trace's card code as the replay viewer draws it: (text on the card, colour
        class: ``suit-S/H/D/C``, ``col-R/B/G``, ``kind-C/S/T/R/A``, ``floor``, ``special``,
        ``block``, ``action``; ``analysis/card_faces.COLOURS``), None (the default) for the
        code as it is, uncoloured."""
        return None

    def describe_action(self, act: tuple[int, int, int, int], obs: dict[str, Any]) -> str | None:
        """One legal action of the pending decision in words, for ``cardlab play`` (``obs``:
        the deciding seat's ``observation``, its ``decision`` named): "play 7C", "bid 3".
        None (the default) shows the action's numbers named by the decision's fields only."""
        return None

    def describe_shown(self, part: str, values: list[int], seat: int) -> str | None:
        """What the rules showed ``seat`` alone, in words, for ``cardlab play``: ``values`` is
        the seat's block of ``part`` (one of ``Schema.shown_parts``: "you know seat 2 holds a
        Priest").  None says nothing (nothing known yet); the default shows the part's name,
        its help and its numbers while any is not 0."""
        if not any(values):
            return None
        return f"{part} ({self.schema.parts[part].help}): {' '.join(map(str, values))}"

    def decode_trace(self, rules: dict, players: int, st: np.ndarray) -> list[dict]:
        """The events of a trace-mode state as JSON-able dicts: type, step, turn, player
        (None: chance), action (the event's name), its numbers named by ``event_fields``, and
        the zones after it (``zones``)."""
        if self.event_fields is None:
            raise NotImplementedError(f"{self.id}: declare event_fields or write decode_trace")
        for action, specs in self.event_fields.items():
            if action not in self.event_names or len(specs) > 6:
                raise ValueError(f"{self.id}: event_fields['{action}']: " + (
                    f"no such event (the events: {', '.join(self.event_names)})" if action not in self.event_names
                    else f"{len(specs)} fields, an event has 6 numbers"))
        n, tev, tsnap = self.trace_arrays(st)
        name = self.card_names(st)
        events = []
        for i in range(n):
            kind, player, turn = (int(x) for x in tev[i][:3])
            action = self.event_names[kind]
            ev: dict[str, Any] = {"type": "event", "step": i, "turn": turn,
                                  "player": None if player < 0 else player, "action": action}
            for spec, x in zip(self.event_fields.get(action, ()), tev[i][3:]):
                field, _, how = spec.partition(":")
                try:
                    ev[field] = self._field(how, int(x), name, players)
                except (AttributeError, TypeError, IndexError) as e:
                    raise ValueError(f"{self.id}: event '{action}' field '{spec}': {e}") from None
            ev["state"] = self.zones(tsnap[i], players)
            events.append(ev)
        return events

    def _field(self, how: str, x: int, name, players: int):
        """One event number as ``event_fields`` says (see there)."""
        if how.endswith("?"):
            if x < 0:
                return None
            how = how[:-1]
        if how == "":
            return x
        if how == "card":
            return name(x)
        if how == "cards":
            return [name(c) for c in range(63) if (x >> c) & 1]
        if how == "bool":
            return bool(x)
        if how == "seats":
            return [s for s in range(players) if (x >> s) & 1]
        seq = getattr(self.layout, how, None)  # a sequence of the layout's: SUITS, KINDS...
        if not isinstance(seq, (str, tuple, list)):
            raise AttributeError(f"'{how}' is no field kind (card, cards, seats, bool, a sequence of the "
                                 "layout's)")
        return seq[x]

    def rules_json(self, rules: dict[str, Any]) -> dict[str, Any]:
        """Knob values as JSON-friendly values."""
        out = {}
        for k in self.knobs:
            v = rules[k.name]
            out[k.name] = list(v) if isinstance(v, tuple) else v
        return out
