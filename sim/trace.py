"""One game as JSON Lines: header, one event per action with every zone after it, result.

The events come from the very kernel the fast path runs (trace mode), never from a
second implementation of the rules, so a traced game's result equals the fast path's
result for the same seed and game index.

**The lead a trace shows** (``read_lead``): each seat's progress after every event (the
game's ``progress(st, seat)`` on the event's zone snapshot) and which turn (or round) of
the game's length each event belongs to give the sole leader at the end of every turn:
the last event of the turn.  In a game that keeps the rule of ``sim/shape.py`` (progress
does not change between ``shape.turn_over(st, ENGINE, progress, t)`` and the last event
stamped ``t``) that is the standing the fast path noted for the turn.  The replay viewer
draws the lead this way (``analysis/replay_moments.py``), and the conformance kit's
``lead_in_trace`` check holds every game to it.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

from cardlab.sim import runner, shape
from cardlab.sim.runner import Setup

# where each game's golden trace is kept (the conformance kit's golden_trace check compares
# game 3 of the default setup with it; ``cardlab new-game`` and scripts/golden.py write it)
GOLDEN_TRACES = Path(__file__).resolve().parent.parent / "tests" / "golden" / "traces"


def cards_in(value: Any) -> list[str]:
    """Every card code (string) in a trace zone's value, in reading order (lists in order,
    dicts by key order): the order the replay viewer draws them in."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [c for v in value for c in cards_in(v)]
    if isinstance(value, dict):
        return [c for v in value.values() for c in cards_in(v)]
    return []


def trace(setup: Setup, index: int = 0, capacity: int = 512) -> list[dict]:
    """Header, events and result of game ``index`` of ``setup``."""
    game = setup.game
    if not (0 <= index < runner.MAX_GAMES):
        from cardlab.sim.errors import InputError

        raise InputError(f"bad --index {index}: allowed 0 to {runner.MAX_GAMES - 1:,}")
    kernel = runner.warm(setup)
    rv, sids, params = setup.arrays()
    while True:
        tally = game.tally.new(game.max_length(setup.rules, setup.players))
        rows = np.zeros((1, game.row_width), dtype=np.int64)
        st = runner.play_kernel(setup, kernel, (rv, sids, params), index, index + 1, tally, rows, capacity)
        n = game.trace_arrays(st)[0]
        if n <= capacity:
            break
        capacity = n  # the buffer was too small: replay the same game with room for all
    events = game.decode_trace(setup.rules, setup.players, st)
    length, unfinished, mask = (int(x) for x in rows[0, :3])
    header = {"type": "header", "game": game.id, "seed": setup.seed, "game_index": index,
              "players": setup.players, "rules": game.rules_json(setup.rules),
              "strategies": [s.label for s in setup.seats]}
    result = {"type": "result", "winners": [s for s in range(setup.players) if (mask >> s) & 1],
              "length": length, "scores": [int(x) for x in rows[0, 3:3 + setup.players]],
              "unfinished": bool(unfinished)}
    return [header, *events, result]


def golden_trace_lines(game_id: str) -> list[str]:
    """Game 3 of ``game_id``'s default setup traced, one JSON line per trace line."""
    return [json.dumps(x, sort_keys=True) for x in trace(runner.make_setup(game_id), 3)]


def write_golden_trace(game_id: str) -> Path:
    """Write ``tests/golden/traces/GAME.jsonl`` (the golden trace) and return its path."""
    GOLDEN_TRACES.mkdir(parents=True, exist_ok=True)
    path = GOLDEN_TRACES / f"{game_id}.jsonl"
    path.write_text("\n".join(golden_trace_lines(game_id)) + "\n")
    return path


# ------------------------------------------------------------ the lead a trace shows
def sole_leader(values: Sequence[int]) -> int:
    """The one seat with the highest progress, -1 when the top is shared."""
    top = max(values)
    return list(values).index(top) if list(values).count(top) == 1 else -1


def turn_ends(values: list[list[int]], periods: list[int], length: int) -> list[tuple[int, int]]:
    """(event, sole leader) at the end of each turn 1..length: the turn's last event (a turn
    without events keeps the one before; (-1, -1) before any event)."""
    last: dict[int, int] = {}
    for k, p in enumerate(periods):
        last[p] = k
    out, ev = [], -1
    for p in sorted(x for x in last if x < 1):  # events before the first turn (the deal)
        ev = max(ev, last[p])
    for t in range(1, length + 1):
        ev = last.get(t, ev)
        out.append((ev, -1 if ev < 0 else sole_leader([v[ev] for v in values])))
    return out


def candidate_periods(lines: list[dict[str, Any]], unit: str) -> list[tuple[str, list[int]]]:
    """Readings of which turn (or round) of the game's length each event belongs to, best
    first, as (where it is read, the reading): the events' ``turn`` field, then a zones
    counter named for the unit (``round``); kept only when it never goes back and, in a
    finished game, shifted so the last event falls in the game's last turn (shift 0 or 1:
    a 0-based counter).  A capped game's length is the cap (a kernel may end a frozen table
    early and report the cap), so there the reading is kept unshifted when it stays within it."""
    events, result = lines[1:-1], lines[-1]
    length = int(result.get("length") or 0)
    key = unit[:-1] if unit.endswith("s") else unit
    reads = [("turn", [e.get("turn") for e in events]),
             (key, [e["state"].get(key) if isinstance(e.get("state"), dict) else None for e in events])]
    out = []
    for where, r in reads:
        if not r or not all(isinstance(x, int) and not isinstance(x, bool) for x in r):
            continue
        if not all(a <= b for a, b in zip(r, r[1:])):
            continue
        shift = 0 if result.get("unfinished") else length - r[-1]
        if shift in (0, 1) and r[-1] + shift <= length:
            out.append((where, [x + shift for x in r]))
    return out


def snapshots(setup: Setup, index: int, events: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(zone snapshot per event, final state) of game ``index`` of ``setup``
    played again in trace mode; None when it has not ``events`` events (not the traced game)."""
    game = setup.game
    kernel = runner.warm(setup)
    tally = game.tally.new(game.max_length(setup.rules, setup.players))
    rows = np.zeros((1, game.row_width), dtype=np.int64)
    st = runner.play_kernel(setup, kernel, setup.arrays(), index, index + 1, tally, rows, max(events, 1))
    n, _, snaps = game.trace_arrays(st)
    if n != events:
        return None
    return np.array(snaps[:n]), st


def tables(game, snaps: np.ndarray) -> Iterator[np.ndarray]:
    """Each event's zone snapshot as a state (its zones and counters, the rest 0: what
    ``progress`` may read), one array written over for each event."""
    L = game.layout
    full = np.zeros(L.S_SIZE, dtype=np.int64)
    for snap in snaps:
        full[:L.ZONES_END] = snap
        yield full


@dataclass
class TraceLead:
    """What a traced game's events say of the lead, beside what the fast path noted."""
    values: list[list[int]]          # values[s][k]: seat s's progress after event k
    snaps: np.ndarray                # the zone snapshot after each event
    noted: list[int | None]          # the fast path's standing at the end of turns 1..length (shape.noted;
                                     # empty for a capped game: it has no figures to agree with)
    period_of: str = "event"         # where ``periods`` was read: "turn", a zones counter, "event"
    periods: list[int] = field(default_factory=list)   # the turn (or round) event k belongs to
    ends: list[tuple[int, int]] = field(default_factory=list)  # (event, sole leader) per turn 1..length

    def differs(self) -> int | None:
        """The first turn whose sole leader, as the events read, is not the one the fast
        path noted (None: none; a turn the log does not keep is not compared)."""
        for t, (want, (_, got)) in enumerate(zip(self.noted, self.ends), 1):
            if want is not None and want != got:
                return t
        return None

    @property
    def exact(self) -> bool:
        return self.differs() is None


def read_lead(setup: Setup, index: int, lines: list[dict[str, Any]]) -> TraceLead | None:
    """The lead traced game ``index`` of ``setup`` shows (``lines``: its trace): every seat's
    progress after every event, and the first reading of the events' turns
    (``candidate_periods``) whose sole leader at the end of every turn is the one the fast
    path noted; no reading does: the first, and ``exact`` is False.  None when the game
    declares no progress, or ``lines`` is not this game."""
    game = setup.game
    events, result = lines[1:-1], lines[-1]
    progress = getattr(game.model(), "progress", None)
    if progress is None or game.close_margin < 0 or not events:
        return None
    got = snapshots(setup, index, len(events))
    if got is None:
        return None
    snaps, st = got
    values = [[0] * len(events) for _ in range(setup.players)]
    for k, full in enumerate(tables(game, snaps)):
        for s in range(setup.players):
            values[s][k] = int(progress(full, s))
    length = int(result["length"])
    noted = [] if result["unfinished"] else shape.noted(st, game.layout.ENGINE, length)
    lead = TraceLead(values, snaps, noted)
    cands = candidate_periods(lines, game.length_unit) or [("event", list(range(1, len(events) + 1)))]
    first = None
    for where, periods in cands:
        lead.period_of, lead.periods, lead.ends = where, periods, turn_ends(values, periods, length)
        if lead.exact:
            return lead
        first = first or (where, periods, lead.ends)
    lead.period_of, lead.periods, lead.ends = first  # no reading agrees with the fast path: the first
    return lead
