"""Tallies: sufficient statistics of many games in one int64 vector that merges by addition.

Every count is an integer, including win shares (a win shared by k seats adds
``WIN_UNIT // k`` to each), so merging chunks in any order gives identical bytes: the
result depends on the seed and the game count only, never on ``--jobs``.

Layout of the vector (offsets in ``TallyLayout``), for ``maxp`` seats and ``n_types``
card types:

    games, no_winner, unfinished, length_sum
    win[maxp]                      win units per seat
    end[n_end]                     games per end condition
    events[n_events]               event counts summed over games
    score[maxp], score_sq[maxp]    the game's score per seat (e.g. floors), and its square
    held[maxp, n_types]            games in which the seat ever held a card of the type
    held_win[maxp, n_types]        ... and the seat's win units in those games
    played[maxp, n_types]          games in which the seat ever played it
    played_win[maxp, n_types]
    shape[SHAPE_WORDS]             the shape of the finished games (sim/shape.py, SHAPE_FIELDS)
    hist[2 * (max_length + 1)]     games by length (turns or rounds) and whether the cap
                                   stopped them: word 2 t + 0 counts the games that finished
                                   at length t, word 2 t + 1 those the cap stopped at t (a
                                   game can also *finish* on the cap's last turn, so the
                                   cap's bin alone cannot tell the two apart); interleaved so
                                   that every offset stays independent of the rules' cap
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

WIN_UNIT = 840  # lcm(1..8): divisible by every possible number of sharing winners

# The shape tallies (``sim/shape.py``), all over the games that finished (not capped):
SHAPE_FIELDS = (
    "measured",        # finished games
    "lead_changes",    # lead changes summed over them ...
    "lead_changes_sq",  # ... and their squares
    "won",             # finished games with a winner
    "half_led",        # ... that had a sole leader at half the game's length
    "comebacks",       # ... who did not win
    "half_unlogged",   # won games too long for the leader log (half past SHAPE_LOG_TURNS)
    "decided",         # won games whose single winner is the sole leader at the end
    "decided_milli",   # ... the decided point in thousandths, summed ...
    "decided_milli_sq",  # ... and squared
    "shared",          # won games with more than one winner (no single eventual winner)
    "behind",          # won games whose single winner is not the sole leader at the end
    "close",           # won games whose winner's margin is at most the game's close margin
)
DECIDED_BINS = 20      # the decided point's histogram: bin b holds (b/20, (b+1)/20]
SHAPE_WORDS = len(SHAPE_FIELDS) + DECIDED_BINS
SH = {name: i for i, name in enumerate(SHAPE_FIELDS)}
SH_DECIDED_HIST = len(SHAPE_FIELDS)
# per-game row columns after the scores: lead changes, comeback, decided point (1/1000), close
SHAPE_ROW_COLS = 4


@dataclass(frozen=True)
class TallyLayout:
    maxp: int
    n_types: int
    n_end: int
    n_events: int

    @property
    def games(self): return 0
    @property
    def no_winner(self): return 1
    @property
    def unfinished(self): return 2
    @property
    def length_sum(self): return 3
    @property
    def win(self): return 4
    @property
    def end(self): return self.win + self.maxp
    @property
    def events(self): return self.end + self.n_end
    @property
    def score(self): return self.events + self.n_events
    @property
    def score_sq(self): return self.score + self.maxp
    @property
    def held(self): return self.score_sq + self.maxp
    @property
    def held_win(self): return self.held + self.maxp * self.n_types
    @property
    def played(self): return self.held_win + self.maxp * self.n_types
    @property
    def played_win(self): return self.played + self.maxp * self.n_types
    @property
    def shape(self): return self.played_win + self.maxp * self.n_types
    @property
    def hist(self): return self.shape + SHAPE_WORDS

    def size(self, max_length: int) -> int:
        return self.hist + 2 * (max_length + 1)

    def new(self, max_length: int) -> np.ndarray:
        return np.zeros(self.size(max_length), dtype=np.int64)


class Tally:
    """Named read access to a merged tally vector (all arrays are views or copies)."""

    def __init__(self, layout: TallyLayout, data: np.ndarray, players: int):
        self.layout = layout
        self.data = data
        self.players = players

    def _block(self, off: int, n: int) -> np.ndarray:
        return self.data[off:off + n]

    def _seat_types(self, off: int) -> np.ndarray:
        L = self.layout
        return self.data[off:off + L.maxp * L.n_types].reshape(L.maxp, L.n_types)[: self.players]

    @property
    def games(self) -> int: return int(self.data[self.layout.games])
    @property
    def no_winner(self) -> int: return int(self.data[self.layout.no_winner])
    @property
    def unfinished(self) -> int: return int(self.data[self.layout.unfinished])
    @property
    def length_sum(self) -> int: return int(self.data[self.layout.length_sum])
    @property
    def win_units(self) -> np.ndarray: return self._block(self.layout.win, self.players)
    @property
    def wins(self) -> np.ndarray:
        """Win shares per seat (shared wins split evenly)."""
        return self.win_units / WIN_UNIT
    @property
    def end(self) -> np.ndarray: return self._block(self.layout.end, self.layout.n_end)
    @property
    def events(self) -> np.ndarray: return self._block(self.layout.events, self.layout.n_events)
    @property
    def score(self) -> np.ndarray: return self._block(self.layout.score, self.players)
    @property
    def score_sq(self) -> np.ndarray: return self._block(self.layout.score_sq, self.players)
    @property
    def held(self) -> np.ndarray: return self._seat_types(self.layout.held)
    @property
    def held_win(self) -> np.ndarray: return self._seat_types(self.layout.held_win) / WIN_UNIT
    @property
    def played(self) -> np.ndarray: return self._seat_types(self.layout.played)
    @property
    def played_win(self) -> np.ndarray: return self._seat_types(self.layout.played_win) / WIN_UNIT
    def shape(self, name: str) -> int:
        """A shape tally by its name in ``SHAPE_FIELDS``."""
        return int(self.data[self.layout.shape + SH[name]])

    @property
    def decided_hist(self) -> np.ndarray:
        """Won games by their decided point, ``DECIDED_BINS`` bins of equal width."""
        o = self.layout.shape + SH_DECIDED_HIST
        return self.data[o:o + DECIDED_BINS]

    @property
    def finished_hist(self) -> np.ndarray:
        """Finished games (not stopped by the cap) by length: what every length figure
        (mean, median, quantiles, histogram) is computed from."""
        return self.data[self.layout.hist::2]

    @property
    def cap_hist(self) -> np.ndarray:
        """Games stopped by the cap (unfinished) by the length they stopped at."""
        return self.data[self.layout.hist + 1::2]

    @property
    def hist(self) -> np.ndarray:
        """Every game by length, capped games at the length where they stopped."""
        return self.finished_hist + self.cap_hist
