"""The ``cardlab`` command: thin wiring from typer to the sim, strategies and analysis layers.

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

from sim.errors import InputError

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Monte Carlo balance analysis for tabletop card games.")

GamesOpt = typer.Option(10_000, "--games", "-n", help="Number of games to play.")
SeedOpt = typer.Option(1, "--seed", "-s", help="Root seed: game i is seeded from (seed, i).")
PlayersOpt = typer.Option(None, "--players", "-p", help="Players (default: the game's default).")
SetOpt = typer.Option(None, "--set", help="Override a rule knob: KEY=VALUE (repeatable).")
StratOpt = typer.Option(None, "--strategies", help="One strategy per seat, comma-separated "
                        "(a shorter list repeats); parameters as NAME:key=value:key=value.")
JobsOpt = typer.Option(None, "--jobs", "-j", help="Parallel workers (default: all cores).")


def _setup(game_id, players, sets, strategies, seed):
    from sim.runner import make_setup

    return make_setup(game_id, players, sets, strategies, seed)


@app.command()
def games(as_json: bool = typer.Option(False, "--json", help="Print JSON.")):
    """List the shipped games."""
    from sim.registry import game_ids, get_game

    rows = [get_game(g) for g in game_ids()]
    if as_json:
        print(json.dumps([{"game": g.id, "title": g.title, "players": [g.min_players, g.max_players],
                           "default_players": g.default_players} for g in rows], indent=2))
        return
    for g in rows:
        print(f"{g.id:12s} {g.min_players}-{g.max_players} players  {g.title}")


@app.command()
def rules(game: str = typer.Argument(..., help="Game id (see `cardlab games`)."),
          as_json: bool = typer.Option(False, "--json", help="Print JSON.")):
    """List every rule knob of GAME with its default, allowed values and meaning."""
    from sim.registry import get_game

    g = get_game(game)
    if as_json:
        print(json.dumps([{"name": k.name, "type": k.kind, "default": g.rules_json({k.name: k.default} | {
            kk.name: kk.default for kk in g.knobs})[k.name], "allowed": k.allowed(), "help": k.help}
            for k in g.knobs], indent=2))
        return
    print(f"{g.id}: {g.title}  (players {g.min_players}-{g.max_players}, default {g.default_players})")
    w = max(len(k.name) for k in g.knobs)
    for k in g.knobs:
        print(f"  {k.name:<{w}}  = {k.show(k.default):<8} {k.help}  [{k.allowed()}]")
    print(f"\nOverride with --set KEY=VALUE, e.g. --set {g.knobs[0].name}={g.knobs[0].show(g.knobs[0].default)}")


@app.command()
def strategies(game: str = typer.Argument(..., help="Game id."),
               as_json: bool = typer.Option(False, "--json", help="Print JSON.")):
    """List the strategies of GAME and their parameters."""
    from sim.registry import get_game

    g = get_game(game)
    strats = g.strategies.values()
    if as_json:
        print(json.dumps([{"name": s.name, "help": s.help, "params": [
            {"name": p.name, "default": p.default, "low": p.lo, "high": p.hi, "integer": p.integer,
             "help": p.help} for p in s.params]} for s in strats], indent=2))
        return
    for s in strats:
        print(f"{s.name}: {s.help}")
        for p in s.params:
            print(f"    {p.name} = {p.default:g}  in [{p.lo:g}, {p.hi:g}]  {p.help}")
    print(f"\nUse --strategies NAME[,NAME...]; parameters as NAME:key=value, e.g. "
          f"--strategies {next(iter(g.strategies))},{list(g.strategies)[-1]}")


@app.command()
def simulate(game: str = typer.Argument(..., help="Game id."),
             n_games: int = GamesOpt, players: Optional[int] = PlayersOpt, seed: int = SeedOpt,
             jobs: Optional[int] = JobsOpt, sets: Optional[List[str]] = SetOpt,
             strategies: Optional[str] = StratOpt,
             as_json: bool = typer.Option(False, "--json", help="Print one JSON object (the contract)."),
             quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar.")):
    """Play many games of GAME and summarize win rates, seat advantage, length and card power."""
    from analysis.summary import render_text, summarize
    from sim import runner

    setup = _setup(game, players, sets, strategies, seed)
    runner.check_counts(n_games, seed, jobs)
    advance, bar = runner.progress_bar(n_games, enabled=None if not (as_json or quiet) else False)
    with bar:
        result = runner.run(setup, n_games, jobs, progress=advance)
    summary = summarize(result)
    if as_json:
        print(json.dumps(summary))
    else:
        print(render_text(summary))


@app.command()
def trace(game: str = typer.Argument(..., help="Game id."),
          seed: int = SeedOpt, players: Optional[int] = PlayersOpt,
          sets: Optional[List[str]] = SetOpt, strategies: Optional[str] = StratOpt,
          index: int = typer.Option(0, "--index", help="Game index within the seed's sequence."),
          out: str = typer.Option("-", "--out", "-o", help="Output file (JSON Lines); - for stdout.")):
    """Write one game as JSON Lines: header, every event with the zones after it, result."""
    from sim.trace import trace as run_trace

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
def demo(n_games: int = typer.Option(200_000, "--games", "-n", help="Games per game."),
         jobs: Optional[int] = JobsOpt):
    """Simulate every shipped game with its defaults and print each summary."""
    from analysis.summary import render_text, summarize
    from sim import runner
    from sim.registry import game_ids

    runner.check_counts(n_games, 1, jobs)
    for gid in game_ids():
        setup = _setup(gid, None, None, None, 1)
        advance, bar = runner.progress_bar(n_games)
        with bar:
            result = runner.run(setup, n_games, jobs, progress=advance)
        print(render_text(summarize(result)))
        print()


def main() -> None:
    """Console entry point: one clear line and exit 2 for any bad input."""
    try:
        rc = app(standalone_mode=False)
    except InputError as e:
        print(f"cardlab: error: {e}", file=sys.stderr)
        sys.exit(2)
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
