"""Strides as torch tracks them, so that contiguity decides what torch decides.

A transpose, permute, expand, slice or select is a view with its own strides; `view` of a
tensor whose strides do not allow the new shape is torch's error, and `reshape` of one is
a copy (CloneBackward0, then UnsafeViewBackward0) where torch copies. Elementwise results
follow the layout of their first operand of the result's shape, as TensorIterator does;
other results are contiguous. Values are unaffected: NumPy computes them as before.

Known difference: `clone` gives a contiguous tensor here, where torch keeps a permuted
layout (memory_format=torch.preserve_format).
"""

from __future__ import annotations

from collections.abc import Sequence

from .core import Op, Shape, _normalise_dim
from .shape import _contiguous_strides, _expand_shape, _permutation, _transpose_dims, view_strides

# The stride arithmetic the shape ops need themselves (contiguous(x) asks is_contiguous) lives in
# shape.py, so this module builds on shape.py and never the other way; the graph and the
# interpreter keep asking strides.is_contiguous.
from .shape import is_contiguous as is_contiguous

VIEW_ERROR = (
    "view size is not compatible with input tensor's size and stride (at least one dimension spans "
    "across two contiguous subspaces). Use .reshape(...) instead."
)


def contiguous(shape: Shape) -> Shape:
    return tuple(_contiguous_strides(shape))


def _dense_like(shape: Shape, strides: Shape) -> Shape:
    """A fresh tensor laid out in the same dim order as a dense (permuted) one; else contiguous."""
    order = sorted(range(len(shape)), key=lambda d: (-strides[d], d))
    dense, step = [0] * len(shape), 1
    for d in reversed(order):
        dense[d] = step
        step *= max(shape[d], 1)
    if all(shape[d] == 1 or dense[d] == strides[d] for d in range(len(shape))):
        return tuple(dense)
    return contiguous(shape)


def result_strides(
    op: Op, shapes: Sequence[Shape], strides: Sequence[Shape | None], attrs: dict, result: Shape
) -> Shape:
    """The strides of the op's result, from its first operand's (None for a number)."""
    name = op.name
    a, s = (shapes[0], strides[0]) if strides and strides[0] is not None else ((), ())
    if name in ("t", "T") and len(a) == 2:
        return (s[1], s[0])
    if name == "mT":
        return (*s[:-2], s[-1], s[-2])
    if name == "transpose" and a:
        d0, d1 = _transpose_dims(len(a), attrs.get("dim0"), attrs.get("dim1"))
        swapped = list(s)
        swapped[d0], swapped[d1] = s[d1], s[d0]
        return tuple(swapped)
    if name == "permute" and a:
        return tuple(s[d] for d in _permutation(len(a), attrs.get("dims")))
    if name == "expand":
        size = _expand_shape(a, attrs.get("size"))
        extra = len(size) - len(a)
        kept = [0 if a[i] == 1 and size[extra + i] != 1 else s[i] for i in range(len(a))]
        return (0,) * extra + tuple(kept)
    if name == "unsqueeze":
        d = _normalise_dim(attrs.get("dim"), len(a) + 1)
        new = a[d] * s[d] if d < len(a) else 1
        return (*s[:d], new, *s[d:])
    if name == "squeeze" and a:
        dim = attrs.get("dim")
        drop = {i for i, n in enumerate(a) if n == 1} if dim is None else {_normalise_dim(dim, len(a))}
        return tuple(st for i, st in enumerate(s) if i not in drop or a[i] != 1)
    if name == "select" and a:
        d = _normalise_dim(attrs.get("dim", 0), len(a))
        return (*s[:d], *s[d + 1 :])
    if name == "slice" and a:
        d = _normalise_dim(attrs.get("dim", 0), len(a))
        return (*s[:d], s[d] * attrs.get("step", 1), *s[d + 1 :])
    if op.viewing and a:
        viewed = view_strides(a, s, result)
        return viewed if viewed is not None else contiguous(result)
    if name == "detach" and a:
        return tuple(s)
    if name == "clone":  # as x.contiguous() copies (see the module docstring)
        return contiguous(result)
    if op.elementwise or name == "where":
        for shape, stride in zip(shapes, strides):
            if stride is not None and tuple(shape) == tuple(result) and len(shape) > 1:
                return _dense_like(shape, stride)
    return contiguous(result)
