"""Block Tower's own report section: the distribution of collapse heights.

The kernel counts, per game, the collapses by the number of blocks standing before the
fatal move (events ``collapse_h1`` .. ``collapse_h30``), the rounds that ended by
running out (``split``, the tower still standing) and what caused each fall
(``fall_place`` / ``fall_adjust`` / ``fall_remove``).  ``summarize()`` turns the tallied
counts into ``events_per_game``; this module turns those into numbers and a figure.

The report finds it through ``BlockTower.report_figures``.
"""
from __future__ import annotations

from typing import Any

import numpy as np

MAXH = 30


def collapse_stats(summary: dict[str, Any]) -> dict[str, Any]:
    """Collapse heights from a ``summarize()`` dict: per height the share of collapses,
    the median / p10 / p90 / mean height, the share of collapses that scored (height >=
    min_tower), of rounds that ended by running out, and of falls by cause."""
    ev = summary["events_per_game"]
    per = np.array([ev.get(f"collapse_h{h}", 0.0) or 0.0 for h in range(1, MAXH + 1)])
    total = per.sum()
    rounds = ev.get("round") or 0.0
    out: dict[str, Any] = {"heights": list(range(1, MAXH + 1)), "per_game": per.tolist(),
                           "collapses_per_game": float(total), "rounds_per_game": float(rounds)}
    if total <= 0:
        out.update(share=[0.0] * MAXH, median=None, p10=None, p90=None, mean=None,
                   scoring_share=None)
    else:
        share = per / total
        cdf = np.cumsum(share)

        def q(p):
            return int(np.searchsorted(cdf, p - 1e-12)) + 1

        mt = summary["rules"].get("min_tower", 4)
        out.update(share=share.tolist(), median=q(0.5), p10=q(0.1), p90=q(0.9),
                   mean=float((share * np.arange(1, MAXH + 1)).sum()),
                   scoring_share=float(share[max(mt, 1) - 1:].sum()))
    out["split_share_of_rounds"] = float(ev.get("split", 0.0) / rounds) if rounds else None
    falls = {k: ev.get(f"fall_{k}", 0.0) for k in ("place", "adjust", "remove")}
    tf = sum(falls.values())
    out["fall_cause_share"] = {k: (v / tf if tf else None) for k, v in falls.items()}
    return out


def collapse_section(summary: dict[str, Any]) -> list:
    """The report figure(s) of the collapse-height distribution (ReportFigure list)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from cardlab.analysis.plots import BLUE, GREY, _png
    from cardlab.analysis.report import ReportFigure

    c = collapse_stats(summary)
    if c["median"] is None:
        return []
    share = np.array(c["share"]) * 100
    last = int(np.nonzero(share)[0][-1]) + 1
    x = np.arange(1, last + 1)
    mt = summary["rules"].get("min_tower", 4)
    fig = Figure(figsize=(7, 4), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    colors = [BLUE if h >= mt else GREY for h in x]
    ax.bar(x, share[:last], color=colors, width=0.8)
    ax.axvline(c["median"], color="black", ls="--", lw=1, label=f"median {c['median']} blocks")
    ax.set_xlabel("blocks standing when the tower fell")
    ax.set_ylabel("share of collapses (%)")
    ax.set_xticks(x)
    from matplotlib.patches import Patch

    handles = ax.get_legend_handles_labels()[0] + [
        Patch(color=BLUE, label=f"at least min_tower={mt}: the previous player scores"),
        Patch(color=GREY, label=f"fewer than min_tower={mt}: scores 0")]
    ax.legend(handles=handles)
    ax.grid(axis="y", alpha=0.3)
    cause = c["fall_cause_share"]
    split = c["split_share_of_rounds"]
    caption = (f"Collapse heights over {c['collapses_per_game']:.2f} collapses per game "
               f"({c['rounds_per_game']:.2f} rounds): median {c['median']}, 10th-90th percentile "
               f"{c['p10']}-{c['p90']}, mean {c['mean']:.2f} blocks; "
               f"{100 * c['scoring_share']:.1f}% of collapses score. "
               f"{100 * (split or 0):.1f}% of rounds end by running out (the tower stands; even split). "
               f"Falls during a placement {100 * (cause['place'] or 0):.1f}%, an ADJUST "
               f"{100 * (cause['adjust'] or 0):.1f}%, a REMOVE {100 * (cause['remove'] or 0):.1f}%.")
    return [ReportFigure("collapse_heights", "Collapse heights", caption, _png(fig))]
