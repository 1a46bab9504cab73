"""`F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)` as torch
records it: one NativeBatchNormBackward0 node over input, weight and bias, in training and in eval mode.

The forward follows ATen's CPU kernels (batch_norm_kernel.cpp). Training: per channel (dim 1), the sum
and then the sum of squared deviations, each accumulated one element after another in acc_type (double
for float32 too), mean = sum / n rounded to the input's dtype, var = var_sum / n (biased), invstd =
1 / sqrt(var + eps). Eval: the running stats, invstd = 1 / sqrt(running_var + eps). Then
batch_norm_cpu_collect_linear_and_constant_terms: alpha = invstd * weight, beta = bias - mean * alpha,
and y = x * alpha + beta. The backward is batch_norm_backward's: in training dx = (dy - sum(dy) / n -
(x - mean) * k) * invstd * w with k = dotp * invstd^2 / n, dotp = sum((x - mean) * dy); in eval
dx = dy * invstd * w (the running stats are constants); dweight = dotp * invstd, dbias = sum(dy).

Exactness (tests/test_nn.py compares with torch 2.13): float64 values and gradients agree with torch to
the last bit or within a few ulps (torch's sums may be vectorised where these are sequential); float32
likewise within a few ulps, not bit for bit. The running-stat update is no part of this op: a
`gradcli grad` program has no buffers, so the running stats are constants there; `gradcli run` writes
them in place after the call (script/torch_api.py, `update_running_stats` below). A weight or bias
left out is a number operand (1.0, 0.0), so it is shown as torch's None and gets no gradient; a
running stat left out (training with None) is a number too. No `--order 2` (create_graph) yet.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import ArgumentValueError, GradcliError, ShapeError
from .core import Composite, Op, Param, Shape, _fn

_TRAINING = Param("training", False, "bool")
_MOMENTUM = Param("momentum", 0.1, "number")
_EPS = Param("eps", 1e-5, "number")


def _torch_size(shape: Shape) -> str:
    return f"torch.Size([{', '.join(map(str, shape))}])"


def _tensor(v: Any) -> bool:
    return np.ndim(v) > 0


def _shape(x: Shape, w: Shape, b: Shape, rm: Shape, rv: Shape, training=False, momentum=0.1, eps=1e-5) -> Shape:
    channels = x[1] if len(x) > 1 else 0
    if training and x and x[0] * math.prod(x[2:]) == 1:  # F.batch_norm's own check, in Python
        raise ArgumentValueError(f"Expected more than 1 value per channel when training, got input size {_torch_size(x)}")
    if not training and not rm:
        raise ShapeError("running_mean must be defined in evaluation mode")
    for name, given in (("running_mean", rm), ("running_var", rv), ("weight", w), ("bias", b)):
        if given and math.prod(given) != channels:
            raise ShapeError(f"{name} should contain {channels} elements not {math.prod(given)}")
    return tuple(x)


def _channels(x: np.ndarray) -> np.ndarray:
    """(C, elements per channel) in the kernel's order: batch then the spatial dims."""
    return np.moveaxis(x.reshape(x.shape[0], x.shape[1], -1), 1, 0).reshape(x.shape[1], -1)


def _sequential(rows: np.ndarray) -> np.ndarray:
    """Each row summed one element after another in double (ATen's accscalar_t loop)."""
    if rows.shape[1] == 0:
        return np.zeros(rows.shape[0])
    return np.cumsum(rows.astype(np.float64), axis=1)[:, -1]


def batch_stats(x: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """batch_norm_cpu_collect_stats: per channel the mean (in x's dtype), the sum of squared
    deviations (in x's dtype) and the element count."""
    x = np.asarray(x)
    rows = _channels(x)
    n = rows.shape[1]
    mean = (_sequential(rows) / n).astype(x.dtype)
    centred = rows - mean[:, None]
    var_sum = _sequential(centred * centred).astype(x.dtype)
    return mean, var_sum, n


def _stats(x, rm, rv, training, eps):
    """(mean, invstd) per channel, in x's dtype."""
    x = np.asarray(x)
    if training:
        mean, var_sum, n = batch_stats(x)
        var = (var_sum / x.dtype.type(n)).astype(np.float64)
        invstd = (1.0 / np.sqrt(var + eps)).astype(x.dtype)
        return mean, invstd
    mean = np.asarray(rm, dtype=x.dtype).reshape(-1)
    var = np.asarray(rv, dtype=x.dtype).reshape(-1)
    invstd = x.dtype.type(1) / np.sqrt(var + x.dtype.type(eps))
    return mean, invstd


def _per_channel(v: np.ndarray, ndim: int) -> np.ndarray:
    return np.asarray(v).reshape((1, -1) + (1,) * (ndim - 2))


def _forward(x, w, b, rm, rv, training=False, momentum=0.1, eps=1e-5):
    x = np.asarray(x)
    mean, invstd = _stats(x, rm, rv, training, eps)
    alpha = invstd * np.asarray(w, dtype=x.dtype).reshape(-1) if _tensor(w) else invstd
    bias = np.asarray(b, dtype=x.dtype).reshape(-1) if _tensor(b) else x.dtype.type(0)
    beta = bias - mean * alpha
    return x * _per_channel(alpha, x.ndim) + _per_channel(beta, x.ndim)


def _sums(g, x, rm, rv, training, eps):
    """The backward's per-channel sum(dy), dot((x - mean), dy), mean and invstd."""
    x, g = np.asarray(x), np.asarray(g)
    mean, invstd = _stats(x, rm, rv, training, eps)
    rows, dy = _channels(x), _channels(np.broadcast_to(g, x.shape))
    total = _sequential(dy).astype(x.dtype)
    dotp = _sequential((rows - mean[:, None]) * dy).astype(x.dtype)
    return total, dotp, mean, invstd


def _grad_input(g, out, x, w, b, rm, rv, training=False, momentum=0.1, eps=1e-5):
    x = np.asarray(x)
    total, dotp, mean, invstd = _sums(g, x, rm, rv, training, eps)
    w_invstd = invstd * np.asarray(w, dtype=x.dtype).reshape(-1) if _tensor(w) else invstd
    dy = np.broadcast_to(np.asarray(g), x.shape)
    if not training:
        return dy * _per_channel(w_invstd, x.ndim)
    n = x.dtype.type(x.size // x.shape[1])
    k = dotp * invstd * invstd / n
    grad_mean = total / n
    dx = (x - _per_channel(mean, x.ndim)) * _per_channel(k, x.ndim)
    return (dy - _per_channel(grad_mean, x.ndim) - dx) * _per_channel(w_invstd, x.ndim)


def _grad_weight(g, out, x, w, b, rm, rv, training=False, momentum=0.1, eps=1e-5):
    total, dotp, mean, invstd = _sums(g, x, rm, rv, training, eps)
    return dotp * invstd


def _grad_bias(g, out, x, w, b, rm, rv, training=False, momentum=0.1, eps=1e-5):
    total, dotp, mean, invstd = _sums(g, x, rm, rv, training, eps)
    return total


def _no_grad_for_running_stat(g, out, *operands, **attrs):
    raise GradcliError("batch_norm's running_mean and running_var get no gradient (pass them with --const)")


def update_running_stats(x: np.ndarray, rm: np.ndarray | None, rv: np.ndarray | None, momentum: float):
    """The new running_mean and running_var after a training call, as batch_norm_cpu_update_stats_template
    writes them: momentum * batch stat + (1 - momentum) * running stat in double, the variance unbiased
    (var_sum / (n - 1)), rounded once to the buffers' dtype. None for a buffer not given."""
    x = np.asarray(x)
    mean, var_sum, n = batch_stats(x)
    new_mean = new_var = None
    if rm is not None:
        new_mean = momentum * mean.astype(np.float64) + (1 - momentum) * np.asarray(rm, np.float64).reshape(-1)
        new_mean = new_mean.astype(np.asarray(rm).dtype).reshape(np.shape(rm))
    if rv is not None:
        unbiased = var_sum.astype(np.float64) / (n - 1) if n > 1 else np.full(var_sum.shape, np.inf)
        new_var = momentum * unbiased + (1 - momentum) * np.asarray(rv, np.float64).reshape(-1)
        new_var = new_var.astype(np.asarray(rv).dtype).reshape(np.shape(rv))
    return new_mean, new_var


OPS: tuple[Op, ...] = ()  # batch_norm is reached through its composite, F.batch_norm
INTERNAL: tuple[Op, ...] = (
    Op(
        "native_batch_norm",
        "(internal) F.batch_norm(x, running_mean, running_var, weight, bias, training, momentum, eps)",
        forward=_forward,
        vjp=(_grad_input, _grad_weight, _grad_bias, _no_grad_for_running_stat, _no_grad_for_running_stat),
        sympy=lambda sp, x, w, b, rm, rv, shapes=(), **attrs: _fn(sp, "batch_norm")(x, w, b),
        grad_fn="NativeBatchNormBackward0",
        torch="torch.nn.functional.batch_norm",
        elementwise=False,
        function=False,
        method=False,
        params=(_TRAINING, _MOMENTUM, _EPS),
        infer_shape=_shape,
        written=lambda texts, attrs: f"F.batch_norm({texts[0]}, {texts[3]}, {texts[4]}, {texts[1]}, {texts[2]}, "
        f"training={attrs.get('training', False)}, eps={attrs.get('eps', 1e-5)!r})",
    ),
)


def _batch_norm(apply, x, rm=None, rv=None, w=None, b=None, training=False, momentum=0.1, eps=1e-5, shapes=(), **_):
    if training:  # the batch's stats: the running ones are no operand (torch updates them before saving)
        given = [() if s is None else tuple(s) for s in (*shapes, None, None, None, None, None)[:5]]
        _shape(given[0], given[3], given[4], given[1], given[2], training=True)
        rm = rv = None
    if momentum is None:
        raise ShapeError("batch_norm(): argument 'momentum' (position 7) must be float, not NoneType")
    return apply(
        "native_batch_norm",
        x,
        1.0 if w is None else w,
        0.0 if b is None else b,
        0.0 if rm is None else rm,
        1.0 if rv is None else rv,
        training=training,
        momentum=momentum,
        eps=eps,
    )


COMPOSITES: tuple[Composite, ...] = (
    Composite(
        "batch_norm",
        arity=5,
        params=(_TRAINING, _MOMENTUM, _EPS),
        build=_batch_norm,
        torch="torch.nn.functional.batch_norm",
        derivative=(
            "one NativeBatchNormBackward0 node over x, weight and bias (those given), in training "
            "(batch stats) and eval (running stats, constants) mode"
        ),
        shaped=True,
        optional=4,
    ),
)

# torch's argument order: F.batch_norm(input, running_mean, running_var, weight=None, bias=None,
# training=False, momentum=0.1, eps=1e-05)
SIGNATURES: dict[str, tuple[str, ...]] = {
    "batch_norm": ("input", "running_mean", "running_var", "weight", "bias", "training", "momentum", "eps")
}
