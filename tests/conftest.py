"""Shared fixtures.  Compiled kernels are shared by every test in the process (numba's
cache is keyed by the source hash, so a cold CI run compiles each game once).

The run history (``analysis/history.py``) never sees the user's data folder from a test:
CARDLAB_HOME points at a temporary folder from the moment this file is imported (so every
``cardlab`` process a test starts inherits it), and at a fresh one for every test."""
import atexit
import os
import shutil
import tempfile

import pytest

os.environ["CARDLAB_HOME"] = tempfile.mkdtemp(prefix="cardlab-test-home-")
atexit.register(shutil.rmtree, os.environ["CARDLAB_HOME"], True)

from cardlab.sim.runner import make_setup as _setup


@pytest.fixture(scope="session")
def sky2():
    """Two-player Skyscraper with the reference strategy (kernel warmed once)."""
    from cardlab.sim import runner

    s = _setup("skyscraper", 2, None, "reference", 1)
    runner.warm(s)
    return s


@pytest.fixture(scope="session")
def demo_out(tmp_path_factory):
    """`cardlab demo` at a small size, once for every test that reads its pages (the
    report tests and the dashboard's browser test)."""
    import subprocess
    import sys

    out = tmp_path_factory.mktemp("demo") / "demo"
    p = subprocess.run([sys.executable, "-m", "cardlab.cli", "demo", "--games", "2000", "--ladder-games", "2",
                        "--strong-games", "9", "--strength-games", "6",
                        "--out", str(out), "--quiet"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return out


@pytest.fixture(autouse=True)
def _history_home(tmp_path_factory, monkeypatch):
    """Every test records its runs into a history of its own (never the user's)."""
    monkeypatch.setenv("CARDLAB_HOME", str(tmp_path_factory.mktemp("cardlab_home")))
