"""Decorators for compiled helpers.

``helper(signature)`` is how every compiled function below a kernel is declared:

- **A fixed signature.**  Without one, numba compiles a separate specialization of a
  helper for every integer constant it is called with (``Literal[int]`` argument
  types); on the Skyscraper kernel that made a cold compile take ~65 s instead of
  ~15 s.  The signature also documents the helper's contract at a glance.
- **Compiled on first use, not at import.**  A kernel loaded from numba's cache already
  contains every helper it calls, so helpers compiled eagerly at import would only be
  loaded for nothing (about a second of start-up for one game).
- **No reference counting** (``_nrt=False``): helpers never allocate, and numba's atomic
  reference counts on shared arrays cost time on every call.
- ``nogil`` so that kernels run in parallel threads.
- **No entry from Python.**  What compiled callers use is numba's IR, linked into their
  own module; a helper's Python and C entry wrappers were compiled, optimized, turned
  into machine code and cached for every helper, and used only by tests.  A helper is
  now compiled without them, and a call from Python gets a second version with them
  (``numba_internals.python_version``, made and cached at the first such call).  With
  ``sim/numba_lazy_code.py`` (no machine code for a library nothing runs directly)
  this made a cold compile several seconds shorter (docs/changelog.md, 2026-12-02).

The points that need numba's private internals (compiled on first use, no reference
counting, no entry wrappers, pasting) live in ``sim/numba_internals.py``, behind one
switch (``CARDLAB_NUMBA_PATCHES=off``).  Without them a helper is plain public ``njit``
(compiled per call's argument types); the games played are the same.

Type names for the signature strings:

    ST    int64[::1]      a game's packed state (also rule vectors, tallies)
    RNG   uint64[::1]     a random generator's state
    EV    int64[:, ::1]   trace event rows / zone snapshots
    PAR   UniTuple(float64, 8)  a seat's strategy parameters (MAX_PARAMS values: a tuple,
                          not an array view, so no reference counts per decision)
    PARS  float64[:, ::1]   every seat's parameter row
    ACT   UniTuple(int64, 4)   an action (kind, a, b, c)
"""
import re

import numpy as np
from numba import njit, types
from numba.core.errors import TypingError
from numba.extending import overload

from cardlab.sim import numba_internals
from cardlab.sim.errors import ILLEGAL

PATCHED = numba_internals.install()  # before any helper compiles (False: plain numba)

ST = "int64[::1]"
RNG = "uint64[::1]"
EV = "int64[:, ::1]"
MAX_PARAMS = 8  # parameters a strategy may declare (sim/engine.seat_params lists them)
PAR = f"UniTuple(float64, {MAX_PARAMS})"
PARS = "float64[:, ::1]"
ACT = "UniTuple(int64, 4)"
_NAMES = (("ST", ST), ("RNG", RNG), ("EV", EV), ("PARS", PARS), ("PAR", PAR), ("ACT", ACT))

# The options of a game loop (``play_games``): without numba's reference counting when the
# patches are in (``_nrt`` is one of numba's private options), numba's default otherwise.
LOOP = dict(cache=True, nogil=True, **({"_nrt": False} if PATCHED else {}))


def expand(signature: str) -> str:
    for name, typ in _NAMES:
        signature = re.sub(rf"\b{name}\b", typ, signature)
    return signature


def helper(signature: str, nrt: bool = False, paste: bool = False):
    """A cached, GIL-free compiled helper with a fixed signature, compiled on first use
    (``nrt``: with numba's runtime, for the helpers that need it, ``illegal1..4``).

    ``paste``: LLVM pastes the compiled helper into every caller (``alwaysinline``), for
    the rules every decision goes through (a game's ``apply``, ``draw``, ``is_legal``...).
    Unlike numba's ``inline="always"``, which types and lowers the body again at each call
    site (a longer cold compile, and in a kernel with reference counting two atomic
    updates per use of the state), this keeps one compiled body without reference
    counting and only removes the call, whose cost is high in numba (every array passed
    as seven values, every local zeroed): measured on one thread, 3UP +26%, Block Tower
    +22%, Crazy Eights +21%, Skyscraper +13% (same tallies, no longer a cold compile).

    With the numba patches off (``sim/numba_internals.py``) it is plain ``njit``: a
    version for each call's argument types, called rather than pasted, with reference
    counting; the same results, a longer cold compile, slower code."""
    sig = expand(signature)

    def decorate(fn):
        if PATCHED:
            return numba_internals.patched_helper(fn, sig, nrt, paste)
        # public numba compiles a signature given here at once, before the helpers it
        # calls further down the module exist; without one it compiles a version for the
        # argument types of each call (integer constants included): a longer cold compile
        return njit(cache=True, nogil=True)(fn)  # NUMBA_DISABLE_JIT=1: fn itself

    return decorate


def inline(fn):
    """A helper pasted into its single caller at the numba IR level (the game loop's
    parts): no separate compilation unit, no call."""
    return njit(inline="always", cache=True, nogil=True)(fn)


# A strategy answered a decision with an action it does not allow: raise the error the
# runner names (``sim/errors.ILLEGAL``: decision, field names, seat, then one value per
# field).  Raising with values needs numba's runtime, which the fast path is compiled
# without (``sim/engine.play_games``), so a kernel calls one of these instead of raising.
_ILLEGAL_SIG = "void(unicode_type, unicode_type, int64" + ", int64" * 4 + ")"


@helper(_ILLEGAL_SIG.replace(", int64" * 4, ", int64" * 1), nrt=True)
def illegal1(decision, fields, seat, a):
    raise ValueError(ILLEGAL, decision, fields, seat, a)


@helper(_ILLEGAL_SIG.replace(", int64" * 4, ", int64" * 2), nrt=True)
def illegal2(decision, fields, seat, a, b):
    raise ValueError(ILLEGAL, decision, fields, seat, a, b)


@helper(_ILLEGAL_SIG.replace(", int64" * 4, ", int64" * 3), nrt=True)
def illegal3(decision, fields, seat, a, b, c):
    raise ValueError(ILLEGAL, decision, fields, seat, a, b, c)


@helper(_ILLEGAL_SIG, nrt=True)
def illegal4(decision, fields, seat, a, b, c, d):
    raise ValueError(ILLEGAL, decision, fields, seat, a, b, c, d)


def as_act(x):
    """A strategy's answer as the 4-number action the engine steps: a number ``x`` (a bid,
    a yes/no) is ``(x, 0, 0, 0)``, a pair ``(a, b)`` is ``(a, b, 0, 0)``, four numbers stay as
    they are.  The strategies' dispatch (``sim/bind.py``) calls it on every answer, so a
    strategy returns what its decision needs and nothing more.  Plain Python when numba's
    JIT is off."""
    if isinstance(x, tuple):
        return x if len(x) == 4 else tuple(x) + (np.int64(0),) * (4 - len(x))
    return (np.int64(x), np.int64(0), np.int64(0), np.int64(0))


@overload(as_act, jit_options={"cache": True, "nogil": True})
def _as_act(x):
    zero = np.int64(0)
    if isinstance(x, types.BaseTuple) and len(x) == 4:
        return lambda x: x
    if isinstance(x, types.BaseTuple) and len(x) == 3:
        return lambda x: (x[0], x[1], x[2], zero)
    if isinstance(x, types.BaseTuple) and len(x) == 2:
        return lambda x: (x[0], x[1], zero, zero)
    if isinstance(x, types.BaseTuple) and len(x) == 1:
        return lambda x: (x[0], zero, zero, zero)
    if isinstance(x, (types.Integer, types.Boolean)):
        return lambda x: (np.int64(x), zero, zero, zero)
    raise TypingError(f"a strategy answered with {x}: expected a number or a tuple of 1 to 4 numbers")
