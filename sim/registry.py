"""The shipped games, by id.  Adding a game: one subpackage in ``sim/`` and a line here."""
from __future__ import annotations

import importlib

from cardlab.sim.errors import InputError
from cardlab.sim.game import Game

GAME_MODULES = {
    "skyscraper": "cardlab.sim.skyscraper",
    "smokestack": "cardlab.sim.smokestack",
    "five_towers": "cardlab.sim.five_towers",
    "three_up": "cardlab.sim.three_up",
    "block_tower": "cardlab.sim.block_tower",
    "crazy_eights": "cardlab.sim.crazy_eights",
}


def game_ids() -> list[str]:
    return list(GAME_MODULES)


def get_game(game_id: str) -> Game:
    if game_id not in GAME_MODULES:
        raise InputError(f"unknown game '{game_id}': allowed {', '.join(GAME_MODULES)}")
    return importlib.import_module(GAME_MODULES[game_id]).GAME
