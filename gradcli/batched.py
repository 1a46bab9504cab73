"""The batched interpretation: the registry's rules run on many seeds (or points) at once.

A Batched value holds B arrays of one per-sample shape stacked on a leading axis. Its
NumPy protocols give each array primitive its batching rule (JAX's vmap): a ufunc lines
the sample axes up from the right, `sum(axis)` and `expand_dims(axis)` move past the batch
axis, `matmul` and `outer` keep it in front. The ops' VJPs run unchanged, so a backward
pass seeded with B one-hot rows gives B rows of a Jacobian in one sweep. A rule that uses
a primitive without a batching rule raises Unbatchable, and the caller runs row by row.

Registry ops whose forward reads its operand as one array (indexing, shape ops, cat,
reductions and their backward kernels) declare a batching rule on their records
(ops/core.py's Batching), which names one of the rules here: the forward runs once on the
stacked arrays, its dims moved past the batch axis.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin

from .errors import GradcliError
from .ops import REGISTRY
from .ops.core import ALL_DIMS
from .ops.summation import torch_mean, torch_sum


class Unbatchable(GradcliError):
    """A rule used an array call that has no batching rule."""


def _sample_shape(x: Any) -> tuple[int, ...]:
    return x.shape if isinstance(x, Batched) else np.shape(x)


def _aligned(x: Any, ndim: int) -> Any:
    """x's array with its sample axes padded to `ndim` on the left (after the batch axis)."""
    if not isinstance(x, Batched):
        return x
    value = x.value
    missing = ndim - (value.ndim - 1)
    return value.reshape(value.shape[:1] + (1,) * missing + value.shape[1:]) if missing > 0 else value


class Batched(NDArrayOperatorsMixin):
    """B arrays of one sample shape, stacked on axis 0 (operators: NumPy's mixin, via __array_ufunc__)."""

    __slots__ = ("value",)
    __array_priority__ = 1000

    def __init__(self, value: np.ndarray) -> None:
        self.value = value

    @property
    def shape(self) -> tuple[int, ...]:
        return self.value.shape[1:]

    @property
    def ndim(self) -> int:
        return self.value.ndim - 1

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def dtype(self) -> np.dtype:
        return self.value.dtype

    def apply_op(self, name: str, *operands: Any, **attrs: Any) -> Any:
        """core.call's hook: the op's batching rule, else its own forward, its array calls batched."""
        return apply(name, *operands, **attrs)

    def anywhere(self) -> bool:
        """core.anywhere's hook: whether the mask holds in any point (one answer for the batch)."""
        return bool(np.any(self.value))

    def sum_to(self, shape: tuple[int, ...]) -> Batched:
        """unbroadcast: sum each sample down to `shape` (never across the batch)."""
        value = self.value
        target = (1,) * (value.ndim - 1 - len(shape)) + tuple(shape)
        axes = tuple(i + 1 for i, n in enumerate(target) if n == 1 and value.shape[i + 1] != 1)
        if axes:
            value = torch_sum(value, axes, keepdims=True)
        return Batched(value.reshape(value.shape[:1] + tuple(shape)))

    def __array__(self, *args: Any, **kwargs: Any) -> np.ndarray:
        raise Unbatchable("a rule turned a batched value into a plain array (np.asarray)")

    def __float__(self) -> float:
        raise Unbatchable("a rule read a number out of a batched value")

    __int__ = __index__ = __float__  # type: ignore[assignment]

    def __len__(self) -> int:
        raise Unbatchable("a rule took the length of a batched value")

    def __getitem__(self, key: Any) -> Any:
        raise Unbatchable("a rule indexed a batched value")

    def __bool__(self) -> bool:
        raise Unbatchable("a rule branched on a batched value")

    # Python's operators come from NDArrayOperatorsMixin, through __array_ufunc__ below.
    def __pos__(self) -> Batched:
        return self

    def astype(self, dtype: Any, copy: bool = True) -> Batched:
        return Batched(self.value.astype(dtype, copy=copy))

    @property
    def T(self) -> Batched:  # noqa: N802 - NumPy's name
        return Batched(np.swapaxes(self.value, -1, -2)) if self.ndim == 2 else self

    def sum(self, axis: Any = None, keepdims: bool = False) -> Batched:
        return _sum(self, axis, keepdims)

    def reshape(self, *shape: Any) -> Batched:
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        return Batched(self.value.reshape(self.value.shape[:1] + tuple(int(n) for n in shape)))

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if method != "__call__" or kwargs.get("out") is not None:
            raise Unbatchable(f"a rule called np.{ufunc.__name__}.{method}")
        if ufunc is np.matmul:
            return _matmul(*inputs)
        ndim = max(len(_sample_shape(x)) for x in inputs)
        with np.errstate(all="ignore"):
            return Batched(ufunc(*(_aligned(x, ndim) for x in inputs)))

    def __array_function__(self, func: Any, types: Any, args: Sequence[Any], kwargs: dict) -> Any:
        rule = ARRAY_FUNCTIONS.get(func.__name__)
        if rule is None:
            raise Unbatchable(f"a rule called np.{func.__name__}")
        return rule(*args, **kwargs)


def _sample_axis(axis: int) -> int:
    """A per-sample axis as an axis of the stacked array (negative axes count from the end)."""
    return axis + 1 if axis >= 0 else axis


def _sum(a: Any, axis: Any = None, keepdims: bool = False) -> Any:
    if not isinstance(a, Batched):
        return np.sum(a, axis=axis, keepdims=keepdims)
    axes = tuple(range(a.ndim)) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    return Batched(torch_sum(a.value, tuple(_sample_axis(int(i)) for i in axes), keepdims=keepdims))


def _reduce(function: Any, a: Batched, axis: Any, keepdims: bool) -> Batched:
    axes = tuple(range(a.ndim)) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    return Batched(function(a.value, tuple(_sample_axis(int(i)) for i in axes), keepdims=keepdims))


def _matmul(a: Any, b: Any) -> Batched:
    """Per-sample a @ b with 1-D and 2-D samples (the ranks gradcli's matmul takes)."""
    if isinstance(a, Batched) and isinstance(b, Batched):  # many points: both operands vary
        left = a.value[:, None, :] if a.ndim == 1 else a.value
        right = b.value[:, :, None] if b.ndim == 1 else b.value
        product = np.matmul(left, right)
        if a.ndim == 1:
            product = product[:, 0]
        return Batched(product[..., 0] if b.ndim == 1 else product)
    if isinstance(a, Batched):
        return Batched(np.matmul(a.value, b))  # (B, n) or (B, m, n) against a plain b broadcasts
    a = np.asarray(a)
    if b.ndim == 2:
        return Batched(np.matmul(a, b.value))  # a @ (B, n, p) broadcasts over B
    return Batched(np.matmul(b.value, a.T))  # a @ v for each v: (B, n) @ a.T


def _where(condition: Any, a: Any, b: Any) -> Batched:
    ndim = max(len(_sample_shape(x)) for x in (condition, a, b))
    return Batched(np.where(*(_aligned(x, ndim) for x in (condition, a, b))))


def _broadcast_to(a: Any, shape: Sequence[int], subok: bool = False) -> Any:
    if not isinstance(a, Batched):
        return np.broadcast_to(a, shape)
    shape = tuple(int(n) for n in shape)
    value = _aligned(a, len(shape))
    return Batched(np.broadcast_to(value, value.shape[:1] + shape))


def _expand_dims(a: Any, axis: int) -> Batched:
    return Batched(np.expand_dims(a.value, _sample_axis(int(axis)) if axis >= 0 else axis))


def _outer(a: Any, b: Any) -> Batched:
    if isinstance(a, Batched) and isinstance(b, Batched):
        return Batched(a.value[:, :, None] * b.value[:, None, :])
    if isinstance(a, Batched):
        return Batched(a.value[:, :, None] * np.asarray(b).reshape(-1)[None, None, :])
    return Batched(np.asarray(a).reshape(-1)[None, :, None] * b.value[:, None, :])


def _plain_like(make: Any) -> Any:
    def rule(a: Any, dtype: Any = None, **kwargs: Any) -> np.ndarray:
        return make(_sample_shape(a), dtype=dtype or a.dtype)

    return rule


ARRAY_FUNCTIONS = {
    "shape": lambda a: a.shape,
    "ndim": lambda a: a.ndim,
    "size": lambda a, axis=None: a.size if axis is None else a.shape[axis],
    "sum": _sum,
    "mean": lambda a, axis=None, keepdims=False: _reduce(torch_mean, a, axis, keepdims),
    "copy": lambda a, **kw: Batched(a.value.copy()),
    "where": _where,
    "broadcast_to": _broadcast_to,
    "expand_dims": _expand_dims,
    "outer": _outer,
    "zeros_like": _plain_like(np.zeros),
    "ones_like": _plain_like(np.ones),
    "result_type": lambda *arrays: np.result_type(
        *(a.dtype if isinstance(a, Batched) else a for a in arrays)
    ),
    "transpose": lambda a, axes=None: a.T if axes is None else _permuted(a, axes),
    "swapaxes": lambda a, i, j: Batched(np.swapaxes(a.value, _sample_axis(i), _sample_axis(j))),
    "reshape": lambda a, shape, **kw: a.reshape(shape),
}


def _permuted(a: Batched, axes: Sequence[int]) -> Batched:
    return Batched(np.transpose(a.value, (0,) + tuple(int(i) % a.ndim + 1 for i in axes)))


# ---------------------------------------------------------------- batching rules of registry ops
# An op whose forward reads its operand as one array (np.asarray, a[key], a scatter) gets a
# rule here, as JAX gives each primitive one: its forward runs once on the stacked arrays,
# with its dims moved past the batch axis and its shapes given the batch size.


def apply(name: str, *operands: Any, **attrs: Any) -> Any:
    """Registry op `name` on operands of which some are Batched."""
    if not any(isinstance(o, Batched) for o in operands):
        return REGISTRY[name].forward(*operands, **attrs)
    op = REGISTRY[name]
    rule = _rule_of(name)
    if rule is None:
        return op.forward(*operands, **attrs)
    with np.errstate(all="ignore"):
        return rule(name, *operands, **attrs)


def _first(operands: Sequence[Any]) -> Batched:
    return next(o for o in operands if isinstance(o, Batched))


def _stacked(x: Any, size: int) -> Any:
    """x's stacked array: a plain operand repeated along a new batch axis (a number stays)."""
    if isinstance(x, Batched):
        return x.value
    if isinstance(x, (int, float)):
        return x
    x = np.asarray(x)
    return np.broadcast_to(x, (size,) + x.shape)


_ALL = object()  # a dim attr whose None means every sample dim (amax, var, norm)


def _along(dims: dict[str, Any] | None = None, shapes: tuple[str, ...] = ()) -> Any:
    """The op's forward on the stacked arrays: dim attrs (name -> default) shifted past the
    batch axis, shape attrs with the batch size in front. Plain operands are repeated."""
    dims = dims or {}

    def rule(name: str, *operands: Any, **attrs: Any) -> Batched:
        first = _first(operands)
        size = first.value.shape[0]
        for key, default in dims.items():
            value = attrs.get(key, None if default is _ALL else default)
            if value is None and default is _ALL:
                value = tuple(range(first.ndim))
            if value is not None:
                attrs[key] = (
                    tuple(_sample_axis(int(d)) for d in value)
                    if isinstance(value, tuple)
                    else _sample_axis(value)
                )
        for key in shapes:
            attrs[key] = (size,) + tuple(attrs[key])
        return Batched(REGISTRY[name].forward(*(_stacked(o, size) for o in operands), **attrs))

    return rule


def _batched_matmul(name: str, a: Any, b: Any) -> Batched:
    """bmm of stacked 3-D samples: NumPy's matmul broadcasts the point axis."""
    return Batched(
        np.matmul(a.value if isinstance(a, Batched) else a, b.value if isinstance(b, Batched) else b)
    )


def _elementwise(name: str, *operands: Any, **attrs: Any) -> Batched:
    """A broadcasting op: samples line up from the right, plain operands broadcast over B."""
    ndim = max(len(_sample_shape(x)) for x in operands if not isinstance(x, (int, float)))
    return Batched(REGISTRY[name].forward(*(_aligned(x, ndim) for x in operands), **attrs))


def _relabel(name: str, a: Batched, **attrs: Any) -> Batched:
    """reshape, view, squeeze, ...: each sample takes the shape the op gives one sample."""
    shape = REGISTRY[name].shape([a.shape], attrs)
    return Batched(np.reshape(a.value, a.value.shape[:1] + tuple(shape)))


def _expand(name: str, a: Batched, size: Any = None) -> Batched:
    shape = REGISTRY[name].shape([a.shape], {"size": size})
    value = _aligned(a, len(shape))
    return Batched(np.broadcast_to(value, value.shape[:1] + tuple(shape)).copy())


def _repeat(name: str, a: Batched, repeats: Any = None) -> Batched:
    REGISTRY[name].shape([a.shape], {"repeats": repeats})  # torch's checks
    return Batched(np.tile(_aligned(a, len(repeats)), (1,) + tuple(repeats)))


def _permute(name: str, a: Batched, dims: Any = None) -> Batched:
    if a.ndim == 0:
        return Batched(a.value.copy())
    from .ops.shape import _permutation

    order = _permutation(a.ndim, dims)
    return Batched(np.transpose(a.value, (0,) + tuple(d + 1 for d in order)).copy())


def _over_samples(function: Any) -> Any:
    """A reduction of every element of each sample (max(x), prod(x) without dim)."""

    def rule(name: str, a: Batched, dim: Any = None, keepdim: bool = False) -> Batched:
        if dim is not None:
            return _along({"dim": None})(name, a, dim=dim, keepdim=keepdim)
        flat = a.value.reshape(a.value.shape[:1] + (-1,))
        return Batched(function(flat, axis=1))

    return rule


def _argpick(name: str, a: Batched, dim: Any = None, keepdim: bool = False) -> Batched:
    if dim is not None:
        return _along({"dim": None})(name, a, dim=dim, keepdim=keepdim)
    flat = (np.argmax if name == "argmax" else np.argmin)(a.value.reshape(a.value.shape[:1] + (-1,)), axis=1)
    return Batched(flat.reshape(flat.shape + ((1,) * a.ndim if keepdim else ())))


def _advanced(shape: tuple[int, ...], key: tuple, tensors: Sequence[Any]) -> tuple[tuple, int]:
    """The sample key with the batch axis in front, and where NumPy puts the batch axis in the
    result: after the broadcast index dims when the advanced indices are separated (NumPy
    moves them to the front), else in front."""
    from .ops.indexing import _index_key

    parts = _index_key(shape, key, tensors)
    positions = [i for i, p in enumerate(parts) if not isinstance(p, slice)]
    separated = positions != list(range(positions[0], positions[-1] + 1))
    arrays = [p for p in parts if not isinstance(p, slice)]
    batch_at = len(np.broadcast_shapes(*(np.shape(p) for p in arrays))) if separated else 0
    return (slice(None),) + parts, batch_at


def _index(name: str, a: Any, *tensors: Any, key: tuple = ()) -> Batched:
    if any(isinstance(t, Batched) for t in tensors):
        raise Unbatchable("index tensors that differ between points")
    stacked_key, batch_at = _advanced(a.shape, key, tensors)
    return Batched(np.moveaxis(a.value[stacked_key], batch_at, 0))


def _index_put(name: str, g: Any, *tensors: Any, shape: tuple = (), key: tuple = ()) -> Batched:
    if any(isinstance(t, Batched) for t in tensors):
        raise Unbatchable("index tensors that differ between points")
    stacked_key, batch_at = _advanced(tuple(shape), key, tensors)
    grad = np.zeros(g.value.shape[:1] + tuple(shape), dtype=np.result_type(g.value))
    np.add.at(grad, stacked_key, np.moveaxis(g.value, 0, batch_at))
    return Batched(grad)


def _padded(name: str, a: Batched, **attrs: Any) -> Batched:
    """F.pad: its pairs count from the last dim, so padding the stack pads every sample."""
    REGISTRY[name].shape([a.shape], attrs)  # a sample's checks (pad length against its dims)
    return Batched(REGISTRY[name].forward(a.value, **attrs))


def _copy(name: str, a: Batched) -> Batched:
    return Batched(a.value.copy())


def _nll_classes(x: Any, t: Any, size: int, ignore_index: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """nll_loss's rows (B, N, C), each row's class (0 where ignored) and which rows count."""
    from .ops.nn import _class_indices

    rows = _stacked(x, size)
    rows = rows.reshape(size, -1, rows.shape[-1])
    targets = np.broadcast_to(_stacked(t, size), (size,) + tuple(_sample_shape(t)))  # a number too
    indices = _class_indices(targets, rows.shape[-1], ignore_index).reshape(size, -1)
    keep = indices != ignore_index
    return rows, np.where(keep, indices, 0), keep


def _nll_loss(name: str, x: Any, t: Any, ignore_index: int = -100, reduction: str = "mean") -> Batched:
    """nll_loss on every point at once: each point's rows pick their classes, then reduce."""
    size = _first((x, t)).value.shape[0]
    rows, classes, keep = _nll_classes(x, t, size, ignore_index)
    picked = np.take_along_axis(rows, classes[..., None], axis=-1)[..., 0]
    losses = np.where(keep, -picked, 0.0)
    if reduction == "none":
        return Batched(losses if len(_sample_shape(x)) == 2 else losses.reshape(size))
    total = losses.sum(axis=1)
    if reduction == "sum":
        return Batched(total)
    return Batched(total / np.count_nonzero(keep, axis=1))  # all rows ignored: 0/0 = nan, as torch


def _nll_loss_backward(
    name: str, g: Any, x: Any, t: Any, ignore_index: int = -100, reduction: str = "mean"
) -> Batched:
    """nll_loss_backward on every point: -grad at each counted row's class, +0.0 elsewhere."""
    size = _first((g, x, t)).value.shape[0]
    rows, classes, keep = _nll_classes(x, t, size, ignore_index)
    grads = np.broadcast_to(_stacked(g, size), (size,) + tuple(_sample_shape(g)))
    if reduction == "none":
        scale = -grads.reshape(size, -1)
    elif reduction == "sum":
        scale = -grads.reshape(size, 1)
    else:
        counted = np.count_nonzero(keep, axis=1)
        scale = np.where(
            counted > 0, -grads.reshape(size) / np.maximum(counted, 1), 0.0 * grads.reshape(size)
        )
        scale = scale[:, None]
    chosen = (np.arange(rows.shape[-1]) == classes[..., None]) & keep[..., None]
    out = np.where(chosen, scale[..., None], 0.0)
    return Batched(out.reshape((size,) + tuple(_sample_shape(x))))


def _roll(name: str, a: Any, shifts: Any = None, dims: Any = None) -> Batched:
    """torch.roll per sample: along its dims past the batch axis, or each sample flattened."""
    if dims is not None:
        return _along({"dims": None})(name, a, shifts=shifts, dims=dims)
    stacked = a.value
    step = shifts if isinstance(shifts, int) else shifts[0]
    flat = stacked.reshape(stacked.shape[0], -1)
    return Batched(np.roll(flat, step, axis=1).reshape(stacked.shape))


_RULES: dict[str, Any] = {
    "roll": _roll,
    "elementwise": _elementwise,
    "relabel": _relabel,
    "expand": _expand,
    "repeat": _repeat,
    "permute": _permute,
    "pad": _padded,
    "copy": _copy,
    "index": _index,
    "index_put": _index_put,
    "argpick": _argpick,
    "bmm": _batched_matmul,
    "nll_loss": _nll_loss,
    "nll_loss_backward": _nll_loss_backward,
}


@functools.cache
def _rule_of(name: str) -> Any:
    """The batching rule op `name`'s record declares (ops/core.py's Batching), or None."""
    op = REGISTRY[name]
    batching = op.batching
    if batching is None:
        return _elementwise if op.elementwise else None
    if batching.rule == "along":
        dims = {key: _ALL if default == ALL_DIMS else default for key, default in batching.dims}
        return _along(dims, batching.shapes)
    if batching.rule == "over_samples":
        return _over_samples(batching.reduce)
    return _RULES[batching.rule]


def forward_points(graph: Any, inputs: dict[str, Any], dtype: np.dtype) -> list[Any]:
    """autograd.forward with some inputs Batched (many points of one shape each)."""
    from .engine import forward

    def evaluate(node: Any, values: list[Any]) -> Any:
        args = [values[o] if isinstance(o, int) else o.value for o in node.operands]
        value = apply(node.op.name, *args, **node.attrs)
        if not isinstance(value, Batched):
            return np.asarray(value, dtype=dtype)
        value = Batched(value.value.astype(dtype, copy=False))
        if value.shape != node.shape:
            raise Unbatchable(f"{node.op.name} gave a sample of shape {list(value.shape)}")
        return value

    with np.errstate(all="ignore"):
        return forward(graph.nodes, [None] * len(graph.nodes), lambda node: inputs[node.name], evaluate)


def backward_rows(graph: Any, values: Sequence[Any], seeds: np.ndarray, dtype: np.dtype) -> list[Any]:
    """Every node's adjoint for B seeds at once: seeds is (B,) + output shape."""
    from .autograd import backward

    adjoints = backward(graph, values, Batched(seeds), dtype)
    return [a.value if isinstance(a, Batched) else a for a in adjoints]
