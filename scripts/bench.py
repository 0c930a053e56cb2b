#!/usr/bin/env python
"""The cardlab benchmark: how fast, how lean and how correct the compiled fast path is.

    python scripts/bench.py [--games N] [--game GAME ...] [--players P]
                            [--strategies S] [--jobs J] [--quick] [--repeat N] [--json]

For each game (default: every game in ``sim.registry.game_ids()``) it runs the real
``cardlab simulate GAME ... --seed 1 --json`` command in child processes and reports:

* compiled speed: ``games_per_second`` from the command's JSON (the time spent playing,
  as the runner measures it), the wall time of the whole command (process start,
  imports, cache load, play, summary) and the child's peak resident memory;
* per thread: the same N games with ``--jobs 1``, and how the threads scale (all cores
  against one thread); with ``--repeat N`` both speed runs are made N times and the best
  is kept, the spread printed beside it (the machines are shared and noisy);
* against the references: each speed's ratio to hand-written C on one core and to a
  careful numba kernel (``REFERENCE``), and the issue's speed targets, PASS or FAIL;
* memory flatness: peak memory of a 10-game run, of N/10 games and of N games, and the
  ratio N : N/10 (the kernels keep tallies, not per-game rows, so it should be ~1);
* cold compile: the whole 10-game command with a fresh, empty cache folder
  (``CARDLAB_CACHE_DIR``), then cached load: the same command again on that folder;
* pure Python: the same command with ``NUMBA_DISABLE_JIT=1`` on a small sample, the
  speed-up of the compiled path, and whether the uncompiled and compiled runs of the
  same games and seed give identical JSON (everything but the timing keys).

``--search`` measures the search player instead (issues 17 and 19), in this process:
``mcts`` iterations per second at positions met by seeded random play (200 iterations a
decision, ``rollout=reference`` and ``random``), on one thread and on all cores (a thread
per core, each deciding every position), and what one iteration costs in fast-path games
(the fast path's one-thread games/s, ``reference``, 100,000 games, over the one-thread
iterations/s; issue 19 asks for at most about two).

Each measured command runs as its own child, reaped with ``os.wait4`` so that its peak
memory (``ru_maxrss``) is that child's alone, not a maximum over everything run so far.
Commands run one at a time: never run two benchmarks at once on a small machine.

The readable table goes to stdout; with ``--json`` stdout holds exactly one JSON object
and the table goes to stderr.  Exit status: 0 when every command ran and the compiled
and uncompiled results match, 1 otherwise (a missed speed target is reported, not fatal).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

# The children's environment, taken before importing ``sim`` (which sets NUMBA_CACHE_DIR
# for this process).  Compiled runs must never inherit NUMBA_DISABLE_JIT, and the measuring
# runs are not the user's runs: none of them is recorded in the run history.
BASE_ENV = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "NUMBA_DISABLE_JIT")}
BASE_ENV["CARDLAB_HISTORY"] = "off"

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TINY_GAMES = 10          # warm-up, cold-compile and cached-load runs
PURE_PYTHON_GAMES = 200  # NUMBA_DISABLE_JIT=1 sample (~0.5 s of pure Python for skyscraper)
SEED = 1
COMMAND_TIMEOUT_S = 900

try:
    from cardlab.analysis.summary import TIMING_KEYS
except Exception:  # the benchmark must still run if the analysis layer is mid-edit
    TIMING_KEYS = ("elapsed_s", "games_per_second")

# Per-game headline measurement and targets (the numbers).  Games not listed use
# DEFAULT_GAMES / QUICK_GAMES, their default player count and default strategy, no targets.
DEFAULT_GAMES = 1_000_000
QUICK_GAMES = 100_000
HEADLINE = {
    "skyscraper": {"games": 1_000_000, "quick_games": 100_000, "players": 2,
                   "strategies": "reference", "min_games_per_second": 200_000,
                   "max_wall_s": 8.0},
    "smokestack": {"games": 1_000_000, "quick_games": 100_000, "players": 4,
                   "strategies": "reference", "min_games_per_second": 200_000, "max_wall_s": None},
    "five_towers": {"games": 1_000_000, "quick_games": 100_000, "players": 3,
                    "strategies": "reference", "min_games_per_second": 40_000, "max_wall_s": None},
    "three_up": {"games": 1_000_000, "quick_games": 100_000, "players": 4,
                 "strategies": "reference", "min_games_per_second": 150_000, "max_wall_s": None},
    "block_tower": {"games": 1_000_000, "quick_games": 100_000, "players": 4,
                    "strategies": "reference", "min_games_per_second": 200_000, "max_wall_s": None},
}
HUGE = (100_000, 10_000_000)  # --huge: peak memory of a 10^7-game run against a 10^5-game run

# Speeds to compare with (issue 19; games/s, `reference` in every seat, default players):
# hand-written C on one core and a careful numba kernel of the same game on one thread, as
# measured on this machine when the issues were written (None: not measured), and the
# issue's targets on all cores and per thread.  The bench prints its figures' ratio to them.
REFERENCE = {
    "skyscraper": {"c_one_core": 625_000, "careful_numba": 435_000, "target": 625_000, "target_per_thread": 345_000},
    "smokestack": {"c_one_core": 500_000, "careful_numba": None, "target": 500_000, "target_per_thread": 275_000},
    "five_towers": {"c_one_core": 45_000, "careful_numba": None, "target": 90_000, "target_per_thread": 50_000},
    "three_up": {"c_one_core": 542_000, "careful_numba": 360_000, "target": 542_000, "target_per_thread": 300_000},
    "block_tower": {"c_one_core": 711_000, "careful_numba": 450_000, "target": 711_000, "target_per_thread": 390_000},
    "crazy_eights": {"c_one_core": None, "careful_numba": None, "target": 500_000, "target_per_thread": None},
}
MIN_SCALING = 1.85  # all cores (2 here) against one thread


# --------------------------------------------------------------------------- running
@dataclass
class Run:
    """One measured child process."""
    cmd: list[str]
    env_note: str
    rc: int = 0
    wall_s: float = 0.0
    maxrss_mib: float | None = None
    stdout: str = ""
    stderr: str = ""
    result: dict | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def brief(self) -> dict:
        out = {"command": " ".join(self.cmd), "env": self.env_note or None,
               "wall_s": round(self.wall_s, 3),
               "peak_rss_mib": None if self.maxrss_mib is None else round(self.maxrss_mib, 1)}
        if self.result is not None:
            out["games_per_second"] = self.result.get("games_per_second")
            out["elapsed_s"] = self.result.get("elapsed_s")
        if self.error:
            out["error"] = self.error
        return out


def cardlab_command() -> list[str]:
    """The ``cardlab`` console script of this interpreter, else the one on PATH."""
    exe = Path(sys.executable).parent / "cardlab"
    if exe.is_file() and os.access(exe, os.X_OK):
        return [str(exe)]
    found = shutil.which("cardlab")
    if found:
        return [found]
    return [sys.executable, "-m", "cardlab.cli"]


def _maxrss_mib(ru) -> float:
    # Linux reports KiB, macOS bytes.
    return ru.ru_maxrss / (1024.0 * 1024.0) if sys.platform == "darwin" else ru.ru_maxrss / 1024.0


def measure(cmd: list[str], extra_env: dict[str, str] | None = None, log=None) -> Run:
    """Run ``cmd`` as one child; wall time around it, its own peak RSS, its JSON stdout."""
    env = dict(BASE_ENV)
    env.update(extra_env or {})
    note = " ".join(f"{k}={v}" for k, v in (extra_env or {}).items())
    run = Run(cmd, note)
    if log:
        shown = ["cardlab"] + cmd[len(cardlab_command()):]
        log(f"  running: {note + ' ' if note else ''}{' '.join(shown)}")
    killed = threading.Event()

    def kill(proc):
        killed.set()
        proc.kill()

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env,
                                cwd=str(ROOT))
        timer = threading.Timer(COMMAND_TIMEOUT_S, kill, (proc,))
        timer.start()
        try:
            if hasattr(os, "wait4"):
                _, status, ru = os.wait4(proc.pid, 0)
                run.wall_s = time.perf_counter() - t0
                run.rc = proc.returncode = os.waitstatus_to_exitcode(status)
                run.maxrss_mib = _maxrss_mib(ru)
            else:  # pragma: no cover - not on a POSIX system: no per-child memory figure
                run.rc = proc.wait()
                run.wall_s = time.perf_counter() - t0
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        finally:
            timer.cancel()
        out.seek(0)
        err.seek(0)
        run.stdout = out.read().decode(errors="replace")
        run.stderr = err.read().decode(errors="replace")
    if killed.is_set():
        run.error = f"timed out after {COMMAND_TIMEOUT_S} s"
    elif run.rc != 0:
        tail = run.stderr.strip().splitlines()[-12:]
        run.error = f"exit status {run.rc}: " + "\n".join(tail)
    else:
        try:
            run.result = json.loads(run.stdout)
        except json.JSONDecodeError as e:
            run.error = f"stdout is not one JSON object ({e}): {run.stdout[:300]!r}"
    return run


def simulate_cmd(game: str, games: int, players: int, strategies: str, jobs: int | None) -> list[str]:
    cmd = cardlab_command() + ["simulate", game, "--games", str(games), "--players", str(players),
                               "--strategies", strategies, "--seed", str(SEED), "--json"]
    if jobs is not None:
        cmd += ["--jobs", str(jobs)]
    return cmd


def without_timing(d: dict) -> dict:
    return {k: v for k, v in d.items() if k not in TIMING_KEYS}


# --------------------------------------------------------------------------- one game
@dataclass
class GamePlan:
    game: str
    games: int
    players: int
    strategies: str
    jobs: int | None
    targets: dict = field(default_factory=dict)
    huge: bool = False
    repeat: int = 1


def plan_for(game_id: str, args) -> GamePlan:
    from cardlab.sim.registry import get_game

    g = get_game(game_id)
    head = HEADLINE.get(game_id, {})
    games = args.games or (head.get("quick_games", QUICK_GAMES) if args.quick
                           else head.get("games", DEFAULT_GAMES))
    players = args.players if args.players is not None else head.get("players", g.default_players)
    strategies = args.strategies or head.get("strategies", g.default_strategy)
    targets = {}
    if head and players == head["players"] and strategies == head["strategies"] and args.jobs is None:
        if games >= head["quick_games"]:  # smaller runs are dominated by start-up costs
            targets["min_games_per_second"] = head["min_games_per_second"]
        if games == head["games"] and head["max_wall_s"]:
            targets["max_wall_s"] = head["max_wall_s"]
    return GamePlan(game_id, games, players, strategies, args.jobs, targets, args.huge, args.repeat)


def _times(n: int) -> str:
    return f", best of {n}" if n > 1 else ""


def best_of(go, name: str, cmd: list[str], n: int):
    """Run ``cmd`` ``n`` times (one at a time): the fastest run, and every run's games/s
    (the spread of a shared, noisy machine)."""
    runs = [go(name, cmd) for _ in range(max(1, n))]
    ok = [r for r in runs if r.ok and r.result and r.result.get("games_per_second")]
    rates = [r.result["games_per_second"] for r in ok]
    best = max(ok, key=lambda r: r.result["games_per_second"]) if ok else runs[-1]
    return best, rates


def spread(rates: list) -> str:
    return "" if len(rates) < 2 else f"  [{len(rates)} runs: {min(rates):,.0f} to {max(rates):,.0f}]"


def bench_game(p: GamePlan, log) -> dict:
    sim = lambda n: simulate_cmd(p.game, n, p.players, p.strategies, p.jobs)  # noqa: E731
    res: dict = {"game": p.game, "players": p.players, "strategies": p.strategies,
                 "jobs": p.jobs, "games": p.games, "errors": []}
    runs: dict[str, Run] = {}

    def go(name, cmd, env=None):
        r = measure(cmd, env, log)
        runs[name] = r
        if not r.ok:
            res["errors"].append(f"{name}: {r.error}")
            log(f"  FAILED ({name}): {r.error}")
        return r

    hash_before = _source_hash()
    res["warm_cache_existed"] = _normal_cache_populated(hash_before)
    # 1. warm-up on the normal cache (compiles once if the sources changed since last time)
    log(f"[{p.game}] warm-up ({TINY_GAMES} games, normal cache)")
    if not go("warmup", sim(TINY_GAMES)).ok:  # bad settings or a broken kernel: nothing to measure
        res["ok"] = False
        res["warmup"] = runs["warmup"].brief()
        return res
    # 2. headline: compiled speed, whole-command wall time, peak memory
    log(f"[{p.game}] compiled speed ({p.games:,} games{_times(p.repeat)})")
    big, big_rates = best_of(go, "large", sim(p.games), p.repeat)
    # 2b. the same games on one thread: speed per thread and how well the threads scale
    one = None
    if p.jobs is None and effective_jobs(None, p.games, p) > 1:
        log(f"[{p.game}] one thread ({p.games:,} games, --jobs 1{_times(p.repeat)})")
        one, one_rates = best_of(go, "one_thread", simulate_cmd(p.game, p.games, p.players, p.strategies, 1),
                                 p.repeat)
    # 3. memory flatness: the same at N/10 (plus the tiny run's footprint)
    small_n = max(1, p.games // 10)
    log(f"[{p.game}] memory at {small_n:,} games")
    small = go("small", sim(small_n))
    # 4. pure Python and equivalence: the same games and seed, compiled and not
    log(f"[{p.game}] pure Python vs compiled ({PURE_PYTHON_GAMES} games, seed {SEED})")
    comp = go("compiled_sample", sim(PURE_PYTHON_GAMES))
    pure = go("pure_python", sim(PURE_PYTHON_GAMES), {"NUMBA_DISABLE_JIT": "1"})
    # 5. cold compile on an empty cache folder, then cached load from that folder
    log(f"[{p.game}] cold compile and cached load ({TINY_GAMES} games, fresh cache folder)")
    cache_dir = tempfile.mkdtemp(prefix="cardlab-bench-cache-")
    try:
        cold = go("cold_compile", sim(TINY_GAMES), {"CARDLAB_CACHE_DIR": cache_dir})
        folders_cold = sorted(x.name for x in Path(cache_dir).iterdir())
        cached = go("cached_load", sim(TINY_GAMES), {"CARDLAB_CACHE_DIR": cache_dir})
        folders_cached = sorted(x.name for x in Path(cache_dir).iterdir())
    finally:
        shutil.rmtree(cache_dir, ignore_errors=True)

    if p.huge:  # flat memory at scale: 10^7 games against 10^5
        log(f"[{p.game}] memory at {HUGE[0]:,} and {HUGE[1]:,} games (--huge)")
        a, b = go("huge_small", sim(HUGE[0])), go("huge_large", sim(HUGE[1]))
        res["huge"] = {"small": a.brief(), "large": b.brief(), "ratio": None}
        if a.ok and b.ok and a.maxrss_mib and b.maxrss_mib:
            res["huge"]["ratio"] = round(b.maxrss_mib / a.maxrss_mib, 3)
            res["huge"]["pass"] = b.maxrss_mib <= 1.10 * a.maxrss_mib

    hash_after = _source_hash()
    res["sources_changed"] = hash_before != hash_after
    if res["sources_changed"]:
        log(f"  WARNING: the kernel sources changed during the benchmark ({hash_before} -> "
            f"{hash_after}): runs after the change compiled again")

    # ---- compiled speed
    speed = {"games": p.games, **big.brief(), "runs": big_rates}
    if big.ok:
        gps = big.result.get("games_per_second")
        checks = {}
        if "min_games_per_second" in p.targets and gps is not None:
            checks["games_per_second"] = {"target": p.targets["min_games_per_second"],
                                          "pass": gps >= p.targets["min_games_per_second"]}
        if "max_wall_s" in p.targets:
            checks["wall_s"] = {"target": p.targets["max_wall_s"],
                                "pass": big.wall_s <= p.targets["max_wall_s"]}
        speed["targets"] = checks
    speed["threads"] = effective_jobs(p.jobs, p.games, p)
    res["compiled"] = speed
    res["one_thread"] = None
    if one is not None and one.ok and big.ok:
        g1, gn = one.result.get("games_per_second"), big.result.get("games_per_second")
        res["one_thread"] = {"games": p.games, **one.brief(), "runs": one_rates,
                             "scaling": round(gn / g1, 3) if g1 and gn else None}
    res["compared"] = compare_reference(p, res)
    res["warmup"] = runs["warmup"].brief()

    # ---- memory
    # the tiny footprint comes from the cached-load run: a warm-up that compiled would show
    # the compiler's memory, not a 10-game run's
    mem = {"tiny": {"games": TINY_GAMES, "peak_rss_mib": cached.brief()["peak_rss_mib"]},
           "small": {"games": small_n, "peak_rss_mib": small.brief()["peak_rss_mib"]},
           "large": {"games": p.games, "peak_rss_mib": big.brief()["peak_rss_mib"]},
           "ratio_large_to_small": None}
    if big.ok and small.ok and big.maxrss_mib and small.maxrss_mib:
        mem["ratio_large_to_small"] = round(big.maxrss_mib / small.maxrss_mib, 3)
    res["memory"] = mem

    # ---- compile / cache load
    consistent = len(folders_cold) == 1 and folders_cached == folders_cold
    res["compile"] = {
        "games": TINY_GAMES,
        "cold_wall_s": round(cold.wall_s, 3) if cold.ok else None,
        "cached_wall_s": round(cached.wall_s, 3) if cached.ok else None,
        "cache_folders": folders_cached,
        "valid": cold.ok and cached.ok and consistent,
        "note": None if consistent else (
            "the sources under sim/ or strategies/ changed during the measurement (the cache "
            f"folder holds {folders_cached}): the cached-load figure is another cold compile"),
    }

    # ---- pure Python and equivalence
    pp: dict = {"games": PURE_PYTHON_GAMES, "seed": SEED, "pure": pure.brief(),
                "compiled": comp.brief(), "games_per_second": None, "speedup": None,
                "results_match": None, "differing_keys": []}
    if pure.ok:
        pp["games_per_second"] = pure.result.get("games_per_second")
        if big.ok and pp["games_per_second"]:
            pp["speedup"] = round(big.result["games_per_second"] / pp["games_per_second"], 1)
        warnings = sorted({ln.strip() for ln in pure.stderr.splitlines() if "Warning" in ln})
        pp["stderr_warnings"] = warnings
    if pure.ok and comp.ok:
        a, b = without_timing(pure.result), without_timing(comp.result)
        pp["results_match"] = a == b
        pp["differing_keys"] = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
        pp["compared_keys"] = len(set(a) | set(b))
    res["pure_python"] = pp
    res["ok"] = not res["errors"] and pp["results_match"] is True
    return res


def compare_reference(p: GamePlan, res: dict) -> dict | None:
    """The measured speeds against ``REFERENCE`` (the headline setup only): ratios to C on
    one core and to careful numba, and the issue's targets, all cores and per thread."""
    ref = REFERENCE.get(p.game)
    head = HEADLINE.get(p.game, {})
    if ref is None or p.players != head.get("players", p.players) or p.strategies != head.get("strategies"):
        return None
    gps = res["compiled"].get("games_per_second") if res["compiled"].get("error") is None else None
    one = (res.get("one_thread") or {}).get("games_per_second")
    out = {**ref, "all_cores": gps, "per_thread": one,
           "scaling": (res.get("one_thread") or {}).get("scaling"), "min_scaling": MIN_SCALING}
    for key, num in (("all_cores", gps), ("per_thread", one)):
        for what in ("c_one_core", "careful_numba"):
            den = ref[what]
            out[f"{key}_vs_{what}"] = round(num / den, 3) if num and den else None
    out["pass"] = {"all_cores": None if gps is None else gps >= ref["target"],
                   "per_thread": None if one is None or ref["target_per_thread"] is None
                   else one >= ref["target_per_thread"],
                   "scaling": None if out["scaling"] is None else out["scaling"] >= MIN_SCALING}
    return out


def _source_hash() -> str | None:
    try:
        from cardlab.sim.cache import source_hash

        return source_hash()
    except Exception:
        return None


def _normal_cache_populated(src_hash: str | None) -> bool | None:
    """Whether the normal numba cache folder for these sources already holds files."""
    if src_hash is None:
        return None
    try:
        from cardlab.sim.cache import cache_root

        folder = cache_root() / src_hash
        return folder.is_dir() and any(folder.rglob("*.nbi"))
    except Exception:
        return None


def effective_jobs(jobs: int | None, games: int, p: GamePlan | None = None) -> int:
    """Threads the runner actually uses: --jobs (default all cores), at most one per chunk
    (of SEARCH_CHUNK games when a seat of ``p`` plays the search player)."""
    try:
        from cardlab.sim import runner
        searches = p is not None and runner.make_setup(p.game, p.players, None, p.strategies).searches
        chunk = runner.SEARCH_CHUNK if searches else runner.CHUNK
    except Exception:
        chunk = 5_000
    n = jobs or machine_info()["nproc"] or 1
    return max(1, min(n, -(-games // chunk)))


# --------------------------------------------------------------------------- report
def machine_info() -> dict:
    try:
        nproc = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover
        nproc = os.cpu_count()
    model = None
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        mem_total = next(int(ln.split()[1]) for ln in Path("/proc/meminfo").read_text().splitlines()
                         if ln.startswith("MemTotal:")) / 1024 / 1024
    except (OSError, StopIteration, ValueError):
        mem_total = None
    return {"nproc": nproc, "cpu_count": os.cpu_count(), "cpu_model": model or platform.processor() or None,
            "memory_gib": None if mem_total is None else round(mem_total, 1),
            "platform": platform.platform()}


def versions() -> dict:
    out = {"python": platform.python_version()}
    for dist in ("numba", "numpy", "llvmlite", "cardlab"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    return out


def repo_state() -> dict:
    def git(*a):
        p = subprocess.run(["git", "-C", str(ROOT), *a], capture_output=True, text=True, timeout=20)
        return p.stdout.strip() if p.returncode == 0 else None

    try:
        head = git("rev-parse", "--short", "HEAD")
        dirty = git("diff", "--name-only", "HEAD")
    except (OSError, subprocess.SubprocessError):
        head, dirty = None, None
    src = _source_hash()
    return {"root": str(ROOT), "commit": head,
            "modified_files": None if dirty is None else dirty.splitlines(),
            "kernel_source_hash": src}


def fmt_rate(x) -> str:
    return "n/a" if x is None else f"{x:,.0f} games/s"


def fmt_s(x) -> str:
    return "n/a" if x is None else f"{x:.2f} s"


def fmt_mib(x) -> str:
    return "n/a" if x is None else f"{x:,.0f} MiB"


def render(report: dict) -> str:
    m, v, r = report["machine"], report["versions"], report["repo"]
    L = ["cardlab benchmark",
         f"  machine : {m['nproc']} CPUs (nproc), {m['cpu_model']}"
         + (f", {m['memory_gib']} GiB RAM" if m["memory_gib"] else "") + f"; {m['platform']}",
         f"  versions: python {v['python']}, numba {v['numba']}, numpy {v['numpy']}, "
         f"llvmlite {v['llvmlite']}, cardlab {v['cardlab']}",
         f"  repo    : {r['root']} @ {r['commit']}"
         + (f" + local changes to {', '.join(r['modified_files'])}" if r["modified_files"] else "")
         + (f" (kernel sources {r['kernel_source_hash']})" if r["kernel_source_hash"] else ""),
         f"  command : {report['command']} simulate GAME ... --seed {SEED} --json "
         f"(each run in its own process, one at a time)", ""]
    for g in report["games"]:
        jobs = "all cores" if g["jobs"] is None else str(g["jobs"])
        L.append(f"== {g['game']}: {g['players']} players, strategies {g['strategies']}, jobs {jobs} ==")
        if "compiled" not in g:  # stopped at the warm-up
            L += [f"  ERROR {e}" for e in g["errors"]] + [""]
            continue
        rows: list[tuple[str, str]] = []
        c = g["compiled"]
        rows.append((f"compiled speed ({c['games']:,} games)",
                     f"{fmt_rate(c.get('games_per_second'))}  (play time {fmt_s(c.get('elapsed_s'))});  "
                     f"whole command {fmt_s(c['wall_s'])};  peak RSS {fmt_mib(c['peak_rss_mib'])}"
                     + spread(c.get("runs") or [])))
        t = c.get("targets") or {}
        if t:
            parts = []
            if "games_per_second" in t:
                parts.append(f">= {t['games_per_second']['target']:,} games/s: "
                             f"{'PASS' if t['games_per_second']['pass'] else 'FAIL'}")
            if "wall_s" in t:
                parts.append(f"whole command <= {t['wall_s']['target']:g} s: "
                             f"{'PASS' if t['wall_s']['pass'] else 'FAIL'}")
            else:
                parts.append("whole-command target applies to the headline game count only")
            rows.append(("targets", ";  ".join(parts)))
        o = g.get("one_thread")
        if o:
            rows.append((f"one thread ({o['games']:,} games)",
                         f"{fmt_rate(o.get('games_per_second'))};  all cores / one thread = "
                         + ("n/a" if o["scaling"] is None else f"{o['scaling']:.2f}") + spread(o.get("runs") or [])))
        cmp = g.get("compared")
        if cmp:
            def ratio(x):
                return "n/a" if x is None else f"{x:.2f}x"

            def verdict(ok):
                return {True: "PASS", False: "FAIL", None: "n/a"}[ok]

            rows.append(("against C (one core)",
                         f"{fmt_rate(cmp['c_one_core'])}: all cores {ratio(cmp['all_cores_vs_c_one_core'])}, "
                         f"per thread {ratio(cmp['per_thread_vs_c_one_core'])}"))
            rows.append(("against careful numba",
                         f"{fmt_rate(cmp['careful_numba'])}: all cores {ratio(cmp['all_cores_vs_careful_numba'])}, "
                         f"per thread {ratio(cmp['per_thread_vs_careful_numba'])}"))
            rows.append(("issue-19 targets",
                         f"all cores >= {cmp['target']:,}: {verdict(cmp['pass']['all_cores'])};  per thread "
                         + ("n/a" if cmp["target_per_thread"] is None else
                            f">= {cmp['target_per_thread']:,}: {verdict(cmp['pass']['per_thread'])}")
                         + f";  scaling >= {cmp['min_scaling']}: {verdict(cmp['pass']['scaling'])}"))
        mem = g["memory"]
        rows.append(("memory flatness (peak RSS)",
                     f"{mem['tiny']['games']:,} games {fmt_mib(mem['tiny']['peak_rss_mib'])}  |  "
                     f"{mem['small']['games']:,} games {fmt_mib(mem['small']['peak_rss_mib'])}  |  "
                     f"{mem['large']['games']:,} games {fmt_mib(mem['large']['peak_rss_mib'])}  |  "
                     f"ratio {mem['large']['games']:,}:{mem['small']['games']:,} = "
                     + ("n/a" if mem["ratio_large_to_small"] is None else f"{mem['ratio_large_to_small']:.2f}")))
        if "huge" in g:
            h = g["huge"]
            rows.append(("memory at scale (peak RSS)",
                         f"{HUGE[0]:,} games {fmt_mib(h['small']['peak_rss_mib'])}  |  {HUGE[1]:,} games "
                         f"{fmt_mib(h['large']['peak_rss_mib'])} ({fmt_rate(h['large'].get('games_per_second'))})  |  "
                         + ("ratio n/a" if h["ratio"] is None else
                            f"ratio {h['ratio']:.3f}: {'PASS' if h['pass'] else 'FAIL'} (<= 1.10)")))
        cp = g["compile"]
        rows.append((f"cold compile ({cp['games']} games)",
                     f"{fmt_s(cp['cold_wall_s'])}  whole command, empty cache folder"))
        rows.append((f"cached load ({cp['games']} games)",
                     f"{fmt_s(cp['cached_wall_s'])}  whole command again, on that populated folder"
                     + (f"  [INVALID: {cp['note']}]" if cp["note"] else "")))
        wc = g.get("warm_cache_existed")
        rows.append(("warm-up (normal cache)", f"{fmt_s(g['warmup']['wall_s'])}  whole command"
                     + {True: " (a cache for these sources existed)", False: " (compiled: no cache yet for these sources)",
                        None: ""}[wc]))
        pp = g["pure_python"]
        rows.append((f"pure Python ({pp['games']} games)",
                     f"{fmt_rate(pp['games_per_second'])} with NUMBA_DISABLE_JIT=1 (one thread);  "
                     + ("compiled speed-up n/a" if pp["speedup"] is None else
                        f"compiled path {pp['speedup']:,.0f}x faster ({c['threads']} thread(s) vs 1; "
                        f"{pp['speedup'] / c['threads']:,.0f}x per thread)")))
        if pp["results_match"] is None:
            eq = "not compared (a run failed)"
        elif pp["results_match"]:
            eq = (f"MATCH: identical JSON ({pp['compared_keys']} keys, all but "
                  f"{', '.join(TIMING_KEYS)}), {pp['games']} games, seed {pp['seed']}")
        else:
            eq = f"MISMATCH in {', '.join(pp['differing_keys'])}"
        rows.append(("compiled == pure Python", eq))
        if pp.get("stderr_warnings"):
            rows.append(("pure-Python stderr", f"{len(pp['stderr_warnings'])} distinct warning line(s), "
                         f"e.g. {pp['stderr_warnings'][0]}"))
        w = max(len(a) for a, _ in rows)
        L += [f"  {a:<{w}}  {b}" for a, b in rows]
        if g.get("sources_changed"):
            L.append("  WARNING the kernel sources changed during this game's runs: some figures include a compile")
        for e in g["errors"]:
            L.append(f"  ERROR {e}")
        L.append("")
    L.append("result: " + ("OK" if report["ok"] else "PROBLEMS (see above)"))
    return "\n".join(L)


# --------------------------------------------------------------------------- main
# --------------------------------------------------------------------------- the search player
SEARCH_ITERATIONS = 200
SEARCH_POSITIONS = 12  # positions from random play (games 0..11, 3..29 random steps in)


def search_positions(game_id: str):
    """Positions met by seeded random play, each some way into its own game."""
    from cardlab.sim.registry import get_game
    from cardlab.sim.positions import random_play_positions

    return random_play_positions(get_game(game_id), SEARCH_POSITIONS, (3, 30), 0)


def search_rate(game_id: str, rollout: str, jobs: int, repeat: int) -> list[float]:
    """Iterations/s of ``mcts`` over the positions, ``jobs`` threads each deciding all of
    them (a decision with one legal action searches nothing and is left out)."""
    from cardlab.sim.positions import empty_model
    from cardlab.sim.registry import get_game

    g = get_game(game_id)
    M, B, L = g.model(), g.binding(), g.layout
    p = g.all_strategies["mcts"].row({"iterations": SEARCH_ITERATIONS, "rollout": rollout})
    pos = [st for st in search_positions(game_id) if M.legal(st.copy()) > 1]
    W = empty_model(g)  # plain search: no model read
    B.search_decide(pos[0].copy(), int(pos[0][L.S_ACTOR]), p, W)  # compiled (or loaded) first

    def work():
        for st in pos:
            B.search_decide(st.copy(), int(st[L.S_ACTOR]), p, W)

    rates = []
    for _ in range(repeat):
        threads = [threading.Thread(target=work) for _ in range(jobs)]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        rates.append(jobs * len(pos) * SEARCH_ITERATIONS / (time.perf_counter() - t0))
    return rates


def fast_path_one_thread(game_id: str, repeat: int) -> float:
    """The fast path's best one-thread games/s (``reference``, default players, 100,000 games)."""
    from cardlab.sim import runner

    setup = runner.make_setup(game_id, None, None, "reference", SEED)
    runner.run(setup, 1000, 1)
    return max(runner.run(setup, QUICK_GAMES, 1).games_per_second for _ in range(repeat))


def bench_search(games: list[str], repeat: int, log) -> dict:
    from cardlab.sim.runner import default_jobs

    cores = default_jobs()
    out = {"iterations_per_decision": SEARCH_ITERATIONS, "threads": cores, "games": []}
    for g in games:
        log(f"{g}: search player, {SEARCH_ITERATIONS} iterations a decision{_times(repeat)}")
        row = {"game": g}
        for rollout in ("reference", "random"):
            one = search_rate(g, rollout, 1, repeat)
            every = search_rate(g, rollout, cores, repeat)
            row[rollout] = {"one_thread": round(max(one)), "one_thread_runs": [round(x) for x in one],
                            "all_cores": round(max(every)), "all_cores_runs": [round(x) for x in every]}
        fast = fast_path_one_thread(g, repeat)
        row["fast_path_one_thread"] = round(fast)
        row["fast_path_games_per_iteration"] = round(fast / row["reference"]["one_thread"], 2)
        out["games"].append(row)
    return out


def render_search(rep: dict) -> str:
    cores = f"{rep['threads']} threads"
    lines = [f"search player (mcts, {rep['iterations_per_decision']} iterations a decision): iterations/s",
             f"{'game':<14}{'reference, 1 thread':>20}{cores:>12}{'random, 1 thread':>18}{cores:>12}"
             f"{'games/iteration':>17}"]
    for r in rep["games"]:
        ref, rnd = r["reference"], r["random"]
        lines.append(f"{r['game']:<14}{ref['one_thread']:>20,}{ref['all_cores']:>12,}"
                     f"{rnd['one_thread']:>18,}{rnd['all_cores']:>12,}{r['fast_path_games_per_iteration']:>17.2f}")
    lines.append("games/iteration: the fast path's one-thread games/s over the reference-rollout "
                 "iterations/s (issue 19: at most about 2)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=None,
                    help=f"games in the headline run (default: per game, {DEFAULT_GAMES:,}; "
                         f"--quick {QUICK_GAMES:,}); memory is also measured at a tenth of it")
    ap.add_argument("--game", action="append", default=None,
                    help="game id (repeatable; default: every shipped game)")
    ap.add_argument("--players", type=int, default=None, help="players (default: per game)")
    ap.add_argument("--strategies", default=None, help="--strategies for simulate (default: reference)")
    ap.add_argument("--jobs", type=int, default=None, help="--jobs for simulate (default: all cores)")
    ap.add_argument("--quick", action="store_true", help=f"headline run of {QUICK_GAMES:,} games")
    ap.add_argument("--huge", action="store_true",
                    help=f"also measure peak memory at {HUGE[1]:,} games against {HUGE[0]:,} (flat-memory check)")
    ap.add_argument("--repeat", type=int, default=1, metavar="N",
                    help="run the speed measurements (all cores, one thread) N times and keep the best")
    ap.add_argument("--json", action="store_true",
                    help="print one JSON object on stdout (the table goes to stderr)")
    ap.add_argument("--search", action="store_true",
                    help="measure the search player's iterations/s instead (in this process; "
                         "--game and --repeat apply, the simulate options do not)")
    args = ap.parse_args(argv)

    from cardlab.sim.registry import game_ids

    known = game_ids()
    games = args.game or known
    for g in games:
        if g not in known:
            ap.error(f"unknown game {g!r}: allowed {', '.join(known)}")
    if args.games is not None and args.games < 1:
        ap.error("--games must be 1 or more")
    if args.jobs is not None and args.jobs < 1:
        ap.error("--jobs must be 1 or more")
    if args.repeat < 1:
        ap.error("--repeat must be 1 or more")

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    if args.search:
        report = {"machine": machine_info(), "versions": versions(), "repo": repo_state(),
                  "search": bench_search(games, args.repeat, log)}
        text = render_search(report["search"])
        print(text, file=sys.stderr if args.json else sys.stdout)
        if args.json:
            print(json.dumps(report, indent=2))
        return 0
    report = {"machine": machine_info(), "versions": versions(), "repo": repo_state(),
              "command": " ".join(cardlab_command()), "seed": SEED, "games": []}
    for g in games:
        report["games"].append(bench_game(plan_for(g, args), log))
    report["ok"] = all(g["ok"] for g in report["games"])
    text = render(report)
    if args.json:
        print(text, file=sys.stderr)
        print(json.dumps(report, indent=2))
    else:
        print(text)
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
