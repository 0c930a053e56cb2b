"""Hand-written random numbers for the kernels: xoshiro256** seeded by splitmix64.

Each game gets its own stream derived from (root seed, game index), so a result
depends only on the seed and the game index, never on chunking, threads or backend.
The generator's state is the first four words of a game's packed state ``st`` (viewed
as uint64), so that helpers need no second array.
"""
import warnings

import numpy as np
from numba import config as _numba_config

from cardlab.sim.jit import helper

if _numba_config.DISABLE_JIT:  # plain-Python run: uint64 arithmetic wraps by design
    warnings.filterwarnings("ignore", message="overflow encountered", category=RuntimeWarning,
                            module=__name__)

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_INV53 = 1.0 / 9007199254740992.0  # 2**-53


@helper("uint64(uint64)")
def _splitmix(x):
    z = x + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@helper("void(ST, int64, int64)")
def seed_game(st, root_seed, game_index):
    """Seed st's generator for one game from the root seed and the game's index."""
    rng = st[0:4].view(np.uint64)
    x = _splitmix(np.uint64(root_seed) * _GOLDEN) ^ np.uint64(game_index)
    x = _splitmix(x)
    for i in range(4):
        x = x + _GOLDEN
        rng[i] = _splitmix(x)


@helper("uint64(uint64, int64)")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@helper("uint64(ST)")
def next_u64(st):
    rng = st[0:4].view(np.uint64)
    s0 = rng[0]
    s1 = rng[1]
    s2 = rng[2]
    s3 = rng[3]
    result = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    rng[0] = s0
    rng[1] = s1
    rng[2] = s2
    rng[3] = s3
    return result


@helper("float64(ST)")
def uniform(st):
    """A float in [0, 1)."""
    return float(next_u64(st) >> np.uint64(11)) * _INV53


@helper("int64(ST, int64)")
def below(st, n):
    """A uniform integer in [0, n), n >= 1."""
    return np.int64(uniform(st) * n)


@helper("void(ST, int64, int64)")
def shuffle(st, lo, hi):
    """Fisher-Yates shuffle of st[lo:hi] in place, with st's own generator."""
    for i in range(hi - 1, lo, -1):
        j = lo + below(st, i - lo + 1)
        t = st[i]
        st[i] = st[j]
        st[j] = t
