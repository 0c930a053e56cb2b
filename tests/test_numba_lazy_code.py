"""Helpers without an entry from Python, libraries without machine code until it is needed
(sim/jit.helper, sim/numba_lazy_code.py): the same results, a cold compile shorter."""
import numpy as np
import pytest
from numba import njit

from cardlab.sim import numba_internals, numba_lazy_code
from cardlab.sim.jit import helper


@helper("int64(ST, int64)")
def double_at(st, i):
    return st[i] * 2


@helper("int64(ST, int64)", paste=True)
def double_plus_one(st, i):
    return double_at(st, i) + 1


@njit(cache=True, nogil=True)
def kernel(st):
    return double_plus_one(st, 1) + double_at(st, 0)


def library(d):
    """The library of ``d``'s one compiled version (a helper's compiled or loaded from the
    cache now: a kernel loaded from the cache never loads its helpers)."""
    if not d.overloads:
        d.compile_declared()
    (cres,) = d.overloads.values()
    return cres.library


@pytest.fixture(autouse=True)
def _patched():
    """Inside the tested numba range the patches must be in (fail, not skip)."""
    if not numba_internals.ACTIVE:
        assert not numba_internals.in_tested_range(), numba_internals.problems()
        pytest.skip("numba outside the tested range: plain numba, nothing to check")


def test_installed_on_this_numba():
    assert numba_lazy_code.installed
    assert numba_lazy_code.install()  # a second call changes nothing


def test_a_kernel_runs_its_helpers_pasted_and_linked():
    st = np.array([5, 7, 9], dtype=np.int64)
    assert kernel(st) == 7 * 2 + 1 + 5 * 2


def test_helpers_have_no_python_entry_nor_machine_code_the_kernel_has_both():
    kernel(np.zeros(3, dtype=np.int64))
    for h in (double_at, double_plus_one):
        lib = library(h)
        names = [f.name for f in lib._final_module.functions if not f.is_declaration]
        assert not any(n.startswith("_ZN7cpython") or n.startswith("cfunc.") for n in names)
        assert getattr(lib, "_cardlab_pending", False), "a linked-only helper got machine code"
    assert not getattr(library(kernel), "_cardlab_pending", False)


def test_python_calls_get_a_version_with_an_entry_of_the_declared_signature():
    st = np.array([3, 4], dtype=np.int64)
    assert double_at(st, 1) == 8
    assert double_plus_one(st, 0) == 7
    assert double_at(st, np.int32(1)) == 8  # converted to the declared int64, as before
    assert len(double_at.overloads) == 1  # the compiled callers' version: one signature
    with pytest.raises(TypeError):
        double_at(st.astype(np.float64), 1)  # does not fit the declaration: numba's error


def test_a_library_asked_for_its_code_makes_it_then():
    @njit
    def plain(x):  # numba's own entry wrapper: the pointer to it needs machine code
        return x + 1

    assert plain(41) == 42
    assert not getattr(library(plain), "_cardlab_pending", False)
