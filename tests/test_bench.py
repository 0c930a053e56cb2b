"""scripts/bench.py's comparison with the reference speeds (issue 19): ratios, targets and
thread scaling computed from the measured figures, only for the headline setup."""
import importlib.util
import sys
from pathlib import Path

_SPEC = importlib.util.spec_from_file_location("bench", Path(__file__).resolve().parent.parent / "scripts" / "bench.py")
bench = importlib.util.module_from_spec(_SPEC)
sys.modules["bench"] = bench  # its dataclasses look their module up
_SPEC.loader.exec_module(bench)


def _res(all_cores, one):
    return {"compiled": {"games_per_second": all_cores},
            "one_thread": None if one is None else {"games_per_second": one, "scaling": round(all_cores / one, 3)}}


def _plan(game, players, strategies="reference"):
    return bench.GamePlan(game, 1_000_000, players, strategies, None)


def test_ratios_and_targets_from_the_measured_speeds():
    c = bench.compare_reference(_plan("three_up", 4), _res(542_000, 300_000))
    assert c["all_cores_vs_c_one_core"] == 1.0
    assert c["per_thread_vs_c_one_core"] == round(300_000 / 542_000, 3)
    assert c["per_thread_vs_careful_numba"] == round(300_000 / 360_000, 3)
    assert c["pass"] == {"all_cores": True, "per_thread": True, "scaling": False}  # 1.81 < 1.85
    c = bench.compare_reference(_plan("skyscraper", 2), _res(600_000, 320_000))
    assert c["pass"] == {"all_cores": False, "per_thread": False, "scaling": True}


def test_no_reference_no_ratio():
    c = bench.compare_reference(_plan("smokestack", 4), _res(450_000, None))
    assert c["careful_numba"] is None and c["all_cores_vs_careful_numba"] is None
    assert c["per_thread"] is None and c["pass"]["per_thread"] is None and c["pass"]["scaling"] is None
    # another player count or strategy is not the setup the references were measured on
    assert bench.compare_reference(_plan("smokestack", 3), _res(450_000, 250_000)) is None
    assert bench.compare_reference(_plan("smokestack", 4, "random"), _res(450_000, 250_000)) is None


def test_search_section_reports_iterations_and_their_cost_in_games():
    """``bench.py --search``: iterations/s of ``mcts`` on one thread and on every core, for
    both rollouts, and the fast path's games per iteration computed from them."""
    rep = bench.bench_search(["crazy_eights"], 1, lambda msg: None)
    row, = rep["games"]
    for rollout in ("reference", "random"):
        assert row[rollout]["one_thread"] > 0 and row[rollout]["all_cores"] > 0
        assert row[rollout]["one_thread"] == max(row[rollout]["one_thread_runs"])
    assert row["fast_path_games_per_iteration"] == round(row["fast_path_one_thread"] / row["reference"]["one_thread"], 2)
    text = bench.render_search(rep)
    assert "crazy_eights" in text and f"{row['reference']['one_thread']:,}" in text
