"""Positions of a game driven through its model, for the tools that step a game by hand.

A game's model (``kernel.py``: ``setup``, ``legal``, ``step``) plays one decision at a time;
these helpers set up game ``index`` of a setup as the fast path deals it (``new_game``), list
or draw the pending decision's legal actions, answer it as the engine would (``chooser``:
the game's strategy dispatch or the search player) and count the cards in a state's zones.
``cardlab play``, the stuck-game analysis (``analysis/stuck.py``), the benchmarks and the
conformance kit (``sim/testing.py``, which re-exports them) use them: production code never
imports the test kit (the layers: docs/architecture.md).
"""
from __future__ import annotations

from collections import Counter
from typing import Callable

import numpy as np

from cardlab.sim import runner
from cardlab.sim.observe import zone_cards
from cardlab.sim.rng import seed_game
from cardlab.sim.schema import DONE
from cardlab.sim.search import P_VALUE


def zone_census(game, zones: dict) -> Counter:
    """Every card code in a trace-style zones dict (the game's ``card_zones`` of it, when
    it names them), counted."""
    keep = game.card_zones
    out: Counter = Counter()
    stack = [v for k, v in zones.items() if keep is None or k in keep]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            out[x] += 1
        elif isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return out


def card_census(game, st: np.ndarray, players: int) -> Counter:
    """Every card in the schema's zones of ``st``, counted by card id: each zone (each
    seat's block of a per-seat one) read as the schema declares it (a pile by its count, a
    bit-mask hand's bits, counts, slots; a TABLE zone through the game's ``zone_cards``).
    Counters, books and scratch are never counted, whatever a trace shows beside the cards."""
    out: Counter = Counter()
    for p in game.schema.zone_parts():
        for seat in (range(players) if p.owner else (None,)):
            out.update(zone_cards(game, st, p.name, seat))
    return out


def new_game(game, setup, index: int) -> np.ndarray:
    """Game ``index`` of ``setup`` set up and stopped at its first decision."""
    st = game.schema.new_state(game.rules_vector(setup.rules, setup.players))
    seed_game(st, setup.seed, index)
    game.binding().setup(st)
    return st


def legal_actions(game, st: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Every legal action of the pending decision (the game's ``legal``)."""
    n = int(game.model().legal(st))
    o = game.layout.S_ACTS
    return [tuple(int(x) for x in row) for row in st[o:o + 4 * n].reshape(n, 4)]


def random_legal(game, st: np.ndarray, rng: np.random.Generator) -> tuple[int, int, int, int]:
    """A uniformly random legal action of the pending decision (None when there is none)."""
    n = int(game.model().legal(st))
    if n == 0:
        return None
    o = game.layout.S_ACTS + 4 * int(rng.integers(n))
    return tuple(int(x) for x in st[o:o + 4])


def random_play_positions(game, games: int, steps: tuple[int, int], seed: int,
                          sets: list[str] | None = None) -> list[np.ndarray]:
    """A position from each of games 0..games-1 (default rules, or ``sets``): a uniformly
    random number of random legal steps in [steps[0], steps[1]) from its deal, kept unless
    the game ended (the positions the search player's benchmark and golden decisions are
    taken at)."""
    setup = runner.make_setup(game.id, None, sets)
    rng = np.random.default_rng(seed)
    out = []
    for k in range(games):
        st = new_game(game, setup, k)
        for _ in range(int(rng.integers(*steps))):
            if st[game.layout.S_PHASE] == DONE:
                break
            game.model().step(st, random_legal(game, st, rng))
        if st[game.layout.S_PHASE] != DONE:
            out.append(st)
    return out


def chooser(game, models=None) -> Callable:
    """How the engine answers a decision, as one function ``choose(sid, st, me, params)``:
    the game's compiled strategy dispatch, or for ``mcts`` and ``learned`` the engine's
    ``engine_decide`` (``models``: the learned player's model array; by default the game's
    for the table's player count, looked up when a learned seat first decides)."""
    b = game.binding()  # the game's strategies and the players the engine asks, bound to its rules
    first, dispatch = b.ID.mcts, b.choose
    arrays: dict[int, np.ndarray] = {}
    none = empty_model(game)  # what seats that read no model get

    def model_for(st) -> np.ndarray:
        from cardlab.sim.models import weights_for

        if models is not None:
            return models
        players = int(st[game.layout.S_RULES])  # the rule vector's first slot: the players
        if players not in arrays:
            arrays[players] = weights_for(game, players)
        return arrays[players]

    def choose(sid, st, me, params):
        if sid < first:
            return dispatch(sid, st, me, params)
        reads = sid == b.ID.learned or (sid == b.ID.mcts and params[P_VALUE] != 0)
        W = model_for(st) if reads else none
        return b.engine_decide(st, me, sid, params, W)

    return choose


def empty_model(game) -> np.ndarray:
    from cardlab.sim.models import empty

    return empty(game.binding().N_FEATURES)
