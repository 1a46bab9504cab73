"""Sizes as numbers: `x.shape[0]`, `x.size(0)`, `len(x)`, `x.numel()`, `x.dim()` and `x.ndim`.

In torch these are Python ints, not tensors, and record nothing. The graph folds each to a
number from its operand's shape (the record's `size_of`), so it can stand wherever a
number can: `loss / len(x)`, `x.view(x.shape[0], -1)`, `x[range(len(x)), y]`.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ..errors import ShapeError
from .core import Op, Param, Shape, _fn, _normalise_dim


def _size(shape: Shape, dim: int | None = None, unpack: int | None = None) -> int:
    if unpack is not None and unpack != len(shape):  # B, T, C = x.shape (the parser's own attr)
        if unpack > len(shape):
            raise ShapeError(f"not enough values to unpack (expected {unpack}, got {len(shape)})")
        raise ShapeError(f"too many values to unpack (expected {unpack})")
    if dim is None:
        raise ShapeError(
            "x.size() is a torch.Size here, not a number; take one size: x.size(0) or x.shape[0]"
        )
    if not shape:  # torch: x.size(0) of a 0-d tensor
        raise ShapeError(f"Dimension specified as {dim} but tensor has no dimensions")
    return shape[_normalise_dim(dim, len(shape))]


def _len(shape: Shape) -> int:
    if not shape:
        raise ShapeError("len() of a 0-d tensor")
    return shape[0]


def _record(name: str, syntax: str, size_of: Callable[..., int], torch: str, **extra) -> Op:
    return Op(
        name,
        syntax,
        forward=lambda a, **attrs: np.float64(size_of(np.shape(a), **attrs)),
        vjp=(lambda g, out, a, **attrs: np.zeros(np.shape(a)),),
        sympy=lambda sp, a, shapes=((),), **attrs: _fn(sp, name)(a),
        grad_fn="None",
        torch=torch,
        saves_tensors=False,
        elementwise=False,
        differentiable=False,
        infer_shape=lambda a, **attrs: (),
        size_of=lambda shape, attrs: size_of(shape, **attrs),
        **extra,
    )


OPS: tuple[Op, ...] = (
    _record(
        "size",
        "x.size(0) or x.shape[0]",
        _size,
        "torch.Tensor.size",
        function=False,
        params=(Param("dim", None, "dim"),),
        written=lambda operands, attrs: f"{operands[0]}.shape[{attrs['dim']}]",
    ),
    _record("len", "len(x)", lambda shape: _len(shape), "len", method=False),
    _record("numel", "x.numel() or torch.numel(x)", lambda shape: math.prod(shape), "torch.numel"),
    _record(
        "dim",
        "x.dim() or x.ndim",
        lambda shape: len(shape),
        "torch.Tensor.dim",
        function=False,
        written=lambda operands, attrs: f"{operands[0]}.dim()",
    ),
)


INTERNAL: tuple[Op, ...] = ()

