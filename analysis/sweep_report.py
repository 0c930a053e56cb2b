"""A sweep's figures and its HTML / Markdown report (the analysis report's format).

Figures: for each varied key, every compared metric against that key's values, one
line per combination of the other varied keys, with its 95% interval as a band; for a
two-key grid, heat maps of first-player advantage and mean length.
"""
from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from cardlab.analysis.plots import BLUE, _new, _png
from cardlab.analysis.report import ReportFigure, _fmt_table_md, _html_table, cardlab_version, figure_html, html_head
from cardlab.analysis.sweep import METRIC_LABEL, SweepResult

# metric -> (column, low column, high column, scale to display, axis label)
PLOTTED = {
    "first_player_advantage": ("first_player_advantage", "first_player_advantage_lo",
                               "first_player_advantage_hi", 100, "first-player advantage (points)"),
    "mean_length": ("mean_length", "mean_length_lo", "mean_length_hi", 1, "mean length (finished games)"),
    "unfinished_rate": ("unfinished_rate", "unfinished_rate_lo", "unfinished_rate_hi", 100, "unfinished (%)"),
    "balance": ("balance", None, None, 1, "balance (1 = seats equal)"),
}


def _xvals(values: Sequence[str]) -> tuple[np.ndarray, list[str]]:
    """Numeric positions when every value is a number, else evenly spaced categories."""
    try:
        x = np.array([float(v) for v in values])
        return x, list(values)
    except ValueError:
        return np.arange(len(values), dtype=float), list(values)


def metric_lines(res: SweepResult, key: str) -> bytes:
    """Each plotted metric against ``key``: a line per combination of the other keys."""
    df = res.results
    others = [k for k in res.keys if k != key]
    order = list(dict.fromkeys(df[key].astype(str)))
    x_all, ticks = _xvals(order)
    pos = dict(zip(order, x_all))
    fig = _new(10, 7)
    axes = fig.subplots(2, 2)
    groups = list(df.groupby(others, sort=False)) if others else [((), df)]
    colors = [BLUE, "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]
    for ax, (metric, (col, lo, hi, scale, label)) in zip(axes.flat, PLOTTED.items()):
        for gi, (gkey, sub) in enumerate(groups):
            sub = sub.assign(_x=sub[key].astype(str).map(pos)).sort_values("_x")
            gk = gkey if isinstance(gkey, tuple) else (gkey,)
            name = ", ".join(f"{k}={v}" for k, v in zip(others, gk)) or "all"
            c = colors[gi % len(colors)]
            y = sub[col].to_numpy(float) * scale
            ax.plot(sub["_x"], y, marker="o", color=c, label=name)
            if lo and hi:
                ax.fill_between(sub["_x"], sub[lo].to_numpy(float) * scale, sub[hi].to_numpy(float) * scale,
                                color=c, alpha=0.2, lw=0)
        if metric == "first_player_advantage":
            ax.axhline(0, color="black", lw=0.8, ls=":")
        ax.set_xticks(x_all, ticks)
        ax.set_xlabel(key)
        ax.set_ylabel(label)
        ax.set_title(label)
    if len(groups) > 1:
        axes.flat[0].legend(fontsize=8)
    fig.suptitle(f"Effect of {key} (bands: 95% intervals)")
    return _png(fig)


def heatmap(res: SweepResult, k1: str, k2: str, metric: str) -> bytes:
    col, _, _, scale, label = PLOTTED[metric]
    df = res.results
    rows = list(dict.fromkeys(df[k1].astype(str)))
    cols = list(dict.fromkeys(df[k2].astype(str)))
    vals = np.full((len(rows), len(cols)), np.nan)
    for _, r in df.iterrows():
        vals[rows.index(str(r[k1])), cols.index(str(r[k2]))] = float(r[col]) * scale
    fig = _new(max(4.5, 1.2 * len(cols) + 2.5), max(3.5, 0.7 * len(rows) + 1.8))
    ax = fig.add_subplot()
    im = ax.imshow(vals, cmap="viridis", aspect="auto")
    mid = np.nanmean([np.nanmin(vals), np.nanmax(vals)])
    for i in range(len(rows)):
        for j in range(len(cols)):
            if np.isfinite(vals[i, j]):  # dark text on the light (yellow) end of viridis
                ax.text(j, i, f"{vals[i, j]:.2f}" if scale == 1 else f"{vals[i, j]:+.1f}", ha="center",
                        va="center", fontsize=9, color="black" if vals[i, j] > mid else "white")
    ax.set_xticks(range(len(cols)), cols)
    ax.set_yticks(range(len(rows)), rows)
    ax.set_xlabel(k2)
    ax.set_ylabel(k1)
    ax.set_title(label)
    fig.colorbar(im, ax=ax, label=label)
    return _png(fig)


def figures(res: SweepResult) -> list[ReportFigure]:
    figs = []
    for key in res.keys:
        if res.results[key].nunique() > 1:
            figs.append(ReportFigure(f"sweep_{key}", f"Effect of {key}",
                                     f"First-player advantage, mean length, unfinished rate and balance "
                                     f"against {key}; one line per value of the other varied keys, "
                                     f"with 95% intervals as bands.", metric_lines(res, key)))
    if len(res.keys) == 2:
        k1, k2 = res.keys
        for metric in ("first_player_advantage", "mean_length"):
            figs.append(ReportFigure(f"heatmap_{metric}", f"{PLOTTED[metric][4]} over {k1} × {k2}",
                                     f"{PLOTTED[metric][4]} of every variant of the two-key grid.",
                                     heatmap(res, k1, k2, metric)))
    return figs


def _result_rows(res: SweepResult) -> list[tuple]:
    out = []
    maxp = int(res.results["players"].max())
    for _, r in res.results.iterrows():
        seats = " / ".join(f"{100 * r[f'win_rate_seat{i}']:.1f}" for i in range(maxp) if not pd.isna(r[f"win_rate_seat{i}"]))
        out.append((r["variant"] + (" (baseline)" if r["baseline"] else ""), f"{int(r['games']):,}", seats,
                    f"{100 * r['first_player_advantage']:+.1f} [{100 * r['first_player_advantage_lo']:+.1f}, "
                    f"{100 * r['first_player_advantage_hi']:+.1f}]",
                    f"{r['mean_length']:.2f} ± {(r['mean_length_hi'] - r['mean_length_lo']) / 2:.2f}",
                    f"{100 * r['unfinished_rate']:.2f}%", f"{r['balance']:.3f}", r.get("card_power_shifts", "")))
    return out


RESULT_HEADERS = ("variant", "games", "win rate by seat (%)", "first-player advantage, points [95%]",
                  "mean length of finished games ± 95%", "unfinished (capped)", "balance", "top card-power shifts vs baseline")
CMP_HEADERS = ("variant", "metric", "baseline", "variant value", "difference [95%]", "p", "adjusted p", "")


def _cmp_rows(res: SweepResult) -> list[tuple]:
    out = []
    for _, r in res.comparison.iterrows():
        scale = 1 if r["metric"] in ("mean_length", "lead_changes") else 100
        unit = "" if scale == 1 else " pts"
        out.append((r["variant"], METRIC_LABEL[r["metric"]], f"{scale * r['baseline_value']:.3g}",
                    f"{scale * r['variant_value']:.3g}",
                    f"{scale * r['diff']:+.3g}{unit} [{scale * r['lo']:+.3g}, {scale * r['hi']:+.3g}]",
                    f"{r['p']:.2g}", f"{r['p_adjusted']:.2g}", "real" if r["significant"] else "within noise"))
    return out


NOTE = ("Every variant plays the same game indices of the same seed (common random numbers), so "
        "game i of two variants starts from the same shuffle; differences are paired by game and "
        "their intervals are much narrower than those of independent runs. p-values are "
        "two-sided, adjusted across the whole grid ({corr}).")


def write_report(res: SweepResult, command: str, out: Path) -> dict[str, Path]:
    """index.html (figures embedded) and report.md beside the sweep's tables."""
    out = Path(out)
    figs = figures(res)
    game = res.results.attrs.get("game", "")
    corr = {"holm": "Holm", "bh": "Benjamini-Hochberg"}.get(
        str(res.comparison["correction"].iloc[0]) if len(res.comparison) else "holm", "Holm")
    paths = {}
    for f in figs:
        (out / f"{f.name}.png").write_bytes(f.png)
        paths[f"{f.name}.png"] = out / f"{f.name}.png"
    title = f"cardlab sweep: {game}" if game else "cardlab sweep"
    e = html.escape
    parts = [html_head(title),
             f"<p class=\"muted\">varied: {e(', '.join(res.keys))}; baseline: {e(res.baseline)}</p>",
             "<h2>Verdicts</h2>", "<ul>" + "".join(f"<li>{e(v)}</li>" for v in res.verdicts) + "</ul>",
             "<h2>Variants</h2>", _html_table(RESULT_HEADERS, _result_rows(res)),
             "<h2>Against the baseline</h2>", f"<p>{e(NOTE.format(corr=corr))}</p>",
             _html_table(CMP_HEADERS, _cmp_rows(res))]
    md = [f"# {title}", "", f"varied: {', '.join(res.keys)}; baseline: {res.baseline}", "", "## Verdicts", ""]
    md += [f"- {v}" for v in res.verdicts] + ["", "## Variants", "", _fmt_table_md(RESULT_HEADERS, _result_rows(res)),
                                              "", "## Against the baseline", "", NOTE.format(corr=corr), "",
                                              _fmt_table_md(CMP_HEADERS, _cmp_rows(res)), ""]
    for f in figs:
        parts.append(f"<h2>{e(f.title)}</h2>{figure_html(f)}")
        md += [f"## {f.title}", "", f"![{f.title}]({f.name}.png)", "", f"*{f.caption}*", ""]
    parts += ["<h2>Reproduce</h2>", f"<pre><code>{e(command)}</code></pre>",
              f"<p class=\"muted\">cardlab {e(cardlab_version())}. Tables: <a href=\"results.csv\">results.csv</a>, "
              "<a href=\"comparison.csv\">comparison.csv</a> (and .parquet).</p>", "</body></html>\n"]
    md += ["## Reproduce", "", "```bash", command, "```", "", f"cardlab {cardlab_version()}. Tables: "
           "`results.csv`, `comparison.csv` (and `.parquet`).", ""]
    (out / "index.html").write_text("\n".join(parts), encoding="utf-8")
    (out / "report.md").write_text("\n".join(md), encoding="utf-8")
    paths["index.html"] = out / "index.html"
    paths["report.md"] = out / "report.md"
    (out / "command.json").write_text(json.dumps({"command": command}) + "\n")
    return paths
