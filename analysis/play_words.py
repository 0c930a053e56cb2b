"""Actions and events in words, for ``cardlab play`` and the replay viewer
(``analysis/replay_view.py``).

A legal action is four numbers whose meaning the decision's field names give
(``game.schema.decisions``: ``("play", "kind,a,b,c")``).  Every action is shown with those
named numbers, after the game's own sentence where it has one (``Game.describe_action``,
a hook every game may define: the shipped games write it from the comments beside their
decisions in ``layout.py``, card numbers as the rules page's codes).
An event (what a bot or chance did) is the game's own trace decoding put in one line.
"""
from __future__ import annotations

# the fields of an event that are bookkeeping, not what happened
EVENT_SKIP = ("type", "step", "turn", "player", "action", "state")


def fields_text(game, phase: int, act: tuple[int, int, int, int]) -> str:
    """The action's numbers named by its decision's fields: ``kind=1, a=3``."""
    names = game.schema.decisions[phase - 1][1].split(",")
    return ", ".join(f"{n}={v}" for n, v in zip(names, act))



def describe_action(game, phase: int, act: tuple[int, int, int, int], obs: dict) -> str:
    """One legal action in words (a sentence where the game has one) with its named numbers."""
    raw = fields_text(game, phase, act)
    try:
        text = game.describe_action(act, obs)  # the game's own words (sim/game.Game.describe_action)
    except (AttributeError, IndexError, KeyError, TypeError, ValueError):
        text = None  # numbers the game's sentence does not know: the numbers alone
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
