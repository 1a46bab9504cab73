"""Elementwise functions of one tensor: trigonometric, exponential, activations."""

from __future__ import annotations

import numpy as np

from .core import (
    Op,
    _sgn,
    _sigmoid,
    _softplus,
    _softplus_grad,
    _unary,
    call,
)
from .kernels import kernel, number

OPS: tuple[Op, ...] = (
    _unary(
        "sin",
        np.sin,
        lambda g, out, a: g * np.cos(a),
        lambda sp, a: sp.sin(a),
        "SinBackward0",
        text="sin({0})",
    ),
    _unary(
        "cos",
        np.cos,
        lambda g, out, a: g * -np.sin(a),
        lambda sp, a: sp.cos(a),
        "CosBackward0",
        text="cos({0})",
    ),
    _unary(
        "tan",
        np.tan,
        # derivatives.yaml: grad * (1 + result.pow(2))
        lambda g, out, a: g * (1 + call("pow", out, 2.0)),
        lambda sp, a: sp.tan(a),
        "TanBackward0",
        "x != pi/2 + k*pi",
        text="tan({0})",
    ),
    _unary(
        "asin",
        np.arcsin,
        # derivatives.yaml: grad * (-self * self + 1).rsqrt()
        lambda g, out, a: g * call("rsqrt", -a * a + 1),
        lambda sp, a: sp.asin(a),
        "AsinBackward0",
        "-1 <= x <= 1",
        text="asin({0})",
    ),
    _unary(
        "acos",
        np.arccos,
        # derivatives.yaml: grad * -((-self * self + 1).rsqrt())
        lambda g, out, a: g * -call("rsqrt", -a * a + 1),
        lambda sp, a: sp.acos(a),
        "AcosBackward0",
        "-1 <= x <= 1",
        text="acos({0})",
    ),
    _unary(
        "atan",
        np.arctan,
        lambda g, out, a: g / (a * a + 1),
        lambda sp, a: sp.atan(a),
        "AtanBackward0",
        text="atan({0})",
    ),
    _unary(
        "sinh",
        np.sinh,
        lambda g, out, a: g * np.cosh(a),
        lambda sp, a: sp.sinh(a),
        "SinhBackward0",
        text="sinh({0})",
    ),
    _unary(
        "cosh",
        np.cosh,
        lambda g, out, a: g * np.sinh(a),
        lambda sp, a: sp.cosh(a),
        "CoshBackward0",
        text="cosh({0})",
    ),
    _unary(
        "tanh",
        np.tanh,
        lambda g, out, a: call("tanh_backward", g, out),
        lambda sp, a: sp.tanh(a),
        "TanhBackward0",
        text="tanh({0})",
    ),
    _unary(
        "exp",
        np.exp,
        lambda g, out, a: g * out,
        lambda sp, a: sp.exp(a),
        "ExpBackward0",
        text="exp({0})",
    ),
    _unary(
        "log",
        np.log,
        lambda g, out, a: g / a,
        lambda sp, a: sp.log(a),
        "LogBackward0",
        "x > 0 (log(0) = -inf)",
        text="log({0})",
    ),
    _unary(
        "log1p",
        np.log1p,
        lambda g, out, a: g / (a + 1),
        lambda sp, a: sp.log(1 + a),
        "Log1PBackward0",
        "x > -1",
        text="log({0} + 1)",
    ),
    _unary(
        "sqrt",
        np.sqrt,
        lambda g, out, a: g / (2 * out),
        lambda sp, a: sp.sqrt(a),
        "SqrtBackward0",
        "x >= 0 (sqrt'(0) = inf)",
        text="sqrt({0})",
    ),
    _unary(
        "abs",
        np.abs,
        lambda g, out, a: g * _sgn(a),
        lambda sp, a: sp.Abs(a),
        "AbsBackward0",
        text="Abs({0})",
    ),
    _unary(
        "sigmoid",
        _sigmoid,
        lambda g, out, a: call("sigmoid_backward", g, out),
        lambda sp, a: 1 / (1 + sp.exp(-a)),
        "SigmoidBackward0",
        text="1/(1 + exp(-{0}))",
    ),
    _unary(
        "relu",
        lambda a: np.maximum(a, 0),
        # threshold_backward: 0 where out <= 0, else g; so relu'(nan) = 1, as in torch.
        lambda g, out, a: call("threshold_backward", g, out, threshold=0.0),
        lambda sp, a: sp.Max(0, a),
        "ReluBackward0",
        text="Max(0, {0})",
    ),
    _unary(
        "softplus",
        _softplus,
        # derivatives.yaml: softplus_backward(grad, self, beta=1, threshold=20), a fused kernel
        lambda g, out, a: call("softplus_backward", g, a),
        lambda sp, a: sp.log(1 + sp.exp(a)),
        "SoftplusBackward0",
        torch="torch.nn.functional.softplus",
        text="log(exp({0}) + 1)",
    ),
)


def _softplus_double_backward(gg, g, a, beta=1.0, threshold=20.0):
    """FunctionsManual's softplus_double_backward(grad * grad_output, self, beta, threshold):
    sigmoid_backward(grad, (x*beta).sigmoid()) * (x*beta < threshold) * beta."""
    x = a * beta
    return call("sigmoid_backward", gg * g, call("sigmoid", x)) * np.less(x, threshold) * beta


# The fused kernel softplus's VJP calls (SoftplusBackwardBackward0 under create_graph).
KERNELS: tuple[Op, ...] = (
    kernel(
        "softplus_backward",
        lambda g, a: _softplus_grad(g, None, a),
        (
            lambda gg, _, g, a: call("softplus_backward", gg, a),
            lambda gg, _, g, a: _softplus_double_backward(gg, g, a),
        ),
        "SoftplusBackwardBackward0",
        form=lambda sp, g, a, beta=1.0, threshold=20.0: sp.Piecewise(
            (g, a * number(sp, beta) > number(sp, threshold)),
            (g / (1 + sp.exp(-a * number(sp, beta))), True),
        ),
    ),
)
