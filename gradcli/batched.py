"""The batched interpretation: the registry's rules run on many seeds (or points) at once.

A Batched value holds B arrays of one per-sample shape stacked on a leading axis. Its
NumPy protocols give each array primitive its batching rule (JAX's vmap): a ufunc lines
the sample axes up from the right, `sum(axis)` and `expand_dims(axis)` move past the batch
axis, `matmul` and `outer` keep it in front. The ops' VJPs run unchanged, so a backward
pass seeded with B one-hot rows gives B rows of a Jacobian in one sweep. A rule that uses
a primitive without a batching rule raises Unbatchable, and the caller runs row by row.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin

from .errors import GradcliError


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
        """core.call's hook: a registry op's own forward, its array calls batched."""
        from .ops import REGISTRY

        return REGISTRY[name].forward(*operands, **attrs)

    def sum_to(self, shape: tuple[int, ...]) -> Batched:
        """unbroadcast: sum each sample down to `shape` (never across the batch)."""
        value = self.value
        target = (1,) * (value.ndim - 1 - len(shape)) + tuple(shape)
        axes = tuple(i + 1 for i, n in enumerate(target) if n == 1 and value.shape[i + 1] != 1)
        if axes:
            value = value.sum(axis=axes, keepdims=True)
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
    return Batched(np.sum(a.value, axis=tuple(_sample_axis(int(i)) for i in axes), keepdims=keepdims))


def _reduce(function: Any, a: Batched, axis: Any, keepdims: bool) -> Batched:
    axes = tuple(range(a.ndim)) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    return Batched(function(a.value, axis=tuple(_sample_axis(int(i)) for i in axes), keepdims=keepdims))


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
    "mean": lambda a, axis=None, keepdims=False: _reduce(np.mean, a, axis, keepdims),
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


def forward_points(graph: Any, inputs: dict[str, Any], dtype: np.dtype) -> list[Any]:
    """autograd.forward with some inputs Batched (many points of one shape each)."""
    from .graph import OP

    values: list[Any] = []
    with np.errstate(all="ignore"):
        for node in graph.nodes:
            if node.kind != OP:
                values.append(inputs[node.name])
                continue
            args = [values[o] if isinstance(o, int) else o.value for o in node.operands]
            value = node.op.forward(*args, **node.attrs)
            if isinstance(value, Batched):
                value = Batched(value.value.astype(dtype, copy=False))
                if value.shape != node.shape:
                    raise Unbatchable(f"{node.op.name} gave a sample of shape {list(value.shape)}")
            else:
                value = np.asarray(value, dtype=dtype)
            values.append(value)
    return values


def backward_rows(graph: Any, values: Sequence[Any], seeds: np.ndarray, dtype: np.dtype) -> list[Any]:
    """Every node's adjoint for B seeds at once: seeds is (B,) + output shape."""
    from .autograd import backward

    adjoints = backward(graph, values, Batched(seeds), dtype)
    return [a.value if isinstance(a, Batched) else a for a in adjoints]
