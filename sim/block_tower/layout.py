"""Block Tower's numbers: cards, rule slots, the state schema, decisions, events.

Everything a game reads or writes lives in one int64 array ``st`` declared below part
by part (``sim/schema.py`` derives the offsets): the random generator (``st[0:4]``), the
rules, the zones, per-game bookkeeping, scratch and, in trace mode, the event buffer at
the end.  Every compiled helper takes just ``st``; a trace snapshot is ``st[:ZONES_END]``.

Cards.  Block cards are ids ``0 .. n_blocks - 1`` (codes ``B01``, ``B02``, ...); the
points follow from ``points_split`` in order (the first ``n1`` blocks are worth 1, the
next ``n2`` 2, the rest 3).  The four action cards have fixed ids 30..33 (``ADJUST``,
``ANYWHERE``, ``REMOVE``, ``SWAP``), so every card is one bit of an int64: hands, the
per-seat ``won`` piles and the used action cards are bit masks (``MASK`` zones of one
word, bit c set = card c is there, decoded by the schema).  The draw pile and the point pile are ordered piles (draw pile: top = last;
point pile: bottom block first).

Blocks are not cards.  The tower is the point pile read as blocks: a block's card lies
on the point pile exactly while the block stands (placing pushes both, REMOVE pops both,
a collapse empties both), so the trace zone ``tower`` is decoded from the point pile, in
the same order; what the state keeps of the blocks themselves (each standing block's
instability share, and the instability ``u``) are ``VALUES``, never counted as cards.

Float numbers (the collapse-model knobs, per-seat skill, the instability ``u`` and each
standing block's instability share) are stored exactly as the IEEE-754 bits of a
float64 in an int64 slot: ``st.view(np.float64)[X]`` reads slot X as that float.
"""

from cardlab.sim.schema import MASK, NOBODY, OWNER, PILE, PUBLIC, VALUES, Schema

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


EVENT_NAMES = ("round", "deal", "draw", "reshuffle", "place", "collapse", "split", "adjust",
               "anywhere", "remove", "swap", "turn", "fall_place", "fall_adjust",
               "fall_remove") + tuple(f"collapse_h{h}" for h in range(1, MAXB + 1))
(EV_ROUND, EV_DEAL, EV_DRAW, EV_RESHUFFLE, EV_PLACE, EV_COLLAPSE, EV_SPLIT, EV_ADJUST,
 EV_ANYWHERE, EV_REMOVE, EV_SWAP, EV_TURN, EV_FALL_PLACE, EV_FALL_ADJUST,
 EV_FALL_REMOVE) = range(15)
EV_H1 = 15                  # EV_H1 + h - 1: a collapse with h blocks standing (count only)
TRACED = 11                 # event kinds below this are written to a trace; the rest are counts only

END_NAMES = ("target", "cap")
END_TARGET, END_CAP = range(2)

# ---------------------------------------------------------------- the state
# The four decisions of a turn, in the order a turn meets them (see kernel.py):
#   reshuffle  (use, 0, 0, 0): 1 to shuffle the hand into the draw pile and draw three
#              new cards, 0 not (offered, once a turn, while the hand holds two action
#              cards and the draw pile is not empty, before the block is placed);
#   action     (kind, a, b, c): the turn's action card, or none (asked every turn);
#   second     (kind, a, b, c): an action card just received in this turn's SWAP;
#   block      (card, style, 0, 0): the block card and the placement style.
S = Schema("block_tower", maxp=MAXP, n_types=NT, events=EVENT_NAMES, ends=END_NAMES,
           decisions=(("reshuffle", "use"), ("action", "kind,a,b,c"),
                      ("second", "kind,a,b,c"), ("block", "card,style")))
# integer knobs; resh_n: cards drawn after the two-action reshuffle (reshuffle_draw),
# resh_any: 1 if it is offered at any point of the turn, 0 at the turn's start only
# (reshuffle_at), swap_match: 1 if a SWAP gives as many cards as it takes (swap_give),
# split_min: 1 if the even split of a tower below min_tower pays 0 (split_min_tower),
# swap_keep: 1 if a SWAP may not give away the last block card of the hand while the draw
# pile is empty (swap_last_block=keep);
# then the float knobs (float64 bits): the collapse model, the placement difficulty d1..d3
# and instability share s1..s3 of a 1-, 2-, 3-point block, the skill of every seat
R = S.rules("players", "nb", "n1", "n12", "target", "hand", "min_tower", "max_rounds",
            "blockmask", "resh_n", "resh_any", "swap_match", "split_min", "swap_keep",
            "base", "ah", "au", "anyf", "risk_style", "push_style", "adj_risk", "rem_risk",
            "d1", "d2", "d3", "s1", "s2", "s3", *(f"skill{s}" for s in range(MAXP)),
            # a compensation knob (not in the rulebook: a balancing option; 0 is the game as
            # printed): round 0's start seat is dealt first_start_fewer cards fewer
            "first_start_fewer")
S.counter("turn", "turns begun in the game")
S.counter("round", "the round (0-based)")
S.counter("start", "the seat holding the start card this round")
S.counter("dir", "this round's direction: +1 or -1")
S.counter("cur", "the seat whose turn it is")
S.counter("prev", "the seat that played the preceding turn of this round (-1: none)")
S.counter("draw_n", "cards in the draw pile")
S.counter("pile_n", "cards on the point pile (= blocks in the tower, h)")
S.zone("used", 1, "the action cards played this round (a bit mask)", visible=PUBLIC, encoding=MASK)
S.counter("u", "the instability u (float64 bits)")
S.seats("hand_n", "cards in the seat's hand (public: a SWAP's size reads another seat's)")
S.zone("hands", 1, "the seat's hand (a bit mask)", owner=True, visible=OWNER, encoding=MASK)
S.zone("won", 1, "the point cards the seat took this round (a bit mask)", owner=True,
       visible=PUBLIC, encoding=MASK)
S.seats("scores", "the seat's points")
S.zone("draw", NCMAX, "the draw pile, top = last", visible=NOBODY, encoding=PILE, count="draw_n")
S.zone("pile", MAXB, "the point pile, bottom first (its blocks are the tower)", visible=PUBLIC, encoding=PILE,
       count="pile_n")
S.zone("share", MAXB, "the instability share of each standing block, bottom first (float64 "
       "bits; blocks, not cards)", visible=PUBLIC, encoding=VALUES)
S.end_zones()
S.book("everh", 1, "the cards the seat ever held (a bit mask; card power)", owner=True)
S.book("everp", 1, "the cards the seat ever played (a bit mask; card power)", owner=True)
# the turn's marks: public, as every seat sees the action cards played face up and the
# hand shuffled into the draw pile (the rules play on from them in a re-dealt world)
S.book("any", 1, "1 while ANYWHERE is in force this turn", visible=PUBLIC)
S.book("resh", 1, "1 once the two-action reshuffle was used this turn", visible=PUBLIC)
S.book("acted", 1, "action cards played this turn (0, 1, 2): the draws after the block, and "
       "whether the turn is past its action card", visible=PUBLIC)
# which cards a SWAP took: the seat that took them sees them in its hand (the other seats
# only how many); a re-deal for another seat clears it, with the hand it points into
S.book("recv", 1, "the cards the seat received in its SWAP this turn (a bit mask)", owner=True,
       visible=OWNER)
# legal() lists every (card, style) of the block decision: the worst case (a hand of all
# 30 blocks, 1001 styles) is far more than the action decision's (no action, 2001 ADJUST
# shares, ANYWHERE, REMOVE, and SWAP: 5 targets x 33 x 32 ordered pairs of cards to give)
MAXACT = MAXB * (STYLE_ONE + 1)
assert MAXACT >= 1 + (2 * SHARE_ONE + 1) + 2 + (MAXP - 1) * (NCMAX - 1) * (NCMAX - 2)
# each seat's own hazard memo (strategies.block_tower.my_hazard: its strategy weighs the same
# placement at its action and block decisions); before the action buffer, so a new game clears it
HZW = 3  # words of a seat's hazard memo
S.scratch("hz", HZW, "the seat's hazard memo: the key h | points << 8, the bits of u it was "
          "computed at, and exp(a_h*(h-1) + a_u*u + d_b - skill) (float64 bits)", owner=True)
S.scratch("acts", 4 * MAXACT, "legal-action buffer (legal), 4 ints each")
S.give(start=("hands",), pool=("draw", "hands"),
       note="the seat's hand dealt for the first round (later rounds are dealt afresh); "
       "copies come from the draw pile and the other hands")
S.progress("points", close=3)  # close: the runner-up at most one block (1-3 points) short
# seat numbers (the observation vector gives them from the observer) and float64 bits
S.numbers(seats=("start", "cur", "prev"),
          floats=("u", "share", "base", "ah", "au", "anyf", "risk_style", "push_style", "adj_risk", "rem_risk",
                  "d1", "d2", "d3", "s1", "s2", "s3", *(f"skill{s}" for s in range(MAXP))))
# ---- the schema's names: written by python scripts/layout_names.py, checked by S.seal
S_RNG, S_SEAT_RNG, S_SEED, S_RULES = S.at("rng", "seat_rng", "seed", "rules")
S_TURN, S_ROUND, S_START, S_DIR = S.at("turn", "round", "start", "dir")
S_CUR, S_PREV, S_DRAW_N, S_PILE_N = S.at("cur", "prev", "draw_n", "pile_n")
S_USED, S_U, S_HAND_N, S_HANDS = S.at("used", "u", "hand_n", "hands")
S_WON, S_SCORES, S_DRAW, S_PILE, S_SHARE = S.at("won", "scores", "draw", "pile", "share")
S_PHASE, S_ACTOR, S_HELD, S_PLAYED = S.at("phase", "actor", "held", "played")
S_SCORE, S_EVC, S_MASK, S_LENGTH = S.at("score", "evc", "mask", "length")
S_UNFINISHED, S_END, S_NEV, S_SHAPE = S.at("unfinished", "end", "nev", "shape")
S_EVERH, S_EVERP, S_ANY, S_RESH = S.at("everh", "everp", "any", "resh")
S_ACTED, S_RECV, S_HZ, S_ACTS = S.at("acted", "recv", "hz", "acts")
R_PLAYERS, R_NB, R_N1, R_N12, R_TARGET = S.rule("players", "nb", "n1", "n12", "target")
R_HAND, R_MIN_TOWER, R_MAX_ROUNDS = S.rule("hand", "min_tower", "max_rounds")
R_BLOCKMASK, R_RESH_N, R_RESH_ANY = S.rule("blockmask", "resh_n", "resh_any")
R_SWAP_MATCH, R_SPLIT_MIN, R_SWAP_KEEP = S.rule("swap_match", "split_min", "swap_keep")
R_BASE, R_AH, R_AU, R_ANYF, R_RISK_STYLE = S.rule("base", "ah", "au", "anyf", "risk_style")
R_PUSH_STYLE, R_ADJ_RISK, R_REM_RISK, R_D1 = S.rule("push_style", "adj_risk", "rem_risk", "d1")
R_D2, R_D3, R_S1, R_S2, R_S3, R_SKILL0 = S.rule("d2", "d3", "s1", "s2", "s3", "skill0")
R_SKILL1, R_SKILL2, R_SKILL3, R_SKILL4 = S.rule("skill1", "skill2", "skill3", "skill4")
R_SKILL5, R_FIRST_START_FEWER = S.rule("skill5", "first_start_fewer")
N_RULES, ZONES_END, TRACE_ROW, N_EV = len(S.rule_names), S.zones_end, S.trace_row, len(S.events)
S_SIZE, EVW, DONE = S.size, S.evw, S.done
D_RESHUFFLE, D_ACTION, D_SECOND, D_BLOCK = S.decision("reshuffle", "action", "second", "block")
ENGINE = S.engine_tuple()
REDEAL, CLEAR, GIVE = S.redeal_table(), S.clear_table(), S.give_table()
# ---- end of the schema's names
S.seal(globals())
# the per-block-value and per-seat knobs are read as R_D + points - 1, R_S + points - 1
# and R_SKILL + seat: rule slots declared in a row
R_D, R_S, R_SKILL = R.d1, R.s1, R.skill0
assert (R.d2, R.d3, R.s2, R.s3) == (R_D + 1, R_D + 2, R_S + 1, R_S + 2)
assert all(getattr(R, f"skill{s}") == R_SKILL + s for s in range(MAXP))
# trace mode: st is longer, and event i is st[S_SIZE + i*TRACE_ROW:][:TRACE_ROW]: an event
# row of EVW numbers (kind, player (-1 chance), turn, a, b, c, d, e, f), then the snapshot
# st[:ZONES_END] after it

# strategy answers for the action step, as (kind, a, b, c):
#   (NO_ACTION, 0, 0, 0)
#   (ADJUST, new share in thousandths of the base share 0..2000, 0, 0)
#   (ANYWHERE, 0, 0, 0), (REMOVE, 0, 0, 0)
#   (SWAP, target seat, card to give, second card to give or -1): exactly
#   moves.swap_size(st, me, target) cards (1 or 2)
NO_ACTION = -1
# collapse causes (field "during" of a collapse event)
DURING = ("place", "adjust", "remove")

# the action kinds a restriction (mcts:never=) may name, bits KIND_BIT + i (moves.restrict_bits)
RESTRICT_KINDS = ("reshuffle",)
