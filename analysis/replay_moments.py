"""Where a replay should open, and each seat's progress over the game (issue 35).

A replay linked from a finding should open at the moment that shows it, not at event 1 of
322: the last lead change of a comeback, the play that puts the winner ahead for good, the
point where a capped game stops going anywhere.  And the page should show the lead at a
glance: each seat's progress as a strip above the table (``analysis/replay_view.py``).

**The series.** Each seat's progress after every event: the game's own progress score
(``progress(st, seat)`` of its rules, reached through ``Game.model()``: higher is closer to
winning; floors, chimneys, points, minus the cards left) on the event's zone snapshot.  It
is the very number ``sim/shape.py`` samples, so the strip and the lead it shows are the
fast path's.  A trace's JSON holds decoded zones, not the snapshots, so the series comes
from the game played again in trace mode from its setup and index (``game_story``; the
same kernel, a few milliseconds); a game without a declared progress has none.

**The lead** is ``sim/shape.py``'s: the sole leader (the one seat with the highest
progress; a shared top is nobody) at the end of each turn (or round) of the game's length,
which is the snapshot of the turn's last event; a lead change is a new sole leader (the
first is none, a shared top in between does not count); the winner leads for good from
the first turn of the final run of its lead (the decided point).  Which events belong to
turn ``t``: the events' ``turn`` field where it counts the game's length, else a counter
of the zones named for its unit (Block Tower's length is in rounds: ``round``, 0-based);
``game_story`` keeps the first reading whose sole leader at the end of every turn is the
one the fast path noted (``sim/trace.read_lead``; the conformance kit's ``lead_in_trace``
check holds every game to it), so its lead changes and decided point are the game's row's
and the strip agrees with the pick's text ("the lead changed 14 times").

**The telling moment** of each pick (``find_moment``), an event index (0-based) and why:

- ``comeback``: the last lead change (the eventual winner taking the lead for good);
- ``typical``, ``lopsided``, ``seat0_win``: the play that puts the single winner ahead for
  good (none when the win is shared or the winner does not lead at the end);
- ``closest``: the last lead change, else the final event;
- ``longest``: the final event;
- ``capped``: where the game stalls: the first event after which no seat's progress
  changes up to the cap (and, with ``analysis/stuck.py``'s notion, from where no card
  moves at all, when the table froze).

Within the turn where the lead is taken, the moment is the event from which the seat is
sole leader through the turn's end (the play that did it, not the turn's last event).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from cardlab.sim.trace import read_lead, sole_leader, tables, turn_ends


@dataclass(frozen=True)
class Moment:
    event: int       # 0-based index into the trace's events
    why: str         # one sentence


@dataclass(frozen=True)
class Take:
    """A new sole leader at the end of turn ``turn`` (pinned to ``event``)."""
    turn: int
    event: int
    seat: int
    change: bool     # False for the first sole leader of the game


@dataclass
class Story:
    """A traced game's progress and lead: ``values[s][k]`` is seat s's progress after
    event k (None: the game declares no progress), ``periods[k]`` the turn (or round) of
    the game's length event k belongs to."""
    events: int
    length: int
    winners: list[int]
    unfinished: bool
    unit: str = "turns"
    what: str = ""
    values: list[list[int]] | None = None
    periods: list[int] | None = None
    frozen_from: int | None = None   # the first event of the final stretch without a card moving
    period_of: str = ""              # where ``periods`` was read: "turn", a zones counter, "event"
    exact: bool = True               # its leader at every turn's end is the one the fast path noted
    takes: list[Take] = field(default_factory=list)
    samples: list[tuple[int, int]] = field(default_factory=list)  # per turn 1..length: (event, leader)

    @property
    def players(self) -> int:
        return len(self.values) if self.values else 0

    @property
    def lead_changes(self) -> int:
        return sum(t.change for t in self.takes)

    def leader_at(self, k: int) -> int:
        """The sole leader after event k, -1 when the top is shared (or no progress)."""
        if not self.values:
            return -1
        return sole_leader([v[k] for v in self.values])

    def decided(self) -> int | None:
        """The decided turn: from its end on, the single winner is the sole leader at the
        end of every turn (``sim/shape.py``'s decided point, as a turn); None when the win
        is shared or the winner does not lead at the end."""
        if len(self.winners) != 1 or self.unfinished or not self.samples:
            return None
        codes = [c for _, c in self.samples]
        if codes[-1] != self.winners[0]:
            return None
        d = len(codes)
        while d > 1 and codes[d - 2] == codes[-1]:
            d -= 1
        return d

    def strip(self, marks: Sequence[tuple[str, Moment]] = ()) -> dict[str, Any] | None:
        """What the viewer's strip draws (``replay_view.render_replay(strip=...)``): the
        series and the marked moments ((title, moment), same events joined)."""
        if not self.values or self.players < 1:
            return None
        moments: dict[int, dict[str, Any]] = {}
        for title, m in marks:
            at = moments.setdefault(m.event, {"e": m.event, "titles": [], "why": []})
            if title not in at["titles"]:
                at["titles"].append(title)
                at["why"].append(m.why)
        return {"what": self.what, "values": self.values,
                "moments": [{"e": k, "title": " / ".join(v["titles"]), "why": " ".join(dict.fromkeys(v["why"]))}
                            for k, v in sorted(moments.items())]}


# ------------------------------------------------------------------ the lead
def pin(values: list[list[int]], lo: int, hi: int, seat: int) -> int:
    """The first event in (lo, hi] from which ``seat`` is the sole leader through ``hi``:
    the play that gave it the lead (``hi`` itself when no event lies between)."""
    k = hi
    while k - 1 > lo and sole_leader([v[k - 1] for v in values]) == seat:
        k -= 1
    return k


def lead_story(story: Story) -> Story:
    """Fill ``story.samples`` and ``story.takes`` from its values and periods."""
    story.samples, story.takes = [], []
    if not story.values or not story.periods:
        return story
    story.samples = turn_ends(story.values, story.periods, story.length)
    leader = -1
    for t, (ev, code) in enumerate(story.samples, 1):
        if code != -1 and code != leader:
            lo = story.samples[t - 2][0] if t > 1 else -1
            story.takes.append(Take(t, pin(story.values, lo, ev, code), code, leader != -1))
            leader = code
    return story


# ------------------------------------------------------------------ a traced game's story
def game_story(setup, index: int, lines: list[dict[str, Any]]) -> Story:
    """The story of traced game ``index`` of ``setup`` (``lines``: its trace): every seat's
    progress after every event and the lead, read as the fast path reads it
    (``sim/trace.read_lead``)."""
    from cardlab.analysis.stuck import placement

    game, P = setup.game, setup.players
    events, result = lines[1:-1], lines[-1]
    story = Story(len(events), int(result["length"]), list(result["winners"]), bool(result["unfinished"]),
                  game.length_unit, game.progress_what)
    lead = read_lead(setup, index, lines)
    if lead is None:
        return story
    story.values, story.period_of, story.periods, story.exact = lead.values, lead.period_of, lead.periods, lead.exact
    if story.unfinished:  # where the table froze (stuck.py's notion): capped games only
        frozen_from, before = len(events) - 1, None
        for k, full in enumerate(tables(game, lead.snaps)):
            now = placement(game.schema, full, P)
            if now != before:
                frozen_from = k + 1  # a card moved at event k: no stretch yet
            before = now
        story.frozen_from = frozen_from if frozen_from < len(events) else None
    return lead_story(story)


# ------------------------------------------------------------------ the moment of a pick
def _unit1(unit: str) -> str:
    return unit[:-1] if unit.endswith("s") else unit


def _result(story: Story) -> str:
    w = story.winners
    if story.unfinished:
        return "the cap stops it"
    if not w:
        return "nobody wins"
    return f"seat {w[0]} wins" if len(w) == 1 else "seats " + " and ".join(map(str, w)) + " share the win"


def end_moment(story: Story) -> Moment | None:
    if story.events < 1:
        return None
    return Moment(story.events - 1, f"The end, after {story.length} {story.unit}: {_result(story)}.")


def last_change(story: Story) -> Moment | None:
    """The last lead change: the new leader, its turn, and whether it keeps the lead."""
    changes = [t for t in story.takes if t.change]
    if not changes:
        return None
    t, n = changes[-1], len(changes)
    keeps = story.decided() == t.turn  # the new leader is the winner, sole leader from then on
    return Moment(t.event, f"The lead changes for the last time (change {n} of {n}): seat {t.seat} takes it "
                           f"in {_unit1(story.unit)} {t.turn} of {story.length}"
                           + (" and keeps it to the end." if keeps else "."))


def decisive(story: Story) -> Moment | None:
    """The play that puts the single winner ahead for good."""
    d = story.decided()
    if d is None or story.players < 2:
        return None
    w = story.winners[0]
    lo = story.samples[d - 2][0] if d > 1 else -1
    k = pin(story.values, lo, story.samples[d - 1][0], w)
    n, when = story.lead_changes, f"{_unit1(story.unit)} {d} of {story.length}"
    if not n:
        return Moment(k, f"Seat {w} leads for good from {when} (the lead never changes hands).")
    return Moment(k, f"Seat {w} takes the lead for good in {when} and keeps it to the end ({n} lead "
                     f"change{'' if n == 1 else 's'} in the game).")


def stall(story: Story) -> Moment | None:
    """Where a capped game stops going anywhere: the first event of the final stretch in
    which no seat's progress changes."""
    if not story.values or story.events < 1:
        return None
    N = story.events
    moved = [k for k in range(1, N) if any(v[k] != v[k - 1] for v in story.values)]
    if moved and moved[-1] == N - 1:
        return Moment(N - 1, f"Progress still moves at the last event: the cap stops the game after "
                             f"{story.length} {story.unit}.")
    m = moved[-1] + 1 if moved else 0
    span = ""
    if story.periods and story.period_of != "event":
        turns = story.periods[-1] - story.periods[m] + 1
        span = f" ({turns} {_unit1(story.unit) if turns == 1 else story.unit})"
    why = (f"The game stalls here: from event {m + 1} on, no seat's progress ({story.what}) changes in the "
           f"last {N - m} event{'' if N - m == 1 else 's'}{span} before the cap stops it")
    f = story.frozen_from
    if f is not None and f > m and N - f >= 2:
        why += f"; from event {f + 1} on no card moves at all"
    elif f is not None and f <= m:
        why += "; no card moves at all in that stretch"
    return Moment(m, why + ".")


def find_moment(name: str, story: Story) -> Moment | None:
    """The telling moment of pick ``name`` (``replay_picks.ORDER``) in ``story``, or None
    (the replay then opens at its first event)."""
    if name == "longest":
        return end_moment(story)
    if name == "capped":
        return stall(story) if story.unfinished else None
    if story.unfinished or story.players < 2:
        return None
    if name == "comeback":
        return last_change(story) or decisive(story)
    if name == "closest":
        return last_change(story) or end_moment(story)
    return decisive(story)
