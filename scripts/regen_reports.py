#!/usr/bin/env python
"""Regenerate the committed example report(s) under ``reports/``.

    python scripts/regen_reports.py [--jobs J] [--game GAME ...]

Runs the real command line (so the "Reproduce" section records exactly what was run),
with a fixed game count and seed, from the repository root:

    cardlab report skyscraper --games 1000000 --players 2 --seed 1 --tournament all \
        --tournament-games 5000 --out reports/skyscraper
    cardlab report smokestack --games 1000000 --players 4 --seed 1 --tournament all \
        --tournament-games 5000 --out reports/smokestack
    cardlab report five_towers --games 1000000 --players 3 --seed 1 --tournament all \
        --tournament-games 5000 --out reports/five_towers
    (and the same for three_up and block_tower, 4 players)

the strategy-search examples in ``reports/optimize/`` (``cardlab optimize ... --out``) and
the sweep example in ``reports/sweeps/`` (``cardlab sweep ... --report``) and the balance
examples in ``reports/balance/`` (``cardlab balance ... --out``; their strong-play part
depends on the machine's speed: the budget is wall time).

Results depend only on the seed, the game count, the rules and the strategies, so the
numbers, tables and figures come out identical on every machine; only the timing fields
of summary.json (elapsed_s, games_per_second) change.  Re-run it after any change to the
rules, the strategies or the report layout, and commit the result.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# (game, games, players, seed, output folder relative to the repository root)
EXAMPLES = [
    ("skyscraper", 1_000_000, 2, 1, "reports/skyscraper"),
    ("smokestack", 1_000_000, 4, 1, "reports/smokestack"),
    ("five_towers", 1_000_000, 3, 1, "reports/five_towers"),
    ("three_up", 1_000_000, 4, 1, "reports/three_up"),
    ("block_tower", 1_000_000, 4, 1, "reports/block_tower"),
    ("crazy_eights", 1_000_000, 3, 1, "reports/crazy_eights"),
]

# strategy-search examples: (game, strategy, field, players, games, budget, folder)
OPTIMIZE = [
    ("skyscraper", "aggressive", "reference", 2, 4000, 60, "reports/optimize/skyscraper_aggressive"),
    ("five_towers", "capper", "reference", 3, 3000, 40, "reports/optimize/five_towers_capper"),
]

# sweep examples: (game, [--vary ...], games, folder)
SWEEPS = [
    ("skyscraper", ["floors_to_win=4,5", "players=2,3,4"], 100_000, "reports/sweeps/skyscraper_floors"),
]

# balance examples (the default 30-minute budget: strong play takes what the search leaves,
# so these pages depend on the machine's speed): (game, [--target ...], folder)
BALANCE = [
    ("crazy_eights", ["seat_edge=0±1"], "reports/balance/crazy_eights"),
    ("smokestack", ["seat_edge=0±1"], "reports/balance/smokestack"),
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", "-j", type=int, default=None, help="parallel workers (default: all cores)")
    ap.add_argument("--game", action="append", help="only this game (repeatable; default: all)")
    args = ap.parse_args()
    for game, games, players, seed, out in EXAMPLES:
        if args.game and game not in args.game:
            continue
        cmd = [sys.executable, "-m", "cardlab.cli", "report", game, "--games", str(games),
               "--players", str(players), "--seed", str(seed), "--tournament", "all",
               "--tournament-games", "5000", "--out", out, "--quiet"]
        if args.jobs:
            cmd += ["--jobs", str(args.jobs)]
        print("running:", " ".join(cmd[2:]), flush=True)
        rc = subprocess.run(cmd, cwd=ROOT).returncode
        if rc:
            return rc
    for game, vary, games, out in SWEEPS:
        if args.game and game not in args.game:
            continue
        cmd = [sys.executable, "-m", "cardlab.cli", "sweep", game, *[a for v in vary for a in ("--vary", v)],
               "--games", str(games), "--seed", "1", "--out", out, "--report", "--quiet"]
        print("running:", " ".join(cmd[2:]), flush=True)
        rc = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL).returncode
        if rc:
            return rc
    for game, strat, field, players, games, budget, out in OPTIMIZE:
        if args.game and game not in args.game:
            continue
        cmd = [sys.executable, "-m", "cardlab.cli", "optimize", game, "--strategy", strat, "--against", field,
               "--players", str(players), "--games", str(games), "--budget", str(budget), "--seed", "1",
               "--out", out, "--quiet"]
        print("running:", " ".join(cmd[2:]), flush=True)
        rc = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL).returncode
        if rc:
            return rc
    for game, targets, out in BALANCE:
        if args.game and game not in args.game:
            continue
        cmd = [sys.executable, "-m", "cardlab.cli", "balance", game, *[a for t in targets for a in ("--target", t)],
               "--out", out, "--quiet"]
        print("running:", " ".join(cmd[2:]), flush=True)
        rc = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL).returncode
        if rc:
            return rc
    return 0


if __name__ == "__main__":
    sys.exit(main())
