"""3UP 3DOWN's numbers: card types, rule slots, state offsets, events.

Everything a game reads or writes lives in one int64 array ``st`` with the named
offsets below: the random generator (``st[0:4]``), the rules (with the deck: the card
type of every card id), the zones, per-game bookkeeping and, in trace mode, the event
buffer at the end.  Every compiled helper takes just ``st``, and a trace snapshot is
simply ``st[:ZONES_END]``.

A card is an id 0..n-1 into the deck; its **type** is ``st[R_TYPE + id]``: type
t < MAXN is the number t + 1, then ``T_CLR``, ``T_CLR1``, ``T_CLR2``.  Type order is the
order of the reference strategy's "highest codes" (1 < ... < 10 < CLR < CLR1 < CLR2).
Ids are sorted by type; colours (only for the trace's codes) come from ``deck_cards``.

A hand is kept by type: seat s holds ``st[S_HCNT + s*NT + t]`` cards of type t, their ids
in the bucket ``st[S_HAND + (s*NT + t)*MAXK:]`` (a stack: discards take the last ones),
so a discard or a draw never scans the hand.  Listed type by type, a hand is sorted.
"""
from __future__ import annotations

from cardlab.sim.tally import TallyLayout

MAXP = 6            # seats
MAXC = 128          # cards in the deck at most
MAXN = 15           # the highest number card allowed (max_number)
MAXK = 12           # cards of one type at most (every count knob is at most 12)
T_CLR = MAXN        # Clear
T_CLR1 = MAXN + 1   # Clear +1
T_CLR2 = MAXN + 2   # Clear +2
NT = MAXN + 3       # card types (card power)
NDOWN = 3           # down cards per seat
NUP = 3             # up cards per seat
NDEAL = 6           # cards dealt per seat for the up/hand choice
HAND = 3            # draw back up to this many cards
COLOURS = "RBG"
PRESETS = {  # deck preset -> (copies of each number, CLR, CLR1, CLR2)
    "seed74": (6, 6, 6, 2),
    # an UNVERIFIED composition: no checkable source (the seed text says 84 cards but
    # itemises 74; this is the published game's deck as reported elsewhere)
    "published84": (7, 7, 6, 1),
}
EMPTY_HAND_CHOICES = ("draw", "pickup")  # empty_hand_in_chain, in rule-vector order


def face(t: int) -> str:
    """A card type's face: "1".."15", "CLR", "CLR1", "CLR2"."""
    if t < MAXN:
        return str(t + 1)
    return ("CLR", "CLR1", "CLR2")[t - MAXN]


def type_of_face(f: str) -> int:
    if f in ("CLR", "CLR1", "CLR2"):
        return MAXN + ("CLR", "CLR1", "CLR2").index(f)
    return int(f) - 1


def deck_counts(rules: dict) -> dict[int, int]:
    """Cards per type of the deck the rules describe (the preset, counts overridden)."""
    copies, c0, c1, c2 = PRESETS[rules["deck"]]
    if rules["copies"] >= 0:
        copies = rules["copies"]
    if rules["clear_copies"] >= 0:
        c0 = rules["clear_copies"]
    if rules["clear1_copies"] >= 0:
        c1 = rules["clear1_copies"]
    if rules["clear2_copies"] >= 0:
        c2 = rules["clear2_copies"]
    out = {t: copies for t in range(rules["max_number"])}
    out[T_CLR] = c0
    out[T_CLR1] = c1
    out[T_CLR2] = c2
    return out


def deck_cards(rules: dict) -> list[tuple[int, str]]:
    """(type, colour) of every card id.  Colours never matter for play: every card but
    Clear +2 takes the next colour of one R, B, G cycle running over the deck in type
    order (so seed74 has exactly two of each number, CLR and CLR1 per colour, and
    published84 spreads its sevens as evenly as possible); every Clear +2 is green."""
    out = []
    k = 0
    for t, n in sorted(deck_counts(rules).items()):
        for _ in range(n):
            if t == T_CLR2:
                out.append((t, "G"))
            else:
                out.append((t, COLOURS[k % 3]))
                k += 1
    return out


S_RNG = 0    # st[0:4]: the xoshiro256** state (sim/rng.py)
S_RULES = 4  # the rule vector, copied in once per batch: st[R_X] is knob X
N_FLAT = 9
(R_PLAYERS, R_NCARDS, R_MAXN, R_CLEAR_RUN, R_EQUAL, R_MUST, R_MAX_TURNS,
 R_DRAW_AFTER_PICKUP, R_EMPTY_HAND_PICKUP) = range(S_RULES, S_RULES + N_FLAT)
# R_EMPTY_HAND_PICKUP: the knob empty_hand_in_chain, 0 = draw, 1 = pickup
R_TYPE = S_RULES + N_FLAT           # [MAXC] card type of every card id
N_RULES = N_FLAT + MAXC

# zones (and the counters the snapshot needs)
S_DRAW_N = S_RULES + N_RULES        # cards in the draw pile
S_PILE_N = S_DRAW_N + 1             # cards in the discard pile
S_GONE_N = S_DRAW_N + 2             # cards cleared (out of the game)
S_TURN = S_DRAW_N + 3               # turns played (seat slots)
S_TOP = S_DRAW_N + 4                # type of the pile's top card (-1: empty pile)
S_RUN = S_DRAW_N + 5                # equal numbers in a row on top of the pile
S_WIN = S_DRAW_N + 6                # the seat out of cards, -1 while none
S_HAND_N = S_DRAW_N + 7             # [MAXP] cards in hand
S_UP_N = S_HAND_N + MAXP            # [MAXP] up cards left
S_DOWN_N = S_UP_N + MAXP            # [MAXP] down cards left
S_HCNT = S_DOWN_N + MAXP            # [MAXP][NT] cards per type in hand
S_DRAW = S_HCNT + MAXP * NT         # [MAXC] draw pile, top = last
S_PILE = S_DRAW + MAXC              # [MAXC] discard pile, top = last
S_GONE = S_PILE + MAXC              # [MAXC] cleared cards
S_HAND = S_GONE + MAXC              # [MAXP][NT][MAXK] hands, by type (the first S_HCNT)
S_UP = S_HAND + MAXP * NT * MAXK    # [MAXP][NUP] up cards (the first S_UP_N)
S_DOWN = S_UP + MAXP * NUP          # [MAXP][NDOWN] down cards, in deal order (played last first)
ZONES_END = S_DOWN + MAXP * NDOWN
# per-game bookkeeping (cleared at the start of every game)
S_UCNT = ZONES_END                  # [MAXP][NT] up cards per type
S_HELD = S_UCNT + MAXP * NT         # [MAXP][NT] card-power bits: ever held the type
S_PLAYED = S_HELD + MAXP * NT       # ... discarded a card of the type
S_SCORE = S_PLAYED + MAXP * NT      # [MAXP] cards left at the end
S_EVC = S_SCORE + MAXP              # event counts this game
S_NEV = S_EVC + 16                  # events written to the trace buffer
S_PICKC = S_NEV + 1                 # [4] pick-ups this game by reason (P_*), not tallied
S_PICK0 = S_PICKC + 4               # pick-ups of an empty pile this game
S_GAVE_UP = S_PICK0 + 1             # chains given up by an empty hand (empty_hand_in_chain=draw)
S_DEALT = S_GAVE_UP + 1             # [MAXP][NDEAL] the six cards dealt for the up choice,
                                    # in deal order: the positions an up choice names
S_BAD = S_DEALT + MAXP * NDEAL      # [5] an illegal answer: decision (BAD_*), seat, 3 values;
                                    # play_game is compiled without reference counting, so it
                                    # stops the game and run_games raises (sim/errors.py)
S_SIZE = S_BAD + 5
# trace mode: st is longer, and event i is st[S_SIZE + i*TRACE_ROW:][:TRACE_ROW]: an event
# row of EVW numbers, then the snapshot st[:ZONES_END] after it

# discard answers as (kind, type, count, 0): the source (hand, else up cards) is implied
A_PICKUP, A_PLAY = range(2)
BAD_UP, BAD_DISCARD = 1, 2  # st[S_BAD]: which decision was answered illegally
SRC_HAND, SRC_UP, SRC_DOWN = range(3)
# why a seat picked up the pile: no legal discard, by choice (must_play_if_able=false),
# an empty hand while the draw pile lasts, a blind down card that failed
P_FORCED, P_CHOSEN, P_EMPTY_HAND, P_DOWN = range(4)
PICKUP_NAMES = ("no_discard", "chosen", "empty_hand", "down_failed")
# why the pile was cleared
WHY_RUN, WHY_CLR, WHY_CLR1, WHY_CLR2 = range(4)
WHY_NAMES = ("run", "CLR", "CLR1", "CLR2")

EVENT_NAMES = ("deal", "choose_up", "play", "down", "clear", "pickup", "draw")
EV_DEAL, EV_UP, EV_PLAY, EV_DOWN, EV_CLEAR, EV_PICKUP, EV_DRAW = range(7)
N_EV = len(EVENT_NAMES)
EVW = 9  # event row: kind, player (-1 chance), turn, a, b, c, d, e, f
TRACE_ROW = EVW + ZONES_END

END_NAMES = ("out", "cap")
END_OUT, END_CAP = range(2)

TALLY = TallyLayout(maxp=MAXP, n_types=NT, n_end=len(END_NAMES), n_events=N_EV)
