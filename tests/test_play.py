"""`cardlab play`: driven through stdin to the end of a game for every game; the saved
game is the trace of the game played by those actions (with the helper bot answering for
the human, exactly `cardlab trace` of the same seed and index); the human's view never
shows what the seat cannot see; bad input asks again; quit and the end of input exit cleanly."""
import contextlib
import io
import json
import subprocess
import sys

import numpy as np
import pytest

from cardlab.play import Table, mask_event, render_view, seen_cards, visible_zones
from cardlab.sim import runner
from cardlab.sim.observe import determinize
from cardlab.sim.registry import game_ids, get_game
from cardlab.sim.trace import trace

GAMES = game_ids()


def play(args, stdin):
    """`cardlab play ARGS` in this process with ``stdin`` as its input."""
    from cardlab import cli

    out, err, code = io.StringIO(), io.StringIO(), 0
    argv, old_in = sys.argv, sys.stdin
    sys.argv, sys.stdin = ["cardlab", "play", *args], io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            cli.main()
    except SystemExit as e:
        code = e.code or 0
    finally:
        sys.argv, sys.stdin = argv, old_in
    return code, out.getvalue(), err.getvalue()


def read_jsonl(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("game", GAMES)
def test_first_legal_action_to_the_end_saves_the_game_it_played(game, tmp_path):
    """Always answering 1 plays a whole game; the saved trace ends like the game did and
    its events are those of the same actions replayed on a fresh state."""
    save = tmp_path / "game.jsonl"
    code, out, err = play([game, "--seat", "1", "--seed", "4", "--save", str(save)], "1\n" * 3000)
    assert code == 0, err
    assert "game over after" in out and "saved" in out and err == ""
    lines = read_jsonl(save)
    header, events, result = lines[0], lines[1:-1], lines[-1]
    g = get_game(game)
    assert header["type"] == "header" and header["game"] == game and header["seed"] == 4
    assert header["strategies"][1] == "human" and header["players"] == g.default_players
    assert [e["step"] for e in events] == list(range(len(events)))
    assert result["type"] == "result" and set(result) == {"type", "winners", "length", "scores", "unfinished"}
    # the human's moves were the first legal action each time: replay them
    setup = runner.make_setup(game, None, None, None, 4)
    t = Table(setup, 0)
    while not t.done:
        acts = t.legal()
        if t.actor == 1:
            t.step(acts[0])
        else:
            from cardlab.sim.testing import chooser

            _, sids, params = setup.arrays()
            t.step(chooser(g)(int(sids[t.actor]), t.st, t.actor, tuple(float(x) for x in params[t.actor])))
    assert t.trace(header["strategies"]) == lines
    from cardlab.analysis.replay_view import render_replay

    assert 'id="trace-data"' in render_replay(lines, seat=1)  # the viewer opens a saved game


@pytest.mark.parametrize("game", GAMES)
def test_helper_answers_give_exactly_cardlab_trace(game, tmp_path):
    """With "a" (the helper bot answers for the human) every seat plays its strategy, so the
    saved game must be `cardlab trace` of the same seed and index, event for event."""
    g = get_game(game)
    pool = list(g.strategies)
    bots = ",".join(pool[i % len(pool)] for i in range(1, g.default_players))
    save = tmp_path / "game.jsonl"
    code, out, err = play([game, "--seat", "0", "--seed", "7", "--index", "2", "--strategies", bots,
                           "--helper", "greedy" if "greedy" in pool else pool[0], "--save", str(save)],
                          "a\n" * 3000)
    assert code == 0, err
    mine = read_jsonl(save)
    helper = "greedy" if "greedy" in pool else pool[0]
    setup = runner.make_setup(game, None, None, ",".join([helper, *bots.split(",")]), 7)
    want = trace(setup, 2)
    assert mine[0]["strategies"] == ["human", *want[0]["strategies"][1:]]
    mine[0]["strategies"][0] = want[0]["strategies"][0]
    assert mine == json.loads(json.dumps(want))


@pytest.mark.parametrize("game", GAMES)
def test_the_view_shows_only_what_the_seat_sees(game):
    """The rendered view is the same in every re-deal of what the seat cannot see (the
    honesty test, for the screen), and it shows the seat's own hidden-from-others cards."""
    g = get_game(game)
    setup = runner.make_setup(game, None, None, None, 11)
    rng = np.random.default_rng(5)
    t = Table(setup, 0)
    from cardlab.sim.testing import random_legal

    checked = 0
    while not t.done and checked < 12:
        seat = t.actor
        view = render_view(g, t.st, seat)
        for _ in range(2):
            other = determinize(g, t.st[:g.layout.S_SIZE], seat, rng)
            assert render_view(g, other, seat) == view, f"{game}: the view of seat {seat} shows hidden cards"
        assert visible_zones(g, t.st, seat) is not None
        t.step(random_legal(g, t.st, rng))
        checked += 1
    assert checked


def test_the_view_shows_what_the_rules_showed_the_seat_alone(monkeypatch):
    """A part the rules show one seat alone (``Schema.shown_parts``: a Priest's look, kept in
    a book no zone or event holds) is in the seat's view, its own block only, worded by the
    game's ``describe_shown``.  No shipped game has one, so Crazy Eights' strategy memory
    stands in for it here."""
    g = get_game("crazy_eights")
    L = g.layout
    t = Table(runner.make_setup("crazy_eights", 3, None, None, 11), 0)
    st = t.st.copy()
    assert "shown to you alone" not in render_view(g, st, 1)
    monkeypatch.setattr(g.schema, "shown_parts", lambda: [g.schema.parts["memory"]])
    st[L.S_MEMORY + 1 * L.MEMW:L.S_MEMORY + 2 * L.MEMW] = (3, 0, 7, 0)  # seat 1's block
    assert g.observation(st, 1)["shown"] == {"memory": [3, 0, 7, 0]}
    assert g.observation(st, 0)["shown"] == {"memory": [0, 0, 0, 0]}
    view = render_view(g, st, 1)
    assert view.splitlines()[-1] == ("  shown to you alone: memory (each seat's strategy memory (starver): MEMW "
                                     "numbers from S_MEMORY + seat * MEMW, cleared by setup): 3 0 7 0")
    assert "shown to you alone" not in render_view(g, st, 0)  # seat 0 was shown nothing, and not seat 1's
    monkeypatch.setattr(g, "describe_shown", lambda part, values, seat: f"seat {seat} knows {values[2]}")
    assert render_view(g, st, 1).splitlines()[-1] == "  shown to you alone: seat 1 knows 7"


def test_bots_hidden_draws_are_masked():
    """A card moving between zones the seat cannot see (a bot's draw) is shown as ?; a card
    it saw move (a bot's play onto the discard pile) is named."""
    before = {"hands": [["5C"], {"hidden": 5}], "stock": {"hidden": 30}, "discard": ["3D"]}
    drew = {"hands": [["5C"], {"hidden": 6}], "stock": {"hidden": 29}, "discard": ["3D"]}
    ev = {"type": "event", "player": 1, "action": "draw", "card": "7H"}
    assert mask_event(ev, {"7H", "5C", "3D"}, seen_cards(before, drew))["card"] == "?"
    played = {"hands": [["5C"], {"hidden": 5}], "stock": {"hidden": 29}, "discard": ["3D", "7H"]}
    ev = {"type": "event", "player": 1, "action": "play", "card": "7H"}
    assert mask_event(ev, {"7H", "5C", "3D"}, seen_cards(drew, played))["card"] == "7H"


def test_a_card_in_plain_view_is_named_when_every_code_is_one_card():
    """No Thanks!: a bot passes on the face-up card (nothing moves but a chip), and the
    event names it; with a deck of one card per code the seat sees it, so it is not ``?``.
    With copies of a code (3UP) a card in view may not be the one an event names: masked."""
    before = {"offer": ["17"], "hands": [["5"], ["9"]], "deck": {"hidden": 20}}
    after = dict(before)
    ev = {"type": "event", "player": 1, "action": "pass", "card": "17"}
    assert mask_event(ev, {"17", "5", "9"}, seen_cards(before, after, unique=True))["card"] == "17"
    assert mask_event(ev, {"17", "5", "9"}, seen_cards(before, after))["card"] == "?"
    drew = {"offer": ["17"], "hands": [["5"], {"hidden": 2}], "deck": {"hidden": 19}}
    ev = {"type": "event", "player": 1, "action": "draw", "card": "21"}
    assert mask_event(ev, {"17", "21"}, seen_cards(before, drew, unique=True))["card"] == "?"  # not in view


def test_bad_input_asks_again_and_quit_and_eof_exit_cleanly(tmp_path):
    save = tmp_path / "g.jsonl"
    code, out, _ = play(["crazy_eights", "--seed", "2", "--save", str(save)], "x\n0\n99\n\nq\n")
    assert code == 0
    assert out.count("not a move") == 4 and "you quit" in out and "nothing saved" in out
    assert not save.exists()
    code, out, _ = play(["skyscraper", "--seed", "2"], "1\n")
    assert code == 0 and "the input ended" in out
    for args, what in ((["skyscraper", "--seat", "5"], "--seat 5"), (["nogame"], "nogame"),
                       (["skyscraper", "--strategies", "nobot"], "nobot"),
                       (["skyscraper", "--save", str(tmp_path / "no" / "g.jsonl")], "--save")):
        code, out, err = play(args, "")
        assert code == 2 and what in err and len(err.strip().splitlines()) == 1


def test_play_through_a_real_pipe(tmp_path):
    """The command as a person's terminal script runs it: stdin a pipe, to the end."""
    save = tmp_path / "g.jsonl"
    p = subprocess.run([sys.executable, "-m", "cardlab.cli", "play", "crazy_eights", "--seed", "3",
                        "--save", str(save)], input="2\n1\n" * 500, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    assert "-- your turn (seat 0)" in p.stdout and "game over after" in p.stdout
    assert read_jsonl(save)[-1]["type"] == "result"

