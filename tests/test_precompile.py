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
    assert not (folder / "skyscraper.doing").exists()  # nobody compiling any more
    indexes = {f.name for f in folder.rglob("*.nbi")}
    for ref in get_game("skyscraper").precompile:
        name = ref.split(":")[1]
        assert any(f".{name}-" in n for n in indexes), (name, sorted(indexes)[:5])
    # the game's bound module (sim/bind.py) is in the keyed folder, and a second run loads
    # every kernel from numba's cache: nothing is compiled or written again
    assert (folder / "bindings" / "skyscraper_bound.py").is_file()
    files = {f: f.stat().st_mtime_ns for f in folder.rglob("*") if f.suffix in (".nbi", ".nbc")}
    p = subprocess.run([sys.executable, "-m", "cardlab.cli", "simulate", "skyscraper", "-n", "5",
                        "--json"], env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    again = {f: f.stat().st_mtime_ns for f in folder.rglob("*") if f.suffix in (".nbi", ".nbc")}
    assert again == files, sorted(str(f.name) for f in set(again) ^ set(files) or again)[:5]
    # once warm, no second process is started
    p = subprocess.run([sys.executable, "-c", (
        "from cardlab.sim import precompile; from cardlab.sim.registry import get_game; "
        "print(precompile.start(get_game('skyscraper')))")],
        env=env, capture_output=True, text=True, timeout=120)
    assert p.stdout.strip() == "None", p.stderr


class FakeProcess:
    def __init__(self):
        self.alive = True

    def poll(self):
        return None if self.alive else 0


def test_the_main_process_waits_only_while_the_second_compiles_that_helper(tmp_path):
    import threading
    import time

    from cardlab.sim.precompile import wait_while_compiling

    doing, proc = tmp_path / "g.doing", FakeProcess()
    doing.write_text("m:other")
    t0 = time.monotonic()
    wait_while_compiling(proc, doing, "m:step")  # compiling something else: no wait
    assert time.monotonic() - t0 < 0.5
    doing.write_text("m:step")
    threading.Timer(0.3, doing.write_text, args=("",)).start()
    t0 = time.monotonic()
    wait_while_compiling(proc, doing, "m:step")  # until it is done with it
    assert 0.25 < time.monotonic() - t0 < 5
    doing.write_text("m:step")
    threading.Timer(0.3, setattr, args=(proc, "alive", False)).start()
    t0 = time.monotonic()
    wait_while_compiling(proc, doing, "m:step")  # or no longer runs
    assert 0.25 < time.monotonic() - t0 < 5
    proc.alive = True
    t0 = time.monotonic()
    wait_while_compiling(proc, doing, "m:step", limit_s=0.3)  # and never past the limit
    assert 0.25 < time.monotonic() - t0 < 5
    doing.unlink()
    wait_while_compiling(proc, doing, "m:step")  # no file: nobody is compiling
