"""The run history: every recorded run in one embedded DuckDB database.

Where: ``$CARDLAB_HOME/history.duckdb``, else the user's data folder
(``$XDG_DATA_HOME/cardlab``, by default ``~/.local/share/cardlab``).  Off: ``--no-history``
on one command, or ``CARDLAB_HISTORY=off`` (also ``0``, ``false``, ``no``) in the
environment for every command (``recording_on``); ``docs/history.md``.  The conformance kit
(``sim/testing.py``: ``check_game``) never records.  One table, ``runs``:
what was run (command line, game, players, rules, strategies, seed, games), by which code
(cardlab version and the kernel-source hash that keys the numba cache, ``sim/cache.py``),
when, the headline metrics as columns and the whole summary JSON.

DuckDB lets one process write a database file at a time.  A run never waits long for it
and never loses its record: ``record`` retries the lock with a short backoff
(``LOCK_WAIT_S`` in all) and, if it is still held, spools the record as one small JSON file
into ``history.pending/`` next to the database; every later open of the database merges the
spooled records in (each record carries a unique ``record_id``, so a record merged twice is
stored once).  A damaged database file is never written to: the record is spooled, one line
on stderr says so, and the run goes on.
"""
from __future__ import annotations

import json
import os
import sys
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from cardlab.sim.errors import InputError

DB_NAME = "history.duckdb"
PENDING = "history.pending"
LOCK_WAIT_S = 1.5  # the longest a run waits for the database lock before spooling its record
ENV = "CARDLAB_HISTORY"       # off / 0 / false / no: no run is recorded (any other value, or unset: on)
OFF = ("off", "0", "false", "no")
RECORDED = ("simulate", "report", "sweep", "tournament", "ladder", "optimize", "restricted",
            "cardpower")

# the columns of ``runs`` after ``id``, with their DuckDB types (rules, strategies and the
# summary are JSON text: VARCHAR needs no extension)
COLUMNS: tuple[tuple[str, str], ...] = (
    ("record_id", "VARCHAR UNIQUE"),
    ("recorded_at", "TIMESTAMP"),          # UTC, when the run finished
    ("command", "VARCHAR"),                # simulate, report, sweep, ...
    ("command_line", "VARCHAR"),
    ("game", "VARCHAR"),
    ("players", "INTEGER"),
    ("rules", "VARCHAR"),                  # JSON object: every knob's value
    ("strategies", "VARCHAR"),             # JSON list: one label per seat (or the field)
    ("seed", "BIGINT"),
    ("games", "BIGINT"),                   # the run's --games (per variant, seat order, candidate, ...)
    ("cardlab_version", "VARCHAR"),
    ("code_hash", "VARCHAR"),              # sim/cache.py source_hash: the kernel and strategy sources
    ("elapsed_s", "DOUBLE"),
    ("seat0_edge", "DOUBLE"),              # first_player_advantage: seat 0's rate minus 1/players
    ("seat0_edge_lo", "DOUBLE"),
    ("seat0_edge_hi", "DOUBLE"),
    ("seat_edge_confounded", "BOOLEAN"),   # the seats played different strategies
    ("unfinished_rate", "DOUBLE"),
    ("no_winner_rate", "DOUBLE"),
    ("mean_length", "DOUBLE"),             # of the finished games
    ("balance", "DOUBLE"),
    ("verdict", "VARCHAR"),
    ("summary", "VARCHAR"),                # the whole JSON the run printed or wrote
)
NAMES = tuple(c for c, _ in COLUMNS)


class HistoryError(Exception):
    """The database cannot be opened (damaged, or not a database): one line says why."""


def recording_on() -> bool:
    """Whether runs are recorded at all: not when ``$CARDLAB_HISTORY`` is off, 0, false or
    no (case-insensitive)."""
    return os.environ.get(ENV, "").strip().lower() not in OFF


def home() -> Path:
    """The folder of the history database: $CARDLAB_HOME, else the user's data folder."""
    from cardlab.sim.models import data_home

    return data_home()


def db_path() -> Path:
    return home() / DB_NAME


def pending_dir() -> Path:
    return home() / PENDING


# ------------------------------------------------------------ a record from a run
def _num(x) -> float | None:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def headline(payload: dict[str, Any]) -> dict[str, Any]:
    """The headline metrics of a run's JSON (a simulate/report summary has them all; the
    other commands' objects have what they have, the rest is NULL)."""
    edge_ci = payload.get("first_player_advantage_ci") or [None, None]
    length = payload.get("length") if isinstance(payload.get("length"), dict) else {}
    verdict = payload.get("verdict")
    if isinstance(verdict, list):
        verdict = " ".join(str(v) for v in verdict)
    return {"seat0_edge": _num(payload.get("first_player_advantage")),
            "seat0_edge_lo": _num(edge_ci[0]), "seat0_edge_hi": _num(edge_ci[1]),
            "seat_edge_confounded": payload.get("seat_edge_confounded"),
            "unfinished_rate": _num(payload.get("unfinished_rate")),
            "no_winner_rate": _num(payload.get("no_winner_rate")),
            "mean_length": _num(length.get("mean")), "balance": _num(payload.get("balance")),
            "verdict": None if verdict is None else str(verdict),
            "elapsed_s": _num(payload.get("elapsed_s"))}


def make_record(command: str, payload: dict[str, Any], argv: list[str] | None = None,
                **known: Any) -> dict[str, Any]:
    """One row of ``runs`` for a finished run: ``payload`` is the JSON the run printed (or
    wrote); ``known`` gives what the payload does not say (game, players, seed, games,
    rules, strategies)."""
    import shlex

    from cardlab.sim.cache import code_identity

    code = code_identity()
    argv = sys.argv[1:] if argv is None else argv
    pick = {k: known.get(k, payload.get(k)) for k in ("game", "players", "seed", "games", "rules",
                                                      "strategies")}
    if pick["games"] is None:  # a tournament counts its --games per seat order
        pick["games"] = payload.get("games_per_order", payload.get("total_games"))
    rec = {"record_id": uuid.uuid4().hex,
           "recorded_at": datetime.now(timezone.utc).replace(tzinfo=None).isoformat(timespec="microseconds"),
           "command": command, "command_line": shlex.join(["cardlab", *argv]),
           "game": pick["game"], "players": pick["players"],
           "rules": None if pick["rules"] is None else json.dumps(pick["rules"], sort_keys=True),
           "strategies": None if pick["strategies"] is None else json.dumps(pick["strategies"]),
           "seed": pick["seed"], "games": pick["games"],
           "cardlab_version": code["version"], "code_hash": code["source"]}
    rec |= headline(payload)
    rec["summary"] = json.dumps(payload, default=_jsonable)
    return rec


def _jsonable(x):
    """numpy numbers (and anything else with .item()) in a payload, as plain values."""
    if hasattr(x, "item"):
        return x.item()
    if hasattr(x, "tolist"):
        return x.tolist()
    raise TypeError(f"not JSON-able: {type(x).__name__}")


# ------------------------------------------------------------ the database
def _is_lock_error(e: Exception) -> bool:
    return "lock" in str(e).lower()


def _connect(path: Path, read_only: bool = False):
    """Connect (creating the table on first use); HistoryError when the file is damaged.
    A held lock raises duckdb's IOException (the caller retries)."""
    import duckdb

    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        con = duckdb.connect(str(path), read_only=read_only)
    except duckdb.Error as e:
        if _is_lock_error(e):
            raise
        raise HistoryError(f"the run history {path} cannot be opened ({_one_line(e)})") from None
    if not read_only:
        cols = ", ".join(f"{c} {t}" for c, t in COLUMNS)
        con.execute("CREATE SEQUENCE IF NOT EXISTS run_id START 1")
        con.execute(f"CREATE TABLE IF NOT EXISTS runs (id BIGINT PRIMARY KEY DEFAULT nextval('run_id'), {cols})")
    return con


def _one_line(e: Exception) -> str:
    return " ".join(str(e).split())


def _insert(con, rec: dict[str, Any]) -> None:
    marks = ", ".join("?" for _ in NAMES)
    con.execute(f"INSERT INTO runs ({', '.join(NAMES)}) VALUES ({marks}) ON CONFLICT DO NOTHING",
                [rec.get(c) for c in NAMES])


def _merge_pending(con) -> int:
    """Insert the spooled records (oldest first) and remove their files; returns how many."""
    folder = pending_dir()
    if not folder.is_dir():
        return 0
    n = 0
    for f in sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime):
        try:
            rec = json.loads(f.read_text())
        except (OSError, ValueError):
            continue  # being written right now (or not ours): the next open takes it
        _insert(con, rec)
        f.unlink(missing_ok=True)
        n += 1
    return n


def _spool(rec: dict[str, Any]) -> Path:
    """Write a record next to the database for the next open to merge (atomic: a reader
    never sees half a file)."""
    folder = pending_dir()
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{rec['record_id']}.tmp"
    tmp.write_text(json.dumps(rec))
    final = folder / f"{rec['record_id']}.json"
    os.replace(tmp, final)
    return final


def open_db(wait_s: float = LOCK_WAIT_S, read_only: bool = False):
    """A connection with the spooled records merged in, waiting up to ``wait_s`` for the
    lock (doubling pauses from 10 ms).  Raises HistoryError (damaged) or duckdb's
    IOException (the lock is still held)."""
    import duckdb

    path = db_path()
    deadline = time.monotonic() + wait_s
    pause = 0.01
    while True:
        try:
            con = _connect(path, read_only=read_only)
            break
        except duckdb.Error as e:
            if not _is_lock_error(e) or time.monotonic() + pause > deadline:
                raise
            time.sleep(pause)
            pause = min(2 * pause, 0.2)
    if not read_only:
        _merge_pending(con)
    return con


def record(rec: dict[str, Any], warn: Callable[[str], None] | None = None) -> int | None:
    """Store one record; returns its id, or None when it was spooled (lock still held after
    ``LOCK_WAIT_S``, or a damaged database: then ``warn`` gets one line).  Never raises for
    the database's sake: a run's result matters more than its record."""
    import duckdb

    warn = warn or (lambda m: print(m, file=sys.stderr))
    try:
        con = open_db()
    except HistoryError as e:
        try:
            where = _spool(rec)
            warn(f"cardlab: history: {e}; left untouched, this run's record kept in {where.parent}")
        except OSError as e2:
            warn(f"cardlab: history: {e}; left untouched, and this run's record could not be kept: {e2.strerror}")
        return None
    except duckdb.Error:  # the lock is still held: keep the record for the next open
        try:
            _spool(rec)
        except OSError as e2:
            warn(f"cardlab: history: the database stayed locked and this run's record could not be "
                 f"kept: {e2.strerror}")
        return None
    except OSError as e:
        warn(f"cardlab: history: cannot open {db_path()}: {e.strerror}; this run is not recorded")
        return None
    try:
        _insert(con, rec)
        row = con.execute("SELECT id FROM runs WHERE record_id = ?", [rec["record_id"]]).fetchone()
        return int(row[0])
    finally:
        con.close()


def record_run(command: str, payload: dict[str, Any], enabled: bool = True, **known: Any) -> int | None:
    """What the CLI calls after a run printed its result (nothing with ``--no-history`` or
    ``CARDLAB_HISTORY=off``)."""
    if not enabled or not recording_on():
        return None
    try:
        rec = make_record(command, payload, **known)
    except Exception as e:  # a payload the record cannot hold must not fail a finished run
        print(f"cardlab: history: this run is not recorded ({_one_line(e)})", file=sys.stderr)
        return None
    return record(rec)


# ------------------------------------------------------------ reading
def _reader():
    """A connection for reading, the spooled records merged; InputError when the database
    is damaged or stays locked (a listing may wait longer than a run)."""
    import duckdb

    if not db_path().exists() and not pending_dir().is_dir():
        return None
    try:
        return open_db(wait_s=5.0)
    except HistoryError as e:
        raise InputError(f"{e}; left untouched (move it away to start a new history)") from None
    except duckdb.Error as e:
        raise InputError(f"the run history {db_path()} is busy: {_one_line(e)}") from None


def runs(game: str | None = None):
    """Every recorded run as a pandas DataFrame, oldest first (``game`` to filter); the
    JSON columns (rules, strategies, summary) stay text: ``json.loads`` them."""
    import pandas as pd

    con = _reader()
    if con is None:
        return pd.DataFrame(columns=["id", *NAMES])
    try:
        q = "SELECT * FROM runs" + (" WHERE game = ?" if game else "") + " ORDER BY id"
        return con.execute(q, [game] if game else []).df()
    finally:
        con.close()


def get(run_id: int) -> dict[str, Any]:
    """One run as a dict (rules, strategies and summary parsed); InputError for an unknown id."""
    con = _reader()
    row = None
    if con is not None:
        try:
            cur = con.execute("SELECT * FROM runs WHERE id = ?", [run_id])
            names = [d[0] for d in cur.description]
            found = cur.fetchone()
            row = None if found is None else dict(zip(names, found))
        finally:
            con.close()
    if row is None:
        raise InputError(f"bad run id {run_id}: no such run in {db_path()} (see `cardlab history`)")
    for k in ("rules", "strategies", "summary"):
        row[k] = None if row[k] is None else json.loads(row[k])
    return row


def export(path: str, game: str | None = None) -> int:
    """Write the runs (all, or one game's) to a Parquet file; returns how many."""
    if not path.endswith(".parquet"):
        raise InputError(f"bad export file {path!r}: allowed a name ending in .parquet")
    df = runs(game)
    try:
        df.to_parquet(path, index=False)
    except OSError as e:
        raise InputError(f"cannot write {path!r}: {e.strerror}") from None
    return len(df)


def render_table(df) -> str:
    """The runs as a terminal table, one line per run: the headline figures in points and
    per cent, blank where a run's command does not give them."""
    import pandas as pd

    def cell(x, fmt=str):
        return "" if x is None or pd.isna(x) else fmt(x)

    rows = []
    for r in df.itertuples():
        strats = json.loads(r.strategies) if isinstance(r.strategies, str) else []
        rows.append([str(r.id), str(r.recorded_at)[:19], r.command, cell(r.game),
                     cell(r.players, lambda x: str(int(x))), cell(r.games, lambda x: f"{int(x):,}"),
                     cell(r.seed, lambda x: str(int(x))),
                     ",".join(dict.fromkeys(str(x) for x in strats)) if strats else "",
                     cell(r.seat0_edge, lambda x: f"{100 * x:+.1f}"),
                     cell(r.unfinished_rate, lambda x: f"{100 * x:.2f}%"),
                     cell(r.mean_length, lambda x: f"{x:.2f}"), cell(r.code_hash, lambda x: x[:8])])
    head = ["id", "time (UTC)", "command", "game", "P", "games", "seed", "strategies",
            "seat0 edge", "unfinished", "mean length", "code"]
    w = [max(len(h), *(len(x[i]) for x in rows)) for i, h in enumerate(head)]
    return "\n".join("  ".join(c.ljust(w[i]) for i, c in enumerate(line)).rstrip()
                     for line in [head, *rows])
