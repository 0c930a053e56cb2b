"""Rule-tweak sweeps: play a grid of rule variants on the same seeds and compare them.

    sweep("skyscraper", [("floors_to_win", ["4", "5"]), ("players", ["2", "3"])],
          games=100_000, seed=1, out="sweeps/floors")

- **Grid.** Every combination of the ``--vary`` values (rule knobs, ``players`` and
  ``strategies``) is one variant; ``--set`` and ``--strategies`` fix the rest.
- **Common random numbers.** Every variant plays game indices 0, 1, 2, ... of the same
  seed, so game i of two variants starts from the same shuffle seed.  Differences are
  computed per game index (a paired design): the variance of a difference is
  var(a) + var(b) - 2 cov(a, b), and the shared deals make cov(a, b) large.
- **Comparison.** Each variant against the baseline (the defaults, or ``--baseline``):
  the paired mean difference of first-player advantage, length (over the games that
  finished in both: a capped game has no length of its own), unfinished and no-winner rates with a 95% interval and a two-sided p-value (normal approximation,
  fine at the game counts a sweep uses), adjusted across the whole grid (Holm or
  Benjamini-Hochberg), and one verdict line per variant.
- **Resumable.** A finished variant is saved at once under ``OUT/variants/<key>/``
  (written to a temporary folder, then renamed), where ``key`` hashes everything that
  determines its result: game, players, every rule value, strategies, seed, games,
  precision, max games, the cardlab version and a hash of the kernel sources.  A rerun
  of the same command loads finished variants instead of playing them; an interrupted
  sweep loses at most the variant in progress; a changed command gets new keys and never
  reuses a stale result.
- **Adaptive precision.** With ``precision`` a variant keeps doubling its games (the
  next block of game indices, so it stays reproducible) until the widest seat win-rate
  interval has a half-width below ``precision`` or ``max_games`` is reached.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd

from cardlab.analysis.shape import LABEL as SHAPE_LABEL, METRICS as SHAPE_METRICS
from cardlab.analysis.tables import bh_adjust, holm_adjust
from cardlab.sim.errors import InputError
from cardlab.sim.runner import RunResult, Setup, make_setup
from cardlab.sim.tally import SHAPE_ROW_COLS, Tally

SPECIAL = ("players", "strategies")
BLOCK = 1_000_000   # games per runner call: the per-game rows stay small (23 bytes a game)
FORMAT = 2          # a saved variant's files (2: with the per-game shape columns)
# the shape of a game (analysis/shape.py) is compared per game too: lead changes over the
# games that finished in both variants, each rate over the games where it applies in both
METRICS = ("first_player_advantage", "mean_length", "unfinished_rate", "no_winner_rate") + SHAPE_METRICS
METRIC_LABEL = {"first_player_advantage": "first-player advantage", "mean_length": "mean length (finished games)",
                "unfinished_rate": "unfinished rate", "no_winner_rate": "no-winner rate"} | SHAPE_LABEL


# ---------------------------------------------------------------------------- the grid
@dataclass
class Variant:
    index: int
    values: dict[str, str]   # varied key -> value, as given on the command line
    setup: Setup

    @property
    def label(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.values.items())


def parse_vary(items: Sequence[str]) -> list[tuple[str, list[str]]]:
    """``["floors_to_win=4,5", "strategies=reference/aggressive,random"]`` -> keys and
    values (``strategies`` values are separated by ``/``: each is a per-seat list)."""
    out: list[tuple[str, list[str]]] = []
    for item in items:
        if "=" not in item:
            raise InputError(f"bad --vary {item!r}: expected KEY=V1,V2,... (strategies: "
                             f"KEY=A/B/..., each a per-seat list)")
        key, vals = item.split("=", 1)
        key = key.strip()
        sep = "/" if key == "strategies" else ","
        values = [v.strip() for v in vals.split(sep) if v.strip()]
        if not values:
            raise InputError(f"bad --vary {item!r}: no values")
        if any(k == key for k, _ in out):
            raise InputError(f"--vary {key} is given twice: list all its values in one --vary")
        if len(set(values)) != len(values):
            raise InputError(f"bad --vary {item!r}: a value is repeated")
        out.append((key, values))
    if not out:
        raise InputError("nothing to sweep: give at least one --vary KEY=V1,V2,...")
    return out


def make_grid(game_id: str, vary: Sequence[tuple[str, list[str]]], sets: Sequence[str] | None = None,
              strategies: str | None = None, players: int | None = None, seed: int = 1) -> list[Variant]:
    """Every combination of the varied values, each a validated Setup."""
    from cardlab.sim.registry import get_game

    game = get_game(game_id)
    names = [k.name for k in game.knobs]
    fixed = {kv.split("=", 1)[0].strip() for kv in sets or [] if "=" in kv}
    for key, _ in vary:
        if key not in names and key not in SPECIAL:
            raise InputError(f"unknown --vary key '{key}' for game '{game_id}': allowed "
                             f"{', '.join(SPECIAL + tuple(names))}")
        if key in fixed:
            raise InputError(f"'{key}' is given with both --set and --vary: keep one")
    keys = [k for k, _ in vary]
    if "players" in keys and players is not None:
        raise InputError("--players and --vary players both given: keep one")
    if "strategies" in keys and strategies:
        raise InputError("--strategies and --vary strategies both given: keep one")
    grid = []
    for combo in itertools.product(*[v for _, v in vary]):
        values = dict(zip(keys, combo))
        p = players
        if "players" in values:
            try:
                p = int(values["players"])
            except ValueError:
                raise InputError(f"bad --vary players value {values['players']!r}: expected whole numbers") from None
        knob_sets = list(sets or []) + [f"{k}={v}" for k, v in values.items() if k not in SPECIAL]
        setup = make_setup(game_id, p, knob_sets, values.get("strategies", strategies), seed)
        grid.append(Variant(len(grid), values, setup))
    return grid


def pick_baseline(grid: Sequence[Variant], baseline: Sequence[str] | None = None) -> Variant:
    """The variant named by ``baseline`` (``["KEY=VALUE", ...]``, every varied key not
    named takes its default or first value), else the defaults' variant."""
    game = grid[0].setup.game
    keys = list(grid[0].values)
    want: dict[str, str] = {}
    for kv in baseline or []:
        if "=" not in kv:
            raise InputError(f"bad --baseline {kv!r}: expected KEY=VALUE")
        k, v = (x.strip() for x in kv.split("=", 1))
        if k not in keys:
            raise InputError(f"bad --baseline {kv!r}: '{k}' is not varied (varied: {', '.join(keys)})")
        want[k] = v
    for k in keys:
        if k in want:
            continue
        values = list(dict.fromkeys(g.values[k] for g in grid))
        want[k] = values[0]
        if k == "players":
            dflt = str(game.default_players)
            want[k] = dflt if dflt in values else values[0]
        elif k != "strategies":
            knob = next(x for x in game.knobs if x.name == k)
            for v in values:
                if knob.parse(v) == knob.default:
                    want[k] = v
                    break
    for g in grid:
        if all(g.values[k] == want[k] for k in keys):
            return g
    raise InputError(f"bad --baseline: no variant has {', '.join(f'{k}={v}' for k, v in want.items())}")


# ---------------------------------------------------------------------------- playing
def variant_identity(v: Variant, games: int, precision: float | None, max_games: int | None) -> dict:
    """Everything that determines a variant's result (its folder name is a hash of it)."""
    from cardlab.sim.cache import code_identity

    return v.setup.identity() | {"games": games, "precision": precision, "max_games": max_games} \
        | code_identity()


def variant_key(identity: dict) -> str:
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:20]


@dataclass
class VariantResult:
    variant: Variant
    result: RunResult          # tally of all its games (rows: None)
    length: np.ndarray         # per game index: length, unfinished, winner mask
    unfinished: np.ndarray
    mask: np.ndarray
    shape: np.ndarray          # per game index, the row's shape columns (sim/shape.py;
    reused: bool = False       # lead changes, comeback, decided point in 1/1000, close; -1: n/a)


def widest_half_width(tally: Tally) -> float:
    from cardlab.analysis.stats import wilson

    n = tally.games
    return max((hi - lo) / 2 for lo, hi in (wilson(w, n) for w in tally.wins))


def _play(setup: Setup, start: int, count: int, jobs: int | None, progress) -> tuple:
    """Games [start, start + count) in blocks: (tally data, length, unfinished, mask, shape,
    seconds)."""
    from cardlab.sim import runner

    data = None
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    secs = 0.0
    for lo in range(start, start + count, BLOCK):
        n = min(BLOCK, start + count - lo)
        r = runner.run(setup, n, jobs, keep_rows=True, progress=progress, start=lo)
        data = r.tally.data.copy() if data is None else data + r.tally.data
        parts.append((r.rows[:, 0].astype(np.int32), r.rows[:, 1].astype(np.int8),
                      r.rows[:, 2].astype(np.int16), r.rows[:, -SHAPE_ROW_COLS:].astype(np.int32)))
        secs += r.elapsed_s
    return (data, *(np.concatenate([p[i] for p in parts]) for i in range(4)), secs)


def play_variant(v: Variant, games: int, jobs: int | None = None, precision: float | None = None,
                 max_games: int | None = None, progress=None) -> VariantResult:
    """Play a variant's games 0..games-1 and, with ``precision``, keep doubling (the next
    game indices) while its widest seat interval is wider than +/- precision."""
    s = v.setup
    data, length, unf, mask, shp, secs = _play(s, 0, games, jobs, progress)
    n = games
    cap = max_games or games
    while precision and n < cap and widest_half_width(Tally(s.game.tally, data, s.players)) > precision:
        add = min(n, cap - n)
        d2, l2, u2, m2, h2, t2 = _play(s, n, add, jobs, progress)
        data, secs, n = data + d2, secs + t2, n + add
        length, unf, mask, shp = (np.concatenate(x) for x in ((length, l2), (unf, u2), (mask, m2), (shp, h2)))
    res = RunResult(s, n, Tally(s.game.tally, data, s.players), secs)
    return VariantResult(v, res, length, unf, mask, shp)


def _save(folder: Path, vr: VariantResult, identity: dict) -> None:
    """Write a finished variant atomically: a temporary folder renamed into place."""
    tmp = folder.with_name(folder.name + f".tmp-{os.getpid()}")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    np.save(tmp / "tally.npy", vr.result.tally.data)
    np.savez(tmp / "games.npz", length=vr.length, unfinished=vr.unfinished, mask=vr.mask, shape=vr.shape)
    meta = {"identity": identity, "games": vr.result.games, "elapsed_s": vr.result.elapsed_s,
            "label": vr.variant.label, "values": vr.variant.values, "format": FORMAT}
    (tmp / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    os.replace(tmp, folder)


def _load(folder: Path, v: Variant, identity: dict) -> VariantResult:
    """A saved variant, refusing anything that is not exactly what this command would play."""
    s = v.setup
    try:
        meta = json.loads((folder / "meta.json").read_text())
        if meta.get("format") != FORMAT or meta.get("identity") != identity:
            raise ValueError("it was played by a different command")
        data = np.load(folder / "tally.npy", allow_pickle=False)
        z = np.load(folder / "games.npz", allow_pickle=False)
        length, unf, mask, shp = z["length"], z["unfinished"], z["mask"], z["shape"]
        n = int(meta["games"])
        size = s.game.tally.size(s.game.max_length(s.rules, s.players))
        if data.dtype != np.int64 or data.shape != (size,) \
                or int(data[0]) != n or not (len(length) == len(unf) == len(mask) == len(shp) == n):
            raise ValueError("its files do not match")
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise InputError(f"cannot reuse the saved sweep variant in {str(folder)!r} ({e}): remove "
                         f"that folder to play it again") from None
    res = RunResult(s, n, Tally(s.game.tally, data, s.players), float(meta.get("elapsed_s", 0.0)))
    return VariantResult(v, res, length, unf, mask, shp, reused=True)


# ---------------------------------------------------------------------------- statistics
def per_game(vr: VariantResult, n: int) -> dict[str, np.ndarray]:
    """The per-game value of each compared metric for game indices 0..n-1."""
    P = vr.variant.setup.players
    mask = vr.mask[:n].astype(np.int64)
    winners = np.zeros(n)
    for s in range(P):
        winners += (mask >> s) & 1
    seat0 = np.where(winners > 0, (mask & 1) / np.maximum(winners, 1), 0.0)
    # a capped game has no length of its own: NaN, so it pairs with nothing (the mean length
    # is compared over the games that finished in both variants)
    length = np.where(vr.unfinished[:n] != 0, np.nan, vr.length[:n].astype(float))
    # the shape: NaN where a figure does not apply to a game (capped, no winner, no sole
    # leader at half-time, a shared win), so it pairs only with games where it applies in both
    sh = vr.shape[:n].astype(float)
    sh[sh < 0] = np.nan
    return {"first_player_advantage": seat0 - 1.0 / P, "mean_length": length,
            "unfinished_rate": vr.unfinished[:n].astype(float), "no_winner_rate": (mask == 0).astype(float),
            "lead_changes": sh[:, 0], "comeback_rate": sh[:, 1], "decided_point": sh[:, 2] / 1000.0,
            "close_finish_rate": sh[:, 3]}


def paired_difference(a: np.ndarray, b: np.ndarray, z: float = 1.959963984540054) -> dict[str, float]:
    """Mean of a - b over paired games with its 95% interval and two-sided p-value."""
    d = a - b
    n = len(d)
    mean = float(d.mean())
    se = float(d.std(ddof=1) / math.sqrt(n)) if n > 1 else float("nan")
    if not se > 0:
        p = 1.0 if mean == 0 else 0.0
        return {"diff": mean, "lo": mean, "hi": mean, "se": 0.0, "p": p}
    p = math.erfc(abs(mean / se) / math.sqrt(2))
    return {"diff": mean, "lo": mean - z * se, "hi": mean + z * se, "se": se, "p": p}


# ---------------------------------------------------------------------------- the sweep
@dataclass
class SweepResult:
    results: pd.DataFrame        # one row per variant
    comparison: pd.DataFrame     # one row per (variant, metric) against the baseline
    verdicts: list[str]
    keys: list[str]              # the varied keys
    baseline: str                # the baseline variant's label
    out: Path | None = None
    files: dict[str, Path] = field(default_factory=dict)
    reused: int = 0              # variants loaded from a previous run


def _row(vr: VariantResult, keys: list[str], maxp: int, is_base: bool) -> dict[str, Any]:
    from cardlab.analysis.summary import summarize

    s = summarize(vr.result)
    row: dict[str, Any] = {"variant": vr.variant.label}
    for k in keys:
        row[k] = vr.variant.values[k]
    row.update(players=s["players"], strategies=",".join(s["strategies"]), games=s["games"])
    for i in range(maxp):
        has = i < s["players"]
        row[f"win_rate_seat{i}"] = s["win_rate_by_seat"][i] if has else np.nan
        row[f"win_rate_seat{i}_lo"] = s["win_rate_ci_by_seat"][i][0] if has else np.nan
        row[f"win_rate_seat{i}_hi"] = s["win_rate_ci_by_seat"][i][1] if has else np.nan
    row["balance"] = s.get("balance", np.nan)
    fpa = s.get("first_player_advantage")
    row["first_player_advantage"] = fpa if fpa is not None else np.nan
    ci = s.get("first_player_advantage_ci") or [np.nan, np.nan]
    row["first_player_advantage_lo"], row["first_player_advantage_hi"] = ci
    L = vr.length[vr.unfinished == 0].astype(float)  # finished games only
    n = len(L)
    sd = float(L.std(ddof=1)) if n > 1 else 0.0
    row["finished_games"] = n
    row["mean_length"] = float(L.mean()) if n else np.nan
    row["mean_length_lo"] = row["mean_length"] - 1.959963984540054 * sd / math.sqrt(n)
    row["mean_length_hi"] = row["mean_length"] + 1.959963984540054 * sd / math.sqrt(n)
    for k in ("median", "p10", "p90"):
        row[f"{k}_length"] = s["length"][k]
    row["unfinished_rate"] = s["unfinished_rate"]
    row["unfinished_rate_lo"], row["unfinished_rate_hi"] = s["unfinished_rate_ci"] if "unfinished_rate_ci" in s \
        else (np.nan, np.nan)
    row["no_winner_rate"] = s["no_winner_rate"]
    for m in SHAPE_METRICS:  # the shape over the variant's own games (analysis/shape.py)
        v, ci = s["shape"][m], s["shape"][f"{m}_ci"]
        row[m] = np.nan if v is None else v
        row[f"{m}_lo"], row[f"{m}_hi"] = (np.nan if x is None else x for x in ci)
    row["baseline"] = is_base
    row["reused"] = vr.reused
    row["_card_power"] = {c["card"]: c["iwd"] for c in s["card_power"] if c["iwd"] is not None}
    return row


def _shifts(cp: dict, base: dict, top: int = 3) -> str:
    common = [(c, cp[c] - base[c]) for c in cp if c in base]
    common.sort(key=lambda x: -abs(x[1]))
    return "; ".join(f"{c} {100 * d:+.1f} pts" for c, d in common[:top])


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def verdict_line(label: str, cmp: pd.DataFrame, base_row: dict, row: dict, unit: str) -> str:
    """One sentence per variant: what changes (significant after correction) and what not."""
    parts = []
    by = {r["metric"]: r for _, r in cmp.iterrows()}
    m = by.get("mean_length")
    if m is not None and base_row["mean_length"] > 0:
        rel, half = m["diff"] / base_row["mean_length"], (m["hi"] - m["lo"]) / 2 / base_row["mean_length"]
        if m["significant"]:
            nd = 1 if 100 * half < 1 else 0
            parts.append(f"{'cuts' if rel < 0 else 'raises'} the finished games' mean length by {abs(100 * rel):.{nd}f}% ± "
                         f"{100 * half:.{nd}f}% ({base_row['mean_length']:.1f} -> {row['mean_length']:.1f} {unit})")
        else:
            parts.append(f"leaves the finished games' mean length unchanged within ±{100 * half:.1f}%")
    f = by.get("first_player_advantage")
    if f is not None:
        a, b = base_row["first_player_advantage"], row["first_player_advantage"]
        if f["significant"]:
            parts.append(f"{'raises' if f['diff'] > 0 else 'lowers'} the first-player advantage from "
                         f"{_pct(a)} to {_pct(b)} ({100 * f['diff']:+.1f} points, 95% interval "
                         f"{100 * f['lo']:+.1f} to {100 * f['hi']:+.1f})")
        else:
            parts.append(f"leaves the first-player advantage at about {_pct(b)} (no significant change)")
    for key in ("unfinished_rate", "no_winner_rate"):
        u = by.get(key)
        if key == "no_winner_rate" and base_row[key] == base_row["unfinished_rate"] \
                and row[key] == row["unfinished_rate"]:
            continue  # the same games: said once
        if u is not None and u["significant"]:
            parts.append(f"moves the {METRIC_LABEL[key]} from {_pct(base_row[key])} to {_pct(row[key])}")
    for key in SHAPE_METRICS:
        u = by.get(key)
        if u is not None and u["significant"]:
            show = (lambda x: f"{x:.2f}") if key == "lead_changes" else _pct
            parts.append(f"moves the {METRIC_LABEL[key]} from {show(base_row[key])} to {show(row[key])}")
    if not parts:
        return f"{label}: no measurable difference from the baseline"
    return f"{label} " + ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1] + "."


def sweep(game_id: str, vary: Sequence[tuple[str, list[str]]] | Sequence[str], *, games: int,
          seed: int = 1, out: str | os.PathLike | None = None, sets: Sequence[str] | None = None,
          strategies: str | None = None, players: int | None = None, jobs: int | None = None,
          baseline: Sequence[str] | None = None, precision: float | None = None,
          max_games: int | None = None, correction: str = "holm", alpha: float = 0.05,
          progress: Callable[[int], None] | None = None,
          on_variant: Callable[[VariantResult], None] | None = None) -> SweepResult:
    """Play (or reuse) every variant of the grid and compare each with the baseline."""
    from cardlab.sim import runner

    if vary and isinstance(vary[0], str):
        vary = parse_vary(vary)  # type: ignore[arg-type]
    runner.check_counts(games, seed, jobs)
    if precision is not None and not (0 < precision < 0.5):
        raise InputError(f"bad --precision {precision}: allowed a half-width between 0 and 0.5, e.g. 0.005")
    if max_games is not None and not (games <= max_games <= runner.MAX_GAMES):
        raise InputError(f"bad --max-games {max_games}: allowed --games ({games}) to {runner.MAX_GAMES:,}")
    if correction not in ("holm", "bh"):
        raise InputError(f"bad --correction {correction!r}: allowed holm or bh")
    grid = make_grid(game_id, vary, sets, strategies, players, seed)  # type: ignore[arg-type]
    base = pick_baseline(grid, baseline)
    keys = [k for k, _ in vary]
    folder = None
    if out is not None:
        folder = Path(out) / "variants"
        check_out(Path(out))
    done: list[VariantResult] = []
    for v in grid:
        ident = variant_identity(v, games, precision, max_games)
        vdir = folder / variant_key(ident) if folder is not None else None
        if vdir is not None and vdir.exists():
            vr = _load(vdir, v, ident)
            if progress is not None:
                progress(games)
        else:
            vr = play_variant(v, games, jobs, precision, max_games, progress)
            if vdir is not None:
                _save(vdir, vr, ident)
        if on_variant is not None:
            on_variant(vr)
        done.append(vr)
    return _compare(done, grid.index(base), keys, correction, alpha, Path(out) if out is not None else None)


def check_out(out: Path, what: str = "sweep", saved: str = "variants", marker: str = "sweep.json") -> None:
    """A ``what`` folder is new, empty, or an earlier run's (its ``saved`` folder or its
    ``marker`` file there): never someone else's folder.  Makes ``saved``."""
    if out.exists() and not out.is_dir():
        raise InputError(f"bad --out {str(out)!r}: it is a file, not a {what} folder")
    if out.is_dir() and any(out.iterdir()) and not ((out / saved).is_dir() or (out / marker).exists()):
        raise InputError(f"--out {str(out)!r} is not empty and holds no {what}: choose a new or empty folder "
                         f"(nothing was changed)")
    try:
        (out / saved).mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InputError(f"cannot write the {what} folder {str(out)!r}: {e.strerror}") from None


def _compare(done: list[VariantResult], b: int, keys: list[str], correction: str, alpha: float,
             out: Path | None) -> SweepResult:
    maxp = max(vr.variant.setup.players for vr in done)
    rows = [_row(vr, keys, maxp, i == b) for i, vr in enumerate(done)]
    base_cp = rows[b]["_card_power"]
    for r in rows:
        r["card_power_shifts"] = "" if r["baseline"] else _shifts(r.pop("_card_power"), base_cp)
    rows[b].pop("_card_power", None)
    results = pd.DataFrame(rows)
    results.attrs["game"] = done[0].variant.setup.game.id
    cmp_rows = []
    for i, vr in enumerate(done):
        if i == b:
            continue
        n = min(vr.result.games, done[b].result.games)
        a, c = per_game(vr, n), per_game(done[b], n)
        for m in METRICS:
            both = ~(np.isnan(a[m]) | np.isnan(c[m]))  # mean_length: finished in both variants
            if not both.any():
                continue
            d = paired_difference(a[m][both], c[m][both])
            cmp_rows.append({"variant": vr.variant.label, "metric": m, "paired_games": int(both.sum()),
                             "baseline_value": float(c[m][both].mean()),
                             "variant_value": float(a[m][both].mean()), **d})
    comparison = pd.DataFrame(cmp_rows, columns=["variant", "metric", "paired_games", "baseline_value",
                                                 "variant_value", "diff", "lo", "hi", "se", "p"])
    if len(comparison):
        adj = holm_adjust if correction == "holm" else bh_adjust
        comparison["p_adjusted"] = adj(comparison["p"].to_numpy())
        comparison["significant"] = comparison["p_adjusted"] < alpha
    else:
        comparison["p_adjusted"] = []
        comparison["significant"] = []
    comparison["correction"] = correction
    unit = done[0].variant.setup.game.length_unit
    verdicts = []
    for i, vr in enumerate(done):
        if i == b:
            continue
        sub = comparison[comparison["variant"] == vr.variant.label]
        verdicts.append(verdict_line(vr.variant.label, sub, rows[b], rows[i], unit))
    res = SweepResult(results, comparison, verdicts, keys, done[b].variant.label, out,
                      reused=sum(vr.reused for vr in done))
    if out is not None:
        res.files = write_tables(res, out)
    return res


# ---------------------------------------------------------------------------- files
def write_tables(res: SweepResult, out: Path) -> dict[str, Path]:
    out.mkdir(parents=True, exist_ok=True)
    files = {}
    for name, df in (("results", res.results), ("comparison", res.comparison)):
        df.to_csv(out / f"{name}.csv", index=False)
        files[f"{name}.csv"] = out / f"{name}.csv"
        try:
            df.to_parquet(out / f"{name}.parquet", index=False)
            files[f"{name}.parquet"] = out / f"{name}.parquet"
        except ImportError:  # pyarrow missing: the CSV holds the same table
            pass
    (out / "verdicts.txt").write_text("\n".join(res.verdicts) + "\n")
    files["verdicts.txt"] = out / "verdicts.txt"
    meta = {"keys": res.keys, "baseline": res.baseline, "written": time.strftime("%Y-%m-%d %H:%M:%S")}
    (out / "sweep.json").write_text(json.dumps(meta, indent=1) + "\n")
    files["sweep.json"] = out / "sweep.json"
    return files


def load(out: str | os.PathLike) -> SweepResult:
    """A sweep's tables back as DataFrames (Parquet when present, else CSV)."""
    out = Path(out)
    try:
        meta = json.loads((out / "sweep.json").read_text())

        def table(name):
            p = out / f"{name}.parquet"
            return pd.read_parquet(p) if p.exists() else pd.read_csv(out / f"{name}.csv")

        results, comparison = table("results"), table("comparison")
        verdicts = [x for x in (out / "verdicts.txt").read_text().splitlines() if x]
    except (OSError, ValueError, KeyError) as e:
        raise InputError(f"cannot read a sweep from {str(out)!r}: {e}") from None
    return SweepResult(results, comparison, verdicts, list(meta["keys"]), meta["baseline"], out)
