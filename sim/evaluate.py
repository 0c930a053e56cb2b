"""A learned evaluation ``V`` in the compiled kernels: a seat's expected win share from the
numbers of its observation (``sim/features.py``), one row of a model array
(``sim/models.py``).  Read by the ``learned`` player (``sim/learned.py``) and by the
search player's play-outs cut short (``sim/search.py``, ``mcts:value=1``)."""
import numpy as np
from numba import njit


@njit(cache=True, nogil=True, inline="always")
def value(W, g, x):
    """The evaluation of row ``g`` of the model array ``W`` at the observation ``x``: the
    seat's expected win share, in (0, 1).  ``W[g, 0]`` is the hidden layer's width H (0: a
    linear model); then the weights, as ``sim/models.pack`` lays them out:
    ``expit(w . x + b)``, or ``expit(w2 . tanh(W1 x + b1) + b2)`` with a hidden layer (the
    inputs' standardization folded into the weights)."""
    n = x.shape[0]
    H = np.int64(W[g, 0])
    if H == 0:
        z = W[g, 1 + n]
        for i in range(n):
            z += W[g, 1 + i] * x[i]
    else:
        b1 = 1 + H * n
        w2 = b1 + H
        z = W[g, w2 + H]
        for h in range(H):
            a = W[g, b1 + h]
            o = 1 + h * n
            for i in range(n):
                a += W[g, o + i] * x[i]
            z += W[g, w2 + h] * np.tanh(a)
    return 1.0 / (1.0 + np.exp(-z))


@njit(cache=True, nogil=True, inline="always")
def shares(world, P, W, g, x, features, out):
    """Every seat's evaluated win share in ``world`` (each seat's V of what that seat would
    see there), scaled to sum to 1 like a finished game's shares, into ``out[:P]``.  Only
    for a world that is already the searcher's sample: it reads every seat's view of it."""
    total = 0.0
    for s in range(P):
        features(world, s, x)
        out[s] = value(W, g, x)
        total += out[s]
    for s in range(P):
        out[s] /= total
