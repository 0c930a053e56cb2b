"""The learned player (sim/learned.py), its model files (sim/models.py) and its training
(analysis/learn.py, ``cardlab learn``)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from cardlab.analysis.learn import fold, learn
from cardlab.analysis.value import fit, fit_network, sample
from cardlab.sim import evaluate, learned, models, runner
from cardlab.sim.errors import InputError
from cardlab.sim.registry import get_game

CE = get_game("crazy_eights")
N = len(CE.feature_names())


@pytest.fixture
def model_dirs(tmp_path, monkeypatch):
    """No model but the test's own: an empty models folder and data home."""
    monkeypatch.setenv("CARDLAB_MODELS", str(tmp_path / "models"))
    monkeypatch.setenv("CARDLAB_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(models, "shipped_folder", lambda: tmp_path / "shipped")
    return tmp_path


def one_weight(name: str, w: float) -> np.ndarray:
    """A linear model that rates a position by one feature only."""
    row = np.zeros(N + 1)
    row[CE.feature_names().index(name)] = w
    return row


def test_a_model_file_round_trips_and_refuses_what_does_not_fit(tmp_path):
    m = models.new(CE, 3, command="test")
    rng = np.random.default_rng(1)
    m.add(0, rng.normal(size=N + 1), generation=1)
    m.add(4, rng.normal(size=4 * N + 9), generation=2)
    path = models.save(m, tmp_path / "ce.json")
    back = models.load(path, CE, 3)
    assert np.array_equal(back.array(), m.array()) and back.generations[1]["generation"] == 2
    with pytest.raises(InputError, match="for 3 players, not 4"):
        models.load(path, CE, 4)
    with pytest.raises(InputError, match="is for game 'crazy_eights', not 'skyscraper'"):
        models.load(path, get_game("skyscraper"), 3)
    d = json.loads(path.read_text())
    d["encoding"] = "0" * 16
    path.write_text(json.dumps(d))
    with pytest.raises(InputError, match="another observation encoding.*cardlab learn crazy_eights --players 3"):
        models.load(path, CE, 3)
    for damage in ("{", json.dumps({"format": "cardlab-model"}), json.dumps(dict(d, generations=[]))):
        path.write_text(damage)
        with pytest.raises(InputError, match="damaged model file") as e:
            models.load(path)
        assert "\n" not in str(e.value)
    with pytest.raises(ValueError, match="want"):
        m.add(0, np.zeros(N))


def test_the_compiled_evaluation_is_the_fitted_one():
    """Folded into one row per generation, a linear and a one-hidden-layer fit give in the
    compiled ``value`` what they give in numpy (the standardization folded in exactly)."""
    X, meta, P = sample("crazy_eights", games=60, every=3, seed=4)
    y = (meta[:, 3] >> meta[:, 1] & 1).astype(float)
    m = models.new(CE, 3)
    lin, net = fit(X, y), fit_network(X, y, 3, seed=2, maxiter=30)
    m.add(0, fold(lin, N))
    m.add(3, fold(net, N))
    W = m.array()
    value = evaluate.value.py_func if hasattr(evaluate.value, "py_func") else evaluate.value
    for g, fitted in enumerate((lin, net)):
        want = fitted(X[:50])
        got = np.array([value(W, g, x) for x in X[:50]])
        assert np.allclose(got, want, atol=1e-9)


def test_the_evaluation_decides(model_dirs):
    """With drawing instead of playing offered, a model that likes a big hand draws whenever
    it may and one that likes a small hand never does: the choice follows V, not a rule."""
    sets = ["may_draw_when_able=true", "draw_limit=1"]
    draws = {}
    for sign in (+1, -1):
        W = models.Model("crazy_eights", 3, models.encoding(CE), N)
        W.add(0, one_weight("hands[+0].n", 3.0 * sign))
        setup = runner.make_setup("crazy_eights", 3, sets, "learned,reference,reference", 5, W.array())
        t = runner.run(setup, 60, 1).tally
        draws[sign] = t
    big, small = draws[+1], draws[-1]
    # a seat that draws at every chance never wins against two seats shedding cards
    assert big.wins[0] < 0.1 * big.games and small.wins[0] > 0.2 * small.games


def test_no_model_is_one_line_and_exit_2(model_dirs):
    with pytest.raises(InputError, match="no learned model for crazy_eights with 3 players.*cardlab learn "
                       "crazy_eights --players 3"):
        runner.make_setup("crazy_eights", 3, None, "learned,reference,reference", 1)
    env = dict(os.environ, CARDLAB_HISTORY="off")
    p = subprocess.run([sys.executable, "-m", "cardlab.cli", "simulate", "crazy_eights", "-n", "10", "--players", "5",
                        "--strategies", "learned,reference", "-q"], capture_output=True, text=True, env=env)
    assert p.returncode == 2 and "no learned model for crazy_eights with 5 players" in p.stderr
    assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1
    for args, msg in ((["--generations", "0"], "bad --generations 0"), (["--hidden", "-1"], "bad --hidden -1"),
                      (["--every", "0"], "bad --every 0"), (["--eval-games", "1"], "bad --eval-games 1")):
        p = subprocess.run([sys.executable, "-m", "cardlab.cli", "learn", "crazy_eights", "-q", *args],
                           capture_output=True, text=True, env=env)
        assert p.returncode == 2 and msg in p.stderr and "Traceback" not in p.stderr, (args, p.stderr)


def test_training_is_reproducible_for_any_jobs_and_resumes(model_dirs):
    """The same seed gives the same model on one thread and on two; a run that stops after
    generation 1 and is continued gives the model of one run of two generations."""
    kw = dict(players=2, games=100, every=6, eval_games=8, seed=3)
    a, _ = learn("crazy_eights", generations=2, jobs=1, out=model_dirs / "a.json", **kw)
    b, _ = learn("crazy_eights", generations=2, jobs=2, out=model_dirs / "b.json", **kw)
    learn("crazy_eights", generations=1, jobs=2, out=model_dirs / "c.json", **kw)
    c, _ = learn("crazy_eights", generations=2, jobs=1, out=model_dirs / "c.json", **kw)
    assert np.array_equal(a.array(), b.array()) and np.array_equal(a.array(), c.array())
    assert [g["generation"] for g in c.generations] == [1, 2]
    table = {r["opponent"]: r for r in c.generations[1]["strength"]}
    assert set(table) == set(CE.strategies) | {"generation 1"}
    assert all(r["games"] == 8 and r["ci"][0] <= r["win_rate"] <= r["ci"][1] for r in table.values())
    # a finished file is returned as it is; other settings train afresh
    again, _ = learn("crazy_eights", generations=2, jobs=1, out=model_dirs / "c.json", **kw)
    assert again.to_json() == c.to_json()
    # a file of another observation encoding (the game's schema changed since) is trained
    # afresh by the same command, as its error says, not refused again
    stale = json.loads((model_dirs / "c.json").read_text())
    stale["encoding"] = "0" * len(stale["encoding"])
    (model_dirs / "c.json").write_text(json.dumps(stale))
    with pytest.raises(InputError, match=f"retrain it with cardlab learn crazy_eights --players 2 --out "
                       f"{re.escape(str(model_dirs / 'c.json'))}"):
        models.load(model_dirs / "c.json", CE, 2)
    retrained, _ = learn("crazy_eights", generations=1, jobs=1, out=model_dirs / "c.json", **kw)
    fresh, _ = learn("crazy_eights", generations=1, jobs=1, out=model_dirs / "d.json", **kw)
    assert len(retrained.generations) == 1 and np.array_equal(retrained.array(), fresh.array())
    # a file of another game is refused, never overwritten
    other = json.loads((model_dirs / "d.json").read_text())
    other["game"] = "skyscraper"
    (model_dirs / "d.json").write_text(json.dumps(other))
    with pytest.raises(InputError, match="is for game 'skyscraper', not 'crazy_eights'"):
        learn("crazy_eights", generations=1, jobs=1, out=model_dirs / "d.json", **kw)


def test_shipped_models_load_and_match_the_code():
    """Every committed model reads this code's observation vector, and names the command
    that made it."""
    files = sorted(models.shipped_folder().glob("*.json"))
    assert files, "no shipped model"
    for path in files:
        game_id, players = path.stem.rsplit("-", 1)
        m = models.load(path, get_game(game_id), int(players.rstrip("p")))
        assert m.info["command"].startswith(f"cardlab learn {game_id} ")
        assert all("strength" in g for g in m.generations)


CHEAT = """
from cardlab.sim import learned
from cardlab.sim.audit import audit, LEARNED_AUDIT
from cardlab.sim.crazy_eights.layout import S_HANDS
honest = audit("crazy_eights", LEARNED_AUDIT, 3, None, 12, 17)
orig = learned.decide
def peeking(st, me, *rest):  # the learned player, reading the next seat's hand first
    _ = st[S_HANDS + (me + 1) % 3]
    return orig(st, me, *rest)
learned.decide = peeking
caught = audit("crazy_eights", LEARNED_AUDIT, 3, None, 12, 17)
print(honest["violations"], caught["violations"], caught["kept"][0]["part"])
"""


def test_the_audit_proves_the_learned_player_and_catches_a_peek():
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", CARDLAB_HISTORY="off")
    p = subprocess.run([sys.executable, "-c", CHEAT], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    honest, caught, part = p.stdout.split()
    assert honest == "0" and int(caught) > 0 and part == "hands"


def test_the_models_page_is_what_the_files_say():
    p = subprocess.run([sys.executable, "scripts/learned_models.py", "--check"], capture_output=True, text=True,
                       cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert p.returncode == 0, p.stdout


def test_an_unwritable_model_file_and_a_bad_penalty_are_one_line(model_dirs):
    (model_dirs / "taken").mkdir()
    with pytest.raises(InputError, match="cannot write model file .*taken: it is a folder"):
        learn("crazy_eights", 3, games=10, out=model_dirs / "taken")
    env = dict(os.environ, CARDLAB_HISTORY="off")
    p = subprocess.run([sys.executable, "-m", "cardlab.cli", "learn", "crazy_eights", "-q", "--l2", "inf"],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 2 and "bad --l2 inf" in p.stderr and "Traceback" not in p.stderr


def test_a_search_teacher_makes_the_data_of_later_generations(model_dirs):
    """--teacher: generation 2 learns from the search's games (its play-outs scored by
    generation 1 with value=1), the same model for any jobs; the teacher is in the model's
    pools and its command; a bad teacher is one line before any game."""
    kw = dict(players=2, games=40, every=6, eval_games=4, seed=3, generations=2,
              teacher="mcts:iterations=8:value=1:depth=2")
    a, _ = learn("crazy_eights", jobs=1, out=model_dirs / "a.json", **kw)
    b, _ = learn("crazy_eights", jobs=2, out=model_dirs / "b.json", **kw)
    assert np.array_equal(a.array(), b.array())
    assert a.generations[1]["pools"][0] == "mcts:iterations=8:value=1:depth=2,mcts:iterations=8:value=1:depth=2"
    assert "--teacher mcts:iterations=8:value=1:depth=2" in a.info["command"]
    plain, _ = learn("crazy_eights", jobs=1, out=model_dirs / "c.json", **dict(kw, teacher="learned"))
    assert np.array_equal(plain.array()[0], a.array()[0]) and not np.array_equal(plain.array()[1], a.array()[1])
    for bad, msg in (("mcts:depth=x", "bad value 'x' for parameter 'mcts:depth'"),
                     ("mcts,reference", "bad --teacher 'mcts,reference': one player")):
        with pytest.raises(InputError, match=msg):
            learn("crazy_eights", out=model_dirs / "d.json", **dict(kw, teacher=bad))
    assert not (model_dirs / "d.json").exists()


def test_training_on_dask_gives_the_local_model_on_one_cluster(model_dirs, monkeypatch):
    from cardlab.sim import dask_backend

    clusters = []
    real = dask_backend.connect
    monkeypatch.setattr(dask_backend, "connect", lambda *a: clusters.append(1) or real(*a))
    kw = dict(players=2, games=60, every=6, eval_games=4, seed=3, generations=2, jobs=2)
    on_dask, _ = learn("crazy_eights", out=model_dirs / "d.json", backend="dask", **kw)
    local, _ = learn("crazy_eights", out=model_dirs / "l.json", **kw)
    assert clusters == [1] and np.array_equal(on_dask.array(), local.array())
    assert [g["strength"] for g in on_dask.generations] == [g["strength"] for g in local.generations]
