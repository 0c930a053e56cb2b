#!/usr/bin/env python
"""Carry a shipped learned model over to an observation vector that gained features.

    python scripts/widen_model.py MODEL.json FEATURE [FEATURE ...]

A game that gains a rule slot (a new knob) gains a number in every seat's observation
(``Game.feature_names``: ``rules.<slot>``), so its shipped model (``strategies/models/``) no
longer matches the code's encoding and ``sim/models.load`` refuses it.  When the new
features were constant under the rules the model was trained on (a new knob at its default),
retraining cannot give them any weight: the fit keeps only the inputs that vary
(``analysis/value.fit``, ``keep``) and ``analysis/learn.fold`` gives every other input a
zero weight.  So the retrained model is the old one with zero weights at the new features
(up to rounding in the last bit, the fit's arithmetic being reordered), and this script
writes exactly that, without replaying the training: every evaluation, and so every
decision of the ``learned`` player, is unchanged.

It refuses unless the file's encoding is the digest of this code's feature names without
the named ones (the vector gained exactly those features, and nothing else changed), and
unless each named feature is a rule slot the model's recorded training rules fill with the
same value every game.  Rewrite ``docs/learned-models.md`` afterwards
(``python scripts/learned_models.py``: the count of numbers seen).
"""
from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import numpy as np

from cardlab.sim import models
from cardlab.sim.features import ENCODING
from cardlab.sim.registry import get_game


def digest(names: list[str]) -> str:
    """``sim/models.encoding`` of a list of feature names."""
    return hashlib.sha256((f"{ENCODING}\n" + "\n".join(names)).encode()).hexdigest()[:16]


def widen_weights(hidden: int, w: np.ndarray, n_old: int, at: list[int]) -> np.ndarray:
    """A generation's weights (``sim/models.pack`` layout) with a zero weight for each new
    feature, ``at`` being their indices in the new vector."""
    keep = [i for i in range(n_old + len(at)) if i not in at]  # old feature i -> keep[i]
    n = n_old + len(at)
    if hidden == 0:  # w[0:n], b
        out = np.zeros(n + 1)
        out[keep] = w[:n_old]
        out[n] = w[n_old]
        return out
    W1 = np.zeros((hidden, n))  # W1 (hidden rows of n), b1, w2, b2
    W1[:, keep] = w[:hidden * n_old].reshape(hidden, n_old)
    return np.concatenate([W1.ravel(), w[hidden * n_old:]])


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__.split("\n\n")[1].strip())
        return 2
    path, added = Path(argv[0]), argv[1:]
    game_id, players = path.stem.rsplit("-", 1)
    game = get_game(game_id)
    names = game.feature_names()
    missing = [a for a in added if a not in names]
    if missing:
        raise SystemExit(f"{path}: {', '.join(missing)} not a feature of {game_id}")
    old_names = [n for n in names if n not in added]
    m = models.load(path)  # unchecked: it reads the old encoding
    if m.game != game_id or m.encoding != digest(old_names) or m.n_features != len(old_names):
        raise SystemExit(f"{path}: its encoding {m.encoding} is not this code's features without "
                         f"{', '.join(added)} ({digest(old_names)}): retrain it with cardlab learn")
    # constant in training: each new feature is a rule slot filled from the recorded rules
    # (missing knobs at their defaults), the same for every game of the training
    rules = game.resolve_rules(m.info["settings"]["rules"], m.players)
    vector = dict(zip(game.schema.rule_names, game.rules_vector(rules, m.players)))
    for a in added:
        slot = a.removeprefix("rules.")
        if not a.startswith("rules.") or slot not in vector:
            raise SystemExit(f"{path}: {a} is not a rule slot: it may have varied in training: retrain")
        print(f"{a}: {vector[slot]} in every training game, weight 0")
    at = [names.index(a) for a in added]
    wide = models.Model(m.game, m.players, models.encoding(game), len(names), [], m.info)
    for g in m.generations:
        w = widen_weights(g["hidden"], g["weights"], m.n_features, at)
        wide.add(g["hidden"], w, **{k: v for k, v in g.items() if k not in ("hidden", "weights")})
    models.save(wide, path)
    print(f"wrote {path}: {m.n_features} -> {len(names)} features, encoding {wide.encoding}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
