"""``cardlab new-game NAME``: the skeleton it writes is a registered game whose own tests
(the whole conformance battery and its rule scenarios) pass at once, in a copy of the
project; a bad NAME is refused in one line and nothing is written; a write that fails
half-way is undone; the templates are never importable and install as package data."""
from __future__ import annotations

import ast
import fnmatch
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from cardlab import new_game as NG
from cardlab.sim.errors import InputError

ROOT = Path(__file__).resolve().parent.parent


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under root (relative path -> bytes): 'nothing written' is this unchanged."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def small_root(tmp_path):
    """The files the command reads and edits, copied from the checkout (no game code)."""
    r = tmp_path / "root"
    (r / "sim").mkdir(parents=True)
    (r / "strategies").mkdir()
    shutil.copy(ROOT / "sim" / "registry.py", r / "sim" / "registry.py")
    shutil.copy(ROOT / "pyproject.toml", r / "pyproject.toml")
    (r / "sim" / "engine.py").write_text("# stands for a shared module\n")
    (r / "strategies" / "base.py").write_text("# stands for the shared strategy types\n")
    return r


# ---------------------------------------------------------------- refusals


@pytest.mark.parametrize("name,words", [
    ("crazy-eights", "bad game name 'crazy-eights': a game id is a lowercase Python identifier"),
    ("CrazyEights", "bad game name 'CrazyEights': a game id is a lowercase Python identifier"),
    ("8s", "bad game name '8s'"),
    ("_hidden", "bad game name '_hidden'"),
    ("", "bad game name ''"),
    ("class", "bad game name 'class': a Python keyword cannot name a module"),
    ("skyscraper", "game 'skyscraper' already exists: sim/registry.py lists it"),
    ("engine", "cannot create game 'engine': sim/engine.py already exists"),
    ("base", "cannot create game 'base': strategies/base.py already exists"),
    ("half_done", "cannot create game 'half_done': sim/half_done already exists"),
    ("paged", "cannot create game 'paged': docs/rules/paged.md already exists"),
])
def test_a_bad_name_is_refused_in_one_line_and_nothing_is_written(small_root, name, words):
    (small_root / "sim" / "half_done").mkdir()            # an unregistered folder
    (small_root / "docs" / "rules").mkdir(parents=True)
    (small_root / "docs" / "rules" / "paged.md").write_text("a page of someone else's\n")
    before = snapshot(small_root)
    dirs = sorted(p for p in small_root.rglob("*") if p.is_dir())
    with pytest.raises(InputError) as e:
        NG.new_game(name, small_root, golden=False)
    msg = str(e.value)
    assert msg.startswith(words) and "\n" not in msg, msg
    assert snapshot(small_root) == before
    assert sorted(p for p in small_root.rglob("*") if p.is_dir()) == dirs


def test_a_root_that_is_not_a_checkout_is_refused(tmp_path):
    with pytest.raises(InputError, match=r"^bad --root .*: no sim/registry.py there"):
        NG.new_game("tiny", tmp_path, golden=False)
    assert list(tmp_path.iterdir()) == []


def test_an_installed_cardlab_needs_a_root(tmp_path, monkeypatch):
    monkeypatch.setattr(NG, "default_root", lambda: tmp_path)  # site-packages: no sim/registry.py
    with pytest.raises(InputError, match=r"^cardlab runs from an installed copy .*: pass --root PATH"):
        NG.new_game("tiny", golden=False)
    assert list(tmp_path.iterdir()) == []


def test_the_cli_refuses_with_exit_2_and_one_line(small_root):
    before = snapshot(small_root)
    p = subprocess.run([sys.executable, "-m", "cardlab.cli", "new-game", "Bad-Name", "--root",
                        str(small_root)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2
    assert p.stderr.startswith("cardlab: error: bad game name 'Bad-Name'") and p.stderr.count("\n") == 1
    assert p.stdout == "" and snapshot(small_root) == before


def test_a_write_that_fails_half_way_is_undone(small_root):
    (small_root / "tests").write_text("a file where the tests folder should be\n")
    before = snapshot(small_root)
    with pytest.raises(InputError, match=r"^cannot write game 'tiny': .*nothing was changed$"):
        NG.new_game("tiny", small_root, golden=False)
    assert snapshot(small_root) == before
    assert not (small_root / "sim" / "tiny").exists() and not (small_root / "docs").exists()


# ---------------------------------------------------------------- what it writes


def _rendered(small_root, name, template):
    """The plan's files by path, each rendered completely and, if Python, parseable; the
    rules never import the strategies, and the kernel declares what sim/bind.py binds."""
    p = NG.plan(name, small_root, template=template)
    written = {f.relative_to(small_root).as_posix(): text for f, text in p.files}
    assert set(written) == {f"sim/{name}/__init__.py", f"sim/{name}/layout.py", f"sim/{name}/moves.py",
                            f"sim/{name}/kernel.py", f"strategies/{name}.py", f"docs/rules/{name}.md",
                            f"tests/test_{name}_rules.py"}
    for path, text in written.items():
        assert "{{" not in text and "}}" not in text, path
        if path.endswith(".py"):
            ast.parse(text, path)
    for rules in ("kernel", "moves", "layout"):
        assert "cardlab.strategies" not in written[f"sim/{name}/{rules}.py"], rules
    assert "\nRULES = Rules(deal=deal, begin=begin, step=step, legal=legal" in written[f"sim/{name}/kernel.py"]
    assert f'test_conformance = conformance_tests("{name}")' in written[f"tests/test_{name}_rules.py"]
    return p, written


def test_the_plan_renders_every_template_and_registers_the_game(small_root):
    p, written = _rendered(small_root, "crazy_eights_two", "skeleton")
    assert "class CrazyEightsTwo(Game):" in written["sim/crazy_eights_two/__init__.py"]
    edits = {f.name: new for f, _, new in p.edits}
    reg = ast.literal_eval(edits["registry.py"].split("GAME_MODULES = ", 1)[1].split("\n}\n", 1)[0] + "\n}")
    assert reg["crazy_eights_two"] == "cardlab.sim.crazy_eights_two"
    assert list(reg)[:-1] == list(ast.literal_eval((small_root / "sim" / "registry.py").read_text()
                                                  .split("GAME_MODULES = ", 1)[1].split("\n}\n", 1)[0] + "\n}"))
    py = tomllib.loads(edits["pyproject.toml"])["tool"]["setuptools"]
    old = tomllib.loads((small_root / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert py["packages"] == old["packages"] + ["cardlab.sim.crazy_eights_two"]
    assert {k: v for k, v in py.items() if k != "packages"} == {k: v for k, v in old.items() if k != "packages"}


def test_the_cards52_plan_renders_every_template(small_root):
    """--template cards52: the same files, a trick-taking game on sim/cards52.py, registered
    by the same edits as the skeleton."""
    p, written = _rendered(small_root, "whist_lite", "cards52")
    assert "class WhistLite(Game):" in written["sim/whist_lite/__init__.py"]
    for rules in ("kernel", "moves", "layout"):
        assert "from cardlab.sim.cards52 import" in written[f"sim/whist_lite/{rules}.py"], rules
    assert "`cardlab new-game whist_lite --template cards52`" in written["docs/rules/whist_lite.md"]
    skeleton = NG.plan("whist_lite", small_root)
    assert [(f, new) for f, _, new in p.edits] == [(f, new) for f, _, new in skeleton.edits]
    assert {f for f, _ in p.files} == {f for f, _ in skeleton.files}


def test_the_cards52_templates_are_the_skeletons_files():
    folder = NG.TEMPLATE_DIRS["cards52"]
    assert sorted(p.name for p in folder.iterdir()) == sorted(t for t, _ in NG.FILES)


def test_an_unknown_template_is_refused_in_one_line_naming_the_choices(small_root):
    before = snapshot(small_root)
    with pytest.raises(InputError) as e:
        NG.new_game("tiny", small_root, golden=False, template="bridge")
    assert str(e.value) == "bad --template 'bridge': allowed skeleton, cards52"
    p = subprocess.run([sys.executable, "-m", "cardlab.cli", "new-game", "tiny", "--template", "bridge",
                        "--root", str(small_root)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr == "cardlab: error: bad --template 'bridge': allowed skeleton, cards52\n"
    assert snapshot(small_root) == before


def test_the_game_joins_the_import_contract(small_root):
    """With the checkout's .importlinter, the plan adds the game's kernel, moves and
    layout to their layers and its Game class to the game-rules contract."""
    shutil.copy(ROOT / ".importlinter", small_root / ".importlinter")
    p = NG.plan("tiny", small_root)
    old = (small_root / ".importlinter").read_text()
    new = {f.name: text for f, _, text in p.edits}[".importlinter"]
    added = sorted(set(new.split()) - set(old.split()))
    assert added == ["cardlab.sim.tiny", "cardlab.sim.tiny.kernel",
                     "cardlab.sim.tiny.layout", "cardlab.sim.tiny.moves"], added
    for part in ("kernel", "moves", "layout"):
        line = next(x for x in new.splitlines() if f"cardlab.sim.tiny.{part}" in x)
        assert line.rstrip().endswith(f" | cardlab.sim.tiny.{part}") and f"cardlab.sim.skyscraper.{part}" in line
    assert "    cardlab.sim.three_up\n    cardlab.sim.tiny\nforbidden_modules" in new


def test_a_class_name_never_shadows_what_the_game_module_imports():
    assert NG.class_name("crazy_eights") == "CrazyEights"
    assert NG.class_name("game") == "GameGame" and NG.class_name("knob") == "KnobGame"


def test_the_templates_install_as_package_data_and_are_never_imported():
    templates = sorted(p.name for p in NG.TEMPLATES.iterdir())
    assert templates == sorted(t for t, _ in NG.FILES)
    assert all(t.endswith(".tmpl") for t in templates)  # pytest and numba import only *.py
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    rel = [(NG.TEMPLATES / t).relative_to(ROOT / "cardlab").as_posix() for t in templates]
    assert all(any(fnmatch.fnmatch(r, g) for g in data["cardlab"]) for r in rel), data


# ---------------------------------------------------------------- green from the first run


def project_copy(dest: Path) -> Path:
    """A copy of the project's code in which ``cardlab`` imports the copy's games: the
    package folders beside cardlab/ (installed as cardlab.sim, ...) are linked into it, so
    with the copy first on PYTHONPATH every import and numba's source hash see the copy."""
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    for d in ("cardlab", "sim", "strategies", "analysis"):
        shutil.copytree(ROOT / d, dest / d, ignore=skip)
    shutil.copy(ROOT / "pyproject.toml", dest / "pyproject.toml")
    shutil.copy(ROOT / ".importlinter", dest / ".importlinter")
    for d in ("sim", "strategies", "analysis"):
        (dest / "cardlab" / d).symlink_to(Path("..") / d, target_is_directory=True)
    return dest


def test_the_new_game_passes_every_conformance_check_from_the_first_run(tmp_path):
    """Write a game into a copy of the project with the real command, then run the
    generated test file there: the conformance battery (one test per check, golden trace
    included) and the skeleton's rule scenarios all pass."""
    root = project_copy(tmp_path / "project")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    env["PYTHONPATH"] = os.pathsep.join([str(root)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env["CARDLAB_CACHE_DIR"] = str(tmp_path / "numba")  # the copy's compiled code stays here
    p = subprocess.run([sys.executable, "-m", "cardlab.cli", "new-game", "tiny_cards"], cwd=root,
                       env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    out = p.stdout
    for f in ("sim/tiny_cards/__init__.py", "sim/tiny_cards/layout.py", "sim/tiny_cards/moves.py",
              "sim/tiny_cards/kernel.py", "strategies/tiny_cards.py",
              "docs/rules/tiny_cards.md",
              "tests/test_tiny_cards_rules.py", "tests/golden/traces/tiny_cards.jsonl"):
        assert f"  {f}\n" in out and (root / f).is_file(), f
    assert "registered it in sim/registry.py and pyproject.toml and .importlinter" in out
    assert "python -m pytest -q tests/test_tiny_cards_rules.py" in out and "docs/adding_a_game.md" in out
    # registered: the copy's registry lists it and builds its Game (other games are not imported)
    code = ("from cardlab.sim.registry import game_ids, get_game; "
            "print(game_ids()[-1], get_game('tiny_cards').title)")
    reg = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True,
                         text=True, timeout=120)
    assert reg.returncode == 0 and reg.stdout.startswith("tiny_cards Tiny Cards: "), reg.stderr
    _passes_and_keeps_the_contract(root, env, "tiny_cards", 8)  # every check, the eight rule tests
    assert "cardlab.sim.tiny_cards.kernel" in (root / ".importlinter").read_text()
    again = subprocess.run([sys.executable, "-m", "cardlab.cli", "new-game", "tiny_cards"], cwd=root,
                           env=env, capture_output=True, text=True, timeout=120)
    assert again.returncode == 2 and "game 'tiny_cards' already exists" in again.stderr


def _passes_and_keeps_the_contract(root, env, name: str, rule_tests: int) -> None:
    """The new game's test file passes in the copy (every conformance check and its rule
    tests), and the game keeps the import contract, which now names its modules (the
    copy's cardlab/ links its package folders in, so import-linter reads it as installed)."""
    from cardlab.sim.testing import CHECKS

    t = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        f"tests/test_{name}_rules.py"], cwd=root, env=env, capture_output=True,
                       text=True, timeout=900)
    tail = "\n".join(t.stdout.splitlines()[-15:])
    assert t.returncode == 0, tail + t.stderr[-2000:]
    assert f"{len(CHECKS) + rule_tests} passed" in tail, tail
    code = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"
    lint = subprocess.run([sys.executable, "-c", code, ".importlinter", "--no-cache"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300)
    assert lint.returncode == 0 and " 0 broken" in lint.stdout, lint.stdout[-3000:] + lint.stderr[-1000:]


def test_the_cards52_game_passes_every_conformance_check_from_the_first_run(tmp_path):
    """``new-game NAME --template cards52`` in a copy of the project: the generated test
    file (the conformance battery, golden trace included, and the trick-taking rule
    scenarios) passes, and the game keeps the import contract."""
    root = project_copy(tmp_path / "project")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    env["PYTHONPATH"] = os.pathsep.join([str(root)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env["CARDLAB_CACHE_DIR"] = str(tmp_path / "numba")
    p = subprocess.run([sys.executable, "-m", "cardlab.cli", "new-game", "tiny_tricks", "--template", "cards52"],
                       cwd=root, env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("wrote the game 'tiny_tricks' (52 cards, tricks: ")
    for f in ("sim/tiny_tricks/kernel.py", "strategies/tiny_tricks.py", "docs/rules/tiny_tricks.md",
              "tests/test_tiny_tricks_rules.py", "tests/golden/traces/tiny_tricks.jsonl"):
        assert f"  {f}\n" in p.stdout and (root / f).is_file(), f
    _passes_and_keeps_the_contract(root, env, "tiny_tricks", 11)  # every check, the eleven rule tests
