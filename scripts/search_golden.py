#!/usr/bin/env python
"""Golden decisions of the search player: refactors of ``sim/search.py`` must not change them.

    python scripts/search_golden.py            # compare with tests/golden/search/decisions.json
    python scripts/search_golden.py --write    # (re)write it, only for an intended change

For every game: positions met by seeded random play (40 games, 2..39 random steps in),
the ``mcts`` action at each under six settings (default trust, trust=0, random rollouts,
progressive widening forced by a small ``widen``, with and without trust, and a
restriction with widening), and the win shares of 20 whole games with one
``mcts:iterations=40`` seat.  The file was written by the code of commit 0a39bbb, before
the search's copies and wide nodes were made quicker (2026-12-01); Block Tower's and 3UP
3DOWN's entries were re-written for intended rule changes (issue 34), and 3UP's again when
its worlds began to keep a picked-up pile in its hand (2026-12-05, docs/changelog.md).
``tests/test_search.py`` runs the comparison.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path


GOLDEN = Path(__file__).resolve().parent.parent / "tests" / "golden" / "search" / "decisions.json"
GAMES = ("skyscraper", "smokestack", "five_towers", "three_up", "block_tower", "crazy_eights")


def decisions(game_ids=GAMES) -> dict:
    from cardlab.sim import runner
    from cardlab.sim.registry import get_game
    from cardlab.sim.positions import empty_model, random_play_positions

    out = {}
    for gid in game_ids:
        g = get_game(gid)
        L, B = g.layout, g.binding()
        pos = random_play_positions(g, 40, (2, 40), 5)
        names = dict(g.restriction_names())
        never = next(iter(names)) if names else None
        variants = [{"iterations": 100}, {"iterations": 60, "trust": 0}, {"iterations": 60, "rollout": "random"},
                    {"iterations": 80, "widen": 3}, {"iterations": 80, "widen": 2, "trust": 0}]
        if never:
            variants.append({"iterations": 60, "never": never, "widen": 3})
        res = []
        for v in variants:
            p = g.all_strategies["mcts"].row(v)
            for st in pos:
                res.append([int(x) for x in B.search_decide(st.copy(), int(st[L.S_ACTOR]), p, empty_model(g))])
        out[gid] = res
        P = g.default_players
        seats = ",".join(["mcts:iterations=40"] + ["reference"] * (P - 1))
        t = runner.run(runner.make_setup(gid, P, None, seats, 3), 20, 1).tally
        out[gid + "_games"] = [float(x) for x in t.wins] + [int(t.games)]
    return out


def main(argv: list[str]) -> int:
    got = decisions()
    if "--write" in argv:
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(json.dumps(got) + "\n")
        print(f"wrote {GOLDEN}")
        return 0
    want = json.loads(GOLDEN.read_text())
    bad = [k for k in want if want[k] != got.get(k)]
    for k in bad:
        n = sum(1 for a, b in zip(want[k], got[k]) if a != b) if not k.endswith("_games") else "tally"
        print(f"{k}: differs ({n})")
    print("identical" if not bad else f"{len(bad)} of {len(want)} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
