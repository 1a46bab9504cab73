"""PyTorch's CPU sum, with PyTorch's order of additions.

Floating-point addition is not associative, so the last bits of a sum depend on the order
in which its terms are added. NumPy sums pairwise; PyTorch's CPU kernel (cascade_sum in
aten/src/ATen/native/cpu/SumKernel.cpp) adds in chunks of 16 or more over four levels,
eight float32 (four float64) lanes at a time, after TensorIterator has ordered and merged
the tensor's dimensions. In float32 the difference shows in what a script prints:
`torch.tensor([0.1] * 10).sum()` is `tensor(1.0000)` under PyTorch and `tensor(1.)` with
NumPy's order. This module follows PyTorch's serial path step for step, vectorised over
rows with NumPy. PyTorch runs that path for fewer than 32,768 elements (or on one
thread); above that it splits the work between threads, and its last bits then depend on
how many there are.

`x.sum()`, `x.mean()` (PyTorch's CPU mean is this sum divided by the count), the losses
that reduce with mean or sum, and the adjoint of broadcasting (at::sum_to) all add here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_VECTOR_BYTES = 32  # an AVX2 register: Vectorized<float> has 8 lanes, Vectorized<double> 4
_LEVELS = 4  # multi_row_sum's num_levels
_ILP = 4  # row_sum's ilp_factor: four interleaved partial sums
_NLL_LEVELS, _NLL_STEP = 8, 16  # nll_loss's cascade (16 until a batch of 2**40 rows)


def torch_sum(a: Any, axis: Any = None, keepdims: bool = False) -> np.ndarray:
    """np.sum(a, axis, keepdims) with the additions in PyTorch's order (floating dtypes)."""
    if not isinstance(a, (np.ndarray, np.generic)) and hasattr(a, "__array_function__"):
        return np.sum(a, axis=axis, keepdims=keepdims)  # a batched or traced value: its own rule
    a = np.asarray(a)
    if a.dtype.kind != "f":
        return np.sum(a, axis=axis, keepdims=keepdims)
    ndim = a.ndim
    if axis is None:
        axes = tuple(range(ndim))
    elif isinstance(axis, tuple):
        axes = tuple(d % ndim for d in axis)
    else:
        axes = (axis % ndim,)
    kept_shape = tuple(1 if d in axes else n for d, n in enumerate(a.shape))
    if len(axes) == ndim and a.flags.c_contiguous and a.size:
        # every dim summed over one contiguous run: TensorIterator makes it one dim
        with np.errstate(all="ignore"):
            out = _one_run(a.reshape(-1)).reshape(kept_shape)
    elif a.size == 0 or ndim == 0:
        out = np.sum(a, axis=axes if ndim else None, keepdims=True) + a.dtype.type(0)
    else:
        with np.errstate(all="ignore"):  # inf - inf is nan, as in PyTorch, without a warning
            out = _cascade(a, axes, kept_shape)
    if keepdims:
        return out
    return out.reshape(tuple(n for d, n in enumerate(a.shape) if d not in axes))


def torch_mean(a: Any, axis: Any = None, keepdims: bool = False) -> np.ndarray:
    """PyTorch's CPU mean: the sum above, then one division by the count (in the dtype)."""
    if not isinstance(a, (np.ndarray, np.generic)) and hasattr(a, "__array_function__"):
        return np.mean(a, axis=axis, keepdims=keepdims)
    a = np.asarray(a)
    total = torch_sum(a, axis, keepdims)
    if axis is None:
        count = a.size
    else:
        count = int(np.prod([a.shape[d] for d in (axis if isinstance(axis, tuple) else (axis,))]))
    if a.dtype.kind == "f":
        return np.asarray(total / a.dtype.type(count))
    return np.asarray(total / count)


def _cascade(a: np.ndarray, axes: tuple[int, ...], kept_shape: tuple[int, ...]) -> np.ndarray:
    """cascade_sum over TensorIterator's dims: returns the keepdim-shaped result."""
    if any(s < 0 for s in a.strides):
        a = np.ascontiguousarray(a)  # PyTorch has no negative strides: its flip copies
    item = a.itemsize
    out_strides = _contiguous_strides(kept_shape, item)
    # TensorIterator lists dims (size, input stride, output stride) fastest first (NumPy's last
    # axis first) and drops size-1 dims; reduced dims sort first, so dim 0 is always summed.
    dims = [
        (a.shape[d], a.strides[d], 0 if d in axes else out_strides[d])
        for d in reversed(range(a.ndim))
        if a.shape[d] != 1
    ]
    if not any(out == 0 for _, _, out in dims):  # only size-1 dims are reduced
        return (a + a.dtype.type(0)).reshape(kept_shape)
    dims = _coalesced(_reordered(dims))
    while len(dims) < 2:
        dims.append((1, 0, 0))
    (size0, in0, _), (size1, in1, out1) = dims[0], dims[1]
    outer = dims[2:]
    # rows[o..., j, i]: i runs along dim 0 (summed), j along dim 1, o over the outer dims
    view_shape = tuple(n for n, _, _ in reversed(outer)) + (size1, size0)
    view_strides = tuple(s for _, s, _ in reversed(outer)) + (in1, in0)
    rows = np.lib.stride_tricks.as_strided(a, view_shape, view_strides, writeable=False)
    terms = np.moveaxis(rows, -1, 0)  # the summed axis first, as the helpers below take it
    lanes = _VECTOR_BYTES // item
    if in0 == item and size0 >= lanes:
        partials = _vectorized_inner_sum(terms, lanes)
    elif in1 == item and size1 >= lanes:
        partials = _outer_sum(terms, _ILP * lanes)
    elif in0 < in1:
        partials = _row_sum(terms)
    else:
        partials = _outer_sum(terms, _ILP)
    # Each partial is added (+=) to its output element in iteration order: dim 1 fastest,
    # then the outer dims. Where several land on one element they add up in that order.
    partial_dims = list(reversed(outer)) + [(size1, in1, out1)]
    summed = [k for k, (_, _, out) in enumerate(partial_dims) if out == 0]
    kept = [k for k, (_, _, out) in enumerate(partial_dims) if out != 0]
    ordered = np.transpose(partials, summed + kept)
    flat = ordered.reshape((-1,) + ordered.shape[len(summed) :])
    total = np.add.accumulate(flat, axis=0)[-1] + a.dtype.type(0)  # the output starts at +0
    result = np.zeros(kept_shape, a.dtype)
    target_strides = tuple(partial_dims[k][2] for k in kept)
    np.lib.stride_tricks.as_strided(result, total.shape, target_strides)[...] = total
    return result


def _one_run(terms: np.ndarray) -> np.ndarray:
    """The kernel over one contiguous run of terms (size0 = n, size1 = 1), plus the +0 start."""
    lanes = _VECTOR_BYTES // terms.itemsize
    total = _vectorized_inner_sum(terms, lanes) if terms.shape[0] >= lanes else _row_sum(terms)
    return total + terms.dtype.type(0)


def nll_total(picked: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """nll_loss's own running sum of -input[b, target[b]] over the counted rows.

    NLLLoss.cpp keeps eight levels of partial sums: after row b, level j flushes into level
    j + 1 while b is a multiple of 16**(j + 1) (row 0 flushes through every level); at the
    end the levels are added from the lowest. Ignored rows are skipped, flushes and all.
    """
    picked = np.asarray(picked).reshape(-1)
    rows = np.flatnonzero(keep)
    if rows.size == 0:
        return picked.dtype.type(0)
    with np.errstate(all="ignore"):
        if rows.size == picked.size and picked.size > 1:  # every row counts: whole chunks
            levels = []
            pending = -picked[1:]
            for _ in range(_NLL_LEVELS - 1):
                pending, left = _chunked(pending, _NLL_STEP)
                levels.append(_sequential(left))
            top = _sequential(np.concatenate([-picked[:1], pending]))
        else:
            levels = [picked.dtype.type(0)] * (_NLL_LEVELS - 1)
            top = picked.dtype.type(0)
            for b in rows:
                levels[0] = levels[0] - picked[b]
                j = 0
                while j < _NLL_LEVELS - 1 and b % _NLL_STEP ** (j + 1) == 0:
                    if j + 1 < _NLL_LEVELS - 1:
                        levels[j + 1] = levels[j + 1] + levels[j]
                    else:
                        top = top + levels[j]
                    levels[j] = picked.dtype.type(0)
                    j += 1
        return _sequential(np.array(levels + [top], picked.dtype))


def _contiguous_strides(shape: tuple[int, ...], item: int) -> list[int]:
    strides, step = [0] * len(shape), item
    for d in reversed(range(len(shape))):
        strides[d] = step
        step *= shape[d]
    return strides


def _reordered(dims: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """TensorIterator's reorder_dimensions: reduced dims first, then by strides (insertion sort)."""

    def should_swap(first: tuple, second: tuple) -> int:
        if (first[2] == 0) != (second[2] == 0):  # the output: move reduced dims to the front
            return 1 if second[2] == 0 else -1
        for position in (2, 1):  # the output's strides, then the input's
            s0, s1 = first[position], second[position]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return -1 if s0 < s1 else 1
            if first[0] > second[0]:
                return 1
        return 0

    perm = list(dims)
    for i in range(1, len(perm)):
        moving = i
        for j in range(i - 1, -1, -1):
            comparison = should_swap(perm[j], perm[moving])
            if comparison > 0:
                perm[j], perm[moving] = perm[moving], perm[j]
                moving = j
            elif comparison < 0:
                break
    return perm


def _coalesced(dims: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """TensorIterator's coalesce_dimensions: merge neighbours that are one strided run."""
    merged = [dims[0]]
    for size, in_stride, out_stride in dims[1:]:
        prev_size, prev_in, prev_out = merged[-1]
        if prev_size * prev_in == in_stride and prev_size * prev_out == out_stride:
            merged[-1] = (prev_size * size, prev_in, prev_out)
        else:
            merged.append((size, in_stride, out_stride))
    return merged


def _sequential(terms: np.ndarray) -> np.ndarray:
    """+0 + t[0] + t[1] + ...: one running sum, in order."""
    total = np.zeros(terms.shape[1:], terms.dtype)
    for term in terms:
        total += term
    return total


def _chunked(terms: np.ndarray, step: int) -> tuple[np.ndarray, np.ndarray]:
    """Running sums of each whole chunk of `step` terms, and the terms left over."""
    whole = terms.shape[0] // step * step
    if whole == 0:
        return terms[:0], terms
    chunks = terms[:whole].reshape((whole // step, step) + terms.shape[1:])
    sums = np.zeros(chunks.shape[:1] + terms.shape[1:], terms.dtype)
    for k in range(step):
        sums += chunks[:, k]
    return sums, terms[whole:]


def _multi_row_sum(terms: np.ndarray) -> np.ndarray:
    """multi_row_sum: chunks of 2**level_power terms summed, their sums summed in chunks,
    over four levels; what is left at each level joins at the end, lowest level first."""
    size = terms.shape[0]
    ceil_log2 = 1 if size <= 2 else (size - 1).bit_length()
    step = 1 << max(4, ceil_log2 // _LEVELS)
    if size < step:  # no whole chunk: one running sum
        return _sequential(terms)
    level0, rest0 = _chunked(terms, step)
    level1, rest1 = _chunked(level0, step)
    level2, rest2 = _chunked(level1, step)
    total = _sequential(rest0)
    total += _sequential(rest1)
    total += _sequential(rest2)
    total += _sequential(level2)
    return total


def _row_sum(terms: np.ndarray) -> np.ndarray:
    """row_sum: four interleaved partial sums (terms 0, 4, 8, ... in the first), then joined."""
    size = terms.shape[0]
    whole = size // _ILP
    partials = _multi_row_sum(terms[: whole * _ILP].reshape((whole, _ILP) + terms.shape[1:]))
    total = partials[0]
    for term in terms[whole * _ILP :]:
        total += term
    for k in range(1, _ILP):
        total += partials[k]
    return total


def _vectorized_inner_sum(terms: np.ndarray, lanes: int) -> np.ndarray:
    """vectorized_inner_sum: row_sum over whole vectors, the tail added one by one into a
    fresh accumulator, then the vector's lanes added into it in order."""
    vectors = terms.shape[0] // lanes
    lanes_sum = _row_sum(terms[: vectors * lanes].reshape((vectors, lanes) + terms.shape[1:]))
    total = _sequential(terms[vectors * lanes :])
    for lane in lanes_sum:
        total += lane
    return total


def _outer_sum(terms: np.ndarray, group: int) -> np.ndarray:
    """vectorized_outer_sum / scalar_outer_sum: the columns (terms' last axis) in whole
    groups of `group` use multi_row_sum; the remaining columns use row_sum."""
    columns = terms.shape[-1]
    whole = columns // group * group
    head = _multi_row_sum(terms[..., :whole])
    tail = _row_sum(terms[..., whole:])
    return np.concatenate([head, tail], axis=-1)
