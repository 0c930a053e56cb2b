"""Chunks on a Dask cluster: ``--backend dask [--scheduler ADDRESS]``.

Each chunk is one task: the worker process plays games [lo, hi) with the same compiled
kernel (loaded from the numba cache the parent warmed) and returns its integer tally,
so the result is identical to the local backend's.  Workers cap numba's own threads at
one (a worker is one core) and warm a game's kernel once.  A worker that dies is
replaced and its chunk retried by the scheduler; a chunk that keeps killing workers
stops the run with a message (``RunError`` from the runner), never a short total.
"""
from __future__ import annotations

import os

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


def map_chunks(setup, bounds, keep_rows: bool, scheduler: str | None, jobs: int):
    """Yield (lo, hi, tally, rows) for every chunk as it finishes."""
    from distributed import as_completed

    client, cluster = connect(scheduler, jobs)
    try:
        client.run(_cap_threads)
        futures = client.map(_play, [setup] * len(bounds), [b[0] for b in bounds],
                             [b[1] for b in bounds], [keep_rows] * len(bounds), pure=False)
        for fut in as_completed(futures):
            yield fut.result()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
