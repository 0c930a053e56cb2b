"""Cold start: the second process compiles its share into the same keyed cache folder,
and the kernel is marked warm afterwards (so later runs start no second process)."""
import os
import subprocess
import sys

from cardlab.sim import cache
from cardlab.sim.registry import get_game


def test_cold_start_precompiles_into_the_keyed_cache(tmp_path):
    env = dict(os.environ, CARDLAB_CACHE_DIR=str(tmp_path))
    env.pop("NUMBA_CACHE_DIR", None)
    p = subprocess.run([sys.executable, "-m", "cardlab.cli", "simulate", "skyscraper", "-n", "5",
                        "--json"], env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    folder = tmp_path / cache.source_hash()
    assert (folder / "skyscraper.warm").exists()
    indexes = {f.name for f in folder.rglob("*.nbi")}
    for ref in get_game("skyscraper").precompile:
        name = ref.split(":")[1]
        assert any(f".{name}-" in n for n in indexes), (name, sorted(indexes)[:5])
    # once warm, no second process is started
    p = subprocess.run([sys.executable, "-c", (
        "from cardlab.sim import precompile; from cardlab.sim.registry import get_game; "
        "print(precompile.start(get_game('skyscraper')))")],
        env=env, capture_output=True, text=True, timeout=120)
    assert p.stdout.strip() == "None", p.stderr
