"""The command line: listings, the JSON contract, traces, and one clear line + exit 2
for every kind of bad input."""
import json
import subprocess
import sys

import pytest


def cardlab(*args, check=True):
    p = subprocess.run([sys.executable, "-m", "cardlab.cli", *args], capture_output=True, text=True)
    if check:
        assert p.returncode == 0, p.stderr
    return p


def test_listings():
    assert "skyscraper" in cardlab("games").stdout
    rules = cardlab("rules", "skyscraper").stdout
    for knob in ("floors_to_win", "dog_moves_up", "max_turns", "floor_sum", "skips_stack"):
        assert knob in rules
    strats = cardlab("strategies", "skyscraper", "--json").stdout
    names = [s["name"] for s in json.loads(strats)]
    assert names == ["reference", "random", "greedy", "aggressive", "defensive", "mcts", "learned"]


def test_simulate_json_contract():
    p = cardlab("simulate", "skyscraper", "--games", "300", "--players", "3", "--seed", "7",
                "--strategies", "greedy,aggressive:lead_margin=1", "--set", "floors_to_win=4",
                "--json")
    s = json.loads(p.stdout)
    for key in ("game", "games", "players", "seed", "rules", "strategies", "win_rate_by_seat",
                "win_rate_ci_by_seat", "no_winner_rate", "unfinished_rate", "length",
                "card_power", "elapsed_s", "games_per_second"):
        assert key in s
    assert s["games"] == 300 and s["players"] == 3 and s["seed"] == 7
    assert s["rules"]["floors_to_win"] == 4
    assert s["strategies"] == ["greedy", "aggressive:lead_margin=1", "greedy"]
    assert sum(s["win_rate_by_seat"]) + s["no_winner_rate"] == pytest.approx(1)
    assert set(s["length"]) >= {"unit", "mean", "median", "p10", "p90"}
    assert s["length"]["unit"] == "turns"
    card = s["card_power"][0]
    for key in ("card", "gih_wr", "gns_wr", "iwd", "played_wr", "play_rate", "gih_wr_ci", "iwd_ci"):
        assert key in card


def test_jobs_give_identical_json_apart_from_timing():
    outs = []
    for jobs in ("1", "2"):
        s = json.loads(cardlab("simulate", "skyscraper", "-n", "45000", "--jobs", jobs, "--json").stdout)
        outs.append({k: v for k, v in s.items() if k not in ("elapsed_s", "games_per_second")})
    assert json.dumps(outs[0]) == json.dumps(outs[1])


def test_readable_summary():
    out = cardlab("simulate", "skyscraper", "-n", "2000", "--players", "2").stdout
    assert "First-player advantage" in out and "seat 0 - seat 1" in out and "Card power" in out


def test_trace_file(tmp_path):
    f = tmp_path / "g.jsonl"
    cardlab("trace", "skyscraper", "--seed", "4", "--players", "3", "--out", str(f))
    lines = [json.loads(x) for x in f.read_text().splitlines()]
    assert lines[0]["type"] == "header" and lines[0]["players"] == 3 and lines[0]["seed"] == 4
    assert lines[-1]["type"] == "result"
    events = lines[1:-1]
    assert all(e["type"] == "event" and "state" in e for e in events)
    assert [e["step"] for e in events] == list(range(len(events)))
    assert events[0]["player"] is None  # the deal is a chance event


@pytest.mark.parametrize("args,needle", [
    (["simulate", "nope"], "unknown game 'nope'"),
    (["rules", "chess"], "unknown game 'chess'"),
    (["simulate", "skyscraper", "--set", "floors=3"], "unknown knob 'floors'"),
    (["simulate", "skyscraper", "--set", "floors_to_win=0"], "floors_to_win"),
    (["simulate", "skyscraper", "--set", "floors_to_win=2.5"], "floors_to_win"),
    (["simulate", "skyscraper", "--set", "dog_moves_up=maybe"], "dog_moves_up"),
    (["simulate", "skyscraper", "--set", "jokers"], "KEY=VALUE"),
    (["simulate", "skyscraper", "--set", "hand_size=20", "--players", "4"], "cannot deal"),
    (["simulate", "skyscraper", "--set", "floor_sum=20"], "floor_sum"),
    (["simulate", "skyscraper", "--players", "5"], "--players 5"),
    (["simulate", "skyscraper", "--players", "0"], "--players 0"),
    (["simulate", "skyscraper", "--strategies", "cheater"], "unknown strategy 'cheater'"),
    (["simulate", "skyscraper", "--strategies", "greedy:steal=3"], "greedy:steal"),
    (["simulate", "skyscraper", "--strategies", "greedy:speed=3"], "unknown parameter 'speed'"),
    (["simulate", "skyscraper", "--strategies", "a,b,c"], "3 seats"),
    (["simulate", "skyscraper", "--games", "0"], "--games 0"),
    (["simulate", "skyscraper", "--games", "many"], "--games"),
    (["simulate", "skyscraper", "--seed", "-3"], "--seed -3"),
    (["simulate", "skyscraper", "--jobs", "0"], "--jobs 0"),
    (["simulate", "skyscraper", "--frobnicate"], "--frobnicate"),
    (["trace", "skyscraper", "--out", "/nonexistent/dir/t.jsonl"], "cannot write"),
    (["simulate", "five_towers", "--set", "offer_size=9"], "offer_size"),
    (["simulate", "five_towers", "--set", "deck=huge"], "deck"),
    (["simulate", "five_towers", "--set", "teardown_when=never"], "teardown_when"),
    (["simulate", "five_towers", "--players", "6"], "--players 6"),
    (["simulate", "five_towers", "--strategies", "cautious:max_bid=9"], "cautious:max_bid"),
    (["report", "crazy_eights", "--backend", "spark"], "bad --backend 'spark': allowed local or dask"),
    (["restricted", "crazy_eights", "--scheduler", "tcp://127.0.0.1:1"], "--scheduler needs --backend dask"),
])
def test_bad_input_is_one_line_and_exit_2(args, needle):
    p = cardlab(*args, check=False)
    assert p.returncode == 2, (p.returncode, p.stderr)
    err = p.stderr.strip()
    assert "Traceback" not in err
    assert len(err.splitlines()) == 1, err
    assert needle in err, err
