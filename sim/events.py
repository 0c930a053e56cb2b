"""Trace mode, shared by every game: an event row and the zone snapshot after it.

In trace mode a game's state array is longer than its ``S_SIZE``: event i is the
``TRACE_ROW`` numbers at ``S_SIZE + i * TRACE_ROW``: ``EVW`` (9) event numbers — kind,
player (-1: chance), the turn or round, six fields of the game's — then a copy of
``st[:ZONES_END]``.  A game's ``emit`` counts the event and, in trace mode only, calls
``write_event`` with its schema's offsets; the fast path never reaches it.
"""
from cardlab.sim.jit import helper


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

