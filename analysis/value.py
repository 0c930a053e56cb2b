"""A learned evaluation's first step (issue 38): how well a seat's observation predicts the
seat's win, fitted from played games.

``sample`` plays seeded games of a setup on the compiled fast path and keeps, at every
``every``-th decision, each seat's observation vector (``sim/features.py``: what that seat
sees, nothing more) with the seat's final win share (1/k for a win shared by k seats; the
games that hit the turn cap are left out: nobody won them).  ``fit`` is a logistic model of
the win share on the standardized vector, L2-penalized, fitted with scipy's L-BFGS (a
linear evaluation small enough to run inside a compiled player).  ``value_report`` fits on
the first games and measures on the others (split by game, never by position): the
log-loss against the fair-share guess 1/players, and how often the seat the model rates
best is a winner, overall and by how far into its game the position is.  That curve is
also a designer's figure: how early what the seats can see tells who will win.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

from cardlab.sim.runner import make_setup


MAX_BYTES = 128 << 20  # the sampled observations kept at once


def sample(game_id: str, players: int | None = None, strategies: str | None = None, games: int = 2000,
           every: int = 4, seed: int = 1, start: int = 0) -> tuple[np.ndarray, np.ndarray, int]:
    """(X, meta, players): observation rows and (game, seat, decision, winners' mask, the
    game's decisions) per row of games [start, start + games) of the setup (default players
    and strategies).  At most ``MAX_BYTES`` of rows: the sampler stops before the game that
    would not fit (the games in ``meta`` say how many it played)."""
    setup = make_setup(game_id, players, None, strategies, seed)
    P = setup.players
    n_features = len(setup.game.feature_names())
    cap = games * P * (setup.game.max_length(setup.rules, setup.players) // max(1, every) + 4)
    cap = min(cap, MAX_BYTES // (8 * max(1, n_features)))
    X, meta, _ = sample_setup(setup, start, start + games, every, cap)
    return X, meta, P


def sample_setup(setup, start: int, stop: int, every: int, cap: int) -> tuple[np.ndarray, np.ndarray, int]:
    """(X, meta, next game) of games [start, stop) of ``setup`` (its learned seats playing its
    model array) in a buffer of ``cap`` rows: it stops before a game whose rows would not fit."""
    b = setup.game.binding()
    rv, sids, params = setup.arrays()
    X = np.zeros((cap, b.N_FEATURES), dtype=np.float64)
    meta = np.zeros((cap, 5), dtype=np.int64)
    W = np.ascontiguousarray(setup.model_array(), dtype=np.float64)
    n, nxt = b.sample_features(rv, sids, params, setup.seed, start, stop, every, X, meta, W)
    return X[:n].copy(), meta[:n].copy(), int(nxt)  # copies: a view would keep the whole buffer


def win_share(meta: np.ndarray) -> np.ndarray:
    """Each row's seat's share of its game's win (0 when it lost)."""
    mask = meta[:, 3]
    won = (mask >> meta[:, 1]) & 1
    k = np.array([bin(int(m)).count("1") for m in mask])
    return np.where(won == 1, 1.0 / np.maximum(k, 1), 0.0)


@dataclass
class Inputs:
    """The columns an evaluation reads (those that vary in its data) and their standardization."""
    keep: np.ndarray
    mean: np.ndarray
    scale: np.ndarray

    def z(self, X: np.ndarray) -> np.ndarray:
        return (X[:, self.keep] - self.mean) / self.scale


@dataclass
class Value(Inputs):
    """A fitted evaluation: V(x) = expit(w . (x[keep] - mean) / scale + b)."""
    w: np.ndarray
    b: float

    def __call__(self, X: np.ndarray) -> np.ndarray:
        return expit(self.z(X) @ self.w + self.b)


def standardized(X: np.ndarray):
    """(kept columns, their means, their standard deviations, X's kept columns standardized):
    a column that never varies is left out."""
    sd = X.std(axis=0)
    keep = np.flatnonzero(sd > 1e-12)
    mean, scale = X[:, keep].mean(axis=0), sd[keep]
    return keep, mean, scale, (X[:, keep] - mean) / scale


def fit(X: np.ndarray, y: np.ndarray, l2: float = 1.0) -> Value:
    """The logistic model of ``y`` (win shares in [0, 1]) on the standardized columns of X
    that vary, with an L2 penalty ``l2`` on the weights (not the intercept)."""
    keep, mean, scale, Z = standardized(X)
    n = len(y)

    def loss(theta):
        w, b = theta[:-1], theta[-1]
        p = np.clip(expit(Z @ w + b), 1e-12, 1 - 1e-12)
        r = p - y
        value = -(y * np.log(p) + (1 - y) * np.log(1 - p)).sum() / n + 0.5 * l2 * (w @ w) / n
        grad = np.append(Z.T @ r / n + l2 * w / n, r.sum() / n)
        return value, grad

    theta0 = np.zeros(len(keep) + 1)
    res = minimize(loss, theta0, jac=True, method="L-BFGS-B", options={"maxiter": 500})
    return Value(keep, mean, scale, res.x[:-1], float(res.x[-1]))


@dataclass
class Network(Inputs):
    """A fitted one-hidden-layer evaluation: V(x) = expit(w2 . tanh(W1 z + b1) + b2), z the
    standardized kept columns of x."""
    W1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: float

    def __call__(self, X: np.ndarray) -> np.ndarray:
        return expit(np.tanh(self.z(X) @ self.W1.T + self.b1) @ self.w2 + self.b2)


def fit_network(X: np.ndarray, y: np.ndarray, hidden: int, l2: float = 1.0, seed: int = 1,
                maxiter: int = 300) -> Network:
    """A one-hidden-layer (``hidden`` tanh units) logistic model of ``y`` on the
    standardized varying columns of X, L2-penalized, fitted by scipy's L-BFGS from weights
    drawn from ``seed`` (the same data and seed: the same network)."""
    keep, mean, scale, Z = standardized(X)
    n, k = Z.shape
    H = hidden
    rng = np.random.default_rng(seed)
    theta0 = np.concatenate([rng.normal(0, 1 / np.sqrt(k), H * k), np.zeros(H),
                             rng.normal(0, 1 / np.sqrt(H), H), [0.0]])

    def unpack(theta):
        return (theta[:H * k].reshape(H, k), theta[H * k:H * k + H], theta[H * k + H:H * k + 2 * H],
                theta[-1])

    def loss(theta):
        W1, b1, w2, b2 = unpack(theta)
        A = np.tanh(Z @ W1.T + b1)
        p = np.clip(expit(A @ w2 + b2), 1e-12, 1 - 1e-12)
        r = p - y
        value = (-(y * np.log(p) + (1 - y) * np.log(1 - p)).sum() + 0.5 * l2 * (W1.ravel() @ W1.ravel() + w2 @ w2)) / n
        dA = np.outer(r, w2) * (1 - A * A)
        grad = np.concatenate([((dA.T @ Z) + l2 * W1).ravel() / n, dA.sum(axis=0) / n,
                               (A.T @ r + l2 * w2) / n, [r.sum() / n]])
        return value, grad

    res = minimize(loss, theta0, jac=True, method="L-BFGS-B", options={"maxiter": maxiter})
    W1, b1, w2, b2 = unpack(res.x)
    return Network(keep, mean, scale, W1, b1, w2, float(b2))


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return float(-(y * np.log(p) + (1 - y) * np.log(1 - p)).mean())


def pick_rate(v: np.ndarray, meta: np.ndarray, P: int) -> tuple[float, int]:
    """How often the seat V rates best at a position (ties: the first) is one of its game's
    winners, and the positions counted (rows come in blocks of P seats per position)."""
    m = len(v) // P
    best = v[:m * P].reshape(m, P).argmax(axis=1)
    masks = meta[:m * P:P, 3]
    return float(np.mean((masks >> best) & 1)), m


def spacing(game_id: str, players: int | None, strategies: str | None, games: int, seed: int) -> int:
    """The ``every`` that keeps ``games`` games within ``MAX_BYTES``: at least 4, from the
    rows per game of 20 games sampled at every decision (the same seed: the same games)."""
    X, _, _ = sample(game_id, players, strategies, 20, 1, seed)
    per_game = len(X) / 20
    fit_rows = MAX_BYTES // (8 * max(1, X.shape[1]))
    return max(4, int(np.ceil(1.2 * games * per_game / fit_rows)))


def value_report(game_id: str, players: int | None = None, strategies: str | None = None,
                 games: int = 2000, every: int | None = None, seed: int = 1, test_share: float = 0.25,
                 l2: float = 1.0) -> dict:
    """Fit on the first games, measure on the rest (see the module's docstring); ``every``
    (None: ``spacing``'s) is how many decisions apart the sampled positions are."""
    every = every or spacing(game_id, players, strategies, games, seed)
    X, meta, P = sample(game_id, players, strategies, games, every, seed)
    finished = meta[:, 3] != 0
    X, meta = X[finished], meta[finished]
    y = win_share(meta)
    split = np.quantile(np.unique(meta[:, 0]), 1 - test_share)
    train, test = meta[:, 0] < split, meta[:, 0] >= split
    model = fit(X[train], y[train], l2)
    v = model(X[test])
    rate, positions = pick_rate(v, meta[test], P)
    # how far into its game each test position is: its decision over the game's decisions
    head = meta[test][::P][:positions]
    frac = head[:, 2] / np.maximum(1, head[:, 4])
    by_stage = []
    vv = v[:positions * P].reshape(positions, P)
    masks = meta[test][:positions * P:P, 3]
    for lo in (0.0, 0.25, 0.5, 0.75):
        sel = (frac >= lo) & ((frac < lo + 0.25) if lo < 0.75 else (frac <= 1.0))
        hit = (masks[sel] >> vv[sel].argmax(axis=1)) & 1
        by_stage.append({"from": lo, "to": lo + 0.25, "positions": int(sel.sum()),
                         "pick_rate": float(hit.mean()) if sel.any() else None})
    return {"game": game_id, "players": P, "games": int(len(np.unique(meta[:, 0]))), "requested_games": games,
            "every": every,
            "features": int(X.shape[1]), "used_features": int(len(model.keep)),
            "train_rows": int(train.sum()), "test_rows": int(test.sum()),
            "log_loss": log_loss(v, y[test]), "fair_log_loss": log_loss(np.full(test.sum(), 1.0 / P), y[test]),
            "pick_rate": rate, "fair_pick_rate": 1.0 / P, "positions": positions, "by_stage": by_stage}
