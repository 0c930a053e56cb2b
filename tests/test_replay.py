"""The replay viewer (`cardlab replay`), the replays every report embeds and the demo
dashboard: the trace zones' visibility against sim/observe on real positions, the picks on
hand-made rows, bad input, a report's replays and links; then in a real browser (Debian's
chromium through chromedriver and selenium, one session for every test): step a replay
with the arrow keys and the buttons and read every zone back, toggle to a seat's view and
see only counts of what it cannot see, and check every panel of the `cardlab demo`
dashboard has its figures."""
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from cardlab.analysis.replay_picks import LINKS, margins, pick, sample_replays
from cardlab.analysis.report import replays_html, replays_md
from cardlab.analysis.replay_view import check_trace, read_trace, render_replay, viewer_data
from cardlab.analysis.trace_zones import cards_in, seat_view, zone_info
from cardlab.sim import runner
from cardlab.sim.errors import InputError
from cardlab.sim.observe import observation
from cardlab.sim.registry import game_ids, get_game
from cardlab.sim.trace import trace


def cardlab(*args):
    return subprocess.run([sys.executable, "-m", "cardlab.cli", *args], capture_output=True, text=True)


# ------------------------------------------------------------------ visibility
@pytest.mark.parametrize("gid", game_ids())
def test_seat_view_hides_what_the_observation_hides(gid):
    """On positions along a real game, a trace zone is hidden from a seat exactly when
    sim/observe hides its schema zone, with the same card count."""
    from cardlab.sim.testing import new_game, random_legal

    game = get_game(gid)
    setup = runner.make_setup(gid, None, None, None, 5)
    P = setup.players
    st = new_game(game, setup, 0)
    rng = np.random.default_rng(1)
    checked = 0
    for k in range(40):
        zones = game.zones(st[:game.layout.ZONES_END], P)
        for seat in range(P):
            obs = observation(game, st, seat)["zones"]
            view = seat_view(game, zones, P, seat)
            for name, value in zones.items():
                part = game.zone_part(name)
                if part is None or part.name not in obs:
                    assert not isinstance(view[name], dict) or "hidden" not in view[name]
                    continue
                blocks = list(zip(value, view[name], obs[part.name])) if part.owner else \
                    [(value, view[name], obs[part.name])]
                for full, mine, theirs in blocks:
                    hidden = isinstance(theirs, dict) and "hidden" in theirs
                    assert (isinstance(mine, dict) and "hidden" in mine) == hidden, (name, seat)
                    if hidden:
                        assert mine["hidden"] == theirs["hidden"] == len(cards_in(full)), (name, seat)
                        checked += 1
                    else:
                        assert mine == full
        act = random_legal(game, st, rng)
        if act is None:
            break
        game.model().step(st, act)
    assert checked > 0  # every shipped game hides something from someone


# ------------------------------------------------------------------ picks
def _rows(spec, players=2):
    """rows from (length, unfinished, winner mask, scores...)."""
    return np.array([[ln, u, m, *sc] for ln, u, m, *sc in spec], dtype=np.int64).reshape(len(spec), 3 + players)


def test_picks_on_hand_made_rows():
    rows = _rows([(10, 0, 1, 5, 3), (20, 0, 2, 1, 5), (30, 0, 1, 5, 4), (50, 1, 0, 2, 2),
                  (12, 0, 1, 5, 0), (90, 0, 2, 4, 5), (20, 0, 3, 5, 5)])
    got = {name: i for name, i, _ in pick(rows, 2)}
    # finished lengths 10, 20, 30, 12, 90, 20: median 20, first at game 1; game 3 capped
    assert got["typical"] == 1 and got["longest"] == 5 and got["capped"] == 3
    # single-winner margins (higher is better): games 0,1,2,4,5 -> 2,4,1,5,1; game 6 is shared
    assert got["closest"] == 2 and got["lopsided"] == 4
    # seat 0 alone won games 0, 2, 4 (lengths 10, 30, 12): the median length is game 4's
    assert got["seat0_win"] == 4
    assert margins(rows, 2)[2] == 1


def test_seat0_pick_and_no_capped_game():
    rows = _rows([(10, 0, 1, 5, 3), (30, 0, 1, 5, 4), (12, 0, 1, 5, 0), (40, 0, 2, 1, 5)])
    got = {name: i for name, i, _ in pick(rows, 2)}
    assert "capped" not in got and got["seat0_win"] == 2


def test_lower_scores_win_and_scores_that_never_differ():
    # 3UP-like: the winner has 0 cards left; margin = best other's count
    rows = _rows([(10, 0, 1, 0, 4), (10, 0, 2, 1, 0), (10, 0, 1, 0, 9)])
    idx, m, direction = margins(rows, 2)
    assert direction == -1 and list(idx) == [0, 1, 2] and list(m) == [4, 1, 9]
    # Crazy Eights scored "win": every score 0 -> no margin, no closest/lopsided
    rows = _rows([(10, 0, 1, 0, 0), (12, 0, 2, 0, 0)])
    assert margins(rows, 2)[2] == 0
    assert {n for n, _, _ in pick(rows, 2)} == {"typical", "longest", "seat0_win"}


def test_no_margin_picks_when_the_score_does_not_rank_the_winners():
    # Knock-Out Whist-like: the last seat standing wins, the score is tricks taken, so in
    # 3 of the 4 single-winner games the winner took fewer tricks than another seat
    rows = _rows([(10, 0, 8, 4, 19, 2, 8), (12, 0, 1, 9, 3, 2, 1), (11, 0, 4, 3, 12, 2, 9),
                  (14, 0, 2, 5, 6, 14, 2)], players=4)
    assert (margins(rows, 4)[1] < 0).sum() == 3
    notes: list[str] = []
    got = pick(rows, 4, "tricks", "tricks", notes)
    assert {n for n, _, _ in got} == {"typical", "longest", "seat0_win"}
    assert notes == ["No closest finish or most lopsided game: in 3 of the 4 single-winner finished games of a "
                     "4-game sample the winner scored less than another seat, so the score (tricks) does not "
                     "rank the winners."]
    # the report says it under its list of replays, in both forms
    s = {"replays": [{"name": n, "title": n, "why": why, "game_index": i, "href": f"replays/{n}.html"}
                     for n, i, why in got], "replay_notes": notes}
    assert replays_md(s)[-2:] == [notes[0], ""]
    assert replays_html(s)[-1] == f'<p class="muted">{notes[0]}</p>'
    # one such game in 20 (at most RANK_SHARE) is left out and said; never a negative "closest"
    rows = _rows([(10, 0, 1, 5, 3)] * 9 + [(10, 0, 1, 5, 4)] + [(10, 0, 1, 9, 0)] * 9 + [(10, 0, 1, 2, 7)])
    got = {n: (i, why) for n, i, why in pick(rows, 2)}
    assert got["closest"][0] == 9 and got["lopsided"][0] == 10
    assert got["closest"][1] == ("The closest finish of a 20-game sample (margin 1; 1 game in which the winner "
                                 "scored less than another seat left out): seat 0 won, score 5 against the best "
                                 "other seat's 4.")


def test_equal_margins_make_one_pick_not_two():
    # every single-winner game is won by 1; game 2 is shared
    rows = _rows([(10, 0, 1, 5, 4), (20, 0, 2, 3, 4), (30, 0, 3, 5, 5), (15, 0, 2, 7, 8)])
    notes: list[str] = []
    got = pick(rows, 2, notes=notes)
    names = [n for n, _, _ in got]
    assert "closest" in names and "lopsided" not in names and notes == []
    (i, why), = [(i, why) for n, i, why in got if n == "closest"]
    assert i == 0 and why == ("Every one of the 3 single-winner finished games of a 4-game sample was won by the "
                              "same margin, 1, so none is closer or more lopsided than another; this is the first: "
                              "seat 0 won, score 5 against the best other seat's 4.")
    # a single game with a margin: closest only
    got = pick(_rows([(10, 0, 1, 5, 2), (12, 0, 3, 4, 4)]), 2)
    assert [(n, i) for n, i, _ in got if n in ("closest", "lopsided")] == [("closest", 0)]
    assert got[-2][2].startswith("The only single-winner finished game of a 2-game sample (margin 3), so there is "
                                 "no most lopsided game apart from it")


# ------------------------------------------------------------------ bad input
def test_bad_traces_fail_in_one_line(tmp_path):
    cases = {"missing.jsonl": None, "notjson.jsonl": "{oops\n", "nohead.jsonl": '{"type": "event", "state": {}}\n',
             "cut.jsonl": '{"type": "header", "game": "crazy_eights", "players": 2}\n',
             "nogame.jsonl": '{"type": "header", "game": "chess"}\n{"type": "result"}\n'}
    for name, text in cases.items():
        if text is not None:
            (tmp_path / name).write_text(text)
        with pytest.raises(InputError, match=r"^bad trace"):
            read_trace(tmp_path / name)
    with pytest.raises(InputError, match="is a folder"):
        read_trace(tmp_path)
    p = cardlab("replay", str(tmp_path / "notjson.jsonl"), "--out", str(tmp_path / "x.html"))
    assert p.returncode == 2 and p.stderr.startswith("cardlab: error: bad trace") and len(p.stderr.splitlines()) == 1


# ------------------------------------------------------------------ a report's replays
@pytest.fixture(scope="module")
def sky_report(sky2, tmp_path_factory):
    """A small Skyscraper report with its replays (Skyscraper caps ~4% of games: the
    unfinished finding is raised and links the capped game)."""
    from cardlab.analysis.report import build_report

    out = tmp_path_factory.mktemp("sky_report")
    res = runner.run(sky2, 600, jobs=1)
    replays = sample_replays(sky2, 600, jobs=1)
    build_report(res, "cardlab report skyscraper --games 600 --out x", out, replays=replays)
    return out, replays, json.loads((out / "summary.json").read_text())


def test_report_replays_are_the_sampled_games_and_findings_link_them(sky_report, sky2):
    out, replays, s = sky_report
    names = [r["name"] for r in s["replays"]]
    assert names[:3] == ["typical", "longest", "capped"] and {"closest", "lopsided"} <= set(names)
    res = runner.run(sky2, 600, jobs=1, keep_rows=True)
    for r in s["replays"]:
        row = res.rows[r["game_index"]]
        assert (r["length"], r["unfinished"]) == (int(row[0]), bool(row[1]))
        lines = replays[names.index(r["name"])].lines
        assert lines[-1]["length"] == r["length"] and lines[-1]["winners"] == r["winners"]  # the traced game is the row's
        page = (out / r["page"]).read_text()
        assert "trace-data" in page and "<script src" not in page and "http" not in page.split("trace-data")[0]
        # the link opens the page at the replay's moment (1-based), marked on the page's strip
        assert r["moment"] is not None and r["href"] == f"{r['page']}#e={r['moment'] + 1}"
        assert f'class="strip-moment" data-step="{r["moment"]}"' in page and r["moment_why"]
    assert s["replays"][names.index("capped")]["unfinished"] is True
    capped = s["replays"][names.index("capped")]["href"]
    assert capped.startswith("replays/capped.html#e=")
    kinds = {f["kind"]: f for f in s["findings"]}
    assert "unfinished" in kinds and kinds["unfinished"]["replays"] == [capped]
    typical = s["replays"][names.index("typical")]["href"]
    for f in s["findings"]:
        assert f["replays"] and all((out / h.split("#")[0]).is_file() for h in f["replays"])
        if f["kind"] not in LINKS:
            assert f["replays"] == [typical]
    page = (out / "index.html").read_text()
    assert 'id="replays"' in page and f'class="replay-link" href="{capped}"' in page
    assert f"]({capped})" in (out / "report.md").read_text()


def test_every_game_traces_open_in_the_viewer():
    """Traces of every game (their zones, card faces and events) make a page."""
    for gid in game_ids():
        lines = trace(runner.make_setup(gid, None, None, None, 2), 0)
        check_trace(lines)
        d = viewer_data(lines)
        assert len(d["events"]) == len(lines) - 2 and all(len(e["texts"]) == d["players"] + 1 for e in d["events"])
        codes = set(cards_in([e["state"] for e in lines[1:-1]]))
        assert set(d["faces"]) == codes
        if gid in ("crazy_eights", "smokestack"):  # suits in colour
            assert {f["c"] for f in d["faces"].values()} == {"suit-S", "suit-H", "suit-D", "suit-C"}
        assert "</script>" not in render_replay(lines).split('id="trace-data">')[1].split("</script>")[0]
        # a seat's words hide what `cardlab play` hides from that seat (its seen_cards rule)
        from cardlab.play import mask_event, seen_cards
        from cardlab.analysis.play_words import describe_event
        from cardlab.analysis.visibility import unique_deck

        events, P = lines[1:-1], d["players"]
        unique = unique_deck(get_game(gid), events[0]["state"])
        assert unique == (gid not in ("skyscraper", "three_up")), gid  # one card per code but in these two
        for s in range(P):
            for k in range(min(40, len(events))):
                before = seat_view(get_game(gid), events[k - 1]["state"], P, s) if k else {}
                after = seat_view(get_game(gid), events[k]["state"], P, s)
                want = describe_event(mask_event(events[k], codes, seen_cards(before, after, unique)), s, d["labels"])
                assert d["events"][k]["texts"][s + 1] == want


# ------------------------------------------------------------------ the browser
def _find(names, fallback):
    for n in names:
        p = shutil.which(n)
        if p:
            return p
    return fallback if os.path.exists(fallback) else None


@pytest.fixture(scope="session")
def browser():
    """One headless chromium session driven by chromedriver for every browser test; skips
    with the reason when selenium, chromium or chromedriver is missing (.ci/run installs
    them as root)."""
    try:
        from selenium import webdriver
        from selenium.common.exceptions import WebDriverException
    except ImportError:
        pytest.skip("selenium is not installed (pip install -e '.[test]')")
    chromium = _find(("chromium", "chromium-browser"), "/usr/bin/chromium")
    driver = _find(("chromedriver",), "/usr/bin/chromedriver")
    if not chromium or not driver:
        pytest.skip("chromium and chromedriver are needed (apt-get install -y chromium chromium-driver; "
                    ".ci/run installs them as root)")
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--window-size=1200,1000", "--disable-extensions", "--no-first-run"):
        opts.add_argument(a)
    try:
        d = webdriver.Chrome(options=opts, service=webdriver.ChromeService(executable_path=driver))
    except WebDriverException as e:
        pytest.skip(f"cannot start chromium through chromedriver: {str(e.msg or e).splitlines()[0]}")
    d.set_page_load_timeout(60)
    yield d
    d.quit()


READ_ZONES = """return Array.from(document.querySelectorAll('.zone')).map(function (z) {
  return {zone: z.dataset.zone, seat: z.dataset.seat === '' ? null : parseInt(z.dataset.seat, 10),
          hidden: z.dataset.hidden === undefined ? null : parseInt(z.dataset.hidden, 10),
          cards: Array.from(z.querySelectorAll('.card')).map(function (c) { return c.dataset.card; })};
});"""


def _expected(game, state, players, seat):
    """The zones the page must show: (zone, seat, hidden count or None, cards)."""
    view = seat_view(game, state, players, seat)
    d = zone_info(game, state, players)
    out = []
    for name, v in view.items():
        blocks = list(enumerate(v)) if d[name]["per_seat"] else [(None, v)]
        for s, b in blocks:
            hid = b["hidden"] if isinstance(b, dict) and set(b) == {"hidden"} else None
            out.append((name, s, hid, [] if hid is not None else cards_in(b)))
    return sorted(out, key=lambda x: (x[1] is not None, -1 if x[1] is None else x[1], x[0]))


def _shown(driver):
    got = [(z["zone"], z["seat"], z["hidden"], z["cards"]) for z in driver.execute_script(READ_ZONES)]
    return sorted(got, key=lambda x: (x[1] is not None, -1 if x[1] is None else x[1], x[0]))


def test_replay_steps_and_shows_every_zone_in_the_browser(browser, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    src = tmp_path / "c8.jsonl"
    p = cardlab("trace", "crazy_eights", "--seed", "7", "--out", str(src))
    assert p.returncode == 0, p.stderr
    page = tmp_path / "c8.html"
    p = cardlab("replay", str(src), "--out", str(page))
    assert p.returncode == 0 and page.is_file(), p.stderr
    lines = read_trace(src)
    events, game, P = lines[1:-1], get_game("crazy_eights"), lines[0]["players"]
    d = browser
    d.get(page.as_uri())
    step = lambda: int(d.find_element(By.ID, "pos").get_attribute("data-step"))  # noqa: E731
    assert step() == 0 and _shown(d) == _expected(game, events[0]["state"], P, None)
    assert not d.find_elements(By.ID, "strip")  # a trace file alone has no progress series: no strip
    body = d.find_element(By.TAG_NAME, "body")
    for _ in range(6):
        body.send_keys(Keys.ARROW_RIGHT)
    assert step() == 6
    for _ in range(4):
        d.find_element(By.ID, "fwd").click()
    assert step() == 10
    assert _shown(d) == _expected(game, events[10]["state"], P, None)
    assert d.find_element(By.ID, "event").text == viewer_data(lines)["events"][10]["texts"][0]
    body.send_keys(Keys.ARROW_LEFT)
    d.find_element(By.ID, "back").click()
    assert step() == 8 and _shown(d) == _expected(game, events[8]["state"], P, None)
    cards = [c.text for c in d.find_elements(By.CSS_SELECTOR, ".card.suit-H")]
    assert cards and all(c.endswith("\u2665") for c in cards)  # hearts drawn as hearts, in their colour
    assert d.find_element(By.CSS_SELECTOR, ".card.suit-H").value_of_css_property("color") == "rgba(192, 24, 42, 1)"

    # what seat 1 sees: its own hand, every other hand and the stock as counts only
    Select(d.find_element(By.ID, "view")).select_by_value("1")
    assert d.find_element(By.ID, "view").get_attribute("data-seat") == "1"
    shown = _shown(d)
    assert shown == _expected(game, events[8]["state"], P, 1)
    hidden = {(z, s) for z, s, h, _ in shown if h is not None}
    assert hidden == {("stock", None)} | {("hands", s) for s in range(P) if s != 1}
    for z, s, h, c in shown:
        if (z, s) in hidden:
            assert c == [] and h == len(cards_in(events[8]["state"][z] if s is None else events[8]["state"][z][s]))
    body.send_keys(Keys.END)
    assert step() == len(events) - 1 and _shown(d) == _expected(game, events[-1]["state"], P, 1)
    assert d.find_element(By.ID, "result").is_displayed()
    body.send_keys(Keys.HOME)
    d.find_element(By.ID, "play").click()  # plays on by itself
    import time

    time.sleep(1.5)
    assert step() >= 2


def test_report_replay_page_in_the_browser(browser, sky_report):
    """A report's replay (Skyscraper: towers of floors, a hidden hand) opened from its link."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    out, replays, s = sky_report
    r = next(x for x in replays if x.name == "typical")
    d = browser
    d.get((out / "index.html").as_uri())
    d.find_element(By.CSS_SELECTOR, '#replays li[data-replay="typical"] a').click()
    assert d.current_url.endswith(f"replays/typical.html#e={r.moment.event + 1}")  # opens at its moment
    assert d.find_element(By.ID, "pos").get_attribute("data-step") == str(r.moment.event)
    events, game, P = r.lines[1:-1], get_game("skyscraper"), 2
    n = min(25, len(events) - 1)
    body = d.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.HOME)
    for _ in range(n):
        body.send_keys(Keys.ARROW_RIGHT)
    assert _shown(d) == _expected(game, events[n]["state"], P, None)
    assert d.find_element(By.ID, "why").text.startswith("Its length")


def test_replay_opens_at_its_moment_with_a_strip_in_the_browser(browser, sky_report):
    """A report's comeback (else closest) replay opened at its link's ``#e=N``: the position
    is event N, the strip has a line per seat and its marker follows the steps, a click on
    the strip jumps to the event under it, the moment's link and a new address jump back."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    out, replays, s = sky_report
    r = next(x for x in replays if x.name in ("comeback", "closest") and x.moment is not None)
    N, m = len(r.lines) - 2, r.moment.event
    assert r.href.endswith(f"#e={m + 1}")
    d = browser
    d.get((out / r.page).as_uri() + f"#e={m + 1}")
    step = lambda: int(d.find_element(By.ID, "pos").get_attribute("data-step"))  # noqa: E731
    marker = lambda: int(d.find_element(By.ID, "strip-marker").get_attribute("data-step"))  # noqa: E731
    assert step() == m == marker()
    strip = d.find_element(By.ID, "strip")
    assert strip.get_attribute("data-events") == str(N) and strip.get_attribute("data-seats") == "2"
    lines = d.find_elements(By.CSS_SELECTOR, "#strip .strip-line")
    assert sorted(x.get_attribute("data-seat") for x in lines) == ["0", "1"]
    assert str(m) in [x.get_attribute("data-step") for x in d.find_elements(By.CSS_SELECTOR, ".strip-moment")]
    vals = [int(x.text) for x in d.find_elements(By.CSS_SELECTOR, ".strip-val")]
    assert vals == [v[m] for v in r.story.values]  # each seat's progress at the event shown
    assert strip.size["width"] > 500 and strip.size["height"] > 40
    d.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_LEFT)
    assert step() == m - 1 == marker()
    # a click a fifth of the way along the strip: the event there (pad 6 of 1000 each side)
    w = strip.size["width"]
    ActionChains(d).move_to_element_with_offset(strip, int(w * 0.2 - w / 2), 0).click().perform()
    want = round((0.2 * 1000 - 6) / (1000 - 12) * (N - 1))
    assert abs(step() - want) <= 1 and marker() == step() != m - 1
    d.find_element(By.CSS_SELECTOR, f'.moment-link[data-step="{m}"]').click()
    assert step() == m == marker()
    from selenium.webdriver.support.ui import WebDriverWait

    d.execute_script("location.hash = '#e=3'")  # a new address names another moment
    WebDriverWait(d, 5).until(lambda _: step() == 2)
    assert marker() == 2


def test_demo_dashboard_panels_in_the_browser(browser, demo_out):
    """Every game's panel of the real `cardlab demo` page has its figures and plots, and
    its numbers are the report's."""
    from selenium.webdriver.common.by import By

    d = browser
    d.get((demo_out / "index.html").as_uri())
    panels = d.find_elements(By.CSS_SELECTOR, "section.panel")
    assert [p.get_attribute("data-game") for p in panels] == game_ids()
    for p in panels:
        gid = p.get_attribute("data-game")
        s = json.loads((demo_out / gid / "summary.json").read_text())
        keys = [r.get_attribute("data-key") for r in p.find_elements(By.CSS_SELECTOR, "table.figures tr")]
        assert {"win_rate_by_seat", "balance", "unfinished_rate", "length"} <= set(keys), gid
        cell = p.find_element(By.CSS_SELECTOR, 'tr[data-key="win_rate_by_seat"] td')
        assert json.loads(cell.get_attribute("data-value")) == s["win_rate_by_seat"]
        plots = {svg.get_attribute("data-plot"): svg for svg in p.find_elements(By.CSS_SELECTOR, "svg.plot")}
        assert set(plots) == {"seats", "length", "skill"}, gid
        pts = plots["seats"].find_elements(By.CSS_SELECTOR, "g.pt")
        assert [float(g.get_attribute("data-rate")) for g in pts] == pytest.approx(s["win_rate_by_seat"], rel=1e-5)
        assert all(svg.size["width"] > 200 and svg.size["height"] > 100 for svg in plots.values())
        assert plots["length"].find_elements(By.CSS_SELECTOR, "rect.bar")
        assert len(plots["skill"].find_elements(By.CSS_SELECTOR, "g.pt")) == len(s["ladder"]["curve"])
        assert p.find_element(By.CSS_SELECTOR, "a.full").get_attribute("href").endswith(f"{gid}/index.html")
        links = p.find_elements(By.CSS_SELECTOR, "p.replays a")
        assert links and all((demo_out / gid / "replays" / a.get_attribute("href").split("#")[0].rsplit("/", 1)[1])
                             .is_file() for a in links)
        n_find = len(s["findings"])
        assert len(p.find_elements(By.CSS_SELECTOR, "ul.findings li")) == n_find
        assert len(p.find_elements(By.CSS_SELECTOR, "ul.findings a.replay-link")) == sum(
            len(f["replays"]) for f in s["findings"])
    rows = d.find_elements(By.CSS_SELECTOR, "#overview tr[data-game]")
    assert len(rows) == len(game_ids())


_IMPORTED = time.time()  # before this module's browser session started


def _written_since(root, since):
    if not root.is_dir():
        return []
    return [str(p) for p in root.rglob("*") if p.lstat().st_mtime > since]


def test_the_browser_keeps_its_settings_out_of_the_home(browser, tmp_path):
    """Chromium keeps crash-report settings, a profile and dconf settings under
    XDG_CONFIG_HOME, XDG_CACHE_HOME and XDG_RUNTIME_DIR (the user's ~/.config and ~/.cache
    unless set); tests/conftest.py points them at a temporary folder.  The session's
    browser (started after this module was imported) wrote its settings there, and on CI
    (CI=true, where no other browser runs) nothing new appeared where it used to write them
    in the home (~/.config/chromium, ~/.config/chromium-headless, ~/.cache/dconf).  Last in
    the module: after every browser test of it."""
    page = tmp_path / "page.html"
    page.write_text("<html><body><p id='p'>ok</p></body></html>")
    browser.get(page.as_uri())
    assert browser.execute_script("return document.getElementById('p').textContent") == "ok"
    home, config = Path.home(), Path(os.environ["XDG_CONFIG_HOME"])
    assert not config.is_relative_to(home)
    assert (config / "chromium").is_dir()  # the browser followed the setting
    if os.environ.get("CI") == "true":
        written = [p for root in (home / ".config" / "chromium", home / ".config" / "chromium-headless",
                                  home / ".cache" / "dconf") for p in _written_since(root, _IMPORTED)]
        assert written == [], written
