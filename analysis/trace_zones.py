"""A trace's zones and who may see them: the link between a trace's ``state`` (zones by
the names of the rules page's "Trace" section) and the game's schema (``sim/schema.py``),
whose parts carry the visibility (PUBLIC, OWNER, NOBODY) that ``sim/observe.py`` uses.

Trace names and schema names mostly agree (``draw``, ``stock``) or differ by a plural
(``hands`` for the schema's ``hand``).  The rest each game lists in its ``trace_parts``
(a presentation hook, ``sim/game.Game``: a trace says ``discard`` where Skyscraper's schema
says ``disc``).  A test checks every
shipped game's table against ``sim/observe.observation`` on real positions, so an alias
that hides the wrong zone fails.  A zone no rule matches (a derived field such as Block
Tower's ``instability``) is treated as public: the trace shows it to everyone.  So a zone
of cards must match its part: the conformance kit's ``trace_zones`` check fails a game
whose trace shows cards in a zone of no part (``set aside`` for the schema's ``aside``).

- ``zone_info(game, state)``: {trace zone: {"part", "visible", "per_seat"}}.
- ``cards_in(value)`` (``sim/trace.py``): the card codes of a zone's value, in reading
  order (lists in order, dicts by key order), the order the viewer draws them in.
- ``seat_view(game, state, seat)``: the state as ``seat`` sees it: a zone hidden from it
  becomes ``{"hidden": n}`` (its number of cards; counts are public).
"""
from __future__ import annotations

from typing import Any

from cardlab.sim.schema import NOBODY, OWNER, PUBLIC, seen_by
from cardlab.sim.trace import cards_in


def zone_info(game, state: dict[str, Any], players: int) -> dict[str, dict[str, Any]]:
    """For every zone of a trace state: its schema part (or None), its visibility and
    whether it is one value per seat (the schema's ``owner``; for an unmatched zone, a
    list of exactly ``players`` lists or dicts)."""
    out = {}
    for zone, value in state.items():
        p = game.zone_part(zone)
        if p is not None:
            per_seat = bool(p.owner)
            visible = p.visible
        else:
            per_seat = (isinstance(value, list) and len(value) == players
                        and all(isinstance(v, (list, dict)) for v in value))
            visible = PUBLIC
        out[zone] = {"part": p.name if p is not None else None, "visible": visible, "per_seat": per_seat}
    return out


def sees(visible: str, owner: int | None, seat: int | None) -> bool:
    """Whether ``seat`` (None: everything) sees the cards of a zone block."""
    return seat is None or seen_by(visible, owner, seat)


def seat_view(game, state: dict[str, Any], players: int, seat: int | None,
              info: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """``state`` as ``seat`` sees it (``seat`` None: everything, unchanged); ``info`` is
    ``zone_info``'s answer when the caller has it already."""
    info = info if info is not None and set(info) >= set(state) else zone_info(game, state, players)
    out = {}
    for zone, value in state.items():
        i = info[zone]
        if i["per_seat"]:
            out[zone] = [v if sees(i["visible"], s, seat) else {"hidden": len(cards_in(v))}
                         for s, v in enumerate(value)]
        else:
            out[zone] = value if sees(i["visible"], None, seat) else {"hidden": len(cards_in(value))}
    return out


__all__ = ["zone_info", "cards_in", "seat_view", "sees", "NOBODY", "OWNER", "PUBLIC"]
