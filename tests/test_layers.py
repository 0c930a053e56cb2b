"""The import contract (``.importlinter``, docs/architecture.md "Layers"): kept by the code,
not vacuous, covering every module, and not weakened (every layer named, in its order, no
ignored imports)."""
from __future__ import annotations

import configparser
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / ".importlinter"


def _script():
    spec = importlib.util.spec_from_file_location("lint_imports", ROOT / "scripts" / "lint_imports.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _config() -> configparser.ConfigParser:
    c = configparser.ConfigParser()
    c.read(CONFIG)
    return c


def _lines(value: str) -> list[str]:
    return [x.strip() for x in value.splitlines() if x.strip()]


def _layers() -> list[list[str]]:
    """The layers contract's layers, top first, each as its module names."""
    raw = _lines(_config()["importlinter:contract:layers"]["layers"])
    return [[m.strip() for m in (x.split("|") if "|" in x else x.split(":"))] for x in raw]


def _modules() -> set[str]:
    """Every module of the installed packages, from the checkout's files."""
    out = set()
    for name, folder in _script().package_dirs(ROOT).items():
        for p in folder.rglob("*.py"):
            if "__pycache__" in p.parts:
                continue
            rel = p.relative_to(folder).with_suffix("").parts
            parts = rel[:-1] if rel[-1] == "__init__" else rel
            out.add(".".join((name, *parts)))
    return out


def _games() -> list[str]:
    from cardlab.sim.registry import game_ids

    return game_ids()


def test_the_contract_is_kept():
    p = _script().run([])
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-2000:]
    kept = [s for s in _config().sections() if s.startswith("importlinter:contract:")]
    assert f"Contracts: {len(kept)} kept, 0 broken." in p.stdout, p.stdout[-2000:]


def test_the_contract_is_not_vacuous(tmp_path):
    """The same layers upside down are broken: import-linter sees the real imports."""
    c = _config()
    layers = _lines(c["importlinter:contract:layers"]["layers"])
    c["importlinter:contract:layers"]["layers"] = "\n" + "\n".join(reversed(layers))
    for s in [s for s in c.sections() if s.startswith("importlinter:contract:") and s != "importlinter:contract:layers"]:
        c.remove_section(s)
    upside_down = tmp_path / "upside_down.ini"
    with open(upside_down, "w") as fh:
        c.write(fh)
    p = _script().run([], config=upside_down)
    assert p.returncode != 0 and "BROKEN" in p.stdout, p.stdout[-2000:]


def test_the_layers_are_named_in_their_order():
    """CLI <- play/new-game <- pipeline <- reports <- analysis <- runner <- binding <-
    strategies/search <- rules (kernel <- moves <- layout) <- core: a contract that merged,
    dropped or reordered a layer fails here."""
    layers = _layers()
    where = {m: i for i, layer in enumerate(layers) for m in layer}
    order = ["cardlab.cli", "cardlab.play", "cardlab.analysis.pipeline", "cardlab.analysis.report",
             "cardlab.analysis.summary", "cardlab.sim.runner", "cardlab.sim.bind",
             "cardlab.strategies", "cardlab.sim.skyscraper.kernel", "cardlab.sim.skyscraper.moves",
             "cardlab.sim.skyscraper.layout", "cardlab.sim.game", "cardlab.sim.engine"]
    assert [where[m] for m in order] == list(range(len(order))), [(m, where.get(m)) for m in order]
    assert where["cardlab.sim.testing"] == 0 and where["cardlab.new_game"] == where["cardlab.play"]
    assert where["cardlab.sim.search"] == where["cardlab.strategies"]
    for g in _games():  # each game's parts in their layers
        for part in ("kernel", "moves", "layout"):
            assert where.get(f"cardlab.sim.{g}.{part}") == where[f"cardlab.sim.skyscraper.{part}"], (g, part)


def test_every_module_is_in_the_contract():
    """Each module is in a layer (or in a package named there); only package __init__
    modules are left out, and a game's (its Game class) is in the game-rules contract."""
    entries = {m for layer in _layers() for m in layer}
    rules = _lines(_config()["importlinter:contract:game-rules"]["source_modules"])
    games = {f"cardlab.sim.{g}" for g in _games()}
    missing = []
    for m in sorted(_modules()):
        if any(m == e or m.startswith(e + ".") for e in entries):
            continue
        if m in ("cardlab", "cardlab.sim", "cardlab.analysis"):
            continue  # package __init__ modules (a docstring, the numba cache set-up)
        if m in games and m in rules:
            continue
        missing.append(m)
    assert not missing, f"modules in no layer of .importlinter: {missing}"
    assert games <= set(rules), "a game's Game class is not in the game-rules contract"


def test_nothing_is_ignored():
    """No contract ignores an import or is switched off: a violation must be fixed, not listed."""
    c = _config()
    for s in c.sections():
        if s.startswith("importlinter:contract:"):
            assert "ignore_imports" not in c[s], s
            assert c[s].get("unmatched_ignore_imports_alerting") is None, s
    forbidden = _lines(c["importlinter:contract:game-rules"]["forbidden_modules"])
    assert {"cardlab.strategies", "cardlab.strategies.*", "cardlab.sim.bind", "cardlab.analysis"} <= set(forbidden)
    assert c["importlinter:contract:sim-below-analysis"]["type"] == "forbidden"


@pytest.mark.parametrize("part", ["kernel", "moves", "layout"])
def test_no_rules_module_names_the_strategies(part):
    """The plain text too (a function-level import is an import; a string is a loophole)."""
    for g in _games():
        text = (ROOT / "sim" / g / f"{part}.py").read_text()
        assert "cardlab.strategies" not in text, f"sim/{g}/{part}.py names cardlab.strategies"
