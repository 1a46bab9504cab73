"""`F.max_pool2d`, `F.avg_pool2d`, `F.max_pool1d` and `F.avg_pool1d` as torch 2.13 records them.

max_pool2d is one MaxPool2DWithIndicesBackward0 node, avg_pool2d one AvgPool2DBackward0; the
1-d pools are ATen's compositions (MaxPooling.cpp, AveragePool1d): `x.unsqueeze(-2)`, the 2-d
pool with a (1, k) kernel, `.squeeze(-2)` (UnsqueezeBackward0, the 2-d node, SqueezeBackward1).

The kernels follow ATen's CPU loops (MaxPoolKernel.cpp, AvgPoolKernel.cpp), vectorised over
every output position with one pass per kernel offset, so values and gradients are torch's
bits in float32 and float64 alike:
- max: a window's first in-bounds element starts as its index with -inf as its value; an
  element replaces it when it is greater or NaN (so the first maximum wins, and the last NaN).
  The backward adds g at that index, output positions in order (np.add.at keeps the order).
- avg: the window's in-bounds elements summed in row-major order from 0, divided by
  divisor_override, or by the window clipped to the padded input (count_include_pad), or to
  the input; the backward adds g / divisor to each in-bounds element, output positions in
  order. A window wholly in the padding gives 0.
The VJPs read their operand as an array, so create_graph through a pool is refused with the
engine's clear message, as F.layer_norm's is.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import IndexOutOfRange, ShapeError
from .convolution import check_work
from .core import Composite, Op, Param, Shape, _fn
from .shape import _listed

_KERNEL = Param("kernel_size", None, "ints")
_STRIDE = Param("stride", None, "ints")
_PADDING = Param("padding", 0, "ints")
_DILATION = Param("dilation", 1, "ints")
_CEIL = Param("ceil_mode", False, "bool")
_INDICES = Param("return_indices", False, "bool")
_INCLUDE_PAD = Param("count_include_pad", True, "bool")
_DIVISOR = Param("divisor_override", None, "int")


def _ints(value) -> tuple[int, ...]:
    if value is None:
        return ()
    return tuple(int(v) for v in value) if isinstance(value, (tuple, list)) else (int(value),)


def _trunc_half(value: int) -> int:
    """C++'s value / 2 (toward zero)."""
    return -((-value) // 2) if value < 0 else value // 2


def _output_size(size: int, k: int, pad: int, s: int, d: int, ceil_mode: bool) -> int:
    """ATen's pooling_output_shape, with its checks."""
    if s == 0:
        raise ShapeError("stride should not be zero")
    if pad < 0:
        raise ShapeError(f"pad must be non-negative, but got pad: {pad}")
    if pad > _trunc_half((k - 1) * d + 1):
        raise ShapeError(
            f"pad should be at most half of effective kernel size, but got pad={pad}, kernel_size={k} and dilation={d}"
        )
    out = (size + 2 * pad - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= size + pad:
        out -= 1
    return out


def _pool_shape(x: Shape, kernel, stride, padding, dilation, ceil_mode: bool) -> Shape:
    """The output sizes and pool2d_shape_check's checks, in ATen's order."""
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
    planes, height, width = x[-3], x[-2], x[-1]
    out_h = _output_size(height, kh, ph, sh, dh, ceil_mode)
    out_w = _output_size(width, kw, pw, sw, dw, ceil_mode)
    if kh <= 0 or kw <= 0:
        raise ShapeError(f"kernel size should be greater than zero, but got kH: {kh} kW: {kw}")
    if sh <= 0 or sw <= 0:
        raise ShapeError(f"stride should be greater than zero, but got dH: {sh} dW: {sw}")
    if dh <= 0 or dw <= 0:
        raise ShapeError(f"dilation should be greater than zero, but got dilationH: {dh} dilationW: {dw}")
    valid = x[-3] != 0 and x[-2] != 0 and x[-1] != 0
    if not ((len(x) == 3 and valid) or (len(x) == 4 and valid)):
        raise ShapeError(
            f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:{_listed(x)}"
        )
    if kw // 2 < pw or kh // 2 < ph:
        raise ShapeError(
            f"pad should be smaller than or equal to half of kernel size, but got padW = {pw}, padH = {ph}, "
            f"kW = {kw}, kH = {kh}"
        )
    if out_h < 1 or out_w < 1:
        raise ShapeError(
            f"Given input size: ({planes}x{height}x{width}). Calculated output size: ({planes}x{out_h}x{out_w}). "
            "Output size is too small"
        )
    shape = (*x[:-2], out_h, out_w)
    check_work(math.prod(shape) * kh * kw, kh * kw, f"a {kh}x{kw} pool over input {_listed(x)}")
    return shape


def _two(name: str, what: str, value, omitted: bool = False) -> tuple[int, ...]:
    values = _ints(value)
    if omitted and not values:
        return ()
    if len(values) not in (1, 2):
        words = (
            "must either be omitted, a single int, or a tuple of two ints"
            if omitted
            else (
                "must be either a single int, or a tuple of two ints"
                if what == "dilation"
                else "must either be a single int, or a tuple of two ints"
            )
        )
        raise ShapeError(f"{name}: {what} {words}")
    return values * 2 if len(values) == 1 else values


def _max_args(x: Shape, kernel_size, stride, padding, dilation):
    kernel = _two("max_pool2d", "kernel_size", kernel_size)
    stride = _two("max_pool2d", "stride", stride, omitted=True) or kernel
    padding = _two("max_pool2d", "padding", padding)
    dilation = _two("max_pool2d", "dilation", dilation)
    if len(x) not in (3, 4):
        raise ShapeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    return kernel, stride, padding, dilation


def _avg_args(x: Shape, kernel_size, stride, padding, divisor_override):
    kernel = _two("avg_pool2d", "kernel_size", kernel_size)
    stride = _two("avg_pool2d", "stride", stride, omitted=True) or kernel
    padding = _two("avg_pool2d", "padding", padding)
    if divisor_override == 0:
        raise ShapeError("divisor must be not zero")
    if len(x) < 3:
        low, high = (-1, 0) if not x else (-len(x), len(x) - 1)
        raise IndexOutOfRange(
            f"Dimension out of range (expected to be in range of [{low}, {high}], but got -3)"
        )
    return kernel, stride, padding


def _max_shape(x: Shape, kernel_size=None, stride=None, padding=0, dilation=1, ceil_mode=False) -> Shape:
    kernel, stride, padding, dilation = _max_args(x, kernel_size, stride, padding, dilation)
    return _pool_shape(x, kernel, stride, padding, dilation, ceil_mode)


def _avg_shape(
    x: Shape,
    kernel_size=None,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
) -> Shape:
    kernel, stride, padding = _avg_args(x, kernel_size, stride, padding, divisor_override)
    return _pool_shape(x, kernel, stride, padding, (1, 1), ceil_mode)


# ---------------------------------------------------------------- NumPy kernels


def _starts(size: int, out: int, s: int, pad: int) -> np.ndarray:
    return np.arange(out) * s - pad


def _planes(x: np.ndarray) -> np.ndarray:
    """The input as (B, H, W): batch and channels are independent planes."""
    return x.reshape(-1, *x.shape[-2:])


def _padded(planes: np.ndarray, kernel, stride, padding, dilation, out) -> np.ndarray:
    """Zero padding on both sides, and on the right as far as ceil_mode's last window reaches."""
    pads = [(0, 0)]
    for size, k, s, p, d, o in zip(planes.shape[1:], kernel, stride, padding, dilation, out):
        pads.append((p, max(0, (o - 1) * s + d * (k - 1) + 1 - size - p)))
    return np.pad(planes, pads)


def _offsets(kernel, stride, dilation, out):
    """Each kernel offset (i, j) with where it reads the padded planes."""
    for i in range(kernel[0]):
        for j in range(kernel[1]):
            rows = slice(i * dilation[0], i * dilation[0] + stride[0] * (out[0] - 1) + 1, stride[0])
            cols = slice(j * dilation[1], j * dilation[1] + stride[1] * (out[1] - 1) + 1, stride[1])
            yield i, j, rows, cols


def _max_indices(x: np.ndarray, kernel_size=None, stride=None, padding=0, dilation=1, ceil_mode=False):
    """(values, flat indices into each plane) as ATen's cpu_max_pool computes them."""
    kernel, stride, padding, dilation = _max_args(x.shape, kernel_size, stride, padding, dilation)
    out = _pool_shape(x.shape, kernel, stride, padding, dilation, ceil_mode)[-2:]
    planes = _planes(x)
    height, width = planes.shape[1:]
    padded = _padded(planes, kernel, stride, padding, dilation, out)
    starts = [_starts(n, o, s, p) for n, o, s, p in zip((height, width), out, stride, padding)]
    # the first in-bounds element of each window: its index is where the search starts
    firsts = [st + (-(np.minimum(st, 0)) + d - 1) // d * d for st, d in zip(starts, dilation)]
    index = np.broadcast_to(firsts[0][:, None] * width + firsts[1][None, :], (planes.shape[0], *out)).copy()
    best = np.full((planes.shape[0], *out), -np.inf, dtype=planes.dtype)
    for i, j, rows, cols in _offsets(kernel, stride, dilation, out):
        at_rows, at_cols = starts[0] + i * dilation[0], starts[1] + j * dilation[1]
        inside = ((at_rows >= 0) & (at_rows < height))[:, None] & ((at_cols >= 0) & (at_cols < width))[
            None, :
        ]
        value = padded[:, rows, cols]
        better = inside & ((value > best) | np.isnan(value))
        best = np.where(better, value, best)
        index = np.where(better, at_rows[:, None] * width + at_cols[None, :], index)
    return best.reshape(*x.shape[:-2], *out), index


def _max_forward(x, kernel_size=None, stride=None, padding=0, dilation=1, ceil_mode=False):
    return _max_indices(np.asarray(x), kernel_size, stride, padding, dilation, ceil_mode)[0]


def _max_grad(g, out, x, kernel_size=None, stride=None, padding=0, dilation=1, ceil_mode=False):
    """max_pool2d_with_indices_backward: g added at each window's index, outputs in order."""
    x, g = np.asarray(x), np.asarray(g)
    _, index = _max_indices(x, kernel_size, stride, padding, dilation, ceil_mode)
    planes = index.shape[0]
    area = x.shape[-2] * x.shape[-1]
    grad = np.zeros(planes * area, dtype=g.dtype)
    flat = (np.arange(planes)[:, None, None] * area + index).ravel()
    np.add.at(grad, flat, g.reshape(-1))
    return grad.reshape(x.shape)


def _divisors(x: Shape, kernel, stride, padding, out, count_include_pad, divisor_override):
    """Each window's divide_factor, and whether it holds no input element (cpu_avg_pool)."""
    spans = []
    for size, k, s, p, o in zip(x[-2:], kernel, stride, padding, out):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, size + p)
        pool = end - start
        start, end = np.maximum(start, 0), np.minimum(end, size)
        spans.append((pool, end - start))
    (pool_h, in_h), (pool_w, in_w) = spans
    empty = (in_h <= 0)[:, None] | (in_w <= 0)[None, :]
    if divisor_override is not None:
        divisor = np.full(out, divisor_override)
    elif count_include_pad:
        divisor = pool_h[:, None] * pool_w[None, :]
    else:
        divisor = in_h[:, None] * in_w[None, :]
    return divisor, empty


def _avg_forward(
    x,
    kernel_size=None,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
):
    x = np.asarray(x)
    kernel, stride, padding = _avg_args(x.shape, kernel_size, stride, padding, divisor_override)
    out = _pool_shape(x.shape, kernel, stride, padding, (1, 1), ceil_mode)[-2:]
    planes = _planes(x)
    padded = _padded(planes, kernel, stride, padding, (1, 1), out)
    total = np.zeros((planes.shape[0], *out), dtype=planes.dtype)
    for _, _, rows, cols in _offsets(kernel, stride, (1, 1), out):
        total += padded[:, rows, cols]  # row-major from 0, as torch sums a window
    divisor, empty = _divisors(x.shape, kernel, stride, padding, out, count_include_pad, divisor_override)
    result = np.where(empty, planes.dtype.type(0), total / divisor.astype(planes.dtype))
    return result.reshape(*x.shape[:-2], *out)


def _avg_grad(
    g,
    out,
    x,
    kernel_size=None,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
):
    """avg_pool2d_backward: g / divisor added to each window's in-bounds elements. The offsets run
    backwards so each input element takes its windows' shares in torch's order (outputs ascending)."""
    x, g = np.asarray(x), np.asarray(g)
    kernel, stride, padding = _avg_args(x.shape, kernel_size, stride, padding, divisor_override)
    out = g.shape[-2:]
    divisor, empty = _divisors(x.shape, kernel, stride, padding, out, count_include_pad, divisor_override)
    share = np.where(empty, g.dtype.type(0), g.reshape(-1, *out) / divisor.astype(g.dtype))
    planes = np.zeros((share.shape[0], *x.shape[-2:]), dtype=g.dtype)
    padded = _padded(planes, kernel, stride, padding, (1, 1), out)
    for _, _, rows, cols in reversed(list(_offsets(kernel, stride, (1, 1), out))):
        padded[:, rows, cols] += share
    height, width = x.shape[-2:]
    return padded[:, padding[0] : padding[0] + height, padding[1] : padding[1] + width].reshape(x.shape)


# ---------------------------------------------------------------- records


def _pool_text(name: str, keys: tuple[tuple[str, object], ...]):
    def written(texts, attrs) -> str:
        parts = [f"{texts[0]}", repr(attrs.get("kernel_size"))]
        parts += [f"{key}={attrs[key]!r}" for key, default in keys if attrs.get(key, default) != default]
        return f"F.{name}({', '.join(parts)})"

    return written


def _window_steps(shapes: list[Shape], shape: Shape, attrs: dict) -> int:
    """A pool's work: each result element visits its window."""
    kernel = attrs.get("kernel_size") or 1
    return math.prod(shape) * math.prod(kernel if isinstance(kernel, (tuple, list)) else (kernel, kernel))


_MAX_PARAMS = (_KERNEL, _STRIDE, _PADDING, _DILATION, _CEIL)
_AVG_PARAMS = (_KERNEL, _STRIDE, _PADDING, _CEIL, _INCLUDE_PAD, _DIVISOR)

INTERNAL: tuple[Op, ...] = (
    Op(
        "max_pool2d_with_indices",
        "(internal) F.max_pool2d(x, kernel_size, stride, padding, dilation, ceil_mode)",
        forward=_max_forward,
        vjp=(_max_grad,),
        sympy=lambda sp, x, shapes=(), **attrs: _fn(sp, "max_pool2d")(x),
        grad_fn="MaxPool2DWithIndicesBackward0",
        torch="torch.nn.functional.max_pool2d",
        elementwise=False,
        function=False,
        method=False,
        params=_MAX_PARAMS,
        infer_shape=_max_shape,
        work=_window_steps,
        written=_pool_text(
            "max_pool2d", (("stride", None), ("padding", 0), ("dilation", 1), ("ceil_mode", False))
        ),
    ),
    Op(
        "_avg_pool2d",
        "(internal) F.avg_pool2d(x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)",
        forward=_avg_forward,
        vjp=(_avg_grad,),
        sympy=lambda sp, x, shapes=(), **attrs: _fn(sp, "avg_pool2d")(x),
        grad_fn="AvgPool2DBackward0",
        torch="torch.nn.functional.avg_pool2d",
        elementwise=False,
        function=False,
        method=False,
        params=_AVG_PARAMS,
        infer_shape=_avg_shape,
        work=_window_steps,
        written=_pool_text(
            "avg_pool2d",
            (
                ("stride", None),
                ("padding", 0),
                ("ceil_mode", False),
                ("count_include_pad", True),
                ("divisor_override", None),
            ),
        ),
    ),
)


# ---------------------------------------------------------------- F. functions


def _max_pool2d(
    apply, x, kernel_size=None, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False, **_
):
    if kernel_size is None:
        raise ShapeError('max_pool2d() missing 1 required positional arguments: "kernel_size"')
    if return_indices:
        raise ShapeError(
            "F.max_pool2d(..., return_indices=True) is not supported: gradcli returns the values only"
        )
    return apply(
        "max_pool2d_with_indices",
        x,
        kernel_size=kernel_size,
        stride=stride,
        padding=padding,
        dilation=dilation,
        ceil_mode=ceil_mode,
    )


def _avg_pool2d(
    apply,
    x,
    kernel_size=None,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
    **_,
):
    if kernel_size is None:
        raise ShapeError('avg_pool2d() missing 1 required positional arguments: "kernel_size"')
    return apply(
        "_avg_pool2d",
        x,
        kernel_size=kernel_size,
        stride=stride,
        padding=padding,
        ceil_mode=ceil_mode,
        count_include_pad=count_include_pad,
        divisor_override=divisor_override,
    )


def _max_pool1d(
    apply,
    x,
    kernel_size=None,
    stride=None,
    padding=0,
    dilation=1,
    ceil_mode=False,
    return_indices=False,
    shapes=(),
    **_,
):
    """ATen's check_max_pool1d, then max_pool2d_with_indices of x.unsqueeze(-2), squeezed back."""
    shape = tuple(shapes[0])
    if kernel_size is None:
        raise ShapeError('max_pool1d() missing 1 required positional arguments: "kernel_size"')
    if return_indices:
        raise ShapeError(
            "F.max_pool1d(..., return_indices=True) is not supported: gradcli returns the values only"
        )
    if len(shape) not in (2, 3) or 0 in shape[-2:]:
        raise ShapeError(
            f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but got:{_listed(shape)}"
        )
    kernel, strides, pads, dilations = (_ints(v) for v in (kernel_size, stride, padding, dilation))
    for what, values, words in (
        ("kernel_size", kernel, "an int, list of ints or tuple of ints"),
        ("stride", strides, "None, an int, list of ints, or tuple of ints"),
        ("padding", pads, "an int, list of ints, or tuple of ints"),
        ("dilation", dilations, "an int, list of ints or tuple of ints"),
    ):
        if len(values) != 1 and not (what == "stride" and not values):
            raise ShapeError(f"max_pool1d() {what} must be {words} of size 1 but got size {len(values)}")
    (k,), (p,), (d,) = kernel, pads, dilations
    (s,) = strides or kernel
    for what, value, bad in (("kernel_size", k, k <= 0), ("stride", s, s <= 0)):
        if bad:
            raise ShapeError(f"max_pool1d() {what} must be greater than zero, but got {value}")
    if p < 0:
        raise ShapeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise ShapeError(
            f"max_pool1d() padding should be at most half of kernel size, but got padding={p} and kernel_size={k}"
        )
    if d <= 0:
        raise ShapeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    width = _output_size(shape[-1], k, p, s, d, ceil_mode)
    if width <= 0:
        raise ShapeError(f"max_pool1d() Invalid computed output size: {width}")
    pooled = apply(
        "max_pool2d_with_indices",
        apply("unsqueeze", x, dim=-2),
        kernel_size=(1, k),
        stride=(1, s),
        padding=(0, p),
        dilation=(1, d),
        ceil_mode=ceil_mode,
    )
    return apply("squeeze", pooled, dim=-2)


def _avg_pool1d(
    apply,
    x,
    kernel_size=None,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    shapes=(),
    **_,
):
    """ATen's avg_pool1d: its own checks, then avg_pool2d of x.unsqueeze(-2), squeezed back."""
    shape = tuple(shapes[0])
    if kernel_size is None:
        raise ShapeError('avg_pool1d() missing 1 required positional arguments: "kernel_size"')
    if len(shape) not in (2, 3):
        raise ShapeError(
            f"Expected 2 to 3 dimensions, but got {len(shape)}-dimensional tensor for argument #1 'self' "
            "(while checking arguments for avg_pool1d)"
        )
    kernel = _ints(kernel_size)
    strides = _ints(stride) or kernel
    pads = _ints(padding)
    for what, values in (("kernel_size", kernel), ("stride", strides), ("padding", pads)):
        if len(values) != 1:
            raise ShapeError(f"avg_pool1d() argument '{what}' should contain one int (got {len(values)})")
    pooled = apply(
        "_avg_pool2d",
        apply("unsqueeze", x, dim=-2),
        kernel_size=(1, kernel[0]),
        stride=(1, strides[0]),
        padding=(0, pads[0]),
        ceil_mode=ceil_mode,
        count_include_pad=count_include_pad,
        divisor_override=None,
    )
    return apply("squeeze", pooled, dim=-2)


OPS: tuple[Op, ...] = ()  # the pools are reached through their F. functions
COMPOSITES: tuple[Composite, ...] = (
    Composite(
        "max_pool2d",
        arity=1,
        params=(*_MAX_PARAMS, _INDICES),
        build=_max_pool2d,
        torch="torch.nn.functional.max_pool2d",
        derivative="one MaxPool2DWithIndicesBackward0: g to each window's first maximum",
    ),
    Composite(
        "avg_pool2d",
        arity=1,
        params=_AVG_PARAMS,
        build=_avg_pool2d,
        torch="torch.nn.functional.avg_pool2d",
        derivative="one AvgPool2DBackward0: g / divisor to every element of the window",
    ),
    Composite(
        "max_pool1d",
        arity=1,
        params=(*_MAX_PARAMS, _INDICES),
        build=_max_pool1d,
        torch="torch.nn.functional.max_pool1d",
        derivative="x.unsqueeze(-2), max_pool2d with a (1, k) kernel, .squeeze(-2): UnsqueezeBackward0, "
        "MaxPool2DWithIndicesBackward0, SqueezeBackward1",
        shaped=True,
    ),
    Composite(
        "avg_pool1d",
        arity=1,
        params=_AVG_PARAMS[:-1],
        build=_avg_pool1d,
        torch="torch.nn.functional.avg_pool1d",
        derivative="x.unsqueeze(-2), avg_pool2d with a (1, k) kernel, .squeeze(-2): UnsqueezeBackward0, "
        "AvgPool2DBackward0, SqueezeBackward1",
        shaped=True,
    ),
)
