"""torch's CPU topk picks among ties the way libstdc++'s algorithms leave them.

ATen's topk_impl_loop (TopKImpl.h) fills (value, index) pairs and calls std::partial_sort
when k * 64 <= n, else std::nth_element and, for sorted=True, std::sort of the first k - 1.
Which of several tied elements comes out (and in what order, for sorted=False) is then
whatever those algorithms do, so this module takes their steps as GCC's libstdc++ writes
them (stl_algo.h, stl_heap.h): introselect, introsort with its final insertion sort, and
heap select. `before(i, j)` is the comparator on positions of the row, as ATen's lambda:
nan first for largest, then larger values (smaller, nan last, for smallest).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

_THRESHOLD = 16  # libstdc++'s _S_threshold: introsort leaves runs this short to insertion sort


def topk_order(values: np.ndarray, k: int, largest: bool, sorted: bool) -> list[int]:  # noqa: A002
    """The indices torch 2.13's CPU topk returns for one row, ties included."""
    row = [float(v) for v in values]
    n = len(row)
    if k == 0:
        return []
    nan = [v != v for v in row]

    if largest:

        def comp(x: tuple[float, int, bool], y: tuple[float, int, bool]) -> bool:
            return (x[2] and not y[2]) or x[0] > y[0]
    else:

        def comp(x: tuple[float, int, bool], y: tuple[float, int, bool]) -> bool:
            return (not x[2] and y[2]) or x[0] < y[0]

    queue = [(row[j], j, nan[j]) for j in range(n)]
    if k * 64 <= n:
        _partial_sort(queue, 0, k, n, comp)
    else:
        _nth_element(queue, 0, k - 1, n, comp)
        if sorted:
            _sort(queue, 0, k - 1, comp)
    return [queue[j][1] for j in range(k)]


Comp = Callable[[tuple, tuple], bool]


def _lg(n: int) -> int:
    return n.bit_length() - 1


def _insertion_sort(q: list, first: int, last: int, comp: Comp) -> None:
    if first == last:
        return
    for i in range(first + 1, last):
        if comp(q[i], q[first]):
            value = q[i]
            q[first + 1 : i + 1] = q[first:i]
            q[first] = value
        else:
            _unguarded_linear_insert(q, i, comp)


def _unguarded_linear_insert(q: list, last: int, comp: Comp) -> None:
    value = q[last]
    following = last - 1
    while comp(value, q[following]):
        q[last] = q[following]
        last = following
        following -= 1
    q[last] = value


def _move_median_to_first(q: list, result: int, a: int, b: int, c: int, comp: Comp) -> None:
    if comp(q[a], q[b]):
        if comp(q[b], q[c]):
            q[result], q[b] = q[b], q[result]
        elif comp(q[a], q[c]):
            q[result], q[c] = q[c], q[result]
        else:
            q[result], q[a] = q[a], q[result]
    elif comp(q[a], q[c]):
        q[result], q[a] = q[a], q[result]
    elif comp(q[b], q[c]):
        q[result], q[c] = q[c], q[result]
    else:
        q[result], q[b] = q[b], q[result]


def _unguarded_partition(q: list, first: int, last: int, pivot: int, comp: Comp) -> int:
    while True:
        while comp(q[first], q[pivot]):
            first += 1
        last -= 1
        while comp(q[pivot], q[last]):
            last -= 1
        if not first < last:
            return first
        q[first], q[last] = q[last], q[first]
        first += 1


def _partition_pivot(q: list, first: int, last: int, comp: Comp) -> int:
    mid = first + (last - first) // 2
    _move_median_to_first(q, first, first + 1, mid, last - 1, comp)
    return _unguarded_partition(q, first + 1, last, first, comp)


def _nth_element(q: list, first: int, nth: int, last: int, comp: Comp) -> None:
    if first == last or nth == last:
        return
    depth = _lg(last - first) * 2
    while last - first > 3:
        if depth == 0:
            _heap_select(q, first, nth + 1, last, comp)
            q[first], q[nth] = q[nth], q[first]
            return
        depth -= 1
        cut = _partition_pivot(q, first, last, comp)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(q, first, last, comp)


def _sort(q: list, first: int, last: int, comp: Comp) -> None:
    if first == last:
        return
    _introsort_loop(q, first, last, _lg(last - first) * 2, comp)
    if last - first > _THRESHOLD:
        _insertion_sort(q, first, first + _THRESHOLD, comp)
        for i in range(first + _THRESHOLD, last):
            _unguarded_linear_insert(q, i, comp)
    else:
        _insertion_sort(q, first, last, comp)


def _introsort_loop(q: list, first: int, last: int, depth: int, comp: Comp) -> None:
    while last - first > _THRESHOLD:
        if depth == 0:
            _partial_sort(q, first, last, last, comp)
            return
        depth -= 1
        cut = _partition_pivot(q, first, last, comp)
        _introsort_loop(q, cut, last, depth, comp)
        last = cut


def _partial_sort(q: list, first: int, middle: int, last: int, comp: Comp) -> None:
    _heap_select(q, first, middle, last, comp)
    while middle - first > 1:  # __sort_heap
        middle -= 1
        _pop_heap(q, first, middle, middle, comp)


def _heap_select(q: list, first: int, middle: int, last: int, comp: Comp) -> None:
    _make_heap(q, first, middle, comp)
    for i in range(middle, last):
        if comp(q[i], q[first]):
            _pop_heap(q, first, middle, i, comp)


def _make_heap(q: list, first: int, last: int, comp: Comp) -> None:
    length = last - first
    if length < 2:
        return
    parent = (length - 2) // 2
    while True:
        _adjust_heap(q, first, parent, length, q[first + parent], comp)
        if parent == 0:
            return
        parent -= 1


def _pop_heap(q: list, first: int, last: int, result: int, comp: Comp) -> None:
    value = q[result]
    q[result] = q[first]
    _adjust_heap(q, first, 0, last - first, value, comp)


def _adjust_heap(q: list, first: int, hole: int, length: int, value: tuple, comp: Comp) -> None:
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if comp(q[first + child], q[first + child - 1]):
            child -= 1
        q[first + hole] = q[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        q[first + hole] = q[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2  # __push_heap
    while hole > top and comp(q[first + parent], value):
        q[first + hole] = q[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    q[first + hole] = value
