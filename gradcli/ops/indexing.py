"""Indexing: what `x[...]` records in PyTorch, one node per basic index, one for the advanced ones.

`x[0, 1:3]` is select(x, 0, 0) then slice(dim 0, 1, 3) (SelectBackward0, SliceBackward0);
`x[[0, 2]]`, `x[:, idx]`, `x[range(3), y]` and `x[mask]` are one IndexBackward0 whose index
tensors are integer consts or bool masks (a mask's True count is fixed when the graph is built).
Gradients scatter back through PyTorch's backward kernels, records of their own (KERNELS):
select_backward, slice_backward and _index_put_impl_ (index_put: repeated indices
accumulate), whose own derivatives are select, slice and index again, as under
create_graph torch records SelectBackwardBackward0, SliceBackwardBackward0, IndexPutImplBackward0.
The parser turns a subscript into these records (binding.CallBinding.plan_subscript).
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

from ..errors import IndexOutOfRange, ShapeError
from .core import Batching, Op, Param, Shape, _fn, _normalise_dim, call
from .kernels import kernel


def check_subscript(subscript: tuple[int, int | None], shape: Shape) -> None:
    """torch's first check of a subscript: no more indexed dims than the tensor has."""
    indexed = subscript[1]
    if indexed is not None and indexed > len(shape):
        raise IndexOutOfRange(f"too many indices for tensor of dimension {len(shape)}")


def index_place(message: str, subscript: tuple[int, int | None] | None) -> str:
    """An out-of-bounds select names the index's place in the subscript, as torch's does
    (x[0, 5] on a 2x3 tensor: dimension 1, though the select after x[0] is along dim 0)."""
    if subscript is None or subscript[0] < 0:
        return message
    return re.sub(r"for dimension -?\d+ ", f"for dimension {subscript[0]} ", message, count=1)


def _select_shape(shape: Shape, dim: int = 0, index: int = 0) -> Shape:
    if not shape:
        raise ShapeError("select() cannot be applied to a 0-dim tensor.")
    d = _normalise_dim(dim, len(shape))
    size = shape[d]
    if not -size <= index < size:
        raise IndexOutOfRange(f"index {index} is out of bounds for dimension {d} with size {size}")
    return shape[:d] + shape[d + 1 :]


def _select(a, dim: int = 0, index: int = 0):
    a = np.asarray(a)
    return np.take(a, index, axis=_normalise_dim(dim, a.ndim))


def _select_grad(g, out, a, dim: int = 0, index: int = 0):
    # derivatives.yaml: select_backward(grad, self.sizes(), dim, index), a kernel of its own
    return call("select_backward", g, shape=np.shape(a), dim=dim, index=index)


def _select_backward(g, shape: Shape = (), dim: int = 0, index: int = 0):
    """g placed at `index` along `dim` of zeros of `shape`."""
    grad = np.zeros(shape, dtype=np.result_type(g))
    grad[(slice(None),) * _normalise_dim(dim, len(shape)) + (index,)] = g
    return grad


def _slice_key(ndim: int, dim: int, start: int | None, end: int | None, step: int) -> tuple:
    return (slice(None),) * _normalise_dim(dim, ndim) + (slice(start, end, step),)


def _slice_shape(shape: Shape, dim: int = 0, start: int | None = None, end: int | None = None, step: int = 1):
    if not shape:
        raise ShapeError("slice() cannot be applied to a 0-dim tensor.")
    if step <= 0:
        raise ShapeError("step must be greater than zero")
    d = _normalise_dim(dim, len(shape))
    count = len(range(*slice(start, end, step).indices(shape[d])))
    return shape[:d] + (count,) + shape[d + 1 :]


def _slice(a, dim: int = 0, start: int | None = None, end: int | None = None, step: int = 1):
    a = np.asarray(a)
    return a[_slice_key(a.ndim, dim, start, end, step)]


def _slice_grad(g, out, a, dim: int = 0, start: int | None = None, end: int | None = None, step: int = 1):
    # derivatives.yaml: slice_backward(grad, self.sizes(), dim, start, end, step)
    return call("slice_backward", g, shape=np.shape(a), dim=dim, start=start, end=end, step=step)


def _slice_backward(g, shape: Shape = (), dim: int = 0, start=None, end=None, step: int = 1):
    """g placed in the slice of zeros of `shape`."""
    grad = np.zeros(shape, dtype=np.result_type(g))
    grad[_slice_key(len(shape), dim, start, end, step)] = g
    return grad


# ---------------------------------------------------------------- advanced indexing
# attrs["key"]: one entry per indexed dim, ("all",), ("list", nested ints) or ("tensor", k)
# for the k-th index operand after the tensor itself; ("mask", k, dims, count) for a bool
# index operand, which covers `dims` dims and selects `count` elements.


def _integers(value: Any, place: int, size: int) -> np.ndarray:
    """An index tensor as int64, checked as torch's index kernel checks it: the first index out
    of bounds, named by `place`, the index tensor's place among the subscript's index tensors
    (torch moves the indexed dims to the front: x[:, [5]] is "dimension 0")."""
    array = np.asarray(value)
    if array.dtype.kind == "f":
        if not np.all(np.isfinite(array)) or np.any(array != np.round(array)):
            raise ShapeError("tensors used as indices must be long, int, byte or bool tensors")
        _in_bounds(array, place, size)  # before the cast: 1e30 is no int64
        array = array.astype(np.int64)
    elif array.dtype.kind not in "iu":
        raise ShapeError("tensors used as indices must be long, int, byte or bool tensors")
    _in_bounds(array, place, size)
    return array


def _in_bounds(array: np.ndarray, place: int, size: int) -> None:
    if array.size and (array.max() >= size or array.min() < -size):
        outside = array.reshape(-1)[(array.reshape(-1) >= size) | (array.reshape(-1) < -size)]
        raise IndexOutOfRange(f"index {int(outside[0])} is out of bounds for dimension {place} with size {size}")


def _dims(entry: tuple) -> int:
    """Dims of the indexed tensor one key entry covers: a bool mask covers as many as it has."""
    return entry[2] if entry[0] == "mask" else 1


def _index_key(shape: Shape, key: tuple, tensors: tuple) -> tuple:
    if sum(_dims(entry) for entry in key) > len(shape):
        raise ShapeError(f"too many indices for tensor of dimension {len(shape)}")
    parts: list[Any] = []
    dim = place = 0  # place: index tensors so far
    for entry in key:
        if entry[0] == "all":
            parts.append(slice(None))
        elif entry[0] == "list":
            parts.append(_integers(entry[1], place, shape[dim]))
        elif entry[0] == "mask":  # the True positions, one index array per dim the mask covers
            parts.extend(np.nonzero(np.asarray(tensors[entry[1]]) != 0))
        else:
            parts.append(_integers(tensors[entry[1]], place, shape[dim]))
        dim += _dims(entry)
        place += 0 if entry[0] == "all" else _dims(entry)
    return tuple(parts)


def _index_shape(shape: Shape, *index_shapes: Shape, key: tuple = ()) -> Shape:
    if sum(_dims(entry) for entry in key) > len(shape):
        raise ShapeError(f"too many indices for tensor of dimension {len(shape)}")
    dummies = tuple(np.zeros(s, dtype=np.int64) for s in index_shapes)
    advanced, positions, kept = [], [], []
    dim = place = 0
    for entry in key:
        if entry[0] == "all":
            kept.append(shape[dim])
        else:
            if entry[0] == "list":  # bounds of a literal list, before any work
                _integers(entry[1], place, shape[dim])
                advanced.append(np.asarray(entry[1]))
            elif entry[0] == "mask":  # as many elements as the mask has True values
                advanced.append(np.zeros(entry[3], dtype=np.int64))
            else:
                advanced.append(dummies[entry[1]])
            positions.append(dim)
            place += _dims(entry)
        dim += _dims(entry)
    try:
        broadcast = np.broadcast_shapes(*(a.shape for a in advanced))
    except ValueError:
        shapes = ", ".join(str(list(a.shape)) for a in advanced)
        raise ShapeError(
            f"shape mismatch: indexing tensors could not be broadcast together with shapes {shapes}"
        ) from None
    rest = list(shape[dim:])
    entries = [e for e in key if e[0] != "all"]
    adjacent = [i for i, e in enumerate(key) if e[0] != "all"]
    if adjacent == list(range(adjacent[0], adjacent[-1] + 1)):
        first = next(i for i, e in enumerate(key) if e[0] != "all")
        before = [shape[i] for i in range(first)]  # key entries before the first are all ":"
        after_dims = range(positions[-1] + _dims(entries[-1]), dim)
        after = [shape[i] for i in after_dims]
        result = (*before, *broadcast, *after, *rest)
    else:  # NumPy and PyTorch move separated advanced indices to the front
        result = (*broadcast, *kept, *rest)
    return tuple(int(n) for n in result)


def _index(a, *tensors, key: tuple = ()):
    a = np.asarray(a)
    parts = _index_key(a.shape, key, tensors)
    if len(parts) == 1 and isinstance(parts[0], np.ndarray) and parts[0].ndim == 1 and a.ndim > 1:
        return np.take(a, parts[0], axis=0)  # x[idx] of rows: the same copy, several times faster
    return a[parts]


def _index_grad(g, out, a, *tensors, key: tuple = ()):
    # derivatives.yaml index_backward: _index_put_impl_(zeros, indices, grad, accumulate=True)
    name = "index_put" if not tensors else f"index_put{len(tensors)}"
    return call(name, g, *tensors, shape=np.shape(a), key=key)


def _index_put(g, *tensors, shape: Shape = (), key: tuple = ()):
    """Zeros of `shape` with g added at the indexed elements (repeated indices accumulate)."""
    parts = _index_key(shape, key, tensors)
    g = np.asarray(g)
    rows = parts[0] if len(parts) == 1 else None
    if isinstance(rows, np.ndarray) and rows.ndim == 1 and g.dtype == np.float64 and g.shape[:1] == rows.shape:
        # x[idx] on the first dim: one bincount, which adds each element's terms in index order
        # from 0.0, as np.add.at and torch's serial accumulate do, at twice their speed
        width = math.prod(shape[1:])
        where = (np.where(rows < 0, rows + shape[0], rows)[:, None] * width + np.arange(width)).ravel()
        total = np.bincount(where, weights=g.reshape(-1), minlength=shape[0] * width)
        return total.reshape(shape)
    grad = np.zeros(shape, dtype=np.result_type(g))
    np.add.at(grad, parts, g)
    return grad


def _no_grad(position: int):
    """Index tensors hold integers: they get no gradient (torch's index has no formula for them)."""
    return lambda g, out, a, *tensors, key=(): np.zeros(np.shape(tensors[position]))


def _index_vjps(count: int) -> tuple:
    return (_index_grad, *(_no_grad(k) for k in range(count)))


def _key_text(key: tuple, operands: list[str]) -> str:
    parts = []
    for entry in key:
        if entry[0] == "all":
            parts.append(":")
        elif entry[0] == "list":
            parts.append(str(list(np.asarray(entry[1]).tolist())))
        else:
            parts.append(operands[1 + entry[1]])
    return ", ".join(parts)


def _slice_text(start: int | None, end: int | None, step: int) -> str:
    text = f"{'' if start is None else start}:{'' if end is None else end}"
    return text + (f":{step}" if step != 1 else "")


def _sym_slice(sp, a, shapes=((),), dim=0, start=None, end=None, step=1):
    """slice(x, dim, start, end, step) with the bounds Python's slice resolves them to."""
    size = shapes[0][_normalise_dim(dim, len(shapes[0]))] if shapes[0] else 0
    first, last, _ = slice(start, end, step).indices(size)
    return _fn(sp, "slice")(a, dim, first, last, step)


def index_op(count: int) -> Op:
    """The advanced-indexing record for `count` index tensors (0 when every index is a literal list)."""
    return _INDEX_OPS[count]


def _make_index(count: int) -> Op:
    return Op(
        "index" if count == 0 else f"index{count}",
        "x[[0, 2]], x[:, idx], x[range(3), y]",
        forward=_index,
        vjp=_index_vjps(count),
        sympy=lambda sp, a, *tensors, shapes=(), key=(): _fn(sp, "index")(a, *tensors),
        grad_fn="IndexBackward0",
        torch="Tensor.__getitem__",
        saves_tensors=True,
        elementwise=False,
        function=False,
        method=False,
        params=(Param("key", (), "key"),),
        refuses_masks=True,
        infer_shape=_index_shape,
        written=lambda operands, attrs: f"{operands[0]}[{_key_text(attrs['key'], operands)}]",
        batching=Batching("index"),
    )


_INDEX_OPS = {count: _make_index(count) for count in range(2)}  # literal lists; one index tensor


def _make_index_put(count: int) -> Op:
    """_index_put_impl_(zeros, indices, g, accumulate=True): IndexPutImplBackward0 under
    create_graph; its derivative for g is g's own index (derivatives.yaml: values: grad.index)."""
    index_name = _INDEX_OPS[count].name
    return kernel(
        "index_put" if count == 0 else f"index_put{count}",
        _index_put,
        (lambda gg, out, g, *tensors, shape=(), key=(): call(index_name, gg, *tensors, key=key),)
        + tuple(
            (lambda gg, out, g, *tensors, shape=(), key=(), k=k: np.zeros(np.shape(tensors[k])))
            for k in range(count)
        ),
        "IndexPutImplBackward0",
        elementwise=False,
        saves_tensors=False,
        infer_shape=lambda g, *index_shapes, shape=(), key=(): tuple(shape),
        batching=Batching("index_put"),
    )


KERNELS: tuple[Op, ...] = (
    kernel(
        "select_backward",
        _select_backward,
        (lambda gg, out, g, shape=(), dim=0, index=0: call("select", gg, dim=dim, index=index),),
        "SelectBackwardBackward0",
        elementwise=False,
        saves_tensors=False,
        infer_shape=lambda g, shape=(), dim=0, index=0: tuple(shape),
        batching=Batching("along", dims=(("dim", 0),), shapes=("shape",)),
    ),
    kernel(
        "slice_backward",
        _slice_backward,
        (
            lambda gg, out, g, shape=(), dim=0, start=None, end=None, step=1: call(
                "slice", gg, dim=dim, start=start, end=end, step=step
            ),
        ),
        "SliceBackwardBackward0",
        elementwise=False,
        saves_tensors=False,
        infer_shape=lambda g, shape=(), dim=0, start=None, end=None, step=1: tuple(shape),
        batching=Batching("along", dims=(("dim", 0),), shapes=("shape",)),
    ),
    *(_make_index_put(count) for count in range(2)),
)

OPS: tuple[Op, ...] = (
    Op(
        "select",
        "x[i], x[:, i] or x.select(dim, index)",
        forward=_select,
        vjp=(_select_grad,),
        sympy=lambda sp, a, shapes=(), dim=0, index=0: _fn(sp, "select")(a, dim, index),
        grad_fn="SelectBackward0",
        torch="torch.select",
        saves_tensors=False,
        elementwise=False,
        params=(Param("dim", 0, "int"), Param("index", 0, "int")),
        infer_shape=_select_shape,
        written=lambda operands, attrs: f"{operands[0]}.select({attrs['dim']}, {attrs['index']})",
        batching=Batching("along", dims=(("dim", 0),)),
    ),
    Op(
        "slice",
        "x[a:b:c], x[:, a:b]",
        forward=_slice,
        vjp=(_slice_grad,),
        sympy=_sym_slice,
        grad_fn="SliceBackward0",
        torch="Tensor.__getitem__",
        saves_tensors=False,
        elementwise=False,
        function=False,
        method=False,
        params=(
            Param("dim", 0, "int"),
            Param("start", None, "int"),
            Param("end", None, "int"),
            Param("step", 1, "int"),
        ),
        infer_shape=_slice_shape,
        written=lambda operands, attrs: (
            f"{operands[0]}[{':, ' * (attrs['dim'] if attrs['dim'] >= 0 else 0)}"
            f"{'..., ' if attrs['dim'] < 0 else ''}{_slice_text(attrs['start'], attrs['end'], attrs['step'])}"
            f"{', ' + ', '.join([':'] * (-attrs['dim'] - 1)) if attrs['dim'] < -1 else ''}]"
        ),
        batching=Batching("along", dims=(("dim", 0),)),
    ),
    *_INDEX_OPS.values(),
)
