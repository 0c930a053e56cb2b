"""Turn a run's tally into the ``simulate`` result: the JSON contract of the design notes
plus a readable text summary."""
from __future__ import annotations

from typing import Any

import numpy as np

from cardlab.analysis.shape import pct as _pct, shape_line, shape_summary
from cardlab.analysis.stats import diff_independent, diff_multinomial, wilson
from cardlab.sim.runner import RunResult
from cardlab.sim.tally import WIN_UNIT


def _r(x: float) -> float | None:
    """A number for the JSON contract at full precision: rounding would break the identity
    ``sum(win_rate_by_seat) + no_winner_rate == 1`` (the integer counts it comes from,
    ``wins_by_seat`` in ``win_unit`` and ``no_winner_games``, are printed beside it)."""
    return None if x is None or (isinstance(x, float) and np.isnan(x)) else float(x)


def _ci(lo_hi) -> list:
    return [_r(lo_hi[0]), _r(lo_hi[1])]


def length_stats(hist: np.ndarray, unit: str, capped: np.ndarray | None = None) -> dict[str, Any]:
    """Length figures of the **finished** games ``hist`` (games by length), with the games
    the cap stopped (``capped``, by length) counted beside them, never mixed in: a capped
    game has no length of its own (it would have gone on), so a mean over both would be
    neither the finished games' nor anything a table sees."""
    n = int(hist.sum())
    k = 0 if capped is None else int(np.asarray(capped).sum())
    out: dict[str, Any] = {"unit": unit, "of": "finished games", "games": n, "capped_games": k,
                           "capped_share": _r(k / (n + k)) if n + k else None}
    if k:
        at = np.nonzero(capped)[0]
        out["capped_at"] = [int(at[0]), int(at[-1])]  # where the cap stopped them (min, max)
    if n == 0:
        return out | {"mean": None, "median": None, "p10": None, "p90": None}
    x = np.arange(len(hist))
    cdf = np.cumsum(hist) / n

    def q(p):
        return int(np.searchsorted(cdf, p - 1e-12))

    return out | {"mean": _r(float((x * hist).sum() / n)), "median": q(0.5),
                  "p10": q(0.1), "p90": q(0.9), "min": int(np.nonzero(hist)[0][0]),
                  "max": int(np.nonzero(hist)[0][-1])}


def seat_edge_confounded(setup) -> bool:
    """Seats play different strategies: a seat's edge is then mostly its strategy's, and
    is never a first-player advantage (``analysis.pools`` measures the seat effect)."""
    return len({seat.label for seat in setup.seats}) > 1


def card_power(result: RunResult, seats: list[int] | None = None) -> list[dict[str, Any]]:
    """Per card type, over the given seats (all by default): GIH / GNS / IWD / played WR."""
    t = result.tally
    game = result.setup.game
    seats = list(range(result.setup.players)) if seats is None else seats
    n_games = t.games * len(seats)
    wins_total = float(t.wins[seats].sum())
    out = []
    for idx, code in game.card_types(result.setup.rules):
        held = float(t.held[seats, idx].sum())
        held_w = float(t.held_win[seats, idx].sum())
        played = float(t.played[seats, idx].sum())
        played_w = float(t.played_win[seats, idx].sum())
        gns_n, gns_w = n_games - held, wins_total - held_w
        iwd = diff_independent(held_w, held, gns_w, gns_n)
        out.append({
            "card": code,
            "held_rate": _r(held / n_games) if n_games else None,
            "gih_wr": _r(held_w / held) if held else None, "gih_wr_ci": _ci(wilson(held_w, held)),
            "gns_wr": _r(gns_w / gns_n) if gns_n else None, "gns_wr_ci": _ci(wilson(gns_w, gns_n)),
            "iwd": _r(iwd[0]), "iwd_ci": [_r(iwd[1]), _r(iwd[2])],
            "played_wr": _r(played_w / played) if played else None,
            "played_wr_ci": _ci(wilson(played_w, played)),
            "play_rate": _r(played / held) if held else None,
            "play_rate_ci": _ci(wilson(played, held)),
        })
    return out


def summarize(result: RunResult) -> dict[str, Any]:
    """The ``simulate --json`` object."""
    s = result.setup
    t = result.tally
    game = s.game
    n = t.games
    wins = t.wins
    rates = wins / n
    P = s.players
    out: dict[str, Any] = {
        "game": game.id,
        "games": n,
        "players": P,
        "seed": s.seed,
        "rules": game.rules_json(s.rules),
        "strategies": [seat.label for seat in s.seats],
        "seat0_role": game.seat0_role,
        "win_rate_by_seat": [_r(x) for x in rates],
        "win_rate_ci_by_seat": [_ci(wilson(w, n)) for w in wins],
        "no_winner_rate": _r(t.no_winner / n),
        # the integer counts the rates come from: a shared win adds win_unit // k to each of
        # its k winners, so sum(wins_by_seat) + win_unit * no_winner_games == win_unit * games
        "win_unit": WIN_UNIT,
        "wins_by_seat": [int(x) for x in t.win_units],
        "no_winner_games": t.no_winner,
        "unfinished_games": t.unfinished,
        "unfinished_rate": _r(t.unfinished / n),
        "unfinished_rate_ci": _ci(wilson(t.unfinished, n)),
    }
    if P >= 2:
        lo, hi = wilson(wins[0], n)
        # with different strategies in the seats the figure below is seat 0's edge over its
        # fair share, confounded by strategy (the key keeps the contract's name)
        out["seat_edge_confounded"] = seat_edge_confounded(s)
        out["first_player_advantage"] = _r(rates[0] - 1.0 / P)
        out["first_player_advantage_ci"] = [_r(lo - 1.0 / P), _r(hi - 1.0 / P)]
        # the same among games that had a winner: games with no winner (capped) pull every
        # seat below 1/P, which would hide a first-player edge
        decided = n - t.no_winner
        if decided > 0:
            lo, hi = wilson(wins[0], decided)
            out["first_player_advantage_decided"] = _r(wins[0] / decided - 1.0 / P)
            out["first_player_advantage_decided_ci"] = [_r(lo - 1.0 / P), _r(hi - 1.0 / P)]
        gaps = []
        for a in range(P):
            for b in range(a + 1, P):
                d, dlo, dhi = diff_multinomial(rates[a], rates[b], n)
                gaps.append({"seats": [a, b], "diff": _r(d), "ci": [_r(dlo), _r(dhi)]})
        out["seat_differences"] = gaps
        out["balance"] = _r(1.0 - max(abs(g["diff"]) for g in gaps))
    by_strat: dict[str, list[int]] = {}
    for i, seat in enumerate(s.seats):
        by_strat.setdefault(seat.label, []).append(i)
    out["win_rate_by_strategy"] = {
        name: {"seats": idx, "win_rate": _r(wins[idx].sum() / (n * len(idx))),
               "ci": _ci(wilson(wins[idx].sum(), n * len(idx)))}
        for name, idx in by_strat.items()}
    out["length"] = length_stats(t.finished_hist, game.length_unit, t.cap_hist)
    out["end_conditions"] = {name: int(c) for name, c in zip(game.end_names, t.end)}
    out["events_per_game"] = {name: _r(c / n) for name, c in zip(game.event_names, t.events)}
    out["score_name"] = game.score_name
    out["report_events"] = list(game.event_names[:game.report_events])
    out[f"mean_{game.score_name}_by_seat"] = [_r(x / n) for x in t.score]
    out[f"sd_{game.score_name}_by_seat"] = [
        _r(max(0.0, q / n - (x / n) ** 2) ** 0.5) for x, q in zip(t.score, t.score_sq)]
    out["card_power"] = card_power(result)
    out["shape"] = shape_summary(t, game)
    out["elapsed_s"] = round(result.elapsed_s, 3)
    out["games_per_second"] = round(result.games_per_second, 1)
    return out


TIMING_KEYS = ("elapsed_s", "games_per_second")


def length_line(L: dict[str, Any]) -> str:
    """The length figures of the finished games with the capped share beside them."""
    mean = L["mean"] if L["mean"] is None else round(L["mean"], 4)
    text = (f"Length ({L['unit']}, {L.get('games', 0):,} finished games): mean {mean}, median "
            f"{L['median']}, p10 {L['p10']}, p90 {L['p90']}")
    if L.get("capped_games"):
        text += (f"; {_pct(L['capped_share'])} of games ({L['capped_games']:,}) stopped by the "
                 f"cap, left out of these figures")
    return text


def render_text(summary: dict[str, Any]) -> str:
    """A readable summary for a terminal."""
    s = summary
    lines = [f"{s['game']}: {s['games']:,} games, {s['players']} player(s), seed {s['seed']}, "
             f"strategies {', '.join(s['strategies'])}", ""]
    lines.append("Win rate by seat (95% interval):")
    for i, (r, ci) in enumerate(zip(s["win_rate_by_seat"], s["win_rate_ci_by_seat"])):
        lines.append(f"  seat {i} ({s['strategies'][i]}): {_pct(r)}  [{_pct(ci[0])}, {_pct(ci[1])}]")
    if s["players"] == 1:
        lines.append("  (solo: a win means finishing within the turn cap; see the length below)")
    lines.append(f"  no winner: {_pct(s['no_winner_rate'])}   unfinished (hit the cap): "
                 f"{_pct(s['unfinished_rate'])}")
    if "first_player_advantage" in s:
        f, ci = s["first_player_advantage"], s["first_player_advantage_ci"]
        what = ("Seat 0 edge, confounded by strategy (the seats play different strategies: not a "
                "first-player advantage; see `cardlab report`'s pools)"
                if s.get("seat_edge_confounded") else "First-player advantage")
        lines.append(f"{what} (seat 0 minus fair share {_pct(1 / s['players'])}): "
                     f"{100 * f:+.1f} points [{100 * ci[0]:+.1f}, {100 * ci[1]:+.1f}]")
        if s["no_winner_rate"] and "first_player_advantage_decided" in s:
            f, ci = s["first_player_advantage_decided"], s["first_player_advantage_decided_ci"]
            lines.append(f"  among games with a winner: {100 * f:+.1f} points "
                         f"[{100 * ci[0]:+.1f}, {100 * ci[1]:+.1f}]")
        for g in s["seat_differences"]:
            a, b = g["seats"]
            sig = "" if g["ci"][0] <= 0 <= g["ci"][1] else "  (a real difference)"
            lines.append(f"  seat {a} - seat {b}: {100 * g['diff']:+.1f} points "
                         f"[{100 * g['ci'][0]:+.1f}, {100 * g['ci'][1]:+.1f}]{sig}")
        lines.append(f"Balance (1 - largest seat gap): {s['balance']:.3f}")
    if len(s["win_rate_by_strategy"]) > 1:
        lines.append("Win rate by strategy:")
        for name, v in s["win_rate_by_strategy"].items():
            lines.append(f"  {name}: {_pct(v['win_rate'])} [{_pct(v['ci'][0])}, {_pct(v['ci'][1])}]")
    lines.append(length_line(s["length"]))
    if s.get("shape"):
        lines.append(shape_line(s["shape"]))
    lines.append("End conditions: " + ", ".join(f"{k} {v:,}" for k, v in s["end_conditions"].items()))
    cp = [c for c in s["card_power"] if c["iwd"] is not None]
    if cp:
        lines.append("Card power (IWD = win rate when held minus when never held; association, not cause):")
        for c in sorted(cp, key=lambda c: -c["iwd"]):
            lines.append(f"  {c['card']:>6}: IWD {100 * c['iwd']:+5.1f} points "
                         f"[{100 * c['iwd_ci'][0]:+.1f}, {100 * c['iwd_ci'][1]:+.1f}]  "
                         f"held in {_pct(c['held_rate'])} of seat-games, played {_pct(c['play_rate'])} when held")
    # a type every seat held (or none did) has no games to compare with: say so, not nothing
    always = [c["card"] for c in s["card_power"] if c["iwd"] is None and c["held_rate"] == 1]
    never = [c["card"] for c in s["card_power"] if c["iwd"] is None and not c["held_rate"]]
    if always:
        lines.append(f"  no IWD for {', '.join(always)}: held by every seat in every game, so no game to compare "
                     "(cardlab cardpower gives the causal value)")
    if never:
        lines.append(f"  no IWD for {', '.join(never)}: never held by any seat")
    lines.append(f"{s['elapsed_s']} s, {s['games_per_second']:,.0f} games/s")
    return "\n".join(lines)
