

# ------------------------------------------------------------------ the CLI
def test_report_pools_and_stuck_in_summary_json(tmp_path):
    import subprocess
    import sys

    out = tmp_path / "rep"
    p = subprocess.run([sys.executable, "-m", "cardlab.cli", "report", "skyscraper", "-n", "400",
                        "--pools", "reference,mixed", "--pools-games", "300", "--out", str(out), "-q",
                        "-j", "2"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    s = json.loads((out / "summary.json").read_text())
    assert [x["pool"] for x in s["pools"]["by_pool"]] == ["reference", "mixed"]
    assert s["pools"]["games_per_pool"] == 300 and "seat0_edge" in s["pools"]["verdicts"]
    assert s["stuck"]["capped_games"] == s["unfinished_games"] and s["stuck"]["classified"] > 0
    assert "--pools reference,mixed --pools-games 300" in s["command"]
    md = (out / "report.md").read_text()
    assert "## Seat verdicts across pools" in md and "## Why games stuck" in md
    bad = subprocess.run([sys.executable, "-m", "cardlab.cli", "report", "skyscraper", "-n", "10",
                          "--pools", "reference,nosuch", "--out", str(tmp_path / "x")],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "nosuch" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
