"""The luck-skill profile: how much of who wins the deal decides, how much the later draws,
how much the seat order, how much the players; and how far skill spreads a ladder's players.

**Luck, by common random numbers.**  Deal ``d`` is game index ``d`` of the seed's sequence,
dealt exactly as the fast path deals it: ``seed_game`` then the game's ``deal`` (the part
of its setup causal card power also stops after; ``deal`` then ``begin`` is the setup).
A **player** is a hand of that deal with the strategy that holds it: player ``j`` is the
hand dealt to seat ``j``.  Each deal is then played ``P x K`` times:

- **seat orders**: every rotation ``r`` of the table (player ``j`` sits in seat ``j + r mod
  P``, with its hand and its strategy).  The schema says which parts of the state belong to
  a seat (``owner=True``: hands, per-seat counters, their bookkeeping); rotating those
  blocks, and nothing else, moves the same hands to other seats, while whose turn comes
  first stays where the rules put it.  That is sound when nothing outside the per-seat parts
  depends on who was dealt what at this point (a start seat found from the cards would); in
  the six shipped games nothing does (their deals leave every seat word at a constant:
  Block Tower's round 0 starts at seat 0, 5 Towers' bidding at seat 0, Smokestack's turn at
  seat 1, ...), so every game gets a seat order.  5 Towers deals nothing before play: its
  rotation moves only the strategies, which is exactly its seat order.
- **later draws**: ``K`` replays per seat order, each with its own future: the cards of the
  zones nobody sees and no seat owns (the draw piles) are shuffled among themselves, and the
  game's chance stream (``st[0:4]``, ``sim/rng.py``: reshuffles, later rounds' deals,
  collapses) and every seat's own stream are reseeded from (seed, deal, salt).  The seat
  streams go with the draws (not left as they were): a strategy's coin flip is luck of the
  play, not part of the deal.  Per-seat hidden cards (3UP's face-down cards) are dealt
  cards: they stay with their hand.  One cell, the unrotated table's first replay, keeps
  the original streams and piles: it is the fast path's game ``d``, result for result (a
  test checks it), and statistically just another replay (given the hands, the rest of a
  uniform shuffle is a uniform shuffle).

The play-outs run on each game's compiled ``play_on`` (``Game.binding()``, ``sim/bind.py``): 10-50 us a game,
so a default profile (2,000 deals) takes a few seconds.  A seat playing the search player
``mcts`` is refused (``play_on`` compiles the heuristic strategies only).

**The decomposition.**  ``Y[d, r, k, j]`` is player ``j``'s win share (1/k for a win shared
by k seats, 0 with no winner).  With the deal, the seat order (uniform over rotations) and
the draws random, the variance of a player's win share splits by the law of total variance
into four parts, nested in this order:

- **the players**: Var_j(E[Y_j]), how far the players' average win shares differ (the
  strategies' difference; zero in expectation when every seat plays the same strategy);
- **the deal**: E_j Var_d(E[Y_j | d]), how much the hands decide;
- **seat order**: E Var_r(E[Y_j | d, r]), how much moving the same hands round the table
  changes (the seat edge, and its interplay with the deal);
- **later draws**: E Var_k(Y | d, r), what the replays of the same deal and seats change.

Each is estimated without the bias of finite replays by the method of moments of a
balanced nested design (``components``); a share is a part over their sum, so the four
add up to 1, and a part near zero can come out a little below it (and another a little
above 1): the estimates are unbiased, not truncated.  Intervals: a nonparametric percentile
bootstrap over deals (``scipy.stats.bootstrap``), the deal being the independent unit; the
statistic is vectorised over per-deal sums, so 2,000 resamples cost well under a second.
Not BCa: its bias correction pushed the players' share, a variance at its boundary of zero,
to an interval of [-0.006%, -0.003%] for Block Tower, whose resamples centre on 0.  Also: how often two replays of the same deal and seats with
different draws give the same winners (a coin would give 1/P).

**Skill, from a ladder** (``skill_measure``, ``profile_from_ladder``): the spread of the
ladder's Bradley-Terry ratings in Elo points, the measure of Duersch, Lambrecht and
Oechssler (2020), with the benchmark that reads it as a share of skill; see
``skill_measure`` for what is and is not taken from the paper.
"""
from __future__ import annotations

import math
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from cardlab.analysis.stats import Z95, finite_or_none
from cardlab.sim.errors import InputError

DEFAULT_DEALS = 2000
DEFAULT_DRAWS = 2           # replays per deal and seat order (K)
MAX_DRAWS = 16
CHUNK = 100                 # deals per work item (a result never depends on it)
RESAMPLES = 2000            # bootstrap resamples
SALT = 0x6C75636B           # "luck": the replays' random numbers never come from the original stream
PARTS = ("deal", "draws", "seat", "players")
LABELS = {"deal": "the deal", "draws": "later draws", "seat": "seat order", "players": "the players"}
DECIDES = {"deal": "the deal decides", "draws": "later draws decide", "seat": "the seat order decides",
           "players": "the players decide"}
WIDE = 0.05                 # a share whose interval is wider than +-5 points "cannot be told yet"
ELO_PER_NAT = 400.0 / math.log(10.0)   # a Bradley-Terry log-strength in Elo points

REFERENCE = ("Duersch, P., Lambrecht, M. and Oechssler, J. (2020). Measuring skill and chance in "
             "games. European Economic Review 127, 103472. doi:10.1016/j.euroecorev.2020.103472")


# --------------------------------------------------------------------------- the decomposition


def _features(Y: np.ndarray, pm: np.ndarray | None = None) -> np.ndarray:
    """Per-deal sums every estimate is a function of (so a bootstrap over deals only re-weights
    rows): the within-cell sum of squares, the between-rotation sum of squares of the cell
    means, the deal's mean per player (P), their products (P x P), and the replay pairs with
    the same winners.  ``Y``: (D, R, K, P); ``pm``: (D, R, K) winner masks by player."""
    D, R, K, P = Y.shape
    cell = Y.mean(axis=2)                                   # (D, R, P)
    within = ((Y - cell[:, :, None, :]) ** 2).sum(axis=(1, 2, 3))
    deal = cell.mean(axis=1)                                # (D, P)
    between = ((cell - deal[:, None, :]) ** 2).sum(axis=(1, 2))
    outer = (deal[:, :, None] * deal[:, None, :]).reshape(D, P * P)
    same = np.zeros(D)
    if pm is not None:
        for a in range(K):
            for b in range(a + 1, K):
                same += (pm[:, :, a] == pm[:, :, b]).sum(axis=1)
    return np.column_stack([within, between, deal, outer, same])


def _estimates(sums: np.ndarray, n: np.ndarray | float, shape: tuple[int, int, int]) -> np.ndarray:
    """The four variance components, the four shares and the same-winner rate from summed
    features (``sums``: (..., F), the sum over ``n`` deals).  Rows: deal, draws, seat,
    players (components), then the same four as shares, then the same-winner rate."""
    R, K, P = shape
    n = np.asarray(n, dtype=np.float64)
    within, between = sums[..., 0], sums[..., 1]
    s1 = sums[..., 2:2 + P]
    s2 = sums[..., 2 + P:2 + P + P * P].reshape(*sums.shape[:-1], P, P)
    same = sums[..., 2 + P + P * P]
    draws = within / (n * R * P * (K - 1))                  # E[s_w^2] = sigma_draws^2
    s_r = between / (n * P * (R - 1)) if R > 1 else np.zeros_like(draws)
    seat = (R - 1) / R * (s_r - draws / K) if R > 1 else np.zeros_like(draws)
    mean = s1 / n[..., None]
    cov = (s2 - n[..., None, None] * mean[..., :, None] * mean[..., None, :]) / (n[..., None, None] - 1)
    diag = np.diagonal(cov, axis1=-2, axis2=-1)
    deal = diag.mean(axis=-1) - draws / (R * K)
    # the players: the spread of the players' mean win shares, less what the deals' noise adds
    # to it (E[(1/P) sum_j (m_j - m)^2] = sigma^2 + tr(H C H) / (P n), H the centring matrix)
    spread = ((mean - mean.mean(axis=-1, keepdims=True)) ** 2).mean(axis=-1)
    tr_hch = diag.sum(axis=-1) - cov.sum(axis=(-2, -1)) / P
    players = spread - tr_hch / (P * n)
    comp = np.stack([deal, draws, seat, players])
    total = comp.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        shares = np.where(total > 0, comp / np.where(total > 0, total, 1.0), np.nan)
    pairs = R * K * (K - 1) / 2
    rate = same / (n * pairs)
    return np.concatenate([comp, shares, rate[None]], axis=0)


def components(Y: np.ndarray) -> dict[str, float]:
    """The variance components of outcomes ``Y`` (deals, seat orders, replays, players) and
    their shares, point estimates only: ``{"deal": ..., "share_deal": ..., "total": ...}``."""
    Y = np.asarray(Y, dtype=np.float64)
    D, R, K, P = _check_shape(Y)
    est = _estimates(_features(Y).sum(axis=0), D, (R, K, P))
    out = {p: float(est[i]) for i, p in enumerate(PARTS)}
    out.update({f"share_{p}": float(est[4 + i]) for i, p in enumerate(PARTS)})
    out["total"] = float(est[:4].sum())
    return out


def _check_shape(Y: np.ndarray) -> tuple[int, int, int, int]:
    if Y.ndim != 4:
        raise ValueError("outcomes must have the shape (deals, seat orders, replays, players)")
    D, R, K, P = Y.shape
    if D < 3 or K < 2 or P < 2:
        raise ValueError("a decomposition needs 3 or more deals, 2 or more replays and players")
    return D, R, K, P


def decompose(Y: np.ndarray, pm: np.ndarray | None = None, seed: int = 1,
              resamples: int = RESAMPLES) -> dict[str, Any]:
    """Shares of the four parts with 95% percentile bootstrap intervals over deals, and the rate at
    which two replays of the same deal and seats give the same winners (with ``pm``, the
    winner masks by player, shape (D, R, K)).  Deterministic for a given ``seed``."""
    from scipy import stats

    Y = np.asarray(Y, dtype=np.float64)
    D, R, K, P = _check_shape(Y)
    F = _features(Y, pm)
    shape = (R, K, P)

    def statistic(idx, axis=-1):
        idx = np.asarray(idx)
        if idx.ndim == 1:
            return _estimates(F[idx].sum(axis=0), idx.shape[-1], shape)
        sums = np.stack([np.bincount(row, minlength=D) for row in idx]) @ F   # (B, F)
        return _estimates(sums, idx.shape[-1], shape)

    point = statistic(np.arange(D))
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", stats.DegenerateDataWarning)
        boot = stats.bootstrap((np.arange(D),), statistic, vectorized=True, n_resamples=resamples,
                               batch=250, method="percentile",
                               random_state=np.random.default_rng([seed, SALT]))
    lo, hi = boot.confidence_interval.low.copy(), boot.confidence_interval.high.copy()
    # where every resample gives the same value (every replay agreeing) that value is the interval
    dist = boot.bootstrap_distribution
    for i in np.flatnonzero(~(np.isfinite(lo) & np.isfinite(hi))):
        if np.all(np.isfinite(dist[i])):
            lo[i], hi[i] = np.quantile(dist[i], [0.025, 0.975])
    shares = {}
    for i, p in enumerate(PARTS):
        j = 4 + i
        shares[p] = {"share": finite_or_none(point[j]), "ci": [finite_or_none(lo[j]), finite_or_none(hi[j])],
                     "variance": finite_or_none(point[i])}
    out = {"shares": shares, "total_variance": finite_or_none(point[:4].sum())}
    if pm is not None:
        out["same_winner"] = {"rate": finite_or_none(point[8]), "ci": [finite_or_none(lo[8]), finite_or_none(hi[8])],
                              "coin": 1.0 / P, "unrelated": _unrelated(pm), "pairs": int(D * R * K * (K - 1) // 2)}
    return out


def _unrelated(pm: np.ndarray) -> float:
    """How often two unrelated games in the same seats would give the same winners: the sum
    of squared frequencies of each outcome (winner set, or none) per seat order, averaged over
    seat orders.  Below 1/P where wins are shared or games end with no winner."""
    rates = []
    for r in range(pm.shape[1]):
        _, counts = np.unique(pm[:, r, :], return_counts=True)
        f = counts / counts.sum()
        rates.append(float((f * f).sum()))
    return round(float(np.mean(rates)), 6)


# --------------------------------------------------------------------------- the play-outs


class Replays:
    """One setup's deals and their replays: the rotations of the per-seat parts, the hidden
    piles to re-draw, the compiled ``deal``/``begin``/``play_on``.  One per thread
    (it owns a work state)."""

    def __init__(self, setup, draws: int):
        from cardlab.sim.rng import SEED_AT

        game = setup.game
        S = game.schema
        self.setup, self.draws, self.P = setup, draws, setup.players
        self.binding = game.binding()
        self.E = game.layout.ENGINE
        self.rv, sids, params = setup.arrays()
        P = self.P
        # rotation r: player j (hand and strategy of seat j) sits in seat (j + r) mod P
        owner = [p for p in S.parts.values() if p.owner and p.section in ("zones", "book")]
        self.rot_end = max((p.offset + p.words for p in owner), default=0)
        self.rot_idx, self.sids, self.params = [], [], []
        for r in range(P):
            idx = np.arange(self.rot_end)
            for p in owner:
                for s in range(P):
                    to = p.offset + ((s + r) % P) * p.size
                    idx[to:to + p.size] = np.arange(p.offset + s * p.size, p.offset + (s + 1) * p.size)
            self.rot_idx.append(idx)
            sr, pr = sids.copy(), params.copy()
            for j in range(P):
                sr[(j + r) % P], pr[(j + r) % P] = sids[j], params[j]
            self.sids.append(sr)
            self.params.append(pr)
        # the zones nobody sees and no seat owns: the cards still to come
        self.piles = []
        for p in S.zone_parts():
            if p.owner or p.visible != "nobody":
                continue
            if p.encoding == "pile":
                self.piles.append(("pile", p.offset, S.parts[p.count].offset))
            elif p.encoding == "slots":
                self.piles.append(("slots", p.offset, p.size))
            else:
                raise InputError(f"{game.id}: its hidden zone '{p.name}' holds {p.encoding}, which a "
                                 "replay cannot re-draw generically (piles and slots only)")
        self.streams = SEED_AT          # st[0:SEED_AT]: the chance stream and every seat's
        self.base = S.new_state(self.rv)
        self.work = S.new_state(self.rv)

    def deal(self, d: int) -> np.ndarray:
        """Deal ``d`` as the fast path deals it, stopped before the first turn opens."""
        from cardlab.sim.rng import seed_game

        st = self.base
        st[:] = 0
        st[self.E.rules:self.E.rules + self.E.n_rules] = self.rv
        seed_game(st, self.setup.seed, d)
        self.binding.deal(st)
        return st

    def _redraw(self, st: np.ndarray, rng: np.random.Generator) -> None:
        parts, cards = [], []
        for kind, o, n in self.piles:
            if kind == "pile":
                m = int(st[n])
                parts.append((np.arange(o, o + m)))
            else:
                w = st[o:o + n]
                parts.append(o + np.flatnonzero(w >= 0))
            cards.append(st[parts[-1]])
        if parts:
            pos = np.concatenate(parts)
            st[pos] = rng.permutation(np.concatenate(cards))
        words = rng.integers(-2**63, 2**63 - 1, size=self.streams, dtype=np.int64, endpoint=True)
        words[words == 0] = 1       # no stream all zero: the engine never seeds these again
        st[:self.streams] = words

    def play(self, d: int) -> tuple[np.ndarray, np.ndarray, int]:
        """Deal ``d`` in every seat order, ``draws`` times each: (win share per player
        (R, K, P), the winners as a mask of players (R, K), games unfinished)."""
        P, K, E = self.P, self.draws, self.E
        base = self.deal(d)
        rng = np.random.default_rng([self.setup.seed, d, SALT])
        y = np.zeros((P, K, P))
        pm = np.zeros((P, K), dtype=np.int64)
        unfinished = 0
        st = self.work
        for r in range(P):
            for k in range(K):
                st[:] = base
                if r:
                    st[:self.rot_end] = base[self.rot_idx[r]]
                if r or k:
                    self._redraw(st, rng)
                self.binding.begin(st)
                self.binding.play_on(st, self.sids[r], self.params[r])
                mask = int(st[E.mask])
                unfinished += int(st[E.unfinished] != 0)
                won = [j for j in range(P) if (mask >> ((j + r) % P)) & 1]
                for j in won:
                    y[r, k, j] = 1.0 / len(won)
                    pm[r, k] |= 1 << j
        return y, pm, unfinished


def play_deals(setup, deals: int, draws: int = DEFAULT_DRAWS, jobs: int | None = None,
               progress: Callable[[int], None] | None = None, start: int = 0):
    """Deals [start, start + deals) of ``setup``, every seat order, ``draws`` replays each:
    (Y (D, P, K, P), winner masks (D, P, K), games unfinished).  Chunks of deals run on
    threads; every deal's numbers come from (seed, deal) alone, so the result never depends
    on ``jobs``."""
    from cardlab.sim import runner

    P = setup.players
    Y = np.zeros((deals, P, draws, P))
    PM = np.zeros((deals, P, draws), dtype=np.int64)
    unfinished = np.zeros(deals, dtype=np.int64)
    Replays(setup, draws).play(start)  # compile (or load) the kernels once, before any thread

    def work(lo: int, hi: int) -> None:
        rep = Replays(setup, draws)
        for i in range(lo, hi):
            Y[i], PM[i], unfinished[i] = rep.play(start + i)

    chunks = [(lo, min(lo + CHUNK, deals)) for lo in range(0, deals, CHUNK)]
    jobs = max(1, min(jobs or runner.default_jobs(), len(chunks)))
    with ThreadPoolExecutor(jobs) as pool:
        futures = [pool.submit(work, lo, hi) for lo, hi in chunks]
        for (lo, hi), f in zip(chunks, futures):
            f.result()
            if progress:
                progress(hi - lo)
    return Y, PM, int(unfinished.sum())


# --------------------------------------------------------------------------- the profile


@dataclass
class LuckProfile:
    game: str
    players: int
    strategies: list[str]
    rules: dict
    seed: int
    deals: int
    draws: int
    games: int
    unfinished_rate: float
    shares: dict
    same_winner: dict
    verdict: list[str]
    skill: dict | None = None
    elapsed_s: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"game": self.game, "players": self.players, "strategies": self.strategies,
                "rules": self.rules, "seed": self.seed, "deals": self.deals, "draws": self.draws,
                "seat_orders": self.players, "games": self.games,
                "unfinished_rate": round(self.unfinished_rate, 6), "shares": self.shares,
                "same_winner": self.same_winner, "verdict": self.verdict, "skill": self.skill,
                "reference": REFERENCE, "elapsed_s": round(self.elapsed_s, 3)}


def run_luck(game_id: str, deals: int = DEFAULT_DEALS, players: int | None = None,
             sets: list[str] | None = None, strategies: str | list[str] | None = None,
             seed: int = 1, jobs: int | None = None, draws: int = DEFAULT_DRAWS,
             progress: Callable[[int], None] | None = None,
             ladder: dict | str | Path | None = None) -> LuckProfile:
    """The luck profile of ``game_id`` (see the module): ``deals`` deals, each in every seat
    order and ``draws`` times per seat order; with ``ladder`` (a ladder's JSON, or its path)
    also its skill measure.  Bad input raises InputError before anything is played."""
    from cardlab.sim import runner

    setup = runner.make_setup(game_id, players, sets, strategies, seed)
    runner.check_counts(deals, seed, jobs)
    if deals < 20:
        raise InputError(f"bad --games {deals}: a luck profile needs 20 deals or more")
    if not 2 <= draws <= MAX_DRAWS:
        raise InputError(f"bad --draws {draws}: allowed 2 to {MAX_DRAWS}")
    if setup.players < 2:
        raise InputError(f"bad --players {setup.players}: a luck profile needs 2 players or more")
    if setup.searches:
        raise InputError("bad --strategies: a luck profile plays heuristic strategies only (mcts needs "
                         "the search kernel, which plays no game on from a dealt position)")
    skill = profile_from_ladder(ladder) if ladder is not None else None
    if skill is not None and skill.get("game") not in (None, game_id):
        raise InputError(f"bad --ladder: it rates {skill['game']}, not {game_id}")
    t0 = time.perf_counter()
    Y, PM, unfinished = play_deals(setup, deals, draws, jobs, progress)
    dec = decompose(Y, PM, seed)
    games = Y.shape[0] * Y.shape[1] * Y.shape[2]
    labels = [s.label for s in setup.seats]
    prof = LuckProfile(game_id, setup.players, labels, setup.game.rules_json(setup.rules), seed, deals,
                       draws, games, unfinished / games, dec["shares"], dec["same_winner"], [], skill,
                       time.perf_counter() - t0)
    prof.verdict = _verdict(prof)
    return prof


def _pct(x) -> str:
    return "?" if x is None else f"{100 * x:.1f}%"


def _iv(ci) -> str:
    return f"[{_pct(ci[0])}, {_pct(ci[1])}]"


def _half(ci) -> float | None:
    if ci[0] is None or ci[1] is None:
        return None
    return (ci[1] - ci[0]) / 2


def deals_for(half_now: float, n_now: int, target: float = WIDE) -> int:
    """Deals that would shrink an interval of half-width ``half_now`` from ``n_now`` deals to
    about ``target`` (a bootstrap interval narrows as 1/sqrt(n)): a round figure."""
    if not half_now or half_now != half_now or half_now <= target:
        return n_now
    n = n_now * (half_now / target) ** 2
    step = 10 ** max(2, int(math.log10(n)) - 1)
    return int(math.ceil(n / step) * step)


def _verdict(p: LuckProfile) -> list[str]:
    """Sentences no wider than their intervals: a part is the largest only when its whole
    interval lies above every other part's; a share wider than +-5 points cannot be told yet."""
    out = []
    sh = p.shares
    known = {k: v for k, v in sh.items() if v["share"] is not None and None not in v["ci"]}
    if not known:
        return ["The outcome never varied in these games: there is nothing to share out."]
    wide = [k for k in PARTS if k in known and _half(known[k]["ci"]) > WIDE]
    if wide:
        need = max(deals_for(_half(known[k]["ci"]), p.deals) for k in wide)
        names = [LABELS[k] for k in wide]
        names = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        out.append(f"Cannot tell yet with {p.deals:,} deals the share of {names} to within +-5 points; "
                   f"about {need:,} deals would.")
    top = max(known, key=lambda k: known[k]["share"])
    if all(known[top]["ci"][0] > v["ci"][1] for k, v in known.items() if k != top):
        what = DECIDES[top]
        out.append(f"{what[0].upper() + what[1:]} the most: {_pct(known[top]['share'])} "
                   f"{_iv(known[top]['ci'])} of the variance in who wins.")
    else:
        out.append(f"Cannot tell yet with {p.deals:,} deals which part decides the most.")
    same_strategy = len(set(p.strategies)) == 1
    if same_strategy:
        out.append("Every seat plays the same strategy, so the players' share is zero but for noise: "
                   "how much skill can move the outcome is a ladder's question (the skill line).")
    sw = p.same_winner
    if sw["rate"] is not None and None not in sw["ci"]:
        out.append(f"The same deal in the same seats with different draws gives the same winner(s) in "
                   f"{_pct(sw['rate'])} {_iv(sw['ci'])} of replays (a coin would give {_pct(sw['coin'])}, "
                   f"two unrelated games {_pct(sw['unrelated'])}).")
    return out


def render_text(p: LuckProfile) -> str:
    lines = [f"{p.game}: luck profile, {p.deals:,} deals x {p.players} seat orders x {p.draws} draws "
             f"({p.games:,} games), {p.players} player(s), seed {p.seed}, strategies {', '.join(p.strategies)}",
             "", "What decides who wins (share of the variance of a player's win share, 95% interval):"]
    for k in PARTS:
        v = p.shares[k]
        note = "  (the strategies' difference)" if k == "players" else ""
        lines.append(f"  {LABELS[k]:<12} {_pct(v['share']):>7}  {_iv(v['ci'])}{note}")
    if p.unfinished_rate > 0:
        capped = "under 0.1%" if p.unfinished_rate < 0.001 else _pct(p.unfinished_rate)
        lines.append(f"  (games that hit the cap: {capped}; they count as won by nobody)")
    if any(v["share"] is not None and not -0.0005 <= v["share"] <= 1.0005 for v in p.shares.values()):
        lines.append("  (a share just below 0% or above 100% is sampling noise of an unbiased estimate: "
                     "its interval says how much)")
    lines += [""] + p.verdict
    if p.skill is not None:
        lines += ["", f"Skill (the ladder {p.skill['source']}, {p.skill['seats']} players a game):",
                  "  " + p.skill["verdict"]]
    return "\n".join(lines)


# --------------------------------------------------------------------------- skill from a ladder


def _p_deterministic_records(n: int, players: int, p: float) -> list[tuple]:
    """Expected results of a p-deterministic game among ``n`` players ranked 0 (best) to n - 1,
    in a ladder's design (each pairing both ways: one seat of a against players - 1 of b):
    with probability p the best player at the table wins, else a uniformly random seat."""
    m = players - 1
    rec = []
    for a in range(n):
        for b in range(n):
            if a != b:
                wa = (p if a < b else 0.0) + (1 - p) / players
                rec.append((str(a), str(b), m, wa, 1.0 - wa))
    return rec


def p_deterministic_sd(n: int, players: int, p: float) -> float:
    """The standard deviation, in Elo points, of the Bradley-Terry ratings that a
    p-deterministic game among ``n`` players gives (``analysis.tournament.bradley_terry`` on
    its expected results)."""
    from cardlab.analysis.tournament import bradley_terry

    if p <= 0:
        return 0.0
    bt = bradley_terry(_p_deterministic_records(n, players, p), [str(i) for i in range(n)])
    return float(np.std(bt["rating"].to_numpy()) * ELO_PER_NAT)


def p_deterministic(sd: float, n: int, players: int) -> float | None:
    """The p at which a p-deterministic game among ``n`` players spreads its Elo ratings by
    ``sd`` (``p_deterministic_sd`` rises with p from 0; scipy's brentq finds it)."""
    from scipy.optimize import brentq

    if sd is None or not math.isfinite(sd):
        return None
    if sd <= 0:
        return 0.0
    hi = 1 - 1e-6
    if p_deterministic_sd(n, players, hi) <= sd:
        return 1.0
    return float(brentq(lambda p: p_deterministic_sd(n, players, p) - sd, 0.0, hi, xtol=1e-5))


def skill_measure(ratings, players: int = 2, resamples: int = RESAMPLES, seed: int = 1,
                  exclude: tuple[str, ...] | list[str] = ()) -> dict[str, Any]:
    """How much skill spreads a population of players, after Duersch, Lambrecht and
    Oechssler, "Measuring skill and chance in games", European Economic Review 127 (2020)
    103472 (doi:10.1016/j.euroecorev.2020.103472).

    What the paper does (from its abstract, the RePEc working-paper record of 2017 (Heidelberg
    discussion paper 643) and the Hanken research portal's record of the article, and a
    methodological account that follows it, recommend.games's "Elo" series, 2025): every player
    of a game is rated by a "best-fit" Elo (the update factor K chosen to minimise the squared
    error of Elo's predictions); the wider the distribution of the ratings, the more the game
    depends on skill; the spread is the standard deviation of the ratings.  Its benchmark is
    **"x%-chess"**: chess with (100 - x)% of its results replaced by a coin flip; 50%-chess is
    its line between games of skill and games of chance, and it finds poker about as skilful
    as chess with 75% of the results replaced by a coin flip (about 25%-chess).

    What is **not** here: the paper's own reference value, the Elo standard deviation of its
    chess data, is not in any source we could reach, so no "x% chess" figure is given (none
    is invented).  The closest defensible version, labelled as such:

    - ``elo_sd``: the standard deviation (over the rated players, ddof 0) of the ratings in
      Elo points: a ladder's Bradley-Terry log-strengths times 400 / ln 10 (Bradley-Terry is
      the model Elo's expectation formula is; the ratings are fitted to all games at once,
      so there is no K to calibrate).  Interval: a parametric bootstrap, each rating drawn
      from a normal with the standard error its interval gives (independent draws: the
      mean-0 constraint's small negative correlation is ignored, which widens the interval
      slightly).  A spread depends on who is rated: compare games rated by ladders of the
      same design (the committed ladders: random, the heuristics, mcts at 16 to 1024
      iterations).
    - ``p_deterministic``: the paper's x%-chess construction with a game of pure skill in
      place of chess, the "p-deterministic" game (with probability p the best player at the
      table wins, else a coin flip, here a uniformly random seat), among as many players as
      the ladder rates and in its design: the p whose ratings spread as widely.  Read: "like
      a game where p of the results go to the stronger player and the rest to chance".
      Since chess is itself not pure skill, a game's x%-chess would be above its p.

    ``ratings``: the ladder's ``ratings`` (dicts with "rung", "rating" and "ci", natural-log
    Bradley-Terry) or triples (name, rating, (low, high)).  ``players``: the seats of the
    games the ratings come from.  ``exclude``: names left out (a spread is dominated by its
    weakest players: a strategy that stalls on purpose, or ``random``, widens it).  The
    ratings are not refitted without them: their games against the others still shaped
    the rest."""
    rows = []
    for r in ratings:
        row = (r["rung"], r["rating"], r["ci"]) if isinstance(r, dict) else (r[0], r[1], r[2])
        if row[0] not in exclude:
            rows.append(row)
    if len(rows) < 2:
        raise InputError("a skill measure needs the ratings of 2 players or more")
    theta = np.array([float(r[1]) for r in rows])
    lo = np.array([float("-inf") if r[2][0] is None else float(r[2][0]) for r in rows])
    hi = np.array([float("inf") if r[2][1] is None else float(r[2][1]) for r in rows])
    sd = float(np.std(theta) * ELO_PER_NAT)
    n = len(rows)
    ci: list[float | None] = [None, None]
    if np.all(np.isfinite(lo)) and np.all(np.isfinite(hi)):
        se = (hi - lo) / (2 * Z95)
        rng = np.random.default_rng([seed, SALT, n])
        draws = theta + se * rng.standard_normal((resamples, n))
        sds = np.std(draws, axis=1) * ELO_PER_NAT
        ci = [float(np.quantile(sds, 0.025)), float(np.quantile(sds, 0.975))]
    p = p_deterministic(sd, n, players)
    p_ci = [p_deterministic(c, n, players) if c is not None else None for c in ci]
    best, worst = float(theta.max() * ELO_PER_NAT), float(theta.min() * ELO_PER_NAT)
    return {"players_rated": n, "rated": [r[0] for r in rows], "excluded": [e for e in exclude],
            "seats": players, "elo_sd": round(sd, 3),
            "elo_sd_ci": [None if c is None else round(c, 3) for c in ci],
            "elo_range": round(best - worst, 3),
            "p_deterministic": None if p is None else round(p, 5),
            "p_deterministic_ci": [None if c is None else round(c, 5) for c in p_ci],
            "chess_reference": None,
            "measure": "standard deviation of Elo ratings (Duersch, Lambrecht & Oechssler 2020); "
                       "p_deterministic: their x%-chess benchmark with a game of pure skill in place of "
                       "chess (the paper's chess value is not given here: not found in reachable sources)",
            "reference": REFERENCE}


def profile_from_ladder(ladder_json, exclude: tuple[str, ...] | list[str] = ()) -> dict[str, Any]:
    """The skill measure of a ladder (``cardlab ladder``'s JSON, as a dict or a path, e.g.
    reports/ladders/GAME_default.json; ``exclude``: rungs left out, see ``skill_measure``),
    with one sentence that claims no more than its intervals."""
    import json

    source = "(given)"
    if isinstance(ladder_json, (str, Path)):
        source = str(ladder_json)
        try:
            ladder_json = json.loads(Path(ladder_json).read_text())
        except OSError as e:
            raise InputError(f"cannot read --ladder {source!r}: {e.strerror}") from None
        except json.JSONDecodeError:
            raise InputError(f"bad --ladder {source!r}: not a ladder's JSON") from None
    if not isinstance(ladder_json, dict) or "ratings" not in ladder_json:
        raise InputError(f"bad --ladder {source!r}: no 'ratings' (a `cardlab ladder --json` file is needed)")
    players = int(ladder_json.get("players", 2))
    m = skill_measure(ladder_json["ratings"], players, seed=int(ladder_json.get("seed", 1)), exclude=exclude)
    m["game"] = ladder_json.get("game")
    m["source"] = source
    sd_ci, p_ci = m["elo_sd_ci"], m["p_deterministic_ci"]
    sd_txt = f"{m['elo_sd']:.0f} Elo points" + ("" if None in sd_ci else f" [{sd_ci[0]:.0f}, {sd_ci[1]:.0f}]")
    if m["p_deterministic"] is None:
        p_txt = ""
    elif None in p_ci:
        p_txt = f": about as spread as a game whose results go to the stronger player {_pct(m['p_deterministic'])} of the time"
    else:
        p_txt = (f": as spread as a game whose results go to the stronger player {_pct(m['p_deterministic'])} "
                 f"{_iv(p_ci)} of the time and to a coin flip otherwise")
    m["verdict"] = (f"The {m['players_rated']} rated players' Elo ratings spread with a standard deviation of "
                    f"{sd_txt}{p_txt} (the spread measure of Duersch, Lambrecht & Oechssler 2020; "
                    "their chess benchmark is not reproduced here).")
    return m
