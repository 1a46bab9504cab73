"""Parts of matrices and reversed tensors: `torch.tril`, `torch.triu` and `x.flip(dims)`.

tril/triu keep the elements on and below (above) the `diagonal`-th diagonal of the last two
dims and zero the rest: nanoGPT's causal mask is `torch.tril(torch.ones(T, T))`. Their
gradient is the incoming one cut the same way (derivatives.yaml: grad.tril(diagonal)),
TrilBackward0 / TriuBackward0. flip reverses the listed dims; its gradient flips back,
FlipBackward0.
"""

from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from .core import Op, Param, Shape, _fn, _normalise_dim, call

_DIAGONAL = Param("diagonal", 0, "int")
_FLIP_DIMS = Param("dims", None, "ints")


def _triangle_shape(name: str):
    def infer(a: Shape, diagonal: int = 0) -> Shape:
        if len(a) < 2:
            raise ShapeError(f"{name}: input tensor must have at least 2 dimensions")
        return tuple(a)

    return infer


def _triangle(lower: bool):
    def forward(a, diagonal: int = 0):
        a = np.asarray(a)
        return (np.tril if lower else np.triu)(a, k=diagonal).astype(a.dtype, copy=False)

    return forward


def _triangle_op(name: str, lower: bool, description: str) -> Op:
    return Op(
        name,
        f"torch.{name}(x, diagonal=0) or x.{name}(): {description}",
        forward=_triangle(lower),
        vjp=(lambda g, out, a, diagonal=0: call(name, g, diagonal=diagonal),),
        sympy=lambda sp, a, shapes=((),), diagonal=0: _fn(sp, name)(a, diagonal),
        grad_fn=f"{name.capitalize()}Backward0",
        torch=f"torch.{name}",
        derivative=f"g.{name}(diagonal): the kept elements pass their gradient, the zeroed ones none",
        saves_tensors=False,
        elementwise=False,
        params=(_DIAGONAL,),
        infer_shape=_triangle_shape(name),
        sym_vjp=(lambda sp, g, a, shapes=((),), diagonal=0: _fn(sp, name)(g, diagonal),),
        step=(lambda shapes, attrs: f"{{g}}.{name}({attrs.get('diagonal', 0)})",),
        written=lambda texts, attrs: f"{texts[0]}.{name}({attrs.get('diagonal', 0) or ''})",
    )


def _flip_dims(shape: Shape, dims) -> tuple[int, ...]:
    if dims is None:
        raise ShapeError("flip() missing 1 required positional argument: 'dims'")
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    normal = tuple(_normalise_dim(d, len(shape)) for d in dims) if shape else tuple(dims)
    for d in normal:
        if normal.count(d) > 1:
            raise ShapeError(f"dim {d} appears multiple times in the list of dims")
    return normal


def _dims_text(attrs: dict) -> str:
    dims = attrs.get("dims")
    return "" if dims is None else str(tuple(dims) if not isinstance(dims, int) else (dims,))


def _flip_shape(a: Shape, dims=None) -> Shape:
    if a:
        _flip_dims(a, dims)
    return tuple(a)


def _flip(a, dims=None):
    a = np.asarray(a)
    if a.ndim == 0:
        return a.copy()
    return np.flip(a, axis=_flip_dims(a.shape, dims)).copy()


OPS: tuple[Op, ...] = (
    _triangle_op("tril", True, "the lower triangle (elements j <= i + diagonal), zeros above"),
    _triangle_op("triu", False, "the upper triangle (elements j >= i + diagonal), zeros below"),
    Op(
        "flip",
        "x.flip(dims) or torch.flip(x, dims): the elements of the listed dims in reverse order",
        forward=_flip,
        vjp=(lambda g, out, a, dims=None: call("flip", g, dims=dims),),
        sympy=lambda sp, a, shapes=((),), dims=None: _fn(sp, "flip")(a, *(dims or ())),
        grad_fn="FlipBackward0",
        torch="torch.flip",
        derivative="g flipped back over the same dims",
        saves_tensors=False,
        elementwise=False,
        params=(_FLIP_DIMS,),
        infer_shape=_flip_shape,
        sym_vjp=(lambda sp, g, a, shapes=((),), dims=None: _fn(sp, "flip")(g, *(dims or ())),),
        step=(lambda shapes, attrs: f"{{g}}.flip({_dims_text(attrs)})",),
        written=lambda texts, attrs: f"{texts[0]}.flip({_dims_text(attrs)})",
    ),
)
