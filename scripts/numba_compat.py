#!/usr/bin/env python
"""Run one game's golden checks on the lowest and the highest numba cardlab supports.

    python scripts/numba_compat.py                     # both ends of pyproject.toml's range
    python scripts/numba_compat.py --numba 0.67.0      # any release (repeatable)
    python scripts/numba_compat.py --game skyscraper --patches off

For each numba release: a scratch virtual environment (deleted afterwards), this checkout
installed into it with that numba (pip picks the rest), then in that environment

1. whether cardlab's numba patches are in (``sim/numba_internals.py``; a release they do
   not fit runs plain numba, with a warning),
2. ``scripts/golden.py --check --game GAME``: every golden file of the game replayed,
   byte for byte, with a cold compile cache of its own (its time is the cold compile plus
   the games).

Prints one line per release and a Markdown table for the compatibility note (README.md,
docs/performance.md); exit 1 if any release differs or fails.  Needs the package index
(a few hundred MB of wheels on a machine with an empty pip cache).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def declared_range() -> tuple[str, str]:
    """(lowest, highest) numba release of ``sim/numba_internals.TESTED`` (which a test keeps
    equal to pyproject.toml's range)."""
    from cardlab.sim.numba_internals import TESTED

    return tuple(".".join(map(str, v)) for v in TESTED)


def run(cmd: list[str], env: dict, log) -> subprocess.CompletedProcess:
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=ROOT)
    log.write(f"$ {' '.join(cmd)}\n{p.stdout}{p.stderr}\n")
    return p


def check(version: str, game: str, patches: str, log) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"cardlab-numba-{version}-") as tmp:
        venv = Path(tmp) / "venv"
        py = venv / "bin" / "python"
        env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "VIRTUAL_ENV")}
        env.update(CARDLAB_CACHE_DIR=str(Path(tmp) / "cache"), CARDLAB_HOME=str(Path(tmp) / "home"),
                   CARDLAB_NUMBA_PATCHES=patches, PYTHONWARNINGS="default")
        out = {"numba": version, "game": game, "patches": patches}
        t0 = time.monotonic()
        p = run([sys.executable, "-m", "venv", str(venv)], env, log)
        if p.returncode == 0:
            p = run([str(py), "-m", "pip", "install", "-q", "-e", str(ROOT), f"numba=={version}"], env, log)
        out["install_s"] = round(time.monotonic() - t0)
        if p.returncode != 0:
            out["result"] = "install failed"
            return out
        p = run([str(py), "-c", "import numba, llvmlite, numpy; from cardlab.sim import jit; "
                 "print(numba.__version__, llvmlite.__version__, numpy.__version__, jit.PATCHED)"], env, log)
        if p.returncode != 0:
            out["result"] = "import failed: " + (p.stderr.strip().splitlines() or ["?"])[-1]
            return out
        nb, llvm, npy, patched = p.stdout.split()
        out.update(llvmlite=llvm, numpy=npy, patched=patched == "True",
                   warned="NumbaPatchWarning" in p.stderr)
        t0 = time.monotonic()
        p = run([str(py), "scripts/golden.py", "--check", "--game", game], env, log)
        out["golden_s"] = round(time.monotonic() - t0)
        last = (p.stdout.strip().splitlines() or ["(no output)"])[-1]
        out["result"] = last if p.returncode == 0 else f"FAILED: {last}" + (
            "" if p.stdout.strip() else " " + (p.stderr.strip().splitlines() or ["?"])[-1])
        out["ok"] = p.returncode == 0
        return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--numba", action="append", help="a numba release (default: both ends)")
    ap.add_argument("--game", default="crazy_eights", help="the game whose golden files to check")
    ap.add_argument("--patches", default="on", choices=("on", "off"),
                    help="CARDLAB_NUMBA_PATCHES in the scratch environment")
    ap.add_argument("--log", default=None, help="write every command's output here")
    args = ap.parse_args()
    versions = args.numba or list(declared_range())
    log_path = Path(args.log) if args.log else Path(tempfile.gettempdir()) / "cardlab_numba_compat.log"
    rows = []
    with open(log_path, "w") as log:
        for v in versions:
            r = check(v, args.game, args.patches, log)
            rows.append(r)
            print(f"numba {v}: {r['result']} ({r.get('install_s', '?')} s install, "
                  f"{r.get('golden_s', '?')} s golden check; patches "
                  f"{'in' if r.get('patched') else 'off'})", flush=True)
    print(f"\nlog: {log_path}\n")
    print("| numba | llvmlite | numpy | patches | golden check of " + args.game + " | time |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['numba']} | {r.get('llvmlite', '?')} | {r.get('numpy', '?')} | "
              f"{'in' if r.get('patched') else 'off (plain numba)'} | {r['result']} | "
              f"{r.get('golden_s', '?')} s |")
    return 0 if all(r.get("ok") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
