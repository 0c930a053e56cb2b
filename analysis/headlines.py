"""A report's headlines, each classified by the strength of the players it holds for.

A seat edge measured with one deterministic heuristic in every seat can be that bot's
(identical bots make identical mistakes in the same seat); what a designer needs to know is
whether it holds when the game is played well.  So every headline -- each seat's edge over
its fair share, the dominant strategy, the unfinished games, the value of a card -- is put
in one of four classes from the report's main run, its heuristic pools and its **strong
pool** (``analysis/pools.run_strong``: the game's strongest honest player in every seat,
whose strength the report measures head to head):

- **about the game**: it holds under strong play (and no heuristic pool shows the opposite);
  "no seat edge beyond +-3 points" is about the game only when the strong pool's whole
  interval lies within the margin;
- **an artefact of the heuristics**: the heuristics show it, but under strong play it is not
  shown and the strong pool's whole interval lies closer to zero than the heuristics'
  (5 Towers' seat edge);
- **depends on the players**: pools disagree in sign (an advantage with some players, a
  disadvantage with others);
- **cannot tell yet**: the evidence does not settle it (an interval that admits both the
  heuristics' figure and none, or no strong pool): the headline says how many games would.

The margins are module constants, stated in docs/reading-the-output.md.  Each headline is
one sentence: the number, its interval, for which players it holds, its class.
"""
from __future__ import annotations

from typing import Any

from cardlab.analysis.stats import about_games, games_for, games_for_wilson

ABOUT, ARTEFACT, DEPENDS, CANNOT = ("about_the_game", "artefact_of_heuristics", "depends_on_players",
                                    "cannot_tell_yet")
CLASS_WORDS = {ABOUT: "about the game", ARTEFACT: "an artefact of the heuristics",
               DEPENDS: "depends on the players", CANNOT: "cannot tell yet"}
SEAT_MARGIN = 0.03        # "no seat edge": the strong pool's interval within +-3 points of the fair share
MATERIAL = 0.01           # a heuristic pool "shows" a seat edge only from 1 point (a million games
                          # resolve a tenth of a point: signs that differ below 1 point are noise
                          # for a designer, not players on whom the game depends)
UNFINISHED = 0.01         # unfinished games matter above 1%
DOMINANT_MARGIN = 0.03    # a heuristic holds its own against search: strong's share within +-3 points
CARD = 0.10               # a card's causal value that makes a headline: beyond +-10 points (BH)
MAX_FIRST = 5             # headlines on the report's first screen
FIRST_SEAT = 0.02         # ... where a seat edge goes only from 2 points (heuristics' or strong play's)


def _p(x: float) -> str:
    s = f"{100 * x:+.1f}"
    return "0.0" if s in ("+0.0", "-0.0") else s


def _iv(ci) -> str:
    return f"[{_p(ci[0])}, {_p(ci[1])}]"


def _sign(ci) -> int:
    return 1 if ci[0] > 0 else (-1 if ci[1] < 0 else 0)


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def seat_role(s, seat: int) -> str:
    """A seat named by its place: seat 0 by the game's own role for it, the others by their
    place in seat order (the last one as such)."""
    P = s.get("players", 0)
    if seat == 0:
        return s.get("seat0_role", "the first player")
    return "the last in seat order" if seat == P - 1 else f"{_ordinal(seat + 1)} in seat order"



def _strong(s) -> dict[str, Any] | None:
    return ((s.get("pools") or {}).get("strong")) or None


def _heuristic_seat_figures(s, seat: int) -> list[dict[str, Any]]:
    """(players, edge, ci) of a seat from the main run (unless its seats play different
    strategies) and from every heuristic pool but the main run's own strategy's (the main
    run is the larger sample of the same play).  Like the pools, a share among games with
    a winner when at least 0.1% of games have none."""
    from cardlab.analysis.stats import wilson

    out = []
    main = None
    if not s.get("seat_edge_confounded") and s.get("win_rate_by_seat"):
        P, n = s["players"], s["games"]
        fair = 1.0 / P
        nw = s.get("no_winner_rate") or 0.0
        base = n * (1.0 - nw) if nw >= 0.001 else n
        k = s["win_rate_by_seat"][seat] * n
        lo, hi = wilson(k, base)
        main = sorted(set(s["strategies"]))
        out.append({"players": " and ".join(main) + " in every seat", "pool": "main", "edge": k / base - fair,
                    "ci": [lo - fair, hi - fair], "games": n})
    for p in (s.get("pools") or {}).get("by_pool", []):
        e = (p.get("seat_edges") or [None] * (seat + 1))[seat]
        if e is None or (main is not None and [p["pool"]] == main):
            continue
        who = "the mixed pool" if p["pool"] == "mixed" else f"{p['pool']} in every seat"
        out.append({"players": who, "pool": p["pool"], "edge": e["edge"], "ci": e["ci"], "games": p["games"]})
    return out


def _headline(kind, subject, cls, text, value=None, ci=None, players=None, decide=None, **extra):
    return {"kind": kind, "subject": subject, "class": cls, "class_words": CLASS_WORDS[cls],
            "text": text, "value": value, "ci": ci, "players": players, "games_to_decide": decide} | extra


def seat_headline(s: dict[str, Any], seat: int) -> dict[str, Any] | None:
    """Seat ``seat``'s edge over the fair share, classified (None for a one-player game)."""
    P = s.get("players", 0)
    if P < 2:
        return None
    fair = 1.0 / P
    who = f"Seat {seat} ({seat_role(s, seat)})"
    H = _heuristic_seat_figures(s, seat)
    shown = [h for h in H if _sign(h["ci"]) and abs(h["edge"]) >= MATERIAL]
    signs = {_sign(h["ci"]) for h in shown}
    strong = _strong(s)
    se = None
    if strong:
        se = (strong["pool"].get("seat_edges") or [None] * (seat + 1))[seat]
    head = max(shown, key=lambda h: (h["pool"] == "main", abs(h["edge"]))) if shown else (H[0] if H else None)
    hfig = f"{_p(head['edge'])} points {_iv(head['ci'])} with {head['players']}" if head else ""
    kw = {"seat": seat, "heuristics": H, "strong": se,
          "strong_player": strong["player"] if strong else None}
    if se is None:
        if len(signs) > 1:
            return _headline("seat_edge", who, DEPENDS, _depends(who, shown), head["edge"], head["ci"],
                             "heuristics", None, **kw)
        if shown:
            where = ", the same sign in every heuristic pool that shows one" if len(shown) > 1 else ""
            return _headline("seat_edge", who, CANNOT,
                             f"{who}: {hfig}{where}; not measured under strong play, so cannot tell yet "
                             "whether it is the game's.", head["edge"], head["ci"], head["players"], None, **kw)
        return None
    sp = f"{strong['player']} in every seat"
    sfig = f"{_p(se['edge'])} {_iv(se['ci'])} under strong play ({sp})"
    # shown under strong play: the interval clears 0 and the test holds with Holm over the seats
    sg = _sign(se["ci"]) if se.get("p_adjusted", 0.0) < 0.05 else 0
    if sg:
        if -sg in signs:
            return _headline("seat_edge", who, DEPENDS, _depends(who, shown, se, sp), se["edge"], se["ci"],
                             sp, None, **kw)
        word = "an advantage" if sg > 0 else "a disadvantage"
        also = f", and {hfig}" if head and _sign(head["ci"]) == sg else ""
        return _headline("seat_edge", who, ABOUT, f"{who} has {word} of {sfig}{also}: about the game.",
                         se["edge"], se["ci"], sp, None, **kw)
    if len(signs) > 1:
        return _headline("seat_edge", who, DEPENDS, _depends(who, shown, se, sp), head["edge"], head["ci"],
                         "heuristics", None, **kw)
    if signs:
        sigma = signs.pop()
        far = se["ci"][1] if sigma > 0 else -se["ci"][0]       # strong's bound on the heuristics' side
        near = head["ci"][0] if sigma > 0 else -head["ci"][1]  # the heuristics' bound nearest zero
        if far < near:
            return _headline("seat_edge", who, ARTEFACT,
                             f"{who}: {hfig}, but {sfig}, not shown: an artefact of the heuristics.",
                             head["edge"], head["ci"], head["players"], None, **kw)
        n = games_for(max(abs(head["edge"]) / 2, 0.005), fair)
        return _headline("seat_edge", who, CANNOT,
                         f"{who}: {hfig}; {sfig}, which admits both none and the heuristics' figure: "
                         f"cannot tell yet (about {about_games(n)} strong-play games would decide).",
                         head["edge"], head["ci"], head["players"], n, **kw)
    lo, hi = se["ci"]
    if -SEAT_MARGIN <= lo and hi <= SEAT_MARGIN:
        return _headline("seat_edge", who, ABOUT,
                         f"{who}: no edge beyond +-{100 * SEAT_MARGIN:.0f} points, {sfig}, and none of "
                         f"{100 * MATERIAL:.0f} point or more shown by any heuristic pool: about the game.",
                         se["edge"], se["ci"], sp, None, absent=True, **kw)
    room = SEAT_MARGIN - abs(se["edge"])
    n = games_for(room if room > 0.004 else SEAT_MARGIN / 2, fair)
    return _headline("seat_edge", who, CANNOT,
                     f"{who}: no pool shows an edge of {100 * MATERIAL:.0f} point or more, but {sfig} "
                     "cannot rule out one of "
                     f"{100 * max(abs(lo), abs(hi)):.1f} points: cannot tell yet (about {about_games(n)} "
                     f"strong-play games would tell +-{100 * SEAT_MARGIN:.0f}).", se["edge"], se["ci"], sp, n,
                     absent=True, **kw)


def _depends(who, shown, se=None, sp=None) -> str:
    """Strong play's figure (when measured), the heuristics' largest, and the largest of
    the opposite sign: the evidence that the sign depends on who plays, in one sentence."""
    parts = [f"{_p(se['edge'])} {_iv(se['ci'])} with {sp}"] if se is not None else []
    ref = _sign(se["ci"]) if se is not None and _sign(se["ci"]) else None
    by_sign: dict[int, dict] = {}
    for h in shown:
        g = _sign(h["ci"])
        if g not in by_sign or abs(h["edge"]) > abs(by_sign[g]["edge"]):
            by_sign[g] = h
    for g in sorted(by_sign, key=lambda g: g != ref):
        h = by_sign[g]
        parts.append(f"{_p(h['edge'])} {_iv(h['ci'])} with {h['players']}")
    return f"{who}: {'; '.join(parts)}: depends on the players."


def dominant_headline(s) -> dict[str, Any] | None:
    """The dominant heuristic of the mixed pool, judged by the strong player head to head."""
    v = ((s.get("pools") or {}).get("verdicts") or {}).get("dominant")
    if not v:
        return None
    if not v["holds"]:
        return _headline("dominant_strategy", "the dominant strategy", DEPENDS, v["text"])
    d = v["answer"]
    if not d:
        return None
    mixed = next((p for p in s["pools"]["by_pool"] if "dominant" in p), None)
    mfig = ""
    if mixed:
        w = mixed["win_rate_by_strategy"][d]
        mfig = f" ({100 * w['win_rate']:.1f}% [{100 * w['ci'][0]:.1f}, {100 * w['ci'][1]:.1f}] of its seat-games)"
    strong = _strong(s)
    vs = next((x for x in (strong or {}).get("strength", []) if x["against"] == d), None)
    head = f"{d} beats every other heuristic in the mixed pool{mfig}"
    if vs is None:
        return _headline("dominant_strategy", d, CANNOT, f"{head}; not measured against strong play: "
                         "cannot tell yet whether the game has a dominant strategy.", None, None, "heuristics")
    fair = vs["fair"]
    sfig = (f"{strong['player']} wins {100 * vs['win_rate']:.0f}% [{100 * vs['ci'][0]:.0f}, "
            f"{100 * vs['ci'][1]:.0f}] with one seat against {d} in the others (fair {100 * fair:.0f}%)")
    lo, hi = vs["ci"]
    if lo > fair + DOMINANT_MARGIN or (lo > fair and hi > fair + DOMINANT_MARGIN):
        return _headline("dominant_strategy", d, ARTEFACT, f"{head}, but {sfig}: a better way to play "
                         "exists, so the dominance is an artefact of the heuristics.", vs["win_rate"],
                         vs["ci"], strong["player"])
    if hi <= fair + DOMINANT_MARGIN:
        return _headline("dominant_strategy", d, ABOUT, f"{head}, and search does no better against it "
                         f"({sfig}): a dominant strategy, about the game.", vs["win_rate"], vs["ci"],
                         strong["player"])
    n = games_for(DOMINANT_MARGIN / 2, fair)
    return _headline("dominant_strategy", d, CANNOT, f"{head}; {sfig}: cannot tell yet whether search "
                     f"beats it (about {about_games(n)} games would decide).", vs["win_rate"], vs["ci"],
                     strong["player"], n)


def unfinished_headline(s) -> dict[str, Any] | None:
    """Games stopped by the cap, when any pool has at least 0.1% of them."""
    pools = (s.get("pools") or {}).get("by_pool", [])
    figs = [("main", s.get("unfinished_rate") or 0.0, s.get("unfinished_rate_ci") or [0.0, 0.0])]
    figs += [(p["pool"], p["unfinished_rate"], p["unfinished_rate_ci"]) for p in pools]
    strong = _strong(s)
    if not any(r >= 0.001 for _, r, _ in figs) and not (strong and strong["pool"]["unfinished_rate"] >= 0.001):
        return None
    over = [(n, r, ci) for n, r, ci in figs if ci[0] > UNFINISHED]
    # the report's own figure when it shows the stalls, else the pool that stalls most
    name, r, ci = figs[0] if figs[0][2][0] > UNFINISHED or not over else max(over, key=lambda f: f[1])
    hfig = f"{100 * r:.1f}% [{100 * ci[0]:.1f}, {100 * ci[1]:.1f}] of games stop at the cap with " + (
        "the report's strategies" if name == "main" else f"the {name} pool")
    if not strong:
        if not over:
            return None  # no pool shows more than 1%: not a headline
        return _headline("unfinished", "unfinished games", CANNOT, f"{hfig}; not measured under strong play: "
                         "cannot tell yet whether the game or the bots stall.", r, ci, "heuristics")
    sp = strong["pool"]
    sr, sci = sp["unfinished_rate"], sp["unfinished_rate_ci"]
    sfig = (f"{100 * sr:.1f}% [{100 * sci[0]:.1f}, {100 * sci[1]:.1f}] under strong play "
            f"({strong['player']} in every seat)")
    if sci[0] > UNFINISHED:
        return _headline("unfinished", "unfinished games", ABOUT,
                         f"{hfig}, and {sfig}: about the game (why they stick: the findings).",
                         sr, sci, strong["player"])
    if sci[1] < UNFINISHED and over:
        return _headline("unfinished", "unfinished games", ARTEFACT, f"{hfig}, but {sfig}: an artefact of the "
                         "heuristics.", r, ci, "heuristics")
    if sci[1] < UNFINISHED:
        return None  # below 1% everywhere: not a headline
    # an interval that must shrink to the distance between the rate and the threshold
    n = games_for_wilson(max(abs(sr - UNFINISHED), UNFINISHED / 10), max(sr, UNFINISHED))
    return _headline("unfinished", "unfinished games", CANNOT, f"{hfig}; {sfig}: cannot tell yet whether "
                     f"more than {100 * UNFINISHED:.0f}% stall under strong play (about {about_games(n)} games would "
                     "decide).", r, ci, "heuristics", n)


def card_headline(s) -> dict[str, Any] | None:
    """The card whose causal value is largest (beyond +-10 points, BH-significant): measured
    with the report's strategies only, so whether it holds under strong play is open."""
    c = s.get("causal_card_power") or {}
    rows = [r for r in c.get("cards", []) if r.get("value") is not None and r.get("significant")
            and abs(r["value"]) >= CARD]
    if not rows:
        return None
    r = max(rows, key=lambda r: abs(r["value"]))
    who = " and ".join(sorted(set(c.get("strategies") or s.get("strategies") or [])))
    more = f" ({len(rows)} cards beyond +-{100 * CARD:.0f} points)" if len(rows) > 1 else ""
    return _headline("card_value", r["card"], CANNOT,
                     f"Starting with {r['card']} is worth {_p(r['value'])} points {_iv(r['value_ci'])} with "
                     f"{who} in every seat (causal: the same deals with and without it){more}; not measured "
                     "under strong play: cannot tell yet whether its value is the game's.",
                     r["value"], r["value_ci"], who)


def headlines(s: dict[str, Any]) -> list[dict[str, Any]]:
    """Every classified headline of a summary (with its pools, strong pool, stuck and causal
    objects when present): each seat's edge, the dominant strategy, unfinished games, the
    top card value.  A two-player game judges seat 0 only (seat 1's edge is its mirror)."""
    P = s.get("players", 0)
    out = []
    seats = [seat_headline(s, i) for i in range(1 if P == 2 else P)]
    out += [h for h in seats if h is not None]
    for f in (dominant_headline, unfinished_headline, card_headline):
        h = f(s)
        if h is not None:
            out.append(h)
    return out


def _size(h) -> float:
    """A seat headline's largest figure: the heuristics' or strong play's."""
    strong = abs(h["strong"]["edge"]) if h.get("strong") else 0.0
    return max(abs(h["value"] or 0.0), strong)


def first_screen(hs: list[dict[str, Any]], limit: int = MAX_FIRST) -> list[dict[str, Any]]:
    """The headlines a report opens with (at most ``limit``): the seat edges of 2 points or
    more (``FIRST_SEAT``), largest first, at most three; then the dominant strategy,
    unfinished games, card value.  When no seat has such an edge, one line about every
    seat: none beyond the margin under strong play (about the game), or the seat whose
    interval is widest (cannot tell yet)."""
    seat = [h for h in hs if h["kind"] == "seat_edge"]
    big = sorted((h for h in seat if _size(h) >= FIRST_SEAT), key=lambda h: -_size(h))
    out = big[:3]
    measured = [h for h in seat if h.get("strong")]
    if not big and measured:
        lo = min(h["strong"]["ci"][0] for h in measured)
        hi = max(h["strong"]["ci"][1] for h in measured)
        if -SEAT_MARGIN <= lo and hi <= SEAT_MARGIN:
            out.append(_no_seat_edge(f"{measured[0]['strong_player']} in every seat", lo, hi))
        else:
            out.append(max(measured, key=lambda h: max(-h["strong"]["ci"][0], h["strong"]["ci"][1])))
    out += [h for h in hs if h["kind"] != "seat_edge"]
    return out[:limit]


def _no_seat_edge(sp: str, lo: float, hi: float) -> dict[str, Any]:
    return _headline("seat_edge", "every seat", ABOUT,
                     f"No seat has an edge beyond +-{100 * SEAT_MARGIN:.0f} points under strong play ({sp}; "
                     f"every seat within {_iv([lo, hi])}): about the game.", None, [lo, hi], sp, None, absent=True)
