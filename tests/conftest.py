"""Shared fixtures.  Compiled kernels are shared by every test in the process (numba's
cache is keyed by the source hash, so a cold CI run compiles each game once)."""
import pytest

from cardlab.sim.runner import make_setup as _setup


@pytest.fixture(scope="session")
def sky2():
    """Two-player Skyscraper with the reference strategy (kernel warmed once)."""
    from cardlab.sim import runner

    s = _setup("skyscraper", 2, None, "reference", 1)
    runner.warm(s)
    return s
