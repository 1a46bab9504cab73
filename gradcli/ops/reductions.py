"""Reductions: sum and mean over all elements or one dim."""

from __future__ import annotations

from .core import (
    DIM_OR_DIMS,
    KEEPDIM,
    Op,
    _dim_overload,
    _expand_reduced,
    _mean,
    _mean_grad,
    _reduce_shape,
    _sum,
    _sym_reduce,
)

OPS: tuple[Op, ...] = (
    Op(
        "sum",
        "sum(x), sum(x, dim, keepdim) or x.sum(dim=0, keepdim=True)",
        forward=_sum,
        vjp=(lambda g, out, a, dim=None, keepdim=False: _expand_reduced(g, a, dim, keepdim),),
        sympy=_sym_reduce("sum_over"),  # symbolic.SUM: sympy parses `sum` as Python's
        grad_fn="SumBackward0",
        torch="torch.sum",
        saves_tensors=False,
        elementwise=False,
        reduction=True,
        params=(DIM_OR_DIMS, KEEPDIM),
        infer_shape=_reduce_shape,
        pick_grad_fn=lambda kinds, shapes, attrs: "SumBackward1" if _dim_overload(attrs) else "SumBackward0",
    ),
    Op(
        "mean",
        "mean(x), mean(x, dim, keepdim) or x.mean(dim=0)",
        forward=_mean,
        vjp=(_mean_grad,),
        sympy=_sym_reduce("mean"),
        grad_fn="MeanBackward0",
        torch="torch.mean",
        saves_tensors=False,
        elementwise=False,
        reduction=True,
        params=(DIM_OR_DIMS, KEEPDIM),
        infer_shape=_reduce_shape,
        pick_grad_fn=lambda kinds, shapes, attrs: (
            "MeanBackward1" if _dim_overload(attrs) else "MeanBackward0"
        ),
    ),
)
