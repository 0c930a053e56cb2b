"""A game's state, declared once: named parts of one int64 array, offsets derived.

Every game keeps everything it reads or writes in one int64 array ``st`` (numba calls
are cheapest with one array argument, and a copy of it is a position one can play on
from).  A game's ``layout.py`` declares that array part by part, in order::

    S = Schema("skyscraper", maxp=4, n_types=NT, events=EVENT_NAMES, ends=END_NAMES,
               decisions=(("play", "kind,a,b,c"),))
    R = S.rules("players", "floor_copies", ...)        # R.players, ... (rule slots)
    S_DRAW_N = S.counter("draw_n", "cards in the draw pile")
    S_SKIP = S.seats("skip", "turns each seat still has to skip")
    S_HAND = S.zone("hand", NT, "card counts by type", owner=True, visible=OWNER,
                    encoding=COUNTS)
    S_DRAW = S.zone("draw", DECK_MAX, "draw pile, top = last", visible=NOBODY,
                    encoding=PILE, count="draw_n")
    S.end_zones()                                      # what a trace snapshot holds
    S_ACTS = S.scratch("acts", 4 * MAXACT, "legal-action buffer")
    S.seal(globals())

and gets back plain integers (numba reads module-level integers as compile-time
constants, so a derived offset costs nothing).  The schema itself knows every part's
name, size, owner and visibility: it checks at import that the parts fit (nothing can
overlap: offsets are handed out in order, and a size must be a positive integer), it
decodes a state's zones by name, builds states for tests, and says which zones a seat
cannot see.  Nothing in a game's rules or strategies computes an offset by hand.

Every schema also gets the parts the shared engine (``sim/engine.py``) reads:

- ``S_RNG`` (4 words: the game's chance stream, first, where ``sim/rng.py`` expects it),
  ``S_SEAT_RNG`` (each seat's own stream, for its strategy's random choices), ``S_SEED``,
  and the rule slots after them;
- in the zones: ``S_PHASE`` (the pending decision, 0 once the game is over) and
  ``S_ACTOR`` (the seat that decides), so a copy of the array is a resumable position;
- after the zones: the per-game bookkeeping the engine folds into a tally
  (``S_HELD``/``S_PLAYED`` card-power bits, ``S_SCORE`` per seat, ``S_EVC`` event
  counts, the result ``S_MASK``/``S_LENGTH``/``S_UNFINISHED``/``S_END``), ``S_NEV``
  (trace events written) and then the game's own bookkeeping and scratch.
"""
from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from cardlab.sim.rng import MAX_SEATS, SEAT_RNG, SEED_AT

# who may see a zone's cards
PUBLIC = "public"    # every seat
OWNER = "owner"      # only the seat it belongs to (a hand)
NOBODY = "nobody"    # no seat (a draw pile's order, face-down cards, the rules' books)
# working memory (the legal-action buffer, a search's table): any seat's strategy may write
# it, and read back only what was written during the same decision (what an earlier one
# left there is residue: another seat's legal actions, a stale search)
WORKING = "working"
VISIBILITIES = (PUBLIC, OWNER, NOBODY, WORKING)

# how a zone holds its cards
PILE = "pile"        # card codes st[o], st[o+1], ... ; how many: the counter named ``count``
COUNTS = "counts"    # st[o + t]: how many cards of type t
SLOTS = "slots"      # a card code per slot, -1 for an empty slot
MASK = "mask"        # one word per block, bit c set when card c is there (c < 63)
TABLE = "table"      # game-specific rows (a tower of floors); the game decodes it
VALUES = "values"    # numbers that are not cards (block heights, caches)

DONE = 0  # st[S_PHASE] once a game is over; decisions are numbered from 1
# the parts every schema declares itself (the generators, the rule vector, the pending
# decision and the engine's books): a game's own part may not take one of these names
RESERVED = ("rng", "seat_rng", "seed", "rules", "phase", "actor", "held", "played", "score", "evc",
            "mask", "length", "unfinished", "end", "nev", "shape")
# restricted play (``mcts:never=``): a game's ``restrict_bits`` sets bit t for a card type
# t an action commits and bit KIND_BIT + k for its named action kind k (``RESTRICT_KINDS``)
KIND_BIT = 32

# the shape part (sim/shape.py): SHAPE_HEAD words, the final progress per seat, then the
# sole leader of each turn, 4 bits a turn (SHAPE_LOG_WORDS * 16 turns)
SHAPE_HEAD = 5
SHAPE_LOG_WORDS = 64

DERIVED = 3  # a clear-table row of a derived book (Schema.clear_table, sim/redeal.clear_hidden)
EVW = 9   # an event row in trace mode: kind, player (-1: chance), turn, then six fields


def seen_by(visible: str, owner: int | None, seat: int) -> bool:
    """Whether ``seat`` sees a block of this visibility belonging to ``owner`` (None: a part
    with one block): a PUBLIC part, or its own block of an OWNER part."""
    return visible == PUBLIC or (visible == OWNER and owner == seat)


@dataclass(frozen=True)
class Part:
    name: str
    offset: int
    size: int          # words per owner (per seat when ``owner``), the whole part otherwise
    help: str
    section: str       # "rules", "zones", "book", "scratch"
    owner: bool = False          # one block of ``size`` per seat
    visible: str = PUBLIC
    encoding: str = VALUES
    count: str | None = None     # PILE: the counter (or per-seat counter) holding its length
    derived: bool = False        # hidden, and re-made by the game's re-deal hook from the
                                 # re-dealt cards (else a re-deal clears it: nothing left behind)

    _maxp: int = 1               # the schema's seats (for the size of a per-seat part)

    @property
    def words(self) -> int:
        return self.size * (self._maxp if self.owner else 1)

    def seen_by(self, owner: int | None, seat: int) -> bool:
        """Whether ``seat`` sees this part's block of ``owner`` (``seen_by``)."""
        return seen_by(self.visible, owner, seat)

    def block(self, seat: int | None = None) -> slice:
        """The words of this part (of ``seat``'s block when it has one per seat)."""
        if self.owner:
            if seat is None:
                raise ValueError(f"part '{self.name}' has one block per seat: give the seat")
            return slice(self.offset + seat * self.size, self.offset + (seat + 1) * self.size)
        return slice(self.offset, self.offset + self.size)


class SchemaError(Exception):
    """A schema that cannot be laid out (raised at import: the game never runs)."""


class Schema:
    def __init__(self, game: str, *, maxp: int, n_types: int, events: tuple[str, ...],
                 ends: tuple[str, ...], decisions: tuple[tuple[str, str], ...]):
        """``decisions``: (name, action fields) per decision kind, numbered 1, 2, ... in
        order (``st[S_PHASE]``); the fields name the four action numbers a strategy
        returns, as the illegal-action message shows them."""
        self.game = game
        self.maxp = maxp
        self.n_types = n_types
        self.events = tuple(events)
        self.ends = tuple(ends)
        self.decisions = tuple(decisions)
        self.parts: dict[str, Part] = {}
        self.size = 0
        self.rule_names: tuple[str, ...] = ()
        self.zones_end: int | None = None
        self.give_start: tuple[str, ...] = ()
        self.give_pool: tuple[str, ...] = ()
        self.give_note = ""
        self.progress_what = ""
        self.close_margin = -1   # -1: no progress declared (the game has no shape figures)
        self.clock = -1          # the counter events are stamped with (counter(..., clock=True))
        self.sealed = False
        # what some numbers mean (Schema.numbers): a seat, or a float's IEEE-754 bits
        self.seat_numbers: set[str] = {"actor"}
        self.float_numbers: set[str] = set()
        self.more_names: list[str] = []  # a game's own observation numbers (more_features)
        self._own = True  # declaring the schema's own parts (RESERVED names)
        if maxp > MAX_SEATS:
            raise SchemaError(f"{game}: {maxp} seats, at most {MAX_SEATS} (sim/rng.MAX_SEATS)")
        # the generators: the chance stream and the seed words decide what comes next (no
        # seat may read them: sim/rng.seed_seat alone reads the seed, to seed a seat's own
        # stream); each seat's own stream is its strategy's, to read and advance
        self._add("rng", 4, "the game's chance stream: xoshiro256** (sim/rng.py)", "rng")
        self._add("seat_rng", 4, "each seat's own stream for its strategy's random choices "
                  "(hidden from the other seats)", "rng", owner=True, visible=OWNER, seats=MAX_SEATS)
        self._add("seed", 2, "the root seed and the game index (a seat stream is seeded from them)", "rng")
        self._own = False

    # ------------------------------------------------------------ declaring
    def _add(self, name: str, size: int, help: str, section: str, *, owner=False,
             visible=NOBODY, encoding=VALUES, count=None, derived=False, seats=None) -> int:
        if self.sealed:
            raise SchemaError(f"{self.game}: part '{name}' declared after seal()")
        if name in RESERVED and not self._own:
            raise SchemaError(f"{self.game}: part name '{name}' is the engine's: the reserved names are "
                              + ", ".join(RESERVED))
        if name in self.parts:
            raise SchemaError(f"{self.game}: part '{name}' declared twice")
        if not isinstance(size, (int, np.integer)) or isinstance(size, bool) or size < 1:
            raise SchemaError(f"{self.game}: part '{name}' has size {size!r}: a positive integer is needed")
        if visible not in VISIBILITIES:
            raise SchemaError(f"{self.game}: part '{name}' has visibility {visible!r}: one of "
                              + ", ".join(VISIBILITIES))
        if visible == OWNER and not owner:
            raise SchemaError(f"{self.game}: part '{name}' is visible to its owner only but has no owner")
        if visible == WORKING and (section != "scratch" or owner):
            raise SchemaError(f"{self.game}: part '{name}' is working memory: only a scratch part "
                              "shared by the seats may be (per-seat memory is visible=OWNER)")
        if section == "scratch" and visible not in (WORKING, OWNER):
            raise SchemaError(f"{self.game}: scratch part '{name}' is {visible!r}: scratch is working "
                              "memory (WORKING) or a seat's own memory (owner=True, visible=OWNER)")
        if derived and visible == PUBLIC:
            raise SchemaError(f"{self.game}: part '{name}' is public: only a hidden part is re-made by a re-deal")
        if encoding == PILE and count is None:
            raise SchemaError(f"{self.game}: pile '{name}' needs the counter that holds its length")
        if count is not None and count not in self.parts:
            raise SchemaError(f"{self.game}: pile '{name}' counts with '{count}', which is not declared before it")
        p = Part(name, self.size, int(size), help, section, owner, visible, encoding, count, derived,
                 seats or self.maxp)
        self.parts[name] = p
        self.size += p.words
        return p.offset

    def rules(self, *names: str) -> Any:
        """One slot per rule knob, in this order (``players`` first): the game's rule
        vector is copied to st[R_FIRST:] once per batch.  Returns the slot of each name
        as attributes (``R.floor_max``) and, for ``seal``, ``R_<NAME>`` constants."""
        if self.rule_names:
            raise SchemaError(f"{self.game}: rules declared twice")
        if not names or names[0] != "players":
            raise SchemaError(f"{self.game}: the first rule slot must be 'players'")
        if len(set(names)) != len(names):
            raise SchemaError(f"{self.game}: a rule slot is named twice")
        self.rule_names = tuple(names)
        self._own = True
        first = self._add("rules", len(names), "the rule vector (one slot per knob)", "rules", visible=PUBLIC)
        self._own = False
        return namedtuple("Rules", names)(*range(first, first + len(names)))

    def counter(self, name: str, help: str, *, visible=PUBLIC, clock=False) -> int:
        """One number of the table (a pile size, the turn, whose turn it is): public, as
        the table's numbers are, unless ``visible`` says otherwise.  ``clock``: the turn
        (or round) counter, which the shared ``events.emit`` stamps each event with (one
        per game)."""
        if clock and self.clock >= 0:
            raise SchemaError(f"{self.game}: counter '{name}' is a second clock: "
                              f"'{self.parts_at(self.clock)}' already is")
        offset = self._add(name, 1, help, self._section(), visible=visible)
        if clock:
            self.clock = offset
        return offset

    def seats(self, name: str, help: str, *, visible=PUBLIC) -> int:
        """One number per seat (a hand size, turns to skip); seat s's at offset + s.  Public
        unless ``visible`` says otherwise."""
        return self._add(name, 1, help, self._section(), owner=True, visible=visible)

    def zone(self, name: str, size: int, help: str, *, owner=False, visible=NOBODY,
             encoding=PILE, count=None) -> int:
        """Cards (or blocks): ``size`` words, per seat when ``owner`` (seat s's block at
        offset + s * size).  Hidden from every seat unless ``visible`` is PUBLIC (every
        seat) or OWNER (the seat whose block it is)."""
        if self.zones_end is not None:
            raise SchemaError(f"{self.game}: zone '{name}' declared after end_zones()")
        return self._add(name, size, help, "zones", owner=owner, visible=visible,
                         encoding=encoding, count=count)

    def end_zones(self) -> int:
        """Close the zones: a trace snapshot is st[:ZONES_END].  Adds the pending
        decision and the seat to act (the engine's), and then the engine's bookkeeping."""
        self._own = True
        self.counter("phase", "the pending decision (0: the game is over)")
        self.counter("actor", "the seat whose decision is pending")
        self.zones_end = self.size
        T = self.n_types
        # the engine's books: what the tally and the analysis read, never a strategy (hidden:
        # card-power bits follow hidden cards, the standing follows hidden progress)
        self._add("held", T, "card-power bits: the seat held a card of the type", "book", owner=True)
        self._add("played", T, "card-power bits: the seat played a card of the type", "book", owner=True)
        self._add("score", 1, "the game's score per seat at the end", "book", owner=True)
        self._add("evc", len(self.events), "event counts this game", "book")
        self._add("mask", 1, "the winners of the finished game, a bit per seat", "book")
        self._add("length", 1, "the finished game's length (turns or rounds)", "book")
        self._add("unfinished", 1, "1 when the game hit its cap", "book")
        self._add("end", 1, "how the game ended (an index into END_NAMES)", "book")
        self._add("nev", 1, "events written to the trace buffer", "book")
        self._add("shape", SHAPE_HEAD + self.maxp + SHAPE_LOG_WORDS, "the shape of the game "
                  "(sim/shape.py): the standing at the end of each turn, lead changes, the "
                  "final progress per seat and a log of the sole leader per turn", "book")
        self._own = False
        return self.zones_end

    def progress(self, what: str, *, close: int) -> None:
        """Declare the game's per-seat progress score (``moves.progress(st, seat)``: higher
        is closer to winning; ``what`` says what it counts, e.g. "floors" or "minus the
        cards left") and the margin at or below which a finish is close: the winner's
        progress minus the best loser's (``sim/shape.py``)."""
        if not isinstance(close, int) or isinstance(close, bool) or close < 0:
            raise SchemaError(f"{self.game}: progress close margin {close!r}: a whole number >= 0 is needed")
        self.progress_what, self.close_margin = what, close

    def scratch(self, name: str, size: int, help: str, *, owner=False) -> int:
        """Memory that is not part of the table (never a zone).  Shared scratch is working
        memory (``WORKING``: the legal-action buffer, a search's table): a strategy may
        read back only what it wrote during the same decision.  With ``owner`` it is each
        seat's own memory (``size`` words per seat, visible to its seat only): the one
        place a strategy may keep what it remembers from one decision to the next."""
        return self._add(name, size, help, "scratch", owner=owner, visible=OWNER if owner else WORKING)

    def book(self, name: str, size: int, help: str, *, owner=False, visible=NOBODY,
             derived=False) -> int:
        """Per-game bookkeeping of the game's own (cleared with the game).  Hidden from
        every seat unless ``visible`` is PUBLIC (or OWNER: its seat's block).  A re-deal of
        what a seat cannot see clears the hidden books, or, with ``derived``, leaves them to
        the game's re-deal hook to re-make from the re-dealt cards (``sim/redeal.py``)."""
        return self._add(name, size, help, "book", owner=owner, visible=visible, derived=derived)

    def give(self, start: tuple[str, ...], pool: tuple[str, ...], note: str = "") -> None:
        """Where causal card power (``sim/give.py``) gives a seat a card: the seat's
        ``start`` zones (the cards it starts with, right after the setup) and the ``pool``
        zones copies come from and go to (a per-seat pool zone: the other seats' blocks).
        ``note`` says it in the rules' words (``cardlab cardpower`` prints it)."""
        for name in (*start, *pool):
            p = self.parts.get(name)
            if p is None or p.section != "zones" or p.encoding == VALUES:
                raise SchemaError(f"{self.game}: give names '{name}', which is not a zone of cards")
        if any(not self.parts[n].owner for n in start):
            raise SchemaError(f"{self.game}: a start zone of give must have one block per seat")
        self.give_start, self.give_pool, self.give_note = tuple(start), tuple(pool), note

    def give_table(self) -> np.ndarray:
        """The zones of ``give``, one row each in the re-deal table's format
        (``redeal_table``) with the role last: 1 a start zone, 2 a pool zone."""
        enc = {PILE: 0, COUNTS: 1, SLOTS: 2, MASK: 3, TABLE: 4}
        rows = []
        for role, names in ((1, self.give_start), (2, self.give_pool)):
            for name in names:
                p = self.parts[name]
                cp = self.parts[p.count] if p.count else None
                rows.append([p.offset, p.size, enc[p.encoding], cp.offset if cp else -1,
                             int(bool(cp and cp.owner)), int(p.owner), role])
        return np.array(rows, dtype=np.int64).reshape(len(rows), 7)

    def _section(self) -> str:
        return "zones" if self.zones_end is None else "book"

    # ------------------------------------------------------------ sealing
    def seal(self, namespace: dict | None = None) -> "Schema":
        """Finish the layout; with ``namespace`` (a layout module's ``globals()``) check
        that the module assigns every name the schema derives, with its value (the block
        ``names_block`` writes: ``S_HANDS = S.at("hands")``, ``R_PLAYERS = S.rule("players")``,
        ``D_PLAY = S.decision("play")``, ``ENGINE = S.engine_tuple()``...): every name a
        layout's users import is an assignment that grep and an editor find.  With
        ``CARDLAB_LAYOUT_NAMES=define`` (``scripts/layout_names.py``, writing the block) the
        missing names are defined instead."""
        import os

        if self.zones_end is None:
            raise SchemaError(f"{self.game}: seal() before end_zones()")
        if not self.rule_names:
            raise SchemaError(f"{self.game}: no rule slots declared")
        self.sealed = True
        self.check()
        self.check_hidden_numbers()
        if namespace is not None:
            consts = self.constants()
            define = os.environ.get("CARDLAB_LAYOUT_NAMES") == "define"  # the block is being rewritten
            clash = [k for k in consts if k in namespace and not _same(namespace[k], consts[k])]
            if clash and not define:
                raise SchemaError(f"{self.game}: the layout module assigns {', '.join(clash)} differently "
                                  "from the schema: offsets come from the schema only")
            missing = [k for k in consts if k not in namespace]
            if missing and define:
                namespace.update({k: consts[k] for k in missing})
            elif missing:
                raise SchemaError(f"{self.game}: the layout does not assign {', '.join(missing[:8])}"
                                  f"{' ...' if len(missing) > 8 else ''}: run python scripts/layout_names.py "
                                  f"{self.game} (it writes every name as an assignment before S.seal)")
        return self

    def at(self, *names: str):
        """The offset of part ``name`` (``S_HANDS = S.at("hands")``); of several parts, a
        tuple (``S_PHASE, S_ACTOR = S.at("phase", "actor")``)."""
        offsets = tuple(self._named("part", n, self.parts, lambda: self.parts[n].offset) for n in names)
        return offsets[0] if len(offsets) == 1 else offsets

    def rule(self, *names: str):
        """The slot of rule ``name`` (``R_PLAYERS = S.rule("players")``); of several, a
        tuple (``R_PLAYERS, R_RANKS = S.rule("players", "ranks")``)."""
        slots = tuple(self._named("rule slot", n, self.rule_names,
                                  lambda: self.parts["rules"].offset + self.rule_names.index(n)) for n in names)
        return slots[0] if len(slots) == 1 else slots

    def decision(self, *names: str):
        """The number of decision ``name`` (``D_PLAY = S.decision("play")``), from 1; of
        several, a tuple (``D_PLAY, D_CALL = S.decision("play", "call")``)."""
        order = [d for d, _ in self.decisions]
        numbers = tuple(self._named("decision", n, order, lambda: order.index(n) + 1) for n in names)
        return numbers[0] if len(numbers) == 1 else numbers

    def _named(self, what: str, name: str, declared, value):
        """``value()`` for a declared name.  A names block written before a part, rule slot
        or decision was removed or renamed asks for one the schema no longer has: a one-line
        SchemaError naming the fix, and while ``scripts/layout_names.py`` rewrites the block
        (``CARDLAB_LAYOUT_NAMES=define``) a placeholder -1, so the layout imports."""
        import os

        if name in declared:
            return value()
        if os.environ.get("CARDLAB_LAYOUT_NAMES") == "define":
            return -1
        raise SchemaError(f"{self.game}: the layout's names block asks for the {what} '{name}', which the "
                          f"schema does not declare (removed or renamed?): run python scripts/layout_names.py "
                          f"{self.game} to rewrite the block")

    def names_block(self) -> str:
        """Every name the schema derives, as the assignments a layout module holds before
        ``S.seal(globals())`` (``scripts/layout_names.py`` writes them): several names a
        line, each line within ``NAMES_WIDTH`` columns (``S_STOCK_N, S_TURN =
        S.at("stock_n", "turn")``: grep finds ``S_TURN,`` as it finds ``S_TURN =``).  The
        parts are grouped in their order, the schema's own apart from the game's; then the
        rule slots, the sizes, the decisions and the tables."""
        runs: list[tuple[bool, list[str]]] = []  # parts in order, the schema's own apart
        for p in self.parts.values():
            own = p.name in RESERVED
            if runs and runs[-1][0] == own:
                runs[-1][1].append(p.name)
            else:
                runs.append((own, [p.name]))
        lines = [NAMES_BEGIN]
        for _, names in runs:
            lines += _grouped("S_", "S.at", names)
        lines += _grouped("R_", "S.rule", self.rule_names)
        lines += ["N_RULES, ZONES_END, TRACE_ROW, N_EV = len(S.rule_names), S.zones_end, S.trace_row, len(S.events)",
                  "S_SIZE, EVW, DONE = S.size, S.evw, S.done"]
        lines += _grouped("D_", "S.decision", [d for d, _ in self.decisions])
        lines += ["ENGINE = S.engine_tuple()", "REDEAL, CLEAR, GIVE = S.redeal_table(), S.clear_table(), S.give_table()",
                  NAMES_END]
        return "\n".join(lines) + "\n"

    evw = EVW
    done = DONE

    def check(self) -> None:
        """Every part inside the array, none overlapping another (by construction, and
        checked again here because a layout is the one thing that must never be wrong)."""
        end = 0
        for p in sorted(self.parts.values(), key=lambda p: p.offset):
            if p.offset < end:
                raise SchemaError(f"{self.game}: part '{p.name}' overlaps the part before it")
            end = p.offset + p.words
        if end != self.size:
            raise SchemaError(f"{self.game}: parts end at {end}, the state has {self.size} words")
        if (self.parts["rng"].offset, self.parts["seat_rng"].offset, self.parts["seed"].offset) != (0, SEAT_RNG, SEED_AT):
            raise SchemaError(f"{self.game}: the generators must come first, as sim/rng.py expects")

    def check_hidden_numbers(self) -> None:
        """A number among the zones hidden from other seats (a seat's secret chips) is
        neither re-dealt nor cleared by a re-deal: only a game whose hidden ``TABLE`` zone
        has re-deal hooks (``zone_cards``, ``table_put``: 3UP's counts of a hand by type)
        re-makes such numbers.  Without one, the search player's worlds would keep their
        true values, so it is refused here, naming the ways to declare it."""
        numbers = [p.name for p in self.parts.values()
                   if p.section == "zones" and p.encoding == VALUES and p.visible != PUBLIC]
        tables = [p.name for p in self.parts.values()
                  if p.section == "zones" and p.encoding == TABLE and p.visible != PUBLIC]
        if numbers and not tables:
            raise SchemaError(
                f"{self.game}: '{numbers[0]}' is a number hidden from other seats among the zones, and "
                "no re-deal re-makes it: the search player's worlds would keep its true value. Declare it "
                "public, or after end_zones() (S.book: a re-deal clears it, or re-make it in the game's "
                "after_redeal with derived=True), or as part of a hidden TABLE zone whose hooks re-deal it "
                "(docs/game_reference.md, hidden numbers)")

    def shown_parts(self) -> list[Part]:
        """The parts outside the zones that the rules write and only their own seat may read
        (a book or a number per seat declared ``visible=OWNER``: what a seat was shown of
        another's hand, what it received).  The honesty audit takes what the rules write
        there as seen by that seat, so it is listed beside the audit's verdict: whether
        the rules show a seat only what the rulebook does is for the rule tests."""
        return [p for p in self.parts.values()
                if p.section not in ("zones", "scratch", "rng") and p.owner and p.visible == OWNER]

    @property
    def trace_row(self) -> int:
        return EVW + self.zones_end

    def constants(self) -> dict[str, int]:
        c: dict[str, Any] = {}
        for p in self.parts.values():
            c["S_" + p.name.upper()] = p.offset
        c["S_RULES"] = self.parts["rules"].offset
        c["N_RULES"] = len(self.rule_names)
        for i, r in enumerate(self.rule_names):
            c["R_" + r.upper()] = c["S_RULES"] + i
        c["ZONES_END"] = self.zones_end
        c["S_SIZE"] = self.size
        c["EVW"] = EVW
        c["TRACE_ROW"] = self.trace_row
        c["N_EV"] = len(self.events)
        c["DONE"] = DONE
        for i, (name, _) in enumerate(self.decisions):
            c["D_" + name.upper()] = i + 1
        c["ENGINE"] = self.engine_tuple()
        c["REDEAL"] = self.redeal_table()
        c["GIVE"] = self.give_table()
        c["CLEAR"] = self.clear_table()
        return c

    def redeal_table(self) -> np.ndarray:
        """The zones some seat may not see, one row each, for the compiled re-deal
        (``sim/redeal.py``): offset, size, encoding, counter offset, counter per seat,
        per seat, visibility."""
        enc = {PILE: 0, COUNTS: 1, SLOTS: 2, MASK: 3, TABLE: 4}
        rows = []
        for p in self.zone_parts():
            if p.visible == PUBLIC:
                continue
            cp = self.parts[p.count] if p.count else None
            rows.append([p.offset, p.size, enc[p.encoding], cp.offset if cp else -1,
                         int(bool(cp and cp.owner)), int(p.owner), 1 if p.visible == OWNER else 2])
        return np.array(rows, dtype=np.int64).reshape(len(rows), 7)

    def numbers(self, *, seats: tuple[str, ...] = (), floats: tuple[str, ...] = ()) -> None:
        """What some numbers mean, for a seat's observation vector (``sim/features.py``):
        ``seats`` name counters, books or rule slots that hold a seat (-1: none), which the
        vector gives relative to the observer (0: itself, 1: the next seat...), so a vector
        means the same whichever seat sees it; ``floats`` name those that hold a float64's
        bits (``st.view(np.float64)``), read back as the float.  ``phase``'s decider (the
        engine's ``actor``) is a seat already."""
        for name in (*seats, *floats):
            if name not in self.parts and name not in self.rule_names:
                raise SchemaError(f"{self.game}: numbers(): no part or rule slot named '{name}'")
        self.seat_numbers |= set(seats)
        self.float_numbers |= set(floats)

    # ------------------------------------------------------------ a seat's observation as numbers
    FEATURE_SECTIONS = ("rules", "zones", "book")  # never the generators or scratch

    def more_features(self, *names: str) -> None:
        """Numbers the game adds to a seat's observation vector after the schema's own
        (``sim/features.py``), one name each, written by its ``Rules(more_features=...)``
        hook: what the card types hide (Crazy Eights' suits, where a type is a rank).  They
        come from what the seat may see only; the honesty audit proves it like the rest."""
        taken = set(self.more_names)
        for n in names:
            if not n or n in taken:
                raise SchemaError(f"{self.game}: more_features(): {'an empty name' if not n else repr(n) + ' twice'}")
            taken.add(n)
        self.more_names += list(names)

    def feature_parts(self) -> list[Part]:
        """The parts a seat's observation vector (``sim/features.py``) is made of: every
        part of the rules, the table and the books that some seat may see (PUBLIC, or OWNER
        with a block per seat), in the schema's order; hidden parts add nothing (what a seat
        knows of them, a pile's size or a hand's count, is a public counter of its own)."""
        return [p for p in self.parts.values() if p.section in self.FEATURE_SECTIONS
                and (p.visible == PUBLIC or (p.visible == OWNER and p.owner))]

    def feature_width(self, p: Part) -> int:
        """Numbers per block of ``p``: a pile, slots or a bit mask of cards become how many
        cards of each card type it holds and how many in all (n_types + 1); numbers, counts
        by type and a game's own rows are copied as they are."""
        return self.n_types + 1 if p.encoding in (PILE, SLOTS, MASK) else p.size

    def feature_table(self) -> np.ndarray:
        """The observation vector's recipe for the compiled ``sim/features.py``, one row per
        part of ``feature_parts``: offset, size, encoding (``sim/redeal.py``'s numbers, 5 for
        numbers), counter offset (-1: none), counter per seat, per seat, visibility (0
        public, 1 owner), first feature, features per block, what its numbers are (0 plain, 1
        a seat, 2 a float's bits: ``numbers``).  A per-seat part takes ``maxp`` blocks of
        features, the observing seat's first and then the seats after it in play order, and
        a seat number is given from the observer (the same vector means the same situation,
        whichever seat sees it).  The rule vector is a row per slot (each its own kind)."""
        enc = {PILE: 0, COUNTS: 1, SLOTS: 2, MASK: 3, TABLE: 4, VALUES: 5}
        rows, first = [], 0
        for p in self.feature_parts():
            cp = self.parts[p.count] if p.count else None
            width = self.feature_width(p)
            if p.name == "rules":
                for i, r in enumerate(self.rule_names):
                    rows.append([p.offset + i, 1, enc[VALUES], -1, 0, 0, 0, first + i, 1, self._kind(r)])
            else:
                rows.append([p.offset, p.size, enc[p.encoding], cp.offset if cp else -1,
                             int(bool(cp and cp.owner)), int(p.owner), 1 if p.visible == OWNER else 0,
                             first, width, self._kind(p.name) if p.encoding == VALUES else 0])
            first += width * (self.maxp if p.owner else 1)
        return np.array(rows, dtype=np.int64).reshape(len(rows), 10)

    def _kind(self, name: str) -> int:
        return 1 if name in self.seat_numbers else 2 if name in self.float_numbers else 0

    def feature_names(self) -> list[str]:
        """A name per feature, in order: ``part[i]`` (``part[+k]`` for the block of the seat
        k places after the observer), ``.tN`` the cards of type N, ``.n`` the cards in all;
        then the game's own, ``more.NAME`` (``more_features``)."""
        out = []
        for p in self.feature_parts():
            if p.name == "rules":
                out += [f"rules.{r}" for r in self.rule_names]
                continue
            for k in range(self.maxp if p.owner else 1):
                at = f"[+{k}]" if p.owner else ""
                if p.encoding in (PILE, SLOTS, MASK):
                    out += [f"{p.name}{at}.t{t}" for t in range(self.n_types)] + [f"{p.name}{at}.n"]
                else:
                    out += [f"{p.name}{at}[{i}]" if p.size > 1 else f"{p.name}{at}" for i in range(p.size)]
        return out + [f"more.{n}" for n in self.more_names]

    def clear_table(self) -> np.ndarray:
        """What a re-deal of what one seat cannot see clears besides re-dealing the cards
        (``sim/redeal.py``, ``sim/observe.py``: nothing hidden is left behind), one row each:

            offset, size (words per owner), blocks (1, or one per seat the schema has
            room for), visibility (1 owner, 2 nobody, 3 derived: only the blocks of the
            seats the game does not have), counter offset, counter per seat (0/1)

        - every hidden part outside the zones (books, a seat's memory) that the game does
          not re-make itself (``derived``): a row with counter offset -1, the whole block
          cleared to 0; of a derived book, the blocks of the seats the game does not have
          (working memory is not cleared: nothing reads it before writing it, as the
          audit proves; a hidden zone of numbers belongs to its zones' cards, re-dealt with
          them by the game's hooks);
        - the unused tail of every pile, public or not (the words past its counter hold the
          cards that left it: where they went may be hidden): a row with the counter, the
          words from the count on cleared to 0.
        The generators are not in it: a re-deal reseeds them."""
        vis = {PUBLIC: 0, OWNER: 1, NOBODY: 2}
        rows = []
        for p in self.parts.values():
            blocks = p._maxp if p.owner else 1
            if p.encoding == PILE:
                cp = self.parts[p.count]
                rows.append([p.offset, p.size, blocks, vis[p.visible], cp.offset, int(cp.owner)])
            elif p.section in ("book", "scratch") and p.visible in (OWNER, NOBODY):
                # a derived book is the game's to re-make, but for the seats it does not have
                rows.append([p.offset, p.size, blocks, DERIVED if p.derived else vis[p.visible], -1, 0])
        return np.array(rows, dtype=np.int64).reshape(len(rows), 6)

    def word_access(self, st: np.ndarray, seat: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per word of ``st[:size]``, what seat ``seat``'s strategy may do at this moment
        (the honesty audit's rules, ``sim/audit.py``): (readable, writable, working).

        - readable: the rules, every public part and the seat's own blocks (its hand, its
          memory, its stream), a pile only up to its count (the words past it are residue);
        - writable: working memory, the seat's own memory and its own stream;
        - working: the working memory, readable once written during the decision."""
        readable = np.zeros(self.size, dtype=bool)
        writable = np.zeros(self.size, dtype=bool)
        working = np.zeros(self.size, dtype=bool)
        for p in self.parts.values():
            blocks = range(p._maxp) if p.owner else (None,)
            for owner in blocks:
                blk = p.block(owner)
                mine = p.seen_by(owner, seat)
                if p.visible == WORKING:
                    working[blk] = writable[blk] = True
                elif mine:
                    n = p.size
                    if p.encoding == PILE:
                        cp = self.parts[p.count]
                        n = max(0, min(p.size, int(st[cp.offset + (owner if cp.owner else 0)])))
                    readable[blk.start:blk.start + n] = True
                    if p.visible == OWNER and (p.section == "scratch" or p.name == "seat_rng"):
                        writable[blk] = True
        return readable, writable, working

    def engine_tuple(self) -> tuple:
        """The offsets the shared engine reads, as one tuple argument (see sim/engine.py)."""
        o = {n: p.offset for n, p in self.parts.items()}
        return EngineLayout(self.size, self.trace_row, o["rules"], len(self.rule_names), o["phase"],
                            o["actor"], o["held"], o["played"], o["score"], o["evc"], o["mask"],
                            o["length"], o["unfinished"], o["end"], o["nev"], self.zones_end,
                            o.get("acts", -1), o["shape"], self.close_margin, self._acts_end(),
                            self.clock)

    def _acts_end(self) -> int:
        """Where the legal-action buffer ends (the search copies positions without its unused
        tail: Block Tower's holds 30,030 actions, 99.6% of its state)."""
        p = self.parts.get("acts")
        return p.offset + p.words if p is not None else -1

    # ------------------------------------------------------------ reading states
    def new_state(self, rules_vector: np.ndarray | None = None, capacity: int = 0) -> np.ndarray:
        """A zeroed state (with room for ``capacity`` trace events), rules copied in."""
        st = np.zeros(self.size + capacity * self.trace_row, dtype=np.int64)
        if rules_vector is not None:
            st[self.parts["rules"].offset:][:len(rules_vector)] = rules_vector
        return st

    def read(self, st: np.ndarray, name: str, seat: int | None = None) -> np.ndarray:
        """The words of part ``name`` (seat's block for a per-seat part); a pile comes
        back as its cards only (its counter says how many)."""
        p = self.parts[name]
        words = st[p.block(seat)]
        if p.encoding == PILE:
            cp = self.parts[p.count]
            n = int(st[cp.offset + (seat if cp.owner else 0)])
            words = words[:n]
        return words

    def value(self, st: np.ndarray, name: str, seat: int | None = None) -> int:
        """A counter's value (seat's, for a per-seat counter)."""
        p = self.parts[name]
        return int(st[p.offset + (seat if p.owner else 0)])

    def write(self, st: np.ndarray, name: str, values, seat: int | None = None) -> None:
        """Set part ``name`` for a hand-built test state: a pile's cards (its counter is
        set too), a counts zone's counts (exactly one per card type), a slots zone's slots,
        or a counter's value.  A bit-mask zone takes cards, not words: ``put_cards`` (which
        takes cards for every encoding)."""
        p = self.parts[name]
        if p.size == 1 and np.ndim(values) == 0:
            st[p.offset + (seat if p.owner else 0)] = int(values)
            return
        if p.encoding == MASK:
            raise ValueError(f"{self.game}: '{name}' is a bit-mask zone: give its cards with "
                             f"S.put_cards(st, '{name}', cards) (S.write would write raw words)")
        values = np.asarray(values, dtype=np.int64)
        if p.encoding == COUNTS and len(values) != p.size:  # a list of cards here would read as counts
            raise ValueError(f"{self.game}: '{name}' is a counts zone: S.write takes its {p.size} counts, one per "
                             f"card type, not {len(values)} values; give its cards with "
                             f"S.put_cards(st, '{name}', cards)")
        if len(values) > p.size:
            raise ValueError(f"{self.game}: {len(values)} values do not fit part '{name}' ({p.size} words)")
        blk = p.block(seat)
        st[blk] = -1 if p.encoding == SLOTS else 0
        st[blk.start:blk.start + len(values)] = values
        if p.encoding == PILE:
            cp = self.parts[p.count]
            st[cp.offset + (seat if cp.owner else 0)] = len(values)

    def put_cards(self, st: np.ndarray, name: str, cards, seat: int | None = None) -> None:
        """Make zone ``name`` (seat's block for a per-seat zone) hold exactly ``cards``
        (card codes), whatever its encoding: a pile in this order (its counter set too), a
        counts zone counted by card, a slots zone filled from the first slot (-1 after), a
        bit-mask zone's bits.  A TABLE zone is the game's own (its ``put_zone_cards``)."""
        p = self.parts[name]
        cards = [int(c) for c in cards]
        blk = p.block(seat)
        if p.encoding == MASK:
            if any(not 0 <= c < 63 * p.size for c in cards):
                raise ValueError(f"{self.game}: a card of {cards} does not fit bit-mask zone '{name}'")
            st[blk] = 0
            for c in cards:
                st[blk.start + c // 63] |= np.int64(1) << np.int64(c % 63)
        elif p.encoding == COUNTS:
            if any(not 0 <= c < p.size for c in cards):
                raise ValueError(f"{self.game}: a card of {cards} is no type of counts zone '{name}'")
            st[blk] = np.bincount(np.asarray(cards, dtype=np.int64), minlength=p.size)[:p.size]
        elif p.encoding in (PILE, SLOTS):
            self.write(st, name, cards, seat)
        else:
            raise ValueError(f"{self.game}: zone '{name}' is a {p.encoding} zone: the game's "
                             "put_zone_cards writes its cards")

    def cards(self, st: np.ndarray, name: str, seat: int | None = None,
              card_type: Callable[[int], int] | None = None) -> list[int]:
        """The card codes in a PILE, COUNTS, SLOTS or MASK zone (COUNTS: each type repeated
        by its count; MASK: the set bits).  TABLE zones are game-specific: the game's ``zone_cards`` reads them."""
        p = self.parts[name]
        if p.encoding == PILE:
            return [int(c) for c in self.read(st, name, seat)]
        if p.encoding == COUNTS:
            w = st[p.block(seat)]
            return [t for t in range(p.size) for _ in range(int(w[t]))]
        if p.encoding == SLOTS:
            return [int(c) for c in st[p.block(seat)] if c >= 0]
        if p.encoding == MASK:
            return [c for w, word in enumerate(st[p.block(seat)]) for c in range(63 * w, 63 * w + 63)
                    if (int(word) >> (c - 63 * w)) & 1]
        raise ValueError(f"{self.game}: zone '{name}' is a {p.encoding} zone: the game's zone_cards(st, "
                         "name, seat) must read its cards (docs/game_reference.md, the state schema)")

    def parts_at(self, offset: int) -> str:
        """The name of the part that starts at ``offset``."""
        return next(p.name for p in self.parts.values() if p.offset == offset)

    def zone_parts(self) -> list[Part]:
        return [p for p in self.parts.values() if p.section == "zones" and p.encoding != VALUES]

    def hidden_from(self, seat: int, players: int) -> list[tuple[str, int | None]]:
        """The zones (name, owner seat or None) whose cards ``seat`` cannot see: every
        NOBODY zone, and every OWNER zone of another seat."""
        out = []
        for p in self.zone_parts():
            if p.visible == NOBODY:
                out += [(p.name, s) for s in range(players)] if p.owner else [(p.name, None)]
            elif p.visible == OWNER:
                out += [(p.name, s) for s in range(players) if s != seat]
        return out

    def hidden_cards(self, st: np.ndarray, seat: int, players: int) -> list[int]:
        """The cards ``seat`` cannot see in state ``st``: the contents of every zone of
        ``hidden_from`` (the pool a re-deal of what the seat does not know draws from)."""
        out: list[int] = []
        for name, owner in self.hidden_from(seat, players):
            out += self.cards(st, name, owner)
        return out

    def describe(self) -> str:
        """The layout as a table (for docs and debugging)."""
        rows = [f"{'offset':>6}  {'words':>5}  {'part':<14} {'visible':<7} {'holds':<7} help"]
        for p in self.parts.values():
            per = f"{p.size}x{p._maxp}" if p.owner else str(p.size)
            rows.append(f"{p.offset:>6}  {per:>5}  {p.name:<14} {p.visible:<7} {p.encoding:<7} {p.help}")
        return "\n".join(rows)


def _grouped(prefix: str, fn: str, names) -> list[str]:
    """``PREFIX_A, PREFIX_B = fn("a", "b")`` lines: as few as fit in ``NAMES_WIDTH`` columns
    (a name that does not fit with another gets a line of its own), the names shared out
    evenly between them."""
    def line(ns):
        quoted = ", ".join(f'"{n}"' for n in ns)
        return f"{', '.join(prefix + n.upper() for n in ns)} = {fn}({quoted})"

    names = list(names)
    greedy: list[list[str]] = []
    for n in names:
        if greedy and len(line(greedy[-1] + [n])) <= NAMES_WIDTH:
            greedy[-1].append(n)
        else:
            greedy.append([n])
    k = len(greedy)
    even = [names[len(names) * i // k:len(names) * (i + 1) // k] for i in range(k)]
    chunks = even if all(len(line(c)) <= NAMES_WIDTH for c in even) else greedy
    return [line(c) for c in chunks]


def _same(a, b) -> bool:
    return np.array_equal(a, b) if isinstance(a, np.ndarray) or isinstance(b, np.ndarray) else a == b


NAMES_BEGIN = "# ---- the schema's names: written by python scripts/layout_names.py, checked by S.seal"
NAMES_END = "# ---- end of the schema's names"
NAMES_WIDTH = 100  # the longest line of a names block (several names a line up to it)

EngineLayout = namedtuple("EngineLayout", "size trace_row rules n_rules phase actor held played "
                                          "score evc mask length unfinished end nev zones_end acts "
                                          "shape close acts_end clock")
