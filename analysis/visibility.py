"""What a seat may read of an event: the cards it saw move, every other card shown as ``?``.

``cardlab play`` (a bot's move told to the human) and the replay viewer's seat views
(``analysis/replay_view.py``) both mask events this way; it lives here, below both, so that
neither imports the other (the layers: docs/architecture.md).
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from cardlab.sim.positions import zone_census


def card_codes(game, st: np.ndarray, P: int) -> set[str]:
    """Every card code of the game's deck (what an event field naming a card looks like)."""
    return set(zone_census(game, game.zones(st[:game.layout.ZONES_END], P)))


def visible_lists(obs_zones: dict) -> dict:
    """Each visible list of cards in an observation, keyed by its place."""
    out = {}

    def walk(key, v):
        if isinstance(v, list) and all(isinstance(x, str) for x in v):
            out[key] = Counter(v)
        elif isinstance(v, list):
            for i, x in enumerate(v):
                walk(key + (i,), x)
        elif isinstance(v, dict) and "hidden" not in v:
            for k, x in v.items():
                walk(key + (k,), x)
    for k, v in obs_zones.items():
        walk((k,), v)
    return out


def unique_deck(game, zones: dict) -> bool:
    """Every card code of the deck names one card (a 52-card deck, No Thanks!'s 3..35; not
    3UP's copies of a number): a card the seat sees in any zone is then the card any event
    names with its code."""
    census = zone_census(game, zones)
    return bool(census) and max(census.values()) == 1


def seen_lists(vb: dict, va: dict, unique: bool = False) -> Counter:
    """``seen_cards`` over the visible lists before and after an event (``visible_lists``)."""
    out: Counter = Counter()
    for k in set(vb) | set(va):
        if vb.get(k) != va.get(k):
            out |= vb.get(k, Counter()) | va.get(k, Counter())
        elif unique:
            out |= va[k]
    return out


def seen_cards(before: dict, after: dict, unique: bool = False) -> Counter:
    """The cards of every visible zone an event changed (before and after it): the cards the
    seat saw move. A card that went from one hidden zone to another (a bot's draw) is not
    among them. With a ``unique_deck``, also every card the seat sees after it: an event
    naming the face-up card it passed on (No Thanks!) names a card in plain view; with
    copies of a code, a card in view may not be the one a hidden move names."""
    return seen_lists(visible_lists(before), visible_lists(after), unique)


def mask_event(ev: dict, codes: set[str], seen: Counter) -> dict:
    """The event with every card its seat did not see move shown as ``?``."""
    def m(v):
        if isinstance(v, str) and v in codes and not seen[v]:
            return "?"
        if isinstance(v, list):
            return [m(x) for x in v]
        return v
    return {k: (v if k in ("type", "action", "state") else m(v)) for k, v in ev.items()}
