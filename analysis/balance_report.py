"""``cardlab balance``'s words, text and page: the verdict (never more than the intervals
say), the short list as a table, the search's path as a plot, ``balance.json`` and
``search.csv`` beside ``index.html`` / ``report.md``."""
from __future__ import annotations

import csv
import html
import json
import math
from pathlib import Path
from typing import Any

from cardlab.analysis.balance_targets import FIGURES, Target

COMPONENT = {"seat_edge": "seat {i}"}


def _unit(fig: str, game_unit: str) -> str:
    u = FIGURES[fig][1]
    return game_unit if u == "unit" else u


def show(fig: str, value: float | None, game_unit: str = "turns", sign: bool | None = None) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "n/a"
    u = _unit(fig, game_unit)
    if u == "points":
        return f"{value:+.1f}" if sign is not False else f"{value:.1f}"
    if u == "%":
        return f"{value:+.2f}%" if sign else f"{value:.2f}%"
    return f"{value:+.2f}" if sign else f"{value:.2f}"


def shown(fig: str, f: dict[str, Any], unit: str, sign: bool | None = None) -> str:
    """A figure with its interval: ``+0.3 [-0.6, +1.2]``."""
    lo, hi = f["ci"]
    return f"{show(fig, f['value'], unit, sign)} [{show(fig, lo, unit, sign)}, {show(fig, hi, unit, sign)}]"


def name(fig: str, i: int) -> str:
    return COMPONENT.get(fig, "{fig}").format(i=i, fig=fig)


def figures_text(targets: list[Target], figs: dict[str, list[dict]], unit: str) -> str:
    """``seat_edge: seat 0 +0.3 [-0.6, +1.2], seat 1 ...; length 23.1 [22.9, 23.3]``."""
    parts = []
    for t in targets:
        fs = figs[t.text]
        if len(fs) == 1:
            parts.append(f"{t.figure} {shown(t.figure, fs[0], unit)}")
        else:
            parts.append(f"{t.figure}: " + ", ".join(f"{name(t.figure, i)} {shown(t.figure, f, unit)}"
                                                     for i, f in enumerate(fs)))
    return "; ".join(parts)


def _judged(targets: list[Target], judged: dict[str, Any], unit: str) -> str:
    figs: dict[str, list[dict]] = {}
    for row in judged["figures"]:
        figs.setdefault(row["target"], []).append(row)
    return figures_text(targets, figs, unit)


def _decide(judged: dict[str, Any]) -> str:
    need = [r["games_to_decide"] for r in judged["figures"] if r["verdict"] == "open"]
    if not need:
        return ""
    if any(n is None for n in need):
        return " (an estimate on the band's very edge: no number of games would decide)"
    return f" (about {max(need):,} games would decide)"


def strong_sentence(r, p) -> str:
    if not p.strong:
        return ""
    unit = _game_unit(r.game)
    head = (f"Under strong play ({r.strong_player} in every seat, the same {p.strong_games:,} fresh deals) "
            f"it gives {_judged(r.targets, p.strong, unit)}")
    v = p.strong["verdict"]
    if v == "inside":
        tail = ": the change holds under strong play."
    elif v == "outside" and p.verified:
        tail = ": it misses the target under strong play, so it works only for the heuristics."
    elif v == "outside":
        tail = ": it misses the target under strong play too."
    else:
        tail = f": cannot tell yet whether it holds under strong play{_decide(p.strong)}."
    moves = [f"{name(e['figure'], e['component']) if e['figure'] == 'seat_edge' else e['figure']} "
             f"{_change(e, unit)}" for e in p.strong.get("change", [])]
    if moves:
        tail += f" Paired with the current rules on the same deals, the change moves {', '.join(moves)}."
    cur = ""
    if r.strong_current:
        cur = f" The current rules under strong play: {_judged(r.targets, r.strong_current, unit)}."
    return head + tail + cur


def _change(e: dict[str, Any], unit: str) -> str:
    """A paired change with its interval: ``-2.4 [-3.5, -1.3]``."""
    fig, ch = e["figure"], e["change"]
    return (f"{show(fig, ch['diff'], unit, True)} [{show(fig, ch['ci'][0], unit, True)}, "
            f"{show(fig, ch['ci'][1], unit, True)}]")


def _game_unit(game_id: str) -> str:
    from cardlab.sim.registry import get_game

    return get_game(game_id).length_unit


def verdict(r) -> str:
    """What the run found, in sentences that claim no more than their intervals."""
    unit = _game_unit(r.game)
    want = ", ".join(t.text for t in r.targets)
    cur = figures_text(r.targets, r.current["search"]["figures"], unit)
    if not r.proposals:
        return (f"No rule change could be tried for {want} (every candidate was refused or repeated the "
                f"current rules).")
    if not r.met:
        p = r.proposals[0]
        more = " The budget ran out before the search finished: a larger --budget may find one." \
            if r.stopped_by_budget else ""
        figs = {t.text: [f.to_json() for f in p.search[t.figure]] for t in r.targets}
        return (f"No change of at most {max(len(x.candidate.changes) for x in r.proposals)} knob(s) among "
                f"{r.candidates} candidates met {want} (the current rules: {cur}). The closest: "
                f"{p.candidate.label}, with {figures_text(r.targets, figs, unit)} on {p.search_games:,} games."
                + more)
    p = r.proposals[0]
    if p.fresh and "fresh" in r.current:  # compared on the same fresh deals
        cur = figures_text(r.targets, r.current["fresh"]["figures"], unit)
    if p.verified:
        s = (f"{p.candidate.label} meets {want}: {_judged(r.targets, p.fresh, unit)} on {p.fresh_games:,} "
             f"fresh games (intervals adjusted over the short list's {p.fresh['intervals']} figures), against "
             f"{cur} under the current rules.")
        simpler = [x.candidate.label for x in r.proposals[1:] if not x.verified
                   and len(x.candidate.changes) < len(p.candidate.changes)]
        if simpler:
            s += (f" (Changing fewer knobs, {', '.join(simpler)} looked within the band in the search but is "
                  f"not verified on fresh games.)")
    else:
        how = "met" if p.search_status == "meets" else "looked within (every estimate inside its band)"
        s = f"{p.candidate.label} {how} {want} in the search"
        if p.fresh and p.fresh["verdict"] == "outside":
            s += (f" but misses it on {p.fresh_games:,} fresh games: {_judged(r.targets, p.fresh, unit)} (the "
                  f"best of many noisy candidates looks better than it is).")
        elif p.fresh:
            s += (f" but is not verified on {p.fresh_games:,} fresh games: {_judged(r.targets, p.fresh, unit)}"
                  f"{_decide(p.fresh)}.")
        else:
            s += " (not verified)."
    ss = strong_sentence(r, p)
    return s + (" " + ss if ss else "")


# ------------------------------------------------------------------ text
def short_list_rows(r) -> list[tuple[str, ...]]:
    unit = _game_unit(r.game)
    rows = []
    for p in r.proposals:
        if p.fresh:
            figs = _judged(r.targets, p.fresh, unit)
            state = "verified" if p.verified else ("misses" if p.fresh["verdict"] == "outside" else "open")
        else:
            figs = figures_text(r.targets, {t.text: [f.to_json() for f in p.search[t.figure]] for t in r.targets},
                                unit)
            state = "search only"
        strong = {"inside": "holds", "outside": "heuristics only", "open": "cannot tell"}.get(
            (p.strong or {}).get("verdict"), "not played")
        rows.append((str(p.rank), p.candidate.label, figs, state, strong))
    return rows


SHORT_HEADERS = ("#", "change", "targets [interval]", "fresh games", "strong play")


def side_rows(r, p) -> list[tuple[str, ...]]:
    unit = _game_unit(r.game)
    out = []
    for e in p.side_effects:
        fig = e["figure"]
        out.append((f"{fig} {name(fig, e['component'])}" if fig == "seat_edge" else fig,
                    show(fig, e["current"], unit), shown(fig, e, unit), _change(e, unit)))
    return out


SIDE_HEADERS = ("figure", "current rules", "with the change [95%]", "change, paired [95%]")


def render_text(r) -> str:
    lines = [f"{r.game}, {r.players} players, {', '.join(dict.fromkeys(r.strategies))} in every seat; "
             f"targets: {', '.join(t.text for t in r.targets)}",
             f"searched {r.candidates} candidate rule changes over {len(r.knobs)} knob(s) "
             f"({r.search_games:,} games{', budget reached' if r.stopped_by_budget else ''}, "
             f"{r.elapsed_s:.0f} s" + (f", {r.reused_games:,} games reused" if r.reused_games else "") + ")", ""]
    w = [max(len(h), *(len(x[i]) for x in short_list_rows(r))) for i, h in enumerate(SHORT_HEADERS)] \
        if r.proposals else []
    if r.proposals:
        lines.append("  ".join(h.ljust(w[i]) for i, h in enumerate(SHORT_HEADERS)))
        for row in short_list_rows(r):
            lines.append("  ".join(x.ljust(w[i]) for i, x in enumerate(row)))
        lines.append("")
    if r.proposals and r.proposals[0].side_effects:
        p = r.proposals[0]
        lines.append(f"side effects of #1 ({p.candidate.label}) on {p.fresh_games:,} fresh games:")
        for row in side_rows(r, p):
            lines.append(f"  {row[0]:<16} {row[1]:>10} -> {row[2]:<28} {row[3]}")
        lines.append("")
    lines.append(r.verdict)
    lines += r.notes
    return "\n".join(lines)


# ------------------------------------------------------------------ the page
def path_plot(r) -> bytes:
    """The search's path: each candidate's worst miss (0 = every estimate inside its band)
    after each round, by games played; the short list marked."""
    from cardlab.analysis.plots import BLUE, ORANGE, RED, _new, _png

    fig = _new(7, 4)
    ax = fig.add_subplot()
    by: dict[str, list[tuple[int, float]]] = {}
    for row in r.log:
        if row["worst_miss"] is not None:
            by.setdefault(row["candidate"], []).append((row["games"], row["worst_miss"]))
    chosen = {p.candidate.label for p in r.proposals}
    for label, pts in by.items():
        xs, ys = zip(*pts)
        c, lw, z = (ORANGE, 2.0, 3) if label in chosen else (BLUE, 0.8, 2)
        ax.plot(xs, ys, marker="o", ms=3, color=c, lw=lw, alpha=0.9 if label in chosen else 0.35, zorder=z)
    ax.axhline(0, color=RED, ls="--", lw=1, label="inside every band")
    ax.set_xscale("log")
    ax.set_xlabel("games played by the candidate (log scale)")
    ax.set_ylabel("worst miss (in band widths)")
    ax.set_title(f"Search: {r.candidates} candidates (orange: the short list)")
    ax.legend(fontsize=8)
    return _png(fig)


def write(r, out: Path) -> dict[str, Path]:
    from cardlab.analysis.report import (ReportFigure, _fmt_table_md, _html_table, cardlab_version, figure_html,
                                         html_head)

    out.mkdir(parents=True, exist_ok=True)
    e = html.escape
    data = r.to_json()
    (out / "balance.json").write_text(json.dumps(data, indent=1) + "\n")
    cols = sorted({k for row in r.log for k in row}, key=lambda k: (k not in ("stage", "round", "candidate"), k))
    with open(out / "search.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, cols)
        w.writeheader()
        w.writerows(r.log)
    title = f"cardlab balance: {r.game}"
    f = ReportFigure("search", "The search's path", "Each candidate's worst miss after each round of the race "
                     "(0: every estimate inside its band); candidates leave the race when an interval lies "
                     "wholly outside a band, when halved, or when they meet every target.", path_plot(r))
    (out / "search.png").write_bytes(f.png)
    parts = [html_head(title), f"<p class=\"verdict\" id=\"verdict\">{e(r.verdict)}</p>",
             "<h2>Short list</h2>", _short_table(r)]
    md = [f"# {title}", "", "## Verdict", "", r.verdict, "", "## Short list", "",
          _fmt_table_md(SHORT_HEADERS, short_list_rows(r)), ""]
    for p in r.proposals:
        if p.side_effects:
            head = f"Side effects of #{p.rank}: {p.candidate.label} ({p.fresh_games:,} fresh games)"
            parts += [f"<h3>{e(head)}</h3>", _html_table(SIDE_HEADERS, side_rows(r, p))]
            md += [f"### {head}", "", _fmt_table_md(SIDE_HEADERS, side_rows(r, p)), ""]
        ss = strong_sentence(r, p)
        if ss:
            parts.append(f"<p>{e(ss)}</p>")
            md += [ss, ""]
    parts += [f"<h2>{e(f.title)}</h2>{figure_html(f)}", "<h2>How it was found</h2>", f"<p>{e(METHOD)}</p>"]
    md += [f"## {f.title}", "", "![search](search.png)", "", f"*{f.caption}*", "", "## How it was found", "",
           METHOD, ""]
    if r.refused:
        items = "".join(f"<li>{e(k)}: {e(v)}</li>" for k, v in r.refused.items())
        parts.append(f"<h3>Changes the game refused for this table</h3><ul>{items}</ul>")
        md += ["### Changes the game refused for this table", ""] + [f"- {k}: {v}" for k, v in r.refused.items()] + [""]
    if r.command:
        parts += ["<h2>Reproduce</h2>", f"<pre><code>{e(r.command)}</code></pre>"]
        md += ["## Reproduce", "", "```bash", r.command, "```", ""]
    parts.append(f"<p class=\"muted\">cardlab {e(cardlab_version())}; every round in <a href=\"search.csv\">"
                 f"search.csv</a>, all numbers in <a href=\"balance.json\">balance.json</a>.</p></body></html>\n")
    (out / "index.html").write_text("\n".join(parts), encoding="utf-8")
    (out / "report.md").write_text("\n".join(md), encoding="utf-8")
    return {n: out / n for n in ("balance.json", "search.csv", "search.png", "index.html", "report.md")}


METHOD = ("Every candidate changes the knobs nearest their current values, within their declared "
          "ranges, and plays the same deals as the current rules (common random numbers). A race "
          "doubles the games of the candidates still open and drops one as soon as an interval lies "
          "outside its band; changes of one knob come first, pairs and triples (predicted from the single "
          "changes' effects) only while too few meet the targets. The short list then replays deals the "
          "search never played, with intervals adjusted (Bonferroni) over every short-listed figure, and "
          "the strong player replays the same deals in every seat: a change that holds only for the "
          "heuristics is reported as such.")


def _short_table(r) -> str:
    e = html.escape
    head = "".join(f"<th>{e(h)}</th>" for h in SHORT_HEADERS + ("replays",))
    body = []
    for p, row in zip(r.proposals, short_list_rows(r)):
        links = " ".join(f"<a href=\"{e(x['href'])}\" title=\"{e(x['why'])}\">{e(x['name'])}</a>" for x in p.replays)
        body.append("<tr>" + "".join(f"<td>{e(x)}</td>" for x in row) + f"<td>{links}</td></tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
