"""Cold start on two cores: compile half of a game's helpers in a second process.

numba compiles on one core, and a game's first run compiles every helper of its kernel
(about 10 s for Skyscraper).  While the main process works through the kernel's helpers
in the order the kernel calls them, this process compiles the ones the main process
reaches late (``Game.precompile``: the game's ``step``, while the main process starts with
``choose``, then the strategies ``choose`` reaches last; then the record helpers, ``SHARED``)
into the same keyed cache folder; when the main
process gets there it loads them instead of compiling.  numba writes cache files
atomically, so a race only means that a helper is compiled twice; and the second process
names the helper it is compiling (``GAME.doing`` in the folder), so a main process that
gets there meanwhile waits for it instead of compiling it too (3UP 3DOWN's ``step`` took
the second process 9.5 s, of which the main process had duplicated 7 s).

Run as ``python -m cardlab.sim.precompile GAME`` (``sim.runner.warm`` starts it when the
kernel of these sources has never been warmed).  It needs helpers compiled on demand and a
hook before each compile, which only numba's private internals give
(``sim/numba_internals.py``): with the patches off no second process starts.
"""
from __future__ import annotations

import importlib
import subprocess
import sys
import time

from cardlab.sim import cache


def marker(game_id: str):
    return cache.FOLDER / f"{game_id}.warm" if cache.FOLDER else None


def doing(game_id: str):
    """The file in which the second process names the helper it is compiling."""
    return cache.FOLDER / f"{game_id}.doing" if cache.FOLDER else None


def start(game) -> subprocess.Popen | None:
    """Start the helper process if this game's kernel was never warmed here."""
    from cardlab.sim import jit, numba_internals

    m = marker(game.id)
    if not jit.PATCHED or not game.precompile or m is None or m.exists():
        return None
    proc = subprocess.Popen([sys.executable, "-m", "cardlab.sim.precompile", game.id],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    now = doing(game.id)
    numba_internals.before_compile = lambda ref: wait_while_compiling(proc, now, ref)
    return proc


def wait_while_compiling(proc: subprocess.Popen, doing_file, ref: str,
                         limit_s: float = 300.0) -> None:
    """Wait while the second process is compiling ``ref``: once it has, numba loads it
    from the cache.  Never longer than the process lives (or ``limit_s``)."""
    end = time.monotonic() + limit_s
    while proc.poll() is None and time.monotonic() < end:
        try:
            if doing_file.read_text() != ref:
                return
        except OSError:
            return
        time.sleep(0.02)


def finish(game, proc: subprocess.Popen | None, warmed: bool) -> None:
    """Mark the kernel warm (if it is), and stop the helper process if it still runs."""
    from cardlab.sim import numba_internals

    numba_internals.before_compile = None
    m = marker(game.id)
    if warmed and m is not None:
        m.touch()
    if proc is not None and proc.poll() is None:
        proc.terminate()
        proc.wait()
    if proc is not None:
        doing(game.id).unlink(missing_ok=True)  # stopped mid-compile: nobody is compiling


# what every game's kernel reaches last, after its game loop: folded into the tally
SHARED = ("cardlab.sim.record:record_game", "cardlab.sim.shape:record_shape")


def main(game_id: str) -> None:
    from cardlab.sim.registry import get_game

    listed = get_game(game_id).precompile
    now = doing(game_id)
    for ref in listed + tuple(r for r in SHARED if r not in listed):
        module, name = ref.split(":")
        helper = getattr(importlib.import_module(module), name)
        if helper.overloads:
            continue  # compiled on the way to an earlier one
        if now is not None:
            now.write_text(ref)  # the main process waits rather than compile it too
        helper.compile_declared()
        if now is not None:
            now.write_text("")  # in the cache now: a main process that waited loads it
    if now is not None:
        now.unlink(missing_ok=True)


if __name__ == "__main__":
    main(sys.argv[1])
