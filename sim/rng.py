"""Hand-written random numbers for the kernels: xoshiro256** seeded by splitmix64.

Each game gets its own stream derived from (root seed, game index), so a result
depends only on the seed and the game index, never on chunking, threads or backend.
The generator's state is the first four words of a game's packed state ``st`` (viewed
as uint64), so that helpers need no second array.

That stream is the game's **chance**: shuffles, deals, draws, thefts, collapses.  It is
hidden information (it decides what comes next), so a strategy never draws from it.
Each seat has a stream of its own, for a strategy's random choices (``seat_below``,
``seat_uniform``): seeded from (root seed, game index, seat), so a seat's choices do not
shift the deals of the rest of the game (strategies compared on the same seeds see the
same cards), and a re-deal of what a seat cannot see (``sim/observe.py``) leaves the
seat's own stream as it was.  The seat streams follow the game's in every state
(``SEAT_RNG``); a seat's is seeded the first time it draws (an all-zero xoshiro state
is never a live one), so a game whose strategies never draw pays nothing for them.
"""
import warnings

import numpy as np
from numba import config as _numba_config
from numba import njit

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


MAX_SEATS = 8             # seat streams every state has room for
SEAT_RNG = 4              # st[SEAT_RNG + 4*s:][:4]: seat s's stream (all zero: not drawn from yet)
SEED_AT = SEAT_RNG + 4 * MAX_SEATS  # st[SEED_AT], st[SEED_AT + 1]: the root seed and game index
RNG_WORDS = SEED_AT + 2   # the words every state starts with (sim/schema.py lays them out)


@helper("void(ST, int64, uint64)")
def _seed_stream(st, o, x):
    """Four splitmix64 words from x into the stream at st[o:o+4]."""
    rng = st[o:o + 4].view(np.uint64)
    for i in range(4):
        x = x + _GOLDEN
        rng[i] = _splitmix(x)


@helper("void(ST, int64, int64)")
def seed_game(st, root_seed, game_index):
    """Seed st's chance stream for one game from the root seed and the game's index;
    the seat streams start unseeded (``seat_next_u64`` seeds one on its first draw)."""
    x = _splitmix(np.uint64(root_seed) * _GOLDEN) ^ np.uint64(game_index)
    _seed_stream(st, 0, _splitmix(x))
    st[SEAT_RNG:SEED_AT] = 0
    st[SEED_AT] = root_seed
    st[SEED_AT + 1] = game_index


@helper("uint64(uint64, int64)")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@helper("uint64(ST)")
def next_u64(st):
    """The next word of the game's chance stream."""
    return _next_at(st, 0)


@njit(cache=True, nogil=True, inline="always")
def _next_at(st, o):
    """xoshiro256**: the next word of the stream at st[o:o+4]."""
    rng = st[o:o + 4].view(np.uint64)
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


@helper("void(ST, int64)")
def seed_seat(st, me):
    """Seed seat ``me``'s own stream from the root seed, the game index and the seat,
    unless it has drawn already (a live xoshiro state is never all zero)."""
    o = SEAT_RNG + 4 * me
    if st[o] == 0 and st[o + 1] == 0 and st[o + 2] == 0 and st[o + 3] == 0:
        x = _splitmix(np.uint64(st[SEED_AT]) * _GOLDEN) ^ np.uint64(st[SEED_AT + 1])
        _seed_stream(st, o, _splitmix(_splitmix(x) ^ np.uint64(me + 1) * _M1))


@helper("uint64(ST, int64)")
def seat_next_u64(st, me):
    """The next word of seat ``me``'s own stream (seeded on its first draw)."""
    seed_seat(st, me)
    return _next_at(st, SEAT_RNG + 4 * me)


@helper("float64(ST, int64)")
def seat_uniform(st, me):
    """A float in [0, 1) from seat ``me``'s own stream (a strategy's random choice)."""
    return float(seat_next_u64(st, me) >> np.uint64(11)) * _INV53


@helper("int64(ST, int64, int64)")
def seat_below(st, me, n):
    """A uniform integer in [0, n), n >= 1, from seat ``me``'s own stream."""
    return np.int64(seat_uniform(st, me) * n)


@helper("float64(ST)")
def uniform(st):
    """A float in [0, 1)."""
    return float(next_u64(st) >> np.uint64(11)) * _INV53


@helper("int64(ST, int64)")
def below(st, n):
    """A uniform integer in [0, n), n >= 1."""
    return np.int64(uniform(st) * n)


@helper("void(ST, int64, int64)", paste=True)
def shuffle(st, lo, hi):
    """Fisher-Yates shuffle of st[lo:hi] in place, with st's own generator."""
    for i in range(hi - 1, lo, -1):
        j = lo + below(st, i - lo + 1)
        t = st[i]
        st[i] = st[j]
        st[j] = t


@helper("void(ST, int64, int64, int64)")
def seed_aside(g, root_seed, game_index, salt):
    """Seed the 4-word stream ``g`` (an array of its own, not a game's state) from the root
    seed, the game index and ``salt``, like a seat stream: random numbers that touch
    neither the game's chance stream nor any seat's (the card a causal run gives,
    ``sim/give.py``)."""
    x = _splitmix(np.uint64(root_seed) * _GOLDEN) ^ np.uint64(game_index)
    _seed_stream(g, 0, _splitmix(_splitmix(x) ^ (np.uint64(salt) + np.uint64(1)) * _M2))


@helper("int64(ST, int64)")
def stream_below(g, n):
    """A uniform integer in [0, n), n >= 1, from the 4-word stream ``g``."""
    return np.int64(float(_next_at(g, 0) >> np.uint64(11)) * _INV53 * n)
