"""Decorators for compiled helpers.

Tiny accessors are ``inline``: numba pastes them into the caller, so they cost
nothing (a real call increfs and decrefs every array argument).  Other helpers take
explicit signatures.  Without them numba compiles a separate
specialization of a helper for every integer constant it is called with
(``Literal[int]`` argument types): measured on the Skyscraper kernel, that made a
cold compile take ~65 s instead of a few seconds.  A signature also documents the
helper's contract at a glance.  Type names for the signature strings:

    ST    int64[::1]      a game's packed state (also rule vectors, tallies)
    RNG   uint64[::1]     a random generator's state
    EV    int64[:, ::1]   trace event rows / zone snapshots
    PAR   float64[::1]    a seat's strategy parameter row
"""
from numba import njit

ST = "int64[::1]"
RNG = "uint64[::1]"
EV = "int64[:, ::1]"
PAR = "float64[::1]"
PARS = "float64[:, ::1]"
ACT = "UniTuple(int64, 4)"


def helper(signature: str):
    """A cached, GIL-free compiled helper with a fixed signature."""
    sig = signature
    for name, typ in (("ST", ST), ("RNG", RNG), ("EV", EV), ("PARS", PARS), ("PAR", PAR),
                      ("ACT", ACT)):
        sig = _replace_word(sig, name, typ)
    return njit(sig, cache=True, nogil=True, _nrt=False)


def inline(fn):
    """A tiny helper inlined into its callers at the numba IR level: no call, no
    reference counting of the arrays it is given (see the design notes)."""
    return njit(inline="always", cache=True, nogil=True)(fn)


def _replace_word(s: str, word: str, repl: str) -> str:
    import re

    return re.sub(rf"\b{word}\b", repl, s)
