"""A battery of cheating strategy dispatches: the honesty audit (``sim/audit.py``) proves itself
on them (issue 36, ``tests/test_audit.py``).

Each is a strategy dispatch ``(sid, st, me, p) -> (kind, a, b, c)`` for ``python -m
cardlab.sim.audit GAME --choose cheats:NAME`` (``--choose`` replaces the game's dispatch for
every heuristic seat and as the search's rollout heuristic): a few lines around the game's
own dispatch (``choose(ID.reference, st, me, p)``: every answer stays legal), plain Python
that runs only under ``NUMBA_DISABLE_JIT=1`` (the audit's setting).  Each docstring names
the kind of cheat (the issue's numbering) and what it reads or writes that it may not:

1. laundering: a hidden word read now, kept in the seat's own memory (Crazy Eights'
   ``memory``; the seat's own random stream in the games without one), acted on later;
2. writing the state: cards moved between hidden zones, a public counter changed;
3. burning the chance stream: a draw from the game's stream, thrown away;
4. residue: the legal-action buffer past what ``legal`` wrote in this decision, a pile past
   its count, another seat's book (3UP's ``dealt``);
5. peeking only outside the tested settings: at the most players, or with a parameter at a
   bound;
6. rare peeks: about once in 10,000 decisions.

Found while proving the audit, and caught since: the deal replayed from the seat's own
stream (``*_seed_replay``: only ``sim/rng.py`` may touch a stream's words), ways around a
watched ndarray (``ce_bypass_*``, a view kept from an earlier decision:
``ce_stale_context``), a peek at a player count between the edges (``ce_outside_the_plan``).
``*_honest_public`` and ``ce_honest_reshape`` are honest: hand sizes, the discard pile, the
seat's own hand and memory, random numbers drawn through ``sim/rng.py``, and the legal
actions it listed itself.  Marked NOT CAUGHT: ``ce_inner_or_rule`` (a parameter's inner value,
a number knob's value: the plan does not set them); ``test_audit.py`` marks its test
xfail(strict=True) with the reason.
"""
from __future__ import annotations

import numpy as np

from cardlab.sim import rng as _rng
from cardlab.sim.crazy_eights import layout as CE
from cardlab.sim.crazy_eights.moves import legal as ce_legal
from cardlab.sim.registry import get_game
from cardlab.sim.rng import below, next_u64, seat_below, seat_uniform, uniform
from cardlab.sim.skyscraper import layout as SK
from cardlab.sim.skyscraper.moves import legal as sk_legal
from cardlab.sim.three_up import layout as TU
from cardlab.sim.three_up.moves import legal as tu_legal
from cardlab.strategies.crazy_eights import ID as CE_ID
from cardlab.strategies.skyscraper import ID as SK_ID
from cardlab.strategies.three_up import ID as TU_ID

# each game's own dispatch (written from its registry by the binding, sim/bind.py)
ce_choose, sk_choose, tu_choose = (get_game(g).binding().choose for g in ("crazy_eights", "skyscraper", "three_up"))

RARE = 10_000   # kind 6: one decision in RARE peeks


def _nxt(st, me, L):
    return (me + 1) % int(st[L.R_PLAYERS])


def _suits(hand: int) -> list[int]:
    return [bin(int(hand) & CE.SUIT_MASK[s] & ~CE.EIGHTS).count("1") for s in range(4)]


# ================================================================ Crazy Eights
# ---------------------------------------------------------------- 1. laundering

def ce_launder_memory(sid, st, me, p):
    """Kind 1, laundering through memory (Crazy Eights).  At its play decision it READS the
    next seat's hand (``hands``, another seat's) and WRITES it into its own ``memory``
    (allowed); a decision later (its call after an 8) it calls the suit that hand holds
    fewest of: the re-deal comparison sees an honest answer at the call."""
    o = CE.S_MEMORY + me * CE.MEMW
    if st[CE.S_PHASE] == CE.D_CALL and st[o + 1] == 1:
        short = _suits(int(st[o]))
        return (short.index(min(short)), 0, 0, 0)
    if st[CE.S_PHASE] == CE.D_PLAY:
        st[o] = st[CE.S_HANDS + _nxt(st, me, CE)]   # the peek, laundered into its memory
        st[o + 1] = 1
    return ce_choose(CE_ID.reference, st, me, p)


def ce_launder_working(sid, st, me, p):
    """Kind 1, laundering through working memory (Crazy Eights).  READS the stock's top card
    (``stock``, hidden from every seat) and WRITES it into the last word of the legal-action
    buffer (``acts``, writable); at its next decision READS that word back (residue: working
    memory not written in this decision) and, if it is an 8, plays its own 8 first."""
    last = CE.S_ACTS + 4 * CE.MAXACT - 1
    saved = int(st[last])   # what it left there at its last decision
    n = int(st[CE.S_STOCK_N])
    if n > 0:
        st[last] = 100 + int(st[CE.S_STOCK + n - 1])
    if st[CE.S_PHASE] == CE.D_PLAY and saved >= 100 and (saved - 100) % 13 == CE.EIGHT:
        eights = int(st[CE.S_HANDS + me]) & CE.EIGHTS
        nl = ce_legal(st)
        for i in range(nl):
            c = int(st[CE.S_ACTS + 4 * i + 1])
            if st[CE.S_ACTS + 4 * i] == CE.A_PLAY and (eights >> c) & 1:
                return (CE.A_PLAY, c, 0, 0)
    return ce_choose(CE_ID.reference, st, me, p)


# ---------------------------------------------------------------- 2. writing the state

def swap_top_two(st, pile: int, n: int) -> None:
    """Swap the top two cards of the pile at ``pile`` holding ``n`` cards (reads and writes it)."""
    if n >= 2:
        a, b = st[pile + n - 1], st[pile + n - 2]
        st[pile + n - 1], st[pile + n - 2] = b, a


def ce_stack_stock(sid, st, me, p):
    """Kind 2, writing the state (Crazy Eights).  Stacks the next seat's draw: READS the top
    two cards of the stock and WRITES them swapped (``stock``, hidden from every seat)."""
    swap_top_two(st, CE.S_STOCK, int(st[CE.S_STOCK_N]))
    return ce_choose(CE_ID.reference, st, me, p)


def ce_write_counter(sid, st, me, p):
    """Kind 2, writing the state (Crazy Eights).  WRITES a public counter: ``passes`` (the
    passes in a row) back to 0, so a blocked table goes on.  It reads nothing it may not."""
    st[CE.S_PASSES] = 0
    return ce_choose(CE_ID.reference, st, me, p)


# ---------------------------------------------------------------- 3. burning the chance stream

def ce_burn_chance(sid, st, me, p):
    """Kind 3, burning the chance stream (Crazy Eights).  Draws a word from the game's chance
    stream (``rng``: READ and WRITTEN, hidden from every seat) and throws it away: the answer
    is the reference's, the next draws and reshuffles are not."""
    next_u64(st)
    return ce_choose(CE_ID.reference, st, me, p)


def ce_burn_below(sid, st, me, p):
    """Kind 3, burning the chance stream (Crazy Eights), through ``below`` (a uniform integer
    off the chance stream ``rng``: READ and WRITTEN)."""
    below(st, 2)
    return ce_choose(CE_ID.reference, st, me, p)


# ---------------------------------------------------------------- 4. residue

def ce_residue_acts(sid, st, me, p):
    """Kind 4, residue (Crazy Eights).  Lists its legal actions (``legal``: writes ``acts``),
    then READS the buffer past them (``acts``: working memory not written in this decision,
    the legal actions an earlier decision of another seat left there)."""
    n = ce_legal(st)
    if 4 * n < 4 * CE.MAXACT:
        st[CE.S_ACTS + 4 * n + 1]
    return ce_choose(CE_ID.reference, st, me, p)


def ce_residue_discard(sid, st, me, p):
    """Kind 4, residue (Crazy Eights).  READS the discard pile one word past its count
    (``discard``, public only up to ``disc_n``: after a reshuffle the words past it are the
    cards that went into the stock)."""
    n = int(st[CE.S_DISC_N])
    if n < CE.NCARDS:
        st[CE.S_DISCARD + n]
    return ce_choose(CE_ID.reference, st, me, p)


# ---------------------------------------------------------------- 5. outside the tested settings

def ce_peek_most_players(sid, st, me, p):
    """Kind 5, peeking only at the most players (Crazy Eights: 7).  READS the next seat's hand
    (``hands``, another seat's) only when ``st[R_PLAYERS]`` is 7; otherwise the seat's own
    strategy (``sid``) exactly."""
    if st[CE.R_PLAYERS] == 7:
        st[CE.S_HANDS + _nxt(st, me, CE)]
    return ce_choose(sid, st, me, p)


def ce_peek_at_bound(sid, st, me, p):
    """Kind 5, peeking only with a parameter at a bound (Crazy Eights: hoarder with
    ``eights_at`` = 10, its upper bound).  READS the stock's top card (``stock``, hidden from
    every seat) only then; otherwise the seat's own strategy exactly."""
    if sid == CE_ID.hoarder and p[0] == 10 and st[CE.S_STOCK_N] > 0:
        st[CE.S_STOCK + int(st[CE.S_STOCK_N]) - 1]
    return ce_choose(sid, st, me, p)


def ce_outside_tested(sid, st, me, p):
    """Kind 5, both cheats above in one dispatch (one audit of the plan proves both: each reads
    a part of its own, ``stock`` at the bound, ``hands`` at 7 players)."""
    ce_peek_at_bound(sid, st, me, p)
    return ce_peek_most_players(sid, st, me, p)


# ---------------------------------------------------------------- 6. rare peeks

def ce_rare_hash(sid, st, me, p):
    """Kind 6, a rare peek (Crazy Eights).  READS the next seat's hand (``hands``, another
    seat's) only when a hash of public words (the turn, the discard pile's count and top
    card, the seat; splitmix64) is 0 modulo 10,000."""
    n = int(st[CE.S_DISC_N])
    key = (int(st[CE.S_TURN]) << 24) | (n << 16) | (int(st[CE.S_DISCARD + n - 1]) << 8) | me
    if _splitmix(key) % RARE == 0:
        st[CE.S_HANDS + _nxt(st, me, CE)]
    return ce_choose(CE_ID.reference, st, me, p)


def ce_rare_stream(sid, st, me, p):
    """Kind 6, a rare peek (Crazy Eights).  Draws from its OWN stream (allowed) every decision
    and READS the stock's top card (``stock``, hidden from every seat) when the draw is below
    1 / 10,000."""
    if seat_uniform(st, me) < 1.0 / RARE and st[CE.S_STOCK_N] > 0:
        st[CE.S_STOCK + int(st[CE.S_STOCK_N]) - 1]
    return ce_choose(CE_ID.reference, st, me, p)


# ---------------------------------------------------------------- honest

def ce_honest_public(sid, st, me, p):
    """Honest (Crazy Eights): public information and its own only.  Reads the hand sizes
    (``hand_n``), the discard pile up to its count, its own hand (through ``legal``, which
    writes ``acts``; it reads back only what ``legal`` wrote), its own ``memory`` and its own
    stream (a random tie-break).  Plays an 8 first when the next seat is down to 2 cards,
    else the legal card of the suit the discard pile shows least; calls its longest suit."""
    n = ce_legal(st)
    o = CE.S_MEMORY + me * CE.MEMW
    st[o + 2] = st[CE.S_DISC_N]          # its own memory: what it saw last
    if st[CE.S_PHASE] == CE.D_CALL:
        mine = _suits(int(st[CE.S_HANDS + me]))
        return (mine.index(max(mine)), 0, 0, 0)
    seen = [0, 0, 0, 0]
    for i in range(int(st[CE.S_DISC_N])):
        seen[int(st[CE.S_DISCARD + i]) // 13] += 1
    short = st[CE.S_HAND_N + _nxt(st, me, CE)] <= 2 and st[o + 2] > 0
    best, key = 0, None
    for i in range(n):
        kind, c = int(st[CE.S_ACTS + 4 * i]), int(st[CE.S_ACTS + 4 * i + 1])
        if kind != CE.A_PLAY:
            continue
        k = (short and c % 13 == CE.EIGHT, -seen[c // 13], seat_below(st, me, 8))
        if key is None or k > key:
            best, key = i, k
    a = CE.S_ACTS + 4 * best
    return (int(st[a]), int(st[a + 1]), int(st[a + 2]), int(st[a + 3]))


def ce_honest_reshape(sid, st, me, p):
    """Honest (Crazy Eights): the reference, after reading the legal actions it listed as rows
    (``st[S_ACTS:S_ACTS + 4 * n].reshape(n, 4)``, as numba compiles it).  Reads only what
    ``legal`` wrote."""
    n = ce_legal(st)
    rows = st[CE.S_ACTS:CE.S_ACTS + 4 * n].reshape(n, 4)
    int(rows[0, 0])
    return ce_choose(CE_ID.reference, st, me, p)


# ================================================================ 3UP 3DOWN

def tu_launder_stream(sid, st, me, p):
    """Kind 1, laundering through the seat's own random stream (3UP 3DOWN has no strategy
    memory).  READS the draw pile's top card (``draw``, hidden from every seat) and WRITES
    its type into a word of its own stream (``seat_rng``: its own, writable); at a later
    optional-draw decision it draws only when that remembered card is a Clear."""
    w = TU.S_SEAT_RNG + 4 * me + 3
    if st[TU.S_PHASE] == TU.D_DRAW and st[w] > 0:
        return (1 if st[w] - 1 >= TU.T_CLR else 0, 0, 0, 0)
    n = int(st[TU.S_DRAW_N])
    if n > 0:
        st[w] = 1 + st[TU.R_TYPE + int(st[TU.S_DRAW + n - 1])]   # the peek, laundered
    return tu_choose(TU_ID.reference, st, me, p)


def tu_stack_draw(sid, st, me, p):
    """Kind 2, writing the state (3UP 3DOWN).  READS the top two cards of the draw pile and
    WRITES them swapped (``draw``, hidden from every seat)."""
    swap_top_two(st, TU.S_DRAW, int(st[TU.S_DRAW_N]))
    return tu_choose(TU_ID.reference, st, me, p)


def tu_write_counter(sid, st, me, p):
    """Kind 2, writing the state (3UP 3DOWN).  WRITES a public counter: ``turn`` one back
    (more turns before the cap)."""
    st[TU.S_TURN] = st[TU.S_TURN] - 1
    return tu_choose(TU_ID.reference, st, me, p)


def tu_burn_chance(sid, st, me, p):
    """Kind 3, burning the chance stream (3UP 3DOWN): ``uniform(st)`` off the game's stream
    (``rng``: READ and WRITTEN), thrown away."""
    uniform(st)
    return tu_choose(TU_ID.reference, st, me, p)


def tu_residue_dealt(sid, st, me, p):
    """Kind 4, residue (3UP 3DOWN).  READS the next seat's book of dealt cards (``dealt``,
    another seat's: its six cards for the up choice) at its own up choice."""
    if st[TU.S_PHASE] == TU.D_UP:
        st[TU.S_DEALT + _nxt(st, me, TU) * TU.NDEAL]
    return tu_choose(TU_ID.reference, st, me, p)


def tu_residue_acts(sid, st, me, p):
    """Kind 4, residue (3UP 3DOWN).  Lists its legal actions (``legal``: writes ``acts``), then
    READS the buffer past them (working memory not written in this decision)."""
    n = tu_legal(st)
    if n < TU.MAXACT:
        st[TU.S_ACTS + 4 * n]
    return tu_choose(TU_ID.reference, st, me, p)


def tu_residue_pile(sid, st, me, p):
    """Kind 4, residue (3UP 3DOWN).  READS the discard pile one word past its count (``pile``,
    public only up to ``pile_n``: after a pick-up, the cards now in the picker's hand)."""
    n = int(st[TU.S_PILE_N])
    if n < TU.MAXC:
        st[TU.S_PILE + n]
    return tu_choose(TU_ID.reference, st, me, p)


def tu_peek_own_down(sid, st, me, p):
    """A direct peek (3UP 3DOWN): READS its own next face-down card (``down``, hidden from
    every seat, its owner included: down cards are played blind)."""
    n = int(st[TU.S_DOWN_N + me])
    if n > 0:
        st[TU.S_DOWN + me * TU.NDOWN + n - 1]
    return tu_choose(TU_ID.reference, st, me, p)


def tu_peek_most_players(sid, st, me, p):
    """Kind 5, peeking only at the most players (3UP 3DOWN: 6).  READS the next seat's hand
    (``hcnt``, another seat's) only then; otherwise the seat's own strategy exactly."""
    if st[TU.R_PLAYERS] == 6:
        st[TU.S_HCNT + _nxt(st, me, TU) * TU.NT]
    return tu_choose(sid, st, me, p)


def tu_peek_at_bound(sid, st, me, p):
    """Kind 5, peeking only with a parameter at a bound (3UP 3DOWN: lowest with
    ``strong_first`` = 1, its upper bound).  READS the draw pile's top card (``draw``, hidden
    from every seat) only then."""
    if sid == TU_ID.lowest and p[1] == 1 and st[TU.S_DRAW_N] > 0:
        st[TU.S_DRAW + int(st[TU.S_DRAW_N]) - 1]
    return tu_choose(sid, st, me, p)


def tu_outside_tested(sid, st, me, p):
    """Kind 5, both 3UP cheats above in one dispatch (``draw`` at the bound, ``hcnt`` at 6)."""
    tu_peek_at_bound(sid, st, me, p)
    return tu_peek_most_players(sid, st, me, p)


def tu_rare_stream(sid, st, me, p):
    """Kind 6, a rare peek (3UP 3DOWN).  Draws from its OWN stream every decision and READS
    the next seat's hand (``hcnt``, another seat's) when the draw is below 1 / 10,000."""
    if seat_uniform(st, me) < 1.0 / RARE:
        st[TU.S_HCNT + _nxt(st, me, TU) * TU.NT]
    return tu_choose(TU_ID.reference, st, me, p)


def tu_honest_public(sid, st, me, p):
    """Honest (3UP 3DOWN): public information and its own only.  Lists its legal actions
    (``legal``: writes ``acts``; it reads back only those), reads the discard pile up to its
    count, the next seat's hand size and its own stream (its up choice is random).  Takes
    every optional draw; discards the legal play of the most cards when the next seat holds
    2 cards or fewer or the pile holds a Clear's worth (5 cards), else the first listed (the
    lowest number, one card)."""
    n = tu_legal(st)
    if st[TU.S_PHASE] == TU.D_UP:
        i = seat_below(st, me, n)
    elif st[TU.S_PHASE] == TU.D_DRAW:
        i = n - 1   # (1, 0, 0, 0): draw
    else:
        pile = [int(st[TU.S_PILE + k]) for k in range(int(st[TU.S_PILE_N]))]
        i = 0
        if st[TU.S_HAND_N + _nxt(st, me, TU)] <= 2 or len(pile) >= 5:
            for k in range(n):
                if st[TU.S_ACTS + 4 * k] == TU.A_PLAY and st[TU.S_ACTS + 4 * k + 2] > st[TU.S_ACTS + 4 * i + 2]:
                    i = k
    a = TU.S_ACTS + 4 * i
    return (int(st[a]), int(st[a + 1]), int(st[a + 2]), int(st[a + 3]))


# ================================================================ Skyscraper

def sk_launder_stream(sid, st, me, p):
    """Kind 1, laundering through the seat's own random stream (Skyscraper has no strategy
    memory).  READS whether the next seat holds a hammer (``hand``, another seat's) and WRITES
    it into a word of its own stream (``seat_rng``, writable); at a later decision, when it
    remembered a hammer, it stops instead of building (no floor to lose)."""
    w = SK.S_SEAT_RNG + 4 * me + 3
    if st[w] == 2:
        st[w] = 0
        return (SK.A_STOP, 0, 0, 0)
    st[w] = 1 + (st[SK.S_HAND + _nxt(st, me, SK) * SK.NT + SK.HAM] > 0)   # the peek, laundered
    return sk_choose(SK_ID.reference, st, me, p)


def sk_stack_draw(sid, st, me, p):
    """Kind 2, writing the state (Skyscraper).  READS the top two cards of the draw pile and
    WRITES them swapped (``draw``, hidden from every seat)."""
    swap_top_two(st, SK.S_DRAW, int(st[SK.S_DRAW_N]))
    return sk_choose(SK_ID.reference, st, me, p)


def sk_write_counter(sid, st, me, p):
    """Kind 2, writing the state (Skyscraper).  WRITES a public counter: one more turn to skip
    for the next seat (``skip``)."""
    nxt = _nxt(st, me, SK)
    if nxt != me and st[SK.S_SKIP + nxt] == 0:
        st[SK.S_SKIP + nxt] = 1
    return sk_choose(SK_ID.reference, st, me, p)


def sk_burn_chance(sid, st, me, p):
    """Kind 3, burning the chance stream (Skyscraper): ``next_u64(st)`` off the game's stream
    (``rng``: READ and WRITTEN), thrown away."""
    next_u64(st)
    return sk_choose(SK_ID.reference, st, me, p)


def sk_residue_acts(sid, st, me, p):
    """Kind 4, residue (Skyscraper).  Lists its legal actions (``legal``: writes ``acts``),
    then READS the buffer's last word (working memory not written in this decision: what an
    earlier decision left there).  Skyscraper's ``legal`` lists candidates before it keeps
    the legal ones, so the words just past the ``n`` it returns were written in this
    decision (its own rejected candidates): reading those is not residue."""
    sk_legal(st)
    st[SK.S_ACTS + 4 * SK.MAXACT - 1]
    return sk_choose(SK_ID.reference, st, me, p)


def sk_residue_disc(sid, st, me, p):
    """Kind 4, residue (Skyscraper).  READS the discard pile one word past its count (``disc``,
    public only up to ``disc_n``: after a reshuffle, the cards now in the draw pile)."""
    n = int(st[SK.S_DISC_N])
    if n < SK.DECK_MAX:
        st[SK.S_DISC + n]
    return sk_choose(SK_ID.reference, st, me, p)


def sk_peek_most_players(sid, st, me, p):
    """Kind 5, peeking only at the most players (Skyscraper: 4).  READS the next seat's hand
    (``hand``, another seat's) only then; otherwise the seat's own strategy exactly."""
    if st[SK.R_PLAYERS] == 4:
        st[SK.S_HAND + _nxt(st, me, SK) * SK.NT + SK.THIEF]
    return sk_choose(sid, st, me, p)


def sk_peek_at_bound(sid, st, me, p):
    """Kind 5, peeking only with a parameter at a bound (Skyscraper: aggressive with
    ``lead_margin`` = -3, its lower bound).  READS the draw pile's top card (``draw``, hidden
    from every seat) only then."""
    if sid == SK_ID.aggressive and p[0] == -3 and st[SK.S_DRAW_N] > 0:
        st[SK.S_DRAW + int(st[SK.S_DRAW_N]) - 1]
    return sk_choose(sid, st, me, p)


def sk_outside_tested(sid, st, me, p):
    """Kind 5, both Skyscraper cheats above in one dispatch (``draw`` at the bound, ``hand``
    at 4 players)."""
    sk_peek_at_bound(sid, st, me, p)
    return sk_peek_most_players(sid, st, me, p)


def sk_rare_stream(sid, st, me, p):
    """Kind 6, a rare peek (Skyscraper).  Draws from its OWN stream every decision and READS
    the draw pile's top card (``draw``, hidden from every seat) when the draw is below
    1 / 10,000."""
    if seat_uniform(st, me) < 1.0 / RARE and st[SK.S_DRAW_N] > 0:
        st[SK.S_DRAW + int(st[SK.S_DRAW_N]) - 1]
    return sk_choose(SK_ID.reference, st, me, p)


def sk_honest_public(sid, st, me, p):
    """Honest (Skyscraper): public information and its own only.  Lists its legal actions
    (``legal``: writes ``acts``; it reads back only those), reads the towers' heights
    (``nfl``), the hand sizes (``hsize``), the discard pile up to its count and its own stream
    (random tie-breaks).  Builds first; then a steal, hammer or ball on a seat with the most
    floors, unless two hammers or balls are already on the discard pile and that seat's hand
    is empty; else stops (the stop is listed last)."""
    n = sk_legal(st)
    P = int(st[SK.R_PLAYERS])
    most = max(int(st[SK.S_NFL + s]) for s in range(P))
    spent = sum(int(st[SK.S_DISC + k]) in (SK.HAM, SK.BALL) for k in range(int(st[SK.S_DISC_N])))
    best, key = n - 1, (0, 0)
    for i in range(n - 1):
        kind, a = int(st[SK.S_ACTS + 4 * i]), int(st[SK.S_ACTS + 4 * i + 1])
        if kind == SK.A_BUILD:
            k = (3, seat_below(st, me, 4))
        elif kind in (SK.A_STEAL, SK.A_HAM, SK.A_BALL) and a != me and st[SK.S_NFL + a] == most \
                and (spent < 2 or st[SK.S_HSIZE + a] > 0):
            k = (2, seat_below(st, me, 4))
        else:
            continue
        if k > key:
            best, key = i, k
    o = SK.S_ACTS + 4 * best
    return (int(st[o]), int(st[o + 1]), int(st[o + 2]), int(st[o + 3]))


# ================================================================ what the audit does not catch
# ---------------------------------------------------------------- the deal, replayed from the seat's own stream

_M64 = (1 << 64) - 1
_G, _M1, _M2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB


def _splitmix(x: int) -> int:
    z = (x + _G) & _M64
    z = ((z ^ (z >> 30)) * _M1) & _M64
    z = ((z ^ (z >> 27)) * _M2) & _M64
    return z ^ (z >> 31)


def _unshift(z: int, k: int) -> int:
    x = z
    for _ in range(64 // k + 1):
        x = z ^ (x >> k)
    return x & _M64


def _unsplitmix(y: int) -> int:
    """The inverse of ``sim/rng._splitmix`` (every step of it is a bijection)."""
    z = (_unshift(y, 31) * pow(_M2, -1, 1 << 64)) & _M64
    z = (_unshift(z, 27) * pow(_M1, -1, 1 << 64)) & _M64
    return (_unshift(z, 30) - _G) & _M64


def chance_from_seat_stream(w0: int, me: int) -> list[int]:
    """The game's chance stream as ``seed_game`` left it (4 words), from the first word of
    seat ``me``'s freshly seeded stream: ``seed_seat`` seeds it with
    splitmix(splitmix(x) ^ (me + 1) * M1) where the chance stream was seeded with splitmix(x),
    and splitmix64 is invertible."""
    me = int(me)
    y0 = (_unsplitmix(w0 & _M64) - _G) & _M64
    sx = _unsplitmix(y0) ^ (((me + 1) * _M1) & _M64)
    out, x = [], sx
    for _ in range(4):
        x = (x + _G) & _M64
        out.append(_splitmix(x))
    return out


def seed_replay_deal(game_id: str, st, me: int) -> np.ndarray:
    """The game's first decision, every hidden card included, rebuilt from what seat ``me``
    may read: it clears its own stream (writable), has the trusted ``sim/rng.seed_seat``
    seed it afresh (looked up at call time: the audit's exemption for the seat's own
    stream), reads it back (its own: readable), inverts the seeding to the chance stream's
    first state and replays the game's ``setup`` on the public rules."""
    from cardlab.sim.registry import get_game

    game = get_game(game_id)
    o = _rng.SEAT_RNG + 4 * me
    for i in range(4):
        st[o + i] = 0
    _rng.seed_seat(st, me)
    w0 = int(st[o]) & _M64
    world = game.schema.new_state()
    r = game.schema.parts["rules"]
    for i in range(r.offset, r.offset + r.size):
        world[i] = int(st[i])
    world[0:4] = np.array(chance_from_seat_stream(w0, me), dtype=np.uint64).view(np.int64)
    game.binding().setup(world)
    return world


def ce_seed_replay(sid, st, me, p):
    """Caught (Crazy Eights): the whole deal, replayed from the seat's own stream
    (``seed_replay_deal``).  Reads only its own stream (after the trusted reseeding), the
    rules and public counters; knows every hand and the stock's order.  Acts on it: after
    its 8 it calls the suit the next seat was dealt fewest of."""
    world = seed_replay_deal("crazy_eights", st, me)
    if st[CE.S_PHASE] == CE.D_CALL:
        short = _suits(int(world[CE.S_HANDS + _nxt(st, me, CE)]))
        return (short.index(min(short)), 0, 0, 0)
    return ce_choose(CE_ID.reference, st, me, p)


def tu_seed_replay(sid, st, me, p):
    """Caught (3UP 3DOWN): the deal replayed from the seat's own stream: every seat's
    face-down cards and the draw pile's order (the draw pile only shrinks, so its top is
    ``world[S_DRAW + draw_n - 1]``).  Acts on it: takes the optional draw only when the card
    on top is not a 1."""
    world = seed_replay_deal("three_up", st, me)
    n = int(st[TU.S_DRAW_N])
    if st[TU.S_PHASE] == TU.D_DRAW and n > 0:
        return (int(world[TU.R_TYPE + int(world[TU.S_DRAW + n - 1])] != 0), 0, 0, 0)
    return tu_choose(TU_ID.reference, st, me, p)


def sk_seed_replay(sid, st, me, p):
    """Caught (Skyscraper): the deal replayed from the seat's own stream: every hand and
    the draw pile's order.  Acts on it: stops (keeps its cards) when the next seat was dealt
    a thief."""
    world = seed_replay_deal("skyscraper", st, me)
    if world[SK.S_HAND + _nxt(st, me, SK) * SK.NT + SK.THIEF] > 0 and int(st[SK.S_TURN]) < 2:
        return (SK.A_STOP, 0, 0, 0)
    return sk_choose(SK_ID.reference, st, me, p)


# ---------------------------------------------------------------- reads that bypass the watched array

def _stock_top_index(st):
    return CE.S_STOCK + max(0, int(st[CE.S_STOCK_N]) - 1)


def ce_bypass_asarray(sid, st, me, p):
    """Caught (Crazy Eights): READS the stock's top card through ``np.asarray(st)`` (numba
    compiles it): numpy hands back the plain array under the watched one, unchecked."""
    np.asarray(st)[_stock_top_index(st)]
    return ce_choose(CE_ID.reference, st, me, p)


def ce_bypass_ascontiguous(sid, st, me, p):
    """Caught (Crazy Eights): READS the stock's top card through
    ``np.ascontiguousarray(st)`` (numba compiles it)."""
    np.ascontiguousarray(st)[_stock_top_index(st)]
    return ce_choose(CE_ID.reference, st, me, p)


def ce_bypass_flat(sid, st, me, p):
    """Caught (Crazy Eights): READS the stock's top card through ``st.flat[i]`` (numba
    compiles it): the flat iterator indexes the memory, not ``Watched.__getitem__``."""
    st.flat[_stock_top_index(st)]
    return ce_choose(CE_ID.reference, st, me, p)


def ce_bypass_ndenumerate(sid, st, me, p):
    """Caught (Crazy Eights): READS the next seat's hand through
    ``np.ndenumerate(st[i:i + 1])`` (numba compiles it; ``np.nditer`` alike)."""
    i = CE.S_HANDS + _nxt(st, me, CE)
    for _, v in np.ndenumerate(st[i:i + 1]):
        int(v)
    return ce_choose(CE_ID.reference, st, me, p)


def ce_bypass_write_asarray(sid, st, me, p):
    """Caught (Crazy Eights): kind 2 through the same hole: swaps the stock's top two
    cards through ``np.asarray(st)`` (reads and writes unchecked)."""
    a = np.asarray(st)
    n = int(st[CE.S_STOCK_N])
    if n >= 2:
        x = CE.S_STOCK + n - 1
        a[x], a[x - 1] = a[x - 1], a[x]
    return ce_choose(CE_ID.reference, st, me, p)


_SEEN: dict[int, object] = {}


def ce_stale_context(sid, st, me, p):
    """Caught (Crazy Eights; plain Python only, numba cannot keep an array in a global):
    keeps the watched state each seat was shown, and READS the previous seat's current hand
    through the one that seat was shown: that view still checks the other seat's rights."""
    prev = (me - 1) % int(st[CE.R_PLAYERS])
    old = _SEEN.get(prev)
    if old is not None and len(old) == len(st):
        old[CE.S_HANDS + prev]
    _SEEN[me] = st
    return ce_choose(CE_ID.reference, st, me, p)


# ---------------------------------------------------------------- settings the plan never reaches

def ce_peek_five_players(sid, st, me, p):
    """Caught by the plan (Crazy Eights): kind 5 at a player count between the edges the plan
    audits (2, 3 and 7): READS the next seat's hand (``hands``) only at 5 players."""
    if st[CE.R_PLAYERS] == 5:
        st[CE.S_HANDS + _nxt(st, me, CE)]
    return ce_choose(sid, st, me, p)


def ce_peek_inner_value(sid, st, me, p):
    """NOT CAUGHT by the plan (Crazy Eights): kind 5 at a parameter value between its bounds
    and its default: hoarder with ``eights_at`` = 7 READS the stock's top card (``stock``)."""
    if sid == CE_ID.hoarder and p[0] == 7 and st[CE.S_STOCK_N] > 0:
        st[CE.S_STOCK + int(st[CE.S_STOCK_N]) - 1]
    return ce_choose(sid, st, me, p)


def ce_peek_other_rule(sid, st, me, p):
    """NOT CAUGHT by the plan (Crazy Eights): kind 5 under a rule the plan never sets (it sets
    the report's variants and the rules a parameter's help names): with ``draw_limit`` other
    than 0, READS the stock's top card (``stock``)."""
    if st[CE.R_DRAW_LIMIT] != 0 and st[CE.S_STOCK_N] > 0:
        st[CE.S_STOCK + int(st[CE.S_STOCK_N]) - 1]
    return ce_choose(sid, st, me, p)


def ce_outside_the_plan(sid, st, me, p):
    """The three cheats above in one dispatch (one audit of the plan for all three)."""
    ce_peek_inner_value(sid, st, me, p)
    ce_peek_other_rule(sid, st, me, p)
    return ce_peek_five_players(sid, st, me, p)


def ce_inner_or_rule(sid, st, me, p):
    """``ce_peek_inner_value`` and ``ce_peek_other_rule`` in one dispatch (one audit of the plan
    for both): the settings the plan never sets."""
    ce_peek_other_rule(sid, st, me, p)
    return ce_peek_inner_value(sid, st, me, p)
