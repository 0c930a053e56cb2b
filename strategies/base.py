"""Registry types shared by every game's strategies.

Inside a kernel a seat's strategy is an integer id plus a row of float parameters;
``Strategy`` is the Python face of one id: its name, what it does, and its named
parameters with defaults and bounds (the bounds are what a parameter search explores).

A game's strategy module declares each strategy once, by name, next to its code::

    GREEDY = Strategy("greedy", "Builds whenever it can ...", (
        Param("steal", 0, 0, 1, "1: steals a floor card before building with a joker", True),
    ))
    P_GREEDY = GREEDY.at               # parameter slots by name: p[P_GREEDY.steal]

    @helper("ACT(ST, int64, PAR)")
    def greedy(st, me, p):
        if p[P_GREEDY.steal] > 0: ...

and registers them all at the bottom with the function answering each decision::

    STRATEGIES = register(L.S, (REFERENCE, {"play": reference}), (GREEDY, {"play": greedy}))
    ID = ids(STRATEGIES)               # ID.greedy: the derived id

A strategy that plays a decision exactly like another registers that one's function for
it (``(SWEEPER, {"stall": reference_stall, ...})``): no delegate wrapper is needed, and
its dispatch branch calls the registered function.  The ids are the registration order.  ``register`` refuses (at import) a strategy that
does not answer every decision of the game's schema, and ``check_dispatch`` refuses a
compiled dispatch (``choose``) that lacks the branch of a registered strategy, so a
strategy can never fall through to another one's code.

``register`` also appends the search player ``mcts`` (``search_player``: ISMCTS over the
game's own ``legal``/``step``, ``sim/search.py``) after the game's strategies; the engine,
not the game's ``choose``, answers for it, so no dispatch names it, and ``Game.strategies``
(what "all" pools and tournaments mean) leaves it out while ``Game.all_strategies`` has it.
"""
from __future__ import annotations

import inspect
import re
from collections import namedtuple
from dataclasses import dataclass, field, replace

import numpy as np

from cardlab.sim.errors import InputError
from cardlab.sim.jit import MAX_PARAMS


@dataclass(frozen=True)
class Param:
    name: str
    default: float
    lo: float
    hi: float
    help: str
    integer: bool = False
    names: tuple[tuple[str, float], ...] = ()  # values that may be given by name (mcts:rollout=reference)
    flags: bool = False          # the value is a sum of named bits, given as NAME+NAME (mcts:never=J+DOG)

    def value(self, v, strategy: str) -> float:
        """The number a value given on the command line stands for (a name, names joined
        by ``+`` for a flags parameter, or a number), checked against the range."""
        named = dict(self.names)
        if isinstance(v, str) and self.flags and v and all(x in named for x in v.split("+")):
            v = float(sum({int(named[x]) for x in v.split("+")}))
        elif isinstance(v, str):
            v = named.get(v, v)
        try:
            f = float(v)
        except (TypeError, ValueError):
            expected = (f"one or more of {', '.join(named)} joined by +" if self.flags else
                        f"one of {', '.join(named)}" if self.names else f"a number in [{self.lo:g}, {self.hi:g}]")
            raise InputError(f"bad value {v!r} for parameter '{strategy}:{self.name}': expected {expected}") from None
        if not (self.lo <= f <= self.hi) or (self.integer and not float(f).is_integer()):
            kind = "an integer" if self.integer else "a number"
            raise InputError(f"bad value {v!r} for parameter '{strategy}:{self.name}': expected {kind} in [{self.lo:g}, {self.hi:g}]")
        return f

    def show(self, f: float) -> str:
        """A value as the command line names it (the inverse of ``value``)."""
        if self.flags and self.names and f:
            parts = [n for n, b in self.names if int(f) & int(b)]
            if sum(int(b) for n, b in self.names if n in parts) == int(f):
                return "+".join(parts)
        for n, b in self.names:
            if not self.flags and b == f:
                return n
        return f"{f:g}"


@dataclass(frozen=True)
class Strategy:
    name: str
    help: str
    params: tuple[Param, ...] = field(default_factory=tuple)
    id: int = -1                 # derived by ``register``: the registration order
    decisions: tuple[tuple[str, str], ...] = ()  # (decision, function name), by register
    search: bool = False         # the search player (sim/search.py): the engine asks it, not ``choose``

    @property
    def at(self):
        """Parameter slots by name (a namedtuple numba reads as constants)."""
        if len(self.params) > MAX_PARAMS:
            raise InputError(f"strategy '{self.name}' declares {len(self.params)} parameters: at most {MAX_PARAMS}")
        return namedtuple("Params_" + self.name, [p.name for p in self.params] or ["none_"])(
            *range(max(1, len(self.params))))

    def row(self, overrides: dict[str, float] | None = None) -> tuple[float, ...]:
        """The parameter values a strategy function reads (``MAX_PARAMS`` floats, the
        kernel's ``PAR``), defaults updated by ``overrides``."""
        r = np.zeros(MAX_PARAMS, dtype=np.float64)
        by_name = {p.name: (i, p) for i, p in enumerate(self.params)}
        for i, p in enumerate(self.params):
            r[i] = p.default
        for k, v in (overrides or {}).items():
            if k not in by_name:
                allowed = ", ".join(by_name) or "none"
                raise InputError(f"unknown parameter '{k}' for strategy '{self.name}': allowed {allowed}")
            i, p = by_name[k]
            r[i] = p.value(v, self.name)
        return tuple(float(x) for x in r)


@dataclass(frozen=True)
class SeatStrategy:
    """One seat's strategy as resolved from the CLI: the entry and its parameter row."""
    strategy: Strategy
    overrides: tuple[tuple[str, float], ...] = ()

    @property
    def label(self) -> str:
        if not self.overrides:
            return self.strategy.name
        by_name = {p.name: p for p in self.strategy.params}
        return self.strategy.name + "".join(f":{k}={by_name[k].show(v)}" for k, v in self.overrides)

    def row(self) -> np.ndarray:
        return self.strategy.row(dict(self.overrides))


def parse_strategies(spec: str | list[str] | None, registry: dict[str, Strategy], players: int,
                     game: str, default: str = "reference") -> list[SeatStrategy]:
    """``"a,b:x=1"`` -> one SeatStrategy per seat (a shorter list repeats)."""
    if spec is None or spec == "" or spec == []:
        items = [default]
    elif isinstance(spec, str):
        items = [s.strip() for s in spec.split(",")]
    else:
        items = [s.strip() for part in spec for s in part.split(",")]
    if any(not s for s in items):
        raise InputError(f"bad --strategies value {spec!r}: empty strategy name")
    if len(items) > players:
        raise InputError(f"--strategies names {len(items)} seats but the game has {players} players")
    seats = []
    for item in items:
        name, *kvs = item.split(":")
        if name not in registry:
            raise InputError(f"unknown strategy '{name}' for game '{game}': allowed {', '.join(registry)}")
        strat = registry[name]
        overrides = []
        for kv in kvs:
            if "=" not in kv:
                raise InputError(f"bad strategy parameter {kv!r} in {item!r}: expected key=value")
            k, v = kv.split("=", 1)
            overrides.append((k.strip(), v.strip()))
        strat.row(dict(overrides))  # validates names and ranges
        by_name = {p.name: p for p in strat.params}
        seats.append(SeatStrategy(strat, tuple((k, by_name[k].value(v, strat.name)) for k, v in overrides)))
    return [seats[i % len(seats)] for i in range(players)]


class RegistryError(Exception):
    """A game's strategies cannot be registered as declared (raised at import)."""


def register(schema, *entries, search_iterations: int = 200) -> tuple[Strategy, ...]:
    """The game's strategies with derived ids (the order given), then ``mcts`` with
    ``search_iterations`` by default.  Each entry is ``(Strategy, {decision: compiled
    function})`` and must answer every decision the game's schema declares, and nothing
    else."""
    wanted = [d for d, _ in schema.decisions]
    out, names = [], set()
    for i, (strat, answers) in enumerate(entries):
        if strat.name in names:
            raise RegistryError(f"{schema.game}: strategy '{strat.name}' registered twice")
        names.add(strat.name)
        missing = [d for d in wanted if d not in answers]
        extra = [d for d in answers if d not in wanted]
        if missing or extra:
            raise RegistryError(f"{schema.game}: strategy '{strat.name}' "
                                + (f"answers no {', '.join(missing)} decision" if missing else
                                   f"answers unknown decisions {', '.join(extra)}")
                                + f" (the game's decisions: {', '.join(wanted)})")
        strat.at  # noqa: B018 - checks the parameter count
        fns = tuple((d, getattr(answers[d], "__name__", str(answers[d]))) for d in wanted)
        out.append(replace(strat, id=i, decisions=fns))
    out.append(replace(search_player(tuple(out), search_iterations), id=len(out)))
    return tuple(out)


def search_player(heuristics: tuple[Strategy, ...], iterations: int = 200) -> Strategy:
    """The ``mcts`` entry every game gets after its heuristics (``sim/search.py``), with
    the game's default budget (``iterations``)."""
    rollouts = (("random", -1.0),) + tuple((s.name, float(s.id)) for s in heuristics if s.name != "random")
    return Strategy("mcts", "Information-set Monte Carlo tree search (sim/search.py): at each decision, "
                    "iterations times, re-deals what its seat cannot see and reseeds the future, walks a "
                    "tree of every seat's decisions legal in that world by UCB with availability counts "
                    "(exploration c), expands one untried action, plays the world out with the rollout "
                    "policy (uniformly random legal actions, or a heuristic of the game for every seat), "
                    "and backs up each seat's win share; then plays the most visited action unless it does not "
                    "beat the rollout heuristic's own answer by trust standard errors (a decision with "
                    "more than widen legal actions grows by progressive widening, the rollout's answer first). Its random "
                    "numbers come from its seat's own stream. With never=..., it never takes, itself, an "
                    "action that commits the named card types or action kinds (restricted play).", (
                        Param("iterations", iterations, 1, 20000, "worlds searched per decision", True),
                        Param("c", 0.7, 0, 10, "UCB exploration constant"),
                        Param("rollout", dict(rollouts).get("reference", -1), -1, max(s.id for s in heuristics),
                              "rollout policy: random "
                              "(uniform legal actions) or a heuristic by name (" +
                              ", ".join(n for n, _ in rollouts[1:]) + "; default: reference, if the game has one)", True, rollouts),
                        # the names (card types, action kinds) are the game's: Game.all_strategies
                        Param("never", 0, 0, 2.0 ** 53, "restricted play: never take an action that commits one of "
                              "these card types or action kinds (NAME+NAME; when every legal action does, any "
                              "may be taken)", True, flags=True),
                        Param("widen", 128, 1, 10 ** 9, "decisions with more legal actions than this grow by "
                              "progressive widening: at most sqrt(visits) children, the rollout heuristic's "
                              "answer first", True),
                        Param("trust", 1, 0, 10, "the rollout heuristic's own answer in the real position is "
                              "played unless the most visited action's mean win share beats it by more than "
                              "trust standard errors (0: always the most visited)"),
                    ), search=True)


def default_rows(strategies: tuple[Strategy, ...]) -> np.ndarray:
    """Every strategy's default parameters by id (a heuristic rollout's, in the search)."""
    return np.array([s.row() for s in strategies], dtype=np.float64)


def ids(strategies: tuple[Strategy, ...]):
    """Every strategy's id by name (a namedtuple numba reads as constants)."""
    return namedtuple("Ids", [s.name for s in strategies])(*(s.id for s in strategies))


def check_dispatch(dispatch, strategies: tuple[Strategy, ...], decision: str) -> None:
    """Refuse (at import) a compiled dispatch for ``decision`` that does not call every
    registered strategy's function for it under its own id: it must read
    ``if sid == ID.<name>: return <function>(...)`` for each strategy (the last one may be
    the final ``return``)."""
    fn = getattr(dispatch, "py_func", dispatch)
    src = inspect.getsource(fn)
    strategies = tuple(s for s in strategies if not s.search)  # the engine asks the search player
    for strat in strategies:
        func = dict(strat.decisions)[decision]
        branch = re.search(rf"sid == ID\.{strat.name}\b[^\n]*:\s*\n\s*return {func}\(", src)
        last = strat is strategies[-1] and re.search(rf"\n\s*return {func}\([^\n]*\)\s*$", src.rstrip() + "\n")
        if not (branch or last):
            raise RegistryError(f"{fn.__module__}.{fn.__name__}: no branch 'if sid == ID.{strat.name}: "
                                f"return {func}(...)' for the {decision} decision of strategy '{strat.name}'")
