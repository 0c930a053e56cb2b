"""One traced game straight from a game's ``run_games`` (trace mode), for invariant tests
that check raw state snapshots with numpy instead of decoding JSON."""
from __future__ import annotations

import numpy as np

from cardlab.sim import runner


def play_traced(kernel, setup, g: int, capacity: int = 400):
    """(final trace-mode state, fast-path row) of game ``g`` of ``setup``; the event
    buffer is grown and the game replayed until every event fits."""
    game = setup.game
    rv, sids, params = setup.arrays()
    lay = runner._layout(game)
    while True:
        tally = game.tally.new(game.max_length(setup.rules, setup.players))
        rows = np.zeros((1, game.row_width), np.int64)
        st = kernel(rv, sids, params, setup.seed, g, g + 1, tally, lay, rows, capacity)
        n = game.trace_arrays(st)[0]
        if n <= capacity:
            return st, rows[0]
        capacity = n
