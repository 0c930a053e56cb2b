"""Rule-tweak sweeps (analysis/sweep.py, `cardlab sweep`): the grid, common random
numbers and the paired comparison, resuming after a kill, stale-result protection,
adaptive precision, multiple-comparison adjustment, the report and CLI errors."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest

from cardlab.analysis import sweep as SW
from cardlab.sim.errors import InputError

SKY_GRID = ["floors_to_win=4,5", "players=2,3,4"]


def cli(*args, check=True):
    return subprocess.run([sys.executable, "-m", "cardlab.cli", *args], capture_output=True,
                          text=True, check=check)


def test_grid_and_default_baseline():
    grid = SW.make_grid("skyscraper", SW.parse_vary(SKY_GRID))
    assert [g.label for g in grid][:2] == ["floors_to_win=4, players=2", "floors_to_win=4, players=3"]
    assert len(grid) == 6 and {g.setup.players for g in grid} == {2, 3, 4}
    assert grid[0].setup.rules["floors_to_win"] == 4
    base = SW.pick_baseline(grid)  # the defaults: floors_to_win=5, 2 players
    assert base.values == {"floors_to_win": "5", "players": "2"}
    assert SW.pick_baseline(grid, ["players=3"]).values == {"floors_to_win": "5", "players": "3"}
    g2 = SW.make_grid("skyscraper", SW.parse_vary(["strategies=reference/aggressive,random"]))
    assert [[s.label for s in g.setup.seats] for g in g2] == [["reference", "reference"], ["aggressive", "random"]]


@pytest.mark.parametrize("vary,sets,needle", [
    (["floors=4,5"], [], "unknown --vary key 'floors'"),
    (["floors_to_win=4,0"], [], "floors_to_win"),
    (["floors_to_win=4,5"], ["floors_to_win=3"], "both --set and --vary"),
    (["floors_to_win=4,4"], [], "repeated"),
    (["floors_to_win"], [], "KEY=V1,V2"),
    (["players=2,9"], [], "--players 9"),
])
def test_bad_grids_are_refused(vary, sets, needle):
    with pytest.raises(InputError, match=needle):
        SW.make_grid("skyscraper", SW.parse_vary(vary), sets)


def test_cli_errors_are_one_line(tmp_path):
    for args, needle in ((["--vary", "floors=4,5"], "unknown --vary key"),
                         (["--vary", "floors_to_win=4,5", "--baseline", "players=2"], "not varied"),
                         (["--vary", "floors_to_win=4,5", "--precision", "2"], "--precision"),
                         (["--vary", "floors_to_win=4,5", "--correction", "bonferroni"], "--correction")):
        p = cli("sweep", "skyscraper", *args, "-n", "100", "--out", str(tmp_path / "x"), check=False)
        assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1, p.stderr
        assert needle in p.stderr and "Traceback" not in p.stderr


def test_paired_design_has_a_smaller_variance_than_independent_seeds():
    grid = SW.make_grid("skyscraper", SW.parse_vary(["floors_to_win=4,5"]), seed=3)
    a = SW.play_variant(grid[0], 4000, jobs=1)
    b = SW.play_variant(grid[1], 4000, jobs=1)  # same seed, same game indices
    other = SW.make_grid("skyscraper", SW.parse_vary(["floors_to_win=5"]), seed=4)[0]
    c = SW.play_variant(other, 4000, jobs=1)    # an independent run of b's rules
    n = 4000
    pa, pb, pc = (SW.per_game(x, n)["mean_length"] for x in (a, b, c))
    both = ~(np.isnan(pa) | np.isnan(pb) | np.isnan(pc))  # capped games have no length
    assert 0 < (~both).sum() < n // 10
    pa, pb, pc = pa[both], pb[both], pc[both]
    paired = SW.paired_difference(pa, pb)
    indep = SW.paired_difference(pa, pc)       # differences of unrelated games
    # the same deals make lengths strongly correlated: the paired standard error is a
    # fraction of the independent one (var(a) + var(b) without the covariance)
    assert paired["se"] < 0.6 * indep["se"]
    assert np.corrcoef(pa, pb)[0, 1] > 0.3
    # and both estimate the same difference of means
    assert abs(paired["diff"] - indep["diff"]) < 4 * indep["se"]


def test_holm_and_paired_difference():
    assert np.allclose(SW.holm_adjust([0.01, 0.04, 0.03]), [0.03, 0.06, 0.06])
    assert np.allclose(SW.holm_adjust([0.5, np.nan, 0.01]), [0.5, np.nan, 0.02], equal_nan=True)
    d = SW.paired_difference(np.array([1.0, 2.0, 3.0, 4.0]), np.array([1.0, 2.0, 3.0, 4.0]))
    assert d["diff"] == 0 and d["p"] == 1.0
    rng = np.random.default_rng(1)
    x = rng.normal(0, 1, 20000)
    d = SW.paired_difference(x + 0.05, x + rng.normal(0, 0.1, 20000))
    assert d["lo"] < 0.05 < d["hi"] and d["p"] < 1e-6


def _tables(out):
    r = SW.load(out)
    res = r.results.drop(columns=["reused"])
    return res, r.comparison, r.verdicts


def test_a_killed_sweep_resumes_to_the_uninterrupted_result(tmp_path):
    args = ["sweep", "skyscraper", "--vary", "floors_to_win=4,5", "--vary", "players=2,3", "-n", "30000",
            "--seed", "9", "--jobs", "1", "-q"]
    full = tmp_path / "full"
    cli(*args, "--out", str(full))
    part = tmp_path / "part"
    proc = subprocess.Popen([sys.executable, "-m", "cardlab.cli", *args, "--out", str(part)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    finished = []
    while time.time() < deadline and proc.poll() is None:
        vdir = part / "variants"
        finished = [p for p in vdir.iterdir() if ".tmp" not in p.name] if vdir.exists() else []
        if finished:
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the sweep finished before it could be killed: make it longer"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert 1 <= len(finished) < 4 and not (part / "results.csv").exists()
    cli(*args, "--out", str(part))
    r = SW.load(part)
    assert r.results["reused"].sum() >= 1
    a, b = _tables(full), _tables(part)
    pd.testing.assert_frame_equal(a[0], b[0])
    pd.testing.assert_frame_equal(a[1], b[1])
    assert a[2] == b[2]


def test_a_changed_command_never_reuses_results(tmp_path):
    kw = dict(games=500, jobs=1, out=tmp_path)
    r1 = SW.sweep("skyscraper", ["floors_to_win=4,5"], seed=1, **kw)
    r2 = SW.sweep("skyscraper", ["floors_to_win=4,5"], seed=1, **kw)
    assert r1.reused == 0 and r2.reused == 2
    r3 = SW.sweep("skyscraper", ["floors_to_win=4,5"], seed=2, **kw)
    assert r3.reused == 0
    r4 = SW.sweep("skyscraper", ["floors_to_win=4,5"], seed=1, games=600, jobs=1, out=tmp_path)
    assert r4.reused == 0
    assert len(list((tmp_path / "variants").iterdir())) == 6
    fresh = SW.sweep("skyscraper", ["floors_to_win=4,5"], seed=2, games=500, jobs=1)
    pd.testing.assert_frame_equal(r3.results.drop(columns="reused"), fresh.results.drop(columns="reused"))


def test_a_foreign_or_file_out_is_refused(tmp_path):
    (tmp_path / "mine.txt").write_text("keep")
    with pytest.raises(InputError, match="holds no sweep"):
        SW.sweep("skyscraper", ["floors_to_win=4,5"], games=10, out=tmp_path)
    assert (tmp_path / "mine.txt").read_text() == "keep" and not (tmp_path / "variants").exists()
    with pytest.raises(InputError, match="is a file"):
        SW.sweep("skyscraper", ["floors_to_win=4,5"], games=10, out=tmp_path / "mine.txt")


def test_a_corrupt_saved_variant_is_refused_and_kept(tmp_path):
    SW.sweep("skyscraper", ["floors_to_win=4,5"], games=300, jobs=1, out=tmp_path)
    vdir = sorted((tmp_path / "variants").iterdir())[0]
    (vdir / "tally.npy").write_bytes(b"not a numpy file")
    with pytest.raises(InputError, match="cannot reuse the saved sweep variant"):
        SW.sweep("skyscraper", ["floors_to_win=4,5"], games=300, jobs=1, out=tmp_path)
    assert (vdir / "tally.npy").read_bytes() == b"not a numpy file"


def test_adaptive_precision_adds_games_reproducibly():
    kw = dict(games=1000, jobs=1, precision=0.02, max_games=32000)
    a = SW.sweep("skyscraper", ["floors_to_win=4,5"], **kw)
    b = SW.sweep("skyscraper", ["floors_to_win=4,5"], **{**kw, "jobs": 2})
    pd.testing.assert_frame_equal(a.results, b.results)
    for _, r in a.results.iterrows():
        n = int(r["games"])
        assert n > 1000 and n in [1000 * 2 ** k for k in range(6)]
        half = max((r[f"win_rate_seat{i}_hi"] - r[f"win_rate_seat{i}_lo"]) / 2 for i in range(2))
        assert half < 0.02 or n == 32000
    # the precision rule stops at the first doubling that meets it
    g = SW.make_grid("skyscraper", SW.parse_vary(["floors_to_win=5"]))[0]
    half = SW.widest_half_width(SW.play_variant(g, int(a.results["games"].iloc[1]) // 2, jobs=1).result.tally)
    assert half >= 0.02


def test_cli_sweep_with_report(tmp_path):
    out = tmp_path / "sky"
    p = cli("sweep", "skyscraper", "--vary", SKY_GRID[0], "--vary", SKY_GRID[1], "-n", "3000",
            "--out", str(out), "--report", "-q")
    assert "floors_to_win=4, players=3" in p.stdout and "baseline: floors_to_win=5, players=2" in p.stdout
    html = (out / "index.html").read_text()
    assert html.count("<img") == 4  # two metric panels, two heat maps
    assert "cuts the finished games" in html  # 4 floors to win shortens 2-player games
    r = SW.load(out)
    assert len(r.results) == 6 and set(r.comparison["metric"]) == set(SW.METRICS)
    assert r.comparison["p_adjusted"].ge(r.comparison["p"]).all()
    assert (out / "results.parquet").exists() and (out / "comparison.csv").exists()
    res = pd.read_parquet(out / "results.parquet")
    assert list(res["variant"]) == list(r.results["variant"])
    row = res[res["variant"] == "floors_to_win=4, players=2"].iloc[0]
    base = res[res["baseline"]].iloc[0]
    assert row["mean_length"] < base["mean_length"]
    json.loads((out / "sweep.json").read_text())
