"""What every game module provides to the runner, the CLI and the analysis layer.

A game is a ``Game`` subclass in ``sim/<game>/__init__.py``: its knobs and player
range, how knob values become the rule vector, its card types, its tally layout, and
how to decode a trace; its state is declared by the schema in ``layout.py``
(``Game.schema``), and its rules are the model in ``kernel.py`` (``Game.model()``):
``setup``, ``legal`` and ``step``.  The shared engine, the search player, the game's
strategies and causal card power are bound to those rules in ``binding.py``
(``Game.binding()``: ``play_on``, ``run_games``, ``run_games_search``, ``search_decide``,
``run_causal``...), the one module of a game that imports ``cardlab.strategies``.  Both
are imported lazily, so listing games or knobs never compiles anything.

The lazy imports here (``importlib.import_module`` of the kernel, the binding and
``cardlab.strategies.<id>``) are the one sanctioned plug-in lookup of the layers
(docs/architecture.md): a game is found by its id at run time, so the engine side never
imports a game's rules or strategies by name; the import contract (``.importlinter``)
does not see these dynamic imports.
"""
from __future__ import annotations

import importlib
from dataclasses import replace
from typing import Any

import numpy as np

from cardlab.sim.errors import InputError
from cardlab.sim.knobs import Knob, resolve
from cardlab.sim.schema import KIND_BIT
from cardlab.sim.tally import SHAPE_ROW_COLS, TallyLayout
from cardlab.sim.strategy_spec import Strategy


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
    def binding_module(self) -> str:
        return f"cardlab.sim.{self.id}.binding"

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
        raise NotImplementedError

    def max_length(self, rules: dict[str, Any]) -> int:
        raise NotImplementedError

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
        """The engine bound to the rules and the game's strategies (``binding.py``):
        ``play_on(st, sids, params)``, ``run_games``, ``run_games_search``,
        ``search_decide(st, me, p)``, ``choose``, ``ID``, and where the game has causal card
        power ``give_state`` and ``run_causal``."""
        return importlib.import_module(self.binding_module)  # the plug-in lookup: dynamic

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

    def describe_action(self, act: tuple[int, int, int, int], obs: dict[str, Any]) -> str | None:
        """One legal action of the pending decision in words, for ``cardlab play`` (``obs``:
        the deciding seat's ``observation``, its ``decision`` named): "play 7C", "bid 3".
        None (the default) shows the action's numbers named by the decision's fields only."""
        return None

    def decode_trace(self, rules: dict, players: int, st: np.ndarray) -> list[dict]:
        """The events of a trace-mode state as JSON-able dicts."""
        raise NotImplementedError

    def rules_json(self, rules: dict[str, Any]) -> dict[str, Any]:
        """Knob values as JSON-friendly values."""
        out = {}
        for k in self.knobs:
            v = rules[k.name]
            out[k.name] = list(v) if isinstance(v, tuple) else v
        return out
