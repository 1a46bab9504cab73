"""`F.layer_norm(x, normalized_shape, weight, bias, eps)` as torch records it: one
NativeLayerNormBackward0 node over x, weight and bias.

The forward and backward follow ATen's CPU kernel (layer_norm_kernel.cpp): per row of the
normalized dims, mean and biased variance, rstd = 1 / sqrt(var + eps), then
`(x * rstd + (-mean * rstd)) * weight + bias`. The backward is native_layer_norm_backward's:
dx = rstd * dy*w + b * x + c with b = (sum(dy*w) * mean - sum(dy*w*x)) * rstd^3 / N and
c = -b * mean - sum(dy*w) * rstd / N; dweight = sum over rows of dy * (x - mean) * rstd,
dbias = sum over rows of dy. A weight or bias left out is a number operand (1.0, 0.0), so
it is neither shown as a tensor nor given a gradient, as torch's None.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import ShapeError
from .core import Composite, Op, Param, Shape, _fn
from .shape import _listed

_SHAPE = Param("normalized_shape", None, "ints")
_EPS = Param("eps", 1e-5, "number")


def _check(x: Shape, normalized_shape) -> tuple[int, ...]:
    if normalized_shape is None:
        raise ShapeError("layer_norm() missing 1 required argument: 'normalized_shape'")
    ns = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if not ns:
        raise ShapeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got normalized_shape = []")
    if len(x) < len(ns) or tuple(x[len(x) - len(ns) :]) != ns:
        raise ShapeError(
            f"Given normalized_shape={_listed(ns)}, expected input with shape [*, {', '.join(map(str, ns))}], "
            f"but got input of size{_listed(x)}"
        )
    return ns


def _shape(x: Shape, w: Shape, b: Shape, normalized_shape=None, eps: float = 1e-5) -> Shape:
    ns = _check(x, normalized_shape)
    for name, given in (("weight", w), ("bias", b)):
        if given and tuple(given) != ns:
            raise ShapeError(
                f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                f"{_listed(given)} and normalized_shape = {_listed(ns)}"
            )
    return tuple(x)


def _rows(x: np.ndarray, ns: tuple[int, ...]) -> np.ndarray:
    return x.reshape(-1, math.prod(ns))


def _moments(rows: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray]:
    mean = rows.mean(axis=1, keepdims=True)
    var = np.square(rows - mean).mean(axis=1, keepdims=True)
    rstd = rows.dtype.type(1) / np.sqrt(np.maximum(var, 0) + rows.dtype.type(eps))
    return mean, rstd


def _tensor(v: Any) -> bool:
    return np.ndim(v) > 0


def _forward(x, w, b, normalized_shape=None, eps: float = 1e-5):
    x = np.asarray(x)
    ns = _check(x.shape, normalized_shape)
    rows = _rows(x, ns)
    mean, rstd = _moments(rows, eps)
    y = rows * rstd + (-mean * rstd)
    if _tensor(w):
        y = y * np.asarray(w).reshape(1, -1)
    if _tensor(b):
        y = y + np.asarray(b).reshape(1, -1)
    return y.reshape(x.shape)


def _grad_input(g, out, x, w, b, normalized_shape=None, eps: float = 1e-5):
    x = np.asarray(x)
    ns = _check(x.shape, normalized_shape)
    rows, dy = _rows(x, ns), _rows(np.asarray(g), ns)
    n = rows.shape[1]
    mean, rstd = _moments(rows, eps)
    dyw = dy * np.asarray(w).reshape(1, -1) if _tensor(w) else dy
    ds = (dyw * rows).sum(axis=1, keepdims=True)
    db = dyw.sum(axis=1, keepdims=True)
    scale_b = (db * mean - ds) * rstd * rstd * rstd / n
    scale_c = -scale_b * mean - db * rstd / n
    return (rstd * dyw + scale_b * rows + scale_c).reshape(x.shape)


def _grad_weight(g, out, x, w, b, normalized_shape=None, eps: float = 1e-5):
    x = np.asarray(x)
    ns = _check(x.shape, normalized_shape)
    rows, dy = _rows(x, ns), _rows(np.asarray(g), ns)
    mean, rstd = _moments(rows, eps)
    return (dy * (rows - mean) * rstd).sum(axis=0).reshape(ns)


def _grad_bias(g, out, x, w, b, normalized_shape=None, eps: float = 1e-5):
    x = np.asarray(x)
    ns = _check(x.shape, normalized_shape)
    return _rows(np.asarray(g), ns).sum(axis=0).reshape(ns)


OPS: tuple[Op, ...] = ()  # layer_norm is reached through its composite, F.layer_norm
INTERNAL: tuple[Op, ...] = (
    Op(
        "native_layer_norm",
        "(internal) F.layer_norm(x, normalized_shape, weight, bias, eps)",
        forward=_forward,
        vjp=(_grad_input, _grad_weight, _grad_bias),
        sympy=lambda sp, x, w, b, shapes=(), **attrs: _fn(sp, "layer_norm")(x, w, b),
        grad_fn="NativeLayerNormBackward0",
        torch="torch.nn.functional.layer_norm",
        elementwise=False,
        function=False,
        method=False,
        params=(_SHAPE, _EPS),
        infer_shape=_shape,
        written=lambda texts, attrs: f"F.layer_norm({texts[0]}, {tuple(attrs.get('normalized_shape') or ())}, "
        f"{texts[1]}, {texts[2]}, eps={attrs.get('eps', 1e-5)!r})",
    ),
)


def _layer_norm(apply, x, w=None, b=None, normalized_shape=None, eps=1e-5, shapes=(), **_):
    return apply(
        "native_layer_norm",
        x,
        1.0 if w is None else w,
        0.0 if b is None else b,
        normalized_shape=normalized_shape,
        eps=eps,
    )


COMPOSITES: tuple[Composite, ...] = (
    Composite(
        "layer_norm",
        arity=3,
        params=(_SHAPE, _EPS),
        build=_layer_norm,
        torch="torch.nn.functional.layer_norm",
        derivative="one NativeLayerNormBackward0 node over x, weight and bias (those given)",
        shaped=True,
        optional=2,
    ),
)

# torch's argument order: F.layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05)
SIGNATURES: dict[str, tuple[str, ...]] = {"layer_norm": ("input", "normalized_shape", "weight", "bias", "eps")}
