"""The conformance kit: everything a game must satisfy, in one call.

``check_game("my_game")`` runs every check below and raises ``AssertionError`` naming the
first that fails; in a game's test file one line gives each check its own test::

    from cardlab.sim.testing import conformance_tests
    test_conformance = conformance_tests("my_game")

The checks (``CHECKS``, in the order they run):

- ``conservation``: 240 seeded games (a third each at the fewest, the default and the
  most players) driven only through ``setup``/``legal``/``step`` with uniformly random
  legal actions: every action ``legal`` lists is one ``step`` accepts, after every step
  every card is in exactly one zone (the multiset of all zones equals the deck), and
  every game ends or stops at its cap;
- ``legal_complete``: ``legal`` against ``step`` the other way: on positions of random legal
  play, actions near the listed ones (each declared field moved by -1 or +1) that ``legal``
  does not list must be refused by ``step``, or play exactly like a listed action (a
  field the action's kind does not use); one that plays otherwise is a play the rules
  allow and ``legal`` left out;
- ``trace_equals_fast``: a traced game (the same kernel in trace mode) ends exactly like
  the fast path's game of the same seed and index, for every strategy, with every card in
  one zone after every event;
- ``compiled_equals_python``: ``cardlab simulate`` compiled and with ``NUMBA_DISABLE_JIT=1``
  print the same JSON (timings aside), in the reference's self-play and in a pool of every
  strategy;
- ``jobs_identical``: 1 thread and 2 threads with small chunks give the same tally;
- ``audit``: the honesty audit (``sim/audit.py``): every strategy's decisions run as plain
  Python over a state that checks every word read and written against what the deciding
  seat may see (its declared visibility), in every setting of the game's audit plan (every
  strategy at the fewest, default and most players, each parameter at its bounds, the
  search player with every rollout heuristic, rule variants, a mixed pool): a violation
  names the strategy, the part, the seat, the decision, the game and seed and the line of
  code; and both re-deals (the search's, the kit's) leave nothing hidden behind;
- ``honesty`` (the second line): every heuristic at 2,000 decisions, and the search player ``mcts``
  (16 iterations) at 80, of seeded games, answers the same in
  re-dealt positions (``sim/observe.determinize``: what its seat cannot see drawn afresh,
  the generators reseeded) as in the real one;
- ``parameter_bounds``: every strategy parameter at both bounds, alone and in a mixed pool,
  at every player count's edges, plays without an error;
- ``no_dead_parameter``: every parameter changes play between its bounds (under the rule its
  help names as ``with KNOB=VALUE``);
- ``json_identity``: ``sum(win_rate_by_seat) + no_winner_rate == 1`` exactly in counts, for
  every player count;
- ``bad_knobs``: a bad value of every knob, and a player count out of range, is refused in
  one line that names it;
- ``golden_trace``: game 3 of the default setup traces exactly as
  ``tests/golden/traces/GAME.jsonl`` (written by ``python scripts/golden.py --trace GAME``);
- ``shape_noted``: the shape columns of the per-game rows add up to the shape tallies;
- ``lead_in_trace``: in a few traced games at the fewest, the default and the most
  players, the sole leader the fast path noted at the end of every turn is the one the
  trace's events show (the replay viewer's reading, ``sim/trace.read_lead``); it fails a
  game in which every traced game hits the turn cap (it stalls);
- ``trace_zones``: every zone of a trace that shows cards is one of the schema's zones (by
  its name, its plural or the game's ``trace_parts``), so ``play`` and the replay viewer
  hide it from the seats its part hides it from.
"""
from __future__ import annotations

from collections import Counter

import json
import math
import os
import shutil
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

import numpy as np

from cardlab.sim import runner
from cardlab.sim.errors import InputError
from cardlab.sim.knobs import fmt_number
from cardlab.sim.observe import ImpossibleWorld, determinize
from cardlab.sim.positions import (  # noqa: F401 - the kit's helpers, re-exported
    card_census, chooser, legal_actions, new_game, random_legal, random_play_positions, zone_census,
)
from cardlab.sim.registry import get_game
from cardlab.sim.strategy_spec import needed_rules  # noqa: F401 - the kit's, re-exported
from cardlab.sim.schema import DONE
from cardlab.sim.trace import GOLDEN_TRACES, golden_trace_lines, write_golden_trace  # noqa: F401 - re-exported

ROOT = Path(__file__).resolve().parent.parent
TIMING_KEYS = ("elapsed_s", "games_per_second")
HISTORY_ENV = "CARDLAB_HISTORY"  # "off": no run is recorded in the run history (analysis/history.py)


SEARCH_SPEC = "mcts:iterations=16"  # the search player in the honesty check: a small budget
SEARCH_DECISIONS = 80                  # ... at this many decisions (each asks it 4 times)


class HonestyError(AssertionError):
    """A strategy decided differently when only what its seat cannot see changed."""


# ------------------------------------------------------------ helpers
# zone_census, card_census, new_game, legal_actions, random_legal, random_play_positions and
# chooser live in sim/positions.py (production code needs them too; the kit may import
# production code, never the reverse) and are imported above, so the kit still offers them


def _step_cap(game, setup) -> int:
    return 50 * game.max_length(setup.rules, setup.players) + 1000  # decisions, not turns: generous


# ------------------------------------------------------------ the checks
def _where(game, st, g: int, seed: int, players: int, k: int) -> str:
    """game, seed, players, step, decision and seat of a position, for a failure message."""
    L = game.layout
    phase = int(st[L.S_PHASE])
    decision = game.schema.decisions[phase - 1][0] if phase > 0 else "none (the game is over)"
    return (f"{game.id} game {g} (seed {seed}, {players} players), step {k}, decision '{decision}' of "
            f"seat {int(st[L.S_ACTOR])}")


def _rules_call(what: str, where: str, fn, *args):
    """``fn(*args)``; an exception inside the rules becomes a check failure that names the
    game, seed, step, decision and what was asked (never a bare traceback)."""
    try:
        return fn(*args)
    except Exception as e:  # noqa: BLE001 - any exception in the rules is the finding
        raise AssertionError(f"{where}: {what} raised {type(e).__name__}: {e}") from e


def check_conservation(game_id: str, games: int = 240, seed: int = 3) -> None:
    game = get_game(game_id)
    M, L = game.model(), game.layout
    rng = np.random.default_rng(seed)
    for g in range(games):
        players = (game.min_players, game.default_players, game.max_players)[g % 3]
        setup = runner.make_setup(game_id, players, None, None, seed)
        st = _rules_call("setup", f"{game_id} game {g} (seed {seed}, {players} players)", new_game, game, setup, g)
        deck = _rules_call("the card census of the schema's zones", f"{game_id} game {g} (seed {seed}, "
                           f"{players} players)", card_census, game, st, players)
        cap = _step_cap(game, setup)
        for k in range(cap):
            if st[L.S_PHASE] == DONE:
                break
            where = _where(game, st, g, seed, players, k)
            acts = _rules_call("legal", where, legal_actions, game, st)
            assert acts, f"{where}: no legal action"
            act = acts[int(rng.integers(len(acts)))]
            _rules_call(f"step with the listed action {act}", where, M.step, st, act)
            got = card_census(game, st, players)
            if got != deck:
                name = game.card_names(st)  # cards by their codes (copies of a card add up)
                gained, lost = (dict(Counter(name(c) for c in x.elements())) for x in (got - deck, deck - got))
                raise AssertionError(f"{where}: cards changed after {act}: gained {gained}, lost {lost}")
        assert st[L.S_PHASE] == DONE, f"{game_id} game {g}: no end after {cap} random decisions"
        cap_length = game.max_length(setup.rules, setup.players)
        assert 0 <= st[L.S_LENGTH] <= cap_length
        if st[L.S_UNFINISHED]:
            assert st[L.S_LENGTH] == cap_length, f"{game_id} game {g}: unfinished before the cap"


def check_legal_complete(game_id: str, games: int = 24, seed: int = 4, per_position: int = 16) -> int:
    """``legal`` against ``step`` the other way: on positions of random legal play, actions
    near the listed ones (each declared field of a listed action moved by -1 or +1, the
    fields a decision does not declare left 0) that ``legal`` does not list must be refused
    by ``step``, or play exactly like a listed action (an alias: a field its kind does not
    use); one that plays otherwise is a play the rules allow and ``legal`` left out (a
    strategy, the search and the kit would never try it).  Returns the candidates tried."""
    from cardlab.sim.errors import ILLEGAL

    game = get_game(game_id)
    M, L = game.model(), game.layout
    rng = np.random.default_rng(seed)
    tried = 0
    for g in range(games):
        players = (game.min_players, game.default_players, game.max_players)[g % 3]
        setup = runner.make_setup(game_id, players, None, None, seed)
        st = new_game(game, setup, g)
        for k in range(_step_cap(game, setup)):
            if st[L.S_PHASE] == DONE:
                break
            acts = legal_actions(game, st)
            listed = set(acts)
            fields = len(game.schema.decisions[int(st[L.S_PHASE]) - 1][1].split(","))
            near = {a[:i] + (a[i] + d,) + a[i + 1:] for a in acts for i in range(fields) for d in (-1, 1)}
            near = sorted(near - listed)
            for j in rng.permutation(len(near))[:per_position]:
                cand = near[int(j)]
                trial = st.copy()
                try:
                    M.step(trial, cand)
                except ValueError as e:
                    if e.args and e.args[0] == ILLEGAL:
                        continue
                    raise AssertionError(f"{_where(game, st, g, seed, players, k)}: step with {cand} "
                                         f"raised {e!r} instead of refusing it as illegal") from e
                finally:
                    tried += 1
                # accepted: an alias of a listed action (the same play written with a field the
                # kind does not use) plays exactly like it; anything else is a play legal left out
                for a in acts:
                    twin = st.copy()
                    M.step(twin, a)
                    if np.array_equal(twin, trial):
                        break
                else:
                    raise AssertionError(f"{_where(game, st, g, seed, players, k)}: step accepts {cand}, which "
                                         f"legal does not list and which plays unlike every listed action "
                                         f"(legal lists {len(acts)}: {acts[:6]}{'...' if len(acts) > 6 else ''})")
            M.step(st, acts[int(rng.integers(len(acts)))])
    return tried


def check_trace_equals_fast(game_id: str, games: int = 3) -> None:
    from cardlab.sim.trace import trace

    game = get_game(game_id)
    for name in game.strategies:
        setup = runner.make_setup(game_id, None, None, name, 5)
        res = runner.run(setup, games, jobs=1, keep_rows=True)
        for g in range(games):
            lines = trace(setup, g)
            events, result = lines[1:-1], lines[-1]
            assert events, f"{game_id}: a traced game has no events"
            row = res.rows[g]
            assert (result["length"], result["unfinished"]) == (int(row[0]), bool(row[1])), (
                f"{game_id} {name} game {g}: the trace ends differently from the fast path")
            assert result["winners"] == [s for s in range(setup.players) if (int(row[2]) >> s) & 1]
            assert result["scores"] == [int(x) for x in row[3:3 + setup.players]]


def check_shape_noted(game_id: str, games: int = 300) -> None:
    """The game declares a progress score and notes the standing at the end of its turns
    (``sim/shape.py``): the shape columns of the per-game rows add up to the tallies, are
    -1 for capped games, and some finished game had a sole leader at half-time (which only
    a game that calls ``shape.turn_over`` can have)."""
    from cardlab.sim.tally import SHAPE_ROW_COLS

    game = get_game(game_id)
    assert game.close_margin >= 0, "no progress score declared: S.progress(...) in layout.py"
    setup = runner.make_setup(game_id, None, None, None, 7)
    r = runner.run(setup, games, jobs=1, keep_rows=True)
    t, cols, fin = r.tally, r.rows[:, -SHAPE_ROW_COLS:], r.rows[:, 1] == 0
    assert (cols[~fin] == -1).all(), "a capped game has shape figures"
    assert t.shape("measured") == fin.sum() and t.shape("lead_changes") == cols[fin, 0].sum()
    assert t.shape("comebacks") == (cols[:, 1] == 1).sum() and t.shape("half_led") == (cols[:, 1] >= 0).sum()
    assert t.shape("decided") == (cols[:, 2] >= 0).sum() == t.decided_hist.sum()
    assert t.shape("half_led") > 0, ("no finished game had a sole leader at half-time: does kernel.py call "
                                     "shape.turn_over(st, ENGINE, progress, t) where a turn ends?")


LEAD_RULE = ("progress(st, seat) must not change between shape.turn_over(st, ENGINE, progress, t) and the "
             "last event stamped t: call turn_over for turn t before the turn counter moves on, as Crazy Eights' "
             "turns() does (docs/game_reference.md, 'The progress score')")


def check_lead_in_trace(game_id: str, games: int = 4, seed: int = 7) -> None:
    """The standing the fast path noted at the end of every turn (``shape.turn_over``) is
    the one the trace's events show, read as the replay viewer reads it
    (``sim/trace.read_lead``: the sole leader after the turn's last event), in ``games``
    seeded games at each of the fewest, the default and the most players."""
    from cardlab.sim.trace import read_lead, trace

    game = get_game(game_id)
    finished = 0
    counts = sorted({game.min_players, game.default_players, game.max_players})
    for players in counts:
        setup = runner.make_setup(game_id, players, None, None, seed)
        for g in range(games):
            lines = trace(setup, g)
            lead = read_lead(setup, g, lines)
            assert lead is not None, "no progress score declared: S.progress(...) in layout.py"
            if lines[-1]["unfinished"]:
                continue  # a capped game has no shape figures
            finished += 1
            t = lead.differs()
            if t is not None:
                raise AssertionError(_lead_slip(game, setup, g, lines, lead, t))
    assert finished, (f"{game_id}: every traced game ({games} at each of "
                      f"{', '.join(map(str, counts[:-1])) + ' and ' if len(counts) > 1 else ''}{counts[-1]} "
                      "players, the default strategies) hit "
                      "the turn cap, so no noted standing could be compared: the game stalls under its own "
                      "strategies (a rule that never ends it, or a strategy that never moves it on: look "
                      "at the end of cardlab trace " + game_id + ")")


def check_trace_zones(game_id: str, games: int = 3, seed: int = 11) -> None:
    """Every zone of a trace's state that shows cards is one of the schema's zones (by its
    name, its plural or the game's ``trace_parts``: ``Game.zone_part``), in ``games``
    seeded games at the fewest and the most players.  ``play`` and the replay viewer hide a
    zone from the seats its part hides it from; a zone of no part they show to every seat,
    so a renamed zone of hidden cards would be shown (a derived number of no part, such as
    Block Tower's ``instability``, shows no card and passes)."""
    from cardlab.sim.trace import cards_in, trace

    game = get_game(game_id)
    for players in sorted({game.min_players, game.max_players}):
        setup = runner.make_setup(game_id, players, None, None, seed)
        for g in range(games):
            st = new_game(game, setup, g)
            name = game.card_names(st)
            deck = {name(c) for c in card_census(game, st, players)}
            for ev in trace(setup, g)[1:-1]:
                for zone, value in ev["state"].items():
                    shown = sorted(set(cards_in(value)) & deck)
                    if shown and game.zone_part(zone) is None:
                        parts = ", ".join(p.name for p in game.schema.zone_parts())
                        raise AssertionError(
                            f"{game_id}, {players} players, seed {seed}, game {g}: the trace zone '{zone}' "
                            f"(event {ev.get('step')}, '{ev.get('action')}') shows cards ({', '.join(shown[:4])}"
                            f"{', ...' if len(shown) > 4 else ''}) but is no zone of the schema, so play and the "
                            f"replay would show it to every seat. Name it after its part in zones() (the part's "
                            f"name or its plural) or map it in the game's trace_parts = {{'{zone}': PART}}; the "
                            f"schema's zones: {parts}")


def _lead_slip(game, setup, g: int, lines: list[dict], lead, t: int) -> str:
    """One message for a turn whose leader the trace reads unlike the fast path's note."""
    def who(seat: int) -> str:
        return "nobody (a shared top)" if seat < 0 else f"seat {seat}"

    unit, length = game.length_unit.removesuffix("s"), int(lines[-1]["length"])
    k, got = lead.ends[t - 1]
    e = lines[1 + k]
    stamp = f"stamped turn {e.get('turn')}" + (f", read as {unit} {t}" if lead.periods[k] != e.get("turn") else "")
    by = f" of seat {e['player']}" if e.get("player") is not None else ""
    if lead.period_of == "turn":
        read = ""
    elif lead.period_of == "event":
        read = (" (the turn stamps go back, or the last is neither the game's length nor one less: each event "
                "is read as a turn of its own)")
    else:
        read = f" (read by the zones' '{lead.period_of}' counter)"
    return (f"{game.id}, {setup.players} players, seed {setup.seed}, game {g}: at the end of {unit} {t} of "
            f"{length} the fast path noted {who(lead.noted[t - 1])} leading, but the trace's events say "
            f"{who(got)}: after the last event of {unit} {t}{read}, event {k + 1} of {len(lines) - 2} "
            f"('{e.get('action')}'{by}, {stamp}), the progress ({game.progress_what}) seat by seat is "
            f"{[v[k] for v in lead.values]}. {LEAD_RULE}")


def _cardlab() -> list[str]:
    exe = Path(sys.executable).parent / "cardlab"
    if exe.is_file() and os.access(exe, os.X_OK):
        return [str(exe)]
    found = shutil.which("cardlab")
    return [found] if found else [sys.executable, "-m", "cardlab.cli"]


def simulate_json(game_id: str, args: list[str], disable_jit: bool) -> dict:
    """``cardlab simulate GAME ARGS --json`` in its own process (plain Python with
    ``disable_jit``: numba leaves every ``@njit`` function as ordinary Python), never
    recorded in the run history (``--no-history``, and ``CARDLAB_HISTORY=off`` for
    anything it starts)."""
    env = dict(os.environ)
    env.pop("NUMBA_DISABLE_JIT", None)
    env[HISTORY_ENV] = "off"
    if disable_jit:
        env["NUMBA_DISABLE_JIT"] = "1"
    cmd = _cardlab() + ["simulate", game_id, *args, "--json", "--no-history"]
    p = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True, timeout=900)
    mode = "NUMBA_DISABLE_JIT=1" if disable_jit else "compiled"
    assert p.returncode == 0, f"{mode} run failed (exit {p.returncode}): {' '.join(cmd)}\n{p.stderr}"
    return {k: v for k, v in json.loads(p.stdout).items() if k not in TIMING_KEYS}


def check_compiled_equals_python(game_id: str, games: int = 20) -> None:
    game = get_game(game_id)
    names = list(game.strategies)
    pool = ",".join(names[i % len(names)] for i in range(game.default_players))
    for args in (["--games", str(games), "--seed", "5"],
                 ["--games", str(games), "--seed", "6", "--strategies", pool]):
        a, b = simulate_json(game_id, args, False), simulate_json(game_id, args, True)
        differing = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
        assert not differing, (f"{game_id} {' '.join(args)}: compiled and NUMBA_DISABLE_JIT=1 differ in "
                               + ", ".join(f"{k} ({a.get(k)!r} vs {b.get(k)!r})" for k in differing))


def check_jobs_identical(game_id: str, games: int = 900) -> None:
    game = get_game(game_id)
    names = list(game.strategies)
    pool = ",".join(names[i % len(names)] for i in range(game.default_players))
    setup = runner.make_setup(game_id, None, None, pool, 9)
    one = runner.run(setup, games, jobs=1).tally.data
    two = runner.run(setup, games, jobs=2, chunk=100).tally.data
    assert np.array_equal(one, two), f"{game_id}: 1 and 2 threads (chunks of 100) give different tallies"


def check_honesty(game_id: str, decisions: int = 2000, redeals: int = 3, seed: int = 17,
                  strategies: list[str] | None = None, choose: Callable | None = None) -> int:
    """Every strategy (or ``choose``, a function like the game's dispatch) answers each of
    ``decisions`` real decisions the same in ``redeals`` re-dealt copies of the position;
    returns the decisions checked.  Raises HonestyError at the first that differs."""
    game = get_game(game_id)
    M, L = game.model(), game.layout
    ask = choose or chooser(game)
    rng = np.random.default_rng(seed)
    checked = 0
    for name in (strategies or list(game.strategies) + [SEARCH_SPEC]):
        setup = runner.make_setup(game_id, None, None, name, seed)
        budget = min(decisions, SEARCH_DECISIONS) if setup.searches else decisions  # a search is slow
        _, sids, params = setup.arrays()
        params = [tuple(float(x) for x in row) for row in params]
        seen, g = 0, 0
        while seen < budget and g < 10 * budget:
            st = new_game(game, setup, g)
            for _ in range(_step_cap(game, setup)):
                if st[L.S_PHASE] == DONE or seen >= budget:
                    break
                me = int(st[L.S_ACTOR])
                decision = game.schema.decisions[int(st[L.S_PHASE]) - 1][0]
                real = tuple(int(x) for x in ask(int(sids[me]), st.copy(), me, params[me]))
                for r in range(redeals):
                    try:
                        other = determinize(game, st, me, rng)
                    except ImpossibleWorld as e:  # the game's honour_shown hook broke the world
                        raise AssertionError(f"{e} (re-dealing game {g} of seed {seed} at decision "
                                             f"'{decision}' of seat {me}, re-deal {r})") from None
                    got = tuple(int(x) for x in ask(int(sids[me]), other, me, params[me]))
                    if got != real:
                        raise HonestyError(
                            f"{game_id}: strategy '{name}' peeks: at game {g} (seed {seed}), decision "
                            f"'{decision}' of seat {me}, it answers {real} in the real position and {got} "
                            f"once the cards its seat cannot see are re-dealt (re-deal {r})")
                M.step(st, ask(int(sids[me]), st, me, params[me]))
                seen += 1
            g += 1
        checked += seen
    return checked


AUDIT_DECISIONS = 300        # decisions per setting of the audit's plan (sim/audit.audit_plan)
AUDIT_SEARCH_DECISIONS = 8   # ... of the search player (4 worlds each), per rollout heuristic


def check_audit(game_id: str, decisions: int = AUDIT_DECISIONS,
                search_decisions: int = AUDIT_SEARCH_DECISIONS) -> dict:
    """The honesty audit (``sim/audit.py``, in a process of its own: the strategies run as
    plain Python): no strategy of the game reads or writes a word its seat may not, in
    any setting of the game's audit plan, and both re-deals leave nothing hidden behind.
    Returns the audit's result (its summary: ``sim.audit.summary``)."""
    from cardlab.sim import audit

    r = audit.run_audit(game_id, decisions, search_decisions)
    msgs = audit.violations(r)
    assert not r["violations"], (f"{game_id}: {r['violations']} honesty violation(s) in the audit; the first: "
                                 f"{msgs[0] if msgs else '?'}")
    f = r["features"]
    assert not f["violations"] and f["vectors"] > 0, (f"{game_id}: the observation vector reads what a seat may "
                                                      f"not see: {msgs[0] if msgs else '?'}")
    differ = r["redeal"]["differ"]
    assert not differ, (f"{game_id}: a re-deal leaves hidden words behind (a world differs when only what "
                        f"the seat cannot see differs): {', '.join(f'{k} ({n} words)' for k, n in differ.items())}; "
                        "declare the part hidden (it is cleared) or derived (re-make it in the game's re-deal hooks)"
                        + ("; or the game's honour_shown reads more than what the seat sees and the world"
                           if get_game(game_id).model().RULES.honour_shown is not None else ""))
    assert r["redeal"]["positions"] > 0, f"{game_id}: the re-deal check found no position to check"
    impossible = r["redeal"]["impossible"]
    assert not impossible, (f"{game_id}: the search's re-deal made {len(impossible)} world(s) that no re-deal "
                            f"could deal or that change the deciding seat's legal actions; the first: "
                            f"{impossible[0]}")
    parted = r["redeal"]["unsafe"]["parted"]
    assert not parted, (f"{game_id}: what a re-deal clears still matters to the rules ({parted[0]}): declare "
                        "the book public if every seat knows it, else derived, re-made by the re-deal hooks")
    return r


def _spec(name: str, p, value: float) -> str:
    return f"{name}:{p.name}={fmt_number(value)}"  # exact: a bound as the command line reads it


def _mixed(game, spec: str, name: str, players: int) -> str:
    """``spec`` in seat 0, the game's other strategies in the other seats."""
    others = [n for n in game.strategies if n != name] or [name]
    return ",".join([spec] + [others[i % len(others)] for i in range(players - 1)])


def _params(game):
    return [(s.name, p) for s in game.strategies.values() for p in s.params]


def check_parameter_bounds(game_id: str, games: int = 120) -> None:
    game = get_game(game_id)
    for name, p in _params(game):
        sets, _ = needed_rules(p.help)
        for value in (p.lo, p.hi):
            spec = _spec(name, p, value)
            for rules in ([[]] + ([sets] if sets else [])):
                for players in sorted({game.min_players, game.default_players, game.max_players}):
                    s = runner.make_setup(game_id, players, rules, spec, seed=11)
                    assert runner.run(s, games, jobs=1).games == games
                s = runner.make_setup(game_id, game.max_players, rules,
                                      _mixed(game, spec, name, game.max_players), seed=13)
                assert runner.run(s, games, jobs=1).games == games


def check_no_dead_parameter(game_id: str, games: int = 400) -> None:
    game = get_game(game_id)
    for name, p in _params(game):
        sets, players = needed_rules(p.help)
        tallies = [runner.run(runner.make_setup(game_id, players or game.default_players, sets,
                                                _spec(name, p, v), seed=5), games, jobs=1).tally.data
                   for v in (p.lo, p.hi)]
        rule = f" under {', '.join(sets)}" if sets else " under the default rules"
        assert not np.array_equal(*tallies), (
            f"{game_id} {name}:{p.name} plays the same {games} games at {p.lo:g} and {p.hi:g}{rule}: "
            f"make it matter, or name the rule it needs in its help as 'with KNOB=VALUE'")


def check_identity(s: dict) -> None:
    """The JSON identity: wins by seat plus no-winner games make every game, exactly."""
    n, unit = s["games"], s["win_unit"]
    assert sum(s["wins_by_seat"]) + unit * s["no_winner_games"] == unit * n
    assert abs(math.fsum(s["win_rate_by_seat"]) + s["no_winner_rate"] - 1.0) <= 1e-12
    for w, r in zip(s["wins_by_seat"], s["win_rate_by_seat"]):
        assert r == w / unit / n  # full precision, not rounded
    assert s["no_winner_rate"] == s["no_winner_games"] / n
    assert s["unfinished_rate"] == s["unfinished_games"] / n


def check_json_identity(game_id: str, games: int = 1001) -> None:
    """The identity on the JSON ``cardlab simulate --json`` prints, for every player count
    (run as a user runs it: the kit imports nothing of the analysis layer)."""
    game = get_game(game_id)
    for players in range(game.min_players, game.max_players + 1):
        check_identity(simulate_json(game_id, ["--games", str(games), "--players", str(players), "--seed", "7",
                                               "--strategies", "reference", "--jobs", "1"], False))


def bad_values(k) -> list[str]:
    """Values a knob must refuse."""
    if k.kind == "bool":
        return ["maybe", "2", ""]
    if k.kind == "choice":
        return ["nope", str(k.choices[0]).upper() + "X"]
    if k.kind in ("int", "float") and k.hi is not None:
        return [str(k.hi + 1) if k.kind == "int" else str(k.hi * 2 + 1), "abc"]
    return ["abc"]


def check_bad_knobs(game_id: str) -> None:
    game = get_game(game_id)
    for k in game.knobs:
        for v in bad_values(k):
            try:
                runner.make_setup(game_id, game.default_players, [f"{k.name}={v}"], None, 1)
            except InputError as e:
                assert k.name in str(e) and "\n" not in str(e), f"{game_id}: {k.name}={v!r} refused as {e!r}"
            else:
                raise AssertionError(f"{game_id}: knob {k.name} accepts the bad value {v!r}")
    for p in (game.min_players - 1, game.max_players + 1):
        try:
            runner.make_setup(game_id, p, [], None, 1)
        except InputError as e:
            assert f"--players {p}" in str(e), f"{game_id}: --players {p} refused as {e!r}"
        else:
            raise AssertionError(f"{game_id}: {p} players accepted")


# what a golden-trace failure tells the designer to do
_RERECORD = ("a rules change shows here first: if the rules page asks for it (your rule tests say why), "
             "write the game anew with python scripts/golden.py --trace {game_id}; else the change is a slip")


def check_golden_trace(game_id: str) -> None:
    path = GOLDEN_TRACES / f"{game_id}.jsonl"
    assert path.is_file(), f"{game_id}: no golden trace: write it with python scripts/golden.py --trace {game_id}"
    want = path.read_text().splitlines()
    got = golden_trace_lines(game_id)
    for i, (a, b) in enumerate(zip(want, got)):
        assert a == b, (f"{game_id}: the golden trace differs at line {i}:\n  golden: {a[:300]}\n  now:    {b[:300]}"
                        f"\n{_RERECORD.format(game_id=game_id)}")
    assert len(want) == len(got), (f"{game_id}: the golden trace has {len(want)} lines, the game now {len(got)}; "
                                   + _RERECORD.format(game_id=game_id))


RANDOM_EDGE = 0.05      # a seat's win share under uniformly random play this far from fair ...
RANDOM_GAMES = 4000     # ... on this many games, beyond its 95% interval: "worth a look"


def random_play_smoke(game_id: str, games: int = RANDOM_GAMES, margin: float = RANDOM_EDGE) -> list[str]:
    """Every seat's win share when every seat plays the game's ``random`` strategy (uniform
    over ``legal``), at the default player count: a seat whose 95% interval lies wholly more
    than ``margin`` from the fair share is "worth a look" (a rule slip such as a discard
    that wins a trick shows here first).  Not a failure: some games are unfair under random
    play.  Returns one line per such seat (none: nothing to look at)."""
    from scipy.stats import binomtest

    game = get_game(game_id)
    if "random" not in game.strategies:
        return [f"{game_id}: no 'random' strategy, so no random-play smoke check"]
    setup = runner.make_setup(game_id, None, None, "random", 29)
    t = runner.run(setup, games, jobs=1).tally
    P, fair = setup.players, 1.0 / setup.players
    out = []
    for seat in range(P):
        wins = int(round(float(t.wins[seat])))  # shared wins count a share (rounded for the interval)
        lo, hi = binomtest(wins, games).proportion_ci(0.95)
        if lo > fair + margin or hi < fair - margin:
            out.append(f"{game_id}: worth a look: under uniformly random play seat {seat} wins "
                       f"{100 * wins / games:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] of {games:,} games "
                       f"({P} players, fair {100 * fair:.1f}%, margin {100 * margin:.0f} points)")
    return out


CHECKS: dict[str, Callable[[str], object]] = {
    "conservation": check_conservation,
    "legal_complete": check_legal_complete,
    "trace_equals_fast": check_trace_equals_fast,
    "compiled_equals_python": check_compiled_equals_python,
    "jobs_identical": check_jobs_identical,
    "audit": check_audit,
    "honesty": check_honesty,
    "parameter_bounds": check_parameter_bounds,
    "no_dead_parameter": check_no_dead_parameter,
    "json_identity": check_json_identity,
    "bad_knobs": check_bad_knobs,
    "golden_trace": check_golden_trace,
    "shape_noted": check_shape_noted,
    "lead_in_trace": check_lead_in_trace,
    "trace_zones": check_trace_zones,
}


@contextmanager
def no_history():
    """Nothing run inside records into the run history (``analysis/history.py``): the
    switch ``CARDLAB_HISTORY=off`` is set for the block (and every process it starts),
    then put back as it was."""
    old = os.environ.get(HISTORY_ENV)
    os.environ[HISTORY_ENV] = "off"
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(HISTORY_ENV, None)
        else:
            os.environ[HISTORY_ENV] = old


def check_game(game_id: str, only: list[str] | None = None) -> None:
    """Run every conformance check (or ``only`` those) on ``game_id``; AssertionError
    names the check and what failed.  It never writes to the user's run history
    (``no_history``)."""
    import warnings

    get_game(game_id)  # an unknown id fails here, in one line
    with no_history():
        for name in (only or CHECKS):
            try:
                CHECKS[name](game_id)
            except AssertionError as e:
                raise AssertionError(f"check_game({game_id!r}): {name} failed: {e}") from e
        if only is None:  # the smoke check: never a failure, a note worth a look
            for line in random_play_smoke(game_id):
                warnings.warn(line, stacklevel=2)


def conformance_tests(game_id: str):
    """A pytest test function, parametrized with one case per check, for a game's test
    file: ``test_conformance = conformance_tests("my_game")``."""
    import pytest

    @pytest.mark.parametrize("check", list(CHECKS))
    def test_conformance(check):
        with no_history():
            CHECKS[check](game_id)

    return test_conformance
