"""``cardlab play GAME``: one game against the bots in a terminal, driven by the step function.

The game is set up exactly as game ``index`` of ``seed`` is everywhere else
(``sim/rng.seed_game``, the model's ``setup``), on a state with a trace buffer: every
``step`` writes its events there, as in ``cardlab trace`` (the same kernel code in trace
mode).  At the human's decisions the game shows what that seat sees (``game.observation``:
hidden zones as counts) and its legal actions (``legal``), numbered; the other seats are
answered by the compiled strategy dispatch (``sim/positions.chooser``), and their moves
are described as they happen, their hidden cards shown as ``?``.  So the saved game
(``--save``) is the trace of the game played by these actions: header, every event with
the zones after it, result, as ``sim/trace.py`` writes them.
"""
from __future__ import annotations

import json
from typing import Callable, Iterable, Iterator

import numpy as np

from cardlab.analysis.play_words import describe_action, describe_event
from cardlab.analysis.visibility import card_codes, mask_event, seen_cards, unique_deck
from cardlab.sim.rng import seed_game
from cardlab.sim.runner import Setup
from cardlab.sim.schema import DONE

HUMAN = "human"        # the human seat's strategy in a saved game's header
CAPACITY = 2048        # trace events room at the start (grown by replaying when a game needs more)
QUIT = ("q", "quit", "exit")


class Quit(Exception):
    """The player left (quit, or the input ended)."""


class Table:
    """One game in trace mode: the state, the actions taken, the events decoded so far."""

    def __init__(self, setup: Setup, index: int, capacity: int = CAPACITY):
        self.setup, self.index, self.game = setup, index, setup.game
        self.L, self.M, self.B = self.game.layout, self.game.model(), self.game.binding()
        self.actions: list[tuple[int, int, int, int]] = []
        self.st = self._fresh(capacity)
        self.seen = 0  # events already handed out by new_events

    def _fresh(self, capacity: int) -> np.ndarray:
        g = self.game
        st = g.schema.new_state(g.rules_vector(self.setup.rules, self.setup.players), capacity=capacity)
        seed_game(st, self.setup.seed, self.index)
        self.B.setup(st)
        return st

    @property
    def capacity(self) -> int:
        return (len(self.st) - self.L.S_SIZE) // self.L.TRACE_ROW

    @property
    def done(self) -> bool:
        return int(self.st[self.L.S_PHASE]) == DONE

    @property
    def actor(self) -> int:
        return int(self.st[self.L.S_ACTOR])

    @property
    def phase(self) -> int:
        return int(self.st[self.L.S_PHASE])

    def legal(self) -> list[tuple[int, int, int, int]]:
        n = int(self.M.legal(self.st))
        o = self.L.S_ACTS
        return [tuple(int(x) for x in row) for row in self.st[o:o + 4 * n].reshape(n, 4)]

    def step(self, act) -> None:
        act = tuple(int(x) for x in act)
        self.M.step(self.st, act)
        self.actions.append(act)
        if int(self.st[self.L.S_NEV]) > self.capacity:
            self._grow(2 * int(self.st[self.L.S_NEV]))

    def _grow(self, capacity: int) -> None:
        """Replay every action on a state with more trace room (the same seed: the same game)."""
        st = self._fresh(capacity)
        for act in self.actions:
            self.M.step(st, act)
        self.st = st

    def _decode(self, start: int, stop: int) -> list[dict]:
        """Events [start, stop) decoded by the game's own trace decoding (a state holding
        only those rows, so a long game is not decoded again at every step).  One event
        more is decoded in front and dropped: a decoder may read the snapshot before an
        event (3UP's pickup takes the pile as it was); when that front event itself needs
        the one before it, everything from the start is decoded."""
        L = self.L
        for lo in (max(0, start - 1), 0):
            part = np.concatenate([self.st[:L.S_SIZE],
                                   self.st[L.S_SIZE + lo * L.TRACE_ROW:L.S_SIZE + stop * L.TRACE_ROW]])
            part[L.S_NEV] = stop - lo
            try:
                events = self.game.decode_trace(self.setup.rules, self.setup.players, part)[start - lo:]
                break
            except (TypeError, KeyError, IndexError):
                if lo == 0:
                    raise
        for i, ev in enumerate(events):
            ev["step"] = start + i
        return events

    def new_events(self) -> list[tuple[dict, np.ndarray]]:
        """The events since the last call, each with its zone snapshot (the state after it)."""
        n = int(self.st[self.L.S_NEV])
        events = self._decode(self.seen, n)
        L = self.L
        snaps = [self.st[L.S_SIZE + i * L.TRACE_ROW + L.EVW:L.S_SIZE + i * L.TRACE_ROW + L.EVW + L.ZONES_END]
                 for i in range(self.seen, n)]
        self.seen = n
        return list(zip(events, snaps))

    def trace(self, labels: list[str]) -> list[dict]:
        """The finished game as trace lines (``sim/trace.py``'s header, events and result)."""
        g, L, st, P = self.game, self.L, self.st, self.setup.players
        header = {"type": "header", "game": g.id, "seed": self.setup.seed, "game_index": self.index,
                  "players": P, "rules": g.rules_json(self.setup.rules), "strategies": labels}
        mask = int(st[L.S_MASK])
        result = {"type": "result", "winners": [s for s in range(P) if (mask >> s) & 1],
                  "length": int(st[L.S_LENGTH]), "scores": [int(x) for x in st[L.S_SCORE:L.S_SCORE + P]],
                  "unfinished": bool(st[L.S_UNFINISHED])}
        return [header, *self._decode(0, int(st[L.S_NEV])), result]


# ------------------------------------------------------------ what a seat sees
def _padded(game, snap: np.ndarray) -> np.ndarray:
    st = np.zeros(game.layout.S_SIZE, dtype=np.int64)
    st[:len(snap)] = snap
    return st


def visible_zones(game, st: np.ndarray, seat: int, obs: dict | None = None) -> dict:
    """The zones as the trace names and decodes them, with every zone hidden from ``seat``
    replaced by its card count; the raw observation when a hidden zone cannot be matched
    to a trace zone by name (never show what the seat cannot see).  ``obs``: the seat's
    observation of ``st``, when the caller has it already."""
    obs = game.observation(st, seat) if obs is None else obs
    P = int(st[game.schema.parts["rules"].offset])
    zones = game.zones(st[:game.layout.ZONES_END], P)
    for name, owner in game.schema.hidden_from(seat, P):
        keys = [k for k in zones if k == name or k.startswith(name) or name.startswith(k)]
        exact = [k for k in keys if k == name]
        keys = exact or keys
        shown = obs["zones"].get(name)
        shown = shown[owner] if owner is not None and isinstance(shown, list) else shown
        if len(keys) != 1 or not isinstance(shown, dict):
            return obs["zones"]
        k = keys[0]
        label = f"({shown['hidden']} hidden)"
        if owner is None:
            zones[k] = label
        elif isinstance(zones[k], list) and len(zones[k]) > owner:
            zones[k][owner] = label
        else:
            return obs["zones"]
    return zones


def _text(v) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, dict):
        return ", ".join(f"{k}: {_text(x)}" for k, x in v.items()) if v else "-"
    if isinstance(v, list):
        if not v:
            return "-"
        if all(isinstance(x, (str, int, float)) for x in v):
            return " ".join(str(x) for x in v)
        return " ".join(f"[{_text(x)}]" for x in v)
    return str(v)


def render_view(game, st: np.ndarray, seat: int) -> str:
    """What ``seat`` sees, zone by zone (per-seat zones seat by seat), then what the rules
    showed it alone (``Game.describe_shown`` of each part its ``observation`` lists as
    shown: a Priest's look), which no zone and no event holds."""
    P = int(st[game.schema.parts["rules"].offset])
    obs = game.observation(st, seat)
    lines = []
    for name, v in visible_zones(game, st, seat, obs).items():
        # a per-seat zone: one list (or dict, or hidden count) per seat; a plain list of
        # cards that happens to hold P cards (a center row) is not one
        if isinstance(v, list) and len(v) == P and P > 1 and all(
                isinstance(x, (list, dict)) or (isinstance(x, str) and x.endswith(" hidden)")) for x in v):
            parts = [f"{'you' if s == seat else f'seat {s}'}: {_text(x)}" for s, x in enumerate(v)]
            lines.append(f"  {game.zone_label(name)}: " + " | ".join(parts))
        else:
            lines.append(f"  {game.zone_label(name)}: {_text(v)}")
    for name, values in obs["shown"].items():
        said = game.describe_shown(name, values, seat)
        if said:
            lines.append(f"  shown to you alone: {said}")
    return "\n".join(lines)


# ------------------------------------------------------------ the session
def play(setup: Setup, seat: int, index: int, read: Callable[[str], str],
         write: Callable[[str], None]) -> Table:
    """Play game ``index`` of ``setup`` with the human in ``seat``: ``read(prompt)`` returns
    a line (raises EOFError at the end of input), ``write`` prints.  Returns the table
    (finished, or as far as it got when the player quit: ``Quit`` is raised then)."""
    from cardlab.sim.positions import chooser

    game = setup.game
    P = setup.players
    labels = [s.label for s in setup.seats]
    _, sids, params = setup.arrays()
    rows = [tuple(float(x) for x in r) for r in params]
    choose = chooser(game)
    t = Table(setup, index)
    codes = card_codes(game, t.st, P)
    unique = unique_deck(game, game.zones(t.st[:game.layout.ZONES_END], P))
    obs_before: dict = {}  # before the deal the seat has seen nothing

    def tell(events):
        nonlocal obs_before
        for ev, snap in events:
            after = game.observation(_padded(game, snap), seat)["zones"]
            write("  " + describe_event(mask_event(ev, codes, seen_cards(obs_before, after, unique)), seat, labels))
            obs_before = after

    write(f"{game.title}: game {index} of seed {setup.seed}, {P} players; you are seat {seat}, "
          f"the others: " + ", ".join(f"seat {s} {labels[s]}" for s in range(P) if s != seat))
    tell(t.new_events())
    while not t.done:
        me = t.actor
        if me != seat:
            # the real state, as the engine's play_on passes it: a strategy's own random
            # stream lives in it and must advance exactly as in the fast path
            t.step(choose(int(sids[me]), t.st, me, rows[me]))
            tell(t.new_events())
            continue
        obs = game.observation(t.st, seat)
        acts = t.legal()
        write(f"\n-- your turn (seat {seat}), decision: {obs['decision']} --")
        write(render_view(game, t.st, seat))
        for i, a in enumerate(acts, 1):
            write(f"  {i:3d}. {describe_action(game, t.phase, a, obs)}")
        k = _ask(read, write, len(acts), labels[seat])
        if k == AUTO:  # the helper bot decides this one, from this seat's view like any bot
            t.step(choose(int(sids[seat]), t.st, seat, rows[seat]))
        else:
            t.step(acts[k - 1])
        tell(t.new_events())
    return t


AUTO = 0  # _ask's answer for "a": let the seat's helper bot choose


def _ask(read, write, n: int, helper: str) -> int:
    """A number from 1 to n, or AUTO for "a"; anything else asks again; quit or the end
    of input ends the game."""
    while True:
        try:
            line = read(f"your move (1-{n}; a: let {helper} choose; q: quit): ")
        except EOFError:
            raise Quit("the input ended") from None
        text = line.strip().lower()
        if text in QUIT:
            raise Quit("you quit")
        if text == "a":
            return AUTO
        if text.isdigit() and 1 <= int(text) <= n:
            return int(text)
        write(f"  not a move: {line.strip()!r}; type a number from 1 to {n}, a, or q")


def summary_line(t: Table, seat: int) -> str:
    res = t.trace([])[-1]
    if res["unfinished"]:
        how = "stopped by the turn cap"
    elif seat in res["winners"]:
        how = "you won" + (" (shared)" if len(res["winners"]) > 1 else "")
    elif res["winners"]:
        how = "won by seat " + ", ".join(str(s) for s in res["winners"])
    else:
        how = "no winner"
    return (f"game over after {res['length']} {t.game.length_unit}: {how}; "
            f"{t.game.score_name} by seat {res['scores']}")


def trace_lines(lines: Iterable[dict]) -> Iterator[str]:
    for x in lines:
        yield json.dumps(x) + "\n"
