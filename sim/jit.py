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
  (``python_version``, made and cached at the first such call).  With
  ``sim/numba_lazy_code.py`` (no machine code for a library nothing runs directly)
  this made a cold compile several seconds shorter (2026-12-02, README "Performance").

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
import types

from numba import njit
from numba.core.compiler_lock import global_compiler_lock

from cardlab.sim import numba_inline_fix, numba_lazy_code
from cardlab.sim.errors import ILLEGAL

numba_inline_fix.install()  # before any kernel compiles: a cold compile ~30% shorter
numba_lazy_code.install()  # no machine code for what is only linked into callers

ST = "int64[::1]"
RNG = "uint64[::1]"
EV = "int64[:, ::1]"
MAX_PARAMS = 8  # parameters a strategy may declare (sim/engine.seat_params lists them)
PAR = f"UniTuple(float64, {MAX_PARAMS})"
PARS = "float64[:, ::1]"
ACT = "UniTuple(int64, 4)"
_NAMES = (("ST", ST), ("RNG", RNG), ("EV", EV), ("PARS", PARS), ("PAR", PAR), ("ACT", ACT))


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
    +22%, Crazy Eights +21%, Skyscraper +13% (same tallies, no longer a cold compile)."""
    sig = expand(signature)

    def decorate(fn):
        # compiled callers' version: no Python or C entry wrappers (module docstring)
        d = njit(cache=True, nogil=True, _nrt=nrt, no_cpython_wrapper=True,
                 no_cfunc_wrapper=True)(fn)
        if not hasattr(d, "get_call_template"):  # NUMBA_DISABLE_JIT=1: plain Python
            return d
        numbas_compile = d.compile
        from_python = []  # the version Python calls, made at the first such call

        def ensure():
            if not d.overloads:
                with global_compiler_lock:  # one thread compiles (and pastes) it
                    if not d.overloads:
                        if before_compile is not None:  # sim/precompile.py's second process
                            before_compile(f"{fn.__module__}:{fn.__qualname__}")
                        numbas_compile(sig)
                        if paste:
                            always_inline(d)

        def compile_declared_only(_requested=None):
            """Every compile is of the declared signature, and no other: calls from
            compiled code convert their arguments to it."""
            ensure()
            (cres,) = d.overloads.values()
            return cres.entry_point

        def compile_for_args(*args, **kws):  # every call from Python (tests)
            if not from_python:  # (the lock only until it exists)
                with global_compiler_lock:
                    if not from_python:
                        from_python.append(python_version(fn, nrt, sig))
            return from_python[0]  # numba calls it; arguments that do not fit: its error

        d.compile = compile_declared_only
        d._insert = _no_python_entry
        d._compile_for_args = compile_for_args
        d.compile_declared = ensure  # compile (or load from the cache) now: sim/precompile.py
        return d

    return decorate


# Called with a helper's "module:name" before this process compiles it (or loads it from
# the cache); a cold start's main process waits there while its second process is
# compiling that very helper (sim/precompile.py).
before_compile = None


def _no_python_entry(*args) -> None:
    """A helper's compiled version has no entry from Python, so the dispatcher's table of
    entries stays empty and every call from Python reaches ``compile_for_args``."""


def python_version(fn, nrt: bool, sig: str):
    """The helper ``fn`` as called from Python (tests, any Python code): a second
    dispatcher with numba's usual entry wrappers, of the declared signature only, cached
    in its own files (its own name: the compiled-only version's cache files have no
    entry)."""
    copy = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                              fn.__closure__)
    copy.__qualname__ = fn.__qualname__ + "_from_python"
    copy.__module__, copy.__doc__ = fn.__module__, fn.__doc__
    py = njit(cache=True, nogil=True, _nrt=nrt)(copy)
    py.compile(sig)
    py.disable_compile()
    return py


def always_inline(d) -> None:
    """Mark a compiled helper ``alwaysinline`` in the module its callers link in (numba
    links every callee's IR into the caller's module, where LLVM's inliner then pastes
    it).  A kernel loaded from the cache already holds the pasted code."""
    (cres,) = d.overloads.values()
    module = cres.library._get_module_for_linking()
    module.get_function(cres.fndesc.mangled_name).add_function_attribute("alwaysinline")


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
