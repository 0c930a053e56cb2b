"""Crazy Eights' numbers: cards, rule slots, the state schema, decisions, events.

Cards.  One 52-card deck; card ``c = 13 * suit + rank`` with suits C D H S (0..3) and
ranks A 2 .. 9 T J Q K (0..12), so the rank order of the rules (A < 2 < ... < K) is the
number order and every card is one bit of an int64: a hand is a ``MASK`` zone of one word.
A card's suit bits are ``SUIT_MASK[s]``, a rank's four cards ``RANK_MASK[r]``.  Card power
counts ranks (13 types: "how much do the eights decide games" is the power of type ``8``).
"""
from cardlab.sim.schema import MASK, NOBODY, OWNER, PILE, PUBLIC, Schema

MAXP = 7
NCARDS = 52
SUITS = "CDHS"
RANKS = "A23456789TJQK"
EIGHT = 7                                   # the rank of an 8
ANY = 4                                     # the suit to match on a kept 8 starter: any card
SUIT_MASK = tuple(0x1FFF << (13 * s) for s in range(4)) + ((1 << NCARDS) - 1,)  # ... [ANY]: all
RANK_MASK = tuple(sum(1 << (13 * s + r) for s in range(4)) for r in range(13))
EIGHTS = RANK_MASK[EIGHT]
PENALTY = (1, 2, 3, 4, 5, 6, 7, 50, 9, 10, 10, 10, 10)  # by rank: A = 1, 8 = 50, T J Q K = 10


def card_code(c: int) -> str:
    return RANKS[c % 13] + SUITS[c // 13]


def card_of(code: str) -> int:
    return 13 * SUITS.index(code[1]) + RANKS.index(code[0])


EVENT_NAMES = ("deal", "starter", "play", "draw", "pass", "reshuffle")
EV_DEAL, EV_STARTER, EV_PLAY, EV_DRAW, EV_PASS, EV_RESHUFFLE = range(6)
# event fields: deal (seat, card); starter (card, 1 if it was an 8 buried again); play (card,
# called suit or -1); draw (card); pass (); reshuffle (cards in the new stock)

END_NAMES = ("out", "blocked", "cap")
END_OUT, END_BLOCKED, END_CAP = range(3)

# ---------------------------------------------------------------- the state
# Two decisions, in the order a turn meets them (see kernel.py):
#   play  (kind, card): A_PLAY a legal card from the hand, or A_DRAW one card from the stock
#         (offered only with may_draw_when_able=true; a seat that cannot play draws without
#         being asked, and one that cannot draw either passes);
#   call  (suit): the suit the next seat must follow after the seat's 8 (0..3 = C D H S).
S = Schema("crazy_eights", maxp=MAXP, n_types=13, events=EVENT_NAMES, ends=END_NAMES,
           decisions=(("play", "kind,card"), ("call", "suit")))
# hand_size: the number dealt (auto resolved by the Game); rebury, may_draw, reshuffle, points:
# 0/1 (starter_eight=rebury, may_draw_when_able, reshuffle, score=points); first_seat_extra,
# last_seat_fewer, follow_suit_turns: the compensation knobs of the same names (0 = the
# printed game), last so that every other slot keeps its place
R = S.rules("players", "hand_size", "rebury", "may_draw", "draw_limit", "reshuffle", "points",
            "max_turns", "first_seat_extra", "last_seat_fewer", "follow_suit_turns")
S.counter("stock_n", "cards in the stock")
S.counter("disc_n", "cards in the discard pile")
S.counter("turn", "turns (seat slots) begun in the game", clock=True)  # events carry it
S.counter("suit", "the suit to follow: the top card's, the suit called after an 8, 4 = any (kept 8 starter)")
S.counter("passes", "passes in a row (a draw or a play resets it)")
S.counter("drawn", "cards the seat to act drew this turn (draw_limit)")
S.seats("hand_n", "cards in the seat's hand")
S.zone("hands", 1, "the seat's hand (a bit mask)", owner=True, visible=OWNER, encoding=MASK)
S.zone("stock", NCARDS, "the stock, top = last", visible=NOBODY, encoding=PILE, count="stock_n")
S.zone("discard", NCARDS, "the discard pile, bottom first (the last card is the top)",
       visible=PUBLIC, encoding=PILE, count="disc_n")
S.end_zones()
# play: every card of a hand (all but the starter: 51) and the draw; call: the 4 suits
MAXACT = NCARDS + 1
assert MAXACT >= (NCARDS - 1) + 1 and MAXACT >= 4
S.scratch("acts", 4 * MAXACT, "legal-action buffer (legal, the random strategy), 4 ints each")
MEMW = 4
S.scratch("memory", MEMW, "each seat's strategy memory (starver): MEMW numbers from "
          "S_MEMORY + seat * MEMW, cleared by setup", owner=True)
S.give(start=("hands",), pool=("stock", "hands"),
       note="the seat's dealt hand (with seat 0's draws before its first play); copies "
       "come from the stock and the other hands, never the starter")
S.progress("minus the cards left in hand", close=1)  # close: the runner-up on its last card
# the observation's own numbers (moves.more_features), what rank types hide: the seat's
# cards of each suit, the discard pile's, the suit to follow (or any), its cards playable now
S.more_features(*[f"hand_suit[{s}]" for s in SUITS], *[f"discard_suit[{s}]" for s in SUITS],
                *[f"follow[{s}]" for s in SUITS], "follow[any]", "playable")
# ---- the schema's names: written by python scripts/layout_names.py, checked by S.seal
S_RNG, S_SEAT_RNG, S_SEED, S_RULES = S.at("rng", "seat_rng", "seed", "rules")
S_STOCK_N, S_DISC_N, S_TURN = S.at("stock_n", "disc_n", "turn")
S_SUIT, S_PASSES, S_DRAWN = S.at("suit", "passes", "drawn")
S_HAND_N, S_HANDS, S_STOCK, S_DISCARD = S.at("hand_n", "hands", "stock", "discard")
S_PHASE, S_ACTOR, S_HELD, S_PLAYED = S.at("phase", "actor", "held", "played")
S_SCORE, S_EVC, S_MASK, S_LENGTH = S.at("score", "evc", "mask", "length")
S_UNFINISHED, S_END, S_NEV, S_SHAPE = S.at("unfinished", "end", "nev", "shape")
S_ACTS, S_MEMORY = S.at("acts", "memory")
R_PLAYERS, R_HAND_SIZE, R_REBURY, R_MAY_DRAW = S.rule("players", "hand_size", "rebury", "may_draw")
R_DRAW_LIMIT, R_RESHUFFLE, R_POINTS = S.rule("draw_limit", "reshuffle", "points")
R_MAX_TURNS, R_FIRST_SEAT_EXTRA = S.rule("max_turns", "first_seat_extra")
R_LAST_SEAT_FEWER, R_FOLLOW_SUIT_TURNS = S.rule("last_seat_fewer", "follow_suit_turns")
N_RULES, ZONES_END, TRACE_ROW, N_EV = len(S.rule_names), S.zones_end, S.trace_row, len(S.events)
S_SIZE, EVW, DONE = S.size, S.evw, S.done
D_PLAY, D_CALL = S.decision("play", "call")
ENGINE = S.engine_tuple()
REDEAL, CLEAR, GIVE = S.redeal_table(), S.clear_table(), S.give_table()
# ---- end of the schema's names
S.seal(globals())
# starver's memory, offsets within its seat's MEMW words: the turn of its last play + 1 (0:
# none pending), the suit in force after that play, the next seat's hand size then, and the
# suit the next seat has shown it cannot follow + 1 (0: none)
M_TURN, M_SUIT, M_COUNT, M_VOID = range(MEMW)

# actions of the play decision, as (kind, card, 0, 0)
A_PLAY, A_DRAW = range(2)

# the action kinds a restriction (mcts:never=) may name, bits KIND_BIT + i (moves.restrict_bits)
RESTRICT_KINDS = ("draw",)
