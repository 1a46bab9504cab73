"""torch.nn.functional: softmax, log_softmax, the losses, and linear.

Each primitive records the one node PyTorch records (MseLossBackward0, NllLossBackward0,
...); calls PyTorch records as several nodes (l1_loss, cross_entropy, linear) are
Composites of registry ops. VJPs follow derivatives.yaml and the CPU kernels it names
(mse_loss_backward, smooth_l1_loss_backward, nll_loss_backward, ...), including which
branch wins at a kink. VJPs call registry ops and fused kernels (core.call), so they
trace under create_graph and batch over rows and points.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from ..errors import GradcliError, IndexOutOfRange, ShapeError
from . import softmax_order
from .core import (
    Batching,
    Composite,
    Op,
    Param,
    Shape,
    _fn,
    _normalise_dim,
    _sgn,
    broadcast_shapes,
    call,
)
from .kernels import kernel
from .summation import nll_total, torch_mean, torch_sum

REDUCTION = Param(
    "reduction", "mean", "choice", ("mean", "sum", "none"), keyword_only=True,
    refusal="{value} is not a valid value for reduction",
)  # fmt: skip
IGNORE_INDEX = Param("ignore_index", -100, "int", keyword_only=True)
SOFTMAX_DIM = Param("dim", None, "dim")
_SUM = "sum_over"  # symbolic.SUM: the opaque tensor sum


def _torch_size(shape: Shape) -> str:
    return f"torch.Size([{', '.join(map(str, shape))}])"


def _plain(a: Any) -> np.ndarray:
    """Float values of an operand, for the value checks torch makes (targets, probabilities):
    a traced or batched operand is checked on its numbers (every point of a batch at once)."""
    return np.asarray(getattr(a, "value", a)).astype(np.float64)


# ---------------------------------------------------------------- softmax, log_softmax


def _softmax_shape(name: str) -> Callable[..., Shape]:
    def infer(a: Shape, dim: int | None = None) -> Shape:
        if dim is None:
            raise ShapeError(
                f"{name}() needs dim: PyTorch's implicit choice of dimension is deprecated "
                f"and gradcli does not guess it; write {name}(x, dim=1) (or dim=-1 for the last one)"
            )
        _normalise_dim(dim, len(a))
        return tuple(a)

    return infer


def _axis(a: Any, dim: int | None) -> int | None:
    ndim = np.ndim(a)
    return _normalise_dim(dim, ndim) if ndim else None


# Softmax kernels on big arrays run on row blocks in threads: NumPy's float64 exp is not
# vectorised on every CPU and releases the GIL, and each row's result depends only on that
# row, so the blocks give the very bits one call would.
_PARALLEL_ELEMENTS = 1 << 16
_ROW_THREADS = 4  # at most this many blocks, on the process's one pool (gradcli/pool.py)


def _by_row_blocks(kernel: Callable[..., np.ndarray], arrays: tuple[Any, ...], axis: int | None) -> np.ndarray:
    """kernel(*arrays, into) on blocks of the arrays along a dim other than `axis` (the
    softmax dim), in threads, when the arrays are big plain ones of one shape; else one call."""
    first = arrays[0]
    plain = all(type(a) is np.ndarray and a.shape == first.shape for a in arrays)
    if not plain or axis is None or first.size < _PARALLEL_ELEMENTS or first.ndim < 2:
        return kernel(*arrays)
    from .. import pool  # only a big softmax needs threads

    split = 0 if axis != 0 else 1
    workers = min(pool.threads(_ROW_THREADS), first.shape[split])
    if workers < 2:
        return kernel(*arrays)
    bounds = np.linspace(0, first.shape[split], workers + 1).astype(int)
    result = np.empty(first.shape, dtype=np.result_type(*arrays))

    def block(k: int) -> None:
        part = tuple(slice(bounds[k], bounds[k + 1]) if d == split else slice(None) for d in range(first.ndim))
        target = result[part]
        if target.flags.c_contiguous:  # split along dim 0: the kernel writes in place
            kernel(*(a[part] for a in arrays), target)
        else:
            target[...] = kernel(*(a[part] for a in arrays))

    pool.map_in_order(block, range(workers))
    return result


def _shifted(a: Any, dim: int | None) -> tuple[np.ndarray, int | None]:
    a = np.asarray(a)
    axis = _axis(a, dim)
    return a - np.max(a, axis=axis, keepdims=True), axis


def _torch_order(*arrays: Any) -> bool:
    """Whether softmax_order's kernels take these: plain, non-empty float arrays of a dim or more."""
    return all(type(a) is np.ndarray and a.dtype in (np.float32, np.float64) and a.size and a.ndim for a in arrays)


def _normalised(a: Any, dim: int | None, log: bool) -> np.ndarray:
    """softmax (log_softmax) forward: torch's kernel order on plain float arrays (in row
    blocks), the plain formula on anything else (a 0-d tensor, integers made float)."""
    kernel = softmax_order.log_softmax if log else softmax_order.softmax
    a = np.asarray(a)
    axis = _axis(a, dim)
    if not a.size:  # an empty dim: nothing to normalise, as torch returns
        return np.empty_like(a, dtype=np.result_type(a, np.float32))
    if _torch_order(a):
        return _by_row_blocks(lambda block, into=None: kernel(block, axis, into), (a,), axis)
    shifted, _ = _shifted(a, dim)
    e = np.exp(shifted)
    total = np.sum(e, axis=axis, keepdims=True)
    return shifted - np.log(total) if log else e / total


def _softmax(a: Any, dim: int | None = None) -> np.ndarray:
    return _normalised(a, dim, log=False)


def _log_softmax(a: Any, dim: int | None = None) -> np.ndarray:
    return _normalised(a, dim, log=True)


def _softmax_backward_data(g, out, dim=None):
    """The fused kernel softmax's VJP calls: out * (g - sum(g * out, dim))."""
    axis = _axis(out, dim)
    if not np.size(out):
        return np.zeros(np.shape(out), dtype=np.result_type(g, out))
    if _torch_order(g, out) and np.shape(g) == np.shape(out) and g.dtype == out.dtype:
        rows = g.size // g.shape[-1] if g.size else 0
        return _by_row_blocks(
            lambda gb, ob, into=None: softmax_order.softmax_backward(gb, ob, axis, rows, into), (g, out), axis
        )
    return out * (g - np.sum(g * out, axis=axis, keepdims=True))


def _softmax_double_backward(gg, g, out, dim=None):
    """derivatives.yaml's softmax_double_backward: the kernel's VJP for its saved output."""
    axis = _axis(out, dim)
    return g * gg - np.sum(out * g, axis=axis, keepdims=True) * gg - g * np.sum(out * gg, axis=axis, keepdims=True)


def _log_softmax_backward_data(g, out, dim=None):
    """The fused kernel log_softmax's VJP calls: g - exp(out) * sum(g, dim)."""
    axis = _axis(out, dim)
    if not np.size(out):
        return np.zeros(np.shape(out), dtype=np.result_type(g, out))
    if _torch_order(g, out) and np.shape(g) == np.shape(out) and g.dtype == out.dtype:
        return _by_row_blocks(
            lambda gb, ob, into=None: softmax_order.log_softmax_backward(gb, ob, axis, into), (g, out), axis
        )
    return g - np.exp(out) * np.sum(g, axis=axis, keepdims=True)


# ---------------------------------------------------------------- pointwise losses


def _numel(a: Any, b: Any) -> int:
    return math.prod(broadcast_shapes(np.shape(a), np.shape(b)))


def _norm(a: Any, b: Any, reduction: str) -> float:
    """The reduction's factor in the *_backward kernels: 1/numel for 'mean', else 1."""
    if reduction != "mean":
        return 1.0
    count = _numel(a, b)
    return 1.0 / count if count else math.nan


def _reduce(loss: Any, reduction: str) -> Any:
    if reduction == "none":
        return loss
    if np.size(loss) == 0:
        return np.float64(math.nan if reduction == "mean" else 0.0)
    return torch_sum(loss) if reduction == "sum" else torch_mean(loss)


def _loss_shape(a: Shape, b: Shape, reduction: str = "mean", **_: Any) -> Shape:
    shape = broadcast_shapes(a, b)
    return shape if reduction == "none" else ()


def _mse(a, b, reduction="mean"):
    d = np.subtract(a, b)
    return _reduce(d * d, reduction)


def _mse_backward(g, a, b, reduction="mean"):
    """The kernel mse_loss_backward(grad, self, target): norm * (self - target) * grad, norm = 2 (/numel)."""
    norm = 2.0 * _norm(a, b, reduction)
    return norm * np.subtract(a, b) * g


def _mean_of(grad: Any, a: Any, b: Any, reduction: str) -> Any:
    """`grad /= input.sym_numel()` for 'mean', as the *_double_backward helpers end."""
    return grad / _numel(a, b) if reduction == "mean" else grad


def _one_minus(a: Any) -> Any:
    """C++'s `1 - t`: a sub from a filled tensor (SubBackward0), not Python's rsub."""
    return np.ones_like(a) - a


def _smooth_l1(a, b, reduction="mean", beta=1.0):
    z = np.abs(np.subtract(a, b))
    if beta == 0:  # F.smooth_l1_loss calls l1_loss for beta=0
        return _reduce(z, reduction)
    return _reduce(np.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta), reduction)


def _smooth_l1_backward(g, a, b, reduction="mean", beta=1.0):
    """smooth_l1_loss_backward(grad, self, target): x <= -beta, x >= beta, else x/beta."""
    norm = _norm(a, b, reduction)
    x = np.subtract(a, b)
    if beta == 0:  # l1_loss: abs'(0) = 0
        return norm * _sgn(x) * g
    return np.where(x <= -beta, -norm * g, np.where(x >= beta, norm * g, norm * x * g / beta))


def _smooth_l1_shape(a: Shape, b: Shape, reduction: str = "mean", beta: float = 1.0) -> Shape:
    if beta < 0:
        raise ShapeError("smooth_l1_loss does not support negative values for beta.")
    return _loss_shape(a, b, reduction)


def _huber(a, b, reduction="mean", delta=1.0):
    z = np.abs(np.subtract(a, b))
    return _reduce(np.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta)), reduction)


def _huber_backward(g, a, b, reduction="mean", delta=1.0):  # the kernel huber_loss_backward
    """huber_loss_backward(grad, self, target): +-delta outside [-delta, delta], x inside."""
    norm = _norm(a, b, reduction)
    x = np.subtract(a, b)
    return np.where(x <= -delta, -norm * g * delta, np.where(x >= delta, norm * g * delta, norm * x * g))


def _huber_shape(a: Shape, b: Shape, reduction: str = "mean", delta: float = 1.0) -> Shape:
    if delta <= 0:
        raise ShapeError("huber_loss does not support non-positive values for delta.")
    return _loss_shape(a, b, reduction)


def _l1_names(kinds, shapes, attrs) -> str:
    """smooth_l1_loss with beta=0 is l1_loss, whose last node is its reduction (or abs)."""
    return {"mean": "MeanBackward0", "sum": "SumBackward0", "none": "AbsBackward0"}[
        attrs.get("reduction", "mean")
    ]


# ---------------------------------------------------------------- binary cross-entropy


def _same_size(message: Callable[[Shape, Shape], str]) -> Callable[..., Shape]:
    def infer(a: Shape, b: Shape, reduction: str = "mean") -> Shape:
        if tuple(a) != tuple(b):
            raise ShapeError(message(a, b))
        return tuple(a) if reduction == "none" else ()

    return infer


def _check_unit_interval(values: Any, what: str) -> None:
    v = _plain(values)
    if np.any((v < 0) | (v > 1)):  # nan passes, as in torch's check
        raise ShapeError(
            f"all elements of {what} should be between 0 and 1",
            hint="binary_cross_entropy takes probabilities; for logits use binary_cross_entropy_with_logits",
        )


def _bce(a, b, reduction="mean"):
    _check_unit_interval(a, "input")
    _check_unit_interval(b, "target")
    # The CPU kernel clamps both logs at -100, so log(0) gives a finite loss.
    loss = (b - 1) * np.maximum(np.log1p(-a), -100.0) - b * np.maximum(np.log(a), -100.0)
    return _reduce(loss, reduction)


_BCE_EPSILON = 1e-12


def _bce_backward(g, a, b, reduction="mean"):
    """The kernel binary_cross_entropy_backward: grad * (input - target) / max((1 - input) * input, 1e-12)."""
    grad = g * (a - b) / np.maximum((1 - a) * a, _BCE_EPSILON)
    return grad / np.size(a) if reduction == "mean" else grad


def _bce_grad_target(g, out, a, b, reduction="mean"):
    # binary_cross_entropy_target_backward: logit(input).neg_() * grad (/ numel)
    grad = -call("logit", a) * g
    return grad / np.size(a) if reduction == "mean" else grad


def _logit(a):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(a / (1 - a))


def _logit_backward(g, out, a):
    # infinitely_differentiable_logit_backward without eps: nan outside [0, 1]
    inside = np.logical_and(np.greater_equal(a, 0.0), np.less_equal(a, 1.0))
    return np.where(inside, g / (a * (1.0 - a)), np.nan)


def _bce_logits(a, b, reduction="mean"):
    # (1 - target) * input - log_sigmoid(input); log_sigmoid(x) = min(x, 0) - log1p(exp(-|x|))
    log_sigmoid = np.minimum(a, 0.0) - np.log1p(np.exp(-np.abs(a)))
    return _reduce((1 - b) * a - log_sigmoid, reduction)


def _bce_logits_grad_input(g, out, a, b, reduction="mean"):
    # binary_cross_entropy_with_logits_backward: input.sigmoid().sub(target).mul(grad) (/ numel)
    grad = (call("sigmoid", a) - b) * g
    return grad / np.size(a) if reduction == "mean" else grad


def _bce_logits_grad_target(g, out, a, b, reduction="mean"):
    # binary_cross_entropy_with_logits_target_backward: -self * grad_output (/ numel)
    grad = -a * g
    return grad / np.size(a) if reduction == "mean" else grad


# ---------------------------------------------------------------- nll_loss


def _nll_shape(x: Shape, t: Shape, ignore_index: int = -100, reduction: str = "mean") -> Shape:
    if len(x) < 1:
        raise ShapeError(f"Expected 1 or more dimensions (got {len(x)})")
    if len(x) != 1 and x[0] != (t[0] if t else 0):
        raise ShapeError(
            f"Expected input batch_size ({x[0]}) to match target batch_size ({t[0] if t else 0})."
        )
    if len(x) > 2:
        raise ShapeError(
            f"gradcli's nll_loss takes 1-D (C) or 2-D (N, C) input, not {len(x)}-D",
            hint="reshape the input to (N, C) and the target to (N,)",
        )
    if len(t) > 1:
        # graph.py keeps only a ShapeError's message, so the explanation goes there.
        raise ShapeError("0D or 1D target tensor expected, multi-target not supported")
    if len(x) == 1 and len(t) == 1 and t[0] != 1:
        raise ShapeError(f"For 1D input, 1D target must have size 1, but got target size: {t[0]}")
    return (x[0],) if reduction == "none" and len(x) == 2 else ()


def _class_indices(t: Any, classes: int, ignore_index: int) -> np.ndarray:
    """The target as integers, refused as torch refuses a float target or a bad class."""
    values = _plain(t).reshape(-1)
    if values.dtype.kind in "iu":  # already class indices (a --const of whole numbers)
        return _in_bounds(values.astype(np.int64, copy=False), classes, ignore_index)
    if not np.all(np.isfinite(values) & (values == np.round(values))):
        bad = values[~(np.isfinite(values) & (values == np.round(values)))][0]
        raise ShapeError(
            "expected target dtype to be Long or Byte, but got Float",
            hint=f"the target holds class indices: give whole numbers such as --const y=[2,0,1] (not {bad:g})",
        )
    return _in_bounds(values.astype(np.int64), classes, ignore_index)


def _in_bounds(indices: np.ndarray, classes: int, ignore_index: int) -> np.ndarray:
    """torch's check of each counted class: one pass over the targets when they all fit."""
    if indices.size and indices.min() >= 0 and indices.max() < classes:
        return indices
    outside = (indices != ignore_index) & ((indices < 0) | (indices >= classes))
    if np.any(outside):
        raise IndexOutOfRange(f"Target {indices[outside][0]} is out of bounds.")
    return indices


def _nll_rows(x: Any, t: Any, ignore_index: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Input as (N, C), the class of each row (0 where ignored) and which rows count."""
    x = np.asarray(x)
    rows = x.reshape(1, -1) if x.ndim == 1 else x
    indices = _class_indices(t, rows.shape[1], ignore_index)
    keep = indices != ignore_index
    return rows, indices if keep.all() else np.where(keep, indices, 0), keep


def _nll(x, t, ignore_index=-100, reduction="mean"):
    rows, classes, keep = _nll_rows(x, t, ignore_index)
    picked = rows[np.arange(rows.shape[0]), classes]
    losses = np.where(keep, -picked, 0.0)
    if reduction == "none":
        return losses if np.ndim(x) == 2 else losses.reshape(())
    total = nll_total(picked, keep)
    if reduction == "sum":
        return total
    with np.errstate(invalid="ignore"):  # every row ignored: 0/0 = nan, as in torch
        return total / total.dtype.type(np.count_nonzero(keep))


def _nll_backward(g, x, t, ignore_index=-100, reduction="mean"):
    """The kernel nll_loss_backward: -grad at each counted row's class (/ total_weight for 'mean')."""
    rows, classes, keep = _nll_rows(x, t, ignore_index)
    g = np.asarray(g)
    if reduction == "none":
        scale = -np.reshape(g, -1)
    elif reduction == "sum":
        scale = np.broadcast_to(-g, keep.shape)
    else:
        count = np.count_nonzero(keep)
        scale = np.broadcast_to(-g / np.float64(count) if count else 0.0 * g, keep.shape)
    # torch fills zeros and writes -grad at each counted row's class: +0.0 elsewhere
    grad = np.zeros(rows.shape, dtype=np.result_type(g, rows))
    counted = np.flatnonzero(keep)
    flat = grad.reshape(-1)  # one flat scatter: row * C + class
    flat[counted * rows.shape[1] + classes[counted]] = scale[counted]
    return grad.reshape(np.shape(x))


def _no_grad_for_class_indices(g, out, x, t, **attrs):
    raise GradcliError(
        "Only Tensors of floating point and complex dtype can require gradients",
        hint="the target of nll_loss holds class indices (torch.long): pass it with --const, not --at",
    )


# ---------------------------------------------------------------- weights
# F.nll_loss / cross_entropy's weight= (one per class), F.binary_cross_entropy's weight= and
# F.binary_cross_entropy_with_logits's weight= and pos_weight=: records of their own, reached
# through binding.py's weighted overload when the call gives them (the unweighted records are
# left as they are). The weights are operands that never get a gradient (dtypes.NOT_DIFFERENTIABLE
# refuses one that requires grad, as torch does at the call).


def _nll_weighted_shape(
    x: Shape, t: Shape, w: Shape, ignore_index: int = -100, reduction: str = "mean"
) -> Shape:
    shape = _nll_shape(x, t, ignore_index, reduction)
    classes = x[-1]
    if len(w) != 1 or w[0] != classes:
        raise ShapeError(
            f"weight tensor should be defined either for all {classes} classes or no classes but got "
            f"weight tensor of shape: [{', '.join(map(str, w))}]"
        )
    return shape


def _nll_weights(x: Any, t: Any, w: Any, ignore_index: int):
    rows, classes, keep = _nll_rows(x, t, ignore_index)
    weights = np.asarray(w).reshape(-1)[classes].astype(rows.dtype, copy=False)
    return rows, classes, keep, weights


def _nll_weighted(x, t, w, ignore_index=-100, reduction="mean"):
    """NLLLoss.cpp with a weight: -input[b, t] * w[t] per counted row; 'mean' divides the sum by
    the sum of the counted rows' weights, both summed in nll_loss's own cascade."""
    rows, classes, keep, weights = _nll_weights(x, t, w, ignore_index)
    picked = rows[np.arange(rows.shape[0]), classes] * weights
    if reduction == "none":
        losses = np.where(keep, -picked, 0.0).astype(rows.dtype, copy=False)
        return losses if np.ndim(x) == 2 else losses.reshape(())
    total = nll_total(picked, keep)
    if reduction == "sum":
        return total
    with np.errstate(invalid="ignore", divide="ignore"):  # no weight counted: 0/0 = nan, as torch
        return total / nll_total(-weights, keep)


def _nll_weighted_backward(g, x, t, w, ignore_index=-100, reduction="mean"):
    """nll_loss_backward with a weight: w[t] * -grad (grad / total_weight for 'mean') at each
    counted row's class, -w[t] * grad[b] for 'none'; +0.0 elsewhere."""
    rows, classes, keep, weights = _nll_weights(x, t, w, ignore_index)
    g = np.asarray(g)
    if reduction == "none":
        scale = -weights * np.reshape(g, -1)
    else:
        if reduction == "mean":
            with np.errstate(invalid="ignore", divide="ignore"):
                g = g / nll_total(-weights, keep)
        scale = weights * -g
    grad = np.zeros(rows.shape, dtype=np.result_type(g, rows))
    counted = np.flatnonzero(keep)
    grad.reshape(-1)[counted * rows.shape[1] + classes[counted]] = np.broadcast_to(scale, keep.shape)[counted]
    return grad.reshape(np.shape(x))


def _class_weight_sum(w, t, ignore_index=-100):
    """cross_entropy's label-smoothing divisor: weight.gather(0, target[target != ignore_index]).sum()."""
    indices = _class_indices(t, np.size(w), ignore_index)
    return torch_sum(np.asarray(w).reshape(-1)[indices[indices != ignore_index]])


def _no_grad_for_weight(g, out, *operands, **attrs):
    raise GradcliError("a loss's weight gets no gradient in torch (pass it with --const)")


def _unbroadcastable(weight: Shape, target: Shape) -> str | None:
    """F.binary_cross_entropy's weight.expand(broadcast(target, weight)): torch's words for a weight
    dim that is neither 1 nor the target's (the target padded with leading ones)."""
    ndim = max(len(weight), len(target))
    padded = (1,) * (ndim - len(target)) + tuple(target)
    for back in range(1, len(weight) + 1):
        a, b = weight[-back], padded[-back]
        if a != 1 and b != 1 and a != b:
            return (
                f"Attempting to broadcast a dimension of length {a} at -{back}! Mismatching argument at "
                f"index 1 had {_torch_size(weight)}; but expected shape should be broadcastable to "
                f"[{', '.join(map(str, padded))}]"
            )
    return None


def _in_place_into(x: Shape, other: Shape, shape: Shape) -> None:
    """`loss.mul_(weight)`: the in-place product keeps loss's shape, or torch's error."""
    if tuple(shape) != tuple(x):
        raise ShapeError(
            f"output with shape [{', '.join(map(str, x))}] doesn't match the broadcast shape "
            f"[{', '.join(map(str, shape))}]"
        )


def _bce_weighted_shape(a: Shape, b: Shape, w: Shape, reduction: str = "mean") -> Shape:
    result = _same_size(
        lambda a, b: (
            f"Using a target size ({_torch_size(b)}) that is different to the input size "
            f"({_torch_size(a)}) is deprecated. Please ensure they have the same size."
        )
    )(a, b, reduction)
    refusal = _unbroadcastable(tuple(w), tuple(b))
    if refusal:
        raise ShapeError(refusal)
    _in_place_into(a, w, broadcast_shapes(tuple(b), tuple(w)))
    return result


def _bce_weighted(a, b, w, reduction="mean"):
    """binary_cross_entropy's CPU loop, then `loss.mul_(weight)`, then the reduction."""
    _check_unit_interval(a, "input")
    _check_unit_interval(b, "target")
    loss = (b - 1) * np.maximum(np.log1p(-a), -100.0) - b * np.maximum(np.log(a), -100.0)
    return _reduce(loss * w, reduction)


def _bce_weighted_backward(g, a, b, w, reduction="mean"):
    """binary_cross_entropy_backward with a weight: grad * (x - t) / max((1 - x) x, eps) * weight (/ numel)."""
    grad = g * (a - b) / np.maximum((1 - a) * a, _BCE_EPSILON) * w
    return grad / np.size(a) if reduction == "mean" else grad


def _bce_weighted_grad_target(g, out, a, b, w, reduction="mean"):
    # binary_cross_entropy_target_backward: logit(input).neg_() * grad * weight (/ numel)
    grad = -call("logit", a) * g * w
    return grad / np.size(a) if reduction == "mean" else grad


def _bce_logits_weighted_shape(
    a: Shape,
    b: Shape,
    w: Shape,
    pw: Shape,
    reduction: str = "mean",
    weighted: bool = True,
    pos_weighted: bool = False,
) -> Shape:
    if tuple(a) != tuple(b):
        raise ShapeError(f"Target size ({_torch_size(b)}) must be the same as input size ({_torch_size(a)})")
    if pos_weighted:  # (pos_weight - 1).mul(target), then log_sigmoid(x).mul_(that)
        _in_place_into(a, pw, broadcast_shapes(tuple(pw), tuple(b)))
    if weighted:  # loss.mul_(weight)
        _in_place_into(a, w, broadcast_shapes(tuple(a), tuple(w)))
    return tuple(a) if reduction == "none" else ()


def _log_sigmoid(a):
    return np.minimum(a, 0.0) - np.log1p(np.exp(-np.abs(a)))


def _bce_logits_weighted(a, b, w, pw, reduction="mean", weighted=True, pos_weighted=False):
    """Loss.cpp: log_sigmoid(x) times (pos_weight - 1) * t + 1 when pos_weight is given, then
    (1 - t) * x - that, times weight when given, then the reduction."""
    log_sigmoid = _log_sigmoid(a)
    if pos_weighted:
        log_sigmoid = log_sigmoid * ((pw - 1) * b + 1)
    loss = (1 - b) * a - log_sigmoid
    return _reduce(loss * w if weighted else loss, reduction)


def _bce_logits_weighted_grad_input(g, out, a, b, w, pw, reduction="mean", weighted=True, pos_weighted=False):
    """binary_cross_entropy_with_logits_backward: with pos_weight, t' = pos_weight * t and
    ((t' + 1 - t) * sigmoid(x) - t'); else sigmoid(x) - t; times grad, weight, / numel."""
    if pos_weighted:
        scaled = pw * b
        grad = (scaled + 1 - b) * call("sigmoid", a) - scaled
    else:
        grad = call("sigmoid", a) - b
    grad = grad * g
    if weighted:
        grad = grad * w
    return grad / np.size(a) if reduction == "mean" else grad


def _bce_logits_weighted_grad_target(
    g, out, a, b, w, pw, reduction="mean", weighted=True, pos_weighted=False
):
    """binary_cross_entropy_with_logits_target_backward: log_sigmoid(-x) - log_sigmoid(x) * pos_weight
    with pos_weight, else -x; times grad, weight, / numel."""
    grad = call("logsigmoid", -a) - call("logsigmoid", a) * pw if pos_weighted else -a
    grad = grad * g
    if weighted:
        grad = grad * w
    return grad / np.size(a) if reduction == "mean" else grad


# ---------------------------------------------------------------- records


def _loss(
    name: str,
    forward: Callable,
    vjp: tuple[Callable, ...],
    grad_fn: str,
    *,
    params: tuple[Param, ...] = (REDUCTION,),
    infer_shape: Callable[..., Shape] = _loss_shape,
    **extra: Any,
) -> Op:
    """A loss of (input, target): one node, a choice of reduction, opaque symbolic form."""
    return Op(
        name,
        f"{name}(a,b) or F.{name}(x, y, reduction='sum')",
        forward=forward,
        vjp=vjp,
        sympy=lambda sp, a, b, shapes=((), ()), **attrs: _fn(sp, name)(a, b),
        grad_fn=grad_fn,
        torch=f"torch.nn.functional.{name}",
        elementwise=False,
        method=False,
        params=params,
        infer_shape=infer_shape,
        **extra,
    )


OPS: tuple[Op, ...] = (
    Op(
        "softmax",
        "softmax(x) or F.softmax(x, dim=1) or x.softmax(1)",
        forward=_softmax,
        vjp=(lambda g, out, a, dim=None: call("_softmax_backward_data", g, out, dim=dim),),
        sympy=lambda sp, a, shapes=((),), dim=None: _fn(sp, "softmax")(a, dim),
        grad_fn="SoftmaxBackward0",
        torch="torch.softmax",
        elementwise=False,
        params=(SOFTMAX_DIM,),
        infer_shape=_softmax_shape("softmax"),
        batching=Batching("along", dims=(("dim", None),)),
    ),
    Op(
        "log_softmax",
        "log_softmax(x) or F.log_softmax(x, dim=1) or x.log_softmax(1)",
        forward=_log_softmax,
        vjp=(lambda g, out, a, dim=None: call("_log_softmax_backward_data", g, out, dim=dim),),
        sympy=lambda sp, a, shapes=((),), dim=None: _fn(sp, "log_softmax")(a, dim),
        grad_fn="LogSoftmaxBackward0",
        torch="torch.log_softmax",
        elementwise=False,
        params=(SOFTMAX_DIM,),
        infer_shape=_softmax_shape("log_softmax"),
        batching=Batching("along", dims=(("dim", None),)),
    ),
    _loss(
        "mse_loss",
        _mse,
        (  # derivatives.yaml: the target's VJP is the same kernel with self and target swapped
            lambda g, out, a, b, reduction="mean": call("mse_loss_backward", g, a, b, reduction=reduction),
            lambda g, out, a, b, reduction="mean": call("mse_loss_backward", g, b, a, reduction=reduction),
        ),
        "MseLossBackward0",
    ),
    _loss(
        "smooth_l1_loss",
        _smooth_l1,
        (
            lambda g, out, a, b, reduction="mean", beta=1.0: _smooth_l1_vjp(g, a, b, reduction, beta),
            lambda g, out, a, b, reduction="mean", beta=1.0: _smooth_l1_vjp(g, b, a, reduction, beta),
        ),
        "SmoothL1LossBackward0",
        params=(REDUCTION, Param("beta", 1.0, "number", keyword_only=True)),
        infer_shape=_smooth_l1_shape,
        pick_grad_fn=lambda kinds, shapes, attrs: (
            _l1_names(kinds, shapes, attrs) if attrs.get("beta", 1.0) == 0 else "SmoothL1LossBackward0"
        ),
    ),
    _loss(
        "huber_loss",
        _huber,
        (
            lambda g, out, a, b, reduction="mean", delta=1.0: call(
                "huber_loss_backward", g, a, b, reduction=reduction, delta=delta
            ),
            lambda g, out, a, b, reduction="mean", delta=1.0: call(
                "huber_loss_backward", g, b, a, reduction=reduction, delta=delta
            ),
        ),
        "HuberLossBackward0",
        params=(replace(REDUCTION, keyword_only=False), Param("delta", 1.0, "number")),
        infer_shape=_huber_shape,
    ),
    _loss(
        "binary_cross_entropy",
        _bce,
        (
            lambda g, out, a, b, reduction="mean": call(
                "binary_cross_entropy_backward", g, a, b, reduction=reduction
            ),
            _bce_grad_target,
        ),
        "BinaryCrossEntropyBackward0",
        infer_shape=_same_size(
            lambda a, b: (
                f"Using a target size ({_torch_size(b)}) that is different to the input size "
                f"({_torch_size(a)}) is deprecated. Please ensure they have the same size."
            )
        ),
        domain="0 <= input <= 1 and 0 <= target <= 1 (logs clamped at -100)",
    ),
    _loss(
        "binary_cross_entropy_with_logits",
        _bce_logits,
        (_bce_logits_grad_input, _bce_logits_grad_target),
        "BinaryCrossEntropyWithLogitsBackward0",
        infer_shape=_same_size(
            lambda a, b: f"Target size ({_torch_size(b)}) must be the same as input size ({_torch_size(a)})"
        ),
    ),
    _loss(
        "nll_loss",
        _nll,
        (
            lambda g, out, x, t, ignore_index=-100, reduction="mean": call(
                "nll_loss_backward", g, x, t, ignore_index=ignore_index, reduction=reduction
            ),
            _no_grad_for_class_indices,
        ),
        "NllLossBackward0",
        params=(IGNORE_INDEX, REDUCTION),
        infer_shape=_nll_shape,
        domain="target: class indices 0 <= y < C (or ignore_index), given with --const",
        batching=Batching("nll_loss"),
    ),
)


# ---------------------------------------------------------------- backward kernels
# The kernels the VJPs above call, as PyTorch fuses them, each with its own rules from
# derivatives.yaml and FunctionsManual.cpp (so create_graph records SoftmaxBackwardDataBackward0,
# MseLossBackwardBackward0, ...). Operands: the upstream gradient first, then what it saved.


def _smooth_l1_vjp(g, a, b, reduction, beta):
    if beta == 0:  # l1_loss's nodes (sub, abs, mean): abs'(0) = 0
        return _norm(a, b, reduction) * _sgn(np.subtract(a, b)) * g
    return call("smooth_l1_loss_backward", g, a, b, reduction=reduction, beta=beta)


def _huber_double_backward(gg, go, a, b, reduction, delta):
    """huber_loss_double_backward(grad * grad_output, ...): grad * (|a - b| < delta) (/ numel)."""
    return _mean_of((gg * go) * np.less(np.abs(a - b), delta), a, b, reduction)


def _smooth_l1_double_backward(gg, go, a, b, reduction, beta):
    """smooth_l1_loss_double_backward: grad * (|a - b| < beta) / beta (/ numel); 0 for beta = 0."""
    if beta == 0:
        return np.zeros(np.shape(gg * go))
    return _mean_of((gg * go) * np.less(np.abs(a - b), beta) / beta, a, b, reduction)


def _summed_unless_none(r, gg, reduction):
    """The *_double_backward_grad_output pattern: (r * grad).sum() unless reduction is 'none'."""
    return r * gg if reduction == "none" else np.sum(r * gg)


def _bce_double_backward_input(gg, go, a, b, reduction):
    """binary_cross_entropy_double_backward: (x² - 2xt + t) / ((x + eps)² (1 - x + eps)²) * grad * go."""
    gi = (a * a - 2 * a * b + b) / (
        call("pow", a + _BCE_EPSILON, 2.0) * call("pow", _one_minus(a) + _BCE_EPSILON, 2.0)
    )
    return _mean_of(gi * (gg * go), a, b, reduction)


def _bce_double_backward_grad_output(gg, go, a, b, reduction):
    """binary_cross_entropy_double_backward_grad_output: (x - t) / ((x + eps)(1 - x + eps)) * grad."""
    ggo = (a - b) / ((a + _BCE_EPSILON) * (_one_minus(a) + _BCE_EPSILON)) * gg
    return _mean_of(ggo, a, b, reduction)


def _bce_double_backward_target(gg, go, a, b, reduction):
    """binary_cross_entropy_double_backward_target: -grad * go / clamp_min((1 - x) * x, eps)."""
    return _mean_of(-gg * go / np.maximum(_one_minus(a) * a, _BCE_EPSILON), a, b, reduction)


def _shape_of(position: int) -> Callable[..., Shape]:
    return lambda *shapes, **attrs: tuple(shapes[position])


def _loss_shape_of_pair(go: Shape, a: Shape, b: Shape, **attrs: Any) -> Shape:
    return broadcast_shapes(a, b)


def _zeros_of(position: int) -> Callable[..., Any]:
    """A rule whose gradient is zeros_like(grad), or an operand (the target) that has none."""
    return lambda gg, out, *operands, **attrs: np.zeros(np.shape(operands[position]))


KERNELS: tuple[Op, ...] = (
    kernel(
        "_softmax_backward_data",
        _softmax_backward_data,
        (
            lambda gg, _, g, out, dim=None: call("_softmax_backward_data", gg, out, dim=dim),
            lambda gg, _, g, out, dim=None: _softmax_double_backward(gg, g, out, dim),
        ),
        "SoftmaxBackwardDataBackward0",
        elementwise=False,
        infer_shape=_shape_of(1),
    ),
    kernel(
        "_log_softmax_backward_data",
        _log_softmax_backward_data,
        (
            lambda gg, _, g, out, dim=None: gg - np.sum(gg * np.exp(out), axis=_axis(out, dim), keepdims=True),
            lambda gg, _, g, out, dim=None: -np.sum(g, axis=_axis(out, dim), keepdims=True) * np.exp(out) * gg,
        ),
        "LogSoftmaxBackwardDataBackward0",
        elementwise=False,
        infer_shape=_shape_of(1),
    ),
    kernel(
        "nll_loss_backward",
        _nll_backward,
        (
            lambda gg, _, g, x, t, ignore_index=-100, reduction="mean": call(
                "nll_loss", gg, t, ignore_index=ignore_index, reduction=reduction
            ),
            _zeros_of(1),
            _zeros_of(2),
        ),
        "NllLossBackwardBackward0",
        elementwise=False,
        infer_shape=_shape_of(1),
        batching=Batching("nll_loss_backward"),
    ),
    kernel(
        "mse_loss_backward",
        _mse_backward,
        (
            lambda gg, _, g, a, b, reduction="mean": call("mse_loss_backward", gg, a, b, reduction=reduction),
            # mse_loss_double_backward(grad * grad_output, self): 2 * grad (/ numel)
            lambda gg, _, g, a, b, reduction="mean": _mean_of(2 * (gg * g), a, b, reduction),
            lambda gg, _, g, a, b, reduction="mean": -_mean_of(2 * (gg * g), a, b, reduction),
        ),
        "MseLossBackwardBackward0",
        elementwise=False,
        infer_shape=_loss_shape_of_pair,
    ),
    kernel(
        "huber_loss_backward",
        _huber_backward,
        (
            lambda gg, _, g, a, b, reduction="mean", delta=1.0: _summed_unless_none(
                call("huber_loss_backward", np.ones_like(g), a, b, reduction=reduction, delta=delta), gg, reduction
            ),
            lambda gg, _, g, a, b, reduction="mean", delta=1.0: _huber_double_backward(gg, g, a, b, reduction, delta),
            lambda gg, _, g, a, b, reduction="mean", delta=1.0: -_huber_double_backward(
                gg, g, a, b, reduction, delta
            ),
        ),
        "HuberLossBackwardBackward0",
        elementwise=False,
        infer_shape=_loss_shape_of_pair,
    ),
    kernel(
        "smooth_l1_loss_backward",
        _smooth_l1_backward,
        (
            lambda gg, _, g, a, b, reduction="mean", beta=1.0: call(
                "smooth_l1_loss_backward", gg, a, b, reduction=reduction, beta=beta
            ),
            lambda gg, _, g, a, b, reduction="mean", beta=1.0: _smooth_l1_double_backward(
                gg, g, a, b, reduction, beta
            ),
            lambda gg, _, g, a, b, reduction="mean", beta=1.0: -_smooth_l1_double_backward(
                gg, g, a, b, reduction, beta
            ),
        ),
        "SmoothL1LossBackwardBackward0",
        elementwise=False,
        infer_shape=_loss_shape_of_pair,
    ),
    kernel(
        "binary_cross_entropy_backward",
        _bce_backward,
        (
            lambda gg, _, g, a, b, reduction="mean": _bce_double_backward_grad_output(gg, g, a, b, reduction),
            lambda gg, _, g, a, b, reduction="mean": _bce_double_backward_input(gg, g, a, b, reduction),
            lambda gg, _, g, a, b, reduction="mean": _bce_double_backward_target(gg, g, a, b, reduction),
        ),
        "BinaryCrossEntropyBackwardBackward0",
        elementwise=False,
        infer_shape=_loss_shape_of_pair,
    ),
    kernel(
        "logit",
        _logit,
        (_logit_backward,),
        "LogitBackward0",
    ),
)


# ---------------------------------------------------------------- composites


def _l1_loss(apply, x, y, reduction="mean"):
    """l1_loss is CompositeImplicit in ATen: (x - y).abs(), then the reduction."""
    loss = apply("abs", apply("sub", x, y))
    return loss if reduction == "none" else apply(reduction, loss)


def _cross_entropy(
    apply,
    x,
    y,
    w=None,
    ignore_index=-100,
    reduction="mean",
    label_smoothing=0.0,
    shapes=((), (), None),
    dtypes=(None, None, None),
    strides=(),
):
    """torch's cross_entropy_loss (LossNLL.cpp): a target of the input's shape holds class
    probabilities, any other class indices; label smoothing adds a uniform term; a weight
    (one per class, a constant) goes to nll_loss and scales the smoothing term. Each branch
    records what the C++ code records, its Scalar arithmetic included."""
    x_shape, y_shape = shapes[0], shapes[1]
    class_dim = 0 if len(x_shape) == 1 else 1
    if tuple(x_shape) == tuple(y_shape) and x_shape:
        if dtypes[1] in ("int64", "bool"):
            kind = {"int64": "Long", "bool": "Bool"}[dtypes[1]]
            raise ShapeError(f"Expected floating point type for target with class probabilities, got {kind}")
        return _cross_entropy_probabilities(
            apply, x, y, w, class_dim, x_shape, shapes[2] if len(shapes) > 2 else None, ignore_index, reduction,
            label_smoothing,
        )  # fmt: skip
    log_probs = apply("log_softmax", x, dim=class_dim)
    if w is None:
        nll = apply("nll_loss", log_probs, y, ignore_index=ignore_index, reduction=reduction)
    else:
        nll = apply("nll_loss_weighted", log_probs, y, w, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing <= 0.0:
        return nll
    _check_smoothing(label_smoothing)
    # cross_entropy_loss_label_smoothing: (1 - ls) * nll + the uniform part (0 on ignored rows)
    # * ls / classes; nodes are made in the order grad_fn.next_functions visits them.
    scaled = apply("mul_scalar", nll, other=1.0 - label_smoothing)
    if w is None:
        smooth = apply("neg", apply("sum", log_probs, dim=class_dim))
    else:  # -(input * weight.view(1, C, 1, ...)).sum(class_dim)
        weighted = apply("mul", log_probs, apply("view", w, size=_class_view(x_shape, class_dim)))
        smooth = apply("neg", apply("sum", weighted, dim=class_dim))
    smooth = apply("masked_fill", smooth, apply("eq", y, float(ignore_index)), value=0.0)
    if reduction == "mean":
        if w is None:
            counted = apply("sum", apply("ne", y, float(ignore_index)))
        else:  # normalised by the counted targets' weights, as nll_loss is
            counted = apply("_class_weight_sum", w, y, ignore_index=ignore_index)
        smooth = apply("div", apply("sum", smooth), counted)
    elif reduction == "sum":
        smooth = apply("sum", smooth)
    classes = x_shape[class_dim]
    return apply("add", scaled, apply("mul_scalar", smooth, other=label_smoothing / classes))


def _class_view(x_shape: Shape, class_dim: int) -> tuple[int, ...]:
    """The weight viewed to broadcast along the class dim: (1, C, 1, ...)."""
    return tuple(n if d == class_dim else 1 for d, n in enumerate(x_shape))


def _check_smoothing(label_smoothing: float) -> None:
    if not 0.0 <= label_smoothing <= 1.0:
        raise ShapeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}")


def _cross_entropy_probabilities(
    apply, x, y, w, class_dim, shape, w_shape, ignore_index, reduction, label_smoothing
):
    """cross_entropy_loss_prob_target: -(log_softmax(x) * target [* weight]) summed, over the rows for 'mean'."""
    if ignore_index != -100:
        raise ShapeError("ignore_index is not supported for floating point target")
    classes = shape[class_dim]
    if w is not None and (w_shape is None or len(w_shape) != 1 or w_shape[0] != classes):
        raise ShapeError(
            f"cross_entropy: weight tensor should be defined either for all {classes} classes or no classes "
            f"but got weight tensor of shape: [{', '.join(map(str, w_shape or ()))}]"
        )
    log_probs = apply("log_softmax", x, dim=class_dim)
    target = y
    if label_smoothing > 0.0:
        _check_smoothing(label_smoothing)
        target = apply(
            "add_scalar", apply("mul_scalar", y, other=1.0 - label_smoothing), other=label_smoothing / classes
        )
    product = apply("mul", log_probs, target)
    if w is not None:
        product = apply("mul", product, apply("view", w, size=_class_view(shape, class_dim)))
    if reduction == "none":
        return apply("neg", apply("sum", product, dim=class_dim))
    loss = apply("neg", apply("sum", product))
    if reduction == "sum":
        return loss
    # numel / n_classes is a SymInt division: an integer, the rows
    return apply("div_scalar", loss, other=float(math.prod(shape) // classes))


def _linear(apply, x, w, b=None, shapes=((), (), None), dtypes=(), strides=()):
    """torch's linear (Linear.cpp): addmm for a 2-D input with a bias; a 1-D or N-D input
    with a bias is viewed as 2-D around the addmm; without a bias, matmul (an N-D input is
    viewed as 2-D, and the product _unsafe_view'ed back, as matmul does). Nodes are made in
    the order grad_fn.next_functions visits them: the input's view before W.t()."""
    x_shape, w_shape, _ = shapes
    two_d = len(x_shape) == 2 or len(w_shape) != 2 or not x_shape
    if two_d or (b is None and len(x_shape) == 1):
        wt = apply("t", w)
        if b is None:
            return apply("matmul", x, wt)
        return apply("addmm", b, x, wt) if len(x_shape) == 2 else apply("add", apply("matmul", x, wt), b)
    out_shape = (*x_shape[:-1], w_shape[0])
    flat = apply("view", x, size=(-1, x_shape[-1]))
    wt = apply("t", w)
    if b is not None:
        return apply("view", apply("addmm", b, flat, wt), size=out_shape)
    return apply("_unsafe_view", apply("matmul", flat, wt), size=out_shape)


COMPOSITES: tuple[Composite, ...] = (
    Composite(
        "l1_loss",
        arity=2,
        params=(REDUCTION,),
        build=_l1_loss,
        torch="torch.nn.functional.l1_loss",
        derivative="abs(x - y), then mean or sum: SubBackward0 -> AbsBackward0 -> MeanBackward0",
    ),
    Composite(
        "cross_entropy",
        arity=3,
        optional=1,
        params=(IGNORE_INDEX, REDUCTION, Param("label_smoothing", 0.0, "number", keyword_only=True)),
        build=_cross_entropy,
        torch="torch.nn.functional.cross_entropy",
        derivative=(
            "class indices: nll_loss(log_softmax(x, 1), y), LogSoftmaxBackward0 -> NllLossBackward0; "
            "probabilities (y shaped as x): -(log_softmax(x, 1) * y).sum() / rows, "
            "MulBackward0 -> SumBackward0 -> NegBackward0 -> DivBackward1; label_smoothing adds "
            "the uniform term as torch does; weight= (per class) goes to nll_loss (NllLossBackward0) "
            "or multiplies the probabilities' product"
        ),
        shaped=True,
    ),
    Composite(
        "linear",
        arity=3,
        params=(),
        build=_linear,
        torch="torch.nn.functional.linear",
        derivative=(
            "2-D x with a bias: addmm(b, x, W.t()), TBackward0 -> AddmmBackward0; other ranks view x "
            "as 2-D first (ViewBackward0) and back after; without a bias x @ W.t() (MmBackward0)"
        ),
        shaped=True,
        optional=1,
    ),
)

# torch's argument names, so a program may write F.linear(x, W, bias=b) (an optional trailing
# operand may be left out, as the composite's `optional` says)
SIGNATURES: dict[str, tuple[str, ...]] = {
    "linear": ("input", "weight", "bias"),
    "cross_entropy": ("input", "target", "weight"),
    # the weighted records: reached from F.nll_loss(x, y, weight=w) ... by binding.py's overload
    "nll_loss_weighted": ("input", "target", "weight"),
    "binary_cross_entropy_weighted": ("input", "target", "weight"),
    "binary_cross_entropy_with_logits_weighted": ("input", "target", "weight", "pos_weight"),
}
# The calls whose weight= (and pos_weight=) make them another record: name -> (the weighted
# record, the tensor arguments it takes after input and target, in torch's order).
WEIGHTED: dict[str, tuple[str, tuple[str, ...]]] = {
    "nll_loss": ("nll_loss_weighted", ("weight",)),
    "binary_cross_entropy": ("binary_cross_entropy_weighted", ("weight",)),
    "binary_cross_entropy_with_logits": (
        "binary_cross_entropy_with_logits_weighted",
        ("weight", "pos_weight"),
    ),
}


# ---------------------------------------------------------------- weighted losses' records

_WEIGHT_FLAGS = (Param("weighted", True, "bool"), Param("pos_weighted", False, "bool"))


def _weighted_loss(name: str, call_name: str, operands: str, **extra: Any) -> Op:
    """A weighted loss: internal (reached through F.<call_name>(..., weight=w)), opaque symbolic form."""
    return Op(
        name,
        f"(internal) F.{call_name}({operands})",
        sympy=lambda sp, *forms, shapes=(), **attrs: _fn(sp, call_name)(*forms),
        torch=f"torch.nn.functional.{call_name}",
        elementwise=False,
        function=False,
        method=False,
        **extra,
    )


INTERNAL: tuple[Op, ...] = (
    _weighted_loss(
        "nll_loss_weighted",
        "nll_loss",
        "x, y, weight=w",
        forward=_nll_weighted,
        vjp=(
            lambda g, out, x, t, w, ignore_index=-100, reduction="mean": call(
                "nll_loss_weighted_backward", g, x, t, w, ignore_index=ignore_index, reduction=reduction
            ),
            _no_grad_for_class_indices,
            _no_grad_for_weight,
        ),
        grad_fn="NllLossBackward0",
        params=(IGNORE_INDEX, REDUCTION),
        infer_shape=_nll_weighted_shape,
    ),
    _weighted_loss(
        "binary_cross_entropy_weighted",
        "binary_cross_entropy",
        "p, y, weight=w",
        forward=_bce_weighted,
        vjp=(
            lambda g, out, a, b, w, reduction="mean": call(
                "binary_cross_entropy_weighted_backward", g, a, b, w, reduction=reduction
            ),
            _bce_weighted_grad_target,
            _no_grad_for_weight,
        ),
        grad_fn="BinaryCrossEntropyBackward0",
        params=(REDUCTION,),
        infer_shape=_bce_weighted_shape,
        domain="0 <= input <= 1 and 0 <= target <= 1 (logs clamped at -100)",
    ),
    _weighted_loss(
        "binary_cross_entropy_with_logits_weighted",
        "binary_cross_entropy_with_logits",
        "x, y, weight=w, pos_weight=pw",
        forward=_bce_logits_weighted,
        vjp=(
            _bce_logits_weighted_grad_input,
            _bce_logits_weighted_grad_target,
            _no_grad_for_weight,
            _no_grad_for_weight,
        ),
        grad_fn="BinaryCrossEntropyWithLogitsBackward0",
        params=(REDUCTION, *_WEIGHT_FLAGS),
        infer_shape=_bce_logits_weighted_shape,
    ),
    Op(
        "_class_weight_sum",
        "(internal) weight.gather(0, y[y != ignore_index]).sum()",
        forward=_class_weight_sum,
        vjp=(_no_grad_for_weight, _no_grad_for_class_indices),
        sympy=lambda sp, w, t, shapes=(), **attrs: _fn(sp, "class_weight_sum")(w, t),
        grad_fn="NotImplemented",
        torch="torch.gather",
        elementwise=False,
        function=False,
        method=False,
        differentiable=False,
        params=(IGNORE_INDEX,),
        infer_shape=lambda w, t, ignore_index=-100: (),
    ),
)

KERNELS = KERNELS + (
    kernel(
        "nll_loss_weighted_backward",
        _nll_weighted_backward,
        (
            lambda gg, _, g, x, t, w, ignore_index=-100, reduction="mean": call(
                "nll_loss_weighted", gg, t, w, ignore_index=ignore_index, reduction=reduction
            ),
            _zeros_of(1),
            _zeros_of(2),
            _zeros_of(3),
        ),
        "NllLossBackwardBackward0",
        elementwise=False,
        infer_shape=_shape_of(1),
    ),
    kernel(
        "binary_cross_entropy_weighted_backward",
        _bce_weighted_backward,
        (
            lambda gg, _, g, a, b, w, reduction="mean": (
                _bce_double_backward_grad_output(gg, g, a, b, reduction) * w
            ),
            lambda gg, _, g, a, b, w, reduction="mean": (
                _bce_double_backward_input(gg, g, a, b, reduction) * w
            ),
            lambda gg, _, g, a, b, w, reduction="mean": (
                _bce_double_backward_target(gg, g, a, b, reduction) * w
            ),
            _zeros_of(3),
        ),
        "BinaryCrossEntropyBackwardBackward0",
        elementwise=False,
        infer_shape=lambda go, a, b, w, **attrs: tuple(a),
    ),
)
