#!/usr/bin/env python
"""Re-make the committed search examples: ``reports/ladders/GAME.{txt,json}`` (skill
ladders) and ``reports/restricted/GAME.{txt,json}`` (restricted play).

    python scripts/search_examples.py [--only ladders|restricted] [GAME ...]

Each example is the CLI command written in its ``.txt`` (``cardlab ladder ...`` /
``cardlab restricted ...``), run once through the same library calls: the ``.txt`` is
the command's text output with the command under it, the ``.json`` its ``--json``
object.  The ladders rank the learned player and the search scored by it (``ladder.LEARNED_RUNGS``) beside
the heuristics.  About 30 minutes for the ladders and 29 for the restricted runs on this 2-core
machine (Block Tower's are the longest: 15 and 12 minutes).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# game -> (games per seat, self-play games, games per pairing of the rungs' tournament,
# mcts budgets); 3UP also climbs to 1,024 (its default budget is 600).  The pairings'
# games are 50 / 15 / 15 / 25 / 15 / 50 per seat order (2 orders with 2 players, 2P with P)
LADDERS = {
    "skyscraper": (300, 200, 100, (16, 64, 256)),
    "smokestack": (100, 60, 120, (16, 64, 256)),
    "five_towers": (100, 60, 90, (16, 64, 256)),
    "three_up": (150, 100, 200, (16, 64, 256, 1024)),
    "block_tower": (100, 60, 120, (16, 64, 256)),
    "crazy_eights": (300, 200, 300, (16, 64, 256)),
}
RESTRICTED_GAMES, RESTRICTED_ITERATIONS = 100, 32  # the command's defaults


def ladder(game: str, jobs: int) -> tuple[str, dict]:
    # the learned rungs beside the heuristics (issue 38): the shipped model, read one move
    # ahead and scoring the search's cut play-outs
    from cardlab.analysis.ladder import LEARNED_RUNGS, render_text, run_ladder

    games, self_games, versus, budgets = LADDERS[game]
    lad = run_ladder(game, list(budgets), "reference", None, games, self_games, versus, 1, jobs,
                     also=list(LEARNED_RUNGS))
    command = (f"cardlab ladder {game} --budgets {','.join(map(str, budgets))} --games {games} "
               f"--self-games {self_games} --versus-games {versus} --also {','.join(LEARNED_RUNGS)} --jobs {jobs}")
    return render_text(lad) + f"\n\ncommand: {command}\n", lad.to_dict()


def restricted(game: str, jobs: int) -> tuple[str, dict]:
    from cardlab.analysis.restricted import parse_never, render_text, run_restricted
    from cardlab.sim import runner

    setup = runner.make_setup(game, None, None, None, 1)
    items = parse_never(None, setup.game, setup.rules)
    res = run_restricted(game, items, None, RESTRICTED_GAMES, RESTRICTED_ITERATIONS, 1, jobs, None)
    command = f"cardlab restricted {game} --games {RESTRICTED_GAMES} --iterations {RESTRICTED_ITERATIONS} --jobs {jobs}"
    return render_text(res) + f"\n\ncommand: {command}\n", res.to_dict()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("games", nargs="*", default=list(LADDERS), help="games (default: all six)")
    ap.add_argument("--only", choices=("ladders", "restricted"), help="one kind of example only")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    bad = [g for g in a.games if g not in LADDERS]
    if bad:
        print(f"search_examples.py: unknown game {bad[0]!r} (one of {', '.join(LADDERS)})", file=sys.stderr)
        return 2
    kinds = [k for k in ("ladders", "restricted") if a.only in (None, k)]
    for kind in kinds:
        for game in a.games:
            t0 = time.perf_counter()
            text, obj = (ladder if kind == "ladders" else restricted)(game, a.jobs)
            out = ROOT / "reports" / kind
            out.mkdir(parents=True, exist_ok=True)
            (out / f"{game}.txt").write_text(text)
            (out / f"{game}.json").write_text(json.dumps(obj) + "\n")
            print(f"{kind}/{game}: {time.perf_counter() - t0:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
