"""Skyscraper's numbers: card types, rule slots, state offsets, actions, events.

Everything a game reads or writes lives in one int64 array ``st`` with the named
offsets below: the random generator (``st[0:4]``), the rules, the zones, per-game
bookkeeping and, in trace mode, the event buffer at the end.  Every compiled helper
takes just ``st`` (array arguments are costly in numba calls), and a trace snapshot
is simply ``st[:ZONES_END]``.
"""
from cardlab.sim.schema import COUNTS, NOBODY, OWNER, PILE, PUBLIC, TABLE, Schema

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


# a floor: two cards (type, value) and the dogs lying beside it
FW = 5
FL_T0, FL_T1, FL_V0, FL_V1, FL_DOGS = range(FW)

# trace / event kinds (also counted per game for the summary)
EVENT_NAMES = ("deal", "reshuffle", "draw", "skip", "build", "steal", "dog", "bone", "hammer",
               "ball", "thief", "super_thief", "milkshake", "truck", "discard")
(EV_DEAL, EV_RESHUFFLE, EV_DRAW, EV_SKIP, EV_BUILD, EV_STEAL, EV_DOG, EV_BONE, EV_HAM, EV_BALL,
 EV_THIEF, EV_SUPER, EV_SHAKE, EV_TRUCK, EV_DISCARD) = range(15)

END_NAMES = ("floors", "cap")
END_WIN, END_CAP = range(2)

# ---------------------------------------------------------------- the state
S = Schema("skyscraper", maxp=MAXP, n_types=NT, events=EVENT_NAMES, ends=END_NAMES,
           decisions=(("play", "kind,a,b,c"),))
# the printed rules' slots, then the compensation knobs' (not in the rulebook: balancing
# options; 0 is the game as printed): first_turn_no_draw and later_seats_extra
R = S.rules("players", "floor_copies", "floor_max", "floor_sum", "jokers", "dogs", "bones",
            "hammers", "balls", "shakes", "trucks", "thieves", "supers", "floors_to_win",
            "hand_size", "draw_skip_at", "refill_to", "max_dogs", "dog_moves_up",
            "skips_stack", "solo_discard", "max_turns", "first_turn_no_draw", "later_seats_extra")
S.counter("draw_n", "cards in the draw pile")
S.counter("disc_n", "cards in the discard pile")
S.counter("turn", "seat slots played so far (skipped ones included)")
S.counter("cur", "the seat whose turn it is")
S.seats("skip", "turns the seat still has to skip")
S.seats("nfl", "floors in the seat's tower")
S.seats("hsize", "cards in the seat's hand")
S.zone("hand", NT, "the seat's cards, a count per card type", owner=True, visible=OWNER,
       encoding=COUNTS)
S.zone("tower", MAXF * FW, "the seat's floors, bottom first: FW numbers per floor "
       "(card types, values, dogs)", owner=True, visible=PUBLIC, encoding=TABLE)
S.zone("draw", DECK_MAX, "the draw pile, top = last", visible=NOBODY, encoding=PILE,
       count="draw_n")
S.zone("disc", DECK_MAX, "the discard pile, newest last", visible=PUBLIC, encoding=PILE, count="disc_n")
S.end_zones()
S.book("moves", 1, "events this game (to spot a table where nothing moves)")
S.book("mark_moves", 1, "events at the start of the last round (stuck-table check)")
S.book("mark_rng", 1 + MAXP, "the chance stream's first word, then each seat stream's, at the start "
       "of the last round (stuck-table check)")
MAXACT = 96
S.scratch("acts", 4 * MAXACT, "legal-action buffer (legal, the random strategy), 4 ints each")
S.book("shortcut_off", 1, "1: never jump to the turn cap on a stuck table (a test's switch)",
       visible=PUBLIC)
S.give(start=("hand",), pool=("draw", "hand"),
       note="the seat's dealt hand (with seat 0's first draw); copies come from the draw pile "
       "and the other hands")
S.progress("floors in the tower", close=1)  # close: the runner-up one floor short
S.numbers(seats=("cur",))  # a seat number (the observation vector gives it from the observer)
# ---- the schema's names: written by python scripts/layout_names.py, checked by S.seal
S_RNG, S_SEAT_RNG, S_SEED, S_RULES = S.at("rng", "seat_rng", "seed", "rules")
S_DRAW_N, S_DISC_N, S_TURN = S.at("draw_n", "disc_n", "turn")
S_CUR, S_SKIP, S_NFL, S_HSIZE = S.at("cur", "skip", "nfl", "hsize")
S_HAND, S_TOWER, S_DRAW, S_DISC = S.at("hand", "tower", "draw", "disc")
S_PHASE, S_ACTOR, S_HELD, S_PLAYED = S.at("phase", "actor", "held", "played")
S_SCORE, S_EVC, S_MASK, S_LENGTH = S.at("score", "evc", "mask", "length")
S_UNFINISHED, S_END, S_NEV, S_SHAPE = S.at("unfinished", "end", "nev", "shape")
S_MOVES, S_MARK_MOVES = S.at("moves", "mark_moves")
S_MARK_RNG, S_ACTS, S_SHORTCUT_OFF = S.at("mark_rng", "acts", "shortcut_off")
R_PLAYERS, R_FLOOR_COPIES, R_FLOOR_MAX = S.rule("players", "floor_copies", "floor_max")
R_FLOOR_SUM, R_JOKERS, R_DOGS, R_BONES = S.rule("floor_sum", "jokers", "dogs", "bones")
R_HAMMERS, R_BALLS, R_SHAKES, R_TRUCKS = S.rule("hammers", "balls", "shakes", "trucks")
R_THIEVES, R_SUPERS, R_FLOORS_TO_WIN = S.rule("thieves", "supers", "floors_to_win")
R_HAND_SIZE, R_DRAW_SKIP_AT, R_REFILL_TO = S.rule("hand_size", "draw_skip_at", "refill_to")
R_MAX_DOGS, R_DOG_MOVES_UP, R_SKIPS_STACK = S.rule("max_dogs", "dog_moves_up", "skips_stack")
R_SOLO_DISCARD, R_MAX_TURNS = S.rule("solo_discard", "max_turns")
R_FIRST_TURN_NO_DRAW, R_LATER_SEATS_EXTRA = S.rule("first_turn_no_draw", "later_seats_extra")
N_RULES, ZONES_END, TRACE_ROW, N_EV = len(S.rule_names), S.zones_end, S.trace_row, len(S.events)
S_SIZE, EVW, DONE = S.size, S.evw, S.done
D_PLAY = S.decision("play")
ENGINE = S.engine_tuple()
REDEAL, CLEAR, GIVE = S.redeal_table(), S.clear_table(), S.give_table()
# ---- end of the schema's names
S.seal(globals())
# R_SPECIAL_COUNTS: special card counts in type order J..SUPER
R_SPECIAL_COUNTS = (R_JOKERS, R_DOGS, R_BONES, R_HAMMERS, R_BALLS, R_SHAKES, R_TRUCKS,
                    R_THIEVES, R_SUPERS)
# trace mode: st is longer, and event i is st[S_SIZE + i*TRACE_ROW:][:TRACE_ROW]: an event
# row of EVW numbers, then the snapshot st[:ZONES_END] after it

# actions a strategy returns as (kind, a, b, c)
(A_STOP, A_BUILD, A_STEAL, A_DOG, A_BONE, A_HAM, A_BALL, A_THIEF, A_SUPER, A_SHAKE, A_TRUCK,
 A_DISCARD) = range(12)
# A_BUILD: a = floor card type, b = second card type (a floor card or J), c = joker value
# A_STEAL: a = target seat, b = index of the card taken from its top floor, c = card played
# A_BONE, A_HAM, A_BALL, A_THIEF: a = target seat;  A_DISCARD (solo): a = card type

# the action kinds a restriction (mcts:never=) may name, bits KIND_BIT + i (moves.restrict_bits)
RESTRICT_KINDS = ("build", "steal", "discard", "stop")
