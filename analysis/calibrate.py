"""Calibrate Block Tower's collapse model to real playtests: maximum likelihood for
``base``, ``a_h`` and ``a_u`` from observed tower heights.

The model (``docs/rules/block_tower.md``): placing a block as the (h+1)-th, with h >= 1
blocks standing and instability u, falls with probability ``1 - exp(-H)``,
``H = base * exp(a_h*(h-1) + a_u*u + d_b - skill) * m``.  A playtest is assumed to place
carefully (style 0, m = 1) at average skill (skill 0: a table's skill is absorbed into
``base``); ``difficulty`` and ``instability`` (d_b and s_b by block points) are taken
as given (``--set``), and only placements are modelled (log a tower that fell during an
ADJUST or a REMOVE as censored at the height it had).

CSV format (a header row; columns in any order, other columns ignored):

``height``  required: blocks standing when the tower fell (the fatal block not
            counted), or for a censored row, blocks standing when play stopped.
``fell``    optional, 1 (default) or 0: 0 marks a censored row (the tower never fell:
            the round ended by running out, or the session stopped).
``blocks``  optional: the points (1, 2 or 3) of the blocks in the order they were
            placed, separated by spaces, ``;`` or ``-``; height + 1 numbers when the
            tower fell (the fatal block last), height when it did not.

A row the model cannot produce is refused (one line naming the row and why): a tower
higher than the blocks of ``points_split``, a fall with every block already standing
(no block was left to topple it), or a ``blocks`` list using more blocks of a value
than the split holds.  Such a row has probability 0 for every parameter value, so the
likelihood would be -inf everywhere and no fit exists.

With ``blocks`` a row's likelihood is exact (its u at every placement is known), which
is what separates ``a_u`` from ``a_h``.  Without it the block sequence is integrated
out: the blocks are taken as drawn at random, without replacement, from the deck of
``points_split`` (exact dynamic programming over how many blocks of each value stand).
From heights alone ``a_h`` and ``a_u`` are only weakly separable (both grow the hazard
with height), which the intervals show.

Intervals: 95% Wald intervals from the observed information (the numerical Hessian of
the log-likelihood at the maximum); ``base``'s interval is computed on log(base).

Convergence: the fit is reported as converged only when the optimiser says it
converged, the log-likelihood there is finite and the observed information is
positive definite (a proper maximum); otherwise ``Fit.converged`` is False, ``reason``
says why, and the CLI prints no ``--set`` line.
"""
from __future__ import annotations

import csv
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from cardlab.sim.errors import InputError

MAX_HEIGHT = 30
PARAMS = ("base", "a_h", "a_u")
MODEL_KNOBS = ("difficulty", "instability", "points_split")


@dataclass
class Towers:
    """Observed towers: heights, fell flags, and per row the block points (or None);
    ``rows`` and ``source``: each tower's row number in its CSV and the CSV's name (for
    error messages; None for towers built in code)."""
    height: np.ndarray
    fell: np.ndarray
    blocks: list
    rows: list | None = None
    source: str | None = None


@dataclass
class Fit:
    base: float
    a_h: float
    a_u: float
    intervals: dict            # name -> (lo, hi); NaN when the information is singular
    se: dict                   # standard errors (base: of log base)
    loglik: float
    n: int
    n_fell: int
    n_sequences: int           # rows with a block sequence (exact likelihood)
    converged: bool            # optimiser converged, finite likelihood, positive-definite information
    knobs: dict = field(default_factory=dict)
    corr_ah_au: float = float("nan")   # correlation of the a_h and a_u estimates
    reason: str = ""                   # why the fit did not converge ("" when it did)

    def set_args(self) -> str:
        return f"--set base={self.base:.6g} --set a_h={self.a_h:.6g} --set a_u={self.a_u:.6g}"


# ------------------------------------------------------------------ reading the CSV
def read_heights(path: str | Path) -> Towers:
    """Parse a heights CSV; any problem is one InputError line naming the file and row."""
    p = Path(path)
    name = str(path)
    try:
        text = p.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InputError(f"bad --heights {name!r}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"bad --heights {name!r}: it is a folder, not a CSV file") from None
    except UnicodeDecodeError:
        raise InputError(f"bad --heights {name!r}: not a text CSV file") from None
    except OSError as e:
        raise InputError(f"bad --heights {name!r}: cannot read it ({e.strerror})") from None
    if "\x00" in text:
        raise InputError(f"bad --heights {name!r}: not a text CSV file")
    try:
        rows = list(csv.reader(text.splitlines()))
    except csv.Error as e:
        raise InputError(f"bad --heights {name!r}: not a readable CSV ({e})") from None
    rows = [r for r in rows if any(x.strip() for x in r)]
    if not rows:
        raise InputError(f"bad --heights {name!r}: the file is empty (expected a header with a "
                         f"'height' column)")
    head = [x.strip().lower() for x in rows[0]]
    if "height" not in head:
        raise InputError(f"bad --heights {name!r}: no 'height' column in the header "
                         f"(found: {', '.join(head) or 'nothing'}); expected height[,fell][,blocks]")
    ih = head.index("height")
    jf = head.index("fell") if "fell" in head else -1
    jb = head.index("blocks") if "blocks" in head else -1
    hs, fs, bs, ks = [], [], [], []
    def cell(r, j):
        return r[j].strip() if 0 <= j < len(r) else ""

    for k, r in enumerate(rows[1:], start=2):
        raw = cell(r, ih)
        try:
            h = float(raw)
            if not h.is_integer() or not 0 <= h <= MAX_HEIGHT:
                raise ValueError
            h = int(h)
        except ValueError:
            raise InputError(f"bad --heights {name!r}: row {k}: height {raw!r} is not a whole "
                             f"number from 0 to {MAX_HEIGHT}") from None
        fr = cell(r, jf) if jf >= 0 else ""
        if fr == "" or fr.lower() in ("1", "1.0", "true", "yes"):
            fell = 1
        elif fr.lower() in ("0", "0.0", "false", "no"):
            fell = 0
        else:
            raise InputError(f"bad --heights {name!r}: row {k}: fell {fr!r} is not 1 or 0")
        if fell and h == 0:
            raise InputError(f"bad --heights {name!r}: row {k}: a tower cannot fall with 0 blocks "
                             f"standing (the first block never falls)")
        braw = cell(r, jb) if jb >= 0 else ""
        seq = None
        if braw:
            parts = [x for x in re.split(r"[\s;\-]+", braw) if x]
            if any(x not in ("1", "2", "3") for x in parts):
                raise InputError(f"bad --heights {name!r}: row {k}: blocks {braw!r} must be block "
                                 f"points 1, 2 or 3")
            need = h + 1 if fell else h
            if len(parts) != need:
                raise InputError(f"bad --heights {name!r}: row {k}: blocks lists {len(parts)} "
                                 f"blocks, expected {need} (height {h}{' + the fatal block' if fell else ''})")
            seq = np.array([int(x) for x in parts], np.int64)
        hs.append(h)
        fs.append(fell)
        bs.append(seq)
        ks.append(k)
    if not hs:
        raise InputError(f"bad --heights {name!r}: no data rows under the header")
    if sum(fs) == 0:
        raise InputError(f"bad --heights {name!r}: no tower fell (every row has fell=0): "
                         f"nothing to fit")
    return Towers(np.array(hs, np.int64), np.array(fs, np.int64), bs, ks, name)


def check_possible(towers: Towers, split) -> None:
    """Refuse a tower the model gives probability 0 for every parameter value (one
    InputError line naming the row and why): higher than the deck's blocks, fallen with
    every block standing, or a block sequence the split cannot supply."""
    split = [int(x) for x in split]
    nb = sum(split)
    knob = f"points_split={','.join(map(str, split))}"
    for i, (h, f, b) in enumerate(zip(towers.height, towers.fell, towers.blocks)):
        where = (f"bad --heights {towers.source!r}: row {towers.rows[i]}" if towers.rows
                 else f"bad tower {i + 1}")
        why = None
        if h > nb:
            why = f"a tower of {int(h)} blocks is higher than the {nb} blocks of {knob}"
        elif f and h >= nb:
            why = (f"a tower of {int(h)} blocks cannot fall: with {knob} every block is already "
                   f"standing, none is left to topple it (mark it fell=0 if it stood)")
        elif b is not None:
            for t in range(3):
                used = int(np.sum(np.asarray(b) == t + 1))
                if used > split[t]:
                    why = (f"blocks lists {used} blocks worth {t + 1}, but {knob} has only "
                           f"{split[t]}")
                    break
        if why:
            raise InputError(f"{where}: {why}")


def write_heights(path: str | Path, towers: Towers) -> None:
    """Write towers in the CSV format above (the blocks column when every row has it)."""
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        with_blocks = all(b is not None for b in towers.blocks)
        w.writerow(["height", "fell"] + (["blocks"] if with_blocks else []))
        for h, f, b in zip(towers.height, towers.fell, towers.blocks):
            w.writerow([int(h), int(f)] + ([" ".join(str(int(x)) for x in b)] if with_blocks else []))


# ------------------------------------------------------------------ the likelihood
class Model:
    """Log-likelihood of towers under the collapse model, for (log base, a_h, a_u)."""

    def __init__(self, towers: Towers, difficulty, instability, split):
        self.d = np.asarray(difficulty, float)
        self.s = np.asarray(instability, float)
        self.split = np.asarray(split, np.int64)
        # exact part: one entry per placement with h >= 1 in a row with a block sequence
        hh, uu, dd, fatal = [], [], [], []
        marg_h, marg_f = [], []
        for h, f, b in zip(towers.height, towers.fell, towers.blocks):
            if b is None:
                marg_h.append(h)
                marg_f.append(f)
                continue
            u = 0.0
            for k, pts in enumerate(b):
                if k >= 1:  # k blocks standing
                    hh.append(k)
                    uu.append(u)
                    dd.append(self.d[pts - 1])
                    fatal.append(bool(f) and k == len(b) - 1)
                u += self.s[pts - 1]
        self.h = np.array(hh, float)
        self.u = np.array(uu, float)
        self.dd = np.array(dd, float)
        self.fatal = np.array(fatal, bool)
        self.marg_h = np.array(marg_h, np.int64)
        self.marg_f = np.array(marg_f, np.int64)
        check_possible(towers, self.split)
        n1, n2, n3 = (int(x) + 1 for x in self.split)
        g = np.indices((n1, n2, n3))
        self.counts = g                                     # n1, n2, n3 of each state
        self.U = (g * self.s[:, None, None, None]).sum(0)   # u of each state
        self.K = g.sum(0)                                   # blocks standing

    def loglik(self, theta) -> float:
        """The log-likelihood, with -1e300 in place of -inf (the optimiser's floor)."""
        ll = self.loglik_exact(theta)
        return ll if np.isfinite(ll) else -1e300

    def loglik_exact(self, theta) -> float:
        """The log-likelihood as computed: -inf (or nan) where some tower is impossible."""
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            return self._loglik(theta)

    def _loglik(self, theta) -> float:
        lb, ah, au = theta
        ll = 0.0
        if len(self.h):
            H = np.exp(lb + ah * (self.h - 1) + au * self.u + self.dd)
            ll += -H[~self.fatal].sum() + np.log(-np.expm1(-H[self.fatal])).sum()
        if len(self.marg_h):
            fall, surv = self.height_pmf(theta)
            with np.errstate(divide="ignore"):
                ll += np.where(self.marg_f == 1, np.log(fall[self.marg_h]),
                               np.log(surv[self.marg_h])).sum()
        return float(ll)

    def height_pmf(self, theta):
        """(fall[h], surv[h]) for h = 0..N: the probability that the tower falls with h
        blocks standing, and that h blocks stand at some point, with the blocks drawn at
        random without replacement from points_split."""
        lb, ah, au = theta
        N = int(self.split.sum())
        alpha = np.zeros(self.U.shape)
        fall = np.zeros(N + 2)
        surv = np.zeros(N + 2)
        surv[0] = 1.0
        # the first block never falls
        for t in range(3):
            if self.split[t] > 0:
                idx = [0, 0, 0]
                idx[t] = 1
                alpha[tuple(idx)] += self.split[t] / N
        for k in range(1, N + 1):
            layer = self.K == k
            a = np.where(layer, alpha, 0.0)
            surv[k] = a.sum()
            if k == N:
                break
            nxt = np.zeros_like(alpha)
            base = np.exp(lb + ah * (k - 1) + au * self.U)
            for t in range(3):
                left = self.split[t] - self.counts[t]
                q = np.where(layer & (left > 0), left / (N - k), 0.0)
                H = base * math.exp(self.d[t])
                stay = np.exp(-H)
                fall[k] += (a * q * (1 - stay)).sum()
                moved = a * q * stay
                sl = [slice(None)] * 3
                sl[t] = slice(1, None)
                src = [slice(None)] * 3
                src[t] = slice(0, -1)
                nxt[tuple(sl)] += moved[tuple(src)]
            alpha = nxt
        return fall, surv


def _hessian(f, x, step=1e-4):
    n = len(x)
    Hs = np.zeros((n, n))
    for i in range(n):
        for j in range(i, n):
            ei = np.zeros(n)
            ej = np.zeros(n)
            ei[i] = step
            ej[j] = step
            v = (f(x + ei + ej) - f(x + ei - ej) - f(x - ei + ej) + f(x - ei - ej)) / (4 * step * step)
            Hs[i, j] = Hs[j, i] = v
    return Hs


def fit(towers: Towers, difficulty=(0.0, 0.3, 0.6), instability=(0.1, 0.2, 0.3),
        split=(8, 7, 5), start=(0.01, 0.18, 0.5)) -> Fit:
    """Maximum-likelihood fit of base, a_h, a_u (scipy.optimize), with Wald intervals
    from the observed information."""
    from scipy.optimize import minimize

    model = Model(towers, difficulty, instability, split)

    def nll(th):
        return -model.loglik(th)

    x0 = np.array([math.log(start[0]), start[1], start[2]])
    best = None
    best_ok = False
    for x in (x0, x0 + np.array([1.0, -0.1, -0.3]), x0 + np.array([-1.0, 0.1, 0.3])):
        nm = minimize(nll, x, method="Nelder-Mead",
                      options={"xatol": 1e-7, "fatol": 1e-9, "maxiter": 4000, "maxfev": 8000})
        r = minimize(nll, nm.x, method="BFGS", options={"gtol": 1e-6})
        # BFGS often stops on "precision loss" right at the maximum; Nelder-Mead's own
        # convergence (simplex within xatol/fatol) at the same point then counts
        ok = bool(r.success) or (bool(nm.success) and r.fun <= nm.fun + 1e-9)
        if best is None or r.fun < best.fun:
            best, best_ok = r, ok
    th = best.x
    info = _hessian(nll, th)
    se = np.full(3, np.nan)
    corr = float("nan")
    pd = False
    try:
        cov = np.linalg.inv(info)
        if np.all(np.isfinite(info)) and np.all(np.linalg.eigvalsh(info) > 0):
            pd = True
            se = np.sqrt(np.diag(cov))
            corr = float(cov[1, 2] / (se[1] * se[2]))
    except np.linalg.LinAlgError:
        pass
    ll = model.loglik_exact(th)
    if not np.isfinite(ll):
        reason = "the log-likelihood is not finite at the optimiser's end point"
    elif not best_ok:
        reason = f"the optimiser did not converge ({best.message})"
    elif not pd:
        reason = ("the observed information is not positive definite (no proper maximum: "
                  "these towers do not identify base, a_h and a_u)")
    else:
        reason = ""
    z = 1.959963984540054
    with np.errstate(over="ignore"):
        blo, bhi = (float(np.exp(th[0] - z * se[0])), float(np.exp(th[0] + z * se[0])))
    iv = {"base": (blo, bhi),
          "a_h": (float(th[1] - z * se[1]), float(th[1] + z * se[1])),
          "a_u": (float(th[2] - z * se[2]), float(th[2] + z * se[2]))}
    with np.errstate(over="ignore"):
        base = float(np.exp(th[0]))
    return Fit(base, float(th[1]), float(th[2]), iv,
               {"log_base": float(se[0]), "a_h": float(se[1]), "a_u": float(se[2])},
               -float(best.fun), len(towers.height), int(towers.fell.sum()),
               sum(b is not None for b in towers.blocks), reason == "",
               {"difficulty": list(map(float, difficulty)), "instability": list(map(float, instability)),
                "points_split": list(map(int, split))}, corr, reason)


# ------------------------------------------------------------------ survival and plot
def kaplan_meier(towers: Towers, hmax: int) -> np.ndarray:
    """S[h] = P(h blocks stand at some point) for h = 0..hmax, from heights with
    censoring (a censored tower of height h survived to h)."""
    h, f = towers.height, towers.fell
    S = np.ones(hmax + 1)
    s = 1.0
    for k in range(1, hmax + 1):
        # falls at height k-1 (with k-1 standing, placing the k-th) among towers at risk
        at_risk = np.sum(h >= k - 1) - np.sum((h == k - 1) & (f == 0))
        d = np.sum((h == k - 1) & (f == 1))
        if at_risk > 0:
            s *= 1 - d / at_risk
        S[k] = s
    return S


def survival_plot(towers: Towers, result: Fit, path: str | Path) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    model = Model(Towers(towers.height[:0], towers.fell[:0], []), result.knobs["difficulty"],
                  result.knobs["instability"], result.knobs["points_split"])
    _, surv = model.height_pmf((math.log(result.base), result.a_h, result.a_u))
    hmax = int(min(max(towers.height.max() + 2, 5), len(surv) - 2))
    S = kaplan_meier(towers, hmax)
    fig = Figure(figsize=(7, 4), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    x = np.arange(hmax + 1)
    ax.step(x, S, where="post", color="#1f77b4", lw=2, label=f"observed (Kaplan-Meier, {result.n} towers)")
    ax.plot(x, surv[:hmax + 1], "o--", color="#ff7f0e", label=(f"fitted: base={result.base:.3g}, "
                                                              f"a_h={result.a_h:.3g}, a_u={result.a_u:.3g}"))
    ax.set_xlabel("blocks standing h")
    ax.set_ylabel("share of towers reaching h")
    ax.set_ylim(0, 1.02)
    ax.set_title("Block Tower: observed vs fitted tower survival")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.savefig(path, format="png", dpi=100, metadata={"Software": None})


def default_plot_path(csv_path: str | Path) -> Path:
    p = Path(csv_path)
    return p.with_name(p.stem + "_survival.png")


def model_knobs(sets: list[str] | None) -> dict:
    """difficulty, instability and points_split from ``--set`` (Block Tower's knobs)."""
    from cardlab.sim.knobs import parse_assignments
    from cardlab.sim.registry import get_game

    game = get_game("block_tower")
    over = parse_assignments(sets or [])
    bad = [k for k in over if k not in MODEL_KNOBS]
    if bad:
        raise InputError(f"bad --set {bad[0]!r} for calibrate: allowed {', '.join(MODEL_KNOBS)} "
                         f"(the fit finds base, a_h and a_u)")
    rules = game.resolve_rules(over, game.default_players)
    return {"difficulty": rules["difficulty"], "instability": rules["instability"],
            "points_split": tuple(int(x) for x in rules["points_split"])}


def render(result: Fit, csv_path, plot_path) -> str:
    knobs = result.knobs
    lines = [(f"block_tower calibration from {csv_path}: {result.n} towers, {result.n_fell} fell, "
              f"{result.n - result.n_fell} censored"),
             (f"  likelihood: exact block sequences for {result.n_sequences} towers, heights only "
              f"for {result.n - result.n_sequences}"),
             (f"  model knobs held fixed: difficulty={','.join(f'{x:g}' for x in knobs['difficulty'])} "
              f"instability={','.join(f'{x:g}' for x in knobs['instability'])} "
              f"points_split={','.join(map(str, knobs['points_split']))}; style 0, skill 0"),
             "  maximum-likelihood fit (95% intervals from the observed information):"]
    for name in PARAMS:
        v = getattr(result, name)
        lo, hi = result.intervals[name]
        iv = "not identified (singular information)" if not np.isfinite(lo) else f"[{lo:.4g}, {hi:.4g}]"
        lines.append(f"    {name:<5}= {v:<10.4g} {iv}")
    if abs(result.corr_ah_au) > 0.9:
        lines.append(f"  note: the a_h and a_u estimates are strongly correlated (r = "
                     f"{result.corr_ah_au:+.2f}): these heights hardly separate growth with height "
                     f"from growth with instability; a 'blocks' column separates them")
    lines.append(f"  log-likelihood at the fit: {result.loglik:.3f}")
    lines.append(f"  survival plot (observed vs fitted): {plot_path}")
    if result.converged:
        lines.append("Use the fit:")
        lines.append(f"  {result.set_args()}")
    else:
        lines.append(f"The fit did not converge: {result.reason}; the values above are not "
                     f"estimates, do not use them.")
    return "\n".join(lines)


def calibrate(csv_path, plot_path=None, sets=None) -> tuple[Fit, Path]:
    """Read, fit, plot.  Nothing is written unless the CSV was read and fitted."""
    knobs = model_knobs(sets)
    towers = read_heights(csv_path)
    check_possible(towers, knobs["points_split"])
    out = Path(plot_path) if plot_path else default_plot_path(csv_path)
    if out.exists() and out.is_dir():
        raise InputError(f"bad --plot {str(out)!r}: it is a folder, not a file")
    if not out.parent.exists():
        raise InputError(f"bad --plot {str(out)!r}: the folder {str(out.parent)!r} does not exist")
    result = fit(towers, knobs["difficulty"], knobs["instability"], knobs["points_split"])
    try:
        survival_plot(towers, result, out)
    except OSError as e:
        raise InputError(f"cannot write --plot {str(out)!r}: {e.strerror}") from None
    return result, out
