"""The honesty audit: every word a strategy reads and writes during a decision, checked.

A strategy may decide only from what its seat may see.  The re-deal comparison
(``sim/testing.check_honesty``) samples that: it asks again in positions where what the
seat cannot see is re-dealt.  It cannot see a strategy that reads a hidden word now and
acts on it later, one that writes the state, one that burns the chance stream, or one
that reads what an earlier decision left behind.  The audit proves it instead, word by
word: each decision runs in plain Python (``NUMBA_DISABLE_JIT=1``: every compiled
function is its Python source) on the real state seen through ``Watched``, a stand-in for
the array that checks every word read or written against what the schema declares
(``Schema.word_access``, from each part's visibility):

- **read**: the rules, every public part, the seat's own blocks (its hand, its memory, its
  stream), a pile up to its count, and working memory (the legal-action buffer) only once
  written during this decision;
- **write**: working memory, the seat's own memory (``S.scratch(..., owner=True)``) and
  its own stream (whose raw words only ``sim/rng.py`` may touch).

Anything else is a ``Violation`` naming the strategy, what was read or written (the part,
whose block, which word), the seat, the decision and the game/seed, and the line of code
that did it: exact, whether or not the answer changes.

Three pieces of trusted code read what the seat cannot see, by design, and are exempt
only when called as designed: ``sim/rng.seed_seat`` reads the seed words to seed the
seat's *own* stream; the search player (``sim/search.decide``) copies the real position
(``copy_position``) and re-deals it (``sim/redeal.determinize``), whose worlds depend only
on which cards the seat cannot see and leave nothing hidden behind (the exact re-deal
test in the kit proves both).  The one position the search shows its rollout heuristic
unre-dealt (the heuristic's own answer at the root, ``trust``) is audited like a decision
of the seat.  A rollout heuristic that cheats is caught there and in its own audit.

``audit(...)`` runs one cell (a pool of strategies at a player count, rules and seed);
``python -m cardlab.sim.audit GAME`` runs a game's whole plan (``audit_plan``: every
heuristic at every player count, each parameter at its bounds, the search player with
every rollout heuristic, rule variants, mixed pools), with line coverage and the re-deal
checks (``check_redeal``, ``check_clear_is_safe``), and prints JSON;
``sim/testing.check_audit`` and ``cardlab audit`` start it in a process of their own
(``run_audit``).  docs/honesty.md says how to read it.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
MAX_KEPT = 20   # violations kept per cell (the first ones; every one is counted)


@dataclass
class Violation:
    strategy: str
    action: str         # "read" or "write"
    part: str
    block: int | None   # the seat whose block it is (None: a shared part)
    word: int           # the word within the block
    visible: str        # the part's visibility
    seat: int           # the deciding seat
    decision: str
    game: int
    seed: int
    players: int
    step: int           # the decision's number in its game
    where: str          # file:line of the access
    context: str = ""   # e.g. "rollout heuristic on the real position"

    def message(self, game_id: str) -> str:
        whose = "" if self.block is None else (f" of seat {self.block}" if self.block != self.seat
                                              else " of its own seat")
        why = {"nobody": "hidden from every seat", "owner": "another seat's",
               "working": "working memory not written in this decision",
               "public": "past the pile's count (residue)"}.get(self.visible, self.visible)
        if self.action == "write":
            why = "not the strategy's own memory, stream or working memory"
        if "raw words" in self.context:  # its own stream, touched outside sim/rng.py
            why, self.context = "its own stream, whose words only sim/rng.py may touch", \
                self.context.replace("; its stream's raw words, outside sim/rng.py", "").replace(
                    "its stream's raw words, outside sim/rng.py", "")
        ctx = f" ({self.context})" if self.context else ""
        return (f"{game_id}: strategy '{self.strategy}'{ctx} {self.action}s {self.part}[{self.word}]{whose} "
                f"({why}) at game {self.game} (seed {self.seed}, {self.players} players), decision "
                f"'{self.decision}' of seat {self.seat}, step {self.step}, in {self.where}")


class Context:
    """What one decision of one seat may read and write, and what it did.  ``tally`` (per
    cell, by strategy) counts every violation; ``sink`` keeps the first ``MAX_KEPT``.  Once
    its decision is over the context is closed: a view of the state kept from it (a
    strategy that stashed ``st`` in a global) is refused, whatever it touches."""

    def __init__(self, schema, st: np.ndarray, seat: int, info: dict, sink: list, tally: dict,
                 context: str = ""):
        readable, writable, working = schema.word_access(st, seat)
        self.schema, self.seat, self.info, self.sink, self.tally = schema, seat, info, sink, tally
        self.context = context
        self.ptr = st.__array_interface__["data"][0]
        self.n = len(readable)
        self.readable = bytearray(readable.tobytes())
        self.writable = bytearray(writable.tobytes())
        self.working = bytearray(working.tobytes())
        self.written = bytearray(self.n)
        # the seat's own stream: read and advanced by sim/rng.py alone (a strategy that reads
        # or rewrites its raw words could re-seed it and invert the seeding: the deal)
        o = schema.parts["seat_rng"].offset + 4 * seat
        self.stream = range(o, o + 4)
        self.closed = False
        self.count = 0

    def read(self, w: int) -> None:
        if self.closed:
            return self._violation("read", w, "through a view of the state kept from an earlier decision")
        if w < self.n and (self.readable[w] or (self.working[w] and self.written[w])):
            if w in self.stream and not _from_rng():
                return self._violation("read", w, "its stream's raw words, outside sim/rng.py")
            return
        self._violation("read", w)

    def write(self, w: int) -> None:
        if self.closed:
            return self._violation("write", w, "through a view of the state kept from an earlier decision")
        if w < self.n and self.writable[w]:
            if w in self.stream and not _from_rng():
                return self._violation("write", w, "its stream's raw words, outside sim/rng.py")
            self.written[w] = 1
            return
        self._violation("write", w)

    def read_all(self, words) -> None:
        for w in words:
            self.read(w)

    def _violation(self, action: str, w: int, why: str = "") -> None:
        self.count += 1
        name = self.info["strategy"].split(":")[0].split(" as ")[0]
        self.tally[name] = self.tally.get(name, 0) + 1
        if len(self.sink) >= MAX_KEPT:
            return
        part, block, word, vis = locate(self.schema, w)
        context = "; ".join(x for x in (self.context, why) if x)
        self.sink.append(Violation(action=action, part=part, block=block, word=word, visible=vis,
                                   seat=self.seat, where=_caller(), context=context, **self.info))


def _module(f) -> str:
    return f.f_globals.get("__name__", "")


def _from_rng() -> bool:
    """The access is made by the code of ``sim/rng.py`` (the nearest frame outside this module)."""
    f = sys._getframe(2)
    while f is not None and _module(f) == __name__:
        f = f.f_back
    return f is not None and _module(f) == "cardlab.sim.rng"


def locate(schema, w: int) -> tuple[str, int | None, int, str]:
    """The part, block owner, word within the block and visibility of state word ``w``."""
    for p in schema.parts.values():
        if p.offset <= w < p.offset + p.words:
            if p.owner:
                return p.name, (w - p.offset) // p.size, (w - p.offset) % p.size, p.visible
            return p.name, None, w - p.offset, p.visible
    return "past the state", None, w - schema.size, "nobody"


def _caller(depth: int = 3) -> str:
    """file:line (function) of the code that made the access, and of up to ``depth`` - 1
    of its callers (the first frames outside this module)."""
    f = sys._getframe(2)
    while f is not None and _module(f) == __name__:
        f = f.f_back
    out = []
    while f is not None and len(out) < depth and _module(f) != __name__:
        try:
            name = str(Path(f.f_code.co_filename).resolve().relative_to(ROOT))
        except ValueError:
            name = f.f_code.co_filename
        out.append(f"{name}:{f.f_lineno} ({f.f_code.co_name})")
        f = f.f_back
    return " via ".join(out) or "?"


# ------------------------------------------------------------ the watched state
# ndarray methods that change the array in place: through a watched view they write it
_MUTATORS = frozenset(("fill", "sort", "put", "partition", "itemset", "resize", "byteswap", "setfield",
                       "setflags"))
# numpy functions that read only an array's shape, not its words
_SHAPE_ONLY = frozenset(("empty_like", "zeros_like", "ones_like", "full_like", "shape", "ndim", "size"))
# numpy functions that write their first argument
_WRITERS = frozenset(("copyto", "put", "place", "putmask", "fill_diagonal", "put_along_axis"))


class Watched:
    """A view of a state whose every access is checked by its ``Context``.  Not an ndarray
    (numpy would hand the plain array underneath to ``np.asarray``, ``st.flat``,
    ``np.nditer``...): every way in goes through here.  Indexing by one position checks
    that word; a slice is a watched view; anything that takes the view as an array
    (``np.asarray``, a ufunc, iteration, ``.sum()``, ``.reshape``...) checks every word of it
    and works on a copy; in-place methods and ufuncs with ``out=`` write the state itself and
    are checked as writes."""

    __slots__ = ("_a", "_ctx", "_base", "_step")

    def __init__(self, a: np.ndarray, ctx: Context):
        if a.ndim != 1 or a.itemsize != 8:
            raise TypeError("the honesty audit watches 1-D views of 8-byte words of the state")
        self._a, self._ctx = a, ctx
        self._base = (a.__array_interface__["data"][0] - ctx.ptr) // 8
        self._step = a.strides[0] // 8

    # what an array says about itself (no word of the state)
    shape = property(lambda self: self._a.shape)
    size = property(lambda self: self._a.size)
    ndim = property(lambda self: 1)
    dtype = property(lambda self: self._a.dtype)
    itemsize = property(lambda self: 8)
    nbytes = property(lambda self: self._a.nbytes)
    strides = property(lambda self: self._a.strides)

    def __len__(self):
        return len(self._a)

    def _word(self, i: int) -> int:
        n = len(self._a)
        if not -n <= i < n:
            raise IndexError(f"index {i} is out of bounds for axis 0 with size {n}")
        return self._base + self._step * (i if i >= 0 else n + i)

    def _words(self, idx=None) -> list[int]:
        pos = np.arange(len(self._a))
        if idx is not None:
            pos = pos[idx]
        return [self._base + self._step * int(i) for i in np.ravel(pos)]

    def _read_all(self) -> np.ndarray:
        """Every word read: a copy of them."""
        self._ctx.read_all(self._words())
        return self._a.copy()

    def view(self, dtype=None, type=None):
        if type is not None:
            a = self._read_all()  # a view of another type: on a copy, every word read
            return a.view(dtype, type) if dtype is not None else a.view(type=type)
        return Watched(self._a.view(dtype) if dtype is not None else self._a.view(), self._ctx)

    def __getitem__(self, idx):
        if isinstance(idx, (int, np.integer)):
            self._ctx.read(self._word(int(idx)))
            return self._a[idx]
        if isinstance(idx, slice):
            return Watched(self._a[idx], self._ctx)  # a view: checked when it is read
        if isinstance(idx, Watched):
            idx = idx._read_all()
        self._ctx.read_all(self._words(idx))
        return self._a[idx]

    def __setitem__(self, idx, value):
        if isinstance(value, Watched):
            value = value._read_all()
        if isinstance(idx, Watched):
            idx = idx._read_all()
        if isinstance(idx, (int, np.integer)):
            self._ctx.write(self._word(int(idx)))
        else:
            for w in self._words(idx):
                self._ctx.write(w)
        self._a[idx] = value

    def __array__(self, dtype=None, copy=None):
        a = self._read_all()
        return a if dtype is None else a.astype(dtype)

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        inputs = tuple(x._read_all() if isinstance(x, Watched) else x for x in inputs)
        if out is not None:
            outs = []
            for o in out:
                if isinstance(o, Watched):
                    for w in o._words():
                        o._ctx.write(w)
                    o = o._a
                outs.append(o)
            kwargs["out"] = tuple(outs)
        return getattr(ufunc, method)(*inputs, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        if func.__name__ in _SHAPE_ONLY:
            shapes = (np.empty(x.shape, x.dtype) if isinstance(x, Watched) else x for x in args)
            return func(*shapes, **kwargs)

        def plain(x, write=False):
            if isinstance(x, Watched):
                if write:
                    for w in x._words():
                        x._ctx.read(w)
                        x._ctx.write(w)
                    return x._a
                return x._read_all()
            if isinstance(x, (list, tuple)):
                return type(x)(plain(y) for y in x)
            return x
        first = func.__name__ in _WRITERS
        args = tuple(plain(x, write=first and i == 0) for i, x in enumerate(args))
        return func(*args, **{k: plain(v) for k, v in kwargs.items()})

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name in _MUTATORS:  # in place: every word read and written
            for w in self._words():
                self._ctx.read(w)
                self._ctx.write(w)
            return getattr(self._a, name)
        return getattr(self._read_all(), name)  # anything else works on a copy, every word read

    def __iter__(self):
        return iter(self._read_all())

    def __bool__(self):
        return bool(self._read_all())

    def __repr__(self):
        return f"Watched({self._read_all()!r})"

    def __reduce__(self):
        raise TypeError("a watched state cannot be pickled")


def _binary(name):
    uf = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "floordiv": np.floor_divide,
          "truediv": np.true_divide, "mod": np.remainder, "pow": np.power, "and": np.bitwise_and,
          "or": np.bitwise_or, "xor": np.bitwise_xor, "lshift": np.left_shift, "rshift": np.right_shift,
          "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
          "ge": np.greater_equal}[name]
    setattr(Watched, f"__{name}__", lambda self, other: uf(self, other))
    if name not in ("eq", "ne", "lt", "le", "gt", "ge"):
        setattr(Watched, f"__r{name}__", lambda self, other: uf(other, self))
        setattr(Watched, f"__i{name}__", lambda self, other: (uf(self, other, out=(self,)), self)[1])


for _name in ("add", "sub", "mul", "floordiv", "truediv", "mod", "pow", "and", "or", "xor", "lshift",
              "rshift", "eq", "ne", "lt", "le", "gt", "ge"):
    _binary(_name)
Watched.__neg__ = lambda self: np.negative(self)
Watched.__invert__ = lambda self: np.invert(self)
Watched.__abs__ = lambda self: np.absolute(self)
Watched.__hash__ = None


def watched(st: np.ndarray, ctx: Context) -> Watched:
    return Watched(st, ctx)


def raw(st):
    """The plain array under a watched one (what the trusted code reads unchecked)."""
    return st._a if isinstance(st, Watched) else st


# ------------------------------------------------------------ the trusted code, exempt as designed
class Trusted:
    """The exemptions, installed where plain Python looks them up at each call (module
    globals of ``sim/rng.py``, ``sim/search.py`` and the game's binding: the audit's own
    process only)."""

    def __init__(self, game, dispatch=None):
        """``dispatch`` replaces the game's strategy dispatch (as a seat's strategy and as the
        search's rollout heuristic): a cheat under test."""
        from cardlab.sim import learned, rng, search

        self.game = game
        self.binding = b = game.binding()
        self.exact: dict[int, Context] = {}   # id of a world that is the real position, unre-dealt
        # the players that copy and re-deal the real position: the search and the learned player
        # (and the rating of actions by the evaluation that both call)
        self.decide_codes = (search.decide.__code__, learned.decide.__code__, search.rate_actions.__code__)
        if not hasattr(b, "_audit_orig"):  # the functions as they were, before any exemption
            b._audit_orig = {"seed_seat": rng.seed_seat, "copy_position": search.copy_position,
                             "determinize": search.determinize, "choose": b.choose,
                             "legal": getattr(b, "legal", None)}
        self.orig = dict(b._audit_orig)
        if dispatch is not None:
            self.orig["choose"] = dispatch
        rng.seed_seat = self.seed_seat
        for mod in (search, learned):
            mod.copy_position = self.copy_position
            mod.determinize = self.determinize
        b.choose = self.rollout_choose  # the search's rollout heuristic, audited on the real position
        if self.orig["legal"] is not None:
            b.legal = self.rollout_legal

    def seed_seat(self, st, me):
        """Seeding the seat's own stream reads the seed words: exempt for its own seat."""
        if isinstance(st, Watched) and st._ctx is not None and me == st._ctx.seat:
            return self.orig["seed_seat"](raw(st), me)
        return self.orig["seed_seat"](st, me)

    def copy_position(self, src, dst, E, used):
        if isinstance(src, Watched) and src._ctx is not None and sys._getframe(1).f_code in self.decide_codes:
            self.orig["copy_position"](raw(src), dst, E, used)
            self.exact[id(dst)] = src._ctx  # the real position until re-dealt
            return
        parent = self.exact.get(id(src))  # a copy of the real position is one too; of a world, not
        if parent is not None:
            self.exact[id(dst)] = parent
        else:
            self.exact.pop(id(dst), None)
        self.orig["copy_position"](src, dst, E, used)

    def determinize(self, src, dst, seat, *rest):
        if isinstance(src, Watched) and src._ctx is not None and seat == src._ctx.seat \
                and sys._getframe(1).f_code in self.decide_codes:
            self.exact.pop(id(dst), None)
            return self.orig["determinize"](raw(src), dst, seat, *rest)
        return self.orig["determinize"](src, dst, seat, *rest)

    def _on_real(self, world, seat, fn, *args):
        """Run ``fn`` on a world that is still the real position as a decision of ``seat``."""
        parent = self.exact.get(id(world))
        if parent is None or isinstance(world, Watched):
            return fn(*args)
        ctx = Context(self.game.schema, world, seat, parent.info, parent.sink, parent.tally,
                      "its rollout heuristic on the real position")
        ctx.written = parent.written  # what the search wrote in this decision (none of the real)
        try:
            return fn(*[watched(a, ctx) if a is world else a for a in args])
        finally:
            ctx.closed = True

    def rollout_choose(self, sid, world, who, p):
        return self._on_real(world, who, self.orig["choose"], sid, world, who, p)

    def rollout_legal(self, world):
        return self._on_real(world, int(world[self.game.layout.S_ACTOR]), self.orig["legal"], world)


# ------------------------------------------------------------ line coverage
class Lines:
    """Which lines of the given source files ran (``sys.settrace`` on their frames only)."""

    def __init__(self, files: list[str]):
        self.files = set(files)  # as the modules were imported (their code's file names)
        self.ran: dict[str, set[int]] = {f: set() for f in self.files}

    def _global(self, frame, event, arg):
        if frame.f_code.co_filename in self.files:
            return self._local
        return None

    def _local(self, frame, event, arg):
        if event == "line":
            self.ran[frame.f_code.co_filename].add(frame.f_lineno)
        return self._local

    def __enter__(self):
        sys.settrace(self._global)
        return self

    def __exit__(self, *exc):
        sys.settrace(None)

    @staticmethod
    def executable(path: str) -> set[int]:
        """The lines of the functions of a module (not its top level: declarations)."""
        code = compile(Path(path).read_text(), path, "exec")
        out: set[int] = set()
        stack = [c for c in code.co_consts if hasattr(c, "co_lines")]
        while stack:
            c = stack.pop()
            out |= {ln for _, _, ln in c.co_lines() if ln is not None and ln > c.co_firstlineno}
            stack += [k for k in c.co_consts if hasattr(k, "co_lines")]
        return out

    def report(self) -> dict[str, dict]:
        out = {}
        for f in sorted(self.files):
            can = self.executable(f)
            ran = self.ran[f] & can
            try:
                name = str(Path(f).resolve().relative_to(ROOT))
            except ValueError:
                name = f
            out[name] = {"lines": len(can), "ran": len(ran),
                         "share": round(len(ran) / len(can), 4) if can else 1.0,
                         "missed": sorted(can - ran)}
        return out


# ------------------------------------------------------------ one cell
def _require_python():
    from numba import config

    if not config.DISABLE_JIT:
        raise RuntimeError("the honesty audit runs the strategies as plain Python: set NUMBA_DISABLE_JIT=1 "
                           "before numba is imported (python -m cardlab.sim.audit does)")


def audit(game_id: str, pool: str, players: int | None = None, rules: list[str] | None = None,
          decisions: int = 500, seed: int = 17, choose=None, trusted: Trusted | None = None,
          stop_at_first: bool = False) -> dict:
    """Audit ``decisions`` decisions of seeded games of ``pool`` (a strategies spec, one per
    seat or one for all): every seat's every decision.  ``choose`` replaces the game's
    strategy dispatch ``(sid, st, me, p) -> action`` as every heuristic seat's strategy and
    as the search's rollout heuristic (a cheat under test).  A learned seat plays
    ``audit_model`` (its honesty does not depend on its weights).  Returns the cell's figures
    and violations."""
    from cardlab.sim import runner
    from cardlab.sim.positions import new_game
    from cardlab.sim.registry import get_game
    from cardlab.sim.schema import DONE

    _require_python()
    game = get_game(game_id)
    trusted = trusted or Trusted(game, choose)
    M, L, S = game.model(), game.layout, game.schema
    setup = runner.make_setup(game_id, players, rules, pool, seed, audit_model(game))
    ask = chooser_with(game, trusted, setup.models)
    _, sids, params = setup.arrays()
    params = [tuple(float(x) for x in row) for row in params]
    names = [s.label for s in setup.seats]
    if choose is not None:  # the dispatch under test answers for the heuristics (and rollouts)
        names = [f"{n} as {getattr(choose, '__name__', 'choose')}" for n in names]
    sink: list = []
    seen, g = 0, 0
    by: dict[str, int] = {}  # decisions audited per strategy (its name, parameters aside)
    bad: dict[str, int] = {}  # ... and its violations (Context.tally)
    cap = 50 * game.max_length(setup.rules, setup.players) + 1000
    t0 = time.perf_counter()
    while seen < decisions and g < 10 * decisions + 10:
        st = new_game(game, setup, g)
        for k in range(cap):
            if st[L.S_PHASE] == DONE or seen >= decisions:
                break
            me = int(st[L.S_ACTOR])
            info = dict(strategy=names[me], decision=S.decisions[int(st[L.S_PHASE]) - 1][0], game=g,
                        seed=seed, players=setup.players, step=k)
            ctx = Context(S, st, me, info, sink, bad)
            try:
                act = ask(int(sids[me]), watched(st, ctx), me, params[me])
            finally:
                ctx.closed = True  # a view kept past its decision is refused
                trusted.exact.clear()
            seen += 1
            base = names[me].split(":")[0].split(" as ")[0]
            by[base] = by.get(base, 0) + 1
            if stop_at_first and bad:
                break
            M.step(st, tuple(int(x) for x in act))
        if stop_at_first and bad:
            break
        g += 1
    return {"game": game_id, "pool": pool, "players": setup.players, "rules": rules or [], "seed": seed,
            "decisions": seen, "by_strategy": by, "violations_by_strategy": bad, "games": g,
            "seconds": round(time.perf_counter() - t0, 2), "violations": sum(bad.values()),
            "kept": [asdict(v) for v in sink]}


def chooser_with(game, trusted: Trusted, models=None):
    """The engine's answer: the game's strategy dispatch as it was before the exemptions
    (or the cheat under test), or ``engine_decide`` for ``mcts`` and ``learned``
    (``models``: the learned seats' model array)."""
    from cardlab.sim.positions import empty_model

    b = trusted.binding
    dispatch, decide, first = trusted.orig["choose"], b.engine_decide, b.ID.mcts
    W = models if models is not None else empty_model(game)

    def ask(sid, st, me, p):
        return decide(st, me, sid, p, W) if sid >= first else dispatch(sid, st, me, p)

    return ask


# ------------------------------------------------------------ re-deals leave nothing behind
def _card_words(S, st: np.ndarray) -> np.ndarray:
    """The words of the zones but the unused tails of piles: the cards (and numbers that
    belong to them) a re-deal re-deals rather than clears."""
    from cardlab.sim.schema import PILE

    out = np.zeros(S.size, dtype=bool)
    for p in S.parts.values():
        if p.section != "zones":
            continue
        for owner in (range(p._maxp) if p.owner else (None,)):
            blk = p.block(owner)
            n = p.size
            if p.encoding == PILE:
                cp = S.parts[p.count]
                n = int(st[cp.offset + (owner if cp.owner else 0)])
            out[blk.start:blk.start + n] = True
    return out


def twin(game, st: np.ndarray, seat: int, rng: np.random.Generator) -> np.ndarray:
    """A position ``seat`` cannot tell from ``st``: the hidden cards re-dealt, and every
    other word it may not read (the rules' hidden books, the other seats' memory, pile
    tails, the generators but its own stream) overwritten with random numbers."""
    from cardlab.sim.observe import determinize as py_determinize

    S = game.schema
    readable, _, working = S.word_access(st, seat)
    out = py_determinize(game, st, seat, rng)
    garble = ~readable & ~working & ~_card_words(S, out)
    out[garble] = rng.integers(-2 ** 40, 2 ** 40, size=int(garble.sum()))
    return out


def positions_of(game_id: str, positions: int, seed: int):
    """(index, players, position) for up to ``positions`` games, each stopped at a uniformly
    random decision of its own (the games cycle through the fewest, default and most
    players and mixed pools of the heuristics)."""
    from cardlab.sim import runner
    from cardlab.sim.positions import chooser, new_game
    from cardlab.sim.registry import get_game
    from cardlab.sim.schema import DONE

    game = get_game(game_id)
    L, M = game.layout, game.model()
    rng = np.random.default_rng(seed)
    ask = chooser(game)
    counts = sorted({game.min_players, game.default_players, game.max_players})
    names = list(game.strategies)
    for k in range(positions):
        players = counts[k % len(counts)]
        pool = ",".join(names[(k + i) % len(names)] for i in range(players))
        setup = runner.make_setup(game_id, players, None, pool, seed + k)
        _, sids, params = setup.arrays()

        def play(st, steps):
            for n in range(steps):
                if st[L.S_PHASE] == DONE:
                    return n
                me = int(st[L.S_ACTOR])
                M.step(st, ask(int(sids[me]), st, me, tuple(float(x) for x in params[me])))
            return steps

        length = play(new_game(game, setup, k), 100_000)  # the game's decisions, then a point in it
        st = new_game(game, setup, k)
        play(st, int(rng.integers(0, max(1, length))))
        if st[L.S_PHASE] != DONE:
            yield k, players, st


def check_features(game_id: str, positions: int = 12, seed: int = 6) -> dict:
    """The observation vector (``sim/features.py``) run as plain Python over the watched
    state for every seat of random positions: every word it reads must be one that seat may
    see.  Returns positions, vectors made and the violations (as ``audit`` keeps them)."""
    from cardlab.sim.registry import get_game

    _require_python()
    game = get_game(game_id)
    S, b = game.schema, game.binding()
    sink: list = []
    bad: dict[str, int] = {}
    made, seen = 0, 0
    for k, players, st in positions_of(game_id, positions, seed):
        seen += 1
        for seat in range(players):
            info = dict(strategy="features", decision="(observation)", game=k, seed=seed, players=players,
                        step=-1)
            ctx = Context(S, st, seat, info, sink, bad, context="the observation vector")
            try:
                b.features(watched(st, ctx), seat, np.zeros(b.N_FEATURES))
            finally:
                ctx.closed = True
            made += 1
    return {"positions": seen, "vectors": made, "violations": sum(bad.values()),
            "kept": [asdict(v) for v in sink]}


def check_redeal(game_id: str, positions: int = 30, seed: int = 5) -> dict:
    """Both re-deals (the search's ``sim/redeal.determinize`` and the honesty kit's
    ``sim/observe.determinize``) of a position and of a twin of it (``twin``) give the
    same world, word for word (working memory aside: nothing reads it unwritten), from the
    same random numbers: a re-deal depends only on what the seat may see and which cards
    it cannot, and leaves nothing hidden behind.  Returns the positions checked and the
    parts that differed."""
    from cardlab.sim import redeal
    from cardlab.sim.observe import determinize as py_determinize
    from cardlab.sim.registry import get_game
    from cardlab.sim.rng import seed_seat
    from cardlab.sim.schema import WORKING
    from cardlab.sim.search import copy_position

    _require_python()
    game = get_game(game_id)
    S, L, M, b = game.schema, game.layout, game.model(), game.binding()
    tc = getattr(b, "table_cards", redeal.no_table_cards)
    tp = getattr(b, "table_put", redeal.no_table_put)
    hs = getattr(b, "honour_shown", redeal.no_honour_shown)
    keep = np.ones(S.size, dtype=bool)
    for p in S.parts.values():
        if p.visible == WORKING:
            keep[p.offset:p.offset + p.words] = False
    rng = np.random.default_rng(seed)
    differ: dict[str, int] = {}
    impossible: list[str] = []
    checked = 0
    for k, players, st in positions_of(game_id, positions, seed):
        for seat in sorted({int(st[L.S_ACTOR]), (int(st[L.S_ACTOR]) + 1) % players}):
            base = st.copy()
            seed_seat(base, seat)
            other = twin(game, base, seat, rng)
            worlds = []
            for src in (base, other):
                src = src.copy()
                dst = np.zeros(S.size, dtype=np.int64)
                copy_position(src, dst, L.ENGINE, 0)
                redeal.determinize(src, dst, seat, players, L.REDEAL, L.CLEAR,
                                   np.empty(S.size, dtype=np.int64),
                                   np.empty(L.REDEAL.shape[0] * 8 + 1, dtype=np.int64), tc, tp, hs)
                worlds.append(("search", dst))
                worlds.append(("kit", py_determinize(game, src, seat, np.random.default_rng(seed + 7 * k))))
            for (kind, a), (_, c) in ((worlds[0], worlds[2]), (worlds[1], worlds[3])):
                for w in np.flatnonzero((a != c) & keep):
                    part, block, word, _ = locate(S, int(w))
                    key = f"{kind}: {part}" + ("" if block is None else f" of seat {block}")
                    differ[key] = differ.get(key, 0) + 1
            fault = search_world_fault(game, base, worlds[0][1], seat)
            if fault is not None:
                impossible.append(f"game {k} of seed {seed} ({players} players): {fault}")
            checked += 1
    return {"positions": checked, "differ": differ, "impossible": impossible,
            "unsafe": check_clear_is_safe(game_id, positions, seed)}


def search_world_fault(game, real: np.ndarray, world: np.ndarray, seat: int) -> str | None:
    """What is wrong with ``world``, the search's re-deal of ``real`` for ``seat``
    (``sim/redeal.determinize``, with the game's ``table_cards``, ``table_put`` and
    ``honour_shown``), or None.  It must be a world a re-deal could deal: against the
    real position with what a re-deal clears cleared (``observe.clear_hidden``), every
    word the seat sees is as it was, every hidden zone holds as many cards and the hidden
    cards are the same ones (``observe.world_fault``).  And when ``seat`` is the one to
    decide, the world offers it exactly the real position's legal actions: what a seat may
    do follows from what it sees, else the search would try in its worlds actions the real
    position refuses (or never try one it allows)."""
    from cardlab.sim import observe
    from cardlab.sim.positions import legal_actions

    S, L = game.schema, game.layout
    players = observe.players_of(game, real)
    seen = real.copy()
    observe.clear_hidden(game, seen, seat)
    fault = observe.world_fault(game, seen, world, seat, S.hidden_from(seat, players))
    hooks = [h for h in ("table_cards", "table_put", "honour_shown") if getattr(game.model().RULES, h) is not None]
    by = (f"{game.id}: the search's re-deal for seat {seat} (sim/redeal.py"
          + (f", with the game's {', '.join(hooks)}" if hooks else "") + ")")
    if fault is not None:
        kind, what = fault
        return by + {"seen": f" changed {what}, which the seat sees",
                     "count": f" made a world no re-deal could deal: {what}",
                     "cards": f" changed the hidden cards ({what})"}[kind]
    if seat != int(real[L.S_ACTOR]):
        return None
    here, there = Counter(legal_actions(game, real.copy())), Counter(legal_actions(game, world.copy()))
    if here == there:
        return None
    only_real, only_world = sorted((here - there).elements()), sorted((there - here).elements())
    return (by + f" made a world whose legal actions for the seat differ from the real position's "
            f"({sum(here.values())} there, {sum(there.values())} here"
            + (f"; only in the real position: {only_real[:4]}" if only_real else "")
            + (f"; only in the world: {only_world[:4]}" if only_world else "")
            + "): what a seat may do must follow from what it sees (or its visibility hides what the rules "
            "show it)")


def check_clear_is_safe(game_id: str, positions: int = 30, seed: int = 5, steps: int = 400) -> dict:
    """What a re-deal clears must not matter to the rules: a position, and the same
    position with everything the re-deal clears cleared (``observe.clear_hidden``, then the
    game's ``after_redeal``) and nothing re-dealt, played on with the same uniformly random
    legal actions (and the same chance stream), list the same legal actions at every step
    and end with the same result.  A hidden book the rules still read is declared
    ``derived`` (and re-made) or public.  Returns the positions checked and where they
    parted (part names are not known here: the first step and what differed)."""
    from cardlab.sim.observe import clear_hidden
    from cardlab.sim.positions import legal_actions
    from cardlab.sim.registry import get_game
    from cardlab.sim.schema import DONE

    game = get_game(game_id)
    L, M = game.layout, game.model()
    rng = np.random.default_rng(seed + 1)
    parted: list[str] = []
    checked = 0
    for k, players, st in positions_of(game_id, positions, seed + 1):
        seat = int(st[L.S_ACTOR])
        a, b = st.copy(), st.copy()
        clear_hidden(game, b, seat)
        hook = getattr(game, "after_redeal", None)
        if hook is not None:
            hook(b)
        for step in range(steps):
            if a[L.S_PHASE] == DONE or b[L.S_PHASE] == DONE:
                break
            la, lb = legal_actions(game, a), legal_actions(game, b)
            if la != lb or a[L.S_ACTOR] != b[L.S_ACTOR]:
                parted.append(f"game {k} ({players} players), {step} steps after clearing for seat "
                              f"{seat}: legal actions {la[:4]} vs {lb[:4]}")
                break
            act = la[int(rng.integers(len(la)))]
            M.step(a, act)
            M.step(b, act)
        else:
            checked += 1
            continue
        done_a, done_b = a[L.S_PHASE] == DONE, b[L.S_PHASE] == DONE
        if done_a != done_b and (a if done_a else b)[L.S_UNFINISHED]:
            checked += 1  # a jump to the cap on a stuck table (Skyscraper's shortcut to the end
            continue      # the game would reach) that the other takes the long way to
        if done_a != done_b or a[L.S_MASK] != b[L.S_MASK]:
            if not parted or not parted[-1].startswith(f"game {k} "):
                parted.append(f"game {k} ({players} players), cleared for seat {seat}: a different end")
        checked += 1
    return {"positions": checked, "parted": parted[:10]}


# ------------------------------------------------------------ a game's plan
SEARCH_AUDIT = "mcts:iterations=4"   # the search player: a small budget, every rollout heuristic
# the search player with its play-outs cut and scored by the learned evaluation (every seat's
# view of the sampled world), and (value=2) the answer it must beat rated by it too
VALUE_SEARCH_AUDIT = "mcts:iterations=4:value=2:depth=2"
# the learned player: two worlds, and few candidates so that wide decisions take the guide's path
LEARNED_AUDIT = "learned:samples=2:width=3"


def audit_model(game) -> np.ndarray:
    """The model array a learned seat plays in the audit: two generations of seeded random
    weights, a linear one and one with a hidden layer, so every path of ``sim/evaluate.value``
    runs (what a seat reads does not depend on the weights)."""
    from cardlab.sim import models

    n = len(game.feature_names())
    rng = np.random.default_rng(38)
    m = models.new(game, game.default_players)
    m.add(0, rng.normal(0, 0.1, n + 1))
    m.add(3, rng.normal(0, 0.1, 3 * n + 2 * 3 + 1))
    return m.array()


def audit_plan(game_id: str, decisions: int = 400, search_decisions: int = 12) -> list[dict]:
    """The settings (cells) of a game's audit:

    - every heuristic at the fewest, the default and the most players (``decisions`` each),
      and at every other player count (half as many);
    - each parameter at its two bounds (the bound's player count alternating between the
      fewest and the most, under the rule its help names as ``with KNOB=VALUE``);
    - the search player (``SEARCH_AUDIT``) with every rollout heuristic and ``random``;
    - the learned player (``LEARNED_AUDIT``, on ``audit_model``) at the fewest, the default
      and the most players, each generation of the model;
    - the search player with cut play-outs scored by the model (``VALUE_SEARCH_AUDIT``) at
      the most players;
    - each rule variant the report plays, and every other value of each yes/no or choice
      knob, in a mixed pool of the heuristics (the search is slow in plain Python: its own
      cells cover it);
    - mixed pools at the most players that seat every strategy and the search player.

    A setting this plan does not name (a parameter's inner value, a number knob's value) is
    reached only by the line coverage the audit reports: a line that never ran is not proved."""
    from cardlab.sim import runner
    from cardlab.sim.errors import InputError
    from cardlab.sim.knobs import fmt_number
    from cardlab.sim.registry import get_game
    from cardlab.sim.strategy_spec import needed_rules

    game = get_game(game_id)
    edges = {game.min_players, game.default_players, game.max_players}
    cells = []
    for name, s in game.strategies.items():
        for p in range(game.min_players, game.max_players + 1):
            cells.append(dict(pool=name, players=p, decisions=decisions if p in edges else decisions // 2))
        for i, prm in enumerate(s.params):
            sets, need = needed_rules(prm.help)
            for j, v in enumerate((prm.lo, prm.hi)):
                players = need or (game.min_players, game.max_players)[(i + j) % 2]
                cells.append(dict(pool=f"{name}:{prm.name}={fmt_number(v)}", players=players, rules=sets,
                                  decisions=decisions // 2))
    search = game.all_strategies["mcts"]
    rollout = next(p for p in search.params if p.name == "rollout")
    counts = sorted(edges)
    for i, (rname, _) in enumerate(rollout.names):
        cells.append(dict(pool=f"{SEARCH_AUDIT}:rollout={rname}", players=counts[i % len(counts)],
                          decisions=search_decisions))
    for i, p in enumerate(counts):
        cells.append(dict(pool=f"{LEARNED_AUDIT}:gen={1 + i % 2}", players=p, decisions=search_decisions))
    cells.append(dict(pool=VALUE_SEARCH_AUDIT, players=game.max_players, decisions=search_decisions))
    variants = list(game.report_variants)  # the report's, then every other value of a yes/no or choice knob
    for k in game.knobs:
        for v in ((True, False) if k.kind == "bool" else k.choices if k.kind == "choice" else ()):
            if v != k.default:
                pair = (k.name, str(v).lower() if isinstance(v, bool) else str(v))
                if pair not in variants:
                    variants.append(pair)

    def valid(rule: str) -> bool:
        try:
            runner.make_setup(game_id, game.default_players, [rule], None, 1)
        except InputError:  # a value these players cannot use (a deck too small to deal)
            return False
        return True

    heuristics = list(game.strategies)
    for j, (knob, value) in enumerate(v for v in variants if valid(f"{v[0]}={v[1]}")):
        pool = ",".join(heuristics[(i + j) % len(heuristics)] for i in range(game.default_players))
        cells.append(dict(pool=pool, players=game.default_players, rules=[f"{knob}={value}"],
                          decisions=decisions // 2))
    names = heuristics + [SEARCH_AUDIT, LEARNED_AUDIT]
    P = game.max_players
    for first in range(0, len(names), P):  # as many mixed pools as seat every strategy once
        pool = ",".join(names[(first + i) % len(names)] for i in range(P))
        cells.append(dict(pool=pool, players=P, decisions=decisions))
    return cells


def audit_game(game_id: str, decisions: int = 400, search_decisions: int = 12, seed: int = 17,
               progress=None, choose=None, redeal: bool = True) -> dict:
    """Every cell of ``audit_plan`` with line coverage of the game's strategy module and of
    the search player's (``choose``: a dispatch replacing the game's, as in ``audit``), and
    the exact re-deal check (``check_redeal``)."""
    from cardlab.sim.registry import get_game

    _require_python()
    game = get_game(game_id)
    trusted = Trusted(game, choose)
    files = [sys.modules[game.strategy_module].__file__, sys.modules["cardlab.sim.search"].__file__,
             sys.modules["cardlab.sim.learned"].__file__]
    cells = []
    plan = audit_plan(game_id, decisions, search_decisions)
    with Lines(files) as lines:
        for i, c in enumerate(plan):
            cells.append(audit(game_id, c["pool"], c["players"], c.get("rules"), c["decisions"], seed + i,
                               trusted=trusted))
            if progress:
                progress(i + 1, len(plan), cells[-1])
    return {"game": game_id, "cells": cells, "decisions": sum(c["decisions"] for c in cells),
            "violations": sum(c["violations"] for c in cells), "coverage": lines.report(),
            "redeal": check_redeal(game_id, seed=seed) if redeal else None,
            "features": check_features(game_id, seed=seed),
            "shown": [{"part": p.name, "help": p.help} for p in game.schema.shown_parts()],
            "honoured": game.model().RULES.honour_shown is not None}


# ------------------------------------------------------------ from a compiled process
def run_audit(game_id: str, decisions: int = 400, search_decisions: int = 12, seed: int = 17,
              extra: list[str] | None = None, progress=None, timeout: float = 3600) -> dict:
    """``python -m cardlab.sim.audit GAME`` in a process of its own (the strategies as plain
    Python), never recorded in the run history; ``progress(i, n)`` after each cell."""
    import re
    import subprocess

    import tempfile

    env = dict(os.environ, NUMBA_DISABLE_JIT="1", CARDLAB_HISTORY="off")
    with tempfile.TemporaryDirectory(prefix="cardlab-audit-") as tmp:
        out = Path(tmp) / "audit.json"
        cmd = [sys.executable, "-m", "cardlab.sim.audit", game_id, "--decisions", str(decisions),
               "--search-decisions", str(search_decisions), "--seed", str(seed), "--progress",
               "--out", str(out), *(extra or [])]
        p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        err = []
        for line in p.stderr:  # a line per cell (the JSON goes to a file: no pipe to fill)
            m = re.match(r"audit \S+ (\d+)/(\d+):", line)
            if m and progress:
                progress(int(m.group(1)), int(m.group(2)))
            elif not m:
                err.append(line)
        if p.wait(timeout) != 0:
            raise RuntimeError(f"the audit of {game_id} failed (exit {p.returncode}): {''.join(err[-20:])}")
        return json.loads(out.read_text())


def violations(result: dict) -> list[str]:
    """Every kept violation of an ``audit_game`` result as a message."""
    kept = [v for c in result["cells"] for v in c["kept"]] + (result.get("features") or {}).get("kept", [])
    return [Violation(**v).message(result["game"]) for v in kept]


def summary(result: dict) -> str:
    """A game's audit as text: per strategy the decisions audited and its violations, the
    line coverage of the strategy modules, the re-deal check and the first violations."""
    per: dict[str, list[int]] = {}
    for c in result["cells"]:
        for name, n in c["by_strategy"].items():
            per.setdefault(name, [0, 0])[0] += n
        for name, n in c["violations_by_strategy"].items():
            per.setdefault(name, [0, 0])[1] += n
    found = f"{result['violations']:,} violations" if result["violations"] else "no violation"
    lines = [f"honesty audit of {result['game']}: {result['decisions']:,} decisions in "
             f"{len(result['cells'])} settings, {found}"]
    lines += [f"  {name:<12} {n:>8,} decisions  " + (f"{bad:,} violations" if bad else "no violation")
              for name, (n, bad) in sorted(per.items())]
    for f, c in result["coverage"].items():
        missed = ", ".join(map(str, c["missed"][:12])) + (" ..." if len(c["missed"]) > 12 else "")
        lines.append(f"  lines run under the audit: {f} {c['ran']}/{c['lines']} ({100 * c['share']:.0f}%)"
                     + (f"; not run: {missed}" if c["missed"] else ""))
    r = result.get("redeal")
    if r is not None:
        lines.append(f"  re-deals: {r['positions']} positions, " + (
            "both leave nothing hidden behind" if not r["differ"] else
            "DIFFER in " + ", ".join(f"{k} ({n})" for k, n in r["differ"].items())))
        bad = r.get("impossible") or []
        lines.append("  the search's worlds of them: " + (
            "each one a re-deal could deal, offering the deciding seat its real legal actions" if not bad else
            f"{len(bad)} IMPOSSIBLE; the first: {bad[0]}"))
        u = r["unsafe"]
        lines.append(f"  what they clear: {u['positions']} positions, " + (
            "never matters to the rules" if not u["parted"] else "MATTERS: " + "; ".join(u["parted"][:3])))
    f = result.get("features")
    if f is not None:
        lines.append(f"  the observation vector: {f['vectors']} vectors of {f['positions']} positions, "
                     + (f"{f['violations']} VIOLATIONS" if f["violations"] else "no read of a word its seat may not see"))
    shown = [p["part"] for p in result.get("shown") or []]
    if shown:  # Schema.shown_parts: a leak written there by the rules would pass every check above
        kept = ("the search's worlds honour it (honour_shown)" if result.get("honoured") else
                "no honour_shown, so a search world may contradict it where it names cards hidden from the seat")
        lines.append(f"  what the rules show one seat alone: {', '.join(shown)}; taken as seen by that seat, so "
                     f"whether the rules show only what the rulebook does is for the rule tests; {kept}")
    msgs = violations(result)
    lines += [f"  {m}" for m in msgs[:5]]
    if len(msgs) > 5:
        lines.append(f"  ... and {len(msgs) - 5} more kept (--json lists them)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m cardlab.sim.audit", description=__doc__.split("\n")[0])
    ap.add_argument("game")
    ap.add_argument("--pool", help="audit one pool (a strategies spec) instead of the game's plan")
    ap.add_argument("--players", type=int)
    ap.add_argument("--rule", action="append", default=[])
    ap.add_argument("--decisions", type=int, default=400)
    ap.add_argument("--search-decisions", type=int, default=12)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--choose", help="module:function replacing the strategy dispatch (a cheat under test)")
    ap.add_argument("--progress", action="store_true", help="a line per cell on stderr")
    ap.add_argument("--no-redeal", action="store_true", help="skip the exact re-deal check")
    ap.add_argument("--out", help="write the JSON to this file (default: stdout)")
    a = ap.parse_args(argv)
    choose = None
    if a.choose:
        import importlib

        mod, fn = a.choose.split(":")
        choose = getattr(importlib.import_module(mod), fn)
    if a.pool:
        out = audit(a.game, a.pool, a.players, a.rule, a.decisions, a.seed, choose=choose)
    else:
        def show(i, n, cell):
            print(f"audit {a.game} {i}/{n}: {cell['pool']} ({cell['players']} players) "
                  f"{cell['decisions']} decisions, {cell['violations']} violations, {cell['seconds']} s",
                  file=sys.stderr, flush=True)
        out = audit_game(a.game, a.decisions, a.search_decisions, a.seed, show if a.progress else None,
                         choose=choose, redeal=not a.no_redeal)
    if a.out:
        Path(a.out).write_text(json.dumps(out))
    else:
        json.dump(out, sys.stdout)
        print()
    return 0


if __name__ == "__main__":
    import warnings

    warnings.filterwarnings("ignore", message="overflow encountered", category=RuntimeWarning)
    if os.environ.get("NUMBA_DISABLE_JIT") != "1":
        os.environ["NUMBA_DISABLE_JIT"] = "1"
        os.execv(sys.executable, [sys.executable, "-m", "cardlab.sim.audit", *sys.argv[1:]])
    sys.exit(main())
