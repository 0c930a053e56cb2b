"""Cold start on two cores: compile half of a game's helpers in a second process.

numba compiles on one core, and a game's first run compiles every helper of its kernel
(about 10 s for Skyscraper).  While the main process works through the kernel's helpers
in the order the kernel calls them, this process compiles the ones the main process
reaches late (``Game.precompile``: the game's ``step``, while the main process starts with
``choose``, then the strategies ``choose`` reaches last; then the record helpers, ``SHARED``)
into the same keyed cache folder; when the main
process gets there it loads them instead of compiling.  numba writes cache files
atomically, so a race only means that a helper is compiled twice.

Run as ``python -m cardlab.sim.precompile GAME`` (``sim.runner.warm`` starts it when the
kernel of these sources has never been warmed).
"""
from __future__ import annotations

import importlib
import subprocess
import sys

from cardlab.sim import cache


def marker(game_id: str):
    return cache.FOLDER / f"{game_id}.warm" if cache.FOLDER else None


def start(game) -> subprocess.Popen | None:
    """Start the helper process if this game's kernel was never warmed here."""
    from numba import config

    m = marker(game.id)
    if config.DISABLE_JIT or not game.precompile or m is None or m.exists():
        return None
    return subprocess.Popen([sys.executable, "-m", "cardlab.sim.precompile", game.id],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def finish(game, proc: subprocess.Popen | None, warmed: bool) -> None:
    """Mark the kernel warm (if it is), and stop the helper process if it still runs."""
    m = marker(game.id)
    if warmed and m is not None:
        m.touch()
    if proc is not None and proc.poll() is None:
        proc.terminate()
        proc.wait()


# what every game's kernel reaches last, after its game loop: folded into the tally
SHARED = ("cardlab.sim.record:record_game", "cardlab.sim.shape:record_shape")


def main(game_id: str) -> None:
    from cardlab.sim.registry import get_game

    listed = get_game(game_id).precompile
    for ref in listed + tuple(r for r in SHARED if r not in listed):
        module, name = ref.split(":")
        getattr(importlib.import_module(module), name).compile_declared()


if __name__ == "__main__":
    main(sys.argv[1])
