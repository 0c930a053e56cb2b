"""The learned player's models: one file per game and player count, every generation in it.

A model file (``GAME-Np.json``, written by ``cardlab learn``, ``analysis/learn.py``) holds
the generations of an evaluation ``V`` (``sim/learned.py``) of one game at one player count:
each generation's weights (base64 of little-endian float64, exact), its hidden-layer width
and how it was trained; and what the file fits: the game, the players, and the
**encoding** it reads (a digest of the observation vector's feature names and of
``sim/features.ENCODING``, the recipe's version).  A file whose game, players or encoding
differ from the code's, or that cannot be read, is refused in one line: a model is only ever
evaluated on the vector it was trained on.  The rules it was trained under are recorded, not
enforced: on other rules it still plays honestly, only perhaps less well.

Where models are looked up, first found first: ``$CARDLAB_MODELS``; the user's data folder
(``$CARDLAB_HOME`` or ``$XDG_DATA_HOME/cardlab`` or ``~/.local/share/cardlab``, then
``models/``), where ``cardlab learn`` writes by default; the models shipped with cardlab
(``strategies/models/``).

A model array (what the compiled player reads) has one row per generation:
``[H, weights...]`` padded with zeros, ``H`` the hidden width (0: linear).  Linear:
``w[0:n], b``; one hidden layer: ``W1`` (H rows of n), ``b1[H]``, ``w2[H]``, ``b2``.
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from cardlab.sim.errors import InputError

FORMAT = "cardlab-model"
VERSION = 1
ENV = "CARDLAB_MODELS"


def data_home() -> Path:
    """cardlab's data folder: $CARDLAB_HOME, else the user's data folder (the run history's
    home too, ``analysis/history.py``)."""
    base = os.environ.get("CARDLAB_HOME")
    if base:
        return Path(base).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(xdg) / "cardlab"


def shipped_folder() -> Path:
    """The models shipped with cardlab (``strategies/models``, package data: the strategies'
    folder beside this one, in the checkout and installed alike)."""
    return Path(__file__).resolve().parent.parent / "strategies" / "models"


def user_folder() -> Path:
    return data_home() / "models"


def file_name(game_id: str, players: int) -> str:
    return f"{game_id}-{players}p.json"


def folders() -> list[Path]:
    """Where models are looked up, in order (see the module's docstring)."""
    out = [Path(os.environ[ENV]).expanduser()] if os.environ.get(ENV) else []
    return out + [user_folder(), shipped_folder()]


def find(game_id: str, players: int) -> Path | None:
    for folder in folders():
        path = folder / file_name(game_id, players)
        if path.is_file():
            return path
    return None


def encoding(game) -> str:
    """The digest of the observation vector a model reads: its feature names and the
    recipe's version (``sim/features.ENCODING``)."""
    from cardlab.sim.features import ENCODING

    text = f"{ENCODING}\n" + "\n".join(game.feature_names())
    return hashlib.sha256(text.encode()).hexdigest()[:16]


# ------------------------------------------------------------ weights as a row
def pack(hidden: int, n: int, weights: np.ndarray) -> np.ndarray:
    """A generation's row of the model array: ``[H, weights...]``, checked for length."""
    want = n + 1 if hidden == 0 else hidden * n + 2 * hidden + 1
    weights = np.asarray(weights, dtype=np.float64).ravel()
    if weights.shape[0] != want:
        raise ValueError(f"{weights.shape[0]} weights for hidden={hidden} and {n} features: want {want}")
    return np.concatenate(([float(hidden)], weights))


def row_length(hidden: int, n: int) -> int:
    return 1 + (n + 1 if hidden == 0 else hidden * n + 2 * hidden + 1)


@dataclass
class Model:
    """Every generation of one game's evaluation at one player count."""
    game: str
    players: int
    encoding: str
    n_features: int
    generations: list[dict] = field(default_factory=list)  # {"hidden", "weights", ...info}
    info: dict = field(default_factory=dict)                # how it was made: command, seed, rules

    def add(self, hidden: int, weights: np.ndarray, **info) -> None:
        pack(hidden, self.n_features, weights)  # checks the length
        self.generations.append({"hidden": int(hidden), "weights": np.asarray(weights, dtype=np.float64).ravel(),
                                 **info})

    def array(self, upto: int | None = None) -> np.ndarray:
        """The model array of generations 1..upto (all by default), one row each."""
        gens = self.generations[:upto]
        if not gens:
            return empty(self.n_features)
        rows = [pack(g["hidden"], self.n_features, g["weights"]) for g in gens]
        out = np.zeros((len(rows), max(len(r) for r in rows)), dtype=np.float64)
        for i, r in enumerate(rows):
            out[i, :len(r)] = r
        return out

    def to_json(self) -> dict:
        gens = []
        for g in self.generations:
            d = {k: v for k, v in g.items() if k != "weights"}
            d["weights"] = base64.b64encode(np.asarray(g["weights"], dtype="<f8").tobytes()).decode()
            gens.append(d)
        return {"format": FORMAT, "version": VERSION, "game": self.game, "players": self.players,
                "encoding": self.encoding, "n_features": self.n_features, "info": self.info,
                "generations": gens}


def empty(n_features: int) -> np.ndarray:
    """A model array of one linear row of zeros (V = 1/2 everywhere): what the compiled
    kernels get when no seat plays ``learned``."""
    return np.zeros((1, row_length(0, n_features)), dtype=np.float64)


def new(game, players: int, **info) -> Model:
    return Model(game.id, players, encoding(game), len(game.feature_names()), [], info)


def save(model: Model, path: Path) -> Path:
    """Write ``model`` to ``path`` (atomically: a reader sees the old file or the new one)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(model.to_json(), indent=1) + "\n")
    os.replace(tmp, path)
    return path


def check_writable(path: Path) -> None:
    """Refuse, in one line, a model file that could not be written (before any training)."""
    path = Path(path)
    if path.is_dir():
        raise InputError(f"cannot write model file {path}: it is a folder")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        probe = path.with_name(f".{path.name}.{os.getpid()}.probe")
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        raise InputError(f"cannot write model file {path}: {e.strerror or e}") from None


def load(path: Path, game=None, players: int | None = None) -> Model:
    """The model in ``path``, checked against ``game`` and ``players`` when given: one-line
    InputError for a damaged file or one that fits another game, table or encoding."""
    path = Path(path)
    try:
        d = json.loads(path.read_text())
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise ValueError("not a cardlab model file")
        if d.get("version") != VERSION:
            raise ValueError(f"format version {d.get('version')}, this cardlab reads {VERSION}")
        m = Model(str(d["game"]), int(d["players"]), str(d["encoding"]), int(d["n_features"]), [],
                  dict(d.get("info") or {}))
        for g in d["generations"]:
            w = np.frombuffer(base64.b64decode(g["weights"], validate=True), dtype="<f8").astype(np.float64)
            if not np.all(np.isfinite(w)):
                raise ValueError("weights that are not finite numbers")
            m.add(int(g["hidden"]), w, **{k: v for k, v in g.items() if k not in ("hidden", "weights")})
        if not m.generations:
            raise ValueError("no generation")
    except OSError as e:
        raise InputError(f"cannot read model file {path}: {e.strerror or e}") from None
    except (ValueError, KeyError, TypeError) as e:
        raise InputError(f"damaged model file {path}: {e}") from None
    if game is not None:
        if m.game != game.id:
            raise InputError(f"model file {path} is for game '{m.game}', not '{game.id}'")
        if m.encoding != encoding(game) or m.n_features != len(game.feature_names()):
            raise InputError(f"model file {path} reads another observation encoding of {game.id} than "
                             f"this code's ({m.n_features} features, encoding {m.encoding}; this code: "
                             f"{len(game.feature_names())}, {encoding(game)}): retrain it with cardlab learn "
                             f"{game.id} --players {m.players} --out {path}")
    if players is not None and m.players != players:
        raise InputError(f"model file {path} is for {m.players} players, not {players}")
    return m


_LOADED: dict[tuple[str, int, str], tuple[int, np.ndarray]] = {}


def weights_for(game, players: int) -> np.ndarray:
    """The model array the ``learned`` player uses for ``game`` at ``players`` (the first
    model file found, ``folders``); a one-line InputError when there is none."""
    path = find(game.id, players)
    if path is None:
        where = ", ".join(str(f) for f in folders())
        raise InputError(f"no learned model for {game.id} with {players} players (looked in {where}): "
                         f"train one with cardlab learn {game.id} --players {players}")
    key = (game.id, players, str(path))
    stamp = path.stat().st_mtime_ns
    got = _LOADED.get(key)
    if got is None or got[0] != stamp:
        got = (stamp, load(path, game, players).array())
        _LOADED[key] = got
    return got[1]


def digest(W: np.ndarray) -> str:
    """A model array's fingerprint (a run's identity names the model its learned seats played)."""
    return hashlib.sha256(np.ascontiguousarray(W, dtype="<f8").tobytes()).hexdigest()[:16]
