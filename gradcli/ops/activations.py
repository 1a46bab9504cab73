"""torch.nn.functional activations: leaky_relu, elu, selu, gelu, silu, hardtanh, logsigmoid,
mish, and the ones PyTorch records as other nodes (relu6 is hardtanh, softsign a division,
tanhshrink a subtraction). Kinks follow PyTorch's backward kernels: leaky_relu'(0) is the
slope, elu'(0) is alpha, hardtanh' is 0 at its bounds.
"""

from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from .core import Composite, Op, Param, Shape, _unary, call, wide
from .elementwise_math import _number, erf
from .kernels import kernel, number

# SELU's constants, as torch.nn.functional.selu fixes them.
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946
_SQRT1_2 = 0.70710678118654752440
_GELU_PDF = 1.12837916709551257390 * _SQRT1_2 * 0.5  # 1/sqrt(2*pi), as torch's kernel writes it
_TANH_BETA = 1.41421356237309504880 * 1.12837916709551257390 * 0.5  # sqrt(2/pi)
_TANH_KAPPA = 0.044715


def _same_shape(a: Shape, **attrs) -> Shape:
    return tuple(a)


# ---------------------------------------------------------------- leaky_relu


def _leaky_relu(a, negative_slope=0.01):
    return np.where(np.greater(a, 0), a, a * negative_slope)


def _leaky_relu_backward(g, a, negative_slope=0.01):
    # leaky_relu_backward: self > 0 ? grad : grad * negative_slope (the slope at 0 too).
    return np.where(np.greater(a, 0), g, g * negative_slope)


def _leaky_relu_grad(g, out, a, negative_slope=0.01):
    return call("leaky_relu_backward", g, a, negative_slope=negative_slope)


def _leaky_relu_form(sp, a, shapes=((),), negative_slope=0.01):
    return sp.Max(0, a) + _number(sp, negative_slope) * sp.Min(0, a)


# ---------------------------------------------------------------- elu and selu


def _elu(a, alpha=1.0, scale=1.0):
    return np.where(np.greater(a, 0), a * scale, np.expm1(a) * (alpha * scale))


def _scalar_nan(a) -> np.ndarray:
    """Where torch 2.13's CPU backward kernel meets a nan in its scalar loop, not its vector one.

    Its vectorized loop (AVX2: 2 vectors of 4 doubles or 8 floats per step) covers the first
    n // 8 * 8 elements (16 for float32) in memory order and a scalar loop the rest; the two
    write the comparison the other way round, so a nan input's grad differs between them
    (hardtanh: 0 vs grad; elu: nan vs grad * scale). gradcli's arrays are C-ordered."""
    if not isinstance(a, (np.ndarray, np.generic)) or a.dtype.kind != "f":
        # batched points (no one memory order): the scalar rule
        return np.False_
    a = np.asarray(a)
    width = 16 if a.dtype == np.float32 else 8
    vector = np.arange(a.size) < a.size // width * width
    return np.isnan(a) & ~vector.reshape(a.shape)


def _elu_backward(g, a, alpha=1.0, scale=1.0):
    # elu_backward (is_result=False): self > 0 ? grad * scale : grad * alpha * scale * exp(self);
    # a nan input gets nan in torch's vector loop, grad * scale in its scalar one.
    grad = np.where(np.greater(a, 0), g * scale, g * (alpha * scale) * np.exp(a))
    return np.where(_scalar_nan(a), g * scale, grad)


def _elu_double_backward(gg, g, a, alpha=1.0, scale=1.0):
    # FunctionsManual's elu_double_backward (is_result=False, input_scale=1):
    # elu_backward(grad * grad_output, self) * (self < 0): the negative side's slope, 0 at 0
    return call("elu_backward", gg * g, a, alpha=alpha, scale=scale) * np.less(a, 0)


def _elu_grad(g, out, a, alpha=1.0, scale=1.0):
    return call("elu_backward", g, a, alpha=alpha, scale=scale)


def _elu_form(sp, a, shapes=((),), alpha=1.0):
    return sp.Piecewise((a, a > 0), (_number(sp, alpha) * (sp.exp(a) - 1), True))


# ---------------------------------------------------------------- gelu


def _gelu(a, approximate="none"):
    if approximate == "tanh":
        inner = _TANH_BETA * (a + _TANH_KAPPA * (a * a * a))
        return 0.5 * a * (1 + np.tanh(inner))
    return a * 0.5 * (1 + erf(a * _SQRT1_2))


def _gelu_grad(g, out, a, approximate="none"):
    return call("gelu_backward", g, a, approximate=approximate)


def _gelu_double_backward(gg, g, a, approximate="none"):
    """gelu''(x) * gg * g: the slope of gelu_backward in its input."""
    if approximate == "tanh":
        inner = _TANH_BETA * (1 + 3 * _TANH_KAPPA * a * a)  # u'
        tanh_inner = np.tanh(_TANH_BETA * (a + _TANH_KAPPA * (a * a * a)))
        sech2 = 1 - tanh_inner * tanh_inner
        second = sech2 * (
            inner + 0.5 * a * (6 * _TANH_BETA * _TANH_KAPPA * a - 2 * tanh_inner * inner * inner)
        )
        return gg * g * second
    pdf = _GELU_PDF * np.exp(a * a * -0.5)
    return gg * g * (2 * pdf - a * a * pdf)


def _gelu_backward(g, a, approximate="none"):
    # gelu_backward, term for term as torch's kernel computes it.
    if approximate == "tanh":
        x_sq = a * a
        tanh_inner = np.tanh(_TANH_BETA * (a + _TANH_KAPPA * (x_sq * a)))
        left_derivative = 0.5 * (1 + tanh_inner)
        inner_derivative = _TANH_BETA * (1 + 3 * _TANH_KAPPA * x_sq)
        right_derivative = 0.5 * a * (1 - tanh_inner * tanh_inner) * inner_derivative
        return g * (left_derivative + right_derivative)
    cdf = 0.5 * (1 + erf(a * _SQRT1_2))
    pdf = _GELU_PDF * np.exp(a * a * -0.5)
    return g * (cdf + a * pdf)


def _gelu_form(sp, a, shapes=((),), approximate="none"):
    if approximate == "tanh":
        inner = sp.sqrt(2 / sp.pi) * (a + sp.Float(_TANH_KAPPA) * a**3)
        return a * (1 + sp.tanh(inner)) / 2
    return a * (1 + sp.erf(a / sp.sqrt(2))) / 2


def _gelu_backward_form(sp, g, a, approximate="none"):
    if approximate == "tanh":  # d/dx of the tanh form, as sympy writes it
        x = sp.Dummy("x", real=True)
        return g * sp.diff(_gelu_form(sp, x, approximate="tanh"), x).xreplace({x: a})
    return g * ((1 + sp.erf(a / sp.sqrt(2))) / 2 + a * sp.exp(-(a**2) / 2) / sp.sqrt(2 * sp.pi))


# ---------------------------------------------------------------- hardtanh


def _hardtanh(a, min_val=-1.0, max_val=1.0):
    # the bounds as constants (not np.maximum's pick of x at a tie): the slope at a bound
    # is then 0, as hardtanh_backward's; nan stays nan.
    return np.where(np.less_equal(a, min_val), min_val, np.where(np.greater_equal(a, max_val), max_val, a))


def _hardtanh_backward(g, a, min_val=-1.0, max_val=1.0):
    # hardtanh_backward: grad strictly inside (min_val, max_val), else 0 (the bounds included;
    # a nan input gets 0 in torch's vector loop, grad in its scalar one).
    inside = np.logical_and(np.greater(a, min_val), np.less(a, max_val))
    return np.where(np.logical_or(inside, _scalar_nan(a)), g, 0.0)


def _hardtanh_grad(g, out, a, min_val=-1.0, max_val=1.0):
    return call("hardtanh_backward", g, a, min_val=min_val, max_val=max_val)


def _hardtanh_shape(a: Shape, min_val=-1.0, max_val=1.0) -> Shape:
    if min_val > max_val:
        raise ShapeError("min_val cannot be greater than max_val")
    return tuple(a)


def _hardtanh_form(sp, a, shapes=((),), min_val=-1.0, max_val=1.0):
    return sp.Min(sp.Max(a, _number(sp, min_val)), _number(sp, max_val))


# ---------------------------------------------------------------- logsigmoid, silu, mish


def _logsigmoid(a):
    # log_sigmoid_forward: min(x, 0) - log1p(exp(-|x|)), stable for large |x|.
    return np.minimum(a, 0) - np.log1p(np.exp(-np.abs(a)))


def _logsigmoid_grad(g, out, a):
    return call("log_sigmoid_backward", g, a)


def _log_sigmoid_double_backward(gg, g, a):
    # log_sigmoid_double_backward(grad * grad_output, self): z = sigmoid(self); grad * (z - 1) * z
    z = 1 / (1 + np.exp(-a))
    return gg * g * (z - 1) * z


def _log_sigmoid_backward(g, a):
    negative = np.less(a, 0)
    z = np.exp(-np.abs(a))
    return g * (np.where(negative, 1.0, 0.0) - np.where(negative, 1.0, -1.0) * (z / (1 + z)))


def _silu(a):
    return a / (1 + wide(np.exp, -a))


def _one_minus(t, like):
    """1 - t as torch's C++ `1.0 - t` records it: a tensor of ones minus t (SubBackward0)."""
    return call("sub", np.ones(np.shape(like)), t)


def _silu_grad(g, out, a):
    # torch's infinitely_differentiable_silu_backward (what create_graph records, op by op):
    # grad_output * sigmoid * (1.0 + input * (1.0 - sigmoid)); the same numbers as silu_backward
    sigmoid = call("sigmoid", a)
    return g * sigmoid * (1 + a * _one_minus(sigmoid, a))


def _mish(a):
    return a * np.tanh(np.log1p(np.exp(a)))


def _mish_grad(g, out, a):
    # torch's infinitely_differentiable_mish_backward: tanh(log1p(exp(x))) + x * sigmoid(x) *
    # (1 - tanh(...)**2), op by op (above x = 20 the tanh is 1.0 either way)
    sigmoid = call("sigmoid", a)
    tanh_softplus = call("tanh", call("log1p", call("exp", a)))
    return g * (tanh_softplus + a * sigmoid * _one_minus(tanh_softplus * tanh_softplus, a))


OPS: tuple[Op, ...] = (
    Op(
        "leaky_relu",
        "leaky_relu(x) or leaky_relu(x, 0.2)",
        forward=_leaky_relu,
        vjp=(_leaky_relu_grad,),
        sympy=_leaky_relu_form,
        grad_fn="LeakyReluBackward0",
        torch="torch.nn.functional.leaky_relu",
        method=False,
        # negative_slope is not part of the elementwise text forms: a tensor-level record
        elementwise=False,
        params=(Param("negative_slope", 0.01, "number"),),
        infer_shape=_same_shape,
    ),
    Op(
        "elu",
        "elu(x) or elu(x, alpha=1.0)",
        forward=_elu,
        vjp=(_elu_grad,),
        sympy=_elu_form,
        grad_fn="EluBackward0",
        torch="torch.nn.functional.elu",
        method=False,
        elementwise=False,
        params=(Param("alpha", 1.0, "number"),),
        infer_shape=_same_shape,
    ),
    _unary(
        "selu",
        lambda a: _elu(a, SELU_ALPHA, SELU_SCALE),
        lambda g, out, a: call("elu_backward", g, a, alpha=SELU_ALPHA, scale=SELU_SCALE),
        lambda sp, a: (
            sp.Float(SELU_SCALE, 17)
            * sp.Piecewise((a, a > 0), (sp.Float(SELU_ALPHA, 17) * (sp.exp(a) - 1), True))
        ),
        "EluBackward0",
        torch="torch.nn.functional.selu",
        method=False,
        text="1.0507009873554805*Piecewise(({0}, {0} > 0), (1.6732632423543772*exp({0}) - 1.6732632423543772, True))",
    ),
    Op(
        "gelu",
        "gelu(x) or gelu(x, approximate='tanh')",
        forward=_gelu,
        vjp=(_gelu_grad,),
        sympy=_gelu_form,
        grad_fn="GeluBackward0",
        torch="torch.nn.functional.gelu",
        method=False,
        elementwise=False,
        params=(
            Param(
                "approximate", "none", "choice", ("none", "tanh"), keyword_only=True,
                refusal="approximate argument must be either none or tanh.",
            ),
        ),
        infer_shape=_same_shape,
    ),
    _unary(
        "silu",
        _silu,
        _silu_grad,
        lambda sp, a: a / (1 + sp.exp(-a)),
        "SiluBackward0",
        torch="torch.nn.functional.silu",
        method=False,
        text="{0}/(1 + exp(-{0}))",
    ),
    Op(
        "hardtanh",
        "hardtanh(x) or hardtanh(x, min_val=-1.0, max_val=1.0)",
        forward=_hardtanh,
        vjp=(_hardtanh_grad,),
        sympy=_hardtanh_form,
        grad_fn="HardtanhBackward0",
        torch="torch.nn.functional.hardtanh",
        method=False,
        elementwise=False,
        params=(Param("min_val", -1.0, "number"), Param("max_val", 1.0, "number")),
        infer_shape=_hardtanh_shape,
    ),
    _unary(
        "logsigmoid",
        _logsigmoid,
        _logsigmoid_grad,
        lambda sp, a: -sp.log(1 + sp.exp(-a)),
        "LogSigmoidBackward0",
        torch="torch.nn.functional.logsigmoid",
        method=False,
        text="-log(1 + exp(-{0}))",
    ),
    _unary(
        "mish",
        _mish,
        _mish_grad,
        lambda sp, a: a * sp.tanh(sp.log(1 + sp.exp(a))),
        "MishBackward0",
        torch="torch.nn.functional.mish",
        method=False,
        text="{0}*tanh(log(exp({0}) + 1))",
    ),
)

# Calls PyTorch records as other nodes.
COMPOSITES: tuple[Composite, ...] = (
    Composite(
        "relu6",
        1,
        (),
        lambda apply, x: apply("hardtanh", x, min_val=0.0, max_val=6.0),
        torch="torch.nn.functional.relu6",
        derivative="hardtanh(x, 0, 6) (HardtanhBackward0)",
    ),
    Composite(
        "softsign",
        1,
        (),
        lambda apply, x: apply("div", x, apply("add", apply("abs", x), 1.0)),
        torch="torch.nn.functional.softsign",
        derivative="x / (abs(x) + 1) (AbsBackward0, AddBackward0, DivBackward0)",
    ),
    Composite(
        "tanhshrink",
        1,
        (),
        lambda apply, x: apply("sub", x, apply("tanh", x)),
        torch="torch.nn.functional.tanhshrink",
        derivative="x - tanh(x) (TanhBackward0, SubBackward0)",
    ),
)


# PyTorch's fused backward kernels of these activations: under create_graph=True each is one
# node (EluBackwardBackward0, ...) whose own rules follow derivatives.yaml: in grad_output the
# kernel again, in self the kernel's slope (zero for the piecewise-linear ones).
def _zeros_of(position: int):
    return lambda gg, _, *xs, **attrs: np.zeros(np.shape(xs[position]))


KERNELS: tuple[Op, ...] = (
    kernel(
        "elu_backward",
        _elu_backward,
        (
            lambda gg, _, g, a, alpha=1.0, scale=1.0: call("elu_backward", gg, a, alpha=alpha, scale=scale),
            lambda gg, _, g, a, alpha=1.0, scale=1.0: _elu_double_backward(gg, g, a, alpha, scale),
        ),
        "EluBackwardBackward0",
        form=lambda sp, g, a, alpha=1.0, scale=1.0: sp.Piecewise(
            (g * number(sp, scale), a > 0), (g * number(sp, alpha * scale) * sp.exp(a), True)
        ),
    ),
    kernel(
        "leaky_relu_backward",
        _leaky_relu_backward,
        (
            lambda gg, _, g, a, negative_slope=0.01: call(
                "leaky_relu_backward", gg, a, negative_slope=negative_slope
            ),
            _zeros_of(1),
        ),
        "LeakyReluBackwardBackward0",
        form=lambda sp, g, a, negative_slope=0.01: sp.Piecewise(
            (g, a > 0), (g * number(sp, negative_slope), True)
        ),
    ),
    kernel(
        "hardtanh_backward",
        _hardtanh_backward,
        (
            lambda gg, _, g, a, min_val=-1.0, max_val=1.0: call(
                "hardtanh_backward", gg, a, min_val=min_val, max_val=max_val
            ),
            _zeros_of(1),
        ),
        "HardtanhBackwardBackward0",
        form=lambda sp, g, a, min_val=-1.0, max_val=1.0: sp.Piecewise(
            (0, a <= number(sp, min_val)), (0, a >= number(sp, max_val)), (g, True)
        ),
    ),
    kernel(
        "log_sigmoid_backward",
        _log_sigmoid_backward,
        (
            lambda gg, _, g, a: call("log_sigmoid_backward", gg, a),
            lambda gg, _, g, a: _log_sigmoid_double_backward(gg, g, a),
        ),
        "LogSigmoidBackwardBackward0",
        form=lambda sp, g, a: g / (1 + sp.exp(a)),
    ),
    kernel(
        "gelu_backward",
        _gelu_backward,
        (
            lambda gg, _, g, a, approximate="none": call("gelu_backward", gg, a, approximate=approximate),
            lambda gg, _, g, a, approximate="none": _gelu_double_backward(gg, g, a, approximate),
        ),
        "GeluBackwardBackward0",
        form=_gelu_backward_form,
    ),
)
