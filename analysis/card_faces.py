"""Card faces for the replay viewer: a trace's card code (the rules page's code, as each
game's ``layout.card_code`` writes it) as the text on a drawn card and a colour class.

Every face is read from the game's own naming constants (``SUITS``/``RANKS``,
``COLOURS``, ``KINDS``, ``SPECIAL_CODES``, ``ACTIONS`` in its ``layout.py``), never from a
copied list, so a renamed suit shows up here at once.  A game without an entry (a new
game) gets its codes as they are, uncoloured: readable, never wrong.

Suits use a four-colour deck (spades black, hearts red, diamonds blue, clubs green) so
that every suit can be told apart at a glance, not only red from black.
"""
from __future__ import annotations

from typing import Any, Callable

SUIT_SYMBOL = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
RANK_TEXT = {"T": "10"}

# css class -> colour; the viewer's stylesheet is written from this table
COLOURS = {
    "suit-S": "#111", "suit-H": "#c0182a", "suit-D": "#1557c0", "suit-C": "#17803a",
    "col-R": "#c0182a", "col-B": "#1557c0", "col-G": "#17803a",
    "kind-C": "#8a5a00", "kind-S": "#1557c0", "kind-T": "#17803a", "kind-R": "#c0182a", "kind-A": "#6b2fa8",
    "floor": "#333", "special": "#a0400b", "block": "#5a4a2a", "action": "#6b2fa8", "plain": "#222",
}

Face = tuple[str, str]  # (text on the card, css class)


def _suited(layout) -> Callable[[str], Face | None]:
    """RANK + SUIT codes (8H, TS): Crazy Eights and Smokestack."""
    suits, ranks = layout.SUITS, layout.RANKS

    def face(code: str) -> Face | None:
        if len(code) == 2 and code[0] in ranks and code[1] in suits:
            return RANK_TEXT.get(code[0], code[0]) + SUIT_SYMBOL.get(code[1], code[1]), f"suit-{code[1]}"
        return None
    return face


def _three_up(layout) -> Callable[[str], Face | None]:
    """COLOUR + face (R7, GCLR1): the colour letter becomes the card's colour."""
    colours = layout.COLOURS

    def face(code: str) -> Face | None:
        if len(code) >= 2 and code[0] in colours:
            return code[1:], f"col-{code[0]}"
        return None
    return face


def _five_towers(layout) -> Callable[[str], Face | None]:
    """KIND + value (A7, S13): coloured by tower kind, the kind letter kept."""
    kinds = layout.KINDS

    def face(code: str) -> Face | None:
        if len(code) >= 2 and code[0] in kinds and code[1:].isdigit():
            return code, f"kind-{code[0]}"
        return None
    return face


def _skyscraper(layout) -> Callable[[str], Face | None]:
    specials = set(layout.SPECIAL_CODES)

    def face(code: str) -> Face | None:
        if code in specials:
            return code, "special"
        if code.startswith("F") and code[1:].isdigit():
            return code[1:], "floor"
        return None
    return face


def _block_tower(layout) -> Callable[[str], Face | None]:
    actions = set(layout.ACTIONS)

    def face(code: str) -> Face | None:
        if code in actions:
            return code, "action"
        if code.startswith("B") and code[1:].isdigit():
            return code, "block"
        return None
    return face


FACES: dict[str, Callable[[Any], Callable[[str], Face | None]]] = {
    "crazy_eights": _suited, "smokestack": _suited, "three_up": _three_up,
    "five_towers": _five_towers, "skyscraper": _skyscraper, "block_tower": _block_tower,
}


def faces(game, codes) -> dict[str, dict[str, str]]:
    """{code: {"t": text, "c": css class}} for every code in ``codes``."""
    make = FACES.get(game.id)
    face = make(game.layout) if make is not None else (lambda code: None)
    out = {}
    for code in codes:
        text, cls = face(code) or (code, "plain")
        out[code] = {"t": text, "c": cls}
    return out


def css() -> str:
    """The colour rules of every face class."""
    return "".join(f".card.{cls}{{color:{col}}}" for cls, col in COLOURS.items())
