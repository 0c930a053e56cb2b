"""Actions and events in words, for ``cardlab play`` and the replay viewer
(``analysis/replay_view.py``).

A legal action is four numbers whose meaning the decision's field names give
(``game.schema.decisions``: ``("play", "kind,a,b,c")``).  Every action is shown with those
named numbers; for the shipped games a sentence comes first, written from the comments
beside each game's decisions in its ``layout.py`` (card numbers as the rules page's codes).
An event (what a bot or chance did) is the game's own trace decoding put in one line.
"""
from __future__ import annotations

from typing import Any, Callable

# the fields of an event that are bookkeeping, not what happened
EVENT_SKIP = ("type", "step", "turn", "player", "action", "state")


def fields_text(game, phase: int, act: tuple[int, int, int, int]) -> str:
    """The action's numbers named by its decision's fields: ``kind=1, a=3``."""
    names = game.schema.decisions[phase - 1][1].split(",")
    return ", ".join(f"{n}={v}" for n, v in zip(names, act))


def _skyscraper(L, act, obs):
    kind, a, b, c = act
    code = L.card_code
    if kind == L.A_STOP:
        return "end your turn"
    if kind == L.A_BUILD:
        joker = f" (joker as {c})" if code(b) == "J" else ""
        return f"build a floor of {code(a)} and {code(b)}{joker}"
    if kind == L.A_STEAL:
        return f"play {code(c)} to steal card {b} of seat {a}'s top floor"
    if kind == L.A_DISCARD:
        return f"discard {code(a)}"
    name = {L.A_DOG: "DOG", L.A_BONE: "BONE", L.A_HAM: "HAM", L.A_BALL: "BALL", L.A_THIEF: "THIEF",
            L.A_SUPER: "SUPER", L.A_SHAKE: "SHAKE", L.A_TRUCK: "TRUCK"}.get(kind)
    if name and kind in (L.A_BONE, L.A_HAM, L.A_BALL, L.A_THIEF):
        return f"play {name} on seat {a}"
    return f"play {name}" if name else None


def _crazy_eights(L, act, obs):
    kind, card, _, _ = act
    if obs["decision"] == "call":
        return f"call {'CDHS'[kind]} ({('clubs', 'diamonds', 'hearts', 'spades')[kind]})"
    return f"play {L.card_code(card)}" if kind == L.A_PLAY else "draw a card from the stock"


def _five_towers(L, act, obs):
    x, y, _, _ = act
    d = obs["decision"]
    if d == "bid":
        return "pass" if x == 0 else f"bid {x}"
    if d == "tear":
        return "no tear-down" if x < 0 else f"tear down your {L.KINDS[x]} tower"
    if d == "place":
        offer = obs["zones"].get("offer")
        card = offer[x] if isinstance(offer, list) and 0 <= x < len(offer) else None
        return f"take offer slot {x}" + (f" ({card})" if isinstance(card, str) else "")
    return None


def _smokestack(L, act, obs):
    kind, a, b, c = act
    d = obs["decision"]
    if d == "sweep":
        return "call the sweep" if kind else "do not call the sweep"
    if d == "double":
        return "no double chimney" if kind < 0 else f"declare a double chimney in layout {kind}"
    if d == "swap":
        if kind == L.A_PASS:
            return "pass"
        center = obs["zones"].get("center")
        card = center[c] if isinstance(center, list) and 0 <= c < len(center) else None
        what = f"center card {c}" + (f" ({card})" if isinstance(card, str) else "")
        return f"swap {what} into slot {b} of layout {a}"
    if d == "stall":
        return f"replace center slots {kind} and {a}"
    return None


def _three_up(L, act, obs):
    kind, t, n, _ = act
    if obs["decision"] == "discard":
        if kind == L.A_STOP:
            return "end the chain (decline the extra discards still owed) and go on to the draw"
        return "pick up the pile" if kind == L.A_PICKUP else f"play {n} card(s) of type {t}"
    return None


def _block_tower(L, act, obs):
    kind, a, b, c = act
    d = obs["decision"]
    if d == "reshuffle":
        return "reshuffle your hand into the draw pile and draw anew" if kind else "keep your hand"
    if d in ("action", "second"):
        return "no action card" if kind < 0 and not (a or b or c) else f"play {L.card_code(kind)}"
    if d == "block":
        return f"place {L.card_code(kind)}, style {a / L.STYLE_ONE:g} (0 careful .. 1 sabotage)"
    return None


SENTENCES: dict[str, Callable[[Any, tuple, dict], str | None]] = {
    "skyscraper": _skyscraper, "crazy_eights": _crazy_eights, "five_towers": _five_towers,
    "smokestack": _smokestack, "three_up": _three_up, "block_tower": _block_tower,
}


def describe_action(game, phase: int, act: tuple[int, int, int, int], obs: dict) -> str:
    """One legal action in words (a sentence where the game has one) with its named numbers."""
    raw = fields_text(game, phase, act)
    say = SENTENCES.get(game.id)
    try:
        text = say(game.layout, act, obs) if say else None
    except (AttributeError, IndexError, KeyError, TypeError, ValueError):
        text = None  # a new game's numbers this sentence does not know: the numbers alone
    return f"{text}  [{raw}]" if text else raw


def _value(v) -> str:
    if isinstance(v, list):
        return " ".join(_value(x) for x in v) if v else "-"
    if v is None:
        return "-"
    return str(v)


def describe_event(ev: dict, seat: int, labels: list[str]) -> str:
    """One trace event in a line: who (you, seat N and its strategy, or chance), what, and
    the event's own fields."""
    who = ("chance" if ev.get("player") is None else
           "you" if ev["player"] == seat else f"seat {ev['player']} ({labels[ev['player']]})")
    rest = ", ".join(f"{k} {_value(v)}" for k, v in ev.items() if k not in EVENT_SKIP)
    return f"{who}: {ev['action']}" + (f" ({rest})" if rest else "")
