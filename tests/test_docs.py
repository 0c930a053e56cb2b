"""The documentation a newcomer reads (issue 34): a short README that starts with the two
set-up commands, relative links that all point at files, and a quick tour whose commands
work (run here at tiny sizes)."""
import os
import pathlib
import re
import shlex
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
SETUP_COMMANDS = [
    "pip install -e . && cardlab demo                        # install, simulate every shipped game -> reports/demo/index.html",
    "pip install -e '.[test]' && python -m pytest -q         # install, then run the test suite",
]
# the quick tour's commands that run here: cheap, and on Skyscraper only (the suite compiles
# it anyway); the others (report, sweep, optimize, calibrate, play, three_up's huge run) are
# each covered by their own tests
TOUR_COMMANDS = ("games", "rules", "strategies", "simulate", "trace", "replay", "history")
TOUR_GAMES = 200


def markdown_pages() -> list[pathlib.Path]:
    return [README] + sorted((ROOT / "docs").rglob("*.md"))


def fenced_blocks(text: str) -> list[tuple[str, list[str], int]]:
    """(info string, lines, line number of the opening fence) of every fenced block."""
    out, lines = [], text.split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^\s*```(\w*)", lines[i])
        if m:
            j = i + 1
            while j < len(lines) and not lines[j].strip().startswith("```"):
                j += 1
            out.append((m.group(1), lines[i + 1:j], i + 1))
            i = j
        i += 1
    return out


def prose(text: str) -> str:
    """The text without fenced blocks and inline code (where a link is only an example)."""
    text = re.sub(r"^\s*```.*?^\s*```", "", text, flags=re.M | re.S)
    return re.sub(r"`[^`\n]*`", "", text)


def relative_links(text: str) -> list[str]:
    """Every link target of ``[text](target)`` and ``![alt](target)`` that is a path in the
    repository (not a web address, not an anchor within the page), without its anchor."""
    out = []
    for target in re.findall(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)", prose(text)):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, flags=re.I) or target.startswith("#"):
            continue
        out.append(target.split("#", 1)[0].split("?", 1)[0])
    return out


def test_readme_is_short_and_starts_with_the_two_setup_commands():
    text = README.read_text()
    lines = text.split("\n")
    assert len(lines) <= 320, f"README.md has {len(lines)} lines: move detail to a page under docs/"
    info, block, at = fenced_blocks(text)[0]
    assert info == "bash" and block == SETUP_COMMANDS, "the README's first block must be the two set-up commands"
    first_section = next(i for i, ln in enumerate(lines, 1) if ln.startswith("## "))
    assert at < first_section and at <= 15, "the set-up commands come first"


def test_every_relative_link_points_at_a_file():
    broken = []
    for page in markdown_pages():
        for target in relative_links(page.read_text()):
            if target and not (page.parent / target).resolve().exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert not broken, "broken relative links:\n" + "\n".join(broken)


def test_the_link_checker_sees_links_and_skips_code():
    text = "[a](docs/x.md#part) ![b](pics/y.png) [c](https://example.org) [d](#here) `[e](no.md)`\n" \
           "```\n[f](nor.md)\n```\n"
    assert relative_links(text) == ["docs/x.md", "pics/y.png"]


def quick_tour() -> list[str]:
    text = README.read_text()
    section = text.split("\n## Quick tour", 1)[1].split("\n## ", 1)[0]
    info, block, _ = fenced_blocks(section)[0]
    assert info == "bash"
    return [ln.split("  #", 1)[0].strip() for ln in block if ln.strip() and not ln.lstrip().startswith("#")]


def tiny(args: list[str]) -> list[str]:
    """A quick-tour command at a tiny size: simulate plays TOUR_GAMES games on one thread."""
    if args[0] != "simulate":
        return args
    out, i = [], 0
    while i < len(args):
        if args[i] in ("--games", "-n"):
            i += 2
            continue
        out.append(args[i])
        i += 1
    return out + ["--games", str(TOUR_GAMES), "--jobs", "1"]


def runnable(line: str) -> bool:
    args = shlex.split(line)
    if args[0] != "cardlab" or args[1] not in TOUR_COMMANDS:
        return False
    games = [a for a in args[2:3] if not a.startswith("-") and a.isidentifier()]
    return args[1] in ("games", "replay", "history") or games == ["skyscraper"]


def test_the_quick_tour_commands_run_at_tiny_sizes(tmp_path):
    lines = [ln for ln in quick_tour() if runnable(ln)]
    kinds = {shlex.split(ln)[1] for ln in lines}
    assert {"games", "rules", "strategies", "simulate", "trace"} <= kinds, lines
    # the trace is written before the replay reads it
    lines.sort(key=lambda ln: shlex.split(ln)[1] == "replay")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    env["CARDLAB_HOME"] = str(tmp_path / "home")  # never the user's run history
    for line in lines:
        args = tiny(shlex.split(line)[1:])
        p = subprocess.run([sys.executable, "-m", "cardlab.cli", *args], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, f"{line!r} (run as cardlab {' '.join(args)}) failed:\n{p.stderr}"
    assert (tmp_path / "game.jsonl").is_file() and (tmp_path / "replay.html").is_file()


@pytest.mark.parametrize("line,want", [
    ("cardlab simulate skyscraper --games 1000000 --players 2",
     ["simulate", "skyscraper", "--players", "2", "--games", "200", "--jobs", "1"]),
    ("cardlab simulate skyscraper -n 200000 -p 3", ["simulate", "skyscraper", "-p", "3", "--games", "200", "--jobs", "1"]),
    ("cardlab rules skyscraper", ["rules", "skyscraper"]),
])
def test_tour_commands_are_made_tiny(line, want):
    assert tiny(shlex.split(line)[1:]) == want
