"""Two recorded runs side by side: what differs in their setup, and their figures with the
differences and 95% intervals (``cardlab history compare A B``).

Only summaries are stored, never a run's per-game outcomes, so every interval here is the
one for two independent samples (``analysis/stats.py``: Newcombe's hybrid score interval
of a difference of proportions).  When the two runs are paired (same game, seed, game
count and players: game i starts from the same seed in both, so with the same
strategies they played the same deals: common random numbers) the comparison says so; the
independent interval is then conservative (the pairing makes the true one narrower), and
`cardlab sweep` gives the paired one.
"""
from __future__ import annotations

from typing import Any

from cardlab.analysis.stats import diff_independent

SETUP_KEYS = ("command", "game", "players", "seed", "games", "rules", "strategies",
              "cardlab_version", "code_hash")


def pairing(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Whether the runs are paired, identical in setup, or independent, with the reason."""
    same = {k: a[k] == b[k] for k in ("game", "seed", "games", "players", "rules", "strategies",
                                      "code_hash")}
    paired = same["game"] and same["seed"] and same["games"] and same["players"]
    if paired and all(same.values()):
        kind = "identical"
        why = ("same game, seed, games, players, rules, strategies and code: the very same "
               "games, so every figure should be equal (a difference means nondeterminism)")
    elif paired:
        kind = "paired"
        why = ("paired: same game, seed, games and players, so game i starts from the same seed "
               "in both (common random numbers; with the same strategies and deck rules, the same "
               "deals). Only summaries are stored, so the intervals below are the independent "
               "ones: conservative for paired runs (cardlab sweep gives the paired interval)")
    else:
        differ = [k for k in ("game", "seed", "games", "players") if not same[k]]
        kind = "independent"
        why = (f"not paired (different {', '.join(differ)}): independent samples, "
               f"independent intervals (Newcombe)")
    return {"kind": kind, "paired": paired, "why": why}


def _rate_rows(sa: dict, sb: dict) -> list[dict[str, Any]]:
    """Rates both summaries give as integer counts: each seat's win rate, no winner,
    unfinished; the difference B - A with its independent interval."""
    rows = []
    na, nb = sa.get("games"), sb.get("games")
    if not (na and nb and "wins_by_seat" in sa and "wins_by_seat" in sb):
        return rows
    ua, ub = sa["win_unit"], sb["win_unit"]
    for s in range(min(len(sa["wins_by_seat"]), len(sb["wins_by_seat"]))):
        ka, kb = sa["wins_by_seat"][s] / ua, sb["wins_by_seat"][s] / ub
        rows.append(_row(f"seat {s} win rate", ka, na, kb, nb))
    rows.append(_row("no winner", sa["no_winner_games"], na, sb["no_winner_games"], nb))
    rows.append(_row("unfinished (cap)", sa["unfinished_games"], na, sb["unfinished_games"], nb))
    if sa.get("players") == sb.get("players") and sa.get("players", 0) >= 2:
        P = sa["players"]
        # seat 0's edge over 1/P: the fair share cancels in the difference
        ka, kb = sa["wins_by_seat"][0] / ua, sb["wins_by_seat"][0] / ub
        r = _row("seat 0 edge", ka, na, kb, nb)
        r["a"] -= 1 / P
        r["b"] -= 1 / P
        rows.append(r)
    return rows


def _row(name: str, ka: float, na: int, kb: float, nb: int) -> dict[str, Any]:
    d, lo, hi = diff_independent(kb, nb, ka, na)
    return {"metric": name, "a": ka / na, "b": kb / nb, "diff": d, "ci": [lo, hi],
            "real": not (lo <= 0 <= hi)}


def compare(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """The comparison of two runs (``history.get`` rows) as a JSON-able dict."""
    setup = [{"field": k, "a": a[k], "b": b[k], "same": a[k] == b[k]} for k in SETUP_KEYS]
    sa, sb = a["summary"] or {}, b["summary"] or {}
    rates = _rate_rows(sa, sb)
    la, lb = (s.get("length", {}) if isinstance(s.get("length"), dict) else {} for s in (sa, sb))
    other = []
    for name, x, y in (("mean length (finished games)", la.get("mean"), lb.get("mean")),
                       ("median length", la.get("median"), lb.get("median")),
                       ("balance", sa.get("balance"), sb.get("balance"))):
        if isinstance(x, (int, float)) and isinstance(y, (int, float)):
            other.append({"metric": name, "a": x, "b": y, "diff": y - x})
    return {"a": a["id"], "b": b["id"], "pairing": pairing(a, b), "setup": setup, "rates": rates,
            "other": other,
            "note": ("rates with 95% intervals of B - A; lengths and balance without one "
                     "(the summary keeps no per-game spread)") if rates else
                    ("these runs' summaries carry no per-game counts (only simulate and report "
                     "runs do): their figures are in `cardlab history show ID`")}


def _short(v: Any, width: int = 34) -> str:
    import json

    s = v if isinstance(v, str) else json.dumps(v)
    return s if len(s) <= width else s[:width - 3] + "..."


def render_text(c: dict[str, Any]) -> str:
    lines = [f"run {c['a']} (A) vs run {c['b']} (B): {c['pairing']['why']}", ""]
    lines.append(f"  {'':22s} {'A':34s} {'B':34s}")
    for r in c["setup"]:
        if r["field"] == "rules" and isinstance(r["a"], dict) and isinstance(r["b"], dict):
            keys = [k for k in sorted(set(r["a"]) | set(r["b"])) if r["a"].get(k) != r["b"].get(k)]
            if not keys:
                lines.append(f"  {'rules':22s} {'(the same)':34s} {'(the same)':34s}")
            for k in keys:
                lines.append(f"  {'rules: ' + k:22s} {_short(r['a'].get(k)):34s} "
                             f"{_short(r['b'].get(k)):34s}  <- differs")
            continue
        mark = "" if r["same"] else "  <- differs"
        lines.append(f"  {r['field']:22s} {_short(r['a']):34s} {_short(r['b']):34s}{mark}")
    if c["rates"]:
        lines += ["", f"  {'':28s} {'A':>9s} {'B':>9s}  B - A (95% interval)"]
        for r in c["rates"]:
            sig = "  (a real difference)" if r["real"] else ""
            lines.append(f"  {r['metric']:28s} {100 * r['a']:8.2f}% {100 * r['b']:8.2f}%  "
                         f"{100 * r['diff']:+.2f} points [{100 * r['ci'][0]:+.2f}, "
                         f"{100 * r['ci'][1]:+.2f}]{sig}")
    for r in c["other"]:
        lines.append(f"  {r['metric']:28s} {r['a']:9.4g} {r['b']:9.4g}  {r['diff']:+.4g}")
    lines += ["", c["note"]]
    return "\n".join(lines)
