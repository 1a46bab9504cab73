"""Symbolic N-th derivatives are the rules run again, so they agree with torch at kinks.

For every elementwise op, `op(x)*x` at ordinary points and at the kinks (0, +-1): the
printed 2nd and 3rd derivative, evaluated, equals torch's repeated
torch.autograd.grad(g.sum(), x, create_graph=True). sympy's own d/dx would say relu''
is DiracDelta and relu'(0) is 1/2; the rules say 0, as torch does.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import sympy as sp
from oracle import run_torch, torch

from gradcli import api, hessian
from gradcli.ops import REGISTRY
from gradcli.ops.elementwise_math import erfinv

X = sp.Symbol("x", real=True)
Y = sp.Symbol("y", real=True)
POINTS = (-1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0)

# How the formulas' torch vocabulary evaluates: the comparisons and where() a rule records
# are registry ops that sympy does not know.
_EVALUATE = {
    "where": lambda condition, a, b: np.where(np.asarray(condition) != 0, a, b),
    "gt": lambda a, b: np.greater(a, b) * 1.0,
    "lt": lambda a, b: np.less(a, b) * 1.0,
    "ge": lambda a, b: np.greater_equal(a, b) * 1.0,
    "le": lambda a, b: np.less_equal(a, b) * 1.0,
    "eq": lambda a, b: np.equal(a, b) * 1.0,
    "ne": lambda a, b: np.not_equal(a, b) * 1.0,
    "masked_fill": lambda a, mask, value: np.where(np.asarray(mask) != 0, value, a),
    "erf": np.vectorize(math.erf, otypes=[float]),
    "erfinv": lambda a: erfinv(np.asarray(a, dtype=np.float64)),
}


def _torch_function(name: str):
    """The op's torch callable, from its record's spelling (torch.nn.functional.softplus)."""
    found = torch
    for part in (REGISTRY[name].torch or f"torch.{name}").split(".")[1:]:
        found = getattr(found, part)
    return found


UNARY_OPS = [
    name
    for name, op in REGISTRY.items()
    if op.elementwise
    and op.arity == 1
    and op.function
    and op.differentiable
    and not op.syntax.startswith("(internal)")
]
F = torch.nn.functional
# The activations whose records take arguments (so they are not elementwise records), at kinks
ACTIVATIONS = {
    "elu(x)*x": lambda x: F.elu(x) * x,
    "leaky_relu(x, 0.2)*x": lambda x: F.leaky_relu(x, 0.2) * x,
    "hardtanh(x)*x": lambda x: F.hardtanh(x) * x,
    "relu6(x)*x": lambda x: F.relu6(x) * x,
    "clamp(x, -1, 1)*x": lambda x: torch.clamp(x, -1, 1) * x,
    "gelu(x)": F.gelu,
    "gelu(x, approximate='tanh')": lambda x: F.gelu(x, approximate="tanh"),
    "softsign(x)*x": lambda x: F.softsign(x) * x,
    "where(x > 0, x**2, x)": lambda x: torch.where(x > 0, x**2, x),
    "maximum(x, x*x)": lambda x: torch.maximum(x, x * x),
}


def _evaluate(form: str, **values: float) -> float:
    expr = sp.parse_expr(form, local_dict={"x": X, "y": Y})  # test-only: our own output
    function = sp.lambdify([X, Y], expr, modules=[_EVALUATE, "numpy"])
    with np.errstate(all="ignore"):
        found = function(np.float64(values.get("x", 0.0)), np.float64(values.get("y", 0.0)))
    return float(found) if np.isrealobj(found) else math.nan


def _torch_derivative(program: str, at: dict, path: list[str]) -> float:
    """d/d path[-1] ... d/d path[0], summing in between, as torch.autograd.grad gives it."""
    run = run_torch(program, at)
    return _repeated(run.output, run.leaves, path)


def _repeated(current, leaves: dict, path: list[str]) -> float:
    for name in path:
        if not current.requires_grad:
            return 0.0
        (current,) = torch.autograd.grad(current.sum(), leaves[name], create_graph=True, allow_unused=True)
        if current is None:
            return 0.0
    return float(current.detach())


def _agree(ours: float, theirs: float) -> bool:
    if not math.isfinite(theirs):
        return True  # a singular point: the formula's 0*inf may read as nan; numbers checks it
    return math.isfinite(ours) and math.isclose(ours, theirs, rel_tol=1e-9, abs_tol=1e-9)


def _check_orders(program: str, function, order: int) -> None:
    wrong = []
    for point in POINTS:
        result = api.grad(program, at={"x": point}, order=order)
        form = result.grad_symbolic["x"]
        assert form is not None, f"{program}: no formula at order {order}"
        assert "Derivative" not in form and "DiracDelta" not in form, form
        x = torch.tensor(point, dtype=torch.float64, requires_grad=True)
        theirs = _repeated(function(x), {"x": x}, ["x"] * order)
        ours = _evaluate(form, x=point)
        if not _agree(ours, theirs):
            wrong.append(f"x={point}: formula {form} = {ours}, torch {theirs}")
    assert not wrong, f"{program}, order {order}:\n" + "\n".join(wrong)


@pytest.mark.parametrize("name", UNARY_OPS)
@pytest.mark.parametrize("order", [2, 3])
def test_every_elementwise_op_at_kinks_and_ordinary_points(name, order):
    function = _torch_function(name)
    _check_orders(f"{name}(x)*x", lambda x: function(x) * x, order)


@pytest.mark.parametrize("program", list(ACTIVATIONS))
@pytest.mark.parametrize("order", [2, 3])
def test_activations_with_arguments_at_their_kinks(program, order):
    _check_orders(program, ACTIVATIONS[program], order)


@pytest.mark.parametrize(
    "program",
    [
        "relu(x)*x",
        "where(x > 0, x**2, x)",
        "maximum(x, y)*x",
        "minimum(x, y)*x*y",
        "clamp(x, -1, 1)*x",
        "hardtanh(x)*x",
        "leaky_relu(x)*x",
        "elu(x)*x",
        "abs(x)*x*y",
        "x**3*y + relu(x)*y",
        "atan2(x, y)*x",
        "sigmoid(x*y)",
    ],
)
def test_mixed_and_second_partials_follow_torch(program):
    for point in (0.0, 1.0, -0.5):
        at = {"x": point, "y": 1.0 if point == 0.0 else 0.5}
        if not re.search(r"\by\b", program):
            at.pop("y")
        found = hessian(program, at=at).symbolic
        for a in at:
            for b in at:
                form = found[a][b]
                assert form is not None and "Derivative" not in form
                theirs = _torch_derivative(program, at, [a, b])
                assert _agree(_evaluate(form, **at), theirs), (program, at, a, b, form, theirs)


def test_relu_second_derivative_is_zero_not_a_delta():
    # sympy's d2/dx2 of x*relu(x) is x*DiracDelta(x) + 2*Heaviside(x): 1 at 0, where torch says 0
    result = api.grad("relu(x)*x", at={"x": 0.0}, order=2)
    assert _evaluate(result.grad_symbolic["x"], x=0.0) == 0.0 == float(result.grads["x"])
    assert api.grad("relu(x)*x", at={"x": 0.0}, order=3).grad_symbolic["x"] == "0"


def test_where_differentiates_as_a_selection():
    form = api.grad("where(x > 0, x**2, x)", at={"x": 1.0}, order=2).grad_symbolic["x"]
    assert "Derivative" not in form and "where" in form
    assert _evaluate(form, x=1.0) == 2.0 and _evaluate(form, x=-1.0) == 0.0
