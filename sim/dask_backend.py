"""Chunks on a Dask cluster: ``--backend dask [--scheduler ADDRESS]``.

Each chunk is one task: the worker process plays games [lo, hi) with the same compiled
kernel (loaded from the numba cache the parent warmed) and returns its integer tally,
so the result is identical to the local backend's.  Workers cap numba's own threads at
one (a worker is one core) and warm a game's kernel once.  A worker that dies is
replaced and its chunk retried by the scheduler; a chunk that keeps killing workers
stops the run with a message (``RunError`` from the runner), never a short total.
"""
from __future__ import annotations

import contextlib
import os
from typing import Any

from cardlab.sim.errors import InputError

_WARMED: set[str] = set()


def _cap_threads() -> None:
    os.environ["NUMBA_NUM_THREADS"] = "1"
    try:
        import numba

        numba.set_num_threads(1)
    except Exception:  # no threading layer: the kernels use none anyway
        pass


def _play(setup, lo: int, hi: int, keep_rows: bool):
    from cardlab.sim import runner

    if setup.game.id not in _WARMED:
        runner.warm(setup)
        _WARMED.add(setup.game.id)
    return runner.play_chunk(setup, lo, hi, keep_rows)


def connect(scheduler: str | None, jobs: int):
    """(client, cluster or None): the scheduler at ``scheduler``, or a LocalCluster of
    ``jobs`` single-threaded worker processes."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise InputError("--backend dask needs dask.distributed: pip install 'dask[distributed]'") from None
    if scheduler:
        try:
            return Client(scheduler, timeout="20s"), None
        except (OSError, TimeoutError, ValueError) as e:
            raise InputError(f"cannot reach the Dask scheduler {scheduler!r}: {e}") from None
    import logging

    cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None,
                           silence_logs=logging.CRITICAL, env={"NUMBA_NUM_THREADS": "1"})
    return Client(cluster), cluster


_SESSIONS: list[tuple[Any, str | None, int]] = []  # (client, scheduler, jobs) kept open by session()


@contextlib.contextmanager
def session(scheduler: str | None, jobs: int):
    """One client (and LocalCluster) for every run inside the block: a command made of many
    runs (``cardlab balance``: a block of games per candidate and round) pays the cluster's
    start-up once instead of at every run."""
    client, cluster = connect(scheduler, jobs)
    _SESSIONS.append((client, scheduler, jobs))
    try:
        yield client
    finally:
        _SESSIONS.pop()
        client.close()
        if cluster is not None:
            cluster.close()


def check_backend(backend: str, scheduler: str | None = None) -> None:
    """``--backend`` and ``--scheduler`` (InputError: one line)."""
    if backend not in ("local", "dask"):
        raise InputError(f"bad --backend {backend!r}: allowed local or dask")
    if scheduler and backend != "dask":
        raise InputError("--scheduler needs --backend dask")


def backend_session(backend: str, scheduler: str | None, jobs: int | None):
    """A block of runs on ``backend``: with ``dask``, one client for all of them (``session``;
    the one already open when its scheduler and workers are these); locally, nothing."""
    from cardlab.sim.runner import default_jobs

    check_backend(backend)
    jobs = jobs or default_jobs()
    if backend != "dask" or (_SESSIONS and _SESSIONS[-1][1:] == (scheduler, jobs)):
        return contextlib.nullcontext()
    return session(scheduler, jobs)


def map_calls(fn, calls: list[tuple], scheduler: str | None, jobs: int):
    """Yield (i, fn(*calls[i])) for every call as it finishes on the cluster (on the open
    session's client when its scheduler and workers are these, else on a client of its own).
    ``fn`` must be a module-level function (workers import it) and its arguments picklable."""
    from distributed import as_completed

    if _SESSIONS and _SESSIONS[-1][1:] == (scheduler, jobs):
        client, cluster, own = _SESSIONS[-1][0], None, False
    else:
        (client, cluster), own = connect(scheduler, jobs), True
    try:
        client.run(_cap_threads)
        futures = client.map(fn, *zip(*calls), pure=False)
        where = {f.key: i for i, f in enumerate(futures)}
        for fut in as_completed(futures):
            yield where[fut.key], fut.result()
    finally:
        if own:
            client.close()
            if cluster is not None:
                cluster.close()


def map_chunks(setup, bounds, keep_rows: bool, scheduler: str | None, jobs: int):
    """Yield (lo, hi, tally, rows) for every chunk of ``setup`` as it finishes (``map_calls``)."""
    for _, out in map_calls(_play, [(setup, lo, hi, keep_rows) for lo, hi in bounds], scheduler, jobs):
        yield out
