"""Why capped games got stuck: a strategy that kept a move it would not make, or a dead end
of the rules.

A game the cap stops has no winner and no length of its own; the report should say *why* it
did not end.  Capped games are rare, so they are re-played here in Python from their (seed,
game index) with the game's compiled ``step``/``legal`` and its strategy dispatch (exactly as
the fast path plays them: ``cardlab.sim.positions.new_game`` and ``chooser``), and the last
stretch before the cap is examined decision by decision.

**A move that changes anything** (generic over the schema, no game-specific code): at a
decision, a legal action *changes something* when the card placement after it differs from
the placement after the action the strategy chose.  The placement is every card zone the
schema declares (``Schema.zone_parts``: piles up to their counter, counts, slots, masks,
tables), read right after ``step`` (which also plays the chance events up to the next
decision, from the same generator state in both copies).  Two actions that lead to the same
placement (two copies of one card, a play the rules turn into a no-op) are the same move.

**The stuck stretch** is the run of decisions before the cap in which no card moved (the
chosen moves left the placement as it was: a *frozen* table; Skyscraper's kernel ends such
a table after one whole round, so there it is that round), at most the last ``window``
decisions per seat (default 8); where cards kept moving to the end (draws, reshuffles,
cards passed around), the stretch is the last ``window`` decisions per seat.  Each capped
game gets one reason:

- ``strategy``: some seat had, at *every* one of its decisions in the stretch, a legal move
  that changes something and did not make it: the table stuck because of how it plays
  (a strategy artefact);
- ``rules``: no seat had, at any decision of the stretch, a legal move that changes anything
  other than the one it made: a dead end of the rules;
- ``mixed``: alternatives at some decisions only (neither of the above holds throughout).

Python use::

    from cardlab.analysis.stuck import stuck_games
    st = stuck_games(setup, scan=20_000, limit=100)
    st.counts          # {"strategy": ..., "rules": ..., "mixed": ...}
    st.to_dict()       # the ``stuck`` object of the report's JSON
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cardlab.analysis.stats import wilson
from cardlab.sim.schema import DONE, PILE

REASONS = ("strategy", "rules", "mixed")
REASON_TEXT = {
    "strategy": "a seat kept a legal move that changes the table and never made it (a strategy artefact)",
    "rules": "no seat had a legal move that changes anything (a dead end of the rules)",
    "mixed": "moves that change the table were there at some decisions only",
}
WINDOW = 8        # decisions per seat in the stuck stretch
SCAN = 20_000     # games scanned for capped ones (the first of the seed's sequence)
LIMIT = 100       # capped games re-played at most


def placement(schema, st: np.ndarray, players: int) -> tuple:
    """Where every card is: the words of every card zone of the schema (a pile up to its
    counter), as a hashable tuple."""
    out = []
    for p in schema.zone_parts():
        owners = range(players) if p.owner else [None]
        for seat in owners:
            if p.encoding == PILE:
                out.append(tuple(int(x) for x in schema.read(st, p.name, seat)))
            else:
                out.append(tuple(int(x) for x in st[p.block(seat)]))
    return tuple(out)


@dataclass
class StuckGame:
    index: int                     # the game index (with the setup's seed: reproducible)
    reason: str                    # one of REASONS
    decisions: list[int]           # decisions per seat in the stretch
    alternatives: list[int]        # ... of which had a legal move changing something else
    kept: list[int]                # seats that had one at every decision of the stretch
    frozen: bool = True            # the stretch is a frozen table (no card moved), not the
                                   # last decisions of a table whose cards kept moving

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "reason": self.reason, "decisions": self.decisions,
                "alternatives": self.alternatives, "kept_by_seats": self.kept,
                "frozen": self.frozen}


@dataclass
class Stuck:
    game: str
    seed: int
    scanned: int                   # games scanned
    capped: int                    # capped games among them
    games: list[StuckGame] = field(default_factory=list)   # the re-played ones
    window: int = WINDOW
    strategies: list[str] = field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        return {r: sum(g.reason == r for g in self.games) for r in REASONS}

    def kept_by(self) -> dict[str, int]:
        """Capped games in which a seat playing each strategy kept a move (strategy reason)."""
        out: dict[str, int] = {}
        for g in self.games:
            for name in sorted({self.strategies[s] for s in g.kept}):
                out[name] = out.get(name, 0) + 1
        return out

    def to_dict(self) -> dict[str, Any]:
        n = len(self.games)
        return {"scanned_games": self.scanned, "capped_games": self.capped, "classified": n,
                "window_per_seat": self.window, "counts": self.counts,
                "frozen_tables": sum(g.frozen for g in self.games),
                "shares": {r: (c / n if n else None) for r, c in self.counts.items()},
                "shares_ci": {r: (list(wilson(c, n)) if n else None) for r, c in self.counts.items()},
                "kept_by_strategy": self.kept_by(), "reasons": dict(REASON_TEXT),
                "games": [g.to_dict() for g in self.games]}

    def sentence(self) -> str:
        """One sentence for a verdict (empty when nothing was capped)."""
        n = len(self.games)
        if not n:
            return ""
        c = self.counts
        part = [f"{c['strategy']} because a seat kept a legal move that changes the table and never made "
                f"it (a strategy artefact{self._who()})",
                f"{c['rules']} because no seat had a legal move that changes anything (a dead end of "
                f"the rules)"]
        if c["mixed"]:
            part.append(f"{c['mixed']} with such moves at some decisions only")
        of = f"{n} of the {self.capped:,} capped games" if n < self.capped else f"the {n} capped games"
        return (f"Why games stuck ({of} in the first {self.scanned:,} games, re-played; the stretch "
                f"judged is the table's last moves without a card moving, at most {self.window} "
                f"decisions per seat): " + "; ".join(part) + ".")

    def _who(self) -> str:
        k = self.kept_by()
        return ("; kept by " + ", ".join(f"{name} in {v}" for name, v in k.items())) if k else ""


def classify(game, setup, index: int, window: int = WINDOW) -> StuckGame:
    """Re-play game ``index`` of ``setup`` and classify its last ``window`` decisions per
    seat (see the module notes)."""
    from cardlab.sim.positions import chooser, legal_actions, new_game

    M, L, S = game.model(), game.layout, game.schema
    P = setup.players
    ask = chooser(game)
    _, sids, params = setup.arrays()
    params = [tuple(float(x) for x in row) for row in params]
    st = new_game(game, setup, index)
    recent: deque = deque(maxlen=window * P)  # (position, did the chosen move move a card)
    before = placement(S, st, P)
    while st[L.S_PHASE] != DONE:
        pos = st.copy()
        me = int(st[L.S_ACTOR])
        M.step(st, tuple(int(x) for x in ask(int(sids[me]), st, me, params[me])))
        now = placement(S, st, P)
        recent.append((pos, now != before))
        before = now
    if not st[L.S_UNFINISHED]:
        raise ValueError(f"{game.id}: game {index} of seed {setup.seed} finished: it is not capped")
    # the stretch: the decisions since a card last moved (a table frozen until the cap), or,
    # where cards keep moving (draws, reshuffles) to the end, the last ``window`` per seat
    still = 0
    for _, moved in reversed(recent):
        if moved:
            break
        still += 1
    frozen = still > 0
    stretch = [pos for pos, _ in list(recent)[len(recent) - still:]] if frozen else [pos for pos, _ in recent]
    decisions, alternatives = [0] * P, [0] * P
    for pos in stretch:
        me = int(pos[L.S_ACTOR])
        pos = pos.copy()
        chosen = tuple(int(x) for x in ask(int(sids[me]), pos, me, params[me]))
        after = pos.copy()
        M.step(after, chosen)
        base = placement(S, after, P)
        other = False
        for act in legal_actions(game, pos):
            if act == chosen:
                continue
            alt = pos.copy()
            M.step(alt, act)
            if placement(S, alt, P) != base:
                other = True
                break
        decisions[me] += 1
        alternatives[me] += other
    kept = [s for s in range(P) if decisions[s] and alternatives[s] == decisions[s]]
    reason = "strategy" if kept else ("rules" if not any(alternatives) else "mixed")
    return StuckGame(index, reason, decisions, alternatives, kept, frozen)


def stuck_games(setup, scan: int = SCAN, limit: int = LIMIT, window: int = WINDOW,
                jobs: int | None = None) -> Stuck:
    """Find the capped games among the first ``scan`` games of ``setup`` (the fast path with
    per-game rows) and classify up to ``limit`` of them, the first ones by index (so the
    answer depends on the seed and these counts only)."""
    from cardlab.sim import runner

    game = setup.game
    res = runner.run(setup, scan, jobs, keep_rows=True)
    capped = [int(g) for g in np.nonzero(res.rows[:, 1])[0]]
    out = Stuck(game.id, setup.seed, scan, len(capped), window=window,
                strategies=[s.label for s in setup.seats])
    for g in capped[:limit]:
        out.games.append(classify(game, setup, g, window))
    return out
