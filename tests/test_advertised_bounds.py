"""Every advertised range is accepted exactly as printed (issue 34): ``mcts:never`` printed
``[0, 9.0072e+15]`` and then refused its own upper bound.  For every game, every rule knob
(``cardlab rules GAME``) and every strategy parameter, the search player's included
(``cardlab strategies GAME``): both bounds as the listing prints them, and as the error for
a value out of range prints them, parse back to the very bound and are accepted."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from cardlab.sim import models
from cardlab.sim.errors import InputError
from cardlab.sim.knobs import fmt_number
from cardlab.sim.registry import game_ids, get_game
from cardlab.sim.runner import make_setup

RANGE = re.compile(r"in \[([^\[\],]+), ([^\[\],]+)\]")


def setup_accepts(gid: str, spec: str) -> None:
    """The strategy spec on the command line is accepted.  A game that ships no learned
    model yet (a designer's new game: ``cardlab new-game``, docs/adding_a_game.md section 9)
    cannot set up ``learned`` or ``mcts:value=`` seats at all; their bounds are still parsed
    (``Param.value``) by the callers."""
    try:
        make_setup(gid, None, None, spec, 1)
    except InputError as e:
        if "no learned model for" not in str(e) or models.find(gid, get_game(gid).default_players) is not None:
            raise


def cli(*args) -> str:
    p = subprocess.run([sys.executable, "-m", "cardlab.cli", *args], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_fmt_number_round_trips():
    for x in (0, 1, -3, 2.0 ** 53, 10 ** 9, 0.1, 0.7, 1e-5, 1 / 3, -10.25, 1e300):
        assert float(fmt_number(x)) == float(x), x
    assert fmt_number(2.0 ** 53) == "9007199254740992" and fmt_number(0.5) == "0.5"


@pytest.mark.parametrize("gid", game_ids())
def test_every_knob_accepts_its_printed_bounds(gid):
    game = get_game(gid)
    listing = cli("rules", gid)
    checked = 0
    for k in game.knobs:
        if k.kind not in ("int", "float", "list"):
            continue
        line = next(x for x in listing.splitlines() if x.startswith(f"  {k.name} "))
        printed = RANGE.findall(line)
        assert len(printed) == 1, line
        # the error for a value out of range prints the same range
        with pytest.raises(InputError) as e:
            k.parse(str(k.hi * 2 + 1) if k.hi is not None else "abc")
        assert RANGE.findall(str(e.value)) == printed, (k.name, str(e.value))
        for text, bound in zip(printed[0], (k.lo, k.hi)):
            if bound is None:
                assert text in ("-inf", "inf")
                continue
            got = k.parse(text)                       # never raises: the bound is accepted
            assert (got[0] if k.kind == "list" else got) == bound, (gid, k.name, text)
            checked += 1
    assert checked >= 2


@pytest.mark.parametrize("gid", game_ids())
def test_every_strategy_parameter_accepts_its_printed_bounds(gid):
    game = get_game(gid)
    listing = cli("strategies", gid)
    assert "mcts" in game.all_strategies
    checked = 0
    for s in game.all_strategies.values():                  # the search player's too
        block = listing.split(f"\n{s.name}: ", 1)[1] if not listing.startswith(f"{s.name}: ") else listing
        for p in s.params:
            line = next(x for x in block.splitlines() if x.startswith(f"    {p.name} = "))
            if p.flags:
                checked += 2 * check_flags(gid, s, p, line)
                continue
            printed = RANGE.findall(line)
            assert len(printed) == 1, line
            assert "e+" not in line.split(" in [")[1].split("]")[0], line   # no rounded exponent
            for text, bound in zip(printed[0], (p.lo, p.hi)):
                assert p.value(text, s.name) == bound, (gid, s.name, p.name, text)
                # and on the command line: the strategy spec with the bound as printed
                setup_accepts(gid, f"{s.name}:{p.name}={text}")
                checked += 1
            # the error for a value beyond the range prints the same bounds
            with pytest.raises(InputError) as e:
                p.value(repr(p.hi * 2 + 1), s.name)
            msg = str(e.value)
            if "expected one" not in msg:                    # (named values list the names)
                assert RANGE.findall(msg) == printed, msg
    assert checked >= 2 * len(game.all_strategies["mcts"].params)


NAMES = re.compile(r"one or more of (.+?) joined by \+, or none")


def check_flags(gid, s, p, line) -> bool:
    """A flags parameter (``mcts:never``) advertises the names it sums, and ``none`` (its
    bit mask is an encoding, and a number may be a name: 5 Towers has a 0 card): every name
    printed, ``none`` and all of them joined are accepted and mean what they name."""
    printed = NAMES.findall(line)
    assert len(printed) == 1, line
    names = printed[0].split(", ")
    assert names == [n for n, _ in p.names]
    assert p.value("none", s.name) == p.lo == 0 and p.show(0) == "none"
    bits = dict(p.names)
    for n in names:
        assert p.value(n, s.name) == bits[n], (gid, n)
    everything = "+".join(names)
    assert p.value(everything, s.name) == sum(bits.values()) <= p.hi
    for text in ("none", names[0], everything):
        setup_accepts(gid, f"{s.name}:{p.name}={text}")
    with pytest.raises(InputError) as e:
        p.value("nope", s.name)
    assert NAMES.findall(str(e.value)) == printed
    with pytest.raises(InputError) as e:
        p.value(repr(p.hi * 2 + 1), s.name)
    assert NAMES.findall(str(e.value)) == printed
    return True


def test_mcts_never_upper_bound_is_accepted_as_printed():
    """The case of the issue: ``mcts:never`` advertised ``[0, 9.0072e+15]``."""
    never = next(p for p in get_game("skyscraper").all_strategies["mcts"].params if p.name == "never")
    assert never.bounds() == "[0, 9007199254740992]"
    assert never.value("9007199254740992", "mcts") == 2.0 ** 53   # the numeric mask still works
    assert never.allowed().startswith("one or more of J, DOG, ") and never.allowed().endswith(" or none")
    # a number that is a card's name is that card (5 Towers' 0 card is bit 1), not the mask 0
    ft = next(p for p in get_game("five_towers").all_strategies["mcts"].params if p.name == "never")
    assert ft.value("0", "mcts") == 1 and ft.value("none", "mcts") == 0
