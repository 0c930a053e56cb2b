#!/usr/bin/env python
"""Where a game's compiled fast path spends its time: the share of each compiled function.

    python scripts/profile_kernel.py GAME [--games N] [--strategies S] [--top K] [--annotate FUNC]

Plays N games (default 300,000) of GAME on one thread, under Linux ``perf`` sampling this
process, and prints the share of the samples in each compiled function (rules, strategies,
engine, record and tally helpers; what the compiler inlined is counted in its caller).

How the samples are named: numba loads a cached kernel as one object file that holds a
copy of every function the kernel calls, but registers no symbols with ``perf``.  This
script keeps that object's bytes when numba loads it (a hook on the library's
``_set_compiled_object``), reads its symbol table with ``nm``, finds where the object sits
in memory by matching the code bytes at the hottest sample against the object, and maps
every sample into it.  ``--annotate FUNC`` then prints the disassembly of the function
whose name contains FUNC, each instruction with its share.

Needs ``perf`` (linux-tools; permission to profile one's own process), ``nm``, ``c++filt``
and ``objdump`` (binutils).  Speeds are for ``scripts/bench.py`` and ``speed_ab.py``: the
sampling itself costs a few percent.
"""
from __future__ import annotations

import argparse
import bisect
import collections
import ctypes
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for _p in (ROOT, ROOT / "scripts"):  # speed_ab beside this script
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

_OBJECTS: list[bytes] = []


def _keep_objects() -> None:
    """Keep every compiled object numba loads from its cache (their symbols are ours)."""
    from numba.core import codegen

    original = codegen.CPUCodeLibrary._set_compiled_object

    def keep(self, value):
        _OBJECTS.append(value)
        return original(self, value)

    codegen.CPUCodeLibrary._set_compiled_object = keep


def _symbols(obj: Path) -> list[tuple[int, int, str]]:
    """(offset in the code section, size, readable name) of every function of ``obj``."""
    out = subprocess.run(["nm", "-S", "--defined-only", str(obj)], capture_output=True, text=True,
                         check=True).stdout
    raw = [(int(a, 16), int(z, 16), n) for a, z, kind, n in
           (ln.split() for ln in out.splitlines() if len(ln.split()) == 4) if kind in "tTW"]
    names = subprocess.run(["c++filt"], input="\n".join(n for _, _, n in raw), capture_output=True,
                           text=True, check=True).stdout.splitlines()
    short = [re.sub(r"\[abi:[^\]]*\]", "", d).split("(")[0].replace("cardlab::", "") for d in names]
    return sorted((a, z, n) for (a, z, _), n in zip(raw, short))


def _code_offset(obj: Path) -> int:
    """File offset of the object's code section (numba puts its code in ``.ltext``)."""
    out = subprocess.run(["objdump", "-h", str(obj)], capture_output=True, text=True, check=True).stdout
    best = None
    for ln in out.splitlines():
        f = ln.split()
        if len(f) >= 6 and f[1] in (".ltext", ".text") and int(f[2], 16) > 0:
            best = int(f[5], 16)
    if best is None:
        raise SystemExit("no code section in the kernel's object")
    return best


def profile(game: str, games: int, strategies: str) -> tuple[list[tuple[int, float]], list, Path, float]:
    from speed_ab import warmed

    play = warmed(game, strategies)
    if not _OBJECTS:
        raise SystemExit("the kernel was compiled in this process, not loaded from the cache: run once "
                         "more (the cache is now warm)")
    tmp = Path(tempfile.mkdtemp(prefix="cardlab-profile-"))
    obj = tmp / "kernel.o"
    obj.write_bytes(max(_OBJECTS, key=len))  # the kernel's object holds every function it calls
    data = tmp / "perf.data"
    rec = subprocess.Popen(["perf", "record", "-q", "-o", str(data), "-p", str(os.getpid())],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)  # perf attached
    t0 = time.perf_counter()
    play(games)
    rate = games / (time.perf_counter() - t0)
    rec.send_signal(2)
    rec.wait()
    rep = subprocess.run(["perf", "report", "-i", str(data), "--stdio", "--sort", "sym"],
                         capture_output=True, text=True).stdout
    samples = []
    for ln in rep.splitlines():
        f = ln.split()
        if ln.startswith("#") or len(f) < 3 or not f[0].endswith("%"):
            continue
        addr = next((x for x in f if x.startswith("0x0000")), None)
        samples.append((int(addr, 16) if addr else None, float(f[0][:-1]), " ".join(f[2:])[:60]))
    # where the object's code sits: the bytes at a hot address, found in the object
    blob = obj.read_bytes()
    code = _code_offset(obj)
    votes = collections.Counter()  # code patched at load (addresses) differs: vote over samples
    for a, _, _ in sorted((s for s in samples if s[0] is not None), key=lambda s: -s[1])[:60]:
        for start in (a - 8, a, a + 8):
            pat = ctypes.string_at(start, 16)
            i = blob.find(pat)
            if i >= code and blob.find(pat, i + 1) < 0:
                votes[start - (i - code)] += 1
    base = votes.most_common(1)[0][0] if votes else None
    if base is None:
        raise SystemExit("could not place the kernel's code in memory")
    placed = [((a - base) if a is not None else None, pct, name) for a, pct, name in samples]
    return placed, _symbols(obj), obj, rate


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("game")
    ap.add_argument("--games", type=int, default=300_000)
    ap.add_argument("--strategies", default="reference")
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--annotate", default=None, metavar="FUNC")
    a = ap.parse_args()
    for tool in ("perf", "nm", "c++filt", "objdump"):
        if shutil.which(tool) is None:
            print(f"profile_kernel: needs {tool} on PATH", file=sys.stderr)
            return 2
    _keep_objects()
    from cardlab.sim.errors import InputError

    try:
        samples, syms, obj, rate = profile(a.game, a.games, a.strategies)
    except InputError as e:  # a bad game or strategy: one line, exit 2
        print(f"profile_kernel: {e}", file=sys.stderr)
        return 2
    starts = [s[0] for s in syms]
    share = collections.Counter()
    per_offset = collections.Counter()
    for off, pct, name in samples:
        if off is None:
            share[f"(outside the kernel) {name}"] += pct
            continue
        j = bisect.bisect_right(starts, off) - 1
        inside = j >= 0 and off < syms[j][0] + syms[j][1]
        share[syms[j][2] if inside else "(unnamed kernel code)"] += pct
        per_offset[off] += pct
    print(f"{a.game}: {a.games:,} games, one thread, {rate:,.0f} games/s while sampled")
    for name, pct in share.most_common(a.top):
        print(f"{pct:6.2f}%  {name}")
    if a.annotate:
        match = [s for s in syms if a.annotate in s[2]]
        if not match:
            print(f"no function named like {a.annotate!r}", file=sys.stderr)
            return 2
        lo, size, name = max(match, key=lambda s: sum(v for o, v in per_offset.items() if s[0] <= o < s[0] + s[1]))
        dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "--start-address", hex(lo),
                              "--stop-address", hex(lo + size), str(obj)],
                             capture_output=True, text=True).stdout
        print(f"\n{name}:")
        for ln in dis.splitlines():
            m = re.match(r"\s*([0-9a-f]+):\s*(.*)", ln)
            if m:
                pct = per_offset.get(int(m.group(1), 16), 0.0)
                print(f"{pct:6.2f}  {m.group(1)}  {m.group(2)[:90]}" if pct else f"        {m.group(1)}  {m.group(2)[:90]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
