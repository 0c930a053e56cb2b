"""Shared fixtures.  Compiled kernels are shared by every test in the process (numba's
cache is keyed by the source hash, so a cold CI run compiles each game once).

The run history (``analysis/history.py``) never sees the user's data folder from a test:
CARDLAB_HOME points at a temporary folder from the moment this file is imported (so every
``cardlab`` process a test starts inherits it), and at a fresh one for every test.

Nor do the tools the tests start: Chromium (the browser tests) keeps a profile, crash
reports and dconf settings under XDG_CONFIG_HOME and XDG_CACHE_HOME, matplotlib its font
cache under MPLCONFIGDIR, all of them in the user's home by default.  They point at a
temporary folder too; the compile cache, the one thing the tests write in the user's
home (docs/architecture.md), stays where it is documented (CARDLAB_CACHE_DIR, pinned to
it before XDG_CACHE_HOME moves)."""
import atexit
import os
import shutil
import tempfile

import pytest

os.environ["CARDLAB_HOME"] = tempfile.mkdtemp(prefix="cardlab-test-home-")
atexit.register(shutil.rmtree, os.environ["CARDLAB_HOME"], True)

from cardlab.sim.cache import cache_root  # noqa: E402 - reads the environment only when called

os.environ.setdefault("CARDLAB_CACHE_DIR", str(cache_root()))
_TOOLS = tempfile.mkdtemp(prefix="cardlab-test-tools-")
atexit.register(shutil.rmtree, _TOOLS, True)
for _var in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR", "MPLCONFIGDIR"):
    os.environ[_var] = os.path.join(_TOOLS, _var.lower())
    os.makedirs(os.environ[_var], mode=0o700, exist_ok=True)

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
