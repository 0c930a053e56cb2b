"""Write docs/learned-models.md from the shipped model files (strategies/models/*.json):
each model's command and its strength table per generation.

    python scripts/learned_models.py            # rewrite the page
    python scripts/learned_models.py --check    # exit 1 if the page is not what the files say
"""
from __future__ import annotations

import sys
from pathlib import Path

from cardlab.sim import models
from cardlab.sim.registry import get_game

PAGE = Path(__file__).resolve().parent.parent / "docs" / "learned-models.md"


def page() -> str:
    out = ["# The shipped learned models", "",
           "Written by `python scripts/learned_models.py` from `strategies/models/*.json` (the files "
           "`cardlab learn` wrote; [the learned player](search-and-ladder.md#the-learned-player)). "
           "Each table: the generation in each seat in turn against the opponent in every other seat, "
           "its win rate with a 95% Wilson interval; \"stronger\" or \"weaker\" only when the interval "
           "excludes the fair share.", ""]
    for path in sorted(models.shipped_folder().glob("*.json")):
        game_id, players = path.stem.rsplit("-", 1)
        game = get_game(game_id)
        m = models.load(path, game, int(players.rstrip("p")))
        kind = "linear" if m.generations[-1]["hidden"] == 0 else f"{m.generations[-1]['hidden']} hidden units"
        out += [f"## {game.title.split(':')[0]}, {m.players} players", "",
                f"`{m.info['command']}` ({kind}, {m.n_features} numbers seen)", ""]
        for g in m.generations:
            out += [f"Generation {g['generation']}: {g['positions']:,} positions from {g['games']:,} games.", "",
                    "| against | games | win rate [95%] | fair | |", "|---|---|---|---|---|"]
            for r in g["strength"]:
                lo, hi = r["ci"]
                out.append(f"| {r['opponent']} | {r['games']:,} | {100 * r['win_rate']:.1f}% "
                           f"[{100 * lo:.1f}, {100 * hi:.1f}] | {100 * r['fair']:.1f}% | {r['verdict']} |")
            out.append("")
    return "\n".join(out)


def main() -> int:
    text = page()
    if "--check" in sys.argv[1:]:
        same = PAGE.is_file() and PAGE.read_text() == text
        print("identical" if same else f"{PAGE} differs from the model files: run scripts/learned_models.py")
        return 0 if same else 1
    PAGE.write_text(text)
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
