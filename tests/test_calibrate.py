"""``cardlab calibrate block_tower``: maximum likelihood recovers the collapse knobs from
towers the simulator itself built (``sim.block_tower.model.sample_towers``: the kernel's
own compiled placement and fall draw), and bad CSVs are one clear line with exit 2."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from cardlab.analysis import calibrate as CAL
from cardlab.sim.block_tower import GAME
from cardlab.sim.block_tower import layout as L
from cardlab.sim.block_tower.model import sample_towers
from cardlab.sim.errors import InputError
from cardlab.sim.rng import seed_game


def simulated(n, seed, **over) -> CAL.Towers:
    rules = GAME.resolve_rules({k: str(v) for k, v in over.items()}, 4)
    st = np.zeros(L.S_SIZE, np.int64)
    st[L.S_RULES:L.S_RULES + L.N_RULES] = GAME.rules_vector(rules, 4)
    seed_game(st, seed, 0)
    out = np.zeros((n, 2 + L.MAXB), np.int64)
    sample_towers(st, out, 0, 0)
    h, f = out[:, 0].copy(), out[:, 1].copy()
    return CAL.Towers(h, f, [out[i, 2:2 + h[i] + f[i]].copy() for i in range(n)])


TRUE = {"base": 0.02, "a_h": 0.1, "a_u": 0.8}


def test_recovers_known_knobs_from_block_sequences(tmp_path):
    towers = simulated(3000, 11, **TRUE)
    path = tmp_path / "towers.csv"
    CAL.write_heights(path, towers)
    fit, plot = CAL.calibrate(path)
    assert fit.converged and fit.reason == ""
    for name, v in TRUE.items():
        lo, hi = fit.intervals[name]
        assert lo < v < hi, (name, v, fit.intervals[name])
        assert hi - lo < {"base": 0.01, "a_h": 0.15, "a_u": 0.8}[name]   # informative
    assert plot == tmp_path / "towers_survival.png" and plot.read_bytes()[:4] == b"\x89PNG"
    # a clearly wrong truth is outside the intervals: the test can fail
    assert not (fit.intervals["a_u"][0] < 0.2 < fit.intervals["a_u"][1])


def test_recovers_with_censored_towers_and_another_split(tmp_path):
    over = {"base": 0.005, "a_h": 0.15, "a_u": 0.4, "points_split": "6,6,4"}
    towers = simulated(2500, 12, **over)
    assert 0.05 < (towers.fell == 0).mean() < 0.9                  # some never fell
    path = tmp_path / "c.csv"
    CAL.write_heights(path, towers)
    fit, _ = CAL.calibrate(path, tmp_path / "c.png", ["points_split=6,6,4"])
    for name in ("base", "a_h", "a_u"):
        lo, hi = fit.intervals[name]
        assert lo < float(over[name]) < hi, (name, fit.intervals[name])


def test_heights_only_integrates_the_blocks_out(tmp_path):
    towers = simulated(1500, 13)                                     # the default knobs
    path = tmp_path / "h.csv"
    path.write_text("height\n" + "".join(f"{h}\n" for h in towers.height))
    fit, _ = CAL.calibrate(path)
    assert fit.n_sequences == 0
    # heights alone hardly separate a_h from a_u (their estimates correlate strongly), so
    # the check is the likelihood-ratio test of the true knobs (3 df, 99%) ...
    heights = CAL.Towers(towers.height, towers.fell, [None] * len(towers.height))
    model = CAL.Model(heights, (0, .3, .6), (.1, .2, .3), (8, 7, 5))
    assert 2 * (fit.loglik - model.loglik((np.log(0.01), 0.18, 0.5))) < 11.34
    assert fit.corr_ah_au < -0.9
    # ... and a clearly wrong truth is rejected
    assert 2 * (fit.loglik - model.loglik((np.log(0.01), 0.25, 0.5))) > 11.34
    # the fitted height distribution matches the observed one
    fall, _ = model.height_pmf((np.log(fit.base), fit.a_h, fit.a_u))
    obs = np.bincount(towers.height, minlength=len(fall))[:len(fall)] / len(towers.height)
    assert np.abs(np.cumsum(obs) - np.cumsum(fall)).max() < 0.04


def test_height_pmf_is_a_distribution_and_matches_the_sampler():
    m = CAL.Model(CAL.Towers(np.zeros(0, np.int64), np.zeros(0, np.int64), []),
                  (0, .3, .6), (.1, .2, .3), (8, 7, 5))
    fall, surv = m.height_pmf((np.log(0.01), 0.18, 0.5))
    assert fall.sum() + surv[20] == pytest.approx(1.0)               # fell somewhere, or all stood
    assert np.all(np.diff(surv[:21]) <= 1e-15)
    towers = simulated(20000, 14)
    obs = np.bincount(towers.height, minlength=21)[:21] / 20000
    assert np.abs(np.cumsum(obs) - np.cumsum(fall[:21])).max() < 0.015


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "cardlab.cli", "calibrate", *args],
                          capture_output=True, text=True, check=False)


class Done:
    def __init__(self, code, out, err):
        self.returncode, self.stdout, self.stderr = code, out, err


@pytest.fixture
def cli(capsys, monkeypatch):
    """``cardlab calibrate ...`` in this process (main(): the exit status and the output)."""
    from cardlab.cli import main

    def run(*args):
        monkeypatch.setattr(sys, "argv", ["cardlab", "calibrate", *args])
        with pytest.raises(SystemExit) as e:
            main()
        out = capsys.readouterr()
        return Done(e.value.code, out.out, out.err)

    return run


def test_cli_prints_the_fit_and_the_set_arguments(tmp_path):
    path = tmp_path / "t.csv"
    CAL.write_heights(path, simulated(800, 15, **TRUE))
    p = _cli("block_tower", "--heights", str(path), "--plot", str(tmp_path / "s.png"))
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert "--set base=" in out and "--set a_h=" in out and "--set a_u=" in out
    assert "95%" in out and (tmp_path / "s.png").exists()


@pytest.mark.parametrize("content,needle", [
    (None, "no such file"),
    ("", "empty"),
    ("foo,bar\n1,2\n", "no 'height' column"),
    ("height\n", "no data rows"),
    ("height\n4\nseven\n", "row 3"),
    ("height\n-2\n", "row 2"),
    ("height,fell\n5,2\n", "fell '2'"),
    ("height,fell\n5,0\n6,0\n", "no tower fell"),
    ("height\n0\n", "first block never falls"),
    ("height,blocks\n3,1 2\n", "expected 4"),
    ("height,blocks\n2,1 5 2\n", "points 1, 2 or 3"),
    # impossible towers (probability 0 for every parameter: the likelihood is -inf everywhere)
    ("height,fell\n5,1\n20,1\n", "row 3: a tower of 20 blocks cannot fall"),
    ("height,fell\n5,1\n21,0\n", "row 3: a tower of 21 blocks is higher than the 20 blocks"),
    ("height,blocks\n5,3 3 3 3 3 3\n", "row 2: blocks lists 6 blocks worth 3, but points_split=8,7,5 has only 5"),
    (b"\x89PNG\r\n\x1a\n\x00\x00binary", "not a text CSV"),
])
def test_bad_csv_is_one_line_exit_2_and_nothing_written(cli, tmp_path, content, needle):
    path = tmp_path / "bad.csv"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    plot = tmp_path / "keep.png"
    plot.write_bytes(b"old")
    p = cli("block_tower", "--heights", str(path), "--plot", str(plot))
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    err = p.stderr.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1 and needle in err, err
    assert plot.read_bytes() == b"old"
    assert not (tmp_path / "bad_survival.png").exists()


def test_cli_rejects_other_games_and_knobs(cli, tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("height\n5\n")
    for args, needle in ((["smokestack", "--heights", str(path)], "block_tower"),
                         (["block_tower", "--heights", str(path), "--set", "base=2"], "base"),
                         (["block_tower", "--heights", str(path), "--plot", str(tmp_path / "no/x.png")],
                          "does not exist")):
        p = cli(*args)
        assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1, p.stderr
        assert needle in p.stderr


def test_read_heights_accepts_the_documented_format(tmp_path):
    path = tmp_path / "ok.csv"
    path.write_text("session,Height,fell,blocks\nA,3,1,1;2;3;1\nB,2,0,2-2\nC,5,,\n")
    t = CAL.read_heights(path)
    assert list(t.height) == [3, 2, 5] and list(t.fell) == [1, 0, 1]
    assert [None if b is None else list(b) for b in t.blocks] == [[1, 2, 3, 1], [2, 2], None]
    with pytest.raises(InputError):
        CAL.read_heights(tmp_path)


def test_a_censored_tower_of_every_block_is_possible(tmp_path):
    path = tmp_path / "all.csv"
    path.write_text("height,fell\n20,0\n" + "".join(f"{h},1\n" for h in (5, 8, 9, 10, 11, 12, 13, 7, 9, 10)))
    fit, _ = CAL.calibrate(path, tmp_path / "all.png")
    assert np.isfinite(fit.loglik)


def test_no_convergence_is_reported_and_no_set_line_printed(cli, tmp_path, monkeypatch):
    """Issue 14: a fit without a proper maximum was printed under 'Use the fit'."""
    path = tmp_path / "ones.csv"
    path.write_text("height\n" + "1\n" * 30)      # every tower fell on its second block
    fit, _ = CAL.calibrate(path, tmp_path / "o.png")
    assert not fit.converged and "positive definite" in fit.reason
    p = cli("block_tower", "--heights", str(path), "--plot", str(tmp_path / "o.png"))
    assert p.returncode == 0, p.stderr
    assert "did not converge" in p.stdout and "--set" not in p.stdout and "Use the fit" not in p.stdout
    p = cli("block_tower", "--heights", str(path), "--plot", str(tmp_path / "o.png"), "--json")
    out = json.loads(p.stdout)
    assert out["converged"] is False and out["set"] is None and out["reason"]
    # an optimiser that stops without converging is not reported as converged either
    import scipy.optimize

    real = scipy.optimize.minimize

    def stops_early(*args, **kw):
        r = real(*args, **kw)
        r.success, r.message = False, "Maximum number of iterations has been exceeded."
        return r

    monkeypatch.setattr(scipy.optimize, "minimize", stops_early)
    good = tmp_path / "good.csv"
    CAL.write_heights(good, simulated(300, 16, **TRUE))
    fit, _ = CAL.calibrate(good, tmp_path / "g.png")
    assert not fit.converged and "optimiser did not converge" in fit.reason
    monkeypatch.setattr(scipy.optimize, "minimize", real)
    fit, _ = CAL.calibrate(good, tmp_path / "g.png")
    assert fit.converged
