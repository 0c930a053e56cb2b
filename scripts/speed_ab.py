#!/usr/bin/env python
"""In-process speed of the compiled fast path, one thread: best of N repeats per game.

    python scripts/speed_ab.py [--games 100000] [--repeats 5] [GAME ...]

A quick A/B tool for kernel work (``scripts/bench.py`` is the full benchmark, in
child processes, with memory, compile and ratios).  Each repeat plays the same games
(seed 1) with the ``reference`` strategy in every seat at the game's default player
count, calling the compiled kernel directly on one thread so process start-up, import
and summary time are left out; the spread of the repeats is printed beside the best.
"""
from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def warmed(game_id: str, strategies: str = "reference"):
    """The compiled fast path of ``game_id`` (default players, seed 1), warm, and a
    function ``play(games)`` that plays games [0, games) on one thread into a new tally
    and returns it (``scripts/profile_kernel.py`` uses it too)."""
    from cardlab.sim.runner import _layout, make_setup, warm

    setup = make_setup(game_id, strategies=strategies, seed=1)
    kernel = warm(setup)
    rv, sids, params = setup.arrays()
    lay = _layout(setup.game)
    rows = np.zeros((0, setup.game.row_width), dtype=np.int64)

    def play(games: int) -> np.ndarray:
        tally = setup.game.tally.new(setup.game.max_length(setup.rules, setup.players))
        kernel(rv, sids, params, setup.seed, 0, games, tally, lay, rows, 0)
        return tally

    return play


def speed(game_id: str, games: int, repeats: int) -> tuple[float, float, int]:
    play = warmed(game_id)
    rates, check = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        tally = play(games)
        rates.append(games / (time.perf_counter() - t0))
        digest = int(hashlib.sha1(tally.tobytes()).hexdigest()[:8], 16)
        assert check is None or check == digest, "a repeat gave a different tally"
        check = digest
    return max(rates), min(rates), check


def main() -> int:
    from cardlab.sim.errors import InputError
    from cardlab.sim.registry import game_ids

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("games_list", nargs="*", metavar="GAME")
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args()
    for g in a.games_list or game_ids():
        try:
            best, worst, digest = speed(g, a.games, a.repeats)
        except InputError as e:  # a bad game or strategy: one line, exit 2
            print(f"speed_ab: {e}", file=sys.stderr)
            return 2
        print(f"{g:13s} {best:10,.0f} games/s  (worst {worst:,.0f}; tally {digest:08x})",
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
