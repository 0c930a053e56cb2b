"""``cardlab balance``: the smallest rule changes that bring a game's figures into the bands a
designer asks for, each verified on fresh games and judged under strong play.

    balance("crazy_eights", ["seat_edge=0±1"], budget=1800, out="balance/ce")

The search, in the order it runs (``docs/commands/balance.md`` says the same for designers):

1. **Candidates.** Each searched knob's values nearest its current value (``knob_values``:
   the other choice or boolean value; an integer's next values, or for a large default
   ±10%, ±25%, ×½, ×2 …), within the knob's declared range, at most ``VALUES`` a knob.  A
   change the game refuses for this table (an impossible deal) is skipped; one that gives
   the same rule vector as another is the same game, kept once.
2. **Racing on common random numbers.** Every candidate and the current rules play the
   same game indices of the same seed, so game *i* is the same shuffle under every rule
   set.  A stage starts with ``games`` games per candidate and doubles them for the
   survivors: a candidate whose 95% interval of some target figure lies wholly outside its
   band is dropped, one whose every interval lies inside *meets* the targets and stops
   playing, and the open rest are halved (successive halving) by how far their estimates
   miss, until none is open, they reach ``max_games`` or the stage's share of the budget
   is spent.
3. **Fewest knobs first.** Stage 1 changes one knob.  Stage 2 (pairs) and 3 (triples, with
   ``max_changes=3``) run only while fewer than ``shortlist`` candidates meet the targets;
   their candidates are the combinations whose *predicted* figures (each change's measured
   effect on the current rules, added) miss least — how a small per-seat compensation
   combines with a larger rule change.
4. **Short list.** The meeting candidates with the fewest knobs changed, then the smallest
   steps, then the widest margin (else the closest ones, flagged as not meeting).
5. **Verification on fresh games.** The short list and the current rules replay game
   indices the search never played (from ``FRESH``), as many as the search's spread says
   each candidate needs for its intervals to fit the bands, within the budget's share.  A
   candidate is *verified* when every target interval lies inside its band at the
   Bonferroni-adjusted level over all short-listed candidates and figures (95% jointly).
   Its side effects: every headline figure under it, with 95% intervals and the paired
   difference from the current rules on the same fresh games.
6. **Strong play.** The game's strong player (``Game.strong_player``, ``--strong``) in every
   seat replays the verified candidates and the current rules on the same fresh games; per
   target: *holds under strong play* (interval inside the band), *only for the heuristics*
   (interval wholly outside) or *cannot tell*, with the games that would decide.

Resumable: with ``out``, every candidate's games are saved under ``OUT/games/`` keyed by
everything that decides them (rules, players, strategies, seed, first game index, code); a
rerun of the command reuses them and plays only what is missing.  The budget is wall time:
a run the budget does not bind (``max_games`` reached, nothing open) gives the same result
on any machine; one it binds stops where that machine got to, and says so.
"""
from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

import numpy as np

from cardlab.analysis.balance_targets import HEADLINES, Target, mean_interval, per_game
from cardlab.analysis.stats import Z95
from cardlab.sim.errors import InputError

VALUES = 6               # values tried per knob
FRESH = 1 << 40          # the verification's first game index: far beyond any search
PAIRS = 24               # combinations tried per stage beyond the first
KEEP = 4                 # successive halving never keeps fewer open candidates
SHARES = (0.55, 0.2)     # the budget's shares for the search and the verification; strong play the rest
UNIT_DIGITS = {"points": 1, "%": 2}


# ------------------------------------------------------------------ candidates
@dataclass(frozen=True)
class Candidate:
    changes: tuple[tuple[str, str], ...]   # (knob, value as the command line writes it), by knob
    steps: int = 0                         # summed value ranks (1: each knob's nearest other value)

    @property
    def label(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.changes) or "the current rules"

    @property
    def knobs(self) -> frozenset[str]:
        return frozenset(k for k, _ in self.changes)


CURRENT = Candidate(())


def _numeric_steps(default: float, lo: float | None, hi: float | None, whole: bool) -> list[float]:
    """The values nearest ``default``, nearest first: small integers step by 1, large values
    by a share of themselves (a turn cap of 1000 is not tuned by 1)."""
    if whole and abs(default) < 20:
        raw = [default + s * d for d in (1, 2, 3, 4, 6, 8) for s in (-1, 1)]
    elif default != 0:
        raw = [default * f for f in (0.9, 1.1, 0.75, 1.25, 0.5, 1.5, 2.0, 0.25, 4.0)]
    else:
        span = (hi if hi is not None else 1.0) - (lo if lo is not None else -1.0)
        raw = [s * span * f for f in (1 / 16, 1 / 8, 1 / 4, 1 / 2) for s in (-1, 1)]
    out: list[float] = []
    for v in raw:
        v = float(round(v)) if whole else float(v)
        if (lo is None or v >= lo) and (hi is None or v <= hi) and v != default and v not in out:
            out.append(v)
    return out


def knob_values(knob, current: Any) -> list[str]:
    """A knob's candidate values as command-line text, nearest ``current`` first."""
    if knob.kind == "bool":
        return [knob.show(not current)]
    if knob.kind == "choice":
        i = list(knob.choices).index(current)
        order = sorted((c for c in knob.choices if c != current),
                       key=lambda c: abs(list(knob.choices).index(c) - i))
        return [str(c) for c in order][:VALUES]
    if knob.kind in ("int", "float"):
        vals = _numeric_steps(float(current), knob.lo, knob.hi, knob.kind == "int")[:VALUES]
        return [knob.show(int(v) if knob.kind == "int" else v) for v in vals]
    return []  # a list knob has no nearest values: name a value with --set instead


def searched_knobs(game, knobs: list[str] | None, fixed: set[str]) -> list:
    """The knobs the search may change: ``knobs`` (checked), else every knob but those fixed by
    ``--set`` and list knobs."""
    by = {k.name: k for k in game.knobs}
    if knobs:
        for n in knobs:
            if n not in by:
                raise InputError(f"unknown --knobs name {n!r} for game '{game.id}': allowed {', '.join(by)}")
            if n in fixed:
                raise InputError(f"'{n}' is given with both --set and --knobs: keep one")
            if by[n].kind == "list":
                raise InputError(f"--knobs {n}: a list knob has no nearest values; try values with --set")
        return [by[n] for n in dict.fromkeys(knobs)]
    out = [k for k in game.knobs if k.name not in fixed and k.kind != "list"]
    if not out:
        raise InputError(f"{game.id}: no knob left to search (every one is fixed by --set)")
    return out


def singles(knobs: list, rules: dict[str, Any]) -> list[Candidate]:
    return [Candidate(((k.name, v),), rank) for k in knobs
            for rank, v in enumerate(knob_values(k, rules[k.name]), start=1)]


# ------------------------------------------------------------------ games and standings
@dataclass
class Games:
    """Per game, in game-index order from ``start``: winners mask, length, capped, shape."""
    start: int
    mask: np.ndarray
    length: np.ndarray
    unfinished: np.ndarray
    shape: np.ndarray

    @property
    def n(self) -> int:
        return len(self.mask)

    def head(self, n: int) -> "Games":
        return Games(self.start, self.mask[:n], self.length[:n], self.unfinished[:n], self.shape[:n])

    def then(self, more: "Games") -> "Games":
        return Games(self.start, *(np.concatenate([a, b]) for a, b in (
            (self.mask, more.mask), (self.length, more.length), (self.unfinished, more.unfinished),
            (self.shape, more.shape))))


@dataclass
class Figure:
    """One target component's estimate: mean, interval, per-game spread, games it applies to."""
    mean: float
    lo: float
    hi: float
    sd: float
    n: int

    def to_json(self) -> dict:
        return {"value": _num(self.mean), "ci": [_num(self.lo), _num(self.hi)], "games": self.n}


def _num(x: float) -> float | None:
    return None if x is None or not math.isfinite(x) else round(float(x), 4)


def figures(games: Games, targets: list[Target], players: int, z: float = Z95) -> dict[str, list[Figure]]:
    out = {}
    for t in targets:
        arrays = per_game(t.figure, players, games.mask, games.length, games.unfinished, games.shape)
        out[t.figure] = [Figure(*mean_interval(a, z)) for a in arrays]
    return out


def status(figs: dict[str, list[Figure]], targets: list[Target]) -> str:
    """``meets`` (every interval inside its band), ``misses`` (one wholly outside), else ``open``."""
    if any(t.excluded(f.lo, f.hi) for t in targets for f in figs[t.figure]):
        return "misses"
    if all(t.holds(f.lo, f.hi) for t in targets for f in figs[t.figure]):
        return "meets"
    return "open"


def miss(figs: dict[str, list[Figure]], targets: list[Target]) -> tuple[float, float]:
    """(worst, summed) miss of the estimates, in units of each band's scale: 0 is inside."""
    ms = [t.miss(f.mean) if math.isfinite(f.mean) else math.inf for t in targets for f in figs[t.figure]]
    return max(ms), sum(ms)


def worst_margin(figs: dict[str, list[Figure]], targets: list[Target]) -> float:
    return min(t.margin(f.mean) / t.scale for t in targets for f in figs[t.figure])


# ------------------------------------------------------------------ playing (a game, or a test's model)
class Player(Protocol):
    """Plays a candidate's games [start, start + n): ``games(c, start, n)``.  ``prepare(c)``
    says whether the candidate is a distinct, allowed game (False: skip it; its reason in
    ``refused``).  The game's player is ``GamePlayer``; tests give a synthetic one."""
    players: int
    refused: dict[str, str]

    def prepare(self, c: Candidate) -> bool: ...

    def games(self, c: Candidate, start: int, n: int) -> Games: ...


@dataclass
class Standing:
    candidate: Candidate
    games: Games | None = None
    figs: dict[str, list[Figure]] = field(default_factory=dict)
    status: str = "open"
    stage: int = 1
    dropped: str = ""          # why it stopped playing: "misses", "halved", "budget", ""

    @property
    def n(self) -> int:
        return 0 if self.games is None else self.games.n


class Search:
    """The racing search over one ``Player``; ``log`` keeps every step (the search's path)."""

    def __init__(self, player: Player, targets: list[Target], games: int, max_games: int,
                 deadline: float, say: Callable[[str], None] | None = None,
                 clock: Callable[[], float] = time.perf_counter):
        self.player, self.targets = player, targets
        self.n0, self.n_max, self.deadline, self.clock = games, max_games, deadline, clock
        self.say = say or (lambda _: None)
        self.standings: dict[Candidate, Standing] = {}
        self.log: list[dict[str, Any]] = []
        self.rate = None            # seconds a game, measured
        self.stopped_by_budget = False

    # -- playing
    def ensure(self, s: Standing, n: int) -> None:
        if s.n >= n:
            return
        t0 = self.clock()
        before = getattr(self.player, "played", None)
        more = self.player.games(s.candidate, s.n, n - s.n)
        # seconds a game, from the games really played (a rerun loads saved ones in no time)
        played = n - s.n if before is None else self.player.played - before
        if played > 0:
            took = (self.clock() - t0) / played
            self.rate = took if self.rate is None else 0.7 * self.rate + 0.3 * took
        s.games = more if s.games is None else s.games.then(more)
        s.figs = figures(s.games, self.targets, self.player.players)

    def cost(self, standings: list[Standing], n: int) -> float:
        return sum(max(0, n - s.n) for s in standings) * (self.rate or 0.0)

    # -- one stage: race the candidates
    def stage(self, cands: list[Candidate], number: int) -> None:
        fresh = []
        for c in cands:
            if c in self.standings or not self.player.prepare(c):
                continue
            s = Standing(c, stage=number)
            self.standings[c] = s
            fresh.append(s)
        base = self.standings[CURRENT]
        self.say(f"stage {number}: {len(fresh)} candidate(s) changing {number} knob(s)")
        n, racing, rnd = self.n0, fresh, 0
        while racing:
            rnd += 1
            if rnd > 1 and self.clock() + self.cost(racing + [base], n) > self.deadline:
                for s in racing:
                    s.dropped = "budget"
                self.stopped_by_budget = True
                break
            self.ensure(base, n)
            base.status = status(base.figs, self.targets)
            for s in racing:
                self.ensure(s, n)
            for s in racing:
                s.status = status(s.figs, self.targets)
                w, tot = miss(s.figs, self.targets)
                self.log.append({"stage": number, "round": rnd, "candidate": s.candidate.label, "games": s.n,
                                 "status": s.status, "worst_miss": _num(w), "miss": _num(tot),
                                 **{f"{t.figure}[{i}]": _num(f.mean) for t in self.targets
                                    for i, f in enumerate(s.figs[t.figure])}})
                if s.status == "misses":
                    s.dropped = "misses"
            open_ = sorted((s for s in racing if s.status == "open"), key=lambda s: miss(s.figs, self.targets))
            if not open_ or n >= self.n_max:
                break
            keep = max(KEEP, math.ceil(len(open_) / 2))
            for s in open_[keep:]:
                s.dropped = "halved"
            racing = open_[:keep]
            n = min(2 * n, self.n_max)

    # -- combinations, predicted from the single changes' measured effects
    def combinations(self, size: int) -> list[Candidate]:
        base = self.standings[CURRENT]
        parts = [s for s in self.standings.values() if len(s.candidate.changes) == 1 and s.n]
        ranked = []
        for combo in itertools.combinations(parts, size):
            if len({s.candidate.changes[0][0] for s in combo}) < size:
                continue
            worst = 0.0
            for t in self.targets:
                for i, f in enumerate(base.figs[t.figure]):
                    effect = sum(s.figs[t.figure][i].mean - f.mean for s in combo)
                    worst = max(worst, t.miss(f.mean + effect))
            changes = tuple(sorted(ch for s in combo for ch in s.candidate.changes))
            ranked.append((worst, sum(s.candidate.steps for s in combo), Candidate(changes, sum(
                s.candidate.steps for s in combo))))
        ranked.sort(key=lambda x: (x[0], x[1], x[2].label))
        return [c for _, _, c in ranked[:PAIRS]]

    def run(self, first: list[Candidate], max_changes: int, shortlist: int) -> None:
        self.standings[CURRENT] = Standing(CURRENT, stage=0)
        self.player.prepare(CURRENT)
        self.ensure(self.standings[CURRENT], self.n0)
        self.stage(first, 1)
        for size in range(2, max_changes + 1):
            if len(self.meeting()) >= shortlist or self.clock() >= self.deadline:
                break
            self.stage(self.combinations(size), size)

    def meeting(self) -> list[Standing]:
        return [s for c, s in self.standings.items() if c is not CURRENT and s.status == "meets"]

    def short_list(self, k: int) -> tuple[list[Standing], bool]:
        """(the short list, whether it meets the targets): the meeting candidates with the
        fewest knobs, smallest steps, widest margin, then those still open whose every
        estimate lies inside its band; else the closest."""
        def order(s):
            return len(s.candidate.changes), s.candidate.steps, -worst_margin(s.figs, self.targets)

        meet = sorted(self.meeting(), key=order)
        if len(meet) < k:  # still open at the end, every estimate inside its band: verification decides
            likely = [s for c, s in self.standings.items() if c is not CURRENT and s.status == "open"
                      and s.dropped in ("", "budget") and s.n and miss(s.figs, self.targets)[0] == 0]
            meet += sorted(likely, key=order)[:k - len(meet)]
        if meet:
            return meet[:k], True
        rest = [s for c, s in self.standings.items() if c is not CURRENT and s.n]
        rest.sort(key=lambda s: (miss(s.figs, self.targets), len(s.candidate.changes), s.candidate.steps))
        return rest[:k], False


# ------------------------------------------------------------------ verification and strong play
def needed_games(fig: Figure, t: Target, z: float, either: bool = False) -> float:
    """Games for the interval of ``fig`` (at ``z``) to fit inside the band, from its spread and
    its distance to the band's nearer edge (inf when the estimate sits on an edge or outside);
    ``either``: to lie wholly inside or wholly outside, whichever side the estimate is on."""
    m = abs(t.margin(fig.mean)) if either else t.margin(fig.mean)
    if not (m > 0 and math.isfinite(fig.sd)):
        return math.inf
    return (z * fig.sd / m) ** 2


def judge(figs: dict[str, list[Figure]], targets: list[Target], z: float) -> dict[str, Any]:
    """Per target component: inside / outside / cannot tell, and the games that would decide."""
    rows, verdicts = [], []
    for t in targets:
        for i, f in enumerate(figs[t.figure]):
            if t.holds(f.lo, f.hi):
                v = "inside"
            elif t.excluded(f.lo, f.hi):
                v = "outside"
            else:
                v = "open"
            need = needed_games(f, t, z, either=True)
            decide = int(math.ceil(need)) if v == "open" and math.isfinite(need) else None
            rows.append({"target": t.text, "component": i, **f.to_json(), "verdict": v, "games_to_decide": decide})
            verdicts.append(v)
    overall = "inside" if all(v == "inside" for v in verdicts) else \
        "outside" if any(v == "outside" for v in verdicts) else "open"
    return {"verdict": overall, "figures": rows}


def paired(a: np.ndarray, b: np.ndarray) -> dict[str, float | None]:
    """Mean of a - b over the games where both apply, with its 95% interval."""
    both = ~(np.isnan(a) | np.isnan(b))
    m, lo, hi, _, n = mean_interval(a[both] - b[both], Z95)
    return {"diff": _num(m), "ci": [_num(lo), _num(hi)], "games": n}


def side_effects(games: Games, base: Games, players: int, targets: list[Target]) -> list[dict[str, Any]]:
    """Every headline figure (and each target's) under a candidate, with the paired difference
    from the current rules on the same games."""
    n = min(games.n, base.n)
    g, b = games.head(n), base.head(n)
    out = []
    for fig in dict.fromkeys(list(HEADLINES) + [t.figure for t in targets]):
        mine = per_game(fig, players, g.mask, g.length, g.unfinished, g.shape)
        theirs = per_game(fig, players, b.mask, b.length, b.unfinished, b.shape)
        for i, (x, y) in enumerate(zip(mine, theirs)):
            f = Figure(*mean_interval(x, Z95))
            out.append({"figure": fig, "component": i, **f.to_json(), "current": _num(np.nanmean(y) if
                        np.isfinite(y).any() else math.nan), "change": paired(x, y)})
    return out
