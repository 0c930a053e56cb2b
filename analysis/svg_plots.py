"""Small inline SVG plots for the demo dashboard (no images to embed, nothing fetched):
seat win rates with their 95% intervals, the distribution of finished games' lengths and
the skill curve of a report's ``ladder`` object.  Each ``<svg>`` carries ``data-plot``
and its points ``data-`` attributes, so a test can read a plot back.
"""
from __future__ import annotations

import html
from typing import Sequence

W, H = 260, 130          # every plot's size in px
PAD_L, PAD_R, PAD_T, PAD_B = 34, 8, 10, 28
BLUE, GREY, RED = "#1f77b4", "#999", "#c0392b"


def _frame(kind: str, title: str, body: str, extra: int = 0) -> str:
    """The <svg> around a plot; ``extra`` px below the usual height (slanted labels)."""
    e = html.escape
    h = H + extra
    return (f"<svg class=\"plot\" data-plot=\"{kind}\" role=\"img\" viewBox=\"0 0 {W} {h}\" width=\"{W}\" "
            f"height=\"{h}\" xmlns=\"http://www.w3.org/2000/svg\"><title>{e(title)}</title>"
            f"<rect x=\"0\" y=\"0\" width=\"{W}\" height=\"{h}\" fill=\"#fff\"/>{body}</svg>")


def _y(v: float, lo: float, hi: float) -> float:
    return PAD_T + (H - PAD_T - PAD_B) * (1 - (v - lo) / (hi - lo if hi > lo else 1))


def _axis_pct(lo: float, hi: float) -> str:
    """Left axis with three percentage ticks."""
    out = [f"<line x1=\"{PAD_L}\" y1=\"{PAD_T}\" x2=\"{PAD_L}\" y2=\"{H - PAD_B}\" stroke=\"#ccc\"/>"]
    for v in (lo, (lo + hi) / 2, hi):
        y = _y(v, lo, hi)
        out.append(f"<text x=\"{PAD_L - 3}\" y=\"{y + 3:.1f}\" font-size=\"9\" text-anchor=\"end\" "
                   f"fill=\"#555\">{100 * v:.0f}%</text>")
    return "".join(out)


def _range(values: Sequence[float]) -> tuple[float, float]:
    """A 0-based percentage range holding every value, rounded up to 10 points."""
    hi = max([0.1, *values])
    return 0.0, min(1.0, (int(hi * 10 + 0.9999)) / 10)


def intervals_svg(kind: str, title: str, labels: Sequence[str], rates: Sequence[float],
                  cis: Sequence[Sequence[float]], fair: float | None) -> str:
    """Points with 95% interval whiskers, one per label, and a dashed fair-share line."""
    e = html.escape
    lo, hi = _range([c[1] for c in cis] + ([fair] if fair is not None else []))
    n = max(1, len(rates))
    step = (W - PAD_L - PAD_R) / n
    body = [_axis_pct(lo, hi)]
    if fair is not None:
        y = _y(fair, lo, hi)
        body.append(f"<line class=\"fair\" x1=\"{PAD_L}\" y1=\"{y:.1f}\" x2=\"{W - PAD_R}\" y2=\"{y:.1f}\" "
                    f"stroke=\"{RED}\" stroke-dasharray=\"4 3\" data-fair=\"{fair:.6g}\"/>")
    for i, (lab, r, ci) in enumerate(zip(labels, rates, cis)):
        x = PAD_L + step * (i + 0.5)
        y0, y1, yr = _y(ci[0], lo, hi), _y(ci[1], lo, hi), _y(r, lo, hi)
        body.append(f"<g class=\"pt\" data-label=\"{e(lab)}\" data-rate=\"{r:.6g}\" data-lo=\"{ci[0]:.6g}\" "
                    f"data-hi=\"{ci[1]:.6g}\"><title>{e(lab)}: {100 * r:.1f}% [{100 * ci[0]:.1f}, "
                    f"{100 * ci[1]:.1f}]</title>"
                    f"<line x1=\"{x:.1f}\" y1=\"{y0:.1f}\" x2=\"{x:.1f}\" y2=\"{y1:.1f}\" stroke=\"{BLUE}\" "
                    f"stroke-width=\"2\"/><line x1=\"{x - 4:.1f}\" y1=\"{y0:.1f}\" x2=\"{x + 4:.1f}\" y2=\"{y0:.1f}\" "
                    f"stroke=\"{BLUE}\"/><line x1=\"{x - 4:.1f}\" y1=\"{y1:.1f}\" x2=\"{x + 4:.1f}\" y2=\"{y1:.1f}\" "
                    f"stroke=\"{BLUE}\"/><circle cx=\"{x:.1f}\" cy=\"{yr:.1f}\" r=\"3.5\" fill=\"{BLUE}\"/>"
                    + (f"<text x=\"{x:.1f}\" y=\"{H - PAD_B + 11}\" font-size=\"8.5\" text-anchor=\"middle\" "
                       f"fill=\"#333\">{e(lab[:12])}</text></g>" if n <= 4 else  # many: slanted, so they never overlap
                       f"<text x=\"{x + 3:.1f}\" y=\"{H - PAD_B + 8}\" font-size=\"8\" text-anchor=\"end\" "
                       f"transform=\"rotate(-35 {x + 3:.1f} {H - PAD_B + 8})\" fill=\"#333\">{e(lab[:10])}</text></g>"))
    return _frame(kind, title, "".join(body), 0 if n <= 4 else 22)


def seats_svg(rates: Sequence[float], cis: Sequence[Sequence[float]]) -> str:
    """Seat win rates with their intervals; the fair share 1/players dashed."""
    labels = [f"seat {i}" for i in range(len(rates))]
    return intervals_svg("seats", "Win rate by seat (95% interval); dashed: fair share", labels, rates, cis,
                         1 / len(rates) if rates else None)


def skill_svg(curve: Sequence[dict], players: int) -> str:
    """The skill ladder's rungs: each rung's win rate against the field, with intervals."""
    return intervals_svg("skill", "Skill curve: win rate of each rung against the field (95% interval)",
                         [c["rung"].replace("mcts:iterations=", "mcts ") for c in curve],
                         [c["win_rate"] for c in curve], [c["ci"] for c in curve], 1 / players)


def length_svg(hist: Sequence[int], unit: str = "turns", bins: int = 40) -> str:
    """Bars of finished games by length (grouped into at most ``bins`` bars, up to the
    longest finished game)."""
    e = html.escape
    nz = [i for i, c in enumerate(hist) if c]
    if not nz:
        return _frame("length", "No finished games", "")
    first, last = nz[0], nz[-1]
    width = max(1, -(-(last - first + 1) // bins))
    groups = []
    for lo in range(first, last + 1, width):
        groups.append((lo, min(last, lo + width - 1), sum(hist[lo:lo + width])))
    top = max(g[2] for g in groups)
    total = sum(g[2] for g in groups)
    bw = (W - PAD_L - PAD_R) / len(groups)
    body = [f"<line x1=\"{PAD_L}\" y1=\"{H - PAD_B}\" x2=\"{W - PAD_R}\" y2=\"{H - PAD_B}\" stroke=\"#ccc\"/>",
            f"<text x=\"{PAD_L - 3}\" y=\"{PAD_T + 8}\" font-size=\"9\" text-anchor=\"end\" fill=\"#555\">"
            f"{100 * top / total:.0f}%</text>"]
    for k, (lo, hi, c) in enumerate(groups):
        h = (H - PAD_T - PAD_B) * c / top
        x = PAD_L + k * bw
        body.append(f"<rect class=\"bar\" x=\"{x:.1f}\" y=\"{H - PAD_B - h:.1f}\" width=\"{max(bw - 1, 0.5):.1f}\" "
                    f"height=\"{h:.1f}\" fill=\"{BLUE}\" data-lo=\"{lo}\" data-hi=\"{hi}\" data-games=\"{c}\">"
                    f"<title>{lo}-{hi} {e(unit)}: {c:,} games</title></rect>")
    body.append(f"<text x=\"{PAD_L}\" y=\"{H - PAD_B + 11}\" font-size=\"9\" fill=\"#555\">{first}</text>"
                f"<text x=\"{W - PAD_R}\" y=\"{H - PAD_B + 11}\" font-size=\"9\" text-anchor=\"end\" "
                f"fill=\"#555\">{last} {e(unit)}</text>")
    return _frame("length", f"Length of finished games ({unit})", "".join(body))
