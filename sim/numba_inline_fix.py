"""A faster copy of inlined code in numba's compiler (a cold compile ~30% shorter).

Every game loop is assembled from functions numba pastes at the IR level
(``inline="always"``: the engine's loop, a game's ``step``, the strategy dispatch).
Before pasting a callee, numba's ``InlineWorker.inline_ir`` copies the callee's IR
with one ``copy.deepcopy`` **per block**, each with a fresh memo.  Every variable of a
block points at the function's scope, which holds every variable of the function, so
each block copies the whole scope again: the work grows with blocks x variables, and
for a game loop with everything pasted in it was half of a cold compile (Smokestack,
numba 0.68.1: 20 of 42 s under cProfile; 13.6-14.4 s -> 9.8-10.7 s of compile without
the profiler).

``install()`` recompiles that method from numba's own source with a single memo per
copy: the scope is copied once, the blocks share it (as they share the original), and
the compiled code is the same (the tally digests of every game and the golden files are
identical with and without it).  It changes nothing unless numba's source holds exactly
the lines it replaces, so another numba version gets its own code, untouched.
"""
from __future__ import annotations

import inspect
import textwrap

# numba's lines (numba/core/inline_closurecall.py, InlineWorker.inline_ir.copy_ir),
# dedented to the method's level, and the same lines with one memo per IR copy
_PER_BLOCK = """\
        for block_label, block in the_ir.blocks.items():
            new_block = copy.deepcopy(the_ir.blocks[block_label])
            kernel_copy.blocks[block_label] = new_block
"""
_ONE_MEMO = """\
        memo = {}  # cardlab: one memo, so the shared scope is copied once
        for block_label, block in the_ir.blocks.items():
            new_block = copy.deepcopy(the_ir.blocks[block_label], memo)
            kernel_copy.blocks[block_label] = new_block
"""

installed = False  # whether install() replaced numba's method in this process
numbas_own = None  # numba's own method, kept once replaced (the tests compare the two)


def _numbas_source():
    """(numba's module, the method's dedented source, its first line), or None when numba
    has no such method or no source for it."""
    try:
        from numba.core import inline_closurecall as icc

        lines, first = inspect.getsourcelines(icc.InlineWorker.inline_ir)
    except (ImportError, AttributeError, OSError, TypeError):  # no source: leave numba be
        return None
    return icc, textwrap.dedent("".join(lines)), first


def applies() -> bool:
    """numba's method holds exactly the lines the fix replaces (or the fix is in)."""
    if installed:
        return True
    found = _numbas_source()
    return found is not None and found[1].count(_PER_BLOCK) == 1


def install() -> bool:
    """Replace ``InlineWorker.inline_ir`` by the one-memo version; True if it did (or
    had), False if numba's source is not the one this was written for.  Only
    ``sim/numba_internals.py`` calls it (its switch turns every patch off)."""
    global installed, numbas_own
    if installed:
        return True
    if not applies():
        return False
    icc, source, first = _numbas_source()
    # the first line where numba's is (a traceback points into numba's file; the one
    # added line shifts the rest of the method by one)
    padded = "\n" * (first - 1) + source.replace(_PER_BLOCK, _ONE_MEMO)
    namespace: dict = {}
    exec(compile(padded, icc.__file__, "exec"), icc.__dict__, namespace)  # numba's globals
    numbas_own = icc.InlineWorker.inline_ir
    icc.InlineWorker.inline_ir = namespace["inline_ir"]
    installed = True
    return True
