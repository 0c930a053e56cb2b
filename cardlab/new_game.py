"""``cardlab new-game NAME``: the skeleton of a new game, registered and green from the start.

It writes, from the templates in ``cardlab/templates/new_game/`` (``*.py.tmpl``, so that
neither pytest nor numba ever imports them), a real but tiny game -- one card each, keep
it or exchange it for the top of the stock, the highest card wins: a decision, a hidden
hand, a hidden stock and a chance event -- that passes every check of the conformance kit:

    sim/NAME/__init__.py  layout.py  moves.py  kernel.py
    strategies/NAME.py
    docs/rules/NAME.md
    tests/test_NAME_rules.py

and registers it: a line in ``sim/registry.py``'s ``GAME_MODULES``, its package in
``pyproject.toml``, and its modules in the import contract ``.importlinter`` (its
kernel, moves and layout in their layers, its Game class in the game-rules contract; the
layers: docs/architecture.md).  Then it records the game's golden trace
(``tests/golden/traces/NAME.jsonl``, the conformance kit's last check) in a fresh process,
which compiles the game once (10-20 s): the designer's first test run is green.

``--template cards52`` writes the same files from ``cardlab/templates/cards52/`` instead: a
trick-taking game over a standard 52-card deck with bit-mask hands (3-7 players, follow
suit, trumps named by a seat, most tricks wins), built on the deck helpers of
``sim/cards52.py``; the default template is ``skeleton`` (the one-card game above).  An
unknown template is refused in one line that lists the choices.

A bad NAME (not a lowercase identifier, a Python keyword, an existing game id, a file or
folder that exists) is refused in one line before anything is written; a write that fails
half-way is undone.  The designer then changes the skeleton into their game one rule at a
time, following ``docs/adding_a_game.md``.

Registration edits the registry's text rather than discovering games: the shipped games
register by their line in ``GAME_MODULES``, and a new game joins them the same way.
"""
from __future__ import annotations

import keyword
import os
import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from cardlab.sim.errors import InputError, RunError

TEMPLATES = Path(__file__).resolve().parent / "templates" / "new_game"
# --template NAME -> the folder of its templates (the same file names, FILES) and what the
# summary says the written game is
TEMPLATE_DIRS = {"skeleton": TEMPLATES, "cards52": TEMPLATES.parent / "cards52"}
WHAT = {"skeleton": "one card each, keep or exchange, the highest card wins",
        "cards52": "52 cards, tricks: follow suit, trumps named by a seat, most tricks wins"}
# template -> where it goes (relative to the checkout root; NAME is the game id)
FILES = (
    ("__init__.py.tmpl", "sim/{name}/__init__.py"),
    ("layout.py.tmpl", "sim/{name}/layout.py"),
    ("moves.py.tmpl", "sim/{name}/moves.py"),
    ("kernel.py.tmpl", "sim/{name}/kernel.py"),
    ("strategies.py.tmpl", "strategies/{name}.py"),
    ("rules.md.tmpl", "docs/rules/{name}.md"),
    ("test_rules.py.tmpl", "tests/test_{name}_rules.py"),
)
NAME_RE = re.compile(r"[a-z][a-z0-9_]*\Z")
# names the generated __init__.py imports: the game's class must not shadow them
TAKEN_CLASS_NAMES = {"Any", "Game", "InputError", "Knob", "L", "GAME"}
REGISTRY_RE = re.compile(r"^GAME_MODULES\s*=\s*\{\s*\n(?P<body>(?:.*\n)*?)\}", re.M)
PACKAGES_RE = re.compile(r"^packages\s*=\s*\[(?P<body>[^\]]*)\]", re.M)
# .importlinter: a layer line of one part of every game ("cardlab.sim.G.kernel | ..."), and
# the game-rules contract's list of Game classes ("    cardlab.sim.G" lines)
CONTRACT_PARTS = ("kernel", "moves", "layout")
GAME_PART_RE = re.compile(r"cardlab\.sim\.(\w+)\.(\w+)\Z")


@dataclass
class Plan:
    """Everything the command will write, computed (and checked) before writing anything."""
    root: Path
    name: str
    files: list[tuple[Path, str]]            # new files and their text
    edits: list[tuple[Path, str, str]]       # (file, old text, new text)


def default_root() -> Path:
    """The source checkout cardlab runs from (its games are imported from ROOT/sim)."""
    import cardlab.sim

    return Path(list(cardlab.sim.__path__)[0]).resolve().parent


def check_name(name: str) -> None:
    if not NAME_RE.match(name):
        raise InputError(f"bad game name {name!r}: a game id is a lowercase Python identifier "
                         f"(letters a-z, digits and _, starting with a letter), e.g. crazy_eights")
    if keyword.iskeyword(name):
        raise InputError(f"bad game name {name!r}: a Python keyword cannot name a module")


def class_name(name: str) -> str:
    """``crazy_eights`` -> ``CrazyEights`` (``GameGame`` style when it would shadow an import)."""
    c = "".join(w[:1].upper() + w[1:] for w in name.split("_") if w)
    return c + "Game" if c in TAKEN_CLASS_NAMES else c


def title(name: str) -> str:
    """``crazy_eights`` -> ``Crazy Eights``."""
    return " ".join(w[:1].upper() + w[1:] for w in name.split("_") if w)


def render(text: str, name: str) -> str:
    return (text.replace("{{game}}", name).replace("{{Class}}", class_name(name))
            .replace("{{Title}}", title(name)))


def registry_edit(text: str, name: str) -> str:
    """sim/registry.py with NAME added as the last entry of GAME_MODULES."""
    m = REGISTRY_RE.search(text)
    if not m:
        raise InputError("cannot register the game: sim/registry.py has no 'GAME_MODULES = {' "
                         "dict closed by '}' at the start of a line")
    if re.search(rf"^\s*[\"']{re.escape(name)}[\"']\s*:", m.group("body"), re.M):
        raise InputError(f"game {name!r} already exists: sim/registry.py lists it")
    line = f'    "{name}": "cardlab.sim.{name}",\n'
    return text[:m.end("body")] + line + text[m.end("body"):]


def pyproject_edit(text: str, name: str) -> str:
    """pyproject.toml with the game's package added to [tool.setuptools] packages (text
    unchanged if it is listed already)."""
    pkg = f"cardlab.sim.{name}"
    try:
        data = tomllib.loads(text)
        packages = data["tool"]["setuptools"]["packages"]
    except (tomllib.TOMLDecodeError, KeyError, TypeError):
        raise InputError("cannot register the game: pyproject.toml has no readable "
                         "[tool.setuptools] packages list") from None
    if pkg in packages:
        return text
    m = PACKAGES_RE.search(text)
    if not m:
        raise InputError("cannot register the game: pyproject.toml's packages list is not "
                         "written as 'packages = [ ... ]'")
    body = m.group("body")
    if not body.strip():
        new_body = f'\n    "{pkg}",\n'
    else:
        tail = len(body) - len(body.rstrip())  # keep the list's closing layout
        new_body = body[:len(body) - tail].rstrip(",") + f',\n    "{pkg}",' + body[len(body) - tail:]
    new = text[:m.start("body")] + new_body + text[m.end("body"):]
    try:  # the edit must leave a TOML file whose packages list holds the game
        ok = pkg in tomllib.loads(new)["tool"]["setuptools"]["packages"]
    except (tomllib.TOMLDecodeError, KeyError, TypeError):
        ok = False
    if not ok:
        raise InputError("cannot register the game: pyproject.toml's packages list could not be "
                         "edited (add the package by hand)")
    return new


def importlinter_edit(text: str, name: str) -> str:
    """.importlinter with the game's modules added: ``cardlab.sim.NAME.PART`` at the end of
    the layer line of every game's PART (kernel, moves, layout), and
    ``cardlab.sim.NAME`` after the last Game class of the game-rules contract."""
    lines = text.split("\n")
    for part in CONTRACT_PARTS:
        found = []
        for i, line in enumerate(lines):
            items = [x.strip() for x in line.split("|")]
            ms = [GAME_PART_RE.match(x) for x in items]
            if line.startswith((" ", "\t")) and all(ms) and any(m.group(2) == part for m in ms):
                found.append(i)
        if len(found) != 1:
            raise InputError(f"cannot register the game: .importlinter has no single layer of every "
                             f"game's {part} ('cardlab.sim.GAME.{part} | ...'; add the game by hand)")
        lines[found[0]] = lines[found[0]].rstrip() + f" | cardlab.sim.{name}.{part}"
    games, block = [], None  # the game-rules contract's source_modules, one indented line each
    for i, line in enumerate(lines):
        if line.strip() == "[importlinter:contract:game-rules]":
            block = "section"
        elif block and line.startswith("["):
            break
        elif block == "section" and re.fullmatch(r"source_modules\s*=\s*", line):
            block = "sources"
        elif block == "sources" and not line.startswith((" ", "\t")):
            break
        elif block == "sources" and re.fullmatch(r"[ \t]+cardlab\.sim\.\w+", line):
            games.append(i)
    if not games:
        raise InputError("cannot register the game: .importlinter's game-rules contract lists no "
                         "Game class ('    cardlab.sim.GAME'; add the game by hand)")
    indent = lines[games[-1]][:len(lines[games[-1]]) - len(lines[games[-1]].lstrip())]
    lines.insert(games[-1] + 1, f"{indent}cardlab.sim.{name}")
    return "\n".join(lines)


def check_template(template: str) -> Path:
    """The folder of template ``template``; InputError (one line, the choices) if unknown."""
    if template not in TEMPLATE_DIRS:
        raise InputError(f"bad --template {template!r}: allowed {', '.join(TEMPLATE_DIRS)}")
    if not TEMPLATE_DIRS[template].is_dir():  # an install without it as package data
        raise InputError(f"template {template!r} is not installed with this cardlab "
                         f"({TEMPLATE_DIRS[template]}): run new-game from a source checkout")
    return TEMPLATE_DIRS[template]


def plan(name: str, root: Path, template: str = "skeleton") -> Plan:
    """Check TEMPLATE, NAME and ROOT and compute every file and edit; raise InputError
    (nothing written) for the first problem."""
    folder = check_template(template)
    check_name(name)
    root = Path(root)
    registry, pyproject = root / "sim" / "registry.py", root / "pyproject.toml"
    for need in (registry, pyproject, root / "strategies"):
        if not need.exists():
            raise InputError(f"bad --root {str(root)!r}: no {need.relative_to(root).as_posix()} "
                             f"there (the root of a cardlab checkout is needed)")
    reg_text = registry.read_text()
    new_reg = registry_edit(reg_text, name)  # refuses an existing game id
    for p in (root / "sim" / name, root / "sim" / f"{name}.py", root / "strategies" / f"{name}.py",
              root / "strategies" / name):
        if p.exists():
            raise InputError(f"cannot create game {name!r}: {p.relative_to(root).as_posix()} "
                             f"already exists")
    files = []
    for tmpl, dest in FILES:
        path = root / dest.format(name=name)
        if path.exists():
            raise InputError(f"cannot create game {name!r}: {path.relative_to(root).as_posix()} "
                             f"already exists")
        files.append((path, render((folder / tmpl).read_text(), name)))
    py_text = pyproject.read_text()
    edits = [(registry, reg_text, new_reg)]
    new_py = pyproject_edit(py_text, name)
    if new_py != py_text:
        edits.append((pyproject, py_text, new_py))
    contract = root / ".importlinter"
    if contract.is_file():  # the import contract names every game's modules
        ct_text = contract.read_text()
        edits.append((contract, ct_text, importlinter_edit(ct_text, name)))
    return Plan(root, name, files, edits)


def apply(p: Plan) -> None:
    """Write the plan; if any write fails, remove what was created and restore what was
    edited, then report the failure."""
    created: list[Path] = []
    dirs: list[Path] = []
    done: list[tuple[Path, str]] = []
    try:
        for path, text in p.files:
            for d in reversed(path.parents):
                if not d.exists():
                    d.mkdir()
                    dirs.append(d)
            path.write_text(text)
            created.append(path)
        for path, old, new in p.edits:
            path.write_text(new)
            done.append((path, old))
    except OSError as e:
        for path in created:
            path.unlink(missing_ok=True)
        for d in reversed(dirs):
            try:
                d.rmdir()
            except OSError:
                pass
        for path, old in done:
            path.write_text(old)
        raise InputError(f"cannot write game {p.name!r}: {e.strerror or e} ({e.filename}); "
                         f"nothing was changed") from None


def write_golden_trace(name: str, root: Path) -> str:
    """Record the game's golden trace in a fresh process (this one hashed the sources for
    numba's cache before the game existed); returns the trace file, relative to root."""
    code = ("from cardlab.sim.trace import write_golden_trace; "
            f"print(write_golden_trace({name!r}))")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    p = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True,
                       text=True, timeout=900)
    if p.returncode != 0:
        last = (p.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise RunError(f"the game {name!r} was written and registered, but recording its golden "
                       f"trace failed: {last}; run: python scripts/golden.py --trace {name}")
    return Path(p.stdout.strip().splitlines()[-1]).resolve().relative_to(root.resolve()).as_posix()


def new_game(name: str, root: str | Path | None = None, golden: bool = True,
             say=print, template: str = "skeleton") -> list[str]:
    """Write and register game NAME from ``template`` (``TEMPLATE_DIRS``) under ROOT
    (default: the checkout cardlab runs from) and, with ``golden``, record its golden
    trace; ``say`` prints progress.  Returns the summary lines to print."""
    r = Path(root) if root is not None else default_root()
    if root is None and not (r / "sim" / "registry.py").is_file():
        check_template(template)
        check_name(name)
        raise InputError(f"cardlab runs from an installed copy ({r}), not from a source checkout: "
                         f"pass --root PATH, the folder of a cardlab checkout")
    p = plan(name, r, template)
    apply(p)
    rel = [path.relative_to(r).as_posix() for path, _ in p.files]
    regs = " and ".join(path.relative_to(r).as_posix() for path, _, _ in p.edits)
    runs_here = r.resolve() == default_root()
    if golden and runs_here:
        say(f"recording the golden trace of {name!r} (compiles the game once, 10-20 s) ...")
        rel.append(write_golden_trace(name, r))
    out = [f"wrote the game {name!r} ({WHAT[template]}):"]
    out += [f"  {f}" for f in rel]
    out.append(f"registered it in {regs}")
    if not runs_here:
        out.append(f"note: this cardlab imports its games from {default_root()}/sim, not from "
                   f"{r.resolve()}/sim: run the new game (and python scripts/golden.py --trace "
                   f"{name}) where cardlab is installed from")
    elif not golden:
        out.append(f"no golden trace yet: python scripts/golden.py --trace {name} (the "
                   "conformance kit's golden_trace check needs it)")
    out += [
        "next:",
        f"  python -m pytest -q tests/test_{name}_rules.py    # green: every conformance check and the rule tests",
        f"  cardlab simulate {name} -n 100000 --no-history    # and: cardlab trace {name} --index 0",
        f"  read docs/adding_a_game.md, then change docs/rules/{name}.md and the code into your game,",
        "  one rule at a time, running the tests after each change",
        f"  after a deliberate rule change: python scripts/golden.py --trace {name} (the golden trace)",
        f"  when its rules are final: python scripts/golden.py --write --game {name}, a row in the README's",
        "  games table, and a report (docs/adding_a_game.md, section 9)",
    ]
    return out

