"""Registry types shared by every game's strategies.

Inside a kernel a seat's strategy is an integer id plus a row of float parameters;
``Strategy`` is the Python face of one id: its name, what it does, and its named
parameters with defaults and bounds (the bounds are what a parameter search explores).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cardlab.sim.errors import InputError

MAX_PARAMS = 8


@dataclass(frozen=True)
class Param:
    name: str
    default: float
    lo: float
    hi: float
    help: str
    integer: bool = False


@dataclass(frozen=True)
class Strategy:
    name: str
    id: int
    help: str
    params: tuple[Param, ...] = field(default_factory=tuple)

    def row(self, overrides: dict[str, float] | None = None) -> np.ndarray:
        """The float parameter row the kernel reads, defaults updated by ``overrides``."""
        r = np.zeros(MAX_PARAMS, dtype=np.float64)
        by_name = {p.name: (i, p) for i, p in enumerate(self.params)}
        for i, p in enumerate(self.params):
            r[i] = p.default
        for k, v in (overrides or {}).items():
            if k not in by_name:
                allowed = ", ".join(by_name) or "none"
                raise InputError(f"unknown parameter '{k}' for strategy '{self.name}': allowed {allowed}")
            i, p = by_name[k]
            try:
                f = float(v)
            except (TypeError, ValueError):
                raise InputError(f"bad value {v!r} for parameter '{self.name}:{k}': expected a number in [{p.lo:g}, {p.hi:g}]") from None
            if not (p.lo <= f <= p.hi) or (p.integer and not float(f).is_integer()):
                kind = "an integer" if p.integer else "a number"
                raise InputError(f"bad value {v!r} for parameter '{self.name}:{k}': expected {kind} in [{p.lo:g}, {p.hi:g}]")
            r[i] = f
        return r


@dataclass(frozen=True)
class SeatStrategy:
    """One seat's strategy as resolved from the CLI: the entry and its parameter row."""
    strategy: Strategy
    overrides: tuple[tuple[str, float], ...] = ()

    @property
    def label(self) -> str:
        if not self.overrides:
            return self.strategy.name
        return self.strategy.name + "".join(f":{k}={v:g}" for k, v in self.overrides)

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
        seats.append(SeatStrategy(strat, tuple((k, float(v)) for k, v in overrides)))
    return [seats[i % len(seats)] for i in range(players)]
