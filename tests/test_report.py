"""Reports: the files `cardlab report` writes, the verdict's numbers, bad --out, the demo
index, and a headless Chromium check that every image of index.html is visible."""
import base64
import html
import json
import re
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from browser import CHECK_SCRIPT, _chromium, chromium  # noqa: F401 (chromium: the fixture)

from cardlab.analysis import plots
from cardlab.analysis.report import (_pts, build_report, details, render_html, verdict,
                                    write_demo_index)
from cardlab.analysis.summary import summarize

GAMES = 3000
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
IMG_RE = re.compile(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)"')


def cardlab(*args):
    return subprocess.run([sys.executable, "-m", "cardlab.cli", *args], capture_output=True, text=True)


@pytest.fixture(scope="module")
def run2(sky2):
    from cardlab.sim import runner

    return runner.run(sky2, GAMES, jobs=2)


@pytest.fixture(scope="module")
def report(run2, tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    cmd = f"cardlab report skyscraper --games {GAMES} --players 2 --seed 1 --out {out}"
    paths = build_report(run2, cmd, out)
    return SimpleNamespace(out=out, paths=paths, cmd=cmd, summary=summarize(run2))


# ------------------------------------------------------------------ files
def test_report_files_exist(report):
    for name in ("index.html", "report.md", "seats.csv", "lengths.csv", "card_power.csv",
                 "ends.csv", "summary.json"):
        assert (report.out / name).is_file(), name
        assert report.paths[name] == report.out / name


def test_html_is_self_contained_with_embedded_pngs(report):
    page = (report.out / "index.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    imgs = IMG_RE.findall(page)
    assert len(imgs) == 5  # seats, length, survival, decided point, card power
    assert "The shape of the game" in page and "comeback rate" in page
    for b64 in imgs:
        png = base64.b64decode(b64)
        assert png.startswith(PNG_MAGIC) and len(png) > 5000
    # nothing fetched from elsewhere: no external scripts, styles or images
    assert not re.search(r'<(script|link)\b', page)
    assert not re.search(r'src="(?!data:)', page)
    assert page.count("<img") == len(imgs)
    js = json.loads((report.out / "summary.json").read_text())
    assert js["first_screen"] and all(html.escape(h["text"]) in page for h in js["first_screen"])
    assert html.escape(js["verdict_detail"]) in page  # the paragraph stays, below the headlines
    assert report.cmd in page


def test_csvs_parse_with_the_right_columns(report):
    s = report.summary
    seats = pd.read_csv(report.out / "seats.csv")
    assert {"seat", "strategy", "win_rate", "ci_low", "ci_high"} <= set(seats.columns)
    assert list(seats.seat) == [0, 1]
    assert np.allclose(seats.win_rate, s["win_rate_by_seat"])
    assert (seats.ci_low <= seats.win_rate).all() and (seats.win_rate <= seats.ci_high).all()

    lengths = pd.read_csv(report.out / "lengths.csv")
    assert list(lengths.columns[:4]) == ["length", "games", "share", "survival"]
    # finished games by length; the capped ones apart, in their own column
    assert lengths.games.sum() + lengths.capped.sum() == GAMES
    assert lengths.capped.sum() == s["unfinished_games"] and lengths.games.sum() == s["length"]["games"]
    assert np.allclose(lengths.share.sum(), 1.0)
    assert np.all(np.diff(lengths.survival) <= 1e-12)  # a survival curve never rises
    assert np.allclose(lengths.survival, 1 - np.cumsum(lengths.share))
    assert lengths.survival.iloc[-1] == pytest.approx(0, abs=1e-12)

    cp = pd.read_csv(report.out / "card_power.csv")
    for col in ("card", "strategy", "iwd", "iwd_ci_low", "iwd_ci_high", "real", "gih_wr", "gns_wr"):
        assert col in cp.columns
    pooled = cp[cp.strategy == "all"]
    assert len(pooled) == len(s["card_power"])
    assert list(pooled.iwd) == sorted(pooled.iwd, reverse=True)
    by_card = {c["card"]: c["iwd"] for c in s["card_power"]}
    assert np.allclose([by_card[c] for c in pooled.card], pooled.iwd, atol=1e-6)
    assert set(cp.real) <= {True, False}

    ends = pd.read_csv(report.out / "ends.csv")
    assert list(ends.columns[:3]) == ["end", "games", "rate"]
    assert ends.games.sum() == GAMES
    assert dict(zip(ends.end, ends.games)) == s["end_conditions"]

    js = json.loads((report.out / "summary.json").read_text())
    assert js["win_rate_by_seat"] == s["win_rate_by_seat"]
    assert js["command"] == report.cmd and js["verdict"] == verdict(s)


def test_markdown_has_verdict_figures_and_reproduce(report):
    md = (report.out / "report.md").read_text()
    js = json.loads((report.out / "summary.json").read_text())
    assert all(h["text"] in md for h in js["first_screen"]) and js["verdict_detail"] in md
    assert report.cmd in md
    assert "association, not cause" in md
    for name in ("seats", "length", "survival", "card_power"):
        assert f"]({name}.png)" in md
        assert (report.out / f"{name}.png").read_bytes().startswith(PNG_MAGIC)
    tail = md[md.index("## Reproduce"):]
    assert "seed" in tail and "cardlab version" in tail and "floors_to_win" in tail


# ------------------------------------------------------------------ verdict numbers
def test_verdict_numbers_match_summary(report):
    s = report.summary
    v = details(s)
    rate, ci = s["win_rate_by_seat"][0], s["win_rate_ci_by_seat"][0]
    assert f"wins {100 * rate:.1f}% ± {100 * (ci[1] - ci[0]) / 2:.1f}% of 2-player games" in v
    if s["no_winner_rate"] >= 0.001:
        assert f"{100 * s['no_winner_rate']:.1f}% of games have no winner" in v
        f, ci = s["first_player_advantage_decided"], s["first_player_advantage_decided_ci"]
        assert "Among games with a winner there is" in v
    else:
        f, ci = s["first_player_advantage"], s["first_player_advantage_ci"]
    assert f"{_pts(f)} points" in v and abs(float(_pts(f)) - 100 * f) < 0.051
    assert f"95% interval {_pts(ci[0])} to {_pts(ci[1])}" in v
    best = max((c for c in s["card_power"] if c["iwd"] is not None), key=lambda c: c["iwd"])
    assert f"largest IWD is {best['card']} ({100 * best['iwd']:+.1f} points)" in v
    if s["unfinished_rate"] >= 0.001:
        assert f"{100 * s['unfinished_rate']:.1f}% of games hit the length cap" in v
    gap = s["seat_differences"][0]
    real = gap["ci"][0] > 0 or gap["ci"][1] < 0
    assert ("within noise" in v.split("IWD")[0]) != real
    assert "association, not cause" in v


def _fake(rates, cis, fpa, fpa_ci, gaps, unfinished=0.0, players=2, strategies=None):
    return {"game": "g", "games": 1_000_000, "players": players, "seed": 1,
            "rules": {"max_turns": 500}, "strategies": strategies or ["reference"] * players,
            "win_rate_by_seat": rates, "win_rate_ci_by_seat": cis,
            "no_winner_rate": unfinished, "unfinished_rate": unfinished,
            "first_player_advantage": fpa, "first_player_advantage_ci": fpa_ci,
            "seat_differences": gaps, "balance": 1 - max(abs(g["diff"]) for g in gaps),
            "win_rate_by_strategy": {}, "length": {"unit": "turns"},
            "card_power": [{"card": "A", "iwd": 0.01, "iwd_ci": [-0.01, 0.03]},
                           {"card": "B", "iwd": 0.05, "iwd_ci": [0.04, 0.06]}]}


def test_verdict_clear_advantage_and_real_difference():
    s = _fake([0.542, 0.458], [[0.539, 0.545], [0.455, 0.461]], 0.042, [0.039, 0.045],
              [{"seats": [0, 1], "diff": 0.084, "ci": [0.08, 0.088]}])
    v = details(s)
    assert "Seat 0 (the first player) wins 54.2% ± 0.3% of 2-player games" in v
    assert "a clear first-player advantage of +4.2 points" in v
    assert "seat difference is real" in v and "+8.4 points [+8.0, +8.8]" in v
    assert "hit the length cap" not in v  # no unfinished games: not mentioned
    assert "largest IWD is B (+5.0 points)" in v and "(within noise)" not in v


def test_verdict_within_noise_and_unfinished():
    s = _fake([0.4, 0.399], [[0.399, 0.401], [0.398, 0.4]], 0.0, [-0.002, 0.002],
              [{"seats": [0, 1], "diff": 0.001, "ci": [-0.001, 0.003]}], unfinished=0.201)
    v = details(s)
    assert "no detectable first-player advantage" in v
    assert "within noise" in v
    assert "20.1% of games hit the length cap (500 turns)" in v
    assert "-0.0" not in v


def test_html_escapes_text(report):
    s = dict(report.summary, strategies=["<b>x</b>", "a&b"])
    page = render_html(s, "v <i>", [], "cardlab report 'x' <y>")
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page
    assert "a&amp;b" in page and "v &lt;i&gt;" in page and "&lt;y&gt;" in page


# ------------------------------------------------------------------ figures and hooks
def test_plots_leave_no_pyplot_figures():
    from matplotlib._pylab_helpers import Gcf

    before = Gcf.get_num_fig_managers()
    hist = np.array([0, 0, 5, 10, 4, 1, 0, 2])
    for png in (plots.seat_win_rates([0.5, 0.4], [[0.45, 0.55], [0.35, 0.45]], ["a", "b"], 0.1),
                plots.length_histogram(hist, cap=7), plots.survival_curve(hist, cap=7),
                plots.card_power_forest(["A", "B"], [0.1, -0.02], [0.05, -0.05], [0.15, 0.01])):
        assert png.startswith(PNG_MAGIC)
    assert Gcf.get_num_fig_managers() == before
    assert np.allclose(plots.survival(hist), 1 - np.cumsum(hist) / hist.sum())


def test_tournament_hook(run2, tmp_path):
    m = pd.DataFrame([[0.5, 0.6], [0.4, 0.5]], index=["reference", "greedy"],
                     columns=["reference", "greedy"])
    t = SimpleNamespace(matrix=m, ratings=pd.DataFrame({"rating": [1, 0]}, index=m.index),
                        verdict="reference dominates")
    paths = build_report(run2, "cardlab report skyscraper", tmp_path, tournament=t)
    page = paths["index.html"].read_text()
    assert len(IMG_RE.findall(page)) == 6 and "reference dominates" in page
    assert (tmp_path / "tournament.png").read_bytes().startswith(PNG_MAGIC)
    assert "tournament_matrix.csv" in paths


# ------------------------------------------------------------------ CLI
def test_cli_report_and_bad_out(tmp_path):
    out = tmp_path / "rep"
    p = cardlab("report", "skyscraper", "-n", "2000", "-p", "3", "--seed", "5",
                "--set", "floors_to_win=4", "--strong", "none", "--out", str(out))
    assert p.returncode == 0, p.stderr
    md = (out / "report.md").read_text()
    cmd = (f"cardlab report skyscraper --games 2000 --players 3 --seed 5 --set floors_to_win=4 "
           f"--causal-games 200 --strong none --out {out}")  # causal card power is on by default
    assert cmd in md
    js = json.loads((out / "summary.json").read_text())
    assert js["players"] == 3 and js["rules"]["floors_to_win"] == 4 and js["seed"] == 5

    afile = tmp_path / "afile"
    afile.write_text("x")
    for bad in (afile, afile / "sub"):
        p = cardlab("report", "skyscraper", "-n", "100", "--out", str(bad))
        assert p.returncode == 2
        assert p.stderr.startswith("cardlab: error: bad --out") and len(p.stderr.splitlines()) == 1
        assert "Traceback" not in p.stderr
    p = cardlab("report", "nosuchgame", "--out", str(tmp_path / "x"))
    assert p.returncode == 2 and "Traceback" not in p.stderr


def test_cli_demo_writes_index(demo_out):
    out = demo_out
    page = (out / "index.html").read_text()
    from cardlab.sim.registry import game_ids, get_game

    for gid in game_ids():
        assert f'href="{gid}/index.html"' in page
        sub = (out / gid / "index.html").read_text()
        assert len(IMG_RE.findall(sub)) >= 5 and 'id="ladder-verdict"' in sub  # the small ladder too
        summ = json.loads((out / gid / "summary.json").read_text())
        lad = summ["ladder"]
        assert lad["rungs"][-2:] == ["mcts:iterations=16", "mcts:iterations=64"] and lad["games"] == 2
        assert isinstance(summ["findings"], list) and summ["causal_card_power"]["games"] == 200
        assert 'id="findings"' in sub
        # the strong pool classifies every headline; the panel opens with them
        strong = summ["pools"]["strong"]
        assert strong["games"] == 9 and strong["player"] == get_game(gid).strong_player and "luck" not in summ
        assert "--pools-games 2000 " in summ["command"] and "--variant-games 2000 " in summ["command"]
        P = summ["players"]  # 6 games per heuristic: ceil(6 / P) game indices in each seat
        assert all(x["games"] == P * -(-6 // P) for x in summ["pools"]["strong"]["strength"])
        first = summ["first_screen"]
        assert 1 <= len(first) <= 5 and summ["verdict"] == " ".join(h["text"] for h in first)
        panel = page.split(f'id="game-{gid}"')[1].split("</section>")[0]
        assert panel.count('<li class="headline ') == len(first)
        assert all(html.escape(h["class_words"]) in panel for h in first)
        assert "--strong-games 9" in summ["command"] and "--strength-games 6" in summ["command"]
    assert page.count('class="ladder"') == len(game_ids())
    assert 'class="findings"' in page  # Skyscraper's capped games at least


def test_report_with_the_skill_ladder_and_restricted_play(tmp_path):
    out = tmp_path / "r"
    p = cardlab("report", "crazy_eights", "-n", "300", "--pools", "none", "--strong", "none", "--ladder",
                "--ladder-budgets", "4,8", "--ladder-games", "6", "--out", str(out), "--quiet")
    assert p.returncode == 0, p.stderr
    s = json.loads((out / "summary.json").read_text())
    assert [c["rung"] for c in s["ladder"]["curve"]][-2:] == ["mcts:iterations=4", "mcts:iterations=8"]
    names = {r["never"] for r in s["restricted"]["restrictions"]}
    assert {"8", "draw"} <= names and s["restricted"]["games"] == 6
    page = (out / "index.html").read_text()
    assert 'id="ladder-verdict"' in page and 'id="restricted-verdict"' in page and 'alt="Skill curve"' in page
    assert (out / "skill_curve.png").exists()
    assert "--ladder --ladder-budgets 4,8 --ladder-games 6 --out" in s["command"]
    p = cardlab("report", "crazy_eights", "-n", "300", "--ladder", "--ladder-budgets", "8,4", "--out", str(out))
    assert p.returncode == 2 and "bad --budgets" in p.stderr
    p = cardlab("report", "crazy_eights", "-n", "300", "--ladder", "--ladder-games", "0", "--out", str(out))
    assert p.returncode == 2 and p.stderr.startswith("cardlab: error: bad --ladder-games 0")


def test_demo_index_escapes(tmp_path):
    p = write_demo_index([{"game": "g<1>", "title": "T", "href": "g/index.html", "verdict": "a<b"}],
                         tmp_path)
    page = p.read_text()
    assert "g&lt;1&gt;" in page and "a&lt;b" in page and 'href="g/index.html"' in page


# ------------------------------------------------------------------ headless Chromium
def test_every_image_visible_in_headless_chromium(report, chromium, tmp_path):
    page = (report.out / "index.html").read_text()
    n_imgs = len(IMG_RE.findall(page))
    probe = tmp_path / "probe.html"  # the report plus a script that reports every image
    probe.write_text(page.replace("</body>", CHECK_SCRIPT + "</body>"))
    p = _chromium(chromium, "--virtual-time-budget=5000", "--dump-dom", probe.as_uri())
    m = re.search(r'<div id="imgcheck" data-total="(\d+)" data-broken="(\d+)" data-widths="([\d,]*)"',
                  p.stdout)
    assert m, f"chromium did not run the check (rc {p.returncode}): {p.stderr[-800:]}"
    total, broken, widths = int(m[1]), int(m[2]), [int(w) for w in m[3].split(",") if w]
    assert total == n_imgs == 5 and broken == 0
    assert all(w > 300 for w in widths)

    # and the unmodified page really paints: a screenshot that is not blank
    shot = tmp_path / "shot.png"
    p = _chromium(chromium, "--window-size=1000,2400", f"--screenshot={shot}",
                  (report.out / "index.html").as_uri())
    assert shot.is_file(), p.stderr[-800:]
    from matplotlib.image import imread

    img = imread(shot)
    assert img.shape[0] >= 2000 and img.shape[1] >= 900
    assert img[..., :3].std() > 0.05  # not a blank page


def test_report_compares_the_games_rule_variants(tmp_path):
    """Smokestack's report plays the other stall rule on the same seeds and shows both
    unfinished rates (the default shuffle-back rule can stall; discard never does)."""
    import json as _json
    import subprocess
    import sys

    out = tmp_path / "smoke"
    p = subprocess.run([sys.executable, "-m", "cardlab.cli", "report", "smokestack", "-n", "3000",
                        "--strong", "none", "--out", str(out), "-q"], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    s = _json.loads((out / "summary.json").read_text())
    assert set(s["variants"]) == {"stall_removed=discard"}
    assert s["variants"]["stall_removed=discard"]["unfinished_rate"] == 0
    assert s["variants"]["stall_removed=discard"]["games"] == s["games"]
    md = (out / "report.md").read_text()
    assert "## Rule variants" in md and "as run (stall_removed=shuffle)" in md
    assert "Rule variants" in (out / "index.html").read_text()


def test_variant_tables_show_spread_and_card_power_per_variant():
    """The rule-variant section: each variant's win-rate spread, and every card's IWD per
    variant, taken from the variant's own summary (3UP 3DOWN: the two decks)."""
    from cardlab.analysis.report import variant_card_rows, variant_rows
    from cardlab.analysis.summary import summarize
    from cardlab.sim import runner
    from cardlab.sim.runner import make_setup

    s = summarize(runner.run(make_setup("three_up", 4, None, None, 2), 3000, jobs=1))
    v = summarize(runner.run(make_setup("three_up", 4, ["deck=published84"], None, 2), 3000, jobs=1))
    rows = variant_rows(s, [("deck=published84", v)])
    spread = max(v["win_rate_by_seat"]) - min(v["win_rate_by_seat"])
    assert rows[0][0] == "as run (deck=seed74)" and rows[1][6] == f"{100 * spread:.1f} points"
    head, cards = variant_card_rows(s, [("deck=published84", v)])
    assert head == ("card", "as run (deck=seed74)", "deck=published84 (unverified deck)")
    by = {c["card"]: c for c in v["card_power"]}
    clr2 = next(r for r in cards if r[0] == "CLR2")
    assert clr2[2].startswith(f"{100 * by['CLR2']['iwd']:+.1f}")
    assert len(cards) == len([c for c in s["card_power"] if c["iwd"] is not None])


def test_the_unverified_deck_carries_its_caveat_in_the_variant_tables():
    """Issue 34: 3UP's published84 deck is an unverified composition; wherever the report's
    rule-variant tables show it (a variant, or the run's own deck) its label is tagged and
    the caveat is printed under the table, in report.md and index.html."""
    from cardlab.analysis.report import render_html, render_md, variant_notes, variant_rows
    from cardlab.analysis.summary import summarize
    from cardlab.sim import runner
    from cardlab.sim.runner import make_setup

    s = summarize(runner.run(make_setup("three_up", 4, None, None, 2), 300, jobs=1))
    v = summarize(runner.run(make_setup("three_up", 4, ["deck=published84"], None, 2), 300, jobs=1))
    variants = [("deck=published84", v)]
    rows = variant_rows(s, variants)
    assert [r[0] for r in rows] == ["as run (deck=seed74)", "deck=published84 (unverified deck)"]
    notes = variant_notes(s, variants)
    assert len(notes) == 1 and "unverified composition" in notes[0] and "what-if" in notes[0]
    md = render_md(s, "verdict", [], "cmd", variants=variants)
    html_text = render_html(s, "verdict", [], "cmd", variants=variants)
    for text in (md, html_text):
        table_at = text.index("Rule variants")
        assert text.index("unverified composition", table_at) > text.index("deck=published84 (unverified deck)")
    # the run on published84 itself, compared with seed74: its "as run" row carries it
    back = [("deck=seed74", s)]
    rows = variant_rows(v, back)
    assert [r[0] for r in rows] == ["as run (deck=published84) (unverified deck)", "deck=seed74"]
    assert variant_notes(v, back) == notes
    # a table without the deck says nothing of it
    assert variant_notes(s, [("deck=seed74", s)]) == []



def test_the_reproduce_command_keeps_an_explicit_no_causal_and_a_game_without_give_defaults_to_none(monkeypatch):
    """``report_command``: ``--causal-games 0`` stays in the command when the report would
    otherwise play causal games (the printed command re-made the report with them), and is
    left out where 0 is the default.  A game whose schema declares no ``S.give`` (a seat
    starts with no cards: No Thanks!) plays none by default, and an explicit request is one
    line naming why, before any game."""
    from cardlab.analysis import pipeline
    from cardlab.sim.errors import InputError
    from cardlab.sim.registry import get_game

    cmd = pipeline.report_command("skyscraper", 1000, None, 1, None, None, "out", causal_games=0, causal_default=200)
    assert "--causal-games 0 --out out" in cmd
    assert "--causal-games" not in pipeline.report_command("skyscraper", 1000, None, 1, None, None, "out")
    assert "--causal-games 200" in pipeline.report_command("skyscraper", 1000, None, 1, None, None, "out",
                                                           causal_games=200, causal_default=200)
    schema = get_game("skyscraper").schema
    monkeypatch.setattr(schema, "give_start", ())
    with pytest.raises(InputError, match=r"--causal-games 5: game 'skyscraper' does not say where a card can be "
                       r"given \(its schema declares no S.give\), so it has no causal card power: use 0"):
        pipeline.run_report("skyscraper", 10, 2, 1, None, None, None, causal_games=5, quiet=True)
