"""``learned``: a player that picks the action whose outcome a learned evaluation rates best.

At each of its decisions the seat lists its legal actions and, ``samples`` times:

1. **samples a world**: a copy of the position with everything the seat cannot see re-dealt
   and the future reseeded (``sim/redeal.determinize``, exactly as ``mcts`` does: the seat's
   view of the position is all it reads);
2. for every candidate action, plays it in a copy of that world with the game's own
   ``step`` (which runs the chance events up to the next decision: a drawn card is the
   world's, never the real stock's) and scores the position reached by the evaluation
   ``V`` of the seat's observation of it (``sim/features.py``: what the seat would see
   there, nothing more); a game over scores the seat's win share.

It plays the action with the best mean score (ties: the first listed).  Every action is
scored on the same worlds (common random numbers), so two actions are told apart by what
they do, not by the luck of their worlds.  A decision with more than ``width`` legal actions
(Block Tower's placements) scores the ``guide`` heuristic's own answer and ``width - 1``
others drawn uniformly (with repeats) from the seat's own stream.

``V`` is a model array row (``sim/models.py``, evaluated by ``sim/evaluate.value``): a
linear model or one hidden layer, the inputs' standardization folded into the weights.
Row ``gen - 1`` of the model array plays (``gen=0``, or one past its rows: the last row,
the newest generation).  Random numbers come from the seat's own stream, never the
game's chance stream, like every strategy's.
"""
import numpy as np
from numba import njit

from cardlab.sim.engine import seat_params
from cardlab.sim.rng import seat_below
from cardlab.sim.search import copy_position

P_SAMPLES, P_WIDTH, P_GUIDE, P_GEN = 0, 1, 2, 3  # the learned strategy's parameter slots


@njit(cache=True, nogil=True, inline="always")
def decide(st, me, p, W, rpar, E, choose, legal, rate):
    """Seat ``me``'s action in ``st`` by the evaluation in ``W`` with the parameters ``p``
    (samples, width, guide, gen); ``rpar`` holds every strategy's default parameters (the
    guide's); ``rate`` is the game's ``search.rate_actions`` (its binding's ``rate``)."""
    samples = max(1, np.int64(p[P_SAMPLES]))
    width = max(1, np.int64(p[P_WIDTH]))
    guide = np.int64(p[P_GUIDE])
    gen = np.int64(p[P_GEN])
    g = W.shape[0] - 1 if gen <= 0 or gen > W.shape[0] else gen - 1
    world = np.empty(E.size, dtype=np.int64)
    copy_position(st, world, E, 0)
    n = legal(world)
    if n == 1:
        o = E.acts
        return (world[o], world[o + 1], world[o + 2], world[o + 3])
    # the candidates: every legal action, or on a wide decision the guide's answer and
    # width - 1 drawn ones
    k = n if n <= width else width
    acts = np.empty((k, 4), dtype=np.int64)
    if n <= width:
        for i in range(n):
            for w in range(4):
                acts[i, w] = world[E.acts + 4 * i + w]
    else:
        for i in range(1, k):
            o = E.acts + 4 * seat_below(st, me, n)
            for w in range(4):
                acts[i, w] = world[o + w]
        h = choose(guide, world, me, seat_params(rpar, guide))  # on a copy: it may write its scratch
        for w in range(4):
            acts[0, w] = h[w]
    score = np.zeros(k, dtype=np.float64)
    best = rate(st, me, acts, k, samples, W, g, score)
    return (acts[best, 0], acts[best, 1], acts[best, 2], acts[best, 3])
