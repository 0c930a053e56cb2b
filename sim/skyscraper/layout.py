"""Skyscraper's numbers: card types, rule slots, state offsets, actions, events.

Everything a game reads or writes lives in one int64 array ``st`` with the named
offsets below: the random generator (``st[0:4]``), the rules, the zones, per-game
bookkeeping and, in trace mode, the event buffer at the end.  Every compiled helper
takes just ``st`` (array arguments are costly in numba calls), and a trace snapshot
is simply ``st[:ZONES_END]``.
"""
from sim.tally import TallyLayout

MAXP = 4            # seats
FLOOR_LIMIT = 15    # the largest allowed floor_max
MAXF = 16           # floors per tower (floors_to_win <= 12, and a tower never passes it)
DECK_MAX = 512

# card types: the nine specials, then floor cards by value (type F0 + v, v >= 1)
J, DOG, BONE, HAM, BALL, SHAKE, TRUCK, THIEF, SUPER = range(9)
F0 = 8
NT = 9 + FLOOR_LIMIT
SPECIAL_CODES = ("J", "DOG", "BONE", "HAM", "BALL", "SHAKE", "TRUCK", "THIEF", "SUPER")


def card_code(t: int) -> str:
    return SPECIAL_CODES[t] if t < 9 else f"F{t - F0}"


S_RNG = 0   # st[0:4]: the xoshiro256** state (sim/rng.py)
S_RULES = 4  # the rule vector, copied in once per batch: st[R_X] is knob X
N_RULES = 22
(R_PLAYERS, R_FLOOR_COPIES, R_FLOOR_MAX, R_FLOOR_SUM, R_JOKERS, R_DOGS, R_BONES, R_HAMMERS,
 R_BALLS, R_SHAKES, R_TRUCKS, R_THIEVES, R_SUPERS, R_FLOORS_TO_WIN, R_HAND_SIZE,
 R_DRAW_SKIP_AT, R_REFILL_TO, R_MAX_DOGS, R_DOG_MOVES_UP, R_SKIPS_STACK, R_SOLO_DISCARD,
 R_MAX_TURNS) = range(S_RULES, S_RULES + N_RULES)
# special card counts in type order J..SUPER
R_SPECIAL_COUNTS = (R_JOKERS, R_DOGS, R_BONES, R_HAMMERS, R_BALLS, R_SHAKES, R_TRUCKS,
                    R_THIEVES, R_SUPERS)

# a floor: two cards (type, value) and the dogs lying beside it
FW = 5
FL_T0, FL_T1, FL_V0, FL_V1, FL_DOGS = range(FW)

# state offsets (zones: cleared at the start of every game, except the piles' contents)
S_DRAW_N = S_RULES + 32
S_DISC_N = S_DRAW_N + 1
S_TURN = S_DRAW_N + 2
S_CUR = S_DRAW_N + 3
S_SKIP = S_DRAW_N + 4
S_NFL = S_SKIP + MAXP
S_HSIZE = S_NFL + MAXP
S_HAND = S_HSIZE + MAXP             # [MAXP][NT] card counts
S_TOWER = S_HAND + MAXP * NT        # [MAXP][MAXF][FW]
S_DRAW = S_TOWER + MAXP * MAXF * FW  # draw pile, top = last
S_DISC = S_DRAW + DECK_MAX          # discard pile, newest = last
ZONES_END = S_DISC + DECK_MAX
S_HELD = ZONES_END                  # [MAXP][NT] per-game card-power bits
S_PLAYED = S_HELD + MAXP * NT
S_SCORE = S_PLAYED + MAXP * NT      # floors per seat at the end
S_EVC = S_SCORE + MAXP              # event counts this game
S_NEV = S_EVC + 32                  # events written to the trace buffer
S_MOVES = S_NEV + 1                 # events this game (to spot a table where nothing moves)
MAXACT = 96
S_ACTS = S_MOVES + 1                 # legal-action buffer (random strategy), 4 ints each
S_SIZE = S_ACTS + 4 * MAXACT
# trace mode: st is longer, and event i is st[S_SIZE + i*TRACE_ROW:][:TRACE_ROW]: an event
# row of EVW numbers, then the snapshot st[:ZONES_END] after it

# actions a strategy returns as (kind, a, b, c)
(A_STOP, A_BUILD, A_STEAL, A_DOG, A_BONE, A_HAM, A_BALL, A_THIEF, A_SUPER, A_SHAKE, A_TRUCK,
 A_DISCARD) = range(12)
# A_BUILD: a = floor card type, b = second card type (a floor card or J), c = joker value
# A_STEAL: a = target seat, b = index of the card taken from its top floor, c = card played
# A_BONE, A_HAM, A_BALL, A_THIEF: a = target seat;  A_DISCARD (solo): a = card type

# trace / event kinds (also counted per game for the summary)
EVENT_NAMES = ("deal", "reshuffle", "draw", "skip", "build", "steal", "dog", "bone", "hammer",
               "ball", "thief", "super_thief", "milkshake", "truck", "discard")
(EV_DEAL, EV_RESHUFFLE, EV_DRAW, EV_SKIP, EV_BUILD, EV_STEAL, EV_DOG, EV_BONE, EV_HAM, EV_BALL,
 EV_THIEF, EV_SUPER, EV_SHAKE, EV_TRUCK, EV_DISCARD) = range(15)
N_EV = len(EVENT_NAMES)
EVW = 9  # event row: kind, player (-1 chance), turn, a, b, c, d, e, f
TRACE_ROW = EVW + ZONES_END

END_NAMES = ("floors", "cap")
END_WIN, END_CAP = range(2)

TALLY = TallyLayout(maxp=MAXP, n_types=NT, n_end=len(END_NAMES), n_events=N_EV)
