"""How many games a figure needs, and how long they take on this machine: ``cardlab plan``.

Issue 35: no sentence wider than its interval; a verdict that cannot tell says about how
many games would decide.  This is that figure on its own, before a run: for a precision of
+-P points (the 95% interval's half-width), the games each headline figure needs and the
time they would take here.

- **Games** come from ``analysis/stats.py``, the formulas the verdicts use: each seat's win
  share against its fair share 1/P (``games_for_wilson``: ``games_for`` on the pilot's share,
  raised where the Wilson interval is wider than its normal approximation), the difference
  of seat 0 and seat 1 in the same games (``games_for_diff``: ``diff_multinomial``'s
  variance), the unfinished (capped) rate when the pilot has capped games, and each seat's
  share under strong play (the search player in every seat, ``Game.strong_player`` or
  ``--strong``) planned on the fair share 1/P, as the report sizes its strong pool
  (``pipeline.strong_games_for``): a pilot of a few strong games times them but is far too
  small to plan on.
- **Time** comes from two pilot runs on the same seed: ``pilot_games`` games of the setup
  on one thread (after a warm-up run, so neither compiling nor loading the kernel is
  counted; replayed until the clock has ``MIN_TIMED_S``) and ``strong_pilot_games`` of the
  strong pool on every worker (a setup with a search seat is piloted the same way).  A
  planned run of n games is estimated at n / (games per second per thread x the threads it
  keeps busy), its chunks being ``runner.CHUNK`` games (``SEARCH_CHUNK`` with a search seat).

Everything but the times depends only on the setup, the seed and the counts.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from cardlab.analysis.stats import (about_games, diff_multinomial, finite_or_none, games_for_diff,
                                    games_for_wilson, wilson)
from cardlab.sim.errors import InputError

PILOT_GAMES = 2_000        # games of the setup that measure its speed and its shares
STRONG_PILOT_GAMES = 16    # games of the strong pool: a strong game can cost seconds
WARMUP_GAMES = 200         # played (untimed) before the pilot: loading, first calls
MIN_TIMED_S = 0.25         # a pilot's games are replayed until its clock has this much ...
MAX_REPEATS = 200          # ... or this many runs
MIN_PILOT = 100            # fewer cannot measure a share to plan on
MAX_POINTS = 50.0          # a half-width of 50 points says nothing about a share
# what depends on the clock (or on --jobs) in ``Plan.to_dict()``: everything else depends only
# on the setup, the seed and the counts
TIMING_KEYS = ("jobs", "threads", "timed_games", "elapsed_s", "games_per_second", "estimated_s",
               "seat_estimated_s", "strong_estimated_s", "sentences")


def parse_players(spec: str | None) -> list[int]:
    """``--players``: one count or several, comma-separated (each gets its own plan)."""
    if spec is None:
        return []
    try:
        counts = [int(x) for x in spec.split(",")]
    except ValueError:
        raise InputError(f"bad --players {spec!r}: allowed a whole number, or several "
                         f"comma-separated (e.g. 2,3,4)") from None
    if len(set(counts)) != len(counts):
        raise InputError(f"bad --players {spec!r}: a count is named twice")
    return counts


def check_points(points: float) -> float:
    """``--precision`` in points (+-1 = 1) as a half-width of a share (0.01)."""
    if not (0.0 < points <= MAX_POINTS):  # NaN fails too
        raise InputError(f"bad --precision {points:g}: allowed more than 0 and at most {MAX_POINTS:g} "
                         "(points of win rate: the 95% interval's half-width, 1 means +-1 point)")
    return points / 100.0


def strong_spec(setup, spec: str | None) -> str | None:
    """``--strong``, as a report's (``pools.parse_strong``)."""
    from cardlab.analysis.pools import parse_strong

    return parse_strong(spec, setup)


def at_players(setup, players: int, strategies: str | None = None):
    """``setup``'s game, rules, seed and strategies at another player count (``strategies``,
    the spec it was made from, a shorter list repeating; default: its seats' in turn).  A
    count the game or its rules do not allow is an InputError."""
    from cardlab.sim.runner import Setup
    from cardlab.sim.strategy_spec import parse_strategies

    g = setup.game
    rules = g.resolve_rules(dict(setup.rules), players)
    labels = [s.label for s in setup.seats]
    spec = strategies or ",".join(labels[i % len(labels)] for i in range(players))
    seats = parse_strategies(spec, g.all_strategies, players, g.id, g.default_strategy)
    return Setup(g, players, rules, seats, setup.seed)


# --------------------------------------------------------------------------- pilots
@dataclass
class Pilot:
    """A timed pilot: its games (their shares, as fractions), and the games timed (the same
    games replayed until the clock had ``MIN_TIMED_S``), their wall time and threads."""
    games: int
    timed_games: int
    elapsed_s: float
    threads: int
    win_rates: list[float]
    unfinished: int

    @property
    def games_per_second(self) -> float:
        return self.timed_games / self.elapsed_s

    @property
    def per_thread(self) -> float:
        """Games per second one thread plays (what a planned run is scaled from)."""
        return self.games_per_second / self.threads

    def to_dict(self) -> dict[str, Any]:
        return {"games": self.games, "timed_games": self.timed_games, "elapsed_s": round(self.elapsed_s, 4),
                "games_per_second": round(self.games_per_second, 3), "threads": self.threads,
                "win_rate_by_seat": self.win_rates, "unfinished_rate": self.unfinished / self.games}


def run_pilot(setup, games: int, threads: int = 1, warmup: int = 0, min_s: float = MIN_TIMED_S) -> Pilot:
    """Play games 0..games-1 of ``setup`` on ``threads`` threads (chunks of games / threads, so
    each plays; one game a chunk with a search seat) and time them, replaying the same games
    until the clock has ``min_s`` (a pilot of fast games takes milliseconds: one scheduler
    hiccup would halve its speed).  ``warmup`` games are played first, untimed; ``runner.run``
    compiles or loads the kernel before its clock starts.  Fast games are best timed on one
    thread: starting a thread pool costs a run some milliseconds, more than 2,000 fast games."""
    from cardlab.sim import runner

    # search games vary in length: one game a chunk keeps every thread busy to the end
    chunk = 1 if setup.searches else -(-games // threads)
    if warmup:
        runner.run(setup, min(warmup, games), threads, chunk=chunk)
    first, played, secs = None, 0, 0.0
    for _ in range(MAX_REPEATS):
        r = runner.run(setup, games, threads, chunk=chunk)
        first = first or r
        played += games
        secs += r.elapsed_s
        if secs >= min_s:
            break
    t = first.tally
    return Pilot(games, played, max(secs, 1e-9), min(threads, -(-games // chunk)),
                 [float(w) / games for w in t.wins], int(t.unfinished))


def estimate_s(games: int, pilot: Pilot, jobs: int, chunk: int) -> float:
    """Seconds a run of ``games`` would take with ``jobs`` workers: its chunks of ``chunk``
    games keep min(jobs, chunks, cores) threads busy, each at the pilot's speed per thread
    (two threads on two cores play about 1.9 times one: a slight underestimate)."""
    from cardlab.sim.runner import default_jobs

    threads = max(1, min(jobs, default_jobs(), -(-games // chunk)))
    return games / (pilot.per_thread * threads)


# --------------------------------------------------------------------------- the plan
@dataclass
class Figure:
    """One headline figure: its value in the pilot, a fraction (``measure``: ``edge``, a
    share minus the fair share 1/P; ``difference``, of two seats' shares; ``rate``, a solo
    win rate or the unfinished rate), with its 95% interval; the share(s) it is planned on,
    the games it needs for +-halfwidth and their estimated time."""
    key: str            # seat_share, seat_difference, unfinished_rate, strong_seat_share
    label: str
    measure: str
    seats: list[int]
    value: float | None
    ci: list[float] | None
    pilot_games: int
    planned_on: list[float]
    games: int
    estimated_s: float

    def to_dict(self) -> dict[str, Any]:
        return {"figure": self.key, "label": self.label, "measure": self.measure, "seats": self.seats,
                "value": finite_or_none(self.value),
                "ci": None if self.ci is None else [finite_or_none(x) for x in self.ci],
                "pilot_games": self.pilot_games, "planned_on": self.planned_on,
                "games": self.games, "estimated_s": round(self.estimated_s, 3)}


@dataclass
class Section:
    """The plan for one player count."""
    setup: Any
    pilot: Pilot
    strong: str | None
    strong_pilot: Pilot | None
    figures: list[Figure] = field(default_factory=list)

    @property
    def who(self) -> str:
        labels = [s.label for s in self.setup.seats]
        return f"{labels[0]} in every seat" if len(set(labels)) == 1 else ", ".join(labels)

    def headline(self, key: str) -> Figure | None:
        """The figure of that kind that needs the most games."""
        figs = [f for f in self.figures if f.key == key]
        return max(figs, key=lambda f: f.games) if figs else None

    def to_dict(self) -> dict[str, Any]:
        seat, strong = self.headline("seat_share"), self.headline("strong_seat_share")
        return self.setup.identity() | {
            "pilot": self.pilot.to_dict(), "strong": self.strong,
            "strong_pilot": self.strong_pilot.to_dict() if self.strong_pilot else None,
            "figures": [f.to_dict() for f in self.figures],
            "seat_games": seat.games, "seat_estimated_s": round(seat.estimated_s, 3),
            "strong_games": strong.games if strong else None,
            "strong_estimated_s": round(strong.estimated_s, 3) if strong else None}


@dataclass
class Plan:
    game: str
    seed: int
    halfwidth: float
    jobs: int
    sections: list[Section]

    @property
    def points(self) -> float:
        return 100 * self.halfwidth

    def sentences(self) -> list[str]:
        return [sentence(s, self.points, len(self.sections) > 1) for s in self.sections]

    def to_dict(self) -> dict[str, Any]:
        return {"game": self.game, "seed": self.seed, "precision_points": self.points,
                "halfwidth": self.halfwidth, "jobs": self.jobs,
                "plans": [s.to_dict() for s in self.sections], "sentences": self.sentences()}


def figures(setup, pilot: Pilot, strong_pilot: Pilot | None, halfwidth: float, jobs: int) -> list[Figure]:
    """The headline figures of one player count, each with its games for +-halfwidth."""
    from cardlab.sim.runner import CHUNK, SEARCH_CHUNK

    P, n = setup.players, pilot.games
    solo = P == 1
    base = 0.0 if solo else 1.0 / P   # a seat's figure: its share minus the fair share (solo: its rate)
    share = "rate" if solo else "edge"
    out = []

    def add(key, label, measure, seats, value, ci, planned_on, games, p=pilot):
        chunk = SEARCH_CHUNK if p is strong_pilot or setup.searches else CHUNK
        out.append(Figure(key, label, measure, seats, value, list(ci), p.games, planned_on, games,
                          estimate_s(games, p, jobs, chunk)))

    # a setup with a search seat gets a pilot of a few games (as strong play): too few to plan
    # on, so its shares are planned on the fair share too
    plan_on = [1.0 / max(P, 2)] * P if setup.searches else pilot.win_rates
    for i, r in enumerate(pilot.win_rates):
        lo, hi = wilson(r * n, n)
        label = "seat 0 win rate (solo)" if solo else f"seat {i} share - fair {100 * base:.1f}%"
        add("seat_share", label, share, [i], r - base, [lo - base, hi - base], [plan_on[i]],
            games_for_wilson(halfwidth, plan_on[i]))
    if not solo:
        pa, pb = pilot.win_rates[0], pilot.win_rates[1]
        d, lo, hi = diff_multinomial(pa, pb, n)
        add("seat_difference", "seat 0 - seat 1 (same games)", "difference", [0, 1], d, [lo, hi],
            plan_on[:2], games_for_diff(halfwidth, *plan_on[:2]))
    if pilot.unfinished:
        u = pilot.unfinished / n
        add("unfinished_rate", "unfinished (capped) rate", "rate", [], u, wilson(pilot.unfinished, n), [u],
            games_for_wilson(halfwidth, u))
    if strong_pilot is not None:
        m = strong_pilot.games
        p0 = 1.0 / max(P, 2)   # the fair share, as the report's strong pool is sized
        r = strong_pilot.win_rates[0]   # "now": seat 0's (the first-player edge)
        lo, hi = wilson(r * m, m)
        label = "strong play: win rate (solo)" if solo else "strong play: each seat's share - fair"
        add("strong_seat_share", label, share, list(range(P)), r - base, [lo - base, hi - base], [p0],
            games_for_wilson(halfwidth, p0), p=strong_pilot)
    return out


def plan(setup, points: float, extra_players: Sequence[int] = (), *, strategies: str | None = None,
         strong: str | None = None, jobs: int | None = None, pilot_games: int = PILOT_GAMES,
         strong_pilot_games: int = STRONG_PILOT_GAMES, warmup: int = WARMUP_GAMES) -> Plan:
    """The games and estimated time each headline figure of ``setup`` needs for a 95%
    interval of +-``points`` (and the same at each of ``extra_players``, the setup's game,
    rules, seed and ``strategies`` (default: its seats') at that many players).  ``strong``:
    the strong pool's player (None: the game's strong player; ``"none"``: no strong pool).
    Every input is checked before a game is played."""
    from cardlab.sim import runner

    halfwidth = check_points(points)
    if not (MIN_PILOT <= pilot_games <= runner.MAX_GAMES):
        raise InputError(f"bad --pilot-games {pilot_games}: allowed {MIN_PILOT} or more (fewer cannot "
                         f"measure a share to plan on)")
    if strong_pilot_games < 1:
        raise InputError(f"bad --strong-pilot-games {strong_pilot_games}: allowed 1 or more")
    runner.check_counts(pilot_games, setup.seed, jobs)
    jobs = jobs or runner.default_jobs()
    setups = [setup] + [at_players(setup, p, strategies) for p in extra_players if p != setup.players]
    specs = [strong_spec(s, strong) for s in setups]
    strong_setups = [None if spec is None else at_players(s, s.players, spec) for s, spec in zip(setups, specs)]
    sections = []
    for s, spec, ss in zip(setups, specs, strong_setups):
        # heuristic games take microseconds: timed on one thread, scaled (starting a thread
        # pool would cost more than the pilot); search games take up to seconds: on every worker
        pilot = (run_pilot(s, strong_pilot_games, min(jobs, strong_pilot_games)) if s.searches
                 else run_pilot(s, pilot_games, 1, warmup))
        sp = run_pilot(ss, strong_pilot_games, min(jobs, strong_pilot_games)) if ss is not None else None
        sec = Section(s, pilot, spec, sp)
        sec.figures = figures(s, pilot, sp, halfwidth, jobs)
        sections.append(sec)
    return Plan(setup.game.id, setup.seed, halfwidth, jobs, sections)


# --------------------------------------------------------------------------- words
def duration(s: float) -> str:
    """Seconds in the unit a person plans with."""
    if s < 1:
        return f"{max(s, 0.01):.2f} s"
    if s < 10:
        return f"{s:.1f} s"
    if s < 90:
        return f"{s:.0f} s"
    if s < 90 * 60:
        return f"{s / 60:.0f} min"
    if s < 48 * 3600:
        return f"{s / 3600:.1f} h"
    if s < 730 * 86400:
        return f"{s / 86400:.0f} days"
    return f"{s / (365.25 * 86400):.0f} years"


def _threads(p: Pilot) -> str:
    return f"{p.threads} thread{'' if p.threads == 1 else 's'}"


def _points(x: float) -> str:
    return f"{x:g} point{'' if x == 1 else 's'}"


def _pts(x: float) -> str:
    s = f"{100 * x:+.1f}"
    return "0.0" if s in ("+0.0", "-0.0") else s


def _now(f: Figure) -> str:
    """The pilot's figure and its interval: points for an edge or a difference, % for a rate."""
    if f.value is None or None in f.ci:
        return "-"
    if f.measure == "rate":
        text = f"{100 * f.value:.1f}% [{100 * f.ci[0]:.1f}, {100 * f.ci[1]:.1f}]"
        if f.key == "unfinished_rate":
            text = f"{100 * f.value:.2f}% [{100 * f.ci[0]:.2f}, {100 * f.ci[1]:.2f}]"
    else:
        text = f"{_pts(f.value)} [{_pts(f.ci[0])}, {_pts(f.ci[1])}]"
    if f.key == "strong_seat_share":
        text = f"seat 0 {text} ({f.pilot_games} games)"
    return text


def sentence(sec: Section, points: float, with_players: bool = False) -> str:
    """'Seat effects to +-1 point: about 8,600 games (about 3 s with reference in every seat;
    about 41 min with mcts:iterations=256 in every seat).'"""
    seat, strong = sec.headline("seat_share"), sec.headline("strong_seat_share")
    P = sec.setup.players
    head = ("The win rate" if P == 1 else "Seat effects")
    if with_players:
        head = f"With {P} player{'' if P == 1 else 's'}, {head[0].lower()}{head[1:]}"
    what = f"{head} to ±{_points(points)}: about {about_games(seat.games)} games"
    times = f"about {duration(seat.estimated_s)} with {sec.who}"
    if strong is not None:
        n = "" if about_games(strong.games) == about_games(seat.games) else f"{about_games(strong.games)} games, "
        times += f"; about {n}{duration(strong.estimated_s)} with {sec.strong} in every seat"
    return f"{what} ({times})."


def render_text(p: Plan) -> str:
    """The plan as a table per player count, then its sentence."""
    out = []
    head = ("figure", "now (pilot, 95% interval)", f"games for ±{p.points:g} pt", "estimated time")
    for sec in p.sections:
        s, pl = sec.setup, sec.pilot
        out.append(f"{p.game}, {s.players} player(s), {sec.who}, seed {p.seed}: games for 95% "
                   f"intervals of ±{_points(p.points)}, {p.jobs} job(s)")
        line = f"Pilot: {pl.games:,} games, timed at {pl.games_per_second:,.0f} games/s on {_threads(pl)}"
        if sec.strong_pilot is not None:
            sp = sec.strong_pilot
            line += (f"; strong play: {sp.games:,} games of {sec.strong} in every seat, timed at "
                     f"{sp.games_per_second:.3g} games/s on {_threads(sp)}")
        out.append(line)
        rows = [head] + [(f.label, _now(f), f"{f.games:,}", duration(f.estimated_s)) for f in sec.figures]
        w = [max(len(r[i]) for r in rows) for i in range(4)]
        out.append("")
        for r in rows:
            out.append(f"  {r[0]:<{w[0]}}  {r[1]:<{w[1]}}  {r[2]:>{w[2]}}  {r[3]:>{w[3]}}")
        out.append("")
        out.append(sentence(sec, p.points, len(p.sections) > 1))
        out.append("")
    first = p.sections[0]
    strong_n = next((sec.strong_pilot.games for sec in p.sections if sec.strong_pilot is not None), None)
    pilots = f"{first.pilot.games:,} games" + (f" ({strong_n:,} of strong play)" if strong_n else "")
    out.append(f"Times are estimates from a pilot of {pilots} on this machine with {p.jobs} job(s) "
               "(the games only: not starting cardlab or compiling); a busy machine is slower.")
    if strong_n or first.setup.searches:
        out.append("Search play is planned on the fair share: its pilot, a few games, only times it.")
    return "\n".join(out)
