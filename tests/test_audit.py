"""The honesty audit proves itself (issue 36): a battery of cheats (``tests/cheats.py``) of
every kind the issue names, in Crazy Eights, 3UP 3DOWN and Skyscraper, each caught with a
message that says what was read or written; honest strategies pass; every shipped strategy
of Crazy Eights and Skyscraper passes the whole plan.  What the audit does NOT catch today
is a test marked ``xfail(strict=True)`` with the reason: when the audit learns to catch it,
its test passes and strict xfail fails the run until the mark goes.

Every audit runs in a process of its own (``NUMBA_DISABLE_JIT=1``: the audit runs the
strategies as plain Python).  To keep the time small the processes are shared: one per game
runs all of that game's single-cell audits (``sim/audit.audit``, a cheat as ``choose``),
one per plan (``python -m cardlab.sim.audit GAME [--choose cheats:NAME]``), and the ones the
selected tests need start together, two at a time, on first use.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
SEED = 17
CELL = 300           # decisions of a single-cell audit (every cheat acts in most of them)
MCTS = 12            # decisions of a search cell (each runs the rollout heuristic on the real position)
RARE_CAP = 40_000    # kind 6: decisions a rare peek (1 in 10,000) must be caught within
PLAN = ["--decisions", "40", "--search-decisions", "4", "--no-redeal"]  # a cheat's plan: every cell, few decisions
MOST = {"crazy_eights": 7, "three_up": 6, "skyscraper": 4}
SHORT = {"crazy_eights": "ce", "three_up": "tu", "skyscraper": "sk"}


# ------------------------------------------------------------ the processes

def _env() -> dict:
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", CARDLAB_HISTORY="off")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(TESTS), env.get("PYTHONPATH", "")) if p)
    return env


def _python(args: list[str], timeout: int = 600) -> dict:
    p = subprocess.run([sys.executable, "-W", "ignore::RuntimeWarning", *args], capture_output=True,
                       text=True, env=_env(), cwd=tempfile.gettempdir(), timeout=timeout)
    assert p.returncode == 0, f"{' '.join(args[:3])}... failed:\n{p.stderr[-4000:]}"
    return json.loads(p.stdout.strip().splitlines()[-1])


# one process audits many single cells: each job (name, game, pool, players, rules, decisions,
# stop_at_first) with cheats.<the name before '@'> as the strategy dispatch
DRIVER = """
import json, sys, time
from cardlab.sim.audit import Violation, audit
import cheats
out = {}
for name, game, pool, players, rules, decisions, stop in json.loads(sys.argv[1]):
    t0 = time.perf_counter()
    try:
        r = audit(game, pool, players, rules, decisions, %d, choose=getattr(cheats, name.split("@")[0]),
                  stop_at_first=stop)
        r["messages"] = [Violation(**k).message(game) for k in r["kept"]]
    except Exception as e:  # an audit that cannot run the strategy: reported, the test fails
        r = {"error": f"{type(e).__name__}: {e}"}
    r["wall"] = round(time.perf_counter() - t0, 2)
    out[name] = r
print(json.dumps(out))
""" % SEED


def _cells(game: str) -> list:
    """Every single-cell audit of a game's cheats (one process)."""
    g = SHORT[game]
    jobs = []
    for name in CAUGHT[game] + [f"{g}_honest_public", f"{g}_seed_replay"] + GAPS.get(game, []):
        jobs.append((name, game, "reference", None, None, CELL, False))
    # kind 5 at the default settings: the seat's own strategy at its default parameters
    jobs.append((f"{g}_outside_tested@default", game, BOUND[game][0].split(":")[0], None, None, CELL, False))
    for name in ROLLOUT[game]:
        jobs.append((f"{name}@mcts", game, "mcts:iterations=4:rollout=reference", None, None, MCTS, False))
    for name in RARE[game]:
        jobs.append((f"{name}@rare", game, "reference", None, None, RARE_CAP, True))
    if game == "crazy_eights":  # the settings the plan never reaches, one cell each: the cheat acts there
        jobs += [("ce_outside_the_plan@5", game, "reference", 5, None, CELL, False),
                 ("ce_outside_the_plan@inner", game, "hoarder:eights_at=7", None, None, CELL, False),
                 ("ce_outside_the_plan@rule", game, "reference", None, ["draw_limit=1"], CELL, False)]
    return jobs


REPLAY_CHECK = """
import json
import numpy as np
import cheats
from cardlab.sim import runner
from cardlab.sim.positions import new_game
from cardlab.sim.registry import get_game
from cardlab.strategies.crazy_eights import ID
out = {}
for gid in ("crazy_eights", "three_up", "skyscraper"):
    game = get_game(gid)
    S, L = game.schema, game.layout
    setup = runner.make_setup(gid, None, None, "reference", 17)
    zones = [p for p in S.parts.values() if p.section == "zones"]
    same = 0
    for g in range(10):
        st = new_game(game, setup, g)
        world = cheats.seed_replay_deal(gid, st.copy(), int(st[L.S_ACTOR]))
        same += all(np.array_equal(world[p.offset:p.offset + p.words], st[p.offset:p.offset + p.words])
                    for p in zones)
    out[gid] = same
# Crazy Eights later on: the next card off the stock, at every decision before a reshuffle
game = get_game("crazy_eights")
L, M, choose = game.layout, game.model(), game.binding().choose
setup = runner.make_setup("crazy_eights", None, None, "reference", 17)
right = asked = 0
for g in range(10):
    st = new_game(game, setup, g)
    while st[L.S_PHASE] != 0 and st[L.S_EVC + L.EV_RESHUFFLE] == 0:
        me = int(st[L.S_ACTOR])
        n = int(st[L.S_STOCK_N])
        if n > 0:
            world = cheats.seed_replay_deal("crazy_eights", st.copy(), me)
            asked += 1
            right += int(world[L.S_STOCK + n - 1] == st[L.S_STOCK + n - 1])
        M.step(st, tuple(int(x) for x in choose(ID.reference, st, me, ())))
out["stock_top"] = [right, asked]
print(json.dumps(out))
"""


def _jobs() -> dict:
    jobs = {f"cells:{g}": (lambda g=g: _python(["-c", DRIVER, json.dumps(_cells(g))])) for g in MOST}
    for g in MOST:
        jobs[f"plan:{g}"] = lambda g=g: _python(["-m", "cardlab.sim.audit", g, "--choose",
                                                 f"cheats:{SHORT[g]}_outside_tested", *PLAN])
    for cheat in ("ce_outside_the_plan", "ce_inner_or_rule"):
        jobs[f"plan:{cheat}"] = lambda c=cheat: _python(["-m", "cardlab.sim.audit", "crazy_eights", "--choose",
                                                         f"cheats:{c}", *PLAN])
    for g in ("crazy_eights", "skyscraper"):  # the shipped strategies: the whole plan, as `cardlab audit` runs it
        jobs[f"shipped:{g}"] = lambda g=g: _python(["-m", "cardlab.sim.audit", g])
    jobs["replay_check"] = lambda: _python(["-c", REPLAY_CHECK])
    return jobs


def needs(*names):
    """The processes a test reads (started together, for the tests selected, on first use)."""
    def mark(fn):
        fn._audit_jobs = names
        return fn
    return mark


class Runs:
    def __init__(self, wanted: list[str]):
        self.jobs = _jobs()
        self.pool = ThreadPoolExecutor(max_workers=2)
        self.futures: dict[str, Future] = {}
        # the longest first
        order = ["shipped:skyscraper", "shipped:crazy_eights", "cells:three_up", "cells:skyscraper",
                 "cells:crazy_eights"]
        for name in sorted(wanted, key=lambda n: order.index(n) if n in order else len(order)):
            self.get_future(name)

    def get_future(self, name: str) -> Future:
        if name not in self.futures:
            self.futures[name] = self.pool.submit(self.jobs[name])
        return self.futures[name]

    def __getitem__(self, name: str) -> dict:
        return self.get_future(name).result()


@pytest.fixture(scope="module")
def runs(request):
    here = request.module.__file__
    wanted = []
    for item in request.session.items:
        if str(getattr(item, "path", "")) == here:
            for n in getattr(getattr(item, "function", None), "_audit_jobs", ()):
                if n not in wanted:
                    wanted.append(n)
    r = Runs(wanted)
    yield r
    r.pool.shutdown(wait=True)


# ------------------------------------------------------------ what each cheat must be caught doing

# (cheat, [(action, part, words the message must carry)]): exactly these (action, part) pairs
CAUGHT_AS = {
    "crazy_eights": [
        ("ce_launder_memory", [("read", "hands", "of seat 1 (another seat's)")]),
        ("ce_launder_working", [("read", "stock", "(hidden from every seat)"),
                                ("read", "acts", "(working memory not written in this decision)")]),
        ("ce_stack_stock", [("read", "stock", "(hidden from every seat)"),
                            ("write", "stock", "(not the strategy's own memory, stream or working memory)")]),
        ("ce_write_counter", [("write", "passes", "(not the strategy's own memory, stream or working memory)")]),
        ("ce_burn_chance", [("read", "rng", "(hidden from every seat)"), ("write", "rng", "sim/rng.py")]),
        ("ce_burn_below", [("read", "rng", "(hidden from every seat)"), ("write", "rng", "sim/rng.py")]),
        ("ce_residue_acts", [("read", "acts", "(working memory not written in this decision)")]),
        ("ce_residue_discard", [("read", "discard", "(past the pile's count (residue))")]),
    ],
    "three_up": [
        ("tu_launder_stream", [("read", "draw", "(hidden from every seat)"),
                               ("write", "seat_rng", "(its own stream, whose words only sim/rng.py may touch)")]),
        ("tu_stack_draw", [("read", "draw", "(hidden from every seat)"), ("write", "draw", "writes draw[")]),
        ("tu_write_counter", [("write", "turn", "(not the strategy's own memory, stream or working memory)")]),
        ("tu_burn_chance", [("read", "rng", "(hidden from every seat)"), ("write", "rng", "sim/rng.py")]),
        ("tu_residue_dealt", [("read", "dealt", "of seat 1 (another seat's)")]),
        ("tu_residue_acts", [("read", "acts", "(working memory not written in this decision)")]),
        ("tu_residue_pile", [("read", "pile", "(past the pile's count (residue))")]),
        ("tu_peek_own_down", [("read", "down", "of its own seat (hidden from every seat)")]),
    ],
    "skyscraper": [
        ("sk_launder_stream", [("read", "hand", "of seat 1 (another seat's)"),
                               ("read", "seat_rng", "(its own stream, whose words only sim/rng.py may touch)"),
                               ("write", "seat_rng", "(its own stream, whose words only sim/rng.py may touch)")]),
        ("sk_stack_draw", [("read", "draw", "(hidden from every seat)"), ("write", "draw", "writes draw[")]),
        ("sk_write_counter", [("write", "skip", "of seat 1 (not the strategy's own memory, stream or working memory)")]),
        ("sk_burn_chance", [("read", "rng", "(hidden from every seat)"), ("write", "rng", "sim/rng.py")]),
        ("sk_residue_acts", [("read", "acts", "(working memory not written in this decision)")]),
        ("sk_residue_disc", [("read", "disc", "(past the pile's count (residue))")]),
    ],
}
CAUGHT = {g: [c for c, _ in v] for g, v in CAUGHT_AS.items()}
# kind 1 and kind 4 as the search's rollout heuristic, and the honest one there too
ROLLOUT = {"crazy_eights": ["ce_launder_memory", "ce_residue_acts", "ce_honest_public"],
           "three_up": ["tu_launder_stream", "tu_residue_dealt"],
           "skyscraper": ["sk_launder_stream", "sk_residue_acts", "sk_honest_public"]}
RARE = {"crazy_eights": ["ce_rare_hash", "ce_rare_stream"], "three_up": ["tu_rare_stream"],
        "skyscraper": ["sk_rare_stream"]}
# kind 5: (the plan's cell that sets the bound, the part read there), the part read at the most players
BOUND = {"crazy_eights": ("hoarder:eights_at=10", "stock", "hands"),
         "three_up": ("lowest:strong_first=1", "draw", "hcnt"),
         "skyscraper": ("aggressive:lead_margin=-3", "draw", "hand")}
# ways around a watched array that is an ndarray (a stale view, a bypass) and an honest 2-D view:
# caught (or passing) since the watched state is a proxy that numpy must ask for every word
GAPS = {"crazy_eights": ["ce_bypass_asarray", "ce_bypass_ascontiguous", "ce_bypass_flat", "ce_bypass_ndenumerate",
                         "ce_bypass_write_asarray", "ce_stale_context", "ce_honest_reshape"]}


def _cell(runs, game: str, name: str) -> dict:
    r = runs[f"cells:{game}"][name]
    assert "error" not in r, f"{name}: the audit failed: {r['error']}"
    return r


def _pairs(r: dict) -> set:
    return {(k["action"], k["part"]) for k in r["kept"]}


def _cases(table):
    return [pytest.param(g, c, *rest, id=f"{g}-{c}") for g, v in table.items() for c, *rest in v]


# ------------------------------------------------------------ kinds 1-4: caught, and said what

@needs("cells:crazy_eights", "cells:three_up", "cells:skyscraper")
@pytest.mark.parametrize("game,cheat,expect", _cases(CAUGHT_AS))
def test_cheat_caught_with_what_it_read_or_wrote(runs, game, cheat, expect):
    """Each cheat is caught in a single cell at the default settings, and its messages say what
    it read or wrote: the action, the part, whose block and why it may not."""
    r = _cell(runs, game, cheat)
    assert r["violations"] > 0, f"{cheat}: not caught in {r['decisions']} decisions"
    found = _pairs(r)
    want = {(a, part) for a, part, _ in expect}
    # exactly these: its allowed writes (its own memory or stream, the action buffer) are not flagged
    if game == "three_up":
        assert want <= found, found  # 3UP's own strategies are being changed: only the cheat's accesses
    else:
        assert found == want, found
    for action, part, words in expect:
        msgs = [m for m, k in zip(r["messages"], r["kept"]) if (k["action"], k["part"]) == (action, part)]
        assert any(f"{action}s {part}[" in m and words in m for m in msgs), msgs[:2]
        assert all(f"'reference as {cheat}'" in m and f"seed {SEED}" in m and "decision '" in m for m in msgs)


# ------------------------------------------------------------ the search inherits its rollout heuristic's leaks

@needs("cells:crazy_eights", "cells:three_up", "cells:skyscraper")
@pytest.mark.parametrize("game,cheat", [pytest.param(g, c, id=f"{g}-{c}") for g, v in ROLLOUT.items()
                                        for c in v if "honest" not in c])
def test_rollout_heuristic_cheat_caught(runs, game, cheat):
    """``mcts:iterations=4:rollout=reference`` with a kind-1 or kind-4 cheat as the dispatch:
    every seat is the search player, and the cheat, its rollout heuristic, is caught on the
    real position (the heuristic's own answer the search must beat)."""
    r = _cell(runs, game, f"{cheat}@mcts")
    assert r["violations"] > 0
    assert all(k["context"].startswith("its rollout heuristic on the real position") for k in r["kept"])
    assert all(any(f"(its rollout heuristic on the real position) {a} " in m for a in ("reads", "writes"))
               for m in r["messages"]), r["messages"][:2]
    assert all(m.split("'")[1].startswith("mcts:iterations=4:rollout=reference") for m in r["messages"])


# ------------------------------------------------------------ honest strategies pass

@needs("cells:crazy_eights", "cells:three_up", "cells:skyscraper")
@pytest.mark.parametrize("game", list(MOST))
def test_honest_public_strategy_passes(runs, game):
    """A strategy that decides from public information and its own (hand sizes, the discard
    pile, its own hand, memory and stream, the legal actions it listed) passes, as a seat's
    strategy and (Crazy Eights, Skyscraper) as the search's rollout heuristic."""
    name = f"{SHORT[game]}_honest_public"
    r = _cell(runs, game, name)
    assert r["decisions"] == CELL
    assert r["violations"] == 0, r["messages"][:3]
    if name in ROLLOUT[game]:
        r = _cell(runs, game, f"{name}@mcts")
        assert r["decisions"] == MCTS and r["violations"] == 0, r["messages"][:3]


@needs("shipped:crazy_eights", "shipped:skyscraper")
@pytest.mark.parametrize("game", ["crazy_eights", "skyscraper"])
def test_shipped_strategies_pass_the_plan(runs, game):
    """``python -m cardlab.sim.audit GAME``: every shipped strategy, the search with every
    rollout heuristic, at the fewest, default and most players, parameters at their bounds,
    the report's rule variants and a mixed pool: no violation, and both re-deals leave
    nothing behind."""
    r = runs[f"shipped:{game}"]
    bad = [(c["pool"], c["players"], c["violations"]) for c in r["cells"] if c["violations"]]
    assert r["violations"] == 0 and not bad, bad
    assert r["redeal"]["positions"] > 0 and r["redeal"]["differ"] == {} and r["redeal"]["impossible"] == [], \
        r["redeal"]


# ------------------------------------------------------------ kind 5: outside the tested settings

@needs("cells:crazy_eights", "cells:three_up", "cells:skyscraper", "plan:crazy_eights", "plan:three_up",
       "plan:skyscraper")
@pytest.mark.parametrize("game", list(MOST))
def test_outside_tested_settings_caught_by_the_plan(runs, game):
    """A cheat that peeks only at the most players, and one only with a parameter at a bound
    (``*_outside_tested``: both, each reading a part of its own): a single cell at the default
    settings does not catch them; the plan does, in the cells at those settings, and the
    violation names the player count and the pool."""
    from cardlab.sim.audit import Violation

    bound, bound_part, most_part = BOUND[game]
    most = MOST[game]
    one = _cell(runs, game, f"{SHORT[game]}_outside_tested@default")
    assert one["decisions"] == CELL and one["violations"] == 0

    plan = runs[f"plan:{game}"]
    hit = [c for c in plan["cells"] if c["violations"]]
    assert hit, "the plan did not catch it"
    at_most = [c for c in hit if c["players"] == most and most_part in {k["part"] for k in c["kept"]}]
    assert at_most, [(c["pool"], c["players"]) for c in hit]
    m = Violation(**next(k for k in at_most[0]["kept"] if k["part"] == most_part)).message(game)
    assert f"reads {most_part}[" in m and f"{most} players" in m and "peek_most_players" in m, m
    at_bound = [c for c in hit if c["pool"] == bound]
    assert at_bound, [(c["pool"], c["players"]) for c in hit]
    k = next(k for k in at_bound[0]["kept"] if k["part"] == bound_part)
    m = Violation(**k).message(game)
    assert f"reads {bound_part}[" in m and f"strategy '{bound}'" in m and "peek_at_bound" in m, m
    if game != "three_up":  # nowhere else: the cheat is the seat's own strategy there, and they are honest
        stray = [(c["pool"], c["players"]) for c in hit if c["players"] != most and c["pool"] != bound]
        assert not stray, stray


# ------------------------------------------------------------ kind 6: rare peeks

@needs("cells:crazy_eights", "cells:three_up", "cells:skyscraper")
@pytest.mark.parametrize("game,cheat", [pytest.param(g, c, id=f"{g}-{c}") for g, v in RARE.items() for c in v])
def test_rare_peek_caught(runs, game, cheat, record_property):
    """A peek in about 1 of 10,000 decisions (a hash of public words, or a draw from the seat's
    own stream below 1e-4) is caught by one cell of at most 40,000 decisions (the audit
    stops at the first violation; seed 17: Crazy Eights' hash at decision 4,672, its stream
    at 7,536, 3UP's at 13,942, Skyscraper's at 11,795).  At 1 in 10,000, 40,000 decisions
    catch it with probability 1 - e^-4 = 98%; a plan of ~10,000 decisions only 63%."""
    r = _cell(runs, game, f"{cheat}@rare")
    record_property("decisions_to_catch", r["decisions"])
    assert r["violations"] == 1, f"not caught in {r['decisions']} decisions"
    assert r["decisions"] <= RARE_CAP
    assert "reads " in r["messages"][0] and f"'reference as {cheat}'" in r["messages"][0]


# ------------------------------------------------------------ what the audit does not catch (yet)

@needs("cells:crazy_eights", "cells:three_up", "cells:skyscraper")
@pytest.mark.parametrize("game", list(MOST))
def test_seed_replay_caught(runs, game):
    """``*_seed_replay``: the deal replayed from the seat's own stream (every hand, the stock's
    order, 3UP's face-down cards).  ``sim/rng.seed_seat`` seeds seat ``s``'s stream with
    splitmix(splitmix(x) ^ (s + 1) * M1) where ``seed_game`` seeded the chance stream from
    splitmix(x); splitmix64 is invertible, so the raw words of a freshly seeded own stream
    give x, hence the chance stream's first state, and ``setup`` replayed on the public rules
    gives the deal.  Caught: a seat's stream is its own, but only ``sim/rng.py`` may read or
    write its raw words (the cheat clears it to have it seeded again, and reads it back)."""
    r = _cell(runs, game, f"{SHORT[game]}_seed_replay")
    assert r["violations"] > 0
    assert {("write", "seat_rng"), ("read", "seat_rng")} <= _pairs(r), _pairs(r)
    assert any("whose words only sim/rng.py may touch" in m for m in r["messages"]), r["messages"][:2]


@needs("replay_check")
def test_seed_replay_knows_the_deal(runs):
    """The gap above is real: the deal ``cheats.seed_replay_deal`` rebuilds from what a seat may
    read is the real one, every zone, at the first decision of 10 games of each game; and in
    Crazy Eights it names the next card off the stock at every decision before a reshuffle."""
    r = runs["replay_check"]
    assert r["crazy_eights"] == r["three_up"] == r["skyscraper"] == 10, r
    right, asked = r["stock_top"]
    assert asked > 100 and right == asked, r


@needs("cells:crazy_eights")
@pytest.mark.parametrize("cheat", ["ce_bypass_asarray", "ce_bypass_ascontiguous", "ce_bypass_flat",
                                   "ce_bypass_ndenumerate", "ce_bypass_write_asarray"])
def test_bypass_caught(runs, cheat):
    """``ce_bypass_*``: ``np.asarray(st)`` and ``np.ascontiguousarray(st)`` return the plain
    array under the watched view (numpy does not ask an ndarray subclass), ``st.flat[i]``,
    ``np.ndenumerate`` and ``np.nditer`` read the memory directly; numba compiles all five,
    so a compiled strategy can use them.  Writes through ``np.asarray(st)`` are not seen
    either.  Fix: a watched state that is not an ndarray subclass (numpy then asks
    ``__array__``/``__array_function__``), or overrides of ``flat`` and a check on the rest."""
    r = _cell(runs, "crazy_eights", cheat)
    assert r["violations"] > 0


@needs("cells:crazy_eights")
def test_stale_context_caught(runs):
    """``ce_stale_context`` keeps the watched state each seat was shown and later reads the
    previous seat's hand through the view that seat was shown, with that seat's rights (plain
    Python only: numba cannot keep an array in a global).  Fix: retire a ``Context`` when its
    decision ends (any access through it afterwards a violation)."""
    r = _cell(runs, "crazy_eights", "ce_stale_context")
    assert r["violations"] > 0


@needs("cells:crazy_eights")
def test_honest_reshape_passes(runs):
    """``ce_honest_reshape``: an honest strategy that reads the legal actions it listed as
    rows (``st[S_ACTS:S_ACTS + 4 * n].reshape(n, 4)``) stops the audit with ``TypeError: the
    honesty audit follows 1-D views of the state only`` instead of passing."""
    r = _cell(runs, "crazy_eights", "ce_honest_reshape")
    assert r["violations"] == 0


@needs("cells:crazy_eights")
def test_outside_the_plan_cheats_act_in_their_cells(runs):
    """The cheats of the next test do act: a single cell at their setting catches each (5
    players; hoarder with eights_at=7; draw_limit=1)."""
    for where in ("5", "inner", "rule"):
        r = _cell(runs, "crazy_eights", f"ce_outside_the_plan@{where}")
        assert r["violations"] > 0, where


@needs("plan:ce_outside_the_plan")
def test_every_player_count_is_in_the_plan(runs):
    """``ce_outside_the_plan`` peeks at 5 players (Crazy Eights: neither the fewest, the
    default nor the most), among others: the plan audits every heuristic at every player
    count, so it is caught there."""
    r = runs["plan:ce_outside_the_plan"]
    hit = [c for c in r["cells"] if c["violations"]]
    assert any(c["players"] == 5 for c in hit), [(c["pool"], c["players"]) for c in hit]


@needs("plan:ce_inner_or_rule")
@pytest.mark.xfail(strict=True, reason=(
    "the plan sets parameters at their bounds and yes/no or choice knobs only: a peek at eights_at=7 "
    "or with draw_limit=1 passes it (the audit's line coverage of a strategy module lists such lines "
    "as never run: not proved)"))
def test_inner_values_caught(runs):
    """``ce_inner_or_rule``: peeks at a parameter value between a bound and the default
    (hoarder ``eights_at=7``), or under a number knob's value the plan never sets
    (``draw_limit=1``)."""
    r = runs["plan:ce_inner_or_rule"]
    assert r["violations"] > 0


# ------------------------------------------------------------ the command

def _cardlab(*args):
    env = dict(os.environ, CARDLAB_HISTORY="off")
    return subprocess.run([sys.executable, "-m", "cardlab.cli", *args], capture_output=True, text=True,
                          env=env, cwd=tempfile.gettempdir(), timeout=600)


def test_cardlab_audit_summarises_and_refuses_bad_input():
    """``cardlab audit GAME``: a summary per strategy (decisions, honest or its violations),
    the line coverage of the strategy module and the search, both re-deal checks; exit 0 when
    honest.  ``--json`` is the whole result.  Bad input: one line, exit 2."""
    p = _cardlab("audit", "crazy_eights", "--decisions", "20", "--search-decisions", "2", "-q")
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert "honesty audit of crazy_eights:" in out and "no violation" in out
    assert all(f"  {name}" in out for name in ("reference", "random", "hoarder", "starver", "mcts"))
    assert "lines run under the audit: strategies/crazy_eights.py" in out
    assert "re-deals:" in out and "both leave nothing hidden behind" in out
    assert "what they clear:" in out and "never matters to the rules" in out
    j = _cardlab("audit", "crazy_eights", "--decisions", "10", "--search-decisions", "1", "--json")
    r = json.loads(j.stdout)
    assert j.returncode == 0 and r["violations"] == 0 and r["cells"] and r["coverage"]
    for args, words in ((("nope",), "unknown game 'nope'"), (("crazy_eights", "--decisions", "0"), "--decisions 0")):
        bad = _cardlab("audit", *args)
        assert bad.returncode == 2 and words in bad.stderr and bad.stderr.count("\n") == 1, bad.stderr


def test_summary_names_what_the_rules_show_one_seat():
    """A book the rules write for one seat's eyes (``Schema.shown_parts``: what a seat was
    shown of another's hand) is read as seen by it, so a leak the rules write there passes
    every check: the summary names such parts beside its verdict, and only them."""
    from cardlab.sim.audit import summary
    from cardlab.sim.registry import get_game

    assert [p.name for p in get_game("block_tower").schema.shown_parts()] == ["recv"]
    assert [p.name for p in get_game("three_up").schema.shown_parts()] == ["hmask", "dealt"]
    assert get_game("crazy_eights").schema.shown_parts() == []  # hands are zones; seat_rng is no book
    base = {"game": "g", "cells": [], "decisions": 0, "violations": 0, "coverage": {}, "redeal": None,
            "features": None}
    assert "show one seat" not in summary(dict(base, shown=[]))
    shown = [{"part": "known", "help": "h"}, {"part": "seen", "help": "h"}]
    head = ("  what the rules show one seat alone: known, seen; taken as seen by that seat, so whether the "
            "rules show only what the rulebook does is for the rule tests; ")
    assert summary(dict(base, shown=shown, honoured=True)).splitlines()[-1] == head + (
        "the search's worlds honour it (honour_shown)")
    assert summary(dict(base, shown=shown, honoured=False)).splitlines()[-1] == head + (
        "no honour_shown, so a search world may contradict it where it names cards hidden from the seat")
