"""``cardlab balance`` on a game: its candidates played by the compiled kernel (saved for a
rerun), the verification on fresh games, strong play, and the result (``BalanceResult``).

The search itself is ``analysis/balance.py``; the targets ``analysis/balance_targets.py``;
the text and the page ``analysis/balance_report.py``.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
from scipy.stats import norm

from cardlab.analysis.balance import (CURRENT, FRESH, SHARES, Z95, Candidate, Figure, Games, Search,
                                      figures, judge, needed_games, searched_knobs, side_effects, singles)
from cardlab.analysis.balance_targets import Target, parse_targets
from cardlab.analysis.sweep import check_out
from cardlab.sim.dask_backend import backend_session, check_backend
from cardlab.sim.errors import InputError
from cardlab.sim.tally import SHAPE_ROW_COLS

FORMAT = 1              # a saved block of games
MIN_FRESH = 1_000       # the verification never plays fewer games a candidate
STRONG_PROBE = 20       # strong-play games that measure its speed before the rest is planned
STRONG_MIN = 200        # strong play plans at least this many games a rule set


# ------------------------------------------------------------------ the game's player
class GamePlayer:
    """Plays candidates of one game, table and strategies; with ``folder`` every candidate's
    games are saved (``OUT/games/<key>.npz``, key: everything that decides them) and reused."""

    def __init__(self, game_id: str, players: int | None, sets: list[str], strategies: str | None, seed: int,
                 jobs: int | None, folder: Path | None = None, backend: str = "local",
                 scheduler: str | None = None, progress: Callable[[int], None] | None = None):
        from cardlab.sim.runner import make_setup

        self.base = make_setup(game_id, players, sets, strategies, seed)  # one line for a bad table
        self.game_id, self.sets, self.strategies, self.seed = game_id, list(sets), strategies, seed
        self.players = self.base.players
        self.jobs, self.folder, self.backend, self.scheduler = jobs, folder, backend, scheduler
        self.progress = progress
        self.setups: dict[Candidate, Any] = {}
        self.refused: dict[str, str] = {}
        self.same: dict[str, str] = {}   # candidate -> the candidate whose rules it repeats
        self._vectors: dict[bytes, Candidate] = {}
        self.memory: dict[str, Games] = {}   # every run of games played or loaded, by its key
        self.reused = 0                      # games loaded from an earlier run's folder
        self.played = 0                      # games played by this run

    def setup(self, c: Candidate, strategies: str | None = None):
        from cardlab.sim.runner import make_setup

        sets = self.sets + [f"{k}={v}" for k, v in c.changes]
        return make_setup(self.game_id, self.players, sets, strategies or self.strategies, self.seed)

    def prepare(self, c: Candidate) -> bool:
        try:
            s = self.setup(c)
        except InputError as e:
            self.refused[c.label] = str(e)
            return False
        key = s.game.rules_vector(s.rules, s.players).tobytes()
        if key in self._vectors and self._vectors[key] != c:
            self.same[c.label] = self._vectors[key].label
            return False
        self._vectors.setdefault(key, c)
        self.setups[c] = s
        return True

    def games(self, c: Candidate, start: int, n: int, strategies: str | None = None) -> Games:
        s = self.setups[c] if strategies is None else self.setup(c, strategies)
        return play_saved(s, start, n, self.jobs, self.folder, self.memory, self.backend, self.scheduler,
                          self.progress, on_reuse=self._reused, on_play=self._played)

    def held(self, c: Candidate, start: int, strategies: str | None = None) -> int:
        """Games of ``c`` from ``start`` on that this run holds or ``folder`` kept (no game played)."""
        s = self.setups[c] if strategies is None else self.setup(c, strategies)
        _, _, have = recall(s, _origin(start), self.folder, self.memory, self._reused)
        return 0 if have is None else max(0, have.n - (start - _origin(start)))

    def _reused(self, n: int) -> None:
        self.reused += n

    def _played(self, n: int) -> None:
        self.played += n


def _key(setup, start: int) -> str:
    from cardlab.sim.cache import code_identity

    ident = setup.identity() | {"start": start, "format": FORMAT} | code_identity()
    return hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:20]


def _rows_to_games(start: int, rows: np.ndarray) -> Games:
    return Games(start, rows[:, 2].astype(np.int16), rows[:, 0].astype(np.int32), rows[:, 1].astype(np.int8),
                 rows[:, -SHAPE_ROW_COLS:].astype(np.int32))


def play_saved(setup, start: int, n: int, jobs, folder: Path | None, memory: dict[str, Games],
               backend: str = "local", scheduler: str | None = None, progress=None,
               on_reuse: Callable[[int], None] | None = None,
               on_play: Callable[[int], None] | None = None) -> Games:
    """Games [start, start + n) of ``setup``: what this run holds of them (``memory``), else
    what ``folder`` holds from an earlier run (counted by ``on_reuse``), the rest played and
    the whole run saved again (atomically).  A run of games is kept from the first index it
    ever played (the search's 0, the verification's FRESH), so it only ever grows."""
    from cardlab.sim import runner

    origin = _origin(start)
    key, path, have = recall(setup, origin, folder, memory, on_reuse)
    want = start - origin + n
    if have is None or have.n < want:
        lo = origin + (have.n if have is not None else 0)
        r = runner.run(setup, start + n - lo, jobs, keep_rows=True, start=lo, backend=backend,
                       scheduler=scheduler, progress=runner.weigh(progress, setup))
        more = _rows_to_games(lo, np.asarray(r.rows))
        if on_play:
            on_play(more.n)
        have = more if have is None else have.then(more)
        if path is not None:
            tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp.npz")
            np.savez(tmp, mask=have.mask, length=have.length, unfinished=have.unfinished, shape=have.shape)
            os.replace(tmp, path)
    memory[key] = have
    return _slice(have, start - origin, n)


def recall(setup, origin: int, folder: Path | None, memory: dict[str, Games],
           on_reuse: Callable[[int], None] | None = None) -> tuple[str, Path | None, Games | None]:
    """(key, file, games) of ``setup``'s run of games from ``origin``: what this run holds,
    else what ``folder`` kept from an earlier run (then held in ``memory`` and counted by
    ``on_reuse``), else None."""
    key = _key(setup, origin)
    path = folder / f"{key}.npz" if folder is not None else None
    have = memory.get(key)
    if have is None and path is not None:
        have = _load(path, origin)
        if have is not None:
            memory[key] = have
            if on_reuse:
                on_reuse(have.n)
    return key, path, have


def _origin(start: int) -> int:
    """Where a run of games begins: the search at 0, the verification at FRESH."""
    return FRESH if start >= FRESH else 0


def _slice(g: Games, offset: int, n: int) -> Games:
    return Games(g.start + offset, g.mask[offset:offset + n], g.length[offset:offset + n],
                 g.unfinished[offset:offset + n], g.shape[offset:offset + n])


def _load(path: Path, start: int) -> Games | None:
    if not path.exists():
        return None
    try:
        z = np.load(path, allow_pickle=False)
        g = Games(start, z["mask"], z["length"], z["unfinished"], z["shape"])
        if not (len(g.mask) == len(g.length) == len(g.unfinished) == len(g.shape)):
            raise ValueError("its arrays differ in length")
        return g
    except (OSError, ValueError, KeyError) as e:
        raise InputError(f"cannot reuse the saved games in {str(path)!r} ({e}): remove that file to play "
                         f"them again") from None


# ------------------------------------------------------------------ the budget
def parse_budget(text: str | float | int) -> float:
    """``30m``, ``90s``, ``1h30m``, ``2h`` or plain seconds -> seconds (InputError otherwise)."""
    import re

    s = str(text).strip().lower()
    if re.fullmatch(r"\d+(\.\d+)?", s):
        secs = float(s)
    else:
        m = re.fullmatch(r"(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?(?:(\d+(?:\.\d+)?)s)?", s)
        if not m or not any(m.groups()):
            raise InputError(f"bad --budget {text!r}: expected a time such as 90s, 30m, 1h30m")
        h, mi, se = (float(x) if x else 0.0 for x in m.groups())
        secs = 3600 * h + 60 * mi + se
    if not 1 <= secs <= 7 * 24 * 3600:
        raise InputError(f"bad --budget {text!r}: allowed 1s to 7 days")
    return secs


# ------------------------------------------------------------------ the result
@dataclass
class Proposal:
    rank: int
    candidate: Candidate
    search: dict[str, list[Figure]]          # on the search's games
    search_games: int
    search_status: str = "meets"             # "meets", or "open": every estimate inside, not yet every interval
    fresh: dict[str, Any] | None = None      # judge() on the fresh games, Bonferroni-adjusted
    fresh_games: int = 0
    side_effects: list[dict[str, Any]] = field(default_factory=list)
    strong: dict[str, Any] | None = None     # judge() under strong play
    strong_games: int = 0
    replays: list[dict[str, str]] = field(default_factory=list)

    @property
    def verified(self) -> bool:
        return bool(self.fresh) and self.fresh["verdict"] == "inside"

    def to_json(self, targets: list[Target]) -> dict[str, Any]:
        return {"rank": self.rank, "changes": dict(self.candidate.changes), "label": self.candidate.label,
                "knobs_changed": len(self.candidate.changes), "steps": self.candidate.steps,
                "search": {"games": self.search_games, "status": self.search_status,
                           "figures": {t.text: [f.to_json() for f in self.search[t.figure]] for t in targets}},
                "verified": self.verified, "fresh": self.fresh, "fresh_games": self.fresh_games,
                "side_effects": self.side_effects, "strong": self.strong, "strong_games": self.strong_games,
                "replays": self.replays}


@dataclass
class BalanceResult:
    game: str
    players: int
    strategies: list[str]
    seed: int
    targets: list[Target]
    current: dict[str, Any]                  # the current rules: search and fresh figures
    proposals: list[Proposal]
    met: bool                                # some candidate met the targets in the search
    candidates: int
    search_games: int
    refused: dict[str, str]
    same: dict[str, str]
    log: list[dict[str, Any]]
    strong_player: str | None
    strong_current: dict[str, Any] | None
    budget_s: float
    elapsed_s: float
    stopped_by_budget: bool
    knobs: list[str]
    alpha: float
    reused_games: int = 0
    notes: list[str] = field(default_factory=list)
    command: str | None = None               # the command line that made it (the page's "Reproduce")

    @property
    def verdict(self) -> str:
        from cardlab.analysis.balance_report import verdict

        return verdict(self)

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "players": self.players, "strategies": self.strategies, "seed": self.seed,
                "targets": [{"text": t.text, "figure": t.figure, "lo": _inf(t.lo), "hi": _inf(t.hi)}
                            for t in self.targets],
                "knobs": self.knobs, "current": self.current, "met": self.met, "verdict": self.verdict,
                "proposals": [p.to_json(self.targets) for p in self.proposals],
                "strong_player": self.strong_player, "strong_current": self.strong_current,
                "candidates": self.candidates, "search_games": self.search_games,
                "refused": self.refused, "same_rules": self.same, "budget_s": self.budget_s,
                "elapsed_s": round(self.elapsed_s, 1), "stopped_by_budget": self.stopped_by_budget,
                "alpha": self.alpha, "reused_games": self.reused_games, "notes": self.notes,
                "command": self.command}


def _inf(x: float) -> float | str:
    return x if math.isfinite(x) else ("inf" if x > 0 else "-inf")


# ------------------------------------------------------------------ the whole run
def balance(game_id: str, targets: list[str], *, knobs: list[str] | None = None, players: int | None = None,
            sets: list[str] | None = None, strategies: str | None = None, seed: int = 1,
            budget: str | float = "30m", games: int = 2_000, max_games: int = 64_000,
            max_changes: int = 2, shortlist: int = 3, strong: str | None = None, alpha: float = 0.05,
            jobs: int | None = None, out: str | os.PathLike | None = None, backend: str = "local",
            scheduler: str | None = None, replays: bool = True, command: str | None = None,
            say: Callable[[str], None] | None = None,
            progress: Callable[[int], None] | None = None,
            clock: Callable[[], float] = time.perf_counter) -> BalanceResult:
    """Search ``game_id``'s knobs for the smallest changes that meet ``targets``, verify the
    short list on fresh games and judge it under strong play (see ``analysis/balance.py``)."""
    from cardlab.analysis.pools import parse_strong
    from cardlab.sim import runner

    t0 = clock()
    tg = parse_targets(targets)
    secs = parse_budget(budget)
    runner.check_counts(games, seed, jobs)
    if not 100 <= games <= max_games <= 10_000_000:
        raise InputError(f"bad --games {games} / --max-games {max_games}: allowed 100 <= games <= max-games "
                         f"<= 10,000,000")
    if not 1 <= max_changes <= 3:
        raise InputError(f"bad --max-changes {max_changes}: allowed 1 to 3")
    if not 1 <= shortlist <= 10:
        raise InputError(f"bad --shortlist {shortlist}: allowed 1 to 10")
    check_backend(backend)  # before any folder is made
    if not 0 < alpha < 0.5:
        raise InputError(f"bad --alpha {alpha}: allowed between 0 and 0.5")
    folder = None
    if out is not None:
        folder = Path(out) / "games"
        check_out(Path(out), "balance", "games", "balance.json")
    say = say or (lambda _: None)
    pl = GamePlayer(game_id, players, sets or [], strategies, seed, jobs, folder, backend, scheduler, progress)
    base = pl.base
    fixed = {kv.split("=", 1)[0].strip() for kv in sets or [] if "=" in kv}
    searched = searched_knobs(base.game, knobs, fixed)
    strong_label = parse_strong(strong, base)
    if strong_label is not None and strong_label == base.seats[0].label and len({s.label for s in base.seats}) == 1:
        strong_label = None  # the search's own player: strong play would only repeat it
    share = SHARES if strong_label else (0.65, 0.35)
    with backend_session(backend, scheduler, jobs):
        result = _run(pl, base, tg, searched, strong_label, share, secs, games, max_games, max_changes,
                      shortlist, alpha, seed, t0, clock, say)
    if replays and out is not None and result.proposals:
        write_replays(result, pl, Path(out))
    result.elapsed_s = clock() - t0
    result.reused_games = pl.reused
    result.command = command
    if out is not None:
        from cardlab.analysis.balance_report import write

        write(result, Path(out))
    return result


def _run(pl, base, tg, searched, strong_label, share, secs, games, max_games, max_changes, shortlist, alpha,
         seed, t0, clock, say) -> BalanceResult:
    """The search, the verification and strong play (``balance`` without its files)."""
    search = Search(pl, tg, games, max_games, t0 + share[0] * secs, say, clock)
    search.run(singles(searched, base.rules), max_changes, shortlist)
    short, met = search.short_list(shortlist)
    say(f"search: {len(search.standings) - 1} candidates, {'some meet' if met else 'none meets'} the targets")
    cur = search.standings[CURRENT]
    result = BalanceResult(base.game.id, pl.players, [s.label for s in base.seats], seed, tg,
                           {"search": {"games": cur.n, "figures": {t.text: [f.to_json() for f in cur.figs[t.figure]]
                                                                    for t in tg}}},
                           [Proposal(i + 1, s.candidate, s.figs, s.n, s.status) for i, s in enumerate(short)], met,
                           len(search.standings) - 1, sum(s.n for s in search.standings.values()), pl.refused,
                           pl.same, search.log, strong_label, None, secs, 0.0, search.stopped_by_budget,
                           [k.name for k in searched], alpha)
    if met:
        verify(result, pl, search, t0 + (share[0] + share[1]) * secs, clock, say)
        if strong_label:
            strong_play(result, pl, strong_label, t0 + secs, max_games, clock, say)
    else:
        result.notes.append("No candidate met every target in the search; the closest are listed with their "
                            "search figures (not verified).")
    return result


def verify(result: BalanceResult, pl: GamePlayer, search: Search, deadline: float, clock, say) -> None:
    """Replay the short list and the current rules on fresh game indices, as many as each
    candidate's spread says it needs (within the deadline), and judge each at the
    Bonferroni-adjusted level over every short-listed figure."""
    tg = result.targets
    m = sum(len(f) for p in result.proposals for f in p.search.values())
    z = float(norm.ppf(1 - result.alpha / (2 * max(m, 1))))
    rate = search.rate or 1e-4
    plans = []
    for p in result.proposals:
        # planned for half the search's margin (4x the games): the best of many noisy candidates
        # looks better than it is, so its fresh estimate is likely nearer the band's edge
        need = max(4 * needed_games(f, t, z) for t in tg for f in p.search[t.figure])
        plans.append(max(MIN_FRESH, int(min(need, 1e12))) if math.isfinite(need) else None)
    left = max(0.0, deadline - clock())
    afford = int(left / rate / (len(plans) + 1)) if rate else MIN_FRESH
    n_base, played = 0, []
    for p, plan in zip(result.proposals, plans):
        n = max(MIN_FRESH, min(plan or afford, afford, 10_000_000))
        say(f"verifying {p.candidate.label} on {n:,} fresh games")
        g = pl.games(p.candidate, FRESH, n)
        p.fresh_games = n
        p.fresh = judge(figures(g, tg, pl.players, z), tg, z) | {"z": round(z, 3), "intervals": m}
        played.append(g)
        n_base = max(n_base, n)
    base = pl.games(CURRENT, FRESH, n_base)
    result.current["fresh"] = {"games": n_base, "figures": {t.text: [f.to_json() for f in fs] for t, fs in
                                                            zip(tg, figures(base, tg, pl.players).values())}}
    for p, g in zip(result.proposals, played):
        p.side_effects = side_effects(g, base, pl.players, tg)
    # the verified first (in the search's order), then the rest: the short list's ranks say
    # what holds on fresh deals
    result.proposals.sort(key=lambda p: not p.verified)
    for i, p in enumerate(result.proposals):
        p.rank = i + 1


def strong_play(result: BalanceResult, pl: GamePlayer, label: str, deadline: float, max_games: int, clock,
                say) -> None:
    """The strong player in every seat on the first verified proposal (else the first) and the
    current rules, on the same fresh games, as many as the budget left allows: one proposal,
    so its intervals are as narrow as the budget can make them."""
    tg = result.targets
    who = ([p for p in result.proposals if p.verified] or result.proposals)[:1]
    from cardlab.sim.runner import warm

    warm(pl.setup(CURRENT, label))  # compiled (or loaded) before the clock starts: the probe times games only
    held = pl.held(CURRENT, FRESH, label)  # kept from an earlier run: they cost nothing now
    say(f"strong play ({label}): measuring its speed")
    t0, before = clock(), pl.played
    probe = pl.games(CURRENT, FRESH, held + STRONG_PROBE, strategies=label)  # the next games, timed
    rate = max((clock() - t0) / max(pl.played - before, 1), 1e-6)
    left = max(0.0, deadline - clock())
    afford = held + STRONG_PROBE + int(left / rate / (len(who) + 1)) // STRONG_PROBE * STRONG_PROBE
    # enough for an interval half as wide as the heuristics' margin to the band's edge (strong
    # play moves the figures: room to spare), at least STRONG_MIN, at most the search's cap:
    # a strong player fast enough for that plays the same games on every machine
    plan = max(4 * needed_games(f, t, Z95) for p in who for t in tg for f in p.search[t.figure])
    n = min(afford, int(min(max(plan, STRONG_MIN), max_games)) if math.isfinite(plan) else max_games)
    n = max(STRONG_PROBE, n)
    base = pl.games(CURRENT, FRESH, n, strategies=label) if n > probe.n else probe.head(n)
    result.strong_current = judge(figures(base, tg, pl.players), tg, Z95) | {"games": base.n}
    for p in who:
        say(f"strong play on {p.candidate.label}: {n:,} games")
        g = pl.games(p.candidate, FRESH, n, strategies=label)
        p.strong = judge(figures(g, tg, pl.players), tg, Z95)
        p.strong["change"] = [e for e in side_effects(g, base, pl.players, tg) if e["figure"] in
                              {t.figure for t in tg}]
        p.strong_games = n


def write_replays(result: BalanceResult, pl: GamePlayer, out: Path) -> None:
    """A few telling games (the report's picks) under each proposal, as replay pages."""
    from cardlab.analysis.replay_picks import sample_replays
    from cardlab.analysis.replay_picks import write_replays as write_pages

    for p in result.proposals:
        if p.candidate not in pl.setups:
            continue
        reps = sample_replays(pl.setups[p.candidate], 2_000, pl.jobs)
        write_pages(reps, out, folder=f"replays/{p.rank}", back="../../index.html")
        p.replays = [{"name": r.name, "why": r.why, "href": r.href} for r in reps]
