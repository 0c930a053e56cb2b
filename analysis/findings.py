"""The findings list of every report: what a designer should look at, most severe first,
each with its number, its 95% interval and the threshold that raised it (the thresholds are
module constants, documented in docs/commands/report.md, "Findings").

A finding is raised only by a figure whose interval clears its threshold, so noise never
raises one.  A seat edge, the dominant strategy and unfinished games carry the class of
their headline (``analysis/headlines.py``: about the game, an artefact of the heuristics,
depends on the players, cannot tell yet), which sets their severity: an edge that holds
under strong play is severe, one the heuristics alone show is minor.  A report without
pools or a strong pool falls back to one pool's seat figures, and says so.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from cardlab.analysis.headlines import (ABOUT, ARTEFACT, dominant_headline, seat_headline, seat_role,
                                        unfinished_headline)

SEAT_EDGE = 0.03        # a seat-0 edge beyond +-3 points (interval clear of it)
UNFINISHED = 0.01       # more than 1% of games stopped by the cap (interval above it)
UNFINISHED_SEVERE = 0.05
CAUSAL = 0.10           # a card whose causal value is beyond +-10 points (BH-significant)
NEVER_PLAYED = 0.02     # a card held but played in under 2% of the games it was held in
ALWAYS_PLAYED = 0.98    # ... or in over 98% of them
COMEBACK = 0.15         # runaway leaders: the half-time leader loses in under 15% of games
DECIDED_EARLY = 0.5     # decided early: the winner leads for good from before half the game
SEVERITY = {3: "severe", 2: "notable", 1: "minor"}
# every kind of finding, the names a game's ``findings_off`` may use (a test checks both ways)
KINDS = ("seat_edge", "dominant_strategy", "unfinished", "causal_card", "never_played", "always_played",
         "runaway_leader", "decided_early")


@dataclass
class Finding:
    kind: str            # one of KINDS
    severity: int        # 3 severe, 2 notable, 1 minor
    text: str
    value: float | None
    ci: list[float | None] | None
    threshold: str       # what raised it
    klass: str | None = None   # the headline class (analysis/headlines.py), where it is one

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        klass = d.pop("klass")
        return d | {"severity_name": SEVERITY[self.severity]} | ({"class": klass} if klass else {})


def _p(x: float) -> str:
    return f"{100 * x:+.1f}"


SEAT_SEVERITY = {ABOUT: 3, ARTEFACT: 1}   # the others (depends, cannot tell yet): notable


def _classified_seats(s) -> list[Finding]:
    """Each seat's classified headline (``analysis/headlines.py``) whose figure -- under
    strong play when it is about the game, else the heuristics' -- clears 3 points:
    about the game is severe, an artefact of the heuristics minor (the bots', not the
    game's, but the report's own figure), the rest notable."""
    P = s.get("players", 0)
    out = []
    for seat in range(1 if P == 2 else P):
        h = seat_headline(s, seat)
        if h is None or h.get("absent") or not h["ci"]:
            continue
        lo, hi = h["ci"]
        if lo > SEAT_EDGE or hi < -SEAT_EDGE:
            out.append(Finding("seat_edge", SEAT_SEVERITY.get(h["class"], 2), h["text"], h["value"], [lo, hi],
                               f"|edge| > {100 * SEAT_EDGE:.0f} points, classified by player strength",
                               h["class"]))
    return out


def _seat_edge(s) -> list[Finding]:
    """Seat 0's edge in a report without pools: one pool, so it says so."""
    out: list[Finding] = []
    if s.get("seat_edge_confounded"):
        return out  # seats play different strategies: the seat figure is the strategies'
    e, ci = s.get("first_player_advantage"), s.get("first_player_advantage_ci")
    if e is not None and ci and (ci[0] > SEAT_EDGE or ci[1] < -SEAT_EDGE):
        out.append(Finding("seat_edge", 2, f"Seat 0's edge is {_p(e)} points [{_p(ci[0])}, {_p(ci[1])}] with "
                           f"{', '.join(sorted(set(s['strategies'])))} in every seat; run the pools "
                           "(--pools) to see whether it holds for other players.", e, list(ci),
                           f"|edge| > {100 * SEAT_EDGE:.0f} points, one pool"))
    return out


def seat_tests(s) -> list[dict[str, Any]]:
    """Every seat's win share against the fair share (``pools.seat_edges``: the score test the
    Wilson interval inverts, Holm-adjusted over the P seats), named by its place.  One entry
    per seat: seat, role, edge and its interval (points of win rate), p, p_adjusted."""
    from cardlab.analysis.pools import seat_edges

    P, n = s.get("players", 0), s.get("games", 0)
    rates = s.get("win_rate_by_seat") or []
    if P < 2 or not n or len(rates) != P:
        return []
    return [{"seat": e["seat"], "role": seat_role(s, e["seat"])} | {k: e[k] for k in ("edge", "ci", "p",
                                                                                    "p_adjusted")}
            for e in seat_edges([r * n for r in rates], n, P)]


def _other_seats(s) -> list[Finding]:
    """An edge of a seat other than seat 0 (its own finding, pools-aware, is above): the
    first mover when seat 0 deals, the last seat, ... -- each seat tested against the fair
    share, Holm over every seat, raised when the adjusted test holds and the interval
    clears the threshold."""
    if s.get("seat_edge_confounded"):
        return []  # seats play different strategies: the seat figures are the strategies'
    out = []
    for t in seat_tests(s)[1:]:
        lo, hi = t["ci"]
        if t["p_adjusted"] < 0.05 and (lo > SEAT_EDGE or hi < -SEAT_EDGE):
            word = "an advantage" if lo > 0 else "a disadvantage"
            out.append(Finding("seat_edge", 2, f"Seat {t['seat']} ({t['role']}) has {word} of {_p(t['edge'])} "
                               f"points [{_p(lo)}, {_p(hi)}] over the fair share, with "
                               f"{', '.join(sorted(set(s['strategies'])))} in every seat.", t["edge"], [lo, hi],
                               f"|edge| > {100 * SEAT_EDGE:.0f} points, Holm over {s['players']} seats"))
    return out


def _dominant(s) -> list[Finding]:
    v = ((s.get("pools") or {}).get("verdicts") or {}).get("dominant")
    if v and v["holds"] and v["answer"]:
        h = dominant_headline(s)
        return [Finding("dominant_strategy", 1 if h["class"] == ARTEFACT else 2, h["text"], h["value"], h["ci"],
                        "its interval above every other strategy's in the mixed pool", h["class"])]
    return []


def _unfinished(s) -> list[Finding]:
    r, ci = s.get("unfinished_rate", 0.0), s.get("unfinished_rate_ci")
    if not ci or ci[0] <= UNFINISHED:
        return []
    why = ""
    st = s.get("stuck")
    if st and st.get("classified"):
        why = " " + st.get("sentence", "")
    h = unfinished_headline(s) if (s.get("pools") or {}).get("strong") else None
    klass = h["class"] if h else None
    under = f" Under strong play: {h['text']}" if h else ""
    return [Finding("unfinished", 1 if klass == ARTEFACT else (3 if ci[0] > UNFINISHED_SEVERE else 2),
                    f"{100 * r:.1f}% [{100 * ci[0]:.1f}, {100 * ci[1]:.1f}] of games never finish (stopped by "
                    f"the cap).{why}{under}", r, list(ci), f"unfinished > {100 * UNFINISHED:.0f}%", klass)]


def _causal(s) -> list[Finding]:
    c = s.get("causal_card_power")
    out = []
    for card in (c or {}).get("cards", []):
        v, ci = card.get("value"), card.get("value_ci")
        if v is None or not ci or not card.get("significant") or abs(v) < CAUSAL:
            continue
        out.append(Finding("causal_card", 2, f"Starting with {card['card']} is worth {_p(v)} points "
                           f"[{_p(ci[0])}, {_p(ci[1])}] to a seat (causal: the same deals with and without it).",
                           v, list(ci), f"|causal value| > {100 * CAUSAL:.0f} points, BH q < 0.05"))
    return sorted(out, key=lambda f: -abs(f.value))


def _played(s) -> list[Finding]:
    """Cards almost never or always played once held (one finding per kind, naming them)."""
    never, always = [], []
    for c in s.get("card_power", []):
        pr, ci = c.get("play_rate"), c.get("play_rate_ci")
        if pr is None or not ci or ci[0] is None or ci[0] != ci[0]:
            continue
        if ci[1] < NEVER_PLAYED:
            never.append((c["card"], pr, ci))
        elif ci[0] > ALWAYS_PLAYED:
            always.append((c["card"], pr, ci))
    out = []
    for cards, kind, what, thr in ((never, "never_played", "almost never played once held (a dead card?)",
                                    f"play rate < {100 * NEVER_PLAYED:.0f}%"),
                                   (always, "always_played", "played whenever held (no decision there)",
                                    f"play rate > {100 * ALWAYS_PLAYED:.0f}%")):
        if cards:
            lo = min(c[2][0] for c in cards)
            hi = max(c[2][1] for c in cards)
            names = ", ".join(f"{n} {100 * pr:.1f}%" for n, pr, _ in cards[:10]) + (", ..." if len(cards) > 10 else "")
            out.append(Finding(kind, 1, f"{len(cards)} card type(s) {what}: {names}.",
                               min(c[1] for c in cards) if kind == "never_played" else max(c[1] for c in cards),
                               [lo, hi], thr))
    return out


def _shape(s) -> list[Finding]:
    sh = s.get("shape") or {}
    out = []
    cb, ci = sh.get("comeback_rate"), sh.get("comeback_rate_ci")
    if cb is not None and ci and ci[1] < COMEBACK:
        out.append(Finding("runaway_leader", 2, f"Runaway leaders: the leader at half time loses only "
                           f"{100 * cb:.1f}% [{100 * ci[0]:.1f}, {100 * ci[1]:.1f}] of games.", cb, list(ci),
                           f"comeback rate < {100 * COMEBACK:.0f}%"))
    dp, ci = sh.get("decided_point"), sh.get("decided_point_ci")
    if dp is not None and ci and ci[1] is not None and ci[1] < DECIDED_EARLY:
        out.append(Finding("decided_early", 1, f"Games are decided early: on average the winner leads for good "
                           f"from {100 * dp:.0f}% [{100 * ci[0]:.0f}, {100 * ci[1]:.0f}] of the game on.", dp, list(ci),
                           f"mean decided point < {100 * DECIDED_EARLY:.0f}% of the game"))
    return out


def findings_off(s: dict[str, Any]) -> dict[str, str]:
    """The generic findings the summary's game declares do not fit it (``Game.findings_off``:
    kind -> the reason)."""
    from cardlab.sim.errors import InputError
    from cardlab.sim.registry import get_game

    try:
        return dict(get_game(s["game"]).findings_off)
    except (KeyError, InputError):  # a summary without a (known) game: every finding applies
        return {}


def findings(s: dict[str, Any]) -> list[Finding]:
    """Every finding a summary (with its pools, stuck, causal and shape objects when
    present) raises, most severe first; none of a kind the game declares does not fit it
    (``findings_off``: the report shows the reason instead)."""
    pools = s.get("pools") or {}
    seats = (_classified_seats(s) if pools.get("strong") or pools.get("by_pool")
             else _seat_edge(s) + _other_seats(s))
    out = seats + _dominant(s) + _unfinished(s) + _causal(s) + _shape(s) + _played(s)
    off = findings_off(s)
    return sorted((f for f in out if f.kind not in off), key=lambda f: -f.severity)
