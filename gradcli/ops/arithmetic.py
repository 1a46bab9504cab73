"""Arithmetic: the infix operators and matmul, with their function and method names."""

from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from .core import (
    NUMBER,
    TENSOR,
    Op,
    Param,
    Spelling,
    _fn,
    _matmul_grad_a,
    _matmul_grad_b,
    _matmul_grad_fn,
    _matmul_shape,
    _pow_grad_base,
    _power,
    _sym_matmul,
    broadcast_shapes,
    call,
)


def _pow_grad_exponent(g, out, a, b):
    """pow_backward_exponent: grad * where(self == 0 & exponent >= 0, 0, result * log(self)).

    The grad multiplies outside the where, as in PyTorch: so 0**y differentiated twice is
    nan (0 * log(0) meets the masked branch), not 0."""
    return g * np.where(np.logical_and(np.equal(a, 0), np.greater_equal(b, 0)), 0.0, out * np.log(a))


# ---------------------------------------------------------------- Scalar overloads
# torch's C++ code (cross_entropy's label smoothing and its mean) calls the Scalar overloads
# of mul, add and div, which record MulBackward1, AddBackward1 and DivBackward1; Python's
# `x * 2.0` wraps the number as a tensor and records MulBackward0. Composites use these
# records where torch's C++ does; a program calls them as torch does, torch.ops.aten.mul.Scalar.
OTHER = Param("other", 1.0, "number")


OPS: tuple[Op, ...] = (
    Op(
        "add",
        "a + b",
        forward=lambda a, b: np.add(a, b),
        vjp=(lambda g, out, a, b: g, lambda g, out, a, b: g),
        sympy=lambda sp, a, b: a + b,
        text="{0} + {1}",
        grad_fn="AddBackward0",
        torch="torch.add",
        saves_tensors=False,
        function=False,
        method=False,
    ),
    Op(
        "sub",
        "a - b",
        forward=lambda a, b: np.subtract(a, b),
        vjp=(lambda g, out, a, b: g, lambda g, out, a, b: -g),
        sympy=lambda sp, a, b: a - b,
        text="{0} - {1}",
        grad_fn="SubBackward0",
        torch="torch.sub",
        saves_tensors=False,
        function=False,
        method=False,
        pick_grad_fn=lambda kinds, shapes, attrs: "RsubBackward1" if kinds[0] == NUMBER else "SubBackward0",
    ),
    Op(
        "mul",
        "a * b",
        forward=lambda a, b: np.multiply(a, b),
        vjp=(lambda g, out, a, b: g * b, lambda g, out, a, b: g * a),
        sympy=lambda sp, a, b: a * b,
        text="{0}*{1}",
        grad_fn="MulBackward0",
        torch="torch.mul",
        function=False,
        method=False,
    ),
    Op(
        "div",
        "a / b",
        forward=lambda a, b: np.true_divide(a, b),
        vjp=(lambda g, out, a, b: g / b, lambda g, out, a, b: -g * ((a / b) / b)),
        sympy=lambda sp, a, b: a / b,
        text="{0}/{1}",
        grad_fn="DivBackward0",
        torch="torch.div",
        domain="b != 0 (1/0 = inf, 0/0 = nan)",
        function=False,
        method=False,
        # number / tensor is reciprocal(tensor) * number in PyTorch: REWRITES below records
        # both nodes; MulBackward0 is the one its output shows.
        pick_grad_fn=lambda kinds, shapes, attrs: "MulBackward0" if kinds[0] == NUMBER else "DivBackward0",
    ),
    Op(
        "pow",
        "a ** b, a ^ b, pow(a, b) or a.pow(b)",
        forward=_power,
        vjp=(_pow_grad_base, _pow_grad_exponent),
        sympy=lambda sp, a, b: a**b,
        text="{0}**{1}",
        grad_fn="PowBackward0",
        torch="torch.pow",
        domain="a > 0 for a tensor exponent; 0**0 = 1",
        pick_grad_fn=lambda kinds, shapes, attrs: {
            (TENSOR, NUMBER): "PowBackward0",
            (TENSOR, TENSOR): "PowBackward1",
            (NUMBER, TENSOR): "PowBackward2",
        }[tuple(kinds)],
    ),
    Op(
        "neg",
        "-a",
        forward=lambda a: np.negative(a),
        vjp=(lambda g, out, a: -g,),
        sympy=lambda sp, a: -a,
        text="-{0}",
        grad_fn="NegBackward0",
        torch="torch.neg",
        saves_tensors=False,
        function=False,
        method=False,
    ),
    Op(
        "matmul",
        "a @ b, matmul(a, b) or a.matmul(b)",
        forward=lambda a, b: np.matmul(a, b),
        vjp=(_matmul_grad_a, _matmul_grad_b),
        sympy=_sym_matmul,
        grad_fn="MmBackward0",
        torch="torch.matmul",
        domain="1-D or 2-D operands with matching inner size",
        elementwise=False,
        infer_shape=_matmul_shape,
        pick_grad_fn=_matmul_grad_fn,
    ),
)


def _scalar(name: str, symbol: str, grad_fn: str, forward, vjp, sympy) -> Op:
    return Op(
        f"{name}_scalar",
        f"torch.ops.aten.{name}.Scalar(x, other): x {symbol} other, as torch's C++ calls it",
        forward=forward,
        vjp=(vjp,),
        sympy=lambda sp, a, shapes=((),), other=1.0: sympy(a, _sym_number(sp, other)),
        grad_fn=grad_fn,
        torch=f"torch.ops.aten.{name}.Scalar",
        saves_tensors=False,  # only the Scalar
        elementwise=False,
        function=False,
        method=False,
        params=(OTHER,),
        infer_shape=lambda a, other=1.0: tuple(a),
        written=lambda operands, attrs: f"torch.ops.aten.{name}.Scalar({operands[0]}, {attrs['other']!r})",
    )


def _sym_number(sp, value: float):
    """A Scalar as the decimal it is written as (0.9 is 9/10), so its text reads back the same."""
    if value == int(value) and abs(value) < 2**53:
        return sp.Integer(int(value))
    return sp.Rational(repr(value))


OPS += (
    _scalar(
        "mul",
        "*",
        "MulBackward1",
        lambda a, other=1.0: np.multiply(a, other),
        lambda g, out, a, other=1.0: g * other,
        lambda a, b: a * b,
    ),
    _scalar(
        "add",
        "+",
        "AddBackward1",
        lambda a, other=1.0: np.add(a, other),
        lambda g, out, a, other=1.0: g,
        lambda a, b: a + b,
    ),
    _scalar(
        "div",
        "/",
        "DivBackward1",
        lambda a, other=1.0: np.true_divide(a, other),
        lambda g, out, a, other=1.0: g / other,
        lambda a, b: a / b,
    ),
)


# ---------------------------------------------------------------- remainder, fmod, floor_divide
# `x % y` is torch.remainder (the sign of the divisor, as Python's %), torch.fmod the sign of
# the dividend. derivatives.yaml: self gets grad, other -grad * self.div(other, rounding_mode=
# "floor" | "trunc"). torch has no derivative for number % tensor or for `//` on tensors: the
# result requires grad with grad_fn NotImplemented, and backward raises; so here.


def _integer_zero_check(a, b, python: str) -> None:
    """Between numbers (sizes: `T // 0`) a zero divisor is Python's error; between integer
    tensors it is torch's RuntimeError; a float tensor gives inf or nan."""
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and b == 0:
        raise ShapeError(python)
    if np.asarray(b).dtype.kind in "iub" and np.any(np.equal(b, 0)):
        raise ShapeError("ZeroDivisionError")


def _remainder(a, b):
    _integer_zero_check(a, b, "integer modulo by zero")
    with np.errstate(all="ignore"):
        mod = np.fmod(a, b)
        # torch's kernel: fmod, then add the divisor where the signs differ (so -4 % 2 is -0.)
        return np.where(np.not_equal(mod, 0) & (np.less(b, 0) != np.less(mod, 0)), mod + b, mod)


def _fmod(a, b):
    _integer_zero_check(a, b, "float modulo")
    with np.errstate(all="ignore"):
        return np.fmod(a, b)


def _floor_divide(a, b):
    _integer_zero_check(a, b, "integer division or modulo by zero")
    return _div_rounded(a, b)


def _not_implemented(name: str):
    def vjp(g, out, *operands, **attrs):
        raise ShapeError(f"derivative for aten::{name} is not implemented")

    return vjp


def _div_rounded(a, b, rounding_mode="floor"):
    if rounding_mode == "none":  # rounding_mode=None written out: true division, DivBackward2
        return np.true_divide(a, b)
    plain = (int, float, np.ndarray, np.generic)
    if isinstance(a, plain) and isinstance(b, plain):  # batched and traced values are floating
        _integer_zero_check(a, b, "integer division or modulo by zero")
    with np.errstate(all="ignore"):
        if rounding_mode == "floor":
            return np.floor_divide(a, b)  # NumPy's float floor division is c10::div_floor_floating
        return np.trunc(np.true_divide(a, b))


# torch.div(a, b, rounding_mode=...): what remainder's and fmod's rules call for the divisor's
# gradient, so create_graph records DivBackward2 as torch does. Its own gradients are zeros.
DIV_ROUNDED = Op(
    "_div_rounded",
    "torch.div(a, b, rounding_mode='floor') or a.div(b, rounding_mode='trunc')",
    forward=_div_rounded,
    vjp=(
        lambda g, out, a, b, rounding_mode="floor": g / b if rounding_mode == "none" else np.zeros(np.shape(a)),
        lambda g, out, a, b, rounding_mode="floor": (
            -g * ((a / b) / b) if rounding_mode == "none" else np.zeros(np.shape(b))
        ),
    ),
    sympy=lambda sp, a, b, shapes=(), rounding_mode="floor": _sym_rounded(sp, rounding_mode, a / b),
    grad_fn="DivBackward2",
    torch="torch.div",
    saves_tensors=False,
    elementwise=False,
    function=False,
    method=False,
    # "none": rounding_mode=None written out, which torch records as this overload too
    params=(Param("rounding_mode", "floor", "choice", ("floor", "trunc", "none"), keyword_only=True),),
    infer_shape=lambda a, b, rounding_mode="floor": broadcast_shapes(a, b),
    written=lambda texts, attrs: f"torch.div({texts[0]}, {texts[1]}, rounding_mode="
    + {"none": "None"}.get(attrs.get("rounding_mode", "floor"), repr(attrs.get("rounding_mode", "floor")))
    + ")",
)
INTERNAL = (DIV_ROUNDED,)


def _sym_rounded(sp, rounding: str, quotient):
    """floor(q), or trunc(q) as sympy writes it: sign(q)*floor(|q|); q itself for "none"."""
    if rounding == "none":
        return quotient
    return sp.floor(quotient) if rounding == "floor" else sp.sign(quotient) * sp.floor(sp.Abs(quotient))


_ROUNDED_TEXT = {"floor": "floor({0}/{1})", "trunc": "floor(Abs({0}/{1}))*sign({0}/{1})"}


def _quotient_op(name: str, forward, rounded: str, description: str) -> Op:
    """remainder or fmod: grad to the dividend; -grad * the rounded quotient to the divisor."""
    overloads = {"remainder": ("RemainderBackward0", "RemainderBackward1"), "fmod": ("FmodBackward0", "FmodBackward1")}
    by_number, by_tensor = overloads[name]

    def divisor_grad(g, out, a, b):
        return -g * call("_div_rounded", a, b, rounding_mode=rounded)

    def dividend_grad(g, out, a, b):
        return g

    return Op(
        name,
        description,
        forward=forward,
        vjp=(dividend_grad, divisor_grad),
        sympy=lambda sp, a, b: a - b * _sym_rounded(sp, rounded, a / b),
        text="{0} - {1}*" + _ROUNDED_TEXT[rounded],
        grad_fn=by_tensor,
        torch=f"torch.{name}",
        domain="b != 0 (an integer b = 0 is torch's ZeroDivisionError; a float one gives nan)",
        pick_grad_fn=lambda kinds, shapes, attrs: (
            "NotImplemented" if kinds[0] == NUMBER else by_number if kinds[1] == NUMBER else by_tensor
        ),
    )


OPS += (
    _quotient_op(
        "remainder",
        _remainder,
        "floor",
        "a % b, torch.remainder(a, b) or a.remainder(b)",
    ),
    _quotient_op(
        "fmod",
        _fmod,
        "trunc",
        "fmod(a,b), torch.fmod(a, b) or a.fmod(b)",
    ),
    # `T // 2` of sizes (`x.view(B, T // 2, C * 2)`) folds when the graph is built; on tensors
    # it is torch's floor_divide, whose result requires grad but has no derivative.
    Op(
        "floor_divide",
        "a // b or torch.floor_divide(a, b)",
        forward=_floor_divide,
        vjp=(_not_implemented("floor_divide"),) * 2,
        sympy=lambda sp, a, b: sp.floor(a / b),
        text="floor({0}/{1})",
        grad_fn="NotImplemented",
        torch="torch.floor_divide",
        saves_tensors=False,
        method=False,
    ),
)


# beta * input + alpha * (mat1 @ mat2): what F.linear records for a 2-D input with a bias.


def _addmm_shape(bias, mat1, mat2, beta=1.0, alpha=1.0):
    from .shape import _expand_shape  # torch expands the bias to the product's shape, with its errors

    for name, shape in (("mat1", mat1), ("mat2", mat2)):
        if len(shape) != 2:
            raise ShapeError(f"{name} must be a matrix, got {len(shape)}-D tensor")
    product = _matmul_shape(mat1, mat2)
    _expand_shape(bias, product)
    return product


def _addmm(bias, mat1, mat2, beta=1.0, alpha=1.0):
    product = np.matmul(mat1, mat2)
    if beta == 0:  # torch ignores the input then, nan and inf included
        return alpha * product + np.zeros_like(bias)
    return beta * bias + alpha * product


def _maybe_multiply(t, factor: float):
    """PyTorch's maybe_multiply: a factor of 1 records no MulBackward1 in a gradient graph."""
    return t if factor == 1 else t * factor


ADDMM = Op(
    "addmm",
    "torch.addmm(b, x, W) or b.addmm(x, W, beta=1, alpha=1)",
    forward=_addmm,
    vjp=(
        # derivatives.yaml addmm: self: maybe_multiply(grad, beta); mat1: mm_mat1_backward(grad, mat2) * alpha
        lambda g, out, b, m1, m2, beta=1.0, alpha=1.0: _maybe_multiply(g, beta),
        lambda g, out, b, m1, m2, beta=1.0, alpha=1.0: _maybe_multiply(np.matmul(g, np.transpose(m2)), alpha),
        lambda g, out, b, m1, m2, beta=1.0, alpha=1.0: _maybe_multiply(np.matmul(np.transpose(m1), g), alpha),
    ),
    sympy=lambda sp, b, m1, m2, shapes=(), beta=1.0, alpha=1.0: _fn(sp, "addmm")(b, m1, m2),
    grad_fn="AddmmBackward0",
    torch="torch.addmm",
    domain="2-D x and W that multiply; b broadcasts to the product",
    elementwise=False,
    params=(
        Param("beta", 1.0, "number", keyword_only=True),
        Param("alpha", 1.0, "number", keyword_only=True),
    ),
    infer_shape=_addmm_shape,
    written=lambda operands, attrs: (
        f"torch.addmm({', '.join(operands)})"
        + "".join(f", {k}={attrs[k]!r}" for k in ("beta", "alpha") if attrs.get(k, 1.0) != 1.0)
    ),
)
OPS += (ADDMM,)

# torch.ops.aten spellings: the overloads Python's torch.mul never picks (see MODULES in __init__).
ATEN_MODULES = {
    f"torch.ops.aten.{name}": {"Scalar": Spelling(f"{name}_scalar")} for name in ("mul", "add", "div")
}


def _reversed_div(apply, a, b, *, dtypes=None, **_):
    """number / tensor: Python's Tensor.__rtruediv__ is `self.reciprocal() * other`, so torch
    records MulBackward0 -> ReciprocalBackward0 (its next_functions, its values and its double
    backward follow); None for tensor / anything, which is div itself. A number is a Literal
    in a program's graph (dtypes says NUMBER) and a Python number in `gradcli run`."""
    first_is_number = dtypes[0] == NUMBER if dtypes is not None else isinstance(a, (bool, int, float))
    if not first_is_number:
        return None
    return apply("mul", apply("reciprocal", b), a)


REWRITES = {"div": _reversed_div}
