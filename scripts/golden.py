#!/usr/bin/env python
"""Golden outputs: what every game plays today, kept so a refactor can prove it changed no result.

    python scripts/golden.py --write     # record tests/golden/ (after a deliberate rule change)
    python scripts/golden.py --check     # compare a fresh run with tests/golden/ (exit 1 on a difference)
    python scripts/golden.py --trace GAME  # record GAME's golden trace (tests/golden/traces/GAME.jsonl)

The matrix: every game, every player count, each strategy in self-play, and two mixed pools
(all the game's strategies in turn, from two seats' offsets), on fixed seeds, 20,000 games
each. Every case is the ``simulate --json`` object with the timing fields removed, one file
per case under ``tests/golden/<game>/``. ``tests/test_golden.py`` replays the same matrix.

Results depend only on the seed, the game count, the rules and the strategies (never on
``--jobs``), so the files are identical on every machine. A refactor must leave every file
byte-identical; a rule change that moves results must say so in its commit and rewrite them.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

GOLDEN = ROOT / "tests" / "golden"
GAMES = 20_000


def cases(game_ids=None):
    """(game, players, strategies spec, seed, file name) for the whole matrix."""
    from cardlab.sim.registry import game_ids as all_games, get_game

    for gid in game_ids or all_games():
        game = get_game(gid)
        names = list(game.strategies)
        for players in range(game.min_players, game.max_players + 1):
            for name in names:
                yield gid, players, name, 1, f"{players}p_{name}.json"
            if players >= 2:
                pool = ",".join(names[i % len(names)] for i in range(players))
                rot = ",".join(names[(i + 1) % len(names)] for i in range(players))
                yield gid, players, pool, 2, f"{players}p_mixed.json"
                yield gid, players, rot, 3, f"{players}p_mixed_rotated.json"


def play(gid: str, players: int, spec: str, seed: int, games: int = GAMES, jobs: int | None = None) -> str:
    """The case's ``simulate --json`` text without the timing fields (sorted keys, indented)."""
    from cardlab.analysis.summary import TIMING_KEYS, summarize
    from cardlab.sim import runner

    s = summarize(runner.run(runner.make_setup(gid, players, [], spec, seed), games, jobs))
    for k in TIMING_KEYS:
        s.pop(k, None)
    return json.dumps(s, indent=1, sort_keys=True) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="record the golden files")
    mode.add_argument("--check", action="store_true", help="compare with the golden files")
    mode.add_argument("--trace", metavar="GAME", action="append",
                      help="record GAME's golden trace, game 3 of its default setup (repeatable)")
    ap.add_argument("--game", action="append", help="only this game (repeatable)")
    ap.add_argument("--jobs", "-j", type=int, default=None)
    args = ap.parse_args()
    if args.trace:
        from cardlab.sim.trace import write_golden_trace

        for gid in args.trace:
            print(f"wrote {write_golden_trace(gid).relative_to(ROOT)}")
        return 0
    bad = 0
    for gid, players, spec, seed, name in cases(args.game):
        path = GOLDEN / gid / name
        text = play(gid, players, spec, seed, jobs=args.jobs)
        if args.write:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        elif not path.exists() or path.read_text() != text:
            bad += 1
            print(f"DIFFERS: {path.relative_to(ROOT)} ({gid}, {players} players, {spec}, seed {seed})")
    if args.check:
        print("golden: all identical" if not bad else f"golden: {bad} file(s) differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
