"""sim/numba_internals.py: every use of numba's private internals behind one switch, a
declared numba range that is the tested one, plain numba when a patch cannot apply, and
the same games either way."""
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cardlab.sim import jit, numba_inline_fix, numba_internals, numba_lazy_code

ROOT = Path(__file__).resolve().parents[1]


def python(code: str, tmp_path: Path, **env) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter (the patches are decided once per process),
    from a file (numba caches only what a file defines)."""
    e = {k: v for k, v in os.environ.items() if k != numba_internals.SWITCH}
    e.update(env)
    script = tmp_path / "run_me.py"
    script.write_text(textwrap.dedent(code))
    return subprocess.run([sys.executable, str(script)], env=e,
                          capture_output=True, text=True, timeout=600, cwd=ROOT)


def test_pyproject_declares_exactly_the_tested_range():
    """The range users install is the one scripts/numba_compat.py runs: from the lowest
    tested release up to (not including) the minor after the highest."""
    text = (ROOT / "pyproject.toml").read_text()
    (spec,) = re.findall(r'"numba([^"]*)"', text)
    lo, hi = numba_internals.TESTED
    assert spec == f">={lo[0]}.{lo[1]}{'' if lo[2] == 0 else f'.{lo[2]}'},<{hi[0]}.{hi[1] + 1}", spec


def test_every_patch_applies_inside_the_tested_range():
    """Fails (never skips) on a supported numba: a release that breaks a patch must be
    seen here, not by a user's slower compile."""
    if not numba_internals.in_tested_range():
        pytest.skip("numba outside the tested range: plain numba is the expected mode")
    assert numba_internals.problems() == []
    assert jit.PATCHED and numba_internals.ACTIVE
    assert numba_inline_fix.installed and numba_lazy_code.installed
    assert numba_internals.mode() == "patched"


def test_the_switch_turns_every_patch_off_without_a_warning(tmp_path):
    p = python("""
        import warnings
        warnings.simplefilter("error")  # the switch is the user's choice: no warning
        from cardlab.sim import cache, jit, numba_inline_fix, numba_lazy_code, precompile
        from numba.core import inline_closurecall as icc, codegen
        from cardlab.sim.registry import get_game
        print(jit.PATCHED, numba_inline_fix.installed, numba_lazy_code.installed,
              cache.FOLDER.name.endswith("-plain"), jit.LOOP.get("_nrt", "default"),
              icc.InlineWorker.inline_ir.__module__, codegen.CPUCodeLibrary._finalize_final_module.__qualname__,
              precompile.start(get_game("skyscraper")))
        """, tmp_path, CARDLAB_NUMBA_PATCHES="off")
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["False", "False", "False", "True", "default",
                                "numba.core.inline_closurecall",
                                "CPUCodeLibrary._finalize_final_module", "None"]


@pytest.mark.parametrize("break_it, reason", [
    ("ni.TESTED = ((9, 0, 0), (9, 9, 9))", "outside the tested range"),
    ("from cardlab.sim import numba_inline_fix as f; f._PER_BLOCK = 'no such line\\n'", "inliner"),
    ("import llvmlite.binding as b; b.ValueRef.add_function_attribute = None", "alwaysinline"),
])
def test_a_numba_the_patches_do_not_fit_warns_once_and_runs_plain(break_it, reason, tmp_path):
    """As on a numba release the patches were not written for: one warning, no patch
    installed, and compiled helpers (forward references, constants) still work."""
    p = python(f"""
        import warnings
        from cardlab.sim import numba_internals as ni
        {break_it}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            from cardlab.sim import cache, jit, numba_inline_fix, numba_lazy_code
            from cardlab.sim.rng import seed_game, below
            import numpy as np
            from numba import njit
            ni.install()  # decided once per process: no second warning
        ours = [w for w in caught if issubclass(w.category, ni.NumbaPatchWarning)]
        st = np.zeros(64, dtype=np.int64)

        @jit.helper("int64(ST, int64)")
        def twice(st, i):
            return later(st, i) * 2

        @jit.helper("int64(ST, int64)", paste=True)
        def later(st, i):
            return st[i] + 1

        @njit(**jit.LOOP)
        def kernel(st):
            return twice(st, 3) + later(st, 0)

        print(len(ours), jit.PATCHED, numba_inline_fix.installed, numba_lazy_code.installed,
              cache.FOLDER.name.endswith("-plain"), kernel(st))
        print(ours[0].message if ours else "")
        """, tmp_path, CARDLAB_CACHE_DIR=str(tmp_path / "cache"))
    assert p.returncode == 0, p.stderr
    first, message = p.stdout.split("\n", 1)
    assert first.split() == ["1", "False", "False", "False", "True", "3"], p.stdout + p.stderr
    assert "plain numba" in message and reason in message, message


def test_plain_numba_plays_the_golden_games(tmp_path):
    """With every patch off the same games are played: two of Crazy Eights' golden files,
    byte for byte (a cold compile of plain numba, ~25 s: the one game CI compiles twice)."""
    p = python("""
        import sys
        sys.path.insert(0, "scripts")  # (run from the checkout's root)
        import golden
        from cardlab.sim import jit
        assert not jit.PATCHED
        for gid, players, spec, seed, name in list(golden.cases(["crazy_eights"]))[:2]:
            same = golden.play(gid, players, spec, seed, jobs=2) == (golden.GOLDEN / gid / name).read_text()
            print(name, same)
        """, tmp_path, CARDLAB_NUMBA_PATCHES="off")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.split("\n")[:-1]
    assert len(lines) == 2 and all(line.endswith(" True") for line in lines), p.stdout
