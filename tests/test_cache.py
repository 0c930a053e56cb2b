"""The numba cache folder is keyed by the kernel sources, so a stale kernel cannot load."""
import os
import shutil
from pathlib import Path

from cardlab.sim import cache


def test_hash_changes_when_any_kernel_or_strategy_source_changes(tmp_path):
    for d in cache.SOURCE_DIRS:
        shutil.copytree(cache.ROOT / d, tmp_path / d, ignore=shutil.ignore_patterns("__pycache__"))
    before = cache.source_hash(tmp_path)
    assert before == cache.source_hash(cache.ROOT)
    helper = tmp_path / "sim" / "rng.py"  # a helper file, not the kernel's own file
    helper.write_text(helper.read_text() + "\n# edited\n")
    assert cache.source_hash(tmp_path) != before
    (tmp_path / "strategies" / "new_strategy.py").write_text("X = 1\n")
    assert cache.source_hash(tmp_path) not in (before,)


def test_numba_cache_dir_points_at_the_keyed_folder():
    import numba

    folder = Path(os.environ["NUMBA_CACHE_DIR"])
    assert folder.name == cache.source_hash()
    assert Path(numba.config.CACHE_DIR) == folder
