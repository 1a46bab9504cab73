"""PyTorch's fused backward kernels, as registry ops of their own.

PyTorch writes some VJPs as one kernel (tanh_backward, threshold_backward, ...), and under
create_graph=True that kernel is a node with its own grad_fn (TanhBackwardBackward0) and
its own rules in derivatives.yaml. The ops' VJPs call these by name (core.call), so the
numeric pass runs the kernel's forward and the traced pass records it. They are not part
of the program language: `gradcli ops` does not list them and programs cannot call them.
"""

from __future__ import annotations

import numpy as np

from .core import Batching, Op, _sgn, call
from .summation import torch_sum


def _sum_to(a, size):
    """Sum over the dims where `size` is 1 and `a` is not: the adjoint of broadcasting."""
    a = np.asarray(a)
    axes = tuple(i for i, (n, m) in enumerate(zip(a.shape, size)) if m == 1 and n != 1)
    return torch_sum(a, axis=axes, keepdims=True) if axes else a.copy()


def number(sp, value: float):
    """A kernel's attribute as sympy writes it: 1 rather than 1.0."""
    return sp.Integer(int(value)) if float(value).is_integer() and abs(value) < 1e15 else sp.Float(value)


def kernel(name: str, forward, vjp, grad_fn: str, form=None, **extra) -> Op:
    """A backward kernel's record: internal, so `gradcli ops` and programs do not see it.

    `form` is the kernel's forward as a formula, (sp, *operand forms, **attrs) -> sympy: the
    symbolic reading of a gradient graph (symbolic.read) prints it and differentiates nothing.
    Without one the kernel stays an opaque function of its operands."""
    return Op(
        name,
        f"(internal) {name}",
        forward=forward,
        vjp=vjp,
        sympy=form or (lambda sp, *forms, **attrs: sp.Function(name)(*forms)),
        grad_fn=grad_fn,
        function=False,
        method=False,
        torch=f"torch.ops.aten.{name}",
        **extra,
    )


def _tanh_backward(g, out):
    """g * (1 - out * out). torch's float32 kernel fuses 1 - out * out into one multiply-add,
    which double computes exactly (element by element, so every evaluation path agrees)."""
    if type(out) is np.ndarray and out.dtype == np.float32:
        return g * (1 - np.square(out.astype(np.float64))).astype(np.float32)
    return g * (1 - out * out)


def _sigmoid_backward(g, out):
    return g * (1 - out) * out


def _threshold_backward(g, a, threshold=0.0):
    # 0 where a <= threshold, g elsewhere: a nan input passes g through, as in torch
    return np.where(np.less_equal(a, threshold), 0.0, g)


KERNELS: tuple[Op, ...] = (
    kernel(
        "sgn",
        _sgn,
        (lambda g, out, a: np.zeros(np.shape(a)),),
        "SgnBackward0",
        form=lambda sp, a: sp.sign(a),
    ),
    kernel(
        "sum_to",
        _sum_to,
        (lambda g, out, a, size: call("expand", g, size=tuple(np.shape(a))),),
        "SumBackward1",
        form=lambda sp, a, shapes=((),), size=(): sp.Function("sum_over")(  # symbolic.SUM
            a, *(i for i, (n, m) in enumerate(zip(shapes[0], size)) if m == 1 and n != 1)
        ),
        elementwise=False,
        saves_tensors=False,
        infer_shape=lambda a, size: tuple(size),
        batching=Batching("along", shapes=("size",)),
    ),
    kernel(
        "tanh_backward",
        _tanh_backward,
        (
            lambda gg, _, g, out: call("tanh_backward", gg, out),
            lambda gg, _, g, out: gg * (-2 * out * g),
        ),
        "TanhBackwardBackward0",
        form=lambda sp, g, out: g * (1 - out**2),
    ),
    kernel(
        "sigmoid_backward",
        _sigmoid_backward,
        (
            lambda gg, _, g, out: call("sigmoid_backward", gg, out),
            lambda gg, _, g, out: gg * g * (-2 * out + 1),
        ),
        "SigmoidBackwardBackward0",
        form=lambda sp, g, out: g * (1 - out) * out,
    ),
    kernel(
        "threshold_backward",
        _threshold_backward,
        (
            lambda gg, _, g, a, threshold=0.0: call("threshold_backward", gg, a, threshold=threshold),
            lambda gg, _, g, a, threshold=0.0: np.zeros(np.shape(a)),
        ),
        "ThresholdBackwardBackward0",
        form=lambda sp, g, a, threshold=0.0: sp.Piecewise((0, a <= number(sp, threshold)), (g, True)),
    ),
)
