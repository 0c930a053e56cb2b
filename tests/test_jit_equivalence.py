"""The compiled kernel and the same code run as plain Python agree.

``cardlab simulate`` runs once normally (numba-compiled kernels) and once with
``NUMBA_DISABLE_JIT=1`` (numba leaves every ``@njit`` function as ordinary Python),
each in its own process; the JSON results must be identical except for the timing
keys.  The uncompiled run is the slow reference the benchmark measures the speed-up
against, so it must be the same game, not merely a similar one.  30 games keep the
uncompiled run to about a second.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TIMING_KEYS = ("elapsed_s", "games_per_second")
ROOT = Path(__file__).resolve().parent.parent

CASES = {
    "2p-reference": ["--games", "30", "--seed", "5"],
    "3p-random-greedy-aggressive": ["--games", "30", "--seed", "5", "--players", "3",
                                    "--strategies", "random,greedy,aggressive"],
}


def _cardlab() -> list[str]:
    exe = Path(sys.executable).parent / "cardlab"
    if exe.is_file() and os.access(exe, os.X_OK):
        return [str(exe)]
    found = shutil.which("cardlab")
    return [found] if found else [sys.executable, "-m", "cardlab.cli"]


def _simulate(args: list[str], disable_jit: bool) -> dict:
    env = dict(os.environ)
    env.pop("NUMBA_DISABLE_JIT", None)
    if disable_jit:
        env["NUMBA_DISABLE_JIT"] = "1"
    cmd = _cardlab() + ["simulate", "skyscraper", *args, "--json"]
    # generous timeout: the compiled run may have to compile (~20 s) after a source edit
    p = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True, timeout=600)
    mode = "NUMBA_DISABLE_JIT=1" if disable_jit else "compiled"
    assert p.returncode == 0, (f"{mode} run failed (exit {p.returncode}): {' '.join(cmd)}\n"
                               f"--- stderr ---\n{p.stderr}")
    return json.loads(p.stdout)


@pytest.mark.parametrize("args", list(CASES.values()), ids=list(CASES))
def test_compiled_equals_pure_python(args):
    compiled = _simulate(args, disable_jit=False)
    pure = _simulate(args, disable_jit=True)
    for k in TIMING_KEYS:
        assert k in compiled and k in pure, f"timing key {k!r} missing from the JSON"
    a = {k: v for k, v in compiled.items() if k not in TIMING_KEYS}
    b = {k: v for k, v in pure.items() if k not in TIMING_KEYS}
    differing = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    assert not differing, (f"compiled and NUMBA_DISABLE_JIT=1 runs differ in {differing}:\n"
                           + "\n".join(f"  {k}: compiled={a.get(k)!r}\n  {' ' * len(k)}  pure={b.get(k)!r}"
                                       for k in differing))
    assert a["games"] == 30
