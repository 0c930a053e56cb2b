"""5 Towers' numbers: cards, rule slots, state offsets, events.

Everything a game reads or writes lives in one int64 array ``st`` with the named
offsets below: the random generator (``st[0:4]``), the rules, the zones, per-game
bookkeeping and, in trace mode, the event buffer at the end.  Every compiled helper
takes just ``st``; a trace snapshot is simply ``st[:ZONES_END]``.

A card is ``copy * 128 + kind * 16 + value`` (kind 0..4 = C S T R A, value 0..15;
copy 1 only for the 4–5 player extra cards), so ``value = c & 15`` and
``kind = (c >> 4) & 7``.  A tower is stored bottom first.
"""
from cardlab.sim.tally import TallyLayout

MAXP = 5             # seats
NK = 5               # tower kinds
KINDS = "CSTRA"
NV = 16              # values 0..15
EXTRA = (0, 2, 5, 7, 10, 12)   # values with a second copy in the 110-card deck
NCARDS = 110         # the largest deck
MAXH = 22            # the most cards of one kind (16 + 6): the tallest possible tower
MAXOFF = 8           # the largest offer_size
EMPTY = 16           # "top" of an empty tower (above every value)
NT = NV + NK         # card types for card power: 16 values, then 5 kinds


def card_code(c: int) -> str:
    return KINDS[(c >> 4) & 7] + str(c & 15)


def card_of(code: str, copy: int = 0) -> int:
    return copy * 128 + KINDS.index(code[0]) * 16 + int(code[1:])


def type_names() -> list[str]:
    return [str(v) for v in range(NV)] + [f"kind {k}" for k in KINDS]


S_RNG = 0    # st[0:4]: the xoshiro256** state (sim/rng.py)
S_RULES = 4  # the rule vector, copied in once per batch: st[R_X] is knob X
N_RULES = 8
(R_PLAYERS, R_DECK, R_OFFER, R_ALLPASS_STAY, R_TEAR_AFTER, R_RUBBLE_LINEAR,
 R_MAX_ROUNDS, R_SPARE) = range(S_RULES, S_RULES + N_RULES)

# zones (and the counters the snapshot needs)
S_DRAW_N = S_RULES + 16
S_DISC_N = S_DRAW_N + 1
S_OFFER_N = S_DRAW_N + 2            # offer slots revealed this round (taken ones are -1)
S_ROUND = S_DRAW_N + 3
S_START = S_DRAW_N + 4              # this round's start player
S_RUNOUTS = S_DRAW_N + 5            # times a reveal found the draw pile empty
S_TH = S_DRAW_N + 6                 # [MAXP][NK] tower heights
S_RUB_N = S_TH + MAXP * NK          # [MAXP] rubble pile sizes
S_OFFER = S_RUB_N + MAXP            # [MAXOFF] card or -1
S_TOW = S_OFFER + MAXOFF            # [MAXP][NK][MAXH] towers, bottom first
S_RUB = S_TOW + MAXP * NK * MAXH    # [MAXP][NCARDS] rubble piles
S_DRAW = S_RUB + MAXP * NCARDS      # draw pile, top = last
S_DISC = S_DRAW + NCARDS            # discard pile, newest last
ZONES_END = S_DISC + NCARDS
# per-game bookkeeping (cleared at the start of every game)
S_HELD = ZONES_END                  # [MAXP][NT] card-power bits: took a card of the type
S_PLAYED = S_HELD + MAXP * NT       # ... had one in a tower at the end (it scored)
S_SCORE = S_PLAYED + MAXP * NT      # points per seat at the end
S_EVC = S_SCORE + MAXP              # event counts this game
S_NEV = S_EVC + 24                  # events written to the trace buffer
S_OVER = S_NEV + 1                  # 1 once the game is over (second run-out)
S_HIGH = S_OVER + 1                 # the current high bid ...
S_BIDDER = S_HIGH + 1               # ... and who made it (-1: nobody yet)
# the builder's plan, written by its strategy and checked by the kernel:
# S_PLAN_TEAR: kind to tear down or -1; S_PLAN_N: cards; S_PLAN: offer slots in order
S_PLAN_TEAR = S_BIDDER + 1
S_PLAN_N = S_PLAN_TEAR + 1
S_PLAN = S_PLAN_N + 1               # [MAXOFF]
S_DP = S_PLAN + MAXOFF              # [1 << MAXOFF] scratch for the placement search
S_SEQ = S_DP + (1 << MAXOFF)        # [MAXOFF] scratch: a searched placement order
S_TMP = S_SEQ + MAXOFF              # [MAXOFF] scratch for strategies
# caches kept in step with the zones (``moves.refresh`` rebuilds them from the zones)
S_KM = S_TMP + MAXOFF               # [NK] bit mask of the offer slots holding each kind
S_TOP = S_KM + NK                   # [MAXP][NK] top value of each tower, EMPTY (16) if none
S_VER = S_TOP + MAXP * NK           # bumped whenever the offer or a tower changes ...
S_PC = S_VER + 1                    # [MAXP][3] ... so a strategy may cache per seat
S_SIZE = S_PC + 3 * MAXP
# trace mode: st is longer, and event i is st[S_SIZE + i*TRACE_ROW:][:TRACE_ROW]: an event
# row of EVW numbers, then the snapshot st[:ZONES_END] after it

EVENT_NAMES = ("reveal", "reshuffle", "bid", "pass", "teardown", "place", "discard",
               "all_pass", "build_1", "build_2", "build_3", "build_4", "build_5",
               "build_6", "build_7", "build_8")
(EV_REVEAL, EV_RESHUFFLE, EV_BID, EV_PASS, EV_TEARDOWN, EV_PLACE, EV_DISCARD,
 EV_ALL_PASS, EV_BUILD1) = range(9)
N_EV = len(EVENT_NAMES)
EVW = 8  # event row: kind, player (-1 chance), round, a, b, c, d, e
TRACE_ROW = EVW + ZONES_END

END_NAMES = ("deck", "cap")
END_DECK, END_CAP = range(2)

TALLY = TallyLayout(maxp=MAXP, n_types=NT, n_end=len(END_NAMES), n_events=N_EV)
