"""What a seat sees, and the positions it cannot tell apart from the real one.

Both follow from the schema's visibility (``sim/schema.py``): a zone is PUBLIC (every
seat sees its cards), OWNER (only the seat whose block it is: a hand) or NOBODY (a draw
pile's order, face-down cards).  Counts are public: how many cards a hidden zone holds.

- ``observation(game, st, seat)``: the state as ``seat`` sees it, a trace-style dict of
  zones by the schema's part names (cards as the rules page's codes); a zone hidden from
  the seat shows only ``{"hidden": n}``.
- ``determinize(game, st, seat, rng)``: a copy of ``st`` in which every card the seat
  cannot see is re-dealt: the contents of all zones hidden from it are pooled, shuffled
  with ``rng`` (a numpy Generator) and dealt back into the same zones in the same
  numbers.  What cannot be seen also includes the future: the copy's chance stream is
  reseeded from ``rng``, and so are the other seats' own streams (their strategies'
  future random choices) and the seed words they would be seeded from.  Nothing hidden is
  left behind: every hidden book (the engine's card-power bits, a game's record of dealt
  cards), the other seats' memory and the unused tail of every pile are cleared, unless
  the game re-makes a book from the new cards (``derived``, its ``after_redeal``).  The
  seat's own stream is kept (seeded first if it has not drawn yet), so its strategy draws
  exactly what it would have drawn in the real position.

A strategy that decides only from what its seat sees answers the same in the real
position and in any determinization of it: that is the honesty test
(``sim/testing.py``), and the search player samples its worlds from ``determinize``.

A game whose hidden zones are all PILE, COUNTS, SLOTS or MASK zones needs nothing more.
A game with a hidden TABLE zone, or with numbers derived from a hidden zone (3UP's
per-type counts of a hand), gives its ``Game`` class three hooks:
``zone_cards(st, name, seat)`` (the cards of a zone), ``put_zone_cards(st, name, seat,
cards)`` (write a zone's cards, and whatever follows from them) and ``after_redeal(st)``
(anything else that must follow the new cards).  The defaults below serve every other
encoding.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from cardlab.sim.rng import SEAT_RNG, SEED_AT, seed_seat
from cardlab.sim.schema import COUNTS, MASK, NOBODY, PILE, SLOTS, TABLE, VALUES


def players_of(game, st: np.ndarray) -> int:
    return int(st[game.schema.parts["rules"].offset])


# ------------------------------------------------------------ reading and writing zones
def zone_cards(game, st: np.ndarray, name: str, seat: int | None) -> list[int]:
    """The cards of zone ``name`` (seat's block for a per-seat zone)."""
    hook = getattr(game, "zone_cards", None)
    if hook is not None and game.schema.parts[name].encoding == TABLE:
        return [int(c) for c in hook(st, name, seat)]
    return game.schema.cards(st, name, seat)


def put_zone_cards(game, st: np.ndarray, name: str, seat: int | None, cards: list[int]) -> None:
    """Write ``cards`` into zone ``name``, which held as many before (its counter stays)."""
    S = game.schema
    p = S.parts[name]
    hook = getattr(game, "put_zone_cards", None)
    if hook is not None and hook(st, name, seat, cards):  # the game wrote it (True)
        return
    if p.encoding == TABLE:
        raise NotImplementedError(f"{S.game}: zone '{name}' is a table zone hidden from some seat: "
                                  "the game's put_zone_cards must write it (sim/observe.py)")
    blk = p.block(seat)
    if p.encoding == PILE:
        st[blk.start:blk.start + len(cards)] = cards
    elif p.encoding in (COUNTS, MASK):
        S.put_cards(st, name, cards, seat)
    elif p.encoding == SLOTS:  # into the slots that held cards (the empty ones stay empty)
        taken = [i for i in range(blk.start, blk.stop) if st[i] >= 0]
        st[taken] = cards
    else:
        raise ValueError(f"{S.game}: zone '{name}' holds {p.encoding}, not cards")


# ------------------------------------------------------------ determinize
def _fresh_words(rng: np.random.Generator, n: int) -> np.ndarray:
    """n random words for generator states (all non-zero: never an unseeded stream)."""
    return rng.integers(1, np.iinfo(np.int64).max, size=n, dtype=np.int64)


def clear_hidden(game, st: np.ndarray, seat: int) -> None:
    """Leave nothing behind: ``sim/redeal.clear_hidden`` (the schema's ``clear_table``) run
    as plain Python, the search's own rule for its worlds."""
    from cardlab.sim import redeal

    clear = getattr(redeal.clear_hidden, "py_func", redeal.clear_hidden)  # NUMBA_DISABLE_JIT=1: itself
    clear(st, seat, players_of(game, st), game.schema.clear_table())


def determinize(game, st: np.ndarray, seat: int, rng: np.random.Generator) -> np.ndarray:
    """A copy of ``st`` with everything ``seat`` cannot see drawn afresh (see the module
    docstring): the hidden cards re-dealt into the same zones in the same numbers, the
    hidden books cleared (or re-made by the game's ``after_redeal``), the chance stream
    and the other seats' streams reseeded, the seat's own stream kept.  The pool is
    sorted before it is shuffled, so the copy depends only on which cards the seat cannot
    see, never on where they are."""
    S = game.schema
    P = players_of(game, st)
    out = st.copy()
    hidden = S.hidden_from(seat, P)
    held = [zone_cards(game, out, name, owner) for name, owner in hidden]
    pool = np.sort(np.array([c for cards in held for c in cards], dtype=np.int64))
    rng.shuffle(pool)
    k = 0
    for (name, owner), cards in zip(hidden, held):
        put_zone_cards(game, out, name, owner, [int(c) for c in pool[k:k + len(cards)]])
        k += len(cards)
    clear_hidden(game, out, seat)
    honour = game.model().RULES.honour_shown
    if honour is not None:  # what the rules showed the seat alone holds (sim/redeal.py)
        src = st.copy()  # its choices from a stream of the seat's drawn from rng, fresh each re-deal
        src[SEAT_RNG + 4 * seat:SEAT_RNG + 4 * seat + 4] = _fresh_words(rng, 4)
        dealt = out.copy()
        honour(src, out, seat)
        check_honoured(game, dealt, out, seat, hidden)
    hook = getattr(game, "after_redeal", None)
    if hook is not None:
        hook(out)
    # the future: chance, the other seats' random choices, the seeds they come from
    seed_seat(out, seat)
    mine = out[SEAT_RNG + 4 * seat:SEAT_RNG + 4 * seat + 4].copy()
    out[0:4] = _fresh_words(rng, 4)
    out[SEAT_RNG:SEED_AT] = 0  # no seat beyond the players: an unseeded stream
    out[SEAT_RNG:SEAT_RNG + 4 * P] = _fresh_words(rng, 4 * P)
    out[SEED_AT:SEED_AT + 2] = rng.integers(0, np.iinfo(np.int64).max, size=2, dtype=np.int64)
    out[SEAT_RNG + 4 * seat:SEAT_RNG + 4 * seat + 4] = mine
    return out


class ImpossibleWorld(ValueError):
    """A game's ``honour_shown`` hook made a world no re-deal could have dealt."""


def world_fault(game, before: np.ndarray, world: np.ndarray, seat: int, hidden: list) -> tuple[str, str] | None:
    """The first way ``world`` is not a re-deal of ``before`` for ``seat`` (``hidden``: the
    zones hidden from it, ``Schema.hidden_from``), or None: ``("seen", what)`` a word the
    seat sees changed (the generators aside: a re-deal reseeds the future); ``("count",
    what)`` a hidden zone holds another number of cards; ``("cards", what)`` the hidden
    cards are not the same ones.  ``check_honoured`` and the audit's check of the search's
    worlds (``sim/audit.check_redeal``) word it for what made the world."""
    S = game.schema
    for p in S.parts.values():
        for owner in range(players_of(game, before)) if p.owner else [None]:
            if p.section == "rng" or not p.seen_by(owner, seat):
                continue
            blk = p.block(owner)
            moved = np.flatnonzero(before[blk] != world[blk])
            if moved.size:
                w = blk.start + int(moved[0])
                what = f"'{p.name}'" + ("" if owner is None else f" of seat {owner}")
                return "seen", f"{what} (word {int(moved[0])}: {int(before[w])} -> {int(world[w])})"
    was, now = [], []
    for name, owner in hidden:
        a, b = zone_cards(game, before, name, owner), zone_cards(game, world, name, owner)
        if len(a) != len(b):
            what = f"'{name}'" + ("" if owner is None else f" of seat {owner}")
            return "count", f"{what} held {len(a)} cards and holds {len(b)}"
        was += a
        now += b
    made, lost = Counter(now) - Counter(was), Counter(was) - Counter(now)
    if made or lost:
        code = game.card_names(world)
        return "cards", ", ".join([f"{code(c)} {n} more" for c, n in sorted(made.items())] +
                                  [f"{code(c)} {n} fewer" for c, n in sorted(lost.items())])
    return None


def check_honoured(game, dealt: np.ndarray, world: np.ndarray, seat: int, hidden: list) -> None:
    """The world ``honour_shown`` made of the re-dealt ``dealt`` must be one a re-deal could
    have dealt: the hook only moves cards among the places hidden from ``seat`` (its
    contract, ``sim/redeal.py``).  So every word the seat sees is as it was, every hidden
    zone holds as many cards as before and the hidden cards are the same ones
    (``world_fault``).  Raises ImpossibleWorld naming the first word, zone or cards that
    break it (the kit's honesty check and the audit re-deal through here, so a broken hook
    fails them by name)."""
    fault = world_fault(game, dealt, world, seat, hidden)
    if fault is None:
        return
    kind, what = fault
    raise ImpossibleWorld(f"{game.id}: honour_shown for seat {seat} made a world no re-deal could deal: " + {
        "seen": f"it changed {what}, which the seat sees; a hook moves cards only among the places hidden "
                "from the seat",
        "count": f"{what}; a hook swaps cards, so every hidden zone keeps its number of cards",
        "cards": f"the hidden cards changed ({what}); a hook swaps cards among the hidden places, never making "
                 "or losing one"}[kind])


# ------------------------------------------------------------ observation
def _codes(game, st: np.ndarray):
    """card id -> the rules page's code (the game's ``card_names``)."""
    return game.card_names(st)


def observation(game, st: np.ndarray, seat: int) -> dict[str, Any]:
    """What ``seat`` sees in ``st``: the pending decision and who decides, every public
    counter, every zone by its schema name (per-seat zones as a list by seat) as card
    codes, or ``{"hidden": n}`` where the seat may not see the cards, and under ``shown``
    the seat's own block of every part the rules show it alone (``Schema.shown_parts``:
    what a Priest saw), its numbers by part name."""
    S = game.schema
    P = players_of(game, st)
    code = _codes(game, st)
    phase = int(st[S.parts["phase"].offset])
    obs: dict[str, Any] = {
        "seat": seat,
        "decision": S.decisions[phase - 1][0] if phase > 0 else None,
        "actor": int(st[S.parts["actor"].offset]) if phase > 0 else None,
        "counters": {}, "zones": {},
        "shown": {p.name: [int(x) for x in st[p.block(seat)]] for p in S.shown_parts()},
    }

    for p in S.parts.values():
        if p.section != "zones" or p.name in ("phase", "actor"):
            continue
        owners = list(range(P)) if p.owner else [None]
        if p.encoding == VALUES:
            vals = [[int(x) for x in st[p.block(o)]] if p.seen_by(o, seat) else None for o in owners]
            vals = [v[0] if v is not None and p.size == 1 else v for v in vals]
            obs["counters"][p.name] = vals if p.owner else vals[0]
            continue
        shown = []
        for o in owners:
            if p.seen_by(o, seat) and p.encoding == TABLE and not hasattr(game, "zone_cards"):
                shown.append([int(x) for x in st[p.block(o)]])  # the game's own rows
                continue
            cards = zone_cards(game, st, p.name, o)
            shown.append([code(c) for c in cards] if p.seen_by(o, seat) else {"hidden": len(cards)})
        obs["zones"][p.name] = shown if p.owner else shown[0]
    return obs


def unseen(game, st: np.ndarray, seat: int) -> list[int]:
    """The cards ``seat`` cannot see (the pool ``determinize`` re-deals)."""
    return [c for name, owner in game.schema.hidden_from(seat, players_of(game, st))
            for c in zone_cards(game, st, name, owner)]


__all__ = ["observation", "determinize", "unseen", "zone_cards", "put_zone_cards", "NOBODY"]
