"""The ``cardlab`` command: thin wiring from typer to the sim, strategies and analysis layers.

It parses the options and prints; what a command runs lives below it (the report pipeline
and its default sizes in ``analysis/pipeline.py``; the layers: docs/architecture.md).

Every bad input ends with one line on stderr and exit status 2, never a traceback.
Heavy modules (numba kernels, pandas, matplotlib) are imported inside the commands
that need them, so ``cardlab games`` is instant and ``simulate`` starts fast.
"""
from __future__ import annotations

import json
import sys
from typing import List, Optional

import typer

try:  # typer >= 0.20 vendors click
    from typer._click import exceptions as _cx
except ImportError:  # pragma: no cover - older typer on real click
    from click import exceptions as _cx

from cardlab.analysis import pipeline  # the report pipeline and its default sizes (imports nothing heavy)
from cardlab.sim.errors import InputError, RunError

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False, rich_markup_mode=None,
                  help="Monte Carlo balance analysis for tabletop card games.")

GamesOpt = typer.Option(10_000, "--games", "-n", help="Number of games to play.")
SeedOpt = typer.Option(1, "--seed", "-s", help="Root seed: game i is seeded from (seed, i).")
PlayersOpt = typer.Option(None, "--players", "-p", help="Players (default: the game's default).")
SetOpt = typer.Option(None, "--set", help="Override a rule knob: KEY=VALUE (repeatable).")
StratOpt = typer.Option(None, "--strategies", help="One strategy per seat, comma-separated "
                        "(a shorter list repeats); parameters as NAME:key=value:key=value.")
JobsOpt = typer.Option(None, "--jobs", "-j", help="Parallel workers (default: all cores).")
BackendOpt = typer.Option("local", "--backend", help="local (threads) or dask.")
SchedulerOpt = typer.Option(None, "--scheduler", help="Dask scheduler address (with --backend dask; default: a "
                            "LocalCluster).")
NoHistOpt = typer.Option(False, "--no-history", help="Do not record this run in the run history "
                         "(`cardlab history`).")


def _rules_of(game_id: str, players, sets) -> dict:
    """Every knob's value of a run given as --set lines (for its history record)."""
    try:
        s = _setup(game_id, players, sets, None, 1)
    except InputError:  # a sweep varying players beyond the default's range: the summary says
        return None
    return s.game.rules_json(s.rules)


def _record(command: str, payload: dict, no_history: bool, **known) -> None:
    """Record a finished run (after its result is printed: the record never holds it up)."""
    if no_history:
        return
    from cardlab.analysis.history import record_run

    record_run(command, payload, **known)


def _setup(game_id, players, sets, strategies, seed):
    from cardlab.sim.runner import make_setup

    return make_setup(game_id, players, sets, strategies, seed)


@app.command()
def games(as_json: bool = typer.Option(False, "--json", help="Print JSON.")):
    """List the shipped games."""
    from cardlab.sim.registry import game_ids, get_game

    rows = [get_game(g) for g in game_ids()]
    if as_json:
        print(json.dumps([{"game": g.id, "title": g.title, "players": [g.min_players, g.max_players],
                           "default_players": g.default_players} for g in rows], indent=2))
        return
    width = max(len(g.id) for g in rows)  # a designer's game may have a longer id
    for g in rows:
        print(f"{g.id:{width}s} {g.min_players}-{g.max_players} players  {g.title}")


@app.command()
def rules(game: str = typer.Argument(..., help="Game id (see `cardlab games`)."),
          as_json: bool = typer.Option(False, "--json", help="Print JSON.")):
    """List every rule knob of GAME with its default, allowed values and meaning."""
    from cardlab.sim.registry import get_game

    g = get_game(game)
    if as_json:
        print(json.dumps([{"name": k.name, "type": k.kind, "default": g.rules_json({k.name: k.default} | {
            kk.name: kk.default for kk in g.knobs})[k.name], "allowed": k.allowed(), "help": k.help,
            "compensation": k.compensation} for k in g.knobs], indent=2))
        return
    print(f"{g.id}: {g.title}  (players {g.min_players}-{g.max_players}, default {g.default_players})")
    w = max(len(k.name) for k in g.knobs)
    for k in g.knobs:
        tag = " [compensation]" if k.compensation else ""
        print(f"  {k.name:<{w}}  = {k.show(k.default):<8} {k.help}  [{k.allowed()}]{tag}")
    print(f"\nOverride with --set KEY=VALUE, e.g. --set {g.knobs[0].name}={g.knobs[0].show(g.knobs[0].default)}")
    if any(k.compensation for k in g.knobs):
        print("[compensation]: not in the rulebook, a balancing option (its default is the printed game; "
              "cardlab balance searches it)")


@app.command()
def strategies(game: str = typer.Argument(..., help="Game id."),
               as_json: bool = typer.Option(False, "--json", help="Print JSON.")):
    """List the strategies of GAME and their parameters."""
    from cardlab.sim.registry import get_game

    g = get_game(game)
    strats = g.all_strategies.values()
    if as_json:
        print(json.dumps([{"name": s.name, "help": s.help, "params": [
            {"name": p.name, "default": p.default, "low": p.lo, "high": p.hi, "integer": p.integer,
             "help": p.help} for p in s.params]} for s in strats], indent=2))
        return
    for s in strats:
        print(f"{s.name}: {s.help}")
        for p in s.params:
            print(f"    {p.name} = {p.show(p.default)}  {p.allowed()}  {p.help}")
    print(f"\nUse --strategies NAME[,NAME...]; parameters as NAME:key=value, e.g. "
          f"--strategies {next(iter(g.strategies))},{list(g.strategies)[-1]}")


@app.command()
def simulate(game: str = typer.Argument(..., help="Game id."),
             n_games: int = GamesOpt, players: Optional[int] = PlayersOpt, seed: int = SeedOpt,
             jobs: Optional[int] = JobsOpt, sets: Optional[List[str]] = SetOpt,
             strategies: Optional[str] = StratOpt,
             as_json: bool = typer.Option(False, "--json", help="Print one JSON object (the contract)."),
             quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
             backend: str = BackendOpt, scheduler: Optional[str] = SchedulerOpt,
             out: Optional[str] = typer.Option(None, "--out", "-o", help="Run folder: every finished "
                                               "chunk is saved there (for --resume) with summary.json."),
             resume: bool = typer.Option(False, "--resume", help="Continue the run saved in --out."),
             no_history: bool = NoHistOpt):
    """Play many games of GAME and summarize win rates, seat advantage, length and card power."""
    from cardlab.analysis.summary import render_text, summarize
    from cardlab.sim import runner

    setup = _setup(game, players, sets, strategies, seed)
    runner.check_counts(n_games, seed, jobs)
    if resume and not out:
        raise InputError("--resume needs --out RUN_FOLDER (the folder of the run to continue)")
    advance, bar = runner.progress_bar(n_games, enabled=None if not (as_json or quiet) else False)
    with bar:
        result = runner.run(setup, n_games, jobs, progress=advance, backend=backend,
                            scheduler=scheduler, checkpoint=out, resume=resume)
    summary = summarize(result)
    if out:
        from pathlib import Path

        (Path(out) / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    if as_json:
        print(json.dumps(summary))
    else:
        print(render_text(summary))
    _record("simulate", summary, no_history)


@app.command()
def plan(game: str = typer.Argument(..., help="Game id."),
         precision: float = typer.Option(1.0, "--precision", help="The 95% interval's half-width "
                                         "wanted, in points of win rate (1: +-1 point)."),
         players: Optional[str] = typer.Option(None, "--players", "-p", help="Players (default: the "
                                               "game's default); several, comma-separated, plan each."),
         seed: int = SeedOpt, jobs: Optional[int] = JobsOpt, sets: Optional[List[str]] = SetOpt,
         strategies: Optional[str] = StratOpt,
         strong: Optional[str] = typer.Option(None, "--strong", help="The strong player, in every seat "
                                              "(default: the game's, as in a report); 'none': no strong play."),
         pilot_games: int = typer.Option(2_000, "--pilot-games", help="Games of the pilot that measures "
                                         "the shares and the speed (at least 100)."),
         strong_pilot_games: int = typer.Option(16, "--strong-pilot-games", help="Games of strong play "
                                                "that time it (more: a steadier estimate, longer)."),
         as_json: bool = typer.Option(False, "--json", help="Print one JSON object.")):
    """How many games each headline figure (each seat's share, seat 0 - seat 1, the unfinished
    rate, each seat's share under strong play) needs for a 95% interval of +-PRECISION points,
    and about how long they take here, estimated from a short timed pilot."""
    from cardlab.analysis import plan as planner

    counts = planner.parse_players(players)
    planner.check_points(precision)
    setup = _setup(game, counts[0] if counts else None, sets, strategies, seed)
    p = planner.plan(setup, precision, counts[1:], strategies=strategies, strong=strong, jobs=jobs,
                     pilot_games=pilot_games, strong_pilot_games=strong_pilot_games)
    print(json.dumps(p.to_dict()) if as_json else planner.render_text(p))


@app.command()
def audit(game: str = typer.Argument(..., help="Game id."),
          decisions: int = typer.Option(300, "--decisions", help="Decisions audited per setting of the plan."),
          search_decisions: int = typer.Option(8, "--search-decisions", help="Decisions of the search "
                                               "player per rollout heuristic (4 worlds each)."),
          deep: bool = typer.Option(False, "--deep", help="10,000 decisions per setting (at least 30,000 "
                                    "per strategy: a cheat acting once in 10,000 decisions is caught with "
                                    "probability >= 95%) and 100 of the search player per rollout."),
          seed: int = typer.Option(17, "--seed", "-s", help="Root seed of the audited games."),
          as_json: bool = typer.Option(False, "--json", help="Print the whole audit as one JSON object."),
          quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar.")):
    """The honesty audit: every strategy's decisions run as plain Python over a state that
    checks every word read and written against what the deciding seat may see, in every
    setting of the game's plan, and both re-deals checked to leave nothing hidden behind
    (the search's worlds checked to be ones a re-deal could deal, with the deciding seat's
    legal actions).  Exit status 1 when a strategy reads or writes what it may not, or a
    re-deal fails its check (docs/honesty.md)."""
    from cardlab.sim import audit as auditor
    from cardlab.sim import runner
    from cardlab.sim.registry import get_game

    get_game(game)  # an unknown game: one line, exit 2
    for name, v in (("--decisions", decisions), ("--search-decisions", search_decisions)):
        if v < 1:
            raise InputError(f"bad {name} {v}: at least 1")
    if deep:
        decisions, search_decisions = max(decisions, 10_000), max(search_decisions, 100)
    n = len(auditor.audit_plan(game, decisions, search_decisions))
    advance, bar = runner.progress_bar(n, enabled=None if not (as_json or quiet) else False, work=True)
    with bar:
        r = auditor.run_audit(game, decisions, search_decisions, seed,
                              progress=(lambda i, total: advance(1)) if advance else None)
    print(json.dumps(r) if as_json else auditor.summary(r))
    bad = r["violations"] or (r["redeal"] and (r["redeal"]["differ"] or r["redeal"]["impossible"]))
    raise typer.Exit(1 if bad else 0)


@app.command()
def trace(game: str = typer.Argument(..., help="Game id."),
          seed: int = SeedOpt, players: Optional[int] = PlayersOpt,
          sets: Optional[List[str]] = SetOpt, strategies: Optional[str] = StratOpt,
          index: int = typer.Option(0, "--index", help="Game index within the seed's sequence."),
          out: str = typer.Option("-", "--out", "-o", help="Output file (JSON Lines); - for stdout.")):
    """Write one game as JSON Lines: header, every event with the zones after it, result."""
    from cardlab.sim.trace import trace as run_trace

    setup = _setup(game, players, sets, strategies, seed)
    lines = run_trace(setup, index)
    text = "".join(json.dumps(x) + "\n" for x in lines)
    if out == "-":
        sys.stdout.write(text)
    else:
        try:
            with open(out, "w") as fh:
                fh.write(text)
        except OSError as e:
            raise InputError(f"cannot write --out {out!r}: {e.strerror}") from None
        print(f"wrote {len(lines) - 2} events of game {index} to {out}", file=sys.stderr)


@app.command()
def replay(trace_file: str = typer.Argument(..., metavar="TRACE.jsonl", help="A trace (`cardlab trace`, "
                                            "`cardlab play --save`)."),
           out: str = typer.Option("replay.html", "--out", "-o", help="The viewer page to write."),
           seat: Optional[int] = typer.Option(None, "--seat", help="Open in this seat's view (what it "
                                              "sees) instead of everything.")):
    """Write a self-contained HTML replay viewer of one traced game: every zone per seat,
    step back / forward / play (buttons, arrow keys), the events in words, and a toggle
    between everything and what one seat sees."""
    from cardlab.analysis.replay_view import read_trace, write_replay

    lines = read_trace(trace_file)
    p = write_replay(lines, out, seat=seat)
    print(f"wrote a replay of {len(lines) - 2} events to {p}", file=sys.stderr)


@app.command()
def report(game: str = typer.Argument(..., help="Game id."),
           n_games: int = GamesOpt, players: Optional[int] = PlayersOpt, seed: int = SeedOpt,
           jobs: Optional[int] = JobsOpt, sets: Optional[List[str]] = SetOpt,
           strategies: Optional[str] = StratOpt,
           out: Optional[str] = typer.Option(None, "--out", "-o", help="Report folder "
                                             "(default: reports/GAME)."),
           tournament: Optional[str] = typer.Option(
               None, "--tournament", help="Also play a tournament of these strategies "
               "(comma-separated; 'all' for every strategy of the game) and add its heat map."),
           tournament_games: int = typer.Option(pipeline.TOURNAMENT_GAMES, "--tournament-games",
                                                help="Tournament games per seat order."),
           pools: Optional[str] = typer.Option(
               None, "--pools", help="Seat verdicts across pools: comma-separated pool names, "
               "each a strategy in self-play (parameters allowed; mcts too) or 'mixed' (every "
               "game draws each seat's strategy from the heuristics); 'none' to skip. Default: "
               "every heuristic but random, and mixed (not mcts: slow)."),
           pools_games: Optional[int] = typer.Option(
               None, "--pools-games", help="Games per pool (default: --games / 20, at least "
               "2,000, at most 50,000, never more than --games)."),
           causal_games: Optional[int] = typer.Option(None, "--causal-games", help="Causal card power "
                                                      "(cardlab cardpower): games per card type, shown "
                                                      "beside IWD and used in the verdict and findings "
                                                      "(default: --games / 50, from 200 to 2,000; 0: off; "
                                                      "off when a seat plays mcts)."),
           with_ladder: bool = typer.Option(False, "--ladder", help="Add the skill curve (cardlab ladder) "
                                            "and the restricted-play table (cardlab restricted), "
                                            "with their verdicts."),
           ladder_budgets: str = typer.Option(pipeline.LADDER_BUDGETS, "--ladder-budgets", help="With --ladder: "
                                              "mcts iterations per rung."),
           ladder_games: int = typer.Option(pipeline.LADDER_GAMES, "--ladder-games", help="With --ladder: games "
                                            "per rung and seat against the field (self-play the same; "
                                            "the rungs' tournament a quarter), and per seat and "
                                            "restriction in restricted play."),
           with_restricted: bool = typer.Option(True, "--restricted/--no-restricted", help="With --ladder: "
                                                "also the restricted-play table."),
           replay_games: Optional[int] = typer.Option(None, "--replay-games", help="Games of the sample "
                                                      "run the embedded replays are chosen from (default: "
                                                      "2,000, never more than --games; 200 when a seat "
                                                      "plays mcts; 0: no replays)."),
           strong: Optional[str] = typer.Option(
               None, "--strong", help="The strong pool's player, in every seat: its headlines are "
               "classified by it (about the game, an artefact of the heuristics, ...). Default: the "
               "game's strong player (mcts at a budget that beats its heuristics); 'none': no strong pool."),
           strong_games: Optional[int] = typer.Option(
               None, "--strong-games", help="Games of the strong pool (default: enough for each seat's "
               "share to +-2.5 points)."),
           strength_games: Optional[int] = typer.Option(
               None, "--strength-games", help="Games per heuristic, head to head with the strong player, "
               "that measure its strength (default: 300; 0: not measured)."),
           variant_games: Optional[int] = typer.Option(None, "--variant-games", help="Games per rule "
                                                       "variant (default: --games)."),
           luck_deals: int = typer.Option(pipeline.LUCK_DEALS, "--luck-deals", help="The luck profile "
                                          "(cardlab luck): deals, each replayed in every seat order "
                                          "and with other draws (0: off; off when a seat plays mcts)."),
           quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
           backend: str = BackendOpt, scheduler: Optional[str] = SchedulerOpt,
           no_history: bool = NoHistOpt):
    """Simulate GAME and write a report folder: index.html (self-contained), report.md,
    the figures as PNG, the raw tables as CSV, summary.json and replays/ (viewer pages of
    a few sampled games: typical, longest, capped, closest, most lopsided)."""
    from pathlib import Path

    paths, out = pipeline.run_report(
        game, n_games, players, seed, jobs, sets, strategies, out=out, tournament=tournament,
        tournament_games=tournament_games, pools=pools, pools_games=pools_games, causal_games=causal_games,
        with_ladder=with_ladder, ladder_budgets=ladder_budgets, ladder_games=ladder_games,
        with_restricted=with_restricted, replay_games=replay_games, quiet=quiet, strong=strong,
        strong_games=strong_games, strength_games=strength_games, luck_deals=luck_deals,
        variant_games=variant_games, backend=backend, scheduler=scheduler)
    print(f"wrote {paths['index.html']} and {len(paths) - 1} other files to {out}", file=sys.stderr)
    _record("report", json.loads((Path(out) / "summary.json").read_text()), no_history)


@app.command()
def cardpower(game: str = typer.Argument(..., help="Game id."),
              n_games: int = typer.Option(2000, "--games", "-n", help="Games per card type "
                                          "(each played twice: with the card and without)."),
              players: Optional[int] = PlayersOpt, seed: int = SeedOpt,
              jobs: Optional[int] = JobsOpt, sets: Optional[List[str]] = SetOpt,
              strategies: Optional[str] = StratOpt,
              cards: Optional[str] = typer.Option(None, "--cards", help="Only these card codes "
                                                  "(comma-separated; default: every card type)."),
              as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
              quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
              no_history: bool = NoHistOpt):
    """Causal card power: the value of starting with each card type (same seeds, with the
    card and without it, paired), with 95% intervals and Benjamini-Hochberg across cards."""
    from cardlab.analysis.causal import render_text, run_causal
    from cardlab.sim import runner

    setup = _setup(game, players, sets, strategies, seed)  # bad input fails before the bar
    runner.check_counts(n_games, seed, jobs)
    codes = [c for c in (cards or "").split(",") if c] or None
    advance, bar = runner.progress_bar(n_games, enabled=None if not (as_json or quiet) else False)
    with bar:
        c = run_causal(setup.game.id, setup.players, strategies, n_games, seed, jobs, sets, codes,
                       progress=advance)
    print(json.dumps(c) if as_json else render_text(c))
    _record("cardpower", c, no_history, **setup.identity())


@app.command()
def luck(game: str = typer.Argument(..., help="Game id."),
         n_games: int = typer.Option(2000, "--games", "-n", help="Deals (each played in every seat "
                                     "order, --draws times each)."),
         players: Optional[int] = PlayersOpt, seed: int = SeedOpt,
         jobs: Optional[int] = JobsOpt, sets: Optional[List[str]] = SetOpt,
         strategies: Optional[str] = StratOpt,
         draws: int = typer.Option(2, "--draws", help="Replays of each deal and seat order, each "
                                   "with different later draws (2 to 16)."),
         ladder: Optional[str] = typer.Option(None, "--ladder", help="A ladder's JSON (e.g. "
                                              "reports/ladders/GAME_default.json): add its skill measure."),
         as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
         quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar.")):
    """The luck profile: how much of who wins the deal, the later draws, the seat order and
    the players decide (same deals replayed, 95% intervals), and a ladder's skill spread."""
    from cardlab.analysis.luck import render_text, run_luck
    from cardlab.sim import runner

    _setup(game, players, sets, strategies, seed)  # bad input fails before the bar
    runner.check_counts(n_games, seed, jobs)
    advance, bar = runner.progress_bar(n_games, enabled=None if not (as_json or quiet) else False,
                                       work=True)  # counts deals: the share done, not games/s
    with bar:
        p = run_luck(game, n_games, players, sets, strategies, seed, jobs, draws, progress=advance,
                     ladder=ladder)
    print(json.dumps(p.to_dict()) if as_json else render_text(p))


@app.command()
def demo(n_games: int = typer.Option(pipeline.DEMO_GAMES, "--games", "-n", help="Games per shipped game."),
         jobs: Optional[int] = JobsOpt,
         out: str = typer.Option("reports/demo", "--out", "-o", help="Demo folder."),
         ladder_games: int = typer.Option(pipeline.DEMO_LADDER_GAMES, "--ladder-games", help="Games per rung and "
                                          "seat of a small skill ladder per game (mcts at 16 and 64 "
                                          "iterations); 0: no ladder."),
         strong: bool = typer.Option(True, "--strong/--no-strong", help="Each game's strong pool (its "
                                     "strong player in every seat; seat shares to +-4 points), which "
                                     "classifies its headlines."),
         strong_games: Optional[int] = typer.Option(None, "--strong-games", help="Games of each strong pool "
                                                    "(default: enough for +-4 points)."),
         strength_games: int = typer.Option(pipeline.DEMO_STRENGTH_GAMES, "--strength-games", help="Games per "
                                            "heuristic, head to head with the strong player (default 0: not measured; a report measures it)."),
         quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar.")):
    """Simulate every shipped game with its defaults and write OUT/index.html linking one
    report per game (OUT/GAME/index.html), each with a strong pool that classifies its headlines."""

    def said(gid, summary, lad):
        print(f"{gid}: {summary['verdict']}" + (f"\n  skill: {lad.verdict}" if lad is not None else "") + "\n")

    index = pipeline.run_demo(n_games, jobs, out, ladder_games=ladder_games, quiet=quiet, on_game=said,
                              strong=strong, strong_games=strong_games, strength_games=strength_games)
    print(f"wrote {index}", file=sys.stderr)


@app.command()
def tournament(game: str = typer.Argument(..., help="Game id."),
               strategies: str = typer.Option(..., "--strategies", help="At least 2 distinct "
                                              "strategies, comma-separated; parameters as "
                                              "NAME:key=value."),
               n_games: int = typer.Option(2000, "--games", "-n", help="Games per seat order."),
               players: Optional[int] = PlayersOpt, seed: int = SeedOpt,
               jobs: Optional[int] = JobsOpt, sets: Optional[List[str]] = SetOpt,
               as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
               quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
               backend: str = BackendOpt, scheduler: Optional[str] = SchedulerOpt,
               no_history: bool = NoHistOpt):
    """Play every pairing of the strategies in every seat order: win-rate matrix,
    Bradley-Terry ratings with intervals, and whether one strategy dominates."""
    from cardlab.analysis.tournament import check_strategies, render_text, run_tournament
    from cardlab.sim import runner
    from cardlab.sim.registry import get_game

    names = check_strategies(strategies)
    runner.check_counts(n_games, seed, jobs)
    p = get_game(game).default_players if players is None else players
    show = not (as_json or quiet)
    total, weighted = pipeline.tournament_total(game, names, p, n_games, sets, show)
    advance, bar = runner.progress_bar(total, enabled=None if show else False, work=weighted)
    with bar:
        t = run_tournament(game, names, players, n_games, seed, jobs, sets, progress=advance, weighted=weighted,
                           backend=backend, scheduler=scheduler)
    if as_json:
        print(json.dumps(t.to_dict()))
    else:
        print(render_text(t))
    _record("tournament", t.to_dict(), no_history, strategies=names)


@app.command()
def ladder(game: str = typer.Argument(..., help="Game id."),
           budgets: str = typer.Option("16,64,256,1024", "--budgets", help="mcts iterations per rung, "
                                       "rising, comma-separated."),
           field: str = typer.Option("reference", "--field", help="The strategy in the other seats."),
           n_games: int = typer.Option(2000, "--games", "-n", help="Games per rung and seat against the field."),
           self_games: Optional[int] = typer.Option(None, "--self-games", help="Self-play games per rung "
                                                    "(default: --games)."),
           versus_games: Optional[int] = typer.Option(None, "--versus-games", help="Games per pairing "
                                                      "of rungs in their tournament, shared by its seat orders "
                                                      "(default: --games / 4)."),
           also: Optional[str] = typer.Option(None, "--also", help="More rungs beside the heuristics, "
                                              "comma-separated, or none (default: learned,"
                                              "mcts:iterations=128:value=1 when a learned model for the "
                                              "game and table is found, none otherwise)."),
           players: Optional[int] = PlayersOpt, seed: int = SeedOpt,
           jobs: Optional[int] = JobsOpt, sets: Optional[List[str]] = SetOpt,
           as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
           quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
           backend: str = BackendOpt, scheduler: Optional[str] = SchedulerOpt,
           no_history: bool = NoHistOpt):
    """The skill curve: random, every heuristic and mcts at rising budgets, each against a
    field rotated through every seat on the same deals; Bradley-Terry ratings, skill
    headroom, whether the curve still rises, the luck share, the seat edge by skill."""
    from cardlab.analysis.ladder import default_also, parse_also, parse_budgets, render_text, run_ladder, total_work
    from cardlab.sim import runner
    from cardlab.sim.registry import get_game

    b = parse_budgets(budgets)
    g = get_game(game)
    runner.check_counts(n_games, seed, jobs)
    p = g.default_players if players is None else players
    if also is None:
        more, why = default_also(g.id, p)
        if why:
            print(f"note: {why}", file=sys.stderr)
    else:
        more = parse_also(also)
    sg = n_games if self_games is None else self_games
    vg = max(1, n_games // 4) if versus_games is None else versus_games
    for n, name in ((sg, "--self-games"), (vg, "--versus-games")):
        if n < 1:
            raise InputError(f"bad {name} {n}: allowed 1 or more")
    show = not (as_json or quiet)
    try:
        total = total_work(game, b, field, p, n_games, sg, vg, sets, more) if show else 0
    except InputError:
        total = 0  # run_ladder says what is wrong, before playing anything
    advance, bar = runner.progress_bar(total, enabled=None if show else False, work=True)
    with bar:
        lad = run_ladder(game, b, field, players, n_games, sg, vg, seed, jobs, sets, progress=advance, also=more,
                         backend=backend, scheduler=scheduler)
    print(json.dumps(lad.to_dict()) if as_json else render_text(lad))
    _record("ladder", lad.to_dict(), no_history, rules=_rules_of(game, p, sets), strategies=[field])


@app.command()
def learn(game: str = typer.Argument(..., help="Game id."),
          players: Optional[int] = PlayersOpt,
          generations: int = typer.Option(3, "--generations", "-g", help="Generations to train (a file "
                                          "that has fewer, made with the same settings and code, is continued)."),
          n_games: int = typer.Option(2000, "--games", "-n", help="Games sampled per generation."),
          every: Optional[int] = typer.Option(None, "--every", help="Decisions between sampled positions "
                                              "(default: what keeps a generation's data within 128 MB)."),
          eval_games: int = typer.Option(1200, "--eval-games", help="Games per opponent in each "
                                         "generation's strength table, shared by the seats."),
          hidden: int = typer.Option(0, "--hidden", help="Hidden units of the evaluation (0: linear)."),
          teacher: str = typer.Option("learned", "--teacher", help="The player whose games generation 2 on "
                                      "learns from: learned (the previous generation) or e.g. mcts:iterations=64 "
                                      "(search makes the data), mcts:iterations=64:value=1 (search scored by "
                                      "the previous generation)."),
          l2: float = typer.Option(1.0, "--l2", help="L2 penalty of the fit."),
          seed: int = SeedOpt, jobs: Optional[int] = JobsOpt, sets: Optional[List[str]] = SetOpt,
          out: Optional[str] = typer.Option(None, "--out", "-o", help="The model file (default: "
                                            "GAME-Np.json in the user's models folder, docs/search-and-ladder.md)."),
          fresh: bool = typer.Option(False, "--fresh", help="Train from scratch even if the file can be continued."),
          as_json: bool = typer.Option(False, "--json", help="Print the model's generations as one JSON object."),
          quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar or tables while training."),
          backend: str = BackendOpt, scheduler: Optional[str] = SchedulerOpt,
          no_history: bool = NoHistOpt):
    """Train the learned player's evaluation of a game, generation by generation (each from
    the previous one's games), with a strength table per generation: win rate against every
    heuristic and the previous generation, with 95% intervals."""
    from cardlab.analysis.learn import learn as run_learn
    from cardlab.analysis.learn import render_model
    from cardlab.sim import runner
    from cardlab.sim.registry import get_game

    g = get_game(game)
    p = g.default_players if players is None else players
    show = not (as_json or quiet)
    total = generations * (n_games + eval_games * (len(g.strategies) + 1)) if show else 0
    advance, bar = runner.progress_bar(total, enabled=None if show else False, work=True)
    say = None if not show else (lambda text: bar.console.print(text) if hasattr(bar, "console") else print(text))
    with bar:
        model, path = run_learn(game, p, generations, n_games, every, eval_games, seed, jobs, l2, hidden, sets,
                                out, resume=not fresh, progress=advance, say=say, teacher=teacher,
                                backend=backend, scheduler=scheduler)
    doc = model.to_json()
    doc["path"] = str(path)
    for gen in doc["generations"]:
        gen.pop("weights")
    print(json.dumps(doc) if as_json else render_model(model) + f"\nmodel: {path}")
    _record("learn", doc, no_history, rules=_rules_of(game, p, sets), strategies=["learned"])


@app.command()
def restricted(game: str = typer.Argument(..., help="Game id."),
               never: Optional[str] = typer.Option(None, "--never", help="Restrictions to test, comma-separated; "
                                                   "each a card type or action kind, or several joined by + "
                                                   "(default: every card type and action kind)."),
               iterations: int = typer.Option(32, "--iterations", help="The search player's budget (mcts "
                                              "iterations), restricted and not."),
               n_games: int = typer.Option(100, "--games", "-n", help="Games per seat and restriction."),
               players: Optional[int] = PlayersOpt, seed: int = SeedOpt,
               jobs: Optional[int] = JobsOpt, sets: Optional[List[str]] = SetOpt,
               as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
               quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
               backend: str = BackendOpt, scheduler: Optional[str] = SchedulerOpt,
               no_history: bool = NoHistOpt):
    """Restricted play: what never playing a card type (or never taking an action kind)
    costs the search player, against unrestricted search players on the same deals."""
    from cardlab.analysis.restricted import parse_never, render_text, run_restricted, total_games
    from cardlab.sim import runner

    setup = _setup(game, players, sets, None, seed)
    runner.check_counts(n_games, seed, jobs)
    items = parse_never(never, setup.game, setup.rules)
    total = total_games(len(items), setup.players, n_games)
    advance, bar = runner.progress_bar(total, enabled=None if not (as_json or quiet) else False)
    with bar:
        res = run_restricted(game, items, players, n_games, iterations, seed, jobs, sets, progress=advance,
                             backend=backend, scheduler=scheduler)
    print(json.dumps(res.to_dict()) if as_json else render_text(res))
    _record("restricted", res.to_dict(), no_history, rules=setup.game.rules_json(setup.rules),
            strategies=[res.player])


@app.command()
def sweep(game: str = typer.Argument(..., help="Game id."),
          vary: List[str] = typer.Option(..., "--vary", help="KEY=V1,V2,... to vary (repeatable): a rule "
                                         "knob, players, or strategies=A/B (each a per-seat list)."),
          n_games: int = GamesOpt, players: Optional[int] = PlayersOpt, seed: int = SeedOpt,
          jobs: Optional[int] = JobsOpt, sets: Optional[List[str]] = SetOpt,
          strategies: Optional[str] = StratOpt,
          out: str = typer.Option(..., "--out", "-o", help="Sweep folder: tables, finished variants "
                                  "(a rerun reuses them), report."),
          baseline: Optional[List[str]] = typer.Option(None, "--baseline", help="KEY=VALUE naming the "
                                                       "baseline variant (default: the rule defaults)."),
          precision: Optional[float] = typer.Option(None, "--precision", help="Add games to each variant "
                                                    "until every seat's win-rate interval is within ± this."),
          max_games: Optional[int] = typer.Option(None, "--max-games", help="Most games per variant with "
                                                  "--precision (default: 16 x --games)."),
          correction: str = typer.Option("holm", "--correction", help="Multiple-comparison "
                                         "adjustment across the grid: holm or bh."),
          make_report: bool = typer.Option(False, "--report", help="Also write index.html / report.md "
                                           "with plots."),
          quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
          no_history: bool = NoHistOpt):
    """Play every combination of --vary values on the same seeds and compare each variant
    with the baseline: paired differences with intervals, adjusted p-values, verdicts."""
    import math
    import shlex

    from cardlab.analysis.sweep import parse_vary
    from cardlab.analysis.sweep import sweep as run_sweep
    from cardlab.sim import runner

    grid_spec = parse_vary(vary)
    if precision is not None and max_games is None:
        max_games = 16 * n_games
    runner.check_counts(n_games, seed, jobs)
    size = math.prod(len(values) for _, values in grid_spec)  # sweep() validates the grid first
    advance, bar = runner.progress_bar(n_games * size, enabled=False if quiet else None)
    done = []

    def note(vr):
        done.append(vr)
        if not quiet:
            how = "reused" if vr.reused else f"{vr.result.games:,} games"
            print(f"  [{len(done)}/{size}] {vr.variant.label}: {how}", file=sys.stderr)

    with bar:
        res = run_sweep(game, grid_spec, games=n_games, seed=seed, out=out, sets=sets,
                        strategies=strategies, players=players, jobs=jobs, baseline=baseline,
                        precision=precision, max_games=max_games, correction=correction,
                        progress=advance, on_variant=note)
    args = ["cardlab", "sweep", game] + [a for kv in vary for a in ("--vary", kv)] + ["--games", str(n_games)]
    if players is not None:
        args += ["--players", str(players)]
    args += ["--seed", str(seed)] + [a for kv in sets or [] for a in ("--set", kv)]
    if strategies:
        args += ["--strategies", strategies]
    for kv in baseline or []:
        args += ["--baseline", kv]
    if precision is not None:
        args += ["--precision", str(precision), "--max-games", str(max_games)]
    args += ["--correction", correction, "--out", out] + (["--report"] if make_report else [])
    if make_report:
        from cardlab.analysis.sweep_report import write_report

        try:
            write_report(res, shlex.join(args), res.out)
        except OSError as e:
            raise InputError(f"cannot write the sweep report into {out!r}: {e.strerror}") from None
    cols = ["variant", "games", "first_player_advantage", "mean_length", "unfinished_rate", "balance"]
    table = res.results[cols].copy()
    table["first_player_advantage"] = (100 * table["first_player_advantage"]).map("{:+.1f} pts".format)
    table["unfinished_rate"] = (100 * table["unfinished_rate"]).map("{:.2f}%".format)
    table["mean_length"] = table["mean_length"].map("{:.2f}".format)
    print(table.to_string(index=False))
    print(f"\nbaseline: {res.baseline}")
    for v in res.verdicts:
        print(f"- {v}")
    print(f"\nwrote {', '.join(sorted(res.files))}{' and index.html' if make_report else ''} to {out}"
          + (f" ({res.reused} variant(s) reused from an earlier run)" if res.reused else ""))
    _record("sweep", {"game": game, "seed": seed, "games": n_games, "vary": vary, "baseline": res.baseline,
                      "verdicts": list(res.verdicts), "verdict": " ".join(str(v) for v in res.verdicts),
                      "results": json.loads(res.results.to_json(orient="records")),
                      "comparison": json.loads(res.comparison.to_json(orient="records"))},
            no_history, players=players, rules=_rules_of(game, players, sets),
            strategies=strategies.split(",") if strategies else None)


@app.command()
def balance(game: str = typer.Argument(..., help="Game id."),
            targets: List[str] = typer.Option(..., "--target", "-t", help="FIGURE=CENTER±TOL, FIGURE=LO..HI or "
                                              "FIGURE<VALUE (repeatable): seat_edge, seat0_edge (points), length "
                                              "(the game's unit), unfinished, no_winner, comeback, close (%), "
                                              "lead_changes."),
            knobs: Optional[str] = typer.Option(None, "--knobs", help="Knobs the search may change, comma-"
                                                "separated (default: every knob not fixed by --set)."),
            players: Optional[int] = PlayersOpt, seed: int = SeedOpt, jobs: Optional[int] = JobsOpt,
            sets: Optional[List[str]] = SetOpt, strategies: Optional[str] = StratOpt,
            budget: str = typer.Option("30m", "--budget", help="Wall time for the whole run: 90s, 30m, 1h30m."),
            n_games: int = typer.Option(2000, "--games", "-n", help="Games per candidate in the race's first round."),
            max_games: int = typer.Option(64_000, "--max-games", help="Most games per candidate in the search."),
            max_changes: int = typer.Option(2, "--max-changes", help="Most knobs one candidate changes (1-3)."),
            shortlist: int = typer.Option(3, "--shortlist", help="Candidates verified and reported."),
            strong: Optional[str] = typer.Option(None, "--strong", help="The strong player that judges the short "
                                                 "list (default: the game's; 'none' to skip)."),
            out: Optional[str] = typer.Option(None, "--out", "-o", help="Folder: index.html, balance.json, "
                                              "search.csv, replays, and every candidate's games (a rerun reuses them)."),
            backend: str = BackendOpt, scheduler: Optional[str] = SchedulerOpt,
            as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
            quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
            no_history: bool = NoHistOpt):
    """Propose the smallest rule changes that bring the figures into the --target bands: a race
    over the knobs on common random numbers, the short list verified on fresh games and judged
    under strong play."""
    import shlex
    import time

    from cardlab.analysis.balance_report import render_text
    from cardlab.analysis.balance_run import balance as run_balance
    from cardlab.analysis.balance_run import parse_budget

    secs = parse_budget(budget)
    show = not (as_json or quiet) and sys.stderr.isatty()
    t0 = time.perf_counter()
    bar, task = None, None
    if show:
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(), TimeElapsedColumn(),
                       TextColumn("spent, at most {task.fields[left]} left of the {task.fields[budget]} budget"),
                       transient=True, refresh_per_second=4)
        task = bar.add_task("searching", total=secs, budget=budget, left=budget)

    def tick(_n=0):
        if bar is not None:
            spent = min(secs, time.perf_counter() - t0)
            left = int(secs - spent)
            bar.update(task, completed=spent, left=f"{left // 60}m{left % 60:02d}s")

    def say(text):
        if bar is not None:
            bar.update(task, description=text[:60])
            tick()

    import contextlib

    with bar if bar is not None else contextlib.nullcontext():
        r = run_balance(game, targets, knobs=[k.strip() for k in knobs.split(",")] if knobs else None,
                        players=players, sets=sets, strategies=strategies, seed=seed, budget=secs, games=n_games,
                        max_games=max_games, max_changes=max_changes, shortlist=shortlist, strong=strong,
                        jobs=jobs, out=out, backend=backend, scheduler=scheduler, say=say, progress=tick,
                        command=shlex.join(["cardlab", *sys.argv[1:]]))
    doc = r.to_json()
    print(json.dumps(doc) if as_json else render_text(r) + (f"\n\nwrote {out}/index.html" if out else ""))
    _record("balance", doc, no_history, players=r.players, games=r.search_games,
            rules=_rules_of(game, r.players, sets), strategies=r.strategies)


@app.command()
def optimize(game: str = typer.Argument(..., help="Game id."),
             strategy: str = typer.Option(..., "--strategy", help="The strategy whose parameters are searched."),
             against: str = typer.Option(..., "--against", help="The field: strategies filling the other "
                                         "seats, comma-separated (repeated as needed)."),
             n_games: int = typer.Option(2000, "--games", "-n", help="Games per candidate (the same for all)."),
             budget: int = typer.Option(40, "--budget", help="How many candidate parameter sets may be evaluated."),
             players: Optional[int] = PlayersOpt, seed: int = SeedOpt, jobs: Optional[int] = JobsOpt,
             sets: Optional[List[str]] = SetOpt,
             fresh_games: Optional[int] = typer.Option(None, "--fresh-games", help="Games for the unbiased "
                                                       "re-evaluation on fresh seeds (default 4 x --games)."),
             vary: Optional[List[str]] = typer.Option(None, "--vary", help="KEY=V1,V2: replay the tuned and "
                                                      "default parameters under each rule variant."),
             out: Optional[str] = typer.Option(None, "--out", "-o", help="Write the report section here "
                                               "(index.html, report.md, optimize.json, evaluations.csv)."),
             as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
             quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress lines."),
             no_history: bool = NoHistOpt):
    """Search a strategy's parameters (differential evolution, common random numbers) for the
    highest win rate against a field; re-check the winner on fresh seeds."""
    import shlex

    from cardlab.analysis.optimize import optimize as run_opt
    from cardlab.analysis.optimize import render_text

    def note(i, w, best):
        if not (quiet or as_json):
            print(f"\r  candidate {i}/{budget}: {100 * w:.1f}% (best {100 * best:.1f}%)", end="",
                  file=sys.stderr, flush=True)

    r = run_opt(game, strategy, against, games=n_games, budget=budget, players=players, seed=seed,
                sets=sets, jobs=jobs, fresh_games=fresh_games, vary=vary, progress=note)
    if not (quiet or as_json):
        print(file=sys.stderr)
    if out:
        from cardlab.analysis.optimize_report import write

        args = ["cardlab", "optimize", game, "--strategy", strategy, "--against", against, "--games",
                str(n_games), "--budget", str(budget), "--players", str(r.players), "--seed", str(seed)]
        args += [a for kv in sets or [] for a in ("--set", kv)] + [a for kv in vary or [] for a in ("--vary", kv)]
        args += ["--fresh-games", str(r.fresh_games), "--out", out]
        try:
            write(r, shlex.join(args), out)
        except OSError as e:
            raise InputError(f"cannot write the optimize report into {out!r}: {e.strerror}") from None
    if as_json:
        print(json.dumps(r.to_json()))
    else:
        print(render_text(r))
        if out:
            print(f"\nwrote {out}/index.html")
    _record("optimize", r.to_json(), no_history, rules=_rules_of(game, r.players, sets),
            strategies=[strategy, *against.split(",")])


@app.command()
def calibrate(game: str = typer.Argument(..., help="Game id (only block_tower has a collapse model)."),
              heights: str = typer.Option(..., "--heights", help="CSV of observed towers: a 'height' "
                                          "column, optional 'fell' (0 = censored) and 'blocks' "
                                          "(points in placement order)."),
              plot: Optional[str] = typer.Option(None, "--plot", help="Survival plot PNG (default: "
                                                 "next to the CSV, NAME_survival.png)."),
              sets: Optional[List[str]] = typer.Option(None, "--set", help="Model knobs held fixed: "
                                                       "difficulty, instability, points_split."),
              as_json: bool = typer.Option(False, "--json", help="Print one JSON object.")):
    """Fit Block Tower's collapse model (base, a_h, a_u) by maximum likelihood to observed
    collapse heights; print the fit with 95% intervals and the --set arguments to use it
    (only when the fit converged)."""
    import math

    from cardlab.sim.registry import get_game

    if get_game(game).id != "block_tower":
        raise InputError(f"bad game '{game}' for calibrate: allowed block_tower (the only game "
                         f"with a collapse model)")
    from cardlab.analysis.calibrate import calibrate as run_calibration, render

    result, path = run_calibration(heights, plot, sets)
    if as_json:
        def num(x):  # NaN / inf (an interval the information cannot give) as null
            return float(x) if math.isfinite(x) else None

        print(json.dumps({"base": result.base, "a_h": result.a_h, "a_u": result.a_u,
                          "intervals": {k: [num(lo), num(hi)] for k, (lo, hi) in result.intervals.items()},
                          "loglik": num(result.loglik), "towers": result.n, "fell": result.n_fell,
                          "plot": str(path), "converged": result.converged,
                          "reason": result.reason or None,
                          "set": result.set_args() if result.converged else None}))
    else:
        print(render(result, heights, path))


@app.command("new-game")
def new_game(name: str = typer.Argument(..., help="The new game's id: a lowercase Python identifier."),
             root: Optional[str] = typer.Option(None, "--root", help="The cardlab checkout to write "
                                                "into (default: the one cardlab runs from)."),
             golden: bool = typer.Option(True, "--golden/--no-golden", help="Record the game's golden "
                                         "trace (compiles it once, 10-20 s)."),
             template: str = typer.Option("skeleton", "--template", help="What to start from: skeleton "
                                          "(one card each, keep or exchange) or cards52 (a 52-card "
                                          "trick-taking game with bit-mask hands, sim/cards52.py).")):
    """Write the skeleton of a new game NAME (sim/NAME/, strategies/NAME.py, its rules page
    and test file: a tiny real game that passes every conformance check), register it and
    record its golden trace."""
    from cardlab.new_game import new_game as write_game

    for line in write_game(name, root, golden, say=lambda m: print(m, file=sys.stderr),
                           template=template):
        print(line)


@app.command()
def play(game: str = typer.Argument(..., help="Game id."),
         seat: int = typer.Option(0, "--seat", help="Your seat (0 plays first)."),
         players: Optional[int] = PlayersOpt, seed: int = SeedOpt,
         index: int = typer.Option(0, "--index", help="Which game of the seed's sequence "
                                   "(the same deal as `cardlab trace --index`)."),
         sets: Optional[List[str]] = SetOpt,
         strategies: Optional[str] = typer.Option(None, "--strategies", help="The bots, one per "
                                                  "other seat in seat order (a shorter list repeats); "
                                                  "parameters as NAME:key=value."),
         helper: Optional[str] = typer.Option(None, "--helper", help="The strategy that answers "
                                              "for you when you type a (default: the first bot)."),
         save: Optional[str] = typer.Option(None, "--save", help="Write the finished game here as "
                                            "a trace (JSON Lines, as `cardlab trace` writes).")):
    """Play GAME against the bots in the terminal: you see only your seat's view, choose
    your moves by number from the legal actions, and watch the bots' moves (their hidden
    cards as ?). q or the end of input quits."""
    from cardlab.play import HUMAN, Quit, summary_line, trace_lines
    from cardlab.play import play as run_play
    from cardlab.sim import runner
    from cardlab.sim.registry import get_game

    g = get_game(game)
    p = g.default_players if players is None else players
    if not (0 <= seat < p):
        raise InputError(f"bad --seat {seat}: allowed 0 to {p - 1} ({p} players)")
    if not (0 <= index < runner.MAX_GAMES):
        raise InputError(f"bad --index {index}: allowed 0 to {runner.MAX_GAMES - 1:,}")
    bots = [x for x in (strategies or g.default_strategy).split(",") if x]
    # the seats' strategies: the bots in order around the table; the human's seat holds the
    # helper, asked only when the human types a
    per_seat = [bots[(s - (s > seat)) % len(bots)] if s != seat else (helper or bots[0])
                for s in range(p)]
    setup = _setup(game, p, sets, ",".join(per_seat), seed)
    if save:  # a bad --save fails now, not after the game (and leaves no empty file)
        import os
        from pathlib import Path

        folder = Path(save).expanduser().resolve().parent
        if not folder.is_dir() or not os.access(folder, os.W_OK) or Path(save).is_dir():
            raise InputError(f"cannot write --save {save!r}: no writable folder {str(folder)!r} "
                             f"to hold the file")

    def read(prompt):
        sys.stdout.write(prompt)
        sys.stdout.flush()
        line = sys.stdin.readline()
        if not line:
            sys.stdout.write("\n")
            raise EOFError
        if not sys.stdin.isatty():  # a script's answer, echoed so the transcript reads right
            sys.stdout.write(line if line.endswith("\n") else line + "\n")
        return line

    try:
        table = run_play(setup, seat, index, read, print)
    except Quit as e:
        print(f"cardlab play: {e}; the game was not finished (nothing saved)")
        return
    print(summary_line(table, seat))
    if save:
        labels = [HUMAN if s == seat else x.label for s, x in enumerate(setup.seats)]
        lines = table.trace(labels)
        with open(save, "w") as fh:
            fh.writelines(trace_lines(lines))
        print(f"saved {len(lines) - 2} events to {save}")


@app.command(context_settings={"allow_interspersed_args": True})
def history(args: Optional[List[str]] = typer.Argument(
                None, help="[GAME] to list runs; show ID; compare ID ID; export FILE.parquet"),
            limit: int = typer.Option(20, "--limit", help="Most recent runs listed (0: all)."),
            as_json: bool = typer.Option(False, "--json", help="Print JSON.")):
    """The run history: every simulate, report, sweep, tournament, ladder, optimize,
    restricted and cardpower run (unless --no-history). `cardlab history [GAME]` lists runs;
    `history show ID`; `history compare ID ID` (differences with 95% intervals, paired or
    not); `history export runs.parquet`. The database: $CARDLAB_HOME/history.duckdb, else
    ~/.local/share/cardlab/history.duckdb."""
    from cardlab.analysis import history as H

    args = list(args or [])
    verb = args[0] if args else None

    def run_id(x: str) -> int:
        try:
            return int(x)
        except ValueError:
            raise InputError(f"bad run id {x!r}: allowed a number from `cardlab history`") from None

    if verb == "show":
        if len(args) != 2:
            raise InputError("usage: cardlab history show ID")
        row = H.get(run_id(args[1]))
        if as_json:
            print(json.dumps(row, default=str))
            return
        for k, v in row.items():
            if k != "summary":
                print(f"{k:22s} {v if not isinstance(v, (dict, list)) else json.dumps(v)}")
        print("summary:")
        print(json.dumps(row["summary"], indent=1))
        return
    if verb == "compare":
        if len(args) != 3:
            raise InputError("usage: cardlab history compare ID ID")
        from cardlab.analysis.history_compare import compare, render_text

        c = compare(H.get(run_id(args[1])), H.get(run_id(args[2])))
        print(json.dumps(c, default=str) if as_json else render_text(c))
        return
    if verb == "export":
        if len(args) not in (2, 3):
            raise InputError("usage: cardlab history export FILE.parquet [GAME]")
        n = H.export(args[1], args[2] if len(args) == 3 else None)
        print(f"wrote {n} run(s) to {args[1]}", file=sys.stderr)
        return
    if len(args) > 1:
        raise InputError(f"bad history arguments {' '.join(args)!r}: allowed [GAME], show ID, "
                         f"compare ID ID, export FILE.parquet")
    if verb is not None:
        from cardlab.sim.registry import get_game

        verb = get_game(verb).id  # an unknown game fails in one line
    df = H.runs(verb)
    if limit:
        df = df.tail(limit)
    if as_json:
        print(df.to_json(orient="records", date_format="iso"))
    elif df.empty:
        print(f"no runs recorded{' for ' + verb if verb else ''} in {H.db_path()}")
    else:
        print(H.render_table(df))


def main() -> None:
    """Console entry point: one clear line and exit 2 for any bad input."""
    from cardlab.sim.schema import SchemaError

    try:
        rc = app(standalone_mode=False)
    except InputError as e:
        print(f"cardlab: error: {e}", file=sys.stderr)
        sys.exit(2)
    except SchemaError as e:  # a game's own declaration (a designer's layout): one line, not a traceback
        print(f"cardlab: error in the game's declaration: {e}", file=sys.stderr)
        sys.exit(2)
    except RunError as e:
        print(f"cardlab: run failed: {e}", file=sys.stderr)
        sys.exit(1)
    except _cx.NoArgsIsHelpError as e:
        print(e.format_message() if hasattr(e, "format_message") else e, file=sys.stderr)
        sys.exit(2)
    except _cx.UsageError as e:
        msg = " ".join(e.format_message().split())
        where = f" (cardlab {e.ctx.info_name})" if getattr(e, "ctx", None) and e.ctx.info_name != "cardlab" else ""
        print(f"cardlab: error: {msg}{where}", file=sys.stderr)
        sys.exit(2)
    except (typer.Abort, KeyboardInterrupt):
        print("cardlab: interrupted", file=sys.stderr)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
    sys.exit(rc if isinstance(rc, int) else 0)


if __name__ == "__main__":
    main()
