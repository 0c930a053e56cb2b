"""Restricted play (Jaffe et al., "Evaluating competitive game balance with restricted
play", 2012): what never doing X costs a strong player.

For each restriction X (a card type or a named action kind of the game, see the game's
``moves.restrict_bits``), the search player restricted by ``never=X`` takes one seat and
the same search player, unrestricted, takes every other seat; the restricted seat goes
round every seat in turn.  The baseline is the unrestricted player in every seat on the
same seeds (common random numbers: the same deals and draws), so each game is played
twice, once with seat s restricted and once not, and the **cost** of never doing X is
the paired difference of seat s's win share, baseline minus restricted, with its 95%
interval (a t interval on the per-game differences) and a Benjamini-Hochberg adjusted
p-value across the restrictions tested.  A large cost says X matters to strong play; a
cost whose interval lies within +-2 points says a strong player does as well without it (a
card that is never worth playing, or a move that is always avoidable); an interval that
holds 0 but reaches further cannot tell yet, and the verdict says how many games would.
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from cardlab.analysis.stats import paired_diff
from cardlab.sim.errors import InputError

DEFAULT_ITERATIONS = 32
DEFAULT_GAMES = 100


def restriction_choices(game, rules: dict[str, Any]) -> list[str]:
    """Every restriction worth testing under these rules: the card types of the deck and
    the game's action kinds (``mcts:never`` names them)."""
    return [n for n, _ in game.restriction_names(rules)]


def parse_never(text: str | list[str] | None, game, rules) -> list[str]:
    """``"J,DOG+BONE"`` -> ["J", "DOG+BONE"] (each item one restriction: names joined by +),
    every name checked; None or "all": every card type and action kind."""
    choices = restriction_choices(game, rules)
    if text is None or text == "all" or text == []:
        return choices
    items = text if isinstance(text, list) else [t.strip() for t in str(text).split(",")]
    allowed = {n for n, _ in game.restriction_names()}
    for item in items:
        bad = [x for x in item.split("+") if x not in allowed]
        if not item or bad:
            raise InputError(f"bad --never {item!r} for game '{game.id}': expected card types or action "
                             f"kinds joined by +, from {', '.join(choices)}")
    return items


@dataclass
class Restricted:
    game: str
    players: int
    player: str                  # the unrestricted search player
    games: int                   # games per seat and restriction
    seed: int
    rows: list[dict]             # per restriction: cost, ci, p, p_adjusted, per seat
    verdict: str
    elapsed_s: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"game": self.game, "players": self.players, "player": self.player, "games": self.games,
                "seed": self.seed, "restrictions": self.rows, "search_too_weak": too_weak(self.rows),
                "verdict": self.verdict,
                "elapsed_s": round(self.elapsed_s, 3)}


def total_games(restrictions: int, players: int, games: int) -> int:
    """Games ``run_restricted`` plays (for a progress bar): the baseline, then every
    restriction in every seat."""
    return games + restrictions * players * games


def _r(x, nd=6):
    return None if x is None or not math.isfinite(float(x)) else round(float(x), nd)


def _shares(rows: np.ndarray, seat: int) -> np.ndarray:
    """Each game's win share of ``seat`` from the runner's per-game rows (winner mask in
    column 2: 1/k for each of k winners)."""
    mask = rows[:, 2].astype(np.int64)
    k = np.bitwise_count(mask).astype(np.float64) if hasattr(np, "bitwise_count") else \
        np.array([bin(int(m)).count("1") for m in mask], dtype=np.float64)
    won = (mask >> seat) & 1
    return np.where(k > 0, won / np.maximum(k, 1), 0.0)


def run_restricted(game_id: str, never: str | list[str] | None = None, players: int | None = None,
                   games: int = DEFAULT_GAMES, iterations: int = DEFAULT_ITERATIONS, seed: int = 1,
                   jobs: int | None = None, sets: list[str] | None = None,
                   progress: Callable[[int], None] | None = None, backend: str = "local",
                   scheduler: str | None = None) -> Restricted:
    """Restricted play (module doc); ``backend="dask"``: every run on one Dask client
    (``scheduler``, or a LocalCluster of ``jobs`` workers), the same table as local threads."""
    from scipy.stats import false_discovery_control

    from cardlab.sim import runner
    from cardlab.sim.dask_backend import backend_session

    runner.check_counts(games, seed, jobs)
    if not (1 <= iterations <= 20000):
        raise InputError(f"bad --iterations {iterations}: allowed 1 to 20000")
    base = f"mcts:iterations={iterations}"
    setup = runner.make_setup(game_id, players, sets, base, seed)
    game, P = setup.game, setup.players
    items = parse_never(never, game, setup.rules)
    for item in items:  # every restriction checked before anything is played
        runner.make_setup(game_id, P, sets, f"{base}:never={item}", seed)
    t0 = time.perf_counter()
    where = dict(backend=backend, scheduler=scheduler)
    with backend_session(backend, scheduler, jobs):
        # the baseline: the unrestricted player in every seat, the per-game rows kept
        baseline = runner.run(setup, games, jobs, keep_rows=True, progress=progress, **where).rows
        base_share = [_shares(baseline, s) for s in range(P)]
        out = []
        for item in items:
            diffs, seats = [], []
            for s in range(P):
                order = [f"{base}:never={item}" if i == s else base for i in range(P)]
                rows = runner.run(runner.make_setup(game_id, P, sets, ",".join(order), seed), games, jobs,
                                  keep_rows=True, progress=progress, **where).rows
                sh = _shares(rows, s)
                d, lo, hi, _ = paired_diff(base_share[s], sh)
                seats.append({"seat": s, "cost": _r(d), "ci": [_r(lo), _r(hi)],
                              "restricted_win_rate": _r(sh.mean()), "baseline_win_rate": _r(base_share[s].mean())})
                diffs.append((base_share[s], sh))
            d, lo, hi, p = paired_diff(np.concatenate([a for a, _ in diffs]), np.concatenate([b for _, b in diffs]))
            out.append({"never": item, "cost": _r(d), "ci": [_r(lo), _r(hi)], "p": _r(p), "games": P * games,
                        "restricted_win_rate": _r(float(np.mean(np.concatenate([b for _, b in diffs])))),
                        "by_seat": seats})
    ps = np.array([r["p"] if r["p"] is not None else 1.0 for r in out], dtype=np.float64)
    adj = false_discovery_control(ps) if len(ps) else ps
    for r, a in zip(out, adj):
        r["p_adjusted"] = _r(a)
        r["matters"] = bool(a < 0.05 and r["cost"] > 0)
        r["helps"] = bool(a < 0.05 and r["cost"] < 0)
    out.sort(key=lambda r: -(r["cost"] or 0))
    verdict = _verdict(game.id, base, out, 1.0 / P, games)
    return Restricted(game.id, P, base, games, seed, out, verdict, time.perf_counter() - t0)


def too_weak(rows) -> bool:
    """Several restrictions (3, and a quarter of those tested) clearly *raise* the restricted
    player's win rate: the unrestricted search is too weak at its budget for its costs to
    say anything about the game."""
    helps = sum(1 for r in rows if r["helps"])
    return helps >= 3 and 4 * helps >= len(rows)


NEGLIGIBLE = 0.02  # a cost whose interval lies within +-2 points is "nothing" (the ladder's headroom margin)


def _verdict(game_id, base, rows, fair, games: int | None = None) -> str:
    """The restricted-play verdict; ``games`` per seat and restriction size the "cannot
    tell yet" of a restriction whose interval holds 0 but reaches past +-NEGLIGIBLE."""
    if not rows:
        return "No restriction was tested."
    matters = [r for r in rows if r["matters"]]
    helps = [r for r in rows if r["helps"]]
    free = [r for r in rows if not r["matters"] and not r["helps"]]
    parts = []
    if matters:
        parts.append("Strong play (" + base + ") needs " + ", ".join(
            f"{r['never']} (never doing it costs {100 * r['cost']:.1f} points [{100 * r['ci'][0]:.1f}, "
            f"{100 * r['ci'][1]:.1f}])" for r in matters[:5]) + (" and more" if len(matters) > 5 else "") + ".")
    else:
        parts.append(f"No restriction costs {base} a clear share of its wins at this sample size.")
    if too_weak(rows):
        parts.insert(0, f"Warning: {len(helps)} of {len(rows)} restrictions make {base} win more, so at this "
                        "budget the search plays better when its choices are cut: these costs measure the "
                        "search, not the game. Raise --iterations before reading them.")
    elif helps:
        parts.append("Avoiding " + ", ".join(r["never"] for r in helps)
                     + " even helps: the unrestricted search does it when it should not (a search artefact "
                     "or a trap in the rules).")
    def names(rs):
        return ", ".join(r["never"] for r in rs[:8]) + (", ..." if len(rs) > 8 else "")

    # nothing only where the interval shows it; else say how many games would tell
    none = [r for r in free if -NEGLIGIBLE <= r["ci"][0] and r["ci"][1] <= NEGLIGIBLE]
    wide = [r for r in free if r not in none]
    pts = round(100 * NEGLIGIBLE)
    if none:
        parts.append(f"{len(none)} of {len(rows)} restrictions cost at most {pts} points either way "
                     f"({names(none)}): a strong player does as well without them.")
    if wide:
        reach = max(max(-r["ci"][0], r["ci"][1]) for r in wide)
        half = max((r["ci"][1] - r["ci"][0]) / 2 for r in wide)
        more = (f" (about {games_to_tell(games, half):,} games per seat and restriction would tell "
                f"+-{pts} points)" if games else "")
        parts.append(f"{len(wide)} of {len(rows)} restrictions show no clear cost ({names(wide)}), but their "
                     f"intervals reach {100 * reach:.0f} points: cannot tell yet whether a strong player "
                     f"needs them{more}.")
    return " ".join(parts)


def games_to_tell(games: int, half: float) -> int:
    """Games per seat and restriction that would narrow an interval of half-width ``half``
    (measured on ``games``) to +-NEGLIGIBLE: the width shrinks as one over the root of the
    games."""
    return math.ceil(games * (half / NEGLIGIBLE) ** 2)


def render_text(res: Restricted) -> str:
    lines = [f"{res.game}: restricted play, {res.players} players, {res.player} in every seat, one seat "
             f"restricted in turn ({res.games} games per seat and restriction, seed {res.seed})", "",
             f"{'never':<16} {'cost':>8} {'95% CI':>17} {'p (BH)':>8}  restricted win rate"]
    for r in res.rows:
        flag = " *" if r["matters"] else " -" if r["helps"] else ""
        lines.append(f"{r['never']:<16} {100 * r['cost']:+7.1f}  [{100 * r['ci'][0]:+6.1f}, {100 * r['ci'][1]:+6.1f}]"
                     f" {r['p_adjusted']:8.3f}  {100 * r['restricted_win_rate']:5.1f}%{flag}")
    lines += ["", "cost: the restricted seat's win rate lost, in points (* clearly positive, - clearly negative, "
              "after Benjamini-Hochberg)", "", res.verdict, f"({res.elapsed_s:.1f} s)"]
    return "\n".join(lines)
