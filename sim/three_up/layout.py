"""3UP 3DOWN's numbers: card types, rule slots, the state schema, decisions, events.

Everything a game reads or writes lives in one int64 array ``st``, declared below with
the shared ``Schema`` (``sim/schema.py``): the random generator (``st[0:4]``), the rules
(with the deck: the card type of every card id), the zones, the pending decision, per-game
bookkeeping and, in trace mode, the event buffer at the end.  Every compiled helper takes
just ``st``, and a trace snapshot is simply ``st[:ZONES_END]``.

A card is an id 0..n-1 into the deck; its **type** is ``st[R_TYPE + id]``: type
t < MAXN is the number t + 1, then ``T_CLR``, ``T_CLR1``, ``T_CLR2``.  Type order is the
order of the reference strategy's "highest codes" (1 < ... < 10 < CLR < CLR1 < CLR2).
Ids are sorted by type; colours (only for the trace's codes) come from ``deck_cards``.

A hand is kept by type: seat s holds ``st[S_HCNT + s*NT + t]`` cards of type t, their ids
in the bucket ``st[S_HAND + (s*NT + t)*MAXK:]`` (a stack: discards take the last ones),
so a discard or a draw never scans the hand.  Listed type by type, a hand is sorted.  The
types a hand holds are also a bit mask, ``st[S_HMASK + s]`` (bit t: a card of type t), kept
by every rule that moves a card into or out of a hand and rebuilt by the re-deals, so the
lowest legal type is one count-trailing-zeros (``moves.src_mask``, ``lowest_legal_number``).

The decisions (``st[S_PHASE]``, asked of seat ``st[S_ACTOR]``), each answered with four
numbers (the fields a decision does not name are 0):

- ``D_UP``      (mask): 3 of the 6 dealt cards to lay face up, as a mask of positions in
  deal order (``S_DEALT``); asked of seat 0, 1, ... after the deal;
- ``D_DRAW``    (draw): 1 to draw back up to 3 before an extra discard owed by a Clear
  +1/+2, 0 not to (asked only when the draw pile has cards and the hand fewer than 3);
- ``D_DISCARD`` (kind, type, count): (A_PLAY, type, count) from the current source (the
  hand; the up cards once hand and draw pile are empty) or (A_PICKUP, 0, 0); for an extra
  discard owed by a Clear +1/+2 from the hand, with ``extra_discards=hand_optional``, also
  (A_STOP, 0, 0): the chain ends, the turn goes on to the draw.  Down cards are played
  blind: no decision.
"""
from __future__ import annotations

from cardlab.sim.schema import NOBODY, OWNER, PILE, PUBLIC, TABLE, VALUES, Schema

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
EXTRA_CHOICES = ("compulsory", "hand_optional")  # extra_discards, in rule-vector order


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


# discard answers as (kind, type, count, 0): the source (hand, else up cards) is implied;
# A_STOP ends a Clear +1/+2 chain instead of an extra discard from the hand
# (extra_discards=hand_optional)
A_PICKUP, A_PLAY, A_STOP = range(3)
SRC_HAND, SRC_UP, SRC_DOWN = range(3)
# why a seat picked up the pile: no legal discard, by choice (must_play_if_able=false),
# an empty hand while the draw pile lasts, a blind down card that failed
P_FORCED, P_CHOSEN, P_EMPTY_HAND, P_DOWN = range(4)
PICKUP_NAMES = ("no_discard", "chosen", "empty_hand", "down_failed")
# why the pile was cleared
WHY_RUN, WHY_CLR, WHY_CLR1, WHY_CLR2 = range(4)
WHY_NAMES = ("run", "CLR", "CLR1", "CLR2")

EVENT_NAMES = ("deal", "choose_up", "play", "down", "clear", "pickup", "draw", "stop")
EV_DEAL, EV_UP, EV_PLAY, EV_DOWN, EV_CLEAR, EV_PICKUP, EV_DRAW, EV_STOP = range(8)

END_NAMES = ("out", "cap")
END_OUT, END_CAP = range(2)

# ---------------------------------------------------------------- the state
S = Schema("three_up", maxp=MAXP, n_types=NT, events=EVENT_NAMES, ends=END_NAMES,
           decisions=(("up", "mask"), ("draw", "draw"), ("discard", "kind,type,count")))
# the rule vector: the knobs, then the deck: the card type of every card id (MAXC slots,
# R_TYPE + id); R_EMPTY_HAND_PICKUP is the knob empty_hand_in_chain, 0 = draw, 1 = pickup;
# R_EXTRA_OPT the knob extra_discards, 0 = compulsory, 1 = hand_optional; R_LATER_SEATS_EXTRA
# the compensation knob later_seats_extra (0 = the printed game), last so every other slot
# keeps its place
R = S.rules("players", "ncards", "maxn", "clear_run", "equal", "must", "max_turns",
            "draw_after_pickup", "empty_hand_pickup", "extra_opt", *(f"type{i}" for i in range(MAXC)),
            "later_seats_extra")
S.counter("draw_n", "cards in the draw pile")
S.counter("pile_n", "cards in the discard pile")
S.counter("gone_n", "cards cleared (out of the game)")
S.counter("turn", "turns played (seat slots)")
S.counter("top", "type of the pile's top card (-1: empty pile)")
S.counter("run", "equal numbers in a row on top of the pile")
S.counter("win", "the seat out of cards, -1 while none")
S.seats("hand_n", "cards in the seat's hand")
S.seats("up_n", "the seat's up cards left")
S.seats("down_n", "the seat's down cards left")
S.zone("hcnt", NT, "the seat's hand as a count per card type (numbers, not cards: the "
       "cards are in 'hand')", owner=True, visible=OWNER, encoding=VALUES)
S.zone("draw", MAXC, "the draw pile, top = last", visible=NOBODY, encoding=PILE, count="draw_n")
S.zone("pile", MAXC, "the discard pile, top = last", visible=PUBLIC, encoding=PILE, count="pile_n")
S.zone("gone", MAXC, "cards cleared, in the order they left", visible=PUBLIC, encoding=PILE, count="gone_n")
S.zone("hand", NT * MAXK, "the seat's hand by type: a stack of MAXK card ids per type, "
       "the first hcnt of each", owner=True, visible=OWNER, encoding=TABLE)
S.zone("up", NUP, "the seat's face-up cards (the first up_n)", owner=True, visible=PUBLIC, encoding=PILE,
       count="up_n")
S.zone("down", NDOWN, "the seat's face-down cards, in deal order (played last first)",
       owner=True, visible=NOBODY, encoding=PILE, count="down_n")
S.end_zones()
# the up cards by type: numbers that follow the public up cards (every seat can count them)
S.book("ucnt", NT, "the seat's up cards as a count per card type", owner=True, visible=PUBLIC)
S.book("hmask", 1, "the seat's hand as a bit mask of card types: bit t set when it holds a "
       "card of type t (st[S_HCNT + seat*NT + t] > 0); the owner's information, like the hand "
       "(a re-deal rebuilds it from the re-dealt hand: kernel.table_put, ThreeUp.put_zone_cards)",
       owner=True, visible=OWNER, derived=True)
# counts of public events (kept for the analysis, never read by the rules)
S.book("pickc", 4, "pick-ups this game by reason (P_*), not tallied (hidden: with "
       "must_play_if_able=false, 'chosen' against 'no_discard' says whether the hand could play)")
S.book("pick0", 1, "pick-ups of an empty pile this game", visible=PUBLIC)
S.book("gave_up", 1, "chains given up by an empty hand (empty_hand_in_chain=draw)", visible=PUBLIC)
S.book("stopped", 1, "chains a seat ended by choice (A_STOP, extra_discards=hand_optional)",
       visible=PUBLIC)
S.book("dealt", NDEAL, "the six cards dealt for the up choice, in deal order: the positions "
       "an up choice names; the seat's own cards (a re-deal re-makes it from the re-dealt hand "
       "while the seat's up choice is to come and clears it once made: kernel.table_put, "
       "ThreeUp.put_zone_cards)", owner=True, visible=OWNER, derived=True)
# the turn in progress (a copy of st at any decision plays on from here): every seat saw
# the discards that made it, so it is public, and a re-deal keeps it
S.book("owed", 1, "discards the turn still owes (1, plus what a Clear +1/+2 adds)", visible=PUBLIC)
S.book("may_draw", 1, "1: the optional draw comes before the next owed discard", visible=PUBLIC)
S.book("picked", 1, "1: the turn ended with a pick-up (no draw back up to 3 unless "
       "draw_after_pickup)", visible=PUBLIC)
S.book("extra", 1, "1 once the turn made its first discard: a discard it still owes is an "
       "extra one (a Clear +1/+2's)", visible=PUBLIC)
# what every seat saw go into a hand: a picked-up pile is public, so the search's re-deal puts
# those cards back (kernel.honour_shown) instead of dealing them afresh among the hidden places
S.book("known", NT, "cards of each type every seat knows the seat holds in hand: each pile it "
       "picked up added its cards, each discard of n from the hand takes n off (at least 0)",
       owner=True, visible=PUBLIC)
# a discard's legal actions: each legal number with 1..all its copies (at most MAXK of a
# type, MAXN number types), each Clear type, the pick-up, the stop
MAXACT = MAXN * MAXK + 5
S.scratch("acts", 4 * MAXACT, "legal-action buffer (legal), 4 ints each")
S.give(start=("hand", "down"), pool=("draw", "hand", "down"),
       note="the seat's nine dealt cards (six for the up choice, three face down); copies "
       "come from the draw pile and the other seats' dealt cards")
S.progress("minus the cards left to shed (hand, up, down)", close=1)  # close: the runner-up one card from out
S.numbers(seats=("win",))  # a seat number (the observation vector gives it from the observer)
# ---- the schema's names: written by python scripts/layout_names.py, checked by S.seal
S_RNG, S_SEAT_RNG, S_SEED, S_RULES = S.at("rng", "seat_rng", "seed", "rules")
S_DRAW_N, S_PILE_N, S_GONE_N, S_TURN = S.at("draw_n", "pile_n", "gone_n", "turn")
S_TOP, S_RUN, S_WIN, S_HAND_N = S.at("top", "run", "win", "hand_n")
S_UP_N, S_DOWN_N, S_HCNT, S_DRAW = S.at("up_n", "down_n", "hcnt", "draw")
S_PILE, S_GONE, S_HAND, S_UP, S_DOWN = S.at("pile", "gone", "hand", "up", "down")
S_PHASE, S_ACTOR, S_HELD, S_PLAYED = S.at("phase", "actor", "held", "played")
S_SCORE, S_EVC, S_MASK, S_LENGTH = S.at("score", "evc", "mask", "length")
S_UNFINISHED, S_END, S_NEV, S_SHAPE = S.at("unfinished", "end", "nev", "shape")
S_UCNT, S_HMASK, S_PICKC, S_PICK0, S_GAVE_UP = S.at("ucnt", "hmask", "pickc", "pick0", "gave_up")
S_STOPPED, S_DEALT, S_OWED, S_MAY_DRAW = S.at("stopped", "dealt", "owed", "may_draw")
S_PICKED, S_EXTRA, S_KNOWN, S_ACTS = S.at("picked", "extra", "known", "acts")
R_PLAYERS, R_NCARDS, R_MAXN, R_CLEAR_RUN = S.rule("players", "ncards", "maxn", "clear_run")
R_EQUAL, R_MUST, R_MAX_TURNS = S.rule("equal", "must", "max_turns")
R_DRAW_AFTER_PICKUP, R_EMPTY_HAND_PICKUP = S.rule("draw_after_pickup", "empty_hand_pickup")
R_EXTRA_OPT, R_TYPE0, R_TYPE1, R_TYPE2 = S.rule("extra_opt", "type0", "type1", "type2")
R_TYPE3, R_TYPE4, R_TYPE5, R_TYPE6, R_TYPE7 = S.rule("type3", "type4", "type5", "type6", "type7")
R_TYPE8, R_TYPE9, R_TYPE10, R_TYPE11 = S.rule("type8", "type9", "type10", "type11")
R_TYPE12, R_TYPE13, R_TYPE14, R_TYPE15 = S.rule("type12", "type13", "type14", "type15")
R_TYPE16, R_TYPE17, R_TYPE18, R_TYPE19 = S.rule("type16", "type17", "type18", "type19")
R_TYPE20, R_TYPE21, R_TYPE22, R_TYPE23 = S.rule("type20", "type21", "type22", "type23")
R_TYPE24, R_TYPE25, R_TYPE26, R_TYPE27 = S.rule("type24", "type25", "type26", "type27")
R_TYPE28, R_TYPE29, R_TYPE30, R_TYPE31 = S.rule("type28", "type29", "type30", "type31")
R_TYPE32, R_TYPE33, R_TYPE34, R_TYPE35 = S.rule("type32", "type33", "type34", "type35")
R_TYPE36, R_TYPE37, R_TYPE38, R_TYPE39 = S.rule("type36", "type37", "type38", "type39")
R_TYPE40, R_TYPE41, R_TYPE42, R_TYPE43 = S.rule("type40", "type41", "type42", "type43")
R_TYPE44, R_TYPE45, R_TYPE46, R_TYPE47 = S.rule("type44", "type45", "type46", "type47")
R_TYPE48, R_TYPE49, R_TYPE50, R_TYPE51 = S.rule("type48", "type49", "type50", "type51")
R_TYPE52, R_TYPE53, R_TYPE54, R_TYPE55 = S.rule("type52", "type53", "type54", "type55")
R_TYPE56, R_TYPE57, R_TYPE58, R_TYPE59 = S.rule("type56", "type57", "type58", "type59")
R_TYPE60, R_TYPE61, R_TYPE62, R_TYPE63 = S.rule("type60", "type61", "type62", "type63")
R_TYPE64, R_TYPE65, R_TYPE66, R_TYPE67 = S.rule("type64", "type65", "type66", "type67")
R_TYPE68, R_TYPE69, R_TYPE70, R_TYPE71 = S.rule("type68", "type69", "type70", "type71")
R_TYPE72, R_TYPE73, R_TYPE74, R_TYPE75 = S.rule("type72", "type73", "type74", "type75")
R_TYPE76, R_TYPE77, R_TYPE78, R_TYPE79 = S.rule("type76", "type77", "type78", "type79")
R_TYPE80, R_TYPE81, R_TYPE82, R_TYPE83 = S.rule("type80", "type81", "type82", "type83")
R_TYPE84, R_TYPE85, R_TYPE86, R_TYPE87 = S.rule("type84", "type85", "type86", "type87")
R_TYPE88, R_TYPE89, R_TYPE90, R_TYPE91 = S.rule("type88", "type89", "type90", "type91")
R_TYPE92, R_TYPE93, R_TYPE94, R_TYPE95 = S.rule("type92", "type93", "type94", "type95")
R_TYPE96, R_TYPE97, R_TYPE98, R_TYPE99 = S.rule("type96", "type97", "type98", "type99")
R_TYPE100, R_TYPE101, R_TYPE102, R_TYPE103 = S.rule("type100", "type101", "type102", "type103")
R_TYPE104, R_TYPE105, R_TYPE106, R_TYPE107 = S.rule("type104", "type105", "type106", "type107")
R_TYPE108, R_TYPE109, R_TYPE110, R_TYPE111 = S.rule("type108", "type109", "type110", "type111")
R_TYPE112, R_TYPE113, R_TYPE114, R_TYPE115 = S.rule("type112", "type113", "type114", "type115")
R_TYPE116, R_TYPE117, R_TYPE118, R_TYPE119 = S.rule("type116", "type117", "type118", "type119")
R_TYPE120, R_TYPE121, R_TYPE122, R_TYPE123 = S.rule("type120", "type121", "type122", "type123")
R_TYPE124, R_TYPE125, R_TYPE126, R_TYPE127 = S.rule("type124", "type125", "type126", "type127")
R_LATER_SEATS_EXTRA = S.rule("later_seats_extra")
N_RULES, ZONES_END, TRACE_ROW, N_EV = len(S.rule_names), S.zones_end, S.trace_row, len(S.events)
S_SIZE, EVW, DONE = S.size, S.evw, S.done
D_UP, D_DRAW, D_DISCARD = S.decision("up", "draw", "discard")
ENGINE = S.engine_tuple()
REDEAL, CLEAR, GIVE = S.redeal_table(), S.clear_table(), S.give_table()
# ---- end of the schema's names
S.seal(globals())
R_TYPE = R_TYPE0  # noqa: F821 - st[R_TYPE + id]: the card type of card id (MAXC slots)
# trace mode: st is longer, and event i is st[S_SIZE + i*TRACE_ROW:][:TRACE_ROW]: an event
# row of EVW numbers, then the snapshot st[:ZONES_END] after it

# the action kinds a restriction (mcts:never=) may name, bits KIND_BIT + i (moves.restrict_bits)
RESTRICT_KINDS = ("pickup", "draw")
