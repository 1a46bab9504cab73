"""Parts of matrices and reordered tensors: `torch.tril`, `torch.triu`, `x.flip(dims)`, `x.roll`,
`x.diagonal()`, `torch.diag` and `torch.trace`.

tril/triu keep the elements on and below (above) the `diagonal`-th diagonal of the last two
dims and zero the rest: nanoGPT's causal mask is `torch.tril(torch.ones(T, T))`. Their
gradient is the incoming one cut the same way (derivatives.yaml: grad.tril(diagonal)),
TrilBackward0 / TriuBackward0. flip reverses the listed dims; its gradient flips back,
FlipBackward0; roll shifts elements along dims (wrapping around), and its gradient rolls
back, RollBackward0. diagonal (DiagonalBackward0) and trace (TraceBackward0) send their gradient
back onto the diagonal they read; torch.diag of a vector builds a matrix (DiagEmbedBackward0)
and of a matrix reads its diagonal (DiagonalBackward0_copy, as torch 2.13 names it).
"""

from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from .core import Batching, Op, Param, Shape, _fn, _normalise_dim, call

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
        saves_tensors=False,
        elementwise=False,
        params=(_DIAGONAL,),
        infer_shape=_triangle_shape(name),
        written=lambda texts, attrs: f"{texts[0]}.{name}({attrs.get('diagonal', 0) or ''})",
        batching=Batching("along"),
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


_SHIFTS = Param("shifts", None, "ints")
_ROLL_DIMS = Param("dims", None, "ints")


def _roll_args(shape: Shape, shifts, dims) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
    """torch.roll's (shifts, dims), dims normalised; None: roll the flattened tensor."""
    if shifts is None:
        raise ShapeError("roll() missing 1 required positional argument: 'shifts'")
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    dims = () if dims is None else (dims,) if isinstance(dims, int) else tuple(dims)
    if not dims:
        if len(shifts) != 1:
            raise ShapeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return shifts, None
    if len(shifts) != len(dims):
        raise ShapeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    return shifts, tuple(_normalise_dim(d, len(shape)) for d in dims)


def _roll_shape(a: Shape, shifts=None, dims=None) -> Shape:
    _roll_args(a, shifts, dims)
    return tuple(a)


def _roll(a, shifts=None, dims=None):
    a = np.asarray(a)
    shifts, axes = _roll_args(a.shape, shifts, dims)
    if axes is None:
        return np.roll(a.reshape(-1), shifts[0]).reshape(a.shape)
    return np.roll(a, shifts, axis=axes)


def _unroll(g, out, a, shifts=None, dims=None):
    """roll_backward: the gradient rolled back by the negated shifts."""
    back = -shifts if isinstance(shifts, int) else tuple(-s for s in shifts)
    return call("roll", g, shifts=back, dims=dims)


def _roll_text(attrs: dict, sign: int = 1) -> str:
    """`shifts, dims` as written in a call (one of each shown bare); sign -1 negates the shifts."""

    def shown(value) -> str:
        values = (value,) if isinstance(value, int) else tuple(value)
        return str(values[0]) if len(values) == 1 else str(values)

    shifts = attrs.get("shifts")
    if shifts is None:  # only a record's defaults leave it out (torch requires it)
        return "None"
    shifts = sign * shifts if isinstance(shifts, int) else tuple(sign * k for k in shifts)
    dims = attrs.get("dims")
    return shown(shifts) + ("" if dims is None else f", {shown(dims)}")


def _diagonal_shape(a: Shape, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Shape:
    if len(a) < 2:
        raise ShapeError(f"diagonal dimensions requires ndim larger than 1, but got ndim {len(a)}")
    d1, d2 = _normalise_dim(dim1, len(a)), _normalise_dim(dim2, len(a))
    if d1 == d2:
        raise ShapeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    rows, cols = a[d1], a[d2]
    length = max(0, min(rows + min(offset, 0), cols - max(offset, 0)))
    return tuple(n for i, n in enumerate(a) if i not in (d1, d2)) + (length,)


def _diagonal(a, offset: int = 0, dim1: int = 0, dim2: int = 1):
    a = np.asarray(a)
    return np.diagonal(a, offset, _normalise_dim(dim1, a.ndim), _normalise_dim(dim2, a.ndim)).copy()


def _onto_diagonal(g, shape: Shape, offset: int = 0, dim1: int = 0, dim2: int = 1) -> np.ndarray:
    """diagonal_backward: zeros of `shape` with g written along the diagonal it was read from."""
    g = np.asarray(g)
    grad = np.zeros(shape, dtype=np.result_type(g, np.float32))
    d1, d2 = _normalise_dim(dim1, len(shape)), _normalise_dim(dim2, len(shape))
    turned = np.moveaxis(grad, (d1, d2), (-2, -1))  # a view: writes land in grad
    steps = np.arange(g.shape[-1])
    turned[..., steps + max(-offset, 0), steps + max(offset, 0)] = g
    return grad


def _trace_shape(a: Shape) -> Shape:
    if len(a) != 2:
        raise ShapeError(f"trace: expected a matrix, but got tensor with dim {len(a)}")
    return ()


def _diag_shape(a: Shape, diagonal: int = 0) -> Shape:
    if len(a) == 1:
        n = a[0] + abs(diagonal)
        return (n, n)
    if len(a) == 2:
        return _diagonal_shape(a, diagonal)
    raise ShapeError(f"diag(): Supports 1D or 2D tensors. Got {len(a)}D")


def _diag_vjp(g, out, a, diagonal: int = 0):
    if np.ndim(a) == 1:  # diag_embed's backward reads the diagonal back
        return np.diagonal(np.asarray(g), diagonal).copy()
    return _onto_diagonal(g, np.shape(a), diagonal)


OPS: tuple[Op, ...] = (
    _triangle_op("tril", True, "the lower triangle (elements j <= i + diagonal), zeros above"),
    _triangle_op("triu", False, "the upper triangle (elements j >= i + diagonal), zeros below"),
    Op(
        "diagonal",
        "x.diagonal(offset=0, dim1=0, dim2=1) or torch.diagonal(x)",
        forward=_diagonal,
        vjp=(lambda g, out, a, offset=0, dim1=0, dim2=1: _onto_diagonal(g, np.shape(a), offset, dim1, dim2),),
        sympy=lambda sp, a, shapes=((),), **attrs: _fn(sp, "diagonal")(a, attrs.get("offset", 0)),
        grad_fn="DiagonalBackward0",
        torch="torch.diagonal",
        saves_tensors=False,
        elementwise=False,
        params=(Param("offset", 0, "int"), Param("dim1", 0, "int"), Param("dim2", 1, "int")),
        infer_shape=_diagonal_shape,
        written=lambda texts, attrs: f"{texts[0]}.diagonal({attrs.get('offset', 0)}, {attrs.get('dim1', 0)}, {attrs.get('dim2', 1)})",
    ),
    Op(
        "trace",
        "torch.trace(x) or x.trace(): the sum of a matrix's diagonal",
        forward=lambda a: np.asarray(np.trace(np.asarray(a), axis1=-2, axis2=-1)),
        vjp=(lambda g, out, a: np.asarray(g) * np.eye(*np.shape(a)),),
        sympy=lambda sp, a, shapes=((),): _fn(sp, "trace")(a),
        grad_fn="TraceBackward0",
        torch="torch.trace",
        saves_tensors=False,
        elementwise=False,
        infer_shape=_trace_shape,
        written=lambda texts, attrs: f"torch.trace({texts[0]})",
    ),
    Op(
        "diag",
        "torch.diag(v) (a matrix with v on its diagonal) or torch.diag(A) (A's diagonal)",
        forward=lambda a, diagonal=0: np.diag(np.asarray(a), diagonal).copy(),
        vjp=(_diag_vjp,),
        sympy=lambda sp, a, shapes=((),), diagonal=0: _fn(sp, "diag")(a, diagonal),
        grad_fn="DiagEmbedBackward0",
        pick_grad_fn=lambda kinds, shapes, attrs: "DiagEmbedBackward0" if len(shapes[0]) == 1 else "DiagonalBackward0_copy",
        torch="torch.diag",
        saves_tensors=False,
        elementwise=False,
        params=(_DIAGONAL,),
        infer_shape=_diag_shape,
        written=lambda texts, attrs: f"torch.diag({texts[0]}, {attrs.get('diagonal', 0)})",
    ),
    Op(
        "flip",
        "x.flip(dims) or torch.flip(x, dims): the elements of the listed dims in reverse order",
        forward=_flip,
        vjp=(lambda g, out, a, dims=None: call("flip", g, dims=dims),),
        sympy=lambda sp, a, shapes=((),), dims=None: _fn(sp, "flip")(a, *(dims or ())),
        grad_fn="FlipBackward0",
        torch="torch.flip",
        saves_tensors=False,
        elementwise=False,
        params=(_FLIP_DIMS,),
        infer_shape=_flip_shape,
        written=lambda texts, attrs: f"{texts[0]}.flip({_dims_text(attrs)})",
        batching=Batching("along", dims=(("dims", None),)),
    ),
    Op(
        "roll",
        "x.roll(shifts, dims) or torch.roll(x, shifts, dims): elements shifted along dims, wrapping around",
        forward=_roll,
        vjp=(_unroll,),
        sympy=lambda sp, a, shapes=((),), **attrs: _fn(sp, "roll")(a),
        grad_fn="RollBackward0",
        torch="torch.roll",
        saves_tensors=False,
        elementwise=False,
        params=(_SHIFTS, _ROLL_DIMS),
        infer_shape=_roll_shape,
        written=lambda texts, attrs: f"{texts[0]}.roll({_roll_text(attrs)})",
        batching=Batching("roll"),
    ),
)
