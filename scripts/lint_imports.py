"""Check cardlab's import contract (``.importlinter``) with import-linter.

    python scripts/lint_imports.py                # every contract; exit 0 when all are kept
    python scripts/lint_imports.py --verbose      # further arguments go to lint-imports

The package folders sit beside ``cardlab/`` in the checkout and install as ``cardlab.sim``,
``cardlab.strategies``, ``cardlab.analysis`` (pyproject.toml's ``package-dir``), while
import-linter reads a package from one folder.  So this links them under one ``cardlab/``
in a temporary folder (a tree of symlinks to the checkout's files: nothing is copied or
imported) and runs ``lint-imports`` there, on the checkout's ``.importlinter``, without
its cache.  tests/test_layers.py runs it.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / ".importlinter"


def package_dirs(root: Path = ROOT) -> dict[str, Path]:
    """Every installed package name and its folder in the checkout (pyproject.toml)."""
    data = tomllib.loads((root / "pyproject.toml").read_text())
    return {name: root / folder for name, folder in data["tool"]["setuptools"]["package-dir"].items()}


def link_tree(dest: Path, root: Path = ROOT) -> Path:
    """``dest/cardlab``: the checkout's ``cardlab/`` entries with each subpackage's folder
    linked in under its installed name; returns ``dest``."""
    dirs = package_dirs(root)
    top = dest / "cardlab"
    top.mkdir(parents=True)
    for entry in dirs.pop("cardlab").iterdir():
        if entry.name != "__pycache__":
            (top / entry.name).symlink_to(entry)
    for name, folder in sorted(dirs.items()):
        *parents, leaf = name.split(".")[1:]
        assert not parents, f"{name}: only cardlab.<name> subpackages can be linked"
        (top / leaf).symlink_to(folder, target_is_directory=True)
    return dest


def run(args: list[str], config: Path = CONFIG, root: Path = ROOT) -> subprocess.CompletedProcess:
    """``lint-imports CONFIG --no-cache ARGS`` on a linked tree of ``root``."""
    with tempfile.TemporaryDirectory(prefix="cardlab-layers-") as tmp:
        link_tree(Path(tmp), root)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([tmp] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
        code = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"
        return subprocess.run([sys.executable, "-c", code, str(config), "--no-cache", *args], cwd=tmp,
                              env=env, capture_output=True, text=True)


def main() -> int:
    p = run(sys.argv[1:])
    sys.stdout.write(p.stdout)
    sys.stderr.write(p.stderr)
    return p.returncode


if __name__ == "__main__":
    sys.exit(main())
