"""The run history (analysis/history.py, `cardlab history`): runs are recorded with their
setup, code and headline figures; listed, shown, compared (paired and not) and exported;
two writers at once both land; a held lock spools the record instead of holding the run up;
a damaged database is reported in one line, left untouched, and the run still prints."""
import inspect
import json
import os
import subprocess
import sys
import textwrap
import time

import pandas as pd
import pytest

from cardlab.analysis import history as H
from cardlab.analysis.stats import diff_independent


class Done:
    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def cardlab(*args, check=True):
    """``cardlab ARGS`` in this process (the kernels stay loaded: fast), as a subprocess
    would see it: exit status, stdout, stderr."""
    import contextlib
    import io

    from cardlab import cli

    out, err, code = io.StringIO(), io.StringIO(), 0
    argv = sys.argv
    sys.argv = ["cardlab", *args]
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            cli.main()
    except SystemExit as e:
        code = e.code or 0
    finally:
        sys.argv = argv
    p = Done(code, out.getvalue(), err.getvalue())
    if check:
        assert p.returncode == 0, p.stderr
    return p


def cardlab_process(*args):
    p = subprocess.run([sys.executable, "-m", "cardlab.cli", *args], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    return p


SIM = ("simulate", "skyscraper", "-n", "200", "-p", "2", "-q")


@pytest.fixture(scope="module")
def three_runs(tmp_path_factory):
    """Three recorded simulate runs (1 and 2 paired: same seed and games, another rule;
    3 independent: another seed) and one --no-history run, in a history of their own."""
    home = tmp_path_factory.mktemp("hist_home")
    old = os.environ.get("CARDLAB_HOME")
    os.environ["CARDLAB_HOME"] = str(home)
    try:
        outs = [cardlab(*SIM, "--seed", "3", "--json").stdout,
                cardlab(*SIM, "--seed", "3", "--set", "floors_to_win=4", "--json").stdout,
                cardlab(*SIM, "--seed", "4", "--json").stdout]
        cardlab(*SIM, "--seed", "9", "--no-history")
    finally:
        if old is None:
            del os.environ["CARDLAB_HOME"]
        else:
            os.environ["CARDLAB_HOME"] = old
    return home, [json.loads(o) for o in outs]


def in_home(home, monkeypatch):
    monkeypatch.setenv("CARDLAB_HOME", str(home))


def test_runs_are_recorded_with_setup_code_and_headline(three_runs, monkeypatch):
    home, outs = three_runs
    in_home(home, monkeypatch)
    df = H.runs()
    assert list(df["id"]) == [1, 2, 3]  # the --no-history run is not there
    assert (home / H.DB_NAME).is_file()
    from cardlab.sim.cache import code_identity

    for (_, r), s in zip(df.iterrows(), outs):
        assert r.command == "simulate" and r.game == "skyscraper" and r.players == 2
        assert r.games == 200 and r.seed == s["seed"]
        assert json.loads(r.rules) == s["rules"] and json.loads(r.strategies) == s["strategies"]
        assert r.code_hash == code_identity()["source"] and r.cardlab_version == code_identity()["version"]
        assert r.command_line.startswith("cardlab simulate skyscraper -n 200")
        assert r.seat0_edge == s["first_player_advantage"]
        assert r.unfinished_rate == s["unfinished_rate"] and r.mean_length == s["length"]["mean"]
        assert r.balance == s["balance"]
        assert json.loads(r.summary) == s
    assert "--set floors_to_win=4" in df["command_line"][1]
    assert H.runs("five_towers").empty and len(H.runs("skyscraper")) == 3


def test_listing_and_show(three_runs, monkeypatch):
    home, outs = three_runs
    in_home(home, monkeypatch)
    lines = cardlab("history").stdout.splitlines()
    assert lines[0].split()[:4] == ["id", "time", "(UTC)", "command"]
    assert [ln.split()[0] for ln in lines[1:]] == ["1", "2", "3"]
    assert f"{100 * outs[0]['first_player_advantage']:+.1f}" in lines[1]
    assert len(cardlab("history", "skyscraper", "--limit", "2").stdout.splitlines()) == 3
    assert "no runs recorded for crazy_eights" in cardlab("history", "crazy_eights").stdout
    shown = json.loads(cardlab("history", "show", "2", "--json").stdout)
    assert shown["id"] == 2 and shown["summary"] == outs[1] and shown["rules"]["floors_to_win"] == 4
    bad = cardlab("history", "show", "99", check=False)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "99" in bad.stderr
    bad = cardlab("history", "nogame", check=False)
    assert bad.returncode == 2 and "nogame" in bad.stderr


def test_compare_paired_and_independent(three_runs, monkeypatch):
    home, outs = three_runs
    in_home(home, monkeypatch)
    paired = json.loads(cardlab("history", "compare", "1", "2", "--json").stdout)
    assert paired["pairing"]["kind"] == "paired" and paired["pairing"]["paired"]
    assert "independent" in paired["pairing"]["why"]  # says which interval it gives
    differs = {r["field"] for r in paired["setup"] if not r["same"]}
    assert differs == {"rules"}
    a, b = outs[0], outs[1]
    seat0 = next(r for r in paired["rates"] if r["metric"] == "seat 0 win rate")
    u = a["win_unit"]
    want = diff_independent(b["wins_by_seat"][0] / u, 200, a["wins_by_seat"][0] / u, 200)
    assert seat0["diff"] == pytest.approx(want[0]) and seat0["ci"] == pytest.approx(list(want[1:]))
    assert seat0["b"] - seat0["a"] == pytest.approx(b["win_rate_by_seat"][0] - a["win_rate_by_seat"][0])
    unf = next(r for r in paired["rates"] if r["metric"] == "unfinished (cap)")
    assert unf["a"] == a["unfinished_rate"] and unf["b"] == b["unfinished_rate"]

    indep = json.loads(cardlab("history", "compare", "1", "3", "--json").stdout)
    assert indep["pairing"]["kind"] == "independent" and not indep["pairing"]["paired"]
    assert "seed" in indep["pairing"]["why"]
    text = cardlab("history", "compare", "1", "3").stdout
    assert "not paired (different seed)" in text and "seat 0 win rate" in text
    assert "paired: same game, seed, games and players" in cardlab("history", "compare", "1", "2").stdout
    same = json.loads(cardlab("history", "compare", "3", "3", "--json").stdout)
    assert same["pairing"]["kind"] == "identical" and all(r["diff"] == 0 for r in same["rates"])


def test_export_parquet_and_dataframe(three_runs, monkeypatch, tmp_path):
    home, _ = three_runs
    in_home(home, monkeypatch)
    out = tmp_path / "runs.parquet"
    cardlab("history", "export", str(out))
    df = pd.read_parquet(out)
    assert len(df) == 3 and list(df.columns) == ["id", *H.NAMES]
    assert df.equals(H.runs())
    bad = cardlab("history", "export", str(tmp_path / "runs.csv"), check=False)
    assert bad.returncode == 2 and ".parquet" in bad.stderr


WRITER = textwrap.dedent("""
    import sys, time
    from cardlab.analysis import history as H
    start, tag, n = float(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    while time.time() < start:
        time.sleep(0.001)
    for i in range(n):
        H.record(H.make_record("simulate", {"game": "skyscraper", "seed": i, "games": 1,
                                            "tag": tag}, argv=["simulate", tag, str(i)]))
""")


def test_two_concurrent_writers_both_land(tmp_path, monkeypatch):
    in_home(tmp_path, monkeypatch)
    start = time.time() + 0.8  # both processes imported and waiting before it
    n = 10
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(start), tag, str(n)],
                              stderr=subprocess.PIPE, text=True) for tag in ("a", "b")]
    for p in procs:
        assert p.wait(timeout=120) == 0, p.stderr.read()
    df = H.runs()  # merges whatever was spooled while the other held the lock
    tags = [json.loads(s)["tag"] for s in df["summary"]]
    assert sorted(tags) == ["a"] * n + ["b"] * n
    assert df["record_id"].is_unique and df["id"].is_unique
    assert not list((tmp_path / H.PENDING).glob("*.json")) if (tmp_path / H.PENDING).exists() else True


def test_a_held_lock_spools_the_record_and_never_holds_the_run_up(tmp_path, monkeypatch):
    import duckdb

    in_home(tmp_path, monkeypatch)
    H.record(H.make_record("simulate", {"game": "skyscraper"}, argv=["first"]))  # creates the database
    con = duckdb.connect(str(tmp_path / H.DB_NAME))  # this process holds the lock
    try:
        t0 = time.monotonic()
        p = cardlab_process(*SIM, "--seed", "5", "--json")  # another process: DuckDB locks per process
        waited = time.monotonic() - t0
        assert json.loads(p.stdout)["games"] == 200 and p.stderr == ""
        spooled = list((tmp_path / H.PENDING).glob("*.json"))
        assert len(spooled) == 1 and json.loads(spooled[0].read_text())["seed"] == 5
        assert waited < 60  # the run finished; the record waited at most LOCK_WAIT_S
    finally:
        con.close()
    df = H.runs()
    assert list(df["seed"].fillna(-1).astype(int)) == [-1, 5]
    assert not list((tmp_path / H.PENDING).glob("*.json"))
    H.runs()  # merging again stores nothing twice
    assert len(H.runs()) == 2


def test_damaged_database_one_line_untouched_and_the_run_prints(tmp_path, monkeypatch):
    in_home(tmp_path, monkeypatch)
    db = tmp_path / H.DB_NAME
    junk = b"this is not a database\n" * 500
    db.write_bytes(junk)
    p = cardlab(*SIM, "--seed", "6", "--json")
    assert json.loads(p.stdout)["seed"] == 6  # the run completed and printed its result
    err = p.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("cardlab: history:") and str(db) in err[0]
    assert "left untouched" in err[0]
    assert db.read_bytes() == junk and sorted(x.name for x in tmp_path.iterdir()) == [H.DB_NAME, H.PENDING]
    listing = cardlab("history", check=False)
    assert listing.returncode == 2 and len(listing.stderr.strip().splitlines()) == 1
    assert db.read_bytes() == junk
    db.unlink()  # moved away: the kept record lands in the new history
    assert list(H.runs()["seed"]) == [6]


def test_every_recorded_command_has_no_history():
    from cardlab import cli

    for name in H.RECORDED:
        fn = getattr(cli, name)
        assert "no_history" in inspect.signature(fn).parameters, name
        assert f'_record("{name}"' in inspect.getsource(fn), name


def test_default_home_is_the_user_data_folder(monkeypatch, tmp_path):
    monkeypatch.delenv("CARDLAB_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert H.db_path() == tmp_path / "cardlab" / "history.duckdb"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert H.db_path() == H.Path.home() / ".local" / "share" / "cardlab" / "history.duckdb"


def _isolated_home(monkeypatch, tmp_path):
    """HOME, XDG_DATA_HOME and CARDLAB_HOME all under tmp_path: wherever a run could record,
    it is in there."""
    for var, sub in (("HOME", "home"), ("XDG_DATA_HOME", "xdg"), ("CARDLAB_HOME", "cardlab_home")):
        (tmp_path / sub).mkdir()
        monkeypatch.setenv(var, str(tmp_path / sub))
    monkeypatch.delenv(H.ENV, raising=False)
    return tmp_path / "cardlab_home" / H.DB_NAME


def _history_files(root):
    return sorted(p for p in root.rglob("*") if p.name.startswith("history"))


def test_the_history_switch_turns_recording_off(monkeypatch, tmp_path):
    """CARDLAB_HISTORY=off (or 0, false, no) records nothing for any command; unset, the
    same command records (so the switch is what stops it)."""
    db = _isolated_home(monkeypatch, tmp_path)
    args = [sys.executable, "-m", "cardlab.cli", "simulate", "skyscraper", "--games", "50", "--json"]
    for value in ("off", "0", "FALSE", "no"):
        p = subprocess.run(args, env={**os.environ, H.ENV: value}, capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
    assert _history_files(tmp_path) == []
    assert H.recording_on()                               # unset: on
    monkeypatch.setenv(H.ENV, "off")
    assert H.recording_on() is False and H.record_run("simulate", {"game": "skyscraper"}) is None
    monkeypatch.delenv(H.ENV)
    p = subprocess.run(args, env=dict(os.environ), capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert db.is_file()                                   # the control: without it, recorded


def test_check_game_never_writes_the_run_history(monkeypatch, tmp_path):
    """The conformance kit runs `cardlab simulate` in processes of its own (compiled and plain
    Python): from Python, with HOME, XDG_DATA_HOME and CARDLAB_HOME pointed at a temporary
    folder and no switch set, check_game leaves no history file anywhere there, and puts
    the environment back as it was."""
    from cardlab.sim.testing import check_game

    _isolated_home(monkeypatch, tmp_path)
    check_game("skyscraper", only=["compiled_equals_python", "json_identity"])
    assert _history_files(tmp_path) == []
    assert H.ENV not in os.environ and H.recording_on()
