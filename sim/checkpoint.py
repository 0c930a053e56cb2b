"""A run folder: every finished chunk's tally on disk, so a killed run can resume.

    OUT/run.json            what the run is (game, players, every rule, strategies, seed,
                            games, chunking, cardlab version, kernel source hash)
    OUT/chunks/<lo>.npy     the tally of games [lo, lo + chunk), written atomically

``--resume`` continues only the very same run: anything else in the folder (another
run, a foreign or damaged file) is refused with a message, and nothing is overwritten.
Because tallies are integers and chunks fixed, a resumed run ends with exactly the
result of an uninterrupted one.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from cardlab.sim.errors import InputError

FORMAT = 1


def identity(setup, games: int, start: int, chunk: int) -> dict:
    from cardlab.sim.cache import code_identity

    return setup.identity() | {"games": games, "start": start, "chunk": chunk} | code_identity()


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + f".tmp-{os.getpid()}")
    tmp.write_bytes(data)
    os.replace(tmp, path)


class Checkpoint:
    def __init__(self, folder: Path, ident: dict, size: int):
        self.folder = folder
        self.ident = ident
        self.size = size
        self._done: dict[int, np.ndarray] = {}

    # ------------------------------------------------------------ opening
    @classmethod
    def open(cls, folder, setup, games: int, start: int, chunk: int, resume: bool) -> "Checkpoint":
        folder = Path(folder)
        ident = identity(setup, games, start, chunk)
        size = setup.game.tally.size(setup.game.max_length(setup.rules, setup.players))
        meta = folder / "run.json"
        if folder.exists() and not folder.is_dir():
            raise InputError(f"bad --out {str(folder)!r}: it is a file, not a run folder")
        if meta.exists():
            try:
                saved = json.loads(meta.read_text())
                ok = isinstance(saved, dict) and saved.get("format") == FORMAT and "identity" in saved
            except (OSError, ValueError):
                ok = False
            if not ok:
                raise InputError(f"{str(meta)!r} is not a cardlab run file (unreadable or foreign); "
                                 f"nothing was changed")
            if not resume:
                raise InputError(f"--out {str(folder)!r} already holds a run: add --resume to continue "
                                 f"it, or choose another folder (nothing was changed)")
            if saved["identity"] != ident:
                key = next(k for k in ident if saved["identity"].get(k) != ident[k])
                raise InputError(f"cannot resume: {str(folder)!r} holds a different run ({key} "
                                 f"{saved['identity'].get(key)!r}, now {ident[key]!r}); nothing was changed")
        else:
            if resume:
                raise InputError(f"nothing to resume in {str(folder)!r} (no run.json): start the run "
                                 f"without --resume")
            if folder.exists() and any(folder.iterdir()):
                raise InputError(f"--out {str(folder)!r} is not empty and holds no cardlab run: choose a "
                                 f"new or empty folder (nothing was changed)")
            try:
                (folder / "chunks").mkdir(parents=True, exist_ok=True)
                _atomic_write(meta, (json.dumps({"format": FORMAT, "identity": ident, "complete": False},
                                                indent=1) + "\n").encode())
            except OSError as e:
                raise InputError(f"cannot write the run folder {str(folder)!r}: {e.strerror}") from None
        ck = cls(folder, ident, size)
        ck._load(start, games, chunk)
        return ck

    def _load(self, start: int, games: int, chunk: int) -> None:
        cdir = self.folder / "chunks"
        if not cdir.is_dir():
            raise InputError(f"cannot resume: {str(cdir)!r} is missing; nothing was changed")
        for p in sorted(cdir.iterdir()):
            if ".tmp-" in p.name:
                continue  # a chunk that was being written when the run died
            try:
                lo = int(p.stem)
                if p.suffix != ".npy" or lo < start or (lo - start) % chunk or lo >= start + games:
                    raise ValueError("not a chunk of this run")
                t = np.load(p, allow_pickle=False)
                hi = min(lo + chunk, start + games)
                if t.dtype != np.int64 or t.shape != (self.size,) or int(t[0]) != hi - lo:
                    raise ValueError("wrong size or game count")
            except (OSError, ValueError) as e:
                raise InputError(f"cannot resume: {str(p)!r} is not a valid chunk of this run ({e}); "
                                 f"delete it to replay that chunk (nothing was changed)") from None
            self._done[lo] = t

    # ------------------------------------------------------------ use
    def has(self, lo: int) -> bool:
        return lo in self._done

    def count(self) -> int:
        return len(self._done)

    def finished(self):
        chunk, start, games = self.ident["chunk"], self.ident["start"], self.ident["games"]
        for lo in sorted(self._done):
            yield lo, min(lo + chunk, start + games), self._done[lo]

    def save(self, lo: int, hi: int, tally: np.ndarray) -> None:
        import io

        buf = io.BytesIO()
        np.save(buf, tally, allow_pickle=False)
        try:
            _atomic_write(self.folder / "chunks" / f"{lo:012d}.npy", buf.getvalue())
        except OSError as e:
            from cardlab.sim.errors import RunError

            raise RunError(f"cannot save a chunk into {str(self.folder)!r}: {e.strerror}") from None
        self._done[lo] = tally

    def complete(self) -> None:
        _atomic_write(self.folder / "run.json",
                      (json.dumps({"format": FORMAT, "identity": self.ident, "complete": True},
                                  indent=1) + "\n").encode())
