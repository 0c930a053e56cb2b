"""Trace mode, shared by every game: an event row and the zone snapshot after it.

In trace mode a game's state array is longer than its ``S_SIZE``: event i is the
``TRACE_ROW`` numbers at ``S_SIZE + i * TRACE_ROW``: the game's own event fields, then a
copy of ``st[:ZONES_END]``.  Each game's ``write_event`` fills its fields between these
two calls; the fast path never reaches them.
"""
from sim.jit import helper


@helper("int64(ST, int64, int64, int64)")
def event_row(st, s_nev, s_size, trace_row):
    """Count one more event in st[s_nev] and return the offset of its row, or -1 when the
    buffer is full (the caller sees more events than room and replays bigger)."""
    i = st[s_nev]
    st[s_nev] = i + 1
    o = s_size + i * trace_row
    if o + trace_row > st.shape[0]:
        return -1
    return o


@helper("void(ST, int64, int64)")
def snapshot(st, o, zones_end):
    """Copy every zone, st[:zones_end], to st[o:]."""
    for z in range(zones_end):
        st[o + z] = st[z]
