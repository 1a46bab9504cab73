"""In-place writes that autograd records: PyTorch's CopySlices and the views it regenerates.

`y[0] = v` (y in a graph) and `y[:, 1] *= 3` (an in-place op on a view of y) change y's
elements in place, so PyTorch gives y a new grad_fn, CopySlices: the gradient of the old y
is the incoming one with the written region zeroed, and the written values get the
region of it. A view that was written through gets AsStridedBackward0, reading its region
out of the new base. Both are ops of their own here rather than registry records, because
a program of `gradcli grad` cannot write in place; they run in the same engine (their
`vjp` is what autograd.push_adjoints calls), but their rules are NumPy scatters, so
create_graph through them says so instead of tracing.

A region is `steps` (the view's strided steps from the base's storage, possibly none)
then `index` (a NumPy index, Ellipsis for all of it): the same address the write used.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from ..errors import DerivativeNotImplemented
from ..ops.core import Op


def _region(array: np.ndarray, steps: tuple, index: Any) -> np.ndarray:
    for step in steps:
        array = step(array)
    return array[index]


def _write(array: np.ndarray, steps: tuple, index: Any, values: Any) -> None:
    for step in steps:
        array = step(array)
    array[index] = values


def _copy_slices(base: np.ndarray, src: Any, *, steps: tuple, index: Any, shape: tuple) -> np.ndarray:
    out = np.array(base, copy=True)
    _write(out, steps, index, src)
    return out


def _base_vjp(g: Any, out: Any, base: Any, src: Any, *, steps: tuple, index: Any, shape: tuple) -> Any:
    grad = np.array(g, copy=True)
    _write(grad, steps, index, 0)
    return grad


def _src_vjp(g: Any, out: Any, base: Any, src: Any, *, steps: tuple, index: Any, shape: tuple) -> Any:
    return np.array(_region(np.ascontiguousarray(g), steps, index), copy=True)


def _view_of_base(base: np.ndarray, *, steps: tuple, index: Any, shape: tuple) -> np.ndarray:
    return np.array(_region(np.ascontiguousarray(base), steps, index), copy=True)


def _view_vjp(g: Any, out: Any, base: Any, *, steps: tuple, index: Any, shape: tuple) -> Any:
    grad = np.zeros(np.shape(base), dtype=np.asarray(g).dtype)
    _write(grad, steps, index, g)
    return grad


def _no_form(*args: Any, **kwargs: Any) -> Any:
    raise NotImplementedError("an in-place write has no symbolic form")


COPY_SLICES = Op(
    name="copy_slices",
    syntax="x[i] = v",
    forward=_copy_slices,
    vjp=(_base_vjp, _src_vjp),
    sympy=_no_form,
    grad_fn="CopySlices",
    saves_tensors=False,
    elementwise=False,
    function=False,
    method=False,
    infer_shape=lambda base, src, **attrs: base,
    written=lambda operands, attrs: f"{operands[0]} with its region written from {operands[1]}",
)

VIEW_AFTER_WRITE = Op(
    name="as_strided",
    syntax="x[i]",
    forward=_view_of_base,
    vjp=(_view_vjp,),
    sympy=_no_form,
    grad_fn="AsStridedBackward0",
    saves_tensors=False,
    elementwise=False,
    function=False,
    method=False,
    infer_shape=lambda base, *, shape, **attrs: shape,
    written=lambda operands, attrs: f"a view of {operands[0]}",
)


# -- an in-place op on a view: CopySlices around the op's own node ---------------------------
# `v = y[1:]; v.mul_(w)` gives y a CopySlices that holds MulBackward0: torch's node lists y's
# old grad_fn first, then the op's other inputs (w), and backward runs the op's own rule on
# the region. The record here is the op's rule on the region, named after the op, so what
# reads a node by its op's name (which operands torch lists, which it saves) reads it as the
# op's: an entry for a wrapped number of mul, none for pow's exponent, no mask of masked_fill.


def _inner_forward(
    base: Any, *others: Any, steps: tuple, index: Any, shape: tuple, inner: Op, inner_attrs: dict, **_: Any
) -> np.ndarray:
    out = np.array(base, copy=True)
    region = np.array(_region(out, steps, index), copy=True)
    _write(out, steps, index, inner.forward(region, *others, **inner_attrs))
    return out


def _inner_vjp(position: int) -> Any:
    def vjp(
        g: Any,
        out: Any,
        base: Any,
        *others: Any,
        steps: tuple,
        index: Any,
        shape: tuple,
        inner: Op,
        inner_attrs: dict,
        no_rule: bool = False,
    ) -> Any:
        from ..errors import ShapeError
        from ..ops.core import unbroadcast

        if no_rule:  # as the engine words a node torch has no formula for
            raise ShapeError(f"derivative for aten::{inner.torch.rsplit('.', 1)[-1]} is not implemented")

        g = np.ascontiguousarray(g)
        region = _region(g, steps, index)
        old = _region(np.ascontiguousarray(base), steps, index)
        result = _region(np.ascontiguousarray(out), steps, index)
        raw = inner.vjp[position](np.array(region), np.array(result), np.array(old), *others, **inner_attrs)
        if position:
            return raw
        grad = np.array(g, copy=True)
        _write(grad, steps, index, unbroadcast(np.asarray(raw), np.shape(old)))
        return grad

    return vjp


_THROUGH_VIEW: dict[str, Op] = {}


def through_view(inner: Op) -> Op:
    """The CopySlices record of `inner` applied in place to a view of a tensor."""
    if inner.name not in _THROUGH_VIEW:
        _THROUGH_VIEW[inner.name] = Op(
            name=inner.name,
            syntax=f"v.{inner.name}_() on a view v",
            forward=_inner_forward,
            vjp=tuple(_inner_vjp(k) for k in range(inner.arity)),
            sympy=_no_form,
            grad_fn="CopySlices",
            saves_tensors=inner.saves_tensors,
            elementwise=False,
            function=False,
            method=False,
            infer_shape=lambda base, *others, **attrs: base,
            written=lambda operands, attrs: (
                f"{operands[0]} with {attrs['inner'].name}_ applied to a view of it"
            ),
        )
    return _THROUGH_VIEW[inner.name]


# derivatives.yaml: `acosh_: self: not_implemented("inplace version of acosh")` (so asinh_,
# atanh_): torch records AcoshBackward1, whose backward raises.
_NOT_IMPLEMENTED: dict[str, Op] = {}


def not_implemented_in_place(op: Op) -> Op:
    """`op`'s record whose rules raise torch's NotImplementedError for its in-place version."""
    if op.name not in _NOT_IMPLEMENTED:
        def refuse(*args: Any, **kwargs: Any) -> Any:
            raise DerivativeNotImplemented(
                f"the derivative for 'inplace version of {op.name}' is not implemented."
            )

        _NOT_IMPLEMENTED[op.name] = replace(op, vjp=(refuse,) * op.arity, grad_fn=op.grad_fn[:-1] + "1")
    return _NOT_IMPLEMENTED[op.name]


_NO_RULE: dict[str, Op] = {}


def no_rule_in_place(op: Op) -> Op:
    """A record torch has no derivative for (floor_divide): its in-place version, which torch's
    error names with the trailing underscore (aten::floor_divide_)."""
    if op.name not in _NO_RULE:
        _NO_RULE[op.name] = replace(op, torch=f"{op.torch}_")
    return _NO_RULE[op.name]
