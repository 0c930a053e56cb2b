"""Everything cardlab does with numba's private internals, behind one switch.

cardlab runs on public numba alone: ``njit`` with a signature, ``cache=True``, ``nogil``,
``numba.extending.intrinsic``.  What this module adds only makes a cold compile shorter
and the compiled code faster; the games played are the same with or without it (the
golden files and tally digests are identical: ``tests/test_numba_internals.py`` plays one
game both ways).  The patches, all installed from here and nowhere else:

1. **The inliner's copy** (``sim/numba_inline_fix.py``): numba's ``InlineWorker.inline_ir``
   recompiled from its own source with one deepcopy memo per IR copy (a cold compile
   ~30% shorter).
2. **No machine code for libraries that are only linked** (``sim/numba_lazy_code.py``):
   five methods of numba's code libraries wrapped (a cold compile several seconds shorter).
3. **Helpers without entry wrappers, compiled on first use** (``patched_helper``): numba's
   private ``no_cpython_wrapper``/``no_cfunc_wrapper``/``_nrt`` flags, the dispatcher's
   ``compile``, ``_insert`` and ``_compile_for_args`` replaced, under numba's global
   compiler lock.
4. **Pasting the rules into their callers** (``always_inline``): LLVM's ``alwaysinline``
   set on a helper's IR in the module its callers link (+13% to +26% games/s).
5. **The cold start's second process** (``sim/precompile.py``) needs 3 (a helper it can
   compile on demand, a hook before each compile).

**The switch**: ``CARDLAB_NUMBA_PATCHES=off`` (or ``0``, ``false``, ``no``) turns all of
them off; cardlab then uses plain numba (each helper compiled, or loaded from the cache,
when its module is imported, with numba's usual entry wrappers and reference counting; no
second process).  Compiled code of the two modes is cached in separate folders
(``sim/cache.py``).

**When numba is not the one they were written for** — a version outside ``TESTED`` (the
range ``pyproject.toml`` declares and ``scripts/numba_compat.py`` runs), or any patch that
cannot apply — cardlab warns once (``NumbaPatchWarning``) and runs plain numba instead of
failing.  Inside ``TESTED`` every patch must apply: the guard tests fail, not skip.
"""
from __future__ import annotations

import os
import types
import warnings

# The numba releases every patch was run with (both ends; pyproject.toml: numba>=0.66,<0.69).
TESTED = ((0, 66, 0), (0, 68, 1))
SWITCH = "CARDLAB_NUMBA_PATCHES"
_OFF = {"off", "0", "false", "no"}


class NumbaPatchWarning(RuntimeWarning):
    """cardlab runs plain numba: same results, a longer cold compile, slower code."""


def switched_off() -> bool:
    """The user turned the patches off (``CARDLAB_NUMBA_PATCHES=off``)."""
    return os.environ.get(SWITCH, "").strip().lower() in _OFF


def numba_version() -> tuple[int, ...]:
    import numba

    parts = []
    for p in numba.__version__.split("+")[0].split(".")[:3]:
        digits = "".join(ch for ch in p if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


def in_tested_range(version: tuple[int, ...] | None = None) -> bool:
    v = numba_version() if version is None else version
    return TESTED[0] <= tuple(v) <= TESTED[1]


def _alwaysinline_applies() -> bool:
    """llvmlite accepts ``alwaysinline`` as a function attribute (numba 0.59–0.65's raised
    "Attribute 'alwaysinline' does not apply to function return values")."""
    try:
        from llvmlite import binding as llvm

        mod = llvm.parse_assembly("define i64 @f(i64 %x) {\n  ret i64 %x\n}\n")
        mod.get_function("f").add_function_attribute("alwaysinline")
        return "alwaysinline" in str(mod)
    except Exception:
        return False


def _dispatcher_has_what_we_replace() -> bool:
    try:
        from numba.core.compiler_lock import global_compiler_lock  # noqa: F401
        from numba.core.dispatcher import Dispatcher
        from numba.core.codegen import CPUCodeLibrary
    except ImportError:
        return False
    return (all(hasattr(Dispatcher, n) for n in ("compile", "_insert", "_compile_for_args",
                                                    "get_call_template", "disable_compile"))
            and hasattr(CPUCodeLibrary, "_get_module_for_linking"))


def problems() -> list[str]:
    """Why the patches cannot apply on this numba (empty: they all can)."""
    from cardlab.sim import numba_inline_fix, numba_lazy_code

    found = []
    if not in_tested_range():
        lo, hi = (".".join(map(str, v)) for v in TESTED)
        found.append(f"numba {'.'.join(map(str, numba_version()))} is outside the tested "
                     f"range {lo}–{hi}")
    if not numba_inline_fix.applies():
        found.append("numba's inliner is not the source the one-memo copy replaces")
    if not numba_lazy_code.applies():
        found.append("numba's code library lacks the methods the lazy machine code wraps")
    if not _dispatcher_has_what_we_replace():
        found.append("numba's dispatcher lacks the methods a helper replaces")
    if not _alwaysinline_applies():
        found.append("llvmlite does not accept 'alwaysinline' as a function attribute")
    return found


ACTIVE: bool | None = None  # decided once per process by install()
_warned = False


def _warn_once(why: str) -> None:
    global _warned
    if not _warned:
        _warned = True
        warnings.warn(f"cardlab runs plain numba ({why}): the same results, a longer cold "
                      f"compile and slower code; set {SWITCH}=off to silence this",
                      NumbaPatchWarning, stacklevel=3)


def install() -> bool:
    """Install every patch, or none (the switch, or a numba they do not fit: warned once).
    True when they are in place.  Called by ``sim/jit.py`` before anything compiles."""
    global ACTIVE
    if ACTIVE is not None:
        return ACTIVE
    from numba import config

    if switched_off() or config.DISABLE_JIT:
        ACTIVE = False
        return ACTIVE
    found = problems()
    if found:
        _warn_once("; ".join(found))
        ACTIVE = False
        from cardlab.sim import cache

        cache.configure()  # the plain mode's folder, for everything compiled from now on
        return ACTIVE
    from cardlab.sim import numba_inline_fix, numba_lazy_code

    ACTIVE = numba_inline_fix.install() and numba_lazy_code.install()
    if not ACTIVE:  # pragma: no cover - applies() said they would
        _warn_once("a patch did not install")
    return ACTIVE


def mode() -> str:
    """``patched`` or ``plain``, without installing anything (the cache folder's key)."""
    if ACTIVE is not None:
        return "patched" if ACTIVE else "plain"
    return "plain" if switched_off() else "patched"


# ------------------------------------------------------------- 3. helpers, 4. pasting

# Called with a helper's "module:name" before this process compiles it (or loads it from
# the cache); a cold start's main process waits there while its second process is
# compiling that very helper (sim/precompile.py).
before_compile = None


def patched_helper(fn, sig: str, nrt: bool, paste: bool):
    """``fn`` compiled with the declared signature only, on first use, without Python or C
    entry wrappers (its compiled callers link its IR); a call from Python gets a second
    version with numba's wrappers (``python_version``)."""
    from numba import njit
    from numba.core.compiler_lock import global_compiler_lock

    d = njit(cache=True, nogil=True, _nrt=nrt, no_cpython_wrapper=True,
             no_cfunc_wrapper=True)(fn)
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
        """Every compile is of the declared signature, and no other: calls from compiled
        code convert their arguments to it."""
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


def _no_python_entry(*args) -> None:
    """A helper's compiled version has no entry from Python, so the dispatcher's table of
    entries stays empty and every call from Python reaches ``compile_for_args``."""


def python_version(fn, nrt: bool, sig: str):
    """The helper ``fn`` as called from Python (tests, any Python code): a second
    dispatcher with numba's usual entry wrappers, of the declared signature only, cached
    in its own files (its own name: the compiled-only version's cache files have no
    entry)."""
    from numba import njit

    copy = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                              fn.__closure__)
    copy.__qualname__ = fn.__qualname__ + "_from_python"
    copy.__module__, copy.__doc__ = fn.__module__, fn.__doc__
    py = njit(cache=True, nogil=True, _nrt=nrt)(copy)
    py.compile(sig)
    py.disable_compile()
    return py


_paste_failed = False


def always_inline(d) -> None:
    """Mark a compiled helper ``alwaysinline`` in the module its callers link in (numba
    links every callee's IR into the caller's module, where LLVM's inliner then pastes
    it).  A kernel loaded from the cache already holds the pasted code.  If llvmlite
    refuses, the helper is called instead of pasted (warned once; same results)."""
    global _paste_failed
    if _paste_failed:
        return
    try:
        (cres,) = d.overloads.values()
        module = cres.library._get_module_for_linking()
        module.get_function(cres.fndesc.mangled_name).add_function_attribute("alwaysinline")
    except Exception as e:  # pragma: no cover - the install-time probe passed
        _paste_failed = True
        _warn_once(f"pasting a helper failed: {e}")
