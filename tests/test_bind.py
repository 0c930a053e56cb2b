"""The one binding (sim/bind.py): every game's engine entry points are made from the rules
functions its kernel declares (RULES), from one template, and a bad declaration is one
line that names what is missing."""
from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from cardlab.sim import bind
from cardlab.sim.errors import InputError
from cardlab.sim.game import Rules
from cardlab.sim.registry import game_ids, get_game

ENTRY_POINTS = ("play_on", "run_games", "run_games_search", "search_decide", "features", "N_FEATURES", "choose", "ID", "RPAR",
                "setup", "step", "legal")


@pytest.mark.parametrize("game_id", game_ids())
def test_every_game_is_bound_from_its_declaration(game_id):
    game = get_game(game_id)
    rules = game.model().RULES
    assert isinstance(rules, Rules)
    b = game.binding()
    assert b is game.binding()  # imported once per process
    for name in ENTRY_POINTS:
        assert hasattr(b, name), (game_id, name)
    # the bound functions are the declared ones, not copies
    for field, (module, name) in rules.named().items():
        assert getattr(b, field) is getattr(rules, field), (game_id, field)
    assert hasattr(b, "run_causal") == (rules.has_type is not None or rules.give_card is not None)
    assert hasattr(b, "setup") and (rules.setup is None or b.setup is rules.setup)
    if rules.honour_shown is None:  # nothing to honour (3UP's keeps a picked-up pile): the re-deal's no-op
        from cardlab.sim.redeal import no_honour_shown

        assert b.honour_shown is no_honour_shown


def _body(text: str) -> str:
    """A bound module's text without its imports, defaults, title and the strategies'
    dispatch (written from each game's registry: ``test_the_dispatch_*``): the template's own code."""
    text = re.sub(r"\n# -+ the strategies' dispatch\n.*?(?=\n# -+ )", "", text, flags=re.S)
    keep = [ln for ln in text.splitlines()
            if not re.match(r"(from \S+ import |\w+ = (no_table|no_honour|engine\.listed|legal\b|give\.no_more|give\.nothing|"
                            r"observe_numbers\.no_more))", ln)]
    return "\n".join(keep[3:])


def test_one_template_for_every_game():
    """No game's binding holds code of its own: the bound modules differ only in what they
    import (and in whether the game has causal card power, its own give, a keyed search, its
    own setup)."""
    bodies = {}
    for g in game_ids():
        rules = get_game(g).model().RULES
        key = (rules.has_type is not None or rules.give_card is not None, rules.give_card is not None,
               rules.after_give is not None, rules.legal_key is not None, rules.setup is not None)
        bodies.setdefault(key, set()).add(_body(bind.source(get_game(g))))
    assert all(len(v) == 1 for v in bodies.values()), {k: len(v) for k, v in bodies.items()}


def test_a_missing_declaration_is_one_line():
    fake = SimpleNamespace(id="nothing", kernel_module="cardlab.sim.rng")  # a module without RULES
    with pytest.raises(InputError, match=r"declares no RULES = Rules\(deal="):
        bind.source(fake)


def _required(K, **hooks) -> Rules:
    """A kernel's required rules functions (and ``begin``), with ``hooks``."""
    return Rules(deal=K.deal, begin=K.begin, step=K.step, legal=K.legal, progress=K.progress,
                 restrict_bits=K.restrict_bits, **hooks)


def test_a_give_without_its_hooks_is_refused(monkeypatch):
    game = get_game("crazy_eights")
    K = game.model()
    monkeypatch.setattr(K, "RULES", _required(K, after_give=K.turn_starter, more_features=K.more_features))
    with pytest.raises(InputError, match="RULES has after_give .* but no has_type"):
        bind.source(game)


def test_the_written_module_keeps_its_stamp(tmp_path):
    """Writing the same text again leaves the file alone (the same file, the same time:
    numba's cache index checks the source's time and size); another text replaces it with
    another time.  Threads writing at once leave one whole text and no temporary file."""
    import threading

    path = tmp_path / "g_bound.py"
    bind._write(path, "x = 1\n")
    first = path.stat()
    bind._write(path, "x = 1\n")
    again = path.stat()
    assert (again.st_ino, again.st_mtime_ns) == (first.st_ino, first.st_mtime_ns)
    bind._write(path, "x = 2\n")
    assert path.read_text() == "x = 2\n" and path.stat().st_mtime_ns != first.st_mtime_ns
    errors = []

    def write(k):
        try:
            for _ in range(50):
                bind._write(path, f"x = {k % 2}\n" * 2000)
        except Exception as e:  # noqa: BLE001 - any failure is the finding
            errors.append(e)

    threads = [threading.Thread(target=write, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and path.read_text() in ("x = 0\n" * 2000, "x = 1\n" * 2000)
    assert not [f for f in tmp_path.iterdir() if f.name.startswith(".")]  # no temporary file left


def test_a_declared_function_must_be_its_modules_own(monkeypatch):
    """RULES names each function by its module and name: one the module does not hold
    under that name (an alias, a function made elsewhere) is one line, not a failed import
    in the generated module."""
    game = get_game("crazy_eights")
    K = game.model()

    def step(st, act):  # not kernel.step
        pass

    monkeypatch.setattr(K, "RULES", Rules(deal=K.deal, step=step, legal=K.legal, progress=K.progress,
                                          restrict_bits=K.restrict_bits))
    with pytest.raises(InputError, match=r"RULES.step is .*\.step, which that module does not hold"):
        bind.source(game)


@pytest.mark.parametrize("game_id", game_ids())
def test_the_dispatch_calls_each_strategys_registered_function(game_id):
    """``choose`` is written from the registry: at each decision (its phase number), each
    heuristic's branch (by its id) returns its own registered function's answer, the last
    heuristic's as the fall-through; no branch is missing or shared by mistake."""
    game = get_game(game_id)
    text = bind.dispatch(game)
    heuristics = [s for s in game.all_strategies.values() if not s.search]
    blocks = re.split(r"\n    (?:if phase == \d+:  )?# (\w+)\n", text.split("phase = st[S_PHASE]", 1)[1])[1:]
    decisions = [d for d, _ in game.layout.S.decisions]
    assert blocks[0::2] == decisions
    for k, (d, body) in enumerate(zip(blocks[0::2], blocks[1::2])):
        if k < len(decisions) - 1:
            assert f"if phase == {game.layout.S.decision(d)}:  # {d}" in text
        calls = re.findall(r"(?:if sid == (\d+):  # (\w+)\n\s+)?return as_act\((\w+)\(st, me, p\)\)(?:  # (\w+))?", body)
        assert len(calls) == len(heuristics), (d, calls)
        for strat, (sid, name, fn, last) in zip(heuristics, calls):
            assert fn == dict(strat.decisions)[d], (d, strat.name)
            if strat is heuristics[-1]:
                assert (sid, last) == ("", strat.name)
            else:
                assert (int(sid), name) == (strat.id, strat.name)


def test_a_registered_function_the_module_does_not_hold_is_one_line(monkeypatch):
    """The dispatch imports each function by name from the strategy module: a function
    registered under another name there (an alias) is refused in one line."""
    game = get_game("crazy_eights")
    module = __import__(game.strategy_module, fromlist=["x"])
    monkeypatch.setattr(module, "hoarder_play", module.reference_play)  # the name now holds another function
    with pytest.raises(InputError, match="strategy 'hoarder' answers 'play' with hoarder_play, which"):
        bind.dispatch(game)


def test_as_act_makes_every_answer_four_numbers():
    """A strategy answers with what its decision needs: a number, a pair, or four numbers."""
    from cardlab.sim.jit import as_act
    import numpy as np
    from numba import njit

    assert as_act(3) == (3, 0, 0, 0) and as_act(True) == (1, 0, 0, 0)
    assert as_act((4, 5)) == (4, 5, 0, 0) and as_act((1, 2, 3, 4)) == (1, 2, 3, 4)

    @njit
    def compiled(k):
        return as_act(k), as_act(k > 1), as_act((k, np.int64(7))), as_act((k, 1, 2, 3))

    assert compiled(np.int64(3)) == ((3, 0, 0, 0), (1, 0, 0, 0), (3, 7, 0, 0), (3, 1, 2, 3))


def test_more_features_need_their_names_and_names_their_hook(monkeypatch):
    """A game's own observation numbers: the schema names them (``S.more_features``) and the
    hook writes them; either without the other is one line."""
    game = get_game("crazy_eights")
    K = game.model()
    monkeypatch.setattr(K, "RULES", _required(K, has_type=K.has_rank))
    with pytest.raises(InputError, match="declares more_features names but RULES has no more_features hook"):
        bind.source(game)
    sky = get_game("skyscraper")
    SK = sky.model()
    monkeypatch.setattr(SK, "RULES", _required(SK, has_type=SK.has_type, more_features=K.more_features))
    with pytest.raises(InputError, match="more_features hook but the schema declares no names"):
        bind.source(sky)
