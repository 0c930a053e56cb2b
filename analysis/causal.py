"""Causal card power: the value of starting with a card, measured by playing every game twice.

IWD (``analysis/summary.py``) compares the games in which a seat held a card with those in
which it did not: an association, and a biased one wherever strong seats see more cards.
Here, for each card type and each game index, the game is set up twice from the same seed
(common random numbers) and the given seat's starting cards are changed right after the
deal (``sim/give.py``): **IN**, they hold at least one copy (one swapped in for a random
card of the seat's when the deal gave none); **OUT**, they hold none (every copy swapped out
for a random card of another type from elsewhere).  Both games are played to the end with
the same strategies and the same later chance, and the seat's win share in IN minus that in
OUT is one paired difference.  The seat given rotates with the game index (game i gives
seat i mod players).  Its mean, with a paired Student-t interval (``stats.diff_paired``),
is **the value of starting with the card**; Benjamini-Hochberg
(``scipy.stats.false_discovery_control``) adjusts the cards' p-values for how many cards
are tested.  Where each game gives a card is declared by its schema (``Schema.give``).

The compiled runs (``run_causal`` of a game's binding) tally integers only, in fixed chunks
of game indices, so a result depends on the seed and the game count, never on ``jobs``.
"""
from __future__ import annotations

import time
from typing import Any, Callable

import numpy as np

from cardlab.analysis.stats import diff_paired, finite_or_none as _num
from cardlab.sim.errors import InputError
from cardlab.sim.tally import WIN_UNIT

CHUNK = 500          # game indices per chunk (each plays 2 games per card type)
SIGNIFICANCE = 0.05  # a card is "significant" when its BH-adjusted p-value is below this
DEFAULT_GAMES = 2000  # game indices per card type (cardlab cardpower's default)


def _types(game, rules: dict, cards: list[str] | None) -> list[tuple[int, str]]:
    types = game.card_types(rules)
    if not cards:
        return types
    by_code = {code: (t, code) for t, code in types}
    bad = [c for c in cards if c not in by_code]
    if bad:
        raise InputError(f"bad --cards {','.join(bad)} for game '{game.id}': allowed "
                         f"{', '.join(by_code)}")
    return [by_code[c] for c in cards]


def _chunk(kernel, arrays, seed, lo, hi, types, maxp):
    rv, sids, params = arrays
    out = np.zeros((len(types), maxp, 7), dtype=np.int64)
    kernel(rv, sids, params, seed, lo, hi, types, out)
    return lo, hi, out


def run_causal(game_id: str, players: int | None = None, strategies: str | list[str] | None = None,
               games: int = DEFAULT_GAMES, seed: int = 1, jobs: int | None = None,
               sets: list[str] | None = None, cards: list[str] | None = None,
               progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Causal card power of every card type of ``game_id`` (or of ``cards``, by code):
    ``games`` game indices per card type, each played in both arms.  Returns the JSON
    object ``cardlab cardpower --json`` prints (docs/commands/cardpower.md).
    ``progress(n)`` is called with the game indices of every finished chunk."""
    from cardlab.sim import runner
    from cardlab.sim.give import (T_AS_DEALT, T_PAIRS, T_SKIPPED, T_SUM_D, T_SUM_D2, T_WIN_IN,
                                  T_WIN_OUT)

    setup = runner.make_setup(game_id, players, sets, strategies, seed)
    runner.check_counts(games, seed, jobs)
    if setup.searches:
        raise InputError("cardpower plays the fast path's heuristics: the search player mcts "
                         "cannot be a seat's strategy here")
    game = setup.game
    if not game.schema.give_start or not hasattr(game.binding(), "run_causal"):
        raise InputError(f"game '{game.id}' does not say where a card can be given: its schema "
                         "needs S.give(...) and its binding run_causal (docs/adding_a_game.md)")
    sel = _types(game, setup.rules, cards)
    types = np.array([t for t, _ in sel], dtype=np.int64)
    kernel = game.binding().run_causal
    arrays = setup.arrays()
    maxp = game.max_players
    _chunk(kernel, arrays, seed, 0, 0, types, maxp)  # compile or load before the workers start
    bounds = [(a, min(a + CHUNK, games)) for a in range(0, games, CHUNK)]
    jobs = jobs or runner.default_jobs()
    t0 = time.perf_counter()
    if jobs == 1 or len(bounds) <= 1:
        results = (_chunk(kernel, arrays, seed, lo, hi, types, maxp) for lo, hi in bounds)
    else:
        from joblib import Parallel, delayed

        results = Parallel(n_jobs=jobs, backend="threading", return_as="generator_unordered")(
            delayed(_chunk)(kernel, arrays, seed, lo, hi, types, maxp) for lo, hi in bounds)
    total = np.zeros((len(types), maxp, 7), dtype=np.int64)
    for lo, hi, out in results:  # integer tallies: the sum is the same in any order
        total += out
        if progress is not None:
            progress(hi - lo)
    elapsed = time.perf_counter() - t0
    P = setup.players
    U = float(WIN_UNIT)

    def figures(x: np.ndarray) -> dict[str, Any]:
        n = int(x[T_PAIRS])
        mean, lo, hi, p = diff_paired(x[T_SUM_D] / U, x[T_SUM_D2] / (U * U), n)
        return {"pairs": n, "skipped": int(x[T_SKIPPED]),
                "as_dealt_rate": x[T_AS_DEALT] / n if n else None,
                "win_in": x[T_WIN_IN] / U / n if n else None,
                "win_out": x[T_WIN_OUT] / U / n if n else None,
                "value": _num(mean), "value_ci": [_num(lo), _num(hi)], "p_value": _num(p)}

    rows = []
    for i, (t, code) in enumerate(sel):
        row = {"card": code, "type": int(t), **figures(total[i].sum(axis=0))}
        row["per_seat"] = [{"seat": s, **figures(total[i, s])} for s in range(P)]
        rows.append(row)
    _adjust(rows)
    played = 2 * int(total[:, :, T_PAIRS].sum())
    return {
        "game": game.id, "players": P, "seed": seed, "games": games,
        "rules": game.rules_json(setup.rules), "strategies": [s.label for s in setup.seats],
        "given": game.schema.give_note, "seat_rotation": "game index mod players",
        "significance": SIGNIFICANCE, "cards": rows,
        "games_played": played, "elapsed_s": elapsed,
        "games_per_second": played / elapsed if elapsed > 0 else None,
    }


def _adjust(rows: list[dict]) -> None:
    """Benjamini-Hochberg across the cards: ``q_value`` per card, ``significant`` when it
    is below SIGNIFICANCE (cards without a p-value, too few pairs, get None)."""
    from scipy.stats import false_discovery_control

    have = [r for r in rows if r["p_value"] is not None]
    q = false_discovery_control([r["p_value"] for r in have]) if have else []
    for r in rows:
        r["q_value"], r["significant"] = None, None
    for r, qv in zip(have, q):
        r["q_value"] = float(qv)
        r["significant"] = bool(qv < SIGNIFICANCE)


def by_card(causal: dict | None) -> dict[str, dict]:
    """The causal rows by card code (for showing them beside IWD)."""
    return {r["card"]: r for r in (causal or {}).get("cards", [])}


def render_text(c: dict) -> str:
    """The readable table of ``cardlab cardpower``."""
    pts = lambda x: "   n/a" if x is None else f"{100 * x:+6.1f}"  # noqa: E731
    lines = [f"{c['game']}: causal card power, {c['games']:,} games per card type, "
             f"{c['players']} player(s), seed {c['seed']}, strategies {', '.join(c['strategies'])}",
             f"Given: {c['given']}; the seat given rotates (game i: seat i mod players).",
             "Value = win rate when starting with the card minus without it, same seeds "
             "(points, 95% interval); q = Benjamini-Hochberg adjusted p.", ""]
    w = max([len(r["card"]) for r in c["cards"]] + [4])
    lines.append(f"  {'card':<{w}}  value   [95% interval]    win IN  win OUT  dealt   q       ")
    for r in sorted(c["cards"], key=lambda r: -(r["value"] if r["value"] is not None else -9)):
        lo, hi = r["value_ci"]
        mark = "*" if r["significant"] else " "
        q = "  n/a" if r["q_value"] is None else f"{r['q_value']:.3f}"
        lines.append(f"{mark} {r['card']:<{w}} {pts(r['value'])}  [{pts(lo)}, {pts(hi)}]  "
                     f"{_pct(r['win_in'])}  {_pct(r['win_out'])}  {_pct(r['as_dealt_rate'])}  {q}"
                     + (f"  ({r['skipped']} skipped)" if r["skipped"] else ""))
    lines.append("")
    lines.append(f"* significant after Benjamini-Hochberg at {c['significance']}; 'dealt': share "
                 "of IN games whose deal already held the card")
    lines.append(f"{c['games_played']:,} games in {c['elapsed_s']:.1f} s")
    return "\n".join(lines)


def _pct(x: float | None) -> str:
    return "  n/a " if x is None else f"{100 * x:5.1f}%"
