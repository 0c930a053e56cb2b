"""Smokestack's numbers: cards, rule slots, state offsets, events.

Everything a game reads or writes lives in one int64 array ``st`` with the named
offsets below: the random generator (``st[0:4]``), the rules, the zones, per-game
bookkeeping and, in trace mode, the event buffer at the end.  Every compiled helper
takes just ``st``, and a trace snapshot is simply ``st[:ZONES_END]``.

A card is ``rank * 4 + suit`` (rank 0..12 = 2..A, suit 0..3 = S H D C); -1 is an empty
layout slot (only a short last deal leaves one).
"""
import numpy as np

from cardlab.sim.tally import TallyLayout

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

S_RNG = 0    # st[0:4]: the xoshiro256** state (sim/rng.py)
S_RULES = 4  # the rule vector, copied in once per batch: st[R_X] is knob X
N_RULES = 7
(R_PLAYERS, R_MAX_LAYOUTS, R_STRAIGHTS, R_SWEEPS_PER_TURN, R_SWEEPS_PER_PLAYER,
 R_STALL_DISCARD, R_MAX_TURNS) = range(S_RULES, S_RULES + N_RULES)

# zones (and the counters the snapshot needs)
S_STOCK_N = S_RULES + 16
S_REM_N = S_STOCK_N + 1
S_TURN = S_STOCK_N + 2
S_CUR = S_STOCK_N + 3
S_NLAY = S_STOCK_N + 4              # [MAXP] layouts per seat
S_NCH = S_NLAY + MAXP               # [MAXP] chimneys per seat
S_CENTER = S_NCH + MAXP             # [4]
S_LAY = S_CENTER + 4                # [MAXP][MAXL][4]
S_CH = S_LAY + MAXP * MAXL * 4      # [MAXP][MAXCH][4]
S_STOCK = S_CH + MAXP * MAXCH * 4   # stock, top = last
S_REM = S_STOCK + NCARDS            # cards out of the game (stall_removed="discard")
ZONES_END = S_REM + NCARDS
# per-game bookkeeping (cleared at the start of every game)
S_HELD = ZONES_END                  # [MAXP][NT] card-power bits: ever held the rank
S_PLAYED = S_HELD + MAXP * NT       # ... completed a chimney with the rank
S_SCORE = S_PLAYED + MAXP * NT      # chimneys per seat at the end
S_EVC = S_SCORE + MAXP              # event counts this game
S_NEV = S_EVC + 16                  # events written to the trace buffer
S_PASSES = S_NEV + 1                # consecutive turns without a swap
S_OVER = S_PASSES + 1               # 1 once the stock is empty (game over)
S_SWEEPS = S_OVER + 1               # [MAXP] sweeps called this game
S_TMP = S_SWEEPS + MAXP             # scratch: one seat's layouts during a sweep
S_BVER = S_TMP + MAXL * 4 + 1       # sweep-question round number (layouts unchanged within)
S_BEST = S_BVER + 1                 # [MAXP] strategies' cache: best progress per seat ...
S_BSTAMP = S_BEST + MAXP            # [MAXP] ... valid when its stamp equals st[S_BVER]
S_SIZE = S_BSTAMP + MAXP
# trace mode: st is longer, and event i is st[S_SIZE + i*TRACE_ROW:][:TRACE_ROW]: an event
# row of EVW numbers, then the snapshot st[:ZONES_END] after it

# strategy answers as (kind, a, b, c): a swap is (A_SWAP, layout, slot, center slot)
A_PASS, A_SWAP = range(2)

EVENT_NAMES = ("deal", "sweep", "double", "swap", "pass", "chimney", "straight", "stall")
EV_DEAL, EV_SWEEP, EV_DOUBLE, EV_SWAP, EV_PASS, EV_CHIMNEY, EV_STRAIGHT, EV_STALL = range(8)
N_EV = len(EVENT_NAMES)
EVW = 9  # event row: kind, player (-1 chance), turn, a, b, c, d, e, f
TRACE_ROW = EVW + ZONES_END

END_NAMES = ("stock", "cap")
END_STOCK, END_CAP = range(2)

TALLY = TallyLayout(maxp=MAXP, n_types=NT, n_end=len(END_NAMES), n_events=N_EV)
