"""The game model's declarations: the state schema lays parts out without overlap and
refuses bad ones at import, reads and writes states by name, knows what a seat cannot
see; the strategy registry derives ids and refuses a strategy that misses a decision; the package installs under ``cardlab.`` only."""
import importlib.util
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from cardlab.sim.registry import game_ids, get_game
from cardlab.sim.rng import SEAT_RNG, SEED_AT
from cardlab.sim.schema import (
    COUNTS, NAMES_WIDTH, NOBODY, OWNER, PILE, PUBLIC, SLOTS, WORKING, Schema, SchemaError,
)
from cardlab.strategies.base import Param, RegistryError, Strategy, ids, register


def _schema(decisions=(("play", "kind,a,b,c"),)):
    S = Schema("toy", maxp=3, n_types=4, events=("deal", "draw"), ends=("win", "cap"),
               decisions=decisions)
    S.rules("players", "hand_size")
    S.counter("draw_n", "cards in the draw pile")
    S.seats("score_now", "points so far")
    S.zone("hand", 4, "counts by type", owner=True, visible=OWNER, encoding=COUNTS)
    S.zone("draw", 10, "draw pile", visible=NOBODY, encoding=PILE, count="draw_n")
    S.zone("offer", 3, "face-up offer", visible=PUBLIC, encoding=SLOTS)
    S.end_zones()
    S.scratch("acts", 8, "action buffer")
    return S


def test_offsets_are_derived_in_order_and_never_overlap():
    S = _schema().seal()
    ns = S.constants()
    # the generators first (the chance stream, the seats' streams, the seed words)
    assert (ns["S_RNG"], ns["S_SEAT_RNG"], ns["S_SEED"]) == (0, SEAT_RNG, SEED_AT)
    R0 = SEED_AT + 2
    assert ns["S_RULES"] == R0 and ns["N_RULES"] == 2
    assert ns["R_PLAYERS"] == R0 and ns["R_HAND_SIZE"] == R0 + 1
    assert ns["S_DRAW_N"] == R0 + 2 and ns["S_SCORE_NOW"] == R0 + 3 and ns["S_HAND"] == R0 + 6
    assert ns["S_DRAW"] == ns["S_HAND"] + 3 * 4 and ns["S_OFFER"] == ns["S_DRAW"] + 10
    assert ns["S_PHASE"] == ns["S_OFFER"] + 3 and ns["S_ACTOR"] == ns["S_PHASE"] + 1
    assert ns["ZONES_END"] == ns["S_ACTOR"] + 1 == ns["S_HELD"]
    assert ns["S_SIZE"] == ns["S_ACTS"] + 8 and ns["D_PLAY"] == 1 and ns["TRACE_ROW"] == 9 + ns["ZONES_END"]
    spans = sorted((p.offset, p.offset + p.words) for p in S.parts.values())
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:])) and spans[-1][1] == S.size
    assert ns["ENGINE"].size == S.size and ns["ENGINE"].phase == ns["S_PHASE"]


@pytest.mark.parametrize("bad,message", [
    (lambda S: S.counter("draw_n", "again"), "declared twice"),
    (lambda S: S.zone("bad", 0, "empty"), "positive integer"),
    (lambda S: S.zone("bad", 2.5, "fractional"), "positive integer"),
    (lambda S: S.zone("pile", 4, "no counter", encoding=PILE), "counter"),
    (lambda S: S.zone("pile", 4, "unknown counter", encoding=PILE, count="nope"), "not declared"),
    (lambda S: S.zone("secret", 4, "no owner", visible=OWNER), "no owner"),
    (lambda S: S.zone("odd", 4, "bad visibility", visible="friends"), "visibility 'friends'"),
    (lambda S: S.counter("odd", "working counter", visible=WORKING), "working memory"),
    (lambda S: S.book("odd", 2, "public derived", visible=PUBLIC, derived=True), "only a hidden part"),
])
def test_bad_parts_are_refused_naming_the_part(bad, message):
    S = Schema("toy", maxp=2, n_types=2, events=("e",), ends=("x",), decisions=(("play", "a"),))
    S.rules("players")
    S.counter("draw_n", "n")
    with pytest.raises(SchemaError, match=message):
        bad(S)


def test_sealing_checks_the_whole_declaration():
    S = Schema("toy", maxp=2, n_types=2, events=("e",), ends=("x",), decisions=(("play", "a"),))
    S.rules("players")
    with pytest.raises(SchemaError, match="before end_zones"):
        S.seal()
    with pytest.raises(SchemaError, match="'players'"):
        Schema("t", maxp=2, n_types=2, events=(), ends=(), decisions=()).rules("hand_size")
    S.end_zones()
    S.seal()
    with pytest.raises(SchemaError, match="after seal"):
        S.scratch("late", 1, "too late")
    # a layout module that defines an offset by hand, differently, is refused
    with pytest.raises(SchemaError, match="differently"):
        _schema().seal({"S_HAND": 3})


def test_states_are_read_and_written_by_name():
    S = _schema().seal()
    st = S.new_state(np.array([3, 5]))
    assert list(S.read(st, "rules")) == [3, 5]
    S.write(st, "draw", [1, 2, 3])
    S.write(st, "hand", [0, 2, 1, 0], seat=1)
    S.write(st, "offer", [3])
    S.write(st, "score_now", 7, seat=2)
    assert S.cards(st, "draw") == [1, 2, 3] and S.value(st, "draw_n") == 3
    assert S.cards(st, "hand", seat=1) == [1, 1, 2] and S.cards(st, "hand", seat=0) == []
    assert S.cards(st, "offer") == [3] and S.value(st, "score_now", 2) == 7
    with pytest.raises(ValueError, match="do not fit"):
        S.write(st, "offer", [1, 2, 3, 4])
    # a list of cards given to a counts zone would read as counts: refused, naming put_cards
    with pytest.raises(ValueError, match=r"^toy: 'hand' is a counts zone: S\.write takes its 4 counts, one per card "
                       r"type, not 2 values; give its cards with S\.put_cards\(st, 'hand', cards\)$"):
        S.write(st, "hand", [1, 3], seat=0)
    S.put_cards(st, "hand", [1, 3], seat=0)
    assert S.cards(st, "hand", seat=0) == [1, 3]


def test_what_a_seat_cannot_see():
    S = _schema().seal()
    assert S.hidden_from(0, 3) == [("hand", 1), ("hand", 2), ("draw", None)]
    assert S.hidden_from(2, 2) == [("hand", 0), ("hand", 1), ("draw", None)]
    st = S.new_state(np.array([3, 5]))
    S.write(st, "draw", [3, 1])
    S.write(st, "hand", [1, 0, 0, 2], seat=0)
    S.write(st, "hand", [0, 1, 0, 0], seat=1)
    S.write(st, "offer", [2])
    assert sorted(S.hidden_cards(st, 0, 3)) == [1, 1, 3]      # seat 1's card, the draw pile
    assert sorted(S.hidden_cards(st, 1, 3)) == [0, 1, 3, 3, 3]  # seat 0's four, the draw pile


@pytest.mark.parametrize("game_id", game_ids())
def test_every_game_declares_its_state(game_id):
    """Every shipped game's layout comes from a sealed schema whose constants are the
    module's, with its hands hidden from other seats and its draw pile from everyone."""
    game = get_game(game_id)
    S = game.layout.S
    assert S.sealed and S.game == game_id
    for name, value in S.constants().items():
        assert np.array_equal(getattr(game.layout, name), value), name
    assert S.maxp == game.max_players and tuple(S.events) == tuple(game.event_names)
    visible = {p.visible for p in S.zone_parts()}
    assert NOBODY in visible  # at least a draw pile's order is hidden from everyone
    assert S.hidden_from(0, game.max_players)


# ---------------------------------------------------------------- strategy registry


def _fn_a(st, me, p):
    return (0, 0, 0, 0)


def _fn_b(st, me, p):
    return (1, 0, 0, 0)


A = Strategy("alpha", "first", (Param("x", 1, 0, 2, "a knob"), Param("y", 0, 0, 1, "another")))
B = Strategy("beta", "second")


def test_ids_are_derived_and_parameters_read_by_name():
    S = _schema().seal()
    reg = register(S, (A, {"play": _fn_a}), (B, {"play": _fn_b}))
    # the search player comes after the game's own strategies, in every game
    assert [(s.name, s.id, s.search) for s in reg] == [("alpha", 0, False), ("beta", 1, False), ("mcts", 2, True),
                                                      ("learned", 3, True)]
    assert ids(reg).beta == 1 and ids(reg).mcts == 2 and A.at.x == 0 and A.at.y == 1
    assert reg[0].row({"y": 1})[A.at.y] == 1


def test_a_strategy_missing_a_decision_is_an_import_error():
    S = _schema(decisions=(("play", "a"), ("bid", "b"))).seal()
    with pytest.raises(RegistryError, match="'beta' answers no bid decision"):
        register(S, (A, {"play": _fn_a, "bid": _fn_a}), (B, {"play": _fn_b}))
    with pytest.raises(RegistryError, match="registered twice"):
        register(S, (A, {"play": _fn_a, "bid": _fn_a}), (A, {"play": _fn_a, "bid": _fn_a}))


# ---------------------------------------------------------------- installed names


def test_only_cardlab_is_installed_at_the_top(tmp_path):
    """From outside the checkout, ``cardlab.sim`` imports, and the checkout's folders do
    not shadow PyPI's ``analysis``/``strategies``/``sim`` (whatever is found, if anything,
    is not ours)."""
    code = textwrap.dedent("""
        import importlib, pathlib, sys
        import cardlab.sim, cardlab.strategies.base, cardlab.analysis.stats
        root = pathlib.Path(cardlab.sim.__file__).resolve().parent.parent
        for name in ("analysis", "strategies", "sim"):
            try:
                m = importlib.import_module(name)
            except ImportError:
                continue
            assert root not in pathlib.Path(m.__file__).resolve().parents, (name, m.__file__)
        print("ok")
    """)
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_every_part_is_hidden_unless_declared_otherwise():
    """Zones and books are hidden by default, counters the table's (public); shared scratch
    is working memory, per-seat scratch its seat's own; the generators: the chance stream
    and the seed hidden, each seat's stream its own."""
    S = Schema("toy", maxp=3, n_types=4, events=("deal",), ends=("win",), decisions=(("play", "a"),))
    S.rules("players")
    S.counter("draw_n", "cards in the draw pile")
    S.seats("score_now", "points so far")
    S.zone("hand", 4, "counts by type", owner=True, visible=OWNER, encoding=COUNTS)
    S.zone("down", 2, "face-down cards", owner=True, encoding=SLOTS)  # no visibility given
    S.end_zones()
    S.scratch("acts", 8, "action buffer")
    S.book("secret", 1, "the rules' own note")
    S.scratch("memory", 2, "a seat's memory", owner=True)
    S.seal()
    vis = {n: p.visible for n, p in S.parts.items()}
    assert vis["down"] == vis["secret"] == vis["rng"] == vis["seed"] == vis["held"] == NOBODY
    assert vis["draw_n"] == vis["score_now"] == vis["rules"] == vis["phase"] == PUBLIC
    assert vis["acts"] == WORKING and vis["memory"] == vis["seat_rng"] == vis["hand"] == OWNER
    assert S.parts["seat_rng"].words == 4 * 8  # a stream for every seat the generator has room for


def test_word_access_is_what_a_seat_may_read_and_write():
    S = _schema()
    S.scratch("memory", 2, "a seat's memory", owner=True)
    S.seal()
    ns = S.constants()
    st = S.new_state(np.array([3, 2]))
    S.write(st, "draw", [1, 2, 3])
    readable, writable, working = S.word_access(st, 1)
    assert readable[ns["R_PLAYERS"]] and readable[ns["S_OFFER"]] and readable[ns["S_DRAW_N"]]
    assert readable[ns["S_HAND"] + 4:ns["S_HAND"] + 8].all()                # its own hand
    assert not readable[ns["S_HAND"]:ns["S_HAND"] + 4].any()                # seat 0's
    assert not readable[ns["S_DRAW"]:ns["S_DRAW"] + 10].any()               # the draw pile
    assert not readable[0:4].any() and not readable[SEED_AT:SEED_AT + 2].any()  # chance, seed
    assert readable[SEAT_RNG + 4:SEAT_RNG + 8].all() and writable[SEAT_RNG + 4:SEAT_RNG + 8].all()
    assert not writable[SEAT_RNG:SEAT_RNG + 4].any()                        # seat 0's stream
    assert writable[ns["S_MEMORY"] + 2:ns["S_MEMORY"] + 4].all() and not writable[ns["S_MEMORY"]]
    assert working[ns["S_ACTS"]:ns["S_ACTS"] + 8].all() and not readable[ns["S_ACTS"]]
    assert not writable[ns["S_OFFER"]] and not writable[ns["S_HAND"] + 4]    # never the table
    S.write(st, "offer", [5])  # a public pile is readable only up to its count: none here
    pile = Schema("toy", maxp=2, n_types=2, events=("e",), ends=("x",), decisions=(("play", "a"),))
    pile.rules("players")
    pile.counter("disc_n", "cards in the discard pile")
    pile.zone("disc", 5, "discard pile", visible=PUBLIC, encoding=PILE, count="disc_n")
    pile.end_zones()
    pile.seal()
    st = pile.new_state(np.array([2]))
    pile.write(st, "disc", [4, 4])
    r, _, _ = pile.word_access(st, 0)
    o = pile.parts["disc"].offset
    assert r[o] and r[o + 1] and not r[o + 2:o + 5].any()


def test_the_clear_table_names_hidden_books_memory_and_pile_tails():
    S = _schema()
    S.book("secret", 1, "the rules' own note")
    S.book("remade", 2, "re-made from the cards", derived=True)
    S.book("seen", 1, "a public note", visible=PUBLIC)
    S.scratch("memory", 2, "a seat's memory", owner=True)
    S.seal()
    rows = {S.parts_at(int(r[0])): tuple(int(x) for x in r[1:]) for r in S.clear_table()}
    assert rows["secret"] == (1, 1, 2, -1, 0) and rows["memory"] == (2, 3, 1, -1, 0)
    assert rows["draw"][3] == S.parts["draw_n"].offset and rows["draw"][:3] == (10, 1, 2)
    assert rows["remade"] == (2, 1, 3, -1, 0)  # derived: only the blocks of seats the game lacks
    assert "seen" not in rows and "acts" not in rows and "rng" not in rows


def test_reserved_names_are_refused_with_the_list():
    S = Schema("toy", maxp=2, n_types=2, events=("e",), ends=("x",), decisions=(("play", "a"),))
    S.rules("players")
    for name in ("played", "phase", "score"):
        with pytest.raises(SchemaError, match=rf"part name '{name}' is the engine's: the reserved names are rng, "):
            S.counter(name, "a name the engine has")


def test_cards_go_into_every_encoding_by_card():
    """``put_cards`` takes cards for every encoding (a bit-mask hand's bits, a counts zone's
    counts, a pile with its counter, slots); ``write`` refuses a bit-mask zone (it would
    write raw words)."""
    from cardlab.sim.schema import MASK

    S = Schema("toy", maxp=2, n_types=4, events=("e",), ends=("x",), decisions=(("play", "a"),))
    S.rules("players")
    S.counter("draw_n", "cards in the draw pile")
    S.zone("bits", 2, "a hand of up to 126 cards", owner=True, visible=OWNER, encoding=MASK)
    S.zone("cnt", 4, "counts by type", owner=True, visible=OWNER, encoding=COUNTS)
    S.zone("draw", 6, "draw pile", encoding=PILE, count="draw_n")
    S.zone("row", 3, "slots", visible=PUBLIC, encoding=SLOTS)
    S.end_zones()
    S.seal()
    st = S.new_state(np.array([2]))
    S.put_cards(st, "bits", [0, 62, 63, 100], seat=1)
    S.put_cards(st, "cnt", [3, 1, 3], seat=0)
    S.put_cards(st, "draw", [5, 4])
    S.put_cards(st, "row", [2])
    assert S.cards(st, "bits", 1) == [0, 62, 63, 100] and S.cards(st, "bits", 0) == []
    assert S.cards(st, "cnt", 0) == [1, 3, 3] and S.value(st, "draw_n") == 2
    assert S.cards(st, "draw") == [5, 4] and S.cards(st, "row") == [2]
    with pytest.raises(ValueError, match="'bits' is a bit-mask zone: give its cards with S.put_cards"):
        S.write(st, "bits", [1, 2], seat=0)
    with pytest.raises(ValueError, match="does not fit bit-mask zone 'bits'"):
        S.put_cards(st, "bits", [126], seat=0)


def test_a_layout_assigns_every_name_and_seal_checks_it():
    """Every name a layout's users import is an assignment in the module (the block
    ``names_block`` writes, ``scripts/layout_names.py``), which grep and an editor find;
    ``seal`` refuses a layout that leaves one out, naming it and the command that writes it."""
    S = _schema()
    block = S.names_block()
    assert 'S_HAND, S_DRAW, S_OFFER = S.at("hand", "draw", "offer")' in block
    assert 'R_PLAYERS, R_HAND_SIZE = S.rule("players", "hand_size")' in block
    assert 'D_PLAY = S.decision("play")' in block and "ENGINE = S.engine_tuple()" in block
    # several names a line, none longer than NAMES_WIDTH, and every name assigned on one
    lines = block.splitlines()
    assert all(len(x) <= NAMES_WIDTH for x in lines)
    for name in S.constants():
        assert any(re.match(rf"(\w+, )*{name}(, \w+)* = ", x) for x in lines), name
    ns = {"S": S}
    exec(block, ns)  # noqa: S102 - the block as a layout module runs it
    S.seal(ns)  # complete and right: passes
    del ns["S_DRAW"]
    with pytest.raises(SchemaError, match=r"does not assign S_DRAW: run python scripts/layout_names.py toy"):
        _schema().seal({k: v for k, v in ns.items() if k != "S"})
    for game_id in game_ids():  # every shipped layout holds its block
        import importlib

        text = importlib.import_module(f"cardlab.sim.{game_id}.layout").__file__
        assert "S_SIZE, EVW, DONE = S.size, S.evw, S.done" in open(text).read(), game_id


def test_a_block_naming_a_removed_part_names_the_fix_and_the_script_rewrites_it(tmp_path, monkeypatch):
    """A part, rule slot or decision removed after the block was written: the layout's
    import is a one-line SchemaError naming the script (was a raw KeyError that stopped
    the script too), and ``scripts/layout_names.py`` rewrites the block."""
    S = _schema(decisions=(("play", "a"),))
    stale = S.names_block().replace('S.at("hand", "draw"', 'S.at("hand", "gone"').replace(
        'S_HAND, S_DRAW', 'S_HAND, S_GONE')
    intact = stale.replace('"gone"', '"draw"')
    for text, err in ((stale, "the part 'gone'"),
                      (intact.replace('"hand_size")', '"ranks")'), "the rule slot 'ranks'"),
                      (intact.replace('S.decision("play")', 'S.decision("bid")'), "the decision 'bid'")):
        with pytest.raises(SchemaError, match=rf"toy: the layout's names block asks for {err}, which the schema "
                           r"does not declare \(removed or renamed\?\): run python scripts/layout_names.py toy"):
            exec(text, {"S": _schema(decisions=(("play", "a"),))})  # noqa: S102
    monkeypatch.setenv("CARDLAB_LAYOUT_NAMES", "define")  # as the script sets it (undone after the test)
    path = Path(__file__).resolve().parent.parent / "scripts" / "layout_names.py"
    spec = importlib.util.spec_from_file_location("layout_names", path)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    ns = {"S": _schema(decisions=(("play", "a"),))}
    exec(stale, ns)  # noqa: S102
    ns["S"].seal(ns)
    fixed = script.put_block(f"S = ...\n{stale}S.seal(globals())\n", ns["S"].names_block(), tmp_path / "layout.py")
    assert '"gone"' not in fixed and 'S.at("hand", "draw"' in fixed


def test_at_rule_and_decision_give_one_number_or_a_tuple():
    S = _schema(decisions=(("play", "a"), ("call", "suit")))
    c = S.seal().constants()
    assert S.at("hand") == c["S_HAND"] and S.at("hand", "draw") == (c["S_HAND"], c["S_DRAW"])
    assert S.rule("hand_size") == c["R_HAND_SIZE"]
    assert S.rule("players", "hand_size") == (c["R_PLAYERS"], c["R_HAND_SIZE"])
    assert S.decision("call") == 2 and S.decision("play", "call") == (1, 2)


def test_the_clock_counter_stamps_the_events_of_the_shared_emit():
    """``counter(..., clock=True)`` is the turn every event carries (``ENGINE.clock``; -1,
    and turn 0, without one); ``events.emit`` counts an event and, in trace mode, writes its
    row stamped with it and the snapshot after it; a second clock is refused."""
    from cardlab.sim.events import emit

    emit = getattr(emit, "py_func", emit)
    assert _schema().seal().engine_tuple().clock == -1
    S = Schema("toy", maxp=2, n_types=4, events=("deal", "draw"), ends=("win",), decisions=(("play", "a"),))
    S.rules("players")
    S.counter("draw_n", "cards in the draw pile")
    turn = S.counter("turn", "the turn", clock=True)
    with pytest.raises(SchemaError, match="counter 'round' is a second clock: 'turn' already is"):
        S.counter("round", "the round", clock=True)
    S.end_zones()
    E = S.seal().engine_tuple()
    assert E.clock == turn
    st = S.new_state(np.array([2]))
    emit(st, E, 1, 0, 5, 6)  # the fast path: counted only
    assert st[E.evc + 1] == 1 and st[E.nev] == 0
    st = S.new_state(np.array([2]), capacity=2)
    st[turn] = 7
    emit(st, E, 1, 0, 5, 6)
    row = st[E.size:E.size + E.trace_row]
    assert st[E.evc + 1] == 1 and st[E.nev] == 1
    assert list(row[:9]) == [1, 0, 7, 5, 6, 0, 0, 0, 0] and row[9 + turn] == 7


def test_finish_writes_the_result_where_the_engine_reads_it():
    from cardlab.sim.shape import finish

    finish = getattr(finish, "py_func", finish)
    E = _schema().seal().engine_tuple()
    st = _schema().seal().new_state(np.array([2, 5]))
    st[E.phase] = 1
    finish(st, E, 0b101, 12, True, 1)
    assert (st[E.mask], st[E.length], st[E.unfinished], st[E.end], st[E.phase]) == (0b101, 12, 1, 1, 0)
    finish(st, E, 0b010, 9, False, 0)
    assert (st[E.mask], st[E.length], st[E.unfinished], st[E.end], st[E.phase]) == (0b010, 9, 0, 0, 0)


def test_a_secret_number_no_re_deal_re_makes_is_refused():
    """A seat's secret chips declared among the zones (``S.seats(..., visible=OWNER)``) would
    keep their true values in the search player's worlds: refused at seal, naming the ways
    to declare it; after end_zones (a re-deal clears it) it is accepted."""
    def toy(after_zones: bool):
        S = Schema("toy", maxp=3, n_types=4, events=("deal",), ends=("win",), decisions=(("play", "a"),))
        S.rules("players")
        S.counter("deck_n", "cards in the deck")
        if not after_zones:
            S.seats("chips", "the seat's chips, kept secret", visible=OWNER)
        S.zone("deck", 10, "the deck", visible=NOBODY, encoding=PILE, count="deck_n")
        S.end_zones()
        if after_zones:
            S.seats("chips", "the seat's chips, kept secret", visible=OWNER)
        return S

    with pytest.raises(SchemaError, match=r"toy: 'chips' is a number hidden from other seats among the zones, "
                       r"and no re-deal re-makes it: the search player's worlds would keep its true value\. "
                       r"Declare it public, or after end_zones\(\)"):
        toy(False).seal()
    S = toy(True).seal()
    assert any(row[0] == S.parts["chips"].offset for row in S.clear_table())  # a re-deal clears it


def test_the_names_script_rewrites_a_layout_whose_package_does_not_import(tmp_path, monkeypatch):
    """A part renamed in ``layout.py`` while ``__init__.py`` still uses the old name: the
    script runs the layout from its file alone (importing the package failed with an
    AttributeError before) and rewrites the block."""
    import cardlab.sim

    game = tmp_path / "toygame"
    game.mkdir()
    (game / "__init__.py").write_text("from cardlab.sim.toygame.layout import S_GONE  # the old name\n")
    body = textwrap.dedent('''\
        from cardlab.sim.schema import NOBODY, PILE, Schema
        S = Schema("toy", maxp=2, n_types=3, events=("deal",), ends=("win",), decisions=(("play", "a"),))
        S.rules("players")
        S.counter("deck_n", "cards in the deck")
        S.zone("deck", 9, "the deck", visible=NOBODY, encoding=PILE, count="deck_n")
        S.end_zones()
        ''')
    ns: dict = {}
    exec(body, ns)  # noqa: S102
    stale = ns["S"].names_block().replace('S_DECK_N, S_DECK = S.at("deck_n", "deck")',
                                          'S_GONE, S_DECK = S.at("gone", "deck")')
    assert "S_GONE" in stale
    (game / "layout.py").write_text(body + stale + "S.seal(globals())\n")
    monkeypatch.setattr(cardlab.sim, "__path__", [*cardlab.sim.__path__, str(tmp_path)])
    monkeypatch.setenv("CARDLAB_LAYOUT_NAMES", "define")
    path = Path(__file__).resolve().parent.parent / "scripts" / "layout_names.py"
    spec = importlib.util.spec_from_file_location("layout_names", path)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert script.write("toygame") == game / "layout.py"
    text = (game / "layout.py").read_text()
    assert '"gone"' not in text and 'S_DECK_N, S_DECK = S.at("deck_n", "deck")' in text
