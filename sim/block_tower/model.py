"""The collapse model on its own, driven by the kernel's own compiled placement code.

``sample_towers`` builds single towers the way the game does (``moves.place``: the same
hazard, the same uniform draw, the same instability bookkeeping), without the card game
around them: the block cards are shuffled and placed in that order by one seat with a
fixed style until the tower falls or the blocks run out.  The calibration tests fit the
model to these heights and must recover the knobs; ``fall_count`` repeats one placement
on a fixed tower for the chi-square test of the fall probability.
"""
import numpy as np

from cardlab.sim.block_tower.layout import R_NB, S_ANY, S_DRAW, S_PILE_N, S_U
from cardlab.sim.block_tower.moves import place, points
from cardlab.sim.jit import helper
from cardlab.sim.rng import shuffle


@helper("void(ST, EV, int64, int64)")
def sample_towers(st, out, me, x):
    """One tower per row of ``out``: [height, fell, points of the 1st, 2nd, ... block
    placed (the fatal one included), 0...].  height = blocks standing when it fell (or
    all blocks, fell = 0, when it never did).  Seat ``me`` places with style ``x``
    (thousandths); st must hold the rules and a seeded generator."""
    nb = st[R_NB]
    f = st.view(np.float64)
    for i in range(out.shape[0]):
        st[S_PILE_N] = 0
        st[S_ANY] = 0
        f[S_U] = 0.0
        for c in range(nb):
            st[S_DRAW + c] = c
        shuffle(st, S_DRAW, S_DRAW + nb)
        fell = False
        k = 0
        while k < nb and not fell:
            c = st[S_DRAW + k]
            out[i, 2 + k] = points(st, c)
            fell = place(st, me, c, x)
            k += 1
        out[i, 0] = k - 1 if fell else k
        out[i, 1] = 1 if fell else 0
    st[S_PILE_N] = 0
    f[S_U] = 0.0


@helper("int64(ST, int64, int64, int64, int64)")
def fall_count(st, me, c, x, n):
    """Place block c (style x) on the tower of st n times, restoring the tower after
    each try; returns how many tries fell."""
    f = st.view(np.float64)
    h = st[S_PILE_N]
    u = f[S_U]
    falls = 0
    for _ in range(n):
        if place(st, me, c, x):
            falls += 1
        st[S_PILE_N] = h
        f[S_U] = u
    return falls
