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
