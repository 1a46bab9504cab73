"""Elementwise math beyond the basics: exp2/log2/erf..., rounding (zero gradients), atan2,
maximum/minimum and clamp, each with PyTorch's derivatives.yaml rule and its conventions
at ties and bounds (maximum splits a tie's gradient in half, clamp passes it at a bound).
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import ShapeError
from .core import Batching, Op, Param, Shape, Spelling, _fn, _sgn, _unary, broadcast_shapes, call

_LN2 = 0.6931471805599453  # M_LN2, as derivatives.yaml writes exp2's and log2's rules
_LN10 = 2.3025850929940456
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_HALF_SQRT_PI = 0.5 * math.sqrt(math.pi)
_ERF = np.frompyfunc(math.erf, 1, 1)
_ERFC = np.frompyfunc(math.erfc, 1, 1)


# ---------------------------------------------------------------- erf (NumPy has no ufunc)


def erf(a):
    """math.erf element by element (correctly rounded to the last bit or so, like torch's)."""
    if not hasattr(a, "dtype"):
        a = np.asarray(a)
    out, dtype = _ERF(a), a.dtype if a.dtype.kind == "f" else np.float64
    return out.astype(dtype) if hasattr(out, "astype") else np.asarray(out, dtype=dtype)


# erfinv: torch's x86 wheels call MKL's vsErfInv/vdErfInv (closed code, nearly correctly rounded).
# gradcli starts from ATen's own first guess (Math.h calc_erfinv's rational fit) and takes
# Newton's steps in double, the tails on erfc: float32 results equal torch's on all but 30 of
# 100,000 uniform draws in (-1, 1); float64 ones are within 1 ulp of torch's (12% differ).
_ERFINV_CENTRAL = ((0.886226899, -1.645349621, 0.914624893, -0.140543331), (-2.118377725, 1.442710462, -0.329097515, 0.012229801))
_ERFINV_TAIL = ((-1.970840454, -1.624906493, 3.429567803, 1.641345311), (3.543889200, 1.637067800))


def erfinv(a):
    """The inverse error function: nan outside [-1, 1], +-inf at +-1 (torch.erfinv's conventions)."""
    if not hasattr(a, "dtype"):
        a = np.asarray(a)
    dtype = a.dtype if a.dtype.kind == "f" else np.float64
    y = np.asarray(a, dtype=np.float64)
    size = np.abs(y)
    (a0, a1, a2, a3), (b0, b1, b2, b3) = _ERFINV_CENTRAL
    (c0, c1, c2, c3), (d0, d1) = _ERFINV_TAIL
    with np.errstate(all="ignore"):
        z = y * y
        central = y * (((a3 * z + a2) * z + a1) * z + a0) / ((((b3 * z + b2) * z + b1) * z + b0) * z + 1.0)
        w = np.sqrt(-np.log((1.0 - size) / 2.0))
        tail = np.copysign(((c3 * w + c2) * w + c1) * w + c0, y) / ((d1 * w + d0) * w + 1.0)
        x = np.where(size <= 0.7, central, tail)
        inside = size < 1
        x = np.where(inside, x, 0.0)
        # Newton's steps on erf(x) = y; in the tails on erfc(|x|) = 1 - |y| (exact there), which
        # keeps the digits erf(x) - y cancels away near +-1
        for _ in range(3):  # ATen takes two; a third settles the far tails (1 - 1e-15)
            slope = _TWO_OVER_SQRT_PI * np.exp(-x * x)
            near_one = np.sign(y) * ((1.0 - size) - np.asarray(_ERFC(np.abs(x)), dtype=np.float64))
            x = x - np.where(size <= 0.7, erf(x) - y, near_one) / slope
        x = np.where(size == 1, np.copysign(np.inf, y), np.where(inside, x, np.nan))
    return x.astype(dtype)


def _zero_grad(g, out, a, **attrs):
    # derivatives.yaml: sign, floor, ceil, round, trunc all have `self: zeros_like(grad)`,
    # a tensor with no history: under create_graph the gradient does not require grad.
    return np.zeros(np.shape(g))


# ---------------------------------------------------------------- maximum / minimum


def _max_grad(g, out, a, b, first: bool, larger: bool):
    """derivatives.yaml: where(self == other, grad / 2, grad).masked_fill_(self < other, 0) for
    maximum's self (> for its other; minimum swaps them): a tie splits the gradient in half."""
    half = np.where(np.equal(a, b), g / 2, g)
    loses = np.less(a, b) if first == larger else np.greater(a, b)
    return np.where(loses, 0.0, half)


# ---------------------------------------------------------------- atan2


def _atan2(a, b):
    return np.arctan2(a, b)


def _atan2_grads(g, a, b):
    # atan2_backward: recip = (self * self + other * other).reciprocal(), masked_fill'd to 0
    # where it is inf; then grad * other * recip and grad * -self * recip.
    recip = call("reciprocal", a * a + b * b)
    recip = call("masked_fill", recip, np.equal(recip, np.inf), value=0.0)  # a sum of squares: inf is +inf
    return g * b * recip, g * -a * recip


# ---------------------------------------------------------------- clamp (number bounds)


def _clamp(a, min=None, max=None):  # noqa: A002 - PyTorch's keyword names
    out = np.copy(a)  # a copy: the result is a tensor of its own
    if min is not None:
        out = np.maximum(out, min)
    if max is not None:
        out = np.minimum(out, max)
    return out


def _clamp_grad(g, out, a, min=None, max=None):  # noqa: A002
    # clamp_backward: grad where min <= self <= max (bounds included; nan gets 0), else 0.
    passes = np.ones(np.shape(a), dtype=bool)
    if min is not None:
        passes = np.logical_and(passes, np.greater_equal(a, min))
    if max is not None:
        passes = np.logical_and(passes, np.less_equal(a, max))
    return np.where(passes, g, 0.0)


def _clamp_shape(a: Shape, min=None, max=None) -> Shape:  # noqa: A002
    if min is None and max is None:
        raise ShapeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    return tuple(a)


def _clamp_form(sp, a, shapes=((),), min=None, max=None):  # noqa: A002
    form = a if min is None else sp.Max(a, _number(sp, min))
    return form if max is None else sp.Min(form, _number(sp, max))


# ---------------------------------------------------------------- clamp (tensor bounds)
# torch.clamp(x, lo, hi) with tensor bounds is clamp.Tensor (ClampBackward0). A bound left out
# is an infinite number here: the same values, and the same gradients as derivatives.yaml's
# one-bound branches, since x >= -inf always holds.


def _clamp_tensor(a, lo, hi):
    return np.minimum(np.maximum(a, lo), hi)


def _clamp_tensor_vjp(position: int):
    """clamp_backward (x) and clamp_backward_min_max (lo, hi): where(pred, grad, 0)."""

    def rule(g, out, a, lo, hi):
        if position == 0:
            passes = call("logical_and", call("ge", a, lo), call("le", a, hi))
        elif position == 1:
            passes = call("logical_and", call("lt", a, lo), call("lt", lo, hi))
        else:
            passes = call("logical_or", call("gt", a, hi), call("lt", hi, lo))
        return call("where", passes, g, 0.0)

    return rule


def _clamp_tensor_form(sp, a, lo, hi, shapes=()):
    return sp.Min(sp.Max(a, lo), hi)


def _number(sp, value: float):
    return sp.Integer(int(value)) if float(value).is_integer() and abs(value) < 1e15 else sp.Float(value)


# ---------------------------------------------------------------- round(decimals=)


def _round(a, decimals=None):
    # round half to even, as torch; with decimals torch rounds a * 10**d and divides back.
    return np.rint(a) if decimals is None else np.round(a, decimals)


def _round_form(sp, a, shapes=((),), decimals=None):
    return _fn(sp, "round")(a) if decimals is None else _fn(sp, "round")(a, decimals)


# ---------------------------------------------------------------- nan_to_num


def _nan_to_num(a, nan=None, posinf=None, neginf=None):
    """nan to `nan` (0), +inf to `posinf`, -inf to `neginf` (the dtype's largest and lowest)."""
    a = np.asarray(a)
    if a.dtype.kind != "f":  # integers and bools have nothing to replace
        return a.copy()
    return np.nan_to_num(a, nan=0.0 if nan is None else nan, posinf=posinf, neginf=neginf)


def _nan_to_num_grad(g, out, a, **attrs):
    # derivatives.yaml: grad * at::isfinite(self), a MulBackward0 under create_graph
    return call("mul", g, call("isfinite", a))


OPS: tuple[Op, ...] = (
    _unary(
        "exp2",
        np.exp2,
        lambda g, out, a: g * out * _LN2,
        lambda sp, a: 2**a,
        "Exp2Backward0",
        text="2**{0}",
    ),
    _unary(
        "expm1",
        np.expm1,
        lambda g, out, a: g * (out + 1),
        lambda sp, a: sp.exp(a) - 1,
        "Expm1Backward0",
        text="exp({0}) - 1",
    ),
    _unary(
        "log2",
        np.log2,
        lambda g, out, a: g / (a * _LN2),
        lambda sp, a: sp.log(a) / sp.log(2),
        "Log2Backward0",
        "x > 0 (log2(0) = -inf)",
        text="log({0})/log(2)",
    ),
    _unary(
        "log10",
        np.log10,
        lambda g, out, a: g / (a * _LN10),
        lambda sp, a: sp.log(a) / sp.log(10),
        "Log10Backward0",
        "x > 0 (log10(0) = -inf)",
        text="log({0})/log(10)",
    ),
    _unary(
        "reciprocal",
        np.reciprocal,
        lambda g, out, a: -g * (out * out),
        lambda sp, a: 1 / a,
        "ReciprocalBackward0",
        "x != 0 (1/0 = inf)",
        text="1/{0}",
    ),
    _unary(
        "rsqrt",
        lambda a: 1 / np.sqrt(a),
        # derivatives.yaml: -0.5 * grad * result.pow(3) (pow 3 multiplies out, as torch)
        lambda g, out, a: -0.5 * g * call("pow", out, 3.0),
        lambda sp, a: 1 / sp.sqrt(a),
        "RsqrtBackward0",
        "x > 0 (rsqrt(0) = inf)",
        text="1/sqrt({0})",
    ),
    _unary(
        "erf",
        erf,
        # derivatives.yaml: 2.0 / sqrt(M_PI) * exp(-(self.pow(2))) * grad
        lambda g, out, a: _TWO_OVER_SQRT_PI * np.exp(-call("pow", a, 2.0)) * g,
        lambda sp, a: sp.erf(a),
        "ErfBackward0",
        text="erf({0})",
        # exp written as e**: the steps use a small vocabulary of functions (tests evaluate them)
    ),
    _unary(
        "erfinv",
        erfinv,
        # derivatives.yaml: 0.5 * sqrt(M_PI) * exp(self.erfinv().pow(2)) * grad
        lambda g, out, a: _HALF_SQRT_PI * np.exp(call("pow", call("erfinv", a), 2.0)) * g,
        lambda sp, a: sp.erfinv(a),
        "ErfinvBackward0",
        "-1 < x < 1 (erfinv(+-1) = +-inf)",
        text="erfinv({0})",
    ),
    _unary(
        "asinh",
        np.arcsinh,
        # derivatives.yaml: grad * (self.pow(2) + 1).rsqrt()
        lambda g, out, a: g * call("rsqrt", call("pow", a, 2.0) + 1),
        lambda sp, a: sp.asinh(a),
        "AsinhBackward0",
        text="asinh({0})",
    ),
    _unary(
        "acosh",
        np.arccosh,
        # derivatives.yaml: grad * (self.pow(2) - 1).rsqrt(); torch 2.13 records self * self
        lambda g, out, a: g * call("rsqrt", a * a - 1),
        lambda sp, a: sp.acosh(a),
        "AcoshBackward0",
        "x >= 1",
        text="acosh({0})",
    ),
    _unary(
        "atanh",
        np.arctanh,
        # derivatives.yaml: grad * 1 / (1 - self.pow(2)); C++'s 1 - t is a sub of a filled tensor
        lambda g, out, a: g * 1 / (np.ones_like(a) - call("pow", a, 2.0)),
        lambda sp, a: sp.atanh(a),
        "AtanhBackward0",
        "-1 < x < 1",
        text="atanh({0})",
    ),
    _unary(
        "sign",
        _sgn,  # torch.sign(nan) = 0, NumPy's is nan
        _zero_grad,
        lambda sp, a: sp.sign(a),
        "SignBackward0",
        saves_tensors=False,
        text="sign({0})",
    ),
    _unary(
        "floor",
        np.floor,
        _zero_grad,
        lambda sp, a: sp.floor(a),
        "FloorBackward0",
        saves_tensors=False,
        text="floor({0})",
    ),
    _unary(
        "ceil",
        np.ceil,
        _zero_grad,
        lambda sp, a: sp.ceiling(a),
        "CeilBackward0",
        saves_tensors=False,
        text="ceiling({0})",
    ),
    _unary(
        "trunc",
        np.trunc,
        _zero_grad,
        lambda sp, a: sp.Function("trunc")(a),
        "TruncBackward0",
        saves_tensors=False,
        text="trunc({0})",
    ),
    Op(
        "round",
        "round(x), round(x, decimals=2) or x.round()",
        forward=_round,
        vjp=(_zero_grad,),
        sympy=_round_form,
        grad_fn="RoundBackward0",
        torch="torch.round",
        saves_tensors=False,
        # decimals= is not part of the elementwise text forms, so round is a tensor-level record
        elementwise=False,
        params=(Param("decimals", None, "int"),),
        infer_shape=lambda a, decimals=None: tuple(a),
        pick_grad_fn=lambda kinds, shapes, attrs: (
            "RoundBackward0" if attrs.get("decimals") is None else "RoundBackward1"
        ),
        batching=Batching("elementwise"),
    ),
    Op(
        "atan2",
        "atan2(a,b), torch.atan2(a, b) or a.atan2(b)",
        forward=_atan2,
        vjp=(lambda g, out, a, b: _atan2_grads(g, a, b)[0], lambda g, out, a, b: _atan2_grads(g, a, b)[1]),
        sympy=lambda sp, a, b: sp.atan2(a, b),
        text="atan2({0}, {1})",
        grad_fn="Atan2Backward0",
        torch="torch.atan2",
    ),
    Op(
        "maximum",
        "maximum(a,b), torch.maximum(a, b) or a.maximum(b)",
        forward=np.maximum,
        vjp=(
            lambda g, out, a, b: _max_grad(g, out, a, b, first=True, larger=True),
            lambda g, out, a, b: _max_grad(g, out, a, b, first=False, larger=True),
        ),
        sympy=lambda sp, a, b: sp.Max(a, b),
        text="Max({0}, {1})",
        grad_fn="MaximumBackward0",
        torch="torch.maximum",
    ),
    Op(
        "minimum",
        "minimum(a,b), torch.minimum(a, b) or a.minimum(b)",
        forward=np.minimum,
        vjp=(
            lambda g, out, a, b: _max_grad(g, out, a, b, first=True, larger=False),
            lambda g, out, a, b: _max_grad(g, out, a, b, first=False, larger=False),
        ),
        sympy=lambda sp, a, b: sp.Min(a, b),
        text="Min({0}, {1})",
        grad_fn="MinimumBackward0",
        torch="torch.minimum",
    ),
    Op(
        "clamp",
        "clamp(x), clamp(x, min=0, max=1) or x.clamp(min=0)",
        forward=_clamp,
        vjp=(_clamp_grad,),
        sympy=_clamp_form,
        grad_fn="ClampBackward1",
        torch="torch.clamp",
        domain="number bounds; at least one of min, max",
        # min=/max= are not part of the elementwise text forms, so clamp is a tensor-level record
        elementwise=False,
        params=(Param("min", None, "number"), Param("max", None, "number")),
        infer_shape=_clamp_shape,
        batching=Batching("elementwise"),
    ),
    Op(
        "nan_to_num",
        "torch.nan_to_num(x), x.nan_to_num(nan=0.0, posinf=9.0) or neginf=",
        forward=_nan_to_num,
        vjp=(_nan_to_num_grad,),
        sympy=lambda sp, a, shapes=((),), **attrs: a,  # a symbol stands for a finite number
        grad_fn="NanToNumBackward0",
        torch="torch.nan_to_num",
        elementwise=False,
        params=(Param("nan", None, "number"), Param("posinf", None, "number"), Param("neginf", None, "number")),
        infer_shape=lambda a, **attrs: tuple(a),
        batching=Batching("elementwise"),
    ),
    Op(
        "clamp_tensor",
        "torch.clamp(x, lo, hi) or x.clamp(min=lo) with tensor bounds",
        forward=_clamp_tensor,
        vjp=tuple(_clamp_tensor_vjp(k) for k in range(3)),
        sympy=_clamp_tensor_form,
        grad_fn="ClampBackward0",
        torch="torch.clamp",
        domain="tensor bounds (both tensors, or one left out)",
        elementwise=False,
        function=False,
        method=False,
        infer_shape=lambda a, lo, hi: broadcast_shapes(a, lo, hi),
        written=lambda texts, attrs: "torch.clamp("
        + ", ".join(
            [texts[0]]
            + [f"{key}={text}" for key, text in (("min", texts[1]), ("max", texts[2])) if text not in ("-inf", "inf")]
        )
        + ")",
    ),
)

# torch.clamp's argument names: a tensor bound may be given by position or keyword.
SIGNATURES: dict[str, tuple[str, ...]] = {"clamp_tensor": ("input", "min", "max")}

TORCH_ALIASES: dict[str, Spelling] = {
    "clip": Spelling("clamp"),
    "fix": Spelling("trunc"),
    "arctan2": Spelling("atan2"),
}
# NumPy's clip(a, a_min, a_max) is clamp(x, min, max), by position or keyword; rint is round.
NUMPY_ALIASES: dict[str, Spelling] = {
    "clip": Spelling("clamp", renames=(("a_min", "min"), ("a_max", "max"))),
    "rint": Spelling("round"),
    "fix": Spelling("trunc"),
    "arctan2": Spelling("atan2"),
}
