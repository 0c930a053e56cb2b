"""Block Tower's numbers: cards, rule slots, state offsets, events.

Everything a game reads or writes lives in one int64 array ``st`` with the named
offsets below: the random generator (``st[0:4]``), the rules, the zones, per-game
bookkeeping and, in trace mode, the event buffer at the end.  Every compiled helper
takes just ``st``; a trace snapshot is ``st[:ZONES_END]``.

Cards.  Block cards are ids ``0 .. n_blocks - 1`` (codes ``B01``, ``B02``, ...); the
points follow from ``points_split`` in order (the first ``n1`` blocks are worth 1, the
next ``n2`` 2, the rest 3).  The four action cards have fixed ids 30..33 (``ADJUST``,
``ANYWHERE``, ``REMOVE``, ``SWAP``), so every card is one bit of an int64: hands, the
per-seat ``won`` piles and the used action cards are bit masks.  The draw pile and the
point pile are ordered arrays (draw pile: top = last; point pile: bottom block first).

The tower is the point pile read as blocks: a block's card lies on the point pile
exactly while the block stands (placing pushes both, REMOVE pops both, a collapse
empties both), so the zone ``tower`` is decoded from the point pile, in the same order.

Float numbers (the collapse-model knobs, per-seat skill, the instability ``u`` and each
standing block's instability share) are stored exactly as the IEEE-754 bits of a
float64 in an int64 slot: ``st.view(np.float64)[X]`` reads slot X as that float.
"""

from cardlab.sim.tally import TallyLayout

MAXP = 6            # seats (the rules allow 2-6 players)
MAXB = 30           # block cards at most (points_split may describe up to 30 blocks)
ADJUST, ANYWHERE, REMOVE, SWAP = 30, 31, 32, 33   # action card ids
NCMAX = MAXB + 4    # cards at most
ACTIONS = ("ADJUST", "ANYWHERE", "REMOVE", "SWAP")
ACT_MASK = 15 << ADJUST  # the four action cards
NT = 7              # card types for card power: 1-, 2-, 3-point blocks, the four actions
TYPE_CODES = ("B1pt", "B2pt", "B3pt") + ACTIONS
STYLE_ONE = 1000    # placement style x is given in thousandths: 0 careful .. 1000 sabotage
SHARE_ONE = 1000    # ADJUST's new share in thousandths of the block's base share (0..2000)


def card_code(c: int) -> str:
    return f"B{c + 1:02d}" if c < ADJUST else ACTIONS[c - ADJUST]


def card_of(code: str) -> int:
    return ADJUST + ACTIONS.index(code) if code in ACTIONS else int(code[1:]) - 1


def mask_cards(m: int) -> list[int]:
    return [c for c in range(NCMAX) if (int(m) >> c) & 1]


S_RNG = 0    # st[0:4]: the xoshiro256** state (sim/rng.py)
S_RULES = 4  # the rule vector, copied in once per batch: st[R_X] is knob X
# integer knobs; R_RESH_N: cards drawn after the two-action reshuffle (reshuffle_draw),
# R_RESH_ANY: 1 if it is offered at any point of the turn, 0 at the turn's start only
# (reshuffle_at), R_SWAP_MATCH: 1 if a SWAP gives as many cards as it takes (swap_give),
# R_SPLIT_MIN: 1 if the even split of a tower below min_tower pays 0 (split_min_tower)
(R_PLAYERS, R_NB, R_N1, R_N12, R_TARGET, R_HAND, R_MIN_TOWER, R_MAX_ROUNDS,
 R_BLOCKMASK, R_RESH_N, R_RESH_ANY, R_SWAP_MATCH, R_SPLIT_MIN) = range(S_RULES, S_RULES + 13)
# float knobs (float64 bits)
(R_BASE, R_AH, R_AU, R_ANYF, R_RISK_STYLE, R_PUSH_STYLE, R_ADJ_RISK,
 R_REM_RISK) = range(S_RULES + 13, S_RULES + 21)
R_D = S_RULES + 21          # [3] placement difficulty of a 1-, 2-, 3-point block
R_S = R_D + 3               # [3] instability share of a 1-, 2-, 3-point block
R_SKILL = R_S + 3           # [MAXP] skill per seat
N_RULES = R_SKILL + MAXP - S_RULES
FLOAT_RULES = tuple(range(R_BASE, R_SKILL + MAXP))

# zones (and the counters the snapshot needs)
S_TURN = S_RULES + N_RULES  # turns begun in the game
S_ROUND = S_TURN + 1        # round index (0-based)
S_START = S_TURN + 2        # seat holding the start card this round
S_DIR = S_TURN + 3          # this round's direction: +1 or -1
S_CUR = S_TURN + 4          # the seat to move
S_PREV = S_TURN + 5         # the seat that played the preceding turn of this round (-1: none)
S_DRAW_N = S_TURN + 6
S_PILE_N = S_TURN + 7       # = tower height h
S_USED = S_TURN + 8         # mask: action cards played this round
S_U = S_TURN + 9            # float: instability u
S_HANDS = S_TURN + 10       # [MAXP] masks
S_WON = S_HANDS + MAXP      # [MAXP] masks: point cards taken this round
S_SCORES = S_WON + MAXP     # [MAXP] points
S_DRAW = S_SCORES + MAXP    # [NCMAX] draw pile, top = last
S_PILE = S_DRAW + NCMAX     # [MAXB] point pile = tower, bottom first
S_SHARE = S_PILE + MAXB     # [MAXB] floats: instability share of each standing block
ZONES_END = S_SHARE + MAXB
# per-game bookkeeping (cleared at the start of every game)
S_EVERH = ZONES_END         # [MAXP] masks: cards the seat ever held
S_EVERP = S_EVERH + MAXP    # [MAXP] masks: cards the seat ever played
S_HELD = S_EVERP + MAXP     # [MAXP][NT] card-power bits (filled from the masks at the end)
S_PLAYED = S_HELD + MAXP * NT
S_SCORE = S_PLAYED + MAXP * NT  # [MAXP] final points per seat
S_EVC = S_SCORE + MAXP      # [N_EV] event counts this game
# (S_NEV and the per-turn flags follow the event counts, below)

EVENT_NAMES = ("round", "deal", "draw", "reshuffle", "place", "collapse", "split", "adjust",
               "anywhere", "remove", "swap", "turn", "fall_place", "fall_adjust",
               "fall_remove") + tuple(f"collapse_h{h}" for h in range(1, MAXB + 1))
(EV_ROUND, EV_DEAL, EV_DRAW, EV_RESHUFFLE, EV_PLACE, EV_COLLAPSE, EV_SPLIT, EV_ADJUST,
 EV_ANYWHERE, EV_REMOVE, EV_SWAP, EV_TURN, EV_FALL_PLACE, EV_FALL_ADJUST,
 EV_FALL_REMOVE) = range(15)
EV_H1 = 15                  # EV_H1 + h - 1: a collapse with h blocks standing (count only)
N_EV = len(EVENT_NAMES)
TRACED = 11                 # event kinds below this are written to a trace; the rest are counts only

S_NEV = S_EVC + N_EV        # events written to the trace buffer
S_ANY = S_NEV + 1           # 1 while ANYWHERE is in force this turn
S_RECV = S_NEV + 2          # mask: cards received in this turn's SWAP
S_HZ_KEY = S_NEV + 3        # hazard cache (moves.hazard): h | points << 8 | seat << 16 ...
S_HZ_U = S_NEV + 4          # ... and the bits of u it was computed at ...
S_HZ_VAL = S_NEV + 5        # ... and exp(a_h*(h-1) + a_u*u + d_b - skill) (float)
S_RESH = S_NEV + 6          # 1 once the two-action reshuffle was used this turn
S_SIZE = S_NEV + 7
# trace mode: st is longer, and event i is st[S_SIZE + i*TRACE_ROW:][:TRACE_ROW]: an event
# row of EVW numbers, then the snapshot st[:ZONES_END] after it
EVW = 9  # event row: kind, player (-1 chance), turn, a, b, c, d, e, f
TRACE_ROW = EVW + ZONES_END

# strategy answers for the action step, as (kind, a, b, c):
#   (NO_ACTION, 0, 0, 0)
#   (ADJUST, new share in thousandths of the base share 0..2000, 0, 0)
#   (ANYWHERE, 0, 0, 0), (REMOVE, 0, 0, 0)
#   (SWAP, target seat, card to give, second card to give or -1): exactly
#   moves.swap_size(st, me, target) cards (1 or 2)
NO_ACTION = -1
# collapse causes (field "during" of a collapse event)
DURING = ("place", "adjust", "remove")

END_NAMES = ("target", "cap")
END_TARGET, END_CAP = range(2)

TALLY = TallyLayout(maxp=MAXP, n_types=NT, n_end=len(END_NAMES), n_events=N_EV)
