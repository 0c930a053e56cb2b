#!/usr/bin/env python
"""Write every name a game's schema derives into its ``layout.py``, as assignments.

    python scripts/layout_names.py [GAME ...]      (default: every registered game and the
                                                     templates of cardlab new-game)
    python scripts/layout_names.py --templates     (the templates' layout.py.tmpl only)

A layout module declares its state part by part (``sim/schema.py``); the offsets, rule
slots, decision numbers and tables the rules and strategies import (``S_HANDS``,
``R_PLAYERS``, ``D_PLAY``, ``ENGINE``...) are assignments in the module itself, in one block
before ``S.seal(globals())`` (``Schema.names_block``), so grep and an editor's
go-to-definition find every one (several names a line: ``S_STOCK_N, S_TURN =
S.at("stock_n", "turn")``); ``S.seal`` checks that the block is complete and right.
Run this after adding, renaming or removing a part, a rule slot or a decision: it
replaces the block (or puts it before ``S.seal(globals())``).
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path

os.environ["CARDLAB_LAYOUT_NAMES"] = "define"  # the layout imports while its block is out of date


def put_block(text: str, block: str, path: Path) -> str:
    """``text`` with its names block replaced by ``block`` (or put before the seal)."""
    from cardlab.sim.schema import NAMES_BEGIN, NAMES_END

    if NAMES_BEGIN in text:
        head, rest = text.split(NAMES_BEGIN, 1)
        tail = rest.split(NAMES_END, 1)[1].lstrip("\n")
        return head + block + tail
    seal = "S.seal(globals())"
    if seal not in text:
        raise SystemExit(f"{path}: no '{seal}' line to put the names before")
    return text.replace(seal, block + seal, 1)


def write(game_id: str) -> Path:
    """Rewrite the block of ``sim/GAME/layout.py``.  The layout is run from its file alone,
    not imported as part of its package: the game's ``__init__.py`` may still use names
    the block is about to change (a part renamed a moment ago)."""
    spec = importlib.util.find_spec(f"cardlab.sim.{game_id}")  # imports cardlab.sim only
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"no game package cardlab.sim.{game_id}")
    path = Path(list(spec.submodule_search_locations)[0]) / "layout.py"
    ns: dict = {"__name__": f"cardlab.sim.{game_id}.layout", "__file__": str(path)}
    exec(compile(path.read_text(), str(path), "exec"), ns)  # noqa: S102 - the layout, as its import runs it
    path.write_text(put_block(path.read_text(), ns["S"].names_block(), path))
    return path


def write_templates() -> list[Path]:
    """The names block of every template's ``layout.py.tmpl`` (``cardlab new-game``), from
    the schema of the template rendered for a game named ``template_game``."""
    from cardlab.new_game import TEMPLATE_DIRS, render

    paths = []
    for folder in TEMPLATE_DIRS.values():
        path = folder / "layout.py.tmpl"
        text = path.read_text()
        ns: dict = {"__name__": "template_game_layout"}
        exec(compile(render(text, "template_game"), str(path), "exec"), ns)
        path.write_text(put_block(text, ns["S"].names_block(), path))
        paths.append(path)
    return paths


def main(argv: list[str]) -> int:
    from cardlab.sim.registry import game_ids

    templates = not argv or argv == ["--templates"]
    for game_id in [] if argv == ["--templates"] else argv or game_ids():
        print(f"wrote the names of {game_id} into {write(game_id)}")
    if templates:
        for path in write_templates():
            print(f"wrote the names of the template {path.parent.name} into {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
