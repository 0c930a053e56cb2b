#!/usr/bin/env python
"""Write every name a game's schema derives into its ``layout.py``, as assignments.

    python scripts/layout_names.py [GAME ...]      (default: every registered game)

A layout module declares its state part by part (``sim/schema.py``); the offsets, rule
slots, decision numbers and tables the rules and strategies import (``S_HANDS``,
``R_PLAYERS``, ``D_PLAY``, ``ENGINE``...) are assignments in the module itself, in one block
before ``S.seal(globals())`` (``Schema.names_block``), so grep and an editor's
go-to-definition find every one; ``S.seal`` checks that the block is complete and right.
Run this after adding, renaming or removing a part, a rule slot or a decision: it
replaces the block (or puts it before ``S.seal(globals())``).
"""
from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

os.environ["CARDLAB_LAYOUT_NAMES"] = "define"  # the layout imports while its block is out of date


def write(game_id: str) -> Path:
    from cardlab.sim.schema import NAMES_BEGIN, NAMES_END

    mod = importlib.import_module(f"cardlab.sim.{game_id}.layout")
    path = Path(mod.__file__)
    text = path.read_text()
    block = mod.S.names_block()
    if NAMES_BEGIN in text:
        head, rest = text.split(NAMES_BEGIN, 1)
        tail = rest.split(NAMES_END, 1)[1].lstrip("\n")
        text = head + block + tail
    else:
        seal = "S.seal(globals())"
        if seal not in text:
            raise SystemExit(f"{path}: no '{seal}' line to put the names before")
        text = text.replace(seal, block + seal, 1)
    path.write_text(text)
    return path


def main(argv: list[str]) -> int:
    from cardlab.sim.registry import game_ids

    for game_id in argv or game_ids():
        print(f"wrote the names of {game_id} into {write(game_id)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
