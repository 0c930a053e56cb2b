"""The skill ladder: how much skill a game rewards.

Rungs, weakest first by intent: ``random``, every heuristic of the game, any players
asked for beside them (``also``: the ``learned`` player, a search whose play-outs the model
scores, ``mcts:iterations=128:value=1``), then the search player at rising budgets
(``mcts:iterations=16,64,256,1024`` by default).  Each rung

- plays against a fixed **field** (``reference`` in every other seat by default), taking
  every seat in turn for ``games`` games each, on the same seed for every rung and seat
  (common random numbers: every rung meets the same deals): its win rate against the
  field, with a 95% Wilson interval, is the **skill curve**;
- plays itself in every seat (``self_games`` games): seat 0's edge over the fair share
  under that much skill.

All rungs also meet each other in a tournament (``analysis/tournament.py``, every pairing
in every seat order) for Bradley-Terry ratings: ``versus_games`` games per **pairing**,
shared evenly by its seat orders (2 with two players, 2P with P > 2).  The ratings are a
summary beside the curve, and a tournament of 500 games per seat order (the sizing until
2026-12-02) put 36 of every 48 searching seat-games of a nine-rung three-player ladder's
top rung, and 64 of 80 in a four-player one, into them.

From these: the **skill headroom** (the best rung's win rate against the field minus the
reference's own), whether the curve **still rises** at the top budget (the top budget's
win rate minus the one below it, with its interval), the **luck share** (how often the
weakest rung beats the strongest head to head, against the 1/P a coin would give), and
whether the first-player edge grows or vanishes with skill.
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cardlab.analysis.stats import diff_independent, games_for, wilson
from cardlab.sim.errors import InputError

DEFAULT_BUDGETS = (16, 64, 256, 1024)

# The equivalence margin of the verdict's claims of absence: "levelled off", "no headroom"
# and "no first-player edge" are said only when the whole 95% interval lies within
# +-MARGIN (points of win rate); an interval that straddles a margin says "cannot tell"
# and about how many games would decide (docs/statistics.md).
MARGIN = 0.02
# The luck bands, on the weakest rung's head-to-head share against the strongest as a
# fraction of a coin's (1/P): "luck decides much" when the whole interval is above LUCKY,
# "skill decides most games" when it is below SKILLED, "skill matters but luck stays" when
# it lies between them; otherwise "cannot tell".
LUCKY, SKILLED = 0.5, 0.2


def seat_orders(players: int) -> int:
    """The seat orders a tournament plays each pairing in (``tournament.plan``)."""
    return 2 if players == 2 else 2 * players


def per_order(versus_games: int, players: int) -> int:
    """Games per seat order when a pairing gets ``versus_games`` games in all (rounded up,
    at least 1)."""
    return max(1, -(-versus_games // seat_orders(players)))


def total_work(game_id: str, budgets: list[int], field_spec: str, players: int, games: int, self_games: int,
               versus_games: int, sets: list[str] | None = None, also: list[str] | None = None) -> int:
    """What a ladder plays, in games weighted by ``Setup.work`` (its progress bar): a game
    with a seat of mcts@1024 weighs tens of thousands of heuristic games."""
    from cardlab.analysis.tournament import progress_total
    from cardlab.sim import runner
    from cardlab.sim.registry import get_game

    rungs = rungs_for(get_game(game_id), budgets, also)

    def work(order: list[str]) -> int:
        return runner.make_setup(game_id, players, sets, ",".join(order)).work

    total = 0
    for spec in rungs:
        total += games * sum(work([spec if i == s else field_spec for i in range(players)]) for s in range(players))
        total += self_games * work([spec] * players)
    return total + progress_total(game_id, rungs, players, per_order(versus_games, players), sets)[0]


def parse_budgets(text: str | list[int]) -> list[int]:
    """``"16,64,256"`` -> [16, 64, 256]: rising positive integers."""
    items = text if isinstance(text, list) else [t.strip() for t in str(text).split(",") if t.strip()]
    try:
        out = [int(x) for x in items]
    except ValueError:
        raise InputError(f"bad --budgets {text!r}: expected rising whole numbers, e.g. 16,64,256") from None
    if not out or any(b < 1 or b > 20000 for b in out) or out != sorted(set(out)):
        raise InputError(f"bad --budgets {text!r}: expected rising whole numbers from 1 to 20000, e.g. 16,64,256")
    return out


def rungs_for(game, budgets: list[int], also: list[str] | None = None) -> list[str]:
    """random, the heuristics (reference among them), the players ``also`` asks for, then
    mcts at each budget."""
    heur = [n for n in game.strategies if n != "random"]
    return ["random"] + heur + list(also or []) + [f"mcts:iterations={b}" for b in budgets]


# the rungs `cardlab ladder` adds by default when the game has a learned model for the table
LEARNED_RUNGS = ("learned", "mcts:iterations=128:value=1")


def default_also(game_id: str, players: int) -> tuple[list[str], str | None]:
    """The rungs ``cardlab ladder`` adds when ``--also`` is not given: the learned player and
    the search its model scores (``LEARNED_RUNGS``) when a model for the game and table is
    found (``sim/models.find``: yours, then the shipped one) and fits this code; none
    otherwise, and the reason when a model was found that does not fit."""
    from cardlab.sim import models
    from cardlab.sim.registry import get_game

    path = models.find(game_id, players)
    if path is None:
        return [], None
    try:
        models.load(path, get_game(game_id), players)
    except InputError as e:
        return [], f"the learned rungs are left out: {e}"
    return list(LEARNED_RUNGS), None


def parse_also(text: str | list[str] | None) -> list[str]:
    """``"learned,mcts:iterations=128:value=1"`` -> the extra rungs, each one player;
    ``none`` -> no extra rung."""
    if isinstance(text, str) and text.strip().lower() == "none":
        return []
    items = text if isinstance(text, list) else [t.strip() for t in str(text or "").split(",")]
    out = [t.strip() for t in items if t.strip()]
    if len(set(out)) < len(out):
        raise InputError(f"bad --also {text!r}: a rung named twice")
    return out


@dataclass
class Ladder:
    game: str
    players: int
    field: str
    rungs: list[str]
    games: int
    seed: int
    curve: list[dict]             # per rung: win_share, games, win_rate, ci, vs_fair
    self_play: list[dict]         # per rung: seat-0 edge over the fair share, ci
    ratings: list[dict]           # Bradley-Terry, best first
    headroom: dict
    still_rising: dict
    luck: dict
    verdict: str
    elapsed_s: float = 0.0
    self_games: int = 0           # self-play games per rung
    versus_games: int = 0         # tournament games per pairing of rungs (all seat orders)
    versus_per_order: int = 0     # ... per seat order (per_order)
    extra: dict = field(default_factory=dict)
    model: str | None = None      # the fingerprint of the model its learned rungs played (sim/models.digest)

    def to_dict(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in ("game", "players", "field", "rungs", "games", "self_games",
                                              "versus_games", "versus_per_order", "seed", "curve",
                                              "self_play", "ratings", "headroom", "still_rising", "luck",
                                              "verdict")} | {"elapsed_s": round(self.elapsed_s, 3)}
        if self.model:
            out["model"] = self.model
        return out


def _r(x, nd=6):
    """A JSON number (None for NaN or an unbounded interval end)."""
    return None if x is None or not math.isfinite(float(x)) else round(float(x), nd)


def run_ladder(game_id: str, budgets: list[int] | None = None, field_spec: str = "reference",
               players: int | None = None, games: int = 2000, self_games: int | None = None,
               versus_games: int | None = None, seed: int = 1, jobs: int | None = None,
               sets: list[str] | None = None,
               progress: Callable[[int], None] | None = None, also: list[str] | None = None,
               backend: str = "local", scheduler: str | None = None) -> Ladder:
    """The ladder of ``game_id``; ``progress(n)`` is called as chunks end, with n games
    weighted by their run's ``Setup.work`` (``total_work`` is the sum); ``also``: players
    ranked as rungs beside the heuristics (``parse_also``); ``backend="dask"``: every run
    on one Dask client (``scheduler``, or a LocalCluster of ``jobs`` workers), the same
    ladder as local threads."""
    from cardlab.sim.dask_backend import backend_session

    with backend_session(backend, scheduler, jobs):
        return _ladder(game_id, budgets, field_spec, players, games, self_games, versus_games, seed, jobs, sets,
                       progress, also, dict(backend=backend, scheduler=scheduler))


def _ladder(game_id, budgets, field_spec, players, games, self_games, versus_games, seed, jobs, sets, progress,
            also, where) -> Ladder:
    from cardlab.analysis.tournament import run_tournament
    from cardlab.sim import runner
    from cardlab.sim.registry import get_game

    game = get_game(game_id)
    P = game.default_players if players is None else players
    if P < 2:
        raise InputError(f"bad --players {P}: a ladder needs at least 2 players")
    runner.check_counts(games, seed, jobs)
    budgets = list(DEFAULT_BUDGETS) if budgets is None else budgets
    rungs = rungs_for(game, budgets, also)
    if len(set(rungs)) < len(rungs):
        raise InputError(f"bad --also {','.join(also or [])!r}: a rung the ladder has already")
    self_games = games if self_games is None else self_games
    versus_games = max(1, games // 4) if versus_games is None else versus_games
    model = None
    for spec in rungs + [field_spec]:  # validate everything before playing anything
        setup = runner.make_setup(game_id, P, sets, spec, seed)
        if "," in spec:
            raise InputError(f"bad rung {spec!r}: one player, not a list")
        if setup.learns:  # a learned rung: the model it plays is part of the result
            from cardlab.sim.models import digest

            model = digest(setup.models)
    fair = 1.0 / P
    t0 = time.perf_counter()
    curve, selfp = [], []
    for spec in rungs:
        share, n = 0.0, 0
        for s in range(P):
            order = [spec if i == s else field_spec for i in range(P)]
            setup = runner.make_setup(game_id, P, sets, ",".join(order), seed)
            t = runner.run(setup, games, jobs, progress=runner.weigh(progress, setup), **where).tally
            share += float(t.wins[s])
            n += t.games
        lo, hi = wilson(share, n)
        curve.append({"rung": spec, "games": n, "win_share": _r(share), "win_rate": _r(share / n),
                      "ci": [_r(lo), _r(hi)], "above_fair": bool(lo > fair), "below_fair": bool(hi < fair)})
        setup = runner.make_setup(game_id, P, sets, spec, seed)
        t = runner.run(setup, self_games, jobs, progress=runner.weigh(progress, setup), **where).tally
        w0 = float(t.wins[0])
        lo, hi = wilson(w0, t.games)
        selfp.append({"rung": spec, "games": t.games, "seat0_win_rate": _r(w0 / t.games),
                      "seat0_edge": _r(w0 / t.games - fair), "ci": [_r(lo - fair), _r(hi - fair)],
                      "unfinished_rate": _r(t.unfinished / t.games)})
    edge_tests(selfp, fair)
    tour = run_tournament(game_id, rungs, P, per_order(versus_games, P), seed, jobs, sets, progress=progress,
                          weighted=True, **where)
    elapsed = time.perf_counter() - t0
    ratings = [{"rung": row.strategy, "rating": _r(row.rating), "ci": [_r(row.ci_low), _r(row.ci_high)]}
               for row in tour.ratings.itertuples()]
    # the headroom: the best rung against the field, beside the reference's own
    by = {c["rung"]: c for c in curve}
    best = max(curve, key=lambda c: c["win_rate"])
    ref = by.get("reference", curve[0])
    d, lo, hi = diff_independent(best["win_share"], best["games"], ref["win_share"], ref["games"])
    headroom = {"best": best["rung"], "reference": ref["rung"], "points": _r(100 * d),
                "ci": [_r(100 * lo), _r(100 * hi)]}
    top, below = curve[-1], curve[-2]
    d, lo, hi = diff_independent(top["win_share"], top["games"], below["win_share"], below["games"])
    rising = {"top": top["rung"], "below": below["rung"], "points": _r(100 * d),
              "ci": [_r(100 * lo), _r(100 * hi)], "still_rising": bool(lo > 0)}
    weakest = min(ratings, key=lambda r: r["rating"])["rung"]
    strongest = ratings[0]["rung"]
    w = float(tour.matrix.loc[weakest, strongest])
    w_lo, w_hi = float(tour.ci_low.loc[weakest, strongest]), float(tour.ci_high.loc[weakest, strongest])
    luck = {"weakest": weakest, "strongest": strongest, "weakest_wins": _r(w), "coin": _r(fair),
            "luck_share": _r(w / fair), "luck_share_ci": [_r(w_lo / fair), _r(w_hi / fair)],
            "games": int(per_order(versus_games, P) * seat_orders(P))}
    verdict = _verdict(game_id, P, field_spec, curve, selfp, headroom, rising, luck, fair)
    return Ladder(game.id, P, field_spec, rungs, games, seed, curve, selfp, ratings, headroom, rising,
                  luck, verdict, elapsed, self_games, versus_games, per_order(versus_games, P), model=model)


def edge_tests(selfp: list[dict], fair: float, alpha: float = 0.05) -> None:
    """Add to each rung's self-play entry ``p`` (the score test of seat 0's win share
    against the fair share, the test the Wilson interval inverts), ``p_adjusted``
    (Benjamini-Hochberg over the rungs: with eight rungs one interval in 20 misses by
    chance, and a small ladder showed Skyscraper a +12-point edge that 1,000 games did
    not) and ``edge_found`` (``p_adjusted`` below ``alpha``)."""
    from scipy.stats import false_discovery_control, norm

    ps = []
    for e in selfp:
        se = math.sqrt(fair * (1.0 - fair) / e["games"])
        ps.append(float(2.0 * norm.sf(abs(e["seat0_win_rate"] - fair) / se)))
    adj = false_discovery_control(ps) if ps else []
    for e, p, q in zip(selfp, ps, adj):
        e["p"], e["p_adjusted"], e["edge_found"] = _r(p), _r(float(q)), bool(q < alpha)


def _pts(x: float) -> str:
    return f"{100 * x:+.1f}"


def _iv(ci) -> str:
    return f"[{_pts(ci[0])}, {_pts(ci[1])}]"


def _within(lo, hi, margin: float = MARGIN) -> bool:
    return lo is not None and hi is not None and -margin <= lo and hi <= margin


def _decide(half_now: float, n_now: int, target: float = MARGIN / 2) -> int:
    """Games that would shrink an interval of half-width ``half_now`` from ``n_now`` games
    to about ``target`` (the width falls as 1/sqrt(n)): a round figure."""
    if not half_now or half_now != half_now or half_now <= target:
        return n_now
    n = n_now * (half_now / target) ** 2
    step = 10 ** max(2, int(math.log10(n)) - 1)
    return int(math.ceil(n / step) * step)


def _verdict(game_id, P, field_spec, curve, selfp, headroom, rising, luck, fair) -> str:
    """The ladder's verdict: each claim only as wide as its interval.  A difference is
    called one when its interval excludes 0; an absence ("levelled off", "no headroom", "no
    edge") only when the whole interval lies within +-MARGIN; anything else says it cannot
    tell yet, and about how many games per rung would decide."""
    h = headroom
    m = f"{100 * MARGIN:.0f}"
    best = max(c["win_rate"] for c in curve)
    head = (f"Against a field of {field_spec}, the strongest rung ({h['best']}) wins {100 * best:.1f}% "
            f"where the fair share is {100 * fair:.1f}%: ")
    lo, hi = h["ci"][0] / 100, h["ci"][1] / 100
    if lo > 0:
        head += f"a skill headroom of {h['points']:+.1f} points {_iv((lo, hi))} over {h['reference']}."
    elif _within(lo, hi):
        head += (f"no skill headroom beyond +-{m} points over {h['reference']} "
                 f"({h['points']:+.1f} {_iv((lo, hi))}).")
    else:
        n = curve[0]["games"]
        head += (f"cannot tell yet whether it beats {h['reference']} ({h['points']:+.1f} points {_iv((lo, hi))} "
                 f"with {n:,} games per rung; about {_decide((hi - lo) / 2, n):,} would decide).")
    parts = [head]
    lo, hi = rising["ci"][0] / 100, rising["ci"][1] / 100
    if rising["still_rising"]:
        parts.append(f"The curve still rises at the top budget ({rising['top']} beats {rising['below']} by "
                     f"{rising['points']:+.1f} points {_iv((lo, hi))}): there is more skill to find than this "
                     "ladder reaches.")
    elif _within(lo, hi):
        parts.append(f"The curve has levelled off at the top ({rising['top']} against {rising['below']}: "
                     f"{rising['points']:+.1f} points {_iv((lo, hi))}, within +-{m}).")
    else:
        n = curve[-1]["games"]
        parts.append(f"Cannot tell yet whether the curve still rises at the top ({rising['top']} against "
                     f"{rising['below']}: {rising['points']:+.1f} points {_iv((lo, hi))} with {n:,} games per "
                     f"rung; about {_decide((hi - lo) / 2, n):,} would decide).")
    share, (s_lo, s_hi) = luck["luck_share"], luck.get("luck_share_ci") or (None, None)
    said = (f"Head to head the weakest rung ({luck['weakest']}) wins {100 * luck['weakest_wins']:.1f}% of "
            f"games against the strongest ({luck['strongest']}), {share:.2f} of what a coin would give"
            + (f" [{s_lo:.2f}, {s_hi:.2f}]" if s_lo is not None and s_hi is not None else ""))
    if s_lo is not None and s_lo > LUCKY:
        parts.append(said + ": luck decides much of this game.")
    elif s_hi is not None and s_hi < SKILLED:
        parts.append(said + ": skill decides most games.")
    elif s_lo is not None and s_hi is not None and s_lo >= SKILLED and s_hi <= LUCKY:
        parts.append(said + ": skill matters but luck stays.")
    else:
        parts.append(said + f": cannot tell yet how large a part luck plays with {luck.get('games', 0):,} games.")
    lo_edge, hi_edge = selfp[0], selfp[-1]
    parts.append(f"Seat 0's edge in self-play is {100 * lo_edge['seat0_edge']:+.1f} points {_iv(lo_edge['ci'])} "
                 f"for {lo_edge['rung']} and {100 * hi_edge['seat0_edge']:+.1f} {_iv(hi_edge['ci'])} for "
                 f"{hi_edge['rung']}.")
    found = [e for e in selfp if e.get("edge_found")]
    if found:
        parts.append(f"Tested at all {len(selfp)} rungs (Benjamini-Hochberg), seat 0's share differs from the fair "
                     "share with " + ", ".join(f"{e['rung']} ({100 * e['seat0_edge']:+.1f})" for e in found)
                     + (" only." if len(found) < len(selfp) else "."))
    elif all(_within(*e["ci"]) for e in selfp):
        parts.append(f"No rung's seat-0 edge holds (Benjamini-Hochberg over {len(selfp)} rungs), and every "
                     f"rung's interval lies within +-{m} points: no first-player edge beyond {m} points.")
    else:
        widest = max(selfp, key=lambda e: e["ci"][1] - e["ci"][0])
        half = (widest["ci"][1] - widest["ci"][0]) / 2
        parts.append(f"No rung's seat-0 edge is shown with {widest['games']:,} self-play games (Benjamini-Hochberg "
                     f"over {len(selfp)} rungs), but an edge of up to {100 * max(abs(widest['ci'][0]), abs(widest['ci'][1])):.0f} "
                     f"points cannot be ruled out: about {_decide(half, widest['games']):,} games per rung would "
                     f"tell +-{m}.")
    return " ".join(parts)


def render_text(lad: Ladder) -> str:
    fair = 1.0 / lad.players
    lines = [f"{lad.game}: skill ladder, {lad.players} players, field {lad.field} "
             f"({lad.games} games per seat, seed {lad.seed}; fair share {100 * fair:.1f}%)",
             f"(self-play {lad.self_games} games per rung; the rungs' tournament {lad.versus_games} games per "
             f"pairing, {lad.versus_per_order} per seat order)"]
    if lad.model:
        lines.append(f"(learned rungs play the model {lad.model}: cardlab learn, docs/search-and-ladder.md)")
    w = max([24] + [len(r) for r in lad.rungs])  # the rung column fits the longest name
    lines += ["", f"{'rung':<{w}} {'vs field':>9} {'95% CI':>17}   {'seat-0 edge (self-play)':>24}"]
    for c, s in zip(lad.curve, lad.self_play):
        bar = "#" * int(round(40 * c["win_rate"]))
        lines.append(f"{c['rung']:<{w}} {100 * c['win_rate']:8.1f}% [{100 * c['ci'][0]:5.1f}, {100 * c['ci'][1]:5.1f}]"
                     f"   {100 * s['seat0_edge']:+7.1f} [{100 * s['ci'][0]:+5.1f}, {100 * s['ci'][1]:+5.1f}]"
                     f"{'*' if s.get('edge_found') else ' '} {bar}")
    if any(s.get("edge_found") for s in lad.self_play):
        lines.append("* seat 0's edge holds with the rungs tested accounted for (Benjamini-Hochberg, 5%)")
    lines += ["", "Bradley-Terry ratings (all rungs against each other):"]
    def end(x, sign):
        return sign + "inf" if x is None else f"{x:+.2f}"  # None: unbounded (never won, or never lost)

    lines += [f"  {r['rung']:<{w}} {r['rating']:+7.2f} [{end(r['ci'][0], '-')}, {end(r['ci'][1], '+')}]"
              for r in lad.ratings]
    lines += ["", lad.verdict, f"({lad.elapsed_s:.1f} s)"]
    return "\n".join(lines)
