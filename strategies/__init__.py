"""Heuristic strategies, one module per game, registered by name.

A strategy is a compiled function over the game state plus a ``Strategy`` entry
(name, id, documented parameters with bounds).  ``strategies.base`` holds the
registry types and the ``NAME:key=value`` parser shared by every game.
"""
