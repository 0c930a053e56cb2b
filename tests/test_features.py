"""A seat's observation as numbers (sim/features.py, issue 38): one fixed-length vector per
game from the declared visibility, with no per-game code; it sees only what the seat sees
(positions the seat cannot tell apart give the same vector, and the exact audit finds no
read of a hidden word), the seat's own blocks first."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from cardlab.sim.audit import positions_of, twin
from cardlab.sim.registry import game_ids, get_game
from cardlab.sim.schema import PUBLIC, VALUES


@pytest.mark.parametrize("game_id", game_ids())
def test_the_vector_is_the_seats_view(game_id):
    game = get_game(game_id)
    b, names = game.binding(), game.feature_names()
    assert b.N_FEATURES == len(names) == len(set(names))
    rng = np.random.default_rng(3)
    differ = 0
    for _, players, st in positions_of(game_id, 8, 11):
        views = [game.features(st, s) for s in range(players)]
        differ += any(not np.array_equal(views[0], v) for v in views[1:])
        for seat in range(players):
            v = views[seat]
            assert v.shape == (b.N_FEATURES,) and np.isfinite(v).all()
            # what the seat cannot see changes nothing (its hidden cards re-dealt, every other
            # word it may not read garbled)
            assert np.array_equal(game.features(twin(game, st, seat, rng), seat), v), (game_id, seat)
            # a seat number is given from the observer (0 itself, -1 none)
            for name in game.schema.seat_numbers & set(game.schema.parts):
                x = int(st[game.schema.parts[name].offset])
                assert v[names.index(name)] == ((x - seat) % players if x >= 0 else -1), name
            # a per-seat public number: the observer's own first, then the seats after it
            for p in game.schema.feature_parts():
                if p.owner and p.visible == PUBLIC and p.encoding == VALUES and p.size == 1:
                    for k in range(players):
                        assert v[names.index(f"{p.name}[+{k}]")] == st[p.offset + (seat + k) % players], p.name
    assert differ, f"{game_id}: every seat saw the same vector in every position"


def test_the_audit_catches_a_recipe_that_reads_hidden_cards():
    """A recipe that also encodes the hidden parts (Crazy Eights' stock, every seat's hand)
    is caught by the exact audit, word by word."""
    code = ("from cardlab.sim import schema\n"
            "schema.Schema.feature_parts = lambda self: [p for p in self.parts.values() if p.section == 'zones']\n"
            "table = schema.Schema.feature_table\n"
            "def every_hand(self):\n"
            "    t = table(self)\n"
            "    t[:, 6] = 0\n"  # no block kept for its owner alone: every seat's hand read
            "    return t\n"
            "schema.Schema.feature_table = every_hand\n"
            "from cardlab.sim.audit import check_features, Violation\n"
            "r = check_features('crazy_eights', positions=3)\n"
            "print(r['violations'], sorted({v['part'] for v in r['kept']}))\n")
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", CARDLAB_HISTORY="off")
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    n, parts = p.stdout.split(" ", 1)
    assert int(n) > 0 and "stock" in parts and "hands" in parts, p.stdout


@pytest.mark.parametrize("game_id", game_ids())
def test_a_rule_slot_read_as_a_float_is_filled_by_a_float_knob(game_id):
    """A rule slot declared as a float's bits (``S.numbers(floats=...)``) must come from a
    float knob of that name: an integer knob's slot read as float bits would give the model
    a denormal near 0 whatever its value (Block Tower's first_start_fewer did)."""
    game = get_game(game_id)
    knobs = {k.name: k for k in game.knobs}
    floats = game.schema.float_numbers & set(game.schema.rule_names)
    bad = [n for n in floats if n in knobs and knobs[n].kind != "float"]
    assert not bad, f"{game_id}: integer knobs read as float bits: {bad}"
