"""Rule knobs: every interpretation a rulebook leaves open, as a named, typed value.

A game declares a list of ``Knob``; ``resolve`` turns ``--set KEY=VALUE`` strings into
a validated dict of every knob's value.  Errors name the bad value and what is allowed.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from cardlab.sim.errors import InputError

_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


@dataclass(frozen=True)
class Knob:
    name: str
    kind: str  # "int", "float", "bool", "choice", "list"
    default: Any
    help: str
    lo: float | None = None
    hi: float | None = None
    choices: tuple = ()
    compensation: bool = False  # not in the rulebook: a balancing option (cardlab balance searches it)

    def allowed(self) -> str:
        if self.kind == "bool":
            return "true or false"
        if self.kind == "choice":
            return "one of " + ", ".join(map(str, self.choices))
        if self.kind == "list":
            return f"comma-separated numbers in [{_fmt(self.lo)}, {_fmt(self.hi)}]"
        lo = "-inf" if self.lo is None else _fmt(self.lo)
        hi = "inf" if self.hi is None else _fmt(self.hi)
        return f"{'an integer' if self.kind == 'int' else 'a number'} in [{lo}, {hi}]"

    def parse(self, raw: Any) -> Any:
        """Parse and range-check one value (a string from the CLI or a Python value)."""
        bad = InputError(f"bad value {raw!r} for knob '{self.name}': allowed {self.allowed()}")
        if self.kind == "bool":
            if isinstance(raw, bool):
                return raw
            s = str(raw).strip().lower()
            if s in _TRUE:
                return True
            if s in _FALSE:
                return False
            raise bad
        if self.kind == "choice":
            s = str(raw).strip().strip('"').strip("'")
            if s not in self.choices:
                raise bad
            return s
        if self.kind == "list":
            try:
                vals = tuple(float(x) for x in str(raw).split(",")) if isinstance(raw, str) else tuple(map(float, raw))
            except (TypeError, ValueError):
                raise bad from None
            if any(not self._in_range(v) for v in vals):
                raise bad
            return vals
        try:
            if self.kind == "int":
                f = float(raw)
                if not f.is_integer():
                    raise ValueError
                val: Any = int(f)
            else:
                val = float(raw)
                if val != val or val in (float("inf"), float("-inf")):
                    raise ValueError
        except (TypeError, ValueError):
            raise bad from None
        if not self._in_range(val):
            raise bad
        return val

    def _in_range(self, v: float) -> bool:
        return (self.lo is None or v >= self.lo) and (self.hi is None or v <= self.hi)

    def show(self, value: Any) -> str:
        if self.kind == "bool":
            return "true" if value else "false"
        if self.kind == "list":
            return ",".join(_fmt(v) for v in value)
        return _fmt(value) if isinstance(value, float) else str(value)


def fmt_number(v: float) -> str:
    """A number exactly as the command line reads it back: a whole number without a
    fraction or exponent (``9007199254740992``, never ``9.0072e+15``), any other as the
    shortest text that parses to the very same float (``repr``).  Every advertised range
    of a knob or strategy parameter is printed with it, so its bounds are accepted as
    printed."""
    return str(int(v)) if float(v).is_integer() else repr(float(v))


_fmt = fmt_number


def parse_assignments(items: Iterable[str], what: str = "--set") -> dict[str, str]:
    """``["a=1", "b=x"]`` -> ``{"a": "1", "b": "x"}``; a malformed item is an InputError."""
    out: dict[str, str] = {}
    for item in items or ():
        if "=" not in item:
            raise InputError(f"bad {what} value {item!r}: expected KEY=VALUE")
        k, v = item.split("=", 1)
        k = k.strip()
        if not k:
            raise InputError(f"bad {what} value {item!r}: expected KEY=VALUE")
        out[k] = v.strip()
    return out


def resolve(knobs: list[Knob], overrides: dict[str, Any] | None, game: str) -> dict[str, Any]:
    """Every knob's value: defaults updated by ``overrides``, each parsed and checked."""
    by_name = {k.name: k for k in knobs}
    values = {k.name: k.default for k in knobs}
    for name, raw in (overrides or {}).items():
        if name not in by_name:
            raise InputError(
                f"unknown knob '{name}' for game '{game}': allowed {', '.join(sorted(by_name))}"
            )
        values[name] = by_name[name].parse(raw)
    return values
