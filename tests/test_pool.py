"""gradcli/pool.py: the one thread pool that blocked evaluation and the softmax kernels share."""

from __future__ import annotations

import threading

import pytest

from gradcli import pool


def test_results_come_in_the_items_order():
    assert pool.map_in_order(lambda k: k * k, range(40)) == [k * k for k in range(40)]


def test_work_runs_on_the_shared_pool_and_nested_work_runs_inline():
    if pool.threads() < 2:
        pytest.skip("one CPU: everything runs inline")

    def outer(k: int) -> tuple[str, list[str]]:
        inner = pool.map_in_order(lambda _: threading.current_thread().name, range(3))
        return threading.current_thread().name, inner

    for name, inner in pool.map_in_order(outer, range(4)):
        assert name.startswith("gradcli-pool")
        assert inner == [name] * 3  # a pool thread never waits on its own pool


def test_an_error_propagates():
    def work(k: int) -> int:
        if k == 0:
            raise ValueError("block 0")
        return k

    with pytest.raises(ValueError, match="block 0"):
        pool.map_in_order(work, range(3))


def test_threads_never_exceed_the_cap_or_the_cpus():
    assert 1 <= pool.threads() <= min(pool.cpus(), pool.MAX_THREADS)
    assert pool.threads(4) <= 4
