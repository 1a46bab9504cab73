"""`F.conv1d` and `F.conv2d` as torch 2.13 records them: one ConvolutionBackward0 node over
input, weight and bias.

ATen's conv1d/conv2d (Convolution.cpp) first batchify an unbatched input (UnsqueezeBackward0,
then SqueezeBackward1 on the result); padding='same' with an odd total padding pads the right
side by one first (at::constant_pad_nd: ConstantPadNdBackward0) and convolves symmetrically.
The composites below make those nodes; `convolution` itself is the one primitive.

The forward is a correlation run as one batched matmul (over the groups) per kernel offset,
each reading the zero-padded input at that offset's strided, dilated place: the Python loop
runs over kernel offsets, never output pixels, and memory stays the operands' size. The VJPs
are convolution_backward's (derivatives.yaml): grad_input is the transposed convolution of g
with the weight (each offset's matmul added back at its place), grad_weight the correlation of
the input with g, grad_bias g summed over batch and spatial dims. MAX_OP_MULTIPLY_ADDS refuses
a convolution whose multiply-adds would take more than a few seconds, before any work.
They read their operands as arrays (np.asarray), so create_graph through a convolution is
refused with the engine's clear message, as F.layer_norm's is.

A float32 convolution is summed in float64 and rounded once: torch's oneDNN kernel sums in
float32 in an order of its own, so float32 results agree with torch to a few ulp, not to the bit.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import limits
from ..errors import ShapeError
from .core import Composite, Op, Param, Shape, _fn
from .shape import _listed
from .summation import torch_sum

_STRIDE = Param("stride", 1, "ints")
_PADDING = Param("padding", 0, "ints", choices=("valid", "same"))
_DILATION = Param("dilation", 1, "ints")
_GROUPS = Param("groups", 1, "int")
_PARAMS = (_STRIDE, _PADDING, _DILATION, _GROUPS)


def _ints(value: Any) -> tuple[int, ...]:
    if value is None:
        return ()
    return tuple(int(v) for v in value) if isinstance(value, (tuple, list)) else (int(value),)


def _expanded(value: Any, name: str, dims: int) -> tuple[int, ...]:
    """ATen's expand_param_if_needed: one value serves every spatial dim."""
    values = _ints(value)
    if len(values) == 1:
        return values * dims
    if len(values) != dims:
        raise ShapeError(
            f"expected {name} to be a single integer value or a list of {dims} values to match the "
            f"convolution dimensions, but got {name}={_listed(values)}"
        )
    return values


def _argument(value: Any, spatial: int) -> tuple[int, ...]:
    """torch's argument parser: IntArrayRef[spatial] repeats a single int."""
    values = _ints(value)
    return values * spatial if len(values) == 1 else values


def macs(x: Shape, w: Shape, stride, dilation, groups: int) -> tuple[Shape, int]:
    """The output shape of a correlation of the (padded) input x with w, and its multiply-adds."""
    out = tuple((n - d * (k - 1) - 1) // s + 1 for n, k, s, d in zip(x[2:], w[2:], stride, dilation))
    shape = (x[0], w[0], *out)
    return shape, math.prod(shape) * math.prod(w[1:])


# A kernel offset's pass of the Python loop (a matmul call and its slices, ~10 us) in
# multiply-adds (~1 ns each): a huge kernel over a small output is refused, not run offset by offset.
OFFSET_WORK = 10_000


def check_work(work: int, offsets: int, what: str) -> None:
    """Refuse an op whose multiply-adds (and loop over kernel offsets) exceed MAX_OP_MULTIPLY_ADDS."""
    limits.check(
        work + offsets * OFFSET_WORK,
        limits.MAX_OP_MULTIPLY_ADDS,
        f"the multiply-adds of {what}",
        "MAX_OP_MULTIPLY_ADDS",
        hint="use smaller tensors or a smaller kernel",
    )


def check_forward(x: Shape, w: Shape, b: Shape | None, stride, padding, dilation, groups: int) -> tuple:
    """at::_convolution's checks in its order, with torch's words: (stride, padding, dilation)
    expanded to the weight's spatial dims."""
    if groups <= 0:
        raise ShapeError("non-positive groups is not supported")
    if len(w) < 3:
        raise ShapeError("weight should have at least three dimensions")
    dims = len(w) - 2
    stride = _expanded(stride, "stride", dims)
    padding = _expanded(padding, "padding", dims)
    dilation = _expanded(dilation, "dilation", dims)
    if any(p < 0 for p in padding):
        raise ShapeError("negative padding is not supported")
    if any(s <= 0 for s in stride):
        raise ShapeError("non-positive stride is not supported")
    if any(d < 0 for d in dilation):
        raise ShapeError("dilation should be greater than zero")
    if len(w) != len(x):
        raise ShapeError(
            f"Expected {len(w)}-dimensional input for {len(w)}-dimensional weight {_listed(w)}, but got "
            f"{len(x)}-dimensional input of size {_listed(x)} instead"
        )
    if w[0] < groups:
        raise ShapeError(
            f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got weight "
            f"of size {_listed(w)} instead"
        )
    if w[0] % groups:
        raise ShapeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got "
            f"weight of size [{_listed(w)}] instead"
        )
    if x[1] != w[1] * groups:
        raise ShapeError(
            f"Given groups={groups}, weight of size {_listed(w)}, expected input{_listed(x)} to have "
            f"{w[1] * groups} channels, but got {x[1]} channels instead"
        )
    if b is not None and tuple(b) != (w[0],):
        raise ShapeError(
            f"Given weight of size {_listed(w)}, expected bias to be 1-dimensional with {w[0]} elements, "
            f"but got bias of size {_listed(b)} instead"
        )
    padded = [n + 2 * p for n, p in zip(x[2:], padding)]
    kernel = [d * (k - 1) + 1 for k, d in zip(w[2:], dilation)]
    if any(n < k for n, k in zip(padded, kernel)):
        raise ShapeError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel size: "
            f"({' x '.join(map(str, kernel))}). Kernel size can't be greater than actual input size"
        )
    if any(d == 0 for d in dilation):
        raise ShapeError(f"dilation should be greater than zero, but got {_listed(dilation)}")
    return stride, padding, dilation


def _shape(x: Shape, w: Shape, b: Shape, stride=1, padding=0, dilation=1, groups=1) -> Shape:
    stride, padding, dilation = check_forward(x, w, None, stride, padding, dilation, groups)
    padded = (*x[:2], *(n + 2 * p for n, p in zip(x[2:], padding)))
    shape, work = macs(padded, w, stride, dilation, groups)
    check_work(
        work,
        math.prod(w[2:]),
        f"a convolution of input {_listed(x)} with weight {_listed(w)}",
    )
    return shape


# ---------------------------------------------------------------- NumPy kernels
# One batched matmul (over the groups) per kernel offset, each reading the input at that
# offset's strided place: memory stays the size of the operands whatever the kernel, and
# the Python loop runs over kernel offsets, never over output pixels.


def _float(dtype: np.dtype) -> np.dtype:
    return dtype if dtype in (np.float32, np.float64) else np.dtype(np.float64)


def _padded(x: np.ndarray, padding) -> np.ndarray:
    if not any(padding):
        return x
    return np.pad(x, [(0, 0), (0, 0), *((p, p) for p in padding)])


def _place(offset, stride, dilation, out_sizes) -> tuple[slice, ...]:
    """Where kernel offset `offset` reads the padded input for every output position."""
    return tuple(
        slice(k * d, k * d + s * (o - 1) + 1, s) for k, d, s, o in zip(offset, dilation, stride, out_sizes)
    )


def _setup(x, w, stride, padding, dilation):
    x, w = np.asarray(x), np.asarray(w)
    dims = w.ndim - 2
    stride, padding, dilation = (
        _expanded(v, n, dims) for v, n in ((stride, "stride"), (padding, "padding"), (dilation, "dilation"))
    )
    return x, w, stride, padding, dilation


def _rows(xp: np.ndarray, place, groups: int) -> np.ndarray:
    """The padded input at one offset's place as (G, N*P, Cg) float64 rows."""
    n, c = xp.shape[:2]
    part = xp[(slice(None), slice(None), *place)].reshape(n, groups, c // groups, -1)
    return part.transpose(1, 0, 3, 2).reshape(groups, -1, c // groups).astype(np.float64)


def _forward(x, w, b, stride=1, padding=0, dilation=1, groups=1):
    x, w, stride, padding, dilation = _setup(x, w, stride, padding, dilation)
    dims = w.ndim - 2
    dtype = _float(np.result_type(x, w))
    xp = _padded(x, padding)
    out_sizes = macs(xp.shape, w.shape, stride, dilation, groups)[0][2:]
    n, out_c, per_group = x.shape[0], w.shape[0], w.shape[0] // groups
    weights = w.astype(np.float64).reshape(groups, per_group, w.shape[1], -1)  # (G, Og, Cg, K)
    total = np.zeros((groups, n * math.prod(out_sizes), per_group), np.float64)
    for k, offset in enumerate(np.ndindex(*w.shape[2:])):
        total += np.matmul(
            _rows(xp, _place(offset, stride, dilation, out_sizes), groups), weights[..., k].transpose(0, 2, 1)
        )
    out = total.reshape(groups, n, *out_sizes, per_group).transpose(1, 0, 2 + dims, *range(2, 2 + dims))
    out = out.reshape(n, out_c, *out_sizes)
    if np.ndim(b) > 0:
        out = out + np.asarray(b, np.float64).reshape(1, -1, *(1,) * dims)
    return out.astype(dtype, copy=False)


def _grads(g, groups: int, per_group: int) -> np.ndarray:
    """g (N, O, *out) as (G, N*P, Og) float64."""
    n = g.shape[0]
    return (
        g.astype(np.float64)
        .reshape(n, groups, per_group, -1)
        .transpose(1, 0, 3, 2)
        .reshape(groups, -1, per_group)
    )


def _grad_input(g, out, x, w, b, stride=1, padding=0, dilation=1, groups=1):
    """The transposed convolution of g with w: each kernel offset's contribution
    (a matmul over output channels) is added where that offset read the input."""
    x, w, stride, padding, dilation = _setup(x, w, stride, padding, dilation)
    g = np.asarray(g)
    n, c = x.shape[:2]
    out_sizes = g.shape[2:]
    per_group, c_group = w.shape[0] // groups, w.shape[1]
    grads = _grads(g, groups, per_group)
    weights = w.astype(np.float64).reshape(groups, per_group, c_group, -1)  # (G, Og, Cg, K)
    gxp = np.zeros((n, c, *(size + 2 * p for size, p in zip(x.shape[2:], padding))), np.float64)
    for k, offset in enumerate(np.ndindex(*w.shape[2:])):
        part = np.matmul(grads, weights[..., k])  # (G, N*P, Cg)
        part = part.reshape(groups, n, -1, c_group).transpose(1, 0, 3, 2).reshape(n, c, *out_sizes)
        gxp[(slice(None), slice(None), *_place(offset, stride, dilation, out_sizes))] += part
    cut = tuple(slice(p, p + size) for p, size in zip(padding, x.shape[2:]))
    return gxp[(slice(None), slice(None), *cut)].astype(_float(x.dtype), copy=False)


def _grad_weight(g, out, x, w, b, stride=1, padding=0, dilation=1, groups=1):
    """The correlation of the input with g: grad_weight[o, c, k] = sum g[n, o, p] * x[n, c, p*s + k*d]."""
    x, w, stride, padding, dilation = _setup(x, w, stride, padding, dilation)
    g = np.asarray(g)
    xp = _padded(x, padding)
    per_group = w.shape[0] // groups
    grads = _grads(g, groups, per_group).transpose(0, 2, 1)  # (G, Og, N*P)
    total = np.zeros((groups, per_group, w.shape[1], math.prod(w.shape[2:])), np.float64)
    for k, offset in enumerate(np.ndindex(*w.shape[2:])):
        total[..., k] = np.matmul(grads, _rows(xp, _place(offset, stride, dilation, g.shape[2:]), groups))
    return total.reshape(w.shape).astype(_float(w.dtype), copy=False)


def _grad_bias(g, out, x, w, b, stride=1, padding=0, dilation=1, groups=1):
    g = np.asarray(g)
    return torch_sum(g, axis=(0, *range(2, g.ndim)))


# ---------------------------------------------------------------- symbolic forms and steps


def _attrs_text(attrs: dict) -> str:
    parts = []
    for name, default in (("stride", 1), ("padding", 0), ("dilation", 1), ("groups", 1)):
        value = attrs.get(name, default)
        if value not in (default, (default,)) and not (isinstance(value, tuple) and set(value) == {default}):
            parts.append(f"{name}={value!r}")
    return "".join(f", {p}" for p in parts)


def _written(texts, attrs) -> str:
    bias = "" if texts[2] in ("0", "0.0") else f", {texts[2]}"
    return f"torch.convolution({texts[0]}, {texts[1]}{bias}{_attrs_text(attrs)})"


INTERNAL: tuple[Op, ...] = (
    Op(
        "convolution",
        "(internal) F.conv1d/F.conv2d(input, weight, bias, stride, padding, dilation, groups)",
        forward=_forward,
        vjp=(_grad_input, _grad_weight, _grad_bias),
        sympy=lambda sp, x, w, b, shapes=(), **attrs: _fn(sp, "convolution")(x, w, b),
        grad_fn="ConvolutionBackward0",
        torch="torch.convolution",
        elementwise=False,
        function=False,
        method=False,
        params=(Param("stride", 1, "ints"), Param("padding", 0, "ints"), _DILATION, _GROUPS),
        infer_shape=_shape,
        work=lambda shapes, shape, attrs: math.prod(shape) * math.prod(shapes[1][1:]),
        written=_written,
    ),
)


# ---------------------------------------------------------------- F.conv1d, F.conv2d


def _conv(spatial: int):
    name = f"conv{spatial}d"

    def build(apply, x, w, b=None, stride=1, padding=0, dilation=1, groups=1, shapes=(), **_):
        x_shape, w_shape, b_shape = (None if s is None else tuple(s) for s in (*shapes, None, None, None)[:3])
        if len(x_shape) not in (spatial + 1, spatial + 2):
            raise ShapeError(
                f"Expected {spatial + 1}D (unbatched) or {spatial + 2}D (batched) input to {name}, but got "
                f"input of size: {_listed(x_shape)}"
            )
        stride = _argument(stride, spatial)
        dilation = _argument(dilation, spatial)
        batched = len(x_shape) == spatial + 2
        if not batched:
            x = apply("unsqueeze", x, dim=0)
            x_shape = (1, *x_shape)
        grow: tuple[int, ...] = ()
        if isinstance(padding, str):
            if padding == "same":
                if any(s != 1 for s in stride):
                    raise ShapeError("padding='same' is not supported for strided convolutions")
                dims = max(len(w_shape) - 2, 0)
                dil = _expanded(dilation, "dilation", dims)
                total = [d * (k - 1) for k, d in zip(w_shape[2:], dil)]
                padding = tuple(t // 2 for t in total)
                grow = tuple(t - t // 2 - t // 2 for t in total)
            elif padding == "valid":
                padding = (0,)
            else:
                raise ShapeError(f"Invalid padding string: '{padding}'")
        else:
            padding = _argument(padding, spatial)
        check_forward(x_shape, w_shape, b_shape, stride, padding, dilation, groups)
        if any(grow):  # F.pad's pairs run from the last dim to the first
            x = apply("pad", x, pad=tuple(v for extra in reversed(grow) for v in (0, extra)))
        out = apply(
            "convolution",
            x,
            w,
            0.0 if b is None else b,
            stride=stride,
            padding=padding,
            dilation=dilation,
            groups=groups,
        )
        return out if batched else apply("squeeze", out, dim=0)

    return Composite(
        name,
        arity=3,
        params=_PARAMS,
        build=build,
        torch=f"torch.nn.functional.{name}",
        derivative=(
            "one ConvolutionBackward0 over input, weight and bias (if given); an unbatched input is "
            "unsqueezed and the result squeezed, padding='same' with an odd total pads the right side first"
        ),
        shaped=True,
        optional=1,
    )


OPS: tuple[Op, ...] = ()  # convolution is reached through F.conv1d and F.conv2d
COMPOSITES: tuple[Composite, ...] = (_conv(1), _conv(2))
SIGNATURES: dict[str, tuple[str, ...]] = {
    name: ("input", "weight", "bias", "stride", "padding", "dilation", "groups")
    for name in ("conv1d", "conv2d")
}
