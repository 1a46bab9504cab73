"""The process's one thread pool, for NumPy work that releases the GIL.

Blocked evaluation (blocked.py: a big elementwise program in cache-sized blocks) and the
softmax kernels (ops/nn.py: big arrays in row blocks) both split arrays into independent
parts whose results do not depend on which thread ran them. They share this pool rather
than each keeping its own: one set of threads, one cap, made on first use so that a run
that never splits an array starts no thread (and imports no concurrent.futures).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from typing import Any

MAX_THREADS = 8  # past this, the blocks are memory-bound and more threads only contend
_NAME = "gradcli-pool"

_pool: Any = None  # a concurrent.futures.ThreadPoolExecutor, made on first use
_making = threading.Lock()


def cpus() -> int:
    """The CPUs this process may use (its affinity mask on Linux)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def threads(limit: int = MAX_THREADS) -> int:
    """Worker threads for one job: the CPUs this process may use, at most `limit`."""
    return max(1, min(cpus(), limit, MAX_THREADS))


def _executor() -> Any:
    global _pool
    with _making:
        if _pool is None:
            from concurrent.futures import ThreadPoolExecutor  # with logging: only when work splits

            _pool = ThreadPoolExecutor(max_workers=threads(), thread_name_prefix=_NAME)
    return _pool


def map_in_order(work: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
    """work(item) for every item on the pool, results in the items' order.

    If one raises (or Ctrl-C arrives while waiting), the items not yet started are dropped
    and the exception propagates. Called from one of the pool's own threads, the items run
    right there, one after another: a pool thread waiting on tasks queued behind it would
    wait forever.
    """
    items = list(items)
    if len(items) < 2 or threads() == 1 or threading.current_thread().name.startswith(_NAME):
        return [work(item) for item in items]
    futures = [_executor().submit(work, item) for item in items]
    try:
        return [future.result() for future in futures]
    except BaseException:
        for future in futures:
            future.cancel()
        raise
