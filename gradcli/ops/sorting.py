"""`x.sort()`, `torch.topk` and `torch.argsort`: values that carry a gradient, and int64 indices.

`x.sort(dim, descending)` and `x.topk(k, dim, largest, sorted)` return (values, indices), as
torch.max(x, dim) does: a program takes `.values` / `[0]` or `.indices` / `[1]` (or unpacks
both), so each part is a record. The values' gradient goes back to the positions they came
from, derivatives.yaml's value_selecting_reduction_backward: zeros(x).scatter(dim, indices,
grad), SortBackward0 / TopkBackward0.

Order as torch's CPU kernels give it: ascending puts nan last, descending first, and equal
values keep their original order (torch's sort is stable on the CPU). topk of tied values
takes them in index order; torch's partial sort may take another of the ties (same values,
other indices), which gradcli does not reproduce.
"""

from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from . import stl_order
from .core import Batching, Op, Param, Shape, _fn, _normalise_dim, call

_DIM = Param("dim", -1, "int")
_DESCENDING = Param("descending", False, "bool")
# torch's CPU sort is stable either way; giving stable= calls the sort.stable overload (SortBackward1)
_STABLE = Param("stable", None, "bool", keyword_only=True)
_K = Param("k", None, "int")
_LARGEST = Param("largest", True, "bool")
_SORTED = Param("sorted", True, "bool")


def _order(a, dim: int = -1, descending: bool = False) -> np.ndarray:
    """The stable sorting permutation along dim (int64), nan last ascending and first descending."""
    a = np.asarray(a)
    if a.ndim == 0:
        return np.zeros((), dtype=np.int64)
    d = _normalise_dim(dim, a.ndim)
    if not descending:
        return np.argsort(a, axis=d, kind="stable").astype(np.int64)
    nan = np.isnan(a)
    negated = np.where(nan, 0.0, -a.astype(np.float64))
    return np.lexsort((negated, ~nan), axis=d).astype(np.int64)  # nan first, then largest


def _sort_shape(shape: Shape, dim: int = -1, descending: bool = False, stable: bool | None = None) -> Shape:
    _normalise_dim(dim, len(shape))  # torch's IndexError for a dim out of range
    return tuple(shape)


def _sort(a, dim: int = -1, descending: bool = False, stable: bool | None = None) -> np.ndarray:
    a = np.asarray(a)
    if a.ndim == 0:
        return a.copy()
    return np.take_along_axis(a, _order(a, dim, descending), axis=_normalise_dim(dim, a.ndim))


def _argsort(a, dim: int = -1, descending: bool = False, stable: bool | None = None) -> np.ndarray:
    return _order(a, dim, descending)


def _topk_shape(shape: Shape, k: int | None = None, dim: int = -1, largest: bool = True, sorted: bool = True) -> Shape:
    if k is None:
        raise ShapeError("topk() missing 1 required positional argument: 'k'")
    if not shape:
        if k not in (0, 1):
            raise ShapeError("selected index k out of range")
        return ()
    d = _normalise_dim(dim, len(shape))
    if not 0 <= k <= shape[d]:
        raise ShapeError("selected index k out of range")
    return tuple(k if i == d else n for i, n in enumerate(shape))


# Rows whose elements tie (or sorted=False) take libstdc++'s steps in Python, as torch's CPU
# topk does (ops/stl_order.py); past this many elements of such rows, the stable order.
_EMULATED_ELEMENTS = 200_000


def _topk_indices(a, k: int | None = None, dim: int = -1, largest: bool = True, sorted: bool = True) -> np.ndarray:
    a = np.asarray(a)
    if a.ndim == 0:
        return np.zeros((), dtype=np.int64)
    d = _normalise_dim(dim, a.ndim)
    indices = np.take(_order(a, d, descending=largest), np.arange(k), axis=d)
    rows = np.moveaxis(a, d, -1).reshape(-1, a.shape[d])
    if not rows.size or not k:
        return indices
    ordered = np.sort(rows, axis=1)  # nan last: a tie is an equal neighbour, or two nans
    tied = np.any(ordered[:, 1:] == ordered[:, :-1], axis=1) | (np.isnan(ordered).sum(axis=1) > 1)
    chosen = np.arange(len(rows)) if not sorted else np.flatnonzero(tied)
    if not chosen.size or chosen.size * rows.shape[1] > _EMULATED_ELEMENTS:
        return indices
    picked = np.moveaxis(indices, d, -1).reshape(-1, k).copy()
    for r in chosen:
        picked[r] = stl_order.topk_order(rows[r], k, largest, sorted)
    shape = tuple(np.delete(a.shape, d)) + (k,)
    return np.moveaxis(picked.reshape(shape), -1, d)


def _topk(a, k: int | None = None, dim: int = -1, largest: bool = True, sorted: bool = True) -> np.ndarray:
    a = np.asarray(a)
    if a.ndim == 0:
        return a.copy()
    indices = _topk_indices(a, k, dim, largest, sorted)
    return np.take_along_axis(a, indices, axis=_normalise_dim(dim, a.ndim))


def _scattered_back(indices_op: str):
    """value_selecting_reduction_backward: zeros(x).scatter(dim, indices, grad)."""

    def vjp(g, out, a, **attrs):
        if np.ndim(a) == 0:
            return g
        d = _normalise_dim(attrs.get("dim", -1), np.ndim(a))
        index = call(indices_op, a, **attrs)
        return call("scatter", g, index, dim=d, shape=np.shape(a))

    return vjp


def _no_grad(g, out, a, **attrs):
    return np.zeros(np.shape(a))


def _shown(attrs: dict, defaults: dict) -> list[str]:
    """The call's arguments that differ from torch's defaults, as keywords."""
    return [f"{n}={attrs[n]!r}" for n, default in defaults.items() if attrs.get(n, default) != default]


def _sort_text(method: str, texts: list[str], attrs: dict) -> str:
    return f"{texts[0]}.{method}({', '.join(_shown(attrs, {'dim': -1, 'descending': False}))})"


def _topk_text(texts: list[str], attrs: dict) -> str:
    shown = [str(attrs.get("k")), *_shown(attrs, {"dim": -1, "largest": True, "sorted": True})]
    return f"{texts[0]}.topk({', '.join(shown)})"

OPS: tuple[Op, ...] = (
    Op(
        "sort",
        "x.sort(dim=-1, descending=False).values, torch.sort(x)[0] or v, i = x.sort()",
        forward=_sort,
        vjp=(_scattered_back("argsort"),),
        sympy=lambda sp, a, shapes=((),), **attrs: _fn(sp, "sort")(a, attrs.get("dim", -1)),
        grad_fn="SortBackward0",
        pick_grad_fn=lambda kinds, shapes, attrs: "SortBackward0" if attrs.get("stable") is None else "SortBackward1",
        torch="torch.sort",
        elementwise=False,
        params=(_DIM, _DESCENDING, _STABLE),
        infer_shape=_sort_shape,
        written=lambda texts, attrs: _sort_text("sort", texts, attrs) + ".values",
        pair=("sort", "argsort"),
        always_paired=True,
        batching=Batching("along", dims=(("dim", -1),)),
    ),
    Op(
        "argsort",
        "torch.argsort(x, dim=-1, descending=False) or x.sort().indices (int64, no gradient)",
        forward=_argsort,
        vjp=(_no_grad,),
        sympy=lambda sp, a, shapes=((),), **attrs: _fn(sp, "argsort")(a),
        grad_fn="None",
        torch="torch.argsort",
        saves_tensors=False,
        elementwise=False,
        differentiable=False,
        params=(_DIM, _DESCENDING, _STABLE),
        infer_shape=_sort_shape,
        written=lambda texts, attrs: _sort_text("argsort", texts, attrs),
        batching=Batching("along", dims=(("dim", -1),)),
    ),
    Op(
        "topk",
        "x.topk(k, dim=-1, largest=True, sorted=True).values, torch.topk(x, k)[0] or v, i = x.topk(k)",
        forward=_topk,
        vjp=(_scattered_back("topk_indices"),),
        sympy=lambda sp, a, shapes=((),), **attrs: _fn(sp, "topk")(a, attrs.get("k"), attrs.get("dim", -1)),
        grad_fn="TopkBackward0",
        torch="torch.topk",
        elementwise=False,
        params=(_K, _DIM, _LARGEST, _SORTED),
        infer_shape=_topk_shape,
        written=lambda texts, attrs: _topk_text(texts, attrs) + ".values",
        pair=("topk", "topk_indices"),
        always_paired=True,
        batching=Batching("along", dims=(("dim", -1),)),
    ),
)

INTERNAL: tuple[Op, ...] = (
    Op(
        "topk_indices",
        "(internal) x.topk(k).indices (int64, no gradient)",
        forward=_topk_indices,
        vjp=(_no_grad,),
        sympy=lambda sp, a, shapes=((),), **attrs: _fn(sp, "topk_indices")(a, attrs.get("k")),
        grad_fn="None",
        torch="torch.topk",
        saves_tensors=False,
        elementwise=False,
        function=False,
        method=False,
        differentiable=False,
        params=(_K, _DIM, _LARGEST, _SORTED),
        infer_shape=_topk_shape,
        written=lambda texts, attrs: _topk_text(texts, attrs) + ".indices",
        batching=Batching("along", dims=(("dim", -1),)),
    ),
)
