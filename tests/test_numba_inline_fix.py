"""sim/numba_inline_fix.py: numba's inliner with one deepcopy memo per IR copy."""
import copy
import textwrap

import numpy as np
import pytest
from numba import njit
from numba.core import compiler, ir
from numba.core import inline_closurecall as icc

import cardlab.sim.jit  # noqa: F401 - installs the fix, as every kernel import does
from cardlab.sim import numba_inline_fix as fix
from cardlab.sim import numba_internals


def skip_unless_installed() -> None:
    """Inside the tested numba range the fix must be in (fail, not skip); outside it
    cardlab runs plain numba and there is nothing to check."""
    if not fix.installed:
        assert not numba_internals.in_tested_range(), numba_internals.problems()
        pytest.skip("numba outside the tested range: plain numba, nothing to check")


def numba_has_the_lines() -> bool:
    """numba's file (not the method in memory, which the fix replaced) has the lines."""
    with open(icc.__file__) as f:
        return textwrap.indent(fix._PER_BLOCK, "    ") in f.read()


def test_installed_exactly_when_numba_has_the_lines_it_replaces():
    assert fix.installed == (numba_has_the_lines() and numba_internals.ACTIVE)
    assert fix.install() == fix.installed  # a second call changes nothing


def test_refuses_a_source_without_the_lines(monkeypatch):
    monkeypatch.setattr(fix, "installed", False)
    monkeypatch.setattr(fix, "_PER_BLOCK", "        no such line in numba\n")
    before = icc.InlineWorker.inline_ir
    assert fix.install() is False
    assert icc.InlineWorker.inline_ir is before


@njit(inline="always")
def _pasted(a, n):
    # several blocks and variables: a loop, branches, an early return
    total = 0
    for i in range(n):
        if a[i] > 2:
            total += a[i] * 2
        elif a[i] == 0:
            return -1
        else:
            total -= 1
    return total


@njit
def _caller(a):
    return _pasted(a, a.size) + _pasted(a[1:], a.size - 1)


def test_inlined_code_computes_what_python_does():
    skip_unless_installed()
    for a in (np.array([1, 3, 5, 2]), np.array([4, 0, 1]), np.array([0, 7]), np.arange(1, 9)):
        assert _caller(a) == _caller.py_func(a)


def scope_copies(monkeypatch, inline_ir) -> int:
    """Scopes deep-copied while a new function that pastes ``_pasted`` twice compiles
    with ``inline_ir`` as numba's inliner."""
    copies = []

    def counted_deepcopy(self, memo):
        copies.append(self)
        new = object.__new__(ir.Scope)
        memo[id(self)] = new
        new.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return new

    monkeypatch.setattr(ir.Scope, "__deepcopy__", counted_deepcopy, raising=False)
    monkeypatch.setattr(icc.InlineWorker, "inline_ir", inline_ir)

    @njit
    def caller(a):  # a new function each time: compiled here
        return _pasted(a, a.size) - _pasted(a, 1)

    assert caller(np.array([1, 3, 5])) == caller.py_func(np.array([1, 3, 5]))
    monkeypatch.undo()
    return len(copies)


def test_the_scope_is_copied_once_per_copy_not_once_per_block(monkeypatch):
    """What makes it faster: pasting a callee copies its scope (every variable of the
    function) once per IR copy, not once per block as numba's own copy does."""
    skip_unless_installed()
    blocks = len(compiler.run_frontend(_pasted.py_func).blocks)
    ours = scope_copies(monkeypatch, icc.InlineWorker.inline_ir)
    numbas = scope_copies(monkeypatch, fix.numbas_own)
    assert blocks > 3
    assert ours == 8  # 2 pastes x 2 copies (numba keeps a spare) x the scope and its parent
    assert numbas >= blocks * ours // 2
