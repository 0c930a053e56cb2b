"""One game as JSON Lines: header, one event per action with every zone after it, result.

The events come from the very kernel the fast path runs (trace mode), never from a
second implementation of the rules, so a traced game's result equals the fast path's
result for the same seed and game index.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from cardlab.sim import runner
from cardlab.sim.runner import Setup

# where each game's golden trace is kept (the conformance kit's golden_trace check compares
# game 3 of the default setup with it; ``cardlab new-game`` and scripts/golden.py write it)
GOLDEN_TRACES = Path(__file__).resolve().parent.parent / "tests" / "golden" / "traces"


def trace(setup: Setup, index: int = 0, capacity: int = 512) -> list[dict]:
    """Header, events and result of game ``index`` of ``setup``."""
    game = setup.game
    if not (0 <= index < runner.MAX_GAMES):
        from cardlab.sim.errors import InputError

        raise InputError(f"bad --index {index}: allowed 0 to {runner.MAX_GAMES - 1:,}")
    kernel = runner.warm(setup)
    rv, sids, params = setup.arrays()
    while True:
        tally = game.tally.new(game.max_length(setup.rules))
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
