"""The report pipeline: what ``cardlab report`` and ``cardlab demo`` run, and their default sizes.

A report is the main run of a setup plus everything beside it, each part at a default size
derived from ``--games`` (``pools_games_for``, ``causal_games_for``, ``replay_games_for``):
the rule variants on the same seeds, the seat verdicts across pools, the strong pool that
classifies every headline (``strong_games_for``), why capped games stuck, causal card
power, the luck-skill profile, optionally a tournament and a skill ladder with restricted
play, and a few sampled games for the embedded replays; ``report.build_report`` writes the
folder.  ``run_report`` checks every input before a game is played (``InputError``, one
line) and ``run_demo`` writes one report per shipped game and an index.  Progress bars go
to stderr (``--quiet``: none); the CLI (``cardlab/cli.py``) only parses the options and
prints what these return.

Heavy modules are imported inside the functions, so the CLI can import this one at start.
"""
from __future__ import annotations

import json
from pathlib import Path

from cardlab.sim.errors import InputError

# cardlab report: a tournament's games per seat order (--tournament-games)
TOURNAMENT_GAMES = 2_000


def _setup(game_id, players, sets, strategies, seed):
    from cardlab.sim.runner import make_setup

    return make_setup(game_id, players, sets, strategies, seed)


def report_command(game_id, n_games, players, seed, sets, strategies, out,
                    tournament=None, tournament_games=None, pools=None, pools_games=None,
                    causal_games=0, extra=(), strong=None, strong_games=None, causal_default=0) -> str:
    """The canonical command line that reproduces a report (``--jobs`` never changes a result);
    ``extra``: further options, named before ``--out`` (which comes last); ``causal_default``:
    the causal games the command would play without ``--causal-games`` (so an explicit 0
    is kept)."""
    import shlex

    args = ["cardlab", "report", game_id, "--games", str(n_games)]
    if players is not None:
        args += ["--players", str(players)]
    args += ["--seed", str(seed)]
    for kv in sets or []:
        args += ["--set", kv]
    if strategies:
        args += ["--strategies", strategies]
    if tournament:
        args += ["--tournament", tournament, "--tournament-games", str(tournament_games)]
    if pools is not None:
        args += ["--pools", pools]
    if pools_games is not None:
        args += ["--pools-games", str(pools_games)]
    if causal_games or causal_default:
        args += ["--causal-games", str(causal_games)]
    if strong is not None:
        args += ["--strong", strong]
    if strong_games is not None:
        args += ["--strong-games", str(strong_games)]
    args += [*extra, "--out", str(out)]
    return shlex.join(args)


def variants_for_report(setup, n_games, jobs, sets, quiet, **where):
    """The game's report variants (same seeds, one knob changed), as (label, summary);
    a variant equal to the rules as run is skipped.  ``where``: ``runner.run``'s backend
    and scheduler (as for every part of a report that takes it)."""
    from cardlab.analysis.stats import hist_mean_interval
    from cardlab.analysis.summary import summarize
    from cardlab.sim import runner

    out = []
    for knob, value in setup.game.report_variants:
        if setup.game.rules_json(setup.rules)[knob] == setup.game.rules_json(
                setup.game.resolve_rules({knob: value}, setup.players))[knob]:
            continue
        v = _setup(setup.game.id, setup.players, list(sets or []) + [f"{knob}={value}"],
                   ",".join(s.label for s in setup.seats), setup.seed)
        advance, bar = runner.progress_bar(n_games, enabled=None if not quiet else False)
        with bar:
            r = runner.run(v, n_games, jobs, progress=advance, **where)
        summary = summarize(r)
        summary["length"]["mean_ci"] = hist_mean_interval(r.tally.finished_hist)
        out.append((f"{knob}={value}", summary))
    return out


def pools_games_for(n_games: int) -> int:
    """The reduced game count of a report's pools: --games / 20, at least 2,000 and at most
    50,000, never more than --games."""
    return min(n_games, max(2_000, min(50_000, n_games // 20)))


def pools_for_report(setup, pools, n_games, jobs, quiet, **where):
    """The seat verdicts across pools (None when --pools none)."""
    from cardlab.analysis.pools import run_pools
    from cardlab.sim import runner

    if not pools:
        return None
    advance, bar = runner.progress_bar(len(pools) * n_games, enabled=None if not quiet else False)
    with bar:
        return run_pools(setup, pools, n_games, jobs, progress=advance, **where)


# the strong pool's size: seat effects to about +-2.5 points in a report, +-4 in the demo
STRONG_HALFWIDTH = 0.025
DEMO_STRONG_HALFWIDTH = 0.04
EXTEND_MIN = 0.02   # a main-run seat edge this large is worth resolving under strong play ...
EXTEND_CAP = 4      # ... with up to this many times the strong pool's base games


def strong_games_for(players: int, halfwidth: float = STRONG_HALFWIDTH, main_edges=()) -> int:
    """Games of the strong pool: enough for each seat's share to about +-``halfwidth`` (95%,
    a share near the fair 1/P: ``stats.games_for``), more when the main run shows a seat
    edge of at least ``EXTEND_MIN``: enough to resolve the smallest such edge to +-half its
    size (so that strong play can confirm or refute it), at most ``EXTEND_CAP`` times the
    base.  Sized from the main run's figures, never from the strong pool's own, so the
    strong pool's intervals keep their coverage; deterministic for a seed and game count."""
    from cardlab.analysis.stats import games_for

    fair = 1.0 / max(players, 2)
    base = games_for(halfwidth, fair)
    big = [abs(e) for e in main_edges if abs(e) >= EXTEND_MIN]
    if not big:
        return base
    return min(max(base, games_for(min(big) / 2, fair)), EXTEND_CAP * base)


def main_edges(result) -> list[float]:
    """Each seat's win share minus the fair share in a run, as the pools judge it (none when
    its seats play different strategies: those figures are the strategies')."""
    t = result.tally
    if t.players < 2 or len({s.label for s in result.setup.seats}) > 1:
        return []
    decided = t.games - t.no_winner   # among games with a winner when 0.1% or more have none
    base = decided if t.no_winner / t.games >= 0.001 and decided > 0 else t.games
    return [float(w) / base - 1.0 / t.players for w in t.wins]


def strong_for_report(setup, spec, games, strength_games, jobs, quiet, **where):
    """The strong pool and its measured strength (``pools.run_strong``), with a progress bar
    that counts work (a search game costs as much as thousands of heuristic games)."""
    from cardlab.analysis.pools import run_strong, strong_work
    from cardlab.sim import runner

    if not spec or setup.players < 2:
        return None
    total = strong_work(setup, games, strength_games, spec) if not quiet else 0
    advance, bar = runner.progress_bar(total, enabled=None if not quiet else False, work=True)
    with bar:
        return run_strong(setup, games, strength_games, jobs, spec, progress=advance, **where)


def attach_strong(pool_result, setup, strong):
    """The pools object with the strong pool in it (one with no heuristic pools if none ran)."""
    if strong is None:
        return pool_result
    if pool_result is None:
        from cardlab.analysis.pools import Pools

        pool_result = Pools(setup.game.id, setup.players, setup.seed, 0, [])
    pool_result.strong = strong
    return pool_result


def stuck_for_report(setup, result, n_games, jobs):
    """Why the capped games stuck (None when no game was capped): the first ``SCAN`` games
    scanned, up to LIMIT capped ones replayed in Python (at 0.2-0.3 s each), fewer for a
    small run (one per 200 games, at least 10) so that the classification stays a small
    share of the report's time."""
    from cardlab.analysis.stuck import LIMIT, SCAN, stuck_games

    if not result.tally.unfinished:
        return None
    return stuck_games(setup, scan=min(n_games, SCAN), limit=min(LIMIT, max(10, n_games // 200)), jobs=jobs)


def tournament_for_report(game_id, names, players, n_games, seed, jobs, sets, quiet, **where):
    """A tournament to add to a report (its heat map and ratings), with a progress bar."""
    from cardlab.analysis.tournament import check_strategies, run_tournament
    from cardlab.sim import runner

    names = check_strategies(names)
    runner.check_counts(n_games, seed, jobs)
    total, weighted = tournament_total(game_id, names, players, n_games, sets, not quiet)
    advance, bar = runner.progress_bar(total, enabled=None if not quiet else False, work=weighted)
    with bar:
        return run_tournament(game_id, names, players, n_games, seed, jobs, sets, progress=advance,
                              weighted=weighted, **where)


def tournament_total(game_id, names, players, n_games, sets, show) -> tuple[int, bool]:
    """A tournament's progress-bar total and whether it counts work (a search player among
    the strategies); nothing to compute when no bar is shown, or when the input is bad
    (run_tournament says what is wrong, before playing anything)."""
    from cardlab.analysis.tournament import progress_total

    if not show or players < 2:
        return 0, False
    try:
        return progress_total(game_id, names, players, n_games, sets)
    except InputError:
        return 0, False


# cardlab report --ladder: a small skill ladder and restricted play beside the report
LADDER_BUDGETS = "16,64"
LADDER_GAMES = 100
RESTRICTED_ITERATIONS = 32
# cardlab demo: no ladder by default (--ladder-games N adds one at budgets 16 and 64: its few
# hundred games per rung can only say "cannot tell yet", and its minute goes to strong play)
DEMO_LADDER_GAMES = 0


def replay_games_for(setup, n_games: int) -> int:
    """The default sample the report's replays are picked from: its first 2,000 games (the
    report's own first games), fewer when the report has fewer or a seat searches."""
    from cardlab.analysis.replay_picks import SAMPLE_GAMES

    return min(200 if setup.searches else SAMPLE_GAMES, n_games)


def replays_for_report(setup, games: int, jobs):
    if not games:
        return None
    from cardlab.analysis.replay_picks import sample_replays

    return sample_replays(setup, games, jobs)


LUCK_DEALS = 2000   # a report's luck profile: deals, each in every seat order, twice


def luck_for_report(setup, deals, jobs, sets, strategies, quiet, ladder=None):
    """The luck profile (``analysis/luck.py``: how much the deal, later draws and seat order
    decide), with the ladder's skill measure when the report has a ladder; None when off
    (``deals`` 0), for one player, or when a seat searches (the profile replays heuristics)."""
    if not deals or setup.players < 2 or setup.searches:
        return None
    from cardlab.analysis.luck import run_luck
    from cardlab.sim import runner

    advance, bar = runner.progress_bar(deals, enabled=None if not quiet else False, work=True)
    with bar:
        return run_luck(setup.game.id, deals, setup.players, sets, strategies, setup.seed, jobs,
                        progress=advance, ladder=ladder.to_dict() if ladder is not None else None)


def causal_games_for(n_games: int) -> int:
    """A report's default causal card power size: games per card type."""
    return min(2000, max(200, n_games // 50))


def causal_for_report(setup, strategies, games, seed, jobs, sets, quiet):
    """Causal card power for a report (None when ``games`` is 0), with a progress bar."""
    if not games:
        return None
    from cardlab.analysis.causal import run_causal
    from cardlab.sim import runner

    advance, bar = runner.progress_bar(games, enabled=None if not quiet else False)
    with bar:
        return run_causal(setup.game.id, setup.players, strategies, games, seed, jobs, sets, progress=advance)


def ladder_args(budgets, games, restricted) -> list[str]:
    """The report options that reproduce its ladder."""
    return (["--ladder", "--ladder-budgets", ",".join(map(str, budgets)), "--ladder-games", str(games)]
            + ([] if restricted else ["--no-restricted"]))


def ladder_for_report(setup, budgets, games, seed, jobs, sets, quiet, restricted=True, **where):
    """The skill ladder (and restricted play) of a report, with progress bars: the
    ladder's self-play at ``games`` games, its tournament at a quarter per seat order;
    restricted play at ``games`` per seat and restriction, at RESTRICTED_ITERATIONS."""
    from cardlab.analysis import ladder, restricted as rp
    from cardlab.sim import runner

    g, P = setup.game, setup.players
    vg = ladder.seat_orders(P) * max(1, games // 4)  # a quarter of ``games`` per seat order
    total = ladder.total_work(g.id, budgets, g.default_strategy, P, games, games, vg, sets) if not quiet else 0
    advance, bar = runner.progress_bar(total, enabled=None if not quiet else False, work=True)
    with bar:
        lad = ladder.run_ladder(g.id, budgets, g.default_strategy, P, games, games, vg, seed, jobs, sets,
                                progress=advance, **where)
    if not restricted:
        return lad, None
    items = rp.parse_never(None, g, setup.rules)
    advance, bar = runner.progress_bar(rp.total_games(len(items), P, games), enabled=None if not quiet else False)
    with bar:
        res = rp.run_restricted(g.id, items, P, games, RESTRICTED_ITERATIONS, seed, jobs, sets, progress=advance,
                                **where)
    return lad, res


# Default demo size: 10^6 games per shipped game.  Skyscraper plays ~300,000 games/s on
# 2 cores (~4 s per game plus ~2 s of figures); the budget is about 3 minutes on 2 cores
# for every shipped game, so a game up to ~10x slower than Skyscraper still fits.
DEMO_GAMES = 1_000_000
DEMO_TOURNAMENT_GAMES = 2_000  # per seat order: 5 strategies -> 40,000 games for Skyscraper


def run_report(game, n_games, players, seed, jobs, sets, strategies, out=None, tournament=None,
               tournament_games=TOURNAMENT_GAMES, pools=None, pools_games=None, causal_games=None,
               with_ladder=False, ladder_budgets=LADDER_BUDGETS, ladder_games=LADDER_GAMES,
               with_restricted=True, replay_games=None, quiet=False, strong=None, strong_games=None,
               strength_games=None, luck_deals=LUCK_DEALS, variant_games=None, backend="local",
               scheduler=None) -> tuple[dict, str]:
    """``cardlab report``: check every option (``InputError`` before any game is played),
    simulate, run the parts beside the main run at their sizes and write the report folder.
    ``backend="dask"`` plays the main run, the rule variants, the self-play pools, the strong
    pool, the ladder, restricted play and the tournament on one Dask client (``scheduler``,
    or a LocalCluster of ``jobs`` workers); the mixed pool, causal card power, the luck
    profile, the capped games' replays and the sample replays stay on local threads (they
    play a game per call).  The report is the same on either backend.
    Returns (the files written by name, the folder)."""
    from cardlab.analysis.pools import parse_pools
    from cardlab.analysis.report import build_report, prepare_out_dir
    from cardlab.sim import runner
    from cardlab.sim.dask_backend import backend_session, check_backend

    setup = _setup(game, players, sets, strategies, seed)
    runner.check_counts(n_games, seed, jobs)
    check_backend(backend, scheduler)
    where = dict(backend=backend, scheduler=scheduler)
    pool_names = parse_pools(pools, setup.game, setup.players) if setup.players >= 2 else []
    pg = pools_games_for(n_games) if pools_games is None else pools_games
    if pool_names and not (1 <= pg <= runner.MAX_GAMES):
        raise InputError(f"bad --pools-games {pg}: allowed 1 to {runner.MAX_GAMES:,}")
    out = out or f"reports/{setup.game.id}"
    if tournament == "all":
        tournament = ",".join(setup.game.strategies)
    if tournament:
        from cardlab.analysis.tournament import check_strategies

        check_strategies(tournament)  # bad names fail before any game is played
        if not (1 <= tournament_games <= runner.MAX_GAMES):
            raise InputError(f"bad --tournament-games {tournament_games}: allowed 1 to {runner.MAX_GAMES:,}")
    # on by default, at a size that stays a small share of the report; off for a game that
    # declares no start cards to give (S.give) and for search seats
    causal_default = 0 if setup.searches or not setup.game.schema.give_start else causal_games_for(n_games)
    if causal_games is None:
        causal_games = causal_default
    if not (0 <= causal_games <= runner.MAX_GAMES):
        raise InputError(f"bad --causal-games {causal_games}: allowed 0 (off) to {runner.MAX_GAMES:,}")
    if causal_games and setup.searches:
        raise InputError("--causal-games plays the heuristics: the search player mcts cannot be a "
                         "seat's strategy there")
    if causal_games and not setup.game.schema.give_start:
        raise InputError(f"--causal-games {causal_games}: game '{setup.game.id}' does not say where a card can "
                         "be given (its schema declares no S.give), so it has no causal card power: use 0")
    budgets = None
    if with_ladder:
        from cardlab.analysis.ladder import parse_budgets

        budgets = parse_budgets(ladder_budgets)
        if not (1 <= ladder_games <= runner.MAX_GAMES):
            raise InputError(f"bad --ladder-games {ladder_games}: allowed 1 to {runner.MAX_GAMES:,}")
    from cardlab.analysis.pools import STRENGTH_GAMES, parse_strong

    strong_spec = parse_strong(strong, setup)
    sg = strong_games
    if strong_spec and sg is not None and not (1 <= sg <= runner.MAX_GAMES):
        raise InputError(f"bad --strong-games {sg}: allowed 1 to {runner.MAX_GAMES:,}")
    hg = STRENGTH_GAMES if strength_games is None else strength_games
    if not (0 <= hg <= runner.MAX_GAMES):
        raise InputError(f"bad --strength-games {hg}: allowed 0 (not measured) to {runner.MAX_GAMES:,}")
    vg = n_games if variant_games is None else variant_games
    if not (1 <= vg <= runner.MAX_GAMES):
        raise InputError(f"bad --variant-games {vg}: allowed 1 to {runner.MAX_GAMES:,}")
    if luck_deals and not (20 <= luck_deals <= runner.MAX_GAMES):
        raise InputError(f"bad --luck-deals {luck_deals}: allowed 0 (off) or 20 to {runner.MAX_GAMES:,}")
    rg = replay_games_for(setup, n_games) if replay_games is None else replay_games
    if not (0 <= rg <= runner.MAX_GAMES):
        raise InputError(f"bad --replay-games {rg}: allowed 0 (no replays) to {runner.MAX_GAMES:,}")
    prepare_out_dir(out)  # a bad --out fails before the simulation, not after it
    with backend_session(backend, scheduler, jobs):
        advance, bar = runner.progress_bar(n_games, enabled=None if not quiet else False)
        with bar:
            result = runner.run(setup, n_games, jobs, progress=advance, **where)
        lad = res_r = None
        if with_ladder:
            lad, res_r = ladder_for_report(setup, budgets, ladder_games, seed, jobs, sets, quiet, with_restricted,
                                           **where)
        t = None
        if tournament:
            t = tournament_for_report(setup.game.id, tournament, setup.players, tournament_games,
                                      seed, jobs, sets, quiet, **where)
        variants = variants_for_report(setup, vg, jobs, sets, quiet, **where)
        pool_result = pools_for_report(setup, pool_names, pg, jobs, quiet, **where)
        if sg is None:
            sg = strong_games_for(setup.players, STRONG_HALFWIDTH, main_edges(result))
        pool_result = attach_strong(pool_result, setup,
                                    strong_for_report(setup, strong_spec, sg, hg, jobs, quiet, **where))
    stuck = stuck_for_report(setup, result, n_games, jobs)
    causal = causal_for_report(setup, strategies, causal_games, seed, jobs, sets, quiet)
    luck = luck_for_report(setup, luck_deals, jobs, sets, strategies, quiet, lad)
    extra = (ladder_args(budgets, ladder_games, with_restricted) if with_ladder else []) + (
        ["--luck-deals", str(luck_deals)] if luck_deals != LUCK_DEALS else []) + (
        ["--replay-games", str(rg)] if replay_games is not None else []) + (
        ["--strength-games", str(hg)] if strength_games is not None else []) + (
        ["--variant-games", str(vg)] if variant_games is not None else [])
    command = report_command(setup.game.id, n_games, players, seed, sets, strategies, out,
                             tournament, tournament_games, pools, pools_games, causal_games, extra,
                             strong, strong_games, causal_default)
    replays = replays_for_report(setup, rg, jobs)
    paths = build_report(result, command, out, tournament=t, variants=variants,
                         pools=pool_result, stuck=stuck, causal=causal, ladder=lad, restricted=res_r,
                         replays=replays, luck=luck)
    return paths, out


DEMO_STRENGTH_GAMES = 0    # the demo does not measure the strong player's strength (reports do)
DEMO_VARIANT_GAMES = 100_000  # games per rule variant in the demo (its main run plays --games)
DEMO_POOLS_GAMES = 20_000     # games per heuristic pool in the demo


def run_demo(n_games=DEMO_GAMES, jobs=None, out="reports/demo", ladder_games=DEMO_LADDER_GAMES,
             quiet=False, on_game=None, strong=True, strong_games=None,
             strength_games=DEMO_STRENGTH_GAMES) -> Path:
    """``cardlab demo``: every shipped game with its defaults, one report per game
    (OUT/GAME/index.html) and OUT/index.html linking them.  Sized to fit 8 minutes from an
    empty cache on 2 cores: each game's strong pool (its own strong player, as in its
    report) sized for +-4 points with no extension and its strength not measured; rule
    variants at DEMO_VARIANT_GAMES, pools at DEMO_POOLS_GAMES; no luck profile and no
    ladder (``cardlab luck``, ``cardlab report --ladder``).
    ``on_game(game_id, summary, ladder)`` is called after each game's report; returns the
    index page."""
    from cardlab.analysis.pools import default_pools
    from cardlab.analysis.report import build_report, prepare_out_dir, write_demo_index
    from cardlab.sim import runner
    from cardlab.sim.registry import game_ids

    runner.check_counts(n_games, 1, jobs)
    if strong_games is not None and not (1 <= strong_games <= runner.MAX_GAMES):
        raise InputError(f"bad --strong-games {strong_games}: allowed 1 to {runner.MAX_GAMES:,}")
    if not (0 <= strength_games <= runner.MAX_GAMES):
        raise InputError(f"bad --strength-games {strength_games}: allowed 0 (not measured) to {runner.MAX_GAMES:,}")
    if not (0 <= ladder_games <= runner.MAX_GAMES):
        raise InputError(f"bad --ladder-games {ladder_games}: allowed 0 (no ladder) to {runner.MAX_GAMES:,}")
    budgets = [16, 64]
    root = prepare_out_dir(out)
    entries = []
    for gid in game_ids():
        setup = _setup(gid, None, None, None, 1)
        sub = Path(out) / gid
        advance, bar = runner.progress_bar(n_games, enabled=None if not quiet else False)
        with bar:
            result = runner.run(setup, n_games, jobs, progress=advance)
        # every strategy of the game against every other, so the demo shows the heat map
        names = ",".join(setup.game.strategies)
        t = tournament_for_report(gid, names, setup.players, DEMO_TOURNAMENT_GAMES, 1, jobs,
                                  None, quiet)
        vg, pg = min(n_games, DEMO_VARIANT_GAMES), min(n_games, DEMO_POOLS_GAMES)
        variants = variants_for_report(setup, vg, jobs, None, quiet)
        pool_result = pools_for_report(setup, default_pools(setup.game), pg, jobs, quiet)
        spec = setup.game.strong_player if strong else None
        sg = 0 if not strong else (strong_games or strong_games_for(setup.players, DEMO_STRONG_HALFWIDTH))
        pool_result = attach_strong(pool_result, setup, strong_for_report(setup, spec, sg, strength_games,
                                                                         jobs, quiet))
        stuck = stuck_for_report(setup, result, n_games, jobs)
        lad = None
        if ladder_games:
            lad, _ = ladder_for_report(setup, budgets, ladder_games, 1, jobs, None, quiet, restricted=False)
        cg = causal_games_for(n_games)
        causal = causal_for_report(setup, None, cg, 1, jobs, None, quiet)
        extra = (ladder_args(budgets, ladder_games, False) if ladder_games else []) + ["--causal-games", str(cg)]
        extra += (["--strength-games", str(strength_games)] if strong else []) + [
            "--luck-deals", "0", "--variant-games", str(vg)]
        command = report_command(gid, n_games, None, 1, None, None, sub, names, DEMO_TOURNAMENT_GAMES,
                                 pools_games=pg, extra=extra, strong=spec or "none", strong_games=sg or None)
        replays = replays_for_report(setup, replay_games_for(setup, n_games), jobs)
        build_report(result, command, sub, tournament=t, variants=variants, pools=pool_result,
                     stuck=stuck, ladder=lad, causal=causal, replays=replays)
        summary = json.loads((sub / "summary.json").read_text())
        entries.append({"game": gid, "title": setup.game.title, "href": f"{gid}/index.html",
                        "verdict": summary["verdict"], "games": n_games, "players": setup.players,
                        "ladder": lad.verdict if lad is not None else None,
                        "findings": summary.get("findings", []), "summary": summary,
                        "length_hist": [int(x) for x in result.tally.finished_hist],
                        "command": " ".join(["cardlab", "demo", "--games", str(n_games), "--out", str(out)])})
        if on_game is not None:
            on_game(gid, summary, lad)
    return write_demo_index(entries, root)
