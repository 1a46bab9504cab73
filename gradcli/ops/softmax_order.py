"""softmax, log_softmax and their backward kernels, adding in the order torch's CPU kernels add.

torch 2.13's SoftMaxKernel.cpp works in one of two ways:
- along the last dim, row by row with AVX2 vectors (`vec::reduce_all`): four float64
  (eight float32) lanes start from the first chunk and add chunk after chunk, a partial
  last chunk updates only its first lanes, then the lanes combine: in order for float64,
  by halves for float32. softmax multiplies by the sum's reciprocal.
- along any other dim, one slice after another, starting from zero; softmax divides.
gradcli takes the same steps, vectorised over the rows, so the sums (and so the results)
match torch's bits wherever exp and log do; for float32, exp and log are computed in double
and rounded once, which lands where torch's SLEEF functions land nearly always.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .core import wide
from .exact import round_to_odd, two_sum

_VECTOR_BYTES = 32  # an AVX2 register
_SHORT_LOOP = 8  # chunks added in a Python loop; more go through one ufunc.accumulate
_BLOCK_ELEMENTS = 1 << 15  # rows turned at a time: 256 KB of float64, about an L2 cache


def _lanes(values: np.ndarray) -> int:
    return _VECTOR_BYTES // values.itemsize


def exp(values: np.ndarray) -> np.ndarray:
    """torch's vectorised exp: float32 through double, rounded once."""
    return wide(np.exp, values)


def log(values: np.ndarray) -> np.ndarray:
    return wide(np.log, values)


def fused(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """a * b + c rounded once, as the FMA instructions GCC contracts torch's float32 kernels to.

    The product of two floats is exact in double; an error-free sum adds c, and rounding the
    sum to odd before rounding to float makes that last rounding the single correct one
    (Boldo and Melquiond). float64 stays unfused (exp already differs from torch there)."""
    if a.dtype != np.float32:
        return a * b + c
    total, error = two_sum(a.astype(np.float64) * b.astype(np.float64), c)  # the product is exact
    return round_to_odd(total, error).astype(np.float32)


def lane_reduce(
    values: np.ndarray, op: np.ufunc, tail: Callable[[np.ndarray, int], np.ndarray] | None = None
) -> np.ndarray:
    """`vec::reduce_all(op)` down axis 0 of `values` (the softmax dim first, one column a row
    of torch's), for every column at once; keeps the axis. `tail(acc, start)` computes the
    partial last chunk's step where torch's compiled code differs from `op`."""
    size = values.shape[0]
    lanes = _lanes(values)
    if size < lanes:  # one partial vector: its lanes in order
        total = values[0:1].copy()
        for i in range(1, size):
            op(total, values[i : i + 1], out=total)
        return total
    full = size - size % lanes
    chunks = values[:full].reshape((full // lanes, lanes) + values.shape[1:])
    if chunks.shape[0] <= _SHORT_LOOP:
        acc = chunks[0].copy()
        for k in range(1, chunks.shape[0]):
            op(acc, chunks[k], out=acc)
    else:
        acc = op.accumulate(chunks, axis=0)[-1]
    if full < size:  # Vec::set: only the first lanes take the partial chunk
        count = size - full
        if tail is None:
            op(acc[:count], values[full:], out=acc[:count])
        else:
            acc[:count] = tail(acc[:count], full)
    if lanes == 8:  # float32: VecReduceAllSIMD, halves, then pairs, then neighbours
        acc = op(acc[:4], acc[4:])
        acc = op(acc[:2], acc[2:])
        return op(acc[:1], acc[1:])
    total = acc[0:1].copy()  # float64: vec_reduce_all's lanes in order
    for i in range(1, lanes):
        op(total, acc[i : i + 1], out=total)
    return total


def sequential_sum(values: np.ndarray, axis: int) -> np.ndarray:
    """0 + v[0] + v[1] + ... along `axis` (keepdims), as the kernels for other dims add."""
    running = np.add.accumulate(values, axis=axis)
    last = np.take(running, [values.shape[axis] - 1], axis=axis)
    return last + values.dtype.type(0)  # from zero: -0.0 becomes 0.0, as 0 + (-0.0) does


def _by_rows(kernel: Callable[..., np.ndarray], *arrays: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """kernel on the arrays turned so the last dim comes first (torch's rows as columns), a
    cache-sized block of rows at a time, so every step is one contiguous NumPy call. Writes
    into `out` (a C-contiguous array of the result's shape and dtype) when given."""
    size = arrays[0].shape[-1]
    flat = [a.reshape(-1, size) for a in arrays]
    if out is None:
        out = np.empty(arrays[0].shape, dtype=np.result_type(*arrays))
    result = out.reshape(flat[0].shape)  # a view: out is contiguous
    step = max(1, _BLOCK_ELEMENTS // size)
    for start in range(0, flat[0].shape[0], step):
        turned = [np.ascontiguousarray(a[start : start + step].T) for a in flat]
        result[start : start + step] = kernel(*turned).T
    return out


def _into(values: np.ndarray, out: np.ndarray | None) -> np.ndarray:
    if out is None:
        return values
    out[...] = values
    return out


def _last(values: np.ndarray, axis: int) -> bool:
    return axis == values.ndim - 1


def _softmax_columns(x: np.ndarray) -> np.ndarray:
    e = exp(x - lane_reduce(x, np.maximum))
    e *= x.dtype.type(1) / lane_reduce(e, np.add)
    return e


def _log_softmax_columns(x: np.ndarray) -> np.ndarray:
    shifted = x - lane_reduce(x, np.maximum)
    shifted -= log(lane_reduce(exp(shifted), np.add))
    return shifted


def softmax(x: np.ndarray, axis: int, out: np.ndarray | None = None) -> np.ndarray:
    if _last(x, axis):
        return _by_rows(_softmax_columns, x, out=out)
    e = exp(x - np.max(x, axis=axis, keepdims=True))
    e /= sequential_sum(e, axis)
    return _into(e, out)


def log_softmax(x: np.ndarray, axis: int, out: np.ndarray | None = None) -> np.ndarray:
    if _last(x, axis):
        return _by_rows(_log_softmax_columns, x, out=out)
    shifted = x - np.max(x, axis=axis, keepdims=True)
    shifted -= log(sequential_sum(exp(shifted), axis))
    return _into(shifted, out)


def _softmax_backward_columns(g: np.ndarray, out: np.ndarray) -> np.ndarray:
    result = g - lane_reduce(g * out, np.add)
    result *= out
    return result


def _softmax_backward_one_row(g: np.ndarray, out: np.ndarray) -> np.ndarray:
    """A float32 tensor of one row: torch's partial last chunk is a fused multiply-add
    (measured against torch 2.13; with two rows or more, and in float64, it is not)."""
    total = lane_reduce(g * out, np.add, tail=lambda acc, start: fused(g[start:], out[start:], acc))
    result = g - total
    result *= out
    return result


def _log_softmax_backward_columns(g: np.ndarray, out: np.ndarray) -> np.ndarray:
    return _minus_exp_times(g, out, lane_reduce(g, np.add))


def _minus_exp_times(g: np.ndarray, out: np.ndarray, total: np.ndarray) -> np.ndarray:
    """g - exp(out) * total, the product and difference one fused step."""
    if g.dtype == np.float32:
        return fused(-exp(out), total, g)
    scaled = exp(out)
    scaled *= total
    return np.subtract(g, scaled, out=scaled)


def softmax_backward(
    g: np.ndarray, out: np.ndarray, axis: int, rows: int | None = None, into: np.ndarray | None = None
) -> np.ndarray:
    """(g - sum(g * out)) * out; off the last dim the sum's steps are fused multiply-adds.
    `rows`: the whole tensor's, when g is a block of it; `into`: where to write the result."""
    if _last(g, axis):
        rows = g.size // g.shape[-1] if rows is None else rows
        one_row = g.dtype == np.float32 and rows == 1
        return _by_rows(_softmax_backward_one_row if one_row else _softmax_backward_columns, g, out, out=into)
    if g.dtype != np.float32:
        total = sequential_sum(g * out, axis)
    else:
        total = np.zeros_like(np.take(g, [0], axis=axis))
        for k in range(g.shape[axis]):
            total = fused(np.take(g, [k], axis=axis), np.take(out, [k], axis=axis), total)
    result = g - total
    result *= out
    return _into(result, into)


def log_softmax_backward(g: np.ndarray, out: np.ndarray, axis: int, into: np.ndarray | None = None) -> np.ndarray:
    """g - exp(out) * sum(g); `into`: where to write the result."""
    if _last(g, axis):
        return _by_rows(_log_softmax_backward_columns, g, out, out=into)
    return _into(_minus_exp_times(g, out, sequential_sum(g, axis)), into)
