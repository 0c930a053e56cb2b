"""Trace mode, shared by every game: an event row and the zone snapshot after it.

In trace mode a game's state array is longer than its ``S_SIZE``: event i is the
``TRACE_ROW`` numbers at ``S_SIZE + i * TRACE_ROW``: ``EVW`` (9) event numbers — kind,
player (-1: chance), the turn or round, six fields of the game's — then a copy of
``st[:ZONES_END]``.  ``emit`` counts the event and, in trace mode only, calls
``write_event`` with the schema's offsets (a game's ``ENGINE``); the fast path never
reaches it.
"""
from numba import njit

from cardlab.sim.jit import helper


@njit(cache=True, nogil=True, inline="always")
def emit(st, E, kind, player, a, b):
    """Event ``kind`` happened (``player``: the seat, -1 for chance; ``a``, ``b``: its
    numbers, the event's fields): count it in ``st[S_EVC + kind]``; in trace mode (``st``
    longer than the state) also write its row, stamped with the schema's clock counter
    (``S.counter(..., clock=True)``: the turn or round; 0 without one), and the snapshot
    of every zone after it.  ``E``: the game's ``ENGINE`` (its layout).  Pasted into its
    callers: on the fast path an event costs one increment."""
    st[E.evc + kind] += 1
    if st.shape[0] > E.size:
        turn = st[E.clock] if E.clock >= 0 else 0
        write_event(st, E.nev, E.size, E.zones_end, kind, player, turn, a, b, 0, 0, 0, 0)


@helper("void(ST, int64, int64, int64, int64, int64, int64, int64, int64, int64, int64, int64, int64)")
def write_event(st, s_nev, s_size, zones_end, kind, player, turn, a, b, c, d, e, f):
    """Count one more event in st[s_nev] and write its row and the snapshot after it;
    past the buffer's end only the count grows (the caller replays with room for all)."""
    i = st[s_nev]
    st[s_nev] = i + 1
    row = 9 + zones_end
    o = s_size + i * row
    if o + row > st.shape[0]:
        return
    st[o] = kind
    st[o + 1] = player
    st[o + 2] = turn
    st[o + 3] = a
    st[o + 4] = b
    st[o + 5] = c
    st[o + 6] = d
    st[o + 7] = e
    st[o + 8] = f
    for z in range(zones_end):  # the snapshot: every zone after the event
        st[o + 9 + z] = st[z]

