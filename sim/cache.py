"""Numba cache that can never be stale.

numba's own cache only checks the timestamp of the file that defines a kernel, not
of the helpers it calls from other files.  We key the whole cache folder by a hash of
every source file under ``sim/`` and ``strategies/``: any edit selects a fresh folder,
so an old compiled kernel is never loaded.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE_DIRS = ("sim", "strategies")
FOLDER: Path | None = None  # the keyed cache folder in use (set by configure)


def source_hash(root: Path = ROOT) -> str:
    """Hash of every kernel and strategy source file (names and contents)."""
    h = hashlib.sha256()
    for d in SOURCE_DIRS:
        for p in sorted((root / d).rglob("*.py")):
            h.update(str(p.relative_to(root)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()[:16]


def cardlab_version() -> str:
    try:
        from importlib.metadata import version

        return version("cardlab")
    except Exception:  # pragma: no cover - not installed
        import cardlab

        return cardlab.__version__


_CODE: dict | None = None


def code_identity() -> dict:
    """Which code plays the games: the cardlab version and the hash of the kernel and
    strategy sources (saved results are reused only by the very same code)."""
    global _CODE
    if _CODE is None:
        _CODE = {"version": cardlab_version(), "source": source_hash()}
    return dict(_CODE)


def cache_root() -> Path:
    base = os.environ.get("CARDLAB_CACHE_DIR")
    if base:
        return Path(base)
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "cardlab" / "numba"


def folder_name() -> str:
    """The source hash, and ``-plain`` when numba's internals are left alone
    (``sim/numba_internals.py``): the two modes cache different compiled code."""
    from cardlab.sim import numba_internals

    return source_hash() + ("-plain" if numba_internals.mode() == "plain" else "")


def configure() -> Path:
    """Point numba at ``<cache root>/<source hash>`` (before or after numba's import)."""
    folder = cache_root() / folder_name()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:  # read-only home: fall back to a temp folder, still keyed
        import tempfile

        folder = Path(tempfile.gettempdir()) / "cardlab-numba" / folder_name()
        folder.mkdir(parents=True, exist_ok=True)
    global FOLDER
    FOLDER = folder
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    import sys

    if "numba" in sys.modules:  # numba already read its config: update it too
        import numba

        numba.config.CACHE_DIR = str(folder)
    return folder
