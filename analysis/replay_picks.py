"""The sampled games a report embeds as replays, each chosen to show something.

A small sample run of the report's own setup (the first ``SAMPLE_GAMES`` game indices of
its seed: the same games as the report's first games) keeps its per-game rows (length,
unfinished, winners, scores: ``runner.run(..., keep_rows=True)``).  From them:

- ``typical``: a finished game whose length is the sample's median (the first such);
- ``longest``: the longest finished game;
- ``capped``: the first game the cap stopped, when any did;
- ``closest`` / ``lopsided``: the single-winner finished games with the smallest and the
  largest margin between the winner's score and the best other seat's.  Whether a higher
  score is better is read off the sample (winners' scores against the others'), so a game
  scored in cards left (3UP) counts the right way round; a game whose scores never differ
  (Crazy Eights scored ``win``) has no margin and neither pick.  A margin is only telling
  when the score ranks the winners: when in more than ``RANK_SHARE`` (1 in 20) of the
  single-winner finished games the winner scored less than another seat (a game won by
  something other than the score, e.g. the last seat standing), neither is picked and the
  report says why under its list of replays (``pick``'s ``notes``); else both come from
  the games in which the winner scored at least as well as every other seat (a negative
  margin is never "closest").  When those games' margins are all equal only ``closest`` is picked (its
  ``why`` says so), never one game twice under two names;
- ``seat0_win``: a typical game won by seat 0 alone (the one shown for a seat edge).

- ``comeback``: the biggest comeback: of the games whose leader at half time did not win
  (the shape columns of the rows, ``sim/tally.SHAPE_ROW_COLS``), the one with the most lead
  changes (the first of them when several tie).
Each pick is then traced (``sim/trace.py``: the same kernel, so its result is the row's)
and written as a viewer page ``replays/NAME.html``; two picks of one game share a page.
Each has a telling moment (``analysis/replay_moments.py``: the last lead change of the
comeback, the play that puts the winner ahead for good, where a capped game stalls, the
end of the longest), and its ``href`` opens the page there (``replays/NAME.html#e=N``,
N 1-based; the plain page where it has none); the page draws each seat's progress as a
strip above the table with the moments marked.

Each finding (``analysis/findings.py``) links the replays that show it (``LINKS``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cardlab.analysis.replay_moments import Moment, Story, find_moment, game_story
from cardlab.sim.tally import SHAPE_ROW_COLS

SAMPLE_GAMES = 2_000
# the largest share of the single-winner finished games in which the winner may score less
# than another seat for the score still to rank the winners (and margins to mean anything)
RANK_SHARE = 0.05

ORDER = ("typical", "longest", "capped", "closest", "lopsided", "comeback", "seat0_win")
TITLES = {"typical": "A typical game", "longest": "The longest game", "capped": "A game stopped by the cap",
          "closest": "The closest finish", "lopsided": "The most lopsided game",
          "comeback": "The biggest comeback",
          "seat0_win": "A typical game won by seat 0"}

# finding kind -> the replays that show it, best first (the first that exists is linked
# first; every one that exists is linked)
LINKS: dict[str, tuple[str, ...]] = {
    "unfinished": ("capped",),
    "runaway_leader": ("lopsided", "comeback", "typical"),
    "decided_early": ("lopsided", "typical"),
    "seat_edge": ("seat0_win", "typical"),
    "dominant_strategy": ("typical",),
    "causal_card": ("typical", "lopsided"),
    "card_value": ("typical", "lopsided"),      # a headline's kind (analysis/headlines.py)
    "never_played": ("typical",),
    "always_played": ("typical",),
}
DEFAULT_LINKS = ("typical",)


@dataclass
class Replay:
    name: str
    index: int            # game index in the setup's seed sequence
    why: str
    length: int
    unfinished: bool
    winners: list[int]
    scores: list[int]
    href: str = ""        # the link: the page, opened at the moment (``#e=N``) when there is one
    page: str = ""        # the page's file (relative to the report)
    moment: Moment | None = None
    lines: list[dict[str, Any]] = field(default_factory=list, repr=False)
    story: Story | None = field(default=None, repr=False)

    @property
    def title(self) -> str:
        return TITLES.get(self.name, self.name)

    def to_dict(self) -> dict[str, Any]:
        m = self.moment
        return {"name": self.name, "title": self.title, "why": self.why, "game_index": self.index,
                "href": self.href, "page": self.page or self.href.split("#")[0],
                "moment": None if m is None else m.event, "moment_why": None if m is None else m.why,
                "length": self.length, "unfinished": self.unfinished,
                "winners": self.winners, "scores": self.scores}


def _first_closest(values: np.ndarray, idx: np.ndarray, target: float) -> int:
    """The first index of ``idx`` whose value is closest to ``target``."""
    return int(idx[np.argmin(np.abs(values[idx] - target))])


def margins(rows: np.ndarray, players: int) -> tuple[np.ndarray, np.ndarray, int]:
    """(game indices with one winner that finished, their winning margins, direction):
    direction +1 when a higher score is better, -1 when lower, 0 when scores never differ
    (then no margins)."""
    unf, mask = rows[:, 1], rows[:, 2]
    scores = rows[:, 3:3 + players].astype(np.float64)
    single = (unf == 0) & (mask > 0) & ((mask & (mask - 1)) == 0)
    idx = np.flatnonzero(single)
    if players < 2 or idx.size == 0:
        return idx[:0], np.zeros(0), 0
    winner = np.log2(mask[idx]).round().astype(np.int64)
    mine = scores[idx, winner]
    others = scores[idx].copy()
    others[np.arange(idx.size), winner] = np.nan
    gap = mine - np.nanmean(others, axis=1)
    if not np.any(gap):
        return idx[:0], np.zeros(0), 0
    direction = 1 if gap.mean() > 0 else -1
    best_other = np.nanmax(others, axis=1) if direction > 0 else np.nanmin(others, axis=1)
    return idx, direction * (mine - best_other), direction


def margin_picks(rows: np.ndarray, players: int,
                 score_name: str = "score") -> tuple[list[tuple[str, int, str]], str]:
    """(the ``closest`` and ``lopsided`` picks, as ``pick``'s, and a sentence saying why they
    are not made, "" when they are or when the scores never differ).

    The rule: when the winner scored less than another seat in more than ``RANK_SHARE`` of
    the single-winner finished games, the score does not rank the winners and neither is
    picked; else both come from the games whose winner scored at least as well as every
    other seat (margin >= 0), and when all their margins are equal only ``closest`` is."""
    n = len(rows)
    idx, m, direction = margins(rows, players)
    if not idx.size:
        return [], ""
    mask = rows[:, 2]
    below = int(np.count_nonzero(m < 0))
    if below > RANK_SHARE * idx.size:
        score = "score" if score_name == "score" else f"score ({score_name.replace('_', ' ')})"
        return [], (f"No closest finish or most lopsided game: in {below:,} of the {idx.size:,} single-winner "
                    f"finished games of a {n:,}-game sample the winner scored less than another seat, so the "
                    f"{score} does not rank the winners.")
    keep = m >= 0
    idx, m = idx[keep], m[keep]
    left_out = (f"; {below:,} game{'s' if below > 1 else ''} in which the winner scored less than another seat "
                "left out" if below else "")

    def score_line(i: int) -> str:
        w = int(mask[i]).bit_length() - 1
        sc = [int(x) for x in rows[i, 3:3 + players]]
        others = [x for s, x in enumerate(sc) if s != w]
        best = max(others) if direction > 0 else min(others)
        return f"seat {w} won, {score_name.replace('_', ' ')} {sc[w]} against the best other seat's {best}"

    i = int(idx[np.argmin(m)])
    if m.min() == m.max():
        if idx.size == 1:
            return [("closest", i, f"The only single-winner finished game of a {n:,}-game sample (margin {m[0]:g}), "
                     f"so there is no most lopsided game apart from it: {score_line(i)}.")], ""
        return [("closest", i, f"Every one of the {idx.size:,} single-winner finished games of a {n:,}-game sample "
                 f"was won by the same margin, {m[0]:g}{left_out}, so none is closer or more lopsided than "
                 f"another; this is the first: {score_line(i)}.")], ""
    out = [("closest", i, f"The closest finish of a {n:,}-game sample (margin {m.min():g}{left_out}): "
            f"{score_line(i)}.")]
    i = int(idx[np.argmax(m)])
    out.append(("lopsided", i, f"The most lopsided game of a {n:,}-game sample (margin {m.max():g}; the median "
                f"margin is {float(np.median(m)):g}{left_out}): {score_line(i)}."))
    return out, ""


def pick(rows: np.ndarray, players: int, unit: str = "turns", score_name: str = "score",
         notes: list[str] | None = None) -> list[tuple[str, int, str]]:
    """(name, game index, why) for every pick the rows allow, in ``ORDER``; a sentence for
    each pick the rows could not make meaningfully (``margin_picks``) is appended to
    ``notes`` when given."""
    n = len(rows)
    length, unf, mask = rows[:, 0], rows[:, 1], rows[:, 2]
    done = np.flatnonzero(unf == 0)
    out: list[tuple[str, int, str]] = []
    if done.size:
        med = float(np.median(length[done]))
        i = _first_closest(length, done, med)
        out.append(("typical", i, f"Its length, {int(length[i])} {unit}, is the median of the {done.size:,} "
                    f"finished games of a {n:,}-game sample."))
        i = int(done[np.argmax(length[done])])
        out.append(("longest", i, f"The longest finished game of a {n:,}-game sample: {int(length[i])} {unit} "
                    f"(the median is {med:g})."))
    capped = np.flatnonzero(unf != 0)
    if capped.size:
        i = int(capped[0])
        out.append(("capped", i, f"Stopped by the cap after {int(length[i])} {unit}: {capped.size:,} of the "
                    f"{n:,} sampled games ({100 * capped.size / n:.1f}%) were."))
    found, note = margin_picks(rows, players, score_name)
    out += found
    if note and notes is not None:
        notes.append(note)
    if rows.shape[1] > 3 + players + SHAPE_ROW_COLS - 1:  # the shape columns end every row
        lead, back = rows[:, -SHAPE_ROW_COLS], rows[:, -SHAPE_ROW_COLS + 1]
        cb = np.flatnonzero((unf == 0) & (back == 1))
        if cb.size:
            i = int(cb[np.argmax(lead[cb])])
            out.append(("comeback", i, f"The biggest comeback of a {n:,}-game sample: the leader at half time "
                        f"lost, and the lead changed {int(lead[i])} times ({cb.size:,} of the sampled games "
                        "were comebacks)."))
    won0 = np.flatnonzero((unf == 0) & (mask == 1))
    if players > 1 and won0.size:
        i = _first_closest(length, won0, float(np.median(length[won0])))
        out.append(("seat0_win", i, f"A game seat 0 won alone, of median length among the {won0.size:,} such games "
                    f"of a {n:,}-game sample ({int(length[i])} {unit})."))
    return out


class Replays(list):
    """The sampled replays (a list of ``Replay``) and ``notes``: a sentence for each pick
    the sample could not make meaningfully (``margin_picks``), which the report prints
    under its list of replays."""

    def __init__(self, replays=(), notes=()):
        super().__init__(replays)
        self.notes: list[str] = list(notes)


def sample_replays(setup, games: int = SAMPLE_GAMES, jobs: int | None = None) -> Replays:
    """The report's replays: a ``games``-game sample run of ``setup`` with its rows, the
    picks, each traced, with its story (progress and lead) and telling moment; and the
    notes of the picks it could not make."""
    from cardlab.sim import runner
    from cardlab.sim.trace import trace

    game = setup.game
    res = runner.run(setup, games, jobs, keep_rows=True)
    rows = np.asarray(res.rows)
    P = setup.players
    traces: dict[int, list[dict[str, Any]]] = {}
    stories: dict[int, Story] = {}
    out = Replays()
    for name, i, why in pick(rows, P, game.length_unit, game.score_name, out.notes):
        if i not in traces:
            traces[i] = trace(setup, i)
            stories[i] = game_story(setup, i, traces[i])
        r = rows[i]
        out.append(Replay(name, i, why, int(r[0]), bool(r[1]),
                          [s for s in range(P) if (int(r[2]) >> s) & 1], [int(x) for x in r[3:3 + P]],
                          moment=find_moment(name, stories[i]), lines=traces[i], story=stories[i]))
    return out


def link_findings(findings: list[dict[str, Any]], replays: list[Replay]) -> None:
    """Give every finding its ``replays``: the hrefs of the replays that show it (each opens
    its page at the replay's moment: ``replays/NAME.html#e=N``)."""
    by_name = {r.name: r for r in replays}
    for f in findings:
        hrefs = []
        for name in LINKS.get(f["kind"], DEFAULT_LINKS):
            r = by_name.get(name)
            if r is not None and r.href not in hrefs:
                hrefs.append(r.href)
        f["replays"] = hrefs


def moment_href(page: str, moment: Moment | None) -> str:
    """The link that opens ``page`` at ``moment`` (the viewer's ``#e=N``, N 1-based), the
    plain page without one."""
    return page if moment is None else f"{page}#e={moment.event + 1}"


def write_replays(replays: list[Replay], out: Path, folder: str = "replays", back: str = "../index.html") -> None:
    """Write each replay's viewer page into ``out/folder`` (two picks of one game share the
    first one's page; its strip marks both moments) and set its ``page`` and ``href``
    (relative to ``out``; the ``href`` opens the page at the replay's moment)."""
    from cardlab.analysis.replay_view import write_replay

    seen: dict[int, str] = {}
    for r in replays:
        if r.index in seen:
            r.page = seen[r.index]
            r.href = moment_href(r.page, r.moment)
            continue
        r.page = f"{folder}/{r.name}.html"
        r.href = moment_href(r.page, r.moment)
        seen[r.index] = r.page
        also = [x for x in replays if x.index == r.index and x is not r]
        why = r.why + "".join(f" Also {x.title.lower()}: {x.why}" for x in also)
        marks = [(x.title, x.moment) for x in [r, *also] if x.moment is not None]
        strip = r.story.strip(marks) if r.story is not None else None
        write_replay(r.lines, out / r.page, title=f"{r.title}: {r.lines[0]['game']}, game {r.index}",
                     why=why, back=back, strip=strip)
