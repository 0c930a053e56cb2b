"""Render a run as a report folder: ``index.html`` (self-contained: every figure embedded
as a base64 PNG, so it opens offline in any browser), ``report.md`` (the same text, the
figures beside it as PNG files), the raw tables as CSV and ``summary.json``.

The report opens with a plain-language verdict generated from the numbers (``verdict``),
shows the figures of ``analysis.plots`` and ends with what reproduces it: the exact
command, seed, rules, strategies and cardlab version.

The CSV tables come from ``analysis.tables`` (``raw_tables``).  The verdict and the figures use ``summarize()`` (95% intervals that
exclude 0 are "real"); ``card_power.csv``'s ``real`` column is the stricter
Benjamini-Hochberg one of ``analysis.tables``.
"""
from __future__ import annotations

import base64
import html
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from cardlab.analysis.shape import NOTE as SHAPE_NOTE, shape_rows
from cardlab.sim.cache import cardlab_version
from cardlab.sim.errors import InputError

# an unfinished rate below this is "negligible" and left out of the verdict
NEGLIGIBLE_UNFINISHED = 0.001


# ------------------------------------------------------------------ output folder
def prepare_out_dir(path: str | os.PathLike) -> Path:
    """Create ``path`` (and parents) for a report; InputError when it is a file or cannot
    be created or written."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise InputError(f"bad --out {str(path)!r}: it is a file, not a folder")
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InputError(f"bad --out {str(path)!r}: cannot create the folder ({e.strerror})") from None
    if not os.access(p, os.W_OK | os.X_OK):
        raise InputError(f"bad --out {str(path)!r}: the folder is not writable")
    return p


# ------------------------------------------------------------------ numbers -> words
def _pct(x: float, nd: int = 1) -> str:
    return f"{100 * x:.{nd}f}%"


def _pts(x: float, nd: int = 1) -> str:
    """Percentage points with a sign; one more decimal when it would round to 0 (no "-0.0")."""
    v = 100 * x
    if v != 0 and abs(v) < 0.5 * 10 ** -nd:
        nd += 1
    s = f"{v:+.{nd}f}"
    return s if float(s) != 0 else f"{0:.{nd}f}"


def _half(ci: Sequence[float]) -> float:
    return (ci[1] - ci[0]) / 2


def _real(ci: Sequence[float]) -> bool:
    return ci[0] > 0 or ci[1] < 0


def largest_iwd(summary: dict[str, Any]) -> dict[str, Any] | None:
    cp = [c for c in summary.get("card_power", []) if c.get("iwd") is not None]
    return max(cp, key=lambda c: c["iwd"]) if cp else None


def verdict(summary: dict[str, Any], causal: dict[str, Any] | None = None) -> str:
    """The report's verdict: its first-screen headlines (``analysis/headlines.py``), one
    sentence each -- the number, its interval, for which players it holds and its class --
    or, when nothing makes a headline, the detailed paragraph (``details``)."""
    from cardlab.analysis.headlines import first_screen, headlines

    s = summary | ({"causal_card_power": causal} if causal else {})
    first = summary.get("first_screen")
    if first is None:
        first = first_screen(headlines(s))
    return " ".join(h["text"] for h in first) if first else details(summary, causal)


def details(summary: dict[str, Any], causal: dict[str, Any] | None = None) -> str:
    """A plain-language paragraph generated from a ``summarize()`` dict: the first seat's
    win rate and whether the first player is advantaged, whether the seat differences are
    real (95% interval excludes 0) or within noise, the unfinished rate when it is not
    negligible, the card with the largest IWD, and that IWD is association, not cause.
    With ``causal`` (``analysis.causal.run_causal``'s object) the card sentence is the
    causal value of starting with a card instead (``causal_sentence``)."""
    s = summary
    P, n = s["players"], s["games"]
    rates, cis = s["win_rate_by_seat"], s["win_rate_ci_by_seat"]
    out: list[str] = []
    if P == 1:
        out.append(f"The solo player finishes within the cap in {_pct(rates[0])} ± "
                   f"{_pct(_half(cis[0]))} of {n:,} games.")
    else:
        fair = 1.0 / P
        role = s.get("seat0_role", "the first player")
        head = (f"Seat 0 ({role}) wins {_pct(rates[0])} ± {_pct(_half(cis[0]))} of "
                f"{P}-player games (fair share {_pct(fair)})")
        # with games that end without a winner every seat sits below 1/P, so judge the
        # first player among decided games
        decided = ((s.get("no_winner_rate") or 0) >= NEGLIGIBLE_UNFINISHED
                   and "first_player_advantage_decided" in s)
        key = "first_player_advantage_decided" if decided else "first_player_advantage"
        f, ci = s[key], s[key + "_ci"]
        rng = f"95% interval {_pts(ci[0])} to {_pts(ci[1])}"
        if s.get("seat_edge_confounded"):
            # a seat's edge is then mostly its strategy's: never call it a first-player one
            finding = (f"seat 0's edge over the fair share is {_pts(f)} points ({rng}), confounded by "
                       f"strategy: the seats play different strategies, so this is not a "
                       f"first-player advantage (the pools below measure the seat effect)")
        elif _real(ci):
            size = "a clear" if abs(f) >= 0.02 else "a small but real"
            kind = "advantage" if f > 0 else "disadvantage"
            who = "first-player" if role == "the first player" else "seat-0"
            finding = f"{size} {who} {kind} of {_pts(f)} points ({rng})"
        else:
            who = "first-player" if role == "the first player" else "seat-0"
            finding = f"no detectable {who} advantage ({_pts(f)} points, {rng} includes 0)"
        if decided:
            # every seat sits below 1/P when some games have no winner: say so, then judge
            # the first player among the games that had one
            out.append(f"{head}; {_pct(s['no_winner_rate'])} of games have no winner, which pulls "
                       f"every seat below its fair share.")
            out.append(f"Among games with a winner there is {finding}.")
        else:
            out.append(f"{head}: {finding}.")
        gaps = s.get("seat_differences", [])
        real = [g for g in gaps if _real(g["ci"])]
        if not real:
            out.append("The differences between seats are within noise: every pairwise 95% "
                       "interval includes 0.")
        else:
            big = max(real, key=lambda g: abs(g["diff"]))
            a, b = big["seats"]
            which = ("The seat difference is real" if len(gaps) == 1 else
                     f"{len(real)} of {len(gaps)} seat differences are real")
            out.append(f"{which} (the interval excludes 0): seat {a} minus seat {b} is "
                       f"{_pts(big['diff'])} points [{_pts(big['ci'][0])}, {_pts(big['ci'][1])}]; "
                       f"balance {s['balance']:.3f} (1 = every seat equal).")
    u = s.get("unfinished_rate") or 0.0
    if u >= NEGLIGIBLE_UNFINISHED:
        cap = s.get("rules", {}).get("max_turns")
        capped = f" ({cap} {s['length']['unit']})" if cap else ""
        out.append(f"{_pct(u)} of games hit the length cap{capped} unfinished and without "
                   f"a winner; every length figure is of the finished games.")
        if s.get("stuck", {}).get("sentence"):
            out.append(s["stuck"]["sentence"])
    strat = s.get("win_rate_by_strategy", {})
    if len(strat) > 1:
        best = max(strat.items(), key=lambda kv: kv[1]["win_rate"])
        out.append(f"The strongest strategy is {best[0]} ({_pct(best[1]['win_rate'])} per seat).")
    if causal is not None and causal.get("cards"):
        out.append(causal_sentence(causal))
        return " ".join(out)
    c = largest_iwd(s)
    if c is not None:
        ci = c["iwd_ci"]
        noise = "" if _real(ci) else " (within noise)"
        more = "more" if c["iwd"] >= 0 else "less"
        out.append(f"The card with the largest IWD is {c['card']} ({_pts(c['iwd'])} points): seats "
                   f"that ever held it won {abs(100 * c['iwd']):.1f} points {more} often than seats "
                   f"that never did (95% interval {_pts(ci[0])} to {_pts(ci[1])}){noise}.")
    out.append("IWD measures association, not cause: a seat that draws more cards or lasts "
               "longer both sees more card types and tends to win more.")
    return " ".join(out)


def causal_sentence(causal: dict[str, Any]) -> str:
    """The card verdict from causal card power: the card whose value of starting with it
    is largest in size among those significant after Benjamini-Hochberg, or that none is."""
    rows = [r for r in causal["cards"] if r["value"] is not None]
    sig = [r for r in rows if r["significant"]]
    pick = max(sig or rows, key=lambda r: abs(r["value"]))
    lo, hi = pick["value_ci"]
    what = (f"starting with {pick['card']} is worth {_pts(pick['value'])} points of win rate "
            f"(95% interval {_pts(lo)} to {_pts(hi)}, same seeds with and without it)")
    if sig:
        more = f"; {len(sig)} of {len(rows)} cards have a value that is real after " \
               "Benjamini-Hochberg" if len(sig) > 1 else ""
        return f"Card power (causal): {what}{more}."
    return (f"Card power (causal): no card's value of starting with it is distinguishable from 0 "
            f"after Benjamini-Hochberg across {len(rows)} cards (the largest: {what}).")


# ------------------------------------------------------------------ tables
def raw_tables(result) -> dict[str, Any]:
    """The CSV tables by file name, from ``analysis.tables`` (card power per strategy
    group with Benjamini-Hochberg q-values)."""
    from cardlab.analysis import tables as T

    return {"seats.csv": T.seat_table(result), "lengths.csv": T.length_table(result),
            "card_power.csv": T.card_power_table(result), "ends.csv": T.end_table(result)}


# ------------------------------------------------------------------ the report
@dataclass
class ReportFigure:
    name: str       # file stem
    title: str
    caption: str
    png: bytes


@dataclass
class Report:
    out_dir: Path
    paths: dict[str, Path] = field(default_factory=dict)
    summary: dict[str, Any] = field(default_factory=dict)
    verdict: str = ""


def _figures(summary, hist, tournament, capped: int = 0) -> list[ReportFigure]:
    """``hist``: the finished games by length; ``capped``: the games the cap stopped."""
    from cardlab.analysis import plots

    s = summary
    unit = s["length"]["unit"]
    cap = len(hist) - 1 if capped else None
    figs = [ReportFigure("seats", "Win rate by seat",
                   "Each bar is a seat's win rate (shared wins split evenly) with its 95% Wilson "
                   "interval; the dashed line is the fair share 1/players.",
                   plots.seat_win_rates(s["win_rate_by_seat"], s["win_rate_ci_by_seat"],
                                        s["strategies"], s.get("no_winner_rate")))]
    figs.append(ReportFigure("length", "Game length",
                       f"Share of finished games by length in {unit}, with their mean and median; "
                       "games stopped by the cap have no length of their own: their share is "
                       "in the legend, never drawn or averaged in.",
                       plots.length_histogram(hist, unit, cap, capped=capped)))
    figs.append(ReportFigure("survival", "Survival curve",
                       f"Share of the finished games still running after a given number of "
                       f"{unit}; the capped share is in the legend.",
                       plots.survival_curve(hist, unit, cap, capped=capped)))
    sh = s.get("shape") or {}
    if sh.get("decided_games"):
        figs.append(ReportFigure("decided", "When the game is decided",
                           "Won games by their decided point: the share of the game after which "
                           "the eventual winner is the sole leader for good (by the progress score "
                           f"{sh['progress']}); late bars mean the lead is contested to the end.",
                           plots.decided_point_histogram(sh["decided_hist"], sh["decided_point"])))
    from cardlab.sim.registry import get_game

    own = get_game(s["game"]).report_figures
    if own:  # the game's own figures (e.g. Block Tower's collapse heights)
        import importlib

        mod, fn = own.split(":")
        figs += getattr(importlib.import_module(mod), fn)(s)
    cp = [c for c in s["card_power"] if c["iwd"] is not None]
    if cp:
        figs.append(ReportFigure("card_power", "Card power (IWD)",
                           "IWD = win rate of seats that ever held the card minus seats that "
                           "never did, with its 95% interval; solid blue when the interval "
                           "excludes 0. Association, not cause.",
                           plots.card_power_forest([c["card"] for c in cp], [c["iwd"] for c in cp],
                                                   [c["iwd_ci"][0] for c in cp],
                                                   [c["iwd_ci"][1] for c in cp])))
    if tournament is not None and getattr(tournament, "matrix", None) is not None:
        figs.append(ReportFigure("tournament", "Tournament",
                           "Win rate of the row strategy against the column strategy.",
                           plots.tournament_heatmap(tournament.matrix)))
    lad = s.get("ladder")
    if lad:
        c = lad["curve"]
        figs.append(ReportFigure("skill_curve", "Skill curve",
                           f"Each rung's win rate in one seat against {lad['field']} in the others "
                           f"(every seat in turn, {lad['games']} games per seat), with its 95% Wilson "
                           "interval; the dashed line is the fair share.",
                           plots.skill_curve([x["rung"] for x in c], [x["win_rate"] for x in c],
                                             [x["ci"][0] for x in c], [x["ci"][1] for x in c],
                                             1.0 / lad["players"], lad["field"])))
    return figs


def _reproduce(summary, command: str) -> list[tuple[str, str]]:
    s = summary
    return [("command", command), ("seed", str(s["seed"])), ("games", f"{s['games']:,}"),
            ("players", str(s["players"])), ("strategies", ", ".join(s["strategies"])),
            ("cardlab version", cardlab_version())]


def _fmt_table_md(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for r in rows:
        lines.append("| " + " | ".join(str(x).replace("|", "\\|") for x in r) + " |")
    return "\n".join(lines)


def _key_rows(s) -> list[tuple[str, str]]:
    rows = []
    for i, (r, ci) in enumerate(zip(s["win_rate_by_seat"], s["win_rate_ci_by_seat"])):
        rows.append((f"seat {i} ({s['strategies'][i]})", f"{_pct(r)} [{_pct(ci[0])}, {_pct(ci[1])}]"))
    rows.append(("no winner", _pct(s["no_winner_rate"])))
    rows.append(("unfinished (hit the cap)", _pct(s["unfinished_rate"])))
    if "first_player_advantage" in s:
        f, ci = s["first_player_advantage"], s["first_player_advantage_ci"]
        label = ("seat 0 edge (confounded by strategy)" if s.get("seat_edge_confounded")
                 else "first-player advantage")
        rows.append((label, f"{_pts(f)} points [{_pts(ci[0])}, {_pts(ci[1])}]"))
        if "first_player_advantage_decided" in s and s["no_winner_rate"]:
            f, ci = s["first_player_advantage_decided"], s["first_player_advantage_decided_ci"]
            rows.append(("  among games with a winner", f"{_pts(f)} points [{_pts(ci[0])}, {_pts(ci[1])}]"))
        for g in s["seat_differences"]:
            a, b = g["seats"]
            tag = "real" if _real(g["ci"]) else "within noise"
            rows.append((f"seat {a} − seat {b}",
                         f"{_pts(g['diff'])} points [{_pts(g['ci'][0])}, {_pts(g['ci'][1])}] ({tag})"))
        rows.append(("balance (1 − largest seat gap)", f"{s['balance']:.3f}"))
    L = s["length"]
    rows.append((f"length ({L['unit']}, finished games)", f"mean {_mean(L)}, median {L['median']}, "
                 f"p10 {L['p10']}, p90 {L['p90']} ({L.get('games', 0):,} games; "
                 f"{_pct(L.get('capped_share') or 0, 2)} stopped by the cap, left out)"))
    rows.append(("end conditions", ", ".join(f"{k} {v:,}" for k, v in s["end_conditions"].items())))
    return rows


def _mean(L: dict[str, Any]) -> str:
    """A mean length at the precision its interval justifies (``stats.shown``): the interval
    is ``mean_ci`` where the report put one, else 3 significant figures."""
    from cardlab.analysis.stats import shown

    return "n/a" if L.get("mean") is None else shown(L["mean"], L.get("mean_ci"))


def _play_rows(s) -> list[tuple[str, str]]:
    """Each seat's end-of-game score (mean and spread) and how often each event happens."""
    name = s.get("score_name", "score")
    rows = []
    for i, (m, sd) in enumerate(zip(s.get(f"mean_{name}_by_seat", []), s.get(f"sd_{name}_by_seat", []))):
        rows.append((f"{name}, seat {i}", f"mean {m:g}, sd {sd:g}"))
    shown = s.get("report_events")
    for ev, x in s.get("events_per_game", {}).items():
        if x and (shown is None or ev in shown):
            rows.append((f"{ev} (per game)", f"{x:g}"))
    return rows


PLAY_NOTE = ("What a game looks like at the table: each seat's score at the end (mean and standard "
             "deviation over games) and how often each kind of event happens per game.")

IWD_NOTE = ("IWD (improvement when drawn) is a seat's win rate in games where it ever held the "
            "card minus its win rate in games where it never did. It measures association, not "
            "cause: seats that draw more or last longer see more card types, and winning "
            "positions attract cards. A large IWD is a reason to look at a card, not proof that "
            "the card wins games.")

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:60rem;margin:2rem auto;
padding:0 1rem;color:#222;line-height:1.45}
h1{font-size:1.6rem;margin-bottom:.2rem} h2{font-size:1.25rem;margin-top:2rem;border-bottom:1px solid #ddd}
.verdict{background:#f4f7fb;border-left:4px solid #1f77b4;padding:.8rem 1rem;font-size:1.05rem}
figure{margin:1.2rem 0} figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:.9rem;color:#555} table{border-collapse:collapse;font-size:.92rem}
td,th{border:1px solid #ddd;padding:.25rem .6rem;text-align:left} th{background:#f4f4f4}
code,pre{background:#f4f4f4;padding:.1rem .3rem;border-radius:3px} pre{padding:.6rem;overflow-x:auto}
.muted{color:#666;font-size:.9rem}
ol.verdict{padding-left:2.2rem} ol.verdict li{margin:.35rem 0}
.badge{display:inline-block;font-size:.78rem;font-weight:600;padding:0 .45rem;border-radius:9px;
background:#ddd;color:#222;white-space:nowrap}
.about_the_game .badge{background:#1f77b4;color:#fff} .artefact_of_heuristics .badge{background:#ff7f0e;color:#fff}
.depends_on_players .badge{background:#9467bd;color:#fff} .cannot_tell_yet .badge{background:#bbb}
"""


def html_head(title: str, extra_css: str = "") -> str:
    """The start of a self-contained report page, through its <h1>."""
    e = html.escape
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{e(title)}</title><style>{CSS}{extra_css}</style></head><body><h1>{e(title)}</h1>")


def figure_html(f: "ReportFigure") -> str:
    """A figure embedded as a PNG data URI, with its caption."""
    e = html.escape
    b64 = base64.b64encode(f.png).decode("ascii")
    return (f"<figure><img src=\"data:image/png;base64,{b64}\" alt=\"{e(f.title)}\">"
            f"<figcaption>{e(f.caption)}</figcaption></figure>")


def _html_table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    e = html.escape
    head = "".join(f"<th>{e(str(h))}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{e(str(x))}</td>" for x in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _card_rows(s, causal=None) -> list[tuple]:
    """One row per card type.  With ``causal`` its causal value comes first (the rows by it,
    largest first) and IWD after it, as the association it is; without, IWD alone."""
    from cardlab.analysis.causal import by_card

    rows = []
    cv = by_card(causal)

    def value(c):
        r = cv.get(c["card"])
        return r["value"] if r is not None and r["value"] is not None else float("-inf")

    cards = [c for c in s["card_power"] if c["iwd"] is not None]
    cards.sort(key=(lambda c: -value(c)) if causal is not None else (lambda c: -c["iwd"]))
    for c in cards:
        ci = c["iwd_ci"]
        row = (f"{_pts(c['iwd'])} [{_pts(ci[0])}, {_pts(ci[1])}]",
               "real" if _real(ci) else "within noise", _pct(c["held_rate"]),
               _pct(c["play_rate"]) if c["play_rate"] is not None else "n/a")
        if causal is not None:
            r = cv.get(c["card"])
            if r is None or r["value"] is None:
                row = ("n/a", "") + row
            else:
                row = (f"{_pts(r['value'])} [{_pts(r['value_ci'][0])}, {_pts(r['value_ci'][1])}]",
                       "real" if r["significant"] else "within noise") + row
        rows.append((c["card"],) + row)
    return rows


CARD_HEADERS = ("IWD (association), points [95%]", "", "held in (seat-games)", "played when held")
CAUSAL_HEADERS = ("value of starting with it (causal), points [95%]", "after Benjamini-Hochberg")


def card_headers(causal=None) -> tuple:
    return ("card",) + (CAUSAL_HEADERS if causal is not None else ()) + CARD_HEADERS


def causal_note(causal: dict[str, Any]) -> str:
    """What the causal column means, for the report's card-power section."""
    return (f"Value of starting with a card (causal card power): each of {causal['games']:,} "
            f"games per card type is played twice from the same seed, once with the card among "
            f"the given seat's starting cards and once without it ({causal['given']}); the "
            f"paired win-rate difference with its 95% interval, and whether it is real after "
            f"Benjamini-Hochberg across the cards. Unlike IWD this is cause, not association.")


VARIANT_HEADERS = ("rules", "games", "unfinished (95% interval)", "no winner", "mean length of finished games",
                   "seat 0 wins (95% interval)", "win-rate spread (max − min seat)", "balance")
VARIANT_CARD_NOTE = ("Card power (IWD, points, with its 95% interval) of every card type under each "
                     "rule variant, on the same games.")
VARIANT_NOTE = ("The same games (the same seeds, so differences are not deal luck) under each "
                "rule variant the game's page singles out for a balance study.")


def variant_caveats(s, variants) -> dict[str, tuple[str, str]]:
    """The caveats of the game (``report_variant_caveats``: "knob=value" -> (tag, note))
    that apply to this table: to a variant shown, or to the run's own rules."""
    try:
        from cardlab.sim.registry import get_game

        declared = dict(getattr(get_game(s.get("game", "")), "report_variant_caveats", None) or {})
    except (InputError, KeyError):
        return {}
    shown = {label for label, _ in variants}
    out = {}
    for key, caveat in declared.items():
        knob, _, value = key.partition("=")
        if key in shown or (knob in s.get("rules", {}) and _rule_text(s["rules"][knob]) == value):
            out[key] = caveat
    return out


def _rule_text(value) -> str:
    return json.dumps(value).strip(chr(34))


def _tagged(s, variants, label: str, rules: dict | None = None) -> str:
    """A variant's label with the tag of every caveat that applies to it (``rules``: the
    run's own rules, for the "as run" row)."""
    tags = [tag for key, (tag, _) in variant_caveats(s, variants).items()
            if key == label or (rules is not None and _rule_text(rules.get(key.partition("=")[0])) ==
                                key.partition("=")[2])]
    return label + "".join(f" ({t})" for t in tags)


def variant_notes(s, variants) -> list[str]:
    """The caveat notes to print under the variant tables."""
    return [f"Caveat: {note}" for _, note in variant_caveats(s, variants).values()]


def variant_rows(s, variants) -> list[tuple]:
    """One row per rule variant: the run itself first, then each (label, summary); a
    label carries the tag of a caveat the game declares for it (``variant_notes``)."""
    def row(label, v):
        u = v["unfinished_rate_ci"]
        w = v["win_rate_ci_by_seat"][0]
        bal = v.get("balance")
        return (label, f"{v['games']:,}", f"{_pct(v['unfinished_rate'], 2)} [{_pct(u[0], 2)}, {_pct(u[1], 2)}]",
                _pct(v["no_winner_rate"], 2), f"{_mean(v['length'])} {v['length']['unit']} (finished)",
                f"{_pct(v['win_rate_by_seat'][0])} [{_pct(w[0])}, {_pct(w[1])}]",
                _pts(max(v["win_rate_by_seat"]) - min(v["win_rate_by_seat"])).lstrip("+") + " points",
                "n/a" if bal is None else f"{bal:.3f}")
    return [row(_tagged(s, variants, _as_run(s, variants), s.get("rules", {})), s)] + \
        [row(_tagged(s, variants, label), v) for label, v in variants]


def _as_run(s, variants) -> str:
    knobs = sorted({label.split("=")[0] for label, _ in variants})
    return "as run (" + ", ".join(f"{k}={json.dumps(s['rules'][k]).strip(chr(34))}" for k in knobs) + ")"


def variant_card_rows(s, variants) -> tuple[tuple, list[tuple]]:
    """Card power (IWD, points [95%]) of every card type under each rule variant."""
    def iwd(v):
        return {c["card"]: c for c in v["card_power"] if c["iwd"] is not None}

    runs = [(_tagged(s, variants, _as_run(s, variants), s.get("rules", {})), iwd(s))] + \
        [(_tagged(s, variants, label), iwd(v)) for label, v in variants]
    cards = list(runs[0][1])
    rows = []
    for card in cards:
        cells = []
        for _, d in runs:
            c = d.get(card)
            cells.append("—" if c is None else
                         f"{_pts(c['iwd'])} [{_pts(c['iwd_ci'][0])}, {_pts(c['iwd_ci'][1])}]")
        rows.append((card, *cells))
    return ("card", *[label for label, _ in runs]), rows


POOLS_NOTE = ("The same game, rules and seeds played by several pools of players: each heuristic "
              "in every seat (self-play), a mixed pool in which every game draws each seat's "
              "strategy at random from the heuristics, and the strong pool: the game's strongest "
              "honest player in every seat. Heuristics that agree can share a blind spot; the "
              "verdict's classes come from the strong pool. Seat 0's edge is over the fair share "
              "1/players, among games with a winner when at least 0.1% have none.")
POOLS_HEADERS = ("pool", "games", "seat 0 edge, points [95%]", "win rate by seat", "unfinished",
                 "best strategy (mixed)")
STUCK_NOTE = ("Games stopped by the cap, re-played from their seed and game index: over the last "
              "stretch in which no card moved (or the last decisions of every seat, where cards "
              "kept moving), did a seat keep a legal move that changes the card placement and "
              "never make it (a strategy artefact), or had no seat any such move (a dead end "
              "of the rules)?")
STUCK_HEADERS = ("reason", "capped games", "share [95%]")


def pools_rows(s) -> list[tuple]:
    rows = []
    for p in (s.get("pools") or {}).get("by_pool", []):
        ci = p["seat0_edge_ci"]
        by = p.get("win_rate_by_strategy")
        best = "—"
        if by:
            top = max((k for k in by if by[k]["win_rate"] is not None), key=lambda k: by[k]["win_rate"])
            best = f"{top} {_pct(by[top]['win_rate'])}" + (" (dominant)" if p.get("dominant") else "")
        rows.append((p["pool"], f"{p['games']:,}", f"{_pts(p['seat0_edge'])} [{_pts(ci[0])}, {_pts(ci[1])}]",
                     ", ".join(_pct(x) for x in p["win_rate_by_seat"]), _pct(p["unfinished_rate"], 2), best))
    strong = (s.get("pools") or {}).get("strong")
    if strong:
        p = strong["pool"]
        ci = p["seat0_edge_ci"]
        rows.append((f"strong: {strong['player']}", f"{p['games']:,}",
                     f"{_pts(p['seat0_edge'])} [{_pts(ci[0])}, {_pts(ci[1])}]",
                     ", ".join(_pct(x) for x in p["win_rate_by_seat"]), _pct(p["unfinished_rate"], 2), "—"))
    return rows


def stuck_rows(s) -> list[tuple]:
    st = s.get("stuck")
    if not st or not st.get("classified"):
        return []
    return [(st["reasons"][r], f"{c:,} of {st['classified']:,}",
             f"{_pct(st['shares'][r])} [{_pct(st['shares_ci'][r][0])}, {_pct(st['shares_ci'][r][1])}]")
            for r, c in st["counts"].items()]


LADDER_NOTE = ("The skill ladder (cardlab ladder): random play, every heuristic and the search "
               "player at rising budgets, each in one seat against the field in the others, on the "
               "same deals; ratings from all rungs playing each other. How much does skill pay, "
               "and does the first player's edge survive good play?")
RESTRICTED_NOTE = ("Restricted play (cardlab restricted; Jaffe et al. 2012): the search player "
                   "forbidden one card type or action kind, against unrestricted search players on "
                   "the same deals. The cost is the win rate it loses, in points (Benjamini-Hochberg "
                   "across restrictions): what strong play cannot do without.")
RESTRICTED_HEADERS = ("never", "cost, points [95%]", "p (BH)", "restricted win rate")


def ladder_rows(lad: dict) -> list[tuple]:
    return [(c["rung"], f"{_pct(c['win_rate'])} [{_pct(c['ci'][0])}, {_pct(c['ci'][1])}]",
             f"{_pts(sp['seat0_edge'])} [{_pts(sp['ci'][0])}, {_pts(sp['ci'][1])}]")
            for c, sp in zip(lad["curve"], lad["self_play"])]


def restricted_rows(res: dict) -> list[tuple]:
    return [(r["never"], f"{_pts(r['cost'])} [{_pts(r['ci'][0])}, {_pts(r['ci'][1])}]"
             + (" (matters)" if r["matters"] else " (helps)" if r["helps"] else ""),
             f"{r['p_adjusted']:.3f}", _pct(r["restricted_win_rate"])) for r in res["restrictions"]]


LADDER_HEADERS = ("rung", "win rate vs field [95%]", "seat-0 edge in self-play [95%]")


FINDINGS_NOTE = ("Most severe first; each raised by a figure whose 95% interval clears the "
                 "threshold named beside it (see docs/commands/report.md, Findings).")


FIRST_NOTE = ("Each headline is classified by the players it holds for: about the game (it holds under "
              "strong play), an artefact of the heuristics (the heuristics show it, strong play does "
              "not), depends on the players, or cannot tell yet (with the games that would decide); "
              "see docs/reading-the-output.md.")


def first_screen_html(s, verdict_text: str) -> list[str]:
    """The report's first screen: its headlines as a list (class, sentence, replays), the
    strong player's measured strength; the verdict paragraph when there are no headlines."""
    e = html.escape
    hs = s.get("first_screen")
    if not hs:
        return [f"<p class=\"verdict\" id=\"verdict\">{e(verdict_text)}</p>"]
    items = "".join(f"<li class=\"headline {e(h['class'])}\" data-kind=\"{e(h['kind'])}\" "
                    f"data-class=\"{e(h['class'])}\"><span class=\"badge\">{e(h['class_words'])}</span> "
                    f"{e(h['text'])}{replay_links_html(s, h.get('replays'))}</li>" for h in hs)
    out = [f"<ol class=\"verdict\" id=\"verdict\">{items}</ol>"]
    if s.get("strong_play"):
        out.append(f"<p class=\"muted\" id=\"strong-play\">{e(s['strong_play'])}</p>")
    return out + [f"<p class=\"muted\">{e(FIRST_NOTE)}</p>"]


def first_screen_md(s, verdict_text: str) -> list[str]:
    hs = s.get("first_screen")
    if not hs:
        return ["## Verdict", "", verdict_text, ""]
    lines = ["## Verdict", ""] + [
        f"{i}. **{h['class_words']}**: {h['text']}"
        + (" Watch: " + ", ".join(f"[{_replay_title(s, r)}]({r})" for r in h["replays"]) + "." if h.get("replays") else "")
        for i, h in enumerate(hs, 1)] + [""]
    if s.get("strong_play"):
        lines += [s["strong_play"], ""]
    return lines + [FIRST_NOTE, ""]


DETAIL_NOTE = "The main run in words (its own strategies only; the headlines above weigh every pool):"


LUCK_NOTE = ("What decides who wins (cardlab luck): every deal of a sample replayed in every seat "
             "order and with different later draws (common random numbers), the variance of a "
             "player's win share split into the deal, the later draws, seat order and the players, "
             "with 95% bootstrap intervals; comparable across games.")
LUCK_HEADERS = ("part", "share of the outcome [95%]")


def luck_rows(s) -> list[tuple[str, str]]:
    from cardlab.analysis.luck import LABELS, PARTS

    L = s.get("luck")
    if not L:
        return []
    return [(LABELS[k], "?" if L["shares"][k]["share"] is None else
             f"{_pct(L['shares'][k]['share'])} [{_pct(L['shares'][k]['ci'][0])}, {_pct(L['shares'][k]['ci'][1])}]")
            for k in PARTS]


def luck_text(s) -> str:
    L = s["luck"]
    return " ".join(L["verdict"] + ([L["skill"]["verdict"]] if L.get("skill") else []))


def findings_off_notes(s) -> list[str]:
    """One note per generic finding the game declares does not fit it, with the reason."""
    return [f"Not raised for this game: {o['kind'].replace('_', ' ')} ({o['reason']})."
            for o in s.get("findings_off") or []]


def findings_html(s) -> list[str]:
    e = html.escape
    fs = s.get("findings")
    if fs is None:
        return []
    off = "".join(f"<p class=\"muted findings-off\">{e(n)}</p>" for n in findings_off_notes(s))
    if not fs:
        return ["<h2>Findings</h2>", "<p id=\"findings\">No figure crosses a finding's threshold.</p>" + off]
    items = "".join(f"<li class=\"finding {e(f['severity_name'])}\" data-kind=\"{e(f['kind'])}\">"
                    f"<b>{e(f['severity_name'])}</b>: {e(f['text'])} <span class=\"muted\">({e(f['threshold'])})</span>"
                    f"{replay_links_html(s, f.get('replays'))}</li>"
                    for f in fs)
    return ["<h2>Findings</h2>", f"<p class=\"muted\">{e(FINDINGS_NOTE)}</p>",
            f"<ol id=\"findings\">{items}</ol>" + off]


def findings_md(s) -> list[str]:
    fs = s.get("findings")
    if fs is None:
        return []
    off = [x for n in findings_off_notes(s) for x in (n, "")]
    if not fs:
        return ["## Findings", "", "No figure crosses a finding's threshold.", ""] + off
    return ["## Findings", "", FINDINGS_NOTE, ""] + [
        f"{i}. **{f['severity_name']}**: {f['text']} ({f['threshold']})"
        + (" Watch: " + ", ".join(f"[{_replay_title(s, h)}]({h})" for h in f["replays"]) + "." if f.get("replays") else "")
        for i, f in enumerate(fs, 1)] + [""] + off


REPLAYS_NOTE = ("Games sampled from this report's own setup (the first games of its seed), each chosen "
                "from the sample's per-game rows to show something; open one to step through it, "
                "with everything shown or only what one seat sees.")


def _replay_title(s, href: str) -> str:
    names = [r["title"] for r in s.get("replays") or [] if r["href"] == href]
    return " / ".join(names) if names else href


def replay_links_html(s, hrefs) -> str:
    """" watch: <a>...</a>" links to replays (by href), or nothing."""
    if not hrefs:
        return ""
    e = html.escape
    links = ", ".join(f"<a class=\"replay-link\" href=\"{e(h, quote=True)}\">{e(_replay_title(s, h).lower())}</a>"
                      for h in hrefs)
    return f" <span class=\"watch\">Watch: {links}.</span>"


def replays_html(s) -> list[str]:
    e = html.escape
    rs = s.get("replays")
    if not rs:
        return []
    items = "".join(f"<li data-replay=\"{e(r['name'])}\"><a href=\"{e(r['href'], quote=True)}\">{e(r['title'])}</a> "
                    f"<span class=\"muted\">(game {r['game_index']})</span>: {e(r['why'])}"
                    + (f" <span class=\"muted\">Opens at event {r['moment'] + 1}: {e(r['moment_why'])}</span>"
                       if r.get("moment") is not None else "") + "</li>" for r in rs)
    notes = [f"<p class=\"muted\">{e(n)}</p>" for n in s.get("replay_notes") or []]
    return ["<h2>Replays</h2>", f"<p>{e(REPLAYS_NOTE)}</p>", f"<ul id=\"replays\">{items}</ul>", *notes]


def replays_md(s) -> list[str]:
    rs = s.get("replays")
    if not rs:
        return []
    return ["## Replays", "", REPLAYS_NOTE, ""] + [
        f"- [{r['title']}]({r['href']}) (game {r['game_index']}): {r['why']}"
        + (f" Opens at event {r['moment'] + 1}: {r['moment_why']}" if r.get("moment") is not None else "")
        for r in rs] + [""] + [x for n in s.get("replay_notes") or [] for x in (n, "")]


def render_html(s, verdict_text, figs, command, tournament=None, variants=None, causal=None) -> str:
    e = html.escape
    title = f"cardlab report: {s['game']}"
    parts = [html_head(title),
             f"<p class=\"muted\">{s['games']:,} games, {s['players']} player(s), seed {s['seed']}, "
             f"strategies {e(', '.join(s['strategies']))}</p>",
             *first_screen_html(s, verdict_text),
             *findings_html(s), *replays_html(s),
             "<h2>Key numbers</h2>", _html_table(("", "value (95% interval)"), _key_rows(s))]
    if s.get("verdict_detail") and s.get("first_screen"):
        parts += [f"<p id=\"detail\"><span class=\"muted\">{e(DETAIL_NOTE)}</span> {e(s['verdict_detail'])}</p>"]
    if variants:
        parts += ["<h2>Rule variants</h2>", f"<p>{e(VARIANT_NOTE)}</p>",
                  _html_table(VARIANT_HEADERS, variant_rows(s, variants))]
        parts += [f"<p class=\"caveat\"><strong>{e(n)}</strong></p>" for n in variant_notes(s, variants)]
        head, rows = variant_card_rows(s, variants)
        if rows:
            parts += [f"<p>{e(VARIANT_CARD_NOTE)}</p>", _html_table(head, rows)]
    if pools_rows(s):
        parts += ["<h2>Seat verdicts across pools</h2>", f"<p>{e(POOLS_NOTE)}</p>",
                  _html_table(POOLS_HEADERS, pools_rows(s))]
        parts += [f"<p>{e(v['text'])}</p>" for v in s["pools"]["verdicts"].values()]
    if stuck_rows(s):
        parts += ["<h2>Why games stuck</h2>", f"<p>{e(STUCK_NOTE)}</p>",
                  _html_table(STUCK_HEADERS, stuck_rows(s))]
    if _play_rows(s):
        parts += ["<h2>Scores and events</h2>", f"<p>{e(PLAY_NOTE)}</p>",
                  _html_table(("", "per game"), _play_rows(s))]
    if shape_rows(s):
        parts += ["<h2>The shape of the game</h2>", f"<p>{e(SHAPE_NOTE)}</p>",
                  _html_table(("", "value (95% interval)"), shape_rows(s))]
    if luck_rows(s):
        parts += ["<h2>Luck and skill</h2>", f"<p>{e(LUCK_NOTE)}</p>", _html_table(LUCK_HEADERS, luck_rows(s)),
                  f"<p id=\"luck\">{e(luck_text(s))}</p>"]
    for f in figs:
        if f.name == "card_power":
            parts.append("<h2>Card power</h2>")
            if causal is not None:  # cause first; IWD after it, as the association it is
                parts.append(f"<p>{e(causal_note(causal))}</p>")
            parts.append(f"<p>{e(IWD_NOTE)}</p>")
        elif f.name == "seats":
            parts.append("<h2>Seats</h2>")
        elif f.name == "length":
            parts.append("<h2>Game length</h2>")
        elif f.name == "tournament":
            parts.append("<h2>Tournament</h2>")
            v = getattr(tournament, "verdict", None)
            if v:
                parts.append(f"<p>{e(str(v))}</p>")
        elif f.name == "skill_curve":
            parts += ["<h2>Skill ladder</h2>", f"<p>{e(LADDER_NOTE)}</p>",
                      f"<p class=\"verdict\" id=\"ladder-verdict\">{e(s['ladder']['verdict'])}</p>"]
        elif f.name != "survival":  # a game's own figure: its title is the heading
            parts.append(f"<h2>{e(f.title)}</h2>")
        parts.append(figure_html(f))
        if f.name == "card_power":
            parts.append(_html_table(card_headers(causal), _card_rows(s, causal)))
        if f.name == "skill_curve":
            parts.append(_html_table(LADDER_HEADERS, ladder_rows(s["ladder"])))
    if s.get("restricted"):
        parts += ["<h2>Restricted play</h2>", f"<p>{e(RESTRICTED_NOTE)}</p>",
                  f"<p class=\"verdict\" id=\"restricted-verdict\">{e(s['restricted']['verdict'])}</p>",
                  _html_table(RESTRICTED_HEADERS, restricted_rows(s["restricted"]))]
    parts.append("<h2>Reproduce</h2>")
    parts.append(f"<pre><code>{e(command)}</code></pre>")
    parts.append(_html_table(("what", "value"), _reproduce(s, command)))
    parts.append("<h3>Rules</h3>")
    parts.append(_html_table(("knob", "value"), [(k, json.dumps(v)) for k, v in s["rules"].items()]))
    parts.append("<p class=\"muted\">Raw tables: <a href=\"seats.csv\">seats.csv</a>, "
                 "<a href=\"lengths.csv\">lengths.csv</a>, <a href=\"card_power.csv\">card_power.csv</a>, "
                 "<a href=\"ends.csv\">ends.csv</a>, <a href=\"summary.json\">summary.json</a>.</p>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


def render_md(s, verdict_text, figs, command, tournament=None, variants=None, causal=None) -> str:
    lines = [f"# cardlab report: {s['game']}", "",
             f"{s['games']:,} games, {s['players']} player(s), seed {s['seed']}, "
             f"strategies {', '.join(s['strategies'])}", "", *first_screen_md(s, verdict_text),
             *findings_md(s), *replays_md(s),
             "## Key numbers", "", _fmt_table_md(("", "value (95% interval)"), _key_rows(s)), ""]
    if s.get("verdict_detail") and s.get("first_screen"):
        lines += [f"{DETAIL_NOTE} {s['verdict_detail']}", ""]
    if variants:
        lines += ["## Rule variants", "", VARIANT_NOTE, "",
                  _fmt_table_md(VARIANT_HEADERS, variant_rows(s, variants)), ""]
        lines += [x for n in variant_notes(s, variants) for x in (f"**{n}**", "")]
        head, rows = variant_card_rows(s, variants)
        if rows:
            lines += [VARIANT_CARD_NOTE, "", _fmt_table_md(head, rows), ""]
    if pools_rows(s):
        lines += ["## Seat verdicts across pools", "", POOLS_NOTE, "", _fmt_table_md(POOLS_HEADERS, pools_rows(s)), ""]
        lines += [x for v in s["pools"]["verdicts"].values() for x in (v["text"], "")]
    if stuck_rows(s):
        lines += ["## Why games stuck", "", STUCK_NOTE, "", _fmt_table_md(STUCK_HEADERS, stuck_rows(s)), ""]
    if _play_rows(s):
        lines += ["## Scores and events", "", PLAY_NOTE, "", _fmt_table_md(("", "per game"), _play_rows(s)), ""]
    if shape_rows(s):
        lines += ["## The shape of the game", "", SHAPE_NOTE, "",
                  _fmt_table_md(("", "value (95% interval)"), shape_rows(s)), ""]
    if luck_rows(s):
        lines += ["## Luck and skill", "", LUCK_NOTE, "", _fmt_table_md(LUCK_HEADERS, luck_rows(s)), "",
                  luck_text(s), ""]
    for f in figs:
        if f.name == "card_power":
            lines += ["## Card power", ""] + ([causal_note(causal), ""] if causal is not None else []) + [
                IWD_NOTE, ""]
        elif f.name == "tournament" and getattr(tournament, "verdict", None):
            lines += ["## Tournament", "", str(tournament.verdict), ""]
        elif f.name == "skill_curve":
            lines += ["## Skill ladder", "", LADDER_NOTE, "", s["ladder"]["verdict"], ""]
        elif f.name not in ("seats", "length", "survival", "tournament"):
            lines += [f"## {f.title}", ""]
        lines += [f"![{f.title}]({f.name}.png)", "", f"*{f.caption}*", ""]
        if f.name == "card_power":
            lines += [_fmt_table_md(card_headers(causal), _card_rows(s, causal)), ""]
        if f.name == "skill_curve":
            lines += [_fmt_table_md(LADDER_HEADERS, ladder_rows(s["ladder"])), ""]
    if s.get("restricted"):
        lines += ["## Restricted play", "", RESTRICTED_NOTE, "", s["restricted"]["verdict"], "",
                  _fmt_table_md(RESTRICTED_HEADERS, restricted_rows(s["restricted"])), ""]
    lines += ["## Reproduce", "", "```bash", command, "```", "",
              _fmt_table_md(("what", "value"), _reproduce(s, command)), "", "Rules:", "",
              _fmt_table_md(("knob", "value"), [(k, json.dumps(v)) for k, v in s["rules"].items()]), "",
              "Raw tables: `seats.csv`, `lengths.csv`, `card_power.csv`, `ends.csv`, `summary.json`.", ""]
    return "\n".join(lines)


def build_report(result, command: str, out_dir, tournament=None, variants=None,
                 pools=None, stuck=None, causal=None, ladder=None, restricted=None,
                 replays=None, luck=None) -> dict[str, Path]:
    """Write the report of ``result`` (a ``RunResult``) into ``out_dir``; ``command`` is the
    command line that reproduces it; ``tournament`` (optional) adds its heat map;
    ``variants`` (optional: [(\"knob=value\", summary), ...]) adds a rule-variant table;
    ``pools`` (an ``analysis.pools.Pools``) the seat verdicts across pools; ``stuck`` (an
    ``analysis.stuck.Stuck``) why the capped games stuck; ``causal`` (optional:
    ``analysis.causal.run_causal``'s object) shows the value of starting with each card
    beside IWD and uses it in the verdict instead of IWD; ``ladder`` (an
    ``analysis.ladder.Ladder``) the skill curve, ``restricted`` (an
    ``analysis.restricted.Restricted``) the restricted-play table, with their verdicts;
    ``replays`` (``analysis.replay_picks.sample_replays``' list) the sampled games, written
    as viewer pages under ``replays/`` and linked from the findings that they show; ``luck``
    (an ``analysis.luck.LuckProfile``) the luck-skill profile.
    Returns {name: path} for every file written."""
    from cardlab.analysis.stats import hist_mean_interval
    from cardlab.analysis.summary import summarize

    out = prepare_out_dir(out_dir)
    s = summarize(result)
    s["length"]["mean_ci"] = hist_mean_interval(result.tally.finished_hist)
    if pools is not None:
        s["pools"] = pools.to_dict()
    if stuck is not None:
        s["stuck"] = stuck.to_dict() | {"sentence": stuck.sentence()}
    if ladder is not None:
        s["ladder"] = ladder.to_dict()
    if restricted is not None:
        s["restricted"] = restricted.to_dict()
    if luck is not None:
        s["luck"] = luck.to_dict()
    from cardlab.analysis.findings import findings, findings_off

    from cardlab.analysis.headlines import first_screen, headlines

    with_causal = s | ({"causal_card_power": causal} if causal else {})
    s["findings"] = [f.to_dict() for f in findings(with_causal)]
    s["findings_off"] = [{"kind": k, "reason": r} for k, r in findings_off(s).items()]
    s["headlines"] = headlines(with_causal)
    s["first_screen"] = first_screen(s["headlines"])
    if (s.get("pools") or {}).get("strong"):
        from cardlab.analysis.pools import strength_sentence

        s["strong_play"] = strength_sentence(s["pools"]["strong"])
    if replays:
        from cardlab.analysis.replay_picks import link_findings, write_replays

        try:
            write_replays(replays, out)
        except InputError as ex:
            raise InputError(f"cannot write the replays into {str(out_dir)!r}: {ex}") from None
        link_findings(s["findings"], replays)
        link_findings(s["first_screen"], replays)
        s["replays"] = [r.to_dict() for r in replays]
        s["replay_notes"] = list(getattr(replays, "notes", ()))  # picks the sample could not make
    hist = np.asarray(result.tally.finished_hist)
    text = verdict(s, causal)
    s["verdict_detail"] = details(s, causal)
    figs = _figures(s, hist, tournament, capped=int(result.tally.unfinished))
    paths: dict[str, Path] = {}

    def write(name: str, data: str | bytes) -> None:
        p = out / name
        if isinstance(data, bytes):
            p.write_bytes(data)
        else:
            p.write_text(data, encoding="utf-8")
        paths[name] = p

    try:
        for f in figs:
            write(f"{f.name}.png", f.png)
        for name, df in raw_tables(result).items():
            df.to_csv(out / name, index=False)
            paths[name] = out / name
        if tournament is not None:
            for attr in ("matrix", "ratings"):
                df = getattr(tournament, attr, None)
                if df is not None:
                    df.to_csv(out / f"tournament_{attr}.csv")
                    paths[f"tournament_{attr}.csv"] = out / f"tournament_{attr}.csv"
        extra = {"command": command, "cardlab_version": cardlab_version(), "verdict": text}
        if causal is not None:
            extra["causal_card_power"] = causal
        if variants:
            extra["variants"] = {label: {k: v[k] for k in ("games", "unfinished_rate",
                                                           "unfinished_rate_ci", "no_winner_rate",
                                                           "length", "win_rate_by_seat", "balance")
                                         if k in v} for label, v in variants}
        write("summary.json", json.dumps(s | extra, indent=1) + "\n")
        write("report.md", render_md(s, text, figs, command, tournament, variants, causal))
        write("index.html", render_html(s, text, figs, command, tournament, variants, causal))
        for r in s.get("replays") or []:
            paths.setdefault(r["page"], out / r["page"])
    except OSError as e:
        raise InputError(f"cannot write the report into {str(out_dir)!r}: {e.strerror}") from None
    return paths


DEMO_CSS = (" .overview td,.overview th{font-size:.9rem} .panel{border:1px solid #ddd;border-radius:8px;"
            "padding:.4rem 1rem 1rem;margin:1.2rem 0;background:#fff} .panel h2{border:none;margin-top:.6rem}"
            " .plots{display:flex;flex-wrap:wrap;gap:.8rem;margin:.6rem 0} .plots figure{margin:0}"
            " .plots figcaption{font-size:.8rem;max-width:260px} .figures td{font-variant-numeric:tabular-nums}"
            " .finding.severe b,.sev3{color:#b00020} .finding.notable b,.sev2{color:#a05a00} .sev1{color:#555}"
            " body{max-width:72rem} .panel .verdict{font-size:.95rem}")

def demo_figures(s: dict[str, Any]) -> list[tuple[str, str, str, Any]]:
    """(key, label, text, value) of a game's key figures on the dashboard, from its summary."""
    out = []
    rates, cis = s.get("win_rate_by_seat"), s.get("win_rate_ci_by_seat")
    if rates and cis:
        out.append(("win_rate_by_seat", "win rate by seat [95%]",
                    "; ".join(f"seat {i} {_pct(r)} [{_pct(c[0])}, {_pct(c[1])}]" for i, (r, c) in enumerate(zip(rates, cis))),
                    rates))
    e, ci = s.get("first_player_advantage"), s.get("first_player_advantage_ci")
    if e is not None and ci:
        label = "seat 0 edge, confounded by strategy [95%]" if s.get("seat_edge_confounded") else \
            "seat 0 minus fair share [95%]"
        out.append(("first_player_advantage", label, f"{_pts(e)} points [{_pts(ci[0])}, {_pts(ci[1])}]", e))
    if s.get("balance") is not None:
        out.append(("balance", "balance (1 - largest seat gap)", f"{s['balance']:.3f}", s["balance"]))
    r, ci = s.get("unfinished_rate"), s.get("unfinished_rate_ci")
    if r is not None:
        out.append(("unfinished_rate", "unfinished (hit the cap)" + (" [95%]" if ci else ""),
                    _pct(r, 2) + (f" [{_pct(ci[0], 2)}, {_pct(ci[1], 2)}]" if ci else ""), r))
    L = s.get("length")
    if L and L.get("median") is not None:
        out.append(("length", "length of finished games",
                    f"median {L['median']:g} {L['unit']}, p10 {L['p10']:g}, p90 {L['p90']:g}, mean {L['mean']:.1f}",
                    L["median"]))
    return out


def _demo_panel(en: dict[str, Any]) -> str:
    from cardlab.analysis.svg_plots import length_svg, seats_svg, skill_svg

    e = html.escape
    s = en.get("summary") or {}
    base = en["href"].rsplit("/", 1)[0] + "/" if "/" in en["href"] else ""
    meta = ""
    if en.get("games") is not None:
        meta = (f"<p class=\"muted\">{en['games']:,} games, {en.get('players', '?')} players"
                + (f", strategies {e(', '.join(sorted(set(s['strategies']))))}" if s.get("strategies") else "")
                + "</p>")
    rows = "".join(f"<tr data-key=\"{e(k)}\"><th>{e(label)}</th><td data-value=\"{e(json.dumps(v), quote=True)}\">"
                   f"{e(text)}</td></tr>" for k, label, text, v in demo_figures(s))
    plots = []
    if s.get("win_rate_by_seat") and s.get("win_rate_ci_by_seat"):
        plots.append((seats_svg(s["win_rate_by_seat"], s["win_rate_ci_by_seat"]),
                      "Win rate by seat, 95% intervals; dashed: the fair share."))
    if en.get("length_hist") is not None:
        plots.append((length_svg(en["length_hist"], (s.get("length") or {}).get("unit", "turns")),
                      "Length of the finished games."))
    lad = s.get("ladder")
    if lad and lad.get("curve"):
        plots.append((skill_svg(lad["curve"], s.get("players") or en.get("players") or 2),
                      "Skill curve: each rung against the field; dashed: the fair share."))
    replays: dict[str, dict] = {}
    for r in s.get("replays") or []:
        replays.setdefault(r["href"], r)  # two picks of one game: the page is the first's
    fs = en.get("findings") or []
    items = "".join(
        f"<li class=\"finding {e(f['severity_name'])}\" data-kind=\"{e(f['kind'])}\"><b>{e(f['severity_name'])}</b>: "
        f"{e(f['text'])}" + ("".join(f" <a class=\"replay-link\" href=\"{e(base + h, quote=True)}\">watch: "
                                      f"{e(replays[h]['title'].lower() if h in replays else h)}</a>"
                                      for h in f.get("replays") or [])) + "</li>" for f in fs)
    seen, links = set(), []
    for r in replays.values():
        if r["href"] not in seen:
            seen.add(r["href"])
            links.append(f"<a href=\"{e(base + r['href'], quote=True)}\" data-replay=\"{e(r['name'])}\">"
                         f"{e(r['title'].lower())}</a>")
    return (f"<section class=\"panel\" id=\"game-{e(en['game'])}\" data-game=\"{e(en['game'])}\">"
            f"<h2><a href=\"{e(en['href'], quote=True)}\">{e(en['game'])}</a> <small>{e(en.get('title', ''))}</small></h2>"
            f"{meta}"
            + _demo_headlines(s, en, base)
            + (f"<table class=\"figures\">{rows}</table>" if rows else "")
            + ("<div class=\"plots\">" + "".join(f"<figure>{svg}<figcaption>{e(cap)}</figcaption></figure>"
                                                for svg, cap in plots) + "</div>" if plots else "")
            + (f"<p class=\"ladder\"><b>Skill:</b> {e(en['ladder'])}</p>" if en.get("ladder") else "")
            + (f"<h3>Findings</h3><ul class=\"findings\">{items}</ul>" if fs else
               ("<p class=\"findings-none\">No figure crosses a finding's threshold.</p>" if "findings" in en else ""))
            + (f"<p class=\"replays\"><b>Replays:</b> {', '.join(links)}.</p>" if links else "")
            + f"<p><a class=\"full\" href=\"{e(en['href'], quote=True)}\">The full report \u2192</a></p></section>")


def _demo_headlines(s: dict[str, Any], en: dict[str, Any], base: str) -> str:
    """A panel's first screen: the game's classified headlines (each with its class and the
    replay that shows it) and the strong player's measured strength; the verdict text when
    the summary has no headlines."""
    e = html.escape
    hs = s.get("first_screen")
    if not hs:
        return f"<p class=\"verdict\">{e(en['verdict'])}</p>" if en.get("verdict") else ""
    items = "".join(
        f"<li class=\"headline {e(h['class'])}\" data-kind=\"{e(h['kind'])}\" data-class=\"{e(h['class'])}\">"
        f"<span class=\"badge\">{e(h['class_words'])}</span> {e(h['text'])}"
        + "".join(f" <a class=\"replay-link\" href=\"{e(base + r, quote=True)}\">watch</a>" for r in h.get("replays") or [])
        + "</li>" for h in hs)
    strong = f"<p class=\"muted strong-play\">{e(s['strong_play'])}</p>" if s.get("strong_play") else ""
    return f"<ol class=\"verdict headlines\">{items}</ol>{strong}"


def _demo_overview(entries: Sequence[dict[str, Any]]) -> str:
    """One row per game: its findings by severity, so which game has which problem shows at once."""
    e = html.escape
    rows = []
    for en in entries:
        fs = en.get("findings") or []
        cells = []
        for sev in (3, 2, 1):
            kinds = [f["kind"].replace("_", " ") for f in fs if f.get("severity") == sev]
            counted = [k + (f" \u00d7{kinds.count(k)}" if kinds.count(k) > 1 else "") for k in dict.fromkeys(kinds)]
            text = e(", ".join(counted)) or "\u2014"
            cells.append(f"<td class=\"sev{sev}\" data-count=\"{len(kinds)}\">{text}</td>")
        classes = [h["class_words"] for h in (en.get("summary") or {}).get("first_screen") or []]
        counted = [c + (f" \u00d7{classes.count(c)}" if classes.count(c) > 1 else "") for c in dict.fromkeys(classes)]
        text = e(", ".join(counted)) or "\u2014"
        cells.append(f"<td class=\"classes\" data-count=\"{len(classes)}\">{text}</td>")
        rows.append(f"<tr data-game=\"{e(en['game'])}\"><th><a href=\"#game-{e(en['game'])}\">{e(en['game'])}</a></th>"
                    + "".join(cells) + "</tr>")
    return ("<table class=\"overview\" id=\"overview\"><tr><th>game</th><th>severe</th><th>notable</th>"
            "<th>minor</th><th>headlines, by what they hold for</th></tr>" + "".join(rows) + "</table>")


def write_demo_index(entries: Sequence[dict[str, Any]], out_dir) -> Path:
    """The demo's dashboard: an overview of every game's findings, then a panel per game
    with its key figures, small inline SVG plots (seat win rates with intervals, the length
    distribution, the skill curve), its findings linked to the replays that show them, and
    links to the full report and its replays.  Each entry has ``game``, ``title``, ``href``
    (relative link to the game's index.html), ``verdict`` and optionally ``games``,
    ``players``, ``command``, ``ladder`` (its verdict), ``findings``, ``summary`` (the
    report's summary.json object: figures, ``ladder``, ``replays``) and ``length_hist``
    (finished games by length)."""
    e = html.escape
    out = prepare_out_dir(out_dir)
    cmd = entries[0].get("command") if entries else None
    page = (html_head("cardlab demo: every shipped game", DEMO_CSS) +
            "<p>Each game simulated with its default rules, player count and strategies, and played "
            "by its strong pool (its strongest honest player in every seat). A panel per game: its "
            "headlines, each classified by the players it holds for (about the game, an artefact of "
            "the heuristics, depends on the players, cannot tell yet), its key figures, plots, "
            "findings (each linked to a replay that shows it) and the link to its full report.</p>"
            + (_demo_overview(entries) if entries else "")
            + "".join(_demo_panel(en) for en in entries)
            + (f"<p class=\"muted\">Made by <code>{e(cmd)}</code>, cardlab {e(cardlab_version())}.</p>" if cmd else "")
            + "</body></html>\n")
    p = out / "index.html"
    try:
        p.write_text(page, encoding="utf-8")
    except OSError as ex:
        raise InputError(f"cannot write {str(p)!r}: {ex.strerror}") from None
    return p
