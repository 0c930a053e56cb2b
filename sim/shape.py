"""The shape of a game: who leads, when the lead changes, when the game is decided.

Each game declares a per-seat **progress score** (``progress(st, seat)`` in its
``moves.py``, higher is closer to winning: floors, chimneys, points, minus the cards
left) and, in its schema, what it counts and the margin of a close finish
(``S.progress("floors", close=1)``).  The **standing** is the sole leader, the one seat
with the highest progress, or nobody when the top is shared.

When it is sampled.  A game calls ``turn_over(st, ENGINE, progress, t)`` where turn (or
round) ``t`` of its length ends, just before its turn counter moves on; the engine
(``sim/engine.py``) notes the final standing once the game is over.  So the standing of
turn ``t`` is the table at the end of turn ``t``, after every consequence of its plays
and before anything of the next turn (the next seat's automatic draws, say).  That is
also exactly what a trace shows: the snapshot of the last event of turn ``t`` (or of an
earlier turn when turn ``t`` had no event), which is how the tests recount these
figures and how the replay viewer draws the lead; so progress must not change between
``turn_over(..., t)`` and the last event stamped ``t`` (the conformance kit's
``lead_in_trace`` check; ``noted`` below reads the standings back).  The engine's
decision loop could not sample this: one ``step`` can end one turn and open the next
(Crazy Eights draws for the next seat inside the step that ends a turn), so the loop
only ever sees a turn already under way.

What is kept (the ``shape`` part of the state, cleared by the engine before each game;
bounded, no per-game arrays): the last sole leader, the current standing and the turn it
began, the lead changes so far, a log of the standing at every earlier turn (4 bits a
turn, the first ``LOG_TURNS`` turns, written when the standing changes: it answers "who
led at half the game's length" once the length is known), and the final progress per
seat.  A turn that changes nothing costs the progress of each seat and one comparison.
``record_shape`` folds a finished game into the tally (``sim/tally.SHAPE_FIELDS``):

- **lead changes**: the sole leader becomes a different seat (a shared top in between
  does not count; the first sole leader is not a change);
- **comeback**: among won games with a sole leader at turn ``length // 2``, that leader
  is not among the winners;
- **decided point**: d / length, where from the end of turn d on the single winner is the
  sole leader at every turn (the share of the game after which it leads for good); a
  shared win or a winner who is not the sole leader at the end counts apart;
- **close finish**: the winners' lowest final progress minus the best loser's is at most
  the game's close margin (a table where every seat wins is close).

Capped games are left out of every figure (they have no length of their own).

A game's end is one call, ``finish(st, E, mask, length, unfinished, end)``: the result
where the engine reads it (winners, length, capped, how it ended) and no decision pending.
"""
import numpy as np
from numba import njit

from cardlab.sim.jit import helper
from cardlab.sim.record import L_SHAPE
from cardlab.sim.schema import DONE, SHAPE_HEAD, SHAPE_LOG_WORDS
from cardlab.sim.tally import DECIDED_BINS, SH, SH_DECIDED_HIST, SHAPE_ROW_COLS

# the head of the shape part, then the log (SHAPE_LOG_WORDS), then the final progress
H_TURN, H_LEAD, H_CODE, H_SINCE, H_CHANGES = range(SHAPE_HEAD)  # H_TURN: the last change
LOG = SHAPE_HEAD
FINAL = SHAPE_HEAD + SHAPE_LOG_WORDS
LOG_TURNS = 16 * SHAPE_LOG_WORDS
ROW_COLS = SHAPE_ROW_COLS

T_MEASURED, T_LC, T_LC_SQ, T_WON, T_HALF_LED, T_COMEBACKS, T_HALF_UNLOGGED, T_DECIDED, \
    T_DEC_MILLI, T_DEC_MILLI_SQ, T_SHARED, T_BEHIND, T_CLOSE = (
        SH["measured"], SH["lead_changes"], SH["lead_changes_sq"], SH["won"], SH["half_led"],
        SH["comebacks"], SH["half_unlogged"], SH["decided"], SH["decided_milli"],
        SH["decided_milli_sq"], SH["shared"], SH["behind"], SH["close"])


@njit(cache=True, nogil=True, inline="always")
def standing(st, players, progress):
    """The sole leader + 1 by ``progress``, or 0 when the top is shared."""
    best = progress(st, 0)
    code = 1
    for s in range(1, players):
        v = progress(st, s)
        if v > best:
            best = v
            code = s + 1
        elif v == best:
            code = 0
    return code


@njit(cache=True, nogil=True, inline="always")
def note(st, o, t, code):
    """The standing ``code`` at the end of turn ``t`` (the shape part at ``o``).  Most
    turns change nothing: one comparison.  When the standing changes, the turns the old
    one held (since ``H_SINCE``) are written to the log, and a new sole leader is a lead
    change; the current standing's turns are in the head (``H_CODE`` since ``H_SINCE``)."""
    if code != st[o + H_CODE]:
        fill(st, o, st[o + H_SINCE], t - 1, st[o + H_CODE])
        if code != 0 and code != st[o + H_LEAD]:
            if st[o + H_LEAD] != 0:
                st[o + H_CHANGES] += 1
            st[o + H_LEAD] = code
        st[o + H_CODE] = code
        st[o + H_SINCE] = t
        st[o + H_TURN] = t


@helper("void(ST, int64, int64, int64, int64)")
def fill(st, o, a, b, code):
    """Log ``code`` as the standing of turns a..b (those within the log's LOG_TURNS)."""
    i = max(a, 1)
    c = np.int64(code)
    while i <= b and i <= LOG_TURNS:
        w = o + LOG + ((i - 1) >> 4)
        sh = np.int64(((i - 1) & 15) * 4)
        st[w] = (st[w] & ~(np.int64(15) << sh)) | (c << sh)
        i += 1


@njit(cache=True, nogil=True, inline="always")
def turn_over(st, E, progress, t):
    """Turn (or round) ``t`` of the game's length ends: note the standing.  A game calls
    this just before its turn counter moves on (t = 0, before the first turn, is no turn)."""
    if t >= 1:
        note(st, E.shape, t, standing(st, st[E.rules], progress))


@njit(cache=True, nogil=True, inline="always")
def finish(st, E, mask, length, unfinished, end):
    """The game is over: its winners (``mask``, a bit per seat), its length (turns or
    rounds), whether it hit the cap (``unfinished``) and how it ended (``end``, an index
    into the layout's ``END_NAMES``) go where the engine reads them, and no decision is
    pending.  ``E``: the game's ``ENGINE``.  The scores (``S_SCORE``) are the game's to set."""
    st[E.mask] = mask
    st[E.length] = length
    st[E.unfinished] = 1 if unfinished else 0
    st[E.end] = end
    st[E.phase] = DONE


@njit(cache=True, nogil=True, inline="always")
def begin(st, E):
    """A new game: nothing noted yet (the log needs no clearing: a turn's entry is written
    before it is read)."""
    for i in range(SHAPE_HEAD):
        st[E.shape + i] = 0


@njit(cache=True, nogil=True, inline="always")
def end(st, E, progress):
    """The game is over: a finished game's final progress per seat and its last standing."""
    if st[E.unfinished] != 0:
        return
    o = E.shape
    P = st[E.rules]
    for s in range(P):
        st[o + FINAL + s] = progress(st, s)
    note(st, o, st[E.length], standing(st, P, progress))


@helper("int64(ST, int64, int64)")
def logged(st, o, t):
    """The standing noted for turn ``t`` (1 <= t <= LOG_TURNS, or any t in the current
    standing's run)."""
    if t >= st[o + H_SINCE]:
        return st[o + H_CODE]
    return (st[o + LOG + ((t - 1) >> 4)] >> (((t - 1) & 15) * 4)) & 15


def noted(st, E, length: int) -> list[int | None]:
    """The standing noted at the end of each turn 1..``length`` of the finished game just
    played in ``st`` (``E``: the game's ``ENGINE``), read back from Python: the sole
    leader's seat, -1 when the top was shared, None for a turn the log does not keep (past
    its first ``LOG_TURNS`` turns, before the final standing began)."""
    o = E.shape
    since = int(st[o + H_SINCE])
    return [int(logged(st, o, t)) - 1 if t <= LOG_TURNS or t >= since else None for t in range(1, length + 1)]


@helper("void(ST, ST, EV, int64, ST, int64, int64, int64, int64, int64, boolean)")
def record_shape(tally, lay, rows, r, st, o, players, close, mask, length, unfinished):
    """Fold a game's shape into ``tally``; with ``rows``, its last ``ROW_COLS`` columns get
    the game's lead changes, comeback (1/0), decided point in thousandths and close
    finish (1/0), -1 where the figure does not apply (capped, no winner, ...)."""
    c0 = rows.shape[1] - ROW_COLS
    keep = rows.shape[0] > 0
    if keep:
        for c in range(ROW_COLS):
            rows[r, c0 + c] = -1
    if unfinished:
        return
    T = lay[L_SHAPE]
    ch = st[o + H_CHANGES]
    tally[T + T_MEASURED] += 1
    tally[T + T_LC] += ch
    tally[T + T_LC_SQ] += ch * ch
    if keep:
        rows[r, c0] = ch
    n_win = 0
    for s in range(players):
        n_win += (mask >> s) & 1
    if n_win == 0:
        return
    tally[T + T_WON] += 1
    h = length // 2
    if h > LOG_TURNS and h < st[o + H_SINCE]:
        tally[T + T_HALF_UNLOGGED] += 1
    elif h >= 1:
        hc = logged(st, o, h)
        if hc != 0:
            back = 0 if (mask >> (hc - 1)) & 1 else 1
            tally[T + T_HALF_LED] += 1
            tally[T + T_COMEBACKS] += back
            if keep:
                rows[r, c0 + 1] = back
    code = st[o + H_CODE]
    if n_win > 1:
        tally[T + T_SHARED] += 1
    elif code != 0 and (mask >> (code - 1)) & 1 and length > 0:
        d = st[o + H_SINCE]
        milli = (1000 * d) // length
        tally[T + T_DECIDED] += 1
        tally[T + T_DEC_MILLI] += milli
        tally[T + T_DEC_MILLI_SQ] += milli * milli
        tally[T + SH_DECIDED_HIST + (DECIDED_BINS * d - 1) // length] += 1
        if keep:
            rows[r, c0 + 2] = milli
    else:
        tally[T + T_BEHIND] += 1
    lo_win = np.int64(1) << 62
    hi_lose = -(np.int64(1) << 62)
    for s in range(players):
        v = st[o + FINAL + s]
        if (mask >> s) & 1:
            lo_win = min(lo_win, v)
        else:
            hi_lose = max(hi_lose, v)
    is_close = 1 if n_win == players or lo_win - hi_lose <= close else 0
    tally[T + T_CLOSE] += is_close
    if keep:
        rows[r, c0 + 3] = is_close
