"""Values without gradients: comparisons, masks, `where`, `detach` and the `*_like` constructors.

PyTorch's comparisons give bool tensors and `detach()` a tensor outside the graph: none of
them carries a grad_fn, so their records are `differentiable=False` and the graph marks
their results as not requiring grad. gradcli holds a mask as 0.0/1.0 in the program's
float dtype. `where(cond, a, b)` differentiates into a and b (WhereBackward0), never cond.
"""

from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from .core import (
    ALL_DIMS,
    DIM_OR_DIMS,
    KEEPDIM,
    Batching,
    Op,
    Param,
    Spelling,
    _axes,
    _fn,
    _reduce_shape,
    broadcast_shapes,
    call,
)


def _comparison(name: str, symbol: str, ufunc: np.ufunc) -> Op:
    return Op(
        name,
        f"a {symbol} b, torch.{name}(a, b) or a.{name}(b)",
        forward=lambda a, b: ufunc(a, b).astype(np.result_type(a, b, np.float32)),
        vjp=(lambda g, out, a, b: np.zeros(np.shape(a)), lambda g, out, a, b: np.zeros(np.shape(b))),
        sympy=lambda sp, a, b, shapes=(): _fn(sp, name)(a, b),
        grad_fn="None",
        torch=f"torch.{name}",
        saves_tensors=False,
        elementwise=False,
        differentiable=False,
        gives_mask=True,
        infer_shape=lambda a, b: broadcast_shapes(a, b),
        symbol=symbol,
    )


def _where_forward(condition, a, b):
    return np.where(np.asarray(condition) != 0, a, b)


def _masked_fill_shape(a, mask, value):
    if value is None:
        raise ShapeError('masked_fill() missing 1 required positional arguments: "value"')
    return broadcast_shapes(a, mask)


def _masked_select_shape(a, mask, count: int = -1) -> tuple[int, ...]:
    broadcast_shapes(mask, a)  # torch broadcasts the mask with x: its size error names the mask first
    return (count,)


def _masked_select_count(attrs: dict, value_of) -> dict:
    """The number of elements picked, from the mask's values (the result's one dim)."""
    a, mask = np.asarray(value_of(0)), np.asarray(value_of(1))
    try:
        shape = np.broadcast_shapes(a.shape, mask.shape)
    except ValueError:  # the shape check that follows raises torch's error
        return attrs
    return {**attrs, "count": int(np.count_nonzero(np.broadcast_to(mask != 0, shape)))}


def _masked_select(a, mask, count: int = -1):
    a, mask = np.asarray(a), np.asarray(mask) != 0
    shape = np.broadcast_shapes(a.shape, mask.shape)
    return np.broadcast_to(a, shape)[np.broadcast_to(mask, shape)]


def _masked_select_grad(g, out, a, mask, count: int = -1):
    """masked_select_backward: g scattered into zeros of the broadcast shape at the True places
    (then summed back to x's shape, as for any broadcast)."""
    mask = np.asarray(mask) != 0
    shape = np.broadcast_shapes(np.shape(a), mask.shape)
    grad = np.zeros(shape, dtype=np.result_type(g))
    grad[np.broadcast_to(mask, shape)] = g
    return grad


def _like(name: str, fill: float | None) -> Op:
    def forward(a, fill_value: float = 0.0):
        return np.full(np.shape(a), fill if fill is not None else fill_value, dtype=np.result_type(a))

    return Op(
        name,
        f"torch.{name}(x)" + (", fill_value" if fill is None else ""),
        forward=forward,
        vjp=(lambda g, out, a, fill_value=0.0: np.zeros(np.shape(a)),),
        sympy=lambda sp, a, shapes=(), fill_value=0.0: _fn(sp, name)(a),
        grad_fn="None",
        torch=f"torch.{name}",
        saves_tensors=False,
        elementwise=False,
        method=False,
        differentiable=False,
        params=(Param("fill_value", 0.0, "number"),) if fill is None else (),
        infer_shape=lambda a, fill_value=0.0: tuple(a),
    )


def _truth(name: str, reduce) -> Op:
    """x.any() / x.all() (torch.any, torch.all): a bool tensor, over every element or dims."""

    def forward(a, dim=None, keepdim=False):
        axis = _axes(dim, np.ndim(a)) if np.ndim(a) else None
        return reduce(np.not_equal(a, 0), axis=axis, keepdims=keepdim).astype(np.result_type(a, np.float32))

    return Op(
        name,
        f"x.{name}(), torch.{name}(x, dim, keepdim)",
        forward=forward,
        vjp=(lambda g, out, a, dim=None, keepdim=False: np.zeros(np.shape(a)),),
        sympy=lambda sp, a, shapes=(), dim=None, keepdim=False: _fn(sp, name)(a),
        grad_fn="None",
        torch=f"torch.{name}",
        saves_tensors=False,
        elementwise=False,
        differentiable=False,
        gives_mask=True,
        reduction=True,
        params=(DIM_OR_DIMS, KEEPDIM),
        infer_shape=_reduce_shape,
        batching=Batching("along", dims=(("dim", ALL_DIMS),)),
    )


OPS: tuple[Op, ...] = (
    _comparison("gt", ">", np.greater),
    _comparison("lt", "<", np.less),
    _comparison("ge", ">=", np.greater_equal),
    _comparison("le", "<=", np.less_equal),
    _comparison("eq", "==", np.equal),
    _comparison("ne", "!=", np.not_equal),
    Op(
        "where",
        "torch.where(cond, a, b)",
        forward=_where_forward,
        # derivatives.yaml: where(condition, grad, 0) and where(condition, 0, grad), themselves
        # WhereBackward0 nodes under create_graph
        vjp=(
            lambda g, out, c, a, b: np.zeros(np.shape(c)),
            lambda g, out, c, a, b: call("where", c, g, 0.0),
            lambda g, out, c, a, b: call("where", c, 0.0, g),
        ),
        sympy=lambda sp, c, a, b, shapes=(): _fn(sp, "where")(c, a, b),
        grad_fn="WhereBackward0",
        torch="torch.where",
        saves_tensors=True,
        elementwise=False,
        method=False,
        infer_shape=lambda c, a, b: broadcast_shapes(c, a, b),
        written=lambda operands, attrs: f"torch.where({', '.join(operands)})",
        batching=Batching("elementwise"),
    ),
    Op(
        "detach",
        "x.detach() or torch.detach(x)",
        forward=lambda a: np.array(a, copy=True),
        vjp=(lambda g, out, a: np.zeros(np.shape(a)),),
        sympy=lambda sp, a, shapes=(): _fn(sp, "detach")(a),
        grad_fn="None",
        torch="torch.detach",
        saves_tensors=False,
        elementwise=False,
        differentiable=False,
        infer_shape=lambda a: tuple(a),
        batching=Batching("copy"),
    ),
    Op(
        "masked_fill",
        "x.masked_fill(mask, value) or torch.masked_fill(x, mask, value)",
        forward=lambda a, mask, value=0.0: np.where(np.asarray(mask) != 0, value, a),
        vjp=(
            # derivatives.yaml: grad.masked_fill(mask, 0) (MaskedFillBackward0 under create_graph)
            lambda g, out, a, mask, value=0.0: call("masked_fill", g, mask, value=0.0),
            lambda g, out, a, mask, value=0.0: np.zeros(np.shape(mask)),
        ),
        sympy=lambda sp, a, mask, shapes=(), value=0.0: _fn(sp, "masked_fill")(a, mask, value),
        grad_fn="MaskedFillBackward0",
        torch="torch.masked_fill",
        elementwise=False,
        params=(Param("value", None, "number"),),
        infer_shape=lambda a, mask, value=None: _masked_fill_shape(a, mask, value),
        written=lambda operands, attrs: f"{operands[0]}.masked_fill({operands[1]}, {attrs['value']!r})",
        batching=Batching("elementwise"),
    ),
    Op(
        "masked_select",
        "x.masked_select(mask) or torch.masked_select(x, mask)",
        forward=_masked_select,
        vjp=(_masked_select_grad, lambda g, out, a, mask, count=-1: np.zeros(np.shape(mask))),
        sympy=lambda sp, a, mask, shapes=(), count=-1: _fn(sp, "masked_select")(a, mask),
        grad_fn="MaskedSelectBackward0",
        torch="torch.masked_select",
        domain="a bool mask that broadcasts with x (its values fix the result's length)",
        elementwise=False,
        # the count is read from the mask's values when the graph is built, never written
        params=(Param("count", -1, "int"),),
        infer_shape=_masked_select_shape,
        from_values=_masked_select_count,
        written=lambda operands, attrs: f"{operands[0]}.masked_select({operands[1]})",
    ),
    _truth("any", np.any),
    _truth("all", np.all),
    _like("zeros_like", 0.0),
    _like("ones_like", 1.0),
    _like("full_like", None),
)

TORCH_ALIASES = {
    "greater": Spelling("gt"),
    "less": Spelling("lt"),
    "greater_equal": Spelling("ge"),
    "less_equal": Spelling("le"),
    "not_equal": Spelling("ne"),
}
# torch.equal is one bool for whole tensors; NumPy's equal is elementwise.
NUMPY_ALIASES = {"equal": Spelling("eq")}
