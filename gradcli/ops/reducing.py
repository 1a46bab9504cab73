"""Reducing ops beyond sum and mean: amax/amin, max/min, prod, logsumexp, var/std, norm, cumsum.

Each VJP follows PyTorch's derivatives.yaml (FunctionsManual.cpp): ties of amax share the
gradient evenly (scale_grad_by_count), whole-tensor max puts grad/count on every maximum
(evenly_distribute_backward), max(x, dim) sends it to the index it picked (a scatter),
prod's zeros take the exclusive-product path, var/std/norm keep torch's masks at zero.

The rules are written in registry ops (core.call, and NumPy's spellings traced.py and
batched.py route), so under create_graph they record torch's nodes (MaskedFillBackward1,
ScatterBackward0, FlipBackward0, ...: the KERNELS at the end) and they batch. prod's zero
path is torch's exclusive products (cat, cumprod, flip); only cumprod's own backward at a
zero is a scan, which does not trace (a third derivative of prod at a zero).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import ShapeError
from .core import (
    ALL_DIMS,
    KEEPDIM,
    Batching,
    Composite,
    Op,
    Param,
    Shape,
    Spelling,
    _fn,
    _normalise_dim,
    _sgn,
    _unsqueeze_multiple,
    anywhere,
    call,
)
from .kernels import kernel
from .summation import torch_sum

DIMS = Param("dim", None, "ints")  # an int or a tuple of ints; None (or ()) reduces every dim
ONE_DIM = Param("dim", None, "dim")
INF = math.inf


# ---------------------------------------------------------------- dims and shapes


def _dims(dim: int | tuple[int, ...] | None, ndim: int) -> tuple[int, ...]:
    """The reduced dims, normalised and sorted; None and () mean all of them, as in torch."""
    if dim is None:
        return tuple(range(ndim))
    given = (dim,) if isinstance(dim, int) else tuple(dim)
    seen: list[int] = []
    for d in given:
        n = _normalise_dim(d, ndim)
        if n in seen:
            raise ShapeError(f"dim {n} appears multiple times in the list of dims")
        seen.append(n)
    if ndim == 0 or not seen:
        return tuple(range(ndim))
    return tuple(sorted(seen))


def _reduced(shape: Shape, dim: Any, keepdim: bool) -> Shape:
    dims = _dims(dim, len(shape))
    return tuple(1 if i in dims else n for i, n in enumerate(shape) if keepdim or i not in dims)


def _restore(g: Any, ndim: int, dims: tuple[int, ...], keepdim: bool) -> Any:
    """PyTorch's unsqueeze_multiple: put the reduced dims back as 1s, one unsqueeze each."""
    if keepdim or ndim == 0 or not dims:
        return g
    return _unsqueeze_multiple(g, dims)


def _viewed_back(g: Any, shape: Shape, dims: tuple[int, ...], keepdim: bool) -> Any:
    """PyTorch's restore_reduced_dims: the reduced dims back as 1s by one reshape."""
    if keepdim:
        return g
    return call("reshape", g, shape=tuple(1 if i in dims else n for i, n in enumerate(shape)))


def _count(shape: Shape, dims: tuple[int, ...]) -> int:
    return math.prod(shape[d] for d in dims)


def _isnan(a: Any) -> Any:
    """nan test in NumPy's comparison ufunc, which traced and batched values route."""
    return np.not_equal(a, a)


def _extremum_shape(name: str):
    def infer(shape: Shape, dim: Any = None, keepdim: bool = False) -> Shape:
        dims = _dims(dim, len(shape))
        if math.prod(shape) == 0:
            if dim is None or not _dims_given(dim):
                raise ShapeError(
                    f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                    "Specify the reduction dim with the 'dim' argument."
                )
            for d in dims:
                if shape[d] == 0:
                    raise ShapeError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        return _reduced(shape, dim, keepdim)

    return infer


def _dims_given(dim: Any) -> bool:
    return dim is not None and (isinstance(dim, int) or len(dim) > 0)


# ---------------------------------------------------------------- amax, amin, max, min


def _amax(a, dim=None, keepdim=False):
    a = np.asarray(a)
    return np.amax(a, axis=_dims(dim, a.ndim), keepdims=keepdim)


def _amin(a, dim=None, keepdim=False):
    a = np.asarray(a)
    return np.amin(a, axis=_dims(dim, a.ndim), keepdims=keepdim)


def _amax_grad(g, out, a, dim=None, keepdim=False):
    # scale_grad_by_count(restore(grad), restore(result) == self, dim): ties share evenly.
    shape = np.shape(a)
    dims = _dims(dim, len(shape))
    mask = np.equal(_viewed_back(out, shape, dims, keepdim), a)
    count = np.sum(mask, axis=dims, keepdims=True)
    return (_viewed_back(g, shape, dims, keepdim) / count) * mask


def _max_all(a, dim=None, keepdim=False):
    return np.amax(np.asarray(a))


def _min_all(a, dim=None, keepdim=False):
    return np.amin(np.asarray(a))


def _evenly_distribute(g, out, a, dim=None, keepdim=False):
    # evenly_distribute_backward: zeros.masked_fill_(mask, grad / mask.sum()), where a nan
    # result gives its gradient to the nans (torch branches on it; `where` needs no branch).
    mask = np.where(_isnan(out), _isnan(a), np.equal(a, out))
    return call("masked_fill_tensor", mask, g / np.sum(mask), shape=np.shape(a))


def _masked_fill_tensor(mask, value, shape: Shape = ()):
    """zeros(shape).masked_fill_(mask, value) with a 0-d tensor value (MaskedFillBackward1)."""
    return np.where(np.not_equal(mask, 0), value, np.zeros(shape, dtype=np.result_type(value)))


def _max_shape(name: str):
    whole = _extremum_shape(name)

    def infer(shape: Shape, dim: Any = None, keepdim: bool = False) -> Shape:
        if dim is not None or keepdim:
            raise ShapeError(
                f"{name}(x, dim) returns (values, indices), which gradcli cannot carry yet; "
                f"use torch.a{name}(x, dim) for the values"
            )
        return whole(shape)

    return infer


# ---------------------------------------------------------------- prod


def _prod(a, dim=None, keepdim=False):
    a = np.asarray(a)
    if a.ndim == 0:
        return a.copy()
    return np.prod(a, axis=_normalise_dim(dim, a.ndim), keepdims=keepdim)


def _prod_safe_zeros(g, a, axis):
    """prod_safe_zeros_backward: exclusive products before and after each element, by
    cat, narrow, cumprod and flip as torch writes it (no division, so zeros are safe)."""
    shape = tuple(np.shape(a))
    if math.prod(shape) == 0:
        return np.broadcast_to(g, shape)
    ones = np.ones(shape[:axis] + (1,) + shape[axis + 1 :])
    n = shape[axis]
    first = call("slice", a, dim=axis, start=0, end=n - 1, step=1)
    before = call("cumprod", call("cat2", ones, first, dim=axis), dim=axis)
    rest = call("flip", call("slice", a, dim=axis, start=1, end=n, step=1), dims=(axis,))
    after = call("flip", call("cumprod", call("cat2", ones, rest, dim=axis), dim=axis), dims=(axis,))
    return g * (before * after)


def _prod_grad(g, out, a, dim=None, keepdim=False):
    # prod_backward branches on whether the input holds zeros (torch reads it too). Without
    # zeros (in any point of a batch) the rule is registry ops; the zero path (exclusive
    # products) reads the input as an array: it does not trace, and a batch runs per point.
    if np.ndim(a) == 0:
        return g
    has_zeros = anywhere(np.equal(a, 0))
    if dim is None:
        if not has_zeros:
            return g * (out / a)
        if not hasattr(a, "apply_op") and np.sum(np.equal(a, 0)) > 1:
            return np.zeros(np.shape(a))  # torch's shortcut outside create_graph: two zeros, no grad
        return np.reshape(_prod_safe_zeros(g, np.reshape(a, (-1,)), 0), np.shape(a))
    axis = _normalise_dim(dim, np.ndim(a))
    g = _restore(g, np.ndim(a), (axis,), keepdim)
    out = _restore(out, np.ndim(a), (axis,), keepdim)
    if not has_zeros:
        return g * (out / a)
    return _prod_safe_zeros(g, a, axis)


def _prod_shape(shape: Shape, dim: int | None = None, keepdim: bool = False) -> Shape:
    if dim is None:
        if keepdim:
            raise ShapeError(
                "prod() received an invalid combination of arguments - got (Tensor, keepdim=bool), "
                "but expected one of: (Tensor input, *, torch.dtype dtype = None) or "
                "(Tensor input, int dim, bool keepdim = False, *, torch.dtype dtype = None)"
            )
        return ()
    return _reduced(shape, dim, keepdim)


# ---------------------------------------------------------------- logsumexp


def _logsumexp(a, dim=None, keepdim=False):
    a = np.asarray(a)
    dims = _dims(dim, a.ndim)
    if a.size == 0:
        return np.log(np.sum(np.exp(a), axis=dims, keepdims=keepdim))
    # ReduceOps.cpp: subtract the max (0 where it is infinite), sum the exps, add it back.
    maxes = np.amax(a, axis=dims, keepdims=True)
    maxes = np.where(np.equal(np.abs(maxes), INF), 0.0, maxes)
    total = np.log(torch_sum(np.exp(a - maxes), dims, keepdims=keepdim))
    return total + (maxes if keepdim or a.ndim == 0 else np.squeeze(maxes, axis=dims))


def _logsumexp_grad(g, out, a, dim=None, keepdim=False):
    ndim = np.ndim(a)
    dims = _dims(dim, ndim)
    return _restore(g, ndim, dims, keepdim) * np.exp(a - _restore(out, ndim, dims, keepdim))


def _logsumexp_shape(shape: Shape, dim: int | None = None, keepdim: bool = False) -> Shape:
    if dim is None:
        raise ShapeError('logsumexp() missing 1 required positional arguments: "dim"')
    return _reduced(shape, dim, keepdim)


# ---------------------------------------------------------------- var, std


def _correction(unbiased: bool | None, correction: float | None) -> float:
    if correction is not None:
        return float(correction)
    return 1.0 if unbiased is None or unbiased else 0.0


def _mean_over(a, dims):
    return np.sum(a, axis=dims, keepdims=True) / _count(a.shape, dims)


def _var(a, dim=None, unbiased=None, keepdim=False, correction=None):
    a = np.asarray(a)
    dims = _dims(dim, a.ndim)
    centred = a - _mean_over(a, dims)
    dof = max(0.0, _count(a.shape, dims) - _correction(unbiased, correction))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.sum(centred * centred, axis=dims, keepdims=keepdim) / np.float64(dof)


def _std(a, dim=None, unbiased=None, keepdim=False, correction=None):
    return np.sqrt(_var(a, dim, unbiased, keepdim, correction))


def _var_grad(g, out, a, dim=None, unbiased=None, keepdim=False, correction=None):
    # var_backward: without dim, dof <= 0 gives nan where x == mean and inf elsewhere.
    shape = np.shape(a)
    c = _correction(unbiased, correction)
    with np.errstate(divide="ignore", invalid="ignore"):
        if not shape or dim is None:
            dof = math.prod(shape) - c
            mean = call("mean", a)
            if dof <= 0:
                return g * np.where(np.equal(a, mean), np.nan, INF)
            return (np.float64(2.0) / dof) * g * (a - mean)
        given = _dims(dim, len(shape)) if _dims_given(dim) else ()
        if not keepdim and len(shape) > 1:
            g = _restore(g, len(shape), given, keepdim)
        dof = np.float64(_count(shape, given) - c)
        mean = call("mean", a, dim=given or tuple(range(len(shape))), keepdim=True)
        return (np.float64(2.0) / dof) * g * (a - mean)


def _std_grad(g, out, a, dim=None, unbiased=None, keepdim=False, correction=None):
    # std_backward: (grad / (result * 2)).masked_fill_(result == 0, 0), then var_backward.
    with np.errstate(divide="ignore", invalid="ignore"):
        grad_var = call("masked_fill", g / (out * 2), np.equal(out, 0), value=0.0)
    return _var_grad(grad_var, out, a, dim, unbiased, keepdim, correction)


def _var_shape(shape, dim=None, unbiased=None, keepdim=False, correction=None) -> Shape:
    if unbiased is not None and correction is not None:
        raise ShapeError(
            "var() received an invalid combination of arguments - got both unbiased and correction; "
            "give one of them"
        )
    return _reduced(shape, dim, keepdim)


# ---------------------------------------------------------------- norm


def _norm(a, p=2.0, dim=None, keepdim=False):
    a = np.asarray(a)
    dims = _dims(dim, a.ndim)
    if p == 2:
        return np.sqrt(np.sum(a * a, axis=dims, keepdims=keepdim))
    if p == 1:
        return np.sum(np.abs(a), axis=dims, keepdims=keepdim)
    if p == INF:
        return np.amax(np.abs(a), axis=dims, keepdims=keepdim)
    if p == -INF:
        return np.amin(np.abs(a), axis=dims, keepdims=keepdim)
    if p == 0:
        return np.sum(np.not_equal(a, 0), axis=dims, keepdims=keepdim).astype(np.float64)
    return np.power(np.sum(np.power(np.abs(a), p), axis=dims, keepdims=keepdim), 1.0 / p)


def _zeroed_where(x: Any, mask: Any) -> Any:
    """x.masked_fill_(mask, 0), as norm_backward writes it (MaskedFillBackward0)."""
    return call("masked_fill", x, mask, value=0.0)


def _norm_grad(g, out, a, p=2.0, dim=None, keepdim=False):
    """linalg_vector_norm_backward (norm_backward in FunctionsManual.cpp), branch by branch."""
    ndim = np.ndim(a)
    given = _dims(dim, ndim) if _dims_given(dim) else ()
    g = _restore(g, ndim, given, keepdim)  # without dim, g and the norm broadcast as they are
    norm = _restore(out, ndim, given, keepdim)
    with np.errstate(divide="ignore", invalid="ignore"):
        if p == 0:
            return np.zeros(np.shape(a * g))  # torch returns no gradient: zeros
        if p == 1:
            return _sgn(a) * g
        if p == 2:
            return g * _zeroed_where(a / norm, np.equal(norm, 0))
        if abs(p) == INF:
            size = np.abs(a)
            mask = np.logical_or(np.equal(size, norm), _isnan(size))
            count = np.sum(mask, axis=given or tuple(range(ndim)), keepdims=True)
            return _sgn(a) * ((g / count) * mask)
        if p < 1:
            scaled = _sgn(a) * _zeroed_where(np.power(np.abs(a), p - 1), np.equal(a, 0))
            return scaled * g * np.power(norm, 1 - p)
        scaled = _sgn(a) * np.power(np.abs(a), p - 1) if p < 2 else a * np.power(np.abs(a), p - 2)
        return scaled * _zeroed_where(g / np.power(norm, p - 1), np.equal(norm, 0))


def _norm_shape(shape: Shape, p: float = 2.0, dim: Any = None, keepdim: bool = False) -> Shape:
    if abs(p) == INF and math.prod(shape) == 0:
        dims = _dims(dim, len(shape))
        if not _dims_given(dim) or any(shape[d] == 0 for d in dims):
            raise ShapeError(
                "linalg.vector_norm cannot compute the inf norm on an empty tensor because the "
                "operation does not have an identity"
            )
    return _reduced(shape, dim, keepdim)


# ---------------------------------------------------------------- cumsum


def _cumprod(a, dim=None):
    a = np.asarray(a)
    axis = _normalise_dim(dim, a.ndim)
    return a.copy() if a.ndim == 0 else np.cumprod(a, axis=axis)


def _cumprod_vjp(g, out, a, dim=None):
    """cumprod_backward. Without zeros it is registry ops, as torch writes it:
    reversed_cumsum(grad * result) / input. With zeros, d/dx_k = prod(x_j, j < k) * S_k where
    S_k = g_k + x_(k+1) S_(k+1): one scan back along dim, exact at zeros (no division)."""
    if np.ndim(a) == 0:
        return g
    if not anywhere(np.equal(a, 0)):
        return call("flip", call("cumsum", call("flip", g * out, dims=(dim,)), dim=dim), dims=(dim,)) / a
    x = np.moveaxis(np.asarray(a), dim, -1)  # a traced or batched input stops here
    w = np.moveaxis(np.broadcast_to(np.asarray(g), np.shape(a)), dim, -1)
    before = np.cumprod(np.concatenate([np.ones(x.shape[:-1] + (1,)), x[..., :-1]], axis=-1), axis=-1)
    scan = np.zeros(x.shape, dtype=np.result_type(x, w))
    scan[..., -1] = w[..., -1]
    for k in range(x.shape[-1] - 2, -1, -1):
        scan[..., k] = w[..., k] + x[..., k + 1] * scan[..., k + 1]
    return np.moveaxis(before * scan, -1, dim)


def _cumsum(a, dim=None):
    a = np.asarray(a)
    axis = _normalise_dim(dim, a.ndim)
    return a.copy() if a.ndim == 0 else np.cumsum(a, axis=axis)


def _cumsum_grad(g, out, a, dim=None):
    # cumsum_backward: the reversed cumsum of the gradient (flip, cumsum, flip).
    shape = np.shape(g)
    axis = _normalise_dim(dim, len(shape))
    if math.prod(shape) <= 1 or shape[axis] == 1:
        return g
    return call("flip", call("cumsum", call("flip", g, dims=(axis,)), dim=axis), dims=(axis,))


def _cumsum_shape(shape: Shape, dim: int | None = None, name: str = "cumsum") -> Shape:
    if dim is None:
        raise ShapeError(f'{name}() missing 1 required positional arguments: "dim"')
    _normalise_dim(dim, len(shape))
    return tuple(shape)


def _cumprod_shape(shape: Shape, dim: int | None = None) -> Shape:
    return _cumsum_shape(shape, dim, "cumprod")


# ---------------------------------------------------------------- symbolic forms and steps


def _dim_args(shape: Shape, dim: Any) -> tuple[int, ...]:
    return _dims(dim, len(shape)) if _dims_given(dim) else ()


def _sym_form(name: str, same_for_0d: bool = True):
    """An opaque sympy function of the operand and its reduced dims: amax(x, 1)."""

    def form(sp, a, shapes=((),), dim=None, **attrs):
        if same_for_0d and not shapes[0]:
            return a
        return _fn(sp, name)(a, *_dim_args(shapes[0], dim))

    return form


def _sym_norm(sp, a, shapes=((),), p=2.0, dim=None, keepdim=False):
    order = sp.oo if p == INF else -sp.oo if p == -INF else sp.nsimplify(p)
    return _fn(sp, "norm")(a, order, *_dim_args(shapes[0], dim))


# ---------------------------------------------------------------- the records


def _extremum(name: str, forward, grad_fn: str, pick: str) -> Op:
    return Op(
        name,
        f"{name}(x), {name}(x, dim, keepdim) or x.{name}(dim=(0, 1), keepdim=True)",
        forward=forward,
        vjp=(_amax_grad,),
        sympy=_sym_form(name),
        grad_fn=grad_fn,
        torch=f"torch.{name}",
        elementwise=False,
        params=(DIMS, KEEPDIM),
        infer_shape=_extremum_shape(name),
        batching=Batching("along", dims=(("dim", ALL_DIMS),)),
    )


def _whole(name: str, forward, grad_fn: str, pick: str) -> Op:
    return Op(
        name,
        f"{name}(x) or x.{name}() (over every element)",
        forward=forward,
        vjp=(_evenly_distribute,),
        sympy=_sym_form(f"a{name}"),
        grad_fn=grad_fn,
        torch=f"torch.{name}",
        elementwise=False,
        params=(ONE_DIM, KEEPDIM),  # only to say that the (values, indices) form is missing
        infer_shape=_max_shape(name),
        pair=(f"{name}_values", f"arg{name}"),  # torch.max(x, dim): (values, indices)
        with_other=f"{name}imum",  # torch.max(a, b): torch.maximum
        batching=Batching("over_samples", reduce=getattr(np, f"a{name}")),
    )


# ---------------------------------------------------------------- max/min over a dim, argmax/argmin
# torch.max(x, dim) returns (values, indices); a program takes one of them, as
# `.values`/`[0]` or `.indices`/`[1]` (binding.CallBinding.plan_call, part=), so each is a record.


def _pick_shape(name: str):
    def infer(shape: Shape, dim: int = 0, keepdim: bool = False) -> Shape:
        if not shape:
            return ()
        d = _normalise_dim(dim, len(shape))
        if shape[d] == 0:
            raise ShapeError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        return _reduced(shape, d, keepdim)

    return infer


def _argpick(a, dim, pick):
    a = np.asarray(a)
    if a.ndim == 0:
        return np.zeros((), dtype=np.int64)
    d = _normalise_dim(dim, a.ndim)
    # NumPy's argmax/argmin give the first nan, as torch's do
    return (np.argmax if pick == "max" else np.argmin)(a, axis=d, keepdims=True), d


def _values(pick: str):
    def forward(a, dim=0, keepdim=False):
        a = np.asarray(a)
        if a.ndim == 0:
            return a.copy()
        index, d = _argpick(a, dim, pick)
        out = np.take_along_axis(a, index, axis=d)
        return out if keepdim else np.squeeze(out, axis=d)

    def vjp(g, out, a, dim=0, keepdim=False):
        # value_selecting_reduction_backward: zeros.scatter(dim, indices, grad), the gradient
        # to the index the forward picked (an argmax, which carries no gradient)
        if np.ndim(a) == 0:
            return g
        d = _normalise_dim(dim, np.ndim(a))
        index = call(f"arg{pick}", a, dim=d, keepdim=True)
        return call("scatter", g if keepdim else np.expand_dims(g, d), index, dim=d, shape=np.shape(a))

    return forward, vjp


def _arg(pick: str):
    def forward(a, dim=None, keepdim=False):
        a = np.asarray(a)
        if a.ndim == 0:
            return np.zeros((), dtype=np.int64)
        if dim is None:
            flat = (np.argmax if pick == "max" else np.argmin)(a.reshape(-1))
            return np.full((1,) * a.ndim if keepdim else (), flat)
        index, d = _argpick(a, dim, pick)
        return index if keepdim else np.squeeze(index, axis=d)

    return forward


def _arg_shape(name: str):
    def infer(shape: Shape, dim: int | None = None, keepdim: bool = False) -> Shape:
        if dim is None:
            if math.prod(shape) == 0:
                raise ShapeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
            return (1,) * len(shape) if keepdim else ()
        return _pick_shape(name)(shape, dim, keepdim)

    return infer


def _picked(pick: str) -> tuple[Op, Op]:
    forward, vjp = _values(pick)
    values = Op(
        f"{pick}_values",
        f"x.{pick}(dim).values, torch.{pick}(x, dim)[0] or v, i = x.{pick}(dim)",
        forward=forward,
        vjp=(vjp,),
        sympy=lambda sp, a, shapes=((),), dim=0, keepdim=False: _fn(sp, f"{pick}_values")(a, dim),
        grad_fn=f"{pick.capitalize()}Backward0",
        torch=f"torch.{pick}",
        elementwise=False,
        function=False,
        method=False,
        params=(Param("dim", 0, "int"), KEEPDIM),
        infer_shape=_pick_shape(pick),
        written=lambda operands, attrs, pick=pick: (
            f"{operands[0]}.{pick}({attrs['dim']}"
            + (", keepdim=True" if attrs.get("keepdim") else "")
            + ").values"
        ),
        batching=Batching("along", dims=(("dim", 0),)),
    )
    indices = Op(
        f"arg{pick}",
        f"torch.arg{pick}(x, dim), x.{pick}(dim).indices",
        forward=_arg(pick),
        vjp=(lambda g, out, a, dim=None, keepdim=False: np.zeros(np.shape(a)),),
        sympy=lambda sp, a, shapes=((),), dim=None, keepdim=False: _fn(sp, f"arg{pick}")(a),
        grad_fn="None",
        torch=f"torch.arg{pick}",
        saves_tensors=False,
        elementwise=False,
        differentiable=False,
        params=(ONE_DIM, KEEPDIM),
        infer_shape=_arg_shape(f"arg{pick}"),
        written=lambda operands, attrs, pick=pick: (
            f"torch.arg{pick}({operands[0]}"
            + ("" if attrs.get("dim") is None else f", {attrs['dim']}")
            + (", keepdim=True" if attrs.get("keepdim") else "")
            + ")"
        ),
        batching=Batching("argpick"),
    )
    return values, indices


_VAR_PARAMS = (DIMS, Param("unbiased", None, "bool"), KEEPDIM, Param("correction", None, "number"))

OPS: tuple[Op, ...] = (
    _extremum("amax", _amax, "AmaxBackward0", "largest"),
    _extremum("amin", _amin, "AminBackward0", "smallest"),
    _whole("max", _max_all, "MaxBackward1", "largest"),
    _whole("min", _min_all, "MinBackward1", "smallest"),
    *_picked("max"),
    *_picked("min"),
    Op(
        "prod",
        "prod(x), prod(x, dim, keepdim) or x.prod(dim=0)",
        forward=_prod,
        vjp=(_prod_grad,),
        sympy=_sym_form("prod_over"),  # sympy's own `prod` multiplies a Python sequence
        grad_fn="ProdBackward0",
        torch="torch.prod",
        elementwise=False,
        reduction=True,
        params=(ONE_DIM, KEEPDIM),
        infer_shape=_prod_shape,
        pick_grad_fn=lambda kinds, shapes, attrs: (
            "ProdBackward1" if attrs.get("dim") is not None else "ProdBackward0"
        ),
        batching=Batching("over_samples", reduce=np.prod),
    ),
    Op(
        "logsumexp",
        "logsumexp(x) or x.logsumexp(); dim is required: logsumexp(x, 1, keepdim=True)",
        forward=_logsumexp,
        vjp=(_logsumexp_grad,),
        sympy=_sym_form("logsumexp"),
        grad_fn="LogsumexpBackward0",
        torch="torch.logsumexp",
        elementwise=False,
        reduction=True,
        params=(ONE_DIM, KEEPDIM),
        infer_shape=_logsumexp_shape,
        batching=Batching("along", dims=(("dim", None),)),
    ),
    Op(
        "var",
        "var(x), var(x, dim, correction=0, keepdim=True) or x.var(unbiased=False)",
        forward=_var,
        vjp=(_var_grad,),
        sympy=_sym_form("var_over", same_for_0d=False),  # sympy's `var` makes symbols
        grad_fn="VarBackward0",
        torch="torch.var",
        elementwise=False,
        params=_VAR_PARAMS,
        infer_shape=_var_shape,
        batching=Batching("along", dims=(("dim", ALL_DIMS),)),
    ),
    Op(
        "std",
        "std(x), std(x, dim, correction=0, keepdim=True) or x.std(unbiased=False)",
        forward=_std,
        vjp=(_std_grad,),
        sympy=_sym_form("std_over", same_for_0d=False),
        grad_fn="StdBackward0",
        torch="torch.std",
        elementwise=False,
        params=_VAR_PARAMS,
        infer_shape=_var_shape,
        batching=Batching("along", dims=(("dim", ALL_DIMS),)),
    ),
    Op(
        "norm",
        "norm(x), norm(x, p, dim, keepdim) or x.norm(p=1, dim=0)",
        forward=_norm,
        vjp=(_norm_grad,),
        sympy=_sym_norm,
        grad_fn="LinalgVectorNormBackward0",
        torch="torch.norm",
        elementwise=False,
        params=(Param("p", 2.0, "number"), DIMS, KEEPDIM),
        infer_shape=_norm_shape,
        batching=Batching("along", dims=(("dim", ALL_DIMS),)),
    ),
    Op(
        "cumsum",
        "cumsum(x) or x.cumsum(); dim is required: cumsum(x, 1)",
        forward=_cumsum,
        vjp=(_cumsum_grad,),
        sympy=_sym_form("cumsum"),
        grad_fn="CumsumBackward0",
        torch="torch.cumsum",
        saves_tensors=False,
        elementwise=False,
        params=(ONE_DIM,),
        infer_shape=_cumsum_shape,
        batching=Batching("along", dims=(("dim", None),)),
    ),
    Op(
        "cumprod",
        "cumprod(x) or x.cumprod(); dim is required: x.cumprod(1), torch.cumprod(x, dim=1)",
        forward=_cumprod,
        vjp=(_cumprod_vjp,),
        sympy=_sym_form("cumprod"),
        grad_fn="CumprodBackward0",
        torch="torch.cumprod",
        elementwise=False,
        params=(ONE_DIM,),
        infer_shape=_cumprod_shape,
        batching=Batching("along", dims=(("dim", None),)),
    ),
)


# NumPy's var/std default to ddof=0 and call it ddof: a Spelling can only rename keywords
# and append numbers, not change a default, so these two calls are composites that record
# torch.var/std with correction=ddof (one VarBackward0/StdBackward0 node, as torch would).
def _numpy_moment(op: str):
    def build(apply, x, dim=None, ddof=0.0, keepdim=False):
        return apply(op, x, dim=dim, keepdim=keepdim, correction=ddof)

    return Composite(
        f"np_{op}",
        arity=1,
        params=(DIMS, Param("ddof", 0.0, "number"), KEEPDIM),
        build=build,
        torch=f"torch.{op}",
        derivative=f"np.{op}(x, axis, ddof=0, keepdims) is torch.{op}(x, dim, correction=ddof, keepdim)",
    )


def _linalg_norm(apply, x, ord=None, dim=None, keepdim=False, shapes=((),), dtypes=(), strides=(None,)):  # noqa: A002
    """torch.linalg.norm: vector_norm (LinalgVectorNormBackward0) where it is a vector norm
    (ord None, or one dim); the matrix norms (ord=1, 2, inf of a matrix) are refused."""
    ndim = len(shapes[0])
    dims = dim if isinstance(dim, tuple) else None if dim is None else (dim,)
    if ord is not None and dims is None and ndim not in (1, 2):
        raise ShapeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {ndim}D.")
    matrix = (dims is None and ndim == 2) or (dims is not None and len(dims) == 2)
    if ord is not None and matrix:
        raise ShapeError(
            f"gradcli has no matrix norms: linalg.norm(A, ord={ord!r}) of a matrix is not supported "
            "(torch.linalg.vector_norm(A, ord) is the vector norm of its elements)"
        )
    return apply("norm", x, p=2.0 if ord is None else float(ord), dim=dim, keepdim=keepdim)


COMPOSITES: tuple[Composite, ...] = (
    _numpy_moment("var"),
    _numpy_moment("std"),
    Composite(
        "linalg_norm",
        arity=1,
        params=(Param("ord", None, "number"), DIMS, KEEPDIM),
        build=_linalg_norm,
        torch="torch.linalg.norm",
        derivative="a vector norm: LinalgVectorNormBackward0 (matrix norms are not supported)",
        shaped=True,
    ),
)

# NumPy's max/min with axis= are torch's amax/amin; its var/std mean ddof=0.
NUMPY_ALIASES: dict[str, Spelling] = {
    "max": Spelling("amax"),
    "min": Spelling("amin"),
    "var": Spelling("np_var"),
    "std": Spelling("np_std"),
}


# ---------------------------------------------------------------- backward kernels
# What the rules above call that PyTorch records as nodes of their own under create_graph.


def _scatter(src, index, dim: int = 0, shape: Shape = ()):
    """zeros(shape).scatter(dim, index, src): src's elements at the indices along dim."""
    grad = np.zeros(shape, dtype=np.result_type(src))
    np.put_along_axis(grad, np.asarray(index).astype(np.int64), src, axis=dim)
    return grad


def _scatter_add(src, index, dim: int = 0, shape: Shape = ()):
    """zeros(shape).scatter_add(dim, index, src): repeated indices add up."""
    grad = np.zeros(shape, dtype=np.result_type(src))
    index = np.asarray(index).astype(np.int64)
    where = list(np.indices(index.shape, sparse=True))
    where[dim] = index
    np.add.at(grad, tuple(where), src)
    return grad




KERNELS: tuple[Op, ...] = (
    kernel(
        "masked_fill_tensor",
        _masked_fill_tensor,
        (
            lambda gg, out, mask, value, shape=(): np.zeros(np.shape(mask)),
            # derivatives.yaml masked_fill.Tensor: value gets the sum of gg where the mask holds
            lambda gg, out, mask, value, shape=(): np.sum(np.where(mask, gg, 0.0)),
        ),
        "MaskedFillBackward1",
        elementwise=False,
        saves_tensors=False,
        infer_shape=lambda mask, value, shape=(): tuple(shape),
        batching=Batching("elementwise"),
    ),
    kernel(
        "scatter",
        _scatter,
        (
            lambda gg, out, src, index, dim=0, shape=(): call("gather", gg, index, dim=dim),
            lambda gg, out, src, index, dim=0, shape=(): np.zeros(np.shape(index)),
        ),
        "ScatterBackward0",
        elementwise=False,
        saves_tensors=False,
        infer_shape=lambda src, index, dim=0, shape=(): tuple(shape),
        batching=Batching("along", dims=(("dim", 0),), shapes=("shape",)),
    ),
    kernel(
        "scatter_add",
        _scatter_add,
        (
            lambda gg, out, src, index, dim=0, shape=(): call("gather", gg, index, dim=dim),
            lambda gg, out, src, index, dim=0, shape=(): np.zeros(np.shape(index)),
        ),
        "ScatterAddBackward0",
        elementwise=False,
        saves_tensors=False,
        infer_shape=lambda src, index, dim=0, shape=(): tuple(shape),
        batching=Batching("along", dims=(("dim", 0),), shapes=("shape",)),
    ),
)
