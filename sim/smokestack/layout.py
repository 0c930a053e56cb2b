"""Smokestack's numbers: cards, the declared state (rule slots, zones, bookkeeping),
actions, events.

Everything a game reads or writes lives in one int64 array ``st`` declared part by part
below with ``Schema`` (``sim/schema.py`` derives every offset): the random generator
(``st[0:4]``), the rules, the zones, per-game bookkeeping, scratch and, in trace mode,
the event buffer at the end.  Every compiled helper takes just ``st``, and a trace
snapshot is simply ``st[:ZONES_END]``.

A card is ``rank * 4 + suit`` (rank 0..12 = 2..A, suit 0..3 = S H D C); -1 is an empty
layout slot (only a short last deal leaves one).
"""
import numpy as np

from cardlab.sim.schema import NOBODY, PILE, PUBLIC, SLOTS, TABLE, Schema

MAXP = 8            # seats
MAXL = 8            # layouts per seat (the largest allowed max_layouts)
MAXCH = 13          # chimneys per seat (52 cards / 4)
NCARDS = 52
RANKS = "23456789TJQKA"
SUITS = "SHDC"
NT = 13             # card types for card power: the 13 ranks


def card_code(c: int) -> str:
    return RANKS[c >> 2] + SUITS[c & 3]


def card_of(code: str) -> int:
    return RANKS.index(code[0]) * 4 + SUITS.index(code[1])


def _straight_table() -> np.ndarray:
    """STRAIGHT[m] for a 14-bit rank mask m (bit 0 = ace low, bit r + 1 = rank r): the
    most ranks of m inside one window of 4 consecutive bits (the 11 windows A-2-3-4 ..
    J-Q-K-A)."""
    t = np.zeros(1 << 14, np.int8)  # 16 KB: stays in the L1 cache
    for m in range(1 << 14):
        t[m] = max(((m >> w) & 15).bit_count() for w in range(11))
    return t


STRAIGHT = _straight_table()
# a card's bit in a rank mask (the ace sets bits 0 and 13)
RANKBIT = np.array([(1 << ((c >> 2) + 1)) | (1 if (c >> 2) == 12 else 0) for c in range(NCARDS)],
                   np.int64)

EVENT_NAMES = ("deal", "sweep", "double", "swap", "pass", "chimney", "straight", "stall")
EV_DEAL, EV_SWEEP, EV_DOUBLE, EV_SWAP, EV_PASS, EV_CHIMNEY, EV_STRAIGHT, EV_STALL = range(8)

END_NAMES = ("stock", "cap")
END_STOCK, END_CAP = range(2)

# ---------------------------------------------------------------- the state
# The decisions, in the order of a turn (each a 4-number action; unused numbers are 0):
#   sweep   (call, 0, 0, 0): 1 calls the sweep, 0 not; every seat that may still call,
#           in seat order from the mover, before the mover's turn (st[S_CUR] is the mover)
#   double  (layout, 0, 0, 0): the mover's layout declared a double chimney, -1 none
#           (asked only when one is legal)
#   swap    (kind, layout, i, j): A_SWAP takes center card j into slot i of the layout;
#           A_PASS (all zero) passes
#   stall   (a, b, 0, 0): the two center slots the next mover replaces on a stalled table
S = Schema("smokestack", maxp=MAXP, n_types=NT, events=EVENT_NAMES, ends=END_NAMES,
           decisions=(("sweep", "call"), ("double", "layout"), ("swap", "kind,layout,i,j"),
                      ("stall", "a,b")))
# the printed rules' slots, then the compensation knobs' (not in the rulebook: balancing
# options; 0 is the game as printed): the tie rule (TIES below) and first_turn_no_double
R = S.rules("players", "max_layouts", "straights", "sweeps_per_turn", "sweeps_per_player",
            "stall_discard", "max_turns", "ties", "first_turn_no_double")
S.counter("stock_n", "cards in the stock")
S.counter("rem_n", "cards out of the game")
S.counter("turn", "turns played so far (sweeps and stalls are not turns)")
S.counter("cur", "the mover: the seat whose turn it is")
S.seats("nlay", "layouts of the seat")
S.seats("nch", "chimneys of the seat")
S.zone("center", 4, "the four face-up center cards (-1: not dealt yet)", visible=PUBLIC, encoding=SLOTS)
S.zone("lay", MAXL * 4, "the seat's face-up layouts, 4 card slots each (-1: empty); the "
       "first nlay count", owner=True, visible=PUBLIC, encoding=TABLE)
S.zone("ch", MAXCH * 4, "the seat's chimneys, 4 cards each; the first nch count", owner=True,
       visible=PUBLIC, encoding=TABLE)
S.zone("stock", NCARDS, "the stock, top = last", visible=NOBODY, encoding=PILE, count="stock_n")
S.zone("rem", NCARDS, "cards out of the game (stall_removed=discard)", visible=PUBLIC, encoding=PILE,
       count="rem_n")
S.end_zones()
# the rules' books: all public (each follows from public events: passes, sweeps, the stock
# count, the sweep question's progress), so a re-deal keeps them as they are
S.book("passes", 1, "consecutive turns without a swap (every pass is seen)", visible=PUBLIC)
S.book("over", 1, "1 once the stock is empty (the game is over; stock_n is public)", visible=PUBLIC)
S.book("sweeps", 1, "sweeps the seat called this game (every sweep is seen)", owner=True,
       visible=PUBLIC)
S.book("ask_k", 1, "the sweep question: the seat asked is the k-th from the mover", visible=PUBLIC)
S.book("swept", 1, "the sweep question: sweeps called before this turn", visible=PUBLIC)
S.book("bver", 1, "layouts version: bumped at the start of every sweep question and after "
       "every sweep (the layouts do not change in between; strategies' caches key on it)",
       visible=PUBLIC)
S.scratch("tmp", MAXL * 4, "the rules' working memory: one seat's layouts during a sweep")
# each seat's strategy keeps its own cache (a seat's memory is its own: no seat reads what
# another seat's strategy computed); words seat * MAXP + s are about seat s's layouts
S.scratch("best", MAXP, "each seat's own strategy cache: best progress of every seat ...",
          owner=True)
S.scratch("bstamp", MAXP, "... valid while its stamp equals st[S_BVER]", owner=True)
MAXACT = MAXL * 16 + 1  # the swap: every (layout, slot, center slot) and the pass
S.scratch("acts", 4 * MAXACT, "legal-action buffer (legal), 4 ints each")
S.give(start=("lay",), pool=("stock", "lay"),
       note="the seat's first layout after the setup chimneys; copies come from the stock and "
       "the other seats' layouts (a layout the swap makes a chimney is settled as at setup)")
S.progress("chimneys", close=1)  # close: won by a single chimney
S.numbers(seats=("cur",))  # a seat number (the observation vector gives it from the observer)
# ---- the schema's names: written by python scripts/layout_names.py, checked by S.seal
S_RNG, S_SEAT_RNG, S_SEED, S_RULES = S.at("rng", "seat_rng", "seed", "rules")
S_STOCK_N, S_REM_N, S_TURN, S_CUR, S_NLAY = S.at("stock_n", "rem_n", "turn", "cur", "nlay")
S_NCH, S_CENTER, S_LAY, S_CH, S_STOCK, S_REM = S.at("nch", "center", "lay", "ch", "stock", "rem")
S_PHASE, S_ACTOR, S_HELD, S_PLAYED = S.at("phase", "actor", "held", "played")
S_SCORE, S_EVC, S_MASK, S_LENGTH = S.at("score", "evc", "mask", "length")
S_UNFINISHED, S_END, S_NEV, S_SHAPE = S.at("unfinished", "end", "nev", "shape")
S_PASSES, S_OVER, S_SWEEPS, S_ASK_K, S_SWEPT = S.at("passes", "over", "sweeps", "ask_k", "swept")
S_BVER, S_TMP, S_BEST, S_BSTAMP, S_ACTS = S.at("bver", "tmp", "best", "bstamp", "acts")
R_PLAYERS, R_MAX_LAYOUTS = S.rule("players", "max_layouts")
R_STRAIGHTS, R_SWEEPS_PER_TURN = S.rule("straights", "sweeps_per_turn")
R_SWEEPS_PER_PLAYER, R_STALL_DISCARD = S.rule("sweeps_per_player", "stall_discard")
R_MAX_TURNS, R_TIES, R_FIRST_TURN_NO_DOUBLE = S.rule("max_turns", "ties", "first_turn_no_double")
N_RULES, ZONES_END, TRACE_ROW, N_EV = len(S.rule_names), S.zones_end, S.trace_row, len(S.events)
S_SIZE, EVW, DONE = S.size, S.evw, S.done
D_SWEEP, D_DOUBLE, D_SWAP, D_STALL = S.decision("sweep", "double", "swap", "stall")
ENGINE = S.engine_tuple()
REDEAL, CLEAR, GIVE = S.redeal_table(), S.clear_table(), S.give_table()
# ---- end of the schema's names
S.seal(globals())
# trace mode: st is longer, and event i is st[S_SIZE + i*TRACE_ROW:][:TRACE_ROW]: an event
# row of EVW numbers, then the snapshot st[:ZONES_END] after it

# a swap decision's kind: (A_SWAP, layout, slot, center slot) or (A_PASS, 0, 0, 0)
A_PASS, A_SWAP = range(2)

# the values of the ``ties`` knob (a compensation knob) in its rule slot: seats tied for the
# most chimneys share the win (as printed); or those of them that took the fewest turns win;
# or the tied seat latest in turn order (the dealer, seat 0, last) wins alone
TIES = ("share", "fewer_turns", "later_seat")
TIES_SHARE, TIES_FEWER_TURNS, TIES_LATER_SEAT = range(3)

# the action kinds a restriction (mcts:never=) may name, bits KIND_BIT + i (moves.restrict_bits)
RESTRICT_KINDS = ("sweep", "double", "swap")
