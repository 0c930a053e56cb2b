"""5 Towers' numbers: cards, the declared state (rule slots, zones, bookkeeping), the
decisions, events.

Everything a game reads or writes lives in one int64 array ``st`` whose parts are
declared below with the schema (``sim/schema.py``), which derives every offset: the
random generator (``st[0:4]``), the rules, the zones, per-game bookkeeping, strategy
scratch and, in trace mode, the event buffer at the end.  Every compiled helper takes
just ``st``; a trace snapshot is simply ``st[:ZONES_END]``.

A card is ``copy * 128 + kind * 16 + value`` (kind 0..4 = C S T R A, value 0..15;
copy 1 only for the 4–5 player extra cards), so ``value = c & 15`` and
``kind = (c >> 4) & 7``.  A tower is stored bottom first.
"""
from cardlab.sim.schema import NOBODY, PILE, PUBLIC, SLOTS, TABLE, VALUES, Schema

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


EVENT_NAMES = ("reveal", "reshuffle", "bid", "pass", "teardown", "place", "discard",
               "all_pass", "build_1", "build_2", "build_3", "build_4", "build_5",
               "build_6", "build_7", "build_8")
(EV_REVEAL, EV_RESHUFFLE, EV_BID, EV_PASS, EV_TEARDOWN, EV_PLACE, EV_DISCARD,
 EV_ALL_PASS, EV_BUILD1) = range(9)

END_NAMES = ("deck", "cap")
END_DECK, END_CAP = range(2)

# ---------------------------------------------------------------- the state
# The decisions, in the order of a round: every seat speaks once (D_BID: a bid, or 0 to
# pass); the high bidder then builds in small steps: the optional tear-down (D_TEAR: a
# kind, or -1 for none; before placing, or after with teardown_when=after) and one
# placement per card bid (D_PLACE: an offer slot; "-1, n" is never legal: a strategy
# whose plan has n cards, not the bid's, says so and the kernel names both).
S = Schema("five_towers", maxp=MAXP, n_types=NT, events=EVENT_NAMES, ends=END_NAMES,
           decisions=(("bid", "bid"), ("tear", "kind"), ("place", "slot,cards")))
# the last two are compensation knobs (not in the rulebook: balancing options; 0 is the
# game as printed): seat_points (seat s starts with s * n points) and ties (TIES below)
R = S.rules("players", "deck", "offer", "allpass_stay", "tear_after", "rubble_linear",
            "max_rounds", "seat_points", "ties")
S.counter("draw_n", "cards in the draw pile")
S.counter("disc_n", "cards in the discard pile")
S.counter("offer_n", "offer slots revealed this round (taken ones are -1)")
S.counter("round", "rounds begun (the game's length)")
S.counter("start", "this round's start player")
S.counter("runouts", "times a reveal found the draw pile empty")
S.counter("high", "the high bid of this round's bidding so far (0: none)")
S.counter("bidder", "who made it (-1: nobody yet); the builder once the bidding is over")
S.counter("spoken", "seats that have spoken in this round's bidding")
S.counter("placed", "cards the builder has placed this round")
S.zone("th", NK, "the height of each of the seat's towers, by kind", owner=True,
       visible=PUBLIC, encoding=VALUES)
S.seats("rub_n", "cards on the seat's rubble pile")
S.zone("offer", MAXOFF, "the offer: a card per slot, -1 once taken (or not revealed)",
       visible=PUBLIC, encoding=SLOTS)
S.zone("tow", NK * MAXH, "the seat's towers: MAXH slots per kind, bottom first", owner=True,
       visible=PUBLIC, encoding=TABLE)
S.zone("rub", NCARDS, "the seat's rubble pile (torn-down cards), oldest first", owner=True,
       visible=PUBLIC, encoding=PILE, count="rub_n")
S.zone("draw", NCARDS, "the draw pile, top = last", visible=NOBODY, encoding=PILE,
       count="draw_n")
S.zone("disc", NCARDS, "the discard pile, newest last", visible=PUBLIC, encoding=PILE, count="disc_n")
S.end_zones()
# the books: every one follows from what every seat sees (the offer, the towers, the
# run-outs), so each is public and a re-deal of the draw pile keeps it as it is
S.book("over", 1, "1 once the game ends after this round (the second run-out)", visible=PUBLIC)
# caches kept in step with the zones (``moves.refresh`` rebuilds them from the zones)
S.book("km", NK, "bit mask of the offer slots holding each kind", visible=PUBLIC)
S.book("top", NK, "the top value of each of the seat's towers, EMPTY (16) if none", owner=True,
       visible=PUBLIC)
S.book("ver", 1, "bumped whenever the offer or a tower changes (strategies cache on it)",
       visible=PUBLIC)
# the rules' own memo (moves.kind_can): counts of the public offer on public towers, and
# which seat they are for; the strategies count for themselves (they never write the table)
S.book("can", NK, "the most offer cards of each kind seat can_seat can place on its towers "
       "(-1: not counted since that tower or the offer changed)", visible=PUBLIC)
S.book("can_seat", 1, "the seat st[S_CAN:] counts for (-1: none)", visible=PUBLIC)
# the builder's plan, written by its strategy at the build's first sub-decision and
# answered from in the next ones: the kind to tear down or -1, the cards, the offer
# slots in placement order.  It lasts from one decision to the next, so it is each
# seat's own memory (seat s's at S_PLAN_TEAR + s, ..., S_PLAN + s * MAXOFF)
S.scratch("plan_tear", 1, "the plan's tear-down: a kind, or -1", owner=True)
S.scratch("plan_for", 1, "the round (+1) whose build the plan is for", owner=True)
S.scratch("plan_done", 1, "the plan's steps played so far (its build's steps, when all were its own)",
          owner=True)
S.scratch("plan_n", 1, "the plan's card count (it must equal the bid)", owner=True)
S.scratch("plan", MAXOFF, "the plan's offer slots in placement order", owner=True)
S.scratch("pc", 3, "the seat's reference plan, cached until st[S_VER] changes: version, cards, "
          "tear-down (strategies.five_towers.reference_plan)", owner=True)
# working memory: written before it is read, within one decision
S.scratch("dp", 1 << MAXOFF, "the placement search's table (moves.search)")
S.scratch("seq", MAXOFF, "a searched placement order (moves.search)")
S.scratch("tmp", MAXOFF, "strategies' per-kind counts")
MAXACT = MAXOFF + 1  # the most legal actions: a pass and bids 1..8 (tear: 6, place: 8)
S.scratch("acts", 4 * MAXACT, "legal-action buffer (legal), 4 ints each")
S.give(start=("tow",), pool=("draw",),
       note="seats start with no cards: in both arms the seat starts with one card at the "
       "bottom of its tower of that kind, taken from the draw pile (IN: a copy of the type; "
       "OUT: a random card of another type)")
S.progress("points if the game ended now (moves.score)", close=2)  # close: within two points
S.numbers(seats=("start", "bidder", "can_seat"))  # seat numbers (the observation vector: from the observer)
# ---- the schema's names: written by python scripts/layout_names.py, checked by S.seal
S_RNG, S_SEAT_RNG, S_SEED, S_RULES = S.at("rng", "seat_rng", "seed", "rules")
S_DRAW_N, S_DISC_N, S_OFFER_N, S_ROUND = S.at("draw_n", "disc_n", "offer_n", "round")
S_START, S_RUNOUTS, S_HIGH, S_BIDDER = S.at("start", "runouts", "high", "bidder")
S_SPOKEN, S_PLACED, S_TH, S_RUB_N = S.at("spoken", "placed", "th", "rub_n")
S_OFFER, S_TOW, S_RUB, S_DRAW, S_DISC = S.at("offer", "tow", "rub", "draw", "disc")
S_PHASE, S_ACTOR, S_HELD, S_PLAYED = S.at("phase", "actor", "held", "played")
S_SCORE, S_EVC, S_MASK, S_LENGTH = S.at("score", "evc", "mask", "length")
S_UNFINISHED, S_END, S_NEV, S_SHAPE = S.at("unfinished", "end", "nev", "shape")
S_OVER, S_KM, S_TOP, S_VER = S.at("over", "km", "top", "ver")
S_CAN, S_CAN_SEAT, S_PLAN_TEAR, S_PLAN_FOR = S.at("can", "can_seat", "plan_tear", "plan_for")
S_PLAN_DONE, S_PLAN_N, S_PLAN, S_PC = S.at("plan_done", "plan_n", "plan", "pc")
S_DP, S_SEQ, S_TMP, S_ACTS = S.at("dp", "seq", "tmp", "acts")
R_PLAYERS, R_DECK, R_OFFER, R_ALLPASS_STAY = S.rule("players", "deck", "offer", "allpass_stay")
R_TEAR_AFTER, R_RUBBLE_LINEAR, R_MAX_ROUNDS = S.rule("tear_after", "rubble_linear", "max_rounds")
R_SEAT_POINTS, R_TIES = S.rule("seat_points", "ties")
N_RULES, ZONES_END, TRACE_ROW, N_EV = len(S.rule_names), S.zones_end, S.trace_row, len(S.events)
S_SIZE, EVW, DONE = S.size, S.evw, S.done
D_BID, D_TEAR, D_PLACE = S.decision("bid", "tear", "place")
ENGINE = S.engine_tuple()
REDEAL, CLEAR, GIVE = S.redeal_table(), S.clear_table(), S.give_table()
# ---- end of the schema's names
S.seal(globals())
# trace mode: st is longer, and event i is st[S_SIZE + i*TRACE_ROW:][:TRACE_ROW]: an event
# row of EVW numbers, then the snapshot st[:ZONES_END] after it

# the action kinds a restriction (mcts:never=) may name, bits KIND_BIT + i (moves.restrict_bits)
RESTRICT_KINDS = ("bid", "tear")

# the ties compensation knob: seats tied for the top score share the win (as printed), or
# the tied seat latest in the first round's bidding order (the highest seat number) wins alone
TIES = ("share", "later_seat")
TIES_SHARE, TIES_LATER_SEAT = range(2)
