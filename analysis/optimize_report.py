"""The optimizer's report section: tuned parameters, win rates before and after tuning
on fresh games, the verdict, the search's convergence and (with --vary) the tuned edge
across rule variants; written as index.html / report.md in the analysis report's format."""
from __future__ import annotations

import html
import json
from pathlib import Path

import numpy as np

from cardlab.analysis.optimize import OptResult, _fmt_params
from cardlab.analysis.plots import BLUE, ORANGE, RED, _new, _png
from cardlab.analysis.report import ReportFigure, _fmt_table_md, _html_table, cardlab_version, figure_html, html_head


def convergence(r: OptResult) -> bytes:
    ev = r.evaluations
    fig = _new(7, 4)
    ax = fig.add_subplot()
    ax.scatter(ev["evaluation"], 100 * ev["win_rate"], s=12, color=BLUE, alpha=0.6, label="candidate")
    ax.plot(ev["evaluation"], 100 * np.maximum.accumulate(ev["win_rate"]), color=ORANGE, label="best so far")
    ax.axhline(100 * r.train_default, color="black", ls=":", label="default parameters")
    ax.axhline(100 * r.fair, color=RED, ls="--", lw=1, label=f"fair share {100 * r.fair:.1f}%")
    ax.set_xlabel("candidate evaluated")
    ax.set_ylabel("win rate on the training games (%)")
    ax.set_title(f"Search: {r.strategy} against {'/'.join(dict.fromkeys(r.against))}")
    ax.legend(fontsize=8)
    return _png(fig)


def edge_plot(r: OptResult) -> bytes:
    v = r.variants
    fig = _new(7, 4)
    ax = fig.add_subplot()
    x = np.arange(len(v))
    for col, c, name in (("tuned", ORANGE, "tuned"), ("default", BLUE, "default")):
        y = 100 * v[col].to_numpy(float)
        lo = 100 * v[f"{col}_lo"].to_numpy(float)
        hi = 100 * v[f"{col}_hi"].to_numpy(float)
        ax.errorbar(x, y, yerr=[y - lo, hi - y], marker="o", capsize=5, color=c, label=name)
    ax.axhline(100 * r.fair, color=RED, ls="--", lw=1, label="fair share")
    ax.set_xticks(x, list(v["variant"]), rotation=20, ha="right")
    ax.set_ylabel("win rate on fresh games (%)")
    ax.set_title("Tuned and default parameters across rule variants")
    ax.legend(fontsize=8)
    return _png(fig)


def _rows(r: OptResult) -> list[tuple[str, str]]:
    def pct(x):
        return f"{100 * x['rate']:.1f}% [{100 * x['ci'][0]:.1f}, {100 * x['ci'][1]:.1f}]"

    d = r.difference
    return [("strategy", r.strategy), ("field", ", ".join(r.against)), ("players", str(r.players)),
            ("default parameters", _fmt_params(r.default)), ("tuned parameters", _fmt_params(r.best)),
            (f"win rate, default (fresh, {r.fresh_games:,} games)", pct(r.fresh_default)),
            (f"win rate, tuned (fresh, {r.fresh_games:,} games)", pct(r.fresh_best)),
            ("tuned − default (paired)", f"{100 * d['diff']:+.1f} points [{100 * d['lo']:+.1f}, "
                                         f"{100 * d['hi']:+.1f}], p = {d['p']:.2g}"),
            ("search", f"{len(r.evaluations)} candidates × {r.games:,} games (seed {r.seed}), "
                       f"training win rate default {100 * r.train_default:.1f}%, best {100 * r.train_best:.1f}%")]


NOTE = ("Every candidate played the same games (common random numbers) with the candidate rotated "
        "through every seat. The best of many noisy candidates looks better than it is, so the "
        "tuned and the default parameters were replayed on fresh seeds: those are the honest numbers.")


def write(r: OptResult, command: str, out) -> dict[str, Path]:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    figs = [ReportFigure("convergence", "Search", "Each candidate's win rate on the training games and "
                         "the best so far.", convergence(r))]
    if r.variants is not None and len(r.variants):
        figs.append(ReportFigure("edge_by_variant", "Across rule variants",
                                 "Tuned and default parameters on fresh games under each rule variant, "
                                 "with 95% intervals.", edge_plot(r)))
    paths = {}
    for f in figs:
        (out / f"{f.name}.png").write_bytes(f.png)
        paths[f"{f.name}.png"] = out / f"{f.name}.png"
    r.evaluations.to_csv(out / "evaluations.csv", index=False)
    (out / "optimize.json").write_text(json.dumps(r.to_json() | {"command": command}, indent=1) + "\n")
    e = html.escape
    title = f"cardlab optimize: {r.game}, {r.strategy}"
    parts = [html_head(title),
             f"<p class=\"verdict\" id=\"verdict\">{e(r.verdict)}</p>", "<h2>Strategy search</h2>",
             f"<p>{e(NOTE)}</p>", _html_table(("", "value"), _rows(r))]
    md = [f"# {title}", "", "## Verdict", "", r.verdict, "", "## Strategy search", "", NOTE, "",
          _fmt_table_md(("", "value"), _rows(r)), ""]
    if r.variants is not None and len(r.variants):
        vrows = [(v["variant"], f"{100 * v['tuned']:.1f}%", f"{100 * v['default']:.1f}%",
                  f"{100 * v['edge']:+.1f} [{100 * v['edge_lo']:+.1f}, {100 * v['edge_hi']:+.1f}]")
                 for _, v in r.variants.iterrows()]
        head = ("rule variant", "tuned", "default", "tuned edge, points [95%]")
        parts += ["<h2>The tuned edge across rule variants</h2>", _html_table(head, vrows)]
        md += ["## The tuned edge across rule variants", "", _fmt_table_md(head, vrows), ""]
    for f in figs:
        parts.append(f"<h2>{e(f.title)}</h2>{figure_html(f)}")
        md += [f"## {f.title}", "", f"![{f.title}]({f.name}.png)", "", f"*{f.caption}*", ""]
    parts += ["<h2>Reproduce</h2>", f"<pre><code>{e(command)}</code></pre>",
              f"<p class=\"muted\">cardlab {e(cardlab_version())}; every candidate in "
              f"<a href=\"evaluations.csv\">evaluations.csv</a>, all numbers in "
              f"<a href=\"optimize.json\">optimize.json</a>.</p></body></html>\n"]
    md += ["## Reproduce", "", "```bash", command, "```", ""]
    (out / "index.html").write_text("\n".join(parts), encoding="utf-8")
    (out / "report.md").write_text("\n".join(md), encoding="utf-8")
    paths.update({"index.html": out / "index.html", "report.md": out / "report.md",
                  "optimize.json": out / "optimize.json", "evaluations.csv": out / "evaluations.csv"})
    return paths
