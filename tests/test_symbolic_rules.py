"""The symbolic interpretation for every op, checked against the op's own VJP rule.

The symbolic layer runs each op's VJP rule on a tape of formulas (traced.py without
numbers) and reads the gradient graph it records with each record's own form. So for each
registry op, on its first case (op_cases.example) taken at one scalar point, the printed
`grad_symbolic` evaluated there must equal the gradient the numeric rule computes, and a
record without what the symbolic layer needs fails here, not in a user's hands. Ops whose
symbolic gradient is an opaque function of tensors (softmax_backward(...), a loss's
backward) must still build and print parsable text.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import sympy as sp
from op_cases import example
from sympy.parsing.sympy_parser import parse_expr

from gradcli import grad
from gradcli.ops import OPS
from gradcli.symbolic import parse_names


def _sympy_function(name: str) -> bool:
    """sympy's own functions (floor, erfinv, Abs) read as sympy's; helpers such as
    sp.transpose or sp.trace are not the tensor functions gradcli's text names."""
    found = getattr(sp, name, None)
    return name in ("sqrt", "Max", "Min", "Piecewise") or (
        isinstance(found, type) and issubclass(found, sp.Function) and name != "transpose"
    )


DIFFERENTIABLE = sorted(
    op.name for op in OPS if op.differentiable and op.size_of is None and op.grad_fn != "NotImplemented"
)
ELEMENTWISE = {op.name for op in OPS if op.elementwise}


def _scalar_point(values: dict) -> dict:
    """The first element of each input: elementwise notation is exact for scalars."""
    return {n: np.ravel(np.asarray(v))[0].item() for n, v in values.items()}


def _parse(text: str, symbols: dict) -> sp.Expr:
    """The text as sympy reads it (test-only), gradcli's tensor functions opaque (not sympy's
    own transpose or trace), the comparisons and where() as gradcli's evaluating ones."""
    calls = {name: sp.Function(name) for name in re.findall(r"(\w+)\(", text) if not _sympy_function(name)}
    return parse_expr(text, local_dict={**calls, **symbols, **parse_names()})


def _evaluate(text: str, point: dict[str, float]) -> float:
    symbols = {n: sp.Symbol(n, real=True) for n in point}
    expr = _parse(text, symbols)
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
            assert isinstance(_parse(text, {}), sp.Basic), leaf
