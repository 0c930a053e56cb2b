"""Scaling out and holding up: the Dask backend on a LocalCluster gives the local result,
a worker killed mid-run is retried (or the run stops with a message), run folders
checkpoint every chunk and resume to exactly the uninterrupted result, and anything
foreign or damaged in a run folder is refused with nothing overwritten."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from cardlab.sim import runner
from cardlab.sim.errors import InputError, RunError
from cardlab.sim.runner import make_setup

GAMES = 3 * runner.CHUNK  # three chunks


@pytest.fixture(scope="module")
def sky():
    s = make_setup("skyscraper", 2, None, "reference,aggressive", 11)
    return s, runner.run(s, GAMES, jobs=1).tally.data


def test_dask_local_cluster_matches_the_local_backend(sky):
    s, local = sky
    res = runner.run(s, GAMES, jobs=2, backend="dask")
    assert np.array_equal(res.tally.data, local)


def test_a_killed_dask_worker_is_retried(sky, tmp_path, monkeypatch):
    s, local = sky
    marker = tmp_path / "killed"
    monkeypatch.setenv("CARDLAB_FAULT", f"kill:{runner.CHUNK}:{marker}")  # workers inherit it
    res = runner.run(s, GAMES, jobs=2, backend="dask")
    assert marker.exists(), "the worker playing the second chunk was killed"
    assert np.array_equal(res.tally.data, local)


def test_a_chunk_that_keeps_killing_workers_stops_the_run(sky, monkeypatch):
    s, _ = sky
    monkeypatch.setenv("CARDLAB_FAULT", f"kill:{runner.CHUNK}")
    with pytest.raises(RunError, match="no result"):
        runner.run(s, GAMES, jobs=2, backend="dask")


def test_a_failing_thread_stops_the_run_with_a_message(sky, monkeypatch):
    s, _ = sky
    monkeypatch.setenv("CARDLAB_FAULT", f"raise:{2 * runner.CHUNK}")
    with pytest.raises(RunError, match="injected failure"):
        runner.run(s, GAMES, jobs=2)
    p = subprocess.run([sys.executable, "-m", "cardlab.cli", "simulate", "skyscraper", "-n", str(GAMES),
                        "-q"], capture_output=True, text=True,
                       env={**__import__("os").environ, "CARDLAB_FAULT": f"raise:{runner.CHUNK}"})
    assert p.returncode == 1 and p.stdout == ""
    assert len(p.stderr.strip().splitlines()) == 1 and "run failed" in p.stderr


def test_backend_errors():
    s = make_setup("skyscraper", 2, None, None, 1)
    with pytest.raises(InputError, match="--backend"):
        runner.run(s, 10, backend="spark")
    with pytest.raises(InputError, match="--scheduler"):
        runner.run(s, 10, scheduler="tcp://127.0.0.1:1")


# ---------------------------------------------------------------- run folders


def _cli(*args, check=True):
    return subprocess.run([sys.executable, "-m", "cardlab.cli", *args], capture_output=True, text=True,
                          check=check)


def _strip(d):
    d.pop("elapsed_s")
    d.pop("games_per_second")
    return d


def test_a_killed_run_resumes_to_the_uninterrupted_result(tmp_path):
    args = ["simulate", "skyscraper", "-n", "400000", "--seed", "4", "--jobs", "1", "--json", "-q"]
    full = _strip(json.loads(_cli(*args).stdout))
    run = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "-m", "cardlab.cli", *args, "--out", str(run)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    n = 0
    while time.time() < deadline and proc.poll() is None:
        chunks = run / "chunks"
        n = len([p for p in chunks.iterdir() if ".tmp" not in p.name]) if chunks.exists() else 0
        if n >= 2:
            break
        time.sleep(0.01)
    assert proc.poll() is None, "the run ended before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert 2 <= n < 20
    again = _cli(*args, "--out", str(run), check=False)
    assert again.returncode == 2 and "--resume" in again.stderr  # never silently overwritten
    resumed = _strip(json.loads(_cli(*args, "--out", str(run), "--resume").stdout))
    assert resumed == full
    assert json.loads((run / "run.json").read_text())["complete"] is True
    assert _strip(json.loads((run / "summary.json").read_text())) == full
    # a complete run resumes instantly to the same numbers, from its chunks alone
    assert _strip(json.loads(_cli(*args, "--out", str(run), "--resume").stdout)) == full


def test_foreign_or_damaged_run_folders_are_refused_untouched(tmp_path):
    base = ["simulate", "skyscraper", "-n", "45000", "-q", "--json"]
    run = tmp_path / "run"
    _cli(*base, "--out", str(run))
    snapshot = {p: p.read_bytes() for p in run.rglob("*") if p.is_file()}

    def refused(*args, needle):
        p = _cli(*args, check=False)
        assert p.returncode == 2, p.stderr
        assert needle in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
        assert {q: q.read_bytes() for q in run.rglob("*") if q.is_file()} == snapshot

    refused(*base, "--seed", "2", "--out", str(run), "--resume", needle="different run (seed")
    refused(*base, "--set", "floors_to_win=4", "--out", str(run), "--resume", needle="different run (rules")
    refused(*base, "--resume", needle="--resume needs --out")
    chunk = sorted((run / "chunks").iterdir())[0]
    good = chunk.read_bytes()
    chunk.write_bytes(b"garbage")
    snapshot[chunk] = b"garbage"
    refused(*base, "--out", str(run), "--resume", needle="not a valid chunk")
    chunk.write_bytes(good)
    snapshot[chunk] = good
    (run / "run.json").write_text("{not json")
    snapshot[run / "run.json"] = b"{not json"
    refused(*base, "--out", str(run), "--resume", needle="not a cardlab run file")
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    p = _cli(*base, "--out", str(other), check=False)
    assert p.returncode == 2 and "not empty" in p.stderr and (other / "notes.txt").read_text() == "mine"
    p = _cli(*base, "--out", str(tmp_path / "fresh"), "--resume", check=False)
    assert p.returncode == 2 and "nothing to resume" in p.stderr
