"""Card faces for the replay viewer: a trace's card code (the rules page's code, as each
game's ``layout.card_code`` writes it) as the text on a drawn card and a colour class.

The face is the game's own (``Game.card_face``, a presentation hook every game may define
from its naming constants: ``sim/game.suited_face`` for RANK + SUIT codes); a game without
one gets its codes as they are, uncoloured: readable, never wrong.  This module holds the
colours of the classes a face may name.

Suits use a four-colour deck (spades black, hearts red, diamonds blue, clubs green) so
that every suit can be told apart at a glance, not only red from black.
"""
from __future__ import annotations

# css class -> colour; the viewer's stylesheet is written from this table
COLOURS = {
    "suit-S": "#111", "suit-H": "#c0182a", "suit-D": "#1557c0", "suit-C": "#17803a",
    "col-R": "#c0182a", "col-B": "#1557c0", "col-G": "#17803a",
    "kind-C": "#8a5a00", "kind-S": "#1557c0", "kind-T": "#17803a", "kind-R": "#c0182a", "kind-A": "#6b2fa8",
    "floor": "#333", "special": "#a0400b", "block": "#5a4a2a", "action": "#6b2fa8", "plain": "#222",
}

Face = tuple[str, str]  # (text on the card, css class)


def faces(game, codes) -> dict[str, dict[str, str]]:
    """{code: {"t": text, "c": css class}} for every code in ``codes``."""
    out = {}
    for code in codes:
        text, cls = game.card_face(code) or (code, "plain")  # the game's hook (sim/game.Game)
        out[code] = {"t": text, "c": cls}
    return out


def css() -> str:
    """The colour rules of every face class."""
    return "".join(f".card.{cls}{{color:{col}}}" for cls, col in COLOURS.items())
