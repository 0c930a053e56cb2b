"""Every game still plays exactly the games recorded in tests/golden/ (scripts/golden.py):
a refactor of a kernel, a strategy or the engine must leave every file identical."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import golden  # noqa: E402

CASES = [pytest.param(*c, id=f"{c[0]}-{c[4][:-5]}") for c in golden.cases()]


def test_golden_files_cover_the_matrix():
    recorded = {p.relative_to(golden.GOLDEN).as_posix() for p in golden.GOLDEN.rglob("*.json")
                if p.parent.name != "search"}  # the search player's decisions: scripts/search_golden.py
    expected = {f"{c[0]}/{c[4]}" for c in golden.cases()}
    games = sorted({f.split("/")[0] for f in recorded ^ expected})
    assert recorded == expected, (f"the golden files of {', '.join(games)} are not the matrix: run python "
                                  f"scripts/golden.py --write --game GAME for each (a new game's once its rules "
                                  "are final; any game's after a deliberate rule change)")


@pytest.mark.parametrize("gid,players,spec,seed,name", CASES)
def test_golden(gid, players, spec, seed, name):
    path = golden.GOLDEN / gid / name
    if not path.is_file():  # a new game (cardlab new-game) until its rules are final
        pytest.fail(f"no golden file {path.relative_to(golden.GOLDEN.parent.parent)}: when the rules of {gid} are "
                    f"final, record them with python scripts/golden.py --write --game {gid}", pytrace=False)
    assert golden.play(gid, players, spec, seed, jobs=2) == path.read_text(), (
        f"{gid} {players}p {spec} seed {seed} no longer plays the recorded games ({path})")
