"""The symbolic interpretation for every op, checked against the op's own VJP rule.

The symbolic layer differentiates each elementwise op's sympy form (or uses the record's
`sym_deriv` where PyTorch's convention differs from sympy's, relu'(0) = 0); every other op
states a `sym_vjp`. So for each registry op, on its first case (op_cases.example) taken at
one scalar point, the printed `grad_symbolic` evaluated there must equal the gradient the
numeric rule computes, and a record without what the symbolic layer needs fails here,
not in a user's hands. Ops whose symbolic gradient is an opaque function of tensors
(softmax_backward(...), a loss's backward) must still build and print parsable text.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp
from op_cases import example
from sympy.parsing.sympy_parser import parse_expr

from gradcli import grad
from gradcli.ops import OPS

DIFFERENTIABLE = sorted(
    op.name for op in OPS if op.differentiable and op.size_of is None and op.grad_fn != "NotImplemented"
)
ELEMENTWISE = {op.name for op in OPS if op.elementwise}


def _scalar_point(values: dict) -> dict:
    """The first element of each input: elementwise notation is exact for scalars."""
    return {n: np.ravel(np.asarray(v))[0].item() for n, v in values.items()}


def _evaluate(text: str, point: dict[str, float]) -> float:
    symbols = {n: sp.Symbol(n, real=True) for n in point}
    expr = parse_expr(text, local_dict={**symbols, "Heaviside": sp.Heaviside})
    value = sp.N(expr.subs({symbols[n]: sp.Float(v, 30) for n, v in point.items()}), 30)
    return complex(value).real if value.is_number else math.nan


@pytest.mark.parametrize("name", sorted(set(DIFFERENTIABLE) & ELEMENTWISE))
def test_symbolic_gradient_of_an_elementwise_op_equals_its_vjp_rule(name: str) -> None:
    program, at, const = example(name)
    at, const = _scalar_point(at), _scalar_point(const)
    result = grad(program, at, const)
    for leaf, numeric in result.grads.items():
        text = result.grad_symbolic[leaf]
        if numeric is None:
            assert text is None, leaf
            continue
        assert text is not None, f"{name}: no symbolic gradient for {leaf}"
        got = _evaluate(text, {**at, **const})
        assert got == pytest.approx(float(numeric), rel=1e-9, abs=1e-12), (leaf, text)


@pytest.mark.parametrize("name", sorted(set(DIFFERENTIABLE) - ELEMENTWISE))
def test_symbolic_gradient_of_every_other_op_builds_and_parses(name: str) -> None:
    program, at, const = example(name)
    result = grad(program, at, const)
    for leaf, text in result.grad_symbolic.items():
        if text is not None:
            assert isinstance(parse_expr(text, local_dict={"Heaviside": sp.Heaviside}), sp.Basic), leaf
