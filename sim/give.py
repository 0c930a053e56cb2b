"""Giving a seat a card at the start of a game, or taking every copy away: the two arms of
causal card power (``analysis/causal.py``).

Right after a game's deal (``deal``: the first part of its ``setup``; ``begin``, the
rest, opens the first turn after the give, so nothing decided from the cards before the
first decision is stale) the **IN** arm makes sure
seat ``seat``'s starting cards hold at least one card of type ``t``: if they hold none, a
copy is swapped in for a random card of the seat's, and the displaced card goes where the
copy came from.  The **OUT** arm makes sure they hold none: every copy is swapped out for a
random card of another type taken from elsewhere, the copy going where that came from.
Both arms start from the same seeded setup, and the game's chance stream ``st[0:4]`` is
not touched, so every later shuffle and draw is the same random number in both
(common random numbers): the paired difference of the two results is the value of
starting with the card.

Where a card can be given is declared by the game's schema (``Schema.give``, sealed into
every layout as ``GIVE``): the seat's **start** zones and the **pool** zones copies come
from and go to (a per-seat pool zone means the other seats' blocks), one row each in the
re-deal table's format (``sim/redeal.py``: its ``block_cards``/``put_block`` read and
write a zone's cards, a TABLE zone through the game's two hooks), the last column being
the role.  A game adds ``has_type(st, card, t)`` (a card may have several types: 5 Towers
counts by value and by kind), ``also_holds(st, seat, t)`` (a card of the type the seat
holds outside its start zones; ``no_more_held`` for most games) and, where more than the
held bits follow from the cards, ``after_give(st)``, which rebuilds whatever follows from
them (card-power bits, derived counts, caches; ``held_follows_start`` by default); on a state
nobody swapped it must change nothing (a test checks it for every game).

The swap's random numbers come from a stream of their own, seeded from (root seed, game
index, seat, type, arm) like the seat streams (``sim/rng.seed_aside``), never from the
game's.  A game whose seats start with no cards (5 Towers) writes its own ``give``.
"""
import numpy as np
from numba import njit

from cardlab.sim import engine
from cardlab.sim.redeal import (  # noqa: F401 - the arms and outcomes: give's names
    ARM_IN, ARM_OUT, GAVE_AS_DEALT, GAVE_NONE, GAVE_SWAPPED, block_cards, put_block,
)
from cardlab.sim.rng import seed_aside, seed_game, stream_below
from cardlab.sim.tally import WIN_UNIT

ROLE_START, ROLE_POOL = 1, 2       # the last column of a GIVE row
# per (type, seat) in a causal tally: pairs, pairs the arm could not be made, IN arms that
# already held the card as dealt, IN wins, OUT wins, sum of paired differences, sum of their
# squares (win shares in WIN_UNIT, so every entry is an integer and sums are exact)
T_PAIRS, T_SKIPPED, T_AS_DEALT, T_WIN_IN, T_WIN_OUT, T_SUM_D, T_SUM_D2 = range(7)
TW = 7


@njit(cache=True, nogil=True, inline="always")
def _owners(tab, r, seat, players):
    """The blocks of row r a give reads: (first owner, last owner + 1, skip owner): the
    seat's own block of a start zone; the other seats' blocks (or the only block) of a pool
    zone."""
    if tab[r, 5] == 0:
        return 0, 1, -1
    if tab[r, 6] == ROLE_START:
        return seat, seat + 1, -1
    return 0, players, seat


@njit(cache=True, nogil=True, inline="always")
def swap(st, seat, t, arm, g, players, tab, pool, blk, has_type, table_cards, table_put,
         after_give, also_holds):
    """Make the arm true on ``st`` (see the module docstring), drawing from the 4-word
    stream ``g``; ``pool`` and ``blk`` are scratch (room for every card; 4 numbers per
    block).  Returns GAVE_SWAPPED, GAVE_AS_DEALT (nothing needed changing) or GAVE_NONE
    (the arm cannot be made: no copy, or no card of another type, within reach, or what
    follows from the cards undid it).  ``also_holds(st, seat, t)``: the seat holds the
    type elsewhere too (Smokestack's setup chimneys), for that last check."""
    # gather: the seat's start blocks first, then the pool blocks
    k = 0
    nb = 0
    ns = 0
    for role in (ROLE_START, ROLE_POOL):
        for r in range(tab.shape[0]):
            if tab[r, 6] != role:
                continue
            lo, hi, skip = _owners(tab, r, seat, players)
            for owner in range(lo, hi):
                if owner == skip:
                    continue
                k2 = block_cards(st, tab, r, owner, pool, k, table_cards)
                blk[4 * nb] = r
                blk[4 * nb + 1] = owner
                blk[4 * nb + 2] = k
                blk[4 * nb + 3] = 0  # changed
                nb += 1
                k = k2
        if role == ROLE_START:
            ns = k
    if ns == 0:
        return GAVE_NONE
    done = GAVE_AS_DEALT
    if arm == ARM_IN:
        held = False
        for i in range(ns):
            if has_type(st, pool[i], t):
                held = True
                break
        if not held:
            m = 0
            for j in range(ns, k):
                if has_type(st, pool[j], t):
                    m += 1
            if m == 0:
                return GAVE_NONE
            pick = stream_below(g, m)
            for j in range(ns, k):
                if has_type(st, pool[j], t):
                    if pick == 0:
                        i = stream_below(g, ns)
                        _exchange(pool, blk, nb, i, j)
                        break
                    pick -= 1
            done = GAVE_SWAPPED
    else:
        for i in range(ns):
            if not has_type(st, pool[i], t):
                continue
            m = 0
            for j in range(ns, k):
                if not has_type(st, pool[j], t):
                    m += 1
            if m == 0:
                return GAVE_NONE
            pick = stream_below(g, m)
            for j in range(ns, k):
                if not has_type(st, pool[j], t):
                    if pick == 0:
                        _exchange(pool, blk, nb, i, j)
                        break
                    pick -= 1
            done = GAVE_SWAPPED
    if done == GAVE_SWAPPED:
        # write back only the blocks that changed (an untouched zone keeps its order)
        for b in range(nb):
            if blk[4 * b + 3] != 0:
                lo = blk[4 * b + 2]
                hi = blk[4 * b + 6] if b + 1 < nb else k
                put_block(st, tab, blk[4 * b], blk[4 * b + 1], pool, lo, hi - lo, table_put)
        after_give(st)
    # what follows from the cards may move them on (a Smokestack layout the swap made a
    # chimney is set aside and replaced from the stock), and the seat may hold the type
    # outside its start zones (its setup chimneys): the arm must hold in the end
    k = 0
    for r in range(tab.shape[0]):
        if tab[r, 6] == ROLE_START:
            k = block_cards(st, tab, r, seat if tab[r, 5] != 0 else 0, pool, k, table_cards)
    held = also_holds(st, seat, t)
    for i in range(k):
        held = held or has_type(st, pool[i], t)
    if held != (arm == ARM_IN):
        return GAVE_NONE
    return done


@njit(cache=True, nogil=True, inline="always")
def held_follows_start(st, players, tab, pool, held_at, n_types, has_type, table_cards):
    """The default ``after_give``: before any decision a seat has held exactly the types of
    the cards in its start zones (the engine's held bits from ``held_at``, ``n_types`` a
    seat).  A game whose held bits say more (3UP's face-down cards are not held until
    played) or whose cards settle after a give (Smokestack's chimneys) declares its own."""
    for s in range(players):
        k = 0
        for r in range(tab.shape[0]):
            if tab[r, 6] == ROLE_START:
                k = block_cards(st, tab, r, s if tab[r, 5] != 0 else 0, pool, k, table_cards)
        for t in range(n_types):
            h = 0
            for i in range(k):
                if has_type(st, pool[i], t):
                    h = 1
                    break
            st[held_at + s * n_types + t] = h


@njit(cache=True, nogil=True, inline="always")
def _exchange(pool, blk, nb, i, j):
    """Swap pool[i] and pool[j], marking the blocks they belong to changed."""
    x = pool[i]
    pool[i] = pool[j]
    pool[j] = x
    for b in range(nb):
        hi = blk[4 * (b + 1) + 2] if b + 1 < nb else 1 << 62
        if blk[4 * b + 2] <= i < hi or blk[4 * b + 2] <= j < hi:
            blk[4 * b + 3] = 1


@njit(cache=True, nogil=True, inline="always")
def share(st, mask_at, seat, players):
    """Seat's win share of a finished game in WIN_UNIT (a win shared by k seats: 1/k)."""
    mask = st[mask_at]
    if (mask >> seat) & 1 == 0:
        return 0
    n = 0
    for s in range(players):
        n += (mask >> s) & 1
    return WIN_UNIT // n


@njit(cache=True, nogil=True, inline="always")
def given_state(st, seed, game, seat, t, arm, g, deal, begin, give_card):
    """Game ``game`` of ``seed`` set up on ``st`` and given its arm (the IN or OUT arm for
    ``seat`` and type ``t``): what give returned.  The game's setup is ``deal`` then
    ``begin`` (the first turn's opening up to the first decision: whatever it decides
    from the cards, an automatic draw or an offer, follows the cards given)."""
    seed_game(st, seed, game)
    deal(st)
    seed_aside(g, seed, game, (t * 16 + seat) * 2 + arm)
    gave = give_card(st, seat, t, arm, g)
    begin(st)
    return gave


@njit(cache=True, nogil=True, inline="always")
def run_paired(rules, sids, params, seed, start, stop, types, out, E, deal, begin, choose,
               step, give_card):
    """Games [start, stop), each played in both arms for every type of ``types``; the seat
    given is the game index modulo the players (rotating).  Adds to ``out`` (int64, shape
    (len(types), players, TW)) the paired tallies (T_* above).  A pair whose either arm
    cannot be made is counted skipped and not played."""
    st = np.zeros(E.size, dtype=np.int64)
    st[E.rules:E.rules + E.n_rules] = rules
    g = np.zeros(4, dtype=np.int64)
    P = rules[0]
    for game in range(start, stop):
        seat = game % P
        for ti in range(types.shape[0]):
            t = types[ti]
            gave = given_state(st, seed, game, seat, t, ARM_IN, g, deal, begin, give_card)
            if gave == GAVE_NONE:
                out[ti, seat, T_SKIPPED] += 1
                continue
            engine.play_on(st, sids, params, E, choose, step)
            w_in = share(st, E.mask, seat, P)
            if given_state(st, seed, game, seat, t, ARM_OUT, g, deal, begin, give_card) == GAVE_NONE:
                out[ti, seat, T_SKIPPED] += 1
                continue
            engine.play_on(st, sids, params, E, choose, step)
            w_out = share(st, E.mask, seat, P)
            if gave == GAVE_AS_DEALT:
                out[ti, seat, T_AS_DEALT] += 1
            d = w_in - w_out
            out[ti, seat, T_PAIRS] += 1
            out[ti, seat, T_WIN_IN] += w_in
            out[ti, seat, T_WIN_OUT] += w_out
            out[ti, seat, T_SUM_D] += d
            out[ti, seat, T_SUM_D2] += d * d


@njit(cache=True, nogil=True)
def no_more_held(st, seat, t):
    """A game whose seats hold nothing at the start outside their start zones."""
    return False


@njit(cache=True, nogil=True, inline="always")
def nothing(st):
    """A game's ``begin`` when its deal leaves the first decision pending (3UP 3DOWN)."""
    return
