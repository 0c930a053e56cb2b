"""The strategy types the engine side needs: a strategy's Python face and a seat's choice.

``Strategy`` names one compiled strategy id (its name, what it does, its parameters with
defaults and bounds), ``Param`` one of its parameters, ``SeatStrategy`` a seat's strategy as
the command line gave it (the entry and its parameter overrides), and ``parse_strategies``
turns ``"a,b:key=value"`` into one ``SeatStrategy`` per seat.

They live here, below the game rules, so that ``sim/game.py`` and ``sim/runner.py`` never
import ``cardlab.strategies`` (the layers: docs/architecture.md); ``strategies/base.py``
re-exports them next to the registration helpers every game's strategy module uses, so
``from cardlab.strategies.base import Strategy`` keeps working.
"""
from __future__ import annotations

import re
from collections import namedtuple
from dataclasses import dataclass, field

import numpy as np

from cardlab.sim.errors import InputError
from cardlab.sim.jit import MAX_PARAMS
from cardlab.sim.knobs import fmt_number

WITH_RULE = re.compile(r"with (\w+)=([^\s,;)]+)")  # a parameter's help naming the rule it needs


def needed_rules(help_text: str) -> tuple[list[str], int | None]:
    """The ``with KNOB=VALUE`` rules a parameter's help names (``players=N`` sets the
    player count): where the parameter matters (the kit plays it there)."""
    sets, players = [], None
    for knob, value in WITH_RULE.findall(help_text):
        if knob == "players":
            players = int(value)
        else:
            sets.append(f"{knob}={value}")
    return sets, players


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

    def bounds(self) -> str:
        """The range as printed (``[lo, hi]``), each bound exactly as the command line reads
        it back (``sim.knobs.fmt_number``): both are accepted as printed."""
        return f"[{fmt_number(self.lo)}, {fmt_number(self.hi)}]"

    def allowed(self) -> str:
        """What a value may be, as ``cardlab strategies`` prints it: the range, or for a
        flags parameter with names the names it sums (its bit mask is an encoding, and a
        number may be a name: ``mcts:never=0`` names 5 Towers' 0 card), ``none`` for 0.
        Everything it prints is accepted as printed."""
        if self.flags and self.names:
            return f"one or more of {', '.join(n for n, _ in self.names)} joined by +, or none"
        return f"in {self.bounds()}"

    def value(self, v, strategy: str) -> float:
        """The number a value given on the command line stands for (a name, names joined
        by ``+`` for a flags parameter, or a number), checked against the range."""
        named = dict(self.names)
        if isinstance(v, str) and self.flags and v.strip() == "none" and "none" not in named:
            v = 0.0
        elif isinstance(v, str) and self.flags and v and all(x in named for x in v.split("+")):
            v = float(sum({int(named[x]) for x in v.split("+")}))
        elif isinstance(v, str):
            v = named.get(v, v)
        try:
            f = float(v)
        except (TypeError, ValueError):
            expected = (f"one or more of {', '.join(named)} joined by +, or none" if self.flags else
                        f"one of {', '.join(named)}" if self.names else f"a number in {self.bounds()}")
            raise InputError(f"bad value {v!r} for parameter '{strategy}:{self.name}': expected {expected}") from None
        if not (self.lo <= f <= self.hi) or (self.integer and not float(f).is_integer()):
            kind = "an integer" if self.integer else "a number"
            expected = self.allowed() if self.flags and self.names else f"{kind} in {self.bounds()}"
            raise InputError(f"bad value {v!r} for parameter '{strategy}:{self.name}': expected {expected}")
        return f

    def show(self, f: float) -> str:
        """A value as the command line names it (the inverse of ``value``)."""
        if self.flags and self.names and not f:
            return "none"
        if self.flags and self.names and f:
            parts = [n for n, b in self.names if int(f) & int(b)]
            if sum(int(b) for n, b in self.names if n in parts) == int(f):
                return "+".join(parts)
        for n, b in self.names:
            if not self.flags and b == f:
                return n
        return fmt_number(f)


@dataclass(frozen=True)
class Strategy:
    name: str
    help: str
    params: tuple[Param, ...] = field(default_factory=tuple)
    id: int = -1                 # derived by ``register``: the registration order
    decisions: tuple[tuple[str, str], ...] = ()  # (decision, function name), by register
    search: bool = False         # mcts or learned (sim/search.py, sim/learned.py): the engine asks it, not ``choose``

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

    @property
    def reads_model(self) -> bool:
        """The seat plays a learned model (``sim/models.py``): ``learned``, or ``mcts`` with
        value=1 (its play-outs scored by the model)."""
        name = self.strategy.name
        return name == "learned" or (name == "mcts" and dict(self.overrides).get("value", 0) != 0)


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
